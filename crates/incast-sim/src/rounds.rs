//! A run cut into parts (`crate::partition`), its events run in rounds: each part runs every
//! event of its own below the round's bound (the earliest pending event plus the lookahead, the
//! least delay of a link between two parts), in its own (time, sequence) order, and an event it
//! schedules in another part waits in its outbox until the round ends. The outboxes are then
//! emptied in the order of the parts' numbers, so an event's place among those of its time in
//! the part that receives it follows from the data (the time, the sending part, the order in
//! which that part scheduled it), never from the order the parts ran in (issue 41; the rules in
//! docs/notes/parallel-runs.md, "Step 2 worked out").
//!
//! One engine runs its parts one after the other; `order` is that order, which tests shuffle: a
//! run whose results change with it has a part reading what another wrote in the same round.
//! A run on several threads (`crate::sim::crew`) has an engine per thread, each with a copy of
//! these queues of which it runs only the parts it `owns`; its outboxes are emptied in the same
//! order of parts, whichever engine holds them, so results do not depend on the thread count.

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
    /// them: (time, part that runs it, event). Only arrivals at the far end of a link between
    /// two parts cross: between rounds too (a flow's start sends its first packets), so that
    /// their order in the receiving part is that of the outboxes whichever engine runs it.
    outboxes: Vec<Vec<(Instant, u32, Event)>>,
    /// The parts this engine runs (all of them, unless the run has an engine per thread).
    owned: Vec<bool>,
    /// The engine that runs each part (all 0 unless the run has an engine per thread).
    engine_of: Vec<u32>,
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
    /// Flows whose receiver got every byte in this round, and when: the other engines of a run
    /// on several threads count them ended at the barrier.
    pub(crate) ended: Vec<(crate::ids::FlowId, Instant)>,
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
            owned: vec![true; parts],
            engine_of: vec![0; parts],
            current: BARRIER,
            lookahead,
            order: (0..partition.parts).collect(),
            retiring: Vec::new(),
            releases: Vec::new(),
            ended: Vec::new(),
            last_end: Instant::ZERO,
            stall_check_due: false,
        }
    }

    /// This engine runs only the parts `engine_of` gives `engine` (a run on several threads).
    pub(crate) fn own_only(&mut self, engine_of: Vec<u32>, engine: u32) {
        self.owned = engine_of.iter().map(|&e| e == engine).collect();
        self.order = (0..engine_of.len() as u32).filter(|&p| self.owned[p as usize]).collect();
        self.engine_of = engine_of;
    }

    /// The engines the parts are run by.
    pub(crate) fn engines(&self) -> u32 {
        self.engine_of.iter().max().map_or(1, |&e| e + 1)
    }

    /// The engine that runs part `part`.
    #[inline]
    pub(crate) fn engine_of(&self, part: u32) -> u32 {
        self.engine_of[part as usize]
    }

    /// The engine that runs the part of host `host`.
    #[inline]
    pub(crate) fn engine_of_host(&self, host: u32) -> u32 {
        self.engine_of[self.part_of_host(host) as usize]
    }

    /// Which of a flow's ends, from host `src` to host `dst`, the engine acts on now: between
    /// rounds those it holds, in a round those of the running part (an end never polls the
    /// other's state, which lives in another part).
    #[inline]
    pub(crate) fn ends_here(&self, src: u32, dst: u32) -> (bool, bool) {
        if self.current == BARRIER {
            (self.owns_host(src), self.owns_host(dst))
        } else {
            (self.part_of_host(src) == self.current, self.part_of_host(dst) == self.current)
        }
    }

    /// Whether this engine runs the part of host `host`.
    #[inline]
    pub(crate) fn owns_host(&self, host: u32) -> bool {
        self.owned[self.part_of_host(host) as usize]
    }

    /// The part that sends on port `port`.
    #[inline]
    pub(crate) fn sender_part(&self, port: crate::ids::PortId) -> u32 {
        self.sends[port.idx()]
    }

    /// The parts of the run.
    pub(crate) fn parts(&self) -> usize {
        self.queues.len()
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
    /// part's queue, or an arrival over a link between parts into the sending part's outbox) or
    /// from the running part for another (into the running part's outbox); the running part's
    /// own events go into the queue it runs (`Engine::schedule`). `host` is the host of a flow
    /// end's timer. Returns the event back if it is the running part's.
    #[inline]
    pub(crate) fn push(&mut self, time: Instant, event: Event, host: impl FnOnce() -> u32) -> Option<(Instant, Event)> {
        let owner = self.owner(event, host);
        if self.current == BARRIER {
            if let Event::Arrive(p) = event {
                let from = self.sends[p.idx()];
                if from != owner {
                    self.outboxes[from as usize].push((time, owner, event));
                    return None;
                }
            }
            if self.owned[owner as usize] {
                self.deliver(owner, time, event);
            } else {
                // Another engine's part: a port's processor's first timer, which that engine
                // schedules in its own copy of the port.
                debug_assert!(matches!(event, Event::ProcessorTimer(_)), "{event:?} for part {owner}, which this engine does not run");
            }
        } else if owner == self.current {
            return Some((time, event));
        } else {
            self.outboxes[self.current as usize].push((time, owner, event));
        }
        None
    }

    /// Puts `event` at `time` into part `part`'s queue (between rounds).
    #[inline]
    pub(crate) fn deliver(&mut self, part: u32, time: Instant, event: Event) {
        self.queues[part as usize].push(time, event);
        self.heads[part as usize] = self.heads[part as usize].min(time);
    }

    /// Part `part`'s outbox, to empty between rounds (`take_outbox`, then `give_back`).
    pub(crate) fn take_outbox(&mut self, part: u32) -> Vec<(Instant, u32, Event)> {
        std::mem::take(&mut self.outboxes[part as usize])
    }

    /// Part `part`'s emptied outbox back, its memory kept for the next round.
    pub(crate) fn give_back(&mut self, part: u32, outbox: Vec<(Instant, u32, Event)>) {
        debug_assert!(outbox.is_empty() && self.outboxes[part as usize].is_empty());
        self.outboxes[part as usize] = outbox;
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

    /// The earliest event pending in any part this engine runs, if any.
    pub(crate) fn next_time(&self) -> Option<Instant> {
        self.heads.iter().copied().min().filter(|&t| t != Instant::NEVER)
    }

    /// Whether no part this engine runs has an event pending.
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
