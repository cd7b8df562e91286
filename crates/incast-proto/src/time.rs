//! Simulated time: integer picoseconds, so that serialization at any link rate and every event
//! ordering are exact and reproducible (no float drift between runs or machines).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per nanosecond, microsecond, millisecond and second.
const PS_PER_NS: u64 = 1_000;
const PS_PER_US: u64 = 1_000_000;
const PS_PER_MS: u64 = 1_000_000_000;
const PS_PER_S: u64 = 1_000_000_000_000;

/// A point in simulated time, in picoseconds since the simulation started.
///
/// `u64` picoseconds cover about 213 days of simulated time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

/// A span of simulated time in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

impl Instant {
    /// The start of the simulation.
    pub const ZERO: Instant = Instant(0);
    /// A time later than any simulation reaches; used as "never".
    pub const NEVER: Instant = Instant(u64::MAX);

    /// An instant from raw picoseconds.
    pub const fn from_ps(ps: u64) -> Self {
        Instant(ps)
    }
    /// Raw picoseconds since the start.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds since the start, for reports only (never for simulation logic).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Time elapsed since `earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// No time.
    pub const ZERO: Duration = Duration(0);
    /// Longer than any simulation; used as "unbounded".
    pub const MAX: Duration = Duration(u64::MAX);

    /// A duration from raw picoseconds.
    pub const fn from_ps(ps: u64) -> Self {
        Duration(ps)
    }
    /// A duration from nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        Duration(ns * PS_PER_NS)
    }
    /// A duration from microseconds.
    pub const fn from_us(us: u64) -> Self {
        Duration(us * PS_PER_US)
    }
    /// A duration from milliseconds.
    pub const fn from_ms(ms: u64) -> Self {
        Duration(ms * PS_PER_MS)
    }
    /// A duration from whole seconds.
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * PS_PER_S)
    }
    /// A duration from fractional seconds, rounded to the nearest picosecond (for inputs only).
    pub fn from_secs_f64(s: f64) -> Self {
        Duration((s * PS_PER_S as f64).round().max(0.0) as u64)
    }
    /// Raw picoseconds.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds, for reports and for rate arithmetic in policies.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Saturating multiplication by an integer (used for RTO back-off).
    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}
impl Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(d.0))
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}ms", self.0 as f64 / PS_PER_MS as f64)
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}us", self.0 as f64 / PS_PER_US as f64)
    }
}

/// A link or sending rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitsPerSec(pub u64);

impl BitsPerSec {
    /// One gigabit per second, the host link rate of both papers' testbeds.
    pub const GBPS: BitsPerSec = BitsPerSec(1_000_000_000);

    /// Time to serialize `bytes` at this rate, rounded up to a whole picosecond.
    pub fn tx_time(self, bytes: u64) -> Duration {
        // Packet-sized inputs fit in u64 arithmetic (bytes * 8e12 < 2^64 below ~2.3 MB); the
        // 128-bit division is kept for larger ones. Both round the same way.
        if bytes < (1 << 21) {
            return Duration((bytes * 8 * PS_PER_S).div_ceil(self.0));
        }
        let bits = bytes as u128 * 8;
        let ps = (bits * PS_PER_S as u128).div_ceil(self.0 as u128);
        Duration(ps as u64)
    }
    /// Bytes per second, for rate arithmetic in policies.
    pub fn bytes_per_sec(self) -> f64 {
        self.0 as f64 / 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_full_frame_at_1gbps_is_12us() {
        assert_eq!(BitsPerSec::GBPS.tx_time(1500), Duration::from_us(12));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 bps = 8/3 s, not representable exactly.
        assert_eq!(BitsPerSec(3).tx_time(1).as_ps(), 2_666_666_666_667);
    }

    #[test]
    fn tx_time_agrees_across_the_u64_and_u128_paths() {
        let rate = BitsPerSec(2_500_000_007);
        let small = rate.tx_time((1 << 21) - 1).as_ps() as u128;
        let exact = (((1u128 << 21) - 1) * 8 * PS_PER_S as u128).div_ceil(rate.0 as u128);
        assert_eq!(small, exact);
        assert_eq!(BitsPerSec::GBPS.tx_time(1 << 21), Duration::from_ps((1 << 21) * 8_000));
    }

    #[test]
    fn instant_arithmetic_saturates() {
        assert_eq!(Instant::NEVER + Duration::from_us(1), Instant::NEVER);
        assert_eq!(Instant::ZERO - Duration::from_us(1), Instant::ZERO);
    }
}
