//! D3 and RCPdc end to end through the engine (D3 Sections 4-6): real assertions on simulated
//! outcomes, each in the direction the paper reports. Magnitudes are compared with the paper in
//! the reproductions, not here.


use crate::common::*;
use incast_proto::time::{BitsPerSec, Duration, Instant};
use incast_sim::results::RunResults;
use incast_sim::scenario::*;

/// incast's repairs of D3 (docs/scenario.md, `[d3]`): the guarantees the tests below hold them to.
fn repaired(mut s: Scenario) -> Scenario {
    s.sections.d3 = D3Spec { quench: s.sections.d3.quench, ..D3Spec::of(D3Variant::Repaired) };
    s
}

fn run(s: &Scenario) -> RunResults {
    let r = incast_sim::run(s).expect("valid scenario");
    assert_conservation(&r);
    r
}

fn burst(senders: u32, seed: u64, protocol: Protocol) -> Scenario {
    let burst = FlowBurstWorkload {
        size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
        deadline: Some(DeadlineDist::Exponential { mean: Duration::from_ms(30), min: Duration::ZERO }),
        rounds: 5,
        round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(1) },
        ..FlowBurstWorkload::new(0, (1..=senders).collect())
    }
    .into();
    let mut s = scenario(star(senders + 1), protocol, 128_000, vec![burst]);
    s.seed = seed;
    s
}

#[test]
fn d3_flow_burst_of_40_senders_loses_nothing_and_completes() {
    // D3 Section 4.5: new flows pause one RTT and senders stay within their allocations, so a
    // 40-sender burst fits in a 128 KB buffer where TCP overflows it.
    let d3 = run(&burst(40, 1, Protocol::D3));
    assert_eq!(d3.summary.packets_dropped, 0);
    assert_eq!(d3.summary.flows_completed, d3.summary.flows);
    let tcp = run(&burst(40, 1, Protocol::Tcp));
    assert!(tcp.summary.packets_dropped > 0, "the same burst overflows TCP's buffer");
}

/// A fan-in of 150 six-kilobyte responses with 40 ms deadlines into host 0 of a 20 us star: each
/// asks for 150 KB/s, which the 8-bit header rounds up to its smallest unit (8 Mbps at 1 Gbps).
fn small_lax_fan_in(variant: D3Variant) -> Scenario {
    let burst = FlowBurstWorkload {
        size: SizeDist::Fixed(6_000),
        deadline: Some(DeadlineDist::Fixed(Duration::from_ms(40))),
        round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(1) },
        ..FlowBurstWorkload::new(0, (1..=150).map(|i| 1 + i % 10).collect())
    }
    .into();
    let mut s = scenario(star(11), Protocol::D3, 128_000, vec![burst]);
    s.sections.d3 = D3Spec::of(variant);
    s.run.duration = Some(Duration::from_secs(1));
    s
}

#[test]
fn d3_small_lax_requests_below_one_header_unit_are_served() {
    // 150 units exceed the link, so the router has no spare to add and grants exactly the
    // requests while it can. Those grants must carry data (a regression: they were read as
    // pauses, and every flow sat at header-only requests until the run ended). Not every
    // deadline is met: the floors alone over-allocate the link, and the queue that builds
    // costs some flows a 300 ms timeout.
    for variant in [D3Variant::Paper, D3Variant::Repaired] {
        let r = run(&small_lax_fan_in(variant));
        assert_eq!(r.summary.flows_completed, 150, "{variant:?}");
        assert!(r.summary.app_throughput.unwrap() > 0.5, "{variant:?}: {:?}", r.summary.app_throughput);
    }
}

#[test]
fn d3_paper_with_capacity_below_the_link_livelocks_on_its_own_requests() {
    // The paper's hosts and controller with C allowed down to a quarter of the link (the
    // repaired router's floor, not the paper's): every flow a router cannot serve sends a 62 B
    // request every RTT (Section 4.2), and on this 20 us path 150 of them offer 150 x 62 B per
    // 40 us, more than the link. u/T > C, so the printed controller drives C to the floor, where
    // the 150 base rates it counts (31.0 MB/s) fill it: every request is answered with the base
    // rate, for good. No flow finishes in 200 ms, five times the flows' 40 ms deadline (nor in a
    // second: the livelock has no end). Pacing requests to the base rate (one of incast's
    // repairs) is enough to break the livelock: every flow finishes within a second.
    let mut low_floor = small_lax_fan_in(D3Variant::Paper);
    low_floor.sections.d3.capacity_min = 0.25;
    low_floor.run.duration = Some(Duration::from_ms(200));
    let r = run(&low_floor);
    assert_eq!(r.summary.flows_completed, 0);
    assert!(r.summary.packets_delivered > 200_000, "the link carries requests: {:?}", r.summary);
    low_floor.sections.d3.pace_requests = true;
    low_floor.run.duration = Some(Duration::from_secs(1));
    let r = run(&low_floor);
    assert_eq!(r.summary.flows_completed, 150);
}

#[test]
fn d3_meets_at_least_as_many_deadlines_as_rcpdc_under_a_burst() {
    // D3 Section 6.1.1: deadline-aware allocation beats fair share (RCPdc) on the same flows.
    let met = |p: Protocol| -> f64 {
        (1..=4).map(|seed| run(&burst(30, seed, p)).summary.app_throughput.unwrap()).sum::<f64>() / 4.0
    };
    let (d3, rcpdc) = (met(Protocol::D3), met(Protocol::Rcpdc));
    assert!(d3 >= rcpdc, "D3 {d3:.3} vs RCPdc {rcpdc:.3}");
}

#[test]
fn multi_bottleneck_flows_share_each_bottleneck() {
    // D3 Section 6.2 on the Figure 8 testbed (hosts 1-6 of the paper are 0-5 here): 1->3, 2->3,
    // 4->3 share the downlink to host 3; 4->5 shares host 4's uplink with 4->3 and takes the rest.
    let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(125) };
    let pairs = vec![(0, 2), (1, 2), (3, 2), (3, 4)];
    let mut s = scenario(
        TopologySpec::D3Testbed { link },
        Protocol::D3,
        128_000,
        vec![LongFlowsWorkload::new(pairs).into()],
    );
    s.run.duration = Some(Duration::from_ms(300));
    let r = run(&s);
    let mbps: Vec<f64> = r.flows.iter().map(|f| f.delivered_bytes as f64 * 8.0 / 0.3 / 1e6).collect();
    let shared = &mbps[..3];
    let (lo, hi) = shared.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    assert!(hi - lo <= 0.1 * hi, "the three flows into host 3 share its downlink evenly: {mbps:?}");
    assert!(mbps[3] > 1.5 * hi, "the last flow takes what its uplink has left: {mbps:?}");
    assert_eq!(r.summary.packets_dropped, 0);
}

#[test]
fn d3_long_flows_keep_the_queue_short_where_dctcp_holds_k() {
    // D3 Section 6.2, Figure 16: D3's queue is a fraction of DCTCP's for the same long flows.
    let sampled = |p: Protocol| {
        let mut s = scenario(star(11), p, 1_000_000, vec![long_flows_into_host0(10)]);
        s.run.duration = Some(Duration::from_ms(200));
        s.output.queue_samples = Some(QueueSampling { interval: Duration::from_us(100), host_downlinks: vec![0], ports: vec![] });
        let r = run(&s);
        let mut q = r.queues[0].queue_bytes.clone();
        q.sort_unstable();
        q[q.len() / 2]
    };
    let (d3, dctcp) = (sampled(Protocol::D3), sampled(Protocol::Dctcp));
    assert!(d3 * 5 <= dctcp, "median queue: D3 {d3} B, DCTCP {dctcp} B");
}

#[test]
fn d3_runs_are_deterministic() {
    let a = run(&burst(20, 3, Protocol::D3));
    let b = run(&burst(20, 3, Protocol::D3));
    let rows = |r: &RunResults| r.flows.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>();
    assert_eq!(rows(&a), rows(&b));
}

#[test]
fn quenched_flows_end_the_run_and_the_round() {
    // D3 Section 6.1.3: hosts give up on hopeless flows. Their receivers never get every byte,
    // yet the run (which has no duration) must end and later rounds must start.
    let mut s = burst(40, 1, Protocol::D3);
    s.sections.d3.quench = true;
    let r = run(&s);
    let quenched = r.flows.iter().filter(|f| f.quenched).count();
    assert!(quenched > 0, "40 senders with exponential deadlines quench some flows");
    assert!(r.flows.iter().filter(|f| f.quenched).all(|f| f.finish_s.is_none() && f.met_deadline == Some(false)));
    assert_eq!(r.flows.iter().map(|f| f.round).max(), Some(4), "all five rounds ran");
    assert_eq!(r.summary.flows_completed as usize + quenched, r.flows.len());
}

// ---- Under load: no livelock, bounded stalls ----

/// 32 senders answer host 0 of a 1 Gbps star with Poisson arrivals for 0.3 s, exponential sizes
/// of mean 100 KB, 1000-packet buffers (the stall the D3/RCPdc issue reported): `load` is the
/// offered bytes over the link rate.
fn poisson_into_host0(protocol: Protocol, load: f64) -> Scenario {
    let deadline = (protocol == Protocol::D3)
        .then_some(DeadlineDist::Exponential { mean: Duration::from_ms(20), min: Duration::from_ms(3) });
    let arrivals = PoissonWorkload {
        destinations: Some(vec![0]),
        size: SizeDist::Exponential { mean: 100_000 },
        deadline,
        ..PoissonWorkload::new(load * 125e6 / 100e3, (1..=32).collect(), Instant::ZERO + Duration::from_ms(300))
    }
    .into();
    let link = LinkSpec { rate: GBPS, delay: Duration::from_us(125) };
    let mut s = scenario(TopologySpec::Star { hosts: 33, link }, protocol, 0, vec![arrivals]);
    s.switch.buffer = BufferSpec::PerPortPackets { packets: 1000 };
    // Ends when the last flow completes; the duration only turns a livelock into a failure.
    s.run = RunSpec { duration: Some(Duration::from_secs(5)), stop_after_finite_flows: true, ..RunSpec::default() };
    s.output.queue_samples = Some(QueueSampling { interval: Duration::from_ms(1), host_downlinks: vec![0], ports: vec![] });
    s
}

/// The router of host 0's downlink counts no flow that has left: at every sample, its N is at
/// most the flows alive then, plus those that finished within the last millisecond (their FIN
/// may still be on its way). A flow that never returned its allocation would stay in N.
fn assert_no_flow_leaks(r: &RunResults, what: &str) {
    let q = &r.queues[0];
    let counted = q.sampled("d3_flows");
    assert_eq!(counted.len(), q.time_s.len(), "{what}: the router samples its N every time");
    for (t, n) in q.time_s.iter().zip(counted) {
        let n = n.expect("sampled");
        let live = r.flows.iter().filter(|f| f.start_s <= *t && f.finish_s.is_none_or(|end| end > t - 1e-3)).count();
        assert!(n <= live as u64, "{what}: at {t:.3} s the router counts {n} flows, {live} alive");
    }
}

/// The most flows alive at once (each from its start to its finish).
fn most_concurrent(r: &RunResults) -> usize {
    let mut edges: Vec<(f64, i32)> = r
        .flows
        .iter()
        .flat_map(|f| [(f.start_s, 1), (f.finish_s.expect("finished"), -1)])
        .collect();
    edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    edges.iter().scan(0i32, |n, &(_, d)| { *n += d; Some(*n) }).max().unwrap_or(0) as usize
}

/// The longest a loss-free D3 or RCPdc flow can go without a new in-order byte at its receiver,
/// on one bottleneck port that held at most `flows` flows (docs/scenario.md, "[d3]"):
///
/// - three round trips, none longer than the base RTT plus a full buffer: the SYN's and the
///   one-RTT pause of a new flow (Section 4.5), or the RTT in which the flows that hold more than
///   the port's capacity give back their excess, and the delivery of the segment;
/// - the wait for the flow's turn when the port time-slices (its fair share, or the whole spare,
///   below one unit of the field; deadline demand above the capacity is such a case): at most as
///   many control intervals as the power of two at or above the flow count;
/// - the time the smallest grant, one unit of the 8-bit field (1 MB/s at 1 Gbps), takes to pay
///   for one full segment on the wire.
fn stall_bound(flows: usize, buffer_packets: u64) -> Duration {
    let rtt_max = Duration::from_us(500) + GBPS.tx_time(buffer_packets * 1_500);
    let turns = incast_proto::d3::CONTROL_INTERVAL.saturating_mul(flows.next_power_of_two() as u64);
    let segment_at_one_unit = Duration::from_us(1_500);
    rtt_max.saturating_mul(3) + turns + segment_at_one_unit
}

#[test]
fn repaired_rcpdc_and_d3_under_poisson_load_every_flow_finishes_within_the_stall_bound() {
    // The reported livelock: at an offered load of 0.7 and above RCPdc stopped completing flows
    // for good. Each run here has 0.3 s of arrivals and must end well before its 5 s cap with
    // every flow done, and no flow, with a deadline or not, may have gone longer than the bound
    // without progress.
    for protocol in [Protocol::Rcpdc, Protocol::D3] {
        for load in [0.5, 0.7, 0.8, 0.9, 0.95] {
            let r = run(&repaired(poisson_into_host0(protocol, load)));
            let what = format!("{protocol:?} at load {load}");
            assert_eq!(r.summary.flows_completed, r.summary.flows, "{what}: every flow finishes");
            assert_eq!(r.summary.packets_dropped, 0, "{what}: the bound is for loss-free paths");
            assert_no_flow_leaks(&r, &what);
            let bound = stall_bound(most_concurrent(&r), 1000).as_secs_f64();
            let worst = r.flows.iter().map(|f| f.max_stall_s.expect("every flow started")).fold(0.0, f64::max);
            assert!(worst <= bound, "{what}: a flow stalled {worst:.4} s, bound {bound:.4} s");
        }
    }
}

#[test]
fn repaired_rcpdc_many_long_flows_on_the_testbed_all_progress_and_keep_half_the_link() {
    // The reported collapse: RCPdc long flows from the two workers of rack 0 into its aggregator
    // got 77% of the link with 60 flows, 51% with 90 and 22% with 130, because the 8-bit field
    // rounded every paused flow's base rate up to a whole unit and fair shares under 1.5 units
    // to the pause. Now 60 and 90 flows get fair shares of one or two units with the truncated
    // remainder carried, and 130 flows (more than the 125 units of the field on 1 Gbps) are
    // time-sliced. What keeps them below the link is the capacity controller's equilibrium
    // with the queue that uncoordinated bursts leave at its update instants, and, when sliced,
    // the paused flows' requests (docs/results-d3.md): this test holds them above half the
    // link, and holds every flow to the stall bound.
    let link = LinkSpec { rate: GBPS, delay: Duration::from_us(125) };
    for n in [60u32, 90, 130] {
        let flows = (0..n)
            .map(|i| ExplicitFlow { src: 1 + i % 2, dst: 0, size_bytes: None, start: Instant::ZERO, deadline: None })
            .collect();
        let workload = FlowListWorkload::new(flows).into();
        let mut s = scenario(TopologySpec::D3Testbed { link }, Protocol::Rcpdc, 128_000, vec![workload]);
        s.run.duration = Some(Duration::from_ms(300));
        let r = run(&repaired(s));
        let bytes: u64 = r.flows.iter().map(|f| f.delivered_bytes).sum();
        let goodput = bytes as f64 * 8.0 / 0.3 / 1e9;
        assert!(goodput > 0.5, "{n} flows: goodput {goodput:.3} of the link");
        let bound = stall_bound(n as usize, 128_000 / 1_500).as_secs_f64();
        for f in &r.flows {
            let stall = f.max_stall_s.expect("started");
            assert!(stall <= bound, "{n} flows: flow {} stalled {stall:.4} s > {bound:.4} s", f.flow_id);
        }
    }
}

