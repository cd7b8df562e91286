//! An NDP switch port's queue (htsim's `CompositeQueue`,
//! `compositequeue.cpp`): a small queue of data packets and a queue of headers served first.
//!
//! - **Admission.** A data packet joins the data queue if the bytes there, the packet being
//!   sent included, and its own fit the limit (line 142: `_queuesize_low + pkt.size() <=
//!   _maxsize`; htsim's queue keeps the packet in service until it has left, line 84). Else a
//!   coin decides (`drand() < 0.5`, same line): the arrival loses its payload, or the newest
//!   waiting data packet does (`pop_front`, line 157) and the arrival takes its place. The coin
//!   breaks up phase effects: a flow whose packets arrive in step with another's is not always
//!   the one trimmed (the paper's talk gives this as one of NDP's changes to Cut Payload).
//! - **Headers.** A trimmed packet, an ACK, a NACK or a PULL joins the header queue unless the
//!   headers there, in service included, and its own pass twice the data limit (lines 168 and
//!   225: `_queuesize_high + size > 2*_maxsize`); then it is dropped, or with return-to-sender
//!   turned back to its sender (lines 169-187 and 228-247: `if (_return_to_sender &&
//!   pkt.reverse_route() && pkt.bounced() == false)`, then `pkt.bounce()`), unless it is on its
//!   way back already: a packet is returned once at most.
//! - **Service.** Headers first, in a weighted round robin of 100,000 headers to one data packet
//!   while both wait (`_ratio_high`, `_ratio_low`, lines 12-13 and 35-57), so that data is never
//!   starved outright.
//!
//! Generic over what identifies a packet, so the engine queues its packet numbers and the tests
//! their own; the caller draws the coin, so that the queue holds no random state of its own.

use std::collections::VecDeque;

use crate::time::{BitsPerSec, Instant};

/// Headers served for each data packet while both queues have packets (`_ratio_high`).
const HEADERS_PER_DATA: u32 = 100_000;

/// What the queue did with an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered<T> {
    /// It waits as it came.
    Queued,
    /// It waits, and `packet` (the arrival, or the newest waiting data packet) lost its payload:
    /// it waits as a header.
    Trimmed {
        /// The packet trimmed.
        packet: T,
        /// Its size before.
        bytes: u32,
    },
    /// `packet` was dropped: a header that found the header queue full (the arrival's, or the
    /// one it trimmed from the data queue). `bytes` is its size as it was queued or offered.
    Dropped {
        /// The packet dropped.
        packet: T,
        /// Its size before it was trimmed.
        bytes: u32,
    },
    /// `packet`, a header that found the header queue full (the arrival, or the packet it
    /// trimmed from the data queue), goes back to its sender, with return-to-sender on. `bytes`
    /// is its size as it was queued or offered, before trimming.
    Returned {
        /// The packet turned back.
        packet: T,
        /// Its size before it was trimmed.
        bytes: u32,
    },
}

/// Which queue a packet is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Data,
    Header,
}

/// One NDP switch port's queues.
#[derive(Clone, Debug)]
pub struct TrimmingQueue<T> {
    data: VecDeque<(T, u32)>,
    headers: VecDeque<T>,
    data_bytes: u64,
    header_bytes_waiting: u64,
    /// The packet being sent, its class, size and when it has left: htsim counts it in its queue
    /// until then.
    in_service: Option<(Class, u32, Instant)>,
    /// Bytes of data that may wait, the packet in service included (htsim's `_maxsize`).
    limit: u64,
    /// Size of a header.
    header_size: u32,
    rate: BitsPerSec,
    /// Position in the round robin (htsim's `_crt`).
    turn: u32,
    /// Whether a header that finds the header queue full goes back to its sender rather than
    /// being dropped (htsim's `_return_to_sender`).
    return_to_sender: bool,
}

impl<T: Copy> TrimmingQueue<T> {
    /// A port of `rate` whose data queue holds `limit` bytes, with headers of `header_size`.
    pub fn new(limit: u64, header_size: u32, rate: BitsPerSec) -> TrimmingQueue<T> {
        TrimmingQueue {
            data: VecDeque::new(),
            headers: VecDeque::new(),
            data_bytes: 0,
            header_bytes_waiting: 0,
            in_service: None,
            limit,
            header_size,
            rate,
            turn: 0,
            return_to_sender: false,
        }
    }

    /// The same queue, returning to their senders the headers it has no room for if `on`
    /// (htsim's `setRTS`, `compositequeue.h` line 42).
    pub fn with_return_to_sender(mut self, on: bool) -> TrimmingQueue<T> {
        self.return_to_sender = on;
        self
    }

    /// Bytes of `class` the queue counts at `now`: those waiting and the packet in service.
    fn counted(&mut self, now: Instant, class: Class) -> u64 {
        if self.in_service.is_some_and(|(_, _, until)| until <= now) {
            self.in_service = None;
        }
        let serving = match self.in_service {
            Some((c, bytes, _)) if c == class => u64::from(bytes),
            _ => 0,
        };
        serving
            + match class {
                Class::Data => self.data_bytes,
                Class::Header => self.header_bytes_waiting,
            }
    }

    /// Whether `size` more bytes of `class` fit at `now`: data within the limit, headers within
    /// twice it (htsim's `_maxsize` and its header queue's), the packet in service counted.
    fn fits(&mut self, now: Instant, class: Class, size: u32) -> bool {
        let room = match class {
            Class::Data => self.limit,
            Class::Header => 2 * self.limit,
        };
        self.counted(now, class) + u64::from(size) <= room
    }

    /// A packet `id` of `bytes` arrives at `now`; `data` if it carries payload (a header
    /// otherwise), `returned` if it is a header on its way back to its sender already (it is not
    /// turned back twice: dropped if it finds no room); `coin` tosses a fair coin, when the data
    /// queue is full.
    pub fn offer(&mut self, now: Instant, id: T, bytes: u32, data: bool, returned: bool, coin: impl FnOnce() -> bool) -> Offered<T> {
        let mut outcome = Offered::Queued;
        if data {
            let fits = self.fits(now, Class::Data, bytes);
            // The coin may spare the arrival only if a waiting packet can be trimmed instead
            // (htsim asserts one waits, line 153; with a limit below two packets it may not).
            if fits || (coin() && !self.data.is_empty()) {
                if !fits {
                    let (victim, victim_bytes) = self.data.pop_back().expect("a data packet waits");
                    self.data_bytes -= u64::from(victim_bytes);
                    // A data packet waiting here has never been turned back.
                    outcome = match self.header(now, victim) {
                        true => Offered::Trimmed { packet: victim, bytes: victim_bytes },
                        false => self.no_room(victim, victim_bytes, false),
                    };
                }
                self.data.push_back((id, bytes));
                self.data_bytes += u64::from(bytes);
                return outcome;
            }
            // The arrival itself is trimmed.
            return match self.header(now, id) {
                true => Offered::Trimmed { packet: id, bytes },
                false => self.no_room(id, bytes, returned),
            };
        }
        match self.header(now, id) {
            true => Offered::Queued,
            false => self.no_room(id, bytes, returned),
        }
    }

    /// A packet of `bytes` (`data` if it carries payload) arrives at `now` and finds nothing
    /// waiting and the port's serializer free: it goes straight into service if `offer` would
    /// queue it, as `offer` then `next` would take it (the queue keeps only its class, size and
    /// end). Returns whether it did; if not, `offer` decides (and tosses the coin if it must).
    pub fn take_idle(&mut self, now: Instant, bytes: u32, data: bool) -> bool {
        debug_assert!(self.is_empty(), "a packet waits");
        let (class, size) = if data { (Class::Data, bytes) } else { (Class::Header, self.header_size) };
        if !self.fits(now, class, size) {
            return false;
        }
        self.in_service = Some((class, size, now + self.rate.tx_time(u64::from(size))));
        true
    }

    /// What becomes of header `id` (`bytes` before trimming) that found the header queue full:
    /// it goes back to its sender with return-to-sender on, unless it is on its way back already;
    /// else it is dropped.
    fn no_room(&self, id: T, bytes: u32, returned: bool) -> Offered<T> {
        if self.return_to_sender && !returned {
            Offered::Returned { packet: id, bytes }
        } else {
            Offered::Dropped { packet: id, bytes }
        }
    }

    /// A header joins the header queue if there is room; whether it did.
    fn header(&mut self, now: Instant, id: T) -> bool {
        let size = self.header_size;
        if !self.fits(now, Class::Header, size) {
            return false;
        }
        self.headers.push_back(id);
        self.header_bytes_waiting += u64::from(size);
        true
    }

    /// The next packet to send at `now`, which leaves the queue for the wire.
    pub fn next(&mut self, now: Instant) -> Option<T> {
        let class = match (self.headers.is_empty(), self.data.is_empty()) {
            (true, true) => return None,
            (false, true) => Class::Header,
            (true, false) => Class::Data,
            (false, false) => {
                // htsim: `if (_crt >= _ratio_high + _ratio_low) _crt = 0`, the low ratio being 1.
                self.turn += 1;
                if self.turn > HEADERS_PER_DATA {
                    self.turn = 0;
                }
                if self.turn < HEADERS_PER_DATA { Class::Header } else { Class::Data }
            }
        };
        let (id, bytes) = match class {
            Class::Header => {
                let id = self.headers.pop_front().expect("a header waits");
                self.header_bytes_waiting -= u64::from(self.header_size);
                (id, self.header_size)
            }
            Class::Data => {
                let (id, bytes) = self.data.pop_front().expect("a data packet waits");
                self.data_bytes -= u64::from(bytes);
                (id, bytes)
            }
        };
        self.in_service = Some((class, bytes, now + self.rate.tx_time(u64::from(bytes))));
        Some(id)
    }

    /// Packets waiting (not the one in service).
    pub fn len(&self) -> usize {
        self.data.len() + self.headers.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FULL: u32 = 9064;
    const RATE: BitsPerSec = BitsPerSec(10_000_000_000);

    /// htsim's 8-packet queue: 8 x 9000 B.
    fn queue() -> TrimmingQueue<u32> {
        TrimmingQueue::new(8 * 9000, 64, RATE)
    }

    #[test]
    fn data_limit_counts_bytes_so_eight_packets_hold_seven_full_ones() {
        let mut q = queue();
        for id in 0..7 {
            assert_eq!(q.offer(Instant::ZERO, id, FULL, true, false, || false), Offered::Queued);
        }
        // 7 x 9064 + 9064 > 72000: the eighth is trimmed (coin false: the arrival).
        assert_eq!(q.offer(Instant::ZERO, 7, FULL, true, false, || false), Offered::Trimmed { packet: 7, bytes: FULL });
        // Coin true: the newest waiting packet is trimmed and the arrival takes its place.
        assert_eq!(q.offer(Instant::ZERO, 8, FULL, true, false, || true), Offered::Trimmed { packet: 6, bytes: FULL });
        let order: Vec<u32> = std::iter::from_fn(|| q.next(Instant::ZERO)).collect();
        assert_eq!(order, [7, 6, 0, 1, 2, 3, 4, 5, 8], "headers first, then data in order");
    }

    #[test]
    fn data_limit_counts_the_packet_being_sent_until_it_has_left() {
        let mut q = queue();
        for id in 0..7 {
            q.offer(Instant::ZERO, id, FULL, true, false, || false);
        }
        assert_eq!(q.next(Instant::ZERO), Some(0));
        // Packet 0 is on the wire for 9064 x 8 / 10 Gbps = 7251.2 ns: it still counts.
        assert_eq!(q.offer(Instant::ZERO, 7, FULL, true, false, || false), Offered::Trimmed { packet: 7, bytes: FULL });
        let sent = Instant::ZERO + RATE.tx_time(u64::from(FULL));
        assert_eq!(q.offer(sent, 8, FULL, true, false, || false), Offered::Queued, "gone: room for one");
    }

    #[test]
    fn headers_past_twice_the_data_limit_are_dropped() {
        let mut q = TrimmingQueue::new(128, 64, RATE);
        // 2 x 128 B of headers: four 64 B headers fit.
        for id in 0..4 {
            assert_eq!(q.offer(Instant::ZERO, id, 64, false, false, || false), Offered::Queued);
        }
        assert_eq!(q.offer(Instant::ZERO, 4, 64, false, false, || false), Offered::Dropped { packet: 4, bytes: 64 });
        // A data packet that does not fit is trimmed, and its header has no room either.
        assert_eq!(q.offer(Instant::ZERO, 5, FULL, true, false, || false), Offered::Dropped { packet: 5, bytes: FULL });
    }

    #[test]
    fn full_header_queue_returns_headers_to_their_senders_with_return_to_sender_on() {
        let mut q = TrimmingQueue::new(128, 64, RATE).with_return_to_sender(true);
        for id in 0..4 {
            assert_eq!(q.offer(Instant::ZERO, id, 64, false, false, || false), Offered::Queued);
        }
        // A header with no room goes back, as does a data packet trimmed with no room for its
        // header; one already on its way back is dropped, not turned back twice.
        assert_eq!(q.offer(Instant::ZERO, 4, 64, false, false, || false), Offered::Returned { packet: 4, bytes: 64 });
        assert_eq!(q.offer(Instant::ZERO, 5, FULL, true, false, || false), Offered::Returned { packet: 5, bytes: FULL });
        assert_eq!(q.offer(Instant::ZERO, 6, 64, false, true, || false), Offered::Dropped { packet: 6, bytes: 64 });
        assert_eq!(q.len(), 4, "none of them waits here");
    }

    #[test]
    fn full_header_queue_returns_the_waiting_packet_the_coin_trims() {
        // A data queue of one full packet (9064 B of 9100) and room for no header at all.
        let mut q = TrimmingQueue::new(9100, 64, RATE).with_return_to_sender(true);
        for id in 0..284 {
            q.offer(Instant::ZERO, id, 64, false, false, || false);
        }
        assert_eq!(q.offer(Instant::ZERO, 1000, FULL, true, false, || false), Offered::Queued);
        // Coin true: the waiting packet 1000 is trimmed, has no room as a header, and goes back;
        // the arrival takes its place.
        assert_eq!(q.offer(Instant::ZERO, 1001, FULL, true, false, || true), Offered::Returned { packet: 1000, bytes: FULL });
        let last = std::iter::from_fn(|| q.next(Instant::ZERO)).last();
        assert_eq!(last, Some(1001));
    }

    #[test]
    fn coin_cannot_spare_the_arrival_when_no_packet_waits_to_be_trimmed() {
        let mut q = TrimmingQueue::new(9000, 64, RATE);
        assert_eq!(q.offer(Instant::ZERO, 0, FULL, true, false, || true), Offered::Trimmed { packet: 0, bytes: FULL });
    }

    #[test]
    fn service_lets_one_data_packet_through_per_hundred_thousand_headers() {
        let mut q = TrimmingQueue::new(u64::MAX / 4, 64, RATE);
        q.offer(Instant::ZERO, 0, FULL, true, false, || false);
        for id in 1..=100_001 {
            q.offer(Instant::ZERO, id, 64, false, false, || false);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.next(Instant::ZERO)).take(100_001).collect();
        assert_eq!(order.iter().position(|&id| id == 0), Some(100_000 - 1), "the data packet after 99,999 headers");
    }

    proptest! {
        /// Whatever arrives, the data bytes waiting stay within the limit, headers within twice
        /// it, and every packet offered is queued, trimmed and queued, dropped, or sent: none is
        /// lost or duplicated.
        #[test]
        fn random_offers_keep_limits_and_conserve_packets(ops in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 0..400)) {
            let mut q = TrimmingQueue::new(4 * 9000, 64, RATE);
            let (mut offered, mut dropped, mut sent) = (0u32, 0u32, 0u32);
            for (i, &(arrive, data, coin)) in ops.iter().enumerate() {
                let now = Instant::ZERO + crate::time::Duration::from_ns(i as u64 * 800);
                if arrive {
                    match q.offer(now, offered, if data { FULL } else { 64 }, data, false, || coin) {
                        Offered::Dropped { .. } | Offered::Returned { .. } => dropped += 1,
                        Offered::Queued | Offered::Trimmed { .. } => {}
                    }
                    offered += 1;
                } else if q.next(now).is_some() {
                    sent += 1;
                }
                prop_assert!(q.data_bytes <= 4 * 9000);
                prop_assert!(q.header_bytes_waiting <= 8 * 9000);
            }
            prop_assert_eq!(offered, dropped + sent + q.len() as u32);
        }

        /// A port that puts an arrival finding it idle straight into service (`take_idle`)
        /// sends, trims and drops exactly as one that offers every arrival and then takes the
        /// next packet: the same outcomes, the same packets on the wire at the same times.
        #[test]
        fn taking_idle_arrivals_straight_into_service_changes_nothing(
            ops in proptest::collection::vec((0u64..3000, any::<bool>(), any::<bool>(), any::<bool>()), 0..300),
        ) {
            let mut fast = Port::new();
            let mut slow = Port::new();
            let mut now = Instant::ZERO;
            for (id, &(gap_ns, small, data, coin)) in ops.iter().enumerate() {
                now += crate::time::Duration::from_ns(gap_ns);
                let bytes = match (data, small) { (true, false) => FULL, (true, true) => 1500, (false, _) => 64 };
                let a = fast.arrive(now, id as u32, bytes, data, coin, true);
                let b = slow.arrive(now, id as u32, bytes, data, coin, false);
                prop_assert_eq!(a, b);
            }
            prop_assert_eq!(&fast.sent, &slow.sent);
        }
    }

    /// A port of `queue()` as the engine drives it: each arrival is offered (or taken idle) and
    /// the serializer, once free, takes the next packet; `sent` lists (id, time) in order.
    struct Port {
        q: TrimmingQueue<u32>,
        sizes: std::collections::HashMap<u32, u32>,
        busy_until: Instant,
        sent: Vec<(u32, Instant)>,
    }

    impl Port {
        fn new() -> Port {
            Port { q: TrimmingQueue::new(3 * 9000, 64, RATE), sizes: Default::default(), busy_until: Instant::ZERO, sent: Vec::new() }
        }

        /// Sends what may go by `now`, then takes packet `id`: straight into service if
        /// `take_idle` lets it and `idle_path`, else offered.
        fn arrive(&mut self, now: Instant, id: u32, bytes: u32, data: bool, coin: bool, idle_path: bool) -> Offered<u32> {
            self.serve_until(now);
            let size = if data { bytes } else { 64 };
            if idle_path && self.q.is_empty() && self.busy_until <= now && self.q.take_idle(now, bytes, data) {
                self.start(id, size, now);
                return Offered::Queued;
            }
            let outcome = self.q.offer(now, id, bytes, data, false, || coin);
            self.sizes.insert(id, size);
            if let Offered::Trimmed { packet, .. } = outcome {
                self.sizes.insert(packet, 64);
            }
            if self.busy_until <= now {
                if let Some(next) = self.q.next(now) {
                    self.start(next, self.sizes[&next], now);
                }
            }
            outcome
        }

        /// The serializer comes free while packets wait (they arrived while it was busy): each
        /// takes the next at the moment it comes free.
        fn serve_until(&mut self, now: Instant) {
            while self.busy_until <= now {
                let at = self.busy_until;
                let Some(id) = self.q.next(at) else { break };
                self.start(id, self.sizes[&id], at);
            }
        }

        fn start(&mut self, id: u32, size: u32, at: Instant) {
            self.busy_until = at + RATE.tx_time(u64::from(size));
            self.sent.push((id, at));
        }
    }
}
