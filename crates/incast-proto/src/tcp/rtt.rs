//! The retransmission timeout of RFC 6298 Sections 2 and 5: smoothed RTT and variance from
//! timestamp samples, RTO = SRTT + max(G, 4 RTTVAR) clamped to [min_rto, max_rto], and
//! exponential back-off after each expiry.

use super::TcpConfig;
use crate::time::Duration;

/// Largest back-off exponent; 2^32 x any RTO already saturates at `max_rto`.
const MAX_BACKOFF: u32 = 32;

/// RTT estimator and RTO of one sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RttEstimator {
    /// SRTT, `None` before the first sample.
    srtt: Option<Duration>,
    /// RTTVAR.
    rttvar: Duration,
    /// RTO before back-off.
    base_rto: Duration,
    /// Expiries since the last new RTT sample; the RTO is doubled once per expiry.
    backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
    granularity: Duration,
}

impl RttEstimator {
    /// Before any sample the RTO is `initial_rto`, or `min_rto` (see `TcpConfig::initial_rto`).
    pub(crate) fn new(config: &TcpConfig) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            base_rto: config
                .initial_rto
                .unwrap_or(config.min_rto)
                .min(config.max_rto),
            backoff: 0,
            min_rto: config.min_rto,
            max_rto: config.max_rto,
            granularity: config.clock_granularity,
        }
    }

    /// Smoothed RTT, if any sample was taken.
    pub(crate) fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    /// The current RTO, back-off included.
    pub(crate) fn rto(&self) -> Duration {
        self.base_rto
            .saturating_mul(1u64 << self.backoff)
            .min(self.max_rto)
    }

    /// Folds in one RTT measurement (RFC 6298 Section 2.2 and 2.3, alpha = 1/8, beta = 1/4)
    /// and clears the back-off: a fresh sample means the path delivers again (Section 5.7).
    pub(crate) fn on_sample(&mut self, r: Duration) {
        let r_ps = r.as_ps();
        let (srtt, rttvar) = match self.srtt {
            None => (r_ps, r_ps / 2),
            Some(srtt) => {
                let srtt = srtt.as_ps();
                let err = srtt.abs_diff(r_ps);
                // Integer picoseconds; the truncation is below any clock granularity modelled.
                let rttvar = (3 * (self.rttvar.as_ps() as u128) + err as u128) / 4;
                let srtt = (7 * (srtt as u128) + r_ps as u128) / 8;
                (srtt as u64, rttvar as u64)
            }
        };
        self.srtt = Some(Duration::from_ps(srtt));
        self.rttvar = Duration::from_ps(rttvar);
        let var_term = self
            .granularity
            .max(Duration::from_ps(rttvar.saturating_mul(4)));
        // RFC 6298 Section 2.4 floor and 2.5 ceiling.
        self.base_rto = (Duration::from_ps(srtt) + var_term)
            .max(self.min_rto)
            .min(self.max_rto);
        self.backoff = 0;
    }

    /// Doubles the RTO after an expiry (RFC 6298 Section 5.5), up to `max_rto`.
    pub(crate) fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff = (self.backoff + 1).min(MAX_BACKOFF);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(min_rto_us: u64) -> TcpConfig {
        TcpConfig {
            min_rto: Duration::from_us(min_rto_us),
            max_rto: Duration::from_ms(100),
            ..TcpConfig::default()
        }
    }

    #[test]
    fn new_no_sample_rto_is_initial_or_min() {
        assert_eq!(
            RttEstimator::new(&config(300)).rto(),
            Duration::from_us(300)
        );
        let c = TcpConfig {
            initial_rto: Some(Duration::from_ms(3)),
            ..config(300)
        };
        assert_eq!(RttEstimator::new(&c).rto(), Duration::from_ms(3));
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(&config(0));
        e.on_sample(Duration::from_us(100));
        assert_eq!(e.srtt(), Some(Duration::from_us(100)));
        // 100 + 4 x 50
        assert_eq!(e.rto(), Duration::from_us(300));
    }

    #[test]
    fn later_samples_smooth_by_eighth_and_quarter() {
        let mut e = RttEstimator::new(&config(0));
        e.on_sample(Duration::from_us(80));
        e.on_sample(Duration::from_us(160));
        // rttvar = 3/4 x 40 + 1/4 x 80 = 50; srtt = 7/8 x 80 + 1/8 x 160 = 90.
        assert_eq!(e.srtt(), Some(Duration::from_us(90)));
        assert_eq!(e.rto(), Duration::from_us(290));
    }

    #[test]
    fn small_rtt_rto_clamped_to_min_rto() {
        let mut e = RttEstimator::new(&config(10_000));
        e.on_sample(Duration::from_us(100));
        assert_eq!(e.rto(), Duration::from_ms(10));
    }

    #[test]
    fn steady_rtt_variance_floor_is_granularity() {
        let mut e = RttEstimator::new(&TcpConfig {
            clock_granularity: Duration::from_us(7),
            ..config(0)
        });
        for _ in 0..200 {
            e.on_sample(Duration::from_us(100));
        }
        assert_eq!(e.rto(), Duration::from_us(107));
    }

    #[test]
    fn back_off_doubles_until_max_and_sample_resets() {
        let mut e = RttEstimator::new(&config(30_000));
        e.back_off();
        assert_eq!(e.rto(), Duration::from_ms(60));
        e.back_off();
        assert_eq!(e.rto(), Duration::from_ms(100));
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_ms(100));
        e.on_sample(Duration::from_us(100));
        assert_eq!(e.rto(), Duration::from_ms(30));
    }
}
