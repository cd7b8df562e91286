//! The network cut into logical processes, for a run split across threads (issue 41; the plan
//! in docs/notes/parallel-runs.md). A logical process, a *part* here, is a set of nodes whose
//! events one thread runs in time order; two parts meet only through packets that cross a link
//! between them, and such a packet arrives no sooner than the link's delay after it leaves. That
//! delay bounds how far one part may run ahead of the others (the *lookahead*): a round may run
//! every event below the earliest pending event plus the lookahead without waiting for any
//! other part.
//!
//! The cut follows from the topology alone, never from the number of threads, so that a run's
//! results cannot depend on that number:
//! - each switch is a part of its own, with all its ports (a shared buffer never splits);
//! - a host joins the part of the node its NIC leads to (a ToR with its hosts, a star's switch
//!   with all of them): a host's flows' two ends, its NIC and the ToR port towards it then stay
//!   in one part, and a host-to-ToR link, the most numerous, is never cut;
//! - a link without delay is never cut (it would leave no lookahead): its two ends join one part.
//!
//! The engine still runs one loop over the whole network; `incast bench` reports the cut of
//! each benchmark's network, the most threads its run could use.

use std::cmp::Reverse;

use incast_proto::time::Duration;

use crate::ids::NodeId;
use crate::topology::Topology;

/// The parts of a network and how far apart they are in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// The part of each node, numbered in the order of the nodes (the part of node 0 is 0).
    part_of: Vec<u32>,
    /// Number of parts.
    pub parts: u32,
    /// The least delay of a link between two parts; `None` with one part.
    pub lookahead: Option<Duration>,
    /// Links (both directions counted once) between two parts.
    pub cut_links: u64,
    /// Egress ports of the part with the most of them: the largest share of the work one
    /// thread must take, on a network whose ports are equally busy.
    pub largest_part_ports: u64,
}

impl Partition {
    /// The cut of `topo` by the rules of the module's doc.
    pub(crate) fn of(topo: &Topology) -> Partition {
        let mut parts = UnionFind::new(topo.nodes.len());
        for (index, node) in topo.nodes.iter().enumerate() {
            if topo.is_host(NodeId(index as u32)) {
                if let Some(&nic) = node.ports.first() {
                    parts.join(index, topo.ports[nic.idx()].peer.idx());
                }
            }
        }
        for port in &topo.ports {
            if port.link.delay == Duration::ZERO {
                parts.join(port.node.idx(), port.peer.idx());
            }
        }
        // Number the parts in the order of their first node.
        let mut number = vec![u32::MAX; topo.nodes.len()];
        let mut part_of = Vec::with_capacity(topo.nodes.len());
        let mut count = 0;
        for index in 0..topo.nodes.len() {
            let root = parts.root(index);
            if number[root] == u32::MAX {
                number[root] = count;
                count += 1;
            }
            part_of.push(number[root]);
        }
        let mut lookahead: Option<Duration> = None;
        let mut cut_ports = 0u64;
        let mut ports_of = vec![0u64; count as usize];
        for port in &topo.ports {
            let (from, to) = (part_of[port.node.idx()], part_of[port.peer.idx()]);
            ports_of[from as usize] += 1;
            if from != to {
                cut_ports += 1;
                lookahead = Some(lookahead.map_or(port.link.delay, |l| l.min(port.link.delay)));
            }
        }
        Partition {
            part_of,
            parts: count,
            lookahead,
            cut_links: cut_ports / 2,
            largest_part_ports: ports_of.iter().copied().max().unwrap_or(0),
        }
    }

    /// Which of `engines` engines runs each part, on several threads (`crate::sim::crew`; at most
    /// one engine per part): the parts taken from the most ports to the fewest, each to the
    /// engine with the fewest ports so far (the lowest numbered of equals), so that engines get
    /// about as many ports each. Only speed depends on it. (Measured on the Parsimon fabric's first 5 ms, 2 threads: keeping each
    /// pod's racks on one engine to cut the packets that cross engines was 40% slower, its load
    /// being skewed between racks: balance matters more than locality there.)
    pub(crate) fn assign(&self, topo: &Topology, engines: u32) -> Vec<u32> {
        let parts = self.parts as usize;
        let engines = engines.clamp(1, self.parts) as usize;
        let mut ports = vec![0u64; parts];
        for port in &topo.ports {
            ports[self.part_of(port.node) as usize] += 1;
        }
        let mut order: Vec<usize> = (0..parts).collect();
        order.sort_by_key(|&p| (Reverse(ports[p]), p));
        let mut load = vec![0u64; engines];
        let mut engine_of = vec![0u32; parts];
        for p in order {
            let e = (0..engines).min_by_key(|&e| (load[e], e)).expect("at least one engine");
            engine_of[p] = e as u32;
            load[e] += ports[p];
        }
        engine_of
    }

    /// The part node `node` belongs to.
    pub fn part_of(&self, node: NodeId) -> u32 {
        self.part_of[node.idx()]
    }
}

/// Disjoint sets of node indices, joined by links that must not be cut.
struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n).collect() }
    }

    /// The representative of `i`'s set (halving the path on the way).
    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    /// Puts `a` and `b` in one set; the smaller representative stays one, so the result does
    /// not depend on the order of the joins.
    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        let (keep, other) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[other] = keep;
    }
}

#[cfg(test)]
mod tests {
    use incast_proto::time::BitsPerSec;
    use incast_scenario::spec::TopologySpec;

    use super::*;
    use crate::scenario::LinkSpec;

    fn link(delay_ns: u64) -> LinkSpec {
        LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_ns(delay_ns) }
    }

    fn cut(spec: &TopologySpec) -> (Topology, Partition) {
        let topo = Topology::build(spec).unwrap();
        let partition = Partition::of(&topo);
        (topo, partition)
    }

    #[test]
    fn a_star_is_one_part_with_nothing_cut() {
        let (_, p) = cut(&TopologySpec::Star { hosts: 40, link: link(10_000) });
        assert_eq!((p.parts, p.lookahead, p.cut_links, p.largest_part_ports), (1, None, 0, 80));
    }

    #[test]
    fn a_leaf_spine_is_a_part_per_leaf_with_its_hosts_and_one_per_spine() {
        let spec = TopologySpec::LeafSpine { racks: 9, hosts_per_rack: 16, spines: 4, host_link: link(100), fabric_link: link(250) };
        let (topo, p) = cut(&spec);
        assert_eq!((p.parts, p.cut_links), (9 + 4, 9 * 4));
        // Only leaf-spine links are cut: the lookahead is theirs, not the hosts' shorter one.
        assert_eq!(p.lookahead, Some(Duration::from_ns(250)));
        // A leaf's part: its 16 hosts' NICs, 16 downlinks and 4 uplinks.
        assert_eq!(p.largest_part_ports, 36);
        for host in 0..topo.hosts.len() as u32 {
            assert_eq!(p.part_of(topo.hosts[host as usize]), p.part_of(topo.switch_of(host)), "host {host}");
        }
        let spines: Vec<u32> = (0..topo.nodes.len()).filter(|&n| topo.nodes[n].role == "spine").map(|n| p.part_of(NodeId(n as u32))).collect();
        assert_eq!(spines.len(), 4);
        assert!(spines.iter().all(|&s| spines.iter().filter(|&&t| t == s).count() == 1), "each spine alone: {spines:?}");
    }

    #[test]
    fn a_fat_tree_is_a_part_per_switch() {
        let spec = TopologySpec::FatTree { k: 8, host_link: link(1000), agg_link: link(2000), core_link: link(3000) };
        let (topo, p) = cut(&spec);
        // 5k^2/4 switches; every switch-to-switch link cut: k^3/4 edge-aggregation and as many
        // aggregation-core links.
        assert_eq!((p.parts, u64::from(topo.switches)), (80, 80));
        assert_eq!(p.cut_links, 2 * 8 * 8 * 8 / 4);
        assert_eq!(p.lookahead, Some(Duration::from_ns(2000)));
    }

    #[test]
    fn a_link_without_delay_is_never_cut() {
        let spec = TopologySpec::LeafSpine { racks: 3, hosts_per_rack: 2, spines: 2, host_link: link(100), fabric_link: link(0) };
        let (_, p) = cut(&spec);
        assert_eq!((p.parts, p.lookahead, p.cut_links), (1, None, 0));
    }

    #[test]
    fn parts_are_numbered_by_their_first_node_whatever_the_order_of_the_joins() {
        let mut forward = UnionFind::new(4);
        forward.join(0, 3);
        forward.join(3, 2);
        let mut backward = UnionFind::new(4);
        backward.join(2, 3);
        backward.join(3, 0);
        for i in 0..4 {
            assert_eq!(forward.root(i), backward.root(i));
        }
        assert_eq!(forward.root(2), 0);
    }
}
