//! D3 rates (D3, SIGCOMM 2011, Sections 4.2 and 5): integer bytes per second, and the base rate
//! that lets a paused flow keep asking for bandwidth.

use crate::time::{BitsPerSec, Duration};

/// A rate in bytes per second (1 Gbps = 125_000_000).
///
/// A plain `u64` rather than a newtype: the allocator only adds, subtracts, compares and divides
/// by a flow count, and every counter of a port (demand D, allocation A, capacity C) is a sum of
/// rates, so operator boilerplate would buy nothing. The unit lives in this name instead.
/// Integer on purpose: the paper's router uses "integer arithmetic for all rate calculations"
/// (Section 5, "Router overhead"), and integer counters make "A is the sum of the live flows'
/// allocations" exact rather than approximately true.
pub type Rate = u64;

/// Bytes of a header-only rate request: 40 B of TCP/IP headers plus the 22 B D3 congestion header
/// (Section 5, "Packet header": "an overhead of 22 bytes for every packet carrying rate
/// requests"). Ethernet framing is not counted, as nowhere else in the simulator.
pub const HEADER_ONLY_PACKET_BYTES: u64 = 40 + 22;

/// Bytes of a full-size packet on the wire (a 1500-byte Ethernet payload): the paper's unit of
/// "one packet per RTT" (Section 4.5: "a new flow sending even just one 1500-byte packet per RTT
/// equates to a send rate of 40Mbps").
pub const FULL_PACKET_BYTES: u64 = 1_500;

/// The "typical RTT of 300µs" of a datacenter (Section 4.5), over which a paused flow must be able
/// to send one header-only packet.
pub const TYPICAL_RTT: Duration = Duration::from_us(300);

/// Picoseconds per second, for rate arithmetic on [`Duration`].
const PS_PER_S: u128 = 1_000_000_000_000;

/// The D3 base rate: enough for one `packet_bytes` packet every `rtt` (Section 4.2: "a base rate
/// that allows them to send a header-only packet per RTT and hence, request rates in the
/// future"). Rounded up, so the packet always fits; a zero `rtt` gives the largest rate.
///
/// `base_rate(HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT)` is 206_667 B/s (about 1.65 Mbps).
pub const fn base_rate(packet_bytes: u64, rtt: Duration) -> Rate {
    let ps = rtt.as_ps() as u128;
    if ps == 0 {
        return Rate::MAX;
    }
    let rate = (packet_bytes as u128 * PS_PER_S).div_ceil(ps);
    if rate > Rate::MAX as u128 {
        Rate::MAX
    } else {
        rate as Rate
    }
}

/// A link rate as a D3 [`Rate`] (bits per second divided by 8, rounded down).
pub const fn from_bits_per_sec(link: BitsPerSec) -> Rate {
    link.0 / 8
}

/// Bytes sent in `interval` at `rate`, rounded down (`rate x interval`): what an allocation lets a
/// flow send in one RTT, or a fully used link in one control interval.
pub fn bytes_in(rate: Rate, interval: Duration) -> u64 {
    (rate as u128 * interval.as_ps() as u128 / PS_PER_S).min(u64::MAX as u128) as u64
}

/// The rate that sends `bytes` in `interval` (`bytes / interval`), rounded down; zero for an
/// empty interval. The controller's u(t)/T and q(t)/T.
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
    fn base_rate_header_per_typical_rtt_is_206667_bytes_per_sec() {
        // 62 B / 300 us = 206_666.67 B/s, rounded up.
        assert_eq!(base_rate(HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT), 206_667);
    }

    #[test]
    fn base_rate_one_full_frame_per_rtt_is_the_papers_40mbps() {
        // Section 4.5: "one 1500-byte packet per RTT equates to a send rate of 40Mbps".
        assert_eq!(base_rate(1_500, TYPICAL_RTT) * 8, 40_000_000);
    }

    #[test]
    fn base_rate_zero_rtt_saturates() {
        assert_eq!(base_rate(62, Duration::ZERO), Rate::MAX);
    }

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
}
