//! A two-endpoint test harness (after quinn-proto's `tests/util.rs`): one sender and one
//! receiver over an ideal link with a fixed one-way delay, a serialization rate on the data
//! direction, a set of first transmissions to drop and an optional ECN marking threshold. It
//! also keeps what SACK tests check against (`tests::sack`): the union of the SACK blocks that
//! reached the sender, and every retransmission that resent a byte of it.

use std::collections::VecDeque;

use super::{AckSegment, DataSegment, TcpConfig, TcpReceiver, TcpSender, MSS_BYTES};
use crate::cc::{CcKind, CongestionControl};
use crate::time::{BitsPerSec, Duration, Instant};

/// A sender and a receiver joined by a link, driven in simulated time.
pub(super) struct Pair {
    now: Instant,
    pub(super) sender: TcpSender,
    pub(super) receiver: TcpReceiver,
    /// One-way propagation delay of the link.
    pub(super) delay: Duration,
    /// Serialization rate of the data direction.
    pub(super) rate: BitsPerSec,
    /// When the data direction finishes serializing what it holds.
    data_link_free: Instant,
    to_receiver: VecDeque<(Instant, DataSegment)>,
    to_sender: VecDeque<(Instant, AckSegment)>,
    /// Offsets whose first transmission is lost (retransmissions always get through).
    pub(super) drop_first_tx: Vec<u64>,
    /// Lose the first SYN (a re-sent one gets through).
    pub(super) drop_first_syn: bool,
    /// Mark CE on ECT segments that find more than this many full frames queued (DCTCP's K).
    pub(super) mark_threshold: Option<u64>,
    pub(super) dropped_bytes: u64,
    /// Queue peaks are recorded only for segments from this offset on (past slow start).
    pub(super) steady_from: u64,
    /// The most full frames queued on the data direction, from `steady_from` on.
    pub(super) max_queue_frames: u64,
    /// Segments delivered with CE set.
    pub(super) delivered_ce: u64,
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

/// Far beyond any transfer's end: `Pair::run`'s limit in the tests.
pub(super) fn limit() -> Instant {
    Instant::ZERO + Duration::from_secs(600)
}
