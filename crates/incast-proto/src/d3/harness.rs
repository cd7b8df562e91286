//! A two-endpoint D3 harness (after quinn-proto's `tests/util.rs`): one sender and one receiver
//! over an ideal link with a fixed one-way delay and a serialization rate on the data direction,
//! one rate allocator in front of that link, and a set of packets to drop.

use std::collections::VecDeque;

use super::field::RateField;
use super::header::{CongestionHeader, Feedback};
use super::host::{D3Config, D3Segment, D3Sender};
use crate::rate::{bytes_in, Rate};
use super::receiver::D3Receiver;
use super::router::{Router, RouterConfig};
use crate::tcp::{AckSegment, TcpConfig, MSS_BYTES};
use crate::time::{BitsPerSec, Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;
const LINK: BitsPerSec = BitsPerSec::GBPS;
const LINK_RATE: Rate = 125_000_000;

/// The allocator in front of the data link.
enum Allocator {
    /// a = min(r + fair_share, capacity), or the base grant at or below the base rate, nothing on
    /// a FIN: Section 4.2's rule for an uncongested router, without counters.
    Scripted { capacity: Rate, fair_share: Rate },
    /// The real per-port allocator.
    D3(Box<Router>),
}

/// A D3 sender and receiver joined by a link, driven in simulated time.
struct Pair {
    now: Instant,
    sender: D3Sender,
    receiver: D3Receiver,
    allocator: Allocator,
    base_rate: Rate,
    delay: Duration,
    /// When the data direction finishes serializing what it holds.
    data_link_free: Instant,
    to_receiver: VecDeque<(Instant, D3Segment)>,
    to_sender: VecDeque<(Instant, AckSegment, Option<Feedback>)>,
    /// Packets to lose, by their position in the sender's output (0 is the SYN).
    drop_packets: Vec<u64>,
    packets_sent: u64,
}

impl Pair {
    fn new(config: D3Config, size: u64, deadline: Option<Instant>, allocator: Allocator) -> Self {
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
    fn scripted(config: D3Config, size: u64, deadline: Option<Instant>) -> Self {
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
    fn run(&mut self, limit: Instant) -> bool {
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

    fn fct(&self) -> Duration {
        self.sender
            .completed_at()
            .unwrap()
            .saturating_since(Instant::ZERO)
    }
}

const SIZE_100KB: u64 = 100_000;

fn config() -> D3Config {
    D3Config::new(
        TcpConfig {
            min_rto: Duration::from_ms(10),
            ..TcpConfig::default()
        },
        LINK,
    )
}

fn limit() -> Instant {
    Instant::ZERO + Duration::from_secs(10)
}

fn ms(t: u64) -> Instant {
    Instant::ZERO + Duration::from_ms(t)
}

#[test]
fn transfer_100kb_fair_share_completes_without_loss() {
    let mut p = Pair::scripted(config(), SIZE_100KB, None);
    assert!(p.run(limit()));
    assert!(!p.sender.quenched());
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    assert!(p.receiver.fin_received());
    let s = p.sender.stats();
    assert_eq!(
        (s.retransmitted_bytes, s.timeouts, s.request_timeouts),
        (0, 0, 0)
    );
    assert_eq!(s.segments_sent, SIZE_100KB.div_ceil(MSS));
    assert_eq!(s.bytes_acked, SIZE_100KB);
    // The SYN, one request per interval, and the FIN's interval counted among them.
    assert_eq!(s.rate_requests, s.intervals + 1);
    // 100 KB at 1 Gbps is 800 us; the handshake and the first, RTT-long burst add a few RTTs
    // of 100 us.
    let fct = p.fct();
    assert!(fct < Duration::from_us(1_500), "fct {fct}");
}

#[test]
fn transfer_100kb_real_router_pauses_new_flow_and_returns_allocation() {
    let router = Router::new(RouterConfig::for_link(LINK), Instant::ZERO);
    let mut p = Pair::new(config(), SIZE_100KB, None, Allocator::D3(Box::new(router)));
    assert!(p.run(limit()));
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    // Section 4.5: a new flow is given the base rate, so it pauses for its first RTT.
    assert_eq!(p.sender.stats().paused_intervals, 1);
    assert_eq!(p.sender.stats().retransmitted_bytes, 0);
    let Allocator::D3(router) = &p.allocator else {
        unreachable!()
    };
    let c = router.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (0, 0, 0));
}

/// 100 KB due in 2 ms (50 MB/s) behind a router that gives at most 25 MB/s, late or not.
fn impossible_deadline(quench: bool) -> Pair {
    let allocator = Allocator::Scripted {
        capacity: 25_000_000,
        fair_share: 25_000_000,
    };
    let mut p = Pair::new(
        D3Config { quench, ..config() },
        SIZE_100KB,
        Some(ms(2)),
        allocator,
    );
    assert!(p.run(limit()));
    p
}

#[test]
fn transfer_impossible_deadline_quenched_with_quench() {
    let p = impossible_deadline(true);
    assert!(p.sender.quenched());
    assert!(p.receiver.fin_received());
    assert!(p.receiver.bytes_received_in_order() < SIZE_100KB);
    // Given up within about an RTT of the deadline, not run on for the 4 ms it would take.
    let fct = p.fct();
    assert!(fct < Duration::from_us(2_300), "fct {fct}");
}

#[test]
fn transfer_impossible_deadline_completes_late_without_quench() {
    let p = impossible_deadline(false);
    assert!(!p.sender.quenched());
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    // 100 KB at 25 MB/s is 4 ms.
    let fct = p.fct();
    assert!(fct > Duration::from_ms(4), "fct {fct}");
    assert!(fct < Duration::from_ms(5), "fct {fct}");
}

#[test]
fn transfer_lost_syn_and_data_recovered() {
    let mut p = Pair::scripted(config(), SIZE_100KB, None);
    // The SYN, the first interval's request (on segment 0) and a plain segment.
    p.drop_packets = vec![0, 2, 8];
    assert!(p.run(limit()));
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    let s = p.sender.stats();
    assert_eq!(s.request_timeouts, 2, "{s:?}");
    assert!(s.retransmitted_bytes >= 2 * MSS, "{s:?}");
}

#[test]
fn transfer_run_twice_identical() {
    let run = || {
        let mut p = Pair::scripted(config(), SIZE_100KB, None);
        p.drop_packets = vec![3, 20, 21, 40];
        assert!(p.run(limit()));
        (p.sender.stats(), p.sender.completed_at(), p.packets_sent)
    };
    assert_eq!(run(), run());
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever packets are lost (SYN, requests, data, the FIN), the flow completes and
        /// every byte arrives in order.
        #[test]
        fn transfer_random_drops_always_completes(
            drops in proptest::collection::btree_set(0u64..80, 0..12),
            tail in 0u64..MSS,
            real_router in any::<bool>(),
        ) {
            let size = 59 * MSS + tail + 1;
            let mut p = if real_router {
                let router = Router::new(RouterConfig::for_link(LINK), Instant::ZERO);
                Pair::new(config(), size, None, Allocator::D3(Box::new(router)))
            } else {
                Pair::scripted(config(), size, None)
            };
            p.drop_packets = drops.iter().copied().collect();
            prop_assert!(p.run(limit()));
            prop_assert_eq!(p.receiver.bytes_received_in_order(), size);
            prop_assert_eq!(p.sender.stats().bytes_acked, size);
            if drops.is_empty() {
                prop_assert_eq!(p.sender.stats().retransmitted_bytes, 0);
            }
            if let Allocator::D3(router) = &p.allocator {
                // Requests dropped after the router processed them, a lost SYN and the
                // re-sent requests that follow: nothing leaks into the counters.
                let c = router.counters();
                prop_assert_eq!((c.flows, c.demand, c.allocated), (0, 0, 0));
            }
        }
    }
}
