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

/// How far from its share of ports each side of a halving may go when parts move for locality
/// (`halve`): 2%, at each of the log2(engines) halvings.
const BALANCE: f64 = 0.02;

/// Passes over the parts at most when they move for locality (`halve`): each pass moves a part
/// only when that cuts fewer links, and on the benchmark fabrics the moves stop after a few.
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
    /// engine's tests deal parts at random). Recursive bisection (`deal`): the parts halved, each
    /// half holding its engines' share of the ports within [`BALANCE`] and as few links as
    /// possible to the other half (`halve`), and each half dealt the same way to its engines, so
    /// that few packets cross between engines (each crossing is a copy and misses on both sides)
    /// while engines get about as many ports each.
    ///
    /// Measured on 2 threads (2026-11-29, alternated runs): the cut between engines halved on the
    /// k = 32 fat tree (16,384 -> 8,192 ports facing the other engine) and on the Parsimon study's
    /// fabric (3,072 -> 1,536), ports balanced exactly; against the deal by ports alone, about 8%
    /// less time on the fat tree and a few percent on the study, whose racks are skewed
    /// (alternated runs, docs/notes/parallel-runs.md). (Keeping each pod's racks on one engine,
    /// whatever their ports, had been 40% slower on the Parsimon fabric, whose load is skewed
    /// between racks: balance comes first.)
    pub(crate) fn assign(&self, topo: &Topology, engines: u32) -> Vec<u32> {
        let ports = self.ports_of(topo);
        // Each part's links to other parts, as the parts at their far ends (once per link).
        let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); ports.len()];
        for port in &topo.ports {
            let (from, to) = (self.part_of(port.node), self.part_of(port.peer));
            if from != to {
                neighbours[from as usize].push(to);
            }
        }
        let mut engine_of = vec![0u32; ports.len()];
        let all: Vec<usize> = (0..ports.len()).collect();
        deal(&neighbours, &ports, &all, 0..self.engines(engines), &mut engine_of);
        engine_of
    }

    /// The engines a run on `threads` threads has: one per thread, at most one per part.
    pub fn engines(&self, threads: u32) -> u32 {
        threads.clamp(1, self.parts)
    }

    /// Each part's egress ports.
    fn ports_of(&self, topo: &Topology) -> Vec<u64> {
        let mut ports = vec![0u64; self.parts as usize];
        for port in &topo.ports {
            ports[self.part_of(port.node) as usize] += 1;
        }
        ports
    }

    /// The part node `node` belongs to.
    pub fn part_of(&self, node: NodeId) -> u32 {
        self.part_of[node.idx()]
    }
}

/// Deals `parts` (of `ports` egress ports each, linked as `neighbours` says) to the engines
/// `engines`: halves them (`halve`), the first half of the engines taking their share of the
/// ports, and deals each half the same way to its engines (recursive bisection: the parts that
/// share an engine stay neighbours on any number of engines).
fn deal(neighbours: &[Vec<u32>], ports: &[u64], parts: &[usize], engines: std::ops::Range<u32>, engine_of: &mut [u32]) {
    let count = engines.end - engines.start;
    if count <= 1 {
        for &p in parts {
            engine_of[p] = engines.start;
        }
        return;
    }
    let first = count / 2;
    let (a, b) = halve(neighbours, ports, parts, [first as usize, (count - first) as usize]);
    deal(neighbours, ports, &a, engines.start..engines.start + first, engine_of);
    deal(neighbours, ports, &b, engines.start + first..engines.end, engine_of);
}

/// Splits `parts` in two for `engines` engines on each side (at least that many parts each,
/// as `parts` holds at least their sum), each side holding its engines' share of the ports, with
/// few links between the two: first by ports, the parts from the most ports to the fewest, each
/// to the side furthest below its share (the first of equals), then the smallest parts of the
/// other side to a side short of parts; then, in passes over the parts in order, a part crosses
/// to the other side when that side holds strictly more of its links (within `parts`) than its
/// own, both sides stay within [`BALANCE`] of their shares and keep their parts. Each move cuts
/// fewer links, so the passes end; at most [`PASSES`] of them. Returns the two sides' parts, in
/// the order of `parts`.
fn halve(neighbours: &[Vec<u32>], ports: &[u64], parts: &[usize], engines: [usize; 2]) -> (Vec<usize>, Vec<usize>) {
    const OUTSIDE: u8 = 2;
    debug_assert!(parts.len() >= engines[0] + engines[1], "a part for each engine at least");
    let total = parts.iter().map(|&p| ports[p]).sum::<u64>() as f64;
    let share = engines[0] as f64 / (engines[0] + engines[1]) as f64;
    let target = [total * share, total * (1.0 - share)];
    let (low, high) = (target.map(|t| (t * (1.0 - BALANCE)).floor() as u64), target.map(|t| (t * (1.0 + BALANCE)).ceil() as u64));
    let mut side = vec![OUTSIDE; ports.len()];
    let (mut load, mut count) = ([0u64; 2], [0usize; 2]);
    let mut order = parts.to_vec();
    order.sort_by_key(|&p| (Reverse(ports[p]), p));
    for &p in &order {
        // The side furthest below its share, by the ratio of its ports to its target.
        let s = usize::from(load[1] as f64 * target[0] < load[0] as f64 * target[1]);
        side[p] = s as u8;
        load[s] += ports[p];
        count[s] += 1;
    }
    for short in 0..2 {
        for &p in order.iter().rev() {
            if count[short] >= engines[short] {
                break;
            }
            if usize::from(side[p]) != short {
                side[p] = short as u8;
                (load[short], load[1 - short]) = (load[short] + ports[p], load[1 - short] - ports[p]);
                (count[short], count[1 - short]) = (count[short] + 1, count[1 - short] - 1);
            }
        }
    }
    for _ in 0..PASSES {
        let mut moved = false;
        for &p in parts {
            let mut links = [0u64; 2];
            for &q in &neighbours[p] {
                if let Some(l) = links.get_mut(usize::from(side[q as usize])) {
                    *l += 1;
                }
            }
            let (here, there) = (usize::from(side[p]), 1 - usize::from(side[p]));
            let balanced = load[there] + ports[p] <= high[there] && load[here] - ports[p] >= low[here];
            if links[there] > links[here] && balanced && count[here] > engines[here] {
                side[p] = there as u8;
                (load[there], load[here]) = (load[there] + ports[p], load[here] - ports[p]);
                (count[there], count[here]) = (count[there] + 1, count[here] - 1);
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    parts.iter().partition(|&&p| side[p] == 0)
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
        for engines in [2, 3, 4, 8] {
            let engine_of = p.assign(&topo, engines);
            let mut load = vec![0u64; engines as usize];
            for port in &topo.ports {
                load[engine_of[p.part_of(port.node) as usize] as usize] += 1;
            }
            // Within 2% of its share at each halving: 4% after two.
            let (mean, halvings) = (topo.ports.len() as f64 / f64::from(engines), f64::from(engines).log2().ceil());
            assert!(load.iter().all(|&l| (l as f64 - mean).abs() <= mean * BALANCE * halvings + 12.0), "{engines} engines: {load:?}");
            // Fewer links cross between engines than when dealt by ports alone (largest first,
            // each to the engine with the fewest so far).
            let ports = p.ports_of(&topo);
            let mut order: Vec<usize> = (0..ports.len()).collect();
            order.sort_by_key(|&q| (Reverse(ports[q]), q));
            let mut dealt = vec![0u32; ports.len()];
            let mut so_far = vec![0u64; engines as usize];
            for q in order {
                let e = (0..engines as usize).min_by_key(|&e| (so_far[e], e)).expect("engines");
                dealt[q] = e as u32;
                so_far[e] += ports[q];
            }
            let (before, after) = (cut_between_engines(&topo, &p, &dealt), cut_between_engines(&topo, &p, &engine_of));
            // 256 -> 128 of the 512 ports between parts on 2 engines, 350 -> 292 on 3, 384 -> 320
            // on 4, 416 -> 384 on 8 (on a k = 32 fat tree: 16,384, 12,288 and 14,336 of 32,768 on
            // 2, 4 and 8).
            assert!(after < before, "{engines} engines: {before} -> {after}");
            if engines == 2 {
                assert_eq!(after * 2, before, "two engines: the cut halves");
            }
        }
        // The deal is the topology's and the engines' alone.
        assert_eq!(p.assign(&topo, 2), p.assign(&topo, 2));
        // Every engine runs a part at least, however few and uneven the parts: a leaf-spine's
        // 4 leaves of 16 hosts and 4 spines, on up to 8 engines.
        let spec = TopologySpec::LeafSpine { racks: 4, hosts_per_rack: 16, spines: 4, host_link: link(100), fabric_link: link(250) };
        let (topo, p) = cut(&spec);
        for engines in 1..=8 {
            let engine_of = p.assign(&topo, engines);
            let mut used: Vec<u32> = engine_of.clone();
            used.sort_unstable();
            used.dedup();
            assert_eq!(used, (0..engines).collect::<Vec<_>>(), "{engines} engines: {engine_of:?}");
        }
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
