//! A calendar queue (R. Brown, "Calendar queues", CACM 1988) for the packet events of a large
//! network: a ring of buckets, each holding the events of one slice of time, so that scheduling
//! an event is a push onto its slice's bucket and taking the earliest costs a sort of one small
//! bucket now and then. On a k = 32 fat tree a heap's pop (a walk from the root to a leaf of
//! some 20,000 events, one unpredictable branch per level) was 29% of the run once the misses
//! around it were prefetched (issue 26).
//!
//! The order is exact, the same as a heap's: every event has a unique key (time, then the
//! sequence number of its scheduling), the bucket being taken from is kept sorted by key, and an
//! event scheduled into it is inserted in its place. Events more than a ring's span ahead, and
//! those that find their bucket full, wait in a heap, which is taken from when their bucket comes
//! up. Bucket width only changes speed.

use std::cmp::Ordering;

use dary_heap::QuaternaryHeap;

use crate::error::{try_vec, ResourceError};

/// Something with a unique order key; its time in picoseconds is the key's high 64 bits.
pub(crate) trait Keyed: Copy {
    fn key(&self) -> u128;
}

/// Buckets in the ring. A power of two, and a multiple of 64 (a word of `occupied` per 64).
const BUCKETS: usize = 4096;
const WORDS: usize = BUCKETS / 64;
/// Events a ring bucket holds at first, and at most: a bucket that fills doubles every
/// bucket's room (up to `MAX_ROOM`); events that find a bucket full at `MAX_ROOM` wait in the
/// heap beyond the ring.
const FIRST_ROOM: usize = 8;
const MAX_ROOM: usize = 64;

/// Pending events in key order.
pub(crate) struct Calendar<T: Keyed> {
    /// log2 of a bucket's width in picoseconds.
    shift: u32,
    /// The bucket events are taken from (index `current_index`), sorted with the earliest last.
    current: Vec<T>,
    current_index: u64,
    /// Buckets `current_index + 1 ..= current_index + BUCKETS - 1`, the bucket of index i at
    /// i mod `BUCKETS`, unsorted: `room` slots each, back to back, of which the first
    /// `filled[bucket]` hold events. One flat table rather than a `Vec` per bucket: scheduling
    /// an event reads a count from a small table (4096 counts) and writes the event, where a
    /// `Vec` has a header to read as well, often a cache miss (the two measured the same speed
    /// on the fat trees of `benches/`, within this machine's noise).
    slots: Vec<T>,
    filled: Vec<u16>,
    room: usize,
    /// Which ring buckets hold events, a bit each.
    occupied: [u64; WORDS],
    in_ring: usize,
    /// Events beyond the ring's span, or that found their bucket full, earliest first.
    beyond: QuaternaryHeap<Later<T>>,
}

/// An entry of the `beyond` heap (a max-heap): greater means earlier.
struct Later<T>(T);

impl<T: Keyed> PartialEq for Later<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}
impl<T: Keyed> Eq for Later<T> {}
impl<T: Keyed> PartialOrd for Later<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Keyed> Ord for Later<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.key().cmp(&self.0.key())
    }
}

impl<T: Keyed> Calendar<T> {
    /// A calendar whose ring spans at least `span_ps` picoseconds: events scheduled further
    /// ahead than that (from the bucket being taken) wait in a heap. The bucket width is the
    /// span over the buckets, rounded up to a power of two. `blank` fills the ring's empty
    /// slots (never read). Fails if the table's first megabyte cannot be had.
    pub(crate) fn new(span_ps: u64, blank: T) -> Result<Calendar<T>, ResourceError> {
        let width = span_ps.div_ceil(BUCKETS as u64).max(1).next_power_of_two();
        Ok(Calendar {
            shift: width.trailing_zeros(),
            current: Vec::new(),
            current_index: 0,
            slots: try_vec(BUCKETS * FIRST_ROOM, blank, "the event calendar")?,
            filled: try_vec(BUCKETS, 0, "the event calendar")?,
            room: FIRST_ROOM,
            occupied: [0; WORDS],
            in_ring: 0,
            beyond: QuaternaryHeap::new(),
        })
    }

    #[inline]
    fn index(&self, entry: &T) -> u64 {
        ((entry.key() >> 64) as u64) >> self.shift
    }

    /// Events pending.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.current.len() + self.in_ring + self.beyond.len()
    }

    /// Adds `entry`. Inlined into its caller so that the entry stays in registers: passed
    /// through memory, it was read back before the stores ahead of it (often cache misses) had
    /// committed, which stalled the k = 32 fat tree 15% of its time.
    #[inline(always)]
    pub(crate) fn push(&mut self, entry: T) {
        let index = self.index(&entry);
        if index > self.current_index && index - self.current_index < BUCKETS as u64 {
            let bucket = index as usize % BUCKETS;
            let filled = usize::from(self.filled[bucket]);
            if filled < self.room || self.grow() {
                self.slots[bucket * self.room + filled] = entry;
                self.filled[bucket] += 1;
                self.occupied[bucket / 64] |= 1 << (bucket % 64);
                self.in_ring += 1;
                return;
            }
        }
        self.push_elsewhere(index, entry);
    }

    /// Adds `entry`, of bucket `index`, where the ring does not take it: into the bucket being
    /// taken, or beyond the ring.
    #[inline(never)]
    fn push_elsewhere(&mut self, index: u64, entry: T) {
        if index <= self.current_index {
            // In its place (earliest last). An index before the current one (an event in the
            // past) sorts first, which is its place too.
            let key = entry.key();
            let at = self.current.partition_point(|e| e.key() > key);
            self.current.insert(at, entry);
        } else {
            self.beyond.push(Later(entry));
        }
    }

    /// Doubles every bucket's room, unless it is `MAX_ROOM` already or the memory cannot be had
    /// (the event then waits beyond the ring, as when the room is at its most); says whether it
    /// did.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> bool {
        let room = 2 * self.room;
        let mut slots = Vec::new();
        if room > MAX_ROOM || slots.try_reserve_exact(BUCKETS * room).is_err() {
            return false;
        }
        for bucket in self.slots.chunks(self.room) {
            // The bucket, then as much again as room (a copy, never read).
            slots.extend_from_slice(bucket);
            slots.extend_from_slice(bucket);
        }
        self.slots = slots;
        self.room = room;
        true
    }

    /// The earliest event, left in place.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<&T> {
        if self.current.is_empty() {
            self.advance();
        }
        self.current.last()
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.current.is_empty() {
            self.advance();
        }
        self.current.pop()
    }

    /// Makes the next bucket that holds events the current one (the current one is empty):
    /// the ring's next occupied bucket or the bucket of the earliest event beyond the ring,
    /// whichever comes first. Its events from the ring and from beyond are sorted.
    #[cold]
    #[inline(never)]
    fn advance(&mut self) {
        debug_assert!(self.current.is_empty());
        let in_ring = self.next_occupied();
        let beyond = self.beyond.peek().map(|e| self.index(&e.0));
        let next = match (in_ring, beyond) {
            (None, None) => return,
            (Some(i), None) | (None, Some(i)) => i,
            (Some(i), Some(j)) => i.min(j),
        };
        self.current_index = next;
        if in_ring == Some(next) {
            let bucket = next as usize % BUCKETS;
            let filled = usize::from(std::mem::take(&mut self.filled[bucket]));
            let start = bucket * self.room;
            self.current.extend_from_slice(&self.slots[start..start + filled]);
            self.occupied[bucket / 64] &= !(1 << (bucket % 64));
            self.in_ring -= filled;
        }
        while self.beyond.peek().is_some_and(|e| self.index(&e.0) == next) {
            let Later(entry) = self.beyond.pop().expect("peeked");
            self.current.push(entry);
        }
        self.current.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
    }

    /// The index of the first occupied ring bucket after the current one.
    fn next_occupied(&self) -> Option<u64> {
        if self.in_ring == 0 {
            return None;
        }
        let start = (self.current_index as usize + 1) % BUCKETS;
        let (first_word, first_bit) = (start / 64, start % 64);
        for step in 0..=WORDS {
            let word = (first_word + step) % WORDS;
            let mut bits = self.occupied[word];
            if step == 0 {
                bits &= !0 << first_bit;
            } else if step == WORDS {
                bits &= (1 << first_bit) - 1;
            }
            if bits != 0 {
                let bucket = word * 64 + bits.trailing_zeros() as usize;
                let ahead = (bucket + BUCKETS - start) % BUCKETS;
                return Some(self.current_index + 1 + ahead as u64);
            }
        }
        unreachable!("in_ring counts an event in an occupied bucket")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct E(u128);
    impl Keyed for E {
        fn key(&self) -> u128 {
            self.0
        }
    }

    fn at(time: u64, seq: u64) -> E {
        E((u128::from(time) << 64) | u128::from(seq))
    }

    #[test]
    fn takes_events_in_key_order_across_buckets_the_ring_and_beyond() {
        // Buckets of 1 ps: the ring spans 4096 ps. 70 events in one bucket fill its room, which
        // grows to its most, and the rest wait beyond the ring.
        let mut c = Calendar::new(BUCKETS as u64, E(0)).expect("a megabyte");
        for (seq, time) in [5u64, 3, 9_000, 3, 4_095, 4_096, 0, 70_000].into_iter().enumerate() {
            c.push(at(time, seq as u64));
        }
        for seq in 8..78 {
            c.push(at(600, seq));
        }
        assert_eq!(c.len(), 78);
        let mut got = Vec::new();
        while let Some(e) = c.pop() {
            got.push(e);
            if e == at(3, 1) {
                // Scheduled into the bucket being taken, and into the past: each in its place.
                c.push(at(3, 100));
                c.push(at(2, 101));
            }
        }
        let mut want = vec![at(0, 6), at(3, 1), at(2, 101), at(3, 3), at(3, 100), at(5, 0)];
        want.extend((8..78).map(|seq| at(600, seq)));
        want.extend([at(4_095, 4), at(4_096, 5), at(9_000, 2), at(70_000, 7)]);
        assert_eq!(got, want);
        assert_eq!(c.room, MAX_ROOM);
        assert_eq!(c.len(), 0);
    }

    proptest! {
        /// Against a reference ordered set: any interleaving of pushes (at or after the last
        /// event taken, near or far) and pops takes the same events in the same order, for
        /// narrow and wide buckets.
        #[test]
        fn matches_a_reference_priority_queue(
            span in prop::sample::select(vec![1u64, 4_096, 1 << 20, 1 << 40]),
            ops in prop::collection::vec((0u8..4, 0u64..(1 << 30)), 1..600),
        ) {
            let mut c = Calendar::new(span, E(0)).expect("a megabyte");
            let mut reference = std::collections::BTreeSet::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for (op, delay) in ops {
                match op {
                    0 => {
                        let got = c.pop();
                        prop_assert_eq!(got.map(|e| e.0), reference.pop_first());
                        if let Some(e) = got {
                            now = (e.0 >> 64) as u64;
                        }
                    }
                    _ => {
                        let time = now + (delay >> (10 * (3 - u64::from(op))));
                        c.push(at(time, seq));
                        reference.insert(at(time, seq).0);
                        seq += 1;
                    }
                }
                prop_assert_eq!(c.len(), reference.len());
            }
            while let Some(want) = reference.pop_first() {
                prop_assert_eq!(c.pop().map(|e| e.0), Some(want));
            }
            prop_assert!(c.pop().is_none());
        }
    }
}
