//! The reliability mechanism every sender shares, over byte offsets: cumulative-ACK bookkeeping,
//! duplicate-ACK loss detection with NewReno's `recover` guard (RFC 5681 Section 3.2, RFC 6582
//! Section 3.2), the RFC 6298 retransmission timer, and go-back-N after it expires (without
//! SACK; a SACK sender keeps its sequence and resends from its scoreboard instead).
//!
//! It decides nothing about how fast to send: [`TcpSender`](super::TcpSender) wraps it in a
//! congestion window, the D3 sender in a rate budget. Each sender calls the small steps below
//! in its own order and adds its policy between them.
//!
//! ```text
//!   ACK ─► classify ─┬─ New       ─► on_new_ack (advance, RTT sample, restart/stop timer)
//!                    ├─ Duplicate ─► on_duplicate_ack ─► Loss? ─► enter_fast_retransmit
//!                    └─ Stale / Beyond: ignored (or the sender's own business)
//!   timer ─► rto_due ─► go_back_n (rewind snd_nxt to snd_una, back off, re-arm)
//!   send  ─► take_retransmit, then next_len / window_allows / send_new
//! ```

use super::rtt::RttEstimator;
use super::{AckSegment, DataSegment, SubSegmentWindow, TcpConfig};
use crate::time::{Duration, Instant};

/// Where a cumulative ACK falls relative to the send sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AckClass {
    /// Acknowledges bytes never sent (beyond `high_sent`).
    Beyond,
    /// Below `snd_una`: an old ACK overtaken by a later one.
    Stale,
    /// Equal to `snd_una`: a duplicate, or a window update when nothing is in flight.
    Duplicate,
    /// Advances `snd_una`. After a timeout it may also pass `snd_nxt`, since data sent before
    /// the rewind up to `high_sent` was only delayed.
    New,
}

/// What a duplicate ACK means for loss detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Duplicate {
    /// Nothing is in flight: a window update, not a duplicate; nothing was counted.
    NotInFlight,
    /// Counted, below the threshold or left over from data sent before the last loss event.
    Counted,
    /// Counted, and it is the `dupack_threshold`-th one at or beyond `recover`: a new loss
    /// event. The sender calls [`SendSequence::enter_fast_retransmit`] if its policy agrees.
    Loss,
}

/// Counters of the shared mechanism, copied into each sender's report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SequenceCounters {
    /// Payload bytes sent again below `high_sent`.
    pub(crate) retransmitted_bytes: u64,
    /// Retransmission timer expiries.
    pub(crate) timeouts: u64,
    /// Entries into fast retransmit.
    pub(crate) fast_retransmits: u64,
    /// Bytes cumulatively acknowledged.
    pub(crate) bytes_acked: u64,
    /// Data segments built, retransmissions included.
    pub(crate) segments_sent: u64,
}

/// The byte-sequence state of one sender and its retransmission timer.
#[derive(Clone, Debug)]
pub(crate) struct SendSequence {
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send; pulled back to `snd_una` by a timeout (go-back-N).
    snd_nxt: u64,
    /// One past the highest byte ever sent: bytes sent again below it are retransmissions.
    high_sent: u64,
    /// NewReno `recover` (RFC 6582), exclusive: `high_sent` at the last loss event. A third
    /// duplicate ACK starts fast retransmit only if its ACK reaches this far, so duplicates
    /// caused by data sent before a timeout do not trigger a second, spurious recovery.
    recover: u64,
    /// Consecutive duplicate ACKs.
    dupacks: u32,
    /// Duplicate ACKs that signal a loss (`TcpConfig::dupack_threshold`).
    dupack_threshold: u32,
    /// A single segment to resend ahead of new data, outside the window or budget: the fast
    /// retransmit and each NewReno partial-ACK retransmission.
    retransmit: Option<u64>,
    /// All RTT samples: the retransmission timeout.
    rtt: RttEstimator,
    /// Payload bytes of a full segment.
    mss: u64,
    /// Header bytes of a data segment (options included).
    header_bytes: u16,
    /// Retransmission timer; `None` when nothing is outstanding.
    rto_at: Option<Instant>,
    counters: SequenceCounters,
}

impl SendSequence {
    /// Nothing sent, the timer stopped, the RTO at its initial value.
    pub(crate) fn new(config: &TcpConfig) -> Self {
        SendSequence {
            snd_una: 0,
            snd_nxt: 0,
            high_sent: 0,
            recover: 0,
            dupacks: 0,
            dupack_threshold: config.dupack_threshold,
            retransmit: None,
            rtt: RttEstimator::new(config),
            mss: config.mss().max(1),
            header_bytes: config.data_header_bytes() as u16,
            rto_at: None,
            counters: SequenceCounters::default(),
        }
    }

    /// Oldest unacknowledged byte.
    pub(crate) fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Next byte to send.
    pub(crate) fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// One past the highest byte ever sent.
    pub(crate) fn high_sent(&self) -> u64 {
        self.high_sent
    }

    /// Bytes sent and not yet acknowledged (`snd_nxt - snd_una`).
    pub(crate) fn flight_bytes(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Consecutive duplicate ACKs so far.
    pub(crate) fn dupacks(&self) -> u32 {
        self.dupacks
    }

    /// Payload bytes of a full segment.
    pub(crate) fn mss(&self) -> u64 {
        self.mss
    }

    /// Counts a duplicate ACK of RFC 6675's definition (it SACKed new data) and returns the
    /// count; the SACK sender decides about loss itself.
    pub(crate) fn count_duplicate(&mut self) -> u32 {
        self.dupacks = self.dupacks.saturating_add(1);
        self.dupacks
    }

    /// Whether a new loss recovery may start: snd_una has reached the recovery point of the
    /// last one (RFC 6582 Section 3.2 step 2, RFC 6675 Section 5.1).
    pub(crate) fn recovery_allowed(&self) -> bool {
        self.snd_una >= self.recover
    }

    /// The recovery point of the last loss event.
    pub(crate) fn recover(&self) -> u64 {
        self.recover
    }

    /// SACK loss recovery begins: `recover` moves to `high_sent`; the scoreboard decides what
    /// to resend.
    pub(crate) fn enter_sack_recovery(&mut self) {
        self.counters.fast_retransmits += 1;
        self.recover = self.high_sent;
    }

    /// The timer expired on a SACK sender (RFC 6675 Section 5.1): `recover` moves to
    /// `high_sent`, the RTO backs off, but the sequence is not rewound, since the scoreboard
    /// resends what is lost around what the receiver SACKed.
    pub(crate) fn timeout_in_place(&mut self, now: Instant) {
        self.recover = self.high_sent;
        self.dupacks = 0;
        self.retransmit = None;
        self.back_off(now);
    }

    /// Counters so far.
    pub(crate) fn counters(&self) -> SequenceCounters {
        self.counters
    }

    /// Smoothed RTT, once a sample was taken.
    pub(crate) fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }

    /// The current retransmission timeout, back-off included.
    pub(crate) fn rto(&self) -> Duration {
        self.rtt.rto()
    }

    /// Puts the retransmission timer back to `at`, as it was before an ACK restarted it
    /// (ns-3 restarts it on the first partial ACK of a recovery only).
    pub(crate) fn restore_timer(&mut self, at: Option<Instant>) {
        self.rto_at = at;
    }

    /// When the retransmission timer expires, if it is armed.
    pub(crate) fn rto_at(&self) -> Option<Instant> {
        self.rto_at
    }

    /// Whether the retransmission timer is armed and due at `now`.
    pub(crate) fn rto_due(&self, now: Instant) -> bool {
        self.rto_at.is_some_and(|at| now >= at)
    }

    /// Arms the timer unless it already runs (RFC 6298 Section 5.1).
    pub(crate) fn arm_timer(&mut self, now: Instant) {
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// Stops the timer (RFC 6298 Section 5.2), e.g. when a SYN is answered.
    pub(crate) fn stop_timer(&mut self) {
        self.rto_at = None;
    }

    /// Folds in the RTT sample of an ACK echoing `ts_echo`; echoes from the future are ignored.
    ///
    /// Every segment carries a timestamp, so every ACK is an unambiguous sample (RFC 7323
    /// Section 4.1; Karn's rule is not needed). A sample also clears the back-off.
    pub(crate) fn sample_rtt(&mut self, now: Instant, ts_echo: Instant) {
        if ts_echo <= now {
            self.rtt.on_sample(now.saturating_since(ts_echo));
        }
    }

    /// Where the cumulative ACK `ack` falls.
    pub(crate) fn classify(&self, ack: u64) -> AckClass {
        if ack > self.high_sent {
            AckClass::Beyond
        } else if ack < self.snd_una {
            AckClass::Stale
        } else if ack == self.snd_una {
            AckClass::Duplicate
        } else {
            AckClass::New
        }
    }

    /// Takes an [`AckClass::New`] ACK: advances `snd_una` (and `snd_nxt` past a go-back-N
    /// rewind), clears the duplicate count, samples the RTT and restarts the timer, or stops it
    /// when all is acknowledged (RFC 6298 Sections 5.2 and 5.3). Returns the bytes acknowledged.
    pub(crate) fn on_new_ack(&mut self, now: Instant, ack: &AckSegment) -> u64 {
        let acked = ack.ack - self.snd_una;
        self.snd_una = ack.ack;
        self.snd_nxt = self.snd_nxt.max(ack.ack);
        self.dupacks = 0;
        self.counters.bytes_acked += acked;
        self.sample_rtt(now, ack.ts_echo);
        self.rto_at = (self.snd_nxt > self.snd_una).then(|| now + self.rtt.rto());
        acked
    }

    /// Counts a duplicate ACK and tells whether it signals a new loss (RFC 5681 Section 3.2;
    /// RFC 6582 Section 3.2 step 2: not below `recover`).
    pub(crate) fn on_duplicate_ack(&mut self) -> Duplicate {
        if self.snd_nxt == self.snd_una {
            return Duplicate::NotInFlight;
        }
        self.dupacks = self.dupacks.saturating_add(1);
        if self.dupacks == self.dupack_threshold && self.snd_una >= self.recover {
            Duplicate::Loss
        } else {
            Duplicate::Counted
        }
    }

    /// Fast retransmit: `recover` moves to `high_sent` and `snd_una` is resent next.
    pub(crate) fn enter_fast_retransmit(&mut self) {
        self.counters.fast_retransmits += 1;
        self.recover = self.high_sent;
        self.schedule_retransmit();
    }

    /// Whether a cumulative ACK of `ack` reaches `recover`: the full ACK that ends NewReno
    /// recovery (RFC 6582 Section 3.2 step 3), rather than a partial one.
    pub(crate) fn covers_recover(&self, ack: u64) -> bool {
        ack >= self.recover
    }

    /// Resends the segment at `snd_una` ahead of new data (a NewReno partial ACK's hole).
    pub(crate) fn schedule_retransmit(&mut self) {
        self.retransmit = Some(self.snd_una);
    }

    /// Counts a timer expiry, doubles the RTO and re-arms the timer (RFC 6298 Sections 5.5 and
    /// 5.6), without touching the sequence (a lost SYN).
    pub(crate) fn back_off(&mut self, now: Instant) {
        self.counters.timeouts += 1;
        self.rtt.back_off();
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The timer expired with data outstanding (RFC 6298 Section 5.4 to 5.6): resend
    /// everything from `snd_una` (go-back-N, since without SACK the sender cannot know what
    /// arrived), guard against the duplicates still in flight with `recover`, back off.
    pub(crate) fn go_back_n(&mut self, now: Instant) {
        self.recover = self.high_sent;
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.retransmit = None;
        self.back_off(now);
    }

    /// The pending fast or partial-ACK retransmission, if one is pending and still
    /// unacknowledged; see [`segment_at`](Self::segment_at) for the other arguments.
    pub(crate) fn take_retransmit(
        &mut self,
        now: Instant,
        data_end: u64,
        ect: bool,
    ) -> Option<DataSegment> {
        let seq = self.retransmit.take()?;
        (seq >= self.snd_una && seq < self.snd_nxt)
            .then(|| self.segment_at(now, seq, self.mss.min(data_end - seq), ect))
    }

    /// Resends `len` bytes from `seq`, below `high_sent` (a SACK sender's NextSeg choice).
    pub(crate) fn resend(&mut self, now: Instant, seq: u64, len: u64, ect: bool) -> DataSegment {
        self.segment_at(now, seq, len, ect)
    }

    /// Payload bytes of the next segment at `snd_nxt`, `None` once `snd_nxt` reaches
    /// `data_end`.
    pub(crate) fn next_len(&self, data_end: u64) -> Option<u64> {
        (self.snd_nxt < data_end).then(|| self.mss.min(data_end - self.snd_nxt))
    }

    /// Whether `len` more bytes fit a window of `window_bytes`. An empty pipe always gets one
    /// segment, so a window below one segment cannot stall.
    pub(crate) fn window_allows(&self, len: u64, window_bytes: u64) -> bool {
        SubSegmentWindow::Send.allows(self.flight_bytes(), window_bytes, len, len, self.mss)
    }

    /// Whether the `len` bytes at `snd_nxt` fit a window of `window_bytes` by `rule`, with the
    /// data ending at `data_end`.
    pub(crate) fn window_allows_by(&self, rule: SubSegmentWindow, len: u64, window_bytes: u64, data_end: u64) -> bool {
        rule.allows(self.flight_bytes(), window_bytes, len, data_end - self.snd_nxt, self.mss)
    }

    /// A segment with no payload at `snd_nxt`, to carry a transport's own header (D3's rate
    /// request, PDQ's SYN, probe or FIN): not ECN-capable, never a retransmission, not counted.
    pub(crate) fn header_only(&self, now: Instant, syn: bool) -> DataSegment {
        DataSegment {
            seq: self.snd_nxt,
            len: 0,
            header_bytes: self.header_bytes,
            ts: now,
            ect: false,
            ce: false,
            retransmission: false,
            syn,
        }
    }

    /// Builds the segment at `snd_nxt` (there must be one, see [`next_len`](Self::next_len))
    /// and advances `snd_nxt` and `high_sent` past it.
    pub(crate) fn send_new(&mut self, now: Instant, data_end: u64, ect: bool) -> DataSegment {
        let len = self.mss.min(data_end - self.snd_nxt);
        let seg = self.segment_at(now, self.snd_nxt, len, ect);
        self.snd_nxt = seg.end();
        self.high_sent = self.high_sent.max(self.snd_nxt);
        seg
    }

    /// Builds the segment of `len` bytes starting at `seq`, marked ECN-capable with `ect`;
    /// counts it, and the bytes below `high_sent` as retransmitted, and arms the timer
    /// (RFC 6298 Section 5.1).
    fn segment_at(&mut self, now: Instant, seq: u64, len: u64, ect: bool) -> DataSegment {
        let resent = (seq + len).min(self.high_sent).saturating_sub(seq);
        self.counters.retransmitted_bytes += resent;
        self.counters.segments_sent += 1;
        self.arm_timer(now);
        DataSegment {
            seq,
            len: len as u32,
            header_bytes: self.header_bytes,
            ts: now,
            ect,
            ce: false,
            retransmission: resent > 0,
            syn: false,
        }
    }

    /// Sets `snd_una` and `snd_nxt` (and raises the highest byte sent to `snd_nxt`) directly,
    /// for tests of what a sender derives from them.
    #[cfg(test)]
    pub(crate) fn set_sequence_for_test(&mut self, snd_una: u64, snd_nxt: u64) {
        self.snd_una = snd_una;
        self.snd_nxt = snd_nxt;
        self.high_sent = self.high_sent.max(snd_nxt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = super::super::MSS_BYTES as u64;
    const RTO: Duration = Duration::from_ms(10);

    fn us(t: u64) -> Instant {
        Instant::ZERO + Duration::from_us(t)
    }

    fn sequence() -> SendSequence {
        SendSequence::new(&TcpConfig {
            min_rto: RTO,
            ..TcpConfig::default()
        })
    }

    fn ack(n: u64) -> AckSegment {
        AckSegment::plain(n * MSS, false, Instant::ZERO)
    }

    /// Sends `n` new full segments at `now`.
    fn send(s: &mut SendSequence, now: Instant, n: u64) {
        for _ in 0..n {
            let _ = s.send_new(now, u64::MAX, false);
        }
    }

    #[test]
    fn classify_beyond_stale_duplicate_new() {
        let mut s = sequence();
        send(&mut s, us(0), 4);
        let _ = s.on_new_ack(us(10), &ack(2));
        assert_eq!(s.classify(5 * MSS), AckClass::Beyond);
        assert_eq!(s.classify(MSS), AckClass::Stale);
        assert_eq!(s.classify(2 * MSS), AckClass::Duplicate);
        assert_eq!(s.classify(4 * MSS), AckClass::New);
    }

    #[test]
    fn third_dupack_is_loss_once_and_not_below_recover() {
        let mut s = sequence();
        send(&mut s, us(0), 10);
        assert_eq!(s.on_duplicate_ack(), Duplicate::Counted);
        assert_eq!(s.on_duplicate_ack(), Duplicate::Counted);
        assert_eq!(s.on_duplicate_ack(), Duplicate::Loss);
        s.enter_fast_retransmit();
        assert_eq!(s.on_duplicate_ack(), Duplicate::Counted);
        let seg = s.take_retransmit(us(1), u64::MAX, false).unwrap();
        assert!(seg.seq == 0 && seg.retransmission);
        // A timeout with recover at 10 segments: old duplicates start no second recovery.
        let _ = s.on_new_ack(us(2), &ack(1));
        s.go_back_n(us(3));
        send(&mut s, us(3), 1);
        for _ in 0..3 {
            assert_eq!(s.on_duplicate_ack(), Duplicate::Counted);
        }
    }

    #[test]
    fn new_ack_restarts_timer_then_stops_it() {
        let mut s = sequence();
        assert_eq!(s.on_duplicate_ack(), Duplicate::NotInFlight);
        send(&mut s, us(0), 2);
        assert_eq!(s.rto_at(), Some(us(0) + RTO));
        assert_eq!(s.on_new_ack(us(5), &ack(1)), MSS);
        assert_eq!(s.rto_at(), Some(us(5) + RTO));
        let _ = s.on_new_ack(us(6), &ack(2));
        assert_eq!(s.rto_at(), None);
        assert_eq!(s.counters().bytes_acked, 2 * MSS);
    }

    #[test]
    fn go_back_n_rewinds_backs_off_and_counts_resent_bytes() {
        let mut s = sequence();
        send(&mut s, us(0), 3);
        assert!(!s.rto_due(us(0) + RTO - Duration::from_ps(1)));
        assert!(s.rto_due(us(0) + RTO));
        s.go_back_n(us(0) + RTO);
        assert_eq!((s.snd_nxt(), s.high_sent()), (0, 3 * MSS));
        assert_eq!(s.rto(), RTO.saturating_mul(2));
        send(&mut s, us(0) + RTO, 1);
        let c = s.counters();
        assert_eq!(
            (c.timeouts, c.retransmitted_bytes, c.segments_sent),
            (1, MSS, 4)
        );
    }
}
