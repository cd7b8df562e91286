//! Packets as the engine moves them: the fields every packet has (a transport's own header rides
//! beside it in the arena, `arena`), where it is on its route, and what it says to the endpoint it
//! reaches.

use incast_proto::tcp::{AckSegment, DataSegment, SackBlocks};
use incast_proto::time::Instant;

use crate::ids::{FlowId, PortId};

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A data segment from sender to receiver.
    Data,
    /// A pure ACK from receiver to sender.
    Ack,
}

/// Where a packet is on its precomputed route: `route[start + hop]` is the next egress port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteCursor {
    /// Offset of the route in the simulation's route table.
    pub start: u32,
    /// Number of egress ports on the route.
    pub len: u16,
    /// Index of the port the packet is queued at or travelling from.
    pub hop: u16,
}

/// A packet on the wire. Header fields are those of the transports' segments.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// The flow it belongs to.
    pub flow: FlowId,
    /// Data or ACK.
    pub kind: PacketKind,
    /// Data: first payload byte; ACK: cumulative acknowledgement.
    pub seq: u64,
    /// Payload bytes (0 for ACKs).
    pub len: u32,
    /// Bytes on the wire, headers included.
    pub wire_bytes: u32,
    /// Data: send timestamp; ACK: echoed timestamp.
    pub ts: Instant,
    /// ECN-capable transport.
    pub ect: bool,
    /// Congestion Experienced.
    pub ce: bool,
    /// ECN-Echo (ACKs).
    pub ece: bool,
    /// Payload sent before (accounting).
    pub retransmission: bool,
    /// TCP SYN (a header-only segment opening the connection).
    pub syn: bool,
    /// Strict-priority class, 0 highest.
    pub priority: u8,
    /// Position on the route.
    pub route: RouteCursor,
    /// Whether the packet carries its transport's header (kept beside the packet in the arena,
    /// so packets without one stay small).
    pub has_header: bool,
    /// Whether a port's discipline turned it back toward the host that sent it
    /// (`Joined::Returned`): its route is now the way back, and it ends at that host's endpoint.
    pub returned: bool,
}

// Every queue and link moves packets of this size: a new field must fit the padding (the
// `returned` flag did: 48 bytes before and after).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Packet>() == 48);

impl Packet {
    /// The egress port the packet is at.
    pub(crate) fn current_port(&self, routes: &[PortId]) -> PortId {
        routes[(self.route.start + self.route.hop as u32) as usize]
    }

    /// What the packet, a data packet, says to its receiver.
    #[inline]
    pub(crate) fn data_segment(&self) -> DataSegment {
        DataSegment {
            seq: self.seq,
            len: self.len,
            header_bytes: (self.wire_bytes - self.len) as u16,
            ts: self.ts,
            ect: self.ect,
            ce: self.ce,
            retransmission: self.retransmission,
            syn: self.syn,
        }
    }

    /// What the packet, an ACK, says to its sender, with `sack` as its SACK blocks.
    #[inline]
    pub(crate) fn ack_segment(&self, sack: SackBlocks) -> AckSegment {
        AckSegment { ack: self.seq, ece: self.ece, ts_echo: self.ts, sack, header_bytes: self.wire_bytes as u16 }
    }
}
