//! Packets and the arena they live in. Queues and links hold `PacketId`s; slots are recycled, so a
//! run allocates packet memory only while the number of packets in the network grows.

use incast_proto::time::Instant;

use crate::ids::{FlowId, PacketId, PortId};

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
    /// Strict-priority class, 0 highest.
    pub priority: u8,
    /// Position on the route.
    pub route: RouteCursor,
}

impl Packet {
    /// The egress port the packet is at.
    pub(crate) fn current_port(&self, routes: &[PortId]) -> PortId {
        routes[(self.route.start + self.route.hop as u32) as usize]
    }
}

/// Slab of packets with a free list.
#[derive(Debug, Default)]
pub(crate) struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: u64,
}

impl PacketArena {
    pub(crate) fn alloc(&mut self, packet: Packet) -> PacketId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id.0 as usize] = packet;
            id
        } else {
            self.slots.push(packet);
            PacketId(self.slots.len() as u32 - 1)
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
