//! Warnings: what a valid scenario will do that its file may not mean, found once validation has
//! built the [`Scenario`] (docs/scenario.md, "Warnings"). Each is a [`Warning`] naming the key it
//! is about, one sentence long; validation stores them on the scenario, and `incast check`,
//! `incast run`, `incast sweep` and the Python API show them. The run is never refused for one.
//!
//! - a protocol's section (`[d3]`, `[pdq]`, ...) that no flow reads;
//! - `[transport]` keys set when every flow runs a transport whose hosts read none (pFabric's);
//! - an ECN-based transport (`TransportRules::ECN_REACTIVE`: DCTCP, D2TCP) on ports that never
//!   mark (`switch.ecn_threshold = "off"`): it runs as a loss-based TCP;
//! - an RTO floor (or initial RTO) more than [`RTO_RATIO`] times the network's base RTT on host
//!   links of [`FAST_LINK`] or faster: Linux's 200 ms and 1 s on a 10 Gbps fabric ([`base_rtt`]);
//! - `run.threads` above what the network can use: a part per switch at most (one switch: the
//!   one event loop).

use std::collections::VecDeque;

use incast_proto::time::{BitsPerSec, Duration};

use super::describe::transport_unread;
use super::error::Warning;
use super::footprint::Shape;
use super::protocols::{named_at, prose, ProtocolSections};
use super::scenario::Scenario;
use super::spec::{EcnMark, EcnSpec, GraphSpec, LinkSpec, Protocol, TopologySpec};

/// What the file sets, beyond what the validated scenario holds.
pub(crate) struct Given<'a> {
    /// The protocols' sections it has (`"d3"`, `"pdq"`, ...).
    pub(crate) sections: &'a [&'static str],
    /// The `[transport]` keys it sets, in the order of `file::RawTransport`.
    pub(crate) transport: &'a [&'static str],
    /// Bytes of one full-size data packet on the wire, with the largest header of the
    /// protocols in use: what the base RTT serializes at each hop.
    pub(crate) packet_bytes: u64,
}

/// An RTO floor more than this many times the base RTT is warned about. The tuned floors of
/// incast's own 10 Gbps examples sit near 450 (`leaf-spine-web-search.toml`'s 2 ms on a 4.6 us
/// base RTT, `open-loop-queries.toml`'s 10 ms on 22 us); Linux's 200 ms and 1 s on a 10 Gbps
/// fabric are 10^3 to 10^5, where one lost SYN or tail outweighs every other flow's completion
/// time.
pub(crate) const RTO_RATIO: u64 = 1000;

/// Host links at least this fast count as a datacenter fabric for the RTO warning: the papers'
/// 1 Gbps testbeds ran with their hosts' RTOs (D3's 300 ms), which the warning would only repeat.
pub(crate) const FAST_LINK: BitsPerSec = BitsPerSec(10_000_000_000);

/// Every warning about `scenario`, in a fixed order, each once.
pub(crate) fn of(scenario: &Scenario, given: &Given<'_>) -> Vec<Warning> {
    let in_use = scenario.protocols_in_use();
    let mut out = ProtocolSections::unused(given.sections, &in_use);
    out.extend(unread_transport_keys(&in_use, given));
    out.extend(ecn_off(scenario, &in_use));
    out.extend(long_rto(scenario, &in_use, given));
    out.extend(idle_threads(scenario));
    out
}

/// `run.threads` above the parts the network can be cut into: each switch with the hosts it
/// serves is a part at most, and a thread runs at least one part (one switch: no parts, the one
/// event loop). Silently, the run would use fewer threads than the file says.
fn idle_threads(scenario: &Scenario) -> Option<Warning> {
    let threads = scenario.run.threads?.count();
    let switches = Shape::of(&scenario.topology).switches;
    if u64::from(threads) <= switches.max(1) || threads == 1 {
        return None;
    }
    let why = if switches <= 1 {
        "a network of one switch is one part, so the run is the one event loop, on one thread".to_owned()
    } else {
        format!("a network of {switches} switches is cut into at most {switches} parts, so the run uses at most {switches} threads")
    };
    Some(Warning::new("run.threads", format!("asks for {threads} threads, but {why} (docs/scenario.md, \"Threads\")")))
}

/// `[transport]` keys besides `protocol` that no flow reads: every flow runs a transport whose
/// hosts run their own TCP (pFabric). One warning for all of them, at `transport`.
fn unread_transport_keys(in_use: &[Protocol], given: &Given<'_>) -> Option<Warning> {
    let why = transport_unread(in_use)?;
    let keys: Vec<&str> = given.transport.iter().copied().filter(|&k| k != "protocol").collect();
    if keys.is_empty() {
        return None;
    }
    Some(Warning::new("transport", format!("sets {}, which no flow reads: {why}", prose(&keys, "and"))))
}

/// An ECN-based protocol in use while no port marks: its senders never see a mark and run as a
/// loss-based TCP (DCTCP and D2TCP as NewReno's window with their loss reactions).
fn ecn_off(scenario: &Scenario, in_use: &[Protocol]) -> Option<Warning> {
    // "off", or a table by link rate whose every entry the network uses is "off".
    let ecn = &scenario.switch.ecn;
    let never = |(_, rate): &(&str, BitsPerSec)| ecn.at_rate(*rate) == Some(EcnMark::Never);
    if !scenario.topology.link_tiers().iter().all(never) {
        return None;
    }
    let what = if *ecn == EcnSpec::Off { "is \"off\"" } else { "is \"off\" at every link rate of the network" };
    let reacting: Vec<Protocol> = in_use.iter().copied().filter(|p| p.reacts_to_ecn()).collect();
    let first = *reacting.first()?;
    let labels: Vec<&str> = reacting.iter().map(|p| p.label()).collect();
    let at = named_at(&scenario.workloads, scenario.transport.protocol, first).unwrap_or_else(|| "transport.protocol".into());
    Some(Warning::new(
        "switch.ecn_threshold",
        format!(
            "{what}: no port marks ECN, so the {} flows ({at}) never see a mark and run as loss-based TCP; set \
             ecn_threshold = \"auto\" (DCTCP's K: 20 packets at 1 Gbps, 65 above) or a threshold of your own",
            prose(&labels, "and"),
        ),
    ))
}

/// An RTO floor (else an initial RTO) more than [`RTO_RATIO`] times the base RTT on a network whose
/// fastest host link is at least [`FAST_LINK`], when some flow's hosts read `[transport]`'s RTO.
fn long_rto(scenario: &Scenario, in_use: &[Protocol], given: &Given<'_>) -> Option<Warning> {
    if !in_use.iter().any(|p| p.rules().reads_transport) {
        return None;
    }
    let fastest = host_links(&scenario.topology).map(|l| l.rate).max()?;
    if fastest < FAST_LINK {
        return None;
    }
    let rtt = base_rtt(&scenario.topology, given.packet_bytes);
    if rtt == Duration::ZERO {
        return None;
    }
    let tcp = &scenario.transport.tcp;
    let bound = rtt.as_ps().saturating_mul(RTO_RATIO);
    let too_long = |t: Duration| t.as_ps() > bound;
    let initial = tcp.initial_rto.unwrap_or(tcp.min_rto);
    let stack = scenario.transport.stack.name();
    let origin = |key: &str| {
        if given.transport.contains(&key) {
            String::new()
        } else {
            format!(" (the \"{stack}\" stack's)")
        }
    };
    let times = |t: Duration| t.as_ps() / rtt.as_ps().max(1);
    let (key, value, also) = if too_long(tcp.min_rto) {
        let also = if too_long(initial) && initial != tcp.min_rto {
            format!(", and initial_rto, {}{}, {} times", short_time(initial), origin("initial_rto"), times(initial))
        } else {
            String::new()
        };
        ("min_rto", tcp.min_rto, also)
    } else if too_long(initial) {
        ("initial_rto", initial, String::new())
    } else {
        return None;
    };
    Some(Warning::new(
        format!("transport.{key}"),
        format!(
            "{}{} is {} times this network's base RTT, {} (its longest host-to-host path, a full packet per hop), on \
             {} host links{also}: a flow that loses its last packets or its SYN waits that long; set min_rto and \
             initial_rto below {}, {RTO_RATIO} base RTTs (docs/scenario.md, \"RTOs on fast networks\")",
            short_time(value),
            origin(key),
            times(value),
            short_time(rtt),
            short_rate(fastest),
            short_time(Duration::from_ps(bound)),
        ),
    ))
}

/// The host links of `topology` (a graph's, each host's own).
fn host_links(topology: &TopologySpec) -> Box<dyn Iterator<Item = LinkSpec> + '_> {
    match topology {
        TopologySpec::Star { link, .. } | TopologySpec::D3Testbed { link } => Box::new(std::iter::once(*link)),
        TopologySpec::TwoTier { host_link, .. } | TopologySpec::LeafSpine { host_link, .. } | TopologySpec::FatTree { host_link, .. } => {
            Box::new(std::iter::once(*host_link))
        }
        TopologySpec::Graph(g) => Box::new(g.host_links.iter().map(|&l| g.links[l as usize].link)),
    }
}

/// The network's base RTT: a full packet of `packet_bytes` one way and back along the longest
/// path between two hosts (in the built topologies, across the top tier; in a graph, from host 0
/// to the host farthest from it along the routes the engine takes, shortest in switch hops): at
/// each link twice its propagation delay and one serialization of the packet (store and forward,
/// the ACK's own serialization left out).
pub(crate) fn base_rtt(topology: &TopologySpec, packet_bytes: u64) -> Duration {
    let hop = |l: &LinkSpec| l.delay.as_ps().saturating_mul(2).saturating_add(l.rate.tx_time(packet_bytes).as_ps());
    let path: Vec<LinkSpec> = match *topology {
        TopologySpec::Star { link, .. } => vec![link; 2],
        // Hosts of two racks: host, ToR, root, ToR, host.
        TopologySpec::D3Testbed { link } => vec![link; 4],
        TopologySpec::TwoTier { racks, host_link, fabric_link, .. } | TopologySpec::LeafSpine { racks, host_link, fabric_link, .. } => {
            if racks > 1 {
                vec![host_link, fabric_link, fabric_link, host_link]
            } else {
                vec![host_link; 2]
            }
        }
        // Across the core: host, edge, aggregation, core, aggregation, edge, host.
        TopologySpec::FatTree { host_link, agg_link, core_link, .. } => {
            vec![host_link, agg_link, core_link, core_link, agg_link, host_link]
        }
        TopologySpec::Graph(ref g) => return Duration::from_ps(graph_round_trip(g, &hop)),
    };
    Duration::from_ps(path.iter().map(hop).fold(0u64, u64::saturating_add))
}

/// The largest sum of `hop` over a route from host 0 to another host of graph `g`: routes are the
/// paths shortest in hops (as the engine's), the slowest of them counted.
fn graph_round_trip(g: &GraphSpec, hop: &dyn Fn(&LinkSpec) -> u64) -> u64 {
    let Some(&first) = g.host_links.first() else { return 0 };
    let start = g.links[first as usize].a as usize;
    let mut adjacent: Vec<Vec<(usize, u64)>> = vec![Vec::new(); g.nodes.len()];
    for l in &g.links {
        let cost = hop(&l.link);
        adjacent[l.a as usize].push((l.b as usize, cost));
        adjacent[l.b as usize].push((l.a as usize, cost));
    }
    // Breadth first, so that each node is reached along its shortest paths, keeping the slowest.
    let mut hops = vec![u32::MAX; g.nodes.len()];
    let mut cost = vec![0u64; g.nodes.len()];
    hops[start] = 0;
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        // A host forwards nothing: a route leaves it only as its source.
        if g.nodes[n].host && n != start {
            continue;
        }
        for &(m, c) in &adjacent[n] {
            if hops[m] == u32::MAX {
                hops[m] = hops[n] + 1;
                queue.push_back(m);
            }
            if hops[m] == hops[n] + 1 {
                cost[m] = cost[m].max(cost[n].saturating_add(c));
            }
        }
    }
    (0..g.nodes.len()).filter(|&n| g.nodes[n].host && n != start).map(|n| cost[n]).max().unwrap_or(0)
}

/// A time for messages, to three significant digits in the largest unit it fills: `118us`,
/// `1.2ms`, `200ms`, `1s`.
fn short_time(d: Duration) -> String {
    let ps = d.as_ps() as f64;
    let (value, unit) = [(1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")]
        .into_iter()
        .find(|&(scale, _)| ps >= scale)
        .map_or((ps, "ps"), |(scale, unit)| (ps / scale, unit));
    format!("{}{unit}", three_digits(value))
}

/// A rate for messages: `10 Gbps`, `2.5 Gbps`, `400 Mbps`.
fn short_rate(r: BitsPerSec) -> String {
    let bps = r.0 as f64;
    let (value, unit) = [(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "Kbps")]
        .into_iter()
        .find(|&(scale, _)| bps >= scale)
        .map_or((bps, "bps"), |(scale, unit)| (bps / scale, unit));
    format!("{} {unit}", three_digits(value))
}

/// `value` to three significant digits, without trailing zeros.
fn three_digits(value: f64) -> String {
    let decimals = if value >= 100.0 { 0 } else if value >= 10.0 { 1 } else { 2 };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{burst, star, toml};
    use crate::parse_toml;
    use crate::spec::RunSpec;

    /// The warnings of scenario `text`, as `` `key`: message `` lines.
    #[test]
    fn threads_beyond_the_networks_parts_are_warned_about() {
        let star = "[topology]\nkind = \"star\"\nhosts = 4\n[run]\nthreads = 4\n[[workload]]\nkind = \"flow-burst\"\n";
        let w = one(star, "run.threads", "asks for 4 threads, but a network of one switch is one part");
        assert!(w.message.contains("the one event loop"), "{}", w.message);
        let tree = "[topology]\nkind = \"fat-tree\"\nk = 4\n[run]\nthreads = 64\n[[workload]]\nkind = \"poisson\"\nrate = 1.0\nstop = \"1ms\"\n";
        one(tree, "run.threads", "a network of 20 switches is cut into at most 20 parts, so the run uses at most 20 threads");
        let fits = tree.replace("threads = 64", "threads = 2");
        assert!(warned(&fits).iter().all(|w| !w.contains("run.threads")), "{:?}", warned(&fits));
    }

    fn warned(text: &str) -> Vec<String> {
        toml(text).warnings.iter().map(Warning::to_string).collect()
    }

    /// The one warning of `text`, which must be at `key` and hold `needle`.
    #[track_caller]
    fn one(text: &str, key: &str, needle: &str) -> Warning {
        let s = toml(text);
        assert_eq!(s.warnings.len(), 1, "{:?}\n{text}", s.warnings);
        let w = s.warnings[0].clone();
        assert_eq!(w.path, key, "{w}");
        assert!(w.message.contains(needle), "{w}\n  lacks {needle:?}");
        assert!(!w.message.contains('\n'), "one line: {w}");
        w
    }

    #[test]
    fn a_scenario_as_the_docs_write_it_has_none() {
        assert!(warned(concat!(star!(), burst!())).is_empty());
        // Each section with flows that read it.
        for (section, protocol) in [("d2tcp", "d2tcp"), ("tcppr", "tcppr"), ("d3", "rcpdc"), ("pdq", "pdq"), ("pfabric", "pfabric"), ("ndp", "ndp")] {
            let text = format!("{}{}protocol = \"{protocol}\"\n[{section}]\n", star!(), burst!());
            let text = if section == "tcppr" { format!("{text}[switch]\npriority_classes = 3\n") } else { text };
            assert!(warned(&text).is_empty(), "{text}: {:?}", warned(&text));
        }
    }

    #[test]
    fn every_section_no_flow_reads_is_warned_alike() {
        let cases = [
            ("d2tcp", "no flow runs D2TCP", "\"d2tcp\""),
            ("tcppr", "no flow runs TCPpr", "\"tcppr\""),
            ("d3", "no flow runs D3 or RCPdc", "\"d3\""),
            ("pdq", "no flow runs PDQ", "\"pdq\""),
            ("pfabric", "no flow runs pFabric", "\"pfabric\""),
            ("ndp", "no flow runs NDP", "\"ndp\""),
        ];
        for (section, runs, name) in cases {
            let w = one(&format!("{}{}[{section}]\n", star!(), burst!()), section, runs);
            assert_eq!(
                w.message,
                format!("is set, but no flow runs {}, so none of its keys is used (set [transport] protocol = {name} or a workload's protocol to run it)", &runs["no flow runs ".len()..])
            );
        }
        // The section's keys are still checked.
        assert!(parse_toml(concat!(star!(), burst!(), "[pdq]\nflow_list = 0\n"), None, &crate::fixtures::PORTS).is_err());
    }

    #[test]
    fn transport_keys_no_flow_reads_are_warned_once() {
        let pfabric = concat!(star!(), burst!(), "protocol = \"pfabric\"\n");
        assert!(warned(pfabric).is_empty(), "no [transport] key set");
        let w = one(&format!("{pfabric}[transport]\nstack = \"ns3\"\nsack = true\nmin_rto = \"1ms\"\n"), "transport", "sets stack, sack and min_rto");
        assert_eq!(
            w.message,
            "sets stack, sack and min_rto, which no flow reads: every flow runs pFabric; pFabric's hosts run their own TCP, set by [pfabric]"
        );
        // `protocol` is read: it names the flows' protocol.
        assert!(warned(concat!(star!(), burst!(), "[transport]\nprotocol = \"pfabric\"\n")).is_empty());
        // Keys TCP-family flows read are not warned about.
        assert!(warned(concat!(star!(), burst!(), "[transport]\nsack = false\n")).is_empty());
    }

    #[test]
    fn an_ecn_transport_on_ports_that_never_mark_is_warned_wherever_it_is_named() {
        let off = concat!(star!(), "[switch]\necn_threshold = \"off\"\n");
        assert!(warned(&format!("{off}{}", burst!())).is_empty(), "TCP ignores ECN");
        let w = one(&format!("{off}[transport]\nprotocol = \"dctcp\"\n{}", burst!()), "switch.ecn_threshold", "DCTCP flows (transport.protocol) never see a mark");
        assert!(w.message.starts_with("is \"off\": no port marks ECN"), "{w}");
        one(&format!("{off}{}protocol = \"d2tcp\"\n", burst!()), "switch.ecn_threshold", "D2TCP flows (workload[0].protocol)");
        let both = format!("{off}[transport]\nprotocol = \"dctcp\"\n{}{}protocol = \"d2tcp\"\n", burst!(), burst!());
        one(&both, "switch.ecn_threshold", "the DCTCP and D2TCP flows (transport.protocol)");
        // Any marking threshold, "auto" included, is no warning.
        assert!(warned(&format!("{star}[switch]\necn_threshold = 0\n[transport]\nprotocol = \"dctcp\"\n{burst}", star = star!(), burst = burst!())).is_empty());
        // A table by rate whose every entry is "off" marks nowhere either; one rate marking is enough.
        let tables = |entry: &str| format!("{}[switch]\necn_threshold = {{ \"1Gbps\" = {entry} }}\n[transport]\nprotocol = \"dctcp\"\n{}", star!(), burst!());
        one(&tables("\"off\""), "switch.ecn_threshold", "is \"off\" at every link rate of the network: no port marks ECN");
        assert!(warned(&tables("20")).is_empty());
        // The rule is the transport's: exactly DCTCP and D2TCP react to marks.
        let reacting: Vec<Protocol> = Protocol::ALL.iter().copied().filter(|p| p.reacts_to_ecn()).collect();
        assert_eq!(reacting, [Protocol::Dctcp, Protocol::D2tcp]);
    }

    /// A fat tree as the docs write one, `link_rate` and the `[transport]` keys given.
    fn fat_tree(rate: &str, transport: &str) -> String {
        format!("[topology]\nkind = \"fat-tree\"\nlink_rate = \"{rate}\"\n[transport]\nprotocol = \"dctcp\"\n{transport}{}", burst!())
    }

    #[test]
    fn linux_rtos_on_a_10_gbps_fat_tree_are_warned_with_both_numbers() {
        // k = 4, 10 us links at 10 Gbps: six hops across the core, each 2 x 10 us of propagation
        // and 1.2 us to serialize 1500 B, 127.2 us; 200 ms is 1572 of it, 1 s 7861.
        let w = one(&fat_tree("10Gbps", ""), "transport.min_rto", "200ms (the \"linux\" stack's) is 1572 times this network's base RTT, 127us");
        assert!(w.message.contains("on 10 Gbps host links, and initial_rto, 1s (the \"linux\" stack's), 7861 times"), "{w}");
        assert!(w.message.contains("below 127ms, 1000 base RTTs"), "{w}");
        // Set by the file, the value is the file's.
        let w = one(&fat_tree("10Gbps", "min_rto = \"500ms\"\n"), "transport.min_rto", "500ms is 3930 times");
        assert!(w.message.contains("initial_rto, 1s (the \"linux\" stack's)"), "{w}");
        // A floor within 1000 RTTs leaves the initial RTO, which times a lost SYN.
        one(&fat_tree("10Gbps", "min_rto = \"1ms\"\n"), "transport.initial_rto", "1s (the \"linux\" stack's) is 7861 times");
        assert!(warned(&fat_tree("10Gbps", "min_rto = \"1ms\"\ninitial_rto = \"2ms\"\n")).is_empty());
        // At 1 Gbps, the papers' testbeds, no warning.
        assert!(warned(&fat_tree("1Gbps", "")).is_empty());
        // pFabric's hosts read no RTO of [transport].
        let pfabric = "[topology]\nkind = \"leaf-spine\"\n[transport]\nprotocol = \"pfabric\"\n[[workload]]\nkind = \"flow-burst\"\n";
        assert!(warned(pfabric).is_empty(), "{:?}", warned(pfabric));
    }

    #[test]
    fn base_rtt_crosses_the_longest_path_with_a_full_packet_per_hop() {
        let s = |text: &str| toml(&format!("{text}{}", burst!())).topology;
        let us = |x: f64| Duration::from_ps((x * 1e6).round() as u64);
        // Star: two hops of 2 x 1 us + 1.2 us.
        assert_eq!(base_rtt(&s("[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n"), 1500), us(6.4));
        // Leaf-spine, pFabric's: 10 Gbps hosts and 40 Gbps fabric, 0.2 us links: 2 x (0.4 + 1.2) + 2 x (0.4 + 0.3).
        assert_eq!(base_rtt(&s("[topology]\nkind = \"leaf-spine\"\n"), 1500), us(4.6));
        // One rack: host to host through its switch only.
        assert_eq!(base_rtt(&s("[topology]\nkind = \"leaf-spine\"\nracks = 1\n"), 1500), us(3.2));
        // The D3 testbed: four 1 Gbps hops of 2 x 125 us + 12 us.
        assert_eq!(base_rtt(&s("[topology]\nkind = \"d3-testbed\"\n"), 1500), us(1048.0));
        // Fat tree k = 4, 10 us links, 10 Gbps hosts, 40 Gbps above: 2 x 21.2 + 4 x 20.3.
        assert_eq!(base_rtt(&s("[topology]\nkind = \"fat-tree\"\nlink_rate = \"10Gbps\"\nfabric_rate = \"40Gbps\"\ncore_rate = \"40Gbps\"\n"), 1500), us(123.6));
    }

    #[test]
    fn a_graphs_base_rtt_follows_the_routes_from_host_0_and_takes_the_slowest() {
        let run = RunSpec::default();
        // a and b on t0; c on t1 behind two spines, one 1 us and one 5 us away: routes are shortest
        // in hops, so a to c may cross either spine; the slower counts. c is the farthest host.
        let text = "switch t0 t1 s0 s1\nhost a b c\nlink a t0 10Gbps 1us\nlink b t0 10Gbps 1us\nlink c t1 10Gbps 1us\n\
                    link t0 s0 10Gbps 1us\nlink s0 t1 10Gbps 1us\nlink t0 s1 10Gbps 5us\nlink s1 t1 10Gbps 5us\n";
        let g = crate::graph::parse("g", text, &run).unwrap();
        // a, t0, s1, t1, c: 2 x (1 + 5 + 5 + 1) us + 4 x 1.2 us.
        assert_eq!(base_rtt(&TopologySpec::Graph(g), 1500), Duration::from_ps(28_800_000));
    }

    #[test]
    fn times_and_rates_read_to_three_digits() {
        assert_eq!(short_time(Duration::from_ms(200)), "200ms");
        assert_eq!(short_time(Duration::from_ps(127_200_000)), "127us");
        assert_eq!(short_time(Duration::from_ps(4_600_000)), "4.6us");
        assert_eq!(short_time(Duration::from_secs(1)), "1s");
        assert_eq!(short_rate(BitsPerSec(10_000_000_000)), "10 Gbps");
        assert_eq!(short_rate(BitsPerSec(13_333_333_333)), "13.3 Gbps");
    }
}
