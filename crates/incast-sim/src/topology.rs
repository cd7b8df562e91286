//! The network graph and its builders: `star`, `d3-testbed` (D3 Figure 8), `two-tier` (D2TCP
//! Figure 8), k-ary `fat-tree`, `leaf-spine` (pFabric's evaluation network) and `graph` (any
//! network, from a file). A link between two nodes is two egress ports, one per direction.

use crate::error::{reserve, try_boxed_str, Error};
use crate::ids::{NodeId, PortId};
// From the parser itself, not through `crate::scenario`, which builds topologies to name their
// ports and so depends on this module.
use incast_scenario::spec::{BufferSpec, GraphSpec, LinkSpec, TopologySpec};
use incast_scenario::ScenarioError;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeKind {
    /// End host with this index.
    Host(u32),
    /// Switch; tier 0 is a ToR or edge switch, higher tiers sit above it.
    Switch {
        /// 0 for ToR/edge, 1 and up for root, fabric, aggregation, core.
        tier: u8,
        /// Index among switches.
        index: u32,
    },
}

/// A node and its egress ports.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) kind: NodeKind,
    pub(crate) ports: Vec<PortId>,
    /// What the node is called in results: `h7` for host 7, a switch by its role in the
    /// topology and its number among the switches of that role (`tor3`, `core0`), or by its role
    /// alone when it is the only one (`switch`, `fabric`, `root`).
    pub(crate) role: &'static str,
    number: Option<u32>,
    /// The name a graph file gives the node, used instead of role and number.
    label: Option<Box<str>>,
}

impl Node {
    /// The node's name (see `role`).
    pub(crate) fn name(&self) -> String {
        if let Some(label) = &self.label {
            return label.to_string();
        }
        match (self.kind, self.number) {
            (NodeKind::Host(h), _) => format!("h{h}"),
            (NodeKind::Switch { .. }, Some(n)) => format!("{}{n}", self.role),
            (NodeKind::Switch { .. }, None) => self.role.to_string(),
        }
    }

    /// 0 for a host, 1 for a ToR or edge switch, and one more per switch tier above.
    pub(crate) fn level(&self) -> u8 {
        match self.kind {
            NodeKind::Host(_) => 0,
            NodeKind::Switch { tier, .. } => tier + 1,
        }
    }
}

/// One direction of a link.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortInfo {
    /// Node that transmits on this port.
    pub(crate) node: NodeId,
    /// Node at the far end of the link.
    pub(crate) peer: NodeId,
    /// Rate and propagation delay.
    pub(crate) link: LinkSpec,
}

/// Nodes, ports and the host numbering.
#[derive(Clone, Debug, Default)]
pub(crate) struct Topology {
    pub(crate) nodes: Vec<Node>,
    pub(crate) ports: Vec<PortInfo>,
    /// Node of host i.
    pub(crate) hosts: Vec<NodeId>,
    /// The switch port that transmits towards host i.
    downlinks: Vec<PortId>,
    /// Number of switches.
    pub(crate) switches: u32,
    /// Queue limits a graph file sets for some links' switch ports, by port (empty when none
    /// does): they replace `[switch]`'s for those ports.
    buffers: Vec<Option<BufferSpec>>,
}

impl Topology {
    /// Builds the topology `spec` describes. Its size is held to `run.max_hosts` when the
    /// scenario is loaded; here the tables are reserved up front, so that running out of memory
    /// is an error rather than an abort.
    pub(crate) fn build(spec: &TopologySpec) -> Result<Topology, Error> {
        let err = |path: &str, message: String| Error::Scenario(ScenarioError { path: format!("topology.{path}"), message });
        let mut t = Topology::default();
        match *spec {
            TopologySpec::Star { hosts, link } => {
                if hosts < 2 {
                    return Err(err("hosts", format!("a star needs at least 2 hosts, got {hosts}")));
                }
                t.reserve(u64::from(hosts), 1, u64::from(hosts))?;
                let sw = t.add_switch(0, "switch");
                for _ in 0..hosts {
                    let h = t.add_host();
                    t.connect(h, sw, link)?;
                }
            }
            TopologySpec::D3Testbed { link } => {
                // D3 Figure 8: four racks of three hosts under a root switch, plus two traffic
                // generators attached to the root.
                let root = t.add_switch(1, "root");
                for _ in 0..4 {
                    let tor = t.add_switch(0, "tor");
                    t.connect(tor, root, link)?;
                    for _ in 0..3 {
                        let h = t.add_host();
                        t.connect(h, tor, link)?;
                    }
                }
                for _ in 0..2 {
                    let h = t.add_host();
                    t.connect(h, root, link)?;
                }
            }
            // D2TCP's two-tier fabric is a leaf-spine with one spine, under its own names.
            TopologySpec::TwoTier { racks, hosts_per_rack, host_link, fabric_link } => {
                t.add_racks(racks, hosts_per_rack, 1, host_link, fabric_link, ("tor", "fabric"))?;
            }
            TopologySpec::LeafSpine { racks, hosts_per_rack, spines, host_link, fabric_link } => {
                t.add_racks(racks, hosts_per_rack, spines, host_link, fabric_link, ("leaf", "spine"))?;
            }
            TopologySpec::Graph(ref graph) => t.add_graph(graph)?,
            TopologySpec::FatTree { k, host_link, agg_link, core_link } => {
                if k < 2 || k % 2 != 0 {
                    return Err(err("k", format!("a fat-tree needs an even k >= 2, got {k}")));
                }
                let half = k / 2;
                // k^3/4 hosts, 5k^2/4 switches, and three links per host (host-edge, edge-agg,
                // agg-core).
                let hosts = u64::from(k).pow(3) / 4;
                t.reserve(hosts, u64::from(k) * u64::from(k) * 5 / 4, 3 * hosts)?;
                let cores: Vec<NodeId> = (0..half * half).map(|_| t.add_switch(2, "core")).collect();
                for _pod in 0..k {
                    let aggs: Vec<NodeId> = (0..half).map(|_| t.add_switch(1, "agg")).collect();
                    for (a, &agg) in aggs.iter().enumerate() {
                        for c in 0..half {
                            t.connect(agg, cores[(a as u32 * half + c) as usize], core_link)?;
                        }
                    }
                    for _edge in 0..half {
                        let edge = t.add_switch(0, "edge");
                        for &agg in &aggs {
                            t.connect(edge, agg, agg_link)?;
                        }
                        for _ in 0..half {
                            let h = t.add_host();
                            t.connect(h, edge, host_link)?;
                        }
                    }
                }
            }
        }
        t.number_switches();
        Ok(t)
    }

    /// `racks` top-of-rack switches of `hosts_per_rack` hosts each (on `host_link`), every one
    /// linked to each of `spines` switches above it (on `fabric_link`); `roles` names the two
    /// tiers. The spines are added first, then each rack's switch, its uplinks and its hosts, so
    /// rack r holds hosts r*H..(r+1)*H.
    fn add_racks(
        &mut self,
        racks: u32,
        hosts_per_rack: u32,
        spines: u32,
        host_link: LinkSpec,
        fabric_link: LinkSpec,
        roles: (&'static str, &'static str),
    ) -> Result<(), Error> {
        for (key, n) in [("racks", racks), ("hosts_per_rack", hosts_per_rack), ("spines", spines)] {
            if n == 0 {
                return Err(Error::Scenario(ScenarioError { path: format!("topology.{key}"), message: "must be at least 1".into() }));
            }
        }
        let hosts = u64::from(racks) * u64::from(hosts_per_rack);
        let (leaves, uplinks) = (u64::from(racks), u64::from(spines));
        self.reserve(hosts, leaves + uplinks, hosts + leaves * uplinks)?;
        let (leaf_role, spine_role) = roles;
        let spine_nodes: Vec<NodeId> = (0..spines).map(|_| self.add_switch(1, spine_role)).collect();
        for _ in 0..racks {
            let leaf = self.add_switch(0, leaf_role);
            for &spine in &spine_nodes {
                self.connect(leaf, spine, fabric_link)?;
            }
            for _ in 0..hosts_per_rack {
                let h = self.add_host();
                self.connect(h, leaf, host_link)?;
            }
        }
        Ok(())
    }

    /// The nodes and links of a graph file, in file order. A switch's tier is its distance in
    /// switch hops from the nearest switch with a host (`GraphSpec::tiers`), which is what a
    /// ToR, an aggregation and a core switch are in the trees the other builders make:
    /// `core_buffer` applies above tier 0, and a port leads `up` when its peer's tier is higher.
    /// A graph deeper than the engine counts (`GraphSpec::too_deep`) is refused: the parser
    /// refuses such a file, so only a graph built by hand gets here.
    fn add_graph(&mut self, g: &GraphSpec) -> Result<(), Error> {
        if let Some(deep) = g.too_deep() {
            return Err(Error::Scenario(ScenarioError { path: "topology.file".into(), message: format!("{}: {deep}", g.file) }));
        }
        let hosts = g.host_links.len() as u64;
        self.reserve(hosts, g.nodes.len() as u64 - hosts, g.links.len() as u64)?;
        let tiers = g.tiers();
        let mut ids = Vec::new();
        reserve(&mut ids, g.nodes.len(), "the topology's nodes")?;
        for (n, node) in g.nodes.iter().enumerate() {
            let id = if node.host {
                self.add_host()
            } else {
                self.add_switch(u8::try_from(tiers[n]).expect("too_deep bounds the tiers"), "switch")
            };
            self.nodes[id.idx()].label = Some(try_boxed_str(&node.name, "the graph's node names")?);
            ids.push(id);
        }
        let per_link_buffers = g.links.iter().any(|l| l.buffer.is_some());
        if per_link_buffers {
            reserve(&mut self.buffers, 2 * g.links.len(), "the topology's ports")?;
        }
        for l in &g.links {
            self.connect(ids[l.a as usize], ids[l.b as usize], l.link)?;
            if per_link_buffers {
                // Host NICs have no switch buffer to replace: only switch ports take the limit.
                let switch_end = |node: u32| (!g.nodes[node as usize].host).then_some(l.buffer).flatten();
                self.buffers.extend([switch_end(l.a), switch_end(l.b)]);
            }
        }
        Ok(())
    }

    /// The queue limit a graph file sets for `port`, if any.
    pub(crate) fn buffer_of(&self, port: PortId) -> Option<BufferSpec> {
        self.buffers.get(port.idx()).copied().flatten()
    }

    /// Numbers the switches of each role in the order they were added; the only switch of its
    /// role keeps the bare role as its name.
    fn number_switches(&mut self) {
        let mut counts: Vec<(&'static str, u32)> = Vec::new();
        for node in self.nodes.iter_mut().filter(|n| matches!(n.kind, NodeKind::Switch { .. })) {
            let count = match counts.iter_mut().find(|(role, _)| *role == node.role) {
                Some((_, c)) => c,
                None => {
                    counts.push((node.role, 0));
                    &mut counts.last_mut().expect("just pushed").1
                }
            };
            node.number = Some(*count);
            *count += 1;
        }
        for node in &mut self.nodes {
            if counts.iter().any(|&(role, c)| role == node.role && c == 1) {
                node.number = None;
            }
        }
    }

    /// The name of port `port` in results: `{transmitting node}->{node at the far end}`, e.g.
    /// `tor3->h17` (a ToR's downlink to host 17), `h17->tor3` (the host's NIC), `tor3->fabric`.
    pub(crate) fn port_name(&self, port: PortId) -> String {
        let p = &self.ports[port.idx()];
        format!("{}->{}", self.nodes[p.node.idx()].name(), self.nodes[p.peer.idx()].name())
    }

    /// Every port's name ([`port_name`](Self::port_name)), in port order.
    pub(crate) fn port_names(&self) -> Vec<String> {
        (0..self.ports.len() as u32).map(|p| self.port_name(PortId(p))).collect()
    }

    /// Room for `hosts` hosts, `switches` switches and `links` links.
    fn reserve(&mut self, hosts: u64, switches: u64, links: u64) -> Result<(), Error> {
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        reserve(&mut self.nodes, count(hosts.saturating_add(switches)), "the topology's nodes")?;
        reserve(&mut self.hosts, count(hosts), "the topology's hosts")?;
        reserve(&mut self.downlinks, count(hosts), "the topology's hosts")?;
        reserve(&mut self.ports, count(links.saturating_mul(2)), "the topology's ports")?;
        Ok(())
    }

    fn add_host(&mut self) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node { kind: NodeKind::Host(self.hosts.len() as u32), ports: Vec::new(), role: "host", number: None, label: None });
        self.hosts.push(id);
        // Set when the host is linked (a graph file may link hosts in any order).
        self.downlinks.push(PortId(u32::MAX));
        id
    }

    fn add_switch(&mut self, tier: u8, role: &'static str) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node { kind: NodeKind::Switch { tier, index: self.switches }, ports: Vec::new(), role, number: None, label: None });
        self.switches += 1;
        id
    }

    /// A full-duplex link: one egress port at each end. A host is always `a`, linked once. The
    /// port table is reserved up front (`reserve`); each node's list of its ports grows here, a
    /// million small lists on a large network, so each growth is fallible too.
    fn connect(&mut self, a: NodeId, b: NodeId, link: LinkSpec) -> Result<(), Error> {
        for (from, to) in [(a, b), (b, a)] {
            let port = PortId(self.ports.len() as u32);
            self.ports.push(PortInfo { node: from, peer: to, link });
            let ports = &mut self.nodes[from.idx()].ports;
            reserve(ports, 1, "the topology's ports")?;
            ports.push(port);
        }
        if let NodeKind::Host(h) = self.nodes[a.idx()].kind {
            self.downlinks[h as usize] = PortId(self.ports.len() as u32 - 1);
        }
        Ok(())
    }

    /// The host's NIC: its only egress port.
    pub(crate) fn host_nic(&self, host: u32) -> PortId {
        self.nodes[self.hosts[host as usize].idx()].ports[0]
    }

    /// The switch port that transmits towards `host` (where incast queues build).
    pub(crate) fn host_downlink(&self, host: u32) -> PortId {
        self.downlinks[host as usize]
    }

    /// The switch a host hangs from.
    pub(crate) fn switch_of(&self, host: u32) -> NodeId {
        self.ports[self.host_nic(host).idx()].peer
    }

    /// The index of switch `node` among the switches.
    pub(crate) fn switch_index(&self, node: NodeId) -> Option<u32> {
        match self.nodes[node.idx()].kind {
            NodeKind::Switch { index, .. } => Some(index),
            NodeKind::Host(_) => None,
        }
    }

    /// Whether `node` is an end host.
    pub(crate) fn is_host(&self, node: NodeId) -> bool {
        matches!(self.nodes[node.idx()].kind, NodeKind::Host(_))
    }

    /// The links from host 0 to a host the most hops away (the last the search reaches), by a
    /// breadth-first search that does not pass through other hosts: on the symmetric networks
    /// incast builds, their longest path. Empty without two hosts.
    pub(crate) fn farthest_path(&self) -> Vec<LinkSpec> {
        let Some(&start) = self.hosts.first() else { return Vec::new() };
        // The port each node was first reached by.
        let mut via: Vec<Option<PortId>> = vec![None; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        seen[start.idx()] = true;
        let mut frontier = std::collections::VecDeque::from([start]);
        let mut farthest = None;
        while let Some(node) = frontier.pop_front() {
            if node != start && self.is_host(node) {
                farthest = Some(node);
                continue;
            }
            for &port in &self.nodes[node.idx()].ports {
                let peer = self.ports[port.idx()].peer;
                if !seen[peer.idx()] {
                    seen[peer.idx()] = true;
                    via[peer.idx()] = Some(port);
                    frontier.push_back(peer);
                }
            }
        }
        let mut path = Vec::new();
        let mut at = farthest;
        while let Some(node) = at {
            let Some(port) = via[node.idx()] else { break };
            path.push(self.ports[port.idx()].link);
            at = Some(self.ports[port.idx()].node);
        }
        path.reverse();
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incast_proto::time::{BitsPerSec, Duration};

    fn link() -> LinkSpec {
        LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(10) }
    }

    fn fat_tree(k: u32) -> TopologySpec {
        TopologySpec::FatTree { k, host_link: link(), agg_link: link(), core_link: link() }
    }

    #[test]
    fn star_has_one_switch_and_two_ports_per_host() {
        let t = Topology::build(&TopologySpec::Star { hosts: 5, link: link() }).unwrap();
        assert_eq!((t.hosts.len(), t.switches, t.ports.len()), (5, 1, 10));
    }

    #[test]
    fn d3_testbed_matches_figure_8() {
        let t = Topology::build(&TopologySpec::D3Testbed { link: link() }).unwrap();
        // 12 rack hosts + 2 generators; 4 ToRs + root; 14 host links + 4 uplinks.
        assert_eq!((t.hosts.len(), t.switches, t.ports.len()), (14, 5, 36));
    }

    #[test]
    fn fat_tree_k4_has_16_hosts_and_20_switches() {
        let t = Topology::build(&fat_tree(4)).unwrap();
        // k^3/4 hosts, 5k^2/4 switches, 3 k^3/4 links.
        assert_eq!((t.hosts.len(), t.switches, t.ports.len()), (16, 20, 96));
    }

    #[test]
    fn fat_tree_with_odd_k_is_an_error_naming_k() {
        let e = Topology::build(&fat_tree(3)).unwrap_err();
        assert!(matches!(e, Error::Scenario(e) if e.path == "topology.k"));
    }

    #[test]
    fn ports_are_named_after_the_nodes_at_both_ends() {
        let names = |spec: TopologySpec| {
            let t = Topology::build(&spec).unwrap();
            (0..t.ports.len() as u32).map(|p| t.port_name(PortId(p))).collect::<Vec<_>>()
        };
        assert_eq!(names(TopologySpec::Star { hosts: 2, link: link() }), ["h0->switch", "switch->h0", "h1->switch", "switch->h1"]);
        let two_tier = names(TopologySpec::TwoTier { racks: 2, hosts_per_rack: 2, host_link: link(), fabric_link: link() });
        assert_eq!(&two_tier[..4], ["tor0->fabric", "fabric->tor0", "h0->tor0", "tor0->h0"]);
        assert!(two_tier.contains(&"tor1->h3".to_string()));
        let fat = names(fat_tree(4));
        assert!(fat.contains(&"agg0->core0".to_string()) && fat.contains(&"core3->agg7".to_string()));
        assert!(fat.contains(&"edge7->h15".to_string()));
        let mut unique = fat.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), fat.len(), "every port has its own name");
        let leaf_spine = names(leaf_spine(3, 2, 4));
        assert_eq!(&leaf_spine[..4], ["leaf0->spine0", "spine0->leaf0", "leaf0->spine1", "spine1->leaf0"]);
        assert!(leaf_spine.contains(&"spine3->leaf2".to_string()) && leaf_spine.contains(&"leaf2->h5".to_string()));
        let d3 = names(TopologySpec::D3Testbed { link: link() });
        assert!(d3.contains(&"root->tor3".to_string()) && d3.contains(&"root->h13".to_string()));
    }

    /// `racks` leaves of `per_rack` hosts under `spines` spines, 10 Gbps hosts and 40 Gbps fabric.
    fn leaf_spine(racks: u32, per_rack: u32, spines: u32) -> TopologySpec {
        let fabric = LinkSpec { rate: BitsPerSec(40_000_000_000), delay: Duration::from_ns(200) };
        let host = LinkSpec { rate: BitsPerSec(10_000_000_000), ..fabric };
        TopologySpec::LeafSpine { racks, hosts_per_rack: per_rack, spines, host_link: host, fabric_link: fabric }
    }

    /// pFabric's 144 hosts: 9 leaves and 4 spines, every leaf on every spine at the fabric rate,
    /// every host on its leaf at the host rate.
    #[test]
    fn leaf_spine_links_every_leaf_to_every_spine_at_the_fabric_rate() {
        let t = Topology::build(&leaf_spine(9, 16, 4)).unwrap();
        assert_eq!((t.hosts.len(), t.switches, t.ports.len()), (144, 13, 2 * (144 + 9 * 4)));
        for p in &t.ports {
            let (a, b) = (&t.nodes[p.node.idx()], &t.nodes[p.peer.idx()]);
            let fabric = a.level() > 0 && b.level() > 0;
            assert_eq!(p.link.rate.0, if fabric { 40_000_000_000 } else { 10_000_000_000 }, "{}", a.name());
        }
        assert_eq!(t.switch_of(17), t.switch_of(31), "hosts 16-31 share rack 1");
        assert_ne!(t.switch_of(15), t.switch_of(16));
    }

    /// Two racks of two hosts under two spines, written the way a user might: switches last,
    /// a host's link with the switch first, one uplink with its own buffer.
    fn graph() -> TopologySpec {
        use crate::scenario::{BufferSpec, GraphLink, GraphNode, GraphSpec};
        let names = ["a", "b", "c", "d", "tor0", "tor1", "sp0", "sp1"];
        let nodes = names.iter().enumerate().map(|(i, n)| GraphNode { name: n.to_string(), host: i < 4 }).collect();
        let fast = LinkSpec { rate: BitsPerSec(40_000_000_000), ..link() };
        let l = |a, b, link, buffer| GraphLink { a, b, link, buffer, line: 0 };
        let links = vec![
            l(4, 6, fast, Some(BufferSpec::PerPortPackets { packets: 7 })),
            l(4, 7, fast, None),
            l(5, 6, fast, None),
            l(5, 7, fast, None),
            l(3, 5, link(), None),
            l(2, 5, link(), None),
            l(0, 4, link(), None),
            l(1, 4, link(), None),
        ];
        TopologySpec::Graph(GraphSpec { file: "g".into(), nodes, links, host_links: vec![6, 7, 5, 4] })
    }

    /// A graph keeps the file's names and order; switches with hosts are tier 0 and the spines
    /// above them tier 1; a link's buffer applies to its switch ports only.
    #[test]
    fn graph_nodes_keep_their_names_tiers_and_buffers() {
        let t = Topology::build(&graph()).unwrap();
        assert_eq!((t.hosts.len(), t.switches, t.ports.len()), (4, 4, 16));
        assert_eq!(t.port_names()[..4], ["tor0->sp0", "sp0->tor0", "tor0->sp1", "sp1->tor0"]);
        assert_eq!(t.port_name(t.host_downlink(2)), "tor1->c");
        assert_eq!(t.port_name(t.host_nic(3)), "d->tor1");
        let level = |name: &str| t.nodes.iter().find(|n| n.name() == name).unwrap().level();
        assert_eq!([level("a"), level("tor0"), level("tor1"), level("sp0"), level("sp1")], [0, 1, 1, 2, 2]);
        assert_eq!(t.buffer_of(PortId(0)), Some(crate::scenario::BufferSpec::PerPortPackets { packets: 7 }));
        assert_eq!(t.buffer_of(PortId(1)), Some(crate::scenario::BufferSpec::PerPortPackets { packets: 7 }));
        assert_eq!(t.buffer_of(PortId(2)), None);
        assert_ne!(t.switch_of(0), t.switch_of(2));
    }

    #[test]
    fn every_host_downlink_faces_its_host() {
        let specs = [
            leaf_spine(3, 2, 2),
            TopologySpec::TwoTier { racks: 2, hosts_per_rack: 3, host_link: link(), fabric_link: link() },
            TopologySpec::D3Testbed { link: link() },
            fat_tree(4),
            graph(),
        ];
        for spec in specs {
            let t = Topology::build(&spec).unwrap();
            for h in 0..t.hosts.len() as u32 {
                let p = t.host_downlink(h);
                assert_eq!(t.ports[p.idx()].peer, t.hosts[h as usize]);
                assert_eq!(t.ports[p.idx()].node, t.switch_of(h));
            }
        }
    }

    /// What `incast_scenario::footprint` estimates memory with holds for the engine: its bytes
    /// per node and per port cover the engine's types, and its shape of each topology is the
    /// one built (the counts, the switches with hosts, the longest route, the most equal-cost
    /// paths between two hosts; a graph's route and paths only bounded).
    #[test]
    fn footprint_matches_the_engine() {
        use crate::routing::{Router, MAX_SPRAY_PATHS};
        use incast_scenario::footprint::{Shape, NODE_BYTES, PORT_BYTES};
        use std::mem::size_of;
        // A node and its list of ports (at least 32 bytes with the allocator's header).
        assert!(size_of::<Node>() + 32 <= NODE_BYTES as usize);
        // A port, its link, its one-queue table, its entries in its node's list (doubling), in
        // the host-of-port and processor-timer tables.
        let queues = size_of::<std::collections::VecDeque<crate::ids::PacketId>>() + 16;
        let port = size_of::<crate::port::Port>() + size_of::<PortInfo>() + queues + 8 + 4 + size_of::<Option<incast_proto::time::Instant>>();
        assert!(port <= PORT_BYTES as usize, "{port}");
        assert_eq!(incast_scenario::footprint::MAX_SPRAY_PATHS as usize, MAX_SPRAY_PATHS);
        let specs = [
            TopologySpec::Star { hosts: 5, link: link() },
            TopologySpec::D3Testbed { link: link() },
            TopologySpec::TwoTier { racks: 3, hosts_per_rack: 2, host_link: link(), fabric_link: link() },
            TopologySpec::TwoTier { racks: 1, hosts_per_rack: 3, host_link: link(), fabric_link: link() },
            leaf_spine(3, 2, 4),
            leaf_spine(1, 4, 2),
            fat_tree(4),
            fat_tree(6),
            graph(),
        ];
        for spec in specs {
            let t = Topology::build(&spec).unwrap();
            let shape = Shape::of(&spec);
            let hosts = t.hosts.len() as u32;
            assert_eq!((shape.hosts, shape.switches, 2 * shape.links), (u64::from(hosts), u64::from(t.switches), t.ports.len() as u64), "{spec:?}");
            let mut edge: Vec<NodeId> = (0..hosts).map(|h| t.switch_of(h)).collect();
            edge.sort_unstable_by_key(|n| n.0);
            edge.dedup();
            assert_eq!(shape.edge_switches, edge.len() as u64, "{spec:?}");
            let (mut router, mut table) = (Router::new(1), Vec::new());
            let (mut longest, mut most) = (0, 0);
            for (src, dst) in (0..hosts).flat_map(|s| (0..hosts).filter(move |&d| d != s).map(move |d| (s, d))) {
                let set = router.paths(&t, src, dst, &mut table).unwrap();
                (longest, most) = (longest.max(u64::from(set.len)), most.max(u64::from(set.count)));
            }
            assert!(longest <= shape.route_ports && most <= shape.paths, "{spec:?}");
            if !matches!(spec, TopologySpec::Graph(_)) {
                assert_eq!((longest, most), (shape.route_ports, shape.paths), "{spec:?}");
            }
        }
    }
}
