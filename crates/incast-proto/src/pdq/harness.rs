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
use crate::rate::{bytes_in, from_bits_per_sec, Rate};
use crate::tcp::{AckSegment, EchoReceiver, TcpConfig, HEADER_BYTES, MSS_BYTES};
use crate::time::{BitsPerSec, Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;
const LINK: BitsPerSec = BitsPerSec::GBPS;
const LINK_RATE: Rate = from_bits_per_sec(LINK);
/// Propagation delay of every link.
const DELAY: Duration = Duration::from_us(25);
/// The bottleneck port's identity in P_H; host `h`'s NIC is `NIC_BASE + h`.
const BOTTLENECK: SwitchId = 0;
const NIC_BASE: SwitchId = 100;

/// One flow of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FlowSpec {
    /// The sending host: flows of one host share its NIC, its list and its uplink.
    host: usize,
    size: u64,
    /// Relative to the flow's start.
    deadline: Option<Duration>,
    start: Duration,
}

impl FlowSpec {
    /// `size` bytes from `host` at time 0, without a deadline.
    fn new(host: usize, size: u64) -> FlowSpec {
        FlowSpec { host, size, deadline: None, start: Duration::ZERO }
    }

    fn due_in(self, deadline: Duration) -> FlowSpec {
        FlowSpec { deadline: Some(deadline), ..self }
    }

    fn starting_at(self, start: Duration) -> FlowSpec {
        FlowSpec { start, ..self }
    }
}

/// The knobs a scenario varies besides its flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Params {
    /// K of Early Start at every port (PDQ: 2; 0 turns it off).
    early_start_rtts: u32,
    /// Early Termination for the flows with a deadline.
    early_termination: bool,
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
enum Event {
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
struct Violations {
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
struct Net {
    now: Instant,
    params: Params,
    specs: Vec<FlowSpec>,
    /// `None` until the flow starts.
    senders: Vec<Option<PdqSender>>,
    receivers: Vec<EchoReceiver<SchedulingHeader>>,
    /// Host `h`'s NIC.
    nics: Vec<Port>,
    /// The switch's port toward host `h`, carrying ACKs.
    downlinks: Vec<Link<Ack>>,
    bottleneck: Port,
    /// The receiver's NIC, carrying ACKs.
    ack_uplink: Link<Ack>,
    log: Vec<Event>,
    /// Packets (data, probes, SYNs, FINs and ACKs) put on a first link, and taken off a last.
    sent: u64,
    delivered: u64,
    violations: Violations,
    /// Each span over which the bottleneck's list held more than its link for flows no port
    /// paused: (from, to).
    overbooked: Vec<(Instant, Instant)>,
    overbooked_since: Option<Instant>,
    /// For each flow, when the bottleneck decided on each of its packets whose answer has not
    /// come back through the switch yet, in order (paths are FIFO, and every packet carries a
    /// header the receiver answers once).
    awaiting_answer: Vec<VecDeque<Instant>>,
    /// The longest a bottleneck decision took to come back through the switch on its ACK.
    longest_answer: Duration,
    /// The largest RTT_H (a sender's smoothed RTT) the bottleneck read.
    largest_rtt: Duration,
}

fn tcp_config() -> TcpConfig {
    // As the engine gives PDQ (`incast_sim::flow`): no SACK, no PRR.
    TcpConfig { sack: false, prr: false, ..TcpConfig::default() }
}

impl Net {
    fn new(specs: &[FlowSpec], params: Params) -> Net {
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
    fn run(&mut self, limit: Instant) -> bool {
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
    fn finished_at(&self) -> Vec<Option<Instant>> {
        let mut at = vec![None; self.specs.len()];
        for e in &self.log {
            if let Event::Finished { at: t, flow } = *e {
                at[flow] = Some(t);
            }
        }
        at
    }

    fn sender(&self, flow: usize) -> &PdqSender {
        self.senders[flow].as_ref().expect("a started flow")
    }

    /// The bottleneck's decisions on `flow`'s packets: (when, sequence, payload, decision).
    fn decisions(&self, flow: usize) -> Vec<(Instant, u64, u32, Decision)> {
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
    fn round_trips(&self) -> Duration {
        self.largest_rtt + self.longest_answer
    }
}

fn limit() -> Instant {
    Instant::ZERO + Duration::from_secs(1)
}

fn us(t: u64) -> Duration {
    Duration::from_us(t)
}

fn ms(t: u64) -> Duration {
    Duration::from_ms(t)
}

/// The checks every run must pass: complete, packets conserved, no port overcommitted, every
/// byte in order, and a flow that was not terminated holding exactly its bytes.
fn assert_sound(net: &Net) {
    assert_eq!(net.sent, net.delivered, "every packet delivered");
    assert_eq!(net.violations, Violations::default());
    for (flow, spec) in net.specs.iter().enumerate() {
        let held = net.receivers[flow].bytes_received_in_order();
        if net.sender(flow).terminated() {
            assert!(held <= spec.size, "flow {flow} holds {held} of {}", spec.size);
        } else {
            assert_eq!(held, spec.size, "flow {flow}");
        }
    }
}

// ---- scripted scenarios ------------------------------------------------------------------------

/// Flow 0 (100 KB, due in 5 ms) holds the link when flow 1 (50 KB, due in 10 ms) starts, 300 us
/// in.
fn later_deadline_second(early_start_rtts: u32) -> Net {
    let specs = [FlowSpec::new(0, 100_000).due_in(ms(5)), FlowSpec::new(1, 50_000).due_in(ms(10)).starting_at(us(300))];
    let mut net = Net::new(&specs, Params { early_start_rtts, ..Params::default() });
    assert!(net.run(limit()));
    assert_sound(&net);
    net
}

/// The first bottleneck decision on `flow` matching `what`, and every one before it.
fn until(net: &Net, flow: usize, what: impl Fn(Decision) -> bool) -> (Instant, Vec<Decision>) {
    let decisions = net.decisions(flow);
    let i = decisions.iter().position(|d| what(d.3)).expect("a matching decision");
    (decisions[i].0, decisions[..i].iter().map(|d| d.3).collect())
}

#[test]
fn two_flows_later_deadline_paused_until_the_earlier_finishes_then_accepted() {
    let net = later_deadline_second(0);
    // Flow 0's SYN (60 B, 0.48 us) reaches the bottleneck 25 us later and is accepted at line
    // rate; flow 0 then runs alone at line rate: 100 KB in 69 packets of at most 1,520 B on the
    // wire, from the SYN's answer a round trip in, take under a millisecond.
    assert_eq!(net.decisions(0)[0], (Instant::ZERO + us(25) + Duration::from_ns(480), 0, 0, Decision::Accepted(LINK_RATE)));
    assert!(net.finished_at()[0] < Some(Instant::ZERO + us(1_001)));
    assert_eq!(net.sender(0).stats().time_paused, Duration::ZERO);
    // Flow 1's SYN and then each of its probes, one a round trip, find flow 0 ahead at the whole
    // link: paused, seven times, until the first probe after flow 0's FIN left the list.
    let (released, _) = until(&net, 0, |d| d == Decision::Released);
    let (accepted, before) = until(&net, 1, |d| matches!(d, Decision::Accepted(_)));
    assert_eq!(before, [Decision::Paused; 7]);
    assert!(released < accepted && accepted.saturating_since(released) < us(120), "released {released}, accepted {accepted}");
    assert_eq!(net.decisions(1).iter().find(|d| d.0 == accepted).unwrap().3, Decision::Accepted(LINK_RATE));
    // The flows never shared the link, so the port never held more than it: once accepted, flow
    // 1's 50 KB take 400 us at line rate, and the last packet's way to the receiver.
    assert_eq!(net.sender(1).stats().probes, 7);
    assert!(net.overbooked.is_empty(), "{:?}", net.overbooked);
    let [Some(f0), Some(f1)] = net.finished_at()[..] else { panic!("both finish") };
    assert!(f0 < f1 && f1.saturating_since(accepted) < us(560), "{f0} {f1}");
}

#[test]
fn two_flows_early_start_accepts_the_later_deadline_before_the_earlier_finishes() {
    // Early Start (K = 2): once flow 0 has under two RTTs of data left, flow 1's next probe is
    // accepted, before flow 0's FIN, and the port holds two flows at line rate until the FIN
    // (Section 3.3.3: the next flow starts while the last finishes; the rate controller's queue
    // term drains the overlap).
    let net = later_deadline_second(2);
    let (released, _) = until(&net, 0, |d| d == Decision::Released);
    let (accepted, before) = until(&net, 1, |d| matches!(d, Decision::Accepted(_)));
    assert_eq!(before, [Decision::Paused; 5]);
    assert!(accepted < net.finished_at()[0].unwrap() && released.saturating_since(accepted) < us(2 * 110), "accepted {accepted}, released {released}");
    assert_eq!(net.overbooked, [(accepted, released)]);
    // Flow 1 finishes about two round trips sooner than without Early Start.
    let without = later_deadline_second(0);
    let gain = without.finished_at()[1].unwrap().saturating_since(net.finished_at()[1].unwrap());
    assert!(gain > us(200), "{gain}");
    assert_eq!(net.finished_at()[0], without.finished_at()[0], "flow 0 is not slowed");
}

#[test]
fn two_flows_one_host_nic_pauses_the_longer_and_the_bottleneck_forgets_it() {
    // Both flows on host 0: its NIC schedules them, as a switch would.
    let specs = [FlowSpec::new(0, 60_000), FlowSpec::new(0, 30_000)];
    let mut net = Net::new(&specs, Params { early_start_rtts: 0, ..Params::default() });
    assert!(net.run(limit()));
    assert_sound(&net);
    // Flow 0's SYN is polled first and accepted everywhere; flow 1's, shorter and so more
    // critical, too: the ports overtake flow 0 ...
    let nic: Vec<_> = net.log.iter().filter_map(|e| match *e {
        Event::Decided { port: NIC_BASE, flow, seq: 0, len: 0, decision, .. } => Some((flow, decision)),
        _ => None,
    }).take(2).collect();
    assert_eq!(nic, [(0, Decision::Accepted(LINK_RATE)), (1, Decision::Accepted(LINK_RATE))]);
    assert_eq!(net.decisions(1)[0].3, Decision::Accepted(LINK_RATE));
    // ... and the NIC pauses flow 0's first data packet (P_H = the NIC), so the bottleneck forgets
    // flow 0 and leaves it to the NIC for as long as flow 1 lasts: until flow 1's FIN, every
    // flow 0 packet it sees after the SYN was paused by the NIC.
    let (released, _) = until(&net, 1, |d| d == Decision::Released);
    let decisions = net.decisions(0);
    assert_eq!(decisions[0].3, Decision::Accepted(LINK_RATE), "the SYN");
    let meanwhile: Vec<_> = decisions[1..].iter().take_while(|d| d.0 < released).map(|d| d.3).collect();
    assert!(!meanwhile.is_empty() && meanwhile.iter().all(|&d| d == Decision::PausedElsewhere), "{meanwhile:?}");
    // The port held both SYNs' line rate only until flow 0's first data packet told it.
    assert_eq!(net.overbooked, [(net.decisions(1)[0].0, decisions[1].0)]);
    // Flow 0 resumes with the probe that follows flow 1's FIN, at line rate.
    let next = decisions.iter().find(|d| d.0 > released).unwrap();
    assert_eq!((next.2, next.3), (0, Decision::Accepted(LINK_RATE)));
    assert!(net.finished_at()[1] < net.finished_at()[0]);
    // The flows share one uplink at 1 Gbps: 90 KB take at least 720 us.
    assert!(net.finished_at()[0].unwrap().saturating_since(Instant::ZERO) > us(720));
}

#[test]
fn more_critical_newcomer_overbooks_the_port_until_the_overtaken_flow_is_paused() {
    // Flow 0 (200 KB) holds the link when shorter flow 1 (20 KB) starts: Algorithm 2 counts only
    // the flows ahead of flow 1, so it is accepted at line rate while flow 0 still holds it,
    // and flow 0 is paused only when its next packet reaches the port. This is why the list may
    // hold more than the link for a while (docs/pdq.md: "the flows it overtakes learn so a
    // round trip later").
    let specs = [FlowSpec::new(0, 200_000), FlowSpec::new(1, 20_000).starting_at(us(400))];
    let mut net = Net::new(&specs, Params { early_start_rtts: 0, ..Params::default() });
    assert!(net.run(limit()));
    assert_sound(&net);
    let syn1 = net.decisions(1)[0];
    assert_eq!((syn1.2, syn1.3), (0, Decision::Accepted(LINK_RATE)));
    let from = net.overbooked[0].0;
    assert_eq!(from, syn1.0, "from flow 1's acceptance");
    // Flow 0's next data packet, a packet time later, is paused ...
    let paused = net.decisions(0).into_iter().find(|d| d.0 > from).unwrap();
    assert_eq!(paused.3, Decision::Paused);
    assert!(paused.0.saturating_since(from) <= LINK.tx_time(MSS + u64::from(HEADER_BYTES + PDQ_HEADER_BYTES)));
    assert_eq!(net.overbooked[0].1, paused.0);
    // ... but the answers to the packets it sent before, still on their way back, each restore
    // its accepted rate (Algorithm 3 takes R_i and P_i from every ACK), and each of its packets
    // still arriving pauses it again, until its sender hears of the pause: six spans, all within
    // a round trip of flow 1's acceptance.
    assert_eq!(net.overbooked.len(), 6, "{:?}", net.overbooked);
    for &(_, to) in &net.overbooked {
        assert!(net.decisions(0).iter().any(|d| d.0 == to && d.3 == Decision::Paused), "ends as flow 0 is paused at {to}");
    }
    let last = net.overbooked.last().unwrap().1;
    assert!(last.saturating_since(from) <= net.round_trips(), "{from}..{last}");
    // Then flow 1 runs alone and finishes first.
    assert!(net.finished_at()[1] < net.finished_at()[0]);
}

// ---- properties -------------------------------------------------------------------------------

mod prop {
    use super::*;
    use proptest::prelude::*;

    /// Up to six flows of up to 300 KB on up to three hosts, some with deadlines (some of them
    /// hopeless), starting within 2 ms; Early Start's K from 0 to 2, Early Termination on or off.
    fn scenario() -> impl Strategy<Value = (Vec<FlowSpec>, Params)> {
        let flow = (0usize..3, 1u64..=300_000, proptest::option::of(100u64..20_000), 0u64..2_000)
            .prop_map(|(host, size, deadline, start)| FlowSpec { host, size, deadline: deadline.map(us), start: us(start) });
        let params = (0u32..=2, any::<bool>()).prop_map(|(early_start_rtts, early_termination)| Params { early_start_rtts, early_termination });
        (proptest::collection::vec(flow, 1..=6), params)
    }

    /// Bytes on the wire of a flow of `size` bytes: its segments' headers and PDQ's.
    fn wire_bytes(size: u64) -> u64 {
        size + size.div_ceil(MSS) * u64::from(HEADER_BYTES + PDQ_HEADER_BYTES)
    }

    /// An incast burst: up to six flows of up to 300 KB on up to three hosts, all starting at
    /// once, each in one of three deadline classes or without a deadline. A class's deadline
    /// is when EDF at line rate finishes every flow of it and of the classes before, plus 1 ms
    /// per flow of the burst, a few round trips each, for PDQ's own costs: the handshake; the
    /// burst's first round trip, in which every flow whose SYN a port accepted before a more
    /// critical one's sends blind, and the queue this builds, which the rate controller drains
    /// by holding C at 0; and at each handover a probe interval and the round trip in which the
    /// next flow hears it may send. (Measured over 2,000 bursts, flows finished at most 0.47 ms
    /// per flow of the burst after EDF at line rate would have.)
    fn burst() -> impl Strategy<Value = (Vec<FlowSpec>, Params)> {
        let flows = proptest::collection::vec((0usize..3, 1u64..=300_000, proptest::option::of(0usize..3)), 1..=6);
        (flows, 0u32..=2).prop_map(|(flows, k)| {
            let specs = flows
                .iter()
                .map(|&(host, size, class)| {
                    let deadline = class.map(|c| {
                        let ahead: Vec<_> = flows.iter().filter(|f| f.2.is_some_and(|d| d <= c)).collect();
                        let bytes: u64 = ahead.iter().map(|f| wire_bytes(f.1)).sum();
                        LINK.tx_time(bytes) + ms(flows.len() as u64)
                    });
                    FlowSpec { host, size, deadline, start: Duration::ZERO }
                })
                .collect();
            (specs, Params { early_start_rtts: k, early_termination: true })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the flows, every packet sent is delivered (the harness drops none; the
        /// per-step count is asserted inside), no data arrives out of order or twice, and every
        /// receiver ends holding exactly its flow's bytes, or a prefix of them if Early
        /// Termination gave up on the flow.
        #[test]
        fn scenario_any_flows_conserves_packets_and_delivers_every_byte_in_order((specs, params) in scenario()) {
            let mut net = Net::new(&specs, params);
            prop_assert!(net.run(limit()));
            assert_sound(&net);
            for flow in 0..specs.len() {
                let s = net.sender(flow).stats();
                prop_assert_eq!((s.retransmitted_bytes, s.timeouts), (0, 0), "flow {}", flow);
            }
        }

        /// A port never accepts a flow into capacity a more critical flow holds: at every
        /// decision of every port (NICs included), the rate accepted is at most what the header
        /// asked for and at most the link less the rates of the flows ahead that Early Start
        /// cannot leave out, and no listed flow holds more than the link or a rate while paused.
        ///
        /// The sum over all unpaused flows can exceed the link, for two reasons in PDQ's design:
        /// a newcomer more critical than the sending flows is accepted against the flows ahead of
        /// it only, and the flows it overtakes are paused when their next packets arrive and learn
        /// so a round trip later (Algorithms 1 and 2; docs/pdq.md, "Results"); and Early Start
        /// accepts the next flow while the flows ahead finish (switch.rs: "The rate controller's
        /// queue term drains what Early Start overbooks"). So that sum is held to the link only
        /// over time: without Early Start, no span of overbooking outlasts the round trips in
        /// which an overtaken flow is paused and its answers drain ([`Net::round_trips`]). With
        /// Early Start a run of short flows, each accepted while the last finishes, can keep the
        /// port overbooked as long as they last, so there is no bound to check.
        #[test]
        fn scenario_any_flows_port_accepts_only_what_the_flows_ahead_leave((specs, params) in scenario()) {
            let mut net = Net::new(&specs, params);
            prop_assert!(net.run(limit()));
            prop_assert_eq!(&net.violations, &Violations::default());
            prop_assert!(net.overbooked_since.is_none(), "the list empties at the end");
            if params.early_start_rtts == 0 {
                let bound = net.round_trips();
                for &(from, to) in &net.overbooked {
                    prop_assert!(to.saturating_since(from) <= bound, "overbooked {}..{} beyond {}", from, to, bound);
                }
            }
        }

        /// The same scenario run twice gives the same event log, to the picosecond.
        #[test]
        fn scenario_run_twice_identical_event_logs((specs, params) in scenario()) {
            let run = || {
                let mut net = Net::new(&specs, params);
                assert!(net.run(limit()));
                net.log
            };
            prop_assert_eq!(run(), run());
        }

        /// PDQ's point (Section 3.3.1): in a burst whose deadlines EDF meets at line rate, every
        /// flow meets its deadline (none is terminated), and flows finish earliest deadline
        /// first, then (equal deadlines or none) shortest remaining first.
        ///
        /// Weakened, for reasons in PDQ's design: a less critical flow is served out of turn in
        /// windows of a few round trips: at the burst's start, when flows' SYNs reach the port in
        /// no particular order and the overtaken learn so a round trip later (docs/pdq.md,
        /// "Results"); and at each handover, when the link frees and every flow ahead is paused
        /// (a paused flow holds no rate, so Algorithm 2 counts nothing for it) the first paused
        /// flow to probe takes the link until a more critical one probes and it learns of its
        /// pause (up to [`Net::round_trips`]), plus K RTTs when Early Start starts the next flow
        /// that long before the last one ends. A flow b may therefore finish before a more
        /// critical flow a only if what it needed out of turn (all its bytes if a's deadline is
        /// earlier, or the difference in size if a is only shorter) fits in the windows before it
        /// finished: one at the start and one per flow that finished before it.
        #[test]
        fn burst_edf_feasible_finishes_in_criticality_order((specs, params) in burst()) {
            let mut net = Net::new(&specs, params);
            prop_assert!(net.run(limit()));
            assert_sound(&net);
            let at = net.finished_at();
            for (flow, spec) in specs.iter().enumerate() {
                prop_assert!(!net.sender(flow).terminated(), "flow {} terminated", flow);
                if let (Some(deadline), Some(t)) = (spec.deadline, at[flow]) {
                    prop_assert!(t <= Instant::ZERO + deadline, "flow {} finished at {} after its deadline", flow, t);
                }
            }
            let window = bytes_in(LINK_RATE, net.round_trips() + net.largest_rtt.saturating_mul(u64::from(params.early_start_rtts)));
            let deadline = |f: usize| specs[f].deadline.unwrap_or(Duration::MAX);
            for a in 0..specs.len() {
                for b in 0..specs.len() {
                    let needed = if deadline(a) < deadline(b) {
                        specs[b].size
                    } else if deadline(a) == deadline(b) && specs[a].size < specs[b].size {
                        specs[b].size - specs[a].size
                    } else {
                        continue;
                    };
                    if at[b] < at[a] {
                        let windows = 1 + at.iter().filter(|&&t| t < at[b]).count() as u64;
                        prop_assert!(needed <= windows * window, "flow {} finished before more critical flow {}: {} bytes out of turn in {} windows of {}; finished at {:?}", b, a, needed, windows, window, at);
                    }
                }
            }
        }
    }
}
