//! Packets and the arena they live in. Queues and links hold `PacketId`s; slots are recycled, so a
//! run allocates packet memory only while the number of packets in the network grows.

use incast_proto::tcp::{AckSegment, DataSegment, SackBlocks};
use incast_proto::time::Instant;

use crate::ids::{FlowId, PacketId, PortId};
use crate::transport::Header;

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
}

impl Packet {
    /// Data segment `seg` of flow `flow`, with its transport `header`, about to enter its route
    /// `route` in priority class `priority`.
    pub(crate) fn data(flow: FlowId, seg: &DataSegment, route: RouteCursor, priority: u8, header: Option<&Header>) -> Packet {
        Packet {
            flow,
            kind: PacketKind::Data,
            seq: seg.seq,
            len: seg.len,
            wire_bytes: seg.wire_bytes() + header.map_or(0, Header::wire_bytes),
            ts: seg.ts,
            ect: seg.ect,
            ce: false,
            ece: false,
            retransmission: seg.retransmission,
            syn: seg.syn,
            priority,
            route,
            has_header: header.is_some(),
        }
    }

    /// ACK `ack` of flow `flow`, ECN-capable if `ect`, as `data` does.
    pub(crate) fn ack(flow: FlowId, ack: &AckSegment, ect: bool, route: RouteCursor, priority: u8, header: Option<&Header>) -> Packet {
        Packet {
            flow,
            kind: PacketKind::Ack,
            seq: ack.ack,
            len: 0,
            wire_bytes: ack.wire_bytes() + header.map_or(0, Header::wire_bytes),
            ts: ack.ts_echo,
            ect,
            ce: false,
            ece: ack.ece,
            retransmission: false,
            syn: false,
            priority,
            route,
            has_header: header.is_some(),
        }
    }

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

/// Slab of packets with a free list, and the transport headers of those that have one.
#[derive(Debug, Default)]
pub(crate) struct PacketArena {
    slots: Vec<Packet>,
    /// Transport header of slot i, meaningful only while `slots[i].has_header`.
    headers: Vec<Option<Header>>,
    free: Vec<PacketId>,
    live: u64,
}

impl PacketArena {
    pub(crate) fn alloc(&mut self, mut packet: Packet, header: Option<Header>) -> PacketId {
        self.live += 1;
        packet.has_header = header.is_some();
        let id = if let Some(id) = self.free.pop() {
            self.slots[id.0 as usize] = packet;
            id
        } else {
            self.slots.push(packet);
            PacketId(self.slots.len() as u32 - 1)
        };
        if let Some(header) = header {
            let i = id.0 as usize;
            if self.headers.len() <= i {
                self.headers.resize(i + 1, None);
            }
            self.headers[i] = Some(header);
        }
        id
    }

    /// The packet's transport header, if it has one.
    #[inline]
    pub(crate) fn header(&self, id: PacketId) -> Option<&Header> {
        if self.slots[id.0 as usize].has_header {
            self.headers[id.0 as usize].as_ref()
        } else {
            None
        }
    }

    /// The packet and its transport header, if it has one, the header to change (a port's
    /// processor answers it).
    #[inline]
    pub(crate) fn with_header_mut(&mut self, id: PacketId) -> (&Packet, Option<&mut Header>) {
        let i = id.0 as usize;
        let packet = &self.slots[i];
        let header = if packet.has_header { self.headers[i].as_mut() } else { None };
        (packet, header)
    }

    pub(crate) fn release(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id);
    }

    pub(crate) fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    pub(crate) fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Packets allocated and not yet released.
    pub(crate) fn live(&self) -> u64 {
        self.live
    }
}
