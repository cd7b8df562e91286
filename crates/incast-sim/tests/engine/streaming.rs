//! Flows leave the run when they are over (issue 26: memory that follows the flows in flight):
//! rows taken during the run, rows of a run that keeps every flow to the end, and Poisson flows
//! drawn as the run reaches them all give the same flow table and summary.


use crate::common::*;
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

/// A k = 4 fat tree (flows between pods hash onto one of four paths, by flow number) with a
/// Poisson workload, `middle`, and a two-flow list after it: the trace's flows are numbered
/// between the Poisson flows and the list's, as an eager plan numbered them.
fn fat_tree_with(middle: &str) -> Scenario {
    let text = format!(
        r#"
seed = 9
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
min_rto = "1ms"
[run]
duration = "6ms"
[[workload]]
kind = "poisson"
rate = 100000.0
size = "20KB"
stop = "4ms"
{middle}
[[workload]]
kind = "flows"
flows = [{{ src = 3, dst = 12, size = "50KB", start = "1ms" }}, {{ src = 12, dst = 3, size = "50KB", start = "1ms" }}]
"#
    );
    parse_toml(&text, None).expect("valid scenario")
}

/// A trace row: src, dst, size_bytes (`None`: long-lived), start_s, deadline_s.
type Row = (u32, u32, Option<u64>, f64, Option<f64>);

/// Rows of a trace in start order: bursts of flows at the same instant (ties keep file order),
/// sizes 1-40 KB, some deadlines, one long-lived flow.
fn trace_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for i in 0..600_u32 {
        let src = (i * 7) % 16;
        let dst = (src + 1 + (i * 5) % 15) % 16;
        let size = (i != 17).then_some(1_000 + u64::from(i * 613) % 40_000);
        let start = f64::from(i / 3) * 2e-5;
        let deadline = (i % 4 == 0 && size.is_some()).then_some(0.003);
        rows.push((src, dst, size, start, deadline));
    }
    rows
}

#[test]
fn a_trace_read_as_the_run_goes_gives_the_results_of_the_same_flows_listed() {
    let dir = std::env::temp_dir().join(format!("incast-stream-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.csv");
    let mut csv = String::from("src,dst,size_bytes,start_s,deadline_s\n");
    let mut listed = Vec::new();
    for (src, dst, size, start, deadline) in trace_rows() {
        let opt = |v: Option<String>| v.unwrap_or_default();
        csv.push_str(&format!("{src},{dst},{},{start},{}\n", opt(size.map(|s| s.to_string())), opt(deadline.map(|d| d.to_string()))));
        let size = size.map_or(String::new(), |s| format!(", size_bytes = {s}"));
        let deadline = deadline.map_or(String::new(), |d| format!(", deadline_s = {d}"));
        listed.push(format!("{{ src = {src}, dst = {dst}, start_s = {start}{size}{deadline} }}"));
    }
    std::fs::write(&path, csv).unwrap();
    let streamed = fat_tree_with(&format!("[[workload]]\nkind = \"trace\"\npath = {:?}\n", path.to_str().unwrap()));
    let eager = fat_tree_with(&format!("[[workload]]\nkind = \"flows\"\nflows = [{}]\n", listed.join(", ")));
    let (a, b) = (incast_sim::run(&streamed).expect("runs"), incast_sim::run(&eager).expect("runs"));
    assert!(a.flows.len() > 900 && a.flows.iter().filter(|f| f.workload == 1).count() == 600);
    assert!(a.flows.iter().any(|f| f.workload == 1 && f.finish_s.is_some()));
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.ports, b.ports);
    assert_eq!(without_wall_time(&a), without_wall_time(&b));

    // A file changed after the check (here cut short) stops the run naming the workload's path.
    std::fs::write(&path, "src,dst,size_bytes,start_s\n0,1,1000,0\n").unwrap();
    let mut sim = Simulation::new(&streamed).expect("the first row still reads");
    let e = loop {
        match sim.step(10_000) {
            Ok(false) => {}
            Ok(true) => panic!("ran to the end on a trace cut short"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.path, "workload[1].path");
    assert!(e.message.contains("changed since the scenario was checked") && e.message.contains("ends after 1 flows, where the check counted 600"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Homa computes its priorities from the sizes of its workloads (`transport/homa/sizes.rs`):
/// a trace read as the run goes gives it the sizes the same flows listed give, so the runs agree.
#[test]
fn homa_over_a_streamed_trace_runs_as_over_the_same_flows_listed() {
    let dir = std::env::temp_dir().join(format!("incast-stream-homa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.csv");
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    let mut listed = Vec::new();
    for (src, dst, size, start, _) in trace_rows().into_iter().filter(|r| r.2.is_some()).take(300) {
        let size = size.expect("sized");
        csv.push_str(&format!("{src},{dst},{size},{start}\n"));
        listed.push(format!("{{ src = {src}, dst = {dst}, start_s = {start}, size_bytes = {size} }}"));
    }
    std::fs::write(&path, csv).unwrap();
    let homa = |workload: String| {
        let text = format!(
            "seed = 4\n[topology]\nkind = \"star\"\nhosts = 16\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [switch]\npriority_classes = 8\n[transport]\nprotocol = \"homa\"\n[[workload]]\n{workload}\n"
        );
        incast_sim::run(&parse_toml(&text, None).expect("valid scenario")).expect("runs")
    };
    let streamed = homa(format!("kind = \"trace\"\npath = {:?}", path.to_str().unwrap()));
    let eager = homa(format!("kind = \"flows\"\nflows = [{}]", listed.join(", ")));
    assert_eq!(streamed.flows.len(), 300);
    assert!(streamed.flows.iter().all(|f| f.finish_s.is_some()), "every message delivered");
    assert_eq!(streamed.flows, eager.flows);
    assert_eq!(without_wall_time(&streamed), without_wall_time(&eager));
    std::fs::remove_dir_all(&dir).ok();
}
