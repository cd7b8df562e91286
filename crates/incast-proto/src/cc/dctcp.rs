//! DCTCP (Alizadeh et al., SIGCOMM 2010, Section 3.1): estimate the fraction of CE-marked bytes
//! once per window of data and cut the window in proportion to it, cwnd <- cwnd x (1 - alpha/2).

use super::cut::{CutContext, DCTCP_DEFAULT_G, DCTCP_DEFAULT_INITIAL_ALPHA};

/// DCTCP's running estimate alpha of the fraction of marked bytes (DCTCP paper Section 3.1,
/// equation 1: alpha <- (1 - g) x alpha + g x F).
///
/// Kept apart from the DCTCP cut so that D2TCP, whose penalty is p = alpha^d (D2TCP Section 3),
/// reuses this estimator instead of copying it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AlphaEstimator {
    /// Estimation gain g.
    g: f64,
    /// Current estimate, in [0, 1].
    alpha: f64,
    /// Bytes acknowledged in the current observation window.
    acked_bytes: u64,
    /// Of those, bytes reported as CE-marked.
    marked_bytes: u64,
    /// The observation window ends when snd_una reaches this offset (snd_nxt at the last update).
    window_end: u64,
    /// ns-3's `m_nextSeq` (`WindowConfig::ns3_bookkeeping`): unset until the first ACK.
    ns3_window_end: Option<u64>,
}

impl AlphaEstimator {
    /// An estimator with gain `g` whose estimate starts at `initial_alpha`
    /// ([`DCTCP_DEFAULT_INITIAL_ALPHA`] unless a scenario says otherwise). Both are clamped to
    /// [0, 1] (NaN falls back to the default) so that a bad configuration can never push alpha
    /// out of [0, 1].
    pub(crate) fn new(g: f64, initial_alpha: f64) -> Self {
        let unit = |x: f64, default: f64| if x.is_nan() { default } else { x.clamp(0.0, 1.0) };
        AlphaEstimator {
            g: unit(g, DCTCP_DEFAULT_G),
            alpha: unit(initial_alpha, DCTCP_DEFAULT_INITIAL_ALPHA),
            acked_bytes: 0,
            marked_bytes: 0,
            // Zero, as Linux's `next_seq = snd_nxt` at connection start: the first ACK closes
            // the first (one-ACK) window, after that each window is one flight of data.
            window_end: 0,
            ns3_window_end: None,
        }
    }

    /// The current estimate of the fraction of marked bytes.
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Counts one ACK's bytes; once snd_una reaches the end of the observation window, folds
    /// F = marked / acked into alpha and starts a new window ending at the current snd_nxt.
    /// Returns whether alpha was updated.
    pub(crate) fn on_acked(&mut self, acked: u64, marked: u64, snd_una: u64, snd_nxt: u64) -> bool {
        self.acked_bytes += acked;
        self.marked_bytes += marked.min(acked);
        if snd_una < self.window_end || self.acked_bytes == 0 {
            return false;
        }
        let f = self.marked_bytes as f64 / self.acked_bytes as f64;
        self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).clamp(0.0, 1.0);
        self.acked_bytes = 0;
        self.marked_bytes = 0;
        self.window_end = snd_nxt;
        true
    }

    /// ns-3.44's `TcpDctcp::PktsAcked` (tcp-dctcp.cc lines 128 to 150), for
    /// `WindowConfig::ns3_bookkeeping`: `acked` bytes (whole segments) counted, all marked if
    /// `ece_received`; the first window ends at `next_tx` of the first ACK (not at once, as
    /// Linux's), a window closes when `last_acked` reaches its end, even with nothing counted
    /// (alpha then decays), and the next ends at `next_tx`, which after a resend lies below
    /// snd_nxt. Returns whether alpha was updated.
    pub(crate) fn on_acked_ns3(&mut self, acked: u64, ece_received: bool, last_acked: u64, next_tx: u64) -> bool {
        self.acked_bytes += acked;
        if ece_received {
            self.marked_bytes += acked;
        }
        let end = *self.ns3_window_end.get_or_insert(next_tx);
        if last_acked < end {
            return false;
        }
        let f = if self.acked_bytes == 0 { 0.0 } else { self.marked_bytes as f64 / self.acked_bytes as f64 };
        self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).clamp(0.0, 1.0);
        self.acked_bytes = 0;
        self.marked_bytes = 0;
        self.ns3_window_end = Some(next_tx);
        true
    }
}

/// The DCTCP policy: the alpha estimator and the proportional cut.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Dctcp {
    /// Fraction-of-marked-bytes estimator.
    pub(crate) estimator: AlphaEstimator,
}

impl Dctcp {
    /// DCTCP with estimation gain `g` and alpha starting at `initial_alpha`.
    pub(crate) fn new(g: f64, initial_alpha: f64) -> Self {
        Dctcp {
            estimator: AlphaEstimator::new(g, initial_alpha),
        }
    }

    /// The window after an ECN-Echo: cwnd x (1 - alpha/2) (DCTCP paper Section 3.1, eq. 2).
    /// The skeleton applies the floor.
    pub(crate) fn ecn_cut(&self, ctx: &CutContext) -> u64 {
        proportional_cut(ctx.cwnd_bytes, self.estimator.alpha())
    }
}

/// The DCTCP-family cut cwnd x (1 - p/2) for a penalty p in [0, 1]: p = alpha for DCTCP,
/// p = alpha^d for D2TCP. One function, so both round the same way and D2TCP at d = 1 is
/// DCTCP to the byte.
pub(crate) fn proportional_cut(cwnd_bytes: u64, penalty: f64) -> u64 {
    (cwnd_bytes as f64 * (1.0 - penalty / 2.0)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    const G: f64 = 1.0 / 16.0;

    /// Feeds one window of `acked` bytes, `marked` of them marked, ending the window.
    fn window(est: &mut AlphaEstimator, start: &mut u64, acked: u64, marked: u64) -> bool {
        *start += acked;
        est.on_acked(acked, marked, *start, *start + acked)
    }

    #[test]
    fn estimator_new_alpha_starts_at_one() {
        assert_eq!(AlphaEstimator::new(G, DCTCP_DEFAULT_INITIAL_ALPHA).alpha(), 1.0);
    }

    #[test]
    fn estimator_starts_at_the_configured_alpha_and_folds_from_there() {
        // ns-2's `dctcp_alpha_ 0`: the first all-marked window only lifts alpha to g.
        let mut est = AlphaEstimator::new(G, 0.0);
        assert_eq!(est.alpha(), 0.0);
        assert!(est.on_acked(1_000, 1_000, 1_000, 2_000));
        assert_eq!(est.alpha(), G);
        // Out-of-range and NaN starts stay in [0, 1].
        assert_eq!(AlphaEstimator::new(G, -3.0).alpha(), 0.0);
        assert_eq!(AlphaEstimator::new(G, 2.0).alpha(), 1.0);
        assert_eq!(AlphaEstimator::new(G, f64::NAN).alpha(), DCTCP_DEFAULT_INITIAL_ALPHA);
    }

    #[test]
    fn estimator_no_marks_decays_by_one_minus_g_per_window() {
        let mut est = AlphaEstimator::new(G, DCTCP_DEFAULT_INITIAL_ALPHA);
        let mut una = 0;
        let mut expected = 1.0;
        for _ in 0..20 {
            assert!(window(&mut est, &mut una, 10_000, 0));
            expected *= 1.0 - G;
            assert!((est.alpha() - expected).abs() < 1e-12);
        }
    }

    #[test]
    fn estimator_all_marked_for_many_windows_converges_to_one() {
        let mut est = AlphaEstimator::new(G, DCTCP_DEFAULT_INITIAL_ALPHA);
        let mut una = 0;
        for _ in 0..200 {
            window(&mut est, &mut una, 10_000, 0);
        }
        assert!(est.alpha() < 1e-5);
        for _ in 0..400 {
            window(&mut est, &mut una, 10_000, 10_000);
        }
        assert!(est.alpha() > 1.0 - 1e-9);
    }

    #[test]
    fn estimator_partial_marks_folds_fraction_once_per_window() {
        let mut est = AlphaEstimator::new(G, DCTCP_DEFAULT_INITIAL_ALPHA);
        // First ACK closes the initial one-ACK window (F = 0) and opens one ending at 10_000.
        assert!(est.on_acked(1_000, 0, 1_000, 10_000));
        let a1 = 1.0 - G;
        assert!((est.alpha() - a1).abs() < 1e-12);
        // ACKs inside the window only accumulate.
        assert!(!est.on_acked(4_000, 4_000, 5_000, 12_000));
        assert!(!est.on_acked(4_000, 0, 9_000, 14_000));
        assert_eq!(est.alpha(), a1);
        // Reaching the window end folds F = 4000 / 9000.
        assert!(est.on_acked(1_000, 0, 10_000, 16_000));
        let f = 4_000.0 / 9_000.0;
        assert!((est.alpha() - ((1.0 - G) * a1 + G * f)).abs() < 1e-12);
        // The next window ends at the snd_nxt of that update.
        assert!(!est.on_acked(5_000, 5_000, 15_000, 20_000));
        assert!(est.on_acked(1_000, 1_000, 16_000, 20_000));
    }

    #[test]
    fn estimator_bad_gain_clamped_into_unit_interval() {
        let mut est = AlphaEstimator::new(7.0, DCTCP_DEFAULT_INITIAL_ALPHA);
        est.on_acked(1_000, 500, 1_000, 2_000);
        assert_eq!(est.alpha(), 0.5);
        let est = AlphaEstimator::new(f64::NAN, DCTCP_DEFAULT_INITIAL_ALPHA);
        assert_eq!(est.g, DCTCP_DEFAULT_G);
    }

    #[test]
    fn dctcp_cut_is_cwnd_times_one_minus_half_alpha() {
        let mut d = Dctcp::new(G, DCTCP_DEFAULT_INITIAL_ALPHA);
        let ctx = CutContext {
            now: Instant::ZERO,
            cwnd_bytes: 100_000,
            srtt: None,
            remaining_bytes: None,
            unsent_bytes: None,
            deadline: None,
        };
        assert_eq!(d.ecn_cut(&ctx), 50_000);
        d.estimator.alpha = 0.25;
        assert_eq!(d.ecn_cut(&ctx), 87_500);
        d.estimator.alpha = 0.0;
        assert_eq!(d.ecn_cut(&ctx), 100_000);
    }
}
