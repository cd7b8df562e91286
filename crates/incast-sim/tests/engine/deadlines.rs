//! The engine's deadline verdict end to end (`FlowRecord::met_deadline`): met, missed, or unknown
//! when the deadline lies past the end of the run, and the summary's tally of it.


use crate::common::*;
use incast_proto::time::{Duration, Instant};
use incast_sim::results::RunResults;
use incast_sim::scenario::*;

fn run(s: &Scenario) -> RunResults {
    let r = incast_sim::run(s).expect("valid scenario");
    assert_conservation(&r);
    r
}

fn flow(src: u32, dst: u32, size_bytes: u64, start_ms: u64, deadline_ms: u64) -> ExplicitFlow {
    ExplicitFlow {
        src,
        dst,
        size_bytes: Some(size_bytes),
        start: Instant::ZERO + Duration::from_ms(start_ms),
        deadline: Some(Duration::from_ms(deadline_ms)),
    }
}

#[test]
fn run_judges_what_it_saw_and_leaves_deadlines_past_its_end_unknown() {
    // A 20 ms run on disjoint host pairs at 1 Gbps: 100 KB takes about 1 ms, 10 MB about 84 ms.
    let flows = vec![
        flow(1, 0, 100_000, 0, 50), // finishes in time
        flow(2, 3, 100_000, 0, 0),  // finishes after its zero deadline
        flow(4, 5, 10_000_000, 0, 10), // unfinished, its deadline inside the run: missed
        flow(6, 7, 10_000_000, 0, 50), // unfinished, its deadline past the end: unknown
        flow(8, 9, 100_000, 30, 5), // never started: due 35 ms, past the end: unknown
        ExplicitFlow { deadline: None, ..flow(2, 1, 100_000, 0, 0) }, // no deadline
    ];
    let mut s = scenario(star(10), Protocol::Dctcp, 1_000_000, vec![FlowListWorkload::new(flows).into()]);
    s.run.duration = Some(Duration::from_ms(20));
    let r = run(&s);
    assert_eq!(r.summary.sim_time_s, 0.02);
    let met: Vec<_> = r.flows.iter().map(|f| f.met_deadline).collect();
    assert_eq!(met, [Some(true), Some(false), Some(false), None, None, None]);
    assert!(r.flows[1].finish_s.is_some() && r.flows[2].finish_s.is_none() && r.flows[4].deadline_s == Some(0.035));
    assert_eq!((r.summary.deadline_flows, r.summary.deadline_unknown), (3, 2));
    assert_eq!(r.summary.app_throughput, Some(1.0 / 3.0));
}

#[test]
fn abandoned_flow_missed_though_its_deadline_lies_past_the_end() {
    // D3 quenching (Section 6.1.3): 10 MB in 10 ms needs 8 Gbps from a 1 Gbps NIC, so the host
    // gives up at once, and the run, with nothing left to do, ends before the deadline.
    let flows = vec![flow(1, 0, 10_000_000, 0, 10)];
    let mut s = scenario(star(2), Protocol::D3, 128_000, vec![FlowListWorkload::new(flows).into()]);
    s.sections.d3.quench = true;
    let r = run(&s);
    let f = &r.flows[0];
    assert!(f.quenched && f.finish_s.is_none(), "{f:?}");
    assert!(r.summary.sim_time_s < f.deadline_s.unwrap(), "the run ended at {} s", r.summary.sim_time_s);
    assert_eq!(f.met_deadline, Some(false));
    assert_eq!((r.summary.deadline_flows, r.summary.deadline_unknown, r.summary.app_throughput), (1, 0, Some(0.0)));
}
