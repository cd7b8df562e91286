//! The window mechanism all policies share (RFC 5681 Section 3.1 slow start and congestion
//! avoidance, RFC 6582 Section 3.2 fast-recovery arithmetic, RFC 3168 Section 6.1.2 ECN
//! response once per window); a policy only supplies the size of an ECN cut.

use super::d2tcp::D2tcp;
use super::dctcp::{AlphaEstimator, Dctcp};
use super::reno::NewReno;
use super::{AckEvent, CcKind, CutContext};
use crate::tcp::MSS_BYTES;

/// One maximum segment, the unit of every window step.
const MSS: u64 = MSS_BYTES as u64;

/// Smallest window an ECN cut leaves: 2 segments, like the RFC 5681 floor on ssthresh after a
/// loss and Linux's `dctcp_ssthresh` (`max(cwnd - cwnd x alpha / 2, 2)`). One segment would
/// let a marked flow fall into delayed-ACK stalls that marks, unlike losses, do not justify.
const MIN_ECN_CWND: u64 = 2 * MSS;

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

    /// The window the policy wants after an ECN-Echo, before the skeleton's floor.
    fn ecn_cut(&self, ctx: &CutContext) -> u64 {
        match self {
            Policy::NewReno(p) => p.ecn_cut(ctx),
            Policy::Dctcp(p) => p.ecn_cut(ctx),
            Policy::D2tcp(p) => p.ecn_cut(ctx),
        }
    }
}

/// Congestion window state of one flow, driven by its `TcpSender`.
///
/// The sender does loss detection (duplicate ACKs, the NewReno `recover` point, the RTO) and
/// tells this type what happened; this type owns cwnd, ssthresh and whether the flow is in fast
/// recovery, and asks its policy only how far to cut on ECN.
#[derive(Clone, Debug, PartialEq)]
pub struct CongestionControl {
    kind: CcKind,
    policy: Policy,
    /// Congestion window in bytes.
    cwnd: u64,
    /// Slow-start threshold in bytes; `u64::MAX` until the first cut (RFC 5681: "arbitrarily
    /// high").
    ssthresh: u64,
    /// Bytes acknowledged in congestion avoidance since cwnd last grew: cwnd grows by one MSS
    /// per cwnd bytes acked, which is MSS x acked / cwnd per ACK without rounding drift.
    ca_acked: u64,
    /// In NewReno fast recovery (RFC 6582): the window is inflated per duplicate ACK and
    /// neither grows nor takes ECN cuts.
    in_recovery: bool,
    /// No ECN cut until snd_una passes this offset: snd_nxt (or the highest byte sent) at the
    /// last cut, so one window of marks triggers one cut (RFC 3168 Section 6.1.2).
    cut_end: u64,
}

impl CongestionControl {
    /// State for a new flow with the given policy. The window is set by the sender from its
    /// `TcpConfig::initial_window_segments`; until then it is one segment.
    pub fn new(kind: CcKind) -> Self {
        let policy = match kind {
            CcKind::NewReno => Policy::NewReno(NewReno),
            CcKind::Dctcp { g, initial_alpha } => Policy::Dctcp(Dctcp::new(g, initial_alpha)),
            CcKind::D2tcp(config) => Policy::D2tcp(D2tcp::new(config)),
        };
        CongestionControl {
            kind,
            policy,
            cwnd: MSS,
            ssthresh: u64::MAX,
            ca_acked: 0,
            in_recovery: false,
            cut_end: 0,
        }
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

    /// Whether the flow is in NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// DCTCP's current alpha, for DCTCP-family policies (DCTCP, D2TCP); `None` for NewReno.
    pub fn dctcp_alpha(&self) -> Option<f64> {
        self.policy.estimator().map(AlphaEstimator::alpha)
    }

    /// Sets the initial window (RFC 5681 IW), at least one segment.
    pub(crate) fn set_initial_window(&mut self, bytes: u64) {
        self.cwnd = bytes.max(MSS);
    }

    /// A new cumulative ACK outside fast recovery: feed the estimator, then either take the ECN
    /// cut (at most once per window of data) or grow the window.
    pub(crate) fn on_ack(&mut self, ev: &AckEvent, ctx: &CutContext) {
        self.policy
            .on_acked(ev.acked_bytes, ev.ce_marked_bytes, ev.snd_una, ev.snd_nxt);
        if ev.ce_marked_bytes > 0 && ev.snd_una > self.cut_end {
            let ctx = CutContext {
                cwnd_bytes: self.cwnd,
                ..*ctx
            };
            // A cut never raises the window, even below the floor (after a timeout cwnd is 1 MSS).
            self.cwnd = self.policy.ecn_cut(&ctx).max(MIN_ECN_CWND).min(self.cwnd);
            // Leave slow start: growth after a cut is additive (RFC 3168 Section 6.1.2).
            self.ssthresh = self.cwnd;
            self.ca_acked = 0;
            self.cut_end = ev.snd_nxt;
            return;
        }
        if ev.cwnd_limited {
            self.grow(ev.acked_bytes);
        }
    }

    /// Slow start up to ssthresh, the remainder of the ACK in congestion avoidance.
    fn grow(&mut self, mut acked: u64) {
        if self.cwnd < self.ssthresh {
            // Linux's `tcp_slow_start`: stop exactly at ssthresh, spill the rest into CA.
            let step = acked.min(self.ssthresh - self.cwnd);
            self.cwnd += step;
            acked -= step;
        }
        self.ca_acked += acked;
        while self.ca_acked >= self.cwnd {
            self.ca_acked -= self.cwnd;
            self.cwnd += MSS;
        }
    }

    /// A duplicate ACK. Outside recovery it only feeds the estimator; inside it inflates the
    /// window by one segment, since each duplicate means a segment left the network
    /// (RFC 6582 Section 3.2 step 3).
    ///
    /// The estimator counts a duplicate as one MSS acknowledged (marked if ECE is set), as
    /// Linux DCTCP does without SACK: otherwise marks on out-of-order data are invisible, since
    /// the cumulative ACK that later covers that data echoes only its own state.
    pub(crate) fn on_dupack(&mut self, ece: bool, snd_una: u64, snd_nxt: u64) {
        let marked = if ece { MSS } else { 0 };
        self.policy.on_acked(MSS, marked, snd_una, snd_nxt);
        if self.in_recovery {
            self.cwnd += MSS;
        }
    }

    /// Fast retransmit (RFC 6582 Section 3.2 step 2): halve whatever the policy, then inflate
    /// by the three segments the duplicate ACKs say have left the network.
    pub(crate) fn on_fast_retransmit(&mut self, flight_bytes: u64, high_sent: u64) {
        self.ssthresh = (flight_bytes / 2).max(2 * MSS);
        self.cwnd = self.ssthresh + 3 * MSS;
        self.ca_acked = 0;
        self.in_recovery = true;
        self.cut_end = self.cut_end.max(high_sent);
    }

    /// A partial ACK in recovery (RFC 6582 Section 3.2 step 5): deflate by the newly acked
    /// bytes and add back one segment for the retransmission the sender now sends.
    pub(crate) fn on_partial_ack(&mut self, ev: &AckEvent) {
        self.policy
            .on_acked(ev.acked_bytes, ev.ce_marked_bytes, ev.snd_una, ev.snd_nxt);
        self.cwnd = self.cwnd.saturating_sub(ev.acked_bytes).max(MSS) + MSS;
    }

    /// A full ACK ends recovery (RFC 6582 Section 3.2 step 6, option 1): cwnd = min(ssthresh,
    /// flight + MSS), which avoids a burst when little is left in flight.
    pub(crate) fn on_recovery_exit(&mut self, ev: &AckEvent) {
        self.policy
            .on_acked(ev.acked_bytes, ev.ce_marked_bytes, ev.snd_una, ev.snd_nxt);
        self.cwnd = self.ssthresh.min(ev.flight_bytes() + MSS);
        self.ca_acked = 0;
        self.in_recovery = false;
    }

    /// Restart after idle (RFC 5681 Section 4.1): cwnd = min(cwnd, `restart_window`), since
    /// the network may have changed while the connection sent nothing. ssthresh keeps 3/4 of
    /// the old window (RFC 2861 Section 3), so slow start climbs back towards it quickly.
    pub(crate) fn restart_after_idle(&mut self, restart_window: u64) {
        let restart_window = restart_window.max(MSS);
        if self.cwnd <= restart_window {
            return;
        }
        self.ssthresh = self.ssthresh.max(self.cwnd / 4 * 3);
        self.cwnd = restart_window;
        self.ca_acked = 0;
    }

    /// Retransmission timeout (RFC 5681 Section 3.1, equation 4): ssthresh = max(flight/2,
    /// 2 MSS), cwnd = one segment, and fast recovery is abandoned.
    pub(crate) fn on_timeout(&mut self, flight_bytes: u64, high_sent: u64) {
        self.ssthresh = (flight_bytes / 2).max(2 * MSS);
        self.cwnd = MSS;
        self.ca_acked = 0;
        self.in_recovery = false;
        self.cut_end = self.cut_end.max(high_sent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

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
            ce_marked_bytes: marked,
            snd_una,
            snd_nxt,
            cwnd_limited: true,
        }
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
            cc.on_dupack(false, 0, 20 * MSS);
        }
        assert_eq!(cc.cwnd_bytes(), 20 * MSS);
        cc.on_fast_retransmit(20 * MSS, 20 * MSS);
        assert!(cc.in_recovery());
        assert_eq!(cc.ssthresh_bytes(), 10 * MSS);
        assert_eq!(cc.cwnd_bytes(), 13 * MSS);
        cc.on_dupack(false, 0, 20 * MSS);
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
        cc.on_fast_retransmit(20 * MSS, 20 * MSS);
        cc.on_recovery_exit(&ack(20 * MSS, 0, 20 * MSS, 30 * MSS));
        assert_eq!(cc.cwnd_bytes(), 10 * MSS);
        cc.on_ack(&ack(MSS, MSS, 20 * MSS, 30 * MSS), &ctx());
        assert_eq!(cc.cwnd_bytes(), 10 * MSS);
    }

    #[test]
    fn timeout_sets_one_mss_and_half_flight() {
        let mut cc = reno(20 * MSS);
        cc.on_fast_retransmit(20 * MSS, 20 * MSS);
        cc.on_timeout(6 * MSS, 20 * MSS);
        assert!(!cc.in_recovery());
        assert_eq!(cc.cwnd_bytes(), MSS);
        assert_eq!(cc.ssthresh_bytes(), 3 * MSS);
        cc.on_timeout(MSS, 20 * MSS);
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
