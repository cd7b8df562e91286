//! Static shortest-path routing with per-flow ECMP: among equal-cost next hops a switch picks one by
//! hashing the flow, so a flow keeps one path (no reordering) and flows spread over paths. Routes
//! are resolved once, when a flow is created, into a list of egress ports. A route with no ECMP
//! choice on the way is the same for every flow of its host pair, so it is stored once and shared.

use std::collections::HashMap;

use crate::error::{try_vec, ResourceError};
use crate::ids::{NodeId, PortId};
use crate::topology::Topology;

/// Hop distances between switches, computed on first use, and the shared routes.
#[derive(Debug, Default)]
pub(crate) struct Router {
    /// Hops from every switch (by switch index) to a destination host's switch, by that switch.
    /// Hosts forward nothing, so a route's last hop is always its destination's downlink and one
    /// table serves every host of a switch: the tables grow with switches, not hosts (a million
    /// flows to a million hosts of one star need one table, not a million).
    distances: HashMap<NodeId, Vec<u16>>,
    /// Routes of host pairs with a single shortest path: (offset, length) in the route table.
    unique: HashMap<(u32, u32), (u32, u16)>,
    /// Every shortest path of each host pair a sprayed flow runs between, stored once per pair.
    sprayed: HashMap<(u32, u32), PathSet>,
    salt: u64,
}

/// The equal-cost shortest paths of a host pair, back to back in the route table: path `i` is
/// the `len` entries from `start + i * len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PathSet {
    pub(crate) start: u32,
    pub(crate) len: u16,
    pub(crate) count: u16,
}

/// The most equal-cost paths a sprayed host pair keeps: every path of the leaf-spine (one per
/// spine) and of fat trees up to k = 32 ((k/2)^2 = 256 between pods); a graph with more keeps
/// the first 256 in the order of `Router::paths`.
pub(crate) const MAX_SPRAY_PATHS: usize = 256;

/// A switch no path reaches.
const UNREACHED: u16 = u16::MAX;

impl Router {
    /// A router whose ECMP choices are salted with `seed`.
    pub(crate) fn new(seed: u64) -> Router {
        Router { distances: HashMap::new(), unique: HashMap::new(), sprayed: HashMap::new(), salt: seed }
    }

    /// Every shortest path from host `src` to host `dst` (at most [`MAX_SPRAY_PATHS`]), appended
    /// to `table` once per host pair. They are ordered so that consecutive paths differ at the
    /// first switch that has a choice (its choice cycles fastest, the next branching switch's
    /// once per cycle, and so on), so that taking them in turn spreads a flow's packets over that
    /// switch's uplinks round robin, as packet spraying does.
    pub(crate) fn paths(&mut self, topo: &Topology, src: u32, dst: u32, table: &mut Vec<PortId>) -> Result<PathSet, ResourceError> {
        if let Some(&set) = self.sprayed.get(&(src, dst)) {
            return Ok(set);
        }
        let last = topo.switch_of(dst);
        let dist = match self.distances.entry(last) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(switch_distances(topo, last)?),
        };
        let hops = |node: NodeId| topo.switch_index(node).map_or(UNREACHED, |i| dist[i as usize]);
        let nic = topo.host_nic(src);
        // Depth first: each path as its ports and the choice it made at every switch.
        let mut found: Vec<(Vec<usize>, Vec<PortId>)> = Vec::new();
        let mut stack: Vec<(NodeId, Vec<usize>, Vec<PortId>)> = vec![(topo.ports[nic.idx()].peer, Vec::new(), vec![nic])];
        while let Some((at, choices, ports)) = stack.pop() {
            if found.len() == MAX_SPRAY_PATHS {
                break;
            }
            if at == last {
                let mut ports = ports;
                ports.push(topo.host_downlink(dst));
                found.push((choices, ports));
                continue;
            }
            let here = hops(at);
            let next: Vec<PortId> =
                topo.nodes[at.idx()].ports.iter().copied().filter(|p| hops(topo.ports[p.idx()].peer).wrapping_add(1) == here).collect();
            assert!(!next.is_empty(), "every topology we build is connected");
            // Pushed last first, so that the first choice is explored first.
            for (c, &port) in next.iter().enumerate().rev() {
                let mut choices = choices.clone();
                if next.len() > 1 {
                    choices.push(c);
                }
                let mut ports = ports.clone();
                ports.push(port);
                stack.push((topo.ports[port.idx()].peer, choices, ports));
            }
        }
        // The first branching switch's choice cycles fastest.
        found.sort_by(|a, b| a.0.iter().rev().cmp(b.0.iter().rev()));
        let start = table.len() as u32;
        let len = route_len(found[0].1.len());
        for (_, ports) in &found {
            debug_assert_eq!(ports.len(), usize::from(len), "shortest paths have equal lengths");
            table.extend_from_slice(ports);
        }
        let set = PathSet { start, len, count: found.len() as u16 };
        self.sprayed.insert((src, dst), set);
        Ok(set)
    }

    /// The egress ports from host `src` to host `dst` for flow key `flow_key`, as (offset,
    /// length) in `table`, and whether every flow of the pair shares them (no ECMP choice on the
    /// way: stored once); new routes are appended to `table`.
    pub(crate) fn route(
        &mut self,
        topo: &Topology,
        src: u32,
        dst: u32,
        flow_key: u64,
        table: &mut Vec<PortId>,
    ) -> Result<(u32, u16, bool), ResourceError> {
        if let Some(&(start, len)) = self.unique.get(&(src, dst)) {
            return Ok((start, len, true));
        }
        let salt = self.salt;
        let last = topo.switch_of(dst);
        let dist = match self.distances.entry(last) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(switch_distances(topo, last)?),
        };
        let hops = |node: NodeId| topo.switch_index(node).map_or(UNREACHED, |i| dist[i as usize]);
        let start = table.len();
        let mut branched = false;
        let mut candidates = Vec::new();
        // A host's only way out is its NIC.
        let nic = topo.host_nic(src);
        table.push(nic);
        let mut at = topo.ports[nic.idx()].peer;
        while at != last {
            let here = hops(at);
            candidates.clear();
            candidates.extend(
                topo.nodes[at.idx()].ports.iter().copied().filter(|p| hops(topo.ports[p.idx()].peer).wrapping_add(1) == here),
            );
            assert!(!candidates.is_empty(), "every topology we build is connected");
            let pick = if candidates.len() == 1 {
                0
            } else {
                branched = true;
                (mix(flow_key ^ mix(salt ^ u64::from(at.0))) % candidates.len() as u64) as usize
            };
            let port = candidates[pick];
            table.push(port);
            at = topo.ports[port.idx()].peer;
        }
        table.push(topo.host_downlink(dst));
        let range = (start as u32, route_len(table.len() - start));
        if !branched {
            self.unique.insert((src, dst), range);
        }
        Ok((range.0, range.1, !branched))
    }
}

/// Hop counts from every switch, by switch index, to switch `to`, over links between switches.
fn switch_distances(topo: &Topology, to: NodeId) -> Result<Vec<u16>, ResourceError> {
    let mut dist = try_vec(topo.switches as usize, UNREACHED, "a routing table")?;
    let index = |n: NodeId| topo.switch_index(n).map(|i| i as usize);
    dist[index(to).expect("hosts hang from switches")] = 0;
    let mut frontier = std::collections::VecDeque::from([to]);
    while let Some(n) = frontier.pop_front() {
        // At most 2 x `GraphSpec::MAX_REACH` + 1 (the parser's bound), far below `UNREACHED`.
        let next = dist[index(n).expect("only switches are queued")] + 1;
        for p in &topo.nodes[n.idx()].ports {
            let peer = topo.ports[p.idx()].peer;
            if let Some(i) = index(peer) {
                if dist[i] == UNREACHED {
                    dist[i] = next;
                    frontier.push_back(peer);
                }
            }
        }
    }
    Ok(dist)
}

/// A route's length in ports, as a route and a packet's hop count hold it (16 bits): at most
/// 2 x `GraphSpec::MAX_REACH` + 2 on any graph the parser accepts.
fn route_len(ports: usize) -> u16 {
    u16::try_from(ports).expect("graphs are at most GraphSpec::MAX_REACH hops deep")
}

/// SplitMix64 finalizer: a cheap, well-distributed hash of a 64-bit key.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{GraphSpec, LinkSpec, TopologySpec};
    use incast_proto::time::{BitsPerSec, Duration};
    use std::collections::HashSet;

    fn fat_tree(k: u32) -> Topology {
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        Topology::build(&TopologySpec::FatTree { k, host_link: link, agg_link: link, core_link: link }).unwrap()
    }

    #[test]
    fn fat_tree_inter_pod_route_has_six_hops_and_ends_at_dst() {
        let t = fat_tree(4);
        let mut r = Router::new(1);
        let mut path = Vec::new();
        assert_eq!(r.route(&t, 0, 15, 7, &mut path).unwrap(), (0, 6, false));
        assert_eq!(path.len(), 6);
        assert_eq!(t.ports[path[5].idx()].peer, t.hosts[15]);
        assert_eq!(t.ports[path[0].idx()].node, t.hosts[0]);
    }

    #[test]
    fn ecmp_spreads_flows_over_core_switches() {
        let t = fat_tree(4);
        let mut r = Router::new(1);
        let mut cores = HashSet::new();
        for flow in 0..64 {
            let mut path = Vec::new();
            r.route(&t, 0, 15, flow, &mut path).unwrap();
            cores.insert(t.ports[path[2].idx()].peer);
        }
        assert_eq!(cores.len(), 4, "all (k/2)^2 core switches used");
    }

    /// On pFabric's leaf-spine a route between racks crosses one spine (4 hops: NIC, leaf up,
    /// spine down, leaf to host), flows between the same hosts spread over all 4 spines about
    /// evenly, and a route inside a rack never leaves the leaf.
    #[test]
    fn leaf_spine_routes_spread_over_every_spine() {
        let fabric = LinkSpec { rate: BitsPerSec(40_000_000_000), delay: Duration::from_ns(200) };
        let host = LinkSpec { rate: BitsPerSec(10_000_000_000), ..fabric };
        let spec = TopologySpec::LeafSpine { racks: 9, hosts_per_rack: 16, spines: 4, host_link: host, fabric_link: fabric };
        let t = Topology::build(&spec).unwrap();
        let mut r = Router::new(1);
        let mut per_spine: HashMap<NodeId, u32> = HashMap::new();
        for flow in 0..400 {
            let mut path = Vec::new();
            assert_eq!(r.route(&t, 0, 143, flow, &mut path).unwrap().1, 4);
            assert_eq!(t.ports[path[3].idx()].peer, t.hosts[143]);
            *per_spine.entry(t.ports[path[1].idx()].peer).or_default() += 1;
        }
        assert_eq!(per_spine.len(), 4, "{per_spine:?}");
        assert!(per_spine.values().all(|&n| (60..=140).contains(&n)), "{per_spine:?}");
        let mut path = Vec::new();
        assert_eq!(r.route(&t, 0, 15, 1, &mut path).unwrap().1, 2, "inside rack 0");
    }

    /// On a fat tree whose tiers run at different rates, a route's links are the host, edge,
    /// aggregation and core links in that order, each at its tier's rate.
    #[test]
    fn fat_tree_routes_cross_each_tier_at_its_rate() {
        let at = |gbps: u64| LinkSpec { rate: BitsPerSec(gbps * 1_000_000_000), delay: Duration::from_us(1) };
        let spec = TopologySpec::FatTree { k: 4, host_link: at(10), agg_link: at(5), core_link: at(20) };
        let t = Topology::build(&spec).unwrap();
        let mut path = Vec::new();
        Router::new(1).route(&t, 0, 15, 3, &mut path).unwrap();
        let rates: Vec<u64> = path.iter().map(|p| t.ports[p.idx()].link.rate.0 / 1_000_000_000).collect();
        assert_eq!(rates, [10, 5, 20, 20, 5, 10]);
    }

    /// Sprayed, a flow between racks of pFabric's leaf-spine has one path per spine, taken in
    /// turn spine after spine; inside a rack it has one path.
    #[test]
    fn leaf_spine_path_set_has_one_path_per_spine_in_turn() {
        let fabric = LinkSpec { rate: BitsPerSec(40_000_000_000), delay: Duration::from_ns(200) };
        let spec = TopologySpec::LeafSpine { racks: 9, hosts_per_rack: 16, spines: 4, host_link: fabric, fabric_link: fabric };
        let t = Topology::build(&spec).unwrap();
        let mut r = Router::new(1);
        let mut table = Vec::new();
        let set = r.paths(&t, 0, 143, &mut table).unwrap();
        assert_eq!((set.len, set.count), (4, 4));
        let spines: Vec<NodeId> = (0..4).map(|i| t.ports[table[(set.start + i * 4 + 1) as usize].idx()].peer).collect();
        assert_eq!(spines.iter().collect::<HashSet<_>>().len(), 4, "{spines:?}");
        assert_eq!(r.paths(&t, 0, 143, &mut table).unwrap(), set, "stored once per pair");
        assert_eq!(r.paths(&t, 0, 15, &mut table).unwrap().count, 1, "inside rack 0");
    }

    /// On a k = 4 fat tree a flow between pods has (k/2)^2 = 4 paths: consecutive ones leave the
    /// edge switch by different uplinks.
    #[test]
    fn fat_tree_path_set_alternates_the_first_choice_fastest() {
        let t = fat_tree(4);
        let mut r = Router::new(1);
        let mut table = Vec::new();
        let set = r.paths(&t, 0, 15, &mut table).unwrap();
        assert_eq!((set.len, set.count), (6, 4));
        let uplink = |i: u32| table[(set.start + i * 6 + 1) as usize];
        assert_ne!(uplink(0), uplink(1));
        assert_eq!(uplink(0), uplink(2));
        let paths: HashSet<&[PortId]> = table.chunks(6).collect();
        assert_eq!(paths.len(), 4, "four distinct paths");
    }

    #[test]
    fn single_path_routes_are_stored_once() {
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        let t = Topology::build(&TopologySpec::Star { hosts: 3, link }).unwrap();
        let mut r = Router::new(1);
        let mut table = Vec::new();
        let a = r.route(&t, 1, 0, 1, &mut table).unwrap();
        let b = r.route(&t, 1, 0, 2, &mut table).unwrap();
        assert_eq!((a, b, table.len()), ((0, 2, true), (0, 2, true), 2));
    }

    #[test]
    fn same_flow_key_gets_same_route() {
        let t = fat_tree(4);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        Router::new(3).route(&t, 1, 9, 42, &mut a).unwrap();
        Router::new(3).route(&t, 1, 9, 42, &mut b).unwrap();
        assert_eq!(a, b);
    }

    /// `levels` levels of switches (one at level 0, `width` at each above, each linked to every
    /// switch of the levels next to it): two hosts on level 0, one on each switch of every 200th
    /// level and of the last.
    fn layered(levels: u32, width: u32) -> TopologySpec {
        use crate::scenario::{GraphLink, GraphNode, GraphSpec};
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        let width_of = |level: u32| if level == 0 { 1 } else { width };
        let mut nodes = Vec::new();
        let mut first = Vec::new();
        for level in 0..levels {
            first.push(nodes.len() as u32);
            nodes.extend((0..width_of(level)).map(|i| GraphNode { name: format!("s{level}_{i}"), host: false }));
        }
        let mut links = Vec::new();
        for level in 1..levels {
            for i in 0..width_of(level) {
                for j in 0..width_of(level - 1) {
                    links.push(GraphLink { a: first[level as usize - 1] + j, b: first[level as usize] + i, link, buffer: None, line: 0 });
                }
            }
        }
        let top = levels - 1;
        let mut host_links = Vec::new();
        // Hosts on every 200th level keep every tier below `GraphSpec::MAX_TIER`.
        let middle = (200..top).step_by(200).flat_map(|level| (0..width_of(level)).map(move |i| (level, i)));
        let ends = [(0, 0), (0, 0)].into_iter().chain(middle).chain((0..width_of(top)).map(|i| (top, i)));
        for switch in ends.map(|(level, i)| first[level as usize] + i) {
            host_links.push(links.len() as u32);
            links.push(GraphLink { a: nodes.len() as u32, b: switch, link, buffer: None, line: 0 });
            nodes.push(GraphNode { name: format!("h{}", host_links.len() - 1), host: true });
        }
        TopologySpec::Graph(GraphSpec { file: "g".into(), nodes, links, host_links })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// On deep and wide graphs up to the parser's bound, routes are as long as the graph is
        /// deep (no hop count or distance wraps), walk link by link to their host, and the
        /// sprayed paths are every equal-cost path up to the most kept.
        #[test]
        fn routes_on_deep_and_wide_graphs_are_exact(levels in 1u32..=(GraphSpec::MAX_REACH + 1), width in 1u32..4, key in 0u64..1000) {
            let t = Topology::build(&layered(levels, width)).unwrap();
            let dst = t.hosts.len() as u32 - 1;
            let mut table = Vec::new();
            let (start, len, _) = Router::new(key).route(&t, 0, dst, key, &mut table).unwrap();
            proptest::prop_assert_eq!(u32::from(len), levels + 1);
            let route = &table[start as usize..][..usize::from(len)];
            proptest::prop_assert_eq!(t.ports[route[0].idx()].node, t.hosts[0]);
            for hop in route.windows(2) {
                proptest::prop_assert_eq!(t.ports[hop[0].idx()].peer, t.ports[hop[1].idx()].node);
            }
            proptest::prop_assert_eq!(t.ports[route[route.len() - 1].idx()].peer, t.hosts[dst as usize]);
            if levels <= 40 {
                let set = Router::new(key).paths(&t, 0, dst, &mut table).unwrap();
                let every = u64::from(width).pow(levels.saturating_sub(2));
                proptest::prop_assert_eq!((u32::from(set.len), u64::from(set.count)), (levels + 1, every.min(MAX_SPRAY_PATHS as u64)));
            }
        }
    }

    /// A graph built by hand past the parser's bound is refused, naming the file's key.
    #[test]
    fn a_graph_too_deep_for_the_hop_counts_is_refused() {
        match Topology::build(&layered(GraphSpec::MAX_REACH + 2, 1)) {
            Err(crate::error::Error::Scenario(e)) => {
                assert_eq!(e.path, "topology.file");
                assert!(e.message.contains("is 1024 hops from"), "{}", e.message);
            }
            other => panic!("built {:?}", other.map(|t| t.switches)),
        }
    }
}
