//! Static shortest-path routing with per-flow ECMP: among equal-cost next hops a switch picks one by
//! hashing the flow, so a flow keeps one path (no reordering) and flows spread over paths. Routes
//! are resolved once, when a flow is created, into a list of egress ports. A route with no ECMP
//! choice on the way is the same for every flow of its host pair, so it is stored once and shared.

use std::collections::HashMap;

use crate::ids::{NodeId, PortId};
use crate::topology::Topology;

/// Hop distances to each destination node, computed on first use, and the shared routes.
#[derive(Debug, Default)]
pub(crate) struct Router {
    distances: HashMap<NodeId, Vec<u32>>,
    /// Routes of host pairs with a single shortest path: (offset, length) in the route table.
    unique: HashMap<(NodeId, NodeId), (u32, u16)>,
    salt: u64,
}

impl Router {
    /// A router whose ECMP choices are salted with `seed`.
    pub(crate) fn new(seed: u64) -> Router {
        Router { distances: HashMap::new(), unique: HashMap::new(), salt: seed }
    }

    /// The egress ports from `src` to `dst` for flow key `flow_key`, as (offset, length) in
    /// `table`; new routes are appended to it.
    pub(crate) fn route(&mut self, topo: &Topology, src: NodeId, dst: NodeId, flow_key: u64, table: &mut Vec<PortId>) -> (u32, u16) {
        if let Some(&shared) = self.unique.get(&(src, dst)) {
            return shared;
        }
        let salt = self.salt;
        let dist = self.distances.entry(dst).or_insert_with(|| bfs(topo, dst));
        let start = table.len();
        let mut branched = false;
        let mut candidates = Vec::new();
        let mut at = src;
        while at != dst {
            let here = dist[at.idx()];
            candidates.clear();
            candidates.extend(
                topo.nodes[at.idx()].ports.iter().copied().filter(|p| dist[topo.ports[p.idx()].peer.idx()] + 1 == here),
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
        let range = (start as u32, (table.len() - start) as u16);
        if !branched {
            self.unique.insert((src, dst), range);
        }
        range
    }
}

/// Hop counts from every node to `dst`; hosts other than `dst` do not forward.
fn bfs(topo: &Topology, dst: NodeId) -> Vec<u32> {
    let mut dist = vec![u32::MAX - 1; topo.nodes.len()];
    dist[dst.idx()] = 0;
    let mut frontier = std::collections::VecDeque::from([dst]);
    while let Some(n) = frontier.pop_front() {
        if n != dst && topo.is_host(n) {
            continue;
        }
        for p in &topo.nodes[n.idx()].ports {
            let peer = topo.ports[p.idx()].peer;
            if dist[peer.idx()] == u32::MAX - 1 {
                dist[peer.idx()] = dist[n.idx()] + 1;
                frontier.push_back(peer);
            }
        }
    }
    dist
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
    use crate::scenario::{LinkSpec, TopologySpec};
    use incast_proto::time::{BitsPerSec, Duration};
    use std::collections::HashSet;

    fn fat_tree(k: u32) -> Topology {
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        Topology::build(&TopologySpec::FatTree { k, link }).unwrap()
    }

    #[test]
    fn fat_tree_inter_pod_route_has_six_hops_and_ends_at_dst() {
        let t = fat_tree(4);
        let mut r = Router::new(1);
        let mut path = Vec::new();
        assert_eq!(r.route(&t, t.hosts[0], t.hosts[15], 7, &mut path), (0, 6));
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
            r.route(&t, t.hosts[0], t.hosts[15], flow, &mut path);
            cores.insert(t.ports[path[2].idx()].peer);
        }
        assert_eq!(cores.len(), 4, "all (k/2)^2 core switches used");
    }

    #[test]
    fn single_path_routes_are_stored_once() {
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        let t = Topology::build(&TopologySpec::Star { hosts: 3, link }).unwrap();
        let mut r = Router::new(1);
        let mut table = Vec::new();
        let a = r.route(&t, t.hosts[1], t.hosts[0], 1, &mut table);
        let b = r.route(&t, t.hosts[1], t.hosts[0], 2, &mut table);
        assert_eq!((a, b, table.len()), ((0, 2), (0, 2), 2));
    }

    #[test]
    fn same_flow_key_gets_same_route() {
        let t = fat_tree(4);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        Router::new(3).route(&t, t.hosts[1], t.hosts[9], 42, &mut a);
        Router::new(3).route(&t, t.hosts[1], t.hosts[9], 42, &mut b);
        assert_eq!(a, b);
    }
}
