//! Unit strings of scenario files: sizes (`"128KB"`, `"100pkts"`), times (`"20us"`) and rates
//! (`"2.5Gbps"`). Numbers are parsed as exact decimals in integer arithmetic, so `"0.1ms"` is
//! exactly 100 000 000 ps and `"2.5Gbps"` exactly 2 500 000 000 bps, with no float rounding and
//! no way for a huge value (`"1e30s"`) to wrap around. The newtypes the raw file types parse them
//! into while deserializing (`Size`, `Time`, `Rate`, `QueueLimit`), and how a time is written
//! back in file syntax (`time_text`), live here too. A leaf of the scenario modules.

use std::fmt;

use incast_proto::tcp::MTU_BYTES;
use incast_proto::time::Duration;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// Bytes of one "pkts" unit: a full-sized Ethernet payload, the packet both papers count buffers
/// and ECN thresholds in (DCTCP's K = 20 packets, D3's "eight full sized packets").
pub(crate) const PACKET_BYTES: u64 = MTU_BYTES as u64;

/// Picoseconds per second, the scale of times.
pub(crate) const PS_PER_S: u64 = 1_000_000_000_000;

/// Size units; decimal prefixes are powers of 1000, binary ones powers of 1024. Case matters:
/// `b` and `Mb` read as bits elsewhere, so they are rejected rather than guessed.
const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("pkts", PACKET_BYTES),
    ("pkt", PACKET_BYTES),
];
const SIZE_EXPECTED: &str = "expected a number with a unit B, KB, MB, GB, KiB, MiB, GiB or pkts";

/// Time units, in picoseconds.
const TIME_UNITS: &[(&str, u64)] = &[
    ("ps", 1),
    ("ns", 1_000),
    ("us", 1_000_000),
    ("\u{b5}s", 1_000_000),
    ("\u{3bc}s", 1_000_000),
    ("ms", 1_000_000_000),
    ("s", PS_PER_S),
];
const TIME_EXPECTED: &str = "expected a number with a unit ps, ns, us, ms or s";

/// Rate units (bits per second); matched case-insensitively, since `Gbps` and `gbps` cannot be
/// confused with anything else.
const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("mbps", 1_000_000),
    ("gbps", 1_000_000_000),
    ("tbps", 1_000_000_000_000),
];
const RATE_EXPECTED: &str = "expected a number with a unit bps, Kbps, Mbps, Gbps or Tbps";

/// Significant digits kept from a number: enough for any `u64` (20 digits), and few enough that
/// the mantissa times any unit scale stays far inside a `u128`.
const MAX_DIGITS: u32 = 20;

/// How a scaled number that is not a whole multiple of the base unit is treated.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    /// Reject it (bytes are indivisible).
    Exact,
    /// Round half up (a picosecond or a bit per second is below any meaningful precision).
    Nearest,
}

/// Why a number did not convert.
#[derive(Debug, PartialEq, Eq)]
enum NumError {
    Malformed,
    Negative,
    TooLarge,
    NotWhole,
}

/// Parses a size string into bytes.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let fail = |why: &str| format!("invalid size {s:?}: {why}");
    let (number, unit) = split_unit(s);
    let scale = SIZE_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, scale)| scale)
        .ok_or_else(|| fail(SIZE_EXPECTED))?;
    scaled(number, scale, Rounding::Exact).map_err(|e| match e {
        NumError::Malformed => fail(SIZE_EXPECTED),
        NumError::Negative => fail("must not be negative"),
        NumError::TooLarge => fail("too large (at most 2^64 - 1 bytes)"),
        NumError::NotWhole => fail("not a whole number of bytes"),
    })
}

/// A queue limit or threshold: bytes, or a count of packets of any size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QueueSize {
    /// Bytes.
    Bytes(u64),
    /// Packets, whatever their size (`"85pkts"`).
    Packets(u64),
}

/// Parses a queue size: `"85pkts"` (or `"1pkt"`) counts packets, any other size unit bytes.
pub(crate) fn parse_queue_size(s: &str) -> Result<QueueSize, String> {
    let (number, unit) = split_unit(s);
    if unit == "pkts" || unit == "pkt" {
        let fail = |why: &str| format!("invalid size {s:?}: {why}");
        return scaled(number, 1, Rounding::Exact).map(QueueSize::Packets).map_err(|e| match e {
            NumError::Malformed => fail(SIZE_EXPECTED),
            NumError::Negative => fail("must not be negative"),
            NumError::TooLarge => fail("too large"),
            NumError::NotWhole => fail("not a whole number of packets"),
        });
    }
    parse_size(s).map(QueueSize::Bytes)
}

/// Parses a time string into picoseconds.
pub(crate) fn parse_time(s: &str) -> Result<u64, String> {
    let fail = |why: &str| format!("invalid time {s:?}: {why}");
    let (number, unit) = split_unit(s);
    let scale = TIME_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, scale)| scale)
        .ok_or_else(|| fail(TIME_EXPECTED))?;
    scaled(number, scale, Rounding::Nearest).map_err(|e| match e {
        NumError::Negative => fail("must not be negative"),
        NumError::TooLarge => fail("too large (simulated time ends after about 213 days)"),
        NumError::Malformed | NumError::NotWhole => fail(TIME_EXPECTED),
    })
}

/// Parses a rate string into bits per second.
pub(crate) fn parse_rate(s: &str) -> Result<u64, String> {
    let fail = |why: &str| format!("invalid rate {s:?}: {why}");
    let (number, unit) = split_unit(s);
    let scale = RATE_UNITS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(unit))
        .map(|&(_, scale)| scale)
        .ok_or_else(|| fail(RATE_EXPECTED))?;
    scaled(number, scale, Rounding::Nearest).map_err(|e| match e {
        NumError::Negative => fail("must not be negative"),
        NumError::TooLarge => fail("too large (at most 2^64 - 1 bps)"),
        NumError::Malformed | NumError::NotWhole => fail(RATE_EXPECTED),
    })
}

/// Parses a unit-less number of seconds (a trace's `start_s`) into picoseconds.
pub(crate) fn parse_seconds(s: &str) -> Result<u64, String> {
    scaled(s.trim(), PS_PER_S, Rounding::Nearest).map_err(|e| match e {
        NumError::Negative => format!("invalid time {s:?}: must not be negative"),
        NumError::TooLarge => format!("invalid time {s:?}: too large"),
        NumError::Malformed | NumError::NotWhole => {
            format!("invalid time {s:?}: expected a number of seconds")
        }
    })
}

/// Parses a unit-less whole number (a trace's `size_bytes`); `"1e6"` is accepted.
pub(crate) fn parse_count(s: &str) -> Result<u64, String> {
    scaled(s.trim(), 1, Rounding::Exact).map_err(|e| match e {
        NumError::Negative => format!("invalid number {s:?}: must not be negative"),
        NumError::TooLarge => format!("invalid number {s:?}: too large"),
        NumError::Malformed | NumError::NotWhole => {
            format!("invalid number {s:?}: expected a whole number")
        }
    })
}

/// Converts float seconds (a flow's `start_s` or `deadline_s` in JSON from Python) into
/// picoseconds, rejecting NaN, infinities, negatives and values past the end of simulated time.
pub(crate) fn seconds_f64_to_ps(s: f64) -> Result<u64, String> {
    if !s.is_finite() {
        return Err(format!("invalid time {s} s: must be a finite number"));
    }
    if s < 0.0 {
        return Err(format!("invalid time {s} s: must not be negative"));
    }
    let ps = (s * PS_PER_S as f64).round();
    // 2^64 as f64 is exact; anything at or above it does not fit.
    if ps >= 18_446_744_073_709_551_616.0 {
        return Err(format!("invalid time {s} s: too large"));
    }
    Ok(ps as u64)
}

/// Splits `"2.5 Gbps"` into `("2.5", "Gbps")`. An `e` belongs to the number only when an
/// exponent follows it, so `"1e3s"` is 1000 s while `"1es"` has the unit `es`.
fn split_unit(s: &str) -> (&str, &str) {
    let s = s.trim();
    let bytes = s.as_bytes();
    let mut end = 0;
    while end < bytes.len() {
        let c = bytes[end];
        let exponent = (c == b'e' || c == b'E')
            && end > 0
            && match bytes.get(end + 1) {
                Some(d) if d.is_ascii_digit() => true,
                Some(b'+' | b'-') => bytes.get(end + 2).is_some_and(u8::is_ascii_digit),
                _ => false,
            };
        if c.is_ascii_digit() || matches!(c, b'.' | b'+' | b'-') || exponent {
            end += 1;
        } else {
            break;
        }
    }
    (s[..end].trim(), s[end..].trim())
}

/// `number x scale` as an integer, exactly: `[+|-]digits[.digits][e[+|-]digits]`.
fn scaled(number: &str, scale: u64, rounding: Rounding) -> Result<u64, NumError> {
    let (negative, rest) = match number.as_bytes().first() {
        Some(b'-') => (true, &number[1..]),
        Some(b'+') => (false, &number[1..]),
        _ => (false, number),
    };
    let (mantissa_str, exponent_str) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int_part, frac_part) = match mantissa_str.find('.') {
        Some(i) => (&mantissa_str[..i], &mantissa_str[i + 1..]),
        None => (mantissa_str, ""),
    };
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if int_part.len() + frac_part.len() == 0 || !all_digits(int_part) || !all_digits(frac_part) {
        return Err(NumError::Malformed);
    }
    // Decimal exponent of the last digit kept in `mantissa`.
    let mut exp10: i64 = 0;
    let mut mantissa: u128 = 0;
    let mut significant = 0u32;
    for (i, b) in int_part.bytes().chain(frac_part.bytes()).enumerate() {
        let in_fraction = i >= int_part.len();
        if significant < MAX_DIGITS {
            mantissa = mantissa * 10 + u128::from(b - b'0');
            if mantissa > 0 {
                significant += 1;
            }
            if in_fraction {
                exp10 -= 1;
            }
        } else if !in_fraction {
            // An integer digit beyond the kept precision still multiplies the value by ten.
            exp10 += 1;
        }
    }
    if let Some(e) = exponent_str {
        let (sign, digits) = match e.as_bytes().first() {
            Some(b'-') => (-1, &e[1..]),
            Some(b'+') => (1, &e[1..]),
            _ => (1, e),
        };
        if digits.is_empty() || !all_digits(digits) {
            return Err(NumError::Malformed);
        }
        // Saturate: any exponent past a few hundred already decides the outcome.
        let value = digits
            .bytes()
            .fold(0i64, |acc, b| (acc * 10 + i64::from(b - b'0')).min(100_000));
        exp10 += sign * value;
    }
    if mantissa == 0 {
        return Ok(0);
    }
    if negative {
        return Err(NumError::Negative);
    }
    let value = mantissa
        .checked_mul(u128::from(scale))
        .ok_or(NumError::TooLarge)?;
    let result = if exp10 >= 0 {
        let factor = u32::try_from(exp10)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .ok_or(NumError::TooLarge)?;
        value.checked_mul(factor).ok_or(NumError::TooLarge)?
    } else {
        let divisor = u32::try_from(-exp10)
            .ok()
            .and_then(|e| 10u128.checked_pow(e));
        let (quotient, remainder, divisor) = match divisor {
            Some(d) => (value / d, value % d, d),
            // The divisor exceeds any value: the quotient is 0 and the value itself is left over.
            None => (0, value, u128::MAX),
        };
        match rounding {
            Rounding::Exact if remainder != 0 => return Err(NumError::NotWhole),
            Rounding::Nearest if remainder >= divisor - remainder => quotient + 1,
            _ => quotient,
        }
    };
    u64::try_from(result).map_err(|_| NumError::TooLarge)
}

/// Defines a newtype parsed from a unit string while deserializing.
macro_rules! unit_newtype {
    ($(#[$doc:meta])* $name:ident, $parse:path, $expecting:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) struct $name(pub(crate) u64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = u64;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
                        $parse(v).map_err(E::custom)
                    }
                }
                d.deserialize_str(V).map($name)
            }
        }
    };
}

unit_newtype!(
    /// A size string, in bytes.
    Size,
    parse_size,
    "a size string such as \"20KB\" (units B, KB, MB, GB, KiB, MiB, GiB, pkts)"
);
/// A queue limit: a size string in bytes, or `"85pkts"` for a count of packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QueueLimit(pub(crate) QueueSize);

impl<'de> Deserialize<'de> for QueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = QueueSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size string such as \"128KB\" or a packet count such as \"85pkts\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<QueueSize, E> {
                parse_queue_size(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V).map(QueueLimit)
    }
}

unit_newtype!(
    /// A time string, in picoseconds.
    Time,
    parse_time,
    "a time string such as \"20us\" (units ps, ns, us, ms, s)"
);
unit_newtype!(
    /// A rate string, in bits per second.
    Rate,
    parse_rate,
    "a rate string such as \"1Gbps\" (units bps, Kbps, Mbps, Gbps, Tbps)"
);

/// A duration in the largest unit that writes it exactly (`"10ms"`, `"1500us"`, `"7ps"`).
pub(crate) fn time_text(d: Duration) -> String {
    let ps = d.as_ps();
    for (unit, scale) in [("s", 1_000_000_000_000u64), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1_000)] {
        if ps != 0 && ps.is_multiple_of(scale) {
            return format!("{}{unit}", ps / scale);
        }
    }
    format!("{ps}ps")
}

/// A rate in the largest unit that writes it exactly (`"10Gbps"`, `"1500Mbps"`, `"7bps"`).
pub(crate) fn rate_text(rate: incast_proto::time::BitsPerSec) -> String {
    let bps = rate.0;
    for (unit, scale) in [("Tbps", 1_000_000_000_000u64), ("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("Kbps", 1_000)] {
        if bps != 0 && bps.is_multiple_of(scale) {
            return format!("{}{unit}", bps / scale);
        }
    }
    format!("{bps}bps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_text_uses_the_largest_exact_unit() {
        use incast_proto::time::BitsPerSec;
        assert_eq!(rate_text(BitsPerSec(10_000_000_000)), "10Gbps");
        assert_eq!(rate_text(BitsPerSec(1_500_000_000)), "1500Mbps");
        assert_eq!(rate_text(BitsPerSec(13_333_333_333)), "13333333333bps");
        assert_eq!(rate_text(BitsPerSec(0)), "0bps");
    }

    #[test]
    fn time_text_uses_the_largest_exact_unit() {
        assert_eq!(time_text(Duration::from_ms(200)), "200ms");
        assert_eq!(time_text(Duration::from_us(1_500)), "1500us");
        assert_eq!(time_text(Duration::from_ps(7)), "7ps");
        assert_eq!(time_text(Duration::ZERO), "0ps");
    }

    #[test]
    fn sizes_in_every_unit() {
        assert_eq!(parse_size("128KB"), Ok(128_000));
        assert_eq!(parse_size("1B"), Ok(1));
        assert_eq!(parse_size("4MB"), Ok(4_000_000));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("2MiB"), Ok(2 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("100pkts"), Ok(150_000));
        assert_eq!(parse_size("1pkt"), Ok(1500));
    }

    #[test]
    fn sizes_with_decimals_spaces_and_exponents() {
        assert_eq!(parse_size("2.9KB"), Ok(2_900));
        assert_eq!(parse_size(" 20 KB "), Ok(20_000));
        assert_eq!(parse_size("1e3B"), Ok(1_000));
        assert_eq!(parse_size("1.5e-3MB"), Ok(1_500));
        assert_eq!(parse_size("0B"), Ok(0));
        assert_eq!(parse_size(".5KB"), Ok(500));
        assert_eq!(parse_size("+3B"), Ok(3));
    }

    #[test]
    fn bad_sizes_are_rejected_with_the_reason() {
        let err = parse_size("2XB").unwrap_err();
        assert_eq!(
            err,
            "invalid size \"2XB\": expected a number with a unit B, KB, MB, GB, KiB, MiB, GiB or pkts"
        );
        assert!(parse_size("20")
            .unwrap_err()
            .contains("expected a number with a unit"));
        assert!(parse_size("KB").unwrap_err().contains("expected a number"));
        assert!(parse_size("20kb")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_size("20Mb")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_size("1.2.3KB")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_size("-1KB")
            .unwrap_err()
            .contains("must not be negative"));
        assert!(parse_size("1.5B")
            .unwrap_err()
            .contains("not a whole number of bytes"));
        assert!(parse_size("1e30GB").unwrap_err().contains("too large"));
        assert!(parse_size("99999999999999999999B")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("1e99999999999KB")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("nanKB")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_size("1eKB")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_size("").unwrap_err().contains("expected a number"));
    }

    #[test]
    fn largest_size_fits_exactly() {
        assert_eq!(parse_size("18446744073709551615B"), Ok(u64::MAX));
        assert!(parse_size("18446744073709551616B").is_err());
    }

    #[test]
    fn times_in_every_unit() {
        assert_eq!(parse_time("7ps"), Ok(7));
        assert_eq!(parse_time("3ns"), Ok(3_000));
        assert_eq!(parse_time("20us"), Ok(20_000_000));
        assert_eq!(parse_time("20\u{b5}s"), Ok(20_000_000));
        assert_eq!(parse_time("300ms"), Ok(300_000_000_000));
        assert_eq!(parse_time("1s"), Ok(PS_PER_S));
        assert_eq!(parse_time("0s"), Ok(0));
    }

    #[test]
    fn times_are_exact_decimals() {
        assert_eq!(parse_time("0.1ms"), Ok(100_000_000));
        assert_eq!(parse_time("1.5s"), Ok(1_500_000_000_000));
        assert_eq!(parse_time("2.5e-3s"), Ok(2_500_000_000));
        // Below a picosecond, times round to the nearest one.
        assert_eq!(parse_time("0.4ps"), Ok(0));
        assert_eq!(parse_time("0.5ps"), Ok(1));
        assert_eq!(parse_time("1e-40s"), Ok(0));
    }

    #[test]
    fn bad_times_are_rejected_with_the_reason() {
        assert_eq!(
            parse_time("5m").unwrap_err(),
            "invalid time \"5m\": expected a number with a unit ps, ns, us, ms or s"
        );
        assert!(parse_time("5")
            .unwrap_err()
            .contains("expected a number with a unit"));
        assert!(parse_time("-1ms")
            .unwrap_err()
            .contains("must not be negative"));
        assert!(parse_time("1e30s").unwrap_err().contains("too large"));
        assert!(parse_time("213.6e5s").unwrap_err().contains("too large"));
        assert!(parse_time("infs")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_time("5 MS")
            .unwrap_err()
            .contains("expected a number"));
    }

    #[test]
    fn rates_in_every_unit() {
        assert_eq!(parse_rate("1bps"), Ok(1));
        assert_eq!(parse_rate("10Kbps"), Ok(10_000));
        assert_eq!(parse_rate("100Mbps"), Ok(100_000_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("2.5Gbps"), Ok(2_500_000_000));
        assert_eq!(parse_rate("1Tbps"), Ok(1_000_000_000_000));
        assert_eq!(parse_rate("40gbps"), Ok(40_000_000_000));
    }

    #[test]
    fn bad_rates_are_rejected_with_the_reason() {
        assert_eq!(
            parse_rate("1Gb").unwrap_err(),
            "invalid rate \"1Gb\": expected a number with a unit bps, Kbps, Mbps, Gbps or Tbps"
        );
        assert!(parse_rate("1000")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_rate("-1Gbps")
            .unwrap_err()
            .contains("must not be negative"));
        assert!(parse_rate("1e20Tbps").unwrap_err().contains("too large"));
    }

    #[test]
    fn unitless_numbers_for_traces() {
        assert_eq!(parse_seconds("0.001"), Ok(1_000_000_000));
        assert_eq!(parse_seconds("2"), Ok(2 * PS_PER_S));
        assert!(parse_seconds("1ms").is_err());
        assert!(parse_seconds("-1").unwrap_err().contains("negative"));
        assert_eq!(parse_count("20000"), Ok(20_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert!(parse_count("1.5").unwrap_err().contains("whole number"));
        assert!(parse_count("x").is_err());
    }

    #[test]
    fn float_seconds_are_checked() {
        assert_eq!(seconds_f64_to_ps(0.001), Ok(1_000_000_000));
        assert!(seconds_f64_to_ps(f64::NAN).unwrap_err().contains("finite"));
        assert!(seconds_f64_to_ps(f64::INFINITY)
            .unwrap_err()
            .contains("finite"));
        assert!(seconds_f64_to_ps(-1.0).unwrap_err().contains("negative"));
        assert!(seconds_f64_to_ps(1e30).unwrap_err().contains("too large"));
    }

    proptest::proptest! {
        #[test]
        fn parsers_never_panic(s in "\\PC{0,24}") {
            let _ = parse_size(&s);
            let _ = parse_time(&s);
            let _ = parse_rate(&s);
            let _ = parse_seconds(&s);
            let _ = parse_count(&s);
        }

        #[test]
        fn numeric_strings_never_panic(s in "[-+]?[0-9]{0,30}(\\.[0-9]{0,30})?([eE][-+]?[0-9]{0,25})?(B|KB|s|ps|Gbps)") {
            let _ = parse_size(&s);
            let _ = parse_time(&s);
            let _ = parse_rate(&s);
        }

        #[test]
        fn whole_byte_counts_round_trip(n in 0u64..u64::MAX) {
            proptest::prop_assert_eq!(parse_size(&format!("{n}B")), Ok(n));
        }

        #[test]
        fn microseconds_round_trip(n in 0u64..1_000_000_000) {
            proptest::prop_assert_eq!(parse_time(&format!("{n}us")), Ok(n * 1_000_000));
        }
    }
}
