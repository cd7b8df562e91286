//! A many-to-one Homa harness (after `pdq/harness.rs` and quinn-proto's `tests/util.rs`):
//! senders on a few hosts, one switch whose port toward the receiver is the bottleneck, and the
//! receiving host's [`HomaReceiver`], driven in simulated time.
//!
//! ```text
//!  HomaSender ─► host's queue (SRPT) ─► uplink ─► switch port (strict priority levels) ─► HomaReceiver
//!  HomaSender ◄────────────── GRANT / RESEND / ACK, after a fixed delay ◄────────────────────┘
//! ```
//!
//! What it models: each sending host's queue sends control packets first, then the packet of the
//! message with the fewest bytes left when it was queued (its earliest queued one), as the
//! engine's Homa NIC does; every link serializes at one rate and adds one propagation delay; the
//! switch port serves its levels in strict priority, FIFO within a level, and may hold a limited
//! number of packets (dropping arrivals beyond it). Control packets back to the senders are not
//! queued. A script drops chosen DATA packets at the switch. Delivery is told to a sender as soon
//! as its message is complete unless the configuration has ACKs, as the engine does.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::config::HomaConfig;
use super::header::HomaHeader;
use super::receiver::{HomaReceiver, MessageId};
use super::sender::{HomaSegment, HomaSender};
use crate::time::{BitsPerSec, Duration, Instant};

/// Every link's rate.
pub(super) const RATE: BitsPerSec = BitsPerSec(10_000_000_000);
/// Every link's propagation delay.
pub(super) const DELAY: Duration = Duration::from_ns(500);

/// A message of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Message {
    /// The sending host (1 up; 0 is the receiver).
    pub(super) host: u32,
    pub(super) size: u64,
    pub(super) start: Duration,
}

/// What the harness saw, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Seen {
    /// A packet reached the switch (`dropped` if the script or the buffer dropped it).
    AtSwitch { at: Instant, message: usize, header: HomaHeader, seq: u64, len: u32, dropped: bool },
    /// A control packet left the receiver.
    Control { at: Instant, message: usize, header: HomaHeader },
    /// A message's last byte arrived.
    Complete { at: Instant, message: usize },
}

/// A packet on its way to the receiver.
#[derive(Clone, Copy, Debug)]
struct Packet {
    message: usize,
    seg: HomaSegment,
    /// Bytes of the message not sent before this packet: the host queue's order.
    rank: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Start(usize),
    HostFree(u32),
    AtSwitch(u64),
    SwitchFree,
    AtReceiver(u64),
    AtSender(u64),
    Timer(usize),
}

/// Senders, a switch port and a receiver.
pub(super) struct Harness {
    config: HomaConfig,
    messages: Vec<Message>,
    senders: Vec<HomaSender>,
    receiver: HomaReceiver,
    now: Instant,
    events: BinaryHeap<Reverse<(Instant, u64, Event)>>,
    seq: u64,
    /// Packets in flight, by number.
    flying: Vec<Option<Packet>>,
    /// Control packets in flight, by number: (message, header).
    controls: Vec<Option<(usize, HomaHeader)>>,
    /// Each host's queue and whether its uplink is busy.
    hosts: Vec<(Vec<Packet>, bool)>,
    /// The switch port's levels, and whether it is serializing.
    port: (Vec<Vec<Packet>>, bool),
    /// The most packets the switch port holds waiting.
    limit: usize,
    /// DATA packets reaching the switch so far, numbered from 0, and those the script drops.
    data_seen: u64,
    drop: Vec<u64>,
    timer_at: Vec<Option<Instant>>,
    pub(super) log: Vec<Seen>,
    /// The most messages granted at once, after any scheduling pass.
    pub(super) most_granted: usize,
}

impl Harness {
    /// `messages` under `config`, the switch port holding any number of packets.
    pub(super) fn new(config: HomaConfig, messages: &[Message]) -> Harness {
        let hosts = messages.iter().map(|m| m.host).max().unwrap_or(0) as usize + 1;
        let mut h = Harness {
            config,
            messages: messages.to_vec(),
            senders: Vec::new(),
            receiver: HomaReceiver::new(config),
            now: Instant::ZERO,
            events: BinaryHeap::new(),
            seq: 0,
            flying: Vec::new(),
            controls: Vec::new(),
            hosts: vec![(Vec::new(), false); hosts],
            port: (vec![Vec::new(); usize::from(config.priorities.levels())], false),
            limit: usize::MAX,
            data_seen: 0,
            drop: Vec::new(),
            timer_at: vec![None; messages.len()],
            log: Vec::new(),
            most_granted: 0,
        };
        for (i, m) in messages.iter().enumerate() {
            h.senders.push(HomaSender::new(config, m.size, Instant::ZERO + m.start));
            h.push(Instant::ZERO + m.start, Event::Start(i));
        }
        h
    }

    /// Drops the DATA packets numbered `numbers` (counting from 0 as they reach the switch).
    pub(super) fn dropping(mut self, numbers: &[u64]) -> Harness {
        self.drop = numbers.to_vec();
        self
    }

    /// The switch port holds at most `packets` waiting.
    pub(super) fn buffer(mut self, packets: usize) -> Harness {
        self.limit = packets;
        self
    }

    /// Runs until nothing is left to do or `limit` of simulated time; whether every message
    /// arrived whole.
    pub(super) fn run(&mut self, limit: Duration) -> bool {
        let end = Instant::ZERO + limit;
        while let Some(Reverse((t, _, event))) = self.events.pop() {
            if t > end {
                break;
            }
            self.now = t;
            self.handle(event);
        }
        (0..self.messages.len()).all(|i| self.receiver.is_complete(i as MessageId))
    }

    /// The sender of message `i`.
    pub(super) fn sender(&self, i: usize) -> &HomaSender {
        &self.senders[i]
    }

    /// The receiving host.
    pub(super) fn receiver(&self) -> &HomaReceiver {
        &self.receiver
    }

    /// When message `i` completed.
    pub(super) fn completed(&self, i: usize) -> Option<Instant> {
        self.log.iter().find_map(|s| match *s {
            Seen::Complete { at, message } if message == i => Some(at),
            _ => None,
        })
    }

    fn push(&mut self, at: Instant, event: Event) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, event)));
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Start(i) => self.pump_sender(i),
            Event::HostFree(host) => {
                self.hosts[host as usize].1 = false;
                self.serve_host(host);
            }
            Event::AtSwitch(n) => self.at_switch(n),
            Event::SwitchFree => {
                self.port.1 = false;
                self.serve_port();
            }
            Event::AtReceiver(n) => self.at_receiver(n),
            Event::AtSender(n) => {
                let (i, header) = self.controls[n as usize].take().expect("a control packet in flight");
                let now = self.now;
                match header {
                    HomaHeader::Grant { offset, priority } => self.senders[i].handle_grant(now, offset, priority),
                    HomaHeader::Resend { start, len, priority } => {
                        let busy = self.hosts[self.messages[i].host as usize].0.iter().any(|p| p.message == i);
                        self.senders[i].handle_resend(now, start, len, priority, busy);
                    }
                    HomaHeader::Ack => self.senders[i].handle_delivered(),
                    HomaHeader::Data { .. } | HomaHeader::Busy => unreachable!("senders get control packets"),
                }
                self.pump_sender(i);
            }
            Event::Timer(i) => {
                if self.timer_at[i] != Some(self.now) {
                    return;
                }
                self.timer_at[i] = None;
                self.senders[i].handle_timeout(self.now);
                self.receiver.handle_timeout(self.now, i as MessageId);
                self.pump_sender(i);
                self.pump_receiver(i);
            }
        }
    }

    /// Hands message `i`'s packets to its host's queue.
    fn pump_sender(&mut self, i: usize) {
        let host = self.messages[i].host;
        while let Some(seg) = self.senders[i].poll_transmit(self.now) {
            let rank = if seg.header == HomaHeader::Busy { 0 } else { self.senders[i].size() - seg.data.seq };
            self.hosts[host as usize].0.push(Packet { message: i, seg, rank });
        }
        self.serve_host(host);
        self.arm(i);
    }

    fn serve_host(&mut self, host: u32) {
        let (queue, busy) = &mut self.hosts[host as usize];
        if *busy || queue.is_empty() {
            return;
        }
        let best = queue.iter().min_by_key(|p| p.rank).map(|p| p.message).expect("a packet waits");
        let first = queue.iter().position(|p| p.message == best).expect("its packet");
        let packet = queue.remove(first);
        *busy = true;
        let tx = RATE.tx_time(u64::from(packet.seg.data.wire_bytes()));
        let n = self.fly(packet);
        self.push(self.now + tx, Event::HostFree(host));
        self.push(self.now + tx + DELAY, Event::AtSwitch(n));
    }

    fn fly(&mut self, packet: Packet) -> u64 {
        self.flying.push(Some(packet));
        self.flying.len() as u64 - 1
    }

    fn at_switch(&mut self, n: u64) {
        let packet = self.flying[n as usize].expect("a packet in flight");
        let mut dropped = false;
        if matches!(packet.seg.header, HomaHeader::Data { .. }) {
            dropped = self.drop.contains(&self.data_seen);
            self.data_seen += 1;
        }
        let waiting: usize = self.port.0.iter().map(Vec::len).sum();
        dropped |= waiting >= self.limit;
        let seg = packet.seg;
        self.log.push(Seen::AtSwitch { at: self.now, message: packet.message, header: seg.header, seq: seg.data.seq, len: seg.data.len, dropped });
        if dropped {
            return;
        }
        let level = usize::from(seg.header.priority()).min(self.port.0.len() - 1);
        self.port.0[level].push(packet);
        self.serve_port();
    }

    fn serve_port(&mut self) {
        if self.port.1 {
            return;
        }
        let Some(level) = self.port.0.iter().position(|q| !q.is_empty()) else { return };
        let packet = self.port.0[level].remove(0);
        self.port.1 = true;
        let tx = RATE.tx_time(u64::from(packet.seg.data.wire_bytes()));
        let n = self.fly(packet);
        self.push(self.now + tx, Event::SwitchFree);
        self.push(self.now + tx + DELAY, Event::AtReceiver(n));
    }

    fn at_receiver(&mut self, n: u64) {
        let packet = self.flying[n as usize].take().expect("a packet in flight");
        let i = packet.message;
        let id = i as MessageId;
        match packet.seg.header {
            HomaHeader::Data { message_bytes, priority } => {
                let was = self.receiver.is_complete(id);
                self.receiver.handle_data(self.now, id, self.messages[i].host, message_bytes, priority, &packet.seg.data);
                if !was && self.receiver.is_complete(id) {
                    self.log.push(Seen::Complete { at: self.now, message: i });
                    if !self.config.ack {
                        self.senders[i].handle_delivered();
                    }
                }
            }
            HomaHeader::Busy => self.receiver.handle_busy(self.now, id),
            _ => unreachable!("the receiver gets DATA and BUSY"),
        }
        let granted = (0..self.messages.len()).filter(|&m| self.receiver.grant_of(m as MessageId).is_some_and(|g| g.1)).count();
        self.most_granted = self.most_granted.max(granted);
        self.pump_receiver(i);
        while let Some(other) = self.receiver.poll_wake() {
            self.pump_receiver(other as usize);
        }
    }

    /// Sends message `i`'s control packets back to its sender.
    fn pump_receiver(&mut self, i: usize) {
        while let Some(header) = self.receiver.poll_control(i as MessageId) {
            self.log.push(Seen::Control { at: self.now, message: i, header });
            self.controls.push(Some((i, header)));
            let n = self.controls.len() as u64 - 1;
            // Back over two links, each a control packet's serialization and a delay.
            let back = RATE.tx_time(u64::from(self.config.control_bytes)) + DELAY;
            self.push(self.now + back + back, Event::AtSender(n));
        }
        self.arm(i);
    }

    fn arm(&mut self, i: usize) {
        let due = [self.senders[i].poll_timeout(), self.receiver.poll_timeout(i as MessageId)].into_iter().flatten().min();
        if let Some(due) = due {
            let due = due.max(self.now + Duration::from_ps(1));
            if self.timer_at[i].is_none_or(|t| due < t) {
                self.timer_at[i] = Some(due);
                self.push(due, Event::Timer(i));
            }
        }
    }
}
