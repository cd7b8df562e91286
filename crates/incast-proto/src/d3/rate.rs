//! D3's base rate (D3, SIGCOMM 2011, Sections 4.2 and 4.5): the rate that lets a paused flow keep
//! asking for bandwidth, and the packet sizes and RTT the paper states it in. Rates themselves
//! are [`crate::rate`]'s.

use crate::rate::Rate;
use crate::time::Duration;

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
}
