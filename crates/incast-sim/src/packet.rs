//! Packets and the arena they live in. Queues and links hold `PacketId`s; slots are recycled, so a
//! run allocates packet memory only while the number of packets in the network grows.

use incast_proto::d3::header::{CongestionHeader, Feedback};
use incast_proto::pdq::SchedulingHeader;
use incast_proto::tcp::SackBlocks;
use incast_proto::time::Instant;

use crate::ids::{FlowId, PacketId, PortId};
use crate::processor::Request;

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
    /// pFabric's priority: the flow's bytes the receiver had not reported holding when the
    /// packet was sent (saturating at `u32::MAX`); 0 for ACKs and for other protocols.
    pub rank: u32,
    /// Position on the route.
    pub route: RouteCursor,
    /// Whether the packet carries an extension header (kept beside the packet in the arena, so
    /// packets of protocols without one stay small).
    pub has_ext: bool,
}

/// A header that only some protocols put on their packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ext {
    /// D3's congestion header on a rate request, rewritten by every router on the way.
    Request(CongestionHeader),
    /// D3's allocations carried back to the sender on the ACK of a rate request.
    Feedback(Feedback),
    /// The SACK blocks of an ACK (RFC 2018); their bytes are in the ACK's header size.
    Sack(SackBlocks),
    /// PDQ's scheduling header, on every PDQ packet: answered by the ports a data packet or
    /// probe leaves through, confirmed by those its ACK passes on the way back.
    Pdq(SchedulingHeader),
}

impl Ext {
    /// The congestion header of a rate request, if this is one.
    pub(crate) fn request(&self) -> Option<&CongestionHeader> {
        match self {
            Ext::Request(h) => Some(h),
            _ => None,
        }
    }

    /// D3's allocations, if this is an ACK's feedback.
    pub(crate) fn feedback(&self) -> Option<&Feedback> {
        match self {
            Ext::Feedback(f) => Some(f),
            _ => None,
        }
    }

    /// PDQ's scheduling header, if this is one.
    pub(crate) fn pdq(&self) -> Option<&SchedulingHeader> {
        match self {
            Ext::Pdq(h) => Some(h),
            _ => None,
        }
    }

    /// Bytes the header adds on the wire: D3's congestion header and PDQ's scheduling header;
    /// SACK blocks are counted in the TCP header already.
    pub(crate) fn wire_bytes(&self) -> u32 {
        match self {
            Ext::Request(_) | Ext::Feedback(_) => incast_proto::d3::D3_HEADER_BYTES,
            Ext::Pdq(_) => incast_proto::pdq::PDQ_HEADER_BYTES,
            Ext::Sack(_) => 0,
        }
    }
}

impl Packet {
    /// The egress port the packet is at.
    pub(crate) fn current_port(&self, routes: &[PortId]) -> PortId {
        routes[(self.route.start + self.route.hop as u32) as usize]
    }
}

/// Slab of packets with a free list, and the extension headers of those that have one.
#[derive(Debug, Default)]
pub(crate) struct PacketArena {
    slots: Vec<Packet>,
    /// Extension header of slot i, meaningful only while `slots[i].has_ext`.
    ext: Vec<Option<Ext>>,
    free: Vec<PacketId>,
    live: u64,
}

impl PacketArena {
    pub(crate) fn alloc(&mut self, mut packet: Packet, ext: Option<Ext>) -> PacketId {
        self.live += 1;
        packet.has_ext = ext.is_some();
        let id = if let Some(id) = self.free.pop() {
            self.slots[id.0 as usize] = packet;
            id
        } else {
            self.slots.push(packet);
            PacketId(self.slots.len() as u32 - 1)
        };
        if let Some(ext) = ext {
            let i = id.0 as usize;
            if self.ext.len() <= i {
                self.ext.resize(i + 1, None);
            }
            self.ext[i] = Some(ext);
        }
        id
    }

    /// The packet's extension header, if it has one.
    pub(crate) fn ext(&self, id: PacketId) -> Option<&Ext> {
        if self.slots[id.0 as usize].has_ext {
            self.ext[id.0 as usize].as_ref()
        } else {
            None
        }
    }

    /// If the packet carries a header for the ports to answer: its flow, and the header as a
    /// request (D3's rate request; PDQ's header on a data packet or probe, or on an ACK).
    pub(crate) fn request_mut(&mut self, id: PacketId) -> Option<(FlowId, Request<'_>)> {
        let i = id.0 as usize;
        let packet = &self.slots[i];
        match (packet.has_ext, self.ext.get_mut(i)) {
            (true, Some(Some(Ext::Request(h)))) => Some((packet.flow, Request::D3(h))),
            (true, Some(Some(Ext::Pdq(h)))) => {
                let request = if packet.kind == PacketKind::Data { Request::PdqData(h) } else { Request::PdqAck(h) };
                Some((packet.flow, request))
            }
            _ => None,
        }
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
