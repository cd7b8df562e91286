//! The network a scenario describes, built once before the run: the one place that maps the
//! spec to switch settings (buffers and their sharing, ECN thresholds, priority classes) and
//! sets up the transports, whose own disciplines and processors its ports take
//! (`transport::Setups`). The event loop (`sim`) only moves packets through what this module
//! built.

use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::error::{grow_to, reserve, try_vec, Error, ResourceError};
use crate::ids::{FlowId, PortId};
use crate::packet::{PacketKind, RouteCursor};
use crate::port::{BufferLimit, EcnThreshold, Port, SharedPool};
use crate::results::PortRecord;
use crate::routing::{mix, PathSet, Router, MAX_SPRAY_PATHS};
use crate::scenario::{BufferSpec, EcnMark, EcnSpec, GraphSpec, HostNic, LoadBalancing, Protocol, Scenario, SwitchSpec};
use crate::topology::{NodeKind, Topology};
use crate::transport::{NetFacts, PortFacts, PortView, Processor, Setups};
use crate::workload::FlowPlan;

/// Entries a flow's two routes may add to the route table (a fat-tree route has six hops).
pub(crate) const MAX_ROUTE_HOPS: usize = 16;

/// Entries the route table may hold before a flow's routes are added: what a 32-bit offset
/// reaches, less what one flow may add (every sprayed path of a pair each way, each at most
/// 2 x `GraphSpec::MAX_REACH` + 2 ports long).
const ROUTE_TABLE_ROOM: usize = u32::MAX as usize - 2 * MAX_SPRAY_PATHS * (2 * GraphSpec::MAX_REACH as usize + 2);

/// The directions of a flow, for the keys of its spraying orders.
const FORWARD: u64 = 0;
const REVERSE: u64 = 1;

/// A full-size frame: a host NIC always holds at least one.
const FULL_FRAME_BYTES: u64 = 1500;

/// How much a host lets its transports queue at its NIC, as time at line rate. Beyond it, senders
/// wait for the NIC to drain (backpressure) instead of piling data into an unbounded host queue,
/// as Linux's TCP Small Queues bound a flow's qdisc backlog to about 1 ms of data. Without it a
/// window grown while the NIC was the bottleneck would sit in the host queue and later burst into
/// the network at line rate long after the window was cut.
const HOST_BACKLOG: Duration = Duration::from_ms(1);

/// The network of a run: its graph, its ports with their buffers, the routes flows take, and the
/// per-host NIC bounds.
pub(crate) struct Network {
    pub(crate) topo: Topology,
    pub(crate) ports: Vec<Port>,
    /// Shared buffers of switches whose buffer is shared (`BufferSpec::Shared`).
    pub(crate) pools: Vec<SharedPool>,
    /// The flows' forward and reverse routes, back to back (a route of a host pair without
    /// ECMP choices once for all its flows); a `RouteCursor` indexes it.
    pub(crate) routes: Vec<PortId>,
    router: Router,
    /// Per host: bytes its NIC may hold before senders wait.
    pub(crate) host_backlog_bytes: Vec<u64>,
    /// The host whose NIC a port is, for each port (`u32::MAX` for switch ports).
    pub(crate) host_of_port: Vec<u32>,
    /// Every transport's settings for the run.
    pub(crate) setups: Setups,
    /// Whether host NICs queue like switch ports (`[switch] host_nic`).
    like_switch: bool,
    /// Per-flow ECMP, or packet spraying (in turn or in random order).
    load_balancing: LoadBalancing,
    /// The scenario seed, mixed: what keys the random orders of `"spray-permute"`.
    spray_key: u64,
    /// With packet spraying, each flow's paths by flow number (empty with ECMP, so a flow's
    /// packets take its one route and flows pay nothing for spraying).
    sprays: Vec<Spray>,
    /// Where released flows' own routes were in `routes`, by route length, for the next flows.
    free_routes: Vec<Vec<u32>>,
}

/// A flow's routes (`Network::add_routes`): each way, the one its packets take (with spraying,
/// the first), and whether it is the flow's own rather than shared by its host pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Routes {
    pub(crate) forward: RouteCursor,
    pub(crate) reverse: RouteCursor,
    /// Forward, reverse: stored for this flow alone, to be given back when it is released.
    pub(crate) own: [bool; 2],
}

/// A sprayed flow's equal-cost paths each way, and which it takes next: how many packets it has
/// sent that way (with `"spray"` offset by where it starts), counted round and round.
#[derive(Clone, Copy, Debug)]
struct Spray {
    forward: PathSet,
    reverse: PathSet,
    next_forward: u32,
    next_reverse: u32,
}

/// The order a sprayed flow takes its paths in each direction: round robin (`"spray"`), or
/// a random permutation of them drawn anew every cycle (`"spray-permute"`), keyed by `key`
/// (the run's seed, the flow and the direction), so that nothing is stored per cycle.
#[derive(Clone, Copy, Debug)]
enum Order {
    RoundRobin,
    Permuted { key: u64 },
}

impl Spray {
    /// Path number `n` of `set`, counting round and round, in `order`.
    fn path(set: PathSet, n: u32, order: Order) -> RouteCursor {
        let count = u32::from(set.count);
        let i = match order {
            Order::RoundRobin => n % count,
            // Cycle `n / count` takes the paths in its own permutation. (A counter that wraps
            // after 2^32 packets cuts one cycle short: that cycle still takes no path twice.)
            Order::Permuted { key } => permuted(n % count, count, mix(key ^ mix(u64::from(n / count)))),
        };
        RouteCursor { start: set.start + i * u32::from(set.len), len: set.len, hop: 0 }
    }

    /// The path the flow's next data packet takes.
    fn next_forward(&mut self, order: Order) -> RouteCursor {
        self.next_forward = self.next_forward.wrapping_add(1);
        Spray::path(self.forward, self.next_forward.wrapping_sub(1), order)
    }

    /// The path the flow's next ACK takes.
    fn next_reverse(&mut self, order: Order) -> RouteCursor {
        self.next_reverse = self.next_reverse.wrapping_add(1);
        Spray::path(self.reverse, self.next_reverse.wrapping_sub(1), order)
    }
}

/// Rounds of the Feistel network behind [`permuted`].
const FEISTEL_ROUNDS: u32 = 6;

// `permuted`'s round functions are 16-entry tables of 4-bit values: a domain of at most 8 bits.
const _: () = assert!(MAX_SPRAY_PATHS <= 256);

/// Where position `pos` of a pseudo-random permutation of `0..count` (`count` at most
/// [`MAX_SPRAY_PATHS`]) keyed by `key` lands: a balanced Feistel network over the smallest
/// even number of bits that holds `count - 1`, each round's function a table drawn from the key,
/// walked until it lands below `count` (cycle walking, so a bijection of `0..count`). Nothing
/// is stored: the same key gives the same permutation, every time.
fn permuted(pos: u32, count: u32, key: u64) -> u32 {
    debug_assert!(pos < count && count as usize <= MAX_SPRAY_PATHS);
    if count <= 1 {
        return 0;
    }
    let half = (u32::BITS - (count - 1).leading_zeros()).div_ceil(2);
    let mask = (1u32 << half) - 1;
    let mut tables = [0u64; FEISTEL_ROUNDS as usize];
    for (round, table) in tables.iter_mut().enumerate() {
        *table = mix(key.wrapping_add(round as u64));
    }
    let mut x = pos;
    loop {
        let (mut left, mut right) = (x >> half, x & mask);
        for table in tables {
            let f = (table >> (4 * right)) as u32 & mask;
            (left, right) = (right, left ^ f);
        }
        x = (left << half) | right;
        if x < count {
            return x;
        }
    }
}

impl Network {
    /// Builds the topology of `scenario` with its switches configured as the scenario says, its
    /// transports set up, and its ports queueing by their transports' disciplines where the
    /// scenario's flows run a transport that has one.
    pub(crate) fn build(scenario: &Scenario) -> Result<Network, Error> {
        let topo = Topology::build(&scenario.topology)?;
        let classes = scenario.switch.priority_classes.max(1);
        let mut pools = Vec::new();
        let mut pool_of_switch = try_vec(topo.switches as usize, None, "the switch table")?;
        let mut ports = Vec::new();
        reserve(&mut ports, topo.ports.len(), "the port table")?;
        let like_switch = scenario.switch.host_nic == HostNic::LikeSwitch;
        let hosts = topo.hosts.len();
        let fastest_host_link =
            (0..hosts as u32).map(|h| topo.ports[topo.host_nic(h).idx()].link.rate).max().unwrap_or(BitsPerSec::GBPS);
        let setups = Setups::new(scenario, &NetFacts { fastest_host_link, longest_path: topo.farthest_path() });
        let protocols = scenario.protocols_in_use();
        for (p, info) in topo.ports.iter().enumerate() {
            let is_host = matches!(topo.nodes[info.node.idx()].kind, NodeKind::Host(_));
            let view = PortView { rate: info.link.rate, queue_bytes: 0, bytes_sent: 0 };
            let facts = PortFacts { id: PortId(p as u32), host: is_host, like_switch, view };
            if let Some(discipline) = setups.discipline(&protocols, &facts) {
                ports.push(Port::plugged(*info, discipline)?);
                continue;
            }
            let (limit, ecn) = match topo.nodes[info.node.idx()].kind {
                NodeKind::Host(_) if like_switch => {
                    let limit = per_port_limit(scenario.switch.buffer)
                        .expect("validation refuses like-switch NICs with a shared buffer");
                    (limit, ecn_threshold(&scenario.switch.ecn, info.link.rate))
                }
                NodeKind::Host(_) => (BufferLimit::Unlimited, EcnThreshold::NEVER),
                NodeKind::Switch { tier, index } => {
                    let buffer = topo.buffer_of(PortId(p as u32)).unwrap_or_else(|| buffer_of(&scenario.switch, tier));
                    let limit = match buffer {
                        BufferSpec::Shared { bytes, alpha } => {
                            let pool = *pool_of_switch[index as usize].get_or_insert_with(|| {
                                pools.push(SharedPool { capacity: bytes, used: 0 });
                                pools.len() as u32 - 1
                            });
                            BufferLimit::Shared { pool, alpha }
                        }
                        per_port => per_port_limit(per_port).expect("only a shared buffer has no per-port limit"),
                    };
                    (limit, ecn_threshold(&scenario.switch.ecn, info.link.rate))
                }
            };
            ports.push(Port::new(*info, limit, ecn, classes)?);
        }

        let mut host_backlog_bytes = try_vec(hosts, 0, "the host table")?;
        for (h, backlog) in host_backlog_bytes.iter_mut().enumerate() {
            let rate = topo.ports[topo.host_nic(h as u32).idx()].link.rate;
            // A NIC like a switch port drops what does not fit instead of holding senders back.
            *backlog = if like_switch {
                u64::MAX
            } else {
                ((rate.0 as f64 / 8.0 * HOST_BACKLOG.as_secs_f64()) as u64).max(FULL_FRAME_BYTES)
            };
        }
        let mut host_of_port = try_vec(topo.ports.len(), u32::MAX, "the port table")?;
        for (p, host) in host_of_port.iter_mut().enumerate() {
            if let NodeKind::Host(h) = topo.nodes[topo.ports[p].node.idx()].kind {
                *host = h;
            }
        }
        Ok(Network {
            topo,
            ports,
            pools,
            routes: Vec::new(),
            router: Router::new(scenario.seed),
            host_backlog_bytes,
            host_of_port,
            setups,
            like_switch,
            load_balancing: scenario.switch.load_balancing,
            spray_key: mix(scenario.seed ^ 0x5B8A_7E5E),
            sprays: Vec::new(),
            free_routes: Vec::new(),
        })
    }

    /// Hosts of the topology.
    pub(crate) fn hosts(&self) -> u32 {
        self.topo.hosts.len() as u32
    }

    /// Egress ports of switches, where in-network processors may be attached.
    pub(crate) fn switch_ports(&self) -> impl Iterator<Item = PortId> + '_ {
        (0..self.ports.len() as u32).map(PortId).filter(|p| !self.topo.is_host(self.ports[p.idx()].info.node))
    }

    /// The processors the transports of `protocols` run at the ports, by port.
    pub(crate) fn processors(&self, protocols: &[Protocol]) -> Vec<(PortId, Processor)> {
        (0..self.ports.len() as u32)
            .map(PortId)
            .filter_map(|port| {
                let p = &self.ports[port.idx()];
                let host = self.topo.is_host(p.info.node);
                let facts = PortFacts { id: port, host, like_switch: self.like_switch, view: p.view() };
                self.setups.processor(protocols, &facts).map(|processor| (port, processor))
            })
            .collect()
    }

    /// The forward and reverse routes of flow number `i` from `src` to `dst`, appended to the
    /// route table; both directions hash the same key, as a switch hashes a flow's 5-tuple.
    /// With packet spraying, the flow's equal-cost paths each way are kept for
    /// [`next_forward`](Self::next_forward) and [`next_reverse`](Self::next_reverse), and the
    /// routes returned are the first it sprays on (for what needs one route: the NIC, the
    /// ideal completion time). `i` is the flow's number (its ECMP key); flows drawn during the run
    /// come in start order, not number order.
    pub(crate) fn add_routes(&mut self, i: usize, src: u32, dst: u32) -> Result<Routes, ResourceError> {
        // A route is found by its 32-bit offset in the table (`RouteCursor`).
        if self.routes.len() > ROUTE_TABLE_ROOM {
            return Err(ResourceError::new(
                "",
                format!("out of memory: the route table is full ({} entries, the most a 32-bit offset reaches)", self.routes.len()),
            ));
        }
        if self.load_balancing.sprays() {
            let mut paths = |from, to| -> Result<PathSet, ResourceError> {
                reserve(&mut self.routes, MAX_SPRAY_PATHS * MAX_ROUTE_HOPS, "the route table")?;
                self.router.paths(&self.topo, from, to, &mut self.routes)
            };
            let (forward, reverse) = (paths(src, dst)?, paths(dst, src)?);
            // Round robin: flows start at different paths, as the switches' spray counters are
            // shared by all the flows through them. A random order starts each flow at its own
            // first permutation's first path.
            let first = if self.load_balancing == LoadBalancing::Spray { mix(i as u64) as u32 } else { 0 };
            // Indexed by flow number; flows drawn during the run may come out of number order.
            let spray = Spray { forward, reverse, next_forward: first, next_reverse: first };
            grow_to(&mut self.sprays, i + 1, spray, "the flow table")?;
            self.sprays[i] = spray;
            // Every path of a sprayed pair is stored once for the pair.
            let (ahead, back) = (self.order(i, FORWARD), self.order(i, REVERSE));
            return Ok(Routes {
                forward: Spray::path(forward, first, ahead),
                reverse: Spray::path(reverse, first, back),
                own: [false; 2],
            });
        }
        reserve(&mut self.routes, 2 * MAX_ROUTE_HOPS, "the route table")?;
        let key = mix(i as u64);
        let mut cursor = |from, to| -> Result<(RouteCursor, bool), ResourceError> {
            let (mut start, len, shared) = self.router.route(&self.topo, from, to, key, &mut self.routes)?;
            // A route of this flow's own (ECMP chose on the way, so it was just appended) goes
            // where a released flow's was, if one of its length is free, so that the table
            // follows the flows in flight.
            if !shared {
                if let Some(free) = self.free_routes.get_mut(usize::from(len)).and_then(Vec::pop) {
                    let end = self.routes.len() - usize::from(len);
                    self.routes.copy_within(end.., free as usize);
                    self.routes.truncate(end);
                    start = free;
                }
            }
            Ok((RouteCursor { start, len, hop: 0 }, !shared))
        };
        let (forward, own_forward) = cursor(src, dst)?;
        let (reverse, own_reverse) = cursor(dst, src)?;
        Ok(Routes { forward, reverse, own: [own_forward, own_reverse] })
    }

    /// Gives back the `routes` of a released flow (`add_routes`): those that were its own are
    /// reused by later flows; routes shared by a host pair stay.
    pub(crate) fn release_routes(&mut self, routes: &Routes) -> Result<(), ResourceError> {
        for (route, own) in [(routes.forward, routes.own[0]), (routes.reverse, routes.own[1])] {
            if !own {
                continue;
            }
            let len = usize::from(route.len);
            if self.free_routes.len() <= len {
                self.free_routes.resize_with(len + 1, Vec::new);
            }
            reserve(&mut self.free_routes[len], 1, "the route table")?;
            self.free_routes[len].push(route.start);
        }
        Ok(())
    }

    /// The order flow number `i` sprays its packets in, in `direction` (`FORWARD`, `REVERSE`):
    /// with `"spray-permute"` each direction of each flow has its own random orders, as an htsim
    /// NDP source and sink each shuffle their own paths.
    #[inline]
    fn order(&self, i: usize, direction: u64) -> Order {
        match self.load_balancing {
            LoadBalancing::SprayPermute => Order::Permuted { key: self.spray_key ^ mix((i as u64) << 1 | direction) },
            _ => Order::RoundRobin,
        }
    }

    /// The route of flow `id`'s next data packet: its `route`, or with packet spraying the next
    /// of its paths.
    #[inline]
    pub(crate) fn next_forward(&mut self, id: FlowId, route: RouteCursor) -> RouteCursor {
        if self.sprays.is_empty() {
            route
        } else {
            let order = self.order(id.idx(), FORWARD);
            self.sprays[id.idx()].next_forward(order)
        }
    }

    /// The route of flow `id`'s next ACK, as [`next_forward`](Self::next_forward).
    #[inline]
    pub(crate) fn next_reverse(&mut self, id: FlowId, route: RouteCursor) -> RouteCursor {
        if self.sprays.is_empty() {
            route
        } else {
            let order = self.order(id.idx(), REVERSE);
            self.sprays[id.idx()].next_reverse(order)
        }
    }

    /// The way back to the host that sent a packet of flow `id` of `kind`, turned around at the
    /// port it waits at on route `at` (`at.hop`; a discipline returned it, `Joined::Returned`):
    /// a route of the flow's other direction (`back`, its route that way, or with spraying each
    /// of its paths that way) with the cursor at the port's node. The mirror of the way the
    /// packet came, through the nodes it passed, as htsim's `Packet::bounce` takes the reverse
    /// of the packet's own route from the same point (`network.cpp` lines 114-125); else (ECMP
    /// hashed the directions apart) the first route back that passes the node; `None` if none
    /// does, or if the packet never left its sender's host.
    pub(crate) fn way_back(&self, id: FlowId, kind: PacketKind, at: RouteCursor, back: RouteCursor) -> Option<RouteCursor> {
        let hop = usize::from(at.hop);
        if hop == 0 {
            return None;
        }
        let came = &self.routes[at.start as usize..at.start as usize + hop];
        let here = self.ports[self.routes[at.start as usize + hop].idx()].info.node;
        let candidates = match self.sprays.get(id.idx()) {
            Some(spray) => {
                let set = match kind {
                    PacketKind::Data => spray.reverse,
                    PacketKind::Ack => spray.forward,
                };
                (0..u32::from(set.count)).map(|i| RouteCursor { start: set.start + i * u32::from(set.len), len: set.len, hop: 0 }).collect()
            }
            None => vec![back],
        };
        let ports = |r: &RouteCursor| &self.routes[r.start as usize..r.start as usize + usize::from(r.len)];
        // Hop k of the mirror's tail leaves the node hop `hop - 1 - k` of the way out reached,
        // toward the node that hop left.
        let mirrors = |r: &RouteCursor| {
            let way = ports(r);
            way.len() >= hop
                && way[way.len() - hop..].iter().zip(came.iter().rev()).all(|(b, o)| {
                    let (b, o) = (&self.ports[b.idx()].info, &self.ports[o.idx()].info);
                    b.node == o.peer && b.peer == o.node
                })
        };
        if let Some(r) = candidates.iter().find(|r| mirrors(r)) {
            return Some(RouteCursor { hop: r.len - hop as u16, ..*r });
        }
        candidates.iter().find_map(|r| {
            let j = ports(r).iter().position(|p| self.ports[p.idx()].info.node == here)?;
            Some(RouteCursor { hop: j as u16, ..*r })
        })
    }

    /// The strict-priority class flow `plan` of `protocol` rides in: the workload's, unless its
    /// transport picks one (TCPpr, by deadline).
    pub(crate) fn priority_of(&self, protocol: Protocol, plan: &FlowPlan) -> u8 {
        self.setups.priority(protocol, plan)
    }

    /// The ports `patterns` name, pattern by pattern, each pattern's ports in the topology's
    /// order, each port once (scenario validation has checked that every pattern names one).
    pub(crate) fn ports_matching(&self, patterns: &[String]) -> Result<Vec<PortId>, ResourceError> {
        let mut chosen = Vec::new();
        if patterns.is_empty() {
            return Ok(chosen);
        }
        let names = self.topo.port_names();
        let mut taken = try_vec(names.len(), false, "the port table")?;
        for pattern in patterns {
            for (p, name) in names.iter().enumerate() {
                if incast_scenario::port_pattern::matches(pattern, name) && !taken[p] {
                    taken[p] = true;
                    chosen.push(PortId(p as u32));
                }
            }
        }
        Ok(chosen)
    }

    /// The host a switch port transmits to, if it faces one.
    pub(crate) fn host_facing(&self, port: PortId) -> Option<u32> {
        let info = &self.topo.ports[port.idx()];
        match self.topo.nodes[info.peer.idx()].kind {
            NodeKind::Host(h) if !self.topo.is_host(info.node) => Some(h),
            _ => None,
        }
    }

    /// The deepest queue any switch port reached, bytes.
    pub(crate) fn max_switch_queue_bytes(&self) -> u64 {
        self.ports.iter().filter(|p| !self.topo.is_host(p.info.node)).map(|p| p.max_queue_bytes).max().unwrap_or(0)
    }

    /// Port `id`'s row of the ports table at the end of a run at `end`.
    pub(crate) fn port_record(&self, id: PortId, end: Instant) -> PortRecord {
        let port = &self.ports[id.idx()];
        let (node, peer) = (&self.topo.nodes[port.info.node.idx()], &self.topo.nodes[port.info.peer.idx()]);
        let c = &port.counters;
        PortRecord {
            port: self.topo.port_name(id),
            node: node.name(),
            peer: peer.name(),
            role: node.role,
            tier: node.level(),
            up: peer.level() > node.level(),
            link_rate_bps: port.info.link.rate.0,
            packets_sent: c.packets_sent,
            bytes_sent: port.bytes_sent,
            drops: c.drops,
            ecn_marks: c.ecn_marks,
            ecn_marks_dropped: c.ecn_marks_dropped,
            ecn_marks_control: c.ecn_marks_control,
            ecn_remarks: c.ecn_remarks,
            max_queue_bytes: port.max_queue_bytes,
            mean_queue_bytes: c.mean_queue_bytes(end, port.queue_bytes()),
        }
    }
}

/// The drop-tail limit of a buffer set per port; `None` for a buffer shared by a switch's ports.
fn per_port_limit(buffer: BufferSpec) -> Option<BufferLimit> {
    match buffer {
        BufferSpec::PerPort { bytes } => Some(BufferLimit::DropTail(bytes)),
        BufferSpec::PerPortPackets { packets } => Some(BufferLimit::DropTailPackets(packets)),
        BufferSpec::Shared { .. } => None,
    }
}

/// The buffer of a switch of `tier`: tier 0 (the switches hosts attach to) has `buffer`, the
/// tiers above `core_buffer` when set.
fn buffer_of(switch: &SwitchSpec, tier: u8) -> BufferSpec {
    if tier == 0 {
        switch.buffer
    } else {
        switch.core_buffer.unwrap_or(switch.buffer)
    }
}

/// The marking threshold of a switch port of `rate` (`EcnSpec::at_rate`). Validation gives a
/// rate table an entry for every port's rate; a hand-built scenario without one never marks.
fn ecn_threshold(spec: &EcnSpec, rate: BitsPerSec) -> EcnThreshold {
    let mark = spec.at_rate(rate);
    debug_assert!(mark.is_some(), "no ECN threshold for {rate:?}: validation checks every port's rate");
    match mark.unwrap_or(EcnMark::Never) {
        EcnMark::Never => EcnThreshold::NEVER,
        EcnMark::Bytes(b) => EcnThreshold { bytes: b, ..EcnThreshold::NEVER },
        EcnMark::Packets(n) => EcnThreshold { packets: n, ..EcnThreshold::NEVER },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;

    /// The paths (by number) cycle `cycle` of a flow takes in `order` from a set of `count`.
    fn cycle(count: u16, order: Order, cycle: u32) -> Vec<u32> {
        let set = PathSet { start: 0, len: 1, count };
        (0..u32::from(count)).map(|p| Spray::path(set, cycle * u32::from(count) + p, order).start).collect()
    }

    /// The nodes a route's ports leave from, from `hop` on, and the node the last one reaches.
    fn nodes(net: &Network, r: RouteCursor) -> Vec<NodeId> {
        let ports = &net.routes[r.start as usize..r.start as usize + usize::from(r.len)];
        let mut nodes: Vec<NodeId> = ports[usize::from(r.hop)..].iter().map(|p| net.ports[p.idx()].info.node).collect();
        nodes.push(net.ports[ports[ports.len() - 1].idx()].info.peer);
        nodes
    }

    #[test]
    fn way_back_of_a_sprayed_packet_mirrors_the_way_it_came() {
        let text = "[topology]\nkind = \"fat-tree\"\nk = 4\n[switch]\nload_balancing = \"spray-permute\"\n\
                    [transport]\nprotocol = \"ndp\"\n[[workload]]\nkind = \"flow-burst\"\nsenders = 1\nsize = \"1KB\"\n";
        let mut net = Network::build(&crate::scenario::parse_toml(text, None).expect("valid")).expect("builds");
        // Host 15 (another pod) to host 0: six hops, four paths through the core.
        let routes = net.add_routes(0, 15, 0).expect("routes");
        for n in 0..8 {
            let out = net.next_forward(FlowId(0), routes.forward);
            let came = nodes(&net, out);
            for hop in 1..out.len {
                let back = net.way_back(FlowId(0), PacketKind::Data, RouteCursor { hop, ..out }, routes.reverse).expect("a way back");
                let mut mirror = came[..=usize::from(hop)].to_vec();
                mirror.reverse();
                assert_eq!(nodes(&net, back), mirror, "packet {n}, turned at hop {hop}");
            }
            assert_eq!(net.way_back(FlowId(0), PacketKind::Data, out, routes.reverse), None, "still at its sender's NIC");
        }
    }

    #[test]
    fn each_permuted_cycle_takes_every_path_once() {
        for count in [1u16, 2, 3, 4, 5, 7, 16, 17, 36, 64, 100, 255, 256] {
            for c in 0..50 {
                let mut paths = cycle(count, Order::Permuted { key: 7 }, c);
                paths.sort_unstable();
                assert_eq!(paths, (0..u32::from(count)).collect::<Vec<_>>(), "{count} paths, cycle {c}");
            }
        }
    }

    #[test]
    fn permuted_cycles_differ_and_the_same_key_repeats_them() {
        let (a, b) = (Order::Permuted { key: 1 }, Order::Permuted { key: 2 });
        let cycles: Vec<Vec<u32>> = (0..20).map(|c| cycle(36, a, c)).collect();
        for (i, x) in cycles.iter().enumerate() {
            assert!(cycles[i + 1..].iter().all(|y| y != x), "cycle {i} repeats");
            assert_eq!(*x, cycle(36, a, i as u32), "same key, same order");
            assert_ne!(*x, cycle(36, b, i as u32), "another key, another order");
        }
        // Round robin takes them in turn, every cycle.
        assert_eq!(cycle(5, Order::RoundRobin, 3), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn permuted_orders_spread_every_path_over_every_position() {
        // Over many cycles each path is first about as often as any other, and no order of four
        // paths is missing (a fixed stride would visit only a few).
        let (count, cycles) = (36u16, 36_000u32);
        let mut first = [0u32; 36];
        for c in 0..cycles {
            first[cycle(count, Order::Permuted { key: 99 }, c)[0] as usize] += 1;
        }
        let mean = cycles / u32::from(count);
        assert!(first.iter().all(|&n| n.abs_diff(mean) < mean / 4), "{first:?}");
        let mut seen = std::collections::HashSet::new();
        for c in 0..2_000 {
            seen.insert(cycle(4, Order::Permuted { key: 5 }, c));
        }
        assert_eq!(seen.len(), 24);
    }

    #[test]
    fn each_flow_and_direction_has_its_own_orders() {
        let key = |i: usize, direction: u64| mix(0x1234) ^ mix((i as u64) << 1 | direction);
        let order = |i, d| cycle(36, Order::Permuted { key: key(i, d) }, 0);
        assert_ne!(order(0, FORWARD), order(1, FORWARD));
        assert_ne!(order(0, FORWARD), order(0, REVERSE));
    }
}
