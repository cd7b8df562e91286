//! The PDQ sender (PDQ Section 3.2): it sends at the rate the switches accept, R_S, and while a
//! switch pauses it (R_S = 0) it sends nothing but a header-only probe every I_S RTTs; it gives
//! up on a flow that cannot meet its deadline (Early Termination).
//!
//! ```text
//!  SYN (header-only, R_S = 0) ──► switches ──► receiver ──► SYN-ACK: R_S, P_S, I_S
//!   R_S > 0: data paced at R_S, every packet carries <R_max, P_S, D, T, RTT, I_S>
//!   R_S = 0: a probe every max(I_S, 1) RTTs after the last packet sent
//!   all acknowledged, or Early Termination: FIN/TERM (header-only), re-sent until answered
//! ```
//!
//! Reliability is TCP's, shared through [`SendSequence`]: cumulative ACKs, fast retransmit on
//! three duplicates, the RFC 6298 timer and go-back-N, all at the accepted rate (the paper's
//! PDQ retransmits on timeouts; incast gives it TCP's full machinery, as it does D3).

use super::header::{PerMilleRtt, SchedulingHeader, SwitchId};
use crate::rate::{time_at, Rate};
use crate::tcp::{AckClass, AckSegment, DataSegment, Duplicate, SendSequence, TcpConfig};
use crate::time::{Duration, Instant};

/// What a PDQ host needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdqConfig {
    /// Segments, ACKs and the retransmission timer.
    pub tcp: TcpConfig,
    /// R_max, the sender's NIC rate: what it asks for, and the rate of T = bytes left / R_max.
    pub max_rate: Rate,
    /// Early Termination (Section 3.2): a flow with a deadline ends when it has passed, when
    /// the bytes left cannot be sent before it even at R_max, or when the flow is paused with
    /// less than an RTT to go (only while it has bytes it never sent).
    pub early_termination: bool,
}

/// A packet of the flow: its data segment (header-only when `len` is 0) and its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdqSegment {
    /// Sequence, payload and timestamp.
    pub data: DataSegment,
    /// The scheduling header it carries.
    pub header: SchedulingHeader,
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PdqStats {
    /// Payload bytes sent again.
    pub retransmitted_bytes: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Probes sent while paused (the SYN and FIN not counted).
    pub probes: u64,
    /// Time spent paused, from the ACK that paused the flow to the one that resumed it.
    pub time_paused: Duration,
}

/// Which header-only packet waits for its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Control {
    Syn,
    Probe,
    Fin,
}

#[derive(Clone, Copy, Debug)]
struct Outstanding {
    kind: Control,
    /// Re-sent if unanswered by then (a lost SYN, probe or FIN).
    resend_at: Instant,
}

/// The sender of one PDQ flow: a sans-IO state machine over byte offsets starting at 0, with
/// the driver contract of the other senders: [`poll_transmit`](Self::poll_transmit) until `None`
/// after every call, [`handle_ack`](Self::handle_ack) with the header the ACK echoes, a timer at
/// [`poll_timeout`](Self::poll_timeout) and [`handle_timeout`](Self::handle_timeout).
#[derive(Clone, Debug)]
pub struct PdqSender {
    config: PdqConfig,
    size_bytes: Option<u64>,
    deadline: Option<Instant>,
    completed_at: Option<Instant>,
    seq: SendSequence,
    /// R_S: 0 before the SYN is answered and while paused.
    rate: Rate,
    /// P_S: the switch that paused the flow.
    pause_by: Option<SwitchId>,
    /// I_S.
    inter_probe: PerMilleRtt,
    syn_sent: bool,
    /// The switches answered the SYN: the flow has a rate or a pause.
    started: bool,
    outstanding: Option<Outstanding>,
    /// A lost header-only packet to send again at the next poll.
    resend: Option<Control>,
    /// When the last packet left (a paused flow probes counting from it).
    last_sent_at: Instant,
    /// With the flow paused: when it may probe next.
    next_probe_at: Option<Instant>,
    /// When the last data segment left and its bytes on the wire: the next leaves one
    /// serialization of them at the current R_S later (so a higher rate takes effect at once).
    /// `None` when nothing paces the next one (none sent yet, or the flow just resumed).
    last_data: Option<(Instant, u64)>,
    /// When the last `poll_transmit` that found nothing to send should be asked again: the
    /// pacer, the next probe, or the moment Early Termination would end the flow. Cleared when
    /// it fires, so a driver that cannot poll (its NIC is full) is not woken over and over.
    wake_at: Option<Instant>,
    /// Since when the flow is paused.
    paused_since: Option<Instant>,
    fin_sent: bool,
    terminated: bool,
    complete: bool,
    stats: PdqStats,
}

impl PdqSender {
    /// A sender about to send its SYN. `size_bytes` `None` is a long-lived flow (the least
    /// critical of all: T is infinite); `deadline` is absolute. A flow of 0 bytes is complete at
    /// once and sends nothing.
    pub fn new(config: PdqConfig, size_bytes: Option<u64>, deadline: Option<Instant>, now: Instant) -> Self {
        PdqSender {
            config,
            size_bytes,
            deadline,
            completed_at: (size_bytes == Some(0)).then_some(now),
            seq: SendSequence::new(&config.tcp),
            rate: 0,
            pause_by: None,
            inter_probe: 0,
            syn_sent: false,
            started: false,
            outstanding: None,
            resend: None,
            last_sent_at: now,
            next_probe_at: None,
            last_data: None,
            wake_at: None,
            paused_since: None,
            fin_sent: false,
            terminated: false,
            complete: size_bytes == Some(0),
            stats: PdqStats::default(),
        }
    }

    /// The next packet to put on the wire, if any now. Call in a loop until `None`.
    ///
    /// In order: the SYN; a lost header-only packet again; the FIN once every byte is
    /// acknowledged, or the TERM of Early Termination; then, at a rate, a fast retransmission or
    /// new or go-back-N data paced at R_S; while paused, a probe when one is due.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Instant) -> Option<PdqSegment> {
        // Each poll says anew when to ask again (the last one, which returns `None`, counts).
        self.wake_at = None;
        if self.complete {
            return None;
        }
        if !self.syn_sent {
            if self.should_terminate(now) {
                // Hopeless from the start: no switch has heard of the flow, so nothing is sent.
                self.terminated = true;
                self.complete = true;
                self.completed_at = Some(now);
                return None;
            }
            self.syn_sent = true;
            return Some(self.control(now, Control::Syn));
        }
        if let Some(kind) = self.resend.take() {
            return Some(self.control(now, kind));
        }
        if self.fin_sent {
            return None;
        }
        if self.all_acked() {
            return Some(self.control(now, Control::Fin));
        }
        if self.should_terminate(now) {
            self.terminated = true;
            self.completed_at = Some(now);
            return Some(self.control(now, Control::Fin));
        }
        if !self.started {
            return self.decline(now, None);
        }
        if self.rate == 0 {
            let due = self.outstanding.is_none() && self.next_probe_at.is_some_and(|t| now >= t);
            if !due {
                let probe_at = if self.outstanding.is_none() { self.next_probe_at } else { None };
                return self.decline(now, probe_at);
            }
            self.stats.probes += 1;
            self.next_probe_at = None;
            return Some(self.control(now, Control::Probe));
        }
        let send_at = self.next_send_at();
        if now < send_at {
            // At a rate so low that the next segment is further off than a paused flow's next
            // probe, probe instead: the flow hears of a higher rate as soon as a paused one would
            // (a rate of a few bytes per second would otherwise hold it for minutes).
            let probe_at = self.last_sent_at + self.probe_spacing();
            if self.outstanding.is_none() && probe_at < send_at {
                if now >= probe_at {
                    self.stats.probes += 1;
                    return Some(self.control(now, Control::Probe));
                }
                return self.decline(now, Some(probe_at));
            }
            return self.decline(now, Some(send_at));
        }
        let end = self.data_end();
        let data = match self.seq.take_retransmit(now, end, false) {
            Some(data) => data,
            None if self.seq.next_len(end).is_some() => self.seq.send_new(now, end, false),
            // Everything is sent: the ACKs (or the timer) bring what comes next.
            None => return self.decline(now, None),
        };
        let header = self.header(false);
        let wire = u64::from(data.wire_bytes()) + u64::from(super::PDQ_HEADER_BYTES);
        self.last_data = Some((now, wire));
        self.last_sent_at = now;
        Some(PdqSegment { data, header })
    }

    /// Processes an ACK and the header it echoes: R_S, P_S and I_S as the switches left them.
    pub fn handle_ack(&mut self, now: Instant, ack: &AckSegment, echo: Option<&SchedulingHeader>) {
        let class = self.seq.classify(ack.ack);
        if self.complete || !self.syn_sent || class == AckClass::Beyond {
            return;
        }
        let answers_control = echo.is_some_and(|h| h.probe);
        if class == AckClass::New {
            self.seq.on_new_ack(now, ack);
        } else if answers_control {
            self.seq.sample_rtt(now, ack.ts_echo);
        } else if class == AckClass::Duplicate && !self.all_acked() && self.seq.on_duplicate_ack() == Duplicate::Loss {
            self.seq.enter_fast_retransmit();
        }
        if self.completed_at.is_none() && self.all_acked() {
            self.completed_at = Some(now);
        }
        let Some(echo) = echo else { return };
        if answers_control {
            match self.outstanding.map(|o| o.kind) {
                Some(Control::Fin) if echo.fin => {
                    self.complete = true;
                    return;
                }
                Some(Control::Syn | Control::Probe) if !echo.fin => self.outstanding = None,
                _ => {}
            }
        }
        if echo.fin {
            return;
        }
        self.started = true;
        let was_paused = self.rate == 0;
        self.pause_by = echo.pause_by;
        self.inter_probe = echo.inter_probe;
        self.rate = if echo.pause_by.is_some() { 0 } else { echo.rate };
        match (was_paused, self.rate == 0) {
            (true, false) => {
                if let Some(since) = self.paused_since.take() {
                    self.stats.time_paused = self.stats.time_paused + now.saturating_since(since);
                }
                self.last_data = None;
                self.next_probe_at = None;
            }
            (_, true) => {
                if !was_paused || self.paused_since.is_none() {
                    self.paused_since = Some(now);
                }
                self.next_probe_at = Some(self.last_sent_at + self.probe_spacing());
            }
            _ => {}
        }
    }

    /// The earliest timer: the retransmission timer, a header-only packet's re-send, or when
    /// the last poll said to ask again (the pacer, the next probe, Early Termination).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.complete {
            return None;
        }
        earliest(earliest(self.seq.rto_at(), self.outstanding.map(|o| o.resend_at)), self.wake_at)
    }

    /// Fires whatever is due: a lost header-only packet is sent again, the retransmission timer
    /// goes back to `snd_una`; the pacer, the probe and Early Termination act at the next poll.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.complete {
            return;
        }
        if self.wake_at.is_some_and(|t| now >= t) {
            self.wake_at = None;
        }
        if let Some(o) = self.outstanding.filter(|o| now >= o.resend_at) {
            self.outstanding = None;
            self.resend = Some(o.kind);
            self.seq.back_off(now);
            if o.kind == Control::Fin {
                self.fin_sent = false;
            }
        }
        if self.seq.rto_due(now) {
            if self.seq.flight_bytes() > 0 {
                self.seq.go_back_n(now);
            } else {
                self.seq.stop_timer();
            }
        }
    }

    /// Done: the FIN (or TERM) answered, or a flow of no bytes. A long-lived flow never is.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Whether Early Termination gave up on the flow.
    pub fn terminated(&self) -> bool {
        self.terminated
    }

    /// When the last byte was acknowledged, or the flow terminated.
    pub fn completed_at(&self) -> Option<Instant> {
        self.completed_at
    }

    /// R_S, the rate the switches accept (0 while paused or before the SYN is answered).
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// P_S, the switch that paused the flow.
    pub fn paused_by(&self) -> Option<SwitchId> {
        self.pause_by
    }

    /// The smoothed RTT, once a sample exists.
    pub fn srtt(&self) -> Option<Duration> {
        self.seq.srtt()
    }

    /// The current retransmission timeout, back-off included.
    pub fn rto(&self) -> Duration {
        self.seq.rto()
    }

    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.seq.snd_una()
    }

    /// Counters so far.
    pub fn stats(&self) -> PdqStats {
        let c = self.seq.counters();
        PdqStats { retransmitted_bytes: c.retransmitted_bytes, timeouts: c.timeouts, ..self.stats }
    }

    /// The smoothed RTT, or the initial RTO's worth before a sample (the SYN's answer gives the
    /// first one, so data never waits on this guess).
    fn rtt(&self) -> Duration {
        self.seq.srtt().unwrap_or_else(|| self.seq.rto())
    }

    /// A paused flow probes every max(I_S, 1) RTTs, counted from the last packet it sent.
    fn probe_spacing(&self) -> Duration {
        Duration::from_ps(self.rtt().as_ps().saturating_mul(u64::from(self.inter_probe.max(1000))) / 1000)
    }

    /// When the next data segment may leave: one serialization of the last one at R_S after it.
    fn next_send_at(&self) -> Instant {
        self.last_data.map_or(Instant::ZERO, |(at, wire)| at + time_at(wire, self.rate))
    }

    fn all_acked(&self) -> bool {
        self.size_bytes.is_some_and(|size| self.seq.snd_una() >= size)
    }

    fn data_end(&self) -> u64 {
        self.size_bytes.unwrap_or(u64::MAX)
    }

    /// Nothing to send now: ask again at `at` (if later than now) or when Early Termination
    /// would end the flow, whichever is first.
    fn decline(&mut self, now: Instant, at: Option<Instant>) -> Option<PdqSegment> {
        self.wake_at = earliest(at.filter(|&t| t > now), self.termination_at(now));
        None
    }

    /// The first instant after `now` at which one of Early Termination's conditions would start
    /// to hold with the flow's state as it is: past the deadline, the bytes left to send over the
    /// time left, or (while paused) less than an RTT left.
    fn termination_at(&self, now: Instant) -> Option<Instant> {
        let (deadline, unsent) = self.termination_inputs()?;
        let after = Duration::from_ps(1);
        let before_deadline = |d: Duration| Some(Instant::from_ps(deadline.as_ps().saturating_sub(d.as_ps())) + after);
        let mut at = earliest(Some(deadline + after), before_deadline(time_at(unsent, self.config.max_rate)));
        if self.rate == 0 && self.started {
            if let Some(rtt) = self.seq.srtt() {
                at = earliest(at, before_deadline(rtt));
            }
        }
        at.filter(|&t| t > now)
    }

    /// Early Termination's three conditions (Section 3.2), for a flow with a deadline and bytes
    /// it has not sent yet: the deadline has passed, the bytes left to send take longer than the
    /// time left even at R_max, or the flow is paused with less than an RTT left. A flow that has
    /// sent every byte once has nothing left to save by stopping (its last bytes may already have
    /// arrived), so it is never terminated.
    fn should_terminate(&self, now: Instant) -> bool {
        let Some((deadline, unsent)) = self.termination_inputs() else { return false };
        if now > deadline {
            return true;
        }
        let left = deadline.saturating_since(now);
        time_at(unsent, self.config.max_rate) > left || (self.rate == 0 && self.started && self.seq.srtt().is_some_and(|rtt| left < rtt))
    }

    /// The deadline and the bytes never sent yet, when Early Termination applies.
    fn termination_inputs(&self) -> Option<(Instant, u64)> {
        let deadline = self.deadline.filter(|_| self.config.early_termination)?;
        let size = self.size_bytes?;
        let unsent = size - self.seq.high_sent().min(size);
        (unsent > 0).then_some((deadline, unsent))
    }

    /// T: the bytes not yet acknowledged over R_max.
    fn expected_time(&self) -> Duration {
        match self.size_bytes {
            Some(size) => time_at(size - self.seq.snd_una().min(size), self.config.max_rate),
            None => Duration::MAX,
        }
    }

    /// The header of the next packet: the sender's state, asking for R_max.
    fn header(&self, probe: bool) -> SchedulingHeader {
        SchedulingHeader {
            rate: self.config.max_rate,
            pause_by: self.pause_by,
            deadline: self.deadline,
            expected_time: self.expected_time(),
            rtt: self.seq.srtt().unwrap_or(Duration::ZERO),
            inter_probe: self.inter_probe,
            probe,
            syn: false,
            fin: false,
        }
    }

    /// A header-only packet of `kind`, waiting for its answer.
    fn control(&mut self, now: Instant, kind: Control) -> PdqSegment {
        let header = SchedulingHeader { syn: kind == Control::Syn, fin: kind == Control::Fin, ..self.header(true) };
        self.fin_sent |= kind == Control::Fin;
        self.last_sent_at = now;
        self.outstanding = Some(Outstanding { kind, resend_at: now + self.seq.rto() });
        PdqSegment { data: self.seq.header_only(now, kind == Control::Syn), header }
    }
}

fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests;
