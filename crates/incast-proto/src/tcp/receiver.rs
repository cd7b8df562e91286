//! The receiving side of a TCP flow: cumulative ACKs with out-of-order reassembly (RFC 5681
//! Section 4.2), SACK blocks (RFC 2018), optional delayed ACKs (RFC 1122 Section 4.2.3.2) with
//! Linux's quick ACKs at the start of a transfer, and DCTCP's two-state ECN-Echo machine for
//! delayed ACKs (DCTCP paper Section 3.1, Figure 10).

use std::collections::VecDeque;

use super::ranges;
use super::{AckSegment, DataSegment, DelayedAck, SackBlocks, TcpConfig};
use crate::time::Instant;

/// The receiver of one flow: a sans-IO state machine.
///
/// A driver feeds every arriving data segment to [`handle_data`](Self::handle_data), then calls
/// [`poll_ack`](Self::poll_ack) in a loop until `None` and sends each ACK; it arms a timer at
/// [`poll_timeout`](Self::poll_timeout) (the delayed-ACK timer, re-read after every call) and
/// calls [`handle_timeout`](Self::handle_timeout) when it fires (early calls are harmless).
///
/// ACK policy:
/// - in-order data is acknowledged per segment, or with delayed ACKs every `segments` segments
///   or `timeout` after the first unacknowledged one (after the first `quickack` segments,
///   which are acknowledged at once);
/// - out-of-order or duplicate data, and data that fills all or part of a hole, are
///   acknowledged at once, so the sender sees duplicate ACKs promptly (RFC 5681 Section 4.2);
/// - with SACK every ACK reports the ranges held above the cumulative ACK (RFC 2018 Section 4):
///   first the one holding the segment that triggered it (unless that segment advanced the
///   ACK), then the most recently reported others, as many as the option space allows;
/// - a SYN (`TcpConfig::handshake`) is answered at once, delayed ACKs or not, by the SYN/ACK
///   (an ACK for `rcv_nxt`, echoing the SYN's timestamp), and so is every re-sent SYN;
/// - ECN-Echo echoes the CE bit of the triggering segment without delayed ACKs; with them it
///   follows DCTCP's two-state machine, so the sender still learns exactly which bytes were
///   marked.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    /// Next in-order byte expected.
    rcv_nxt: u64,
    /// Data above `rcv_nxt` already received: sorted, disjoint, non-adjacent `[start, end)`
    /// ranges. A handful at most in practice, so a `Vec` beats any tree.
    out_of_order: Vec<(u64, u64)>,
    /// With SACK: ranges of `out_of_order` in the order they were last reported, the most
    /// recent first (Linux's `selective_acks`, at most 4); `None` without SACK.
    sack_recent: Option<SackBlocks>,
    /// SACK blocks an ACK may carry beside the other options.
    max_sack_blocks: usize,
    /// Header bytes of a pure ACK without SACK blocks.
    ack_header_bytes: u32,
    /// Header bytes of a SYN/ACK.
    syn_ack_header_bytes: u16,
    delayed_ack: Option<DelayedAck>,
    /// In-order segments still to be acknowledged at once (Linux's quick-ACK mode).
    quickacks_left: u32,
    /// In-order segments received but not yet acknowledged.
    unacked_segments: u32,
    /// Timestamp of the earliest unacknowledged in-order segment: RFC 7323 Section 4.3 echoes
    /// it so that a delayed ACK's RTT sample includes the delay.
    unacked_ts: Instant,
    /// Delayed-ACK timer.
    ack_at: Option<Instant>,
    /// DCTCP's ECN-Echo state: CE bit of the last segment received (delayed ACKs only).
    ce_state: bool,
    /// `TcpConfig::ce_sequence_check`: count a CE mark only above `highest_ce`.
    ce_sequence_check: bool,
    /// First byte of the highest segment whose CE mark was counted (ns-3's `m_ecnCESeq`).
    highest_ce: Option<u64>,
    /// ACKs waiting for `poll_ack`; at most two per segment (a DCTCP state-change ACK and the
    /// segment's own), so it stops growing after the first few.
    pending: VecDeque<AckSegment>,
}

impl TcpReceiver {
    /// A receiver expecting byte 0 first.
    pub fn new(config: &TcpConfig) -> Self {
        TcpReceiver {
            rcv_nxt: 0,
            out_of_order: Vec::with_capacity(4),
            sack_recent: config.sack.then_some(SackBlocks::EMPTY),
            max_sack_blocks: config.max_sack_blocks(),
            ack_header_bytes: config.ack_header_bytes(0),
            syn_ack_header_bytes: config.syn_header_bytes() as u16,
            delayed_ack: config.delayed_ack,
            quickacks_left: config.delayed_ack.map_or(0, |d| d.quickack),
            unacked_segments: 0,
            unacked_ts: Instant::ZERO,
            ack_at: None,
            ce_state: false,
            ce_sequence_check: config.ce_sequence_check,
            highest_ce: None,
            pending: VecDeque::with_capacity(4),
        }
    }

    /// Processes one arriving data segment and queues the ACKs it calls for.
    ///
    /// A SYN is header-only: its `seq` and `len` are not read and it is never data. A segment
    /// with neither payload nor SYN is a pure ACK (the handshake's third packet,
    /// `TcpConfig::handshake_ack`): nothing to acknowledge.
    pub fn handle_data(&mut self, now: Instant, seg: &DataSegment) {
        if seg.syn {
            self.answer_syn(seg);
            return;
        }
        if seg.len == 0 {
            return;
        }
        let ce = self.counted_ce(seg);
        let ece = match self.delayed_ack {
            None => ce,
            Some(_) => {
                // DCTCP Figure 10: on a change of CE state, first ACK what arrived so far with
                // the old state, so each ACK covers bytes of one state only.
                if ce != self.ce_state {
                    if self.unacked_segments > 0 {
                        self.ack_now(self.ce_state, self.unacked_ts);
                    }
                    self.ce_state = ce;
                }
                self.ce_state
            }
        };
        if seg.seq > self.rcv_nxt {
            let range = self.insert_out_of_order(seg.seq, seg.end());
            self.report_first(range);
            let ts = self.echo_ts(seg);
            self.ack_now(ece, ts);
            return;
        }
        if seg.end() <= self.rcv_nxt {
            let ts = self.echo_ts(seg);
            self.ack_now(ece, ts);
            return;
        }
        // In order (possibly overlapping already received bytes).
        let filled_hole = !self.out_of_order.is_empty();
        self.rcv_nxt = seg.end();
        self.absorb_out_of_order();
        match self.delayed_ack {
            None => self.ack_now(ece, seg.ts),
            Some(_) if filled_hole => {
                let ts = self.echo_ts(seg);
                self.ack_now(ece, ts);
            }
            Some(_) if self.quickacks_left > 0 => {
                self.quickacks_left -= 1;
                let ts = self.echo_ts(seg);
                self.ack_now(ece, ts);
            }
            Some(d) => {
                if self.unacked_segments == 0 {
                    self.unacked_ts = seg.ts;
                    self.ack_at = Some(now + d.timeout);
                }
                self.unacked_segments += 1;
                if self.unacked_segments >= d.segments {
                    self.ack_now(ece, self.unacked_ts);
                }
            }
        }
    }

    /// The segment's CE mark as the receiver counts it: with `ce_sequence_check` only on a
    /// segment starting above every one counted before, as ns-3's `TcpSocketBase::ForwardUp`
    /// (`m_ecnCESeq`); a marked resend of a hole below them counts as unmarked.
    fn counted_ce(&mut self, seg: &DataSegment) -> bool {
        if !self.ce_sequence_check {
            return seg.ce;
        }
        let counted = seg.ce && self.highest_ce.is_none_or(|h| seg.seq > h);
        if counted {
            self.highest_ce = Some(seg.seq);
        }
        counted
    }

    /// The next ACK to send, if any. Call in a loop until `None`.
    #[must_use]
    pub fn poll_ack(&mut self, _now: Instant) -> Option<AckSegment> {
        self.pending.pop_front()
    }

    /// When the delayed-ACK timer expires, if it is armed.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.ack_at
    }

    /// Sends the delayed ACK if its timer is due; otherwise does nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.ack_at.is_some_and(|at| now >= at) && self.unacked_segments > 0 {
            self.ack_now(self.ce_state, self.unacked_ts);
        }
    }

    /// Sends the delayed ACK now, if one is pending, instead of at its timer: a D3 receiver
    /// answers every rate request at once (D3 Figure 7), whatever the delayed-ACK policy.
    pub(crate) fn flush_delayed_ack(&mut self) {
        if self.unacked_segments > 0 {
            self.ack_now(self.ce_state, self.unacked_ts);
        }
    }

    /// Every byte below this offset has arrived (rcv_nxt).
    pub fn bytes_received_in_order(&self) -> u64 {
        self.rcv_nxt
    }

    /// Queues the SYN/ACK. It is an ACK for `rcv_nxt` (0 unless a re-sent SYN trails data), so
    /// it also acknowledges any delayed data, with that data's ECN-Echo state; a SYN itself
    /// carries no bytes to report as marked, and leaves DCTCP's CE state alone.
    fn answer_syn(&mut self, seg: &DataSegment) {
        let ece = self.unacked_segments > 0 && self.ce_state;
        let ts = self.echo_ts(seg);
        self.ack_now(ece, ts);
        // The SYN/ACK carries the SYN options rather than SACK blocks.
        let syn_ack = self.pending.back_mut().expect("just queued");
        syn_ack.header_bytes = self.syn_ack_header_bytes;
        syn_ack.sack = SackBlocks::EMPTY;
    }

    /// Queues an ACK for `rcv_nxt` with the SACK blocks to report; it covers every
    /// unacknowledged segment, so the delayed-ACK state is cleared.
    fn ack_now(&mut self, ece: bool, ts_echo: Instant) {
        let mut sack = SackBlocks::EMPTY;
        if let Some(recent) = &self.sack_recent {
            for &b in recent.as_slice().iter().take(self.max_sack_blocks) {
                sack.push(b);
            }
        }
        let options = super::segment::sack_option_bytes(sack.len());
        self.pending.push_back(AckSegment {
            ack: self.rcv_nxt,
            ece,
            ts_echo,
            sack,
            header_bytes: (self.ack_header_bytes + options) as u16,
        });
        self.unacked_segments = 0;
        self.ack_at = None;
    }

    /// Timestamp to echo on an immediate ACK: the earliest unacknowledged in-order segment's if
    /// the ACK also covers delayed data (RFC 7323 Section 4.3), else the triggering segment's.
    fn echo_ts(&self, seg: &DataSegment) -> Instant {
        if self.unacked_segments > 0 {
            self.unacked_ts
        } else {
            seg.ts
        }
    }

    /// Makes `range`, the out-of-order range holding the segment just received, the first SACK
    /// block (RFC 2018 Section 4, rule (a)); the ranges it absorbed are dropped from the list.
    fn report_first(&mut self, range: (u64, u64)) {
        let Some(recent) = &mut self.sack_recent else { return };
        let mut next = SackBlocks::EMPTY;
        next.push(range);
        for &b in recent.as_slice() {
            // Ranges are exact and disjoint: an older block that touches `range` is part of it.
            if b.1 < range.0 || b.0 > range.1 {
                next.push(b);
            }
        }
        *recent = next;
    }

    /// Records `[start, end)` above `rcv_nxt`, merging with overlapping or adjacent ranges;
    /// returns the merged range that holds it.
    fn insert_out_of_order(&mut self, start: u64, end: u64) -> (u64, u64) {
        if start >= end {
            return (start, end);
        }
        ranges::merge(&mut self.out_of_order, start, end).0
    }

    /// Moves `rcv_nxt` over out-of-order ranges it now reaches, and forgets SACK blocks below it.
    fn absorb_out_of_order(&mut self) {
        let reached = self
            .out_of_order
            .partition_point(|&(s, _)| s <= self.rcv_nxt);
        if reached == 0 {
            return;
        }
        self.rcv_nxt = self.rcv_nxt.max(self.out_of_order[reached - 1].1);
        self.out_of_order.drain(..reached);
        if let Some(recent) = &mut self.sack_recent {
            let rcv_nxt = self.rcv_nxt;
            let mut kept = SackBlocks::EMPTY;
            for &b in recent.as_slice().iter().filter(|b| b.0 > rcv_nxt) {
                kept.push(b);
            }
            *recent = kept;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::MSS_BYTES;
    use crate::time::Duration;

    const MSS: u64 = MSS_BYTES as u64;
    const DELAY: Duration = Duration::from_us(40);

    fn us(t: u64) -> Instant {
        Instant::ZERO + Duration::from_us(t)
    }

    /// Segment number `n` (full size), sent at `n` microseconds.
    fn seg(n: u64, ce: bool) -> DataSegment {
        DataSegment { ect: true, ce, ..DataSegment::numbered(n, MSS_BYTES) }
    }

    fn receiver(delayed: Option<u32>) -> TcpReceiver {
        let delayed_ack = delayed.map(|segments| DelayedAck {
            segments,
            timeout: DELAY, quickack: 0
        });
        TcpReceiver::new(&TcpConfig {
            delayed_ack,
            ..TcpConfig::default()
        })
    }

    fn acks(r: &mut TcpReceiver) -> Vec<AckSegment> {
        std::iter::from_fn(|| r.poll_ack(Instant::ZERO)).collect()
    }

    /// (ack in segments, ece, ts_echo in us) of each pending ACK.
    fn summary(r: &mut TcpReceiver) -> Vec<(u64, bool, u64)> {
        acks(r)
            .iter()
            .map(|a| (a.ack / MSS, a.ece, a.ts_echo.as_ps() / 1_000_000))
            .collect()
    }

    /// A SYN sent at `t` microseconds.
    fn syn(t: u64) -> DataSegment {
        DataSegment {
            seq: 0,
            len: 0,
            header_bytes: 40,
            ts: us(t),
            ect: true,
            ce: false,
            retransmission: false,
            syn: true,
        }
    }

    #[test]
    fn receiver_answers_syn_immediately_even_with_delayed_acks() {
        let mut r = receiver(Some(2));
        r.handle_data(us(10), &syn(3));
        assert_eq!(summary(&mut r), vec![(0, false, 3)]);
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(r.bytes_received_in_order(), 0);
        assert!(r.out_of_order.is_empty());
        // The sender re-sent it: answered again.
        r.handle_data(us(30), &syn(20));
        assert_eq!(summary(&mut r), vec![(0, false, 20)]);
        // The SYN did not count as a delayed segment: data is ACKed every second segment.
        r.handle_data(us(40), &seg(0, false));
        assert_eq!(summary(&mut r), vec![]);
        r.handle_data(us(41), &seg(1, false));
        assert_eq!(summary(&mut r), vec![(2, false, 0)]);
    }

    #[test]
    fn late_syn_after_delayed_data_acks_it_at_once() {
        let mut r = receiver(Some(2));
        r.handle_data(us(10), &seg(0, false));
        r.handle_data(us(11), &DataSegment { ce: true, ..syn(5) });
        // The delayed data's ts and CE state: the SYN's CE mark is neither echoed nor kept.
        assert_eq!(summary(&mut r), vec![(1, false, 0)]);
        assert_eq!(r.poll_timeout(), None);
        assert!(!r.ce_state);
    }

    #[test]
    fn in_order_no_delay_acks_every_segment_echoing_ce_and_ts() {
        let mut r = receiver(None);
        r.handle_data(us(100), &seg(0, false));
        r.handle_data(us(101), &seg(1, true));
        r.handle_data(us(102), &seg(2, false));
        assert_eq!(
            summary(&mut r),
            vec![(1, false, 0), (2, true, 1), (3, false, 2)]
        );
        assert_eq!(r.bytes_received_in_order(), 3 * MSS);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn out_of_order_immediate_dupacks_then_hole_fill_acks_all() {
        let mut r = receiver(None);
        r.handle_data(us(100), &seg(0, false));
        r.handle_data(us(101), &seg(2, false));
        r.handle_data(us(102), &seg(3, true));
        assert_eq!(
            summary(&mut r),
            vec![(1, false, 0), (1, false, 2), (1, true, 3)]
        );
        assert_eq!(r.out_of_order, vec![(2 * MSS, 4 * MSS)]);
        r.handle_data(us(200), &seg(1, false));
        assert_eq!(summary(&mut r), vec![(4, false, 1)]);
        assert!(r.out_of_order.is_empty());
    }

    #[test]
    fn partial_hole_fill_acks_up_to_next_hole() {
        let mut r = receiver(Some(2));
        r.handle_data(us(100), &seg(1, false));
        r.handle_data(us(100), &seg(3, false));
        r.handle_data(us(100), &seg(5, false));
        assert_eq!(
            summary(&mut r),
            vec![(0, false, 1), (0, false, 3), (0, false, 5)]
        );
        // Fills the first hole only: an immediate ACK even with delayed ACKs.
        r.handle_data(us(101), &seg(0, false));
        assert_eq!(summary(&mut r), vec![(2, false, 0)]);
        r.handle_data(us(102), &seg(4, false));
        r.handle_data(us(103), &seg(2, false));
        assert_eq!(summary(&mut r), vec![(2, false, 4), (6, false, 2)]);
        assert!(r.out_of_order.is_empty());
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn duplicate_segment_immediate_ack() {
        let mut r = receiver(Some(2));
        r.handle_data(us(100), &seg(0, false));
        r.handle_data(us(101), &seg(1, false));
        assert_eq!(summary(&mut r), vec![(2, false, 0)]);
        r.handle_data(us(102), &seg(0, false));
        assert_eq!(summary(&mut r), vec![(2, false, 0)]);
    }

    #[test]
    fn out_of_order_ranges_merge_overlapping_and_adjacent() {
        let mut r = receiver(None);
        r.insert_out_of_order(10, 20);
        r.insert_out_of_order(30, 40);
        r.insert_out_of_order(50, 60);
        r.insert_out_of_order(5, 8);
        assert_eq!(r.out_of_order, vec![(5, 8), (10, 20), (30, 40), (50, 60)]);
        r.insert_out_of_order(20, 30);
        assert_eq!(r.out_of_order, vec![(5, 8), (10, 40), (50, 60)]);
        r.insert_out_of_order(7, 55);
        assert_eq!(r.out_of_order, vec![(5, 60)]);
        r.insert_out_of_order(70, 70);
        assert_eq!(r.out_of_order, vec![(5, 60)]);
        r.insert_out_of_order(60, 61);
        assert_eq!(r.out_of_order, vec![(5, 61)]);
    }

    #[test]
    fn overlapping_in_order_segment_advances_to_its_end() {
        let mut r = receiver(None);
        r.handle_data(
            us(0),
            &DataSegment {
                seq: 0,
                len: 1000,
                header_bytes: 40,
                ..seg(0, false)
            },
        );
        r.handle_data(
            us(1),
            &DataSegment {
                seq: 500,
                len: 1000,
                header_bytes: 40,
                ..seg(0, false)
            },
        );
        assert_eq!(r.bytes_received_in_order(), 1500);
        assert_eq!(acks(&mut r).len(), 2);
    }

    #[test]
    fn delayed_ack_every_second_segment_echoes_earliest_ts() {
        let mut r = receiver(Some(2));
        r.handle_data(us(100), &seg(0, false));
        assert_eq!(summary(&mut r), vec![]);
        assert_eq!(r.poll_timeout(), Some(us(100) + DELAY));
        r.handle_data(us(101), &seg(1, false));
        assert_eq!(summary(&mut r), vec![(2, false, 0)]);
        assert_eq!(r.poll_timeout(), None);
        r.handle_data(us(102), &seg(2, false));
        r.handle_data(us(103), &seg(3, false));
        assert_eq!(summary(&mut r), vec![(4, false, 2)]);
    }

    #[test]
    fn delayed_ack_timer_fires_after_timeout_not_before() {
        let mut r = receiver(Some(2));
        r.handle_data(us(100), &seg(0, false));
        r.handle_timeout(us(100));
        r.handle_timeout(us(139));
        assert_eq!(summary(&mut r), vec![]);
        r.handle_timeout(us(140));
        assert_eq!(summary(&mut r), vec![(1, false, 0)]);
        assert_eq!(r.poll_timeout(), None);
        r.handle_timeout(us(500));
        assert_eq!(summary(&mut r), vec![]);
    }

    #[test]
    fn delayed_ack_pending_then_out_of_order_acks_pending_at_once() {
        let mut r = receiver(Some(2));
        r.handle_data(us(100), &seg(0, false));
        r.handle_data(us(101), &seg(2, false));
        assert_eq!(summary(&mut r), vec![(1, false, 0)]);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn dctcp_ece_state_change_acks_old_state_immediately() {
        let mut r = receiver(Some(2));
        // State 0, one segment pending; a CE segment arrives: ACK the pending one with ECE 0.
        r.handle_data(us(100), &seg(0, false));
        r.handle_data(us(101), &seg(1, true));
        assert_eq!(summary(&mut r), vec![(1, false, 0)]);
        // In state 1, delayed ACKs carry ECE 1.
        r.handle_data(us(102), &seg(2, true));
        assert_eq!(summary(&mut r), vec![(3, true, 1)]);
        // Back to 0 with nothing pending: no extra ACK, the next ones carry ECE 0.
        r.handle_data(us(103), &seg(3, false));
        assert_eq!(summary(&mut r), vec![]);
        r.handle_data(us(104), &seg(4, false));
        assert_eq!(summary(&mut r), vec![(5, false, 3)]);
        // 1 then 0 with one pending each time: each change flushes with the old state.
        r.handle_data(us(105), &seg(5, true));
        r.handle_data(us(106), &seg(6, false));
        assert_eq!(summary(&mut r), vec![(6, true, 5)]);
        r.handle_timeout(us(106) + DELAY);
        assert_eq!(summary(&mut r), vec![(7, false, 6)]);
    }

    #[test]
    fn dctcp_ece_state_change_on_out_of_order_segment_flushes_then_dupacks() {
        let mut r = receiver(Some(2));
        r.handle_data(us(100), &seg(0, false));
        r.handle_data(us(101), &seg(2, true));
        assert_eq!(summary(&mut r), vec![(1, false, 0), (1, true, 2)]);
    }
}
