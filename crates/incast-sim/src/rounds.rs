//! A run cut into parts (`crate::partition`), its events run in rounds: each part runs every
//! event of its own below the round's bound (the earliest pending event plus the lookahead, the
//! least delay of a link between two parts), in its own (time, sequence) order, and an event it
//! schedules in another part waits in its outbox until the round ends. The outboxes are then
//! emptied in the order of the parts' numbers, so an event's place among those of its time in
//! the part that receives it follows from the data (the time, the sending part, the order in
//! which that part scheduled it), never from the order the parts ran in (issue 41; the rules in
//! docs/notes/parallel-runs.md, "Step 2 worked out").
//!
//! One thread runs the parts one after the other for now; `order` is that order, which tests
//! shuffle: a run whose results change with it has a part reading what another wrote in the
//! same round, and would change with the threads that will run the parts.

use incast_proto::time::{Duration, Instant};

use crate::event::{Event, EventQueue};
use crate::partition::Partition;
use crate::topology::Topology;

/// Not a part: the coordinator's events (flow starts, samples), and the state between rounds.
pub(crate) const BARRIER: u32 = u32::MAX;

/// The parts' queues and outboxes.
pub(crate) struct Rounds {
    /// The part that sends on each port (where its serializer's events run).
    sends: Vec<u32>,
    /// The part at the far end of each port's link (where its arrivals run).
    receives: Vec<u32>,
    /// The part of each host.
    host: Vec<u32>,
    /// Each part's pending events.
    queues: Vec<EventQueue>,
    /// When each part's earliest pending event is due (`Instant::NEVER` if none), exact
    /// between rounds: a round runs only the parts with an event before its bound, and the
    /// next round's start is the least of these, not a search of every queue.
    heads: Vec<Instant>,
    /// Each part's events for other parts scheduled in this round, in the order it scheduled
    /// them: (time, part that runs it, event).
    outboxes: Vec<Vec<(Instant, u32, Event)>>,
    /// The part running now, or `BARRIER`. The running part's queue is the engine's own
    /// (`Engine::events`, swapped in by `enter`), so that one loop pops every event.
    pub(crate) current: u32,
    /// The least delay of a link between two parts.
    pub(crate) lookahead: Duration,
    /// The order the parts run in within a round (their numbers, unless a test shuffles it).
    pub(crate) order: Vec<u32>,
    /// Flows whose sender was done in this round, and when: they retire at the barrier.
    pub(crate) retiring: Vec<(crate::ids::FlowId, Instant)>,
    /// Flows that may have left the network in this round: released at the barrier if so.
    pub(crate) releases: Vec<crate::ids::FlowId>,
    /// The latest instant a flow ended at, so far.
    pub(crate) last_end: Instant,
    /// A port's processor's timer ran in this round: whether the run can still move is tested
    /// at the barrier (`Engine::stop_if_stalled`).
    pub(crate) stall_check_due: bool,
}

impl Rounds {
    /// The rounds of `topo` cut as `partition` says, which has more than one part.
    pub(crate) fn new(topo: &Topology, partition: &Partition) -> Rounds {
        let lookahead = partition.lookahead.expect("more than one part");
        let part = |node| partition.part_of(node);
        let parts = partition.parts as usize;
        Rounds {
            sends: topo.ports.iter().map(|p| part(p.node)).collect(),
            receives: topo.ports.iter().map(|p| part(p.peer)).collect(),
            host: topo.hosts.iter().map(|&h| part(h)).collect(),
            queues: (0..parts).map(|_| EventQueue::default()).collect(),
            heads: vec![Instant::NEVER; parts],
            outboxes: vec![Vec::new(); parts],
            current: BARRIER,
            lookahead,
            order: (0..partition.parts).collect(),
            retiring: Vec::new(),
            releases: Vec::new(),
            last_end: Instant::ZERO,
            stall_check_due: false,
        }
    }

    /// Whether port `port`'s link joins two parts (its packets then have an arrival event each:
    /// `Port::each_arrival`).
    #[inline]
    pub(crate) fn is_cut(&self, port: crate::ids::PortId) -> bool {
        self.sends[port.idx()] != self.receives[port.idx()]
    }

    /// The part of host `host`.
    #[inline]
    pub(crate) fn part_of_host(&self, host: u32) -> u32 {
        self.host[host as usize]
    }

    /// The part that runs `event`, a port's or a flow end's (whose host is `host`).
    #[inline]
    fn owner(&self, event: Event, host: impl FnOnce() -> u32) -> u32 {
        match event {
            Event::TxDone(p) | Event::ProcessorTimer(p) => self.sends[p.idx()],
            Event::Arrive(p) => self.receives[p.idx()],
            Event::SenderTimer(_) | Event::ReceiverTimer(_) => self.part_of_host(host()),
            Event::FlowStarts | Event::Sample => unreachable!("the coordinator's events are not a part's"),
        }
    }

    /// Schedules a port's or a flow end's `event` at `time`, from between rounds (into its
    /// part's queue) or from the running part for another (into the running part's outbox);
    /// the running part's own events go into the queue it runs (`Engine::schedule`). `host` is
    /// the host of a flow end's timer. Returns the event back if it is the running part's.
    #[inline]
    pub(crate) fn push(&mut self, time: Instant, event: Event, host: impl FnOnce() -> u32) -> Option<(Instant, Event)> {
        let owner = self.owner(event, host);
        if self.current == BARRIER {
            self.queues[owner as usize].push(time, event);
            self.heads[owner as usize] = self.heads[owner as usize].min(time);
        } else if owner == self.current {
            return Some((time, event));
        } else {
            self.outboxes[self.current as usize].push((time, owner, event));
        }
        None
    }

    /// Part `part` runs next: its queue for `running`, the one the engine ran (the
    /// coordinator's, between rounds), which goes back where it was at `leave`.
    pub(crate) fn enter(&mut self, part: u32, running: &mut EventQueue) {
        debug_assert_eq!(self.current, BARRIER);
        self.current = part;
        std::mem::swap(&mut self.queues[part as usize], running);
    }

    /// The running part is done with the round: its queue for `running` (the coordinator's).
    pub(crate) fn leave(&mut self, running: &mut EventQueue) {
        let part = self.current as usize;
        std::mem::swap(&mut self.queues[part], running);
        self.heads[part] = self.queues[part].peek_time().unwrap_or(Instant::NEVER);
        self.current = BARRIER;
    }

    /// Whether part `part` has an event due before `bound` (between rounds).
    #[inline]
    pub(crate) fn has_before(&self, part: u32, bound: Instant) -> bool {
        self.heads[part as usize] < bound
    }

    /// The earliest event pending in any part, if any.
    pub(crate) fn next_time(&self) -> Option<Instant> {
        self.heads.iter().copied().min().filter(|&t| t != Instant::NEVER)
    }

    /// Ends a round: each part's outbox, in the order of the parts' numbers, into the queues of
    /// the parts its events run in. Every event crossing to another part is due at or after the
    /// round's `bound` (a link between parts takes at least the lookahead).
    pub(crate) fn deliver_outboxes(&mut self, bound: Instant) {
        debug_assert_eq!(self.current, BARRIER);
        for from in 0..self.outboxes.len() {
            for (time, to, event) in self.outboxes[from].drain(..) {
                debug_assert!(time >= bound, "an event crossing parts at {time:?}, before the round's bound {bound:?}");
                self.queues[to as usize].push(time, event);
                self.heads[to as usize] = self.heads[to as usize].min(time);
            }
        }
    }

    /// Whether no part has an event pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.queues.iter().all(EventQueue::is_empty)
    }

    /// Drops the stale timers of every part (`EventQueue::purge_timers`).
    pub(crate) fn purge_timers(&mut self, mut live: impl FnMut(Instant, Event) -> bool) {
        for (queue, head) in self.queues.iter_mut().zip(&mut self.heads) {
            queue.purge_timers(&mut live);
            *head = queue.peek_time().unwrap_or(Instant::NEVER);
        }
    }

    /// Timer events pending in all parts.
    pub(crate) fn timers_pending(&self) -> usize {
        self.queues.iter().map(EventQueue::timers_pending).sum()
    }
}
