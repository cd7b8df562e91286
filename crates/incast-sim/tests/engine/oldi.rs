//! End to end: a reduced D2TCP OLDI scenario (Section 4.2.1 on 5 racks instead of 25) runs to
//! sensible results: packets are conserved, every application sends with its own message size
//! and deadlines, messages finish, and the background senders get bandwidth.


use std::collections::BTreeSet;
use std::sync::OnceLock;

use crate::common::assert_conservation;
use incast_sim::results::{FlowRecord, RunResults};
use incast_sim::scenario::{parse_toml, TraceSpec, D2TCP_APPS};
use incast_sim::Simulation;

/// 5 racks of 40 hosts (40 per application), fan-in 20 at 20% utilization with background
/// flows; queries for 40 ms, then 70 ms for the last deadlines (at most 1.5 x 45 ms) to pass.
const REDUCED: &str = r#"
seed = 4
[topology]
kind = "two-tier"
racks = 5
hosts_per_rack = 40
[switch]
shared_buffer = "4MB"
core_buffer = "100MB"
[transport]
protocol = "dctcp"
min_rto = "20ms"
[[workload]]
kind = "oldi"
fan_in = 20
utilization = 0.2
background = true
background_interval = "20ms"
stop = "40ms"
[run]
duration = "110ms"
"#;

fn run() -> RunResults {
    let scenario = parse_toml(REDUCED, None).expect("valid scenario");
    let r = incast_sim::run(&scenario).expect("builds");
    assert_conservation(&r);
    r
}

/// One run shared by the tests that only read it.
fn shared() -> &'static RunResults {
    static RUN: OnceLock<RunResults> = OnceLock::new();
    RUN.get_or_init(run)
}

#[test]
fn reduced_oldi_run_gives_every_app_its_messages_and_deadlines() {
    let r = shared();
    let oldi: Vec<&FlowRecord> = r.flows.iter().filter(|f| !f.background).collect();
    for (a, &(size, base)) in D2TCP_APPS.iter().enumerate() {
        let app: Vec<&&FlowRecord> = oldi.iter().filter(|f| f.app == Some(a as u32)).collect();
        assert!(app.len() > 100, "app {a}: only {} messages", app.len());
        for f in app {
            assert_eq!(f.size_bytes, Some(size), "app {a}");
            // Medium variance: the deadline is base x U[1, 1.5] after the start.
            let relative = f.deadline_s.unwrap() - f.start_s;
            let base = base.as_secs_f64();
            assert!(relative >= base - 1e-9 && relative <= 1.5 * base + 1e-9, "app {a}: deadline {relative}");
            assert!(f.start_s < 0.040, "queries stop at 40 ms");
        }
    }
    // Every message finished before the run ended, and at 20% load DCTCP meets most deadlines.
    assert!(oldi.iter().all(|f| f.finish_s.is_some() && f.delivered_bytes == f.size_bytes.unwrap()));
    let missed = oldi.iter().filter(|f| f.met_deadline == Some(false)).count() as f64 / oldi.len() as f64;
    assert!(missed < 0.2, "missed {:.1}% of deadlines", missed * 100.0);
    // D2TCP Figure 12: latency normalized to the deadline, at the median.
    let mut normalized: Vec<f64> =
        oldi.iter().map(|f| (f.finish_s.unwrap() - f.start_s) / (f.deadline_s.unwrap() - f.start_s)).collect();
    normalized.sort_by(f64::total_cmp);
    let p50 = normalized[normalized.len() / 2];
    assert!(p50 > 0.0 && p50 < 0.5, "median normalized latency {p50}");
}

#[test]
fn reduced_oldi_run_gives_background_senders_bandwidth() {
    let r = shared();
    let background: Vec<&FlowRecord> = r.flows.iter().filter(|f| f.background).collect();
    // 25 senders, one 1 MB flow per 20 ms on average over 40 ms: about 50 flows.
    assert!((20..100).contains(&background.len()), "{} background flows", background.len());
    for f in &background {
        assert_eq!((f.size_bytes, f.deadline_s, f.met_deadline), (Some(1_000_000), None, None));
        assert!(f.app.is_some());
    }
    // A 1 MB flow alone on a 1 Gbps link takes 8 ms; the finished ones averaged well above 100 Mbps.
    let finished: Vec<&&FlowRecord> = background.iter().filter(|f| f.finish_s.is_some()).collect();
    assert!(finished.len() * 2 > background.len());
    let mbps: f64 = finished.iter().map(|f| 8.0 * 1e6 / (f.finish_s.unwrap() - f.start_s) / 1e6).sum::<f64>() / finished.len() as f64;
    assert!(mbps > 100.0, "background flows averaged {mbps:.0} Mbps");
}

#[test]
fn reduced_oldi_run_is_deterministic() {
    assert_eq!(run().flows, shared().flows);
}

#[test]
fn traces_follow_an_application_or_flows_chosen_after_building() {
    let mut scenario = parse_toml(REDUCED, None).expect("valid scenario");
    scenario.run.duration = Some(incast_proto::time::Duration::from_ms(20));
    let plain = incast_sim::run(&scenario).expect("runs");
    // Application 2's flows, by the scenario key.
    let mut by_app = scenario.clone();
    by_app.output.traces = Some(TraceSpec { apps: vec![2], ..TraceSpec::default() });
    let r = incast_sim::run(&by_app).expect("runs");
    assert_eq!(r.flows, plain.flows, "tracing changes nothing");
    let traced: BTreeSet<u32> = r.traces.as_ref().expect("asked for").flow_id.iter().copied().collect();
    let app2: BTreeSet<u32> = plain.flows.iter().filter(|f| f.app == Some(2) && f.start_s < 0.02).map(|f| f.flow_id).collect();
    assert!(!traced.is_empty() && traced.is_subset(&app2), "only application 2's flows");
    // The slowest finished flow, chosen from the first run and traced in a second.
    let slowest = plain.flows.iter().filter(|f| f.finish_s.is_some()).max_by(|a, b| fct(a).total_cmp(&fct(b))).expect("finished flows");
    let mut sim = Simulation::new(&scenario).expect("builds");
    sim.trace_flows(&[slowest.flow_id]).expect("an existing flow");
    assert!(sim.trace_flows(&[u32::MAX]).unwrap_err().contains("does not exist"));
    while !sim.step(1 << 16).expect("runs") {}
    assert!(sim.trace_flows(&[0]).is_err(), "too late once running");
    let r = sim.finish().expect("results");
    assert_eq!(r.flows, plain.flows);
    let t = r.traces.expect("traced");
    assert!(!t.flow_id.is_empty() && t.flow_id.iter().all(|&f| f == slowest.flow_id));
}

fn fct(f: &FlowRecord) -> f64 {
    f.finish_s.map_or(f64::INFINITY, |done| done - f.start_s)
}
