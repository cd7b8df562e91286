//! Validation: turns the file structs of `scenario::file` into the spec types, applying the
//! documented defaults (each cited to the paper it comes from) and naming the key path of every
//! semantic error. This module holds the network and transport sections and the checks across
//! sections; `traffic` the workloads, `output` the `[output]` section, `limits` the `[run]`
//! bounds, `check` the primitive checks they all share, `warnings` what the scenario will do
//! that its file may not mean. A scenario validation accepts is one
//! the engine builds without checking it again. docs/scenario.md is the user-facing copy of
//! these rules.
//!
//! The protocols' own sections and the rules their flows follow are `protocols`'s: this module
//! applies them to the scenario as a whole.
//!
//! The validators import one way (besides `error`, `file`, `spec` and `units`):
//!
//! ```text
//! validate ─► warnings, protocols, traffic, output, context, limits, check
//! warnings ─► describe, protocols
//! protocols─► limits, check
//! traffic  ─► oldi, trace, context, limits, check
//! oldi     ─► context, limits, check
//! trace    ─► check
//! output   ─► limits, check       (and the engine's port names, through `PortNames`)
//! context  ─► limits, check
//! limits   ─► check
//! ```

use std::path::Path;

use incast_proto::cc::DCTCP_DEFAULT_G;
use incast_proto::tcp::{DelayedAck, TcpConfig};
use incast_proto::time::{BitsPerSec, Duration};

use super::check::{count, err, estimation_gain, finite, initial_alpha, only_keys, positive, positive_time, required, Hosts, Result};
use super::context::Context;
use super::error::{join, ScenarioError};
use super::file::{RawDelayedAck, RawScenario, RawSwitch, RawTopology, RawTransport, TopologyKind};
use super::names::Named;
use super::units::{QueueLimit, Rate};
use super::protocols::{prose, Checked, ProtocolSections, SectionContext};
use super::scenario::Scenario;
use super::spec::{
    protocols_in_use, BufferSpec, HostNic, LinkSpec, Protocol, RunSpec, SwitchSpec, TopologySpec, TransportSpec,
    DEFAULT_STACK,
    WorkloadSpec,
};
use super::output::PortNames;
use super::units::QueueSize;
use super::{ecn, graph, limits, output, run, traffic, warnings};

/// Host link rate of both papers' testbeds and of D2TCP's simulations (D3 Section 6, D2TCP
/// Section 4.2.1).
const DEFAULT_LINK_RATE: BitsPerSec = BitsPerSec::GBPS;
/// D3 Section 6: hosts in one rack see a propagation RTT of "roughly 500 us" through their ToR,
/// which is four link traversals. Used for `d3-testbed` and for `star`, which stands for the
/// 48-port switch those same hosts used for the TCP experiments.
const D3_LINK_DELAY: Duration = Duration::from_us(125);
/// D2TCP Section 4.2.1: "We set the link latencies to 20 us, achieving an average RTT of 200 us".
const TWO_TIER_LINK_DELAY: Duration = Duration::from_us(20);
/// No paper measures a fat-tree; 10 us per link gives a 120 us RTT across the core.
const FAT_TREE_LINK_DELAY: Duration = Duration::from_us(10);
/// The leaf-spine of pFabric's evaluation (Alizadeh et al., SIGCOMM 2013) as its public
/// simulators build it: 9 racks of 16 hosts under 4 spines, 10 Gbps hosts and 40 Gbps fabric links,
/// never oversubscribed (NetSys/simulator, run/experiment.cpp: 144 hosts, 9 aggregation and 4 core
/// switches, topology.cpp: uplinks of hosts-per-rack x host rate / spines; HKUST-SING/PIAS-NS2's
/// run scripts: topology_spt = 16, topology_tors = 9, topology_spines = 4), with
/// 0.2 us per link (NetSys/simulator py/run_experiments.py @117bb0c, `propagation_delay`).
const LEAF_SPINE_RACKS: u64 = 9;
const LEAF_SPINE_HOSTS_PER_RACK: u64 = 16;
const LEAF_SPINE_SPINES: u64 = 4;
const LEAF_SPINE_LINK_RATE: BitsPerSec = BitsPerSec(10_000_000_000);
const LEAF_SPINE_FABRIC_RATE: BitsPerSec = BitsPerSec(40_000_000_000);
const LEAF_SPINE_LINK_DELAY: Duration = Duration::from_ns(200);
/// D2TCP Section 4.2.1: "25 racks with each rack having up to 40 end-host machines".
const DEFAULT_RACKS: u64 = 25;
const DEFAULT_HOSTS_PER_RACK: u64 = 40;
/// The smallest fat-tree with more than one host per edge switch.
const DEFAULT_FAT_TREE_K: u64 = 4;
/// Choudhury and Hahne's dynamic threshold factor; 1 lets one port take half the free buffer.
const DEFAULT_DT_ALPHA: f64 = 1.0;
/// Strict-priority classes per port: 8 is the number of 802.1p classes.
const MAX_PRIORITY_CLASSES: u64 = 8;
/// `delayed_ack = true` on a stack without delayed ACKs: ns-3's TcpSocket defaults
/// (DelAckCount = 2, DelAckTimeout = 200 ms), the stack D2TCP's simulations were built on
/// (D2TCP Section 4.2.1); also DCTCP's m = 2.
const DEFAULT_DELAYED_ACK: DelayedAck = DelayedAck {
    segments: 2,
    timeout: Duration::from_ms(200),
    quickack: 0,
};
/// The TCP stack of a scenario that names none: what a datacenter researcher runs today.
/// Smallest MSS: 88 B of payload leaves a 128 B frame room for headers with every option.
const MIN_MSS: u64 = 88;
/// Largest MSS: a 9000 B jumbo frame's payload.
const MAX_MSS: u64 = 9000;
/// Largest ECN cut floor in segments; the stacks use 1 or 2.
const MAX_ECN_CUT_FLOOR: u64 = 64;

/// Converts a whole document; `port_names` names the ports `[output]`'s patterns choose from.
pub(crate) fn scenario(mut raw: RawScenario, base_dir: Option<&Path>, port_names: &dyn PortNames) -> Result<Scenario> {
    let raw_sections = raw.take_sections();
    let run = run::run_spec(&raw.run)?;
    let topology_keys: Vec<&str> = topology_keys(&raw.topology).into_iter().filter_map(|(k, set)| set.then_some(k)).collect();
    let topology = topology(raw.topology, &run, base_dir).map_err(|e| written_key(e, &topology_keys))?;
    let switch = switch(raw.switch)?;
    ecn::covers(&switch.ecn, &topology)?;
    let transport_keys = raw.transport.given();
    let explicit = [
        ("sack", raw.transport.sack),
        ("prr", raw.transport.prr),
        ("partial_ack_retransmit", raw.transport.partial_ack_retransmit),
    ];
    let transport = transport(raw.transport, &run)?;
    let (sections, given_sections) = ProtocolSections::validate(raw_sections, &SectionContext { transport: &transport, run: &run })?;
    if raw.workload.is_empty() {
        return Err(err(
            "workload",
            "at least one [[workload]] is required (kinds: flow-burst, long-flows, poisson, \
             flows, trace, oldi)",
        ));
    }
    let hosts = Hosts {
        count: topology.host_count(),
        topology: topology.kind_name(),
    };
    let context = Context {
        hosts: &hosts,
        switch: &switch,
        topology: &topology,
        run: &run,
        flows: limits::FlowBudget::new(&run),
        base_dir,
        protocol: transport.protocol,
    };
    let workloads = raw
        .workload
        .into_iter()
        .enumerate()
        .map(|(i, w)| traffic::workload(&format!("workload[{i}]"), w, &context))
        .collect::<Result<Vec<_>>>()?;
    check_run_end(&run, &workloads)?;
    let in_use = protocols_in_use(&workloads, transport.protocol);
    let checked = Checked { topology: &topology, transport: &transport, switch: &switch, workloads: &workloads };
    check_alone(&checked)?;
    check_refused(&checked, &in_use, &explicit)?;
    sections.check(&checked)?;
    if switch.load_balancing.sprays() {
        if let Some(&p) = in_use.iter().find(|p| p.rules().no_spray.is_some()) {
            let labels: Vec<&str> = p.siblings().iter().map(|s| s.label()).collect();
            let name = switch.load_balancing.name();
            return Err(err(
                "switch.load_balancing",
                format!("\"{name}\" cannot carry {} flows: {}", prose(&labels, "or"), p.rules().no_spray.unwrap_or_default()),
            ));
        }
    }
    let extension = in_use.iter().map(|p| p.extension_header_bytes()).max().unwrap_or(0);
    let packet_bytes = limits::full_packet_bytes(&transport, extension);
    limits::network(&topology, &switch, packet_bytes, &run).map_err(|e| written_key(e, &topology_keys))?;
    // Before `[output]`, whose port patterns are checked against the ports of the network built.
    limits::network_memory(&topology, &switch, &context.flows, &run)?;
    let apps = workloads.iter().filter_map(WorkloadSpec::oldi).map(|o| o.apps.len()).max().unwrap_or(0);
    let output = output::section(raw.output, &topology, port_names, &hosts, &run, workloads.len(), apps)?;
    let long_lived: u64 = workloads.iter().map(WorkloadSpec::long_lived_flows).sum();
    limits::samples(&output, &run, long_lived)?;
    let mut scenario = Scenario {
        seed: raw.seed.unwrap_or(Scenario::DEFAULT_SEED),
        topology,
        switch,
        transport,
        sections,
        workloads,
        run,
        output,
        warnings: Vec::new(),
    };
    scenario.warnings = warnings::of(&scenario, &warnings::Given { sections: &given_sections, transport: &transport_keys, packet_bytes });
    Ok(scenario)
}

/// `[transport]` keys a protocol does without (`TransportRules::REFUSES`: SACK and PRR for D3,
/// RCPdc and PDQ), set `true` in `explicit` while every flow runs such a protocol, wherever it is
/// named (`[transport]`, a workload, an OLDI application): no flow would use them. Beside flows
/// of a TCP-family protocol, which use them, they are accepted.
fn check_refused(scenario: &Checked<'_>, in_use: &[Protocol], explicit: &[(&str, Option<bool>)]) -> Result<()> {
    for &(key, value) in explicit {
        if value != Some(true) {
            continue;
        }
        let refusing: Vec<Protocol> = in_use.iter().copied().filter(|p| p.rules().refuses.0.contains(&key)).collect();
        let Some(&first) = refusing.first() else { continue };
        if refusing.len() < in_use.len() {
            continue;
        }
        let names: Vec<&str> = refusing.iter().map(|p| p.name()).collect();
        let at = scenario.named_at(first).unwrap_or_else(|| "transport.protocol".into());
        return Err(err(
            join("transport", key),
            format!("every flow runs {} ({at}), which {}", prose(&names, "or"), first.rules().refuses.1),
        ));
    }
    Ok(())
}

/// `e` at the key the file wrote, when it is about a rate the topology derived: `core_rate`
/// follows `fabric_rate` (fat tree), which follows `oversubscription` or else `link_rate`. An
/// error about a rate the file did not set is the fault of the first key it did set along that
/// chain, and says which rate it implied.
fn written_key(mut e: ScenarioError, given: &[&str]) -> ScenarioError {
    const CHAIN: [&str; 4] = ["core_rate", "fabric_rate", "oversubscription", "link_rate"];
    let Some(at) = CHAIN[..2].iter().position(|&k| e.path == join("topology", k)) else { return e };
    if given.contains(&CHAIN[at]) {
        return e;
    }
    if let Some(&key) = CHAIN[at + 1..].iter().find(|&&k| given.contains(&k)) {
        e.message = format!("the {} it implies: {}", CHAIN[at], e.message);
        e.path = join("topology", key);
    }
    e
}

/// A transport whose ports are its own (`TransportRules::ALONE`: pFabric's order packets by the
/// remaining bytes only its hosts stamp, PDQ's schedule by a header only its packets carry,
/// handing the whole link to the flows they know of) would leave a flow of another protocol on
/// them unscheduled, or starved; so a scenario runs such a protocol for all its flows or for
/// none.
fn check_alone(scenario: &Checked<'_>) -> Result<()> {
    let workloads = scenario.workloads;
    let protocols: Vec<Vec<Protocol>> = workloads.iter().map(|w| w.flow_protocols(scenario.transport.protocol)).collect();
    for &protocol in Protocol::ALL {
        let Some(why) = protocol.rules().alone else { continue };
        let own = protocols.iter().position(|p| p.contains(&protocol));
        let other = protocols.iter().enumerate().find_map(|(i, p)| p.iter().find(|&&p| p != protocol).map(|&p| (i, p)));
        if let (Some(i), Some((j, p))) = (own, other) {
            return Err(err(
                // The key that set one of the two: the other protocol's workload if it names it,
                // else the first one's, else the scenario's default.
                [j, i].into_iter().find(|&w| workloads[w].protocols().next().is_some()).map_or("transport.protocol".into(), |w| format!("workload[{w}].protocol")),
                format!(
                    "{} cannot share a network with other protocols: workload[{i}] runs {} and workload[{j}] runs {}; {why}",
                    protocol.label(),
                    protocol.name(),
                    p.name()
                ),
            ));
        }
    }
    Ok(())
}

fn topology(raw: RawTopology, run: &RunSpec, base_dir: Option<&Path>) -> Result<TopologySpec> {
    let p = "topology";
    let kind = raw.kind.0;
    let given = topology_keys(&raw);
    let allowed: &[&str] = match kind {
        TopologyKind::Star => &["hosts", "link_rate", "link_delay"],
        TopologyKind::D3Testbed => &["link_rate", "link_delay"],
        TopologyKind::TwoTier => &["racks", "hosts_per_rack", "link_rate", "link_delay", "fabric_rate", "oversubscription"],
        TopologyKind::FatTree => &["k", "link_rate", "link_delay", "fabric_rate", "core_rate", "oversubscription"],
        TopologyKind::LeafSpine => {
            &["racks", "hosts_per_rack", "spines", "link_rate", "link_delay", "fabric_rate", "oversubscription"]
        }
        TopologyKind::Graph => &["file"],
    };
    let what = format!("kind = \"{}\"", kind.name());
    only_keys(p, &what, &given, allowed)?;
    if kind == TopologyKind::Graph {
        let file = required(raw.file, p, "file", &what)?;
        return Ok(TopologySpec::Graph(graph::read(&file, base_dir, run)?));
    }
    let rate = match raw.link_rate {
        None if kind == TopologyKind::LeafSpine => LEAF_SPINE_LINK_RATE,
        None => DEFAULT_LINK_RATE,
        Some(r) => BitsPerSec(positive(|| "topology.link_rate".into(), r.0, "bps")?),
    };
    limits::within_horizon(|| "topology.link_delay".into(), raw.link_delay, run)?;
    let delay = raw.link_delay.map_or(
        match kind {
            TopologyKind::Star | TopologyKind::D3Testbed => D3_LINK_DELAY,
            TopologyKind::TwoTier => TWO_TIER_LINK_DELAY,
            TopologyKind::FatTree => FAT_TREE_LINK_DELAY,
            TopologyKind::LeafSpine | TopologyKind::Graph => LEAF_SPINE_LINK_DELAY,
        },
        |t| Duration::from_ps(t.0),
    );
    let link = LinkSpec { rate, delay };
    let given_rate = |key: &str, r: Option<Rate>| -> Result<Option<BitsPerSec>> {
        r.map(|r| positive(|| join(p, key), r.0, "bps").map(BitsPerSec)).transpose()
    };
    let fabric_rate = given_rate("fabric_rate", raw.fabric_rate)?;
    let oversubscription = oversubscription(raw.oversubscription, fabric_rate.is_some())?;
    Ok(match kind {
        TopologyKind::Star => {
            let hosts = required(raw.hosts, p, "hosts", &what)?;
            limits::hosts(|| "topology.hosts".into(), hosts, run)?;
            let hosts = count(|| "topology.hosts".into(), hosts, 2, run.max_hosts)?;
            TopologySpec::Star { hosts, link }
        }
        TopologyKind::D3Testbed => TopologySpec::D3Testbed { link },
        TopologyKind::TwoTier => {
            let (racks, per_rack) = rack_counts(&raw, run, DEFAULT_RACKS, DEFAULT_HOSTS_PER_RACK)?;
            // D2TCP Figure 8: each ToR uplink runs at hosts-per-rack x 1 Gbps, never
            // oversubscribed unless asked.
            let fabric_rate = match fabric_rate {
                Some(r) => r,
                None => uplink_rate(rate, per_rack, 1, oversubscription)?,
            };
            TopologySpec::TwoTier { racks, hosts_per_rack: per_rack, host_link: link, fabric_link: LinkSpec { rate: fabric_rate, delay } }
        }
        TopologyKind::FatTree => {
            let k = raw.k.unwrap_or(DEFAULT_FAT_TREE_K);
            if k < 2 || k % 2 == 1 {
                return Err(err("topology.k", format!("must be an even number of at least 2 (found {k})")));
            }
            // k^3/4 hosts, computed without overflow for any k.
            let hosts = u128::from(k).pow(3) / 4;
            limits::hosts(|| "topology.k".into(), u64::try_from(hosts).unwrap_or(u64::MAX), run)?;
            // An edge switch has k/2 hosts below and k/2 uplinks: its oversubscription is the
            // host rate over the uplink rate. The aggregation tier passes on what it receives.
            let agg_rate = match fabric_rate {
                Some(r) => r,
                None => uplink_rate(rate, 1, 1, oversubscription)?,
            };
            let core_rate = given_rate("core_rate", raw.core_rate)?.unwrap_or(agg_rate);
            TopologySpec::FatTree {
                k: k as u32,
                host_link: link,
                agg_link: LinkSpec { rate: agg_rate, delay },
                core_link: LinkSpec { rate: core_rate, delay },
            }
        }
        TopologyKind::LeafSpine => {
            let (racks, per_rack) = rack_counts(&raw, run, LEAF_SPINE_RACKS, LEAF_SPINE_HOSTS_PER_RACK)?;
            let spines = bounded_count("spines", raw.spines, LEAF_SPINE_SPINES, run)?;
            let fabric_rate = match fabric_rate {
                Some(r) => r,
                None if raw.link_rate.is_none() && oversubscription.is_none() => LEAF_SPINE_FABRIC_RATE,
                // A leaf's uplinks carry what its hosts can send, over the oversubscription.
                None => uplink_rate(rate, per_rack, spines, oversubscription)?,
            };
            TopologySpec::LeafSpine {
                racks,
                hosts_per_rack: per_rack,
                spines,
                host_link: link,
                fabric_link: LinkSpec { rate: fabric_rate, delay },
            }
        }
        TopologyKind::Graph => unreachable!("returned above"),
    })
}

/// Each optional `[topology]` key, with whether the file sets it.
fn topology_keys(raw: &RawTopology) -> [(&'static str, bool); 11] {
    [
        ("hosts", raw.hosts.is_some()),
        ("racks", raw.racks.is_some()),
        ("hosts_per_rack", raw.hosts_per_rack.is_some()),
        ("k", raw.k.is_some()),
        ("spines", raw.spines.is_some()),
        ("link_rate", raw.link_rate.is_some()),
        ("link_delay", raw.link_delay.is_some()),
        ("fabric_rate", raw.fabric_rate.is_some()),
        ("core_rate", raw.core_rate.is_some()),
        ("oversubscription", raw.oversubscription.is_some()),
        ("file", raw.file.is_some()),
    ]
}

/// `topology.oversubscription`: a ratio of at least 1, not given together with `fabric_rate`
/// (which sets the same links).
fn oversubscription(value: Option<f64>, fabric_rate_given: bool) -> Result<Option<f64>> {
    let Some(v) = value else { return Ok(None) };
    let key = "topology.oversubscription";
    if fabric_rate_given {
        return Err(err(key, "give fabric_rate or oversubscription, not both: both set the rate of the uplinks"));
    }
    let v = finite(key, v)?;
    if v < 1.0 {
        return Err(err(
            key,
            format!("must be at least 1, the hosts' bandwidth over their switch's uplink bandwidth (found {v})"),
        ));
    }
    Ok(Some(v))
}

/// The rate of each of a switch's `uplinks` uplinks when `hosts` hosts at `host_rate` sit below
/// it and the uplinks carry `1 / oversubscription` of what they can send, to the nearest bps. Out
/// of range, the error names the key that made it so: `oversubscription` when the file gives one
/// and the rate falls below 1 bps (its bound in the message), else the host rate (`link_rate`).
fn uplink_rate(host_rate: BitsPerSec, hosts: u32, uplinks: u32, oversubscription: Option<f64>) -> Result<BitsPerSec> {
    let unoversubscribed = host_rate.0 as f64 * f64::from(hosts) / f64::from(uplinks);
    let bps = (unoversubscribed / oversubscription.unwrap_or(1.0)).round();
    if (1.0..=u64::MAX as f64).contains(&bps) {
        return Ok(BitsPerSec(bps as u64));
    }
    Err(match oversubscription {
        // Rounded below 1 bps: the ratio is at most twice the unoversubscribed rate.
        Some(r) if bps < 1.0 => err(
            "topology.oversubscription",
            format!(
                "must be at most {:e} here (found {r}): the uplinks' rate, hosts x link_rate / uplinks / \
                 oversubscription, would be {bps} bps",
                unoversubscribed * 2.0
            ),
        ),
        _ => err(
            "topology.link_rate",
            format!("the uplink rate it implies ({bps} bps: hosts x link_rate / uplinks) is out of range; set fabric_rate"),
        ),
    })
}

/// A `[topology]` count at `key`, `default` when not given: at least 1, within `run.max_hosts`.
fn bounded_count(key: &str, value: Option<u64>, default: u64, run: &RunSpec) -> Result<u32> {
    let v = value.unwrap_or(default);
    limits::hosts(|| join("topology", key), v, run)?;
    count(|| join("topology", key), v, 1, run.max_hosts)
}

/// `racks` and `hosts_per_rack` of a topology built of racks (two-tier, leaf-spine), with its
/// defaults: each at least 1, and 2 to `run.max_hosts` hosts in all.
fn rack_counts(raw: &RawTopology, run: &RunSpec, default_racks: u64, default_per_rack: u64) -> Result<(u32, u32)> {
    let racks = bounded_count("racks", raw.racks, default_racks, run)?;
    let per_rack = bounded_count("hosts_per_rack", raw.hosts_per_rack, default_per_rack, run)?;
    let hosts = u64::from(racks) * u64::from(per_rack);
    if hosts < 2 {
        return Err(err("topology", format!("racks x hosts_per_rack must be at least 2 hosts (found {hosts})")));
    }
    let key = if raw.hosts_per_rack.is_some() { "hosts_per_rack" } else { "racks" };
    limits::hosts(|| join("topology", key), hosts, run)?;
    Ok((racks, per_rack))
}

/// `[switch]`: the keys it sets over [`SwitchSpec::default`].
fn switch(raw: RawSwitch) -> Result<SwitchSpec> {
    let default = SwitchSpec::default();
    let buffer = buffer_spec(
        ["buffer", "shared_buffer", "dt_alpha"],
        raw.buffer,
        raw.shared_buffer,
        raw.dt_alpha,
    )?
    .unwrap_or(default.buffer);
    let core_buffer = buffer_spec(
        ["core_buffer", "core_shared_buffer", "core_dt_alpha"],
        raw.core_buffer,
        raw.core_shared_buffer,
        raw.core_dt_alpha,
    )?
    .or(default.core_buffer);
    let ecn = raw.ecn_threshold.map_or(Ok(default.ecn), ecn::threshold)?;
    let classes = count(
        || "switch.priority_classes".into(),
        raw.priority_classes.unwrap_or(u64::from(default.priority_classes)),
        1,
        MAX_PRIORITY_CLASSES,
    )?;
    let host_nic = raw.host_nic.map_or(default.host_nic, |n| n.0);
    if host_nic == HostNic::LikeSwitch && matches!(buffer, BufferSpec::Shared { .. }) {
        return Err(err(
            "switch.host_nic",
            "\"like-switch\" gives each host NIC the per-port `buffer`; a shared buffer has no per-port size to give",
        ));
    }
    Ok(SwitchSpec {
        buffer,
        core_buffer,
        ecn,
        priority_classes: classes as u8,
        host_nic,
        load_balancing: raw.load_balancing.map_or(default.load_balancing, |n| n.0),
    })
}

/// One switch tier's buffer from its three keys `[per-port, shared, alpha]`; `None` if unset.
fn buffer_spec(
    keys: [&str; 3],
    per_port: Option<QueueLimit>,
    shared: Option<QueueLimit>,
    alpha: Option<f64>,
) -> Result<Option<BufferSpec>> {
    let at = |key: &str| join("switch", key);
    if alpha.is_some() && shared.is_none() {
        return Err(err(
            at(keys[2]),
            format!("only applies to a shared buffer; set {} too", keys[1]),
        ));
    }
    match (per_port, shared) {
        (Some(_), Some(_)) => Err(err(
            at(keys[1]),
            format!(
                "give either {} (per port) or {} (per switch), not both",
                keys[0], keys[1]
            ),
        )),
        (Some(QueueLimit(QueueSize::Bytes(b))), None) => Ok(Some(BufferSpec::PerPort {
            bytes: positive(|| at(keys[0]), b, "bytes")?,
        })),
        (Some(QueueLimit(QueueSize::Packets(n))), None) => Ok(Some(BufferSpec::PerPortPackets {
            packets: positive(|| at(keys[0]), n, "packets")?,
        })),
        (None, Some(QueueLimit(QueueSize::Packets(_)))) => Err(err(
            at(keys[1]),
            "a shared buffer is counted in bytes: give a size such as \"4MB\", not packets",
        )),
        (None, Some(QueueLimit(QueueSize::Bytes(b)))) => {
            let bytes = positive(|| at(keys[1]), b, "bytes")?;
            let alpha = finite(&at(keys[2]), alpha.unwrap_or(DEFAULT_DT_ALPHA))?;
            if alpha <= 0.0 {
                return Err(err(
                    at(keys[2]),
                    format!("must be greater than 0 (found {alpha})"),
                ));
            }
            Ok(Some(BufferSpec::Shared { bytes, alpha }))
        }
        (None, None) => Ok(None),
    }
}

/// `[transport]`: a named stack's defaults (`stack`, default [`DEFAULT_STACK`]) with the keys
/// the file sets on top.
fn transport(raw: RawTransport, run: &RunSpec) -> Result<TransportSpec> {
    let stack = raw.stack.map_or(DEFAULT_STACK, |n| n.0);
    let d = stack.tcp_config();
    let at = |key: &str| join("transport", key);
    let timers = [
        ("min_rto", raw.min_rto),
        ("initial_rto", raw.initial_rto),
        ("max_rto", raw.max_rto),
        ("clock_granularity", raw.clock_granularity),
    ];
    for (key, value) in timers {
        limits::within_horizon(|| at(key), value, run)?;
    }
    if let Some(RawDelayedAck::Table(t)) = &raw.delayed_ack {
        limits::within_horizon(|| at("delayed_ack.timeout"), t.timeout, run)?;
    }
    let u32_max = u64::from(u32::MAX);
    let protocol = raw.protocol.map_or(Protocol::Tcp, |n| n.0);
    let mss_bytes = match raw.mss {
        None => d.mss_bytes,
        Some(n) => count(|| at("mss"), n, MIN_MSS, MAX_MSS)?,
    };
    let initial_window = match raw.initial_window {
        None => d.initial_window_segments,
        Some(n) => count(|| at("initial_window"), n, 1, u32_max)?,
    };
    let initial_ssthresh_bytes = match raw.initial_ssthresh {
        None => d.initial_ssthresh_bytes,
        Some(b) => Some(positive(|| at("initial_ssthresh"), b.0, "bytes")?),
    };
    let min_rto = positive_time(|| at("min_rto"), raw.min_rto, d.min_rto)?;
    let max_rto = positive_time(|| at("max_rto"), raw.max_rto, d.max_rto)?;
    if max_rto < min_rto {
        return Err(err(
            at("max_rto"),
            format!("must not be below min_rto ({max_rto} < {min_rto})"),
        ));
    }
    let initial_rto = match raw.initial_rto {
        None => d.initial_rto,
        Some(t) => Some(positive_time(
            || at("initial_rto"),
            Some(t),
            Duration::ZERO,
        )?),
    };
    if let Some(rto) = initial_rto.filter(|&rto| rto > max_rto) {
        return Err(err(
            at(if raw.initial_rto.is_some() { "initial_rto" } else { "max_rto" }),
            format!("initial_rto must not exceed max_rto ({rto} > {max_rto})"),
        ));
    }
    let clock_granularity = positive_time(
        || at("clock_granularity"),
        raw.clock_granularity,
        d.clock_granularity,
    )?;
    // `delayed_ack = true` or a partial table completes from the stack's delayed ACKs, or
    // from ns-3's if the stack has none.
    let base_delayed_ack = d.delayed_ack.unwrap_or(DEFAULT_DELAYED_ACK);
    let delayed_ack = match raw.delayed_ack {
        None => d.delayed_ack,
        Some(RawDelayedAck::Enabled(false)) => None,
        Some(RawDelayedAck::Enabled(true)) => Some(base_delayed_ack),
        Some(RawDelayedAck::Table(t)) => Some(DelayedAck {
            segments: match t.segments {
                None => base_delayed_ack.segments,
                Some(n) => count(|| at("delayed_ack.segments"), n, 1, u32_max)?,
            },
            timeout: positive_time(
                || at("delayed_ack.timeout"),
                t.timeout,
                base_delayed_ack.timeout,
            )?,
            quickack: match t.quickack {
                None => base_delayed_ack.quickack,
                Some(n) => count(|| at("delayed_ack.quickack"), n, 0, u32_max)?,
            },
        }),
    };
    let receive_window_bytes = match raw.receive_window {
        None => d.receive_window_bytes,
        Some(b) => Some(positive(|| at("receive_window"), b.0, "bytes")?),
    };
    // A window below one segment would let the sender send nothing at all; the stacks would
    // round it up to a segment, running something other than what the file says.
    if let Some(window) = receive_window_bytes.filter(|&w| w < u64::from(mss_bytes)) {
        let key = if raw.receive_window.is_some() { "receive_window" } else { "mss" };
        return Err(err(
            at(key),
            format!("the receive window ({window} B) must hold at least one MSS ({mss_bytes} B)"),
        ));
    }
    let dupack_threshold = match raw.dupack_threshold {
        None => d.dupack_threshold,
        Some(n) => count(|| at("dupack_threshold"), n, 1, u32_max)?,
    };
    let ecn_cut_floor_segments = match raw.ecn_cut_floor {
        None => d.ecn_cut_floor_segments,
        Some(n) => count(|| at("ecn_cut_floor"), n, 0, MAX_ECN_CUT_FLOOR)?,
    };
    // Keys the protocols' hosts do without (D3's and PDQ's SACK and PRR) are checked against the
    // flows, wherever their protocols are named: `check_refused`.
    let sack = raw.sack.unwrap_or(d.sack);
    // Without SACK the stack's PRR falls away with it; asked for explicitly, it is an error.
    let prr = match raw.prr {
        Some(true) if !sack => {
            return Err(err(
                at("prr"),
                "PRR in loss recovery needs sack = true (its delivered data and pipe come from the SACK scoreboard)",
            ))
        }
        Some(p) => p,
        None => d.prr && sack,
    };
    let dctcp_g = estimation_gain(&at("dctcp_g"), raw.dctcp_g.unwrap_or(DCTCP_DEFAULT_G))?;
    let dctcp_initial_alpha = initial_alpha(
        &at("dctcp_initial_alpha"),
        raw.dctcp_initial_alpha.unwrap_or(stack.dctcp_initial_alpha()),
    )?;
    Ok(TransportSpec {
        protocol,
        stack,
        tcp: TcpConfig {
            mss_bytes,
            timestamps: raw.timestamps.unwrap_or(d.timestamps),
            initial_window_segments: initial_window,
            initial_ssthresh_bytes,
            max_window_segments: d.max_window_segments,
            probe_after_timeouts: d.probe_after_timeouts,
            min_rto,
            initial_rto,
            max_rto,
            clock_granularity,
            delayed_ack,
            receive_window_bytes,
            dupack_threshold,
            sack,
            rescue_retransmission: raw.rescue_retransmission.unwrap_or(d.rescue_retransmission),
            partial_ack_retransmit: raw.partial_ack_retransmit.unwrap_or(d.partial_ack_retransmit),
            prr,
            ecn_reduction: raw.ecn_reduction.map_or(d.ecn_reduction, |n| n.0),
            recovery_in_cwr: raw.recovery_in_cwr.unwrap_or(d.recovery_in_cwr),
            limited_transmit: raw.limited_transmit.unwrap_or(d.limited_transmit),
            window_growth: raw.window_growth.map_or(d.window_growth, |n| n.0),
            cwnd_validation: raw.cwnd_validation.unwrap_or(d.cwnd_validation),
            loss_basis: raw.loss_basis.map_or(d.loss_basis, |n| n.0),
            dctcp_loss_cut: raw.dctcp_loss_cut.map_or(d.dctcp_loss_cut, |n| n.0),
            ecn_cut_floor_segments,
            ecn_cut_after_timeout: raw.ecn_cut_after_timeout.unwrap_or(d.ecn_cut_after_timeout),
            sub_segment_window: raw.sub_segment_window.map_or(d.sub_segment_window, |n| n.0),
            ce_sequence_check: raw.ce_sequence_check.unwrap_or(d.ce_sequence_check),
            ect_control_packets: raw.ect_control_packets.unwrap_or(d.ect_control_packets),
            ns3_bookkeeping: raw.ns3_bookkeeping.unwrap_or(d.ns3_bookkeeping),
            handshake: raw.handshake.unwrap_or(d.handshake),
            handshake_ack: raw.handshake_ack.unwrap_or(d.handshake_ack),
            restart_after_idle: raw.restart_after_idle.unwrap_or(d.restart_after_idle),
        },
        dctcp_g,
        dctcp_initial_alpha,
    })
}

/// What `[run]` needs given the workloads: a duration when some flow never finishes (it caps
/// the run even with `stop_after_finite_flows`), and finite flows for `stop_after_finite_flows`.
fn check_run_end(run: &RunSpec, workloads: &[WorkloadSpec]) -> Result<()> {
    if run.duration.is_none() {
        if let Some(i) = workloads
            .iter()
            .position(WorkloadSpec::has_long_lived_flows)
        {
            return Err(err(
                "run.duration",
                format!(
                    "is required because workload[{i}] has long-lived flows, which never finish"
                ),
            ));
        }
    }
    let has_finite = |w: &WorkloadSpec| match w {
        WorkloadSpec::LongFlows { .. } => false,
        WorkloadSpec::Flows { flows, .. } => flows.iter().any(|f| f.size_bytes.is_some()),
        WorkloadSpec::Trace { trace, .. } => trace.flows > trace.long_lived,
        _ => true,
    };
    if run.stop_after_finite_flows && !workloads.iter().any(has_finite) {
        return Err(err(
            "run.stop_after_finite_flows",
            "needs a workload with finite flows (every flow here is long-lived, so the run would end at once)",
        ));
    }
    Ok(())
}


