//! D2TCP end to end through the engine (D2TCP Section 3): deadline-aware back-off on a marking
//! switch, and exactly DCTCP when no flow has a deadline.


use crate::common::*;
use incast_proto::cc::{D2tcpConfig, FixedD, RemainingBytes, TcUnits};
use incast_proto::time::{Duration, Instant};
use incast_sim::results::{FlowRecord, RunResults, Summary};
use incast_sim::scenario::*;

fn run(s: &Scenario) -> RunResults {
    let r = incast_sim::run(s).expect("valid scenario");
    assert_conservation(&r);
    r
}

/// Two 2 MB flows from hosts 1 and 2 into host 0, started together, with these deadlines. Alone,
/// a flow needs about 16.5 ms at 1 Gbps; sharing fairly, both finish after about 33 ms. The 1 MB
/// buffer never overflows, so only ECN marks (K = 20 packets) steer the windows.
fn two_flows(protocol: Protocol, deadlines: [Option<Duration>; 2]) -> Scenario {
    let flow = |src, deadline| ExplicitFlow { src, dst: 0, size_bytes: Some(2_000_000), start: Instant::ZERO, deadline };
    let flows = vec![flow(1, deadlines[0]), flow(2, deadlines[1])];
    scenario(star(3), protocol, 1_000_000, vec![FlowListWorkload::new(flows).into()])
}

fn fct(f: &FlowRecord) -> f64 {
    f.finish_s.expect("completed") - f.start_s
}

const TIGHT: Duration = Duration::from_ms(25);
const LAX: Duration = Duration::from_ms(200);

#[test]
fn d2tcp_near_deadline_flow_takes_more_bandwidth_and_meets_it_where_dctcp_misses() {
    // DCTCP shares fairly whatever the deadlines: both finish together, the tight one late.
    let dctcp = run(&two_flows(Protocol::Dctcp, [Some(TIGHT), Some(LAX)]));
    let (tight, lax) = (fct(&dctcp.flows[0]), fct(&dctcp.flows[1]));
    assert!((tight / lax - 1.0).abs() < 0.01, "DCTCP: {tight} s vs {lax} s");
    assert_eq!(dctcp.flows[0].met_deadline, Some(false));
    // D2TCP: the tight flow has d > 1 and backs off less, the lax one d = 1/2 and backs off
    // more (D2TCP Section 3), so the tight flow finishes well before the other.
    let d2 = run(&two_flows(Protocol::D2tcp, [Some(TIGHT), Some(LAX)]));
    let (tight, lax) = (fct(&d2.flows[0]), fct(&d2.flows[1]));
    assert!(tight < 0.8 * lax, "D2TCP: tight {tight} s vs lax {lax} s");
    assert_eq!(d2.flows[0].met_deadline, Some(true), "tight flow took {tight} s");
    assert_eq!(d2.flows[1].met_deadline, Some(true));
    // Priority without waste: the link stays busy, so the last byte arrives when it did with DCTCP.
    let dctcp_last = fct(&dctcp.flows[1]);
    assert!((lax / dctcp_last - 1.0).abs() < 0.01, "last completion {lax} s vs DCTCP {dctcp_last} s");
    assert_eq!(d2.summary.packets_dropped, 0);
    assert!(d2.flows.iter().all(|f| f.protocol == "d2tcp"));
}

#[test]
fn d2tcp_late_flow_follows_past_deadline_choice() {
    // Flow 0's 5 ms deadline is infeasible (it needs 16.5 ms alone). Once it is late, `max`
    // keeps it at d = 2, `one` makes it DCTCP (still ahead of the lax flow at d = 1/2), `min`
    // puts it level with the lax flow.
    let late_fct = |past: FixedD| {
        let mut s = two_flows(Protocol::D2tcp, [Some(Duration::from_ms(5)), Some(LAX)]);
        s.sections.d2tcp = D2tcpConfig { past_deadline: past, ..s.sections.d2tcp };
        let r = run(&s);
        assert_eq!(r.flows[0].met_deadline, Some(false));
        fct(&r.flows[0])
    };
    let (max, one, min) = (late_fct(FixedD::Max), late_fct(FixedD::One), late_fct(FixedD::Min));
    assert!(max < 0.95 * one && one < 0.95 * min, "late flow's FCT: max {max} s, one {one} s, min {min} s");
}

#[test]
fn d2tcp_tc_in_round_trips_pins_both_flows_at_the_cap_and_shares_like_dctcp() {
    // Tc in round trips against D in seconds: both flows have hundreds of round trips left against
    // 0.025 s and 0.2 s, so d = n = 2 for both, and neither backs off more than the other: the
    // tight one misses its deadline, as under DCTCP. Once it is late it has d = 1 against the lax
    // one's 2, so it even finishes a little after the lax one (with Tc in time, 20% before it).
    let mut s = two_flows(Protocol::D2tcp, [Some(TIGHT), Some(LAX)]);
    s.sections.d2tcp = D2tcpConfig { tc_units: TcUnits::RoundTrips, ..s.sections.d2tcp };
    let r = run(&s);
    let (tight, lax) = (fct(&r.flows[0]), fct(&r.flows[1]));
    assert!(tight > lax && tight < 1.05 * lax, "round trips: tight {tight} s vs lax {lax} s");
    assert_eq!(r.flows[0].met_deadline, Some(false));
}

#[test]
fn d2tcp_nothing_left_changes_nothing_once_each_flow_is_its_own_connection() {
    // With B = unsent bytes, d takes the `nothing_left` value from the moment the last byte has
    // left; a cut then shapes only what a loss would resend, and without loss nothing at all.
    let table_with = |nothing_left: FixedD| {
        let mut s = two_flows(Protocol::D2tcp, [Some(TIGHT), Some(LAX)]);
        s.sections.d2tcp = D2tcpConfig { remaining: RemainingBytes::Unsent, nothing_left, ..s.sections.d2tcp };
        run(&s)
    };
    let (min, max) = (table_with(FixedD::Min), table_with(FixedD::Max));
    assert!(min.summary.ecn_marked > 0, "the switch marked");
    assert_eq!(table(&min), table(&max));
}

/// Everything but the protocol name.
fn table(r: &RunResults) -> Vec<FlowRecord> {
    r.flows.iter().map(|f| FlowRecord { protocol: "", ..*f }).collect()
}

#[test]
fn d2tcp_without_deadlines_is_dctcp_bit_for_bit() {
    // Two long transfers, and 20-sender incast rounds whose marks make every flow cut.
    let burst = FlowBurstWorkload {
        size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
        rounds: 5,
        round_starts: RoundStarts::AfterCompletion { gap: Duration::from_us(100) },
        ..FlowBurstWorkload::new(0, (1..=20).collect())
    }
    .into();
    for workload in [two_flows(Protocol::Dctcp, [None, None]).workloads.remove(0), burst] {
        let mut s = scenario(star(21), Protocol::Dctcp, 100_000, vec![workload]);
        let dctcp = run(&s);
        s.transport.protocol = Protocol::D2tcp;
        let d2 = run(&s);
        assert!(dctcp.summary.ecn_marked > 0, "the switch marked");
        assert_eq!(table(&d2), table(&dctcp));
        // Every counter too, but the wall-clock time and the transport settings (which name the
        // protocol).
        let counters = |s: &Summary| Summary { wall_time_s: 0.0, transport: String::new(), ..s.clone() };
        assert_eq!(counters(&d2.summary), counters(&dctcp.summary));
        assert!(d2.flows.iter().all(|f| f.protocol == "d2tcp"));
    }
}

#[test]
fn d2tcp_coexists_with_tcp_through_the_workload_override() {
    // D2TCP Section 4.2.5 mixes TCP and D2TCP applications: here a TCP flow and a D2TCP flow
    // with a deadline, each workload naming its protocol.
    let flow = |src| ExplicitFlow { src, dst: 0, size_bytes: Some(500_000), start: Instant::ZERO, deadline: Some(LAX) };
    let workload = |src, protocol| {
        let options = FlowOptions { protocol: Some(protocol), ..FlowOptions::default() };
        FlowListWorkload { options, ..FlowListWorkload::new(vec![flow(src)]) }.into()
    };
    let s = scenario(star(3), Protocol::Dctcp, 1_000_000, vec![workload(1, Protocol::Tcp), workload(2, Protocol::D2tcp)]);
    let r = run(&s);
    let names: Vec<&str> = r.flows.iter().map(|f| f.protocol).collect();
    assert_eq!(names, ["tcp", "d2tcp"]);
    assert_eq!(r.summary.flows_completed, 2);
}

#[test]
fn a_trace_follows_the_window_and_alpha_of_the_flows_asked_for() {
    let mut s = two_flows(Protocol::D2tcp, [Some(TIGHT), Some(LAX)]);
    s.output.traces = Some(TraceSpec { flows: vec![1], ..TraceSpec::default() });
    let r = run(&s);
    let t = r.traces.as_ref().expect("asked for");
    assert!(t.flow_id.iter().all(|&f| f == 1), "only flow 1");
    assert!(t.time_s.windows(2).all(|w| w[0] <= w[1]), "in time order");
    // A row only when something changed.
    let (cwnd, ssthresh, alpha) = (t.u64s("cwnd_bytes"), t.u64s("ssthresh_bytes"), t.f64s("alpha"));
    let rows: Vec<_> = (0..t.time_s.len()).map(|i| (cwnd[i], ssthresh[i], t.srtt_s[i], t.rto_s[i], alpha[i].map(f64::to_bits))).collect();
    assert!(rows.windows(2).all(|w| w[0] != w[1]));
    // The lax flow (d = 1/2) is marked and cut: its window falls and its alpha moves off 1.
    let cwnd: Vec<u64> = cwnd.iter().map(|c| c.expect("TCP family")).collect();
    assert!(cwnd.windows(2).any(|w| w[1] < w[0]), "a cut");
    assert!(alpha.iter().any(|a| a.is_some_and(|a| a < 1.0)));
    assert!(ssthresh.iter().any(Option::is_some) && t.u64s("rate_bytes_per_s").iter().all(Option::is_none));
    // Its cuts come far from its 200 ms deadline: d at the floor of 1/2.
    let (d, p) = (t.f64s("d2tcp_d"), t.f64s("d2tcp_p"));
    let cuts: Vec<(f64, f64, f64)> = (0..t.time_s.len()).filter_map(|i| Some((d[i]?, p[i]?, alpha[i]?))).collect();
    assert!(!cuts.is_empty());
    assert!(cuts.iter().all(|&(d, p, _)| d == 0.5 && (0.0..=1.0).contains(&p)), "{cuts:?}");
}
