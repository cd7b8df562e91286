//! The D3 sender (D3, SIGCOMM 2011, Sections 4.1 and 5, Figure 7; flow quenching, Section
//! 6.1.3): one rate request per RTT, a burst of data at the allocated rate, and the reliability of
//! a plain transport underneath.
//!
//! ```text
//!  SYN/RRQ(r = size/deadline) ─► routers write [a] ─► receiver ─► SYN/ACK + [a] ─┐
//!                                                                                  │ s = min [a]
//!  ┌── interval: budget += s x rtt; first packet carries RRQ{r(t+1), r(t), [a(t)]} ◄┘
//!  │   then full segments while the budget lasts (the rest carries over)
//!  └── ACK of the RRQ + [a(t+1)] starts the next interval ... FIN/RRQ returns the allocation
//! ```
//!
//! The stack is ACK-clocked (Section 5, "Discretization overhead"): an interval starts when the
//! feedback for the previous request arrives, so exactly one request is outstanding at a time.

use super::field::BASE_GRANT;
use super::header::{CongestionHeader, Feedback, D3_HEADER_BYTES, MAX_HOPS};
use crate::rate::{bytes_in, rate_of, time_at, Rate};
use crate::tcp::{AckClass, AckSegment, DataSegment, Duplicate, RttEstimator, SendSequence};
use crate::time::{Duration, Instant};

mod config;
pub use config::{BaseGrant, D3Config, D3Segment, D3Stats, Pacing};

/// Smallest time left over which a desired rate is computed, so that a deadline at `now` gives
/// the largest finite rate instead of a division by zero.
const MIN_TIME_LEFT: Duration = Duration::from_ps(1);

/// A rate request waiting for the next packet.
#[derive(Clone, Copy, Debug)]
struct PendingRequest {
    header: CongestionHeader,
    /// Send it without data even if the budget allows data.
    header_only: bool,
    /// This is a quenching FIN: the flow ends when it leaves.
    quench: bool,
}

/// The rate request on the wire, whose feedback starts the next interval.
#[derive(Clone, Copy, Debug)]
struct Outstanding {
    /// Its timestamp, echoed by the ACK that carries its feedback.
    sent_at: Instant,
    /// It rode on a data segment, so its ACK may be a genuine duplicate.
    carried_data: bool,
    /// When to give it up as lost and re-send; `None` for a FIN, which is never re-sent.
    resend_at: Option<Instant>,
}

/// The sender of one D3 flow: a sans-IO state machine over byte offsets starting at 0.
///
/// A driver
///
/// 1. calls [`poll_transmit`](Self::poll_transmit) in a loop until `None` and puts each packet on
///    the wire, after creation and after every `handle_*` call;
/// 2. feeds every arriving ACK, with the rate feedback it carries, to
///    [`handle_ack`](Self::handle_ack);
/// 3. arms a timer at [`poll_timeout`](Self::poll_timeout) (re-read after every call) and calls
///    [`handle_timeout`](Self::handle_timeout) when it fires; early calls are harmless.
///
/// The flow is over when [`is_complete`](Self::is_complete): every byte acknowledged and the
/// FIN sent, or quenched.
///
/// Rates and budget:
/// - Each feedback sets the sending rate s = min [a(t+1)] and adds s x rtt bytes to a budget.
///   The burst spends the budget on whole segments; the remainder, at most one segment, carries
///   over to the next interval ("Discretization overhead", Section 5).
/// - rtt is an exponential moving average (Section 5), the RFC 6298 smoothing of TCP's RTT
///   estimator, over the RTTs of rate requests only. A request rides on the first packet of a
///   burst, so its RTT is the interval length, while the later segments of a burst also measure
///   the queue the burst itself builds: fed with those, s x rtt would exceed what s sends in an
///   interval, and the queue and the RTT would grow together. The retransmission timer uses a
///   second estimator over all samples, as TCP does.
/// - A fast retransmission goes out at once and is paid from the budget, which may go
///   negative: the debt is repaid from the next allocation.
/// - Sequence bookkeeping, fast retransmit, the RTO and go-back-N are TCP's, shared through
///   [`SendSequence`]; only the budget that paces them is D3's.
/// - After the FIN the flow holds no allocation. Any loss recovery still needed then runs with a
///   fixed window of one interval's worth at the last rate (at least one segment), clocked by
///   ACKs and refilled by an RTO: the paper does not say how D3 finishes after its FIN.
#[derive(Clone, Debug)]
pub struct D3Sender {
    config: D3Config,
    size_bytes: Option<u64>,
    deadline: Option<Instant>,
    started_at: Instant,
    completed_at: Option<Instant>,
    /// Sequence state, duplicate-ACK detection and the retransmission timer over all RTT
    /// samples.
    seq: SendSequence,
    /// Rate-request RTT samples only: the rtt of s x rtt and of the desired rate.
    interval_rtt: RttEstimator,
    syn_sent: bool,
    fin_sent: bool,
    quenched: bool,
    /// See [`is_complete`](Self::is_complete).
    complete: bool,
    pending: Option<PendingRequest>,
    outstanding: Option<Outstanding>,
    /// The last request sent: r(t) is its `desired`, and a lost request is re-sent from it.
    last_request: CongestionHeader,
    /// s, the current sending rate.
    rate: Rate,
    /// Payload bytes the allocation still allows (may be negative, see the type's doc).
    budget: i64,
    /// The current interval is at the base-rate grant and sends no data (header-only base).
    paused: bool,
    /// The current interval is at the base-rate grant (paused, or one segment).
    at_base: bool,
    /// When the last rate request left.
    last_request_at: Instant,
    /// When the last packet sent at the base grant (the SYN, or a request of an interval at the
    /// base grant) left, and its bytes on the wire: the next one waits for them at the base rate.
    last_at_base: Option<(Instant, u32)>,
    /// The pending request of an interval at the base grant waits until then (pacing).
    paced_until: Option<Instant>,
    /// With [`Pacing::Rate`]: the next data segment leaves no earlier than this.
    next_send_at: Instant,
    /// A data segment is waiting for `next_send_at` (the timer to wake for it).
    pacer_wait: Option<Instant>,
    interval_started_at: Instant,
    /// D3's own counters; the reliability ones (retransmitted bytes, timeouts, fast
    /// retransmits, segments, acknowledged bytes) live in `seq`.
    stats: D3Stats,
}

impl D3Sender {
    /// A sender about to send its SYN.
    ///
    /// `size_bytes` `None` is a long-lived flow that never ends and asks for no rate;
    /// `deadline` is absolute. A flow of 0 bytes is complete at once and sends nothing.
    pub fn new(
        config: D3Config,
        size_bytes: Option<u64>,
        deadline: Option<Instant>,
        now: Instant,
    ) -> Self {
        D3Sender {
            config,
            size_bytes,
            deadline,
            started_at: now,
            completed_at: (size_bytes == Some(0)).then_some(now),
            seq: SendSequence::new(&config.tcp),
            interval_rtt: RttEstimator::new(&config.tcp),
            syn_sent: false,
            fin_sent: false,
            quenched: false,
            complete: size_bytes == Some(0),
            pending: None,
            outstanding: None,
            last_request: CongestionHeader::default(),
            rate: 0,
            budget: 0,
            paused: false,
            at_base: false,
            last_request_at: now,
            last_at_base: None,
            paced_until: None,
            next_send_at: now,
            pacer_wait: None,
            interval_started_at: now,
            stats: D3Stats::default(),
        }
    }

    /// The next packet to put on the wire, if the protocol allows one now. Call in a loop until
    /// `None`.
    ///
    /// In order: the SYN; the interval's rate request (on a data segment if the budget pays for
    /// one, else header-only); a fast retransmission; new or go-back-N data while the budget
    /// lasts. A paused flow sends nothing but its request.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Instant) -> Option<D3Segment> {
        if self.is_complete() {
            return None;
        }
        if !self.syn_sent {
            return self.transmit_syn(now);
        }
        if self.paced_until.is_some_and(|t| now < t) {
            // Paced at the base rate: nothing goes before the request (a flow at the base grant
            // sends its request, or the one segment that carries it, and nothing more).
            return None;
        }
        self.paced_until = None;
        if let Some(request) = self.pending.take() {
            return Some(self.transmit_request(now, request));
        }
        if self.paused && !self.fin_sent {
            return None;
        }
        if self.config.pacing == Pacing::Rate && now < self.next_send_at {
            self.pacer_wait = Some(self.next_send_at);
            return None;
        }
        if let Some(data) = self.seq.take_retransmit(now, self.data_end(), false) {
            // Paid at once, even into debt (see the type's doc).
            self.budget -= i64::from(data.wire_bytes());
            self.paced(now, data.wire_bytes());
            return Some(D3Segment { data, header: None });
        }
        let data = self.next_data(now)?;
        self.paced(now, data.wire_bytes());
        Some(D3Segment { data, header: None })
    }

    /// Processes an ACK and the rate feedback it carries, if any.
    ///
    /// Feedback counts only if it answers the outstanding request (its ACK echoes that
    /// request's timestamp or a later one); it then starts the next interval. An ACK that
    /// carries feedback for a header-only request merely repeats the cumulative ACK and is never
    /// a duplicate. ACKs for bytes never sent are ignored.
    pub fn handle_ack(&mut self, now: Instant, ack: &AckSegment, feedback: Option<&Feedback>) {
        let class = self.seq.classify(ack.ack);
        if self.is_complete() || !self.syn_sent || class == AckClass::Beyond {
            return;
        }
        let answered = match (feedback, self.outstanding) {
            (Some(_), Some(o)) if ack.ts_echo >= o.sent_at => Some(o),
            _ => None,
        };
        if class == AckClass::New {
            self.on_new_ack(now, ack);
        } else {
            if answered.is_some() {
                // Every packet carries a timestamp, so the answer to a header-only request is
                // as good an RTT sample as a data ACK; the SYN/ACK's is the first.
                self.seq.sample_rtt(now, ack.ts_echo);
            }
            let duplicate = match feedback {
                None => true,
                // Unmatched (stale) feedback cannot be told apart from a header-only answer.
                Some(_) => answered.is_some_and(|o| o.carried_data),
            };
            if class == AckClass::Duplicate
                && duplicate
                && !self.all_acked()
                && self.seq.on_duplicate_ack() == Duplicate::Loss
            {
                // RFC 5681 Section 3.2: one fast retransmission of snd_una.
                self.seq.enter_fast_retransmit();
            }
        }
        if let (Some(feedback), Some(o)) = (feedback, answered) {
            self.outstanding = None;
            if ack.ts_echo <= now {
                self.interval_rtt
                    .on_sample(now.saturating_since(ack.ts_echo));
            }
            // The FIN's answer allocates nothing new (the routers took the flow out).
            if !self.fin_sent {
                let rtt = self
                    .interval_rtt
                    .srtt()
                    .unwrap_or_else(|| now.saturating_since(o.sent_at));
                self.start_interval(now, feedback, rtt);
            }
        }
        if self.completed_at.is_none() && self.all_acked() {
            self.completed_at = Some(now);
        }
    }

    /// When the next timer is due: the retransmission timer, the outstanding request's re-send
    /// timer or the paced request's departure, whichever is earliest. `None` once the flow is
    /// complete.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.is_complete() {
            return None;
        }
        let resend = self.outstanding.and_then(|o| o.resend_at);
        earliest(earliest(self.seq.rto_at(), resend), earliest(self.paced_until, self.pacer_wait))
    }

    /// Fires whichever timers are due; does nothing if none is.
    ///
    /// A rate request unanswered for an RTO is re-sent header-only with the same values, since
    /// the routers that saw it may already count it (Section 5 asks only for "timer-based
    /// retransmissions"). A retransmission timeout resends from `snd_una` (go-back-N, no SACK)
    /// within the rate budget and doubles the RTO (RFC 6298 Section 5.5).
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.is_complete() {
            return;
        }
        if self.paced_until.is_some_and(|t| now >= t) {
            // Due: the request goes at the next poll, and the timer is no longer needed.
            self.paced_until = None;
        }
        if self.pacer_wait.is_some_and(|t| now >= t) {
            self.pacer_wait = None;
        }
        if self
            .outstanding
            .and_then(|o| o.resend_at)
            .is_some_and(|at| now >= at)
        {
            self.on_request_lost(now);
        }
        if self.seq.rto_due(now) {
            self.on_rto(now);
        }
    }

    /// Whether the sender is done: every byte acknowledged and the FIN that returns the flow's
    /// allocation sent (a flow whose last bytes are acknowledged before its FIN leaves still
    /// sends it, or the routers would count the flow and its allocation for good), or quenched,
    /// or a flow of no bytes. A long-lived flow is never complete.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Updates `complete` after an ACK, a FIN or a quench (the flag keeps `is_complete`, asked
    /// several times per packet, a load).
    fn update_complete(&mut self) {
        self.complete = self.quenched || self.size_bytes == Some(0) || (self.all_acked() && self.fin_sent);
    }

    /// Every byte of a sized flow acknowledged.
    fn all_acked(&self) -> bool {
        self.size_bytes.is_some_and(|size| self.seq.snd_una() >= size)
    }

    /// Whether the flow gave up on its deadline (Section 6.1.3).
    pub fn quenched(&self) -> bool {
        self.quenched
    }

    /// Counters so far.
    pub fn stats(&self) -> D3Stats {
        let c = self.seq.counters();
        D3Stats {
            retransmitted_bytes: c.retransmitted_bytes,
            timeouts: c.timeouts,
            fast_retransmits: c.fast_retransmits,
            segments_sent: c.segments_sent,
            bytes_acked: c.bytes_acked,
            ..self.stats
        }
    }

    /// s, the sending rate of the current interval (0 before the SYN/ACK).
    pub fn sending_rate(&self) -> Rate {
        self.rate
    }

    /// r, the desired rate of the last request sent.
    pub fn desired_rate(&self) -> Rate {
        self.last_request.desired
    }

    /// Payload bytes the allocation still allows in this interval (negative while a fast
    /// retransmission's debt is outstanding).
    pub fn budget_bytes(&self) -> i64 {
        self.budget
    }

    /// Smoothed RTT over all samples (the RTO's), once feedback or an ACK has given one.
    pub fn srtt(&self) -> Option<Duration> {
        self.seq.srtt()
    }

    /// Smoothed RTT of rate requests: the rtt of the budget s x rtt and of the desired rate.
    pub fn interval_rtt(&self) -> Option<Duration> {
        self.interval_rtt.srtt()
    }

    /// The current retransmission timeout, back-off included.
    pub fn rto(&self) -> Duration {
        self.seq.rto()
    }

    /// Oldest unacknowledged byte offset.
    pub fn snd_una(&self) -> u64 {
        self.seq.snd_una()
    }

    /// Next byte offset to be sent.
    pub fn snd_nxt(&self) -> u64 {
        self.seq.snd_nxt()
    }

    /// The flow size; `None` for a long-lived flow.
    pub fn size_bytes(&self) -> Option<u64> {
        self.size_bytes
    }

    /// The flow's absolute deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// When the sender was created.
    pub fn started_at(&self) -> Instant {
        self.started_at
    }

    /// When the flow became complete: its last byte acknowledged, or its quenching FIN sent
    /// (tell the two apart with [`quenched`](Self::quenched)).
    pub fn completed_at(&self) -> Option<Instant> {
        self.completed_at
    }

    /// Figure 7 step 1: the SYN asks for r = size / deadline (Section 4.1), unless quenching
    /// gives up on the flow before it starts (it holds no allocation, so nothing is sent).
    fn transmit_syn(&mut self, now: Instant) -> Option<D3Segment> {
        self.syn_sent = true;
        let needed = match (self.size_bytes, self.deadline) {
            (Some(size), Some(deadline)) => Some(rate_of(
                self.wire_bytes(size),
                deadline.saturating_since(now).max(MIN_TIME_LEFT),
            )),
            _ => None,
        };
        if self.should_quench(now, needed) {
            self.quenched = true;
            self.completed_at = Some(now);
            self.update_complete();
            return None;
        }
        let header = CongestionHeader {
            syn: true,
            desired: self.requested(needed),
            ..CongestionHeader::default()
        };
        let request = PendingRequest {
            header,
            header_only: true,
            quench: false,
        };
        Some(self.transmit_request(now, request))
    }

    /// Puts a rate request on the next packet: on new or go-back-N data if it may carry data
    /// and the budget pays for it, otherwise header-only.
    fn transmit_request(&mut self, now: Instant, request: PendingRequest) -> D3Segment {
        let data = if request.header_only || self.paused {
            None
        } else {
            self.next_data(now)
        };
        let carried_data = data.is_some();
        if carried_data {
            // The congestion header rides on the segment, and is paid for with it.
            self.budget -= i64::from(D3_HEADER_BYTES);
        }
        let data = data.unwrap_or_else(|| {
            self.stats.header_only_packets += 1;
            self.seq.header_only(now, false)
        });
        let header = request.header;
        let wire_bytes = data.wire_bytes() + D3_HEADER_BYTES;
        if carried_data {
            self.paced(now, wire_bytes);
        }
        self.stats.rate_requests += 1;
        self.last_request = header;
        // The SYN holds the base grant at every router until answered (Router::handle_drop).
        self.last_at_base = (self.at_base || header.syn).then_some((now, wire_bytes));
        self.last_request_at = now;
        self.fin_sent |= header.fin;
        if request.quench {
            self.quenched = true;
            self.completed_at = Some(now);
        }
        self.update_complete();
        self.outstanding = Some(Outstanding {
            sent_at: now,
            carried_data,
            // A FIN is not re-sent: the routers' counters are soft state (Section 4.4) and a
            // second FIN would take the flow out twice.
            resend_at: (!header.fin).then(|| now + self.seq.rto()),
        });
        D3Segment {
            data,
            header: Some(header),
        }
    }

    /// With [`Pacing::Rate`], the next segment may leave one serialization time of this
    /// packet's `wire_bytes` at the allocated rate after it.
    fn paced(&mut self, now: Instant, wire_bytes: u32) {
        if self.config.pacing == Pacing::Rate && self.rate > 0 {
            self.next_send_at = self.next_send_at.max(now) + time_at(u64::from(wire_bytes), self.rate);
        }
    }

    /// The next data segment at `snd_nxt`, if there is one, the budget pays for it and the
    /// receive window has room.
    fn next_data(&mut self, now: Instant) -> Option<DataSegment> {
        let end = self.data_end();
        let len = self.seq.next_len(end)?;
        let window = self.config.tcp.receive_window_bytes.unwrap_or(u64::MAX);
        // One segment: its payload and its headers.
        let cost = (len + u64::from(self.config.tcp.data_header_bytes())) as i64;
        if self.budget < cost || !self.seq.window_allows(len, window) {
            return None;
        }
        self.budget -= cost;
        Some(self.seq.send_new(now, end, false))
    }

    /// Bytes on the wire of `payload` bytes sent in full segments: an allocation is a share of
    /// the link, which headers take too (D3 Section 5's router counts every byte it sends, u(t)).
    fn wire_bytes(&self, payload: u64) -> u64 {
        let mss = self.config.tcp.mss();
        payload + payload.div_ceil(mss) * u64::from(self.config.tcp.data_header_bytes())
    }

    /// Feedback arrived: set the new rate and budget and queue the next request (Section 4.1:
    /// "The source sends data at this rate for a RTT while piggybacking a rate request for the
    /// next RTT on one of the data packets").
    fn start_interval(&mut self, now: Instant, feedback: &Feedback, rtt: Duration) {
        if self.at_base {
            self.stats.time_at_base_rate =
                self.stats.time_at_base_rate + now.saturating_since(self.interval_started_at);
        }
        self.interval_started_at = now;
        self.stats.intervals += 1;
        // The interval's first segment carries the request and leaves at once.
        self.next_send_at = now;
        // The grant the routers gave, read as they wrote it: the base grant anywhere on the path
        // is the base rate (Sections 4.2 and 4.5), whatever this flow asked for. No router on the
        // path (hosts on one link): nothing limits the flow but its NIC.
        let grant = feedback.min_alloc().unwrap_or(self.config.uplink_rate);
        self.at_base = grant == BASE_GRANT;
        self.paused = self.at_base && self.config.base_grant == BaseGrant::HeaderOnly;
        self.rate = if self.at_base { self.config.base_rate } else { grant };
        let allocated = match (self.at_base, self.config.base_grant) {
            (false, _) => bytes_in(grant, rtt),
            (true, BaseGrant::HeaderOnly) => 0,
            // One full segment and the request it carries, every RTT (D2TCP Section 4.2.1).
            (true, BaseGrant::OneSegment) => {
                self.wire_bytes(self.config.tcp.mss()) + u64::from(D3_HEADER_BYTES)
            }
        };
        let request = CongestionHeader {
            syn: false,
            fin: false,
            desired: 0,
            prev_desired: self.last_request.desired,
            prev_alloc: feedback.alloc,
            index: 0,
            alloc: [0; MAX_HOPS],
        };
        let needed = self.needed_rate(now, allocated, rtt);
        if self.should_quench(now, needed) {
            self.pending = Some(quench_fin(request));
            return;
        }
        // Carry over at most one segment: that is all discretization leaves unused, and an
        // allocation idle for other reasons (flow control) must not pile up into a later burst.
        self.budget = self.budget.min(self.wire_bytes(self.config.tcp.mss()) as i64);
        if self.at_base {
            self.stats.paused_intervals += 1;
        }
        if self.at_base && self.config.pace_requests {
            // The routers budget the base rate for this flow: what it sends at the base grant
            // (its request, or the segment that carries it) leaves no sooner after the last
            // packet it sent at the base grant than that packet takes at the base rate.
            self.paced_until = self
                .last_at_base
                .map(|(at, bytes)| at + time_at(u64::from(bytes), self.config.base_rate))
                .filter(|&t| t > now);
        }
        if !self.paused {
            self.budget = self
                .budget
                .saturating_add(i64::try_from(allocated).unwrap_or(i64::MAX));
        }
        if !self.at_base {
            self.stretch_interval(now);
        }
        let unsent = self.data_end() - self.seq.snd_nxt();
        // Figure 7 step 5: the interval that sends the last byte returns the allocation.
        let fin = self.size_bytes.is_some()
            && (unsent == 0
                || (!self.paused
                    && u64::try_from(self.budget).is_ok_and(|b| b >= self.wire_bytes(unsent))));
        self.pending = Some(PendingRequest {
            header: CongestionHeader {
                fin,
                desired: if fin { 0 } else { self.requested(needed) },
                ..request
            },
            header_only: self.paused,
            quench: false,
        });
    }

    /// A grant too small to pay for the next segment this RTT: the request goes alone, as the
    /// paper's hosts send it every RTT, but no sooner after the last request than the routers'
    /// base rate allows a request-only packet (on the D3 testbed's 500 µs RTT never later than
    /// one RTT; on a 20 µs path hundreds of such flows would otherwise fill the link with 62 B
    /// requests), or sooner, riding on the segment, once the grant has paid for it. The grant
    /// pays while the flow waits.
    ///
    /// Only with [`D3Config::pace_requests`]: otherwise the request goes at once, alone, and the
    /// grant pays for the segment over the next intervals (the budget carries one segment over).
    fn stretch_interval(&mut self, now: Instant) {
        if !self.config.pace_requests {
            return;
        }
        let Some(len) = self.seq.next_len(self.data_end()) else { return };
        let cost = (self.wire_bytes(len) + u64::from(D3_HEADER_BYTES)) as i64;
        if self.budget >= cost || self.rate == 0 {
            return;
        }
        let request_only = u64::from(self.config.tcp.data_header_bytes() + D3_HEADER_BYTES);
        let base_spacing = (self.last_request_at + time_at(request_only, self.config.base_rate))
            .saturating_since(now);
        let segment_paid = time_at((cost - self.budget) as u64, self.rate);
        let wait = base_spacing.min(segment_paid);
        if wait > Duration::ZERO {
            self.budget = self
                .budget
                .saturating_add(i64::try_from(bytes_in(self.rate, wait)).unwrap_or(i64::MAX))
                .min(cost);
            self.paced_until = Some(now + wait);
        }
    }

    /// The rate the flow needs from the next RTT on (Section 5, "Calculating desired rate"):
    ///
    /// ```text
    /// r(t+1) = (remaining − s x rtt) / (deadline − now − 2 rtt)
    /// ```
    ///
    /// `remaining` is the bytes not yet acknowledged, on the wire (headers included: the rate is a
    /// share of the link): lost data still has to be sent, and data in flight counts as a margin
    /// until it is acknowledged. `s x rtt` is what this interval will send (`will_send`, wire
    /// bytes, 0 when paused). The time left is taken as at least one RTT: with
    /// less, the most the flow can usefully ask for is all of its remaining bytes in the next
    /// RTT, and the paper's denominator would go to zero or below. `None` without a deadline.
    fn needed_rate(&self, now: Instant, will_send: u64, rtt: Duration) -> Option<Rate> {
        let (size, deadline) = (self.size_bytes?, self.deadline?);
        let remaining = self
            .wire_bytes(size.saturating_sub(self.seq.snd_una()))
            .saturating_sub(will_send);
        let left = deadline.saturating_since(now) - rtt.saturating_mul(2);
        Some(rate_of(remaining, left.max(rtt).max(MIN_TIME_LEFT)))
    }

    /// What the request asks for, as the header carries it (rounded up to the field): the
    /// needed rate, at most the host's NIC rate (more could not be sent); or 0 for flows without
    /// a deadline and under RCPdc (Section 4.2: "there are flows without deadlines, where
    /// r = 0").
    ///
    /// A flow past its deadline keeps asking for its remaining bytes within the next RTT. The
    /// paper's formula is undefined there (its denominator, deadline − 2 rtt, goes negative), but
    /// its evaluation implies the choice: without quenching, hosts "pursue intractable
    /// deadlines", which is why D3 collapses beyond 2500 flows/s and why quenching "spares
    /// bandwidth for other flows whose deadlines can be met" (Section 6.1.3), and its late flows
    /// finish soon after their deadlines (27.7% over at the 95th percentile, Section 6.1.1), which
    /// a late flow held to the fair share does not (docs/results-d3.md measures both).
    fn requested(&self, needed: Option<Rate>) -> Rate {
        match needed {
            Some(rate) if self.config.deadline_aware => {
                self.config.field.request(rate.min(self.config.uplink_rate))
            }
            _ => 0,
        }
    }

    /// Section 6.1.3: give up "when: (i). desired rate exceeds their uplink capacity, or (ii).
    /// the deadline has already expired".
    fn should_quench(&self, now: Instant, needed: Option<Rate>) -> bool {
        self.config.quench
            && self.config.deadline_aware
            && self.deadline.is_some_and(|deadline| {
                now >= deadline || needed.is_some_and(|r| r > self.config.uplink_rate)
            })
    }

    /// An ACK that advances `snd_una`; the shared mechanism restarts or stops the timer.
    fn on_new_ack(&mut self, now: Instant, ack: &AckSegment) {
        let acked = self.seq.on_new_ack(now, ack);
        self.update_complete();
        if self.fin_sent {
            // After the FIN: each acknowledged byte lets one more go, up to the window.
            let window = self.recovery_window();
            self.budget = self
                .budget
                .saturating_add(i64::try_from(self.wire_bytes(acked)).unwrap_or(i64::MAX))
                .min(window);
        }
    }

    /// The outstanding request got no answer within an RTO: ask again, header-only.
    ///
    /// The routers before the loss counted the lost request (a dropping port gives back only its
    /// allocation, `Router::handle_drop`), so the new one continues from it: no SYN flag (the
    /// flow is counted once), the lost request's r(t+1) as r(t) (so D is updated, not counted
    /// twice), and the allocations the host still holds as [a(t)] (after a lost SYN, the base
    /// grant at every router, which is what a dropping port leaves it). Quenching is checked
    /// again, since the deadline may have passed meanwhile.
    fn on_request_lost(&mut self, now: Instant) {
        self.stats.request_timeouts += 1;
        self.outstanding = None;
        let lost = self.last_request;
        let rtt = self.interval_rtt.srtt().unwrap_or(Duration::ZERO);
        let needed = self.needed_rate(now, 0, rtt);
        let request = CongestionHeader {
            syn: false,
            fin: false,
            desired: self.requested(needed),
            prev_desired: lost.desired,
            prev_alloc: lost.prev_alloc,
            index: 0,
            alloc: [0; MAX_HOPS],
        };
        self.pending = Some(if self.should_quench(now, needed) {
            quench_fin(request)
        } else {
            PendingRequest {
                header: request,
                header_only: true,
                quench: false,
            }
        });
    }

    /// RFC 6298 Section 5.4 to 5.6: go back to `snd_una` and back off.
    fn on_rto(&mut self, now: Instant) {
        self.seq.go_back_n(now);
        if self.fin_sent {
            // No more intervals will refill the budget after the FIN: grant one window.
            self.budget = self.budget.max(self.recovery_window());
        }
    }

    /// The window of loss recovery after the FIN: one interval at the last rate, at least one
    /// segment.
    fn recovery_window(&self) -> i64 {
        let rtt = self.interval_rtt.srtt().unwrap_or(Duration::ZERO);
        let bytes = bytes_in(self.rate, rtt).max(self.wire_bytes(self.config.tcp.mss()));
        i64::try_from(bytes).unwrap_or(i64::MAX)
    }

    /// One past the last byte of the flow.
    fn data_end(&self) -> u64 {
        self.size_bytes.unwrap_or(u64::MAX)
    }
}

/// The earlier of two optional instants.
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The quenching FIN built from a request's previous values (Section 6.1.3: terminate "by
/// sending a FIN"), header-only, asking for nothing and returning the allocation.
fn quench_fin(request: CongestionHeader) -> PendingRequest {
    PendingRequest {
        header: CongestionHeader {
            fin: true,
            desired: 0,
            ..request
        },
        header_only: true,
        quench: true,
    }
}

#[cfg(test)]
mod tests;
