//! Rates as explicit-rate transports carry them: integer bytes per second, with the conversions
//! between a rate, a byte count and a span of time. Below every protocol: D3's routers and
//! hosts, and PDQ's switches and senders, count in it.

use crate::time::{BitsPerSec, Duration};

/// A rate in bytes per second (1 Gbps = 125_000_000).
///
/// A plain `u64` rather than a newtype: an allocator only adds, subtracts, compares and divides
/// by a flow count, and every counter of a port (D3's demand D, allocation A, capacity C) is a
/// sum of rates, so operator boilerplate would buy nothing. The unit lives in this name instead.
/// Integer on purpose: D3's router uses "integer arithmetic for all rate calculations" (D3
/// Section 5, "Router overhead"), and integer counters make "A is the sum of the live flows'
/// allocations" exact rather than approximately true.
pub type Rate = u64;

/// Picoseconds per second, for rate arithmetic on [`Duration`].
const PS_PER_S: u128 = 1_000_000_000_000;

/// A link rate as a [`Rate`] (bits per second divided by 8, rounded down).
pub const fn from_bits_per_sec(link: BitsPerSec) -> Rate {
    link.0 / 8
}

/// Bytes sent in `interval` at `rate`, rounded down (`rate x interval`): what an allocation lets a
/// flow send in one RTT, or a fully used link in one control interval.
pub fn bytes_in(rate: Rate, interval: Duration) -> u64 {
    (rate as u128 * interval.as_ps() as u128 / PS_PER_S).min(u64::MAX as u128) as u64
}

/// The rate that sends `bytes` in `interval` (`bytes / interval`), rounded down; zero for an
/// empty interval. D3's controller's u(t)/T and q(t)/T.
pub fn rate_of(bytes: u64, interval: Duration) -> Rate {
    let ps = interval.as_ps() as u128;
    if ps == 0 {
        return 0;
    }
    (bytes as u128 * PS_PER_S / ps).min(Rate::MAX as u128) as Rate
}

/// The time `bytes` take at `rate` (at least 1 B/s), rounded down: a paced sender's gap after a
/// packet.
pub fn time_at(bytes: u64, rate: Rate) -> Duration {
    let ps = u128::from(bytes) * PS_PER_S / u128::from(rate.max(1));
    Duration::from_ps(ps.min(u128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_bits_per_sec_one_gbps_is_125_million_bytes() {
        assert_eq!(from_bits_per_sec(BitsPerSec::GBPS), 125_000_000);
    }

    #[test]
    fn bytes_in_and_rate_of_invert_each_other() {
        let t = Duration::from_us(800);
        assert_eq!(bytes_in(125_000_000, t), 100_000);
        assert_eq!(rate_of(100_000, t), 125_000_000);
        assert_eq!(rate_of(1, Duration::ZERO), 0);
    }

    #[test]
    fn time_at_is_the_gap_of_a_paced_sender() {
        assert_eq!(time_at(1_500, 125_000_000), Duration::from_us(12));
        assert_eq!(time_at(1, 0), Duration::from_secs(1), "a zero rate counts as 1 B/s");
    }
}
