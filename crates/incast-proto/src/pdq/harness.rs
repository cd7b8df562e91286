//! A many-to-one PDQ harness (after `d3/harness.rs` and quinn-proto's `tests/util.rs`): PDQ
//! senders on a few hosts, one switch whose port toward the receiver is the bottleneck, and one
//! receiver host holding an [`EchoReceiver`] per flow, driven in simulated time.
//!
//! ```text
//!  PdqSender ─► NIC's list (on_data) ─► uplink ─► bottleneck's list (on_data) ─► link ─► EchoReceiver
//!  PdqSender ◄─ NIC's list (on_ack) ◄─ downlink ◄─ bottleneck's list (on_ack) ◄─ receiver's uplink ◄┘
//! ```
//!
//! What it models, as the engine does (`incast_sim::pdq_port`, and `sim.rs`'s `enqueue`,
//! `pdq_ack_at` and `pdq_ack_at_sender`): every host's NIC is a PDQ port with its own list (a host
//! with several flows schedules them on its link as a switch would), and so is the switch's port
//! toward the receiver. A port's list sees each data packet, probe, SYN and FIN as it joins the
//! port's queue (Algorithm 1, with the bytes waiting there; like the engine's port, the packet
//! being serialized no longer counts), and each ACK of a flow whose data it sends as the ACK passes
//! the port's node on its way back (Algorithm 3): the bottleneck's as the ACK reaches the switch,
//! the NIC's as it reaches the sending host, before the sender. The receiver's NIC sends no flow's
//! data, so no list sees the ACKs there. Every link is a FIFO serializer at 1 Gbps with a 25 us
//! propagation delay, so a round trip is about 100 us, as on D3's testbed.
//!
//! What it leaves out: losses (every queue is unbounded, so a run has no drops and no
//! retransmissions, and conservation reads delivered = sent once the run is over); the host's
//! backlog bound (a PDQ sender is paced at the rate its NIC's list accepts, so its NIC holds a
//! packet or two); ECMP and paths of more than one switch; and any randomness: the scenario, built
//! by a test or by proptest, decides everything.
//!
//! Besides the event log, the harness records what the tests judge PDQ by: each port's decisions
//! checked against the flows ahead of the flow it accepts, the spans during which the bottleneck's
//! list holds more than its link, and the longest round trips, which bound how long PDQ's
//! preemption takes to reach a sender.

use std::collections::VecDeque;

use super::header::{SchedulingHeader, SwitchId, PDQ_HEADER_BYTES};
use super::sender::{PdqConfig, PdqSegment, PdqSender};
use super::switch::{Decision, PdqSwitch, SwitchConfig};
use crate::rate::{from_bits_per_sec, Rate};
use crate::tcp::{AckSegment, EchoReceiver, TcpConfig};
use crate::time::{BitsPerSec, Duration, Instant};

/// Every link's rate.
pub(super) const LINK: BitsPerSec = BitsPerSec::GBPS;
/// [`LINK`] in bytes per second.
pub(super) const LINK_RATE: Rate = from_bits_per_sec(LINK);
/// Propagation delay of every link.
const DELAY: Duration = Duration::from_us(25);
/// The bottleneck port's identity in P_H; host `h`'s NIC is `NIC_BASE + h`.
const BOTTLENECK: SwitchId = 0;
pub(super) const NIC_BASE: SwitchId = 100;

/// One flow of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FlowSpec {
    /// The sending host: flows of one host share its NIC, its list and its uplink.
    pub(super) host: usize,
    pub(super) size: u64,
    /// Relative to the flow's start.
    pub(super) deadline: Option<Duration>,
    pub(super) start: Duration,
}

impl FlowSpec {
    /// `size` bytes from `host` at time 0, without a deadline.
    pub(super) fn new(host: usize, size: u64) -> FlowSpec {
        FlowSpec { host, size, deadline: None, start: Duration::ZERO }
    }

    pub(super) fn due_in(self, deadline: Duration) -> FlowSpec {
        FlowSpec { deadline: Some(deadline), ..self }
    }

    pub(super) fn starting_at(self, start: Duration) -> FlowSpec {
        FlowSpec { start, ..self }
    }
}

/// The knobs a scenario varies besides its flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Params {
    /// K of Early Start at every port (PDQ: 2; 0 turns it off).
    pub(super) early_start_rtts: u32,
    /// Early Termination for the flows with a deadline.
    pub(super) early_termination: bool,
}

impl Default for Params {
    /// incast's defaults (`[pdq]`, docs/pdq.md).
    fn default() -> Params {
        Params { early_start_rtts: 2, early_termination: true }
    }
}

/// A packet on a link: when the port starts serializing it and when it reaches the far end.
struct Hop<T> {
    starts_at: Instant,
    arrives_at: Instant,
    bytes: u64,
    packet: T,
}

/// A FIFO port and its link: serialization at [`LINK`], then [`DELAY`].
struct Link<T> {
    /// When the port finishes serializing what it holds.
    free_at: Instant,
    /// Waiting, being serialized or on the wire, in order.
    wire: VecDeque<Hop<T>>,
}

impl<T> Link<T> {
    fn new() -> Self {
        Link { free_at: Instant::ZERO, wire: VecDeque::new() }
    }

    /// Bytes waiting at the port, not the packet being serialized: what the engine's port counts
    /// (`Port::serve` takes a packet's bytes off `queued_bytes` as it starts serializing it).
    fn queue_bytes(&self, now: Instant) -> u64 {
        self.wire.iter().rev().take_while(|h| h.starts_at > now).map(|h| h.bytes).sum()
    }

    fn send(&mut self, now: Instant, bytes: u64, packet: T) {
        let starts_at = self.free_at.max(now);
        self.free_at = starts_at + LINK.tx_time(bytes);
        self.wire.push_back(Hop { starts_at, arrives_at: self.free_at + DELAY, bytes, packet });
    }

    fn next_arrival(&self) -> Option<Instant> {
        self.wire.front().map(|h| h.arrives_at)
    }

    /// The next packet to reach the far end by `now`.
    fn arrived(&mut self, now: Instant) -> Option<T> {
        if self.wire.front()?.arrives_at > now {
            return None;
        }
        self.wire.pop_front().map(|h| h.packet)
    }

    fn is_empty(&self) -> bool {
        self.wire.is_empty()
    }
}

/// A data packet, probe, SYN or FIN of flow `flow`.
#[derive(Clone, Copy, Debug)]
struct Data {
    flow: usize,
    seg: PdqSegment,
}

/// An ACK of flow `flow` and the header it echoes.
#[derive(Clone, Copy, Debug)]
struct Ack {
    flow: usize,
    ack: AckSegment,
    echo: Option<SchedulingHeader>,
}

impl Ack {
    fn wire_bytes(&self) -> u64 {
        u64::from(self.ack.wire_bytes()) + if self.echo.is_some() { u64::from(PDQ_HEADER_BYTES) } else { 0 }
    }
}

/// What happened, in order: the harness's event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    /// A port's list decided on a packet of `flow` (Algorithm 1).
    Decided { at: Instant, port: SwitchId, flow: usize, seq: u64, len: u32, decision: Decision },
    /// A packet of `flow` reached the receiver.
    Delivered { at: Instant, flow: usize, seq: u64, len: u32 },
    /// An ACK of `flow` reached its sender with the answer the ports left in it.
    Answered { at: Instant, flow: usize, ack: u64, rate: Rate, pause_by: Option<SwitchId> },
    /// The receiver of `flow` holds every byte.
    Finished { at: Instant, flow: usize },
}

/// A PDQ port: its list and its link, and what the harness remembers to check the list by.
struct Port {
    /// Its identity in P_H.
    id: SwitchId,
    list: PdqSwitch,
    link: Link<Data>,
    /// Each flow's T_H and RTT_H as the port last read them (Algorithm 1 step 3): what Early
    /// Start judges the flow by.
    seen: Vec<Option<(Duration, Duration)>>,
}

impl Port {
    /// incast's `[pdq]` defaults but for K.
    fn new(id: SwitchId, params: Params, flows: usize) -> Port {
        let config = SwitchConfig {
            id,
            link_rate: LINK_RATE,
            early_start_rtts: params.early_start_rtts,
            probe_spacing: 200,
            dampening: Duration::from_us(10),
            max_flows: 200,
        };
        Port { id, list: PdqSwitch::new(config), link: Link::new(), seen: vec![None; flows] }
    }

    /// The sum of R_i over the listed flows no port has paused.
    fn rates_of_unpaused(&self) -> Rate {
        self.list.flows().filter(|&(_, _, p)| p.is_none()).map(|(_, r, _)| r).sum()
    }

    /// Whether Early Start may leave `flow` out of Availbw for the flows behind it: its T under K
    /// of its RTTs (Algorithm 2, before the cap on the RTTs left out in all).
    fn may_start_early(&self, flow: usize, k: u32) -> bool {
        self.seen[flow].is_some_and(|(t, rtt)| rtt > Duration::ZERO && u128::from(t.as_ps()) < u128::from(k) * u128::from(rtt.as_ps()))
    }

    /// Algorithm 1 on a packet of `flow` leaving through this port. An acceptance is checked: at
    /// most what the header asked for, and at most the link less the rates of the flows ahead
    /// that Early Start cannot leave out.
    fn decide(&mut self, now: Instant, flow: usize, header: &mut SchedulingHeader, k: u32, overcommits: &mut Vec<String>) -> Decision {
        let asked = header.rate;
        if !header.fin {
            self.seen[flow] = Some((header.expected_time, header.rtt));
        }
        let decision = self.list.on_data(now, flow as u32, header, self.link.queue_bytes(now));
        if let Decision::Accepted(w) = decision {
            let listed: Vec<_> = self.list.flows().collect();
            let i = listed.iter().position(|&(f, _, _)| f == flow as u32).expect("an accepted flow is listed");
            let ahead: Rate = listed[..i].iter().filter(|&&(f, _, _)| !self.may_start_early(f as usize, k)).map(|&(_, r, _)| r).sum();
            if w > asked || w + ahead > LINK_RATE {
                overcommits.push(format!("{now}: port {} accepted flow {flow} at {w} (asked {asked}) behind {ahead} in {listed:?}", self.id));
            }
        }
        decision
    }
}

/// What the harness found wrong (all empty in a correct run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Violations {
    /// A port accepted a flow at more than its header asked for, or at more than the link left
    /// after the flows ahead of it that Early Start could not leave out.
    overcommits: Vec<String>,
    /// A data packet reached the receiver out of order (a gap or a duplicate: without losses
    /// there is neither).
    out_of_order: Vec<String>,
    /// A listed flow with a rate over the link, or paused yet holding a rate.
    list: Vec<String>,
}

/// Senders, ports and receivers of one scenario, driven in simulated time.
pub(super) struct Net {
    now: Instant,
    params: Params,
    pub(super) specs: Vec<FlowSpec>,
    /// `None` until the flow starts.
    senders: Vec<Option<PdqSender>>,
    pub(super) receivers: Vec<EchoReceiver<SchedulingHeader>>,
    /// Host `h`'s NIC.
    nics: Vec<Port>,
    /// The switch's port toward host `h`, carrying ACKs.
    downlinks: Vec<Link<Ack>>,
    bottleneck: Port,
    /// The receiver's NIC, carrying ACKs.
    ack_uplink: Link<Ack>,
    pub(super) log: Vec<Event>,
    /// Packets (data, probes, SYNs, FINs and ACKs) put on a first link, and taken off a last.
    pub(super) sent: u64,
    pub(super) delivered: u64,
    pub(super) violations: Violations,
    /// Each span over which the bottleneck's list held more than its link for flows no port
    /// paused: (from, to).
    pub(super) overbooked: Vec<(Instant, Instant)>,
    pub(super) overbooked_since: Option<Instant>,
    /// For each flow, when the bottleneck decided on each of its packets whose answer has not
    /// come back through the switch yet, in order (paths are FIFO, and every packet carries a
    /// header the receiver answers once).
    awaiting_answer: Vec<VecDeque<Instant>>,
    /// The longest a bottleneck decision took to come back through the switch on its ACK.
    longest_answer: Duration,
    /// The largest RTT_H (a sender's smoothed RTT) the bottleneck read.
    pub(super) largest_rtt: Duration,
}

fn tcp_config() -> TcpConfig {
    // As the engine gives PDQ (`incast_sim::flow`): no SACK, no PRR.
    TcpConfig { sack: false, prr: false, ..TcpConfig::default() }
}

impl Net {
    pub(super) fn new(specs: &[FlowSpec], params: Params) -> Net {
        let hosts = specs.iter().map(|s| s.host + 1).max().unwrap_or(0);
        let n = specs.len();
        Net {
            now: Instant::ZERO,
            params,
            specs: specs.to_vec(),
            senders: (0..n).map(|_| None).collect(),
            receivers: (0..n).map(|_| EchoReceiver::new(&tcp_config())).collect(),
            nics: (0..hosts).map(|h| Port::new(NIC_BASE + h as SwitchId, params, n)).collect(),
            downlinks: (0..hosts).map(|_| Link::new()).collect(),
            bottleneck: Port::new(BOTTLENECK, params, n),
            ack_uplink: Link::new(),
            log: Vec::new(),
            sent: 0,
            delivered: 0,
            violations: Violations::default(),
            overbooked: Vec::new(),
            overbooked_since: None,
            awaiting_answer: vec![VecDeque::new(); n],
            longest_answer: Duration::ZERO,
            largest_rtt: Duration::ZERO,
        }
    }

    /// Runs until every flow is complete and every link empty, or nothing is left to happen
    /// before `limit`.
    pub(super) fn run(&mut self, limit: Instant) -> bool {
        loop {
            self.start_flows();
            self.poll_endpoints();
            self.check_step();
            if self.done() {
                return true;
            }
            let starts = self.specs.iter().zip(&self.senders).filter(|(_, s)| s.is_none()).map(|(f, _)| Instant::ZERO + f.start);
            let data = self.nics.iter().map(|p| &p.link).chain([&self.bottleneck.link]).filter_map(Link::next_arrival);
            let acks = self.downlinks.iter().chain([&self.ack_uplink]).filter_map(Link::next_arrival);
            let next = starts
                .chain(data)
                .chain(acks)
                .chain(self.senders.iter().flatten().filter_map(PdqSender::poll_timeout))
                .chain(self.receivers.iter().filter_map(EchoReceiver::poll_timeout))
                .min();
            match next {
                Some(t) if t <= limit => self.now = self.now.max(t),
                _ => return false,
            }
            self.deliver();
            // Called every step, due or not: both must ignore early calls.
            for s in self.senders.iter_mut().flatten() {
                s.handle_timeout(self.now);
            }
            for r in &mut self.receivers {
                r.handle_timeout(self.now);
            }
        }
    }

    fn start_flows(&mut self) {
        for (spec, sender) in self.specs.iter().zip(&mut self.senders) {
            if sender.is_none() && Instant::ZERO + spec.start <= self.now {
                let early_termination = self.params.early_termination && spec.deadline.is_some();
                let config = PdqConfig { tcp: tcp_config(), max_rate: LINK_RATE, early_termination };
                *sender = Some(PdqSender::new(config, Some(spec.size), spec.deadline.map(|d| self.now + d), self.now));
            }
        }
    }

    /// Every sender sends what it may, through its NIC's list onto its uplink; every receiver's
    /// ACKs go onto the receiver's uplink.
    fn poll_endpoints(&mut self) {
        let now = self.now;
        for flow in 0..self.specs.len() {
            while let Some(mut seg) = self.senders[flow].as_mut().and_then(|s| s.poll_transmit(now)) {
                self.sent += 1;
                let nic = &mut self.nics[self.specs[flow].host];
                let decision = nic.decide(now, flow, &mut seg.header, self.params.early_start_rtts, &mut self.violations.overcommits);
                self.log.push(Event::Decided { at: now, port: nic.id, flow, seq: seg.data.seq, len: seg.data.len, decision });
                nic.link.send(now, u64::from(seg.data.wire_bytes() + PDQ_HEADER_BYTES), Data { flow, seg });
            }
        }
        for (flow, r) in self.receivers.iter_mut().enumerate() {
            while let Some((ack, echo)) = r.poll_ack(now) {
                self.sent += 1;
                let a = Ack { flow, ack, echo };
                self.ack_uplink.send(now, a.wire_bytes(), a);
            }
        }
    }

    /// Everything that reaches the end of a link at `now`, link by link.
    fn deliver(&mut self) {
        let now = self.now;
        for h in 0..self.nics.len() {
            while let Some(Data { flow, mut seg }) = self.nics[h].link.arrived(now) {
                let port = &mut self.bottleneck;
                self.largest_rtt = self.largest_rtt.max(seg.header.rtt);
                let decision = port.decide(now, flow, &mut seg.header, self.params.early_start_rtts, &mut self.violations.overcommits);
                self.log.push(Event::Decided { at: now, port: port.id, flow, seq: seg.data.seq, len: seg.data.len, decision });
                self.awaiting_answer[flow].push_back(now);
                port.link.send(now, u64::from(seg.data.wire_bytes() + PDQ_HEADER_BYTES), Data { flow, seg });
            }
        }
        while let Some(Data { flow, seg }) = self.bottleneck.link.arrived(now) {
            self.delivered += 1;
            let r = &mut self.receivers[flow];
            let (d, before) = (seg.data, r.bytes_received_in_order());
            if d.len > 0 && d.seq != before {
                self.violations.out_of_order.push(format!("{now}: flow {flow} got {}..{} holding {before}", d.seq, d.end()));
            }
            r.handle_data(now, &d, Some(seg.header));
            self.log.push(Event::Delivered { at: now, flow, seq: d.seq, len: d.len });
            let size = self.specs[flow].size;
            if before < size && r.bytes_received_in_order() >= size {
                self.log.push(Event::Finished { at: now, flow });
            }
        }
        while let Some(mut a) = self.ack_uplink.arrived(now) {
            if let Some(echo) = a.echo.as_mut() {
                self.bottleneck.list.on_ack(a.flow as u32, echo);
                let decided = self.awaiting_answer[a.flow].pop_front().expect("an answer to a decided packet");
                self.longest_answer = self.longest_answer.max(now.saturating_since(decided));
            }
            self.downlinks[self.specs[a.flow].host].send(now, a.wire_bytes(), a);
        }
        for h in 0..self.downlinks.len() {
            while let Some(mut a) = self.downlinks[h].arrived(now) {
                self.delivered += 1;
                if let Some(echo) = a.echo.as_mut() {
                    self.nics[h].list.on_ack(a.flow as u32, echo);
                }
                let sender = self.senders[a.flow].as_mut().expect("an ACK of a started flow");
                sender.handle_ack(now, &a.ack, a.echo.as_ref());
                let (rate, pause_by) = a.echo.map_or((0, None), |e| (e.rate, e.pause_by));
                self.log.push(Event::Answered { at: now, flow: a.flow, ack: a.ack.ack, rate, pause_by });
            }
        }
    }

    fn in_flight(&self) -> u64 {
        let data = self.nics.iter().map(|p| &p.link).chain([&self.bottleneck.link]).map(|l| l.wire.len());
        let acks = self.downlinks.iter().chain([&self.ack_uplink]).map(|l| l.wire.len());
        data.chain(acks).sum::<usize>() as u64
    }

    /// After every step: packets are conserved, every list is sane, and the bottleneck's
    /// overbooking is recorded.
    fn check_step(&mut self) {
        assert_eq!(self.sent, self.delivered + self.in_flight(), "packets conserved at {}", self.now);
        for port in self.nics.iter().chain([&self.bottleneck]) {
            for (flow, rate, pause_by) in port.list.flows() {
                if rate > LINK_RATE || (pause_by.is_some() && rate > 0) {
                    self.violations.list.push(format!("{}: port {} lists flow {flow} at {rate}, paused by {pause_by:?}", self.now, port.id));
                }
            }
        }
        let over = self.bottleneck.rates_of_unpaused() > LINK_RATE;
        match (over, self.overbooked_since) {
            (true, None) => self.overbooked_since = Some(self.now),
            (false, Some(since)) => {
                self.overbooked.push((since, self.now));
                self.overbooked_since = None;
            }
            _ => {}
        }
    }

    fn done(&self) -> bool {
        self.senders.iter().all(|s| s.as_ref().is_some_and(PdqSender::is_complete))
            && self.nics.iter().all(|p| p.link.is_empty())
            && self.bottleneck.link.is_empty()
            && self.downlinks.iter().chain([&self.ack_uplink]).all(Link::is_empty)
    }

    /// When the receiver of each flow came to hold every byte.
    pub(super) fn finished_at(&self) -> Vec<Option<Instant>> {
        let mut at = vec![None; self.specs.len()];
        for e in &self.log {
            if let Event::Finished { at: t, flow } = *e {
                at[flow] = Some(t);
            }
        }
        at
    }

    pub(super) fn sender(&self, flow: usize) -> &PdqSender {
        self.senders[flow].as_ref().expect("a started flow")
    }

    /// The bottleneck's decisions on `flow`'s packets: (when, sequence, payload, decision).
    pub(super) fn decisions(&self, flow: usize) -> Vec<(Instant, u64, u32, Decision)> {
        self.log
            .iter()
            .filter_map(|e| match *e {
                Event::Decided { at, port: BOTTLENECK, flow: f, seq, len, decision } if f == flow => Some((at, seq, len, decision)),
                _ => None,
            })
            .collect()
    }

    /// Two round trips as long as the run's longest: how long PDQ takes to undo an acceptance
    /// that overtook a sending flow. Within the first (a probe spacing at the largest RTT_H: a
    /// sender never goes longer between packets, and Suppressed Probing keeps the spacing at one
    /// RTT while the list holds five flows or fewer) a packet of the overtaken flow reaches the
    /// port and is paused; within the longest answer round trip the answers to its earlier
    /// packets, each restoring its rate as it passes the switch (Algorithm 3), and then the
    /// pausing answer have come back.
    pub(super) fn round_trips(&self) -> Duration {
        self.largest_rtt + self.longest_answer
    }
}
