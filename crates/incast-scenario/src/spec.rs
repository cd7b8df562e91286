//! The validated scenario's parts: what the engine builds a simulation from (the whole,
//! `scenario::Scenario`, adds the protocols' own sections). Every value here is already in engine
//! units and checked (host indices exist, sizes positive, ...); the file format and its error
//! messages live in `file`.

use incast_proto::tcp::{Stack, TcpConfig};
use incast_proto::time::{BitsPerSec, Duration, Instant};

pub use crate::registry::Protocol;

/// The TCP stack of a file that names none.
pub const DEFAULT_STACK: Stack = Stack::Linux;

/// A host, numbered 0..hosts in the order the topology builder documents.
pub type HostIndex = u32;

/// One link speed and propagation delay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Line rate.
    pub rate: BitsPerSec,
    /// One-way propagation delay.
    pub delay: Duration,
}

/// The topology and its builder parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum TopologySpec {
    /// `hosts` hosts on one switch. Hosts 0..hosts.
    Star {
        /// Number of hosts (at least 2).
        hosts: u32,
        /// Every host link.
        link: LinkSpec,
    },
    /// D3 Figure 8: 4 ToRs x 3 hosts (hosts 0..12, rack r holds hosts 3r..3r+3), each ToR linked to a
    /// root switch, and 2 traffic generators on the root (hosts 12 and 13).
    D3Testbed {
        /// Every link (1 Gbps in the paper).
        link: LinkSpec,
    },
    /// D2TCP Figure 8: `racks` x `hosts_per_rack` hosts (rack r holds hosts r*H..(r+1)*H), each ToR
    /// connected to one fabric switch.
    TwoTier {
        /// Number of racks (ToR switches).
        racks: u32,
        /// Hosts per rack.
        hosts_per_rack: u32,
        /// Host-to-ToR links.
        host_link: LinkSpec,
        /// ToR-to-fabric links (the paper: H x 1 Gbps, so never oversubscribed).
        fabric_link: LinkSpec,
    },
    /// k-ary fat-tree (Al-Fares et al.): k pods, k^3/4 hosts; hosts of pod p, edge switch e are
    /// numbered consecutively.
    FatTree {
        /// Even arity, at least 2.
        k: u32,
        /// Host-to-edge links.
        host_link: LinkSpec,
        /// Edge-to-aggregation links: slower than the host links by the edge tier's
        /// oversubscription.
        agg_link: LinkSpec,
        /// Aggregation-to-core links.
        core_link: LinkSpec,
    },
    /// A leaf-spine (two-tier Clos) fabric, pFabric's evaluation network by default: `racks`
    /// leaves of `hosts_per_rack` hosts (rack r holds hosts r*H..(r+1)*H), every leaf linked to
    /// every one of `spines` spines; flows spread over the spines by per-flow ECMP.
    LeafSpine {
        /// Number of racks (leaf switches).
        racks: u32,
        /// Hosts per rack.
        hosts_per_rack: u32,
        /// Number of spine switches.
        spines: u32,
        /// Host-to-leaf links.
        host_link: LinkSpec,
        /// Leaf-to-spine links.
        fabric_link: LinkSpec,
    },
    /// Any network, read from a graph file (docs/scenario.md, "Graph files").
    Graph(GraphSpec),
}

/// A network described node by node and link by link in a graph file.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphSpec {
    /// The file as the scenario names it, for messages.
    pub file: String,
    /// Every node in file order; hosts are numbered in this order, counting hosts only.
    pub nodes: Vec<GraphNode>,
    /// Every link in file order (which is the order of their ports in the ports table).
    pub links: Vec<GraphLink>,
    /// The link of each host, by host number (index into `links`).
    pub host_links: Vec<u32>,
}

/// A switch of a graph file beyond the engine's bounds ([`GraphSpec::too_deep`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    /// The switch's name in the file.
    pub name: String,
    /// Its distance, in switch hops, from `from`.
    pub hops: u32,
    /// The most hops supported.
    pub max: u32,
    /// What the hops are counted from.
    pub from: String,
    /// Why the bound is there.
    pub why: &'static str,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "switch {:?} is {} hops from {}; at most {} are supported ({})", self.name, self.hops, self.from, self.max, self.why)
    }
}

/// A node of a graph file.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphNode {
    /// Its name in the file and in the ports table.
    pub name: String,
    /// An end host (else a switch).
    pub host: bool,
}

/// A full-duplex link of a graph file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GraphLink {
    /// One end, by index into `GraphSpec::nodes` (the host when one end is a host).
    pub a: u32,
    /// The other end (always a switch).
    pub b: u32,
    /// Rate and propagation delay, the same both ways.
    pub link: LinkSpec,
    /// The queue limit of the link's switch ports, replacing `[switch]`'s for them.
    pub buffer: Option<BufferSpec>,
    /// Line of the file, for messages.
    pub line: u32,
}

impl GraphSpec {
    /// The link of host `host` (numbered among hosts): every host has exactly one.
    pub fn host_link(&self, host: u32) -> Option<&GraphLink> {
        self.host_links.get(host as usize).map(|&l| &self.links[l as usize])
    }

    /// Each node's neighbours (node indices), from the links: what a walk over the graph
    /// follows (the connectivity check, the switches' tiers).
    pub fn neighbours(&self) -> Vec<Vec<u32>> {
        let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        for l in &self.links {
            neighbours[l.a as usize].push(l.b);
            neighbours[l.b as usize].push(l.a);
        }
        neighbours
    }

    /// The switch (node index) host `host` hangs from.
    pub fn switch_of(&self, host: u32) -> Option<u32> {
        self.host_link(host).map(|l| l.b)
    }

    /// Each switch's tier: its distance in switch hops from the nearest switch with a host (0
    /// for those), which is what a ToR, an aggregation and a core switch are in the trees the
    /// other topologies build. Hosts' entries are [`GraphSpec::UNREACHED`].
    pub fn tiers(&self) -> Vec<u32> {
        self.switch_hops(self.links.iter().filter(|l| self.nodes[l.a as usize].host).map(|l| l.b))
    }

    /// Each switch's distance in switch hops from the switch of host 0 (hosts' entries are
    /// [`GraphSpec::UNREACHED`]). Every route between two hosts passes through at most
    /// `2 x max + 1` switches, `max` the largest of these: a bound found in one walk, where the
    /// longest route itself would take a walk from every switch.
    pub fn reach(&self) -> Vec<u32> {
        self.switch_hops(self.switch_of(0))
    }

    /// The distance of each switch, in hops over links between switches, from the nearest of
    /// `sources`, counted in 32 bits: a graph file of up to `run.max_trace_bytes` has fewer
    /// switches than that, so no count saturates or wraps whatever the graph.
    fn switch_hops(&self, sources: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let neighbours = self.neighbours();
        let mut hops = vec![Self::UNREACHED; self.nodes.len()];
        let mut frontier = std::collections::VecDeque::new();
        for s in sources {
            if hops[s as usize] != 0 {
                hops[s as usize] = 0;
                frontier.push_back(s);
            }
        }
        while let Some(n) = frontier.pop_front() {
            let next = hops[n as usize] + 1;
            for &m in &neighbours[n as usize] {
                if !self.nodes[m as usize].host && hops[m as usize] == Self::UNREACHED {
                    hops[m as usize] = next;
                    frontier.push_back(m);
                }
            }
        }
        hops
    }

    /// The farthest switch past the engine's bounds (the first in the file of those as far),
    /// if any: above tier [`MAX_TIER`](Self::MAX_TIER), or farther than
    /// [`MAX_REACH`](Self::MAX_REACH) hops from host 0's switch. Graph files are checked when
    /// read; the engine checks a graph built by hand.
    pub fn too_deep(&self) -> Option<TooDeep> {
        let first_host = self.host_link(0).map_or("", |l| self.nodes[l.a as usize].name.as_str());
        let bounds = [
            (self.tiers(), Self::MAX_TIER, "the nearest switch with a host".to_string(), "the engine counts switch tiers in 8 bits"),
            (self.reach(), Self::MAX_REACH, format!("host {first_host:?}'s switch"), "so that every route between two hosts fits the engine's hop counts"),
        ];
        bounds.into_iter().find_map(|(hops, max, from, why)| {
            let reached = (0..hops.len()).filter(|&n| hops[n] != Self::UNREACHED);
            let farthest = reached.max_by_key(|&n| (hops[n], std::cmp::Reverse(n)))?;
            (hops[farthest] > max).then(|| TooDeep { name: self.nodes[farthest].name.clone(), hops: hops[farthest], max, from, why })
        })
    }

    /// A node [`tiers`](Self::tiers) and [`reach`](Self::reach) do not reach: a host.
    pub const UNREACHED: u32 = u32::MAX;

    /// The highest tier a switch may have: the engine counts a node's level (its tier plus one,
    /// hosts being level 0) in 8 bits, as the ports table's `tier` column does.
    pub const MAX_TIER: u32 = 254;

    /// The farthest a switch may lie from host 0's switch, in switch hops. A route between two
    /// hosts then crosses at most 2 x 1023 + 1 switches (2048 ports, with the first host's
    /// NIC): far inside the engine's 16-bit hop counts and routing distances, and a bound on the
    /// routes' memory (`footprint`). A datacenter network is a few tiers deep; a ring, line or
    /// mesh of a few hundred switches fits.
    pub const MAX_REACH: u32 = 1023;
}

impl TopologySpec {
    /// Hosts of the D3 testbed (Figure 8): 4 racks of 3 end hosts plus 2 traffic generators.
    pub const D3_TESTBED_HOSTS: u32 = 14;

    /// Number of hosts; they are numbered `0..host_count()` as each variant documents. Saturates
    /// at `u32::MAX` for absurd parameters (a loaded scenario never has more than 2^20 hosts).
    pub fn host_count(&self) -> u32 {
        let hosts: u128 = match *self {
            TopologySpec::Star { hosts, .. } => u128::from(hosts),
            TopologySpec::D3Testbed { .. } => u128::from(Self::D3_TESTBED_HOSTS),
            TopologySpec::TwoTier {
                racks,
                hosts_per_rack,
                ..
            } => u128::from(racks) * u128::from(hosts_per_rack),
            TopologySpec::FatTree { k, .. } => u128::from(k).pow(3) / 4,
            TopologySpec::Graph(ref g) => g.host_links.len() as u128,
            TopologySpec::LeafSpine {
                racks,
                hosts_per_rack,
                ..
            } => u128::from(racks) * u128::from(hosts_per_rack),
        };
        u32::try_from(hosts).unwrap_or(u32::MAX)
    }

    /// Rate of every host's link (the rate an OLDI workload's utilization is a fraction of); on
    /// a graph, whose hosts may differ, the fastest.
    pub fn host_link_rate(&self) -> BitsPerSec {
        match *self {
            TopologySpec::Star { link, .. } | TopologySpec::D3Testbed { link } => link.rate,
            TopologySpec::FatTree { host_link, .. }
            | TopologySpec::TwoTier { host_link, .. }
            | TopologySpec::LeafSpine { host_link, .. } => host_link.rate,
            TopologySpec::Graph(ref g) => {
                g.links.iter().filter(|l| g.nodes[l.a as usize].host).map(|l| l.link.rate).max().unwrap_or(BitsPerSec(0))
            }
        }
    }

    /// The network's tiers of links, host links first, each named and with its rate; a graph's
    /// tiers are its distinct rates, slowest first, unnamed. What `incast check` prints about the
    /// links, and what a rate table of `[switch] ecn_threshold` must cover.
    pub fn link_tiers(&self) -> Vec<(&'static str, BitsPerSec)> {
        match self {
            TopologySpec::Star { link, .. } | TopologySpec::D3Testbed { link } => vec![("every link", link.rate)],
            TopologySpec::TwoTier { host_link, fabric_link, .. } => vec![("host", host_link.rate), ("tor-fabric", fabric_link.rate)],
            TopologySpec::LeafSpine { host_link, fabric_link, .. } => vec![("host", host_link.rate), ("leaf-spine", fabric_link.rate)],
            TopologySpec::FatTree { host_link, agg_link, core_link, .. } => {
                vec![("host", host_link.rate), ("edge-agg", agg_link.rate), ("agg-core", core_link.rate)]
            }
            TopologySpec::Graph(g) => {
                let mut rates: Vec<BitsPerSec> = g.links.iter().map(|l| l.link.rate).collect();
                rates.sort_unstable();
                rates.dedup();
                rates.into_iter().map(|r| ("", r)).collect()
            }
        }
    }

    /// Rate of the fastest link of the network, hosts' or switches': no packet crosses any link
    /// faster than it serializes there.
    pub fn fastest_link_rate(&self) -> BitsPerSec {
        match *self {
            TopologySpec::Star { link, .. } | TopologySpec::D3Testbed { link } => link.rate,
            TopologySpec::TwoTier { host_link, fabric_link, .. } | TopologySpec::LeafSpine { host_link, fabric_link, .. } => {
                host_link.rate.max(fabric_link.rate)
            }
            TopologySpec::FatTree { host_link, agg_link, core_link, .. } => host_link.rate.max(agg_link.rate).max(core_link.rate),
            TopologySpec::Graph(ref g) => g.links.iter().map(|l| l.link.rate).max().unwrap_or(BitsPerSec(0)),
        }
    }

    /// Rate of host `host`'s link: a `load` is a fraction of it for each sender.
    pub fn host_rate(&self, host: HostIndex) -> BitsPerSec {
        match self {
            TopologySpec::Graph(g) => g.host_link(host).map_or(BitsPerSec(0), |l| l.link.rate),
            _ => self.host_link_rate(),
        }
    }

    /// The rack of host `host`: the switch it hangs from, numbered among the switches hosts hang
    /// from (a star is one rack; the D3 testbed's two traffic generators, on the root, are a
    /// fifth). Rack-local traffic stays inside one.
    pub fn rack_of(&self, host: HostIndex) -> u32 {
        match *self {
            TopologySpec::Star { .. } => 0,
            TopologySpec::D3Testbed { .. } => (host / 3).min(4),
            TopologySpec::TwoTier { hosts_per_rack, .. } | TopologySpec::LeafSpine { hosts_per_rack, .. } => {
                host / hosts_per_rack
            }
            TopologySpec::FatTree { k, .. } => host / (k / 2),
            TopologySpec::Graph(ref g) => g.switch_of(host).unwrap_or(0),
        }
    }

    /// The `kind` name of the topology in scenario files (`"star"`, `"d3-testbed"`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self {
            TopologySpec::Star { .. } => "star",
            TopologySpec::D3Testbed { .. } => "d3-testbed",
            TopologySpec::TwoTier { .. } => "two-tier",
            TopologySpec::FatTree { .. } => "fat-tree",
            TopologySpec::LeafSpine { .. } => "leaf-spine",
            TopologySpec::Graph(_) => "graph",
        }
    }
}

/// How a switch port limits its queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSpec {
    /// Drop-tail with a fixed byte limit per egress port.
    PerPort {
        /// Limit per port in bytes.
        bytes: u64,
    },
    /// Drop-tail with a fixed limit in packets per egress port, whatever their size (ns-3's
    /// queue discs in packet mode).
    PerPortPackets {
        /// Limit per port in packets.
        packets: u64,
    },
    /// One buffer shared by all ports of a switch, with Choudhury-Hahne dynamic thresholds: a
    /// packet is admitted to a port only if that port's queue stays below alpha x (free buffer).
    Shared {
        /// Total buffer of the switch in bytes (4 MB ToRs in DCTCP and D2TCP).
        bytes: u64,
        /// Dynamic-threshold factor alpha.
        alpha: f64,
    },
}

/// ECN marking threshold K of the switch ports (`[switch] ecn_threshold`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EcnSpec {
    /// No marking.
    Off,
    /// DCTCP's guidance: 20 packets at 1 Gbps and below, 65 above (DCTCP Section 4).
    Auto,
    /// Mark when the instantaneous queue exceeds this many bytes on arrival.
    Bytes(u64),
    /// Mark when the instantaneous queue exceeds this many packets on arrival.
    Packets(u64),
    /// K in bytes in proportion to the port's rate ([`EcnSpec::scaled_bytes`]): DCTCP's K grows
    /// with C x RTT (Section 3.4), so at one RTT a port twice as fast needs twice the K.
    Scaled,
    /// One threshold per link rate, as the HPCC and Parsimon configurations give them (30 KB on
    /// 10 Gbps ports, 120 KB on 40 Gbps ones); each entry is one of the other forms. Validation
    /// makes sure every port's rate has an entry.
    PerRate(Vec<(BitsPerSec, EcnSpec)>),
}

/// A port's marking threshold once its rate is known ([`EcnSpec::at_rate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnMark {
    /// The port never marks.
    Never,
    /// Marks when more than this many packets wait.
    Packets(u64),
    /// Marks when more than this many bytes wait.
    Bytes(u64),
}

impl EcnSpec {
    /// `"scaled"`'s K at 10 Gbps: DCTCP Section 4's 65 packets at 10 Gbps, of 1500 B (97.5 KB).
    pub const SCALED_BYTES_AT_10G: u64 = 65 * 1500;

    /// `"scaled"`'s K of a port of `rate`, in bytes: [`Self::SCALED_BYTES_AT_10G`] x rate / 10 Gbps,
    /// rounded down (9750 B at 1 Gbps, 390 KB at 40 Gbps). DCTCP's bound K > C x RTT / 7
    /// (Section 3.4) is linear in C at a given RTT; its 10 Gbps value is the anchor, with that
    /// paper's margin over the bound.
    pub fn scaled_bytes(rate: BitsPerSec) -> u64 {
        let k = u128::from(Self::SCALED_BYTES_AT_10G) * u128::from(rate.0) / 10_000_000_000;
        u64::try_from(k).unwrap_or(u64::MAX)
    }

    /// The threshold of a port of `rate`; `None` when a table has no entry for the rate (a
    /// validated scenario has one for every port's).
    pub fn at_rate(&self, rate: BitsPerSec) -> Option<EcnMark> {
        Some(match self {
            EcnSpec::Off => EcnMark::Never,
            EcnSpec::Bytes(b) => EcnMark::Bytes(*b),
            EcnSpec::Packets(n) => EcnMark::Packets(*n),
            EcnSpec::Auto if rate <= BitsPerSec::GBPS => EcnMark::Packets(20),
            EcnSpec::Auto => EcnMark::Packets(65),
            EcnSpec::Scaled => EcnMark::Bytes(Self::scaled_bytes(rate)),
            EcnSpec::PerRate(table) => return table.iter().find(|(r, _)| *r == rate)?.1.at_rate(rate),
        })
    }
}

/// Switch configuration, the same for every switch unless `core_buffer` is set.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchSpec {
    /// Buffer of ToR / edge switches (and of every switch if `core_buffer` is `None`).
    pub buffer: BufferSpec,
    /// Buffer of switches above the ToRs: the root (d3-testbed), the fabric (two-tier), aggregation
    /// and core (fat-tree).
    pub core_buffer: Option<BufferSpec>,
    /// ECN marking threshold.
    pub ecn: EcnSpec,
    /// Strict-priority classes per port, 1 to 8; class 0 is served first.
    pub priority_classes: u8,
    /// How host NICs queue.
    pub host_nic: HostNic,
    /// How switches spread traffic over equal-cost paths.
    pub load_balancing: LoadBalancing,
}

/// D3 Section 5: "the router has a buffer of 128KB per NIC".
const DEFAULT_BUFFER_BYTES: u64 = 128_000;

impl Default for SwitchSpec {
    /// What a file without `[switch]` gets, and what validation starts from for the keys a
    /// `[switch]` leaves out: D3's 128 KB per port at every switch, ECN marking at DCTCP's
    /// threshold for the link rate, one priority class, host NICs that hold back their senders
    /// as Linux does, per-flow ECMP. Code that builds a scenario (tests, benchmarks) starts from
    /// it too, so that a new key changes only this.
    fn default() -> Self {
        SwitchSpec {
            buffer: BufferSpec::PerPort { bytes: DEFAULT_BUFFER_BYTES },
            core_buffer: None,
            ecn: EcnSpec::Auto,
            priority_classes: 1,
            host_nic: HostNic::default(),
            load_balancing: LoadBalancing::default(),
        }
    }
}

/// How traffic spreads over a network's equal-cost shortest paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadBalancing {
    /// Per-flow ECMP: a flow's packets all take the path its hash picks, so a flow is never
    /// reordered; two large flows may share an uplink while another idles.
    #[default]
    Ecmp,
    /// Packet spraying: each packet of a flow, data and ACKs, takes the next of the flow's
    /// equal-cost paths in turn (pFabric's evaluation; NetSys/simulator's default, a
    /// round-robin `spray_counter` at the ToR). Evens out load at the cost of reordering.
    Spray,
    /// Packet spraying in a random order: each packet of a flow, data and ACKs, takes the next
    /// of the flow's equal-cost paths in a random permutation of them, and each direction draws a
    /// new permutation once it has taken every path (htsim's NDP `-strat perm`,
    /// `SCATTER_PERMUTE`). Flows sent in lockstep do not keep meeting on the same paths.
    SprayPermute,
}

impl LoadBalancing {
    /// Whether a flow's packets are sprayed over its equal-cost paths (rather than hashed to
    /// one).
    pub fn sprays(self) -> bool {
        matches!(self, LoadBalancing::Spray | LoadBalancing::SprayPermute)
    }
}

/// How a host's NIC queues what its transports send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HostNic {
    /// Never drops or marks; senders wait while it holds more than 1 ms at line rate, as Linux's
    /// TCP Small Queues bound a host's backlog. What a real host does.
    #[default]
    Backlog,
    /// A queue like a ToR port's: `[switch] buffer` limits it (drop-tail) and the ECN threshold
    /// marks it, with no backpressure on senders: how ns-2 (the pFabric-derived scripts) and
    /// NetSys/simulator (YAPS) build hosts, whose NIC is one more queue of the network.
    LikeSwitch,
}

/// The protocols the flows of `workloads` run, `default` for those that name none, in the
/// registry's order.
pub(crate) fn protocols_in_use(workloads: &[WorkloadSpec], default: Protocol) -> Vec<Protocol> {
    let mut in_use: Vec<Protocol> = workloads.iter().flat_map(|w| w.flow_protocols(default)).collect();
    in_use.sort_unstable();
    in_use.dedup();
    in_use
}

/// `[transport]`: the protocol of flows that name none, and the TCP every window-based
/// transport's hosts run (D3 and PDQ repair losses with it too).
#[derive(Clone, Debug, PartialEq)]
pub struct TransportSpec {
    /// Protocol of flows whose workload does not name one.
    pub protocol: Protocol,
    /// The TCP stack whose defaults `tcp` started from (keys of the file override them).
    pub stack: Stack,
    /// TCP parameters, shared by every window-based protocol.
    pub tcp: TcpConfig,
    /// DCTCP's estimation gain g (DCTCP Section 3.1: 1/16).
    pub dctcp_g: f64,
    /// DCTCP's alpha for a new flow (1 as in Linux; the papers do not say).
    pub dctcp_initial_alpha: f64,
}

impl TransportSpec {
    /// What a file whose `[transport]` sets only `stack` gets: TCP on that stack's defaults,
    /// DCTCP's g = 1/16 and the stack's initial alpha. For code that builds a scenario on a
    /// stack other than the default one (the engine's tests run the D3 testbed's) without
    /// spelling out every field, so that a new field changes only this.
    pub fn for_stack(stack: Stack) -> Self {
        TransportSpec {
            protocol: Protocol::Tcp,
            stack,
            tcp: stack.tcp_config(),
            dctcp_g: incast_proto::cc::DCTCP_DEFAULT_G,
            dctcp_initial_alpha: stack.dctcp_initial_alpha(),
        }
    }
}

impl Default for TransportSpec {
    /// What a file without `[transport]` gets: [`TransportSpec::for_stack`] on
    /// [`DEFAULT_STACK`].
    fn default() -> Self {
        TransportSpec::for_stack(DEFAULT_STACK)
    }
}

/// The flow sizes of a flow-burst or Poisson workload that gives none. D3 Section 6.1.1:
/// "response flow lengths are uniformly distributed across [2KB, 50KB]".
pub const DEFAULT_RESPONSE_SIZE: SizeDist = SizeDist::Uniform { lo: 2_000, hi: 50_000 };

/// A distribution of flow sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Always the same size.
    Fixed(u64),
    /// Uniform integer in [lo, hi].
    Uniform {
        /// Smallest size.
        lo: u64,
        /// Largest size.
        hi: u64,
    },
    /// Exponential with this mean, rounded up to at least 1 byte.
    Exponential {
        /// Mean size.
        mean: u64,
    },
    /// Empirical CDF as (size, cumulative probability) points, probabilities rising to 1;
    /// sizes are interpolated linearly between points, from (0 B, 0) below the first. Two points
    /// of the same size put the probability between them on that size (a step of the CDF).
    Cdf(Vec<(u64, f64)>),
}

impl SizeDist {
    /// The mean flow size in bytes of what the engine draws from this distribution: `load`
    /// turns into an arrival rate with it. For a CDF, the mean of linear interpolation between
    /// the points (the trapezoid rule, as HPCC's and ns-2's generators compute it); the engine's
    /// rounding to whole bytes moves it by well under a byte. For the exponential, the mean of
    /// the draw rounded up, 1 / (1 - e^(-1/mean)), about mean + 0.5.
    pub fn mean_bytes(&self) -> f64 {
        match *self {
            SizeDist::Fixed(s) => s as f64,
            SizeDist::Uniform { lo, hi } => (lo as f64 + hi as f64) / 2.0,
            SizeDist::Exponential { mean } => 1.0 / -(-1.0 / mean as f64).exp_m1(),
            SizeDist::Cdf(ref points) => {
                let mut prev = (0.0f64, 0.0f64);
                let mut sum = 0.0;
                for &(size, p) in points {
                    let size = size as f64;
                    sum += (prev.0 + size) / 2.0 * (p - prev.1);
                    prev = (size, p);
                }
                sum
            }
        }
    }
}

/// A distribution of relative deadlines (deadline minus flow start).
#[derive(Clone, Debug, PartialEq)]
pub enum DeadlineDist {
    /// Always the same.
    Fixed(Duration),
    /// Uniform in [lo, hi].
    Uniform {
        /// Shortest.
        lo: Duration,
        /// Longest.
        hi: Duration,
    },
    /// Exponential with this mean (D3 Section 6.1.1: "exponentially around 20/30/40 ms"),
    /// never below `min`.
    Exponential {
        /// Mean.
        mean: Duration,
        /// Floor.
        min: Duration,
    },
}

/// When the rounds of a flow-burst workload start. The first round of a closed loop starts at
/// the workload's `start`; an open loop's rounds start on their own schedule, whether or not
/// earlier rounds have finished, as the queries of a partition-aggregate benchmark do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoundStarts {
    /// Closed loop: round r+1 starts `gap` after every flow of round r has completed (0: the
    /// next query is issued as soon as the previous one is answered).
    AfterCompletion {
        /// Idle time between a round's last completion and the next round.
        gap: Duration,
    },
    /// Open loop: round r starts at `start + r x interval` (D2TCP Section 4.1.3: "two servers
    /// initiate long-lived flows of 10MB to the root, once every 80 ms").
    Periodic {
        /// Time between the starts of consecutive rounds, > 0.
        interval: Duration,
    },
    /// Open loop: rounds start at the arrivals of a Poisson process, the first one exponential
    /// gap after `start` (open-loop query arrivals of partition-aggregate benchmarks).
    Poisson {
        /// Mean rounds per second, > 0 and finite.
        rate_per_sec: f64,
    },
}

/// Options every workload shares.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowOptions {
    /// Protocol override; `None` uses the scenario's transport.
    pub protocol: Option<Protocol>,
    /// Strict-priority class of the flow's packets (0 is highest).
    pub priority: u8,
}

impl Default for FlowOptions {
    /// What a workload that sets neither `protocol` nor `priority` gets: the scenario's
    /// transport, in the first class. Code that builds a workload starts from it, so that a new
    /// option changes only this.
    fn default() -> Self {
        FlowOptions { protocol: None, priority: 0 }
    }
}

/// A source of flows.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadSpec {
    /// D3 Section 6.1.1: workers all answer one aggregator at the same instant, in `rounds`
    /// rounds whose starts `round_starts` schedules (closed or open loop).
    FlowBurst {
        /// Receiver of every response.
        aggregator: HostIndex,
        /// Sender of each response, one flow each (a host may appear several times: several
        /// workers per host, as in the D3 testbed).
        workers: Vec<HostIndex>,
        /// Response sizes (D3: uniform in [2 KB, 50 KB]).
        size: SizeDist,
        /// Response deadlines; `None` for no deadline.
        deadline: Option<DeadlineDist>,
        /// Start of the first round.
        start: Instant,
        /// Number of rounds.
        rounds: u32,
        /// When the rounds start: closed loop after completions, or open loop on a schedule.
        round_starts: RoundStarts,
        /// Shared options.
        options: FlowOptions,
    },
    /// Long-lived flows that never finish (background traffic).
    LongFlows {
        /// (source, destination) of each flow.
        pairs: Vec<(HostIndex, HostIndex)>,
        /// When they start.
        start: Instant,
        /// Shared options.
        options: FlowOptions,
    },
    /// Poisson flow arrivals between random distinct hosts of `hosts`.
    Poisson {
        /// Mean arrivals per second.
        rate_per_sec: f64,
        /// Hosts that may send (and, without `destinations`, receive).
        hosts: Vec<HostIndex>,
        /// Hosts that receive, if not `hosts` (D3 Section 6.1.2: responses from a rack's workers
        /// to its aggregator); a flow goes to one of them other than its source.
        destinations: Option<Vec<HostIndex>>,
        /// How each flow's destination is picked.
        pattern: TrafficPattern,
        /// The share of flows that stay inside their sender's rack, when set.
        rack_local: Option<RackLocal>,
        /// The rate came from `load` (so errors about it name that key).
        from_load: bool,
        /// Sizes.
        size: SizeDist,
        /// Deadlines; `None` for no deadline.
        deadline: Option<DeadlineDist>,
        /// First possible arrival.
        start: Instant,
        /// No arrivals at or after this time.
        stop: Instant,
        /// Shared options.
        options: FlowOptions,
    },
    /// An explicit list of flows (inline, or converted from a Parquet trace by the Python layer).
    Flows {
        /// The flows.
        flows: Vec<ExplicitFlow>,
        /// Shared options.
        options: FlowOptions,
    },
    /// A CSV trace, checked whole when the scenario is loaded and read again row by row as the
    /// run reaches its flows, so that a run holds the flows in flight, not the file (issue 41).
    Trace {
        /// The file and what its check found.
        trace: TraceFile,
        /// Shared options.
        options: FlowOptions,
    },
    /// D2TCP Section 4.2.1's OLDI applications: trees whose leaves all answer their parent when
    /// a query arrives, optionally with Section 4.2.3's background flows.
    Oldi(OldiSpec),
}

impl WorkloadSpec {
    /// The options shared by every workload kind.
    pub fn options(&self) -> &FlowOptions {
        match self {
            WorkloadSpec::FlowBurst { options, .. }
            | WorkloadSpec::LongFlows { options, .. }
            | WorkloadSpec::Poisson { options, .. }
            | WorkloadSpec::Flows { options, .. }
            | WorkloadSpec::Trace { options, .. } => options,
            WorkloadSpec::Oldi(oldi) => &oldi.options,
        }
    }

    /// The OLDI trees of an `oldi` workload.
    pub fn oldi(&self) -> Option<&OldiSpec> {
        match self {
            WorkloadSpec::Oldi(oldi) => Some(oldi),
            _ => None,
        }
    }

    /// The protocols its flows run, with `default` (the scenario's transport) for the flows
    /// that name none.
    pub fn flow_protocols(&self, default: Protocol) -> Vec<Protocol> {
        let named = match self {
            WorkloadSpec::Oldi(o) => {
                let apps = (0..o.apps.len()).map(|a| o.app_options(a).protocol);
                apps.chain(o.background.as_ref().map(|_| o.background_options().protocol)).collect()
            }
            _ => vec![self.options().protocol],
        };
        named.into_iter().map(|p: Option<Protocol>| p.unwrap_or(default)).collect()
    }

    /// The protocols the workload names for its flows (the scenario's transport covers the rest).
    pub fn protocols(&self) -> impl Iterator<Item = Protocol> + '_ {
        let oldi = self.oldi();
        let apps = oldi.into_iter().flat_map(|o| o.apps.iter().filter_map(|a| a.protocol));
        let background = oldi.and_then(|o| o.background.as_ref()).and_then(|b| b.protocol);
        self.options().protocol.into_iter().chain(apps).chain(background)
    }

    /// How many of the workload's flows never finish.
    pub fn long_lived_flows(&self) -> u64 {
        match self {
            WorkloadSpec::LongFlows { pairs, .. } => pairs.len() as u64,
            WorkloadSpec::Flows { flows, .. } => flows.iter().filter(|f| f.size_bytes.is_none()).count() as u64,
            WorkloadSpec::Trace { trace, .. } => trace.long_lived,
            WorkloadSpec::FlowBurst { .. } | WorkloadSpec::Poisson { .. } | WorkloadSpec::Oldi(_) => 0,
        }
    }

    /// Whether the workload starts flows that never finish, in which case the run needs a
    /// `duration` to stop.
    pub fn has_long_lived_flows(&self) -> bool {
        match self {
            WorkloadSpec::LongFlows { pairs, .. } => !pairs.is_empty(),
            WorkloadSpec::Flows { flows, .. } => flows.iter().any(|f| f.size_bytes.is_none()),
            WorkloadSpec::Trace { trace, .. } => trace.long_lived > 0,
            WorkloadSpec::FlowBurst { .. } | WorkloadSpec::Poisson { .. } | WorkloadSpec::Oldi(_) => false,
        }
    }
}

/// D2TCP Section 4.2.1: "Each application consists of a set of five identical OLDI trees, each
/// with one parent and n leaves". The hosts are divided equally among the applications, every
/// tree node sits on a random host of its application's share, and each query of a tree makes all
/// its leaves send their message to the parent at the same instant. Queries arrive at each tree
/// as a Poisson process.
#[derive(Clone, Debug, PartialEq)]
pub struct OldiSpec {
    /// The applications, each with its own message size and base deadline.
    pub apps: Vec<OldiApp>,
    /// Trees of each application (D2TCP Section 4.2.1: five).
    pub trees_per_app: u32,
    /// Leaves per tree, n (D2TCP Section 4.2.2 sweeps 5 to 40).
    pub fan_in: u32,
    /// Hosts shared out among the applications, `hosts.len() / apps.len()` each (the remainder
    /// serves none); at least `fan_in + 1` per application, so a tree's nodes are distinct.
    pub hosts: Vec<HostIndex>,
    /// How a message's deadline varies around its application's base deadline.
    pub variance: DeadlineVariance,
    /// How often each tree is queried.
    pub load: QueryLoad,
    /// Section 4.2.3's background senders, one per tree in place of a leaf; `None` for none.
    pub background: Option<BackgroundSpec>,
    /// First possible query or background flow.
    pub start: Instant,
    /// No query or background flow arrives at or after this time.
    pub stop: Instant,
    /// Protocol and priority of every flow, unless an application or the background senders
    /// override the protocol.
    pub options: FlowOptions,
    /// Whether a leaf answers its parent on a fresh connection per message or on one
    /// persistent connection per (leaf, parent) pair; background flows are always fresh.
    pub connections: Connections,
}

/// How an OLDI leaf's messages to its parent map onto TCP connections.
///
/// The D2TCP paper does not say. A fresh connection per message starts every message in slow
/// start from the initial window with DCTCP's alpha at 1; OLDI services usually keep one
/// connection open per (leaf, parent) pair, so that each message starts with the window and the
/// alpha its predecessors left (and pays the handshake once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Connections {
    /// Each message is its own flow on a new connection. The default.
    #[default]
    PerMessage,
    /// Each message is pushed onto the connection of its (leaf, parent, protocol), opened by
    /// the first message; TCP-family protocols only.
    Persistent,
}

/// How a Poisson workload picks a flow's destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TrafficPattern {
    /// Uniform over the other hosts (or over `destinations`), drawn afresh for every flow: the
    /// all-to-all traffic of pFabric's and HPCC's generators. The default.
    #[default]
    Random,
    /// Every sender always sends to the same host, its partner in one random cyclic permutation
    /// of the hosts drawn at the start (so every host also receives from exactly one): the
    /// permutation traffic matrix of NetSys/simulator's pFabric runs (`permutation_tm: 1`).
    Permutation,
}

/// A share of a random pattern's flows kept inside the sender's rack (the rest leave it): the
/// rack-local traffic of VL2's and Benson et al.'s datacenter measurements.
#[derive(Clone, Debug, PartialEq)]
pub struct RackLocal {
    /// Probability that a flow's destination is drawn from its sender's rack, in [0, 1].
    pub share: f64,
    /// The rack of every host of the topology, by host index ([`TopologySpec::rack_of`]).
    pub racks: Vec<u32>,
}

/// One OLDI application (D2TCP Section 4.2.1).
#[derive(Clone, Debug, PartialEq)]
pub struct OldiApp {
    /// Size of each leaf-to-parent message.
    pub message_bytes: u64,
    /// Deadline the variance is applied to.
    pub base_deadline: Duration,
    /// Protocol of this application's messages; `None` uses the workload's (D2TCP Section 4.2.5
    /// runs some applications on TCP and others on D2TCP).
    pub protocol: Option<Protocol>,
}

/// D2TCP Section 4.2.1: "We set the five OLDI applications' message sizes to 2, 6, 10, 14, and
/// 18 KB and deadlines to 20, 30, 35, 40 and 45 milliseconds, respectively."
pub const D2TCP_APPS: [(u64, Duration); 5] = [
    (2_000, Duration::from_ms(20)),
    (6_000, Duration::from_ms(30)),
    (10_000, Duration::from_ms(35)),
    (14_000, Duration::from_ms(40)),
    (18_000, Duration::from_ms(45)),
];

/// D2TCP Section 4.2.1: "a set of five identical OLDI trees" per application.
pub const D2TCP_TREES_PER_APP: u32 = 5;

/// How each message's deadline is drawn from its application's base deadline (D2TCP Section
/// 4.2.2, Figures 9 to 11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlineVariance {
    /// "a 10% uniform-random variation added to the base deadline": base x U[1, 1.1].
    Low,
    /// "adds a 50% uniform-random variation": base x U[1, 1.5]. The paper's choice for every
    /// result after Section 4.2.2.
    Medium,
    /// "a one-sided exponential distribution with mean equal to the base deadline", as in D3.
    High,
}

impl DeadlineVariance {
    /// The distribution of a message's deadline whose base deadline is `base`.
    pub fn around(self, base: Duration) -> DeadlineDist {
        let plus = |divisor: u64| Duration::from_ps(base.as_ps().saturating_add(base.as_ps() / divisor));
        match self {
            DeadlineVariance::Low => DeadlineDist::Uniform { lo: base, hi: plus(10) },
            DeadlineVariance::Medium => DeadlineDist::Uniform { lo: base, hi: plus(2) },
            DeadlineVariance::High => DeadlineDist::Exponential { mean: base, min: Duration::ZERO },
        }
    }
}

/// How often the trees of an OLDI workload are queried.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueryLoad {
    /// Queries per second of every tree.
    PerTree(f64),
    /// D2TCP runs at a "network utilization [of] 10-20%" without defining it. Here it is the mean
    /// offered load of a tree's messages on the bottleneck, its parent's downlink, as a fraction
    /// of `link`: each tree is queried utilization x link / (n x message bits) times a second,
    /// so the application's message size sets its query rate. Background flows are not counted.
    Utilization {
        /// Fraction of the link, in (0, 1].
        fraction: f64,
        /// Rate of the parents' downlinks (the host link rate of the topology).
        link: BitsPerSec,
    },
}

impl QueryLoad {
    /// Queries per second of a tree of `fan_in` leaves whose messages are `message_bytes` long.
    pub fn queries_per_sec(self, fan_in: u32, message_bytes: u64) -> f64 {
        match self {
            QueryLoad::PerTree(rate) => rate,
            QueryLoad::Utilization { fraction, link } => {
                fraction * link.0 as f64 / (f64::from(fan_in) * message_bytes as f64 * 8.0)
            }
        }
    }
}

/// D2TCP Section 4.2.3: "we replace one leaf-to-parent flow in each OLDI tree with a long-lived
/// background flow. This background flow has an exponential arrival with mean of 300 ms and
/// sends 1 MB of data."
#[derive(Clone, Debug, PartialEq)]
pub struct BackgroundSpec {
    /// Bytes of each background flow.
    pub size_bytes: u64,
    /// Mean time between a sender's flows (exponential, independent of completions).
    pub mean_interval: Duration,
    /// Protocol of the background flows; `None` uses the workload's.
    pub protocol: Option<Protocol>,
}

impl Default for BackgroundSpec {
    /// The paper's 1 MB every 300 ms on average, on the workload's protocol.
    fn default() -> Self {
        BackgroundSpec { size_bytes: 1_000_000, mean_interval: Duration::from_ms(300), protocol: None }
    }
}

impl OldiSpec {
    /// D2TCP Section 4.2.1's workload on `hosts`: the five applications of [`D2TCP_APPS`], five
    /// trees each of `fan_in` leaves, medium deadline variance (the paper's default after Section
    /// 4.2.2), no background flows, queries from time zero to `stop`.
    pub fn d2tcp(hosts: Vec<HostIndex>, fan_in: u32, load: QueryLoad, stop: Instant) -> OldiSpec {
        OldiSpec {
            apps: D2TCP_APPS
                .iter()
                .map(|&(message_bytes, base_deadline)| OldiApp { message_bytes, base_deadline, protocol: None })
                .collect(),
            trees_per_app: D2TCP_TREES_PER_APP,
            fan_in,
            hosts,
            variance: DeadlineVariance::Medium,
            load,
            background: None,
            start: Instant::ZERO,
            stop,
            options: FlowOptions::default(),
            connections: Connections::PerMessage,
        }
    }

    /// Hosts of each application's share.
    pub fn hosts_per_app(&self) -> usize {
        self.hosts.len() / self.apps.len().max(1)
    }

    /// Protocol and priority of application `app`'s messages.
    pub fn app_options(&self, app: usize) -> FlowOptions {
        FlowOptions { protocol: self.apps[app].protocol.or(self.options.protocol), ..self.options.clone() }
    }

    /// Protocol and priority of the background flows.
    pub fn background_options(&self) -> FlowOptions {
        let protocol = self.background.as_ref().and_then(|b| b.protocol);
        FlowOptions { protocol: protocol.or(self.options.protocol), ..self.options.clone() }
    }
}

/// A CSV trace as its check at load time found it. The run opens `resolved` again and checks
/// each row as it reads it (`TraceRows`), since the file may have changed in between.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFile {
    /// The path as the scenario wrote it, for messages.
    pub written: String,
    /// The file it named when checked: absolute, links resolved.
    pub resolved: std::path::PathBuf,
    /// `run.max_trace_bytes` when checked.
    pub max_bytes: u64,
    /// Hosts of the topology (numbered `0..hosts`), which every row's `src` and `dst` must be.
    pub hosts: u32,
    /// The topology's kind name, for messages about a host out of range.
    pub topology: &'static str,
    /// Flows (rows) in the file.
    pub flows: u64,
    /// Of those, the long-lived ones (no `size_bytes`).
    pub long_lived: u64,
}

/// One flow given explicitly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExplicitFlow {
    /// Sender.
    pub src: HostIndex,
    /// Receiver.
    pub dst: HostIndex,
    /// Bytes; `None` for a long-lived flow.
    pub size_bytes: Option<u64>,
    /// Start time.
    pub start: Instant,
    /// Deadline relative to start.
    pub deadline: Option<Duration>,
}

/// When the run stops, and how much it may hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSpec {
    /// Stop at this simulated time; `None` runs until every finite flow has completed.
    pub duration: Option<Duration>,
    /// Also stop, before `duration`, once every finite flow has completed and none is left to
    /// start, even though long-lived flows still run: an experiment measuring bursts over
    /// background traffic (D3 Figures 12 and 13) ends with its last burst.
    pub stop_after_finite_flows: bool,
    /// The engine never processes an event later than this: a run that would pass it stops
    /// there, flagged `stopped_at_horizon` in its summary. At least `duration`, at most
    /// [`MAX_HORIZON`].
    pub horizon: Duration,
    /// Flows that start before this are the warm-up: marked unmeasured (`run.warmup`).
    pub warmup: Duration,
    /// Flows that start at or after this are marked unmeasured (`run.measure_until`).
    pub measure_until: Option<Instant>,
    /// Most flows the workloads may create (`run.max_flows`).
    pub max_flows: u64,
    /// Most hosts the topology may have (`run.max_hosts`).
    pub max_hosts: u64,
    /// Most rows of queue and throughput samples a run may record (`run.max_samples`).
    pub max_samples: u64,
    /// Largest trace file a workload may read, bytes (`run.max_trace_bytes`).
    pub max_trace_bytes: u64,
    /// Most memory the network may take, bytes, as estimated before the run (`footprint`):
    /// nodes, ports and their results rows, routing tables, routes and pending events
    /// (`run.max_network_bytes`).
    pub max_network_bytes: u64,
    /// The progress watchdog (`run.stall_after`): a run without a duration whose unfinished
    /// flows get no byte through for this long stops, flagged `stalled`, as does any run whose
    /// timers fire faster than packets can move.
    pub stall_after: StallAfter,
    /// `run.threads`: run the network cut into parts, on this many threads (`None`: the one
    /// event loop over the whole network, the default). Any count gives the same results as
    /// any other; they may differ from the one loop's in the order of simultaneous events.
    pub threads: Option<Threads>,
}

/// `run.threads`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// One per core of the machine (`std::thread::available_parallelism`).
    Auto,
    /// This many, at least 1 and at most [`MAX_THREADS`].
    Count(u32),
}

impl Threads {
    /// How many threads: `Auto` resolved on this machine.
    pub fn count(self) -> u32 {
        match self {
            Threads::Count(n) => n,
            Threads::Auto => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS as usize) as u32),
        }
    }
}

/// The most threads `run.threads` may ask for.
pub const MAX_THREADS: u32 = 1024;

/// `run.stall_after`: how long a run's flows may get nothing through before it is stopped as
/// stalled (docs/scenario.md, "The progress watchdog").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StallAfter {
    /// The engine's default for the network and its timers: [`DEFAULT_STALL_AFTER`], or longer
    /// where the slowest link or the first retransmission timeout needs it.
    Auto,
    /// This long.
    After(Duration),
    /// Never: no watchdog.
    Off,
}

/// The default horizon: one simulated day, far beyond any datacenter experiment (the papers'
/// runs last seconds), near enough that a run which can never finish stops in bounded time.
pub const DEFAULT_HORIZON: Duration = Duration::from_secs(86_400);

/// The largest horizon: 10^7 s, below the 2^64 ps (about 1.8 x 10^7 s) where simulated time
/// saturates, with room for any timer or delay added to an instant at the horizon.
pub const MAX_HORIZON: Duration = Duration::from_secs(10_000_000);

/// Default `run.max_flows`: each flow holds a few hundred bytes of record and route, more while
/// it runs, so ten million flows stay within a few GB.
pub const DEFAULT_MAX_FLOWS: u64 = 10_000_000;

/// Default `run.max_hosts`: 2^20 hosts, a star of which takes about 1.4 GB; how much memory a
/// network of them may take is `run.max_network_bytes`'s to say (the largest fat-tree of this
/// size, k = 160 with 1 024 000 hosts, takes about 4.1 GB with a few flows).
pub const DEFAULT_MAX_HOSTS: u64 = 1 << 20;

/// Default `run.max_network_bytes`: 4 GiB, what a laptop can spare. It admits every fat tree
/// `max_hosts` does with a few flows (k = 160: 4.26 GB estimated), a star of 2^20 hosts and a
/// leaf-spine of a million spines over two racks; not k = 160 with a flow from every host (5.3
/// GB: a routing table per edge switch).
pub const DEFAULT_MAX_NETWORK_BYTES: u64 = 1 << 32;

/// Default `run.max_samples`: each row is 16 to 48 bytes, so 10^8 rows stay within a few GB.
pub const DEFAULT_MAX_SAMPLES: u64 = 100_000_000;

/// Default `run.max_trace_bytes`: 1 GiB of CSV is about 30 million flows, above `max_flows`.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 1 << 30;

/// The least `run.stall_after` of `"auto"`, its default: 33 times the longest time any run of
/// examples/, benches/, the reproductions or the hostile inputs went without a byte through
/// while a flow ran (0.3 s, a 300 ms RTO), and longer than a flow that loses its first three
/// packets waits on Linux's timers (1 + 2 + 4 s) or its first two on ns-3's (3 + 6 s).
pub const DEFAULT_STALL_AFTER: Duration = Duration::from_secs(10);

impl Default for RunSpec {
    /// No duration, the default horizon and limits.
    fn default() -> Self {
        RunSpec {
            duration: None,
            stop_after_finite_flows: false,
            horizon: DEFAULT_HORIZON,
            warmup: Duration::ZERO,
            measure_until: None,
            max_flows: DEFAULT_MAX_FLOWS,
            max_hosts: DEFAULT_MAX_HOSTS,
            max_samples: DEFAULT_MAX_SAMPLES,
            max_trace_bytes: DEFAULT_MAX_TRACE_BYTES,
            max_network_bytes: DEFAULT_MAX_NETWORK_BYTES,
            stall_after: StallAfter::Auto,
            threads: None,
        }
    }
}

impl RunSpec {
    /// The instant the run cannot pass: the end of `duration` if given, else the horizon.
    pub fn end(&self) -> Instant {
        Instant::ZERO + self.duration.unwrap_or(self.horizon).min(self.horizon)
    }

    /// Whether a flow that starts at `start` lies in the measurement window: after the warm-up
    /// and before `measure_until`.
    pub fn measures(&self, start: Instant) -> bool {
        start >= Instant::ZERO + self.warmup && self.measure_until.is_none_or(|until| start < until)
    }
}

/// Optional instrumentation.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutputSpec {
    /// Sample queue length of these ports every `interval`.
    pub queue_samples: Option<QueueSampling>,
    /// Sample each flow's delivered bytes every `interval` (per-flow throughput).
    pub flow_throughput_interval: Option<Duration>,
    /// Capture these ports' packets into a pcap file.
    pub capture: Option<CaptureSpec>,
    /// Trace these flows' congestion state at each change.
    pub traces: Option<TraceSpec>,
    /// Log every packet offered to these ports: what it found and what the port did with it.
    pub offer_log: Option<OfferLogSpec>,
}

/// Which ports log their offers (`[output] offer_log_ports`), and how many rows at most.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferLogSpec {
    /// Port names or patterns, as `QueueSampling::ports`.
    pub ports: Vec<String>,
    /// Offers to log at most; later ones are counted as missed.
    pub max_rows: u64,
}

impl OfferLogSpec {
    /// `offer_log_max_rows` when not given: about 50 MB of rows.
    pub const DEFAULT_MAX_ROWS: u64 = 1_000_000;
}

/// Which flows to trace (`[output] trace_flows`, `trace_workloads`, `trace_apps`): a flow is
/// traced when its id is listed, or its workload, or its OLDI application.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TraceSpec {
    /// Flow ids (the flow table's `flow_id`).
    pub flows: Vec<u32>,
    /// Workload indices (`[[workload]]` in file order, from 0).
    pub workloads: Vec<u32>,
    /// OLDI application indices (the flow table's `app`).
    pub apps: Vec<u32>,
}

/// Which ports to capture (`[output] capture_ports`), and how much.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureSpec {
    /// Port names or patterns, as `QueueSampling::ports`.
    pub ports: Vec<String>,
    /// Packets to capture at most; later packets are counted as missed.
    pub max_packets: u64,
}

impl CaptureSpec {
    /// `capture_max_packets` when not given: about 100 MB of capture.
    pub const DEFAULT_MAX_PACKETS: u64 = 1_000_000;
}

/// Which ports' queues to sample.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSampling {
    /// Sampling period.
    pub interval: Duration,
    /// Ports to sample, each named by the host on the far side of a switch port: the egress port
    /// of the switch that faces this host (the port where incast congestion builds).
    pub host_downlinks: Vec<HostIndex>,
    /// More ports to sample, by name or pattern (`tor*->fabric`): every port whose name
    /// (`results::PortRecord::port`) a pattern matches, `*` standing for any run of characters
    /// and `?` for one.
    pub ports: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utilization_sets_each_trees_query_rate_from_its_message_size() {
        let load = QueryLoad::Utilization { fraction: 0.2, link: BitsPerSec::GBPS };
        // 0.2 x 10^9 b/s / (40 leaves x 2000 B x 8 b/B) = 2 x 10^8 / 640 000 = 312.5 queries/s.
        assert_eq!(load.queries_per_sec(40, 2_000), 312.5);
        // 0.1 x 10^9 / (10 x 18 000 x 8) = 10^8 / 1 440 000 = 69.44 queries/s.
        let load = QueryLoad::Utilization { fraction: 0.1, link: BitsPerSec::GBPS };
        assert!((load.queries_per_sec(10, 18_000) - 69.444_444).abs() < 1e-5);
        assert_eq!(QueryLoad::PerTree(50.0).queries_per_sec(40, 2_000), 50.0);
    }

    #[test]
    fn deadline_variances_are_the_papers_three_distributions() {
        let base = Duration::from_ms(20);
        assert_eq!(DeadlineVariance::Low.around(base), DeadlineDist::Uniform { lo: base, hi: Duration::from_ms(22) });
        assert_eq!(DeadlineVariance::Medium.around(base), DeadlineDist::Uniform { lo: base, hi: Duration::from_ms(30) });
        assert_eq!(DeadlineVariance::High.around(base), DeadlineDist::Exponential { mean: base, min: Duration::ZERO });
    }

    #[test]
    fn apps_and_background_override_the_workload_protocol() {
        let load = QueryLoad::PerTree(1.0);
        let mut spec = OldiSpec::d2tcp((0..20).collect(), 3, load, Instant::ZERO + Duration::from_ms(1));
        spec.options = FlowOptions { protocol: Some(Protocol::Dctcp), priority: 1 };
        spec.apps[2].protocol = Some(Protocol::Tcp);
        assert_eq!(spec.app_options(0), FlowOptions { protocol: Some(Protocol::Dctcp), priority: 1 });
        assert_eq!(spec.app_options(2), FlowOptions { protocol: Some(Protocol::Tcp), priority: 1 });
        assert_eq!(spec.background_options().protocol, Some(Protocol::Dctcp));
        spec.background = Some(BackgroundSpec { protocol: Some(Protocol::Tcp), ..BackgroundSpec::default() });
        assert_eq!(spec.background_options().protocol, Some(Protocol::Tcp));
        assert_eq!(spec.hosts_per_app(), 4);
    }
}
