//! The run's bounds at run time: a run that would pass its simulated-time horizon stops there and
//! says so, reports no time beyond it and ends in bounded wall time; limits only the run can see
//! (sample rows without a duration, flows drawn at random) fail the run with a `ResourceError`
//! naming the key, never an abort.


use std::time::Instant as WallClock;

use crate::common::*;
use incast_proto::time::{BitsPerSec, Duration, Instant};
use incast_sim::scenario::*;
use incast_sim::results::RunStatus;
use incast_sim::{Error, Simulation};

/// One 1 MB flow from host 1 to host 0 over 1 Mbps links: about 8 s of serialization.
fn slow_flow() -> Scenario {
    let mut s = scenario(star(2), Protocol::Tcp, 128_000, vec![]);
    s.topology = TopologySpec::Star { hosts: 2, link: LinkSpec { rate: BitsPerSec(1_000_000), delay: Duration::from_us(10) } };
    let flow = ExplicitFlow { src: 1, dst: 0, size_bytes: Some(1_000_000), start: Instant::ZERO, deadline: None };
    s.workloads = vec![FlowListWorkload::new(vec![flow]).into()];
    s
}

fn queue_sampling(every: Duration) -> OutputSpec {
    OutputSpec { queue_samples: Some(QueueSampling { interval: every, host_downlinks: vec![0], ports: vec![] }), flow_throughput_interval: None, capture: None, traces: None, offer_log: None }
}

#[test]
fn a_run_that_cannot_finish_stops_at_its_horizon_and_says_so() {
    let mut s = slow_flow();
    s.run.horizon = Duration::from_secs(2);
    s.output = queue_sampling(Duration::from_ms(100));
    let wall = WallClock::now();
    let r = incast_sim::run(&s).expect("runs");
    assert!(wall.elapsed().as_secs() < 30, "bounded wall time");
    assert!(r.summary.stopped_at_horizon);
    assert_eq!(r.summary.sim_time_s, 2.0);
    assert_eq!((r.summary.flows, r.summary.flows_completed), (1, 0));
    assert_eq!(r.flows[0].finish_s, None);
    assert!(r.flows[0].delivered_bytes > 100_000, "it ran until the horizon: {:?}", r.flows[0]);
    let samples = &r.queues[0].time_s;
    assert_eq!(samples.len(), 21, "one sample every 100 ms from 0 to the horizon inclusive");
    assert!(samples.iter().all(|&t| t <= 2.0));
    assert_conservation(&r);
}

#[test]
fn a_run_that_finishes_before_its_horizon_is_not_flagged() {
    let mut s = slow_flow();
    s.run.horizon = Duration::from_secs(60);
    let r = incast_sim::run(&s).expect("runs");
    assert!(!r.summary.stopped_at_horizon);
    assert_eq!(r.summary.flows_completed, 1);
    let finish = r.flows[0].finish_s.expect("finished");
    assert!((8.0..60.0).contains(&finish), "{finish}");
    assert_eq!(r.summary.sim_time_s, finish);
}

#[test]
fn a_duration_at_the_horizon_ends_the_run_normally() {
    let mut s = slow_flow();
    s.workloads.push(long_flows_into_host0(1));
    s.run.horizon = Duration::from_secs(1);
    s.run.duration = Some(Duration::from_secs(1));
    let r = incast_sim::run(&s).expect("runs");
    assert!(!r.summary.stopped_at_horizon, "a run that reaches its duration ends as planned");
    assert_eq!(r.summary.sim_time_s, 1.0);
}

#[test]
fn a_flow_that_never_delivers_stops_at_the_horizon_instead_of_spinning() {
    // Every data packet is dropped at a buffer smaller than one packet (which loading refuses;
    // a hand-built scenario can still ask for it): retransmission timers back off towards
    // max_rto and used to fire for ever once simulated time saturated.
    let mut s = slow_flow();
    s.switch.buffer = BufferSpec::PerPort { bytes: 100 };
    s.transport.tcp.max_rto = Duration::from_secs(1_000_000);
    s.run.horizon = Duration::from_secs(10_000);
    // The horizon alone: the progress watchdog would stop the run first (below).
    s.run.stall_after = StallAfter::Off;
    let wall = WallClock::now();
    let r = incast_sim::run(&s).expect("runs");
    assert!(wall.elapsed().as_secs() < 30, "bounded wall time");
    assert!(r.summary.stopped_at_horizon);
    assert_eq!(r.summary.status, RunStatus::Horizon);
    assert_eq!(r.summary.sim_time_s, 10_000.0);
    assert_eq!((r.flows[0].finish_s, r.flows[0].delivered_bytes), (None, 0));
    assert!(r.flows[0].max_stall_s.is_some_and(|s| s <= 10_000.0));
    // With it, the run stops as stalled once nothing has got through for its 10 s, and names
    // the buffer first.
    s.run.stall_after = StallAfter::Auto;
    let r = incast_sim::run(&s).expect("runs");
    assert_eq!((r.summary.status, r.summary.sim_time_s, r.summary.stopped_at_horizon), (RunStatus::Stalled, 10.0, false));
    assert_eq!(r.summary.stall.expect("why").keys[0], "switch.buffer");
}

#[test]
fn sample_rows_past_the_limit_fail_the_step_with_the_interval_named() {
    let mut s = slow_flow();
    s.output = queue_sampling(Duration::from_us(1));
    s.run.max_samples = 1_000;
    let mut sim = Simulation::new(&s).expect("builds");
    let e = loop {
        match sim.step(10_000) {
            Ok(false) => continue,
            Ok(true) => panic!("the run ended within 1000 samples"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.path, "output.queue_sample_interval");
    assert!(e.message.contains("`run.max_samples`"), "{e}");
    assert_eq!(sim.step(10).map_err(|e| e.path), Ok(true), "a failed run stays over");
    let r = sim.finish().expect("results up to the failure");
    assert_eq!(r.queues[0].time_s.len(), 1_000);
}

#[test]
fn random_arrivals_beyond_max_flows_are_a_resource_error_naming_the_rate() {
    let mut s = slow_flow();
    let arrivals = PoissonWorkload {
        size: SizeDist::Fixed(1_000),
        ..PoissonWorkload::new(1e6, vec![0, 1], Instant::ZERO + Duration::from_ms(10))
    };
    s.workloads = vec![arrivals.into()];
    s.run.max_flows = 100;
    match Simulation::new(&s).err().expect("10 000 arrivals expected") {
        Error::Resource(e) => {
            assert_eq!(e.path, "workload[0].rate");
            assert!(e.message.contains("limit of 100 flows (`run.max_flows`"), "{e}");
        }
        other => panic!("{other}"),
    }
}
