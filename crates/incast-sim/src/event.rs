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

use crate::calendar::{Calendar, Keyed};
use crate::error::ResourceError;
use crate::ids::{FlowId, PortId};

/// Something that happens at an instant. Small and `Copy`: the payload lives in the component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A port's serializer is free and packets wait.
    TxDone(PortId),
    /// The oldest packet on a port's link reached the far end.
    Arrive(PortId),
    /// A flow's sender timer (retransmission, probe) may be due.
    SenderTimer(FlowId),
    /// A flow's receiver timer (delayed ACK, resend request) may be due, or its receiver was
    /// given something to send (`Plugin::poll_wake`).
    ReceiverTimer(FlowId),
    /// The next flow start is due.
    FlowStarts,
    /// A flow starts at its sender (a run cut into parts: its host's part starts it).
    SenderStarts(FlowId),
    /// A flow starts at its receiver (a run cut into parts).
    ReceiverStarts(FlowId),
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

impl Keyed for Entry {
    #[inline]
    fn key(&self) -> u128 {
        self.key
    }
}

/// Pending events, earliest first, FIFO among equal times.
#[derive(Default)]
pub(crate) struct EventQueue {
    /// Packet events (without a lookahead).
    packets: BinaryHeap<Entry>,
    /// Timers (without a lookahead).
    timers: BinaryHeap<Entry>,
    /// A large network's queue (`with_lookahead`), which then holds every event; `None` on a
    /// small one, whose queue is the two heaps alone, their code as lean as before the
    /// lookahead existed.
    lookahead: Option<Box<Lookahead>>,
    /// The number of the next event `push` queues (`push_numbered`'s come numbered).
    next_seq: u64,
}

/// A large network's events: the next few in order, the other packet events in a calendar,
/// the other timers in a heap.
struct Lookahead {
    /// The earliest pending events in order: `window` of them, or every pending event if
    /// fewer. Every entry here comes before every entry outside.
    ahead: VecDeque<Entry>,
    window: usize,
    /// Packet events, all scheduled less than a link's delay and a packet's serialization
    /// ahead: so the calendar never takes a bucket far ahead of the run's time, and the events
    /// scheduled after it (which the window can make earlier than the calendar's last taken)
    /// rarely fall before its current bucket. Timers, up to a second ahead, would make it jump:
    /// every event after would then be inserted into its current bucket, one by one.
    calendar: Calendar<Entry>,
    /// Timers. std's heap rather than the small network's `dary_heap`: a type of its own, so
    /// that the small network's heap keeps its one caller and stays inlined in the event loop
    /// (with a second caller, a star's events took 4% more instructions).
    timers: std::collections::BinaryHeap<Entry>,
}

/// Whether an event is a packet's (short-lived, popped soon) rather than a timer.
#[inline]
fn is_packet(event: Event) -> bool {
    matches!(event, Event::TxDone(_) | Event::Arrive(_))
}

impl EventQueue {
    /// A queue that keeps its next `window` events (at least 1) in order where
    /// [`peek_nth`](Self::peek_nth) sees them, and the other packet events in a calendar whose
    /// ring spans `calendar_span` picoseconds (`calendar`) rather than in a heap. The order of
    /// events is the same as without. Fails if the calendar's table cannot be had.
    pub(crate) fn with_lookahead(window: usize, calendar_span: u64) -> Result<EventQueue, ResourceError> {
        assert!(window > 0, "a lookahead window holds at least the next event");
        let blank = Entry { key: u128::MAX, event: Event::Sample };
        let lookahead = Lookahead {
            ahead: VecDeque::with_capacity(window + 1),
            window,
            calendar: Calendar::new(calendar_span, blank)?,
            timers: std::collections::BinaryHeap::new(),
        };
        Ok(EventQueue { lookahead: Some(Box::new(lookahead)), ..EventQueue::default() })
    }

    /// Schedules `event` at `time` with sequence number `seq` (a run cut into parts:
    /// `crate::rounds` numbers an event by the part that scheduled it, so that its place among
    /// the events of its instant follows from where it came from, whenever and wherever it is
    /// queued). Out of line, and not sharing `push`'s code: the heaps' `push` with more
    /// callers went out of line in the one loop (+0.9% instructions on the star).
    #[inline(never)]
    pub(crate) fn push_numbered(&mut self, time: Instant, seq: u64, event: Event) {
        let key = (u128::from(time.as_ps()) << 64) | u128::from(seq);
        if let Some(look) = self.lookahead.as_mut() {
            return look.push(key, event);
        }
        let entry = Entry { key, event };
        if is_packet(event) {
            self.packets.push(entry);
        } else {
            self.timers.push(entry);
        }
    }

    /// Schedules `event` at `time`, numbered as this queue's next.
    #[inline]
    pub(crate) fn push(&mut self, time: Instant, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = (u128::from(time.as_ps()) << 64) | u128::from(seq);
        if let Some(look) = self.lookahead.as_mut() {
            return look.push(key, event);
        }
        let entry = Entry { key, event };
        if is_packet(event) {
            self.packets.push(entry);
        } else {
            self.timers.push(entry);
        }
    }

    /// The heap whose head is earliest (without a lookahead).
    #[inline]
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
        if let Some(look) = &self.lookahead {
            return look.ahead.front().map(|e| e.event);
        }
        match (self.packets.peek(), self.timers.peek()) {
            (None, None) => None,
            (Some(e), None) | (None, Some(e)) => Some(e.event),
            (Some(p), Some(t)) => Some(if p > t { p.event } else { t.event }),
        }
    }

    /// The earliest pending event's time.
    pub(crate) fn peek_time(&self) -> Option<Instant> {
        if let Some(look) = &self.lookahead {
            return look.ahead.front().map(Entry::time);
        }
        match (self.packets.peek(), self.timers.peek()) {
            (None, None) => None,
            (Some(e), None) | (None, Some(e)) => Some(e.time()),
            (Some(p), Some(t)) => Some(p.time().min(t.time())),
        }
    }

    /// The pending event `n` places after the earliest (0: the earliest), if the lookahead
    /// window holds it: exact, unless an event that runs first schedules something sooner.
    #[inline]
    pub(crate) fn peek_nth(&self, n: usize) -> Option<Event> {
        self.lookahead.as_ref()?.ahead.get(n).map(|e| e.event)
    }

    /// Timer events pending, stale ones included.
    #[inline]
    pub(crate) fn timers_pending(&self) -> usize {
        self.lookahead.as_ref().map_or(self.timers.len(), |l| l.timers.len() + l.ahead.iter().filter(|e| !is_packet(e.event)).count())
    }

    /// Drops the pending timer events for which `live(time, event)` is false: events that
    /// would do nothing when popped (a flow's superseded timer, or the timer of a flow that has
    /// left the run). The others keep their (time, sequence) order. Linear in the timers
    /// pending.
    pub(crate) fn purge_timers(&mut self, mut live: impl FnMut(Instant, Event) -> bool) {
        let keep = |e: &Entry| live(e.time(), e.event);
        match self.lookahead.as_mut() {
            Some(look) => look.retain_timers(keep),
            None => self.timers.retain(keep),
        }
    }

    /// Whether no event is pending.
    pub(crate) fn is_empty(&self) -> bool {
        // With a lookahead, the window holds an event whenever one is pending.
        match &self.lookahead {
            Some(look) => look.ahead.is_empty(),
            None => self.packets.is_empty() && self.timers.is_empty(),
        }
    }

    /// Removes and returns the earliest event.
    #[cfg(test)]
    pub(crate) fn pop(&mut self) -> Option<(Instant, Event)> {
        self.pop_until(Instant::NEVER)
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub(crate) fn pop_until(&mut self, limit: Instant) -> Option<(Instant, Event)> {
        if let Some(look) = self.lookahead.as_mut() {
            return look.pop_until(limit);
        }
        let heap = self.earliest()?;
        if heap.peek().is_some_and(|e| e.time() > limit) {
            return None;
        }
        heap.pop().map(|e| (e.time(), e.event))
    }
}

impl Lookahead {
    /// Schedules an event. It comes in its parts, which a call passes in registers: passed as
    /// an `Entry` through memory, it was read back before the stores ahead of it (often cache
    /// misses) had committed, a stall of 15% of a k = 32 fat tree's time.
    #[inline(never)]
    fn push(&mut self, key: u128, event: Event) {
        let entry = Entry { key, event };
        match self.ahead.back() {
            // Sooner than the window's last event: it joins the window in order, and the
            // window's last event, now one too many, goes back outside.
            Some(last) if key < last.key => {
                let at = self.ahead.partition_point(|e| e.key < key);
                self.ahead.insert(at, entry);
                if self.ahead.len() > self.window {
                    let last = self.ahead.pop_back().expect("the window is not empty");
                    self.push_outside(last);
                }
            }
            // The window holds every pending event and has room.
            _ if self.ahead.len() < self.window => self.ahead.push_back(entry),
            _ => self.push_outside(entry),
        }
    }

    /// Adds an event outside the window: a packet's to the calendar, a timer to its heap.
    #[inline(always)]
    fn push_outside(&mut self, entry: Entry) {
        if is_packet(entry.event) {
            self.calendar.push(entry);
        } else {
            self.timers.push(entry);
        }
    }

    /// Moves the earliest events outside the window into it until it is full.
    #[inline]
    fn fill(&mut self) {
        while self.ahead.len() < self.window {
            let timer = self.timers.peek().map(|e| e.key);
            let entry = match self.calendar.peek().map(|e| e.key) {
                Some(packet) if timer.is_none_or(|t| packet < t) => self.calendar.pop(),
                _ => self.timers.pop(),
            };
            let Some(entry) = entry else { return };
            self.ahead.push_back(entry);
        }
    }

    #[inline(never)]
    fn pop_until(&mut self, limit: Instant) -> Option<(Instant, Event)> {
        if self.ahead.front()?.time() > limit {
            return None;
        }
        let first = self.ahead.pop_front().expect("looked at");
        self.fill();
        Some((first.time(), first.event))
    }

    /// Keeps the timers for which `keep` is true (and every packet event), in their order.
    fn retain_timers(&mut self, mut keep: impl FnMut(&Entry) -> bool) {
        self.ahead.retain(|e| is_packet(e.event) || keep(e));
        self.timers.retain(&mut keep);
        self.fill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn purged_timers_leave_the_others_in_order() {
        // Without a window, and with one that holds some of the timers when they are purged.
        // Without a window (heaps), and with windows that hold some or all of the timers when
        // they are purged (the others in the calendar).
        for (window, calendar) in [(0, 0), (2, 1), (8, 1 << 20), (2, 1 << 40)] {
            let mut q = if window == 0 { EventQueue::default() } else { EventQueue::with_lookahead(window, calendar).expect("a megabyte") };
            q.push(Instant::from_ps(1), Event::Arrive(PortId(1)));
            for (t, flow) in [(9, 1), (3, 2), (3, 3), (7, 4), (3, 5)] {
                q.push(Instant::from_ps(t), Event::SenderTimer(FlowId(flow)));
            }
            q.push(Instant::from_ps(3), Event::Arrive(PortId(0)));
            assert_eq!(q.pop(), Some((Instant::from_ps(1), Event::Arrive(PortId(1)))));
            q.purge_timers(|_, e| e != Event::SenderTimer(FlowId(3)) && e != Event::SenderTimer(FlowId(4)));
            assert_eq!(q.timers_pending(), 3, "window {window}, calendar {calendar}");
            let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.as_ps(), e)).collect();
            let timer = |f| Event::SenderTimer(FlowId(f));
            assert_eq!(order, vec![(3, timer(2)), (3, timer(5)), (3, Event::Arrive(PortId(0))), (9, timer(1))], "window {window}, calendar {calendar}");
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
        /// window and a calendar, and the window shows the next events in that order.
        #[test]
        fn matches_a_reference_priority_queue(
            window in 0usize..5,
            // The calendar's span (without a window there is none).
            calendar in prop::sample::select(vec![1u64, 1 << 20, 1 << 40]),
            ops in prop::collection::vec((0u8..4, 0u64..(1 << 30), 0u32..8), 1..400),
        ) {
            let mut q = if window == 0 { EventQueue::default() } else { EventQueue::with_lookahead(window, calendar).expect("a megabyte") };
            let mut reference = std::collections::BTreeMap::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for (op, delay, port) in ops {
                if op == 0 {
                    prop_assert_eq!(q.peek(), reference.values().next().copied());
                    prop_assert_eq!(q.timers_pending(), reference.values().filter(|e| matches!(e, Event::SenderTimer(_))).count());
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
                    let event = if port % 3 == 0 { Event::SenderTimer(FlowId(port)) } else { Event::Arrive(PortId(port)) };
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
