//! A Homa host's NIC (Montazeri et al., SIGCOMM 2018, Section 3.2): control packets first (the
//! authors' simulator always sends GRANTs before data, `HomaTransport::SendController`), then the
//! DATA packet of the message with the fewest bytes left, the paper's SRPT at the sender. A
//! message's packets leave in the order they were queued: the rank queue of pFabric's ports
//! (`pfabric::PfabricQueue`: the earliest packet of the flow owning the most urgent one), without
//! a limit, ranked by the bytes of the message not sent before each packet. Homa keeps its NIC
//! queue short and picks the next packet in software as the NIC drains; a queue that sorts what
//! was handed to it sends the same packets in the same order.
//!
//! The queue is shared with the host's senders, which answer a RESEND with BUSY while the queue
//! still holds packets of the message (`NicQueue::holds`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use super::packet::HomaPacket;
use crate::ids::{FlowId, PacketId};
use crate::transport::pfabric::{PfabricQueue, RankEntry};
use crate::transport::{Arriving, Joined, QueueDiscipline};
use incast_proto::homa::HomaHeader;

/// Locks shared state; the engine is one thread, so a lock is never held elsewhere, and one
/// poisoned by a panic is as good as any after it.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a Homa NIC holds.
#[derive(Debug)]
pub(crate) struct NicQueue {
    /// GRANTs, RESENDs, BUSYs and ACKs, in order.
    control: VecDeque<PacketId>,
    /// DATA packets by their message's bytes left.
    data: PfabricQueue,
    /// DATA packets waiting, per message.
    held: BTreeMap<FlowId, u32>,
}

impl Default for NicQueue {
    fn default() -> NicQueue {
        NicQueue { control: VecDeque::new(), data: PfabricQueue::new(u64::MAX), held: BTreeMap::new() }
    }
}

impl NicQueue {
    /// Whether DATA packets of flow `flow` wait here.
    pub(crate) fn holds(&self, flow: FlowId) -> bool {
        self.held.get(&flow).is_some_and(|&n| n > 0)
    }
}

/// The discipline of a Homa host's NIC: a handle on its queue.
#[derive(Debug)]
pub(crate) struct HomaNic(Arc<Mutex<NicQueue>>);

impl HomaNic {
    pub(super) fn new(queue: Arc<Mutex<NicQueue>>) -> HomaNic {
        HomaNic(queue)
    }
}

impl QueueDiscipline for HomaNic {
    type Header = HomaPacket;

    /// Every packet joins: a host keeps what its transport hands it (the engine's backlog bound
    /// holds senders back, and Homa's hand over only what is granted).
    fn offer(&mut self, packet: &Arriving, header: Option<&HomaPacket>, _waiting: u64) -> Joined {
        let mut q = lock(&self.0);
        match header.map(|h| (h.header, h.left)) {
            Some((HomaHeader::Data { .. }, left)) => {
                let rank = left.min(u64::from(u32::MAX)) as u32;
                q.data.push(RankEntry { id: packet.id, flow: packet.flow, rank, bytes: packet.wire_bytes });
                *q.held.entry(packet.flow).or_insert(0) += 1;
            }
            _ => q.control.push_back(packet.id),
        }
        Joined::Queued
    }

    fn next(&mut self) -> Option<PacketId> {
        let mut q = lock(&self.0);
        if let Some(id) = q.control.pop_front() {
            return Some(id);
        }
        let entry = q.data.pop()?;
        if let Some(n) = q.held.get_mut(&entry.flow) {
            *n -= 1;
            if *n == 0 {
                q.held.remove(&entry.flow);
            }
        }
        Some(entry.id)
    }

    fn len(&self) -> usize {
        let q = lock(&self.0);
        q.control.len() + q.data.len()
    }
}
