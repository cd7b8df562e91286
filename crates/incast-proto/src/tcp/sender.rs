//! The sending side of a TCP flow: an optional SYN round trip, windowed transmission (RFC 5681),
//! the RFC 6298 retransmission timer, and loss recovery: NewReno fast retransmit and fast
//! recovery (RFC 6582) with go-back-N after a timeout and optional limited transmit (RFC 3042),
//! or with SACK the recovery of RFC 6675 (scoreboard, pipe, NextSeg) with PRR (RFC 6937). The
//! mechanism lives in the shared [`SendSequence`] and [`Scoreboard`]; this file adds the
//! congestion window, the handshake and the messages of a persistent connection.

use std::collections::VecDeque;

use super::ns3_bookkeeping::{AckFacts, Ns3Bookkeeping};
use super::{AckClass, AckSegment, DataSegment, Duplicate, Resend, Scoreboard, SendSequence, TcpConfig};
use crate::cc::{AckEvent, CaState, CongestionControl, CutContext, Ns3Ack, Outstanding};
use crate::time::{Duration, Instant};

/// Progress of the optional handshake (`TcpConfig::handshake`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handshake {
    /// The next `poll_transmit` returns the SYN (the first one, or one re-sent after the RTO).
    SynDue,
    /// The SYN is out; nothing else is sent until its SYN/ACK arrives.
    SynSent,
    /// The SYN/ACK arrived and the pure ACK answering it (`TcpConfig::handshake_ack`) goes out
    /// before any data; otherwise as `Done`.
    AckDue,
    /// The SYN/ACK arrived, or the flow skips the handshake: data flows.
    Done,
}

/// One application message on the connection: where its bytes end in the send sequence and
/// when they are due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Message {
    /// One past its last byte (`u64::MAX` for a long-lived flow).
    end: u64,
    /// Its absolute deadline, if any.
    deadline: Option<Instant>,
}

/// Counters of one sender, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Payload bytes sent again below the highest offset ever sent (fast retransmits,
    /// SACK recovery and the resends after a timeout).
    pub retransmitted_bytes: u64,
    /// Retransmission timer expiries, those of a SYN included.
    pub timeouts: u64,
    /// Entries into loss recovery (fast retransmit).
    pub fast_retransmits: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Data segments handed out by `poll_transmit`, retransmissions included, SYNs excluded.
    pub segments_sent: u64,
    /// SYNs handed out by `poll_transmit`, re-sent ones included (0 without the handshake).
    pub syns_sent: u64,
}

/// What the next SACK transmission is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// A resend chosen from the scoreboard.
    Resend(Resend),
    /// New data at snd_nxt, of this many bytes.
    New(u64),
}

/// The sender of one flow: a sans-IO state machine over byte offsets starting at 0.
///
/// There is no FIN: the flow is complete when every byte of `size_bytes` is acknowledged. A
/// persistent connection carries more messages: [`push_message`](Self::push_message) appends
/// one to the send sequence, which then continues with the window, the RTT estimate and the
/// congestion policy's state (DCTCP's alpha) the earlier messages left. It
/// starts sending data at creation or, with `TcpConfig::handshake`, after a SYN round trip: the
/// first segment is a header-only SYN, re-sent with back-off on each RTO expiry, and the first
/// ACK (the SYN/ACK, for byte 0) releases the initial window. The sender never reads a clock;
/// a driver
///
/// 1. calls [`poll_transmit`](Self::poll_transmit) in a loop until `None` and puts each segment
///    on the wire, after creation and after every `handle_*` call;
/// 2. feeds every arriving ACK to [`handle_ack`](Self::handle_ack);
/// 3. arms a timer at [`poll_timeout`](Self::poll_timeout) (re-read after every call) and calls
///    [`handle_timeout`](Self::handle_timeout) when it fires. Calling it early or spuriously is
///    harmless: the sender compares `now` with its own deadline.
#[derive(Clone, Debug)]
pub struct TcpSender {
    config: TcpConfig,
    cc: CongestionControl,
    /// One past the last byte of every message so far; `None` for a long-lived flow.
    size_bytes: Option<u64>,
    ect: bool,
    /// The oldest message not fully acknowledged (or the last one, once all are): the one a
    /// deadline-aware cut is about.
    head: Message,
    /// The messages after `head`, in send order. Empty unless a persistent connection queued
    /// more, so a one-message flow allocates nothing for them.
    later: VecDeque<Message>,
    /// When the latest data segment left, for the idle restart (`TcpConfig::restart_after_idle`).
    last_sent_at: Option<Instant>,
    started_at: Instant,
    completed_at: Option<Instant>,
    /// Sequence state, duplicate-ACK detection and the retransmission timer.
    seq: SendSequence,
    /// With SACK: what the receiver holds above snd_una, what is lost, what to resend.
    scoreboard: Option<Scoreboard>,
    /// Send the first retransmission of a SACK recovery whatever the window (RFC 6675 step
    /// 4.3).
    force_resend: bool,
    /// Limited transmit: new bytes sent beyond cwnd on the current run of duplicate ACKs, left
    /// out of ssthresh at the fast retransmit (RFC 5681 Section 3.2 step 2).
    limited_sent: u64,
    /// snd_una at the last timeout: a timeout that finds it unchanged resends a segment the
    /// timer resent already, and leaves ssthresh alone (RFC 5681 Section 3.1).
    timed_out_at_una: Option<u64>,
    /// `snd_nxt` when `poll_transmit` last found the window full. ACKs up to here acknowledge
    /// data sent while the window was the limit, and only they grow it (RFC 7661 cwnd
    /// validation; Linux's `is_cwnd_limited` is likewise sticky for the window it was set in).
    window_limited_through: u64,
    handshake: Handshake,
    /// When the latest SYN left: ACKs echoing it or an earlier SYN are SYN/ACKs.
    syn_sent_at: Option<Instant>,
    /// SYNs handed out, re-sent ones included; the other counters live in `seq`.
    syns_sent: u64,
    /// Retransmission timeouts since the last ACK, for probe mode
    /// (`TcpConfig::probe_after_timeouts`).
    timeouts_in_a_row: u32,
    /// In probe mode: the last timeout's one-byte probe is still to be sent.
    probe_due: bool,
    /// ns-3.44's bookkeeping (`TcpConfig::ns3_bookkeeping`), boxed so that other stacks pay
    /// one word for it.
    ns3: Option<Box<Ns3Bookkeeping>>,
}

impl TcpSender {
    /// A sender about to transmit its initial window, or its SYN with `config.handshake`.
    ///
    /// `size_bytes` `None` is a long-lived flow that never ends. `ect` marks every data segment
    /// ECN-capable. `deadline` is the flow's absolute deadline, kept for deadline-aware
    /// policies. `cc` takes the window rules of `config` (MSS, initial window, growth,
    /// reductions: [`TcpConfig::window_config`]).
    pub fn new(
        config: TcpConfig,
        mut cc: CongestionControl,
        size_bytes: Option<u64>,
        ect: bool,
        deadline: Option<Instant>,
        now: Instant,
    ) -> Self {
        cc.configure(&config.window_config());
        let complete = size_bytes == Some(0) && !config.handshake;
        TcpSender {
            config,
            cc,
            size_bytes,
            ect,
            head: Message { end: size_bytes.unwrap_or(u64::MAX), deadline },
            later: VecDeque::new(),
            last_sent_at: None,
            started_at: now,
            completed_at: complete.then_some(now),
            seq: SendSequence::new(&config),
            scoreboard: config.sack.then(|| {
                let board = Scoreboard::new(config.mss(), config.dupack_threshold);
                if config.ns3_bookkeeping { board.with_ns3_bookkeeping() } else { board }
            }),
            force_resend: false,
            limited_sent: 0,
            timed_out_at_una: None,
            window_limited_through: 0,
            handshake: if config.handshake {
                Handshake::SynDue
            } else {
                Handshake::Done
            },
            syn_sent_at: None,
            syns_sent: 0,
            timeouts_in_a_row: 0,
            probe_due: false,
            ns3: (config.ns3_bookkeeping && config.sack).then(|| Box::new(Ns3Bookkeeping::new())),
        }
    }

    /// Appends a message of `bytes` due at `deadline` to the send sequence of a sized flow (a
    /// persistent connection), after whatever is still unsent or unacknowledged. Its first byte
    /// is offset `size_bytes()` before the call; the receiver needs nothing new, as sequence
    /// numbers just continue.
    ///
    /// The connection keeps its window: ns-3's TCP (the D2TCP paper's simulator, 2012) did not
    /// restart it after idle, and that is the default. With `TcpConfig::restart_after_idle`, a
    /// message that finds the connection idle (nothing in flight, no data sent for longer than
    /// the RTO) starts from the restart window instead (RFC 5681 Section 4.1, RFC 2861).
    ///
    /// # Panics
    /// On a long-lived flow (`size_bytes` `None`), which has no end to append after.
    pub fn push_message(&mut self, now: Instant, bytes: u64, deadline: Option<Instant>) {
        let start = self.size_bytes.expect("push_message on a long-lived flow");
        if self.config.restart_after_idle && self.idle_longer_than_rto(now) {
            self.cc.restart_after_idle(u64::from(self.config.initial_window_segments) * self.config.mss());
        }
        let end = start + bytes;
        self.later.push_back(Message { end, deadline });
        // The head must be the oldest message not fully acknowledged: replace a finished one.
        self.advance_head();
        self.size_bytes = Some(end);
        if bytes > 0 {
            self.completed_at = None;
        }
    }

    /// Whether nothing is in flight and no data left for longer than the RTO (RFC 5681
    /// Section 4.1's test for restarting the window).
    fn idle_longer_than_rto(&self, now: Instant) -> bool {
        self.flight_bytes() == 0
            && self
                .last_sent_at
                .is_some_and(|t| now.saturating_since(t) > self.seq.rto())
    }

    /// Processes an ACK: RTT sample, SACK information, window growth or ECN reduction,
    /// duplicate-ACK counting and loss recovery. ACKs for bytes never sent and ACKs below
    /// `snd_una` are ignored.
    ///
    /// During the handshake the first ACK for byte 0 is the SYN/ACK: it gives an RTT sample and
    /// releases the initial window, and neither it nor a late SYN/ACK for a re-sent SYN counts
    /// as a duplicate ACK.
    // Inlined where the engine calls it (TCP's and pFabric's endpoints both do): out of line,
    // the DCTCP incast of the engine bench took 1.6% more instructions.
    #[inline(always)]
    pub fn handle_ack(&mut self, now: Instant, ack: &AckSegment) {
        if !self.established() {
            if ack.ack == 0 {
                self.on_syn_ack(now, ack);
            }
            return;
        }
        if ack.ack == self.seq.snd_una() && self.syn_sent_at.is_some_and(|t| ack.ts_echo <= t) {
            return;
        }
        // Any ACK ends probe mode: the path delivers again.
        self.timeouts_in_a_row = 0;
        self.probe_due = false;
        match self.seq.classify(ack.ack) {
            AckClass::Beyond | AckClass::Stale => {}
            AckClass::Duplicate | AckClass::New if self.scoreboard.is_some() => self.on_sack_ack(now, ack),
            AckClass::Duplicate => self.on_duplicate_ack(ack),
            AckClass::New => self.on_new_ack(now, ack),
        }
        if self.completed_at.is_none() && self.is_complete() {
            self.completed_at = Some(now);
        }
    }

    /// Completes the handshake: the window is still the initial one and nothing is in flight.
    fn on_syn_ack(&mut self, now: Instant, ack: &AckSegment) {
        self.handshake = if self.config.handshake_ack { Handshake::AckDue } else { Handshake::Done };
        // The timestamp names the SYN answered, so even after a re-sent SYN the sample is
        // unambiguous; it also clears the SYN's back-off.
        self.seq.sample_rtt(now, ack.ts_echo);
        self.seq.stop_timer();
        if self.completed_at.is_none() && self.is_complete() {
            self.completed_at = Some(now);
        }
    }

    /// A duplicate ACK without SACK: RFC 6582 Section 3.2 steps 1 to 4.
    fn on_duplicate_ack(&mut self, ack: &AckSegment) {
        let dup = self.seq.on_duplicate_ack();
        if dup == Duplicate::NotInFlight {
            return;
        }
        // Each duplicate says one segment left the network.
        let pipe = self.flight_bytes().saturating_sub(u64::from(self.seq.dupacks()) * self.seq.mss());
        self.cc.on_dupack(ack.ece, self.seq.snd_una(), self.seq.snd_nxt(), pipe);
        // Already recovering: the duplicate only inflates the window.
        if dup != Duplicate::Loss || self.cc.in_recovery() {
            return;
        }
        let flight = self.flight_bytes() - self.limited_sent;
        let pipe = flight.saturating_sub(u64::from(self.seq.dupacks()) * self.seq.mss());
        let unacked = self.flight_bytes();
        self.cc.on_fast_retransmit(&Outstanding { flight, unacked, pipe, high_sent: self.seq.high_sent() });
        self.seq.enter_fast_retransmit();
    }

    /// An ACK that advances `snd_una`, without SACK.
    #[inline(always)] // as `handle_ack`
    fn on_new_ack(&mut self, now: Instant, ack: &AckSegment) {
        let acked = self.seq.on_new_ack(now, ack);
        self.advance_head();
        self.limited_sent = 0;
        let ev = self.ack_event(ack, acked, acked, self.flight_bytes(), true);
        if !self.cc.in_recovery() {
            let ctx = self.cut_context(now);
            self.cc.on_ack(&ev, &ctx);
        } else if self.seq.covers_recover(ack.ack) {
            self.cc.on_recovery_exit(&ev);
        } else {
            // Partial ACK: the next hole is at the new snd_una.
            self.cc.on_partial_ack(&ev);
            self.seq.schedule_retransmit();
        }
    }

    /// Any ACK of a SACK sender (RFC 6675 Section 5): update the scoreboard, count duplicates
    /// (ACKs that SACK new data), enter loss recovery on DupThresh duplicates or when IsLost
    /// (snd_una) holds, end it when the recovery point is acknowledged, and let the window
    /// react to what was delivered.
    fn on_sack_ack(&mut self, now: Instant, ack: &AckSegment) {
        let board = self.scoreboard.as_mut().expect("SACK senders have a scoreboard");
        let (prior_una, high_sent) = (self.seq.snd_una(), self.seq.high_sent());
        if let Some(ns3) = self.ns3.as_mut() {
            ns3.on_ack_flags(ack.ack, ack.ece, prior_una);
        }
        let lost_before = board.lost_below();
        let newly_sacked = board.update(&ack.sack, prior_una, high_sent);
        let in_recovery = self.cc.in_recovery();
        let ends_recovery = in_recovery && self.seq.covers_recover(ack.ack);
        // ns-3's `m_isRetransDataAcked`: a partial ACK in recovery over a resent segment.
        let acked_resent = self.ns3.is_some()
            && in_recovery
            && !ends_recovery
            && ack.ack > prior_una
            && board.was_resent(prior_una);
        let timer_before = self.seq.rto_at();
        let (mut acked, mut was_sacked) = (0, 0);
        if ack.ack > prior_una {
            acked = self.seq.on_new_ack(now, ack);
            was_sacked = board.advance(ack.ack);
            self.limited_sent = 0;
        }
        let new_loss = board.lost_below() > lost_before.max(ack.ack);
        let delivered = acked - was_sacked + newly_sacked;
        if acked > 0 {
            self.advance_head();
        }
        let facts = self.ns3.is_some().then(|| AckFacts {
            ack: ack.ack,
            prior_una,
            high_sent,
            delivered,
            recover: self.seq.recover(),
            sack_updated: newly_sacked > 0,
            in_recovery,
            starts_recovery: false,
            ends_recovery,
            acked_resent,
        });
        if in_recovery {
            let mut ev = self.sack_event(ack, acked, delivered, !new_loss);
            ev.ns3 = self.ns3_count(facts);
            if ends_recovery {
                self.cc.exit_sack_recovery(&ev);
            } else {
                if acked > 0 && self.ns3.as_mut().is_some_and(|ns3| !ns3.partial_ack_restarts_timer()) {
                    self.seq.restore_timer(timer_before);
                }
                self.cc.on_sack_recovery_ack(&ev);
                if acked > 0 && self.config.partial_ack_retransmit {
                    self.resend_head_on_partial_ack();
                }
            }
            return;
        }
        // RFC 6675's duplicate ACK: it SACKs new data, cumulative or not.
        if newly_sacked > 0 {
            self.seq.count_duplicate();
        }
        let board = self.scoreboard.as_ref().expect("SACK senders have a scoreboard");
        let una = self.seq.snd_una();
        // ns-3 does not enter recovery during an ECN reduction (`recovery_in_cwr` = false).
        let blocked = !self.config.recovery_in_cwr && matches!(self.cc.state(), CaState::Cwr { .. });
        let loss = !blocked
            && self.seq.flight_bytes() > 0
            && self.seq.recovery_allowed()
            && (self.seq.dupacks() >= self.config.dupack_threshold || board.is_lost(una));
        if loss {
            let facts = facts.map(|f| AckFacts { in_recovery: true, starts_recovery: true, ..f });
            self.enter_sack_recovery(ack, acked, delivered, facts);
        } else {
            let mut ev = self.sack_event(ack, acked, delivered, !new_loss);
            ev.ns3 = self.ns3_count(facts);
            let ctx = self.cut_context(now);
            self.cc.on_ack(&ev, &ctx);
        }
    }

    /// With ns-3's bookkeeping, what its `ProcessAck` hands the congestion control for an ACK
    /// (`facts` is `None` without it).
    fn ns3_count(&mut self, facts: Option<AckFacts>) -> Option<Ns3Ack> {
        let mss = self.seq.mss();
        let (ns3, facts) = (self.ns3.as_mut()?, facts?);
        Some(ns3.count(&facts, mss))
    }

    /// Step 4 of RFC 6675 Section 5: RecoveryPoint = HighData, the window reduced, the first
    /// unacknowledged segment presumed lost and resent at once; the ACK that started it
    /// counts towards PRR.
    fn enter_sack_recovery(&mut self, ack: &AckSegment, acked: u64, delivered: u64, facts: Option<AckFacts>) {
        let (una, high_sent) = (self.seq.snd_una(), self.seq.high_sent());
        let board = self.scoreboard.as_mut().expect("SACK senders have a scoreboard");
        let first_end = match board.next_lost(una, high_sent) {
            Some(Resend::Hole { seq, len }) if seq == una => seq + len,
            _ => (una + self.seq.mss()).min(high_sent),
        };
        // ns-3 takes ssthresh and RecoverFS from the pipe after presuming the head lost
        // (`TcpSocketBase::EnterRecovery`, tcp-socket-base.cc lines 1689 to 1718); RFC 6675
        // step 4.2 from the pipe before.
        let pipe_before = self.pipe_bytes();
        let board = self.scoreboard.as_mut().expect("SACK senders have a scoreboard");
        board.enter_recovery(una, first_end);
        let pipe = if self.ns3.is_some() { self.pipe_bytes() } else { pipe_before };
        // RFC 6675 step 4.2 (after RFC 5681): data sent on the duplicate ACKs before recovery
        // does not count in FlightSize.
        let flight = (high_sent - una).saturating_sub(self.limited_sent);
        self.cc.enter_sack_recovery(&Outstanding { flight, unacked: high_sent - una, pipe, high_sent });
        self.seq.enter_sack_recovery();
        self.force_resend = true;
        let mut ev = self.sack_event(ack, acked, delivered, false);
        ev.ns3 = self.ns3_count(facts);
        self.cc.on_sack_recovery_ack(&ev);
    }

    /// A partial ACK in SACK recovery (`TcpConfig::partial_ack_retransmit`): the new first
    /// unacknowledged segment, unless resent already, is presumed lost and goes out next
    /// whatever the window. With ns-3's bookkeeping, what goes out is what `DoRetransmit`
    /// sends (tcp-socket-base.cc lines 2099 and 4086 to 4113): NextSeg's lost segment (rule 1)
    /// or new data (rule 2), and only if neither, the head.
    fn resend_head_on_partial_ack(&mut self) {
        let (una, high_sent) = (self.seq.snd_una(), self.seq.high_sent());
        let board = self.scoreboard.as_mut().expect("SACK senders have a scoreboard");
        if let Some(ns3) = self.ns3.as_mut() {
            // `IsRetransmittedDataAcked(ack + MSS)` looks for a resent segment ending one MSS
            // above the ACK, so a resent tail shorter than that is resent again.
            let resent_head = board.was_resent(una) && high_sent - una >= self.seq.mss();
            if una < high_sent && !resent_head {
                ns3.retransmit_on_partial_ack();
            }
            return;
        }
        if una >= high_sent || board.was_resent(una) || board.is_sacked(una) {
            return;
        }
        board.presume_lost((una + self.seq.mss()).min(high_sent));
        self.force_resend = true;
    }

    /// The window's view of an ACK of a SACK sender, pipe from the scoreboard.
    fn sack_event(&self, ack: &AckSegment, acked: u64, delivered: u64, safe: bool) -> AckEvent {
        let board = self.scoreboard.as_ref().expect("SACK senders have a scoreboard");
        let pipe = board.pipe(self.seq.snd_una(), self.seq.high_sent());
        self.ack_event(ack, acked, delivered, pipe, safe)
    }

    /// The window's view of an ACK that acknowledged `acked` bytes and delivered `delivered`.
    fn ack_event(&self, ack: &AckSegment, acked: u64, delivered: u64, pipe: u64, safe: bool) -> AckEvent {
        AckEvent {
            acked_bytes: acked,
            delivered_bytes: delivered,
            ce_marked_bytes: if ack.ece { delivered } else { 0 },
            snd_una: self.seq.snd_una(),
            snd_nxt: self.seq.snd_nxt(),
            cwnd_limited: ack.ack <= self.window_limited_through,
            pipe_bytes: pipe,
            safe: safe && acked > 0,
            ns3: None,
        }
    }

    /// Fires the retransmission timer if it is due; otherwise does nothing.
    ///
    /// On expiry (RFC 6298 Section 5.4 to 5.6, RFC 5681 Section 3.1): ssthresh = max(flight/2,
    /// 2 MSS), cwnd = 1 MSS, double the RTO and leave fast recovery. Without SACK everything
    /// from `snd_una` is resent (go-back-N, since the sender cannot know what arrived); with
    /// SACK every byte not SACKed is marked lost and resent in order (RFC 6675 Section 5.1).
    ///
    /// A lost SYN is re-sent with the RTO doubled and the window left at its initial value:
    /// no data was lost, so there is nothing to cut. (RFC 5681 Section 3.1 asks for an initial
    /// window of one segment after a lost SYN and RFC 6298 Section 5.7 for a 3 s RTO; both are
    /// left out, as the SYN/ACK's fresh RTT sample sets the RTO.)
    pub fn handle_timeout(&mut self, now: Instant) {
        if !self.seq.rto_due(now) {
            return;
        }
        if !self.established() {
            self.handshake = Handshake::SynDue;
            self.seq.back_off(now);
            return;
        }
        let una = self.seq.snd_una();
        let flight = self.flight_bytes();
        let out = Outstanding { flight, unacked: flight, pipe: self.pipe_bytes(), high_sent: self.seq.high_sent() };
        // A timeout that finds snd_una where the last one left it resent the same segment and
        // leaves ssthresh alone; ns-3 cuts it again, from the one segment the last timeout
        // left: `ReTxTimeout` clears the retransmitted flags (`SetSentListLost`,
        // tcp-socket-base.cc line 3939) before it asks whether the head was retransmitted
        // (line 3961).
        let again = self.timed_out_at_una == Some(una) && self.ns3.is_none();
        self.cc.on_timeout(&out, !again);
        self.timed_out_at_una = Some(una);
        if let Some(ns3) = self.ns3.as_mut() {
            ns3.on_timeout();
        }
        self.force_resend = false;
        self.limited_sent = 0;
        self.timeouts_in_a_row = self.timeouts_in_a_row.saturating_add(1);
        self.probe_due = self.probing();
        match self.scoreboard.as_mut() {
            Some(board) => {
                board.on_timeout(self.seq.snd_una(), self.seq.high_sent());
                self.seq.timeout_in_place(now);
            }
            None => self.seq.go_back_n(now),
        }
    }

    /// The next segment to put on the wire, if the window allows one. Call in a loop until
    /// `None`.
    #[must_use]
    #[inline(always)] // as `handle_ack`
    pub fn poll_transmit(&mut self, now: Instant) -> Option<DataSegment> {
        match self.handshake {
            Handshake::SynDue => return Some(self.syn(now)),
            Handshake::SynSent => return None,
            Handshake::AckDue => {
                // The handshake's third packet, before any data (`TcpConfig::handshake_ack`):
                // no payload, no timer, nothing in flight.
                self.handshake = Handshake::Done;
                return Some(DataSegment { ect: self.control_ect(), ..self.seq.header_only(now, false) });
            }
            Handshake::Done => {}
        }
        let seg = if self.scoreboard.is_some() {
            self.transmit_sack(now)?
        } else {
            self.transmit_newreno(now)?
        };
        self.last_sent_at = Some(now);
        self.cc.on_sent(u64::from(seg.len));
        if let Some(ns3) = self.ns3.as_mut() {
            ns3.on_sent(seg.seq, u64::from(seg.len), seg.retransmission);
        }
        Some(seg)
    }

    /// Without SACK: a pending fast or partial-ACK retransmission, else new data if the window
    /// (plus the limited-transmit allowance) has room.
    #[inline(always)] // as `handle_ack`
    fn transmit_newreno(&mut self, now: Instant) -> Option<DataSegment> {
        let end = self.data_end();
        if let Some(seg) = self.seq.take_retransmit(now, end, self.ect) {
            return Some(seg);
        }
        let len = self.seq.next_len(end)?;
        let window = self.window_bytes();
        let rule = self.config.sub_segment_window;
        if !self.seq.window_allows_by(rule, len, window, end) {
            let extra = self.limited_transmit_allowance();
            if extra == 0 || !self.seq.window_allows_by(rule, len, window + extra, end) {
                self.window_limited_through = self.window_limited_through.max(self.seq.snd_nxt());
                return None;
            }
            // RFC 3042: new data on the first duplicate ACKs, cwnd unchanged.
            self.limited_sent += len;
        }
        Some(self.seq.send_new(now, end, self.ect))
    }

    /// Extra window of limited transmit (RFC 3042): one segment per duplicate ACK, up to
    /// DupThresh - 1 of them, outside recovery; what it let out counts in the flight, so each
    /// duplicate releases one new segment.
    fn limited_transmit_allowance(&self) -> u64 {
        if !self.config.limited_transmit || self.cc.in_recovery() {
            return 0;
        }
        let dupacks = self.seq.dupacks().min(self.config.dupack_threshold.saturating_sub(1));
        u64::from(dupacks) * self.seq.mss()
    }

    /// Whether the sender is in probe mode (`TcpConfig::probe_after_timeouts`).
    fn probing(&self) -> bool {
        self.config.probe_after_timeouts.is_some_and(|n| self.timeouts_in_a_row >= n)
    }

    /// In probe mode, once per timeout: the first byte of the first hole (after a timeout every
    /// unSACKed byte is lost), and nothing else until an ACK ends probe mode.
    fn transmit_probe(&mut self, now: Instant) -> Option<DataSegment> {
        if !std::mem::take(&mut self.probe_due) {
            return None;
        }
        let (una, high_sent) = (self.seq.snd_una(), self.seq.high_sent());
        let board = self.scoreboard.as_mut().expect("probe mode needs SACK");
        let (Resend::Hole { seq, .. } | Resend::Rescue { seq, .. }) = board.next_lost(una, high_sent)?;
        let probe = Resend::Hole { seq, len: 1 };
        board.on_resent(probe, self.seq.recover());
        Some(self.seq.resend(now, seq, 1, self.ect))
    }

    /// With SACK (RFC 6675 Section 5 step C): while cwnd - pipe leaves room, NextSeg chooses a
    /// lost segment (rule 1), else new data (rule 2), else in recovery an unSACKed segment below
    /// the highest SACK (rule 3) or the rescue retransmission (rule 4).
    fn transmit_sack(&mut self, now: Instant) -> Option<DataSegment> {
        if self.probing() {
            return self.transmit_probe(now);
        }
        let end = self.data_end();
        let (una, high_sent) = (self.seq.snd_una(), self.seq.high_sent());
        let board = self.scoreboard.as_ref().expect("SACK senders have a scoreboard");
        let pipe = board.pipe(una, high_sent);
        let rwnd_allows = |len: u64| self.config.receive_window_bytes.is_none_or(|w| high_sent + len - una <= w);
        // ns-3's `DoRetransmit` after a partial ACK: NextSeg without rule 3, else the head.
        let retransmit = self.ns3.as_mut().is_some_and(|ns3| ns3.take_partial_ack_retransmit());
        let next = match board.next_lost(una, high_sent) {
            Some(r) => Some(Next::Resend(r)),
            None => match self.seq.next_len(end).filter(|&len| rwnd_allows(len)) {
                Some(len) => Some(Next::New(len)),
                None if retransmit && una < high_sent => {
                    Some(Next::Resend(Resend::Hole { seq: una, len: self.seq.mss().min(high_sent - una) }))
                }
                None if self.cc.in_recovery() => board
                    .next_in_recovery(una, high_sent, self.config.rescue_retransmission)
                    .map(Next::Resend),
                None => None,
            },
        }?;
        let (start, len) = match next {
            Next::Resend(Resend::Hole { seq, len } | Resend::Rescue { seq, len }) => (seq, len),
            Next::New(len) => (self.seq.snd_nxt(), len),
        };
        // The force applies to the resend NextSeg picks now, never to a later segment.
        let forced = retransmit || (std::mem::take(&mut self.force_resend) && matches!(next, Next::Resend(_)));
        let fits = self.config.sub_segment_window.allows(pipe, self.cc.cwnd_bytes(), len, end - start, self.seq.mss());
        if !forced && !fits {
            self.window_limited_through = self.window_limited_through.max(self.seq.snd_nxt());
            return None;
        }
        match next {
            Next::New(len) => {
                if !self.cc.in_recovery() && self.seq.dupacks() > 0 {
                    // Sent on duplicate ACKs, as limited transmit (RFC 6675 step 3).
                    self.limited_sent += len;
                }
                Some(self.seq.send_new(now, end, self.ect))
            }
            Next::Resend(r) => {
                let (Resend::Hole { seq, len } | Resend::Rescue { seq, len }) = r;
                let recovery_point = self.seq.recover();
                self.scoreboard.as_mut().expect("SACK senders have a scoreboard").on_resent(r, recovery_point);
                Some(self.seq.resend(now, seq, len, self.ect))
            }
        }
    }

    /// Builds the SYN, counts it and arms the timer for it (RFC 6298 5.1).
    fn syn(&mut self, now: Instant) -> DataSegment {
        let resent = self.syn_sent_at.is_some();
        self.handshake = Handshake::SynSent;
        self.syn_sent_at = Some(now);
        self.syns_sent += 1;
        self.seq.arm_timer(now);
        DataSegment {
            seq: 0,
            len: 0,
            header_bytes: self.config.syn_header_bytes() as u16,
            ts: now,
            // RFC 3168 Section 6.1.1: a SYN is not ECN-capable, so a marking queue leaves it
            // alone; ns-3's DCTCP sends it ECN-capable (`ect_control_packets`).
            ect: self.control_ect(),
            ce: false,
            retransmission: resent,
            syn: true,
        }
    }

    /// Whether the flow's SYN and its receiver's pure ACKs are ECN-capable
    /// (`TcpConfig::ect_control_packets` on an ECN-capable flow).
    pub fn control_ect(&self) -> bool {
        self.ect && self.config.ect_control_packets
    }

    /// When the retransmission timer expires, if it is armed.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.seq.rto_at()
    }

    /// Whether the SYN/ACK arrived (or the flow skips the handshake).
    fn established(&self) -> bool {
        matches!(self.handshake, Handshake::AckDue | Handshake::Done)
    }

    /// Whether every byte of a sized flow has been acknowledged, after the SYN/ACK with the
    /// handshake (never for a long-lived flow).
    pub fn is_complete(&self) -> bool {
        self.established()
            && self
                .size_bytes
                .is_some_and(|size| self.seq.snd_una() >= size)
    }

    /// Counters so far.
    pub fn stats(&self) -> SenderStats {
        let c = self.seq.counters();
        SenderStats {
            retransmitted_bytes: c.retransmitted_bytes,
            timeouts: c.timeouts,
            fast_retransmits: c.fast_retransmits,
            bytes_acked: c.bytes_acked,
            segments_sent: c.segments_sent,
            syns_sent: self.syns_sent,
        }
    }

    /// Congestion window in bytes.
    pub fn cwnd_bytes(&self) -> u64 {
        self.cc.cwnd_bytes()
    }

    /// Slow-start threshold in bytes (`u64::MAX` before the first cut).
    pub fn ssthresh_bytes(&self) -> u64 {
        self.cc.ssthresh_bytes()
    }

    /// Smoothed RTT, once an ACK has given a sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.seq.srtt()
    }

    /// The current retransmission timeout, back-off included.
    pub fn rto(&self) -> Duration {
        self.seq.rto()
    }

    /// The congestion controller, e.g. to read DCTCP's alpha.
    pub fn congestion_control(&self) -> &CongestionControl {
        &self.cc
    }

    /// Oldest unacknowledged byte offset.
    pub fn snd_una(&self) -> u64 {
        self.seq.snd_una()
    }

    /// Next byte offset to be sent.
    pub fn snd_nxt(&self) -> u64 {
        self.seq.snd_nxt()
    }

    /// Bytes sent and not yet acknowledged (snd_nxt - snd_una).
    pub fn flight_bytes(&self) -> u64 {
        self.seq.flight_bytes()
    }

    /// Bytes in the network by RFC 6675's pipe (with SACK), else the flight.
    pub fn pipe_bytes(&self) -> u64 {
        match &self.scoreboard {
            Some(board) => board.pipe(self.seq.snd_una(), self.seq.high_sent()),
            None => self.flight_bytes(),
        }
    }

    /// Bytes of the flow the receiver has not reported holding: the size less what is
    /// cumulatively acknowledged and what is SACKed above it; `None` for a long-lived flow.
    /// pFabric stamps this on every data packet as its priority (NetSys/simulator
    /// `coresim/flow.cpp`: `size - last_unacked_seq - scoreboard_sack_bytes`; the ns-2 MinTCP
    /// agent's `maxseq - highest_ack - sq_.total()`).
    pub fn unreported_bytes(&self) -> Option<u64> {
        let una = self.seq.snd_una();
        let size = self.size_bytes?;
        let sacked = self.scoreboard.as_ref().map_or(0, |board| board.sacked_in(una, size));
        Some(size.saturating_sub(una).saturating_sub(sacked))
    }

    /// The flow size (of every message pushed so far); `None` for a long-lived flow.
    pub fn size_bytes(&self) -> Option<u64> {
        self.size_bytes
    }

    /// The absolute deadline of the head message (the oldest not fully acknowledged, or the
    /// last), if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.head.deadline
    }

    /// When the sender was created.
    pub fn started_at(&self) -> Instant {
        self.started_at
    }

    /// When the last byte was acknowledged, for a completed flow.
    pub fn completed_at(&self) -> Option<Instant> {
        self.completed_at
    }

    /// Usable window: min(cwnd, receiver's window).
    fn window_bytes(&self) -> u64 {
        self.cc
            .cwnd_bytes()
            .min(self.config.receive_window_bytes.unwrap_or(u64::MAX))
    }

    /// One past the last byte of the flow.
    fn data_end(&self) -> u64 {
        self.size_bytes.unwrap_or(u64::MAX)
    }

    /// Moves `head` past fully acknowledged messages, keeping the last one as head once all are
    /// acknowledged, as a single flow's cut context always referred to its one message.
    fn advance_head(&mut self) {
        while self.head.end <= self.seq.snd_una() {
            match self.later.pop_front() {
                Some(next) => self.head = next,
                None => break,
            }
        }
    }

    /// What a policy may look at when it cuts: B and D are those of the head message, since
    /// its deadline is the one at stake while its bytes are unacknowledged; later messages wait
    /// behind it in the byte stream anyway.
    fn cut_context(&self, now: Instant) -> CutContext {
        let head = self.head;
        let sized = self.size_bytes.is_some();
        CutContext {
            now,
            cwnd_bytes: self.cc.cwnd_bytes(),
            srtt: self.seq.srtt(),
            remaining_bytes: sized.then(|| head.end.saturating_sub(self.seq.snd_una())),
            unsent_bytes: sized.then(|| head.end.saturating_sub(self.seq.snd_nxt())),
            deadline: head.deadline,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcKind;
    use crate::tcp::MSS_BYTES;

    const MSS: u64 = MSS_BYTES as u64;

    const RTO: Duration = Duration::from_ms(10);

    fn config(iw: u32) -> TcpConfig {
        TcpConfig {
            initial_window_segments: iw,
            min_rto: RTO,
            ..TcpConfig::default()
        }
    }

    fn us(t: u64) -> Instant {
        Instant::ZERO + Duration::from_us(t)
    }

    fn sender(iw: u32, size: Option<u64>, kind: CcKind) -> TcpSender {
        TcpSender::new(
            config(iw),
            CongestionControl::new(kind),
            size,
            true,
            None,
            Instant::ZERO,
        )
    }

    fn reno(iw: u32, size: Option<u64>) -> TcpSender {
        sender(iw, size, CcKind::NewReno)
    }

    fn drain(s: &mut TcpSender, now: Instant) -> Vec<DataSegment> {
        std::iter::from_fn(|| s.poll_transmit(now)).collect()
    }

    /// Sequence numbers of `segs`, in segments.
    fn seqs(segs: &[DataSegment]) -> Vec<u64> {
        segs.iter().map(|s| s.seq / MSS).collect()
    }

    fn ack(s: &mut TcpSender, now: Instant, segments: u64) {
        s.handle_ack(
            now,
            &AckSegment::plain(segments * MSS, false, Instant::ZERO),
        );
    }

    fn ack_ece(s: &mut TcpSender, now: Instant, segments: u64) {
        s.handle_ack(
            now,
            &AckSegment::plain(segments * MSS, true, Instant::ZERO),
        );
    }

    fn handshake(iw: u32, size: Option<u64>) -> TcpSender {
        TcpSender::new(
            TcpConfig {
                handshake: true,
                ..config(iw)
            },
            CongestionControl::new(CcKind::NewReno),
            size,
            true,
            None,
            Instant::ZERO,
        )
    }

    /// The SYN/ACK: an ACK for byte 0 echoing the SYN sent at `syn_ts`.
    fn syn_ack(s: &mut TcpSender, now: Instant, syn_ts: Instant) {
        s.handle_ack(
            now,
            &AckSegment::plain(0, false, syn_ts),
        );
    }

    #[test]
    fn handshake_first_transmit_is_syn_then_nothing() {
        let mut s = handshake(2, None);
        let segs = drain(&mut s, us(5));
        assert_eq!(
            segs,
            vec![DataSegment {
                seq: 0,
                len: 0,
                // 40 B of headers and the SYN's MSS and window-scale options.
                header_bytes: 48,
                ts: us(5),
                // An ECN-capable sender, but RFC 3168 Section 6.1.1 keeps SYNs non-ECT.
                ect: false,
                ce: false,
                retransmission: false,
                syn: true,
            }]
        );
        assert_eq!(segs[0].wire_bytes(), TcpConfig::default().syn_header_bytes());
        assert_eq!(s.poll_timeout(), Some(us(5) + RTO));
        assert_eq!((s.snd_nxt(), s.flight_bytes()), (0, 0));
        assert_eq!((s.stats().syns_sent, s.stats().segments_sent), (1, 0));
        // An ACK beyond byte 0 is not a SYN/ACK and releases nothing.
        ack(&mut s, us(10), 1);
        assert_eq!(s.poll_transmit(us(10)), None);
        assert_eq!(s.srtt(), None);
    }

    #[test]
    fn synack_starts_initial_window_and_seeds_rtt() {
        let mut s = handshake(2, None);
        let _ = drain(&mut s, us(0));
        syn_ack(&mut s, us(30), us(0));
        assert_eq!(s.srtt(), Some(Duration::from_us(30)));
        assert_eq!(s.poll_timeout(), None);
        assert_eq!((s.seq.dupacks(), s.cwnd_bytes()), (0, 2 * MSS));
        let segs = drain(&mut s, us(30));
        assert_eq!(seqs(&segs), vec![0, 1]);
        assert!(segs.iter().all(|seg| !seg.syn && !seg.retransmission));
        assert_eq!(s.poll_timeout(), Some(us(30) + RTO));
        // Data is acknowledged as without the handshake.
        ack(&mut s, us(60), 1);
        assert_eq!(s.cwnd_bytes(), 3 * MSS);
        assert_eq!(s.stats().segments_sent, 2);
    }

    #[test]
    fn lost_syn_is_resent_after_rto_with_backoff() {
        let mut s = handshake(2, None);
        let _ = drain(&mut s, us(0));
        let due = s.poll_timeout().unwrap();
        s.handle_timeout(due);
        assert_eq!(s.stats().timeouts, 1);
        // No data was lost: the window is not cut.
        assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (2 * MSS, u64::MAX));
        assert_eq!(s.poll_timeout(), Some(due + RTO.saturating_mul(2)));
        let segs = drain(&mut s, due);
        assert_eq!(segs.len(), 1);
        assert!(segs[0].syn && segs[0].retransmission);
        assert_eq!(segs[0].ts, due);
        let due2 = s.poll_timeout().unwrap();
        s.handle_timeout(due2);
        assert_eq!(s.stats().timeouts, 2);
        assert_eq!(s.poll_timeout(), Some(due2 + RTO.saturating_mul(4)));
        assert_eq!(drain(&mut s, due2).len(), 1);
        assert_eq!(s.stats().syns_sent, 3);
        // The third SYN's answer: a fresh sample clears the back-off, data flows.
        syn_ack(&mut s, due2 + Duration::from_us(30), due2);
        assert_eq!(s.rto(), RTO);
        let now = due2 + Duration::from_us(30);
        assert_eq!(seqs(&drain(&mut s, now)), vec![0, 1]);
        // The second SYN was only delayed: its late SYN/ACK is not a duplicate ACK.
        syn_ack(&mut s, now + Duration::from_us(1), due);
        assert_eq!(
            (s.seq.dupacks(), s.cwnd_bytes(), s.srtt()),
            (0, 2 * MSS, Some(Duration::from_us(30)))
        );
        assert_eq!(s.stats().retransmitted_bytes, 0);
    }

    #[test]
    fn handshake_empty_flow_completes_after_synack() {
        let mut s = handshake(2, Some(0));
        assert!(!s.is_complete());
        assert!(drain(&mut s, us(0))[0].syn);
        syn_ack(&mut s, us(30), us(0));
        assert!(s.is_complete());
        assert_eq!(s.completed_at(), Some(us(30)));
        assert_eq!((s.poll_transmit(us(30)), s.poll_timeout()), (None, None));
    }

    #[test]
    fn handshake_off_is_unchanged() {
        let mut s = reno(2, None);
        let first = s.poll_transmit(us(0)).unwrap();
        assert_eq!((first.seq, first.len, first.syn), (0, MSS_BYTES, false));
        assert_eq!(s.stats().syns_sent, 0);
        // With data in flight an ACK for byte 0 is an ordinary duplicate, not a SYN/ACK.
        ack(&mut s, us(1), 0);
        assert_eq!((s.seq.dupacks(), s.srtt()), (1, None));
    }

    #[test]
    fn new_initial_window_sends_iw_segments_and_arms_timer() {
        let mut s = reno(2, None);
        let segs = drain(&mut s, us(5));
        assert_eq!(seqs(&segs), vec![0, 1]);
        let first = segs[0];
        assert_eq!(
            (
                first.len,
                first.ts,
                first.ect,
                first.ce,
                first.retransmission
            ),
            (MSS_BYTES, us(5), true, false, false)
        );
        assert_eq!(s.poll_timeout(), Some(us(5) + RTO));
        assert_eq!(s.flight_bytes(), 2 * MSS);
        assert_eq!(s.stats().segments_sent, 2);
    }

    #[test]
    fn sized_flow_last_segment_shorter_then_complete() {
        let mut s = reno(10, Some(2 * MSS + 100));
        let segs = drain(&mut s, us(0));
        assert_eq!(
            segs.iter().map(|s| s.len).collect::<Vec<_>>(),
            vec![MSS_BYTES, MSS_BYTES, 100]
        );
        assert!(!s.is_complete());
        s.handle_ack(
            us(50),
            &AckSegment::plain(2 * MSS + 100, false, us(0)),
        );
        assert!(s.is_complete());
        assert_eq!(s.completed_at(), Some(us(50)));
        assert_eq!(s.poll_timeout(), None);
        assert_eq!(s.stats().bytes_acked, 2 * MSS + 100);
        assert_eq!(s.poll_transmit(us(50)), None);
    }

    #[test]
    fn empty_flow_complete_at_start_sends_nothing() {
        let mut s = reno(2, Some(0));
        assert!(s.is_complete());
        assert_eq!(s.poll_transmit(us(0)), None);
        assert_eq!(s.poll_timeout(), None);
    }

    #[test]
    fn long_lived_flow_never_complete() {
        let mut s = reno(2, None);
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(10), 2);
        assert!(!s.is_complete());
        assert_eq!(seqs(&drain(&mut s, us(10))), vec![2, 3, 4, 5]);
    }

    #[test]
    fn slow_start_each_ack_grows_cwnd_by_acked_bytes() {
        let mut s = reno(2, None);
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(10), 1);
        assert_eq!(s.cwnd_bytes(), 3 * MSS);
        assert_eq!(seqs(&drain(&mut s, us(10))), vec![2, 3]);
        // A stretch ACK of 3 segments grows by 3 segments.
        ack(&mut s, us(20), 4);
        assert_eq!(s.cwnd_bytes(), 6 * MSS);
        assert_eq!(seqs(&drain(&mut s, us(20))), vec![4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn sender_not_limited_by_window_does_not_grow_it() {
        // The driver takes only 2 of the 10 segments the window allows (its NIC is busy).
        let mut s = reno(10, None);
        let _ = s.poll_transmit(us(0));
        let _ = s.poll_transmit(us(0));
        ack(&mut s, us(10), 2);
        assert_eq!(
            s.cwnd_bytes(),
            10 * MSS,
            "RFC 7661: no growth without a full window"
        );
        // Once the window has been the limit, its ACKs grow it again.
        let _ = drain(&mut s, us(10));
        ack(&mut s, us(20), 3);
        assert_eq!(s.cwnd_bytes(), 11 * MSS);
    }

    #[test]
    fn congestion_avoidance_grows_one_mss_per_window() {
        let mut s = reno(10, None);
        let _ = drain(&mut s, us(0));
        // An ECN cut takes the flow out of slow start: cwnd = ssthresh = 5 MSS.
        ack_ece(&mut s, us(10), 1);
        assert_eq!((s.cwnd_bytes(), s.ssthresh_bytes()), (5 * MSS, 5 * MSS));
        for n in 2..=5 {
            ack(&mut s, us(10 + n), n);
            assert_eq!(s.cwnd_bytes(), 5 * MSS);
        }
        ack(&mut s, us(20), 6);
        assert_eq!(s.cwnd_bytes(), 6 * MSS);
        // Flight is 10 - 6 = 4 segments, so two more fit.
        assert_eq!(seqs(&drain(&mut s, us(20))), vec![10, 11]);
    }

    #[test]
    fn receive_window_limits_flight() {
        let c = TcpConfig {
            receive_window_bytes: Some(3 * MSS),
            ..config(10)
        };
        let mut s = TcpSender::new(
            c,
            CongestionControl::new(CcKind::NewReno),
            None,
            false,
            None,
            us(0),
        );
        assert_eq!(seqs(&drain(&mut s, us(0))), vec![0, 1, 2]);
        ack(&mut s, us(10), 1);
        assert_eq!(seqs(&drain(&mut s, us(10))), vec![3]);
    }

    #[test]
    fn two_dupacks_below_threshold_no_retransmit() {
        let mut s = reno(10, None);
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(10), 1);
        ack(&mut s, us(11), 1);
        ack(&mut s, us(12), 1);
        assert_eq!(s.stats().fast_retransmits, 0);
        assert!(drain(&mut s, us(12)).iter().all(|seg| !seg.retransmission));
    }

    #[test]
    fn three_dupacks_fast_retransmit_then_newreno_partial_and_full_ack() {
        // Segments 2 and 5 of the first 12 are lost.
        let mut s = reno(10, None);
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(100), 1);
        ack(&mut s, us(101), 2);
        assert_eq!(s.cwnd_bytes(), 12 * MSS);
        assert_eq!(seqs(&drain(&mut s, us(101))), vec![10, 11, 12, 13]);
        // Segments 3 and 4 arrive: two duplicates. Then segment 6: the third.
        ack(&mut s, us(102), 2);
        ack(&mut s, us(103), 2);
        assert_eq!(s.stats().fast_retransmits, 0);
        ack(&mut s, us(104), 2);
        assert_eq!(s.stats().fast_retransmits, 1);
        assert!(s.congestion_control().in_recovery());
        // ssthresh = flight / 2 = 12 / 2 segments; cwnd = ssthresh + 3.
        assert_eq!(s.ssthresh_bytes(), 6 * MSS);
        assert_eq!(s.cwnd_bytes(), 9 * MSS);
        let rexmit = drain(&mut s, us(104));
        assert_eq!(seqs(&rexmit), vec![2]);
        assert!(rexmit[0].retransmission);
        assert_eq!(s.stats().retransmitted_bytes, MSS);
        // Segments 7..=13 arrive: 7 more duplicates inflate cwnd to 16, flight is 12: 4 new.
        for i in 0..7 {
            ack(&mut s, us(105 + i), 2);
        }
        assert_eq!(s.cwnd_bytes(), 16 * MSS);
        assert_eq!(seqs(&drain(&mut s, us(112))), vec![14, 15, 16, 17]);
        // The retransmitted 2 arrives: partial ACK up to the next hole, 5, which is resent.
        ack(&mut s, us(200), 5);
        assert!(s.congestion_control().in_recovery());
        // Deflate by the 3 acked segments, add one back.
        assert_eq!(s.cwnd_bytes(), 14 * MSS);
        // The hole first, outside the window; then flight 13 + 1 fits the deflated window.
        let rexmit = drain(&mut s, us(200));
        assert_eq!(seqs(&rexmit), vec![5, 18]);
        assert!(rexmit[0].retransmission && !rexmit[1].retransmission);
        assert_eq!(s.stats().retransmitted_bytes, 2 * MSS);
        assert_eq!(s.stats().fast_retransmits, 1);
        // 5 arrives: the ACK covers recover (14): recovery ends with cwnd = min(6, 5 + 1).
        ack(&mut s, us(300), 14);
        assert!(!s.congestion_control().in_recovery());
        assert_eq!(s.cwnd_bytes(), 6 * MSS);
        assert_eq!(seqs(&drain(&mut s, us(300))), vec![19]);
        assert_eq!(s.stats().timeouts, 0);
    }

    #[test]
    fn rto_expiry_one_mss_go_back_n_and_backoff() {
        let mut s = reno(4, None);
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(100), 1);
        let _ = drain(&mut s, us(100));
        // Flight: segments 1..=5. Nothing more arrives.
        let due = s.poll_timeout().unwrap();
        assert_eq!(due, us(100) + RTO);
        s.handle_timeout(due);
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(s.cwnd_bytes(), MSS);
        assert_eq!(s.ssthresh_bytes(), 5 * MSS / 2);
        assert_eq!(s.poll_timeout(), Some(due + RTO.saturating_mul(2)));
        let segs = drain(&mut s, due);
        assert_eq!(seqs(&segs), vec![1]);
        assert!(segs[0].retransmission);
        // Second expiry: the back-off doubles again.
        let due2 = s.poll_timeout().unwrap();
        s.handle_timeout(due2);
        assert_eq!(s.stats().timeouts, 2);
        assert_eq!(s.poll_timeout(), Some(due2 + RTO.saturating_mul(4)));
        assert_eq!(seqs(&drain(&mut s, due2)), vec![1]);
        // The retransmission is acknowledged: new RTT sample, back-off cleared, slow start
        // resends the rest of the old window.
        s.handle_ack(
            due2 + Duration::from_us(100),
            &AckSegment::plain(2 * MSS, false, due2),
        );
        assert_eq!(s.rto(), RTO);
        assert_eq!(s.cwnd_bytes(), 2 * MSS);
        let segs = drain(&mut s, due2 + Duration::from_us(100));
        assert_eq!(seqs(&segs), vec![2, 3]);
        assert!(segs.iter().all(|seg| seg.retransmission));
        assert_eq!(s.stats().retransmitted_bytes, 4 * MSS);
    }

    #[test]
    fn rto_small_rtt_clamped_to_min_rto() {
        let mut s = reno(2, None);
        let _ = drain(&mut s, us(0));
        s.handle_ack(
            us(100),
            &AckSegment::plain(MSS, false, us(0)),
        );
        assert_eq!(s.srtt(), Some(Duration::from_us(100)));
        assert_eq!(s.rto(), RTO);
        assert_eq!(s.poll_timeout(), Some(us(100) + RTO));
    }

    #[test]
    fn handle_timeout_early_is_noop() {
        let mut s = reno(2, None);
        let _ = drain(&mut s, us(0));
        let before = (s.stats(), s.cwnd_bytes(), s.poll_timeout(), s.snd_nxt());
        s.handle_timeout(us(0));
        s.handle_timeout(us(0) + RTO - Duration::from_ps(1));
        assert_eq!(
            (s.stats(), s.cwnd_bytes(), s.poll_timeout(), s.snd_nxt()),
            before
        );
        assert_eq!(s.poll_transmit(us(1)), None);
    }

    #[test]
    fn handle_timeout_nothing_outstanding_is_noop() {
        let mut s = reno(2, Some(MSS));
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(10), 1);
        s.handle_timeout(us(10) + Duration::from_secs(100));
        assert_eq!(s.stats().timeouts, 0);
    }

    #[test]
    fn after_timeout_old_dupacks_no_fast_retransmit() {
        let mut s = reno(10, None);
        let _ = drain(&mut s, us(0));
        // Segment 0 lost; the timeout fires before any duplicate ACK arrives.
        let due = s.poll_timeout().unwrap();
        s.handle_timeout(due);
        let _ = drain(&mut s, due);
        // Duplicates for the old segments 1..=9 trail in: recover = 10 blocks fast retransmit.
        for i in 0..9 {
            ack(&mut s, due + Duration::from_us(i), 0);
        }
        assert_eq!(s.stats().fast_retransmits, 0);
        assert_eq!(s.poll_transmit(due + Duration::from_us(10)), None);
    }

    #[test]
    fn ack_beyond_highest_sent_or_stale_ignored() {
        let mut s = reno(2, None);
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(10), 7);
        assert_eq!((s.snd_una(), s.cwnd_bytes()), (0, 2 * MSS));
        ack(&mut s, us(11), 2);
        ack(&mut s, us(12), 1);
        assert_eq!(s.snd_una(), 2 * MSS);
        assert_eq!(s.cwnd_bytes(), 4 * MSS);
        assert_eq!(s.stats().fast_retransmits, 0);
    }

    #[test]
    fn ack_after_go_back_n_for_pre_timeout_data_accepted() {
        let mut s = reno(4, None);
        let _ = drain(&mut s, us(0));
        let due = s.poll_timeout().unwrap();
        s.handle_timeout(due);
        let _ = drain(&mut s, due);
        assert_eq!(s.snd_nxt(), MSS);
        // Everything sent before the timeout was only delayed: the ACK jumps past snd_nxt.
        ack(&mut s, due + Duration::from_us(1), 4);
        assert_eq!(
            (s.snd_una(), s.snd_nxt(), s.flight_bytes()),
            (4 * MSS, 4 * MSS, 0)
        );
        // Slow start to ssthresh (2 MSS), the other 3 MSS in avoidance: cwnd = 3 MSS.
        assert_eq!(
            seqs(&drain(&mut s, due + Duration::from_us(1))),
            vec![4, 5, 6]
        );
    }

    #[test]
    fn newreno_ece_halves_once_per_window() {
        let mut s = reno(10, None);
        let _ = drain(&mut s, us(0));
        ack_ece(&mut s, us(10), 1);
        assert_eq!(s.cwnd_bytes(), 5 * MSS);
        // More marks from the same window (snd_nxt was 10 at the cut): no further cut.
        ack_ece(&mut s, us(11), 5);
        ack_ece(&mut s, us(12), 10);
        assert_eq!(s.cwnd_bytes(), 6 * MSS);
        let _ = drain(&mut s, us(12));
        // A mark on data sent after the cut cuts again.
        ack_ece(&mut s, us(20), 11);
        assert_eq!(s.cwnd_bytes(), 3 * MSS);
    }

    #[test]
    fn dctcp_ece_cut_by_half_alpha_once_per_window() {
        let mut s = sender(10, None, CcKind::dctcp());
        let _ = drain(&mut s, us(0));
        // First ACK closes the first estimator window: F = 1, alpha stays 1, cut by half.
        ack_ece(&mut s, us(10), 1);
        assert_eq!(s.congestion_control().dctcp_alpha(), Some(1.0));
        assert_eq!(s.cwnd_bytes(), 5 * MSS);
        ack_ece(&mut s, us(11), 2);
        assert_eq!(s.cwnd_bytes(), 5 * MSS);
        // Unmarked windows: alpha decays (the exact per-window math is tested in cc::dctcp).
        let mut now = 20;
        let mut una = 2;
        for _ in 0..30 {
            let _ = drain(&mut s, us(now));
            let nxt = s.snd_nxt() / MSS;
            while una < nxt {
                una += 1;
                now += 1;
                ack(&mut s, us(now), una);
            }
        }
        let alpha = s.congestion_control().dctcp_alpha().unwrap();
        assert!(alpha < 0.1, "alpha {alpha}");
        let _ = drain(&mut s, us(now));
        let cwnd = s.cwnd_bytes();
        // The marked ACK closes a window first (F = 1), then cuts with the updated alpha.
        ack_ece(&mut s, us(now + 1), una + 1);
        let alpha = s.congestion_control().dctcp_alpha().unwrap();
        assert!(alpha < 0.2);
        assert_eq!(s.cwnd_bytes(), (cwnd as f64 * (1.0 - alpha / 2.0)) as u64);
    }

    #[test]
    fn cut_context_carries_remaining_unsent_bytes_and_deadline() {
        let deadline = Some(us(5_000));
        let mut s = TcpSender::new(
            config(2),
            CongestionControl::new(CcKind::NewReno),
            Some(10 * MSS),
            true,
            deadline,
            us(0),
        );
        let _ = drain(&mut s, us(0));
        ack(&mut s, us(100), 1);
        let ctx = s.cut_context(us(100));
        assert_eq!(ctx.remaining_bytes, Some(9 * MSS));
        // The initial 2 segments went out and 1 is acknowledged: 8 never sent.
        assert_eq!(ctx.unsent_bytes, Some(8 * MSS));
        assert_eq!(ctx.deadline, deadline);
        assert_eq!(ctx.cwnd_bytes, 3 * MSS);
        // The window of 3 sends 2 more: unsent falls, unacknowledged does not.
        let _ = drain(&mut s, us(100));
        let ctx = s.cut_context(us(100));
        assert_eq!((ctx.remaining_bytes, ctx.unsent_bytes), (Some(9 * MSS), Some(6 * MSS)));
    }

    /// Sends and acknowledges (one ACK per segment, 10 us apart from `*now`) until nothing is
    /// left to send; sizes must be whole segments.
    fn run_to_completion(s: &mut TcpSender, now: &mut u64) {
        loop {
            let segs = drain(s, us(*now));
            if segs.is_empty() {
                break;
            }
            for seg in segs {
                *now += 10;
                ack(s, us(*now), seg.end() / MSS);
            }
        }
        assert!(s.is_complete());
    }

    /// A sender of `kind` that carried a 40-segment message to completion, and the time then.
    fn warmed(kind: CcKind, restart_after_idle: bool) -> (TcpSender, u64) {
        let c = TcpConfig { restart_after_idle, ..config(2) };
        let mut s = TcpSender::new(c, CongestionControl::new(kind), Some(40 * MSS), true, None, us(0));
        let mut now = 0;
        run_to_completion(&mut s, &mut now);
        (s, now)
    }

    #[test]
    fn push_message_warmed_connection_starts_with_previous_window() {
        let (mut s, now) = warmed(CcKind::NewReno, false);
        let cwnd = s.cwnd_bytes();
        assert!(cwnd > 10 * MSS, "slow start grew the window: {cwnd}");
        s.push_message(us(now + 5), 20 * MSS, None);
        assert!(!s.is_complete());
        assert_eq!(s.size_bytes(), Some(60 * MSS));
        // The whole warmed window leaves at once, continuing the sequence at 40.
        let segs = drain(&mut s, us(now + 5));
        assert_eq!(segs.len() as u64, (cwnd / MSS).min(20));
        assert_eq!(segs[0].seq, 40 * MSS);
        assert!(segs.iter().all(|seg| !seg.retransmission && !seg.syn));
        let mut now = now + 5;
        for seg in segs {
            now += 10;
            ack(&mut s, us(now), seg.end() / MSS);
        }
        run_to_completion(&mut s, &mut now);
        assert_eq!(s.snd_una(), 60 * MSS);
    }

    #[test]
    fn push_message_keeps_dctcp_alpha() {
        let mut s = sender(10, Some(10 * MSS), CcKind::dctcp());
        let _ = drain(&mut s, us(0));
        // Half the first window is marked: alpha moves off its initial 1.
        for i in 1..=10 {
            if i % 2 == 0 {
                ack_ece(&mut s, us(10 * i), i);
            } else {
                ack(&mut s, us(10 * i), i);
            }
        }
        assert!(s.is_complete());
        let alpha = s.congestion_control().dctcp_alpha().unwrap();
        assert!(alpha < 1.0, "alpha {alpha}");
        s.push_message(us(200), 4 * MSS, None);
        assert_eq!(s.congestion_control().dctcp_alpha(), Some(alpha));
        // A fresh sender would start from alpha = 1.
        let fresh = sender(10, Some(4 * MSS), CcKind::dctcp());
        assert_eq!(fresh.congestion_control().dctcp_alpha(), Some(1.0));
    }

    #[test]
    fn cut_context_follows_oldest_unacknowledged_message() {
        let (d1, d2) = (Some(us(5_000)), Some(us(9_000)));
        let mut s = TcpSender::new(config(10), CongestionControl::new(CcKind::NewReno), Some(4 * MSS), true, d1, us(0));
        let _ = drain(&mut s, us(0));
        s.push_message(us(1), 6 * MSS, d2);
        let _ = drain(&mut s, us(1));
        assert_eq!(s.snd_nxt(), 10 * MSS);
        ack(&mut s, us(100), 3);
        let ctx = s.cut_context(us(100));
        assert_eq!((ctx.remaining_bytes, ctx.unsent_bytes, ctx.deadline), (Some(MSS), Some(0), d1));
        assert_eq!(s.deadline(), d1);
        // The first message is acknowledged: B and D are the second's.
        ack(&mut s, us(101), 4);
        let ctx = s.cut_context(us(101));
        assert_eq!((ctx.remaining_bytes, ctx.unsent_bytes, ctx.deadline), (Some(6 * MSS), Some(0), d2));
        // Everything acknowledged: the last message stays the head, with nothing left.
        ack(&mut s, us(102), 10);
        let ctx = s.cut_context(us(102));
        assert_eq!((ctx.remaining_bytes, ctx.deadline), (Some(0), d2));
        // A message pushed onto the idle connection becomes the head at once.
        let d3 = Some(us(20_000));
        s.push_message(us(103), 2 * MSS, d3);
        let ctx = s.cut_context(us(103));
        assert_eq!((ctx.remaining_bytes, ctx.deadline), (Some(2 * MSS), d3));
    }

    #[test]
    fn push_message_after_idle_keeps_window_by_default() {
        let (mut s, now) = warmed(CcKind::NewReno, false);
        let cwnd = s.cwnd_bytes();
        s.push_message(us(now) + Duration::from_secs(10), 2 * MSS, None);
        assert_eq!(s.cwnd_bytes(), cwnd);
    }

    #[test]
    fn push_message_after_idle_restarts_window_when_asked() {
        let (mut s, now) = warmed(CcKind::NewReno, true);
        let cwnd = s.cwnd_bytes();
        // Idle for less than the RTO: the window stands.
        s.push_message(us(now + 5_000), 2 * MSS, None);
        assert_eq!(s.cwnd_bytes(), cwnd);
        let mut t = now + 5_000;
        run_to_completion(&mut s, &mut t);
        let cwnd = s.cwnd_bytes();
        // Idle for longer: back to the initial window (the ssthresh rule is tested in cc::window).
        s.push_message(us(t) + RTO.saturating_mul(2), 2 * MSS, None);
        assert!(cwnd > 2 * MSS);
        assert_eq!(s.cwnd_bytes(), 2 * MSS);
        assert_eq!(seqs(&drain(&mut s, us(t) + RTO.saturating_mul(2))), vec![42, 43]);
    }

    #[test]
    #[should_panic(expected = "long-lived")]
    fn push_message_on_long_lived_flow_panics() {
        reno(2, None).push_message(us(0), MSS, None);
    }
}
