//! A run cut into parts (`crate::partition`), its events run in rounds: each part runs every
//! event of its own below the round's bound (the earliest pending event plus the lookahead, the
//! least delay of a link between two parts), and an event it schedules in another part is due
//! at or after that bound (a link between parts takes at least the lookahead). Every event is
//! ordered by (time, the part that scheduled it, that part's count of events scheduled so far):
//! each part numbers the events it schedules from `part << SEQ_BITS`. So an event's place among
//! those of its instant follows from the data, never from the order the parts ran in nor from
//! which engine ran them, nor from when it was queued (issue 41; the rules in
//! docs/notes/parallel-runs.md, "Step 2 worked out").
//!
//! An engine keeps the events of all its parts in its one queue (`Simulation::events`, with the
//! large network's lookahead window and calendar where the one loop would have them), and runs
//! a round's events in that queue's order, each in its part (`Rounds::part_of`, looked up when
//! the event runs): within a round the parts share nothing, so how their events interleave
//! changes nothing, and an event one part schedules for another is due at or after the round's
//! bound, so it waits in the same queue. Tests deal the parts to engines in many ways: a run
//! whose results change with the deal has a part reading what another wrote in the same round.
//!
//! A run on several threads (`crate::sim::crew`) has an engine per thread, each running only
//! the parts it `owns`. An event for another engine's part (an arrival over a link between
//! them) is a `Message` carrying its packet, left at the `Post` when the round ends and queued
//! by that engine when the next begins.

use incast_proto::time::{Duration, Instant};

use std::sync::Mutex;

use crate::event::{Event, EventQueue};
use crate::ids::PortId;
use crate::packet::Packet;
use crate::partition::Partition;
use crate::topology::Topology;
use crate::transport::Header;

/// Not a part: the coordinator's events (samples), and the state between rounds.
pub(crate) const BARRIER: u32 = u32::MAX;

/// The parts' numbering of events, and the messages this engine sends to others' parts.
pub(crate) struct Rounds {
    /// The part that sends on each port (where its serializer's events run).
    sends: Vec<u32>,
    /// The part at the far end of each port's link (where its arrivals run).
    receives: Vec<u32>,
    /// The part of each host.
    host: Vec<u32>,
    /// The number of the next event each part schedules (from `part << SEQ_BITS`), counted by
    /// the engine that runs the part.
    seqs: Vec<u64>,
    /// The coordinator's events (samples, the first engine's only), run between rounds from
    /// the engine's place for its queue (`Simulation::events`).
    pub(crate) coordinator: EventQueue,
    /// This round's messages for each engine's parts.
    sent: Vec<Mail>,
    /// When the earliest message sent in the last round is due (`Instant::NEVER` if none): the
    /// next round starts no later.
    pub(crate) sent_min: Instant,
    /// This engine's number.
    engine: u32,
    /// The engine that runs each part (all 0 unless the run has an engine per thread).
    engine_of: Vec<u32>,
    /// The part of the event running now (`part_of` it, looked up as it runs), or `BARRIER`.
    pub(crate) current: u32,
    /// The least delay of a link between two parts.
    pub(crate) lookahead: Duration,
    /// Flows whose sender was done in this round, and when: they retire at the barrier.
    pub(crate) retiring: Vec<(crate::ids::FlowId, Instant)>,
    /// Flows that may have left the network in this round: released at the barrier if so.
    pub(crate) releases: Vec<crate::ids::FlowId>,
    /// Flows whose receiver got every byte in this round, and when: the other engines of a run
    /// on several threads count them ended at the barrier.
    pub(crate) ended: Vec<(crate::ids::FlowId, Instant)>,
    /// Flows whose sender started in this round, and when: the other engines count them
    /// started at the barrier.
    pub(crate) started: Vec<(crate::ids::FlowId, Instant)>,
    /// Flow starts queued in this engine's parts and not run yet (`Event::SenderStarts`).
    pub(crate) starts_pending: u64,
    /// Flows of closed-loop flow-burst workloads that ended since the last barrier, when, and
    /// their workload: the next rounds are drawn at the barrier (`Simulation::draw_bursts`).
    pub(crate) burst_ends: Vec<(Instant, crate::ids::FlowId, u32)>,
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
            seqs: (0..parts as u64).map(|p| p << SEQ_BITS).collect(),
            coordinator: EventQueue::default(),
            sent: vec![Mail::default()],
            sent_min: Instant::NEVER,
            engine: 0,
            engine_of: vec![0; parts],
            current: BARRIER,
            lookahead,
            retiring: Vec::new(),
            releases: Vec::new(),
            ended: Vec::new(),
            started: Vec::new(),
            starts_pending: 0,
            burst_ends: Vec::new(),
            last_end: Instant::ZERO,
            stall_check_due: false,
        }
    }

    /// This engine runs only the parts `engine_of` gives `engine` (a run on several threads).
    pub(crate) fn own_only(&mut self, engine_of: Vec<u32>, engine: u32) {
        debug_assert_eq!(engine_of.len(), self.seqs.len(), "an engine for every part");
        self.engine_of = engine_of;
        self.engine = engine;
        self.sent = (0..self.engines()).map(|_| Mail::default()).collect();
    }

    /// This engine's number.
    pub(crate) fn engine(&self) -> u32 {
        self.engine
    }

    /// The parts the network is cut into.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> u32 {
        self.seqs.len() as u32
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

    /// The engines that hold the sender and the receiver of a flow from host `src` to host
    /// `dst` (the engines of their hosts' parts).
    pub(crate) fn engines_of_ends(&self, src: u32, dst: u32) -> (usize, usize) {
        (self.engine_of_host(src) as usize, self.engine_of_host(dst) as usize)
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
        self.engine_of_host(host) == self.engine
    }

    /// The part that sends on port `port`.
    #[inline]
    pub(crate) fn sender_part(&self, port: PortId) -> u32 {
        self.sends[port.idx()]
    }

    /// The part at the far end of port `port`'s link (where its arrivals run).
    #[inline]
    pub(crate) fn receiver_part(&self, port: PortId) -> u32 {
        self.receives[port.idx()]
    }

    /// Whether port `port`'s link joins two parts (its packets then have an arrival event each:
    /// `Port::each_arrival`).
    #[inline]
    pub(crate) fn is_cut(&self, port: PortId) -> bool {
        self.sends[port.idx()] != self.receives[port.idx()]
    }

    /// The part of host `host`.
    #[inline]
    pub(crate) fn part_of_host(&self, host: u32) -> u32 {
        self.host[host as usize]
    }

    /// The part that runs `event`: a port's, or a flow end's whose host `host` gives (`None`:
    /// its flow has left the table, and the event, stale, does nothing); `BARRIER` for the
    /// coordinator's events and a left flow's.
    #[inline]
    pub(crate) fn part_of(&self, event: Event, host: impl FnOnce() -> Option<u32>) -> u32 {
        match event {
            Event::TxDone(p) | Event::ProcessorTimer(p) => self.sends[p.idx()],
            Event::Arrive(p) => self.receives[p.idx()],
            Event::SenderTimer(_) | Event::ReceiverTimer(_) | Event::SenderStarts(_) | Event::ReceiverStarts(_) => {
                host().map_or(BARRIER, |h| self.part_of_host(h))
            }
            Event::FlowStarts | Event::Sample => BARRIER,
        }
    }

    /// Schedules a port's or a flow end's `event` at `time` in `queue`, the engine's, for the
    /// part that runs it, numbered as the running part's (between rounds, as that part's own).
    /// Returns `Away` for an arrival in another engine's part (the caller sends it with its
    /// packet), with its number. `host` is the host of a flow end's event; `far_end` the part
    /// at the far end of a port's link and whether another engine runs it (read from the port,
    /// `Port::receive_part`).
    #[inline]
    pub(crate) fn push(
        &mut self,
        time: Instant,
        event: Event,
        host: impl FnOnce() -> Option<u32>,
        far_end: impl FnOnce(PortId) -> (u32, bool),
        queue: &mut EventQueue,
    ) -> Pushed {
        if self.current != BARRIER {
            // In a round only an arrival can be another part's: a port's serializer and
            // processor and a flow end schedule their own events, in their own part.
            let seq = self.take_seq(self.current);
            match event {
                Event::Arrive(p) => {
                    let (owner, away) = far_end(p);
                    debug_assert_eq!((owner, away), (self.receives[p.idx()], self.engine_of(self.receives[p.idx()]) != self.engine));
                    if away {
                        return Pushed::Away { part: owner, seq };
                    }
                }
                _ => debug_assert_eq!(self.part_of(event, host), self.current, "{event:?} scheduled in another part"),
            }
            queue.push_numbered(time, seq, event);
            return Pushed::Held;
        }
        // Between rounds only ports' processors' first timers (at the start) are scheduled
        // here: flows start within their parts (`Event::SenderStarts`), so no packet is sent
        // between rounds, let alone over a link between two parts.
        let owner = self.part_of(event, host);
        assert_ne!(owner, BARRIER, "{event:?} is a part's, of a flow in the table");
        assert!(!matches!(event, Event::Arrive(p) if self.sends[p.idx()] != owner), "{event:?} over a link between parts, scheduled between rounds");
        if self.engine_of[owner as usize] != self.engine {
            // Another engine's part: a port's processor's first timer, which that engine
            // schedules in its own copy of the port.
            debug_assert!(matches!(event, Event::ProcessorTimer(_)), "{event:?} for part {owner}, which this engine does not run");
            return Pushed::Held;
        }
        self.queue(owner, time, event, queue);
        Pushed::Held
    }

    /// The next number of the events part `part` schedules.
    #[inline]
    fn take_seq(&mut self, part: u32) -> u64 {
        let seq = &mut self.seqs[part as usize];
        *seq += 1;
        *seq - 1
    }

    /// Sends `message` with its packet from the running part to another engine's part (to be
    /// queued at the start of the next round).
    #[inline]
    pub(crate) fn send(&mut self, mut message: Message, packet: Packet, header: Option<Header>) {
        self.sent_min = self.sent_min.min(message.time);
        let mail = &mut self.sent[self.engine_of[message.to as usize] as usize];
        message.parcel = mail.packets.len() as u32;
        let header_at = header.map_or(NO_HEADER, |h| {
            mail.headers.push(h);
            mail.headers.len() as u32 - 1
        });
        mail.packets.push((packet, header_at));
        mail.messages.push(message);
    }

    /// Leaves the messages of round `number` at `post`.
    pub(crate) fn leave_at(&mut self, post: &Post, number: u64) {
        post.leave(number, self.engine as usize, &mut self.sent);
    }

    /// Queues `event` at `time` for part `part` of this engine in `queue`, the engine's,
    /// between rounds, numbered as the part's own.
    pub(crate) fn queue(&mut self, part: u32, time: Instant, event: Event, queue: &mut EventQueue) {
        debug_assert_eq!(self.engine_of(part), self.engine, "a part of this engine");
        let seq = self.take_seq(part);
        queue.push_numbered(time, seq, event);
    }
}

/// Where `Rounds::push` put an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// In the engine's queue, or dropped (another engine's processor timer, between rounds).
    Held,
    /// An arrival in part `part` of another engine, numbered `seq`: the caller sends it with
    /// its packet.
    Away { part: u32, seq: u64 },
}

/// Bits of an event's sequence number that count a part's events; those above say which part
/// scheduled it. 2^40 events scheduled by one part is days of a core's time.
pub(crate) const SEQ_BITS: u32 = 40;

/// The most parts a run can be cut into (`SEQ_BITS` leave 24 bits for the part).
pub(crate) const MAX_PARTS: u32 = 1 << (64 - SEQ_BITS);

/// An arrival in another engine's part, scheduled in a round.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message {
    pub(crate) time: Instant,
    /// Its number in the order of events (`Rounds::take_seq` of the part that sent it).
    pub(crate) seq: u64,
    /// The part that runs it.
    pub(crate) to: u32,
    pub(crate) event: Event,
    /// Where the arriving packet is in its `Mail`.
    parcel: u32,
}

impl Message {
    /// `event` at `time`, numbered `seq`, for part `to`.
    pub(crate) fn new(time: Instant, seq: u64, to: u32, event: Event) -> Message {
        Message { time, seq, to, event, parcel: 0 }
    }
}

/// No header (`Mail::packets`).
const NO_HEADER: u32 = u32::MAX;

/// One engine's messages of a round for one engine, with the packets that travel with them
/// and their headers apart (a header is larger than the rest, and most packets have none).
#[derive(Default)]
pub(crate) struct Mail {
    messages: Vec<Message>,
    /// Packets with where their header is in `headers` (`NO_HEADER`: none).
    packets: Vec<(Packet, u32)>,
    headers: Vec<Header>,
}

impl Mail {
    fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    fn clear(&mut self) {
        self.messages.clear();
        self.packets.clear();
        self.headers.clear();
    }

    /// The packet and header `message` carries.
    fn parcel(&self, message: &Message) -> (Packet, Option<Header>) {
        let (packet, header) = self.packets[message.parcel as usize];
        (packet, self.headers.get(header as usize).copied())
    }
}

/// The messages between engines: each engine leaves a round's messages for each other engine
/// in a slot, taken at the start of the next round. Slots alternate between rounds, so that an
/// engine that has finished a round may leave its messages while another is still taking the
/// last round's.
pub(crate) struct Post {
    engines: usize,
    /// By (round's parity, sending engine, receiving engine).
    slots: Vec<Mutex<Mail>>,
}

impl Post {
    /// The post of `engines` engines.
    pub(crate) fn new(engines: usize) -> Post {
        Post { engines, slots: (0..2 * engines * engines).map(|_| Mutex::new(Mail::default())).collect() }
    }

    fn slot(&self, number: u64, from: usize, to: usize) -> &Mutex<Mail> {
        &self.slots[((number % 2) as usize * self.engines + from) * self.engines + to]
    }

    /// Engine `from` leaves the messages of its round `number`; the slots' emptied mail comes
    /// back to it for the next round.
    pub(crate) fn leave(&self, number: u64, from: usize, sent: &mut [Mail]) {
        for (to, mail) in sent.iter_mut().enumerate().filter(|&(to, _)| to != from) {
            let mut slot = self.slot(number, from, to).lock().expect("a slot's lock");
            debug_assert!(slot.is_empty(), "the messages of round {} were not taken", number.wrapping_sub(2));
            std::mem::swap(&mut *slot, mail);
        }
    }

    /// Engine `to` takes the messages of round `number` from every other engine, calling
    /// `take` on each with its packet (in any order: each carries its place among the events
    /// of its instant).
    pub(crate) fn take(&self, number: u64, to: usize, mut take: impl FnMut(&Message, Packet, Option<Header>)) {
        for from in (0..self.engines).filter(|&from| from != to) {
            let mut mail = self.slot(number, from, to).lock().expect("a slot's lock");
            for message in &mail.messages {
                let (packet, header) = mail.parcel(message);
                take(message, packet, header);
            }
            mail.clear();
        }
    }
}
