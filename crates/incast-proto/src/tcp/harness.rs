//! A two-endpoint test harness (after quinn-proto's `tests/util.rs`): one sender and one
//! receiver over an ideal link with a fixed one-way delay, a serialization rate on the data
//! direction, a set of first transmissions to drop and an optional ECN marking threshold. It
//! also keeps what SACK tests check against (`sack_tests`): the union of the SACK blocks that
//! reached the sender, and every retransmission that resent a byte of it.

use std::collections::VecDeque;

use super::{AckSegment, DataSegment, DelayedAck, TcpConfig, TcpReceiver, TcpSender, MSS_BYTES};
use crate::cc::{CcKind, CongestionControl};
use crate::time::{BitsPerSec, Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;

/// A sender and a receiver joined by a link, driven in simulated time.
pub(super) struct Pair {
    now: Instant,
    pub(super) sender: TcpSender,
    pub(super) receiver: TcpReceiver,
    delay: Duration,
    rate: BitsPerSec,
    /// When the data direction finishes serializing what it holds.
    data_link_free: Instant,
    to_receiver: VecDeque<(Instant, DataSegment)>,
    to_sender: VecDeque<(Instant, AckSegment)>,
    /// Offsets whose first transmission is lost (retransmissions always get through).
    pub(super) drop_first_tx: Vec<u64>,
    /// Lose the first SYN (a re-sent one gets through).
    drop_first_syn: bool,
    /// Mark CE on ECT segments that find more than this many full frames queued (DCTCP's K).
    mark_threshold: Option<u64>,
    pub(super) dropped_bytes: u64,
    /// Queue peaks are recorded only for segments from this offset on (past slow start).
    steady_from: u64,
    max_queue_frames: u64,
    delivered_ce: u64,
    /// Bytes reported by SACK blocks delivered to the sender: sorted, merged `[start, end)`.
    reported: Vec<(u64, u64)>,
    /// Retransmissions that resent reported bytes: (when sent, seq, len).
    pub(super) resent_reported: Vec<(Instant, u64, u32)>,
}

impl Pair {
    pub(super) fn new(config: TcpConfig, kind: CcKind, size: u64) -> Self {
        let ect = matches!(kind, CcKind::Dctcp { .. });
        Pair {
            now: Instant::ZERO,
            sender: TcpSender::new(
                config,
                CongestionControl::new(kind),
                Some(size),
                ect,
                None,
                Instant::ZERO,
            ),
            receiver: TcpReceiver::new(&config),
            delay: Duration::from_us(10),
            rate: BitsPerSec::GBPS,
            data_link_free: Instant::ZERO,
            to_receiver: VecDeque::new(),
            to_sender: VecDeque::new(),
            drop_first_tx: Vec::new(),
            drop_first_syn: false,
            mark_threshold: None,
            dropped_bytes: 0,
            steady_from: 0,
            max_queue_frames: 0,
            delivered_ce: 0,
            reported: Vec::new(),
            resent_reported: Vec::new(),
        }
    }

    fn frame_time(&self) -> Duration {
        self.rate
            .tx_time(u64::from(MSS_BYTES + super::HEADER_BYTES))
    }

    /// Puts one data segment on the link: queue behind what is being serialized, then the delay.
    fn transmit(&mut self, mut seg: DataSegment) {
        if seg.retransmission && self.reported.iter().any(|&(s, e)| s < seg.end() && seg.seq < e) {
            self.resent_reported.push((self.now, seg.seq, seg.len));
        }
        let dropped = if seg.syn {
            self.drop_first_syn
        } else {
            self.drop_first_tx.contains(&seg.seq)
        };
        if !seg.retransmission && dropped {
            self.dropped_bytes += u64::from(seg.len);
            return;
        }
        let backlog = self.data_link_free.saturating_since(self.now);
        let queued = backlog.as_ps() / self.frame_time().as_ps();
        if seg.seq >= self.steady_from {
            self.max_queue_frames = self.max_queue_frames.max(queued);
        }
        if seg.ect && self.mark_threshold.is_some_and(|k| queued > k) {
            seg.ce = true;
        }
        let start = self.data_link_free.max(self.now);
        self.data_link_free = start + self.rate.tx_time(u64::from(seg.wire_bytes()));
        self.to_receiver
            .push_back((self.data_link_free + self.delay, seg));
    }

    /// Merges the blocks of an ACK about to reach the sender into `reported`.
    fn record_sack(&mut self, ack: &AckSegment) {
        self.reported.extend_from_slice(ack.sack.as_slice());
        self.reported.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.reported.len());
        for &(s, e) in &self.reported {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.reported = merged;
    }

    /// Runs until the flow completes or nothing is left to happen before `limit`.
    pub(super) fn run(&mut self, limit: Instant) -> bool {
        loop {
            while let Some(seg) = self.sender.poll_transmit(self.now) {
                self.transmit(seg);
            }
            while let Some(ack) = self.receiver.poll_ack(self.now) {
                self.to_sender.push_back((self.now + self.delay, ack));
            }
            if self.sender.is_complete() {
                return true;
            }
            let next = [
                self.to_receiver.front().map(|&(t, _)| t),
                self.to_sender.front().map(|&(t, _)| t),
                self.sender.poll_timeout(),
                self.receiver.poll_timeout(),
            ]
            .into_iter()
            .flatten()
            .min();
            match next {
                Some(t) if t <= limit => self.now = self.now.max(t),
                _ => return false,
            }
            while let Some(&(t, seg)) = self.to_receiver.front() {
                if t > self.now {
                    break;
                }
                self.to_receiver.pop_front();
                self.delivered_ce += u64::from(seg.ce);
                self.receiver.handle_data(self.now, &seg);
            }
            while let Some(&(t, ack)) = self.to_sender.front() {
                if t > self.now {
                    break;
                }
                self.to_sender.pop_front();
                self.record_sack(&ack);
                self.sender.handle_ack(self.now, &ack);
            }
            // Called every step, due or not: both must ignore early calls.
            self.sender.handle_timeout(self.now);
            self.receiver.handle_timeout(self.now);
        }
    }
}

const ONE_MB: u64 = 1_000_000;
/// 684 full segments and one of 1360 bytes.
const SEGMENTS_1MB: u64 = ONE_MB.div_ceil(MSS);

pub(super) fn limit() -> Instant {
    Instant::ZERO + Duration::from_secs(600)
}

fn delayed() -> TcpConfig {
    TcpConfig {
        delayed_ack: Some(DelayedAck {
            segments: 2,
            timeout: Duration::from_ms(1), quickack: 0
        }),
        ..TcpConfig::default()
    }
}

fn assert_delivered(p: &Pair, size: u64) {
    assert!(p.sender.is_complete());
    assert_eq!(p.sender.stats().bytes_acked, size);
    assert_eq!(p.receiver.bytes_received_in_order(), size);
}

#[test]
fn transfer_1mb_no_loss_completes_without_retransmission() {
    for config in [TcpConfig::default(), delayed()] {
        let mut p = Pair::new(config, CcKind::NewReno, ONE_MB);
        assert!(p.run(limit()));
        assert_delivered(&p, ONE_MB);
        let s = p.sender.stats();
        assert_eq!(
            (s.retransmitted_bytes, s.timeouts, s.fast_retransmits),
            (0, 0, 0)
        );
        assert_eq!(s.segments_sent, SEGMENTS_1MB);
        // One RTT of 20 us plus 1 MB at 1 Gbps is about 8.2 ms; slow start adds a few RTTs.
        let fct = p
            .sender
            .completed_at()
            .unwrap()
            .saturating_since(Instant::ZERO);
        assert!(fct < Duration::from_ms(10), "fct {fct}");
        let srtt = p.sender.srtt().unwrap();
        assert!(srtt >= Duration::from_us(20), "srtt {srtt}");
    }
}

#[test]
fn transfer_100kb_handshake_one_rtt_later_without_retransmission() {
    const SIZE: u64 = 100_000;
    for config in [TcpConfig::default(), delayed()] {
        let mut plain = Pair::new(config, CcKind::NewReno, SIZE);
        assert!(plain.run(limit()));
        let mut hs = Pair::new(
            TcpConfig {
                handshake: true,
                ..config
            },
            CcKind::NewReno,
            SIZE,
        );
        assert!(hs.run(limit()));
        assert_delivered(&hs, SIZE);
        let s = hs.sender.stats();
        assert_eq!(
            (
                s.retransmitted_bytes,
                s.timeouts,
                s.fast_retransmits,
                s.syns_sent
            ),
            (0, 0, 0, 1)
        );
        assert_eq!(s.segments_sent, plain.sender.stats().segments_sent);
        // The SYN's round trip: its 48 B on the 1 Gbps data direction, then both delays.
        let rtt = hs.rate.tx_time(u64::from(config.syn_header_bytes())) + hs.delay + hs.delay;
        let fct = |p: &Pair| p.sender.completed_at().unwrap();
        assert_eq!(fct(&hs), fct(&plain) + rtt);
    }
}

#[test]
fn transfer_lost_syn_costs_one_initial_rto() {
    let config = TcpConfig {
        handshake: true,
        ..TcpConfig::default()
    };
    let mut plain = Pair::new(config, CcKind::NewReno, ONE_MB);
    assert!(plain.run(limit()));
    let mut p = Pair::new(config, CcKind::NewReno, ONE_MB);
    p.drop_first_syn = true;
    assert!(p.run(limit()));
    assert_delivered(&p, ONE_MB);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.syns_sent, s.retransmitted_bytes), (1, 2, 0));
    let fct = |p: &Pair| p.sender.completed_at().unwrap();
    assert_eq!(fct(&p), fct(&plain) + config.min_rto);
}

#[test]
fn transfer_one_drop_repaired_by_fast_retransmit_without_timeout() {
    for config in [TcpConfig::default(), delayed()] {
        let mut p = Pair::new(config, CcKind::NewReno, ONE_MB);
        p.drop_first_tx = vec![100 * MSS];
        assert!(p.run(limit()));
        assert_delivered(&p, ONE_MB);
        let s = p.sender.stats();
        assert_eq!((s.timeouts, s.fast_retransmits), (0, 1));
        assert_eq!(s.retransmitted_bytes, MSS);
        assert_eq!(s.segments_sent, SEGMENTS_1MB + 1);
    }
}

#[test]
fn transfer_two_drops_in_one_window_single_newreno_recovery() {
    let mut p = Pair::new(TcpConfig::default(), CcKind::NewReno, ONE_MB);
    p.drop_first_tx = vec![300 * MSS, 305 * MSS];
    assert!(p.run(limit()));
    assert_delivered(&p, ONE_MB);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (0, 1));
    assert_eq!(s.retransmitted_bytes, 2 * MSS);
}

#[test]
fn transfer_tail_of_window_dropped_exactly_one_timeout() {
    let mut p = Pair::new(TcpConfig::default(), CcKind::NewReno, ONE_MB);
    let last = SEGMENTS_1MB - 1;
    p.drop_first_tx = vec![(last - 2) * MSS, (last - 1) * MSS, last * MSS];
    assert!(p.run(limit()));
    assert_delivered(&p, ONE_MB);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (1, 0));
    assert_eq!(s.retransmitted_bytes, p.dropped_bytes);
    assert_eq!(s.retransmitted_bytes, 2 * MSS + (ONE_MB - last * MSS));
    // The flow waited one (unbacked-off) minimum RTO for the tail.
    let fct = p
        .sender
        .completed_at()
        .unwrap()
        .saturating_since(Instant::ZERO);
    assert!(fct > TcpConfig::default().min_rto, "fct {fct}");
}

#[test]
fn transfer_go_back_n_counts_resent_bytes_already_received() {
    // The first two segments of the initial window are lost: too few packets for three
    // duplicates, so the timeout resends from byte 0.
    let mut p = Pair::new(
        TcpConfig {
            initial_window_segments: 4,
            ..TcpConfig::default()
        },
        CcKind::NewReno,
        20 * MSS,
    );
    p.drop_first_tx = vec![0, MSS];
    assert!(p.run(limit()));
    assert_delivered(&p, 20 * MSS);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (1, 0));
    // Go-back-N resends 0, then 1 and 2 in the next window of two: 2 had arrived already,
    // which a sender without SACK cannot know. The ACK for 1 then jumps over 2 and 3.
    assert_eq!(s.retransmitted_bytes, 3 * MSS);
}

#[test]
fn transfer_dctcp_marking_keeps_queue_near_threshold() {
    const K: u64 = 20;
    let mut reno = Pair::new(TcpConfig::default(), CcKind::NewReno, 4 * ONE_MB);
    reno.mark_threshold = Some(K);
    reno.steady_from = ONE_MB;
    assert!(reno.run(limit()));
    let mut dctcp = Pair::new(delayed(), CcKind::dctcp(), 4 * ONE_MB);
    dctcp.mark_threshold = Some(K);
    dctcp.steady_from = ONE_MB;
    assert!(dctcp.run(limit()));
    assert_delivered(&dctcp, 4 * ONE_MB);
    assert!(dctcp.delivered_ce > 0);
    let alpha = dctcp.sender.congestion_control().dctcp_alpha().unwrap();
    assert!(alpha < 0.5, "alpha {alpha}");
    // Without ECN the unbounded queue holds the whole slow-start overshoot.
    assert!(
        reno.max_queue_frames > 4 * K,
        "reno queue {}",
        reno.max_queue_frames
    );
    assert!(
        dctcp.max_queue_frames < 2 * K,
        "dctcp queue {}",
        dctcp.max_queue_frames
    );
    assert_eq!(dctcp.sender.stats().retransmitted_bytes, 0);
}

#[test]
fn transfer_run_twice_identical() {
    let run = || {
        let mut p = Pair::new(delayed(), CcKind::dctcp(), ONE_MB);
        p.mark_threshold = Some(10);
        p.drop_first_tx = vec![50 * MSS, 400 * MSS, 401 * MSS];
        assert!(p.run(limit()));
        (
            p.sender.stats(),
            p.sender.completed_at(),
            p.sender.cwnd_bytes(),
            p.delivered_ce,
        )
    };
    assert_eq!(run(), run());
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever first transmissions are lost, the flow completes, every byte arrives once in
        /// order, and exactly the resent bytes are counted as retransmitted (at least the lost
        /// ones).
        #[test]
        fn transfer_random_drops_always_completes(
            drops in proptest::collection::btree_set(0u64..60, 0..12),
            delayed_ack in any::<bool>(),
            dctcp in any::<bool>(),
            tail in 0u64..MSS,
        ) {
            let size = 59 * MSS + tail + 1;
            let config = if delayed_ack { delayed() } else { TcpConfig::default() };
            let kind = if dctcp { CcKind::dctcp() } else { CcKind::NewReno };
            let mut p = Pair::new(config, kind, size);
            p.mark_threshold = Some(5);
            p.drop_first_tx = drops.iter().map(|&n| n * MSS).collect();
            prop_assert!(p.run(limit()));
            assert_delivered(&p, size);
            let s = p.sender.stats();
            prop_assert!(s.retransmitted_bytes >= p.dropped_bytes);
            let first_tx = size.div_ceil(MSS);
            prop_assert!(s.segments_sent >= first_tx);
            prop_assert!(s.retransmitted_bytes <= (s.segments_sent - first_tx) * MSS);
            if drops.is_empty() {
                prop_assert_eq!(s.retransmitted_bytes, 0);
            }
        }
    }
}

