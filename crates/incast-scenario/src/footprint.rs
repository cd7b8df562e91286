//! What a scenario's network will cost in memory, estimated before the run from its size alone,
//! so that `run.max_network_bytes` can refuse a network too large for the machine with a
//! message naming the key, where the run would otherwise grow for minutes and then fail.
//!
//! The estimate counts what grows with the network: each node and its list of ports, each port
//! (its queues, link, counters and its row of the ports table, in the engine and again in the
//! Arrow table handed to Python), the per-host and per-switch tables, the routing tables (one
//! hop-count table per destination switch), each flow's routes each way and its pending events.
//! The bytes per item are the engine's (`incast-sim` checks them against its types' sizes in
//! `footprint_matches_the_engine`), rounded up for the allocator.
//!
//! Calibrated (2026-11-28) against the peak resident memory of `incast run` (`/usr/bin/time`'s
//! maximum resident set) with one flow between the first and the last host, less that of a
//! 4-host star (89 MB: the interpreter, pyarrow and the engine's code); `[switch]` as default:
//!
//! | network | ports | measured | estimated | |
//! |---|---:|---:|---:|---:|
//! | fat tree k = 16 | 6 144 | 13.6 MB | 20.3 MB | +49% |
//! | fat tree k = 32 | 49 152 | 33.4 MB | 50.0 MB | +50% |
//! | fat tree k = 64 | 393 216 | 191 MB | 288 MB | +51% |
//! | fat tree k = 96 | 1 327 104 | 826 MB | 932 MB | +13% |
//! | fat tree k = 160 | 6 144 000 | 4.11 GB | 4.26 GB | +4% |
//! | leaf-spine, 2 racks of 2, 250 000 spines | 1 000 008 | 593 MB | 709 MB | +20% |
//! | leaf-spine, 2 racks of 2, 10^6 spines | 4 000 008 | 2.59 GB | 2.79 GB | +8% |
//! | leaf-spine, 64 racks of 1000, 64 spines | 136 192 | 63.5 MB | 116 MB | +83% |
//! | star, 10^6 hosts | 2 000 000 | 1.36 GB | 1.50 GB | +10% |
//! | graph: a line of 250 switches, 400 hosts on each | 200 498 | 101 MB | 176 MB | +75% |
//!
//! So the estimate lies above the peak, by 4% to 20% on the networks of a GB or more (those a
//! limit is for) and by up to 83% on smaller ones, where what a run of any size takes and the
//! allocator's rounding weigh more. `estimates_cover_the_measured_peaks` holds it to this table.
//! Flows add their routes and events (each planned flow: its two routes, a pending timer and a
//! start; the routing tables of the switches their routes end at), counted for every flow
//! planned although a run holds only those in flight, so a run of many short flows takes less.
//!
//! The flows' own records and transport state are not counted here: they are `run.max_flows`'s.

use super::spec::{GraphSpec, LoadBalancing, SwitchSpec, TopologySpec};

/// Bytes of a node: the engine's node (72) and the allocation of its list of ports (at least
/// 32 with the allocator's header).
pub const NODE_BYTES: f64 = 104.0;

/// Bytes of an egress port, one queue class, calibrated on the measured peaks above. Its parts:
/// during the run, the engine's port (272), the link it drives (24), its one-queue table (48),
/// its entry in its node's list of ports (4, 8 with the list's doubling) and in the per-port
/// tables (host of the port 4, processor timer 16), 372 in all; at the end, its row of the ports
/// table (the engine's record, 176, with three names, then the Arrow row), of which the peak
/// holds part at once.
pub const PORT_BYTES: f64 = 600.0;

/// Bytes the run takes whatever the network's size (the event calendar of a large network, the
/// results' columns): a floor that keeps the estimate of a small network above what it takes.
const FIXED_BYTES: f64 = 16e6;

/// Bytes of each further strict-priority queue class of a port.
pub const CLASS_BYTES: f64 = 32.0;

/// Bytes of a host beyond its node: its NIC's backlog bound (8), its queue of blocked flows
/// (32), its entries in the host and downlink tables (8).
const HOST_BYTES: f64 = 48.0;

/// Bytes of a switch beyond its node: its shared buffer's slot (8).
const SWITCH_BYTES: f64 = 8.0;

/// Bytes of a graph file's node (its name, 24, and flag, rounded to 32; the name's text is
/// counted apart, twice: in the file's node and in the engine's) and link (40).
const GRAPH_NODE_BYTES: f64 = 32.0;
const GRAPH_LINK_BYTES: f64 = 40.0;

/// Bytes an allocation of a name takes beyond its text (the allocator's header and rounding).
const NAME_OVERHEAD_BYTES: f64 = 16.0;

/// Bytes of one entry of a switch's hop-count table (16 bits), and of the table's entry in the
/// map of tables.
const DISTANCE_BYTES: f64 = 2.0;
const DISTANCE_TABLE_BYTES: f64 = 64.0;

/// Bytes of one port of a stored route (a 32-bit port id).
const ROUTE_PORT_BYTES: f64 = 4.0;

/// Bytes of a host pair's entry in the map of routes stored once per pair (key, offset and
/// length, 24, at the map's load factor).
const ROUTE_PAIR_BYTES: f64 = 48.0;

/// Bytes of a sprayed flow's record of its paths and which it takes next.
const SPRAY_BYTES: f64 = 24.0;

/// Bytes of a pending event in the event heap, and of a flow's start (reserved exactly).
pub const EVENT_BYTES: f64 = 32.0;
const START_BYTES: f64 = 24.0;

/// The most equal-cost paths a sprayed host pair keeps (the engine's `MAX_SPRAY_PATHS`).
pub const MAX_SPRAY_PATHS: u64 = 256;

/// Each port has at most two pending events (serialization done, next arrival at the far end);
/// each flow one live timer.
const EVENTS_PER_PORT: f64 = 2.0;

/// What sizes a network's memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// End hosts.
    pub hosts: u64,
    /// Switches.
    pub switches: u64,
    /// Full-duplex links: each is two egress ports.
    pub links: u64,
    /// Switches with a host: a route's last switch, each with its own hop-count table.
    pub edge_switches: u64,
    /// Ports of the longest route between two hosts (the NIC, one per switch but the last, the
    /// last switch's downlink).
    pub route_ports: u64,
    /// The most equal-cost paths between two hosts (at most [`MAX_SPRAY_PATHS`]).
    pub paths: u64,
    /// Bytes of a graph file's node names, in all.
    pub name_bytes: u64,
}

impl Shape {
    /// The shape of `topology`, from its counts; a graph's is found by walking it.
    pub fn of(topology: &TopologySpec) -> Shape {
        let spread = |paths: u64| paths.clamp(1, MAX_SPRAY_PATHS);
        let racks = |racks: u32, per_rack: u32, spines: u32| Shape {
            hosts: u64::from(racks) * u64::from(per_rack),
            switches: u64::from(racks) + u64::from(spines),
            links: u64::from(racks) * u64::from(per_rack) + u64::from(racks) * u64::from(spines),
            edge_switches: u64::from(racks),
            // NIC, leaf up, spine down, leaf to host (2 inside one rack).
            route_ports: if racks > 1 { 4 } else { 2 },
            // One path per spine between racks.
            paths: if racks > 1 { spread(u64::from(spines)) } else { 1 },
            name_bytes: 0,
        };
        match *topology {
            TopologySpec::Star { hosts, .. } => Shape {
                hosts: u64::from(hosts),
                switches: 1,
                links: u64::from(hosts),
                edge_switches: 1,
                route_ports: 2,
                paths: 1,
                name_bytes: 0,
            },
            // D3 Figure 8: 4 racks of 3 hosts under a root, which has 2 hosts of its own.
            TopologySpec::D3Testbed { .. } => {
                let hosts = u64::from(TopologySpec::D3_TESTBED_HOSTS);
                Shape { hosts, switches: 5, links: hosts + 4, edge_switches: 5, route_ports: 4, paths: 1, name_bytes: 0 }
            }
            TopologySpec::TwoTier { racks: r, hosts_per_rack, .. } => racks(r, hosts_per_rack, 1),
            TopologySpec::LeafSpine { racks: r, hosts_per_rack, spines, .. } => racks(r, hosts_per_rack, spines),
            TopologySpec::FatTree { k, .. } => {
                let k = u64::from(k);
                let hosts = k * k * k / 4;
                // NIC, edge up, aggregation up, core down, aggregation down, edge to host.
                Shape {
                    hosts,
                    switches: 5 * k * k / 4,
                    links: 3 * hosts,
                    edge_switches: k * k / 2,
                    route_ports: 6,
                    paths: spread((k / 2) * (k / 2)),
                    name_bytes: 0,
                }
            }
            TopologySpec::Graph(ref g) => Shape::of_graph(g),
        }
    }

    fn of_graph(g: &GraphSpec) -> Shape {
        let hosts = g.host_links.len() as u64;
        let switches = g.nodes.len() as u64 - hosts;
        let mut edge: Vec<u32> = g.host_links.iter().map(|&l| g.links[l as usize].b).collect();
        edge.sort_unstable();
        edge.dedup();
        // Every route runs through host 0's switch's neighbourhood at most as far as the
        // farthest switch from it, each way (`GraphSpec::reach`), and no route crosses a switch
        // twice.
        let reach = g.reach().into_iter().filter(|&h| h != GraphSpec::UNREACHED).max().unwrap_or(0);
        let crossed = (2 * u64::from(reach) + 1).min(switches);
        Shape {
            hosts,
            switches,
            links: g.links.len() as u64,
            edge_switches: edge.len() as u64,
            route_ports: crossed + 1,
            paths: MAX_SPRAY_PATHS,
            name_bytes: g.nodes.iter().map(|n| n.name.len() as u64).sum(),
        }
    }
}

/// The memory a run's network takes, bytes, in two parts: what the network's size costs (for
/// the topology's keys) and what its flows' routes and events cost (for the workloads').
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footprint {
    /// What the network's size costs: nodes, ports, the per-host and per-switch tables and the
    /// routing tables.
    pub network: f64,
    /// What its flows cost: their routes and pending events.
    pub flows: f64,
}

impl Footprint {
    /// The estimate for `flows` flows (planned, or expected for random arrivals) on a network of
    /// `shape` with `switch`'s queue classes and load balancing.
    pub fn of(shape: &Shape, switch: &SwitchSpec, flows: f64) -> Footprint {
        let f = |n: u64| n as f64;
        let ports = 2.0 * f(shape.links);
        let graph = if shape.name_bytes > 0 {
            let nodes = f(shape.hosts + shape.switches);
            nodes * (GRAPH_NODE_BYTES + 2.0 * NAME_OVERHEAD_BYTES) + 2.0 * f(shape.name_bytes) + f(shape.links) * GRAPH_LINK_BYTES
        } else {
            0.0
        };
        let classes = f64::from(switch.priority_classes.max(1)) - 1.0;
        let network = FIXED_BYTES
            + f(shape.hosts + shape.switches) * NODE_BYTES
            + ports * (PORT_BYTES + classes * CLASS_BYTES + EVENTS_PER_PORT * EVENT_BYTES)
            + f(shape.hosts) * HOST_BYTES
            + f(shape.switches) * SWITCH_BYTES
            + graph;
        // A hop-count table per destination switch a route ends at: a flow's two routes end at
        // two, so no more than twice the flows.
        let tables = f(shape.edge_switches).min(2.0 * flows.ceil()).max(1.0);
        let distances = tables * (f(shape.switches) * DISTANCE_BYTES + DISTANCE_TABLE_BYTES);
        let route = f(shape.route_ports) * ROUTE_PORT_BYTES;
        let pairs = flows.min(f(shape.hosts) * f(shape.hosts));
        let routes = match switch.load_balancing {
            // Each flow's two routes, stored for it when ECMP chose on the way (else once per
            // host pair).
            LoadBalancing::Ecmp => flows * 2.0 * route + pairs * 2.0 * ROUTE_PAIR_BYTES,
            // Every path of a pair each way, stored once per pair, and each flow's turn.
            LoadBalancing::Spray | LoadBalancing::SprayPermute => pairs * 2.0 * (f(shape.paths) * route + ROUTE_PAIR_BYTES) + flows * SPRAY_BYTES,
        };
        let events = flows * (EVENT_BYTES + START_BYTES);
        Footprint { network: network + distances, flows: routes + events }
    }

    /// Both parts.
    pub fn total(&self) -> f64 {
        self.network + self.flows
    }
}

/// The `[topology]` key that sets most of `topology`'s size: what an error about its memory
/// names.
pub fn size_key(topology: &TopologySpec) -> &'static str {
    match *topology {
        TopologySpec::Star { .. } => "topology.hosts",
        TopologySpec::D3Testbed { .. } => "topology.kind",
        TopologySpec::TwoTier { racks, hosts_per_rack, .. } | TopologySpec::LeafSpine { racks, hosts_per_rack, spines: 1, .. } => {
            if racks >= hosts_per_rack {
                "topology.racks"
            } else {
                "topology.hosts_per_rack"
            }
        }
        // The fabric's links (racks x spines) against the hosts' (racks x hosts_per_rack).
        TopologySpec::LeafSpine { racks, hosts_per_rack, spines, .. } => {
            if spines >= hosts_per_rack {
                "topology.spines"
            } else if racks >= hosts_per_rack {
                "topology.racks"
            } else {
                "topology.hosts_per_rack"
            }
        }
        TopologySpec::FatTree { .. } => "topology.k",
        TopologySpec::Graph(_) => "topology.file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{GraphLink, GraphNode, LinkSpec};
    use incast_proto::time::{BitsPerSec, Duration};

    const LINK: LinkSpec = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };

    /// `[switch]` as a scenario without one has it, with `load_balancing`.
    fn switch(load_balancing: LoadBalancing) -> SwitchSpec {
        SwitchSpec {
            buffer: crate::spec::BufferSpec::PerPort { bytes: 100_000 },
            core_buffer: None,
            ecn: crate::spec::EcnSpec::Auto,
            priority_classes: 1,
            host_nic: crate::spec::HostNic::Backlog,
            load_balancing,
        }
    }

    fn fat_tree(k: u32) -> TopologySpec {
        TopologySpec::FatTree { k, host_link: LINK, agg_link: LINK, core_link: LINK }
    }

    fn leaf_spine(racks: u32, hosts_per_rack: u32, spines: u32) -> TopologySpec {
        TopologySpec::LeafSpine { racks, hosts_per_rack, spines, host_link: LINK, fabric_link: LINK }
    }

    /// A line of `switches` switches with `per_switch` hosts on each, named as a graph file
    /// would name them (`s3`, `h3_17`).
    fn line(switches: u32, per_switch: u32) -> TopologySpec {
        let mut nodes: Vec<GraphNode> = (0..switches).map(|i| GraphNode { name: format!("s{i}"), host: false }).collect();
        let mut links: Vec<GraphLink> = Vec::new();
        let mut host_links = Vec::new();
        for i in 0..switches {
            for j in 0..per_switch {
                host_links.push(links.len() as u32);
                links.push(GraphLink { a: nodes.len() as u32, b: i, link: LINK, buffer: None, line: 0 });
                nodes.push(GraphNode { name: format!("h{i}_{j}"), host: true });
            }
        }
        links.extend((1..switches).map(|i| GraphLink { a: i - 1, b: i, link: LINK, buffer: None, line: 0 }));
        TopologySpec::Graph(GraphSpec { file: "line".into(), nodes, links, host_links })
    }

    /// The estimate of one flow on each network of the calibration (the module's table) lies
    /// above the peak measured for it, and below twice it. Measured with `/usr/bin/time`'s
    /// maximum resident set of `incast run` on one flow between the first and the last host,
    /// less the 89 MB of a 4-host star.
    #[test]
    fn estimates_cover_the_measured_peaks() {
        let measured: [(TopologySpec, f64); 10] = [
            (fat_tree(16), 13.6e6),
            (fat_tree(32), 33.4e6),
            (fat_tree(64), 191.1e6),
            (fat_tree(96), 825.5e6),
            (fat_tree(160), 4110e6),
            (leaf_spine(2, 2, 250_000), 593.0e6),
            (leaf_spine(2, 2, 1_000_000), 2588.1e6),
            (leaf_spine(64, 1000, 64), 63.5e6),
            (TopologySpec::Star { hosts: 1_000_000, link: LINK }, 1355.9e6),
            (line(250, 400), 100.9e6),
        ];
        for (topology, peak) in measured {
            let estimate = Footprint::of(&Shape::of(&topology), &switch(LoadBalancing::Ecmp), 1.0).total();
            eprintln!("{:?}: measured {:.1} MB, estimated {:.1} MB ({:.2})", Shape::of(&topology), peak / 1e6, estimate / 1e6, estimate / peak);
            assert!((peak..2.0 * peak).contains(&estimate), "{topology:?}: {estimate} for {peak}");
        }
    }
}
