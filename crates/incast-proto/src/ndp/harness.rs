//! A many-to-one NDP harness (after `pdq/harness.rs` and quinn-proto's `tests/util.rs`): NDP
//! senders on their own hosts, one switch port toward the receiver (a [`TrimmingQueue`]), and
//! the receiver's host, an [`NdpReceiver`] per flow behind one NIC ([`HostQueue`], its PULL
//! pacer shared by the flows), driven in simulated time.
//!
//! ```text
//!  NdpSender ─ its NIC (FIFO) ─► TrimmingQueue ─► link ─► NdpReceiver (one per flow)
//!  NdpSender ◄──────────── ideal path back ◄──────── HostQueue (classes + PullPacer) ◄┘
//! ```
//!
//! Every link runs at 10 Gbps with a 1 us delay; the way back beyond the receiver's NIC is
//! ideal (no queue). A script may drop chosen packets at the switch port; what arrives and what
//! leaves the receiver's NIC is logged for the tests to judge.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::host::{HostClass, HostQueue};
use super::packet::{NdpHeader, NDP_HEADER_BYTES};
use super::receiver::NdpReceiver;
use super::sender::{NdpConfig, NdpSegment, NdpSender};
use super::switch::{Offered, TrimmingQueue};
use crate::time::{BitsPerSec, Duration, Instant};

const RATE: BitsPerSec = BitsPerSec(10_000_000_000);
const DELAY: Duration = Duration::from_us(1);
const MSS: u32 = 9000;

/// A packet toward the receiver: flow, the segment, and whether a switch trimmed it.
#[derive(Clone, Copy, Debug)]
struct Data {
    flow: usize,
    seg: NdpSegment,
    trimmed: bool,
}

impl Data {
    fn bytes(&self) -> u32 {
        NDP_HEADER_BYTES + if self.trimmed { 0 } else { self.seg.len }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Sender `i`'s NIC finished a packet.
    SenderNic(usize),
    /// A data packet reaches the switch port (index into `wire`).
    AtSwitch(usize),
    /// The switch port's serializer is free.
    SwitchFree,
    /// A data packet reaches the receiver.
    AtReceiver(usize),
    /// The receiver's NIC may send.
    ReceiverNic,
    /// An answer reaches its sender.
    AtSender(usize),
    /// Sender `i`'s timer.
    Timer(usize),
}

/// The harness's state.
struct Incast {
    now: Instant,
    events: BinaryHeap<Reverse<(Instant, u64, Event)>>,
    seq: u64,
    senders: Vec<NdpSender>,
    sender_nics: Vec<(VecDeque<NdpSegment>, Instant)>,
    receivers: Vec<NdpReceiver>,
    /// Packets on their way, by index.
    wire: Vec<Data>,
    answers: Vec<(usize, NdpHeader)>,
    switch: TrimmingQueue<usize>,
    switch_busy_until: Instant,
    nic: HostQueue<usize>,
    nic_busy_until: Instant,
    /// Data packets (by order of arrival at the switch) the script drops there.
    drop_at_switch: Vec<u64>,
    arrivals_at_switch: u64,
    /// What left the receiver's NIC: when, the answer, and whether its flow was whole by then.
    sent_back: Vec<(Instant, NdpHeader, bool)>,
    trims: u64,
    coin: u64,
}

impl Incast {
    fn new(flows: usize, size: u64, config: NdpConfig, queue_packets: u64) -> Incast {
        let mut h = Incast {
            now: Instant::ZERO,
            events: BinaryHeap::new(),
            seq: 0,
            senders: (0..flows).map(|_| NdpSender::new(config, Some(size), Instant::ZERO)).collect(),
            sender_nics: vec![(VecDeque::new(), Instant::ZERO); flows],
            receivers: vec![NdpReceiver::new(); flows],
            wire: Vec::new(),
            answers: Vec::new(),
            switch: TrimmingQueue::new(queue_packets * u64::from(MSS), NDP_HEADER_BYTES, RATE),
            switch_busy_until: Instant::ZERO,
            nic: HostQueue::new(drain()),
            nic_busy_until: Instant::ZERO,
            drop_at_switch: Vec::new(),
            arrivals_at_switch: 0,
            sent_back: Vec::new(),
            trims: 0,
            coin: 0x9E37_79B9_7F4A_7C15,
        };
        for i in 0..flows {
            h.pump(i);
        }
        h
    }

    fn at(&mut self, t: Instant, e: Event) {
        self.seq += 1;
        self.events.push(Reverse((t, self.seq, e)));
    }

    /// A coin for the switch: a fixed xorshift sequence, so runs repeat.
    fn toss(&mut self) -> bool {
        self.coin ^= self.coin << 13;
        self.coin ^= self.coin >> 7;
        self.coin ^= self.coin << 17;
        self.coin & 1 == 1
    }

    /// Sender `i` hands what it may send to its NIC, and arms its timer.
    fn pump(&mut self, i: usize) {
        while let Some(seg) = self.senders[i].poll_transmit(self.now) {
            let (queue, busy) = &mut self.sender_nics[i];
            if queue.is_empty() && *busy <= self.now {
                *busy = self.now + RATE.tx_time(u64::from(seg.len + NDP_HEADER_BYTES));
                let t = *busy;
                queue.push_back(seg);
                self.at(t, Event::SenderNic(i));
            } else {
                queue.push_back(seg);
            }
        }
        if let Some(t) = self.senders[i].poll_timeout() {
            self.at(t.max(self.now), Event::Timer(i));
        }
    }

    fn serve_switch(&mut self) {
        if self.switch_busy_until > self.now {
            return;
        }
        if let Some(w) = self.switch.next(self.now) {
            self.switch_busy_until = self.now + RATE.tx_time(u64::from(self.wire[w].bytes()));
            let (free, arrive) = (self.switch_busy_until, self.switch_busy_until + DELAY);
            self.at(free, Event::SwitchFree);
            self.at(arrive, Event::AtReceiver(w));
        }
    }

    fn serve_nic(&mut self) {
        if self.nic_busy_until > self.now {
            return;
        }
        if let Some(a) = self.nic.next(self.now) {
            self.nic_busy_until = self.now + RATE.tx_time(u64::from(NDP_HEADER_BYTES));
            let (flow, answer) = self.answers[a];
            self.sent_back.push((self.now, answer, self.receivers[flow].is_complete()));
            let (free, arrive) = (self.nic_busy_until, self.nic_busy_until + DELAY + DELAY);
            self.at(free, Event::ReceiverNic);
            self.at(arrive, Event::AtSender(a));
        } else if let Some(t) = self.nic.held_until() {
            self.at(t, Event::ReceiverNic);
        }
    }

    /// Runs until nothing is left to happen or `limit`; returns whether every flow completed.
    fn run(&mut self, limit: Duration) -> bool {
        while let Some(Reverse((t, _, e))) = self.events.pop() {
            if t > Instant::ZERO + limit {
                break;
            }
            self.now = t;
            match e {
                Event::SenderNic(i) => {
                    let seg = self.sender_nics[i].0.pop_front().expect("the NIC sent a packet");
                    let w = self.wire.len();
                    self.wire.push(Data { flow: i, seg, trimmed: false });
                    self.at(t + DELAY, Event::AtSwitch(w));
                    if let Some(next) = self.sender_nics[i].0.front() {
                        let done = t + RATE.tx_time(u64::from(next.len + NDP_HEADER_BYTES));
                        self.sender_nics[i].1 = done;
                        self.at(done, Event::SenderNic(i));
                    }
                }
                Event::AtSwitch(w) => {
                    let n = self.arrivals_at_switch;
                    self.arrivals_at_switch += 1;
                    if self.drop_at_switch.contains(&n) {
                        continue;
                    }
                    let coin = self.toss();
                    match self.switch.offer(t, w, self.wire[w].bytes(), true, false, || coin) {
                        Offered::Queued => {}
                        Offered::Trimmed { packet, .. } => {
                            self.wire[packet].trimmed = true;
                            self.trims += 1;
                        }
                        Offered::Dropped { .. } | Offered::Returned { .. } => panic!("the header queue holds thousands of headers"),
                    }
                    self.serve_switch();
                }
                Event::SwitchFree => self.serve_switch(),
                Event::AtReceiver(w) => {
                    let d = self.wire[w];
                    let len = if d.trimmed { 0 } else { d.seg.len };
                    self.receivers[d.flow].handle_data(d.seg.seq, len, d.seg.last);
                    while let Some(answer) = self.receivers[d.flow].poll_answer() {
                        let a = self.answers.len();
                        self.answers.push((d.flow, answer));
                        self.nic.offer(t, d.flow as u32, a, HostClass::of(&answer, false));
                        if let NdpHeader::Ack { done: true, .. } = answer {
                            self.nic.release_flow(t, d.flow as u32);
                        }
                    }
                    self.serve_nic();
                }
                Event::ReceiverNic => self.serve_nic(),
                Event::AtSender(a) => {
                    let (i, answer) = self.answers[a];
                    match answer {
                        NdpHeader::Ack { seq, cum_ack, .. } => self.senders[i].handle_ack(t, seq, cum_ack),
                        NdpHeader::Nack { seq, cum_ack, pull_no } => self.senders[i].handle_nack(t, seq, cum_ack, pull_no),
                        NdpHeader::Pull { pull_no, cum_ack } => self.senders[i].handle_pull(t, pull_no, cum_ack),
                        NdpHeader::Data { .. } => unreachable!(),
                    }
                    self.pump(i);
                }
                Event::Timer(i) => {
                    self.senders[i].handle_timeout(t);
                    self.pump(i);
                }
            }
        }
        self.senders.iter().all(NdpSender::is_complete)
    }
}

/// The pacer's drain time at 10 Gbps and 99%: 7.2512 us / 0.99.
fn drain() -> Duration {
    Duration::from_ps((RATE.tx_time(u64::from(MSS + NDP_HEADER_BYTES)).as_ps() as f64 / 0.99) as u64)
}

fn config() -> NdpConfig {
    NdpConfig { mss: MSS, initial_window: 23, rto: Duration::from_ms(1) }
}

#[test]
fn incast_completes_every_flow_trimming_instead_of_dropping() {
    let mut h = Incast::new(8, 50 * u64::from(MSS), config(), 8);
    assert!(h.run(Duration::from_secs(1)));
    assert!(h.receivers.iter().all(|r| r.in_order() == 50 * u64::from(MSS)));
    // Eight first windows of 23 packets meet at one port that holds seven: most are trimmed.
    assert!(h.trims > 100, "{} trims", h.trims);
    let resent: u64 = h.senders.iter().map(|s| s.stats().retransmitted_bytes).sum();
    assert_eq!(resent, h.trims * u64::from(MSS), "each trimmed packet sent again once");
    assert!(h.senders.iter().all(|s| s.stats().timeouts == 0));
}

#[test]
fn pulls_leave_the_receiver_no_closer_than_the_drain_time() {
    let mut h = Incast::new(8, 50 * u64::from(MSS), config(), 8);
    assert!(h.run(Duration::from_secs(1)));
    // The PULLs of flows not yet whole: those of whole flows leave at once, unpaced.
    let pulls: Vec<Instant> =
        h.sent_back.iter().filter(|(_, a, whole)| matches!(a, NdpHeader::Pull { .. }) && !whole).map(|&(t, ..)| t).collect();
    assert!(pulls.len() > 8 * 40, "{} PULLs", pulls.len());
    let gaps: Vec<u64> = pulls.windows(2).map(|w| w[1].as_ps() - w[0].as_ps()).collect();
    // The pacer lets one go per drain time (7.3245 us); the NIC may send one a 64 B answer's time
    // late (behind an ACK), so the next may follow that much sooner, and never sooner than that.
    let answer = RATE.tx_time(u64::from(NDP_HEADER_BYTES)).as_ps();
    let shortest = *gaps.iter().min().expect("gaps");
    assert!(shortest + answer >= drain().as_ps(), "a gap of {shortest} ps");
    let mut sorted = gaps.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    assert!(median >= drain().as_ps() && median <= drain().as_ps() + answer, "median gap {median} ps");
}

#[test]
fn incast_finishes_in_the_time_the_pacer_allows() {
    let mut h = Incast::new(8, 50 * u64::from(MSS), config(), 8);
    assert!(h.run(Duration::from_secs(1)));
    let done = h.sent_back.iter().filter_map(|&(t, a, _)| matches!(a, NdpHeader::Ack { done: true, .. }).then_some(t)).max().expect("acked");
    // 400 packets: at line rate 2.90 ms; at the pull rate, once the first windows are in,
    // 7.3245 us each: a little more, and not much.
    let line = RATE.tx_time(400 * u64::from(MSS + NDP_HEADER_BYTES));
    assert!(done > Instant::ZERO + line, "{done}");
    assert!(done < Instant::ZERO + drain().saturating_mul(400) + Duration::from_us(100), "{done}");
}

#[test]
fn loss_of_a_packet_outright_is_recovered_by_the_timeout() {
    let mut h = Incast::new(2, 30 * u64::from(MSS), config(), 8);
    h.drop_at_switch = vec![3, 40];
    assert!(h.run(Duration::from_secs(1)));
    assert!(h.receivers.iter().all(|r| r.in_order() == 30 * u64::from(MSS)));
    let timeouts: u64 = h.senders.iter().map(|s| s.stats().timeouts).sum();
    assert!((1..=2).contains(&timeouts), "{timeouts} timeouts");
}

#[test]
fn same_script_same_packets() {
    let run = || {
        let mut h = Incast::new(4, 20 * u64::from(MSS), config(), 8);
        h.drop_at_switch = vec![5];
        assert!(h.run(Duration::from_secs(1)));
        h.sent_back
    };
    assert_eq!(run(), run());
}
