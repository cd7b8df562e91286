//! What a TCP endpoint exchanges with the network: data segments and cumulative ACKs, with the
//! sizes counted on the wire (MTU 1500 B, 40 B of TCP/IP headers, 40 B pure ACKs).

use crate::time::Instant;

/// Bytes of TCP/IP headers on every segment (20 B IPv4 + 20 B TCP, no options counted).
pub const HEADER_BYTES: u32 = 40;
/// The Ethernet MTU of both papers' testbeds.
pub const MTU_BYTES: u32 = 1500;
/// Maximum segment size: the MTU less the TCP/IP headers.
pub const MSS_BYTES: u32 = MTU_BYTES - HEADER_BYTES;
/// A pure ACK on the wire.
pub const ACK_WIRE_BYTES: u32 = HEADER_BYTES;

/// A data segment, as sent by a `TcpSender` and as received by a `TcpReceiver`.
///
/// Sequence numbers are byte offsets into the flow as plain `u64`: a simulated flow never sends
/// 2^64 bytes, so wrap-around (RFC 793 modular comparison) cannot arise and is not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataSegment {
    /// Byte offset of the first payload byte.
    pub seq: u64,
    /// Payload bytes (at most `MSS_BYTES`).
    pub len: u32,
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
    /// Size of the segment on the wire, headers included (a SYN is a 40 B header).
    pub fn wire_bytes(&self) -> u32 {
        self.len + HEADER_BYTES
    }
    /// One past the last payload byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// A cumulative acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSegment {
    /// Next byte expected by the receiver: every byte below it has arrived.
    pub ack: u64,
    /// ECN-Echo: the receiver saw CE on the data this ACK covers (RFC 3168; DCTCP's exact echo).
    pub ece: bool,
    /// Timestamp echoed from the segment that triggered this ACK (RFC 7323 TSecr).
    pub ts_echo: Instant,
}
