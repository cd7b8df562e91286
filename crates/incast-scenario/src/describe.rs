//! The effective settings of a loaded scenario, keyed as the file writes them: the stack's
//! defaults with the file's keys applied, so a user sees what a run used (`incast check`,
//! `summary.json`) without reading the stack tables; and `incast check`'s sections in effect:
//! `[transport]`, and the protocols' own sections their flows read (`protocols`), each under
//! the heading `incast check` prints.

use incast_proto::tcp::TcpConfig;
use serde_json::{json, Map, Value};

use super::names::Named;
use super::protocols::prose;
use super::spec::{EcnMark, EcnSpec, Protocol};
use super::units::{rate_text, time_text};
use super::{Scenario, TopologySpec, TransportSpec, WorkloadSpec};

/// The sections of `scenario` in effect, as `incast check` shows them: `transport`
/// ([`effective_transport`]) always, and each protocol's section its flows read (`d2tcp`,
/// `tcppr`, `d3`, `pdq`, `pfabric`; a section no flow reads is ignored), then `topology` and
/// Poisson `arrivals`. `check` lists what `incast check` prints, in order: each block as
/// `[heading, keys]`, the keys `null` where the heading says it all.
pub fn effective_sections(scenario: &Scenario) -> Map<String, Value> {
    let in_use = scenario.protocols_in_use();
    let mut m = Map::new();
    let transport = effective_transport(&scenario.transport);
    let mut check = Vec::new();
    // A scenario whose every flow runs a transport that reads no `[transport]` key says so.
    match transport_unread(&in_use) {
        Some(why) => check.push(json!([format!("[transport] not in effect: {why}"), null])),
        None => check.push(json!([
            format!("[transport] in effect (stack \"{}\" with the file's keys):", scenario.transport.stack.name()),
            transport.clone()
        ])),
    }
    m.insert("transport".to_string(), Value::Object(transport));
    for (name, heading, keys) in scenario.sections.describe(&in_use) {
        check.push(json!([heading, keys]));
        m.insert(name.to_string(), Value::Object(keys));
    }
    if let Some(by_rate) = ecn_by_rate(scenario) {
        check.push(json!(["[switch] ecn_threshold in effect, by link rate:", by_rate]));
    }
    m.insert("topology".to_string(), topology_summary(&scenario.topology));
    let arrivals = poisson_arrivals(scenario);
    if !arrivals.is_empty() {
        m.insert("arrivals".to_string(), Value::Object(arrivals));
    }
    m.insert("check".to_string(), Value::Array(check));
    m
}

/// The marking threshold of each link rate of the network, when `[switch] ecn_threshold` depends
/// on the rate in a way the file does not spell out (`"scaled"`, a table): keyed by rate and
/// written as the table form takes them (packets as an integer, bytes as `"30000B"`), so that
/// `incast check` shows what each port marks at, as a table one can paste into the file.
fn ecn_by_rate(scenario: &Scenario) -> Option<Map<String, Value>> {
    let ecn = &scenario.switch.ecn;
    if !matches!(ecn, EcnSpec::Scaled | EcnSpec::PerRate(_)) {
        return None;
    }
    let mut by_rate = Map::new();
    for (_, rate) in scenario.topology.link_tiers() {
        let k = match ecn.at_rate(rate) {
            Some(EcnMark::Packets(n)) => json!(n),
            Some(EcnMark::Bytes(b)) => json!(format!("{b}B")),
            Some(EcnMark::Never) => json!("off"),
            None => continue, // not in a validated scenario
        };
        by_rate.insert(rate_text(rate), k);
    }
    Some(by_rate)
}

/// Why no `[transport]` key but `protocol` applies, when every protocol `in_use` runs on hosts that
/// read none (pFabric's): "every flow runs pFabric; pFabric's hosts run their own TCP, ...".
pub(crate) fn transport_unread(in_use: &[Protocol]) -> Option<String> {
    if in_use.is_empty() || in_use.iter().any(|p| p.rules().reads_transport) {
        return None;
    }
    let labels: Vec<&str> = in_use.iter().map(|p| p.label()).collect();
    let mut why: Vec<&str> = in_use.iter().map(|p| p.rules().instead_of_transport).collect();
    why.dedup();
    Some(format!("every flow runs {}; {}", prose(&labels, "or"), why.join("; ")))
}

/// The network in a few numbers, so a user sees what `oversubscription` or a graph file gave:
/// its kind, its hosts, the rate of each tier of links (host links first; a graph's distinct
/// rates) and, for the builders with racks, the oversubscription of the racks' uplinks (hosts'
/// bandwidth over their switch's uplink bandwidth).
pub(crate) fn topology_summary(topology: &TopologySpec) -> Value {
    let oversubscription = match topology {
        TopologySpec::Star { .. } | TopologySpec::D3Testbed { .. } | TopologySpec::Graph(_) => None,
        TopologySpec::TwoTier { hosts_per_rack, host_link, fabric_link, .. } => {
            Some(f64::from(*hosts_per_rack) * host_link.rate.0 as f64 / fabric_link.rate.0 as f64)
        }
        TopologySpec::LeafSpine { hosts_per_rack, spines, host_link, fabric_link, .. } => {
            Some(f64::from(*hosts_per_rack) * host_link.rate.0 as f64 / (f64::from(*spines) * fabric_link.rate.0 as f64))
        }
        TopologySpec::FatTree { host_link, agg_link, .. } => Some(host_link.rate.0 as f64 / agg_link.rate.0 as f64),
    };
    json!({
        "kind": topology.kind_name(),
        "hosts": topology.host_count(),
        "link_rates_bps": topology.link_tiers().iter().map(|(what, rate)| json!([what, rate.0])).collect::<Vec<_>>(),
        "oversubscription": oversubscription,
    })
}

/// Per Poisson workload (`workload[i]`): its arrival rate in flows per second, its senders, the
/// mean of its size distribution and the load that offers on each sender's link (given as
/// `load`, or implied by `rate`), so a user sees what `load` became before running.
pub(crate) fn poisson_arrivals(scenario: &Scenario) -> Map<String, Value> {
    let mut m = Map::new();
    for (i, w) in scenario.workloads.iter().enumerate() {
        if let WorkloadSpec::Poisson { rate_per_sec, hosts, size, .. } = w {
            let mean = size.mean_bytes();
            m.insert(
                format!("workload[{i}]"),
                json!({
                    "flows_per_s": rate_per_sec,
                    "senders": hosts.len(),
                    "mean_size_bytes": mean,
                    "load": rate_per_sec * 8.0 * mean / super::traffic::senders_bps(&scenario.topology, hosts),
                }),
            );
        }
    }
    m
}

/// Every `[transport]` key of `spec` with the value in effect, in file syntax (times as unit
/// strings, names as the file accepts them, `false` for delayed ACKs that are off).
pub fn effective_transport(spec: &TransportSpec) -> Map<String, Value> {
    let t: &TcpConfig = &spec.tcp;
    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.to_string(), value);
    };
    put("stack", json!(spec.stack.name()));
    put("protocol", json!(spec.protocol.name()));
    put("mss", json!(t.mss_bytes));
    put("timestamps", json!(t.timestamps));
    put("initial_window", json!(t.initial_window_segments));
    put("initial_ssthresh", t.initial_ssthresh_bytes.map_or(Value::Null, |b| json!(format!("{b}B"))));
    put("min_rto", json!(time_text(t.min_rto)));
    put("initial_rto", json!(time_text(t.initial_rto.unwrap_or(t.min_rto))));
    put("max_rto", json!(time_text(t.max_rto)));
    put("clock_granularity", json!(time_text(t.clock_granularity)));
    put(
        "delayed_ack",
        t.delayed_ack.map_or(json!(false), |d| {
            json!({"segments": d.segments, "timeout": time_text(d.timeout), "quickack": d.quickack})
        }),
    );
    put("receive_window", t.receive_window_bytes.map_or(Value::Null, |b| json!(format!("{b}B"))));
    put("dupack_threshold", json!(t.dupack_threshold));
    put("sack", json!(t.sack));
    put("rescue_retransmission", json!(t.rescue_retransmission));
    put("partial_ack_retransmit", json!(t.partial_ack_retransmit));
    put("prr", json!(t.prr));
    put("ecn_reduction", json!(t.ecn_reduction.name()));
    put("recovery_in_cwr", json!(t.recovery_in_cwr));
    put("limited_transmit", json!(t.limited_transmit));
    put("window_growth", json!(t.window_growth.name()));
    put("cwnd_validation", json!(t.cwnd_validation));
    put("loss_basis", json!(t.loss_basis.name()));
    put("dctcp_loss_cut", json!(t.dctcp_loss_cut.name()));
    put("ecn_cut_floor", json!(t.ecn_cut_floor_segments));
    put("ecn_cut_after_timeout", json!(t.ecn_cut_after_timeout));
    put("sub_segment_window", json!(t.sub_segment_window.name()));
    put("ce_sequence_check", json!(t.ce_sequence_check));
    put("ect_control_packets", json!(t.ect_control_packets));
    put("ns3_bookkeeping", json!(t.ns3_bookkeeping));
    put("handshake", json!(t.handshake));
    put("handshake_ack", json!(t.handshake_ack));
    put("restart_after_idle", json!(t.restart_after_idle));
    put("dctcp_g", json!(spec.dctcp_g));
    put("dctcp_initial_alpha", json!(spec.dctcp_initial_alpha));
    m
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_toml;
    use crate::fixtures::PORTS;

    #[test]
    fn effective_transport_shows_stack_defaults_and_overrides() {
        let s = parse_toml(
            "[topology]\nkind = \"star\"\nhosts = 2\n[transport]\nstack = \"ns3\"\nmss = 1448\nmin_rto = \"10ms\"\n\
             [[workload]]\nkind = \"flow-burst\"\nsenders = 1\n",
            None,
            &PORTS,
        )
        .unwrap();
        let m = effective_transport(&s.transport);
        assert_eq!(m["stack"], json!("ns3"));
        assert_eq!(m["mss"], json!(1448));
        assert_eq!(m["min_rto"], json!("10ms"));
        assert_eq!(m["initial_rto"], json!("3s"));
        assert_eq!(m["clock_granularity"], json!("1ms"));
        assert_eq!(m["window_growth"], json!("per-ack"));
        assert_eq!(m["delayed_ack"], json!({"segments": 2, "timeout": "200ms", "quickack": 0}));
        assert_eq!(m["recovery_in_cwr"], json!(false));
        assert_eq!(m["ecn_cut_floor"], json!(0));
        assert_eq!(m["ecn_cut_after_timeout"], json!(true));
        assert_eq!(m["sub_segment_window"], json!("wait"));
        assert_eq!(m["ce_sequence_check"], json!(true));
        assert_eq!(m["ect_control_packets"], json!(true));
        assert_eq!(m["ns3_bookkeeping"], json!(true));
        assert_eq!(m["handshake_ack"], json!(true));
    }

    #[test]
    fn effective_sections_show_d2tcp_only_when_a_flow_runs_it() {
        let star = "[topology]\nkind = \"star\"\nhosts = 3\n[transport]\ndctcp_g = 0.125\n";
        let burst = "[[workload]]\nkind = \"flow-burst\"\nsenders = 1\n";
        let s = parse_toml(&format!("{star}{burst}"), None, &PORTS).unwrap();
        let m = effective_sections(&s);
        assert_eq!(m.keys().collect::<Vec<_>>(), ["transport", "topology", "check"]);
        assert_eq!(m["check"][0][0], json!("[transport] in effect (stack \"linux\" with the file's keys):"));
        assert_eq!(m["check"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            m["topology"],
            json!({"kind": "star", "hosts": 3, "link_rates_bps": [["every link", 1_000_000_000]], "oversubscription": null})
        );
        let d2 = "[[workload]]\nkind = \"flow-burst\"\nsenders = 1\nprotocol = \"d2tcp\"\n[d2tcp]\nclamp = \"upper\"\n";
        let s = parse_toml(&format!("{star}{burst}{d2}"), None, &PORTS).unwrap();
        let m = effective_sections(&s);
        assert_eq!(m["transport"]["protocol"], json!("tcp"));
        assert_eq!(
            m["d2tcp"],
            json!({"g": 0.125, "initial_alpha": 1.0, "d_cap": 2.0, "past_deadline": "one", "nothing_left": "min",
                   "remaining": "unacked", "tc_units": "seconds", "clamp": "upper"})
        );
        // `incast check` prints [transport], then the section under its heading.
        assert_eq!(m["check"][1], json!([
            "[d2tcp] in effect (the defaults with the file's keys; g and initial_alpha follow [transport]'s DCTCP keys unless set):",
            m["d2tcp"]
        ]));
    }

    #[test]
    fn effective_sections_of_a_transport_that_reads_no_transport_key_say_so() {
        let s = parse_toml("[topology]\nkind = \"star\"\nhosts = 3\n[transport]\nprotocol = \"pfabric\"\n[[workload]]\nkind = \"flow-burst\"\n", None, &PORTS).unwrap();
        let m = effective_sections(&s);
        assert_eq!(
            m["check"][0],
            json!(["[transport] not in effect: every flow runs pFabric; pFabric's hosts run their own TCP, set by [pfabric]", null])
        );
        assert_eq!(m["check"][1][1]["initial_window"], json!(12));
    }

    #[test]
    fn effective_sections_show_d3_with_its_variants_values_and_overrides() {
        let parse = |d3: &str| {
            parse_toml(
                &format!(
                    "[topology]\nkind = \"star\"\nhosts = 2\n{d3}\n\
                     [[workload]]\nkind = \"flow-burst\"\nsenders = 1\nprotocol = \"rcpdc\"\n"
                ),
                None,
                &PORTS,
            )
            .unwrap()
        };
        let paper = effective_sections(&parse(""));
        let d3 = &paper["d3"];
        assert_eq!(d3["variant"], json!("paper"));
        assert_eq!(d3["controller"], json!("printed"));
        assert_eq!((&d3["capacity_min"], &d3["capacity_max"]), (&json!(1.0), &json!(2.0)));
        assert_eq!(d3["time_slices"], json!(false));
        assert_eq!(d3["base_rate"], json!("1653336bps"));
        let repaired = effective_sections(&parse("[d3]\nvariant = \"repaired\"\ntime_slices = false"));
        let d3 = &repaired["d3"];
        assert_eq!(d3["variant"], json!("repaired"));
        assert_eq!(d3["controller"], json!("printed"));
        assert_eq!(d3["pace_requests"], json!(true));
        assert_eq!((&d3["carry_remainder"], &d3["time_slices"]), (&json!(true), &json!(false)));
        assert!(!paper.contains_key("d2tcp"));
    }

}
