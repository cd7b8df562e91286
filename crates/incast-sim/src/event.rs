//! The event queue, ordered by (time, insertion sequence), so events at the same picosecond run in
//! the order they were scheduled and every run is reproducible.
//!
//! Two heaps share one sequence counter: packet events (short-lived, popped soon) and timers (RTOs
//! that mostly never fire and linger until their time). Keeping the long-lived timers out of the
//! packet heap keeps that heap small and its pops cheap; popping the earlier head of the two gives
//! exactly the order of a single heap.
//!
//! On request the queue also keeps its next few events in order outside the heaps (a lookahead
//! window), so that the driver can see several events ahead and start loading what each will
//! read (`Simulation::prefetch_ahead`). A heap shows only its head and, roughly, the one after.

use std::cmp::Ordering;
use std::collections::VecDeque;
use dary_heap::QuaternaryHeap as BinaryHeap;

use incast_proto::time::Instant;

use crate::ids::{FlowId, PortId};

/// Something that happens at an instant. Small and `Copy`: the payload lives in the component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A port's serializer is free and packets wait.
    TxDone(PortId),
    /// The oldest packet on a port's link reached the far end.
    Arrive(PortId),
    /// A flow's transport timer (RTO or delayed ACK) may be due.
    FlowTimer(FlowId),
    /// The next flow start is due.
    FlowStarts,
    /// A port processor asked to be woken.
    ProcessorTimer(PortId),
    /// Time-series sampling tick.
    Sample,
}

/// A scheduled event. `key` packs (time, sequence) into one integer, time in the high half, so
/// the heap orders entries with a single comparison.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    fn time(&self) -> Instant {
        Instant::from_ps((self.key >> 64) as u64)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Pending events, earliest first, FIFO among equal times.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    packets: BinaryHeap<Entry>,
    timers: BinaryHeap<Entry>,
    /// The earliest pending events in order, at most `window` of them: every entry here comes
    /// before every entry in the heaps. Empty when `window` is 0.
    ahead: VecDeque<Entry>,
    window: usize,
    next_seq: u64,
}

impl EventQueue {
    /// A queue that keeps its next `window` events in order where [`peek_nth`](Self::peek_nth)
    /// sees them. The order of events is the same for every window.
    pub(crate) fn with_lookahead(window: usize) -> EventQueue {
        EventQueue { ahead: VecDeque::with_capacity(window + 1), window, ..EventQueue::default() }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub(crate) fn push(&mut self, time: Instant, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry { key: (u128::from(time.as_ps()) << 64) | u128::from(seq), event };
        match self.ahead.back() {
            // Sooner than the window's last event: it joins the window in order, and the
            // window's last event, now one too many, goes back to its heap.
            Some(last) if entry.key < last.key => {
                let at = self.ahead.partition_point(|e| e.key < entry.key);
                self.ahead.insert(at, entry);
                if self.ahead.len() > self.window {
                    let last = self.ahead.pop_back().expect("the window is not empty");
                    self.push_heap(last);
                }
            }
            _ => self.push_heap(entry),
        }
    }

    #[inline]
    fn push_heap(&mut self, entry: Entry) {
        match entry.event {
            Event::TxDone(_) | Event::Arrive(_) => self.packets.push(entry),
            _ => self.timers.push(entry),
        }
    }

    /// Moves the heaps' earliest events into the window until it is full.
    #[inline]
    fn fill_window(&mut self) {
        while self.ahead.len() < self.window {
            let Some(entry) = self.earliest().and_then(BinaryHeap::pop) else { break };
            self.ahead.push_back(entry);
        }
    }

    /// The heap whose head is earliest.
    fn earliest(&mut self) -> Option<&mut BinaryHeap<Entry>> {
        match (self.packets.peek(), self.timers.peek()) {
            (None, None) => None,
            (Some(_), None) => Some(&mut self.packets),
            (None, Some(_)) => Some(&mut self.timers),
            // `Entry`'s order is reversed: greater means earlier.
            (Some(p), Some(t)) => Some(if p > t { &mut self.packets } else { &mut self.timers }),
        }
    }

    /// The earliest pending event, left in place.
    #[inline]
    pub(crate) fn peek(&self) -> Option<Event> {
        if let Some(e) = self.ahead.front() {
            return Some(e.event);
        }
        match (self.packets.peek(), self.timers.peek()) {
            (None, None) => None,
            (Some(e), None) | (None, Some(e)) => Some(e.event),
            (Some(p), Some(t)) => Some(if p > t { p.event } else { t.event }),
        }
    }

    /// The pending event `n` places after the earliest (0: the earliest), if the lookahead
    /// window holds it: exact, unless an event that runs first schedules something sooner.
    #[inline]
    pub(crate) fn peek_nth(&self, n: usize) -> Option<Event> {
        self.ahead.get(n).map(|e| e.event)
    }

    /// Timer events pending, stale ones included.
    #[inline]
    pub(crate) fn timers_pending(&self) -> usize {
        let ahead = self.ahead.iter().filter(|e| !matches!(e.event, Event::TxDone(_) | Event::Arrive(_))).count();
        self.timers.len() + ahead
    }

    /// Drops the pending timer events for which `live(time, event)` is false: events that
    /// would do nothing when popped (a flow's superseded timer, or the timer of a flow that has
    /// left the run). The others keep their (time, sequence) order. Linear in the timers
    /// pending.
    pub(crate) fn purge_timers(&mut self, mut live: impl FnMut(Instant, Event) -> bool) {
        let packet = |e: &Entry| matches!(e.event, Event::TxDone(_) | Event::Arrive(_));
        self.ahead.retain(|e| packet(e) || live(e.time(), e.event));
        self.timers.retain(|e| live(e.time(), e.event));
        self.fill_window();
    }

    /// Whether no event is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.ahead.is_empty() && self.packets.is_empty() && self.timers.is_empty()
    }

    /// Removes and returns the earliest event.
    #[cfg(test)]
    pub(crate) fn pop(&mut self) -> Option<(Instant, Event)> {
        self.pop_until(Instant::NEVER)
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub(crate) fn pop_until(&mut self, limit: Instant) -> Option<(Instant, Event)> {
        if self.window > 0 {
            // Filled before the look, since events pushed before the first pop are all in the
            // heaps; filled after it, so that the window is full while the event runs.
            self.fill_window();
            let first = self.ahead.front()?;
            if first.time() > limit {
                return None;
            }
            let first = self.ahead.pop_front().map(|e| (e.time(), e.event));
            self.fill_window();
            return first;
        }
        let heap = self.earliest()?;
        if heap.peek().is_some_and(|e| e.time() > limit) {
            return None;
        }
        heap.pop().map(|e| (e.time(), e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn purged_timers_leave_the_others_in_order() {
        // Without a window, and with one that holds some of the timers when they are purged.
        for window in [0, 2, 8] {
            let mut q = EventQueue::with_lookahead(window);
            q.push(Instant::from_ps(1), Event::Arrive(PortId(1)));
            for (t, flow) in [(9, 1), (3, 2), (3, 3), (7, 4), (3, 5)] {
                q.push(Instant::from_ps(t), Event::FlowTimer(FlowId(flow)));
            }
            q.push(Instant::from_ps(3), Event::Arrive(PortId(0)));
            assert_eq!(q.pop(), Some((Instant::from_ps(1), Event::Arrive(PortId(1)))));
            q.purge_timers(|_, e| e != Event::FlowTimer(FlowId(3)) && e != Event::FlowTimer(FlowId(4)));
            assert_eq!(q.timers_pending(), 3, "window {window}");
            let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.as_ps(), e)).collect();
            let timer = |f| Event::FlowTimer(FlowId(f));
            assert_eq!(order, vec![(3, timer(2)), (3, timer(5)), (3, Event::Arrive(PortId(0))), (9, timer(1))], "window {window}");
        }
    }

    #[test]
    fn queue_pops_in_time_then_fifo_order() {
        let mut q = EventQueue::default();
        q.push(Instant::from_ps(5), Event::Sample);
        q.push(Instant::from_ps(1), Event::TxDone(PortId(1)));
        q.push(Instant::from_ps(5), Event::FlowStarts);
        q.push(Instant::from_ps(1), Event::TxDone(PortId(2)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::TxDone(PortId(1)),
                Event::TxDone(PortId(2)),
                Event::Sample,
                Event::FlowStarts
            ]
        );
    }

    proptest! {
        /// Against a reference priority queue on (time, seq): any interleaving of pushes (never
        /// into the past) and pops gives the same sequence of events, with or without a lookahead
        /// window, and the window shows the next events in that order.
        #[test]
        fn matches_a_reference_priority_queue(
            window in 0usize..5,
            ops in prop::collection::vec((0u8..4, 0u64..(1 << 30), 0u32..8), 1..400),
        ) {
            let mut q = EventQueue::with_lookahead(window);
            let mut reference = std::collections::BTreeMap::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for (op, delay, port) in ops {
                if op == 0 {
                    prop_assert_eq!(q.peek(), reference.values().next().copied());
                    prop_assert_eq!(q.timers_pending(), reference.values().filter(|e| matches!(e, Event::FlowTimer(_))).count());
                    let got = q.pop();
                    let want = reference.pop_first().map(|((t, _), e)| (Instant::from_ps(t), e));
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got {
                        now = t.as_ps();
                    }
                    // After a pop the window holds the next events in order.
                    let ahead: Vec<_> = (0..window).map_while(|n| q.peek_nth(n)).collect();
                    let want: Vec<_> = reference.values().take(window).copied().collect();
                    prop_assert_eq!(ahead, want);
                } else {
                    // Mix packet and timer events (two heaps), near and far.
                    let t = now + if op == 3 { delay * 64 } else { delay >> (op * 6) };
                    let event = if port % 3 == 0 { Event::FlowTimer(FlowId(port)) } else { Event::Arrive(PortId(port)) };
                    q.push(Instant::from_ps(t), event);
                    reference.insert((t, seq), event);
                    seq += 1;
                }
            }
            while let Some(want) = reference.pop_first().map(|((t, _), e)| (Instant::from_ps(t), e)) {
                prop_assert_eq!(q.pop(), Some(want));
            }
            prop_assert_eq!(q.pop(), None);
            prop_assert!(q.is_empty());
        }
    }
}
