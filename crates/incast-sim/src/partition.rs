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

/// How far from the mean of ports an engine's share may go when parts move for locality
/// (`Partition::keep_together`): 2%.
const BALANCE: f64 = 0.02;

/// Passes over the parts at most when they move for locality: each pass moves a part only when
/// that cuts fewer links, and on the benchmark fabrics the moves stop after a few passes.
const PASSES: usize = 50;

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
    /// one engine per part). Only speed depends on it: results are the same for any deal (the
    /// engine's tests deal parts at random). Two steps:
    /// - balance: the parts taken from the most ports to the fewest, each to the engine with the
    ///   fewest ports so far (the lowest numbered of equals), so that engines get about as many
    ///   ports each;
    /// - locality (`keep_together`): parts move to the engine that holds more of their
    ///   neighbours, while every engine keeps within [`BALANCE`] of the mean of ports, so that
    ///   fewer packets cross between engines (each crossing is a copy and misses on both sides).
    ///
    /// Measured on 2 threads (2026-11-29, alternated runs): the cut between engines halved on the
    /// k = 32 fat tree (16,384 -> 8,192 ports facing the other engine) and on the Parsimon study's
    /// fabric (3,072 -> 1,536), with ports exactly balanced; docs/notes/parallel-runs.md has the
    /// times. (Keeping each pod's racks on one engine, whatever their ports, had been 40% slower
    /// on the Parsimon fabric, whose load is skewed between racks: balance comes first.)
    pub(crate) fn assign(&self, topo: &Topology, engines: u32) -> Vec<u32> {
        let engines = engines.clamp(1, self.parts) as usize;
        let ports = self.ports_of(topo);
        let mut engine_of = deal_by_ports(&ports, engines);
        if engines > 1 {
            self.keep_together(topo, &ports, &mut engine_of, engines);
        }
        engine_of
    }

    /// Each part's egress ports.
    fn ports_of(&self, topo: &Topology) -> Vec<u64> {
        let mut ports = vec![0u64; self.parts as usize];
        for port in &topo.ports {
            ports[self.part_of(port.node) as usize] += 1;
        }
        ports
    }

    /// Moves parts between engines to cut fewer links between engines: in passes over the
    /// parts, in order, a part goes to the engine holding most of its links to other parts if
    /// that engine holds strictly more of them than its own, and both engines stay within
    /// [`BALANCE`] of the mean of ports. Each move cuts fewer links, so the passes end; at most
    /// [`PASSES`] of them.
    fn keep_together(&self, topo: &Topology, ports: &[u64], engine_of: &mut [u32], engines: usize) {
        let parts = ports.len();
        // Each part's links to other parts, as the parts at their far ends (a part once per link).
        let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); parts];
        for port in &topo.ports {
            let (from, to) = (self.part_of(port.node), self.part_of(port.peer));
            if from != to {
                neighbours[from as usize].push(to);
            }
        }
        let mean = ports.iter().sum::<u64>() as f64 / engines as f64;
        let (low, high) = ((mean * (1.0 - BALANCE)).floor() as u64, (mean * (1.0 + BALANCE)).ceil() as u64);
        let mut load = vec![0u64; engines];
        for (p, &e) in engine_of.iter().enumerate() {
            load[e as usize] += ports[p];
        }
        let mut links = vec![0u64; engines];
        for _ in 0..PASSES {
            let mut moved = false;
            for p in 0..parts {
                links.iter_mut().for_each(|l| *l = 0);
                for &q in &neighbours[p] {
                    links[engine_of[q as usize] as usize] += 1;
                }
                let here = engine_of[p] as usize;
                let Some(there) = (0..engines).filter(|&e| e != here).max_by_key(|&e| (links[e], Reverse(e))) else { continue };
                if links[there] > links[here] && load[there] + ports[p] <= high && load[here] - ports[p] >= low {
                    engine_of[p] = there as u32;
                    load[there] += ports[p];
                    load[here] -= ports[p];
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
    }

    /// The part node `node` belongs to.
    pub fn part_of(&self, node: NodeId) -> u32 {
        self.part_of[node.idx()]
    }
}

/// The parts, of `ports` egress ports each, dealt to `engines` engines from the most ports to
/// the fewest, each to the engine with the fewest ports so far (the lowest numbered of equals).
fn deal_by_ports(ports: &[u64], engines: usize) -> Vec<u32> {
    let mut order: Vec<usize> = (0..ports.len()).collect();
    order.sort_by_key(|&p| (Reverse(ports[p]), p));
    let mut load = vec![0u64; engines];
    let mut engine_of = vec![0u32; ports.len()];
    for p in order {
        let e = (0..engines).min_by_key(|&e| (load[e], e)).expect("at least one engine");
        engine_of[p] = e as u32;
        load[e] += ports[p];
    }
    engine_of
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

    /// Links between parts of different engines, counted from each end.
    fn cut_between_engines(topo: &Topology, p: &Partition, engine_of: &[u32]) -> usize {
        let engine = |node: NodeId| engine_of[p.part_of(node) as usize];
        topo.ports.iter().filter(|port| engine(port.node) != engine(port.peer)).count()
    }

    #[test]
    fn engines_get_as_many_ports_each_and_hold_neighbouring_parts_together() {
        let spec = TopologySpec::FatTree { k: 8, host_link: link(1000), agg_link: link(1000), core_link: link(1000) };
        let (topo, p) = cut(&spec);
        for engines in [2, 3, 4] {
            let engine_of = p.assign(&topo, engines);
            let mut load = vec![0u64; engines as usize];
            for port in &topo.ports {
                load[engine_of[p.part_of(port.node) as usize] as usize] += 1;
            }
            let mean = topo.ports.len() as f64 / f64::from(engines);
            assert!(load.iter().all(|&l| (l as f64 - mean).abs() <= mean * BALANCE + 1.0), "{engines} engines: {load:?}");
            // Fewer links cross between engines than when dealt by ports alone.
            let dealt = deal_by_ports(&p.ports_of(&topo), engines as usize);
            let (before, after) = (cut_between_engines(&topo, &p, &dealt), cut_between_engines(&topo, &p, &engine_of));
            // Two engines: the cut halves (256 -> 128 of the 512 ports between parts). More: single
            // moves within the balance gain less (3 engines: 350 -> 324; 4: none here).
            assert!(after <= before, "{engines} engines: {before} -> {after}");
            if engines == 2 {
                assert!(after * 2 <= before, "{before} -> {after}");
            }
        }
        // The deal is the topology's and the engines' alone.
        assert_eq!(p.assign(&topo, 2), p.assign(&topo, 2));
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
