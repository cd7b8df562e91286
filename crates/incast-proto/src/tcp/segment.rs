//! What a TCP endpoint exchanges with the network: data segments and cumulative ACKs with their
//! SACK blocks, and what each costs on the wire: 40 B of IPv4 and TCP headers plus the options
//! in use (timestamps on every segment, SACK blocks on ACKs, MSS and window scale on SYNs).

use crate::time::Instant;

/// Bytes of IPv4 and TCP headers without options (20 B + 20 B).
pub const HEADER_BYTES: u32 = 40;
/// The Ethernet MTU of both papers' testbeds.
pub const MTU_BYTES: u32 = 1500;
/// Maximum segment size without options: the MTU less the headers.
pub const MSS_BYTES: u32 = MTU_BYTES - HEADER_BYTES;
/// A pure ACK on the wire without options.
pub const ACK_WIRE_BYTES: u32 = HEADER_BYTES;
/// The TCP option space (RFC 793: data offset of at most 15 words).
pub const MAX_OPTION_BYTES: u32 = 40;
/// The timestamp option (RFC 7323: kind, length, two 4 B values) aligned by two NOPs, as
/// Linux and most stacks send it on every segment.
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;
/// Options of a SYN besides timestamps and SACK-permitted: MSS (4 B) and window scale (3 B and
/// a NOP), as Linux sends them (RFC 9293 Section 3.7.1, RFC 7323 Section 2).
pub const SYN_OPTION_BYTES: u32 = 8;
/// SACK-permitted (RFC 2018: 2 B) aligned by two NOPs, on a SYN without timestamps (with
/// them Linux fits it into the timestamp option's NOPs).
pub const SACK_PERMITTED_OPTION_BYTES: u32 = 4;

/// Bytes of a SACK option carrying `blocks` blocks: two NOPs, kind, length and 8 B a block
/// (RFC 2018 Section 3, Linux's `TCPOLEN_SACK_BASE_ALIGNED`); 0 without blocks.
pub const fn sack_option_bytes(blocks: usize) -> u32 {
    if blocks == 0 {
        0
    } else {
        4 + 8 * blocks as u32
    }
}

/// The SACK blocks of one ACK (RFC 2018): `[start, end)` byte ranges the receiver holds above
/// its cumulative ACK, the most recent first. Inline, so an ACK allocates nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); SackBlocks::MAX],
    len: u8,
}

impl SackBlocks {
    /// The most blocks an option can carry (4, without timestamps).
    pub const MAX: usize = 4;

    /// No blocks.
    pub const EMPTY: SackBlocks = SackBlocks { blocks: [(0, 0); SackBlocks::MAX], len: 0 };

    /// Blocks from a slice, most recent first; at most [`MAX`](Self::MAX) are kept.
    pub fn from_slice(blocks: &[(u64, u64)]) -> SackBlocks {
        let mut out = SackBlocks::EMPTY;
        for &b in blocks.iter().take(Self::MAX) {
            out.push(b);
        }
        out
    }

    /// Appends a block if there is room; returns whether it was added.
    pub fn push(&mut self, block: (u64, u64)) -> bool {
        let i = usize::from(self.len);
        if i == Self::MAX {
            return false;
        }
        self.blocks[i] = block;
        self.len += 1;
        true
    }

    /// The blocks, most recent first.
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..usize::from(self.len)]
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A data segment, as sent by a `TcpSender` and as received by a `TcpReceiver`.
///
/// Sequence numbers are byte offsets into the flow as plain `u64`: a simulated flow never sends
/// 2^64 bytes, so wrap-around (RFC 793 modular comparison) cannot arise and is not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataSegment {
    /// Byte offset of the first payload byte.
    pub seq: u64,
    /// Payload bytes (at most the MSS).
    pub len: u32,
    /// IPv4 and TCP header bytes with the options the segment carries.
    pub header_bytes: u16,
    /// Sender's clock when the segment left (the TCP timestamp option, RFC 7323), echoed in ACKs
    /// so every ACK yields an unambiguous RTT sample.
    pub ts: Instant,
    /// ECN-capable transport: switches may mark instead of only dropping.
    pub ect: bool,
    /// Congestion Experienced, set by a switch on the way.
    pub ce: bool,
    /// True if these bytes were sent before (for accounting only); also set on a re-sent SYN.
    pub retransmission: bool,
    /// A SYN (with `TcpConfig::handshake`): header only (`len` 0, `seq` 0), answered by the
    /// receiver at once with the SYN/ACK, an ACK for byte 0.
    pub syn: bool,
}

impl DataSegment {
    /// Size of the segment on the wire, headers included.
    pub fn wire_bytes(&self) -> u32 {
        self.len + u32::from(self.header_bytes)
    }
    /// One past the last payload byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// A cumulative acknowledgement, with SACK blocks when the connection uses SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSegment {
    /// Next byte expected by the receiver: every byte below it has arrived.
    pub ack: u64,
    /// ECN-Echo: the receiver saw CE on the data this ACK covers (RFC 3168; DCTCP's exact echo).
    pub ece: bool,
    /// Timestamp echoed from the segment that triggered this ACK (RFC 7323 TSecr).
    pub ts_echo: Instant,
    /// SACK blocks (RFC 2018), the most recent first; empty without SACK or holes.
    pub sack: SackBlocks,
    /// IPv4 and TCP header bytes with the options the ACK carries: its size on the wire.
    pub header_bytes: u16,
}

impl AckSegment {
    /// A pure ACK without options or SACK blocks (40 B), as in tests and the D3 receiver.
    pub fn plain(ack: u64, ece: bool, ts_echo: Instant) -> AckSegment {
        AckSegment { ack, ece, ts_echo, sack: SackBlocks::EMPTY, header_bytes: HEADER_BYTES as u16 }
    }

    /// Size of the ACK on the wire.
    pub fn wire_bytes(&self) -> u32 {
        u32::from(self.header_bytes)
    }
}

/// Scripted exchanges number segments in MSS units: segment `n` starts at byte `n` x MSS and
/// was sent at `n` microseconds.
#[cfg(test)]
impl DataSegment {
    /// Segment number `n` of `len` payload bytes (0: header only), 40 B of headers, not
    /// ECN-capable.
    pub(crate) fn numbered(n: u64, len: u32) -> DataSegment {
        DataSegment {
            seq: n * u64::from(MSS_BYTES),
            len,
            header_bytes: HEADER_BYTES as u16,
            ts: Instant::ZERO + crate::time::Duration::from_us(n),
            ect: false,
            ce: false,
            retransmission: false,
            syn: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_keep_order_and_at_most_four() {
        let b = SackBlocks::from_slice(&[(10, 20), (30, 40), (50, 60), (70, 80), (90, 99)]);
        assert_eq!(b.as_slice(), &[(10, 20), (30, 40), (50, 60), (70, 80)]);
        assert_eq!(b.len(), 4);
        assert!(SackBlocks::EMPTY.is_empty());
    }

    #[test]
    fn sack_option_sizes_fit_the_option_space() {
        assert_eq!(sack_option_bytes(0), 0);
        assert_eq!(sack_option_bytes(1), 12);
        // Four blocks fit the 40 B option space; with timestamps only three do.
        assert_eq!(sack_option_bytes(4), 36);
        assert!(sack_option_bytes(4) <= MAX_OPTION_BYTES);
        assert!(sack_option_bytes(3) + TIMESTAMP_OPTION_BYTES <= MAX_OPTION_BYTES);
        assert!(sack_option_bytes(4) + TIMESTAMP_OPTION_BYTES > MAX_OPTION_BYTES);
    }
}
