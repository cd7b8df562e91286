//! A Homa host's NIC (Montazeri et al., SIGCOMM 2018, Section 3.2): control packets first (the
//! authors' simulator always sends GRANTs before data, `HomaTransport::SendController`), then the
//! next DATA packet of the message with the fewest bytes not yet sent, the paper's SRPT at the
//! sender. That is HomaSimulation's `senderScheme = SRBF`: `OutbndMsgSorter` orders messages by
//! `bytesLeft`, which falls as each packet leaves (`getTransmitReadyPkt`), ties to the older
//! message, and a message sends its packets first byte first. A message's bytes not yet sent are
//! those of its first waiting packet, whatever it has queued behind it: ranking a message by its
//! last waiting packet instead (as pFabric's ports rank a flow by its most urgent packet) would
//! put a 5,000 B message whose four packets all wait ahead of a 700 B one. Homa keeps its NIC
//! queue short and picks the next packet in software as the NIC drains; a queue that sorts what
//! was handed to it sends the same packets in the same order.
//!
//! The queue is shared with the host's senders, which answer a RESEND with BUSY while the queue
//! still holds packets of the message (`NicQueue::holds`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use super::packet::HomaPacket;
use crate::ids::{FlowId, PacketId};
use crate::transport::{Arriving, Joined, QueueDiscipline};
use incast_proto::homa::HomaHeader;
use incast_proto::time::Instant;

/// Locks shared state; the engine is one thread, so a lock is never held elsewhere, and one
/// poisoned by a panic is as good as any after it.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a Homa NIC holds.
#[derive(Debug, Default)]
pub(crate) struct NicQueue {
    /// GRANTs, RESENDs, BUSYs and ACKs, in order.
    control: VecDeque<PacketId>,
    /// DATA packets waiting, per message, in the order they were queued (its bytes' order),
    /// each with the bytes of its message not sent before it.
    data: BTreeMap<FlowId, VecDeque<(PacketId, u64)>>,
    /// The messages with DATA packets waiting, next first: by the bytes of each not yet sent
    /// (its first waiting packet's), then by flow (the older message first).
    order: BTreeSet<(u64, FlowId)>,
    /// DATA packets waiting, over all messages.
    waiting: usize,
}

impl NicQueue {
    /// Whether DATA packets of flow `flow` wait here.
    pub(crate) fn holds(&self, flow: FlowId) -> bool {
        self.data.contains_key(&flow)
    }

    /// Queues DATA packet `id` of `flow`, `left` bytes of its message not sent before it.
    fn push_data(&mut self, id: PacketId, flow: FlowId, left: u64) {
        let queue = self.data.entry(flow).or_default();
        if queue.is_empty() {
            self.order.insert((left, flow));
        }
        queue.push_back((id, left));
        self.waiting += 1;
    }

    /// The next DATA packet: the first waiting one of the message with the fewest bytes not sent.
    fn pop_data(&mut self) -> Option<PacketId> {
        let (_, flow) = self.order.pop_first()?;
        let queue = self.data.get_mut(&flow).expect("a message in the order has packets waiting");
        let (id, _) = queue.pop_front().expect("a message in the order has packets waiting");
        match queue.front() {
            Some(&(_, left)) => {
                self.order.insert((left, flow));
            }
            None => {
                self.data.remove(&flow);
            }
        }
        self.waiting -= 1;
        Some(id)
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
    fn offer(&mut self, _now: Instant, packet: &Arriving, header: Option<&HomaPacket>, _waiting: u64) -> Joined {
        let mut q = lock(&self.0);
        match header.map(|h| (h.header, h.left)) {
            Some((HomaHeader::Data { .. }, left)) => q.push_data(packet.id, packet.flow, left),
            _ => q.control.push_back(packet.id),
        }
        Joined::Queued
    }

    /// With nothing waiting, a packet joins and is the next sent, and the queue is empty again
    /// as before (no message left in `data` or `order`): nothing to record, and no lock taken.
    fn take_when_idle(&mut self, _now: Instant, _wire_bytes: u32, _payload: bool) -> bool {
        debug_assert_eq!(self.len(), 0, "a packet waits");
        true
    }

    fn next(&mut self, _now: Instant) -> Option<PacketId> {
        let mut q = lock(&self.0);
        match q.control.pop_front() {
            Some(id) => Some(id),
            None => q.pop_data(),
        }
    }

    fn len(&self) -> usize {
        let q = lock(&self.0);
        q.control.len() + q.waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues `message`'s packets of 1,442 B of message each, as a sender hands them over.
    fn queue_message(q: &mut NicQueue, flow: u32, size: u64, first_id: u32) {
        for (i, offset) in (0..size).step_by(1442).enumerate() {
            q.push_data(PacketId(first_id + i as u32), FlowId(flow), size - offset);
        }
    }

    /// What `take_when_idle` rests on: a packet that joins an empty NIC and is the next sent
    /// leaves the queue as empty as it found it, DATA or control.
    #[test]
    fn a_packet_through_an_empty_nic_leaves_nothing_behind() {
        let mut q = NicQueue::default();
        q.push_data(PacketId(1), FlowId(3), 5_000);
        assert_eq!(q.pop_data(), Some(PacketId(1)));
        assert!(q.data.is_empty() && q.order.is_empty() && q.waiting == 0 && !q.holds(FlowId(3)));
        let mut nic = HomaNic::new(Arc::new(Mutex::new(NicQueue::default())));
        assert!(nic.take_when_idle(Instant::ZERO, 1500, true));
        assert_eq!(nic.len(), 0);
    }

    #[test]
    fn data_goes_to_the_message_with_fewest_bytes_not_sent_not_the_shortest_last_packet() {
        let mut q = NicQueue::default();
        // 5,000 B in four packets, the last with 674 B left; then a 700 B message.
        queue_message(&mut q, 1, 5_000, 10);
        queue_message(&mut q, 2, 700, 20);
        assert!(q.holds(FlowId(1)) && q.holds(FlowId(2)));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop_data()).map(|p| p.0).collect();
        assert_eq!(order, [20, 10, 11, 12, 13], "700 B before 5,000 B; a message's packets in order");
        assert!(!q.holds(FlowId(1)) && q.waiting == 0);
    }

    #[test]
    fn a_message_overtakes_another_once_its_bytes_not_sent_are_fewer() {
        let mut q = NicQueue::default();
        // 3,000 B (3 packets) and 2,000 B (2 packets): the 2,000 B message first, whole; then
        // the 3,000 B one. Once 3,000 B has sent one packet (1,558 B left), a 1,600 B message
        // queued then waits behind it.
        queue_message(&mut q, 1, 3_000, 10);
        queue_message(&mut q, 2, 2_000, 20);
        assert_eq!([q.pop_data(), q.pop_data(), q.pop_data()], [Some(PacketId(20)), Some(PacketId(21)), Some(PacketId(10))]);
        queue_message(&mut q, 3, 1_600, 30);
        let rest: Vec<u32> = std::iter::from_fn(|| q.pop_data()).map(|p| p.0).collect();
        assert_eq!(rest, [11, 12, 30, 31]);
    }

    #[test]
    fn equal_bytes_not_sent_go_to_the_older_message() {
        let mut q = NicQueue::default();
        queue_message(&mut q, 7, 1_000, 70);
        queue_message(&mut q, 3, 1_000, 30);
        assert_eq!([q.pop_data(), q.pop_data(), q.pop_data()], [Some(PacketId(30)), Some(PacketId(70)), None]);
    }
}
