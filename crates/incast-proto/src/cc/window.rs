//! The window mechanism all policies share (RFC 5681 Section 3.1 slow start and congestion
//! avoidance, RFC 6582 Section 3.2 fast-recovery arithmetic, RFC 6675 and RFC 6937 for SACK
//! recovery, RFC 3168 Section 6.1.2 ECN response once per window, applied at once or through
//! the CWR state); a policy only supplies the size of an ECN cut.
//!
//! ```text
//!            ECN-Echo (prr)            snd_una >= cwr_end
//!   Open ──────────────────► Cwr ────────────────────────► Open
//!    │  ▲                     │ loss: keep ssthresh, go on with PRR
//!    │  │ full ACK             ▼
//!    └──┴───── loss ──────► Recovery        timeout: any state ─► Open, cwnd = 1 MSS
//! ```

use super::d2tcp::D2tcp;
use super::dctcp::{AlphaEstimator, Dctcp};
use super::prr::Prr;
use super::reno::NewReno;
use super::{AckEvent, CcKind, CutContext, Ns3Ack};
use super::dctcp::proportional_cut;
use super::config::{DctcpLossCut, EcnReduction, LossBasis, WindowConfig, WindowGrowth};

/// The policy of one flow: an enum matched per ACK rather than a trait object, so a flow's
/// state needs no allocation and dispatch is a branch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Policy {
    NewReno(NewReno),
    Dctcp(Dctcp),
    D2tcp(D2tcp),
}

impl Policy {
    /// The DCTCP-family alpha estimator, if the policy keeps one.
    fn estimator(&self) -> Option<&AlphaEstimator> {
        match self {
            Policy::NewReno(_) => None,
            Policy::Dctcp(d) => Some(&d.estimator),
            Policy::D2tcp(d) => Some(&d.estimator),
        }
    }

    /// Lets the policy's estimator see one ACK.
    fn on_acked(&mut self, acked: u64, marked: u64, snd_una: u64, snd_nxt: u64) {
        let estimator = match self {
            Policy::NewReno(_) => return,
            Policy::Dctcp(d) => &mut d.estimator,
            Policy::D2tcp(d) => &mut d.estimator,
        };
        estimator.on_acked(acked, marked, snd_una, snd_nxt);
    }

    /// Lets the policy's estimator see one ACK of the SACK skeleton: ns-3's counts when the
    /// event carries them, else the bytes delivered and marked.
    // Inlined: a call here cost the star benchmark 0.2% more instructions.
    #[inline(always)]
    fn on_ack_event(&mut self, ev: &AckEvent, mss: u64) {
        let Some(ns3) = ev.ns3 else {
            return self.on_acked(ev.delivered_bytes, ev.ce_marked_bytes, ev.snd_una, ev.snd_nxt);
        };
        let estimator = match self {
            Policy::NewReno(_) => return,
            Policy::Dctcp(d) => &mut d.estimator,
            Policy::D2tcp(d) => &mut d.estimator,
        };
        estimator.on_acked_ns3(ns3.segments * mss, ns3.ece_received, ev.snd_una, ns3.next_tx);
    }

    /// The window the policy wants after an ECN-Echo, before the skeleton's floor.
    fn ecn_cut(&mut self, ctx: &CutContext) -> u64 {
        match self {
            Policy::NewReno(p) => p.ecn_cut(ctx),
            Policy::Dctcp(p) => p.ecn_cut(ctx),
            Policy::D2tcp(p) => p.ecn_cut(ctx),
        }
    }
}

/// The sender's view of the data outstanding when it detects a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Outstanding {
    /// FlightSize for ssthresh: bytes sent and not acknowledged, less what limited transmit
    /// added (RFC 5681 Section 3.2 step 2).
    pub(crate) flight: u64,
    /// Every byte sent and not acknowledged: PRR's RecoverFS (RFC 6937: snd.nxt - snd.una).
    pub(crate) unacked: u64,
    /// Bytes still in the network: RFC 6675's pipe with SACK, else the flight less one
    /// segment per duplicate ACK.
    pub(crate) pipe: u64,
    /// One past the highest byte sent.
    pub(crate) high_sent: u64,
}

/// Where the window is in its cycle of growth and reduction (Linux's `tcp_ca_state`, less the
/// states that only matter to loss detection, which the sender keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Growing (slow start or congestion avoidance); after a timeout too.
    Open,
    /// An ECN-Echo lowered ssthresh and PRR is bringing cwnd down to it
    /// ([`EcnReduction::Prr`]); ends when snd_una reaches `end`.
    Cwr {
        /// snd_nxt when the reduction began.
        end: u64,
    },
    /// Fast recovery after a loss: NewReno's inflated window, or with SACK RFC 6675 with or
    /// without PRR.
    Recovery,
}

/// The window rules of a connection's stack, fixed for its life: its [`WindowConfig`] in
/// bytes, converted once per connection rather than on every ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
struct WindowRules {
    /// One maximum segment in bytes, the unit of every window step.
    mss: u64,
    /// How the window grows (`WindowConfig::growth`).
    growth: WindowGrowth,
    /// Grow only when the window limited sending (RFC 7661).
    cwnd_validation: bool,
    /// How an ECN-Echo lowers the window (`WindowConfig::ecn_reduction`).
    ecn_reduction: EcnReduction,
    /// PRR in SACK loss recovery (RFC 6937, `WindowConfig::prr_in_recovery`).
    prr_in_recovery: bool,
    /// Smallest window an ECN cut (and the alpha loss cut) leaves, in bytes: at least one
    /// (`WindowConfig::ecn_cut_floor_segments`).
    ecn_floor: u64,
    /// An ECN-Echo after a timeout starts a reduction (`WindowConfig::ecn_cut_after_timeout`).
    ecn_cut_after_timeout: bool,
    /// What a loss halves (`WindowConfig::loss_basis`).
    loss_basis: LossBasis,
    /// Duplicate ACKs drive PRR during a CWR reduction (`WindowConfig::prr_on_dupacks_in_cwr`).
    prr_on_dupacks_in_cwr: bool,
    /// How a DCTCP-family policy sets ssthresh on a loss (`WindowConfig::dctcp_loss_cut`).
    dctcp_loss_cut: DctcpLossCut,
    /// The largest window, bytes (`WindowConfig::max_window_segments`; `u64::MAX` without one).
    max_cwnd: u64,
    /// ns-3.44's bookkeeping (`WindowConfig::ns3_bookkeeping`).
    ns3: bool,
}

impl WindowRules {
    fn of(config: &WindowConfig) -> WindowRules {
        let mss = config.mss_bytes.max(1);
        WindowRules {
            mss,
            growth: config.growth,
            cwnd_validation: config.cwnd_validation,
            ecn_reduction: config.ecn_reduction,
            prr_in_recovery: config.prr_in_recovery,
            ecn_floor: (u64::from(config.ecn_cut_floor_segments) * mss).max(1),
            ecn_cut_after_timeout: config.ecn_cut_after_timeout,
            loss_basis: config.loss_basis,
            prr_on_dupacks_in_cwr: config.prr_on_dupacks_in_cwr,
            dctcp_loss_cut: config.dctcp_loss_cut,
            max_cwnd: config.max_window_segments.map_or(u64::MAX, |n| u64::from(n).max(1) * mss),
            ns3: config.ns3_bookkeeping,
        }
    }
}

/// Congestion window state of one flow, driven by its sender.
///
/// The sender does loss detection (duplicate ACKs, SACK, the recovery point, the RTO) and
/// tells this type what happened; this type owns cwnd, ssthresh and the [`CaState`], and asks
/// its policy only how far to cut on ECN.
#[derive(Clone, Debug, PartialEq)]
pub struct CongestionControl {
    kind: CcKind,
    policy: Policy,
    rules: WindowRules,
    /// Congestion window in bytes.
    cwnd: u64,
    /// Slow-start threshold in bytes; `u64::MAX` until the first cut (RFC 5681: "arbitrarily
    /// high") unless the stack starts lower.
    ssthresh: u64,
    /// Bytes acknowledged in congestion avoidance since cwnd last grew: cwnd grows by one MSS
    /// per cwnd bytes acked, which is MSS x acked / cwnd per ACK without rounding drift.
    ca_acked: u64,
    state: CaState,
    /// The rate reduction in progress (CWR, or SACK recovery with PRR).
    prr: Option<Prr>,
    /// No ECN cut until snd_una passes this offset: snd_nxt (or the highest byte sent) at the
    /// last cut, so one window of marks triggers one cut (RFC 3168 Section 6.1.2).
    cut_end: u64,
    /// `TcpLinuxReno::m_cWndCnt` (`WindowConfig::ns3_bookkeeping`): segments counted towards the
    /// next step of congestion avoidance; no cut resets it.
    segments_counted: u64,
}

impl CongestionControl {
    /// State for a new flow with the given policy, with the d3-testbed stack's window rules
    /// (`WindowConfig::default()`) until [`configure`](Self::configure) applies a connection's
    /// (the sender does so). The window is one segment until then.
    pub fn new(kind: CcKind) -> Self {
        let policy = match kind {
            CcKind::NewReno => Policy::NewReno(NewReno),
            CcKind::Dctcp { g, initial_alpha } => Policy::Dctcp(Dctcp::new(g, initial_alpha)),
            CcKind::D2tcp(config) => Policy::D2tcp(D2tcp::new(config)),
        };
        let rules = WindowRules::of(&WindowConfig::default());
        CongestionControl {
            kind,
            policy,
            rules,
            cwnd: rules.mss,
            ssthresh: u64::MAX,
            ca_acked: 0,
            state: CaState::Open,
            prr: None,
            cut_end: 0,
            segments_counted: 0,
        }
    }

    /// Applies a connection's window rules: MSS, growth, reductions, initial window and
    /// ssthresh (RFC 5681 IW, at least one segment).
    pub(crate) fn configure(&mut self, config: &WindowConfig) {
        self.rules = WindowRules::of(config);
        self.cwnd = (u64::from(config.initial_window_segments) * self.rules.mss).max(self.rules.mss).min(self.rules.max_cwnd);
        self.ssthresh = config.initial_ssthresh_bytes.unwrap_or(u64::MAX);
    }

    /// The policy this state was built for.
    pub fn kind(&self) -> CcKind {
        self.kind
    }

    /// Congestion window in bytes.
    pub fn cwnd_bytes(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold in bytes (`u64::MAX` before the first cut).
    pub fn ssthresh_bytes(&self) -> u64 {
        self.ssthresh
    }

    /// Where the window is in its cycle.
    pub fn state(&self) -> CaState {
        self.state
    }

    /// Whether the flow is in fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.state == CaState::Recovery
    }

    /// DCTCP's current alpha, for DCTCP-family policies (DCTCP, D2TCP); `None` for NewReno.
    pub fn dctcp_alpha(&self) -> Option<f64> {
        self.policy.estimator().map(AlphaEstimator::alpha)
    }

    /// D2TCP: the deadline imminence d and the penalty p = alpha^d of its last ECN cut; `None`
    /// before the first cut and for other policies.
    pub fn d2tcp_last_cut(&self) -> Option<(f64, f64)> {
        match &self.policy {
            Policy::D2tcp(p) => p.last_cut,
            _ => None,
        }
    }

    /// Sets the window directly (tests of the skeleton).
    #[cfg(test)]
    pub(crate) fn set_initial_window(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.rules.mss);
    }

    /// A new cumulative ACK outside fast recovery, or any ACK during a CWR reduction: feed the
    /// estimator with the bytes delivered, then end, continue or start a reduction, or grow.
    pub(crate) fn on_ack(&mut self, ev: &AckEvent, ctx: &CutContext) {
        if let Some(ns3) = ev.ns3 {
            return self.on_ack_ns3(ev, ns3, ctx);
        }
        self.policy.on_ack_event(ev, self.rules.mss);
        if let CaState::Cwr { end } = self.state {
            if ev.snd_una >= end {
                self.end_reduction();
            } else {
                // ns-3 runs PRR during CWR only on ACKs that advance snd_una.
                if self.rules.prr_on_dupacks_in_cwr || ev.acked_bytes > 0 {
                    self.prr_step(ev);
                }
                return;
            }
        }
        // Only an ACK of new data carries a valid ECN-Echo (ns-3's `m_ecnEchoSeq`; Linux counts
        // ECE on ACKs that advance snd_una).
        if self.ecn_echo_cuts(ev) {
            let cut = self.ecn_cut(ev, ctx);
            match self.rules.ecn_reduction {
                EcnReduction::Instant => self.cwnd = cut,
                EcnReduction::Prr => {
                    self.state = CaState::Cwr { end: ev.snd_nxt };
                    self.prr = Some(Prr::start(ev.snd_nxt - ev.snd_una + ev.acked_bytes));
                    self.prr_step(ev);
                }
            }
            return;
        }
        if ev.acked_bytes > 0 && (ev.cwnd_limited || !self.rules.cwnd_validation) {
            self.grow(ev.acked_bytes);
        }
    }

    /// A CWR reduction or a SACK recovery ends: the window lands on ssthresh, where PRR aimed
    /// (Linux's `tcp_end_cwnd_reduction`).
    fn end_reduction(&mut self) {
        self.cwnd = self.ssthresh;
        self.state = CaState::Open;
        self.prr = None;
    }

    /// Whether the ACK's ECN-Echo starts a reduction: only an ACK of new data carries a valid
    /// one (ns-3's `m_ecnEchoSeq`; Linux counts ECE on ACKs that advance snd_una), once per
    /// window of data.
    #[inline(always)]
    fn ecn_echo_cuts(&self, ev: &AckEvent) -> bool {
        ev.ce_marked_bytes > 0 && ev.acked_bytes > 0 && ev.snd_una > self.cut_end
    }

    /// The ECN cut of the current window into ssthresh, which leaves slow start (growth after
    /// a cut is additive, RFC 3168 Section 6.1.2); returns it. A cut never raises the window,
    /// even below the floor (after a timeout cwnd is 1 MSS).
    fn ecn_cut(&mut self, ev: &AckEvent, ctx: &CutContext) -> u64 {
        let ctx = CutContext { cwnd_bytes: self.cwnd, ..*ctx };
        let cut = self.policy.ecn_cut(&ctx).max(self.rules.ecn_floor).min(self.cwnd);
        self.ssthresh = cut;
        self.ca_acked = 0;
        self.cut_end = ev.snd_nxt;
        cut
    }

    /// `on_ack` in ns-3.44's order and with its counts (`WindowConfig::ns3_bookkeeping`):
    /// `ReceivedAck` ends the CWR state only on an ACK above its recovery point
    /// (tcp-socket-base.cc line 1896) and enters it on an ECN-Echo (`EnterCwr`, line 1919)
    /// before `ProcessAck` hands the ACK to the congestion control, so a cut uses the alpha
    /// of before the ACK; in CWR, PRR steps only on an ACK of a whole segment or more (line
    /// 2156); in the open state the window grows by `IncreaseWindow(segmentsAcked)`.
    fn on_ack_ns3(&mut self, ev: &AckEvent, ns3: Ns3Ack, ctx: &CutContext) {
        if let CaState::Cwr { end } = self.state {
            if ev.snd_una > end {
                self.end_reduction();
            }
        }
        if !matches!(self.state, CaState::Cwr { .. }) && self.ecn_echo_cuts(ev) {
            let cut = self.ecn_cut(ev, ctx);
            match self.rules.ecn_reduction {
                EcnReduction::Instant => self.cwnd = cut,
                EcnReduction::Prr => {
                    // `EnterCwr` starts PRR from the pipe after this ACK and steps it as for a
                    // duplicate ACK (tcp-prr-recovery.cc lines 64 and 66).
                    self.state = CaState::Cwr { end: ev.snd_nxt };
                    self.prr = Some(Prr::start_ns3(ev.pipe_bytes));
                    self.prr_step_ns3(ev, ns3, true);
                }
            }
        }
        self.policy.on_ack_event(ev, self.rules.mss);
        match self.state {
            CaState::Cwr { .. } if ns3.advanced_segments >= 1 => self.prr_step_ns3(ev, ns3, false),
            CaState::Cwr { .. } => {}
            _ if ev.acked_bytes > 0 => self.grow_ns3(ns3.segments),
            _ => {}
        }
    }

    /// One step of ns-3.44's `TcpPrrRecovery::DoRecovery`: a duplicate ACK (or the ACK that
    /// starts a reduction) counts one segment more than it delivered while less than RecoverFS
    /// was delivered (tcp-prr-recovery.cc line 76); an ACK is safe only if it acknowledged a
    /// retransmission, which never happens in CWR (`m_isRetransDataAcked`, set in
    /// `ReceivedAck` for partial ACKs in recovery only).
    fn prr_step_ns3(&mut self, ev: &AckEvent, ns3: Ns3Ack, duplicate: bool) {
        let in_cwr = matches!(self.state, CaState::Cwr { .. });
        let mss = self.rules.mss;
        let Some(prr) = self.prr.as_mut() else { return };
        let delivered = ev.delivered_bytes + if duplicate && prr.counts_duplicate() { mss } else { 0 };
        let safe = ns3.acked_resent && !in_cwr;
        if let Some(cwnd) = prr.on_ack(delivered, ev.pipe_bytes, self.ssthresh, safe, mss) {
            self.cwnd = cwnd;
        }
    }

    /// ns-3.44's `IncreaseWindow(segmentsAcked)`: `TcpLinuxReno` for DCTCP and D2TCP
    /// (`TcpDctcp` derives from it): slow start adds a segment per segment acknowledged but
    /// stops at ssthresh, and congestion avoidance adds one per cwnd / MSS segments counted
    /// (`m_cWndCnt`, kept across cuts), each call one or the other (tcp-linux-reno.cc lines 52
    /// to 125); `TcpNewReno` for NewReno: one segment in slow start, the rest of the ACK in
    /// congestion avoidance, MSS x MSS / cwnd (at least a byte) if any (tcp-congestion-ops.cc
    /// lines 152 to 213).
    fn grow_ns3(&mut self, mut segments: u64) {
        let mss = self.rules.mss;
        match self.policy {
            Policy::Dctcp(_) | Policy::D2tcp(_) => {
                if self.cwnd < self.ssthresh {
                    self.cwnd = (self.cwnd + segments * mss).min(self.ssthresh);
                } else {
                    let w = (self.cwnd / mss).max(1);
                    if self.segments_counted >= w {
                        self.segments_counted = 0;
                        self.cwnd += mss;
                    }
                    self.segments_counted += segments;
                    if self.segments_counted >= w {
                        let steps = self.segments_counted / w;
                        self.segments_counted -= steps * w;
                        self.cwnd += steps * mss;
                    }
                }
            }
            Policy::NewReno(_) => {
                if self.cwnd < self.ssthresh && segments >= 1 {
                    self.cwnd += mss;
                    segments -= 1;
                }
                if self.cwnd >= self.ssthresh && segments > 0 {
                    self.cwnd += (mss * mss / self.cwnd).max(1);
                }
            }
        }
        self.cwnd = self.cwnd.min(self.rules.max_cwnd);
    }

    /// One PRR step of the reduction in progress: cwnd = pipe + what PRR lets out.
    fn prr_step(&mut self, ev: &AckEvent) {
        let Some(prr) = self.prr.as_mut() else { return };
        if let Some(cwnd) = prr.on_ack(ev.delivered_bytes, ev.pipe_bytes, self.ssthresh, ev.safe, self.rules.mss) {
            self.cwnd = cwnd;
        }
    }

    /// Bytes handed to the network (new or resent); PRR counts them while it runs.
    pub(crate) fn on_sent(&mut self, bytes: u64) {
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(bytes);
        }
    }

    /// Slow start up to ssthresh, the remainder of the ACK in congestion avoidance, never
    /// beyond the largest window.
    fn grow(&mut self, acked: u64) {
        self.grow_uncapped(acked);
        self.cwnd = self.cwnd.min(self.rules.max_cwnd);
    }

    fn grow_uncapped(&mut self, mut acked: u64) {
        match self.rules.growth {
            WindowGrowth::Bytes => {
                if self.cwnd < self.ssthresh {
                    // Linux's `tcp_slow_start`: stop exactly at ssthresh, spill the rest into CA.
                    let step = acked.min(self.ssthresh - self.cwnd);
                    self.cwnd += step;
                    acked -= step;
                }
                self.ca_acked += acked;
                while self.ca_acked >= self.cwnd {
                    self.ca_acked -= self.cwnd;
                    self.cwnd += self.rules.mss;
                }
            }
            WindowGrowth::PerAck => {
                // ns-3's `TcpNewReno::IncreaseWindow`: one segment per ACK in slow start, else
                // MSS x MSS / cwnd (at least a byte), whatever the ACK covers.
                if self.cwnd < self.ssthresh {
                    self.cwnd += self.rules.mss;
                } else {
                    self.cwnd += (self.rules.mss * self.rules.mss / self.cwnd).max(1);
                }
            }
        }
    }

    /// A duplicate ACK without SACK. Outside recovery it only feeds the estimator; inside
    /// NewReno recovery it inflates the window by one segment, since each duplicate means a
    /// segment left the network (RFC 6582 Section 3.2 step 3).
    ///
    /// The estimator counts a duplicate as one MSS acknowledged (marked if ECE is set), as
    /// Linux DCTCP does without SACK: otherwise marks on out-of-order data are invisible, since
    /// the cumulative ACK that later covers that data echoes only its own state.
    ///
    /// During a CWR reduction the duplicate counts as one MSS delivered for PRR, with
    /// `pipe_bytes` what the sender estimates is still in the network (RFC 6937 Section 3
    /// without SACK).
    pub(crate) fn on_dupack(&mut self, ece: bool, snd_una: u64, snd_nxt: u64, pipe_bytes: u64) {
        let marked = if ece { self.rules.mss } else { 0 };
        self.policy.on_acked(self.rules.mss, marked, snd_una, snd_nxt);
        match self.state {
            CaState::Recovery => self.cwnd += self.rules.mss,
            CaState::Cwr { .. } => {
                let ev = AckEvent {
                    acked_bytes: 0,
                    delivered_bytes: self.rules.mss,
                    ce_marked_bytes: marked,
                    snd_una,
                    snd_nxt,
                    cwnd_limited: false,
                    pipe_bytes,
                    safe: false,
                    ns3: None,
                };
                self.prr_step(&ev);
            }
            CaState::Open => {}
        }
    }

    /// ssthresh after a loss (RFC 5681 equation 4: max(FlightSize / 2, 2 MSS)), halving what
    /// the stack halves, or for a DCTCP-family policy with [`DctcpLossCut::Alpha`] the ECN cut
    /// of the window with the ECN cut's floor (ns-3's `TcpDctcp::GetSsThresh` serves both).
    fn loss_ssthresh(&self, out: &Outstanding) -> u64 {
        let basis = match self.rules.loss_basis {
            LossBasis::Flight => out.flight,
            LossBasis::Pipe => out.pipe,
            LossBasis::Cwnd => self.cwnd,
        };
        match (self.rules.dctcp_loss_cut, self.policy.estimator()) {
            (DctcpLossCut::Alpha, Some(estimator)) => {
                proportional_cut(self.cwnd, estimator.alpha()).max(self.rules.ecn_floor)
            }
            _ => (basis / 2).max(2 * self.rules.mss),
        }
    }

    /// Fast retransmit (RFC 6582 Section 3.2 step 2): halve whatever the policy, then inflate
    /// by the three segments the duplicate ACKs say have left the network. The flight
    /// excludes data sent by limited transmit (RFC 5681 Section 3.2, step 2).
    pub(crate) fn on_fast_retransmit(&mut self, out: &Outstanding) {
        self.ssthresh = self.loss_ssthresh(out);
        self.cwnd = self.ssthresh + 3 * self.rules.mss;
        self.ca_acked = 0;
        self.state = CaState::Recovery;
        self.prr = None;
        self.cut_end = self.cut_end.max(out.high_sent);
    }

    /// A partial ACK in recovery (RFC 6582 Section 3.2 step 5): deflate by the newly acked
    /// bytes and add back one segment for the retransmission the sender now sends.
    pub(crate) fn on_partial_ack(&mut self, ev: &AckEvent) {
        self.policy
            .on_acked(ev.acked_bytes, ev.ce_marked_bytes, ev.snd_una, ev.snd_nxt);
        self.cwnd = self.cwnd.saturating_sub(ev.acked_bytes).max(self.rules.mss) + self.rules.mss;
    }

    /// A full ACK ends recovery (RFC 6582 Section 3.2 step 6, option 1): cwnd = min(ssthresh,
    /// flight + MSS), which avoids a burst when little is left in flight.
    pub(crate) fn on_recovery_exit(&mut self, ev: &AckEvent) {
        self.policy
            .on_acked(ev.acked_bytes, ev.ce_marked_bytes, ev.snd_una, ev.snd_nxt);
        self.cwnd = self.ssthresh.min(ev.flight_bytes() + self.rules.mss);
        self.ca_acked = 0;
        self.state = CaState::Open;
    }

    /// SACK loss recovery begins (RFC 6675 Section 5 step 4): ssthresh from the loss (see
    /// `loss_ssthresh`) and cwnd = ssthresh, or with PRR a reduction from the current window. A loss found during a CWR reduction keeps its ssthresh and its PRR state, as
    /// Linux's `tcp_enter_recovery` does: one reduction per round trip.
    pub(crate) fn enter_sack_recovery(&mut self, out: &Outstanding) {
        if !matches!(self.state, CaState::Cwr { .. }) {
            self.ssthresh = self.loss_ssthresh(out);
            // ns-3's RecoverFS is its pipe (tcp-prr-recovery.cc line 64).
            self.prr = self.rules.prr_in_recovery.then(|| if self.rules.ns3 { Prr::start_ns3(out.pipe) } else { Prr::start(out.unacked) });
            if self.prr.is_none() {
                self.cwnd = self.ssthresh;
            }
        } else if !self.rules.prr_in_recovery {
            self.prr = None;
            self.cwnd = self.ssthresh;
        }
        self.ca_acked = 0;
        self.state = CaState::Recovery;
        self.cut_end = self.cut_end.max(out.high_sent);
    }

    /// An ACK during SACK recovery that did not end it: feed the estimator, and with PRR set
    /// the window for what the ACK delivered.
    pub(crate) fn on_sack_recovery_ack(&mut self, ev: &AckEvent) {
        self.policy.on_ack_event(ev, self.rules.mss);
        match ev.ns3 {
            Some(ns3) => {
                // ns-3: `DupAck` steps PRR on an ACK that SACKs new data, `EnterRecovery` on
                // the ACK that starts recovery (both as duplicates), and the partial-ACK
                // branch of `ProcessAck` again on an ACK of a whole segment or more
                // (tcp-socket-base.cc lines 1782, 1721 and 2095).
                if ns3.sack_updated || ns3.starts_recovery {
                    self.prr_step_ns3(ev, ns3, true);
                }
                if ns3.advanced_segments >= 1 {
                    self.prr_step_ns3(ev, ns3, false);
                }
            }
            None => self.prr_step(ev),
        }
    }

    /// The ACK that covers the recovery point ends SACK recovery: cwnd = ssthresh, where PRR
    /// aims to land (Linux's `tcp_end_cwnd_reduction`), from where the window grows again.
    pub(crate) fn exit_sack_recovery(&mut self, ev: &AckEvent) {
        self.policy.on_ack_event(ev, self.rules.mss);
        self.end_reduction();
        self.ca_acked = 0;
        if let Some(ns3) = ev.ns3 {
            // ns-3 then grows the window by the segments above the old head (tcp-socket-base.cc
            // lines 2208 and 2247 to 2254).
            self.grow_ns3(ns3.segments);
        }
    }

    /// Restart after idle (RFC 5681 Section 4.1): cwnd = min(cwnd, `restart_window`), since
    /// the network may have changed while the connection sent nothing. ssthresh keeps 3/4 of
    /// the old window (RFC 2861 Section 3), so slow start climbs back towards it quickly.
    pub(crate) fn restart_after_idle(&mut self, restart_window: u64) {
        let restart_window = restart_window.max(self.rules.mss);
        if self.cwnd <= restart_window {
            return;
        }
        self.ssthresh = self.ssthresh.max(self.cwnd / 4 * 3);
        self.cwnd = restart_window;
        self.ca_acked = 0;
    }

    /// Retransmission timeout (RFC 5681 Section 3.1): cwnd = one segment, and any recovery or
    /// reduction is abandoned. ssthresh is cut (equation 4) only when `first` says the segment
    /// had not been resent by the timer before: a second timeout for the same segment does not
    /// cut again (RFC 5681 Section 3.1; Linux's `tcp_enter_loss` and ns-3's `ReTxTimeout` keep
    /// it too).
    ///
    /// ECN-Echoes on the data outstanding at the timeout cut no further, since the timeout cut
    /// for them; with `ecn_cut_after_timeout` the next one starts a reduction, as ns-3's
    /// `EnterCwr` from CA_LOSS does.
    pub(crate) fn on_timeout(&mut self, out: &Outstanding, first: bool) {
        if first {
            self.ssthresh = self.loss_ssthresh(out);
        }
        self.cwnd = self.rules.mss;
        self.ca_acked = 0;
        self.state = CaState::Open;
        self.prr = None;
        self.cut_end = if self.rules.ecn_cut_after_timeout { 0 } else { self.cut_end.max(out.high_sent) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    /// The MSS of the default window rules, which `CongestionControl::new` starts with.
    const MSS: u64 = 1460;

    fn ctx() -> CutContext {
        CutContext {
            now: Instant::ZERO,
            cwnd_bytes: 0,
            srtt: None,
            remaining_bytes: None,
            unsent_bytes: None,
            deadline: None,
        }
    }

    fn ack(acked: u64, marked: u64, snd_una: u64, snd_nxt: u64) -> AckEvent {
        AckEvent {
            acked_bytes: acked,
            delivered_bytes: acked,
            ce_marked_bytes: marked,
            snd_una,
            snd_nxt,
            cwnd_limited: true,
            pipe_bytes: snd_nxt - snd_una,
            safe: true,
            ns3: None,
        }
    }

    /// Everything sent up to `high` is outstanding and in the network.
    fn lost(high: u64) -> Outstanding {
        Outstanding { flight: high, unacked: high, pipe: high, high_sent: high }
    }

    fn reno(cwnd: u64) -> CongestionControl {
        let mut cc = CongestionControl::new(CcKind::NewReno);
        cc.set_initial_window(cwnd);
        cc
    }

    #[test]
    fn slow_start_ack_grows_cwnd_by_acked_bytes() {
        let mut cc = reno(2 * MSS);
        cc.on_ack(&ack(MSS, 0, MSS, 3 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 3 * MSS);
        cc.on_ack(&ack(2 * MSS, 0, 3 * MSS, 5 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 5 * MSS);
    }

    #[test]
    fn slow_start_ack_past_ssthresh_spills_into_avoidance() {
        let mut cc = reno(8 * MSS);
        cc.ssthresh = 9 * MSS;
        cc.on_ack(&ack(3 * MSS, 0, 3 * MSS, 10 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 9 * MSS);
        assert_eq!(cc.ca_acked, 2 * MSS);
    }

    #[test]
    fn avoidance_acks_grow_one_mss_per_window_exactly() {
        let mut cc = reno(10 * MSS);
        cc.ssthresh = 10 * MSS;
        let mut una = 0;
        for i in 1..=10 {
            una += MSS;
            cc.on_ack(&ack(MSS, 0, una, una + 10 * MSS), &ctx());
            let expected = if i < 10 { 10 * MSS } else { 11 * MSS };
            assert_eq!(cc.cwnd_bytes(), expected, "after ack {i}");
        }
        assert_eq!(cc.ca_acked, 0);
        // Odd-sized ACKs summing to exactly 11 MSS still give exactly one step.
        let mut acked = 0;
        while acked + 1_000 < 11 * MSS {
            cc.on_ack(&ack(1_000, 0, una, una), &ctx());
            acked += 1_000;
        }
        assert_eq!(cc.cwnd_bytes(), 11 * MSS);
        cc.on_ack(&ack(11 * MSS - acked, 0, una, una), &ctx());
        assert_eq!(cc.cwnd_bytes(), 12 * MSS);
    }

    #[test]
    fn newreno_ece_ack_halves_and_leaves_slow_start() {
        let mut cc = reno(20 * MSS);
        cc.on_ack(&ack(MSS, MSS, MSS, 21 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 10 * MSS);
        assert_eq!(cc.ssthresh_bytes(), 10 * MSS);
    }

    #[test]
    fn ece_cut_second_mark_same_window_ignored() {
        let mut cc = reno(20 * MSS);
        cc.on_ack(&ack(MSS, MSS, MSS, 21 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 10 * MSS);
        // Still inside the window that was in flight at the cut: no second cut, normal growth.
        cc.on_ack(&ack(MSS, MSS, 2 * MSS, 21 * MSS), &ctx());
        cc.on_ack(&ack(19 * MSS, MSS, 21 * MSS, 30 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 11 * MSS);
        // Past it: the next mark cuts again.
        cc.on_ack(&ack(MSS, MSS, 22 * MSS, 33 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 11 * MSS / 2);
    }

    #[test]
    fn ece_cut_small_window_floored_at_two_mss_never_raised() {
        let mut cc = reno(3 * MSS);
        cc.on_ack(&ack(MSS, MSS, MSS, 4 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 2 * MSS);
        let mut cc = reno(MSS);
        cc.on_ack(&ack(MSS, MSS, MSS, 2 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), MSS);
    }

    #[test]
    fn dctcp_ece_cut_uses_alpha() {
        let mut cc = CongestionControl::new(CcKind::dctcp());
        cc.set_initial_window(100 * MSS);
        // First ACK closes the first estimator window with F = 1/2: alpha = 15/16 + 1/32.
        cc.on_ack(&ack(2 * MSS, MSS, 2 * MSS, 102 * MSS), &ctx());
        let alpha = 15.0 / 16.0 + 1.0 / 32.0;
        assert_eq!(cc.dctcp_alpha(), Some(alpha));
        let expected = (100.0 * MSS as f64 * (1.0 - alpha / 2.0)) as u64;
        assert_eq!(cc.cwnd_bytes(), expected);
        assert_eq!(cc.ssthresh_bytes(), expected);
    }

    #[test]
    fn dctcp_alpha_zero_cut_keeps_window() {
        let mut cc = CongestionControl::new(CcKind::Dctcp { g: 1.0, initial_alpha: 1.0 });
        cc.set_initial_window(10 * MSS);
        cc.on_ack(&ack(MSS, 0, MSS, 11 * MSS), &ctx());
        assert_eq!(cc.dctcp_alpha(), Some(0.0));
        assert_eq!(cc.cwnd_bytes(), 11 * MSS);
        // A mark in the next window: F = 1 only once the window closes; this ACK does not.
        cc.on_ack(&ack(MSS, MSS, 2 * MSS, 13 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 11 * MSS);
        assert_eq!(cc.ssthresh_bytes(), 11 * MSS);
    }

    #[test]
    fn recovery_dupacks_inflate_partial_deflates_full_exits() {
        let mut cc = reno(20 * MSS);
        for _ in 0..3 {
            cc.on_dupack(false, 0, 20 * MSS, 0);
        }
        assert_eq!(cc.cwnd_bytes(), 20 * MSS);
        cc.on_fast_retransmit(&lost(20 * MSS));
        assert!(cc.in_recovery());
        assert_eq!(cc.ssthresh_bytes(), 10 * MSS);
        assert_eq!(cc.cwnd_bytes(), 13 * MSS);
        cc.on_dupack(false, 0, 20 * MSS, 0);
        assert_eq!(cc.cwnd_bytes(), 14 * MSS);
        cc.on_partial_ack(&ack(4 * MSS, 0, 4 * MSS, 21 * MSS));
        assert_eq!(cc.cwnd_bytes(), 11 * MSS);
        cc.on_recovery_exit(&ack(16 * MSS, 0, 20 * MSS, 24 * MSS));
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd_bytes(), 5 * MSS);
    }

    #[test]
    fn recovery_ece_ack_neither_cuts_again_before_high_sent() {
        let mut cc = reno(20 * MSS);
        cc.on_fast_retransmit(&lost(20 * MSS));
        cc.on_recovery_exit(&ack(20 * MSS, 0, 20 * MSS, 30 * MSS));
        assert_eq!(cc.cwnd_bytes(), 10 * MSS);
        cc.on_ack(&ack(MSS, MSS, 20 * MSS, 30 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 10 * MSS);
    }

    #[test]
    fn timeout_sets_one_mss_and_half_flight() {
        let mut cc = reno(20 * MSS);
        cc.on_fast_retransmit(&lost(20 * MSS));
        cc.on_timeout(&Outstanding { flight: 6 * MSS, ..lost(20 * MSS) }, true);
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd_bytes(), MSS);
        assert_eq!(cc.ssthresh_bytes(), 3 * MSS);
        // A second timeout for the same segment keeps ssthresh (RFC 5681 Section 3.1).
        cc.on_timeout(&Outstanding { flight: MSS, ..lost(20 * MSS) }, false);
        assert_eq!(cc.ssthresh_bytes(), 3 * MSS);
        cc.on_timeout(&Outstanding { flight: MSS, ..lost(20 * MSS) }, true);
        assert_eq!(cc.ssthresh_bytes(), 2 * MSS);
    }

    #[test]
    fn restart_after_idle_caps_cwnd_and_remembers_three_quarters_in_ssthresh() {
        let mut cc = reno(20 * MSS);
        cc.ssthresh = 8 * MSS;
        cc.restart_after_idle(2 * MSS);
        assert_eq!((cc.cwnd_bytes(), cc.ssthresh_bytes()), (2 * MSS, 15 * MSS));
        // A window already at or below the restart window is left alone.
        cc.restart_after_idle(4 * MSS);
        assert_eq!((cc.cwnd_bytes(), cc.ssthresh_bytes()), (2 * MSS, 15 * MSS));
    }
}
