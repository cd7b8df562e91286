//! SACK loss recovery, receiver and sender together: the blocks a receiver reports (RFC 2018
//! Section 4), RFC 6675 recovery of several holes in one window with and without Proportional
//! Rate Reduction (RFC 6937), PRR for ECN reductions (the CWR state), limited transmit (RFC
//! 3042) and the partial-ACK retransmission of a lost tail; scripted exchanges in smoltcp's
//! style, then a property over random losses on a two-endpoint link.
//!
//! Segment numbers are in MSS units throughout: segment `n` is bytes `[n x MSS, (n + 1) x MSS)`.

use crate::tcp::harness::{limit, Pair};
use crate::tcp::{
    AckSegment, DataSegment, DelayedAck, EcnReduction, SackBlocks, TcpConfig, TcpReceiver, TcpSender, MSS_BYTES,
};
use crate::cc::{CaState, CcKind, CongestionControl};
use crate::time::{Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;
const RTO: Duration = Duration::from_ms(10);

fn us(t: u64) -> Instant {
    Instant::ZERO + Duration::from_us(t)
}

/// Segment `n` (full size), sent at `n` microseconds.
fn seg(n: u64) -> DataSegment {
    DataSegment::numbered(n, MSS_BYTES)
}

/// The ACK a receiver with `config` owes: everything below segment `ack`, the SACK `blocks`
/// (in segments, most recent first), the timestamp of segment `echo`, and on the wire the
/// header bytes of exactly that many blocks.
fn ack_of(config: &TcpConfig, ack: u64, blocks: &[(u64, u64)], echo: u64) -> AckSegment {
    let bytes: Vec<_> = blocks.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect();
    AckSegment {
        ack: ack * MSS,
        ece: false,
        ts_echo: us(echo),
        sack: SackBlocks::from_slice(&bytes),
        header_bytes: config.ack_header_bytes(blocks.len()) as u16,
    }
}

/// Delivers segment `n` and returns the ACKs it calls for.
fn deliver(r: &mut TcpReceiver, n: u64) -> Vec<AckSegment> {
    r.handle_data(us(100 + n), &seg(n));
    std::iter::from_fn(|| r.poll_ack(Instant::ZERO)).collect()
}

fn sack_receiver(timestamps: bool) -> (TcpConfig, TcpReceiver) {
    let config = TcpConfig { sack: true, timestamps, ..TcpConfig::default() };
    (config, TcpReceiver::new(&config))
}

#[test]
fn receiver_out_of_order_segments_report_their_range_first_then_most_recent_four() {
    let (c, mut r) = sack_receiver(false);
    // Four blocks fill the 40 B option space without timestamps: 40 + 4 + 4 x 8.
    assert_eq!(c.ack_header_bytes(4), 76);
    assert_eq!(deliver(&mut r, 0), vec![ack_of(&c, 1, &[], 0)]);
    assert_eq!(deliver(&mut r, 2), vec![ack_of(&c, 1, &[(2, 3)], 2)]);
    assert_eq!(deliver(&mut r, 4), vec![ack_of(&c, 1, &[(4, 5), (2, 3)], 4)]);
    assert_eq!(deliver(&mut r, 6), vec![ack_of(&c, 1, &[(6, 7), (4, 5), (2, 3)], 6)]);
    assert_eq!(deliver(&mut r, 8), vec![ack_of(&c, 1, &[(8, 9), (6, 7), (4, 5), (2, 3)], 8)]);
    // A fifth range: the least recently reported one, (2, 3), no longer fits.
    assert_eq!(deliver(&mut r, 10), vec![ack_of(&c, 1, &[(10, 11), (8, 9), (6, 7), (4, 5)], 10)]);
    // A duplicate of 6 triggers this ACK: its range moves to the front (RFC 2018 Section 4).
    assert_eq!(deliver(&mut r, 6), vec![ack_of(&c, 1, &[(6, 7), (10, 11), (8, 9), (4, 5)], 6)]);
    // 3 joins (2, 3) and (4, 5): one merged block first, the (4, 5) it absorbed gone.
    assert_eq!(deliver(&mut r, 3), vec![ack_of(&c, 1, &[(2, 5), (6, 7), (10, 11), (8, 9)], 3)]);
    // 1 fills the first hole: the cumulative ACK jumps over (2, 5), whose block disappears;
    // the others keep their order.
    assert_eq!(deliver(&mut r, 1), vec![ack_of(&c, 5, &[(6, 7), (10, 11), (8, 9)], 1)]);
    assert_eq!(deliver(&mut r, 5), vec![ack_of(&c, 7, &[(10, 11), (8, 9)], 5)]);
    // 9 bridges (8, 9) and (10, 11).
    assert_eq!(deliver(&mut r, 9), vec![ack_of(&c, 7, &[(8, 11)], 9)]);
    assert_eq!(deliver(&mut r, 7), vec![ack_of(&c, 11, &[], 7)]);
    assert_eq!(deliver(&mut r, 0), vec![ack_of(&c, 11, &[], 0)]);
    assert_eq!(r.bytes_received_in_order(), 11 * MSS);
}

#[test]
fn receiver_with_timestamps_reports_three_blocks_but_remembers_four() {
    let (c, mut r) = sack_receiver(true);
    assert_eq!(c.max_sack_blocks(), 3);
    // 40 B + 12 B of timestamps + 4 + 3 x 8 B of SACK.
    assert_eq!(c.ack_header_bytes(3), 80);
    assert_eq!(deliver(&mut r, 0), vec![ack_of(&c, 1, &[], 0)]);
    assert_eq!(ack_of(&c, 1, &[], 0).header_bytes, 52);
    assert_eq!(deliver(&mut r, 2), vec![ack_of(&c, 1, &[(2, 3)], 2)]);
    assert_eq!(deliver(&mut r, 4), vec![ack_of(&c, 1, &[(4, 5), (2, 3)], 4)]);
    assert_eq!(deliver(&mut r, 6), vec![ack_of(&c, 1, &[(6, 7), (4, 5), (2, 3)], 6)]);
    assert_eq!(deliver(&mut r, 8), vec![ack_of(&c, 1, &[(8, 9), (6, 7), (4, 5)], 8)]);
    assert_eq!(deliver(&mut r, 10), vec![ack_of(&c, 1, &[(10, 11), (8, 9), (6, 7)], 10)]);
    assert_eq!(deliver(&mut r, 3), vec![ack_of(&c, 1, &[(2, 5), (10, 11), (8, 9)], 3)]);
    // (6, 7), left out of the last ACK for room, is still among the most recently reported.
    assert_eq!(deliver(&mut r, 1), vec![ack_of(&c, 5, &[(10, 11), (8, 9), (6, 7)], 1)]);
}

#[test]
fn receiver_without_sack_out_of_order_acks_carry_no_blocks() {
    let c = TcpConfig::default();
    let mut r = TcpReceiver::new(&c);
    assert_eq!(deliver(&mut r, 0), vec![AckSegment::plain(MSS, false, us(0))]);
    assert_eq!(deliver(&mut r, 2), vec![AckSegment::plain(MSS, false, us(2))]);
    // A duplicate: the same ACK again, 40 B as any ACK without blocks.
    assert_eq!(deliver(&mut r, 4), vec![ack_of(&c, 1, &[], 4)]);
    assert_eq!(c.ack_header_bytes(0), 40);
}

/// One scripted ACK: (segment whose arrival triggers it, cumulative ACK, SACK blocks), in
/// segments.
type ScriptedAck = (u64, u64, &'static [(u64, u64)]);

/// The ACKs of a 20-segment window whose segments 2, 5 and 9 are lost, as a SACK receiver
/// sends them. The three retransmissions arrive last, in the order they were sent.
const THREE_HOLES: [ScriptedAck; 20] = [
    (0, 1, &[]),
    (1, 2, &[]),
    (3, 2, &[(3, 4)]),
    (4, 2, &[(3, 5)]),
    (6, 2, &[(6, 7), (3, 5)]),
    (7, 2, &[(6, 8), (3, 5)]),
    (8, 2, &[(6, 9), (3, 5)]),
    (10, 2, &[(10, 11), (6, 9), (3, 5)]),
    (11, 2, &[(10, 12), (6, 9), (3, 5)]),
    (12, 2, &[(10, 13), (6, 9), (3, 5)]),
    (13, 2, &[(10, 14), (6, 9), (3, 5)]),
    (14, 2, &[(10, 15), (6, 9), (3, 5)]),
    (15, 2, &[(10, 16), (6, 9), (3, 5)]),
    (16, 2, &[(10, 17), (6, 9), (3, 5)]),
    (17, 2, &[(10, 18), (6, 9), (3, 5)]),
    (18, 2, &[(10, 19), (6, 9), (3, 5)]),
    (19, 2, &[(10, 20), (6, 9), (3, 5)]),
    (2, 5, &[(10, 20), (6, 9)]),
    (5, 9, &[(10, 20)]),
    (9, 20, &[]),
];

#[test]
fn receiver_three_losses_acks_match_the_sender_script() {
    let (c, mut r) = sack_receiver(false);
    for &(arrived, cumulative, blocks) in &THREE_HOLES {
        let expected = ack_of(&c, cumulative, blocks, arrived);
        assert_eq!(deliver(&mut r, arrived), vec![expected], "segment {arrived}");
    }
}

fn drain(s: &mut TcpSender, now: Instant) -> Vec<DataSegment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// Sequence numbers of `segs`, in segments.
fn seqs(segs: &[DataSegment]) -> Vec<u64> {
    segs.iter().map(|s| s.seq / MSS).collect()
}

/// An ACK to a sender: cumulative ACK and SACK blocks in segments.
fn ack(cumulative: u64, blocks: &[(u64, u64)]) -> AckSegment {
    ack_of(&TcpConfig::default(), cumulative, blocks, 0)
}

/// A sender whose 20-segment flow is its initial window: everything is in flight at once, and
/// the window never grows, since the data rather than cwnd limits sending (RFC 7661).
fn window_of_20(prr: bool) -> TcpSender {
    let config = TcpConfig { sack: true, prr, initial_window_segments: 20, min_rto: RTO, ..TcpConfig::default() };
    TcpSender::new(config, CongestionControl::new(CcKind::NewReno), Some(20 * MSS), true, None, us(0))
}

/// Feeds `THREE_HOLES` to `s` and checks each row: (segments sent in response, cwnd after the
/// ACK, pipe after sending), in segments. Recovery must start on the fifth ACK (the third
/// duplicate) and end on the last, which covers the recovery point; the first segment it
/// sends must be the retransmission of 2.
fn run_three_holes(s: &mut TcpSender, expected: &[(&[u64], u64, u64); 20]) {
    let mut resent = Vec::new();
    let rows = THREE_HOLES.iter().zip(expected).enumerate();
    for (i, (&(arrived, cumulative, blocks), &(sent, cwnd, pipe))) in rows {
        let now = us(100 + i as u64);
        s.handle_ack(now, &ack(cumulative, blocks));
        assert_eq!(s.cwnd_bytes(), cwnd * MSS, "cwnd after {arrived} arrived");
        let segs = drain(s, now);
        assert_eq!(seqs(&segs), sent, "sent after {arrived} arrived");
        assert_eq!(s.pipe_bytes(), pipe * MSS, "pipe after {arrived} arrived");
        let in_recovery = s.congestion_control().in_recovery();
        assert_eq!(in_recovery, (4..19).contains(&i), "recovery after {arrived} arrived");
        if i == 4 {
            assert_eq!(
                segs[0],
                DataSegment {
                    seq: 2 * MSS,
                    len: MSS_BYTES,
                    header_bytes: 40,
                    ts: now,
                    ect: true,
                    ce: false,
                    retransmission: true,
                    syn: false,
                }
            );
        }
        resent.extend(segs.iter().filter(|seg| seg.retransmission).map(|seg| seg.seq / MSS));
    }
    assert_eq!(resent, vec![2, 5, 9]);
    assert!(s.is_complete());
    let st = s.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0));
    assert_eq!((st.retransmitted_bytes, st.segments_sent), (3 * MSS, 23));
    // RFC 6675 step 4.2: ssthresh = FlightSize / 2 at the third duplicate, 18 / 2 segments.
    assert_eq!(s.ssthresh_bytes(), 9 * MSS);
    assert_eq!(s.poll_timeout(), None);
}

/// RFC 6675 without PRR. Two duplicates leave IsLost (2) false (two segments SACKed above it,
/// not DupThresh = 3). The third enters recovery: ssthresh = cwnd = FlightSize / 2 = 9, and 2
/// goes out at once although pipe (SetPipe: the 14 unSACKed, not-lost segments 3..20) exceeds
/// cwnd (step 4.3). From then on NextSeg may send only while cwnd - pipe >= 1 segment: each
/// SACK takes one segment off the pipe, so 5 (lost since (6, 9) holds DupThresh segments
/// above it) waits until 12 arrives and pipe is 8, and 9 (lost once (10, 13) is SACKed) goes
/// on the next ACK. Nothing else is lost and no new data is left, so the rest of the window
/// sends nothing; the ACK for 20 reaches the recovery point (HighData = 20).
#[test]
fn sack_recovery_three_holes_resend_head_at_once_then_each_hole_once_as_pipe_allows() {
    let mut s = window_of_20(false);
    assert_eq!(seqs(&drain(&mut s, us(0))), (0..20).collect::<Vec<_>>());
    #[rustfmt::skip]
    let expected: [(&[u64], u64, u64); 20] = [
        (&[], 20, 19), (&[], 20, 18), (&[], 20, 17), (&[], 20, 16),
        // Third duplicate: 2 whatever the window.
        (&[2], 9, 15),
        (&[], 9, 14), (&[], 9, 12), (&[], 9, 11), (&[], 9, 10),
        (&[5], 9, 9), (&[9], 9, 9),
        (&[], 9, 8), (&[], 9, 7), (&[], 9, 6), (&[], 9, 5), (&[], 9, 4), (&[], 9, 3),
        // The retransmissions arrive: partial ACKs, then the full one.
        (&[], 9, 2), (&[], 9, 1), (&[], 9, 0),
    ];
    run_three_holes(&mut s, &expected);
}

/// The same ACKs with PRR (RFC 6937): RecoverFS = 18 (snd.nxt - snd.una at the third
/// duplicate) and ssthresh = 9, so while pipe > ssthresh each ACK allows
/// sndcnt = CEIL(prr_delivered x 9 / 18) - prr_out, one segment per two delivered, and
/// cwnd = pipe + sndcnt:
///
/// ```text
///   arrived         6    7    8   10   11   12   13
///   prr_delivered   1    2    3    4    5    6    7
///   pipe           14   14   12   12   11   10    9
///   sndcnt          1    0    1    0    1    0    0  (13: pipe <= ssthresh, ssthresh - pipe = 0)
///   sent            2    -    5    -    9    -    -
/// ```
///
/// 5 goes out as soon as it is lost (rule 1), four ACKs earlier than without PRR; 9 is not yet
/// lost when its turn comes, but lies below the highest SACK with no new data to send, so
/// NextSeg rule 3 resends it. From 13 on pipe <= ssthresh and PRR's slow-start bound holds cwnd
/// at ssthresh (sndcnt = ssthresh - pipe).
#[test]
fn sack_recovery_prr_three_holes_send_one_segment_every_second_ack_while_pipe_above_ssthresh() {
    let mut s = window_of_20(true);
    assert_eq!(seqs(&drain(&mut s, us(0))), (0..20).collect::<Vec<_>>());
    #[rustfmt::skip]
    let expected: [(&[u64], u64, u64); 20] = [
        (&[], 20, 19), (&[], 20, 18), (&[], 20, 17), (&[], 20, 16),
        (&[2], 15, 15),
        (&[], 14, 14), (&[5], 13, 13), (&[], 12, 12), (&[9], 12, 12), (&[], 10, 10),
        (&[], 9, 9), (&[], 9, 8), (&[], 9, 7), (&[], 9, 6), (&[], 9, 5), (&[], 9, 4), (&[], 9, 3),
        (&[], 9, 2), (&[], 9, 1), (&[], 9, 0),
    ];
    run_three_holes(&mut s, &expected);
}

/// The ACK that reaches the recovery point ends PRR with cwnd = ssthresh (Linux's
/// `tcp_end_cwnd_reduction`) even when PRR has not brought it there yet: segment 2 of the
/// window is lost, and every ACK after the third duplicate is lost on the way back except the
/// one its retransmission brings.
#[test]
fn sack_recovery_prr_ack_of_recovery_point_lands_window_on_ssthresh() {
    let mut s = window_of_20(true);
    let _ = drain(&mut s, us(0));
    for (i, (cumulative, blocks)) in [(1, &[][..]), (2, &[]), (2, &[(3, 4)]), (2, &[(3, 5)]), (2, &[(3, 6)])]
        .into_iter()
        .enumerate()
    {
        s.handle_ack(us(100 + i as u64), &ack(cumulative, blocks));
    }
    assert!(s.congestion_control().in_recovery());
    // pipe = the 14 unSACKed segments 3..20, plus one from PRR's first ACK.
    assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (9 * MSS, 15 * MSS));
    assert_eq!(seqs(&drain(&mut s, us(104))), vec![2]);
    s.handle_ack(us(200), &ack(20, &[]));
    assert!(!s.congestion_control().in_recovery());
    assert_eq!(s.cwnd_bytes(), 9 * MSS);
    assert!(s.is_complete());
}

/// A long-lived ECN-capable sender of `kind` with a window of 10, all of it sent.
fn ecn_sender(kind: CcKind, sack: bool, ecn_reduction: EcnReduction) -> TcpSender {
    let config =
        TcpConfig { sack, ecn_reduction, initial_window_segments: 10, min_rto: RTO, ..TcpConfig::default() };
    let mut s = TcpSender::new(config, CongestionControl::new(kind), None, true, None, us(0));
    assert_eq!(seqs(&drain(&mut s, us(0))), (0..10).collect::<Vec<_>>());
    s
}

/// An ECN-Echo by PRR (the CWR state): ACK 1, for segment 0, carries ECE. ssthresh drops to
/// 5 at once (half the window: NewReno, or DCTCP with its initial alpha of 1) but cwnd does
/// not: RecoverFS = 10, so with pipe > ssthresh each ACK gives
/// sndcnt = CEIL(prr_delivered x 5 / 10) - prr_out and cwnd = pipe + sndcnt:
///
/// ```text
///   ACK             1    2    3    4    5    6    7    8    9   10
///   prr_delivered   1    2    3    4    5    6    7    8    9
///   pipe            9    9    8    8    7    7    6    6    5    4
///   sndcnt          1    0    1    0    1    0    1    0    0       (9: pipe = ssthresh)
///   cwnd           10    9    9    8    8    7    7    6    5    5  (10: snd_una = 10, Open)
///   sent           10    -   11    -   12    -   13    -    -   14
/// ```
///
/// The ACK for 10, the snd_nxt of the moment of the cut, ends the reduction with cwnd on
/// ssthresh. With or without SACK the numbers are the same: nothing is lost, so pipe is the
/// flight.
#[test]
fn open_ecn_echo_by_prr_lowers_ssthresh_at_once_and_cwnd_over_one_round_trip() {
    for kind in [CcKind::NewReno, CcKind::dctcp()] {
        for sack in [false, true] {
            let mut s = ecn_sender(kind, sack, EcnReduction::Prr);
            #[rustfmt::skip]
            let expected: [(u64, u64, &[u64]); 10] = [
                (9, 10, &[10]), (9, 9, &[]), (8, 9, &[11]), (8, 8, &[]), (7, 8, &[12]),
                (7, 7, &[]), (6, 7, &[13]), (6, 6, &[]), (5, 5, &[]), (4, 5, &[14]),
            ];
            for (n, &(pipe, cwnd, sent)) in (1..=10).zip(&expected) {
                let now = us(100 + n);
                s.handle_ack(now, &AckSegment::plain(n * MSS, n == 1, us(0)));
                let case = format!("{kind:?}, sack {sack}, ACK {n}");
                assert_eq!(s.ssthresh_bytes(), 5 * MSS, "{case}");
                assert_eq!((s.pipe_bytes(), s.cwnd_bytes()), (pipe * MSS, cwnd * MSS), "{case}");
                let state = if n < 10 { CaState::Cwr { end: 10 * MSS } } else { CaState::Open };
                assert_eq!(s.congestion_control().state(), state, "{case}");
                assert_eq!(seqs(&drain(&mut s, now)), sent, "{case}");
            }
            assert_eq!(s.stats().retransmitted_bytes, 0);
        }
    }
}

/// The ACK that passes the cut point ends the reduction with cwnd = ssthresh (Linux's
/// `tcp_end_cwnd_reduction`) even when PRR has not brought it there yet: the ACKs between the
/// ECN-Echo and the last one are lost on the way back, so cwnd is still 10 when the ACK of the
/// whole window arrives. The flow is that window, so its data, not cwnd, limited sending and
/// the ACK grows nothing (RFC 7661).
#[test]
fn cwr_stretch_ack_past_cut_point_lands_window_on_ssthresh() {
    for kind in [CcKind::NewReno, CcKind::dctcp()] {
        for sack in [false, true] {
            let config = TcpConfig {
                sack,
                ecn_reduction: EcnReduction::Prr,
                initial_window_segments: 10,
                min_rto: RTO,
                ..TcpConfig::default()
            };
            let cc = CongestionControl::new(kind);
            let mut s = TcpSender::new(config, cc, Some(10 * MSS), true, None, us(0));
            assert_eq!(seqs(&drain(&mut s, us(0))), (0..10).collect::<Vec<_>>());
            s.handle_ack(us(100), &AckSegment::plain(MSS, true, us(0)));
            let case = format!("{kind:?}, sack {sack}");
            assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (5 * MSS, 10 * MSS), "{case}");
            assert_eq!(s.congestion_control().state(), CaState::Cwr { end: 10 * MSS }, "{case}");
            assert_eq!(drain(&mut s, us(100)), vec![], "{case}");
            s.handle_ack(us(110), &AckSegment::plain(10 * MSS, false, us(0)));
            assert_eq!(s.congestion_control().state(), CaState::Open, "{case}");
            assert_eq!(s.cwnd_bytes(), 5 * MSS, "{case}");
        }
    }
}

/// The papers' instant cut for contrast: cwnd drops to 5 with ssthresh on the ECN-Echo, so
/// the sender falls silent until the flight is below the window (ACK 6, by when congestion
/// avoidance has also grown cwnd to 6), then sends two segments at once.
#[test]
fn open_ecn_echo_instant_cuts_cwnd_at_once_and_falls_silent() {
    for kind in [CcKind::NewReno, CcKind::dctcp()] {
        for sack in [false, true] {
            let mut s = ecn_sender(kind, sack, EcnReduction::Instant);
            let mut sent = Vec::new();
            for n in 1..=6 {
                s.handle_ack(us(100 + n), &AckSegment::plain(n * MSS, n == 1, us(0)));
                if n == 1 {
                    assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (5 * MSS, 5 * MSS));
                    assert_eq!(s.congestion_control().state(), CaState::Open);
                }
                sent.push(seqs(&drain(&mut s, us(100 + n))));
            }
            let expected: Vec<Vec<u64>> = vec![vec![], vec![], vec![], vec![], vec![], vec![10, 11]];
            assert_eq!(sent, expected, "{kind:?}, sack {sack}");
            assert_eq!(s.cwnd_bytes(), 6 * MSS);
        }
    }
}

/// A NewReno sender without SACK, a window of 10 all sent, segment 0 lost; returns what the
/// duplicate ACKs that segments 1, 2 and 3 trigger release, and the sender.
fn three_dupacks(limited_transmit: bool) -> (Vec<Vec<u64>>, TcpSender) {
    let config = TcpConfig { limited_transmit, initial_window_segments: 10, min_rto: RTO, ..TcpConfig::default() };
    let mut s = TcpSender::new(config, CongestionControl::new(CcKind::NewReno), None, true, None, us(0));
    assert_eq!(seqs(&drain(&mut s, us(0))), (0..10).collect::<Vec<_>>());
    let mut released = Vec::new();
    for i in 1..=3 {
        s.handle_ack(us(100 + i), &AckSegment::plain(0, false, us(0)));
        if i < 3 {
            // Limited transmit sends beyond cwnd; it does not raise it.
            assert_eq!(s.cwnd_bytes(), 10 * MSS);
            assert!(!s.congestion_control().in_recovery());
        }
        released.push(seqs(&drain(&mut s, us(100 + i))));
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    (released, s)
}

/// RFC 3042: the first and second duplicate ACKs each release one new segment beyond cwnd;
/// the third starts fast retransmit, whose ssthresh halves the flight without those two
/// segments (RFC 5681 Section 3.2 step 2): 10 / 2, not 12 / 2.
#[test]
fn limited_transmit_first_two_dupacks_release_one_segment_each_third_retransmits() {
    let (released, s) = three_dupacks(true);
    assert_eq!(released, vec![vec![10], vec![11], vec![0]]);
    assert_eq!(s.flight_bytes(), 12 * MSS);
    assert_eq!(s.ssthresh_bytes(), 5 * MSS);
    // RFC 6582: cwnd = ssthresh + 3 x MSS for the three segments that left the network.
    assert_eq!(s.cwnd_bytes(), 8 * MSS);
}

#[test]
fn limited_transmit_off_first_two_dupacks_release_nothing() {
    let (released, s) = three_dupacks(false);
    assert_eq!(released, vec![vec![], vec![], vec![0]]);
    assert_eq!(s.flight_bytes(), 10 * MSS);
    assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (5 * MSS, 8 * MSS));
}

/// A SACK flow of `size` bytes over the harness link, NewReno, losing the first transmission of
/// the segments at `drops`.
fn link(config: TcpConfig, size: u64, drops: &[u64]) -> Pair {
    let mut pair = Pair::new(config, CcKind::NewReno, size);
    pair.drop_first_tx = drops.to_vec();
    pair
}

/// A SACK sender of 20 segments, its whole flow in the initial window, losing 2 and the last
/// segment, 19: nothing is ever SACKed above 19, so neither IsLost nor NextSeg rule 3 will
/// resend it. Only the partial ACK that the retransmitted 2 brings (ACK 19, short of the
/// recovery point 20), the rescue retransmission or the RTO can.
fn lost_tail(partial_ack_retransmit: bool, rescue_retransmission: bool) -> Pair {
    let config = TcpConfig {
        sack: true,
        partial_ack_retransmit,
        rescue_retransmission,
        initial_window_segments: 20,
        min_rto: RTO,
        ..TcpConfig::default()
    };
    let mut link = link(config, 20 * MSS, &[2 * MSS, 19 * MSS]);
    assert!(link.run(limit()));
    assert_eq!(link.receiver.bytes_received_in_order(), 20 * MSS);
    assert_eq!(link.sender.stats().retransmitted_bytes, 2 * MSS);
    assert_eq!(link.sender.stats().fast_retransmits, 1);
    link
}

#[test]
fn sack_recovery_lost_tail_resent_on_partial_ack_without_timeout() {
    let link = lost_tail(true, false);
    assert_eq!(link.sender.stats().timeouts, 0);
    let done = link.sender.completed_at().unwrap().saturating_since(Instant::ZERO);
    // The initial window, then two round trips of resends: well under a millisecond.
    assert!(done < Duration::from_ms(1), "completed at {done}");
}

#[test]
fn sack_recovery_lost_tail_without_partial_ack_retransmit_waits_for_rto() {
    let link = lost_tail(false, false);
    assert_eq!(link.sender.stats().timeouts, 1);
    let done = link.sender.completed_at().unwrap().saturating_since(Instant::ZERO);
    assert!(done > RTO, "completed at {done}");
}

/// RFC 6675 NextSeg rule 4 repairs the same tail without the partial-ACK rule: once the
/// first retransmission is acknowledged, the highest unSACKed segment (19) is resent once.
#[test]
fn sack_recovery_lost_tail_rescue_retransmission_repairs_without_timeout() {
    let link = lost_tail(false, true);
    assert_eq!(link.sender.stats().timeouts, 0);
}

/// Both tail repairs on: the partial-ACK rule resends 19 first, and the rescue must not send it
/// again (it would only duplicate a segment already resent, above HighRxt no longer).
#[test]
fn sack_recovery_lost_tail_partial_ack_and_rescue_resend_the_tail_once() {
    let link = lost_tail(true, true);
    assert_eq!(link.sender.stats().timeouts, 0);
}

/// RFC 6675 step 4.2 after RFC 5681: segments sent on the duplicate ACKs before recovery (the
/// SACK form of limited transmit, governed by pipe) do not count in FlightSize. A long-lived
/// flow with a 20-segment window loses segment 0; each duplicate SACKs one more segment and
/// lets one new segment out (20, then 21); the third enters recovery with FlightSize 22 - 2 =
/// 20, so ssthresh = cwnd = 10, not 11.
#[test]
fn sack_recovery_flight_size_leaves_out_segments_sent_on_duplicates() {
    let config = TcpConfig { sack: true, prr: false, initial_window_segments: 20, min_rto: RTO, ..TcpConfig::default() };
    let mut s = TcpSender::new(config, CongestionControl::new(CcKind::NewReno), None, true, None, us(0));
    assert_eq!(drain(&mut s, us(0)).len(), 20);
    let mut sent = Vec::new();
    for (i, top) in [2u64, 3, 4].into_iter().enumerate() {
        let now = us(100 + i as u64);
        s.handle_ack(now, &ack(0, &[(1, top)]));
        sent.push(seqs(&drain(&mut s, now)));
    }
    assert_eq!(sent, vec![vec![20], vec![21], vec![0]]);
    assert!(s.congestion_control().in_recovery());
    assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (10 * MSS, 10 * MSS));
}

mod prop {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::RngSeed;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            rng_seed: RngSeed::Fixed(6675),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Whatever first transmissions a SACK flow loses, and however its recovery is
        /// configured, the flow completes with every byte delivered, it never resends a byte
        /// that a SACK block had reported to the sender before the resend (RFC 6675: the
        /// scoreboard keeps SACK information through recovery and timeouts alike), and it
        /// resends at least what was lost.
        #[test]
        fn sack_transfer_random_drops_completes_and_never_resends_reported_bytes(
            segments in 40u64..=60,
            last_len in 1u64..=1448,
            drops in proptest::collection::btree_set(0u64..60, 0..16),
            prr in any::<bool>(),
            partial_ack_retransmit in any::<bool>(),
            rescue_retransmission in any::<bool>(),
            timestamps in any::<bool>(),
            delayed_ack in any::<bool>(),
            iw in proptest::sample::select(vec![2u32, 10, 20]),
        ) {
            let config = TcpConfig {
                // Linux's MSS on a 1500 B MTU with timestamps.
                mss_bytes: if timestamps { 1448 } else { MSS_BYTES },
                timestamps,
                sack: true,
                prr,
                partial_ack_retransmit,
                rescue_retransmission,
                delayed_ack: delayed_ack
                    .then_some(DelayedAck { segments: 2, timeout: Duration::from_ms(1), quickack: 0 }),
                initial_window_segments: iw,
                min_rto: RTO,
                ..TcpConfig::default()
            };
            let mss = config.mss();
            let size = (segments - 1) * mss + last_len;
            let offsets: Vec<u64> = drops.iter().map(|&n| n * mss).collect();
            let mut link = link(config, size, &offsets);
            prop_assert!(link.run(limit()));
            prop_assert_eq!(link.receiver.bytes_received_in_order(), size);
            let st = link.sender.stats();
            prop_assert_eq!(st.bytes_acked, size);
            prop_assert!(link.resent_reported.is_empty(), "resent SACKed bytes: {:?}", link.resent_reported);
            prop_assert!(st.retransmitted_bytes >= link.dropped_bytes);
        }
    }
}
