//! ns-3.44's DCTCP after a retransmission timeout (issue 24), one key at a time: an ECN-Echo
//! on the ACK of the timer's resend enters the CWR state (`ecn_cut_after_timeout`), the cut of
//! the one-segment window has no floor (`ecn_cut_floor` 0), a window below one segment waits
//! for the RTO (`sub_segment_window = "wait"`), and a receiver counts CE only above its highest
//! marked segment (`ce_sequence_check`). Together they stall a flow until a second timeout,
//! the 22-23 ms cluster of ns-3's flow times on the D2TCP paper's fabric. Scripted exchanges
//! in smoltcp's style; segment numbers are in MSS units.

use crate::cc::{CaState, CcKind, CongestionControl};
use crate::tcp::{AckSegment, DataSegment, Stack, SubSegmentWindow, TcpConfig, TcpReceiver, TcpSender, MSS_BYTES};
use crate::time::{Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;
const RTO: Duration = Duration::from_ms(10);

fn us(t: u64) -> Instant {
    Instant::ZERO + Duration::from_us(t)
}

/// The `ns3` stack with 1460 B segments, no options and no handshake, so that segment numbers
/// are byte offsets / MSS and nothing precedes the data; min RTO 10 ms.
fn ns3() -> TcpConfig {
    TcpConfig {
        mss_bytes: MSS_BYTES,
        timestamps: false,
        handshake: false,
        min_rto: RTO,
        ..Stack::Ns3.tcp_config()
    }
}

fn drain(s: &mut TcpSender, now: Instant) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(now)).map(|seg| seg.seq / MSS).collect()
}

/// A cumulative ACK of everything below segment `n`, arriving at `now` for a segment sent
/// 100 us earlier.
fn ack(now: Instant, n: u64, ece: bool) -> AckSegment {
    AckSegment::plain(n * MSS, ece, now - Duration::from_us(100))
}

/// A 10-segment DCTCP flow sent as its initial window, whose last four segments are lost: the
/// first six are acknowledged without marks, nothing else arrives, and the timer fires and
/// resends segment 6. Returns the sender and the time of the timeout.
fn timed_out(config: TcpConfig) -> (TcpSender, Instant) {
    let mut s = TcpSender::new(config, CongestionControl::new(CcKind::dctcp()), Some(10 * MSS), true, None, us(0));
    assert_eq!(drain(&mut s, us(0)), (0..10).collect::<Vec<_>>());
    for n in 1..=6 {
        s.handle_ack(us(100 + n), &ack(us(100 + n), n, false));
    }
    let due = s.poll_timeout().expect("data outstanding arms the timer");
    assert_eq!(due, us(106) + RTO);
    s.handle_timeout(due);
    assert_eq!((s.stats().timeouts, s.cwnd_bytes()), (1, MSS));
    assert_eq!(drain(&mut s, due), vec![6]);
    (s, due)
}

/// `timed_out`, then the resend of 6 is acknowledged with an ECN-Echo (it met a queue above K).
fn echo_after_timeout(config: TcpConfig) -> (TcpSender, Instant) {
    let (mut s, due) = timed_out(config);
    let ssthresh = s.ssthresh_bytes();
    let now = due + Duration::from_us(100);
    s.handle_ack(now, &ack(now, 7, true));
    if !config.ecn_cut_after_timeout {
        assert_eq!(s.ssthresh_bytes(), ssthresh);
    }
    (s, now)
}

#[test]
fn after_timeout_ecn_echo_enters_cwr_and_cuts_the_one_segment_window() {
    let (s, _) = echo_after_timeout(ns3());
    let cc = s.congestion_control();
    assert_eq!(cc.state(), CaState::Cwr { end: 10 * MSS });
    // ns-3's TcpDctcp::GetSsThresh: (1 - alpha / 2) x cwnd, alpha still 1: its first window
    // closes only when the initial window is acknowledged (`ns3_bookkeeping`).
    let alpha = cc.dctcp_alpha().unwrap();
    assert_eq!(alpha, 1.0);
    assert_eq!(s.ssthresh_bytes(), (MSS as f64 * (1.0 - alpha / 2.0)) as u64);
    assert_eq!(s.ssthresh_bytes(), 730);
}

#[test]
fn after_timeout_ecn_echo_ignored_without_ecn_cut_after_timeout() {
    let (mut s, now) = echo_after_timeout(TcpConfig { ecn_cut_after_timeout: false, ..ns3() });
    // The timeout cut for the data outstanding at it: the echo only feeds alpha, and slow
    // start goes on towards the ssthresh the timeout set.
    assert_eq!(s.congestion_control().state(), CaState::Open);
    assert_eq!(s.cwnd_bytes(), 2 * MSS);
    assert_eq!(drain(&mut s, now), vec![7, 8]);
}

#[test]
fn cwr_after_timeout_floor_zero_cuts_below_one_segment() {
    let floored = |segments| {
        let (s, _) = echo_after_timeout(TcpConfig { ecn_cut_floor_segments: segments, ..ns3() });
        s.ssthresh_bytes()
    };
    assert_eq!(floored(0), 730);
    // A floor never raises the window above what the timeout left: one segment.
    assert_eq!(floored(1), MSS);
    assert_eq!(floored(2), MSS);
}

/// `echo_after_timeout`, then PRR's first step of the reduction lets one segment out (7), and
/// its ACK brings cwnd down to ssthresh with nothing in flight.
fn sub_segment_window(rule: SubSegmentWindow) -> (TcpSender, Instant) {
    let (mut s, now) = echo_after_timeout(TcpConfig { sub_segment_window: rule, ..ns3() });
    assert_eq!(s.cwnd_bytes(), MSS);
    assert_eq!(drain(&mut s, now), vec![7]);
    let now = now + Duration::from_us(100);
    s.handle_ack(now, &ack(now, 8, false));
    assert_eq!((s.cwnd_bytes(), s.pipe_bytes()), (730, 0));
    (s, now)
}

#[test]
fn cwr_sub_segment_window_wait_stalls_until_the_second_timeout() {
    let (mut s, now) = sub_segment_window(SubSegmentWindow::Wait);
    // 730 B of window, 2 segments left: ns-3's silly-window check holds them back.
    assert_eq!(drain(&mut s, now), Vec::<u64>::new());
    let due = s.poll_timeout().expect("segments 8 and 9 are outstanding");
    assert_eq!(due, now + RTO);
    assert_eq!(drain(&mut s, due - Duration::from_us(1)), Vec::<u64>::new());
    s.handle_timeout(due);
    assert_eq!(s.stats().timeouts, 2);
    // The second timeout cuts ssthresh again, from the 730 B window, with no floor.
    assert_eq!(s.ssthresh_bytes(), 365);
    assert_eq!((s.cwnd_bytes(), s.congestion_control().state()), (MSS, CaState::Open));
    assert_eq!(drain(&mut s, due), vec![8]);
}

#[test]
fn cwr_sub_segment_window_send_sends_one_segment_with_nothing_in_flight() {
    let (mut s, now) = sub_segment_window(SubSegmentWindow::Send);
    assert_eq!(drain(&mut s, now), vec![8]);
    // With 8 in flight the 730 B window holds 9 back until 8 is acknowledged.
    assert_eq!(drain(&mut s, now), Vec::<u64>::new());
    s.handle_ack(now + Duration::from_us(100), &ack(now + Duration::from_us(100), 9, false));
    assert_eq!(drain(&mut s, now + Duration::from_us(100)), vec![9]);
    s.handle_ack(now + Duration::from_us(200), &ack(now + Duration::from_us(200), 10, false));
    assert!(s.is_complete());
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn sub_segment_window_wait_sends_a_tail_that_fits() {
    // Everything left from the segment on fits the window: ns-3 sends it.
    let wait = SubSegmentWindow::Wait;
    assert!(wait.allows(0, 775, 700, 700, MSS));
    assert!(!wait.allows(0, 775, 700, 701 + MSS, MSS));
    assert!(!wait.allows(0, 775, MSS, 2 * MSS, MSS));
    // At least one MSS of room: a full segment goes, whatever follows.
    assert!(wait.allows(MSS, 2 * MSS, MSS, 5 * MSS, MSS));
    assert!(!wait.allows(MSS + 1, 2 * MSS, MSS, 5 * MSS, MSS));
    // `send` lets one segment out of an empty network whatever the window.
    assert!(SubSegmentWindow::Send.allows(0, 775, MSS, 2 * MSS, MSS));
    assert!(!SubSegmentWindow::Send.allows(1, 775, MSS, 2 * MSS, MSS));
}

/// Segment `n`, CE-marked or not, delivered; the ECN-Echo of the one ACK it calls for.
fn echo(r: &mut TcpReceiver, n: u64, ce: bool) -> bool {
    let seg = DataSegment { ce, ect: true, ..DataSegment::numbered(n, MSS_BYTES) };
    r.handle_data(us(100 + n), &seg);
    let acks: Vec<_> = std::iter::from_fn(|| r.poll_ack(Instant::ZERO)).collect();
    assert_eq!(acks.len(), 1, "segment {n}");
    acks[0].ece
}

#[test]
fn receiver_marked_resend_below_marked_data_echoed_unmarked_with_ce_sequence_check() {
    let script = |check| {
        let config = TcpConfig { ce_sequence_check: check, sack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&config);
        // 0 and 1 arrive, 2 is lost, 3 and 4 arrive marked; the resend of 2 is marked, then
        // 5 arrives unmarked and 6 marked.
        [(0, false), (1, false), (3, true), (4, true), (2, true), (5, false), (6, true)]
            .map(|(n, ce)| echo(&mut r, n, ce))
    };
    // ns-3 (`m_ecnCESeq`): the resend of 2 starts below the marked 4, so it counts as unmarked.
    assert_eq!(script(true), [false, false, true, true, false, false, true]);
    assert_eq!(script(false), [false, false, true, true, true, false, true]);
}

#[test]
fn receiver_marked_resend_above_every_marked_segment_echoed_with_ce_sequence_check() {
    // The trace: the lost tail's first segment, resent by the timer into a queue above
    // K, starts above every marked segment, so its ACK carries the echo that enters CWR.
    let config = TcpConfig { ce_sequence_check: true, sack: true, ..TcpConfig::default() };
    let mut r = TcpReceiver::new(&config);
    let echoes = [(0, true), (1, false), (2, true), (3, true)].map(|(n, ce)| echo(&mut r, n, ce));
    assert_eq!(echoes, [true, false, true, true]);
    // A marked duplicate of 3 is not above 3.
    assert!(!echo(&mut r, 3, true));
}

/// The handshake's third packet (`handshake_ack`): ns-3 answers the SYN/ACK with a pure ACK
/// (tcp-socket-base.cc line 2373) before its initial window; incast's other stacks fold it into
/// the first data segment. The receiver takes the pure ACK without answering it.
#[test]
fn handshake_ack_goes_out_alone_before_the_initial_window() {
    let script = |handshake_ack| {
        let config = TcpConfig { handshake: true, handshake_ack, ..ns3() };
        let mut s = TcpSender::new(config, CongestionControl::new(CcKind::dctcp()), Some(3 * MSS), true, None, us(0));
        let syn = s.poll_transmit(us(0)).expect("the SYN");
        assert!(syn.syn && s.poll_transmit(us(0)).is_none());
        s.handle_ack(us(100), &AckSegment::plain(0, false, us(0)));
        let sent: Vec<DataSegment> = std::iter::from_fn(|| s.poll_transmit(us(100))).collect();
        sent.iter().map(|seg| (seg.seq / MSS, seg.len, seg.ect)).collect::<Vec<_>>()
    };
    let full = MSS_BYTES;
    // The pure ACK is ECN-capable with ns-3's DCTCP (`ect_control_packets`), as its ACKs are.
    assert_eq!(script(true), vec![(0, 0, true), (0, full, true), (1, full, true), (2, full, true)]);
    assert_eq!(script(false), vec![(0, full, true), (1, full, true), (2, full, true)]);
    let mut r = TcpReceiver::new(&ns3());
    let pure_ack = DataSegment { ect: true, ..DataSegment::numbered(0, 0) };
    r.handle_data(us(150), &pure_ack);
    assert!(r.poll_ack(us(150)).is_none(), "a pure ACK is not acknowledged");
}
