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

use incast_proto::time::Instant;

use super::header::PfabricHeader;
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
    fn offer(&mut self, _now: Instant, packet: &Arriving, header: Option<&PfabricHeader>, waiting: u64) -> Joined {
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

    fn next(&mut self, _now: Instant) -> Option<PacketId> {
        self.pop().map(|e| e.id)
    }

    /// With nothing waiting, an arrival within the limit joins and is the one sent next; the
    /// queue keeps nothing but its entries.
    fn take_when_idle(&mut self, _now: Instant, wire_bytes: u32, _payload: bool) -> bool {
        u64::from(wire_bytes) <= self.limit
    }

    fn len(&self) -> usize {
        PfabricQueue::len(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    /// One step of a port's life: a packet arrives (`Port::offer_pfabric`), or the port starts
    /// serializing its next packet (`Port::next_pfabric`).
    #[derive(Clone, Copy, Debug)]
    enum Op {
        Arrive { flow: u32, rank: u32, bytes: u32 },
        Depart,
    }

    /// What a replay saw, for the properties to judge. "Waiting" lists come from a model kept
    /// beside the queue (every arrival appended, every packet the queue gives back removed), in
    /// arrival order, so that no check reads the queue's own bookkeeping.
    #[derive(Debug, Default)]
    struct Replay {
        arrivals: usize,
        /// Bytes waiting after each arrival and the eviction it caused, if any.
        waiting_bytes: Vec<u64>,
        /// Each packet that left, and what was waiting when it did.
        departures: Vec<(Entry, Vec<Entry>)>,
        /// Each eviction: the excess over the limit, the packet evicted, and what was waiting (the
        /// arrival included).
        evictions: Vec<(u64, Entry, Vec<Entry>)>,
        /// Still waiting at the end, by the queue's count and by the model's.
        left: usize,
        left_in_model: usize,
    }

    /// Drives a queue of `limit` bytes through `ops` as the port does: an arrival joins, and if
    /// the bytes waiting then exceed the limit, the excess is evicted at once.
    fn replay(limit: u64, ops: &[Op]) -> Replay {
        let mut q = PfabricQueue::new(limit);
        let mut model: Vec<Entry> = Vec::new();
        let mut r = Replay::default();
        let take = |model: &mut Vec<Entry>, gone: Entry| {
            let i = model.iter().position(|e| *e == gone).expect("the queue gives back only packets that wait");
            model.remove(i);
        };
        for &op in ops {
            match op {
                Op::Arrive { flow, rank, bytes } => {
                    let arriving = Entry { id: PacketId(r.arrivals as u32), flow: FlowId(flow), rank, bytes };
                    r.arrivals += 1;
                    q.push(arriving);
                    model.push(arriving);
                    let waiting: u64 = model.iter().map(|e| u64::from(e.bytes)).sum();
                    if let Some(excess) = waiting.checked_sub(limit).filter(|&x| x > 0) {
                        let victim = q.evict(excess).expect("the arrival itself makes room");
                        r.evictions.push((excess, victim, model.clone()));
                        take(&mut model, victim);
                    }
                    r.waiting_bytes.push(model.iter().map(|e| u64::from(e.bytes)).sum());
                }
                Op::Depart => {
                    if let Some(gone) = q.pop() {
                        r.departures.push((gone, model.clone()));
                        take(&mut model, gone);
                    } else {
                        assert!(model.is_empty(), "an empty queue while {model:?} wait");
                    }
                }
            }
        }
        r.left = q.len();
        r.left_in_model = model.len();
        r
    }

    /// Up to 300 arrivals and departures of four flows, with ranks drawn from a few values so
    /// that ties are common, packets from 40 B probes to full frames, and limits from none to
    /// four full frames.
    fn ops() -> impl Strategy<Value = (u64, Vec<Op>)> {
        let arrive = (0u32..4, prop_oneof![0u32..6, any::<u32>()], prop_oneof![Just(1500u32), Just(40), 40u32..=1500])
            .prop_map(|(flow, rank, bytes)| Op::Arrive { flow, rank, bytes });
        let op = prop_oneof![3 => arrive, 2 => Just(Op::Depart)];
        (0u64..=6_000, proptest::collection::vec(op, 0..300))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// After every arrival, and the eviction it may cause, the bytes waiting are at most the
        /// limit.
        #[test]
        fn random_ops_waiting_bytes_never_exceed_the_limit((limit, ops) in ops()) {
            let r = replay(limit, &ops);
            for (i, &bytes) in r.waiting_bytes.iter().enumerate() {
                prop_assert!(bytes <= limit, "{} bytes wait after arrival {}, limit {}", bytes, i, limit);
            }
        }

        /// A flow is never reordered against itself: its packets leave in the order they came.
        #[test]
        fn random_ops_each_flow_leaves_in_arrival_order((limit, ops) in ops()) {
            let r = replay(limit, &ops);
            let mut last: [Option<u32>; 4] = [None; 4];
            for (gone, _) in &r.departures {
                let previous = &mut last[gone.flow.0 as usize];
                prop_assert!(previous.is_none_or(|p| p < gone.id.0), "flow {} sent packet {} after {:?}", gone.flow.0, gone.id.0, previous);
                *previous = Some(gone.id.0);
            }
        }

        /// The packet that leaves is the earliest waiting packet of the flow that owns the most
        /// urgent waiting packet (the smallest rank, the earliest among equals).
        #[test]
        fn random_ops_departure_is_the_first_packet_of_the_most_urgent_flow((limit, ops) in ops()) {
            let r = replay(limit, &ops);
            for (gone, waiting) in &r.departures {
                let urgent = waiting.iter().min_by_key(|e| (e.rank, e.id.0)).expect("something waited");
                let first = waiting.iter().find(|e| e.flow == urgent.flow).expect("its flow waits");
                prop_assert_eq!(gone, first, "most urgent {:?} among {:?}", urgent, waiting);
            }
        }

        /// An eviction removes a packet at least as large as the excess, and no waiting packet
        /// large enough to make room is less urgent than the one evicted (a larger rank, or the
        /// same rank and a later arrival).
        #[test]
        fn random_ops_eviction_takes_the_least_urgent_packet_that_makes_room((limit, ops) in ops()) {
            let r = replay(limit, &ops);
            for (excess, victim, waiting) in &r.evictions {
                prop_assert!(u64::from(victim.bytes) >= *excess, "evicted {:?} for an excess of {}", victim, excess);
                for e in waiting.iter().filter(|e| u64::from(e.bytes) >= *excess) {
                    prop_assert!((e.rank, e.id.0) <= (victim.rank, victim.id.0), "kept {:?}, less urgent than evicted {:?}", e, victim);
                }
            }
        }

        /// Every packet that arrived left, was dropped, or still waits.
        #[test]
        fn random_ops_conserve_packets((limit, ops) in ops()) {
            let r = replay(limit, &ops);
            prop_assert_eq!(r.left, r.left_in_model);
            prop_assert_eq!(r.arrivals, r.departures.len() + r.evictions.len() + r.left);
        }
    }
}
