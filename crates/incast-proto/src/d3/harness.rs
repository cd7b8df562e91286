//! A two-endpoint D3 harness (after quinn-proto's `tests/util.rs`): one sender and one receiver
//! over an ideal link with a fixed one-way delay and a serialization rate on the data direction,
//! one rate allocator in front of that link, and a set of packets to drop.

use std::collections::VecDeque;

use super::field::RateField;
use super::header::{CongestionHeader, Feedback};
use super::host::{D3Config, D3Segment, D3Sender};
use crate::rate::{bytes_in, Rate};
use super::receiver::D3Receiver;
use super::router::Router;
use crate::tcp::AckSegment;
use crate::time::{BitsPerSec, Duration, Instant};

/// The data link's rate.
pub(super) const LINK: BitsPerSec = BitsPerSec::GBPS;
const LINK_RATE: Rate = 125_000_000;

/// The allocator in front of the data link.
pub(super) enum Allocator {
    /// a = min(r + fair_share, capacity), or the base grant at or below the base rate, nothing on
    /// a FIN: Section 4.2's rule for an uncongested router, without counters.
    Scripted { capacity: Rate, fair_share: Rate },
    /// The real per-port allocator.
    D3(Box<Router>),
}

/// A D3 sender and receiver joined by a link, driven in simulated time.
pub(super) struct Pair {
    now: Instant,
    pub(super) sender: D3Sender,
    pub(super) receiver: D3Receiver,
    pub(super) allocator: Allocator,
    base_rate: Rate,
    delay: Duration,
    /// When the data direction finishes serializing what it holds.
    data_link_free: Instant,
    to_receiver: VecDeque<(Instant, D3Segment)>,
    to_sender: VecDeque<(Instant, AckSegment, Option<Feedback>)>,
    /// Packets to lose, by their position in the sender's output (0 is the SYN).
    pub(super) drop_packets: Vec<u64>,
    /// Packets the sender has sent, lost ones included.
    pub(super) packets_sent: u64,
}

impl Pair {
    pub(super) fn new(config: D3Config, size: u64, deadline: Option<Instant>, allocator: Allocator) -> Self {
        Pair {
            now: Instant::ZERO,
            sender: D3Sender::new(config, Some(size), deadline, Instant::ZERO),
            receiver: D3Receiver::new(&config.tcp),
            allocator,
            base_rate: config.base_rate,
            delay: Duration::from_us(50),
            data_link_free: Instant::ZERO,
            to_receiver: VecDeque::new(),
            to_sender: VecDeque::new(),
            drop_packets: Vec::new(),
            packets_sent: 0,
        }
    }

    /// Fair share of the whole link for every flow.
    pub(super) fn scripted(config: D3Config, size: u64, deadline: Option<Instant>) -> Self {
        let allocator = Allocator::Scripted {
            capacity: LINK_RATE,
            fair_share: LINK_RATE,
        };
        Pair::new(config, size, deadline, allocator)
    }

    /// The allocator writes its answer to one request into the header.
    fn allocate(&mut self, h: &mut CongestionHeader) {
        match &mut self.allocator {
            Allocator::Scripted {
                capacity,
                fair_share,
            } => {
                let a = if h.fin {
                    0
                } else {
                    RateField::Exact.grant((h.desired + *fair_share).min(*capacity), self.base_rate)
                };
                assert!(h.record_alloc(a));
            }
            Allocator::D3(router) => assert!(router.handle_header(h, 0).took_part()),
        }
    }

    /// Allocates, then queues the packet on the link (a drop happens after the allocator, as
    /// at a congested port, which then takes back what it granted), then the delay.
    fn transmit(&mut self, mut seg: D3Segment) {
        if let Some(mut h) = seg.header {
            self.allocate(&mut h);
            seg.header = Some(h);
        }
        let n = self.packets_sent;
        self.packets_sent += 1;
        let dropped = self.drop_packets.contains(&n);
        if let Allocator::D3(router) = &mut self.allocator {
            router.on_bytes_sent(u64::from(seg.wire_bytes()));
            if let (true, Some(h)) = (dropped, seg.header.as_ref()) {
                router.handle_drop(h);
            }
        }
        if dropped {
            return;
        }
        let start = self.data_link_free.max(self.now);
        self.data_link_free = start + LINK.tx_time(u64::from(seg.wire_bytes()));
        self.to_receiver
            .push_back((self.data_link_free + self.delay, seg));
    }

    fn router_timeout(&self) -> Option<Instant> {
        match &self.allocator {
            Allocator::D3(router) => router.poll_timeout(),
            Allocator::Scripted { .. } => None,
        }
    }

    /// Runs until the flow completes and the link is empty, or nothing is left to happen before
    /// `limit`.
    pub(super) fn run(&mut self, limit: Instant) -> bool {
        loop {
            while let Some(seg) = self.sender.poll_transmit(self.now) {
                self.transmit(seg);
            }
            while let Some((ack, feedback)) = self.receiver.poll_ack(self.now) {
                self.to_sender
                    .push_back((self.now + self.delay, ack, feedback));
            }
            // Delivers what is still in flight (a quenching FIN) before stopping.
            if self.sender.is_complete() && self.to_receiver.is_empty() && self.to_sender.is_empty()
            {
                return true;
            }
            let next = [
                self.to_receiver.front().map(|&(t, _)| t),
                self.to_sender.front().map(|&(t, _, _)| t),
                self.sender.poll_timeout(),
                self.receiver.poll_timeout(),
                self.router_timeout(),
            ]
            .into_iter()
            .flatten()
            .min();
            match next {
                Some(t) if t <= limit => self.now = self.now.max(t),
                _ => return false,
            }
            while let Some(&(t, seg)) = self.to_receiver.front() {
                if t > self.now {
                    break;
                }
                self.to_receiver.pop_front();
                self.receiver
                    .handle_data(self.now, &seg.data, seg.header.as_ref());
            }
            while let Some(&(t, ack, feedback)) = self.to_sender.front() {
                if t > self.now {
                    break;
                }
                self.to_sender.pop_front();
                self.sender.handle_ack(self.now, &ack, feedback.as_ref());
            }
            // Called every step, due or not: all must ignore early calls.
            self.sender.handle_timeout(self.now);
            self.receiver.handle_timeout(self.now);
            let backlog = self.data_link_free.saturating_since(self.now);
            if let Allocator::D3(router) = &mut self.allocator {
                router.handle_timeout(self.now, bytes_in(LINK_RATE, backlog));
            }
        }
    }

    /// When the flow completed, from time zero.
    pub(super) fn fct(&self) -> Duration {
        self.sender
            .completed_at()
            .unwrap()
            .saturating_since(Instant::ZERO)
    }
}
