//! Graph files: any network, written by hand or exported from networkx, one statement per line
//! (docs/scenario.md, "Graph files"):
//!
//! ```text
//! # a comment
//! switch tor0 tor1 spine
//! host h0 h1 h2 h3
//! link h0 tor0 10Gbps 1us
//! link tor0 spine 40Gbps 1us buffer=400pkts
//! ```
//!
//! Hosts are numbered in the order they are declared, counting hosts only: that number is what
//! workloads name. Links may name nodes declared later in the file. Every error names the file and
//! the line, because a graph exported from a tool has no keys to point at.

use std::collections::HashMap;
use std::path::Path;

use incast_proto::time::{BitsPerSec, Duration};

use super::error::ScenarioError;
use super::port_pattern::is_name_char;
use super::text::utf8_text;
use super::spec::{BufferSpec, GraphLink, GraphNode, GraphSpec, LinkSpec, RunSpec};
use super::units::{self, QueueSize};
use super::{limits, trace};

/// The key a graph is named under; its errors are reported there.
const KEY: &str = "topology.file";

/// Reads and checks the graph file the scenario names `written` (relative to `base_dir`, by the
/// rules of trace paths).
pub(crate) fn read(written: &str, base_dir: Option<&Path>, run: &RunSpec) -> Result<GraphSpec, ScenarioError> {
    let bytes = trace::read_named_file("graph", written, base_dir, run.max_trace_bytes).map_err(|m| ScenarioError::new(KEY, m))?;
    // UTF-8 as a scenario file: a leading byte-order mark dropped (editors on Windows write one).
    let text = utf8_text(&bytes).map_err(|m| ScenarioError::new(KEY, format!("graph file {written:?}: {m}")))?;
    parse(written, text, run)
}

/// A statement's line, for messages.
struct At<'a> {
    file: &'a str,
    line: u32,
}

impl At<'_> {
    fn err(&self, message: impl std::fmt::Display) -> ScenarioError {
        ScenarioError::new(KEY, format!("{}:{}: {message}", self.file, self.line))
    }
}

/// Parses the text of graph file `file` (named so in messages).
pub(crate) fn parse(file: &str, text: &str, run: &RunSpec) -> Result<GraphSpec, ScenarioError> {
    let mut nodes: Vec<GraphNode> = Vec::new();
    let mut declared: HashMap<&str, (u32, u32)> = HashMap::new();
    // Links as written, resolved once every node is known.
    let mut written: Vec<(u32, [&str; 2], LinkSpec, Option<BufferSpec>)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = At { file, line: u32::try_from(i + 1).unwrap_or(u32::MAX) };
        let statement = raw.split('#').next().unwrap_or("");
        let mut words = statement.split_whitespace();
        let Some(head) = words.next() else { continue };
        match head {
            "host" | "switch" => {
                let mut any = false;
                for name in words {
                    any = true;
                    check_name(&at, name)?;
                    if let Some(&(_, line)) = declared.get(name) {
                        return Err(at.err(format!("node {name:?} is already declared on line {line}")));
                    }
                    declared.insert(name, (nodes.len() as u32, at.line));
                    nodes.push(GraphNode { name: name.to_owned(), host: head == "host" });
                }
                if !any {
                    return Err(at.err(format!("`{head}` names no node: write `{head} NAME [NAME ...]`")));
                }
            }
            "link" => {
                let fields: Vec<&str> = words.collect();
                let usage = "write `link A B RATE DELAY [buffer=SIZE]`, e.g. `link h0 tor0 10Gbps 1us`";
                let (ends, rate, delay, options) = match fields.as_slice() {
                    [a, b, rate, delay, options @ ..] => ([*a, *b], *rate, *delay, options),
                    _ => return Err(at.err(format!("a link has two ends, a rate and a delay: {usage}"))),
                };
                if ends[0] == ends[1] {
                    return Err(at.err(format!("link from {:?} to itself: a link joins two different nodes", ends[0])));
                }
                let rate = units::parse_rate(rate).map_err(|m| at.err(format!("rate: {m}")))?;
                if rate == 0 {
                    return Err(at.err("rate: must be greater than 0 bps"));
                }
                let delay = Duration::from_ps(units::parse_time(delay).map_err(|m| at.err(format!("delay: {m}")))?);
                if delay > run.horizon {
                    return Err(at.err(format!(
                        "delay: {} s is beyond the run's horizon ({} s, `run.horizon`)",
                        delay.as_secs_f64(),
                        run.horizon.as_secs_f64()
                    )));
                }
                let mut buffer = None;
                for option in options {
                    buffer = Some(link_buffer(&at, option, buffer.is_some())?);
                }
                written.push((at.line, ends, LinkSpec { rate: BitsPerSec(rate), delay }, buffer));
            }
            other => {
                return Err(at.err(format!("unknown statement {other:?}: a line is `host`, `switch` or `link` (or a # comment)")))
            }
        }
    }
    let end = |name: &str, line: u32| -> Result<u32, ScenarioError> {
        declared.get(name).map(|&(n, _)| n).ok_or_else(|| {
            (At { file, line }).err(format!("unknown node {name:?}: declare it with `host {name}` or `switch {name}`"))
        })
    };
    let hosts: Vec<u32> = (0..nodes.len() as u32).filter(|&n| nodes[n as usize].host).collect();
    if hosts.len() < 2 {
        return Err(ScenarioError::new(KEY, format!("{file}: a network needs at least 2 hosts (found {})", hosts.len())));
    }
    limits::hosts(|| KEY.into(), hosts.len() as u64, run)?;
    let mut host_number: Vec<u32> = vec![u32::MAX; nodes.len()];
    for (number, &node) in hosts.iter().enumerate() {
        host_number[node as usize] = number as u32;
    }
    let mut host_links: Vec<u32> = vec![u32::MAX; hosts.len()];
    let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
    let mut links = Vec::with_capacity(written.len());
    for (line, [a, b], link, buffer) in written {
        let at = At { file, line };
        let (mut a, mut b) = (end(a, line)?, end(b, line)?);
        if nodes[b as usize].host {
            std::mem::swap(&mut a, &mut b);
        }
        if nodes[b as usize].host {
            return Err(at.err(format!(
                "link between two hosts ({:?} and {:?}): a host links to a switch",
                nodes[a as usize].name, nodes[b as usize].name
            )));
        }
        if let Some(first) = pairs.insert((a.min(b), a.max(b)), line) {
            return Err(at.err(format!(
                "a second link between {:?} and {:?} (the first is on line {first}): one link per pair of nodes",
                nodes[a as usize].name, nodes[b as usize].name
            )));
        }
        if nodes[a as usize].host {
            let slot = &mut host_links[host_number[a as usize] as usize];
            if *slot != u32::MAX {
                let first = links.get(*slot as usize).map_or(0, |l: &GraphLink| l.line);
                return Err(at.err(format!(
                    "host {:?} already has a link (line {first}): a host has exactly one",
                    nodes[a as usize].name
                )));
            }
            *slot = links.len() as u32;
        }
        links.push(GraphLink { a, b, link, buffer, line });
    }
    if let Some(h) = host_links.iter().position(|&l| l == u32::MAX) {
        let (name, line) = (&nodes[hosts[h] as usize].name, declared[nodes[hosts[h] as usize].name.as_str()].1);
        return Err(ScenarioError::new(KEY, format!("{file}:{line}: host {name:?} has no link: every host has exactly one")));
    }
    let graph = GraphSpec { file: file.to_owned(), nodes, links, host_links };
    check_connected(&graph, &declared, hosts[0])?;
    check_depth(&graph, &declared)?;
    Ok(graph)
}

/// The graph within the engine's counts ([`GraphSpec::too_deep`]); else the error names the
/// farthest switch and the line that declares it.
fn check_depth(graph: &GraphSpec, declared: &HashMap<&str, (u32, u32)>) -> Result<(), ScenarioError> {
    match graph.too_deep() {
        Some(deep) => Err(ScenarioError::new(KEY, format!("{}:{}: {deep}", graph.file, declared[deep.name.as_str()].1))),
        None => Ok(()),
    }
}

/// A node name: letters, digits and `_ . : -` ([`is_name_char`], which `[output]`'s port
/// patterns accept too), so that a port's name (`a->b`) reads unambiguously.
fn check_name(at: &At<'_>, name: &str) -> Result<(), ScenarioError> {
    if name.chars().all(is_name_char) {
        Ok(())
    } else {
        Err(at.err(format!("node name {name:?}: use letters, digits and _ . : - only")))
    }
}

/// A link's `buffer=SIZE` option: the queue limit of its switch ports.
fn link_buffer(at: &At<'_>, option: &str, again: bool) -> Result<BufferSpec, ScenarioError> {
    let Some(value) = option.strip_prefix("buffer=") else {
        return Err(at.err(format!("unknown link option {option:?}: the only option is buffer=SIZE (e.g. buffer=200pkts)")));
    };
    if again {
        return Err(at.err("buffer= is given twice"));
    }
    match units::parse_queue_size(value).map_err(|m| at.err(format!("buffer: {m}")))? {
        QueueSize::Bytes(0) | QueueSize::Packets(0) => Err(at.err("buffer: must be greater than 0")),
        QueueSize::Bytes(bytes) => Ok(BufferSpec::PerPort { bytes }),
        QueueSize::Packets(packets) => Ok(BufferSpec::PerPortPackets { packets }),
    }
}

/// Every node reachable from host `from`; else the error names the first node that is not (a
/// host if any host is cut off), with the line that declares it.
fn check_connected(graph: &GraphSpec, declared: &HashMap<&str, (u32, u32)>, from: u32) -> Result<(), ScenarioError> {
    let (file, nodes) = (graph.file.as_str(), &graph.nodes);
    let neighbours = graph.neighbours();
    let mut reached = vec![false; nodes.len()];
    reached[from as usize] = true;
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        for &m in &neighbours[n as usize] {
            if !std::mem::replace(&mut reached[m as usize], true) {
                stack.push(m);
            }
        }
    }
    let cut_off = |host: bool| (0..nodes.len()).find(|&n| !reached[n] && nodes[n].host == host);
    let Some(n) = cut_off(true).or_else(|| cut_off(false)) else { return Ok(()) };
    let node = &nodes[n];
    let line = declared[node.name.as_str()].1;
    let kind = if node.host { "host" } else { "switch" };
    Err(ScenarioError::new(
        KEY,
        format!(
            "{file}:{line}: {kind} {:?} is not connected to host {:?}: every node must be reachable from every host",
            node.name, nodes[from as usize].name
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::RunSpec;

    fn run() -> RunSpec {
        RunSpec::default()
    }

    fn parse_ok(text: &str) -> GraphSpec {
        parse("net.graph", text, &run()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn parse_err(text: &str) -> String {
        let e = parse("net.graph", text, &run()).unwrap_err();
        assert_eq!(e.path, KEY);
        e.message
    }

    const TWO_RACKS: &str = "# two racks under one spine
switch tor0 tor1
switch spine
host a b   # rack 0
host c
link a tor0 10Gbps 1us
link tor0 spine 40Gbps 2us buffer=300pkts
link b tor0 10Gbps 1us
link spine tor1 40Gbps 2us
link tor1 c 25Gbps 500ns
";

    #[test]
    fn hosts_are_numbered_in_declaration_order_and_links_keep_file_order() {
        let g = parse_ok(TWO_RACKS);
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["tor0", "tor1", "spine", "a", "b", "c"]);
        assert_eq!(g.host_links, [0, 2, 4]);
        // `link tor1 c`: the host end comes first whichever way the file writes it.
        assert_eq!((g.links[4].a, g.links[4].b, g.links[4].line), (5, 1, 10));
        assert_eq!(g.links[4].link, LinkSpec { rate: BitsPerSec(25_000_000_000), delay: Duration::from_ns(500) });
        assert_eq!(g.links[1].buffer, Some(BufferSpec::PerPortPackets { packets: 300 }));
        assert_eq!(g.links[0].buffer, None);
        assert_eq!(g.switch_of(2), Some(1));
    }

    #[test]
    fn every_rule_names_the_file_and_line() {
        let cases: &[(&str, &str)] = &[
            ("switch s\nhost a b\nlink a s 1Gbps 1us\nlink b s 1Gbps 1us\nlink a s 1Gbps 1us\n", "net.graph:5: a second link between \"a\" and \"s\" (the first is on line 3)"),
            ("switch s t\nhost a b\nlink a s 1Gbps 1us\nlink b s 1Gbps 1us\nlink s t 1Gbps 1us\nlink t s 1Gbps 1us\n", "net.graph:6: a second link between \"t\" and \"s\""),
            ("switch s t\nhost a b\nlink a s 1Gbps 1us\nlink b t 1Gbps 1us\nlink a t 1Gbps 1us\n", "net.graph:5: host \"a\" already has a link (line 3)"),
            ("switch s t\nhost a b\nlink a s 1Gbps 1us\nlink b t 1Gbps 1us\n", "net.graph:2: host \"b\" is not connected to host \"a\""),
            ("switch s t\nhost a b\nlink a s 1Gbps 1us\nlink b s 1Gbps 1us\n", "net.graph:1: switch \"t\" is not connected to host \"a\""),
            ("switch s\nhost a b\nlink a s 1Gbps 1us\n", "net.graph:2: host \"b\" has no link"),
            ("switch s\nhost a b\nlink a s 0Gbps 1us\n", "net.graph:3: rate: must be greater than 0"),
            ("switch s\nhost a b\nlink a s 10 1us\n", "net.graph:3: rate: invalid rate"),
            ("switch s\nhost a b\nlink a s 1Gbps -1us\n", "net.graph:3: delay: invalid time"),
            ("switch s\nhost a b\nlink a s 1Gbps 1us buffer=0pkts\n", "net.graph:3: buffer: must be greater than 0"),
            ("switch s\nhost a b\nlink a s 1Gbps 1us queue=5\n", "net.graph:3: unknown link option \"queue=5\""),
            ("switch s\nhost a b\nlink s s 1Gbps 1us\n", "net.graph:3: link from \"s\" to itself"),
            ("switch s\nhost a b\nlink a b 1Gbps 1us\n", "net.graph:3: link between two hosts"),
            ("switch s\nhost a b\nlink a x 1Gbps 1us\n", "net.graph:3: unknown node \"x\""),
            ("switch s\nhost a s\n", "net.graph:2: node \"s\" is already declared on line 1"),
            ("switch s\nhost a->b\n", "net.graph:2: node name \"a->b\""),
            ("switch s\nhost a b\nlink a s 1Gbps\n", "net.graph:3: a link has two ends, a rate and a delay"),
            ("switch s\nrouter r\n", "net.graph:2: unknown statement \"router\""),
            ("host\n", "net.graph:1: `host` names no node"),
            ("switch s\nhost a\nlink a s 1Gbps 1us\n", "net.graph: a network needs at least 2 hosts (found 1)"),
        ];
        for (text, expected) in cases {
            let message = parse_err(text);
            assert!(message.starts_with(expected), "{text:?}\n  gave: {message}\n  want: {expected}");
        }
    }

    #[test]
    fn a_delay_past_the_horizon_is_refused() {
        let run = RunSpec { horizon: Duration::from_ms(1), ..run() };
        let e = parse("g", "switch s\nhost a b\nlink a s 1Gbps 2ms\nlink b s 1Gbps 1us\n", &run).unwrap_err();
        assert!(e.message.starts_with("g:3: delay: 0.002 s is beyond the run's horizon"), "{}", e.message);
    }

    /// Text of a graph of `levels` levels of switches: level 0 is one switch, each level above
    /// `width` switches, each linked to every switch of the levels next to it (a deep, wide
    /// tree of ECMP choices); two hosts on level 0, and one on each switch of every `every`-th
    /// level (none above level 0 when `every` is 0).
    fn layered(levels: u32, width: u32, every: u32) -> String {
        let name = |level: u32, i: u32| format!("s{level}_{i}");
        let width_of = |level: u32| if level == 0 { 1 } else { width };
        let mut text = String::from("host h0 h1\nlink h0 s0_0 1Gbps 1us\nlink h1 s0_0 1Gbps 1us\n");
        for level in 0..levels {
            for i in 0..width_of(level) {
                text += &format!("switch {}\n", name(level, i));
                if level > 0 {
                    for j in 0..width_of(level - 1) {
                        text += &format!("link {} {} 1Gbps 1us\n", name(level - 1, j), name(level, i));
                    }
                }
            }
            if level > 0 && every > 0 && level.is_multiple_of(every) {
                for i in 0..width_of(level) {
                    text += &format!("host x{level}_{i}\nlink x{level}_{i} {} 1Gbps 1us\n", name(level, i));
                }
            }
        }
        text
    }

    #[test]
    fn a_switch_above_tier_254_is_refused_naming_it() {
        parse_ok(&layered(255, 1, 0));
        let e = parse_err(&layered(256, 1, 0));
        assert!(e.starts_with("net.graph:"), "{e}");
        assert!(
            e.ends_with(": switch \"s255_0\" is 255 hops from the nearest switch with a host; at most 254 are supported (the engine counts switch tiers in 8 bits)"),
            "{e}"
        );
    }

    #[test]
    fn a_switch_farther_than_1023_hops_from_host_0_is_refused_naming_it() {
        // A host every 100 levels keeps every tier below 100.
        parse_ok(&layered(1024, 1, 100));
        let e = parse_err(&layered(1025, 1, 100));
        assert!(e.ends_with(": switch \"s1024_0\" is 1024 hops from host \"h0\"'s switch; at most 1023 are supported (so that every route between two hosts fits the engine's hop counts)"), "{e}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// On deep and wide graphs the tiers and distances are exact (no count saturates), and
        /// a graph is refused exactly when a switch lies past a bound, naming the farthest.
        #[test]
        fn deep_and_wide_graphs_are_bounded_exactly(levels in 1u32..1300, width in 1u32..4, every in 0u32..400) {
            let g = parse("net.graph", &layered(levels, width, every), &run());
            let host_level = |level: u32| level == 0 || (every > 0 && level.is_multiple_of(every));
            let tier = |level: u32| (0..levels).filter(|&l| host_level(l)).map(|l| l.abs_diff(level)).min().unwrap_or(0);
            let deepest = (0..levels).max_by_key(|&l| (tier(l), std::cmp::Reverse(l))).unwrap_or(0);
            let expected = if tier(deepest) > GraphSpec::MAX_TIER {
                Some(format!("switch \"s{deepest}_0\" is {} hops from the nearest switch with a host", tier(deepest)))
            } else if levels - 1 > GraphSpec::MAX_REACH {
                Some(format!("switch \"s{}_0\" is {} hops from host \"h0\"'s switch", levels - 1, levels - 1))
            } else {
                None
            };
            match (g, expected) {
                (Ok(g), None) => {
                    let (tiers, reach) = (g.tiers(), g.reach());
                    for (n, node) in g.nodes.iter().enumerate().filter(|(_, n)| !n.host) {
                        let level: u32 = node.name[1..].split('_').next().unwrap().parse().unwrap();
                        proptest::prop_assert_eq!((tiers[n], reach[n]), (tier(level), level), "{}", node.name);
                    }
                }
                (Err(e), Some(needle)) => proptest::prop_assert!(e.message.contains(&needle), "{} lacks {}", e.message, needle),
                (g, expected) => proptest::prop_assert!(false, "parsed {:?}, expected {:?}", g.map(|_| "ok"), expected),
            }
        }
    }
}
