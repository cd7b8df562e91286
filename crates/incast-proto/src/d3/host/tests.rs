//! Scripted exchanges with one D3 sender: hand-built feedback and ACKs, whole packets checked.

use super::*;
use crate::d3::rate::HEADER_ONLY_PACKET_BYTES;
use crate::tcp::{TcpConfig, MSS_BYTES};
use crate::time::BitsPerSec;

const MSS: u64 = MSS_BYTES as u64;

const RTO: Duration = Duration::from_ms(10);
/// 100 Mbps: 3750 B on the wire per 300 us interval: two full segments (1500 B each with
/// their 40 B of headers, the first also carrying the 22 B request) and 728 B over.
const MBPS_100: Rate = 12_500_000;

fn us(t: u64) -> Instant {
    Instant::ZERO + Duration::from_us(t)
}

fn config() -> D3Config {
    D3Config::new(
        TcpConfig {
            min_rto: RTO,
            ..TcpConfig::default()
        },
        BitsPerSec::GBPS,
    )
}

fn sender_with(config: D3Config, size: Option<u64>, deadline_us: Option<u64>) -> D3Sender {
    D3Sender::new(config, size, deadline_us.map(us), Instant::ZERO)
}

fn sender(size: Option<u64>, deadline_us: Option<u64>) -> D3Sender {
    sender_with(config(), size, deadline_us)
}

/// incast's repair: requests paced to the base rate.
fn pacing_requests() -> D3Config {
    D3Config {
        pace_requests: true,
        ..config()
    }
}

fn quenching() -> D3Config {
    D3Config {
        quench: true,
        ..config()
    }
}

fn drain(s: &mut D3Sender, now: Instant) -> Vec<D3Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// Sequence numbers of the data segments, in segments.
fn seqs(segs: &[D3Segment]) -> Vec<u64> {
    segs.iter().map(|s| s.data.seq / MSS).collect()
}

/// Feedback from one router.
fn fb(rate: Rate) -> Feedback {
    let mut alloc = [0; MAX_HOPS];
    alloc[0] = rate;
    Feedback { hops: 1, alloc }
}

fn ack_at(acked: u64, ts_echo: Instant) -> AckSegment {
    AckSegment::plain(acked, false, ts_echo)
}

/// At `now`, the answer to the request sent at `request_ts`: cumulative ACK `acked` bytes
/// and one router's allocation `rate`; returns the burst it releases.
fn answer(
    s: &mut D3Sender,
    now: Instant,
    acked: u64,
    request_ts: Instant,
    rate: Rate,
) -> Vec<D3Segment> {
    s.handle_ack(now, &ack_at(acked, request_ts), Some(&fb(rate)));
    drain(s, now)
}

#[test]
fn new_first_poll_header_only_syn_asks_size_over_deadline() {
    let mut s = sender(Some(100_000), Some(10_000));
    let segs = drain(&mut s, us(0));
    assert_eq!(segs.len(), 1);
    let syn = segs[0];
    assert!(syn.is_header_only());
    assert_eq!((syn.data.seq, syn.data.ts), (0, us(0)));
    assert_eq!(u64::from(syn.wire_bytes()), HEADER_ONLY_PACKET_BYTES);
    // Section 4.1: r = s / d, s on the wire: 100 KB in 69 segments with 40 B of headers each,
    // 102_760 B over 10 ms.
    let expected = CongestionHeader {
        syn: true,
        desired: 10_276_000,
        ..CongestionHeader::default()
    };
    assert_eq!(syn.header, Some(expected));
    assert_eq!(s.poll_timeout(), Some(us(0) + RTO));
    let st = s.stats();
    assert_eq!((st.rate_requests, st.header_only_packets), (1, 1));
    // No data before the SYN/ACK's feedback, however long it takes.
    assert!(drain(&mut s, us(5_000)).is_empty());
}

#[test]
fn syn_no_deadline_or_rcpdc_asks_zero() {
    let mut s = sender(Some(100_000), None);
    assert_eq!(drain(&mut s, us(0))[0].header.unwrap().desired, 0);
    let mut s = sender(None, Some(10_000));
    assert_eq!(drain(&mut s, us(0))[0].header.unwrap().desired, 0);
    let rcpdc = D3Config {
        deadline_aware: false,
        ..config()
    };
    let mut s = sender_with(rcpdc, Some(100_000), Some(10_000));
    assert_eq!(drain(&mut s, us(0))[0].header.unwrap().desired, 0);
}

#[test]
fn synack_feedback_burst_of_rate_times_rtt_request_on_first_packet() {
    let mut s = sender(Some(100_000), Some(10_000));
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(300), 0, us(0), MBPS_100);
    // 12.5 MB/s x 300 us = 3750 B: 1522 + 1500 for two full segments, 728 B carried over.
    assert_eq!(seqs(&burst), vec![0, 1]);
    assert!(burst.iter().all(|b| b.data.len == MSS_BYTES));
    assert_eq!(s.budget_bytes(), 728);
    assert_eq!(s.srtt(), Some(Duration::from_us(300)));
    assert_eq!(s.interval_rtt(), Some(Duration::from_us(300)));
    assert_eq!(s.sending_rate(), MBPS_100);
    // (102_760 - 3750) B / (10 ms - 300 us - 2 x 300 us).
    let expected = CongestionHeader {
        desired: 10_880_219,
        prev_desired: 10_276_000,
        prev_alloc: fb(MBPS_100).alloc,
        ..CongestionHeader::default()
    };
    assert_eq!(burst[0].header, Some(expected));
    assert_eq!(burst[0].wire_bytes(), 1500 + D3_HEADER_BYTES);
    assert_eq!(burst[1].header, None);
    assert_eq!(s.stats().intervals, 1);
}

#[test]
fn interval_60mbps_300us_carries_unused_allocation_over() {
    // Section 5: at 60 Mbps and 300 us one 1500 B packet per RTT would be only 40 Mbps.
    // With the carry-over the flow sends one or two segments an interval.
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    let mut request_ts = us(0);
    let mut per_interval = Vec::new();
    for k in 1..=20 {
        let now = us(300 * k);
        let snd_nxt = s.snd_nxt();
        let burst = answer(&mut s, now, snd_nxt, request_ts, 7_500_000);
        request_ts = now;
        per_interval.push(burst.len());
    }
    assert_eq!(&per_interval[..6], &[1, 1, 2, 1, 2, 1]);
    // 20 x 2250 B = 45_000 B allocated on the wire: 20 requests of 22 B and 29 full
    // segments of 1500 B, not 20.
    assert_eq!(per_interval.iter().sum::<usize>(), 29);
    assert_eq!(s.budget_bytes(), 45_000 - 20 * 22 - 29 * 1500);
}

#[test]
fn paused_flow_header_only_requests_accrue_time_at_base_rate() {
    let mut s = sender(Some(100_000), Some(20_000));
    let _ = drain(&mut s, us(0));
    let mut desired = s.desired_rate();
    for k in 1..=4 {
        let burst = answer(&mut s, us(300 * k), 0, us(300 * (k - 1)), BASE_GRANT);
        assert_eq!(burst.len(), 1);
        assert!(burst[0].is_header_only());
        let h = burst[0].header.unwrap();
        // Section 4.2: low assignments make the desired rate increase.
        assert!(h.desired > desired, "{} <= {desired}", h.desired);
        desired = h.desired;
    }
    let st = s.stats();
    assert_eq!((st.paused_intervals, st.segments_sent), (4, 0));
    // Three paused intervals have ended.
    assert_eq!(st.time_at_base_rate, Duration::from_us(900));
    let burst = answer(&mut s, us(1500), 0, us(1200), MBPS_100);
    assert_eq!(seqs(&burst), vec![0, 1]);
    assert_eq!(s.stats().time_at_base_rate, Duration::from_us(1200));
}

#[test]
fn pause_is_the_base_grant_not_a_grant_compared_with_the_request() {
    // 100 KB over 40 ms asks for 2.57 MB/s on the wire. A grant of one unit (1 MB/s, 300 B per
    // 300 us interval) is less than asked, but it is a grant: the flow is not paused. It sends
    // its request alone every RTT, as the paper's hosts do, until the grant has paid for a
    // segment (1500 B, the fifth interval; the 22 B of request it carries are repaid from the
    // next).
    let mut s = sender(Some(100_000), Some(40_000));
    let _ = drain(&mut s, us(0));
    let mut per_interval = Vec::new();
    for k in 1..=8 {
        let burst = answer(&mut s, us(300 * k), 0, us(300 * (k - 1)), 1_000_000);
        assert_eq!(burst.len(), 1, "one request per RTT");
        per_interval.push(burst[0].data.len > 0);
    }
    assert_eq!(per_interval, [false, false, false, false, true, false, false, false]);
    assert_eq!(s.stats().paused_intervals, 0);
    // The base grant is a pause, whatever the flow asked for.
    let mut s = sender(Some(100_000), Some(20_000));
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(300), 0, us(0), BASE_GRANT);
    assert!(burst[0].is_header_only());
    // So it is for a flow without a deadline, which asks for nothing.
    let mut s = sender(Some(100_000), None);
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(300), 0, us(0), BASE_GRANT);
    assert!(burst[0].is_header_only());
}

#[test]
fn needed_rate_formula_counts_unacked_and_floors_time_left_at_rtt() {
    let rtt = Duration::from_us(300);
    let mut s = sender(Some(100_000), Some(10_000));
    // 102_760 B on the wire / (10 ms - 600 us).
    assert_eq!(s.needed_rate(us(0), 0, rtt), Some(10_931_914));
    // (102_760 - 3750) B / (10 ms - 1 ms - 600 us).
    assert_eq!(s.needed_rate(us(1_000), 3_750, rtt), Some(11_786_904));
    // Acknowledged bytes no longer count; sent but unacknowledged ones still do: 60 KB in
    // 42 segments, 61_680 B on the wire.
    s.seq.set_sequence_for_test(40_000, 60_000);
    assert_eq!(s.needed_rate(us(1_000), 0, rtt), Some(7_342_857));
    // Under three RTTs left, and past the deadline: all of it in the next RTT.
    assert_eq!(s.needed_rate(us(9_500), 0, rtt), Some(205_600_000));
    assert_eq!(s.needed_rate(us(12_000), 0, rtt), Some(205_600_000));
    assert_eq!(s.needed_rate(us(0), 70_000, rtt), Some(0));
    assert_eq!(sender(Some(1), None).needed_rate(us(0), 0, rtt), None);
}

#[test]
fn rcpdc_every_request_asks_zero_and_never_quenches() {
    let rcpdc = D3Config {
        deadline_aware: false,
        quench: true,
        ..config()
    };
    let mut s = sender_with(rcpdc, Some(100_000), Some(1_000));
    let _ = drain(&mut s, us(0));
    // Long past the deadline, still going, still asking for nothing but the fair share.
    let burst = answer(&mut s, us(5_000), 0, us(0), MBPS_100);
    assert_eq!(burst[0].header.unwrap().desired, 0);
    assert!(!s.quenched());
}

#[test]
fn fin_on_interval_covering_the_rest_returns_allocation() {
    let mut s = sender(Some(2_000), None);
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(300), 0, us(0), MBPS_100);
    assert_eq!(
        burst.iter().map(|b| b.data.len).collect::<Vec<_>>(),
        vec![MSS_BYTES, 540]
    );
    let expected = CongestionHeader {
        fin: true,
        desired: 0,
        prev_desired: 0,
        prev_alloc: fb(MBPS_100).alloc,
        ..CongestionHeader::default()
    };
    assert_eq!(burst[0].header, Some(expected));
    assert_eq!(burst[1].header, None);
    // The FIN's answer allocates nothing new and starts no interval.
    s.handle_ack(us(600), &ack_at(2_000, us(300)), Some(&Feedback::default()));
    assert!(s.is_complete() && !s.quenched());
    assert_eq!(s.completed_at(), Some(us(600)));
    assert_eq!(s.poll_timeout(), None);
    assert!(drain(&mut s, us(600)).is_empty());
    assert_eq!(s.stats().intervals, 1);
}

#[test]
fn fin_then_tail_loss_rto_resends_without_header() {
    let mut s = sender(Some(2_000), None);
    let _ = drain(&mut s, us(0));
    let _ = answer(&mut s, us(300), 0, us(0), MBPS_100);
    // The FIN (with the first segment) arrives, the 540 B tail is lost.
    s.handle_ack(us(600), &ack_at(MSS, us(300)), Some(&Feedback::default()));
    assert!(drain(&mut s, us(600)).is_empty());
    let due = s.poll_timeout().unwrap();
    assert_eq!(due, us(600) + RTO);
    s.handle_timeout(due);
    let segs = drain(&mut s, due);
    assert_eq!(segs.len(), 1);
    assert_eq!((segs[0].data.seq, segs[0].data.len), (MSS, 540));
    assert!(segs[0].data.retransmission && segs[0].header.is_none());
    assert_eq!(s.poll_timeout(), Some(due + RTO.saturating_mul(2)));
    s.handle_ack(due + Duration::from_us(300), &ack_at(2_000, due), None);
    assert!(s.is_complete());
    let st = s.stats();
    assert_eq!(
        (st.timeouts, st.retransmitted_bytes, st.rate_requests),
        (1, 540, 2)
    );
}

#[test]
fn quench_deadline_passed_sends_header_only_fin() {
    let mut s = sender_with(quenching(), Some(100_000), Some(1_000));
    let syn = drain(&mut s, us(0));
    assert_eq!(syn[0].header.unwrap().desired, 102_760_000);
    // The SYN/ACK comes back after the deadline.
    let burst = answer(&mut s, us(1_200), 0, us(0), MBPS_100);
    assert_eq!(burst.len(), 1);
    assert!(burst[0].is_header_only());
    let expected = CongestionHeader {
        fin: true,
        desired: 0,
        prev_desired: 102_760_000,
        prev_alloc: fb(MBPS_100).alloc,
        ..CongestionHeader::default()
    };
    assert_eq!(burst[0].header, Some(expected));
    assert!(s.quenched() && s.is_complete());
    assert_eq!(s.completed_at(), Some(us(1_200)));
    assert_eq!(s.poll_timeout(), None);
    s.handle_ack(us(1_500), &ack_at(0, us(1_200)), Some(&fb(MBPS_100)));
    assert!(drain(&mut s, us(1_500)).is_empty());
}

#[test]
fn quench_desired_above_uplink_after_pause() {
    // 1 MB (1_027_400 B on the wire) in 8.5 ms needs 120.9 MB/s, under the 125 MB/s uplink;
    // after one paused RTT it needs 1_027_400 B / (8.5 ms - 900 us) = 135.2 MB/s.
    let mut s = sender_with(quenching(), Some(1_000_000), Some(8_500));
    assert_eq!(drain(&mut s, us(0))[0].header.unwrap().desired, 120_870_588);
    let burst = answer(&mut s, us(300), 0, us(0), BASE_GRANT);
    assert!(burst[0].header.unwrap().fin);
    assert!(s.quenched());
    // Without quenching the flow goes on, asking for all its NIC can send (135.2 MB/s could
    // not be sent anyway).
    let mut s = sender(Some(1_000_000), Some(8_500));
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(300), 0, us(0), BASE_GRANT);
    let h = burst[0].header.unwrap();
    assert_eq!((h.fin, h.desired), (false, 125_000_000));
    assert!(!s.quenched());
}

#[test]
fn quench_at_syn_impossible_flow_sends_nothing() {
    let mut s = sender_with(quenching(), Some(1_000_000), Some(1_000));
    assert!(drain(&mut s, us(0)).is_empty());
    assert!(s.quenched() && s.is_complete());
    assert_eq!(s.stats().rate_requests, 0);
}

#[test]
fn rto_and_lost_request_go_back_n_on_next_interval() {
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    assert_eq!(
        seqs(&answer(&mut s, us(300), 0, us(0), MBPS_100)),
        vec![0, 1]
    );
    // Segment 0 arrives, 1 is lost; interval 2 (728 + 3750 B) sends 2 and 3, and then
    // nothing at all comes back.
    assert_eq!(
        seqs(&answer(&mut s, us(600), MSS, us(300), MBPS_100)),
        vec![2, 3]
    );
    assert_eq!(s.budget_bytes(), 1_456);
    let due = s.poll_timeout().unwrap();
    assert_eq!(due, us(600) + RTO);
    s.handle_timeout(due);
    let st = s.stats();
    assert_eq!((st.timeouts, st.request_timeouts), (1, 1));
    assert_eq!(s.snd_nxt(), MSS);
    assert_eq!(s.rto(), RTO.saturating_mul(2));
    // The request goes again, header-only; 1456 B buy no 1500 B segment.
    let resent = drain(&mut s, due);
    assert_eq!(resent.len(), 1);
    assert!(resent[0].is_header_only());
    assert_eq!(resent[0].header.unwrap().prev_alloc, fb(MBPS_100).alloc);
    // Its answer repeats ACK 1 (no duplicate) and opens the next interval: go-back-N from
    // segment 1 within 1456 + 3750 B, the request on the first retransmission.
    let now = due + Duration::from_us(300);
    let burst = answer(&mut s, now, MSS, due, MBPS_100);
    assert_eq!(seqs(&burst), vec![1, 2, 3]);
    assert!(burst.iter().all(|b| b.data.retransmission));
    assert!(burst[0].header.is_some() && burst[1].header.is_none());
    let st = s.stats();
    assert_eq!((st.fast_retransmits, st.retransmitted_bytes), (0, 3 * MSS));
}

#[test]
fn fast_retransmit_third_dupack_once_paid_from_budget() {
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    // 50 MB/s x 300 us = 15_000 B on the wire: nine segments (1522 + 8 x 1500), 1478 B
    // over.
    assert_eq!(answer(&mut s, us(300), 0, us(0), 50_000_000).len(), 9);
    // Segment 1 is lost. Segment 0's answer opens interval 2: 9..=18, 1456 B over.
    assert_eq!(answer(&mut s, us(600), MSS, us(300), 50_000_000).len(), 10);
    for i in 0..2 {
        s.handle_ack(us(601 + i), &ack_at(MSS, us(300)), None);
    }
    assert!(drain(&mut s, us(602)).is_empty());
    s.handle_ack(us(603), &ack_at(MSS, us(300)), None);
    let rexmit = drain(&mut s, us(603));
    assert_eq!(seqs(&rexmit), vec![1]);
    assert!(rexmit[0].data.retransmission && rexmit[0].header.is_none());
    assert_eq!(s.budget_bytes(), 1_456 - 1_500);
    for i in 0..10 {
        s.handle_ack(us(604 + i), &ack_at(MSS, us(300)), None);
    }
    assert!(drain(&mut s, us(620)).is_empty());
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn header_only_feedback_ack_never_duplicate() {
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    let _ = answer(&mut s, us(300), 0, us(0), MBPS_100);
    // Segment 1 is lost; the flow is then paused, and every answer repeats ACK 1.
    for k in 2..=6 {
        let burst = answer(&mut s, us(300 * k), MSS, us(300 * (k - 1)), BASE_GRANT);
        assert!(burst.len() == 1 && burst[0].is_header_only());
    }
    assert_eq!(s.stats().fast_retransmits, 0);
    // Plain duplicates still count; the retransmission waits for the pause to end.
    for i in 0..3 {
        s.handle_ack(us(1_801 + i), &ack_at(MSS, us(300)), None);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(drain(&mut s, us(1_803)).is_empty());
    // 728 B carried through the pause and 3750 B: the request on segment 2, then the
    // retransmission of 1; 1456 B buy no third segment.
    let burst = answer(&mut s, us(2_100), MSS, us(1_800), MBPS_100);
    assert_eq!(seqs(&burst), vec![2, 1]);
    assert!(burst[1].data.retransmission);
}

#[test]
fn lost_syn_resent_without_syn_flag_stale_answer_ignored() {
    let mut s = sender(Some(100_000), Some(50_000));
    let _ = drain(&mut s, us(0));
    s.handle_timeout(us(0) + RTO - Duration::from_ps(1));
    assert!(drain(&mut s, us(1)).is_empty());
    s.handle_timeout(us(0) + RTO);
    let resent = drain(&mut s, us(10_000));
    assert_eq!(resent.len(), 1);
    // Routers before the loss counted the SYN: no SYN flag, the SYN's 2.06 MB/s as r(t) so
    // that D is updated rather than counted twice, the base grant held everywhere, and a
    // fresh need: 102_760 B on the wire over the 40 ms left is 2.57 MB/s.
    let expected = CongestionHeader {
        desired: 2_569_000,
        prev_desired: 2_055_200,
        ..CongestionHeader::default()
    };
    assert_eq!(resent[0].header, Some(expected));
    assert_eq!(s.stats().request_timeouts, 1);
    // The first SYN was only slow: its answer echoes an older timestamp and is ignored.
    assert!(answer(&mut s, us(10_100), 0, us(0), MBPS_100).is_empty());
    assert_eq!((s.sending_rate(), s.stats().intervals), (0, 0));
    let burst = answer(&mut s, us(10_300), 0, us(10_000), MBPS_100);
    assert_eq!(seqs(&burst), vec![0, 1]);
}

#[test]
fn handle_timeout_early_or_idle_is_noop() {
    let mut s = sender(Some(100_000), None);
    s.handle_timeout(us(1_000_000));
    let _ = drain(&mut s, us(0));
    let before = (s.stats(), s.poll_timeout(), s.snd_nxt(), s.rto());
    s.handle_timeout(us(0) + RTO - Duration::from_ps(1));
    assert_eq!((s.stats(), s.poll_timeout(), s.snd_nxt(), s.rto()), before);
    assert!(drain(&mut s, us(1)).is_empty());
}

#[test]
fn zero_bytes_complete_at_once_long_lived_never() {
    let mut s = sender(Some(0), None);
    assert!(s.is_complete());
    assert!(drain(&mut s, us(0)).is_empty());
    assert_eq!(s.completed_at(), Some(us(0)));
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    let _ = answer(&mut s, us(300), 0, us(0), MBPS_100);
    s.handle_ack(us(600), &ack_at(2 * MSS, us(300)), None);
    assert!(!s.is_complete());
}

#[test]
fn feedback_without_routers_grants_uplink() {
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    s.handle_ack(us(10), &ack_at(0, us(0)), Some(&Feedback::default()));
    assert_eq!(s.sending_rate(), 125_000_000);
    // 125 MB/s x 10 us = 1250 B: not yet a full segment with its request (1522 B). As the
    // paper's host, the request leaves at once, alone; the grant pays the segment next RTT.
    let first = drain(&mut s, us(10));
    assert_eq!(first.len(), 1);
    assert!(first[0].is_header_only() && first[0].header.is_some());
    assert_eq!(answer(&mut s, us(20), 0, us(10), 125_000_000).len(), 1);
}

#[test]
fn feedback_without_routers_with_paced_requests_waits_to_ride_on_a_segment() {
    let mut s = sender_with(pacing_requests(), None, None);
    let _ = drain(&mut s, us(0));
    s.handle_ack(us(10), &ack_at(0, us(0)), Some(&Feedback::default()));
    assert_eq!(s.sending_rate(), 125_000_000);
    // 125 MB/s x 10 us = 1250 B: not yet a full segment with its request (1522 B), which the
    // grant pays for 2.176 us later.
    assert!(drain(&mut s, us(10)).is_empty());
    let due = us(10) + Duration::from_ps(2_176_000);
    assert_eq!(s.poll_timeout(), Some(due));
    s.handle_timeout(due);
    let burst = drain(&mut s, due);
    assert_eq!(seqs(&burst), vec![0]);
    assert!(burst[0].header.is_some());
}

#[test]
fn receive_window_limits_flight() {
    let c = D3Config {
        tcp: TcpConfig {
            receive_window_bytes: Some(2 * MSS),
            ..config().tcp
        },
        ..config()
    };
    let mut s = sender_with(c, None, None);
    let _ = drain(&mut s, us(0));
    assert_eq!(
        seqs(&answer(&mut s, us(300), 0, us(0), 50_000_000)),
        vec![0, 1]
    );
    s.handle_ack(us(400), &ack_at(MSS, us(300)), None);
    assert_eq!(seqs(&drain(&mut s, us(400))), vec![2]);
}

#[test]
fn paused_on_a_short_path_asks_every_rtt() {
    // The paper's host: a paused flow sends its header-only request as soon as the feedback to
    // the last one arrives, here every 20 us (fifteen times the 62 B per 300 us the routers
    // count for it).
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    for k in 1..=3 {
        s.handle_ack(us(20 * k), &ack_at(0, us(20 * (k - 1))), Some(&fb(BASE_GRANT)));
        let next = drain(&mut s, us(20 * k));
        assert_eq!(next.len(), 1, "request {k}");
        assert!(next[0].is_header_only() && next[0].header.is_some());
    }
}

#[test]
fn paused_on_a_short_path_with_paced_requests_waits_for_the_base_rate() {
    // On a 20 us path a paused flow would ask every 20 us, fifteen times what the routers
    // budget for it (62 B per 300 us): its next request waits until 300 us after the last.
    let mut s = sender_with(pacing_requests(), None, None);
    let _ = drain(&mut s, us(0));
    assert!(drain(&mut s, us(20)).is_empty());
    s.handle_ack(us(20), &ack_at(0, us(0)), Some(&fb(BASE_GRANT)));
    assert!(drain(&mut s, us(20)).is_empty(), "paced, not sent at once");
    // 62 B at 206_667 B/s.
    let due = us(0) + Duration::from_ps(62 * 1_000_000_000_000 / 206_667);
    assert_eq!(s.poll_timeout(), Some(due));
    s.handle_timeout(us(299));
    assert!(drain(&mut s, us(299)).is_empty());
    s.handle_timeout(us(300));
    let next = drain(&mut s, us(300));
    assert_eq!(next.len(), 1);
    assert!(next[0].is_header_only() && next[0].header.is_some());
    // Answered with a real grant, the flow sends at once: pacing is for the base grant only.
    let burst = answer(&mut s, us(320), 0, us(300), 125_000_000);
    assert!(!burst.is_empty() && burst[0].data.len > 0);
}

#[test]
fn paced_request_timer_clears_once_due_even_if_not_polled() {
    // A driver whose NIC is full fires the timer but cannot poll: the due pacing timer must
    // not keep the flow's next timeout in the past (a busy loop for the driver). Nothing else
    // is pending: the request waits for the driver's next poll.
    let mut s = sender_with(pacing_requests(), None, None);
    let _ = drain(&mut s, us(0));
    s.handle_ack(us(20), &ack_at(0, us(0)), Some(&fb(BASE_GRANT)));
    assert!(s.poll_timeout().is_some());
    s.handle_timeout(us(300));
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(drain(&mut s, us(400)).len(), 1);
}

#[test]
fn late_flow_pursues_its_remaining_bytes_at_most_its_nic_rate() {
    // 200 KB due in 2 ms, without quenching: 205_480 B on the wire, 102.74 MB/s at the SYN.
    // Paused, with the RTT at 1 ms, it asks for all of it within the next RTT, 205.5 MB/s, more
    // than its NIC can send: its NIC's 125 MB/s. Past its deadline it keeps asking (Section
    // 6.1.3: hosts "pursue intractable deadlines" unless they quench).
    let mut s = sender(Some(200_000), Some(2_000));
    assert_eq!(drain(&mut s, us(0))[0].header.unwrap().desired, 102_740_000);
    let burst = answer(&mut s, us(1_000), 0, us(0), BASE_GRANT);
    assert_eq!(burst[0].header.unwrap().desired, 125_000_000);
    let burst = answer(&mut s, us(2_000), 0, us(1_000), BASE_GRANT);
    assert_eq!(burst[0].header.unwrap().desired, 125_000_000);
    let burst = answer(&mut s, us(3_000), 0, us(2_000), BASE_GRANT);
    assert_eq!(burst[0].header.unwrap().desired, 125_000_000);
    assert!(!s.quenched());
}

#[test]
fn one_segment_base_grant_sends_one_segment_every_rtt() {
    // D2TCP Section 4.2.1: "We set D3's base rate to be one segment per RTT".
    let c = D3Config {
        base_grant: BaseGrant::OneSegment,
        base_rate: 5_000_000,
        ..config()
    };
    let mut s = sender_with(c, None, None);
    let _ = drain(&mut s, us(0));
    for k in 0..3 {
        let burst = answer(&mut s, us(20 * (k + 1)), k * MSS, us(20 * k), BASE_GRANT);
        assert_eq!(seqs(&burst), vec![k], "RTT {k}");
        assert!(burst[0].header.is_some());
    }
}

#[test]
fn one_segment_base_grant_with_paced_requests_paces_to_the_base_rate() {
    // D2TCP Section 4.2.1: D3's base rate is one segment per RTT. Here the routers count
    // 1500 B per 300 us for it (5 MB/s).
    let c = D3Config {
        base_grant: BaseGrant::OneSegment,
        base_rate: 5_000_000,
        ..pacing_requests()
    };
    let mut s = sender_with(c, None, None);
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(20), 0, us(0), BASE_GRANT);
    assert_eq!(seqs(&burst), vec![0]);
    assert!(burst[0].header.is_some());
    assert_eq!(s.sending_rate(), 5_000_000);
    // The segment and its request, 1522 B at 5 MB/s, leave no more often than every 304.4 us.
    s.handle_ack(us(40), &ack_at(MSS, us(20)), Some(&fb(BASE_GRANT)));
    assert!(drain(&mut s, us(40)).is_empty());
    assert_eq!(s.poll_timeout(), Some(us(20) + Duration::from_ps(304_400_000)));
    let due = s.poll_timeout().unwrap();
    s.handle_timeout(due);
    assert_eq!(seqs(&drain(&mut s, due)), vec![1]);
}

#[test]
fn rate_pacing_spreads_the_interval_at_the_allocated_rate() {
    // Section 4.1 read literally, "sends data at this rate for a RTT": at 50 MB/s a 1500 B
    // segment leaves every 30 us, the first (with the request, 1522 B) at once.
    let c = D3Config {
        pacing: Pacing::Rate,
        ..config()
    };
    let mut s = sender_with(c, None, None);
    let _ = drain(&mut s, us(0));
    let first = answer(&mut s, us(300), 0, us(0), 50_000_000);
    assert_eq!(seqs(&first), vec![0]);
    let next = s.poll_timeout().unwrap();
    assert_eq!(next, us(300) + Duration::from_ps(30_440_000));
    s.handle_timeout(next);
    assert_eq!(seqs(&drain(&mut s, next)), vec![1]);
    // The interval's 15_000 B on the wire still all go, one segment at a time.
    let mut sent = 2;
    while let Some(t) = s.poll_timeout().filter(|&t| t < us(600)) {
        s.handle_timeout(t);
        sent += drain(&mut s, t).len();
    }
    assert_eq!(sent, 9);
}

#[test]
fn budget_counts_bytes_on_the_wire() {
    // The allocation is a share of the link, which headers take too: 15_000 B at 50 MB/s over
    // 300 us buy the request's segment (1500 + 22 B) and eight more of 1500 B, not ten.
    let mut s = sender(None, None);
    let _ = drain(&mut s, us(0));
    let burst = answer(&mut s, us(300), 0, us(0), 50_000_000);
    let wire: u32 = burst.iter().map(D3Segment::wire_bytes).sum();
    assert_eq!((burst.len(), wire), (9, 13_522));
    assert_eq!(s.budget_bytes(), 15_000 - 13_522);
}

#[test]
fn flow_acknowledged_before_its_fin_still_sends_it() {
    // The routers count a flow until its FIN returns its allocation: a flow whose last bytes
    // are acknowledged before the feedback that lets it send the FIN must still send it.
    let mut s = sender(Some(3_000), None);
    let _ = drain(&mut s, us(0));
    // A grant that pays for one segment with its request (1522 B in 300 us): no FIN yet.
    let burst = answer(&mut s, us(300), 0, us(0), 5_073_334);
    assert_eq!(seqs(&burst), vec![0]);
    assert!(!burst[0].header.unwrap().fin);
    // The rest goes out (a retransmission path, say) and everything is acknowledged by the ACK
    // that also answers the request.
    s.seq.set_sequence_for_test(0, 3_000);
    s.handle_ack(us(600), &ack_at(3_000, us(300)), Some(&fb(MBPS_100)));
    assert_eq!(s.completed_at(), Some(us(600)));
    assert!(!s.is_complete(), "its FIN has not left");
    let fin = drain(&mut s, us(600));
    assert_eq!(fin.len(), 1);
    let h = fin[0].header.unwrap();
    assert!(fin[0].is_header_only() && h.fin);
    assert_eq!(h.prev_alloc, fb(MBPS_100).alloc);
    assert!(s.is_complete());
    assert_eq!(s.poll_timeout(), None);
}
