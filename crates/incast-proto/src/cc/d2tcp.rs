//! D2TCP (Vamanan et al., SIGCOMM 2012, Section 3): DCTCP with a deadline-aware penalty. The
//! alpha estimator and the proportional cut are DCTCP's; this file only decides the exponent d
//! of the penalty p = alpha^d, so that cwnd <- cwnd x (1 - p/2).
//!
//! ```text
//!   d = Tc / D,  Tc = B / (3W/4) round trips x SRTT,  d clamped to [1/n, n]
//! ```
//!
//! D is the time left to the deadline, B the bytes still to deliver, W the window in bytes (the
//! DCTCP sawtooth averages 3W/4, D2TCP Section 3). A near-deadline flow (d > 1) has p < alpha
//! and backs off less than DCTCP; a far-deadline flow (d < 1) has p > alpha and backs off more;
//! flows without a deadline, long-lived flows and d = 1 are exactly DCTCP.
//!
//! Our copy of the paper lacks Section 3, and the public implementations disagree on what it
//! leaves open. Each disagreement is a parameter here, its default our reading, the others
//! named after the code that makes them:
//!
//! | question | ours (default) | ns-3 port, 2013 (i-maravic/ns-3) | FujiZ/ns-3 (2017-2018) | Linux module (ycaoae/D2TCP_Kernel) |
//! | --- | --- | --- | --- | --- |
//! | B | unacked | unsent | unsent | unsent at the last alpha window |
//! | Tc | round trips x SRTT | x RTT | x RTT | x SRTT (W taken as cwnd x 1500 B) |
//! | past the deadline | 1 | n | n until 2017-04-16, then 1/n | 1 |
//! | B = 0 | 1/n | 1/n | 1/n | 1/n (1 once the FIN is sent) |
//! | clamp | [1/n, n] | [1/2, 2] | [1/2, 2] | [1/2, 2], d in steps of 1/128 |
//!
//! Sources: i-maravic/ns-3 `src/internet/model/tcp-newreno.cc`, `TcpNewReno::HalveCwnd`;
//! FujiZ/ns-3 `src/internet/model/d2tcp-socket.cc`, `D2tcpSocket::GetSsThresh` (formerly
//! `HalveCwnd`, `DecreaseWindow`); ycaoae/D2TCP_Kernel `d2tcp/tcp_d2tcp.c`, `dctcp_ssthresh`.

use super::dctcp::{proportional_cut, AlphaEstimator};
use super::cut::{CutContext, DCTCP_DEFAULT_G, DCTCP_DEFAULT_INITIAL_ALPHA};

/// The cap n on d (D2TCP Section 4.2.4: d lies in [1/n, n], "In all our experiments we set
/// n = 2.0"; Figure 15 sweeps n from 1.25 to 3.0 and finds 2.0 the sweet spot).
pub const D2TCP_DEFAULT_D_CAP: f64 = 2.0;

/// A value of d set by rule where d = Tc / D is not computed: once the deadline has passed
/// ([`D2tcpConfig::past_deadline`]) and once nothing is left to send
/// ([`D2tcpConfig::nothing_left`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixedD {
    /// d = 1: the flow behaves exactly as DCTCP.
    One,
    /// d = n: as aggressive as a flow about to miss its deadline (the limit of Tc / D as D
    /// reaches 0).
    Max,
    /// d = 1/n: as gentle as a flow with all the time it needs (the limit of Tc / D as B
    /// reaches 0).
    Min,
}

impl FixedD {
    /// d under the cap n.
    fn value(self, d_cap: f64) -> f64 {
        match self {
            FixedD::One => 1.0,
            FixedD::Max => d_cap,
            FixedD::Min => 1.0 / d_cap,
        }
    }
}

/// Which bytes count as B, the data still to deliver.
///
/// The default is [`RemainingBytes::Unacked`]: a deadline is met when the receiver holds the
/// data, so bytes in flight still count (they may be lost, and the last of them are acknowledged
/// one round trip after they leave). It also keeps d meaningful in the last window, where
/// [`RemainingBytes::Unsent`] gives B = 0, d = 1/n and the largest back-off just when a late
/// loss would cost a timeout. Unacked bytes exceed unsent ones by the flight, so the default
/// gives d larger by about 4/3 round trips over D. Every public implementation counts unsent
/// bytes: both ns-3 ports total bytes minus bytes sent, the Linux module the message's end minus
/// `snd_nxt` as of the start of the current alpha window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemainingBytes {
    /// B = size - snd_una: everything not yet acknowledged. The default.
    Unacked,
    /// B = size - snd_nxt: only what has not been sent yet.
    Unsent,
}

/// In what unit Tc = B / (3W/4) is set against D.
///
/// B / (3W/4) counts round trips, D is a time: the quotient means "time needed over time left"
/// only once Tc is turned into time. The default, [`TcUnits::Seconds`], multiplies by the
/// smoothed RTT, as every public implementation does (the ns-3 ports by their RTT estimate; the
/// Linux module by `srtt_us`); FujiZ/ns-3's author gives the reason in its issue 9 ("the
/// dimension of Tc and D is mismatched"). [`TcUnits::RoundTrips`] is the formula as printed,
/// which that issue proposed: round trips against D in seconds, the unit of the ns-3 code's D.
/// Every deadline of both papers is under a second, so d = Tc / D exceeds n = 2 once Tc exceeds
/// 2 D round trips (0.04 for a 20 ms deadline): in practice every flow with a deadline sits at
/// the cap n until its deadline passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcUnits {
    /// Tc = B / (3W/4) x SRTT, against D in the same unit. The default.
    Seconds,
    /// Tc = B / (3W/4) round trips, against D in seconds.
    RoundTrips,
}

/// Which ends of [1/n, n] bound d.
///
/// The paper caps d "to be within the range (n, 1/n)" (Section 4.2.4) and every public
/// implementation clamps to [1/2, 2]: [`Clamp::Both`], the default. The talk's slides name only
/// the upper end ("d is capped at 2.0"; [`Clamp::Upper`]), although their backup slide gives the
/// reason for both: at d near 0, p = alpha^d is near 1 whatever alpha, and the cut reacts only to
/// whether there is congestion, not to how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clamp {
    /// d in [1/n, n]. The default.
    Both,
    /// d at most n, and as small as Tc / D makes it: a flow far from its deadline halves on
    /// any mark, as TCP does.
    Upper,
}

/// Parameters of D2TCP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D2tcpConfig {
    /// DCTCP's estimation gain g in (0, 1] (D2TCP Section 4.2.1: "All DCTCP and D2TCP
    /// parameters match" the testbed's, which are the DCTCP paper's g = 1/16).
    pub g: f64,
    /// alpha of a new flow, in [0, 1]; the same as DCTCP's unless a scenario says otherwise, so
    /// that D2TCP at d = 1 stays DCTCP. Default [`DCTCP_DEFAULT_INITIAL_ALPHA`].
    pub initial_alpha: f64,
    /// The cap n > 1 on d: d is clamped to [1/n, n]. Default [`D2TCP_DEFAULT_D_CAP`].
    pub d_cap: f64,
    /// d once the deadline has passed, where d = Tc / D no longer means anything (D <= 0).
    ///
    /// The paper does not say. The default is [`FixedD::One`]: D2TCP's goal is to "reduce the
    /// percentage of missed deadlines without degrading throughput for long-lived flows" (Section
    /// 1, recalled in Section 4.2), and a flow that has already missed its deadline gains nothing
    /// for that goal by taking bandwidth from flows that can still make theirs or from background
    /// flows. The limit of Tc / D as D shrinks to 0 would be the cap n ([`FixedD::Max`], the 2013
    /// ns-3 port's and FujiZ/ns-3's until 2017-04-16): every late flow would then push hardest
    /// exactly when the network is most loaded, as in the fan-in burst that made it late.
    /// Behaving as DCTCP (the Linux module's choice) keeps the late flow at its fair share, so it
    /// still completes. [`FixedD::Min`] (FujiZ/ns-3 since 2017-04-16) favours on-time flows
    /// further at the late flow's expense.
    pub past_deadline: FixedD,
    /// d once B is 0 (with [`RemainingBytes::Unsent`], from the moment the last byte leaves;
    /// with unacked bytes B is never 0 while a cut can happen). Tc / D is then 0; the default
    /// [`FixedD::Min`] is what clamping that 0 gives, and what both ns-3 ports set explicitly
    /// (`B <= 0`: d = 0.5). The Linux module drops the flow's deadline when it sees the FIN, so
    /// a finished message there is DCTCP ([`FixedD::One`]).
    pub nothing_left: FixedD,
    /// Which bytes count as B.
    pub remaining: RemainingBytes,
    /// Tc in time (the default) or in round trips.
    pub tc_units: TcUnits,
    /// Which ends of [1/n, n] bound d.
    pub clamp: Clamp,
}

impl Default for D2tcpConfig {
    /// The paper's g = 1/16 and n = 2, DCTCP behaviour past the deadline, 1/n with nothing
    /// left, B = unacked bytes, Tc in time, d in [1/n, n].
    fn default() -> Self {
        D2tcpConfig {
            g: DCTCP_DEFAULT_G,
            initial_alpha: DCTCP_DEFAULT_INITIAL_ALPHA,
            d_cap: D2TCP_DEFAULT_D_CAP,
            past_deadline: FixedD::One,
            nothing_left: FixedD::Min,
            remaining: RemainingBytes::Unacked,
            tc_units: TcUnits::Seconds,
            clamp: Clamp::Both,
        }
    }
}

/// The D2TCP policy: DCTCP's estimator, and the cut with p = alpha^d.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct D2tcp {
    /// Fraction-of-marked-bytes estimator, shared with DCTCP.
    pub(crate) estimator: AlphaEstimator,
    /// The cap n, at least 1 (so that [1/n, n] is a range).
    d_cap: f64,
    past_deadline: FixedD,
    nothing_left: FixedD,
    remaining: RemainingBytes,
    tc_units: TcUnits,
    clamp: Clamp,
    /// d and p of the last ECN cut, for traces: what the gamma correction did, where the window
    /// alone cannot say.
    pub(crate) last_cut: Option<(f64, f64)>,
}

/// Picoseconds in a second, to turn D into seconds for [`TcUnits::RoundTrips`].
const PS_PER_S: f64 = 1e12;

impl D2tcp {
    /// D2TCP with `config`. A cap below 1 is raised to 1 (plain DCTCP) and a NaN cap falls back
    /// to the default, so that a bad configuration never makes the clamp panic.
    pub(crate) fn new(config: D2tcpConfig) -> Self {
        let d_cap = if config.d_cap.is_nan() {
            D2TCP_DEFAULT_D_CAP
        } else {
            config.d_cap.max(1.0)
        };
        D2tcp {
            estimator: AlphaEstimator::new(config.g, config.initial_alpha),
            d_cap,
            past_deadline: config.past_deadline,
            nothing_left: config.nothing_left,
            remaining: config.remaining,
            tc_units: config.tc_units,
            clamp: config.clamp,
            last_cut: None,
        }
    }

    /// The deadline imminence d of the flow at `ctx.now`: in [1/n, n] under [`Clamp::Both`],
    /// in [0, n] under [`Clamp::Upper`].
    ///
    /// d = 1 (DCTCP) without a deadline, for a long-lived flow, and before the first RTT sample:
    /// without a smoothed RTT there is no way to turn round trips into time, and the first
    /// sample arrives with the first ACK, before any cut can happen.
    pub(crate) fn imminence(&self, ctx: &CutContext) -> f64 {
        let remaining = match self.remaining {
            RemainingBytes::Unacked => ctx.remaining_bytes,
            RemainingBytes::Unsent => ctx.unsent_bytes,
        };
        let (Some(deadline), Some(bytes)) = (ctx.deadline, remaining) else {
            return 1.0;
        };
        if ctx.now >= deadline {
            return self.past_deadline.value(self.d_cap);
        }
        let Some(srtt) = ctx.srtt else {
            return 1.0;
        };
        if bytes == 0 {
            return self.nothing_left.value(self.d_cap);
        }
        // Tc in round trips: B bytes at 3W/4 bytes per round trip, both in bytes (a window in
        // segments against bytes is off by a factor of the MSS).
        let round_trips = bytes as f64 / (0.75 * ctx.cwnd_bytes.max(1) as f64);
        let time_left_ps = deadline.saturating_since(ctx.now).as_ps() as f64;
        let d = match self.tc_units {
            // Tc and D both in picoseconds (Tc in round trips against D in time is off by the RTT).
            TcUnits::Seconds => round_trips * srtt.as_ps() as f64 / time_left_ps,
            TcUnits::RoundTrips => round_trips / (time_left_ps / PS_PER_S),
        };
        match self.clamp {
            Clamp::Both => d.clamp(1.0 / self.d_cap, self.d_cap),
            Clamp::Upper => d.min(self.d_cap),
        }
    }

    /// The window after an ECN-Echo: cwnd x (1 - p/2) with p = alpha^d (D2TCP Section 3).
    /// The skeleton applies the floor. Remembers d and p (`last_cut`).
    pub(crate) fn ecn_cut(&mut self, ctx: &CutContext) -> u64 {
        let d = self.imminence(ctx);
        let p = penalty(self.estimator.alpha(), d);
        self.last_cut = Some((d, p));
        proportional_cut(ctx.cwnd_bytes, p)
    }
}

/// The gamma correction p = alpha^d; exactly alpha at d = 1, so that D2TCP without deadlines
/// cuts to the bit what DCTCP cuts, whatever the platform's `powf` returns.
fn penalty(alpha: f64, d: f64) -> f64 {
    if d == 1.0 {
        alpha
    } else {
        alpha.powf(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::dctcp::Dctcp;
    use crate::cc::{AckEvent, CcKind, CongestionControl};
    use crate::time::{Duration, Instant};

    /// The MSS of the default window rules, which `CongestionControl::new` starts with.
    const MSS: u64 = 1460;

    fn us(t: u64) -> Instant {
        Instant::ZERO + Duration::from_us(t)
    }

    /// A finite flow at t = 1 ms: `unacked` bytes left, 2 windows of them in flight.
    fn ctx(cwnd: u64, unacked: u64, srtt_us: u64, deadline_us: Option<u64>) -> CutContext {
        CutContext {
            now: us(1_000),
            cwnd_bytes: cwnd,
            srtt: Some(Duration::from_us(srtt_us)),
            remaining_bytes: Some(unacked),
            unsent_bytes: Some(unacked.saturating_sub(2 * cwnd)),
            deadline: deadline_us.map(us),
        }
    }

    fn d2tcp(config: D2tcpConfig) -> D2tcp {
        D2tcp::new(config)
    }

    fn with_alpha(mut p: D2tcp, alpha: f64) -> D2tcp {
        p.estimator = AlphaEstimator::new(DCTCP_DEFAULT_G, alpha);
        p
    }

    fn dctcp_with_alpha(alpha: f64) -> Dctcp {
        Dctcp { estimator: AlphaEstimator::new(DCTCP_DEFAULT_G, alpha) }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn imminence_units_hand_computed_in_bytes_and_picoseconds() {
        let p = d2tcp(D2tcpConfig::default());
        // B = 146 000 B (100 segments), W = 14 600 B (10 segments): 3W/4 = 10 950 B per round
        // trip, so Tc = 146 000 / 10 950 = 13.33 round trips = 4 ms at SRTT 300 us. With W in
        // segments Tc would be 13 333 round trips; in round trips rather than time, 13.33.
        let c = ctx(10 * MSS, 100 * MSS, 300, Some(1_000 + 3_200));
        assert!(close(p.imminence(&c), 1.25), "D = 3.2 ms: d = 4 / 3.2 = 1.25, got {}", p.imminence(&c));
        let c = ctx(10 * MSS, 100 * MSS, 300, Some(1_000 + 5_000));
        assert!(close(p.imminence(&c), 0.8), "D = 5 ms: d = 0.8, got {}", p.imminence(&c));
        // Unsent bytes leave the 2 windows in flight out: B = 80 segments, Tc = 3.2 ms.
        let unsent = d2tcp(D2tcpConfig { remaining: RemainingBytes::Unsent, ..D2tcpConfig::default() });
        let c = ctx(10 * MSS, 100 * MSS, 300, Some(1_000 + 3_200));
        assert!(close(unsent.imminence(&c), 1.0), "got {}", unsent.imminence(&c));
    }

    #[test]
    fn imminence_cap_holds_both_ways() {
        for n in [1.25, 2.0, 3.0] {
            let p = d2tcp(D2tcpConfig { d_cap: n, ..D2tcpConfig::default() });
            // Tc = 400 ms against 1 ms left: d = 400, capped at n.
            assert_eq!(p.imminence(&ctx(10 * MSS, 10_000 * MSS, 300, Some(2_000))), n);
            // Tc = 40 us against 1 s left: d = 0.00004, floored at 1/n.
            assert_eq!(p.imminence(&ctx(10 * MSS, MSS, 300, Some(1_001_000))), 1.0 / n);
        }
    }

    #[test]
    fn imminence_without_deadline_long_lived_or_rtt_is_one() {
        let p = d2tcp(D2tcpConfig::default());
        assert_eq!(p.imminence(&ctx(10 * MSS, 100 * MSS, 300, None)), 1.0);
        let long_lived = CutContext { remaining_bytes: None, unsent_bytes: None, ..ctx(10 * MSS, 0, 300, Some(2_000)) };
        assert_eq!(p.imminence(&long_lived), 1.0);
        let no_sample = CutContext { srtt: None, ..ctx(10 * MSS, 100 * MSS, 300, Some(2_000)) };
        assert_eq!(p.imminence(&no_sample), 1.0);
    }

    #[test]
    fn imminence_past_deadline_follows_the_parameter() {
        let late = |past: FixedD, deadline_us: u64| {
            let p = d2tcp(D2tcpConfig { d_cap: 3.0, past_deadline: past, ..D2tcpConfig::default() });
            p.imminence(&ctx(10 * MSS, 100 * MSS, 300, Some(deadline_us)))
        };
        // At the deadline (D = 0) and after it.
        for deadline in [1_000, 500] {
            assert_eq!(late(FixedD::One, deadline), 1.0);
            assert_eq!(late(FixedD::Max, deadline), 3.0);
            assert_eq!(late(FixedD::Min, deadline), 1.0 / 3.0);
        }
        assert_eq!(D2tcpConfig::default().past_deadline, FixedD::One);
    }

    #[test]
    fn imminence_nothing_left_to_send_follows_the_parameter() {
        // 2 windows unacked, all of them in flight: B = 0 unsent bytes, 20 segments unacked.
        let c = ctx(10 * MSS, 20 * MSS, 300, Some(1_000 + 10_000));
        assert_eq!(c.unsent_bytes, Some(0));
        let unsent = |nothing_left: FixedD| D2tcpConfig {
            d_cap: 3.0,
            remaining: RemainingBytes::Unsent,
            nothing_left,
            ..D2tcpConfig::default()
        };
        assert_eq!(d2tcp(unsent(FixedD::Min)).imminence(&c), 1.0 / 3.0);
        assert_eq!(d2tcp(unsent(FixedD::One)).imminence(&c), 1.0);
        assert_eq!(d2tcp(unsent(FixedD::Max)).imminence(&c), 3.0);
        // Without the lower clamp the rule still decides: 1/n, not the 0 that Tc / D gives.
        let upper = D2tcpConfig { clamp: Clamp::Upper, ..unsent(FixedD::Min) };
        assert_eq!(d2tcp(upper).imminence(&c), 1.0 / 3.0);
        // Unacked bytes are not 0 here: Tc = 20 / 7.5 round trips x 300 us = 0.8 ms against
        // 10 ms, d = 0.08, floored at 1/3 whatever the rule for B = 0.
        let unacked = D2tcpConfig { remaining: RemainingBytes::Unacked, ..unsent(FixedD::Max) };
        assert_eq!(d2tcp(unacked).imminence(&c), 1.0 / 3.0);
        // Past the deadline with nothing left, the deadline decides (as in the Linux module,
        // which tests the deadline first; both ns-3 ports test B first).
        let late = ctx(10 * MSS, 20 * MSS, 300, Some(500));
        let both = D2tcpConfig { past_deadline: FixedD::One, ..unsent(FixedD::Max) };
        assert_eq!(d2tcp(both).imminence(&late), 1.0);
        assert_eq!(D2tcpConfig::default().nothing_left, FixedD::Min);
    }

    #[test]
    fn imminence_round_trips_against_seconds_hand_computed() {
        let rt = d2tcp(D2tcpConfig { tc_units: TcUnits::RoundTrips, ..D2tcpConfig::default() });
        let time = d2tcp(D2tcpConfig::default());
        // B = W = 10 segments: Tc = 10 / 7.5 = 4/3 round trips. D = 1 s: in round trips
        // against seconds d = 4/3; in time Tc = 400 us against 1 s, d = 0.0004, floored at 1/2.
        let c = ctx(10 * MSS, 10 * MSS, 300, Some(1_000 + 1_000_000));
        assert!(close(rt.imminence(&c), 4.0 / 3.0), "got {}", rt.imminence(&c));
        assert_eq!(time.imminence(&c), 0.5);
        // D = 20 ms, the paper's tightest base deadline: 4/3 round trips over 0.02 s = 66.7,
        // capped at 2, where time gives 400 us / 20 ms = 0.02, floored at 1/2.
        let c = ctx(10 * MSS, 10 * MSS, 300, Some(1_000 + 20_000));
        assert_eq!(rt.imminence(&c), 2.0);
        assert_eq!(time.imminence(&c), 0.5);
        // The units change nothing past the deadline or without a deadline.
        assert_eq!(rt.imminence(&ctx(10 * MSS, 10 * MSS, 300, Some(500))), 1.0);
        assert_eq!(rt.imminence(&ctx(10 * MSS, 10 * MSS, 300, None)), 1.0);
        assert_eq!(D2tcpConfig::default().tc_units, TcUnits::Seconds);
    }

    #[test]
    fn imminence_upper_clamp_lets_far_flows_fall_below_one_over_n() {
        let upper = d2tcp(D2tcpConfig { clamp: Clamp::Upper, ..D2tcpConfig::default() });
        let both = d2tcp(D2tcpConfig::default());
        // B = 1 segment, W = 10: Tc = 0.1333 round trips x 300 us = 40 us against 1 ms: d = 0.04.
        let far = ctx(10 * MSS, MSS, 300, Some(1_000 + 1_000));
        assert!(close(upper.imminence(&far), 0.04), "got {}", upper.imminence(&far));
        assert_eq!(both.imminence(&far), 0.5);
        // The cap still holds: Tc = 400 ms against 1 ms.
        let near = ctx(10 * MSS, 10_000 * MSS, 300, Some(2_000));
        assert_eq!(upper.imminence(&near), 2.0);
        // At d = 0.04 and alpha = 1/4, p = 0.25^0.04 = 0.946: the cut is nearly TCP's halving,
        // where the clamped d = 1/2 gives p = 1/2 and a cut by a quarter.
        let cwnd = 10 * MSS;
        let mut upper = with_alpha(upper, 0.25);
        let mut both = with_alpha(both, 0.25);
        assert_eq!(upper.ecn_cut(&far), proportional_cut(cwnd, 0.25f64.powf(0.04)));
        assert!(upper.ecn_cut(&far) < cwnd * 53 / 100 && upper.ecn_cut(&far) > cwnd / 2);
        assert_eq!(both.ecn_cut(&far), cwnd * 3 / 4);
        assert_eq!(D2tcpConfig::default().clamp, Clamp::Both);
    }

    #[test]
    fn ecn_cut_near_deadline_cuts_less_far_deadline_more_than_dctcp() {
        let cwnd = 100 * MSS;
        let mut p = with_alpha(d2tcp(D2tcpConfig::default()), 0.25);
        let dctcp = dctcp_with_alpha(0.25).ecn_cut(&ctx(cwnd, 0, 300, None));
        assert_eq!(dctcp, cwnd * 7 / 8);
        // Tc = 1000 / 75 round trips x 300 us = 4 ms.
        // 1 ms left: d = 4, capped at 2. 16 ms left: d = 1/4, floored at 1/2.
        let near = ctx(cwnd, 1_000 * MSS, 300, Some(1_000 + 1_000));
        let far = ctx(cwnd, 1_000 * MSS, 300, Some(1_000 + 16_000));
        assert_eq!(p.imminence(&near), 2.0);
        assert_eq!(p.imminence(&far), 0.5);
        // p = 0.25^2 = 1/16: cut by 1/32. p = 0.25^0.5 = 1/2: cut by 1/4.
        assert_eq!(p.ecn_cut(&near), cwnd * 31 / 32);
        assert_eq!(p.ecn_cut(&far), cwnd * 3 / 4);
        assert!(p.ecn_cut(&near) > dctcp && p.ecn_cut(&far) < dctcp);
        // The last cut's d and p are kept for traces: the far flow's d = 1/2, p = 0.25^(1/2).
        assert_eq!(p.last_cut, Some((0.5, 0.5)));
    }

    #[test]
    fn fresh_flow_first_cut_follows_dctcp_unless_alpha_starts_below_one() {
        // A new flow's first window comes back all marked. From Linux's alpha = 1 it stays 1, so
        // D2TCP halves like DCTCP whatever d (1^d = 1): a message of a few windows is DCTCP.
        // From ns-2's alpha = 0 it becomes g = 1/16, and d = 1/2 turns the 1/32 cut into 1/8.
        let cwnd = 8 * MSS;
        // Tc = 1000 / 6 round trips x 300 us = 50 ms against 200 ms left: d = 1/4, floored at 1/2.
        let far = ctx(cwnd, 1_000 * MSS, 300, Some(1_000 + 200_000));
        for (initial_alpha, dctcp_cut, d2tcp_cut) in [(1.0, cwnd / 2, cwnd / 2), (0.0, cwnd * 31 / 32, cwnd * 7 / 8)] {
            let mut p = d2tcp(D2tcpConfig { initial_alpha, ..D2tcpConfig::default() });
            let mut dctcp = Dctcp::new(DCTCP_DEFAULT_G, initial_alpha);
            assert!(p.estimator.on_acked(MSS, MSS, MSS, 2 * MSS));
            assert!(dctcp.estimator.on_acked(MSS, MSS, MSS, 2 * MSS));
            assert_eq!(p.imminence(&far), 0.5);
            assert_eq!(dctcp.ecn_cut(&far), dctcp_cut, "alpha0 = {initial_alpha}");
            assert_eq!(p.ecn_cut(&far), d2tcp_cut, "alpha0 = {initial_alpha}");
        }
    }

    #[test]
    fn ecn_cut_at_full_congestion_halves_whatever_d() {
        // D2TCP Section 3: as alpha reaches 1 every flow falls back to TCP's halving.
        let mut p = with_alpha(d2tcp(D2tcpConfig::default()), 1.0);
        for deadline in [1_001, 2_000, 100_000] {
            assert_eq!(p.ecn_cut(&ctx(100 * MSS, 1_000 * MSS, 300, Some(deadline))), 50 * MSS);
        }
    }

    #[test]
    fn ecn_cut_with_d_one_is_dctcp_bit_for_bit() {
        let p = d2tcp(D2tcpConfig::default());
        for alpha in [0.0, 1e-9, 0.1, 1.0 / 3.0, 0.7, 0.999_999, 1.0] {
            for cwnd in [2 * MSS, 3 * MSS + 7, 1_000_003, 123_456_789] {
                let c = ctx(cwnd, 0, 300, None);
                assert_eq!(with_alpha(p, alpha).ecn_cut(&c), dctcp_with_alpha(alpha).ecn_cut(&c));
            }
        }
    }

    #[test]
    fn window_without_deadline_tracks_dctcp_exactly() {
        // The same ACK stream, with marks on every third window, through both policies.
        let mut dctcp = CongestionControl::new(CcKind::dctcp());
        let mut d2 = CongestionControl::new(CcKind::D2tcp(D2tcpConfig::default()));
        dctcp.set_initial_window(10 * MSS);
        d2.set_initial_window(10 * MSS);
        let c = ctx(0, 0, 300, None);
        let mut una = 0;
        for i in 0..2_000u64 {
            una += MSS;
            let marked = if (i / 20) % 3 == 0 && i % 4 == 0 { MSS } else { 0 };
            let ev = AckEvent { acked_bytes: MSS, delivered_bytes: MSS, ce_marked_bytes: marked, snd_una: una, snd_nxt: una + dctcp.cwnd_bytes(), cwnd_limited: true, pipe_bytes: dctcp.cwnd_bytes(), safe: true, ns3: None };
            dctcp.on_ack(&ev, &c);
            d2.on_ack(&ev, &c);
            assert_eq!(d2.cwnd_bytes(), dctcp.cwnd_bytes(), "after ACK {i}");
            assert_eq!(d2.dctcp_alpha(), dctcp.dctcp_alpha());
        }
        assert!(dctcp.ssthresh_bytes() < u64::MAX, "the stream did cut");
    }

    #[test]
    fn new_bad_cap_never_panics() {
        for n in [f64::NAN, 0.5, 0.0, -1.0, 1.0] {
            let p = d2tcp(D2tcpConfig { d_cap: n, ..D2tcpConfig::default() });
            let d = p.imminence(&ctx(10 * MSS, 100 * MSS, 300, Some(1_100)));
            assert!((1.0 / D2TCP_DEFAULT_D_CAP..=D2TCP_DEFAULT_D_CAP).contains(&d), "n = {n}: d = {d}");
        }
    }
}
