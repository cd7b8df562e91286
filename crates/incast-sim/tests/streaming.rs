//! Flows leave the run when they are over (issue 26: memory that follows the flows in flight):
//! rows taken during the run, rows of a run that keeps every flow to the end, and Poisson flows
//! drawn as the run reaches them all give the same flow table and summary.

mod common;

use common::*;
use incast_sim::results::{FlowRecord, RunResults};
use incast_sim::scenario::{parse_toml, Scenario};
use incast_sim::Simulation;

/// All-to-all Poisson DCTCP flows on a 16-host star, 10 Gbps, a 1 ms RTO (some flows time out
/// and come back after others ended), with ECMP-free routes; `extra` appended to the file.
fn poisson(extra: &str) -> Scenario {
    let text = format!(
        r#"
seed = 3
[topology]
kind = "star"
hosts = 16
link_rate = "10Gbps"
link_delay = "1us"
[switch]
buffer = "40pkts"
ecn_threshold = 20
[transport]
protocol = "dctcp"
min_rto = "1ms"
[[workload]]
kind = "poisson"
rate = 400000.0
size = {{ dist = "uniform", min = "1KB", max = "60KB" }}
stop = "10ms"
{extra}
"#
    );
    parse_toml(&text, None).expect("valid scenario")
}

/// Runs `s` in chunks of `chunk` events, taking the released rows after each: (rows taken,
/// results at the end).
fn run_taking(s: &Scenario, chunk: u64) -> (Vec<FlowRecord>, RunResults) {
    let mut sim = Simulation::new(s).expect("valid");
    let mut taken = Vec::new();
    while !sim.step(chunk).expect("runs") {
        taken.extend(sim.take_flow_records());
    }
    taken.extend(sim.take_flow_records());
    (taken, sim.finish().expect("finishes"))
}

fn without_wall_time(r: &RunResults) -> incast_sim::results::Summary {
    incast_sim::results::Summary { wall_time_s: 0.0, ..r.summary.clone() }
}

#[test]
fn rows_taken_during_the_run_are_the_rows_of_a_run_that_keeps_them() {
    let s = poisson("");
    let whole = incast_sim::run(&s).expect("valid");
    assert_conservation(&whole);
    assert!(whole.flows.len() > 3_000, "{} flows", whole.flows.len());
    assert!(whole.summary.timeouts > 0, "some flows time out, and end after later ones");
    let (mut taken, rest) = run_taking(&s, 10_000);
    assert!(taken.len() > whole.flows.len() / 2, "most rows leave during the run: {} taken", taken.len());
    assert!(taken.windows(2).any(|w| w[0].flow_id > w[1].flow_id), "rows come in the order flows left");
    assert!(rest.flows.windows(2).all(|w| w[0].flow_id < w[1].flow_id), "the rest in id order");
    taken.extend(rest.flows.iter().copied());
    taken.sort_by_key(|r| r.flow_id);
    assert_eq!(taken, whole.flows);
    assert_eq!(without_wall_time(&rest), without_wall_time(&whole), "the summary counts the rows taken");
}

#[test]
fn releasing_ended_flows_changes_no_row() {
    // Per-flow throughput sampling reads every flow, so no flow leaves the run: the rows of a run
    // that keeps every flow to its end.
    let released = incast_sim::run(&poisson("")).expect("valid");
    let kept = incast_sim::run(&poisson("[output]\nflow_throughput_interval = \"1ms\"")).expect("valid");
    assert_eq!(released.flows, kept.flows);
    assert_eq!(released.ports, kept.ports);
    assert!(kept.throughput.as_ref().is_some_and(|t| !t.time_s.is_empty()));
    // The summary counts the released flows' rows; only the sampling ticks add events.
    let counts = |r: &RunResults| incast_sim::results::Summary { events: 0, ..without_wall_time(r) };
    assert_eq!(counts(&released), counts(&kept));
    assert!(released.summary.deadline_flows == 0 && released.summary.timeouts > 0 && released.summary.flows_measured > 3_000);
}

#[test]
fn poisson_flows_the_run_never_reached_are_rows_of_flows_that_never_started() {
    // The arrivals go on to 10 ms; the run stops at 4 ms.
    let s = poisson("[run]\nduration = \"4ms\"");
    let (mut taken, rest) = run_taking(&s, 5_000);
    taken.extend(rest.flows.iter().copied());
    taken.sort_by_key(|r| r.flow_id);
    assert_eq!(taken.len() as u64, rest.summary.flows);
    assert!(taken.iter().enumerate().all(|(i, r)| r.flow_id == i as u32), "every number once");
    let never: Vec<&FlowRecord> = taken.iter().filter(|r| r.start_s > 0.004).collect();
    assert!(never.len() > 1_000, "{} flows after the end", never.len());
    assert!(never.iter().all(|r| r.finish_s.is_none() && r.delivered_bytes == 0 && r.max_stall_s.is_none()));
    assert!(never.iter().all(|r| r.ideal_fct_s.is_some_and(|t| t > 0.0)), "with the route they would have taken");
    // The same rows as a run that keeps every flow.
    let kept = incast_sim::run(&poisson("[run]\nduration = \"4ms\"\n[output]\nflow_throughput_interval = \"1ms\"")).expect("valid");
    assert_eq!(taken, kept.flows);
}

#[test]
fn ecmp_routes_of_released_flows_are_reused_without_changing_a_path() {
    // A k = 4 fat tree: flows between pods take one of four paths by their hash. Routes of
    // released flows are reused; the paths taken (the ports' counters) are those of a run that
    // keeps every flow.
    let tree = |extra: &str| {
        let text = format!(
            r#"
seed = 5
[topology]
kind = "fat-tree"
k = 4
link_rate = "10Gbps"
link_delay = "1us"
[switch]
buffer = "100pkts"
ecn_threshold = 30
[transport]
protocol = "dctcp"
[[workload]]
kind = "poisson"
rate = 300000.0
size = "20KB"
stop = "5ms"
{extra}
"#
        );
        incast_sim::run(&parse_toml(&text, None).expect("valid")).expect("runs")
    };
    let released = tree("");
    let kept = tree("[output]\nflow_throughput_interval = \"1ms\"");
    assert!(released.flows.len() > 1_000);
    assert_eq!(released.flows, kept.flows);
    assert_eq!(released.ports, kept.ports);
}
