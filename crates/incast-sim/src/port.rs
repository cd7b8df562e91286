//! An egress port: strict-priority FIFO queues under a buffer limit (drop-tail per port, or a
//! shared switch buffer with dynamic thresholds), ECN marking on arrival, a serializer and the link
//! it drives, with the packets in flight kept in the port's own FIFO (a link delivers in order).
//!
//! A packet leaves the buffer when its serialization starts (as a NIC takes it off the queue), so
//! the queue, its limit and K count waiting packets. A packet that finds the port idle goes
//! straight onto the wire: the port needs a "serializer free" event only while packets wait, which
//! halves the events of uncongested hops.

use std::collections::VecDeque;

use incast_proto::time::{Duration, Instant};

use crate::error::ResourceError;
use crate::ids::PacketId;
use crate::topology::PortInfo;
use crate::transport::{Arriving, Discipline, Header, Joined, PortView, Processor};

/// How much a port may queue.
#[derive(Debug)]
pub(crate) enum BufferLimit {
    /// Host NICs: the transport's window bounds the queue.
    Unlimited,
    /// Fixed per-port limit in bytes.
    DropTail(u64),
    /// Fixed per-port limit in packets, whatever their size (ns-3's queue discs in packet
    /// mode).
    DropTailPackets(u64),
    /// A transport's own discipline (pFabric's rank queue): it holds the waiting packets and
    /// decides which joins, which leaves and which is dropped, under its own limit; the port
    /// keeps the accounting. It lives in the limit, which admission reads anyway, so FIFO ports
    /// pay no load and no byte of port to tell.
    Plugged(Box<Discipline>),
    /// A share of the switch's pool: admit while queue + packet <= alpha x (free pool bytes)
    /// (Choudhury and Hahne's dynamic threshold).
    Shared {
        /// Index of the switch's pool.
        pool: u32,
        /// Threshold factor.
        alpha: f64,
    },
}

/// A switch's shared buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SharedPool {
    pub(crate) capacity: u64,
    pub(crate) used: u64,
}

impl SharedPool {
    /// Whether a port with `waiting` bytes queued and threshold factor `alpha` may queue a
    /// packet of `size` bytes: the pool has room for it, and the port's queue with it stays
    /// within alpha x the free bytes (Choudhury and Hahne's dynamic threshold).
    #[inline]
    fn admits(&self, waiting: u64, size: u64, alpha: f64) -> bool {
        let free = self.capacity - self.used;
        size <= free && (waiting + size) as f64 <= alpha * free as f64
    }
}

/// Outcome of offering a packet to a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Queued; `marked` if it was CE-marked on the way in.
    Queued {
        /// Whether the packet was marked.
        marked: bool,
    },
    /// Queued by a port whose discipline dropped a waiting packet to make room (pFabric's, a
    /// less urgent one): the driver releases it.
    QueuedEvicting {
        /// The packet dropped from the queue.
        victim: PacketId,
    },
    /// Queued by a port whose discipline cut `packet` (the arrival, or one waiting) to its
    /// headers (NDP's trimming), `cut` bytes of payload: the driver drops them from the packet.
    Trimmed {
        /// The packet trimmed.
        packet: PacketId,
        /// Payload bytes it lost.
        cut: u32,
    },
    /// Queued, or not if `packet` is the arrival, by a port whose discipline returned `packet`
    /// toward its sender (NDP's return-to-sender), `cut` bytes of payload lighter: the driver
    /// trims it and turns it around.
    Returned {
        /// The packet returned.
        packet: PacketId,
        /// Payload bytes it lost.
        cut: u32,
        /// Whether it is the arrival (which then did not join).
        arrival: bool,
    },
    /// No room: dropped.
    Dropped,
}

/// When a port marks ECN-capable packets: on arrival, when the waiting queue already exceeds a
/// number of bytes or of packets (DCTCP Section 3.1's K).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EcnThreshold {
    /// Mark above this many queued bytes (`u64::MAX`: never).
    pub(crate) bytes: u64,
    /// Mark above this many queued packets (`u64::MAX`: never).
    pub(crate) packets: u64,
}

impl EcnThreshold {
    /// No marking.
    pub(crate) const NEVER: EcnThreshold = EcnThreshold { bytes: u64::MAX, packets: u64::MAX };
}

/// One egress port and its link.
pub(crate) struct Port {
    pub(crate) info: PortInfo,
    classes: Vec<VecDeque<PacketId>>,
    queued_bytes: u64,
    /// Packets waiting (not yet serializing), for packet-counted limits and thresholds.
    queued_packets: u64,
    limit: BufferLimit,
    /// `limit` as the two bounds `offer` tests for every port but those whose limit is a
    /// discipline's or a shared pool's (`special_limit`): admit while the waiting bytes with the
    /// packet's are at most `max_bytes` and the waiting packets fewer than `max_packets`
    /// (`u64::MAX` where the limit does not count that), with no branch on the kind of limit, a
    /// branch that ports of several kinds took in turn and mispredicted (issue 41).
    max_bytes: u64,
    max_packets: u64,
    /// `limit` is `Plugged` or `Shared`: `max_bytes` and `max_packets` do not apply.
    special_limit: bool,
    /// Every packet put on the wire asks for an arrival event of its own (`start_sending`),
    /// rather than the first on an empty wire only and each arrival the next: the port's link
    /// joins two parts of a run cut into parts (`crate::rounds`), where the sending part must
    /// decide all of its arrivals.
    pub(crate) each_arrival: bool,
    /// In a run cut into parts (`crate::rounds`): the part that sends on this port, the part
    /// at its link's far end, and whether another engine runs that far part. Kept here, where
    /// an event of the port finds them in lines it reads anyway, rather than only in tables by
    /// port, whose lines were cache misses on large networks: on a 2-thread k = 32 fat tree
    /// the two lookups' functions (`enter_part_of`, `schedule_in_parts`) held 8.2% of the
    /// samples with the tables and 5.2% with these (perf, 2026-11-29). 0, 0 and false in the
    /// one loop; the port is 288 bytes with them, as before (`ps_per_byte` gave up its
    /// `Option`).
    pub(crate) send_part: u32,
    pub(crate) receive_part: u32,
    pub(crate) receive_away: bool,
    ecn: EcnThreshold,
    /// Serialization time per byte when the rate divides 8 x 10^12 evenly (every round rate), so
    /// the hot path multiplies instead of dividing; 0 when it does not (a plain `u64` rather
    /// than an `Option`, which took 16 bytes of the port).
    ps_per_byte: u64,
    /// When the serializer finishes the packet it is sending.
    busy_until: Instant,
    /// When the port's "serializer free" event is due (`Instant::NEVER`: none is): the
    /// serializer's end, or, at a port whose discipline holds packets back (a pacer), when they
    /// may go. An earlier wake supersedes a later one, which then finds the port not expecting
    /// it.
    wake_at: Instant,
    /// Packets on the wire, with their arrival times at the far end (FIFO: constant delay).
    pipe: VecDeque<(Instant, PacketId)>,
    pub(crate) bytes_sent: u64,
    pub(crate) max_queue_bytes: u64,
    /// What the port did over the run, for the ports table (`results::PortRecord`).
    pub(crate) counters: PortCounters,
    /// What the port runs for its transport's packets (D3's allocator, PDQ's scheduler), if
    /// anything.
    pub(crate) processor: Option<Box<Processor>>,
    /// Whether `[output] offer_log_ports` logs this port's offers (`offer_log`): a flag the
    /// driver reads beside the port's other state, so that an unlogged port costs one test.
    pub(crate) offers_logged: bool,
}

/// A port's counters beyond the bytes it sent and its largest queue: plain fields updated where
/// the port already works on a packet, so that keeping them costs a few adds per packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PortCounters {
    /// Packets the port put on its link.
    pub(crate) packets_sent: u64,
    /// Packets it refused for lack of room.
    pub(crate) drops: u64,
    /// Data packets it marked CE on arrival and queued.
    pub(crate) ecn_marks: u64,
    /// ECN-capable packets that arrived above the marking threshold and found no room: ns-3's
    /// RED marks such a packet, then its full queue drops it (marked, then dropped).
    pub(crate) ecn_marks_dropped: u64,
    /// Packets without payload (SYNs, pure ACKs) it marked CE on arrival and queued.
    pub(crate) ecn_marks_control: u64,
    /// Packets already CE-marked by an earlier queue that arrived above the threshold and were
    /// queued: left as they are here, marked and counted again by ns-3's RED.
    pub(crate) ecn_remarks: u64,
    /// Size x time, in byte-picoseconds, summed over the packets that entered the queue (at
    /// their arrival) and over those that left it (at the start of their service). A packet that
    /// waited from t1 to t2 adds size x (t2 - t1) to the difference, so the difference plus the
    /// bytes still waiting times the end of the run is the queue integrated over the run: the
    /// time-averaged queue at the cost of one multiply-add per packet in and out, exact in u128
    /// (10^9 packets of 10^5 B at 10^4 s is 10^30 of its 3.4 x 10^38).
    entered: u128,
    left: u128,
}

impl PortCounters {
    #[inline]
    fn weigh(bytes: u64, at: Instant) -> u128 {
        u128::from(bytes) * u128::from(at.as_ps())
    }

    /// The time-averaged waiting bytes from the start of the run to `end`, given the bytes still
    /// waiting then.
    pub(crate) fn mean_queue_bytes(&self, end: Instant, queued_bytes: u64) -> f64 {
        let area = self.left + Self::weigh(queued_bytes, end) - self.entered;
        if end.as_ps() == 0 { 0.0 } else { area as f64 / end.as_ps() as f64 }
    }
}

impl Port {
    /// Starts loading what an arrival at the far end of this port's link reads first: the
    /// packets on the wire.
    #[inline]
    pub(crate) fn prefetch_arrival(&self) {
        crate::prefetch::line(&self.pipe);
    }

    /// The packet at the far end of the wire, if any (what the next arrival delivers).
    #[inline]
    pub(crate) fn next_arrival(&self) -> Option<PacketId> {
        self.pipe.front().map(|&(_, id)| id)
    }

    /// Starts loading what a free serializer reads first: its state and its queues.
    #[inline]
    pub(crate) fn prefetch_service(&self) {
        crate::prefetch::line(&self.busy_until);
        crate::prefetch::line(&self.classes);
    }

    // Cache hints for the driver's lookahead (`Simulation::prefetch_ahead`). Each starts loading
    // one link of the chain of reads an event will make, given that the previous link is loaded:
    // a port's line holds its queues' and its wire's headers, which point into buffers of their
    // own. None reads beyond the port's own fields.

    /// Starts loading every line of the port: an arriving packet's offer reads most of them.
    #[inline]
    pub(crate) fn prefetch_whole(&self) {
        crate::prefetch::lines(self);
    }

    /// Starts loading the entry at the far end of the wire (the next arrival's packet number).
    #[inline]
    pub(crate) fn prefetch_wire_head(&self) {
        if let Some(head) = self.pipe.front() {
            crate::prefetch::line(head);
        }
    }

    /// Starts loading the end of the wire, where a packet put on it goes.
    #[inline]
    pub(crate) fn prefetch_wire_tail(&self) {
        if let Some(tail) = self.pipe.back() {
            crate::prefetch::line(tail);
        }
    }

    /// Starts loading the header of the queue a packet of `priority` joins.
    #[inline]
    pub(crate) fn prefetch_queue(&self, priority: u8) {
        crate::prefetch::line(&self.classes[self.class_of(priority)]);
    }

    /// Starts loading the head of the most urgent queue (what a free serializer takes next).
    #[inline]
    pub(crate) fn prefetch_queue_head(&self) {
        if let Some(head) = self.classes[0].front() {
            crate::prefetch::line(head);
        }
    }

    /// The queue a packet of `priority` joins: its class, or the least urgent one the port has.
    #[inline]
    fn class_of(&self, priority: u8) -> usize {
        (priority as usize).min(self.classes.len() - 1)
    }

    /// The packet at the head of the most urgent queue, if any (what a free serializer takes
    /// next, unless the port has its own discipline or the most urgent class is empty).
    #[inline]
    pub(crate) fn next_to_serve(&self) -> Option<PacketId> {
        self.classes[0].front().copied()
    }

    /// A port of `classes` strict-priority queues (at least one). Fails if the queues' table
    /// cannot be had: a network builds one per port, millions on a large one.
    pub(crate) fn new(info: PortInfo, limit: BufferLimit, ecn: EcnThreshold, classes: u8) -> Result<Port, ResourceError> {
        let count = usize::from(classes.max(1));
        let mut queues = Vec::new();
        // Exact, as many queues as classes (an amortized reservation would hold four).
        queues.try_reserve_exact(count).map_err(|_| ResourceError::allocation::<VecDeque<PacketId>>("the ports' queues", count))?;
        queues.resize(count, VecDeque::new());
        let (max_bytes, max_packets, special_limit) = match limit {
            BufferLimit::Unlimited => (u64::MAX, u64::MAX, false),
            BufferLimit::DropTail(bytes) => (bytes, u64::MAX, false),
            BufferLimit::DropTailPackets(packets) => (u64::MAX, packets, false),
            BufferLimit::Plugged(_) | BufferLimit::Shared { .. } => (u64::MAX, u64::MAX, true),
        };
        Ok(Port {
            info,
            classes: queues,
            queued_bytes: 0,
            queued_packets: 0,
            limit,
            max_bytes,
            max_packets,
            special_limit,
            each_arrival: false,
            send_part: 0,
            receive_part: 0,
            receive_away: false,
            ecn,
            ps_per_byte: {
                let ps_per_bit_second = 8 * 1_000_000_000_000u64;
                let rate = info.link.rate.0;
                if rate > 0 && ps_per_bit_second.is_multiple_of(rate) { ps_per_bit_second / rate } else { 0 }
            },
            busy_until: Instant::ZERO,
            wake_at: Instant::NEVER,
            pipe: VecDeque::new(),
            bytes_sent: 0,
            max_queue_bytes: 0,
            counters: PortCounters::default(),
            processor: None,
            offers_logged: false,
        })
    }

    /// A port that queues by a transport's `discipline` (pFabric's): it never marks ECN, and
    /// its strict-priority class stays empty.
    pub(crate) fn plugged(info: PortInfo, discipline: Discipline) -> Result<Port, ResourceError> {
        Port::new(info, BufferLimit::Plugged(Box::new(discipline)), EcnThreshold::NEVER, 1)
    }

    pub(crate) fn view(&self) -> PortView {
        PortView { rate: self.info.link.rate, queue_bytes: self.queued_bytes, bytes_sent: self.bytes_sent }
    }

    pub(crate) fn queue_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Offers a packet at `now`; on success it is queued (or taken into service if the port is
    /// idle). An ECN-capable packet over the threshold is marked CE (`Admission::Queued`'s
    /// `marked`: the caller sets its bit). `header` gives the packet's transport header, which
    /// only a port with a discipline of its own reads.
    /// Inlined into the event loop explicitly: left to the partitioning of codegen units, it was
    /// inlined or not depending on unrelated code in the crate (5% of instructions either way).
    #[inline]
    pub(crate) fn offer<'h>(
        &mut self,
        now: Instant,
        packet: Arriving,
        pools: &mut [SharedPool],
        header: impl FnOnce() -> Option<&'h Header>,
    ) -> Admission {
        let Arriving { id, wire_bytes, priority, ect, ce, payload, .. } = packet;
        let size = u64::from(wire_bytes);
        let fits = if self.special_limit {
            match self.limit {
                BufferLimit::Plugged(_) => return self.offer_plugged(now, packet, header()),
                BufferLimit::Shared { pool, alpha } => pools[pool as usize].admits(self.queued_bytes, size, alpha),
                _ => unreachable!("special limits are a discipline's or a pool's"),
            }
        } else {
            (self.queued_bytes + size <= self.max_bytes) & (self.queued_packets < self.max_packets)
        };
        // DCTCP Section 3.1: mark on arrival when the instantaneous queue exceeds K. Whether it
        // does follows the queue, packet by packet: worked out without branches, which the
        // predictor missed (issue 41).
        let above = ect & ((self.queued_bytes > self.ecn.bytes) | (self.queued_packets > self.ecn.packets));
        if !fits {
            self.counters.drops += 1;
            self.counters.ecn_marks_dropped += u64::from(above);
            return Admission::Dropped;
        }
        let marked = above & !ce;
        self.counters.ecn_marks += u64::from(marked & payload);
        self.counters.ecn_marks_control += u64::from(marked & !payload);
        self.counters.ecn_remarks += u64::from(above & ce);
        self.counters.entered += PortCounters::weigh(size, now);
        if self.special_limit {
            if let BufferLimit::Shared { pool, .. } = self.limit {
                pools[pool as usize].used += size;
            }
        }
        self.queued_bytes += size;
        self.queued_packets += 1;
        self.max_queue_bytes = self.max_queue_bytes.max(self.queued_bytes);
        let class = self.class_of(priority);
        self.classes[class].push_back(id);
        Admission::Queued { marked }
    }

    /// Admission by the port's own discipline: the packet joins its queue, perhaps displacing
    /// a packet (itself, if the discipline drops the arrival). The port counts what joined and
    /// what was dropped; a dropped packet counts as having entered and left the queue at `now`
    /// (for the time-averaged queue).
    #[cold]
    #[inline(never)]
    fn offer_plugged(&mut self, now: Instant, packet: Arriving, header: Option<&Header>) -> Admission {
        let BufferLimit::Plugged(discipline) = &mut self.limit else { unreachable!("a port with its own discipline") };
        let joined = discipline.offer(now, &packet, header, self.queued_bytes);
        let size = u64::from(packet.wire_bytes);
        self.counters.entered += PortCounters::weigh(size, now);
        self.queued_bytes += size;
        self.queued_packets += 1;
        let admission = match joined {
            Joined::Queued => Admission::Queued { marked: false },
            Joined::Displaced { victim, bytes } => {
                self.counters.left += PortCounters::weigh(u64::from(bytes), now);
                self.counters.drops += 1;
                self.queued_bytes -= u64::from(bytes);
                self.queued_packets -= 1;
                if victim == packet.id { Admission::Dropped } else { Admission::QueuedEvicting { victim } }
            }
            Joined::Trimmed { packet, cut } => {
                self.counters.left += PortCounters::weigh(u64::from(cut), now);
                self.queued_bytes -= u64::from(cut);
                Admission::Trimmed { packet, cut }
            }
            // Gone from the queue as a displaced packet is, but not lost: not a drop.
            Joined::Returned { packet: returned, bytes, cut } => {
                self.counters.left += PortCounters::weigh(u64::from(bytes), now);
                self.queued_bytes -= u64::from(bytes);
                self.queued_packets -= 1;
                Admission::Returned { packet: returned, cut, arrival: returned == packet.id }
            }
        };
        self.max_queue_bytes = self.max_queue_bytes.max(self.queued_bytes);
        admission
    }

    /// The next packet to serialize at `now`: the head of the most urgent class, or at a port
    /// with a discipline of its own (whose class stays empty) the discipline's choice.
    #[inline]
    fn next_to_send(&mut self, now: Instant) -> Option<PacketId> {
        // Most ports have one class, and a serializer that comes free mostly finds it waiting.
        match self.classes[0].pop_front() {
            Some(id) => Some(id),
            None => self.next_after_first(now),
        }
    }

    /// `next_to_send` past an empty most urgent class.
    #[inline(never)]
    fn next_after_first(&mut self, now: Instant) -> Option<PacketId> {
        self.classes[1..].iter_mut().find_map(VecDeque::pop_front).or_else(|| self.next_plugged(now))
    }

    /// Puts packet `id` of `wire_bytes` straight onto the wire at `now` if it finds the
    /// serializer free and nothing waiting at a port whose discipline, if it has one, lets it
    /// through, as most packets of a network that is not congested do: what `offer` and then
    /// `serve` would do, without joining and leaving a queue. Returns `None` if it did not (the
    /// caller offers the packet), else when the caller must schedule the port's next arrival
    /// (the wire was empty). The packet cannot be marked (nothing waits), and a packet that fits
    /// no limit is left to `offer`, which drops it.
    ///
    /// The time-averaged queue's sums (`PortCounters`) are left alone: a packet that waits no
    /// time adds the same to what entered and what left, and only their difference is read.
    /// A shared pool's use is left alone too: `offer` would add the packet and `serve` take it
    /// back before anything read the pool.
    #[inline]
    pub(crate) fn send_if_idle(&mut self, now: Instant, id: PacketId, wire_bytes: u32, payload: bool, pools: &[SharedPool]) -> Option<Option<Instant>> {
        let size = u64::from(wire_bytes);
        if !(self.busy_until <= now && self.queued_packets == 0) {
            return None;
        }
        let fits = if self.special_limit { self.fits_idle_special(now, wire_bytes, payload, pools) } else { size <= self.max_bytes && self.max_packets > 0 };
        if !fits {
            return None;
        }
        self.max_queue_bytes = self.max_queue_bytes.max(size);
        self.counters.packets_sent += 1;
        Some(self.start_sending(now, id, size))
    }

    /// Whether a packet of `wire_bytes` goes straight through an empty queue whose limit is a
    /// special one: a shared pool's test in `offer` with nothing waiting (a shared-buffer
    /// switch's ports are most of a large fabric's, and most of their packets find them idle),
    /// or a discipline's own answer (`QueueDiscipline::take_when_idle`, which then keeps what
    /// it keeps of a packet in service).
    #[inline]
    fn fits_idle_special(&mut self, now: Instant, wire_bytes: u32, payload: bool, pools: &[SharedPool]) -> bool {
        match &mut self.limit {
            &mut BufferLimit::Shared { pool, alpha } => pools[pool as usize].admits(0, u64::from(wire_bytes), alpha),
            BufferLimit::Plugged(discipline) => discipline.take_when_idle(now, wire_bytes, payload),
            _ => false,
        }
    }

    /// Puts packet `id` of `size` bytes on the wire at `now` (the serializer is free): returns
    /// its arrival at the far end if the wire was empty or the port schedules `each_arrival`
    /// (the caller schedules it). Inlined into both callers, as it was before `each_arrival`
    /// made it one test longer (out of line it cost the star 2.7% more instructions).
    #[inline(always)]
    fn start_sending(&mut self, now: Instant, id: PacketId, size: u64) -> Option<Instant> {
        self.bytes_sent += size;
        let tx = match self.ps_per_byte {
            0 => self.info.link.rate.tx_time(size),
            ps => Duration::from_ps(size * ps),
        };
        self.busy_until = now + tx;
        let arrival = self.busy_until + self.info.link.delay;
        let first = self.pipe.is_empty() || self.each_arrival;
        self.pipe.push_back((arrival, id));
        first.then_some(arrival)
    }

    #[cold]
    #[inline(never)]
    fn next_plugged(&mut self, now: Instant) -> Option<PacketId> {
        match &mut self.limit {
            BufferLimit::Plugged(discipline) => discipline.next(now),
            _ => None,
        }
    }

    /// When packets that wait behind an idle serializer may go: at a port whose discipline holds
    /// them back, when it says (after `now`); elsewhere packets never wait behind an idle
    /// serializer, and this is the serializer's end as before.
    #[cold]
    #[inline(never)]
    fn held_until(&self, now: Instant) -> Instant {
        match &self.limit {
            BufferLimit::Plugged(discipline) => {
                let at = discipline.held_until();
                debug_assert!(at.is_some(), "{discipline:?} holds packets without saying until when");
                at.unwrap_or(self.busy_until).max(now + Duration::from_ps(1))
            }
            _ => self.busy_until,
        }
    }

    /// Starts serializing the next waiting packet if the serializer is free at `now`. Returns when
    /// the caller must schedule this port's next arrival (the wire was empty) and when it must wake
    /// the port again (packets still wait behind a busy serializer).
    #[inline] // as `offer`
    pub(crate) fn serve(&mut self, now: Instant, pools: &mut [SharedPool], size_of: impl Fn(PacketId) -> u32) -> Service {
        let mut service = Service::default();
        if self.busy_until <= now {
            if let Some(id) = self.next_to_send(now) {
                let size = u64::from(size_of(id));
                self.counters.left += PortCounters::weigh(size, now);
                self.counters.packets_sent += 1;
                self.queued_bytes -= size;
                self.queued_packets -= 1;
                if self.special_limit {
                    if let BufferLimit::Shared { pool, .. } = self.limit {
                        pools[pool as usize].used -= size;
                    }
                }
                service.arrival = self.start_sending(now, id, size);
            }
        }
        if self.queued_bytes > 0 {
            let at = if self.busy_until > now { self.busy_until } else { self.held_until(now) };
            if at < self.wake_at {
                self.wake_at = at;
                service.wake = Some(at);
            }
        }
        service
    }

    /// A wake-up scheduled for `now` has come: whether it is the one the port expects (an
    /// earlier one superseded any other).
    pub(crate) fn woken(&mut self, now: Instant) -> bool {
        if self.wake_at != now {
            return false;
        }
        self.wake_at = Instant::NEVER;
        true
    }

    /// The packet at the far end of the wire, and when the next one arrives (`None` if the
    /// port schedules `each_arrival` when it sends).
    pub(crate) fn pop_arrival(&mut self) -> (PacketId, Option<Instant>) {
        let (_, id) = self.pipe.pop_front().expect("Arrive is only scheduled for a non-empty wire");
        (id, self.pipe.front().filter(|_| !self.each_arrival).map(|&(t, _)| t))
    }

    /// The packet last put on the wire, taken off it: it travels to another engine's copy of
    /// this port (a run on several threads: `crate::sim`'s crew), with its arrival time.
    pub(crate) fn take_last_sent(&mut self) -> (Instant, PacketId) {
        debug_assert!(self.each_arrival);
        self.pipe.pop_back().expect("a packet was just sent")
    }

    /// Packet `id`, sent by another engine's copy of this port (a run on several threads:
    /// `crate::sim`'s crew), arrives at the far end at `at`, after those on the wire.
    pub(crate) fn put_arrival(&mut self, at: Instant, id: PacketId) {
        debug_assert!(self.each_arrival && self.pipe.back().is_none_or(|&(t, _)| t <= at));
        self.pipe.push_back((at, id));
    }

    /// Packets and bytes waiting (not the one serializing): what an arriving packet finds.
    pub(crate) fn waiting(&self) -> (u64, u64) {
        (self.queued_packets, self.queued_bytes)
    }

    /// Packets queued or on the wire (serializing counts as on the wire).
    pub(crate) fn packets_held(&self) -> u64 {
        let plugged = match &self.limit {
            BufferLimit::Plugged(discipline) => discipline.len(),
            _ => 0,
        };
        let queued: usize = self.classes.iter().map(VecDeque::len).sum::<usize>() + plugged;
        (queued + self.pipe.len()) as u64
    }
}

/// Events a port asks its driver to schedule after `serve`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Service {
    /// Schedule the port's `Arrive` at this time.
    pub(crate) arrival: Option<Instant>,
    /// Schedule the port's `TxDone` (serializer free) at this time.
    pub(crate) wake: Option<Instant>,
}

#[cfg(test)]
mod tests {
    use incast_proto::time::BitsPerSec;

    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::scenario::LinkSpec;

    /// A data packet (with payload).
    pub(crate) fn pkt(id: u32, wire_bytes: u32, priority: u8, ect: bool) -> Arriving {
        Arriving { id: PacketId(id), wire_bytes, priority, ect, ce: false, payload: true, flow: FlowId(id), returned: false }
    }

    /// Offers `a` with CE bit `*ce` as the engine does: a mark sets the bit.
    fn offer(p: &mut Port, now: Instant, a: Arriving, ce: &mut bool, pools: &mut [SharedPool]) -> Admission {
        let admission = p.offer(now, Arriving { ce: *ce, ..a }, pools, || None);
        if admission == (Admission::Queued { marked: true }) {
            *ce = true;
        }
        admission
    }

    /// A SYN or pure ACK of 40 B.
    fn control(id: u32, ect: bool) -> Arriving {
        Arriving { payload: false, ..pkt(id, 40, 0, ect) }
    }

    fn port(limit: BufferLimit, k_bytes: u64, classes: u8) -> Port {
        port_ecn(limit, EcnThreshold { bytes: k_bytes, packets: u64::MAX }, classes)
    }

    fn port_ecn(limit: BufferLimit, ecn: EcnThreshold, classes: u8) -> Port {
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        Port::new(PortInfo { node: NodeId(0), peer: NodeId(1), link }, limit, ecn, classes).unwrap()
    }

    #[test]
    fn drop_tail_packets_counts_packets_not_bytes() {
        let mut p = port(BufferLimit::DropTailPackets(2), u64::MAX, 1);
        let mut ce = false;
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(0, 40, 0, false), &mut ce, &mut []), Admission::Queued { marked: false });
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(1, 40, 0, false), &mut ce, &mut []), Admission::Queued { marked: false });
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(2, 40, 0, false), &mut ce, &mut []), Admission::Dropped);
        // The first starts serializing and leaves the queue: room for one more.
        let _ = p.serve(Instant::ZERO, &mut [], |_| 40);
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(3, 1500, 0, false), &mut ce, &mut []), Admission::Queued { marked: false });
    }

    #[test]
    fn ecn_packet_threshold_marks_above_k_packets_of_any_size() {
        let mut p = port_ecn(BufferLimit::Unlimited, EcnThreshold { bytes: u64::MAX, packets: 2 }, 1);
        let mut ce = false;
        offer(&mut p, Instant::ZERO, pkt(0, 100, 0, true), &mut ce, &mut []);
        offer(&mut p, Instant::ZERO, pkt(1, 100, 0, true), &mut ce, &mut []);
        offer(&mut p, Instant::ZERO, pkt(2, 100, 0, true), &mut ce, &mut []);
        assert!(!ce, "the third finds 2 queued, which does not exceed K = 2");
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(3, 100, 0, true), &mut ce, &mut []), Admission::Queued { marked: true });
    }

    #[test]
    fn drop_tail_admits_up_to_the_byte_limit() {
        let mut p = port(BufferLimit::DropTail(3000), u64::MAX, 1);
        let mut ce = false;
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(0, 1500, 0, false), &mut ce, &mut []), Admission::Queued { marked: false });
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(1, 1500, 0, false), &mut ce, &mut []), Admission::Queued { marked: false });
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(2, 40, 0, false), &mut ce, &mut []), Admission::Dropped);
    }

    #[test]
    fn ecn_marks_only_ect_packets_above_threshold() {
        let mut p = port(BufferLimit::DropTail(1 << 20), 1500, 1);
        let mut ce = false;
        offer(&mut p, Instant::ZERO, pkt(0, 1500, 0, true), &mut ce, &mut []);
        offer(&mut p, Instant::ZERO, pkt(1, 1500, 0, true), &mut ce, &mut []);
        assert!(!ce, "queue of 1500 does not exceed K = 1500");
        let mut ce_non_ect = false;
        offer(&mut p, Instant::ZERO, pkt(2, 1500, 0, false), &mut ce_non_ect, &mut []);
        assert!(!ce_non_ect);
        assert_eq!(offer(&mut p, Instant::ZERO, pkt(3, 1500, 0, true), &mut ce, &mut []), Admission::Queued { marked: true });
        assert!(ce);
    }

    #[test]
    fn strict_priority_serves_class_zero_first() {
        let mut p = port(BufferLimit::Unlimited, u64::MAX, 2);
        let mut ce = false;
        offer(&mut p, Instant::ZERO, pkt(7, 100, 1, false), &mut ce, &mut []);
        offer(&mut p, Instant::ZERO, pkt(8, 100, 0, false), &mut ce, &mut []);
        let s = p.serve(Instant::ZERO, &mut [], |_| 100);
        // 100 B at 1 Gbps = 800 ns on the wire, then 1 us of propagation.
        assert_eq!(s.arrival, Some(Instant::ZERO + Duration::from_ns(1800)));
        assert_eq!(s.wake, Some(Instant::ZERO + Duration::from_ns(800)), "a packet still waits");
        assert_eq!(p.pop_arrival().0, PacketId(8), "class 0 overtakes an earlier class-1 packet");
        assert_eq!(p.serve(Instant::ZERO + Duration::from_ns(400), &mut [], |_| 100), Service::default(), "busy");
        assert!(p.woken(Instant::ZERO + Duration::from_ns(800)));
        let s = p.serve(Instant::ZERO + Duration::from_ns(800), &mut [], |_| 100);
        assert_eq!((s.arrival.is_some(), s.wake), (true, None));
        assert_eq!(p.pop_arrival().0, PacketId(7));
    }

    #[test]
    fn counters_count_drops_marks_and_the_time_averaged_queue() {
        let mut p = port_ecn(BufferLimit::DropTailPackets(2), EcnThreshold { bytes: u64::MAX, packets: 0 }, 1);
        let mut ce = false;
        let t = |ns| Instant::ZERO + Duration::from_ns(ns);
        // Three 100 B packets at 0: the first goes onto the wire at once; of the two that wait,
        // the second finds one waiting and is marked (K = 0); a fourth finds the limit reached.
        offer(&mut p, t(0), pkt(0, 100, 0, true), &mut ce, &mut []);
        let _ = p.serve(t(0), &mut [], |_| 100);
        let mut ce1 = false;
        offer(&mut p, t(0), pkt(1, 100, 0, true), &mut ce1, &mut []);
        let mut ce2 = false;
        offer(&mut p, t(0), pkt(2, 100, 0, true), &mut ce2, &mut []);
        assert!(!ce1 && ce2, "K = 0: marked once a packet waits");
        let mut ce3 = false;
        assert_eq!(offer(&mut p, t(0), pkt(3, 100, 0, true), &mut ce3, &mut []), Admission::Dropped);
        // 200 B wait from 0 to 800 ns (the first packet's 100 B at 1 Gbps), 100 B to 1600 ns.
        let _ = p.woken(t(800));
        let _ = p.serve(t(800), &mut [], |_| 100);
        let _ = p.woken(t(1600));
        let _ = p.serve(t(1600), &mut [], |_| 100);
        assert_eq!((p.counters.packets_sent, p.counters.drops, p.counters.ecn_marks), (3, 1, 1));
        // (200 x 800 + 100 x 800) / 3200 over a run that ends at 3200 ns.
        assert_eq!(p.counters.mean_queue_bytes(t(3200), p.queue_bytes()), 75.0);
        assert_eq!(p.max_queue_bytes, 200);
    }

    #[test]
    fn counters_split_marks_by_payload_earlier_mark_and_drop() {
        let mut p = port_ecn(BufferLimit::DropTailPackets(4), EcnThreshold { bytes: u64::MAX, packets: 0 }, 1);
        let offer = |p: &mut Port, a: Arriving, mut ce: bool| (offer(p, Instant::ZERO, a, &mut ce, &mut []), ce);
        // The first waits alone (0 waiting is not above K = 0); everything after it is above.
        assert_eq!(offer(&mut p, pkt(0, 1500, 0, true), false), (Admission::Queued { marked: false }, false));
        assert_eq!(offer(&mut p, control(1, true), false), (Admission::Queued { marked: true }, true));
        // Marked by an earlier queue: left as it is, counted as a mark ns-3 would repeat.
        assert_eq!(offer(&mut p, pkt(2, 1500, 0, true), true), (Admission::Queued { marked: false }, true));
        assert_eq!(offer(&mut p, pkt(3, 1500, 0, true), false), (Admission::Queued { marked: true }, true));
        assert_eq!(offer(&mut p, control(4, false), false), (Admission::Dropped, false));
        // Full: an ECN-capable arrival above K is dropped, and counted as marked then dropped
        // whether or not it carries a mark already; one not ECN-capable is not.
        assert_eq!(offer(&mut p, pkt(5, 1500, 0, true), false), (Admission::Dropped, false));
        assert_eq!(offer(&mut p, pkt(6, 1500, 0, true), true), (Admission::Dropped, true));
        assert_eq!(offer(&mut p, pkt(7, 1500, 0, false), false), (Admission::Dropped, false));
        let c = p.counters;
        assert_eq!((c.ecn_marks, c.ecn_marks_control, c.ecn_remarks, c.ecn_marks_dropped, c.drops), (1, 1, 1, 2, 4));
    }

    #[test]
    fn shared_buffer_threshold_shrinks_as_pool_fills() {
        let mut pools = [SharedPool { capacity: 10_000, used: 0 }];
        let mut a = port(BufferLimit::Shared { pool: 0, alpha: 1.0 }, u64::MAX, 1);
        let mut ce = false;
        // With alpha = 1 one port can take at most half the pool: q <= (B - q).
        let mut admitted = 0;
        while let Admission::Queued { .. } = offer(&mut a, Instant::ZERO, pkt(admitted, 1000, 0, false), &mut ce, &mut pools) {
            admitted += 1;
        }
        assert_eq!(admitted, 5);
        assert_eq!(pools[0].used, 5000);
    }

    /// An idle port of a shared pool sends a packet on as `offer` then `serve` would, and
    /// leaves to `offer` a packet that the pool's threshold refuses even with nothing waiting.
    #[test]
    fn an_idle_shared_pool_port_sends_what_offer_and_serve_would() {
        let shared = || port(BufferLimit::Shared { pool: 0, alpha: 0.5 }, u64::MAX, 1);
        let t = Instant::ZERO + Duration::from_ns(100);
        // 3,000 B free: a 1,500 B packet is within alpha x free.
        let mut pools = [SharedPool { capacity: 10_000, used: 7_000 }];
        let (mut fast, mut slow) = (shared(), shared());
        let sent = fast.send_if_idle(t, PacketId(1), 1500, true, &pools);
        assert_eq!(offer(&mut slow, t, pkt(1, 1500, 0, false), &mut false, &mut pools), Admission::Queued { marked: false });
        let served = slow.serve(t, &mut pools, |_| 1500);
        assert_eq!(sent, Some(served.arrival));
        assert_eq!(served.wake, None);
        assert_eq!(pools[0].used, 7_000, "the pool holds nothing of a packet being serialized");
        assert_eq!((fast.busy_until, fast.max_queue_bytes, fast.counters.packets_sent), (slow.busy_until, slow.max_queue_bytes, slow.counters.packets_sent));
        assert_eq!(fast.pop_arrival(), slow.pop_arrival());
        // 2,000 B free: 1,500 B is above alpha x free, so `offer` drops it.
        let mut pools = [SharedPool { capacity: 10_000, used: 8_000 }];
        let mut idle = shared();
        assert_eq!(idle.send_if_idle(t, PacketId(2), 1500, true, &pools), None);
        assert_eq!(offer(&mut idle, t, pkt(2, 1500, 0, false), &mut false, &mut pools), Admission::Dropped);
        // A busy serializer or a packet waiting: never sent on.
        let mut pools = [SharedPool { capacity: 10_000, used: 0 }];
        let mut busy = shared();
        assert!(busy.send_if_idle(t, PacketId(3), 100, true, &pools).is_some());
        assert_eq!(busy.send_if_idle(t, PacketId(4), 100, true, &pools), None);
        assert_eq!(offer(&mut busy, t, pkt(4, 100, 0, false), &mut false, &mut pools), Admission::Queued { marked: false });
        assert_eq!(busy.send_if_idle(t + Duration::from_us(1), PacketId(5), 100, true, &pools), None);
    }
}
