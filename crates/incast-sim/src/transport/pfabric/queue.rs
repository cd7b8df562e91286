//! pFabric's port queue (Alizadeh et al., SIGCOMM 2013, Section 4.1): every packet carries a
//! priority, its flow's remaining bytes when it was sent (ACKs 0, the highest); the port sends
//! the earliest packet of the flow that owns the most urgent packet, and when its buffer
//! overflows it drops the least urgent packet, which may be the one arriving.
//!
//! The rules are those of pFabric's public code, which agree on them (notes in docs/pfabric.md):
//! NetSys/simulator (YAPS) `ext/pfabricqueue.cpp` and the pFabric patch of the ns-2 scripts of
//! HKUST-SING/PIAS-NS2 (`pFabric.patch`, its `keep_order_` mode):
//!
//! - **Dequeue.** The smallest priority value wins, the earliest queued among equals; then the
//!   first queued packet of that packet's flow leaves instead, so that a flow is never reordered
//!   against itself (its earlier packets carry larger remaining sizes).
//! - **Drop.** The arriving packet joins the queue first; if the queue then exceeds its limit,
//!   one packet leaves: the one with the largest value, the latest queued among equals, among
//!   those whose removal brings the queue within its limit (so an arrival no more urgent than
//!   everything queued is the one dropped, and the arrival itself always qualifies). This is the
//!   pFabric patch of PIAS (`pFabric.patch` lines 185-202). YAPS removes the largest value
//!   whatever its size, which can leave a queue above its limit when a large arrival displaces a
//!   small packet (a 41 B probe); the two agree whenever the packets are full-sized.
//!
//! Buffers are a few dozen packets (36 KiB in pFabric's configuration), so both rules scan the
//! queue, as the paper's switch design does over its small buffers.

use super::PfabricHeader;
use crate::ids::{FlowId, PacketId};
use crate::transport::{Arriving, Joined, QueueDiscipline};

/// A queued packet as the scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) id: PacketId,
    pub(crate) flow: FlowId,
    /// Priority: smaller is more urgent.
    pub(crate) rank: u32,
    /// Bytes on the wire.
    pub(crate) bytes: u32,
}

/// The packets waiting at a pFabric port, in arrival order.
#[derive(Debug, Default)]
pub(crate) struct PfabricQueue {
    /// Bytes that may wait (`u64::MAX`: a host NIC that never drops).
    pub(crate) limit: u64,
    entries: Vec<Entry>,
}

impl PfabricQueue {
    /// An empty queue holding at most `limit` bytes waiting.
    pub(crate) fn new(limit: u64) -> PfabricQueue {
        PfabricQueue { limit, ..PfabricQueue::default() }
    }

    /// Appends an arriving packet.
    pub(crate) fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// Removes and returns the least urgent packet of at least `excess` bytes (the largest rank,
    /// the latest among equals), so that removing it takes `excess` bytes off the queue.
    pub(crate) fn evict(&mut self, excess: u64) -> Option<Entry> {
        let worst = (0..self.entries.len())
            .filter(|&i| u64::from(self.entries[i].bytes) >= excess)
            .max_by_key(|&i| (self.entries[i].rank, i))?;
        Some(self.entries.remove(worst))
    }

    /// Removes and returns the packet to send: the first queued packet of the flow that owns the
    /// most urgent packet (the earliest among equally urgent ones).
    pub(crate) fn pop(&mut self) -> Option<Entry> {
        let best = self.entries.iter().enumerate().min_by_key(|&(i, e)| (e.rank, i))?.1.flow;
        let first = self.entries.iter().position(|e| e.flow == best).expect("the best packet's flow has a packet");
        Some(self.entries.remove(first))
    }

    /// Packets waiting.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

impl QueueDiscipline for PfabricQueue {
    type Header = PfabricHeader;

    /// pFabric's admission: the packet joins the queue; if the queue then exceeds its limit, the
    /// least urgent packet whose removal makes room leaves (the arrival itself, if nothing
    /// waiting is less urgent).
    fn offer(&mut self, packet: &Arriving, header: Option<&PfabricHeader>, waiting: u64) -> Joined {
        self.push(Entry { id: packet.id, flow: packet.flow, rank: PfabricHeader::rank(header), bytes: packet.wire_bytes });
        let bytes = waiting + u64::from(packet.wire_bytes);
        match bytes.checked_sub(self.limit).filter(|&excess| excess > 0) {
            None => Joined::Queued,
            Some(excess) => {
                // The queue fitted before this arrival, so removing the arrival always makes room.
                let victim = self.evict(excess).expect("the arrival itself makes room");
                Joined::Displaced { victim: victim.id, bytes: victim.bytes }
            }
        }
    }

    fn next(&mut self) -> Option<PacketId> {
        self.pop().map(|e| e.id)
    }

    fn len(&self) -> usize {
        PfabricQueue::len(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u32, flow: u32, rank: u32) -> Entry {
        Entry { id: PacketId(id), flow: FlowId(flow), rank, bytes: 1500 }
    }

    fn ids(mut q: PfabricQueue) -> Vec<u32> {
        std::iter::from_fn(|| q.pop()).map(|e| e.id.0).collect()
    }

    #[test]
    fn sends_the_most_urgent_flow_first() {
        let mut q = PfabricQueue::default();
        q.push(entry(0, 7, 90_000));
        q.push(entry(1, 8, 3_000));
        q.push(entry(2, 9, 0)); // an ACK
        assert_eq!(ids(q), [2, 1, 0]);
    }

    #[test]
    fn a_flow_leaves_in_its_own_order_even_when_a_later_packet_is_more_urgent() {
        // Flow 7's second packet was sent after an ACK lowered its remaining size: it is the most
        // urgent, but the flow's first packet goes first (the starvation-prevention rule).
        let mut q = PfabricQueue::default();
        q.push(entry(0, 7, 50_000));
        q.push(entry(1, 8, 20_000));
        q.push(entry(2, 7, 10_000));
        assert_eq!(ids(q), [0, 2, 1]);
    }

    #[test]
    fn equal_priorities_leave_in_arrival_order() {
        let mut q = PfabricQueue::default();
        q.push(entry(0, 1, 5_000));
        q.push(entry(1, 2, 5_000));
        q.push(entry(2, 3, 5_000));
        assert_eq!(ids(q), [0, 1, 2]);
    }

    #[test]
    fn eviction_takes_the_least_urgent_and_the_latest_among_equals() {
        let mut q = PfabricQueue::default();
        q.push(entry(0, 1, 80_000));
        q.push(entry(1, 2, 1_000));
        q.push(entry(2, 3, 80_000));
        q.push(entry(3, 4, 5_000));
        assert_eq!(q.evict(1500).map(|e| e.id.0), Some(2), "of two equal ranks the later goes");
        assert_eq!(q.evict(1500).map(|e| e.id.0), Some(0));
        assert_eq!(q.evict(1500).map(|e| e.id.0), Some(3));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn eviction_passes_over_packets_too_small_to_make_room() {
        // A 41 B probe of the largest flow is the least urgent, but removing it would not make
        // room for 1500 B: the least urgent full packet goes instead.
        let mut q = PfabricQueue::default();
        q.push(Entry { bytes: 41, ..entry(0, 1, 9_000_000) });
        q.push(entry(1, 2, 70_000));
        q.push(entry(2, 3, 3_000));
        assert_eq!(q.evict(1500).map(|e| e.id.0), Some(1));
        assert_eq!(q.evict(41).map(|e| e.id.0), Some(0));
        assert_eq!(q.evict(2000), None, "nothing frees 2000 B at once");
    }
}
