//! Homa's transport (Montazeri et al., SIGCOMM 2018; docs/homa.md): a flow is one message, its
//! sender incast-proto's `HomaSender`, its receiver the receiving host's `HomaReceiver` (one per
//! host, shared by every message into it, so that it grants them in SRPT order); each host's NIC
//! sends its messages' packets shortest first (`nic`); every packet rides the priority class Homa
//! gave it (`WireHeader::priority`), which the switches' strict-priority ports serve as any.
//!
//! What flows of one host share (the receiver, the NIC's queue) lives in the run's `Setup`, which
//! hands each flow's ends a handle: the engine runs one thread, the locks are never
//! contended and only make the shared state `Send`. When a call on one message gives another
//! something to send (a GRANT), the setup's `poll_wake` names it and the engine polls it.

mod nic;
mod packet;
mod sizes;

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use incast_proto::homa::{HomaConfig, HomaHeader, HomaReceiver, HomaSender, MessageId, Priorities};
use incast_proto::tcp::{AckSegment, SackBlocks};
use incast_proto::time::{Duration, Instant};

use super::{CapturedHeader, FlowStart, IdealPackets, NetFacts, Outgoing, OutgoingAck, PortFacts, ReceiverEnd, SenderEnd, TraceRow};
use crate::ids::{FlowId, PortId};
use crate::outcome::Outcome;
use crate::packet::Packet;
use crate::scenario::{HomaSpec, Protocol, Scenario};

pub(crate) use nic::HomaNic;
use nic::{lock, NicQueue};
pub(crate) use packet::HomaPacket;

/// The Homa transport.
pub(crate) struct Plugin;

/// Homa's settings for a run and what its hosts share.
pub(crate) struct Setup {
    /// `None` when no flow runs Homa: nothing is computed then.
    config: Option<HomaConfig>,
    strip: bool,
    /// Each receiving host's receiver, made when its first message starts.
    receivers: Mutex<BTreeMap<u32, Arc<Mutex<HomaReceiver>>>>,
    /// Each host NIC's queue, by port.
    nics: Mutex<BTreeMap<PortId, Arc<Mutex<NicQueue>>>>,
    /// Flows a call on another flow's receiver gave something to send.
    wakes: Arc<Wakes>,
}

/// The flows to wake, with a flag the engine reads after every receiver's call: most calls wake
/// nobody, and then cost one load.
#[derive(Default)]
struct Wakes {
    pending: AtomicBool,
    flows: Mutex<VecDeque<FlowId>>,
}

impl Wakes {
    /// Queues the messages `receiver` woke.
    fn take_from(&self, receiver: &mut HomaReceiver) {
        let mut flows = None;
        while let Some(m) = receiver.poll_wake() {
            flows.get_or_insert_with(|| lock(&self.flows)).push_back(FlowId(m as u32));
        }
        if flows.is_some() {
            self.pending.store(true, Ordering::Relaxed);
        }
    }

    fn pop(&self) -> Option<FlowId> {
        if !self.pending.load(Ordering::Relaxed) {
            return None;
        }
        let mut flows = lock(&self.flows);
        let next = flows.pop_front();
        if flows.is_empty() {
            self.pending.store(false, Ordering::Relaxed);
        }
        next
    }
}

impl Setup {
    fn config(&self) -> HomaConfig {
        self.config.expect("a Homa flow runs, so Homa is set up")
    }
}

/// A run's Homa settings from `[homa]`, the network and the sizes of the workloads that run
/// Homa: RTTbytes, the levels' division and cutoffs, the overcommitment (docs/homa.md).
fn config_of(spec: &HomaSpec, scenario: &Scenario, net: &NetFacts) -> HomaConfig {
    let packets = spec.packets();
    let rtt_bytes = spec.unscheduled_bytes.unwrap_or_else(|| {
        // RTTbytes (Section 3.2): what a host's link sends while a full packet crosses the
        // longest path and a grant comes back.
        let full = u64::from(packets.max_payload + packets.data_header_bytes);
        let rtt = net.round_trip(full, u64::from(packets.control_bytes));
        (net.fastest_host_link.bytes_per_sec() * rtt.as_secs_f64()).ceil() as u64
    });
    let placement = spec.scheduled_levels;
    let priorities = match &spec.unscheduled_cutoffs {
        Some(cutoffs) => {
            let unscheduled = spec.unscheduled_priorities.unwrap_or(cutoffs.len() as u8 + 1);
            Priorities::new(spec.priorities, unscheduled, cutoffs, placement)
        }
        None => Priorities::from_sizes(spec.priorities, spec.unscheduled_priorities, &sizes::of_homa(scenario), rtt_bytes, placement),
    }
    .expect("validation checks the levels, cutoffs and unscheduled levels");
    HomaConfig {
        max_payload: packets.max_payload,
        data_header_bytes: packets.data_header_bytes,
        control_bytes: packets.control_bytes,
        rtt_bytes: rtt_bytes.max(1),
        priorities,
        overcommitment: spec.overcommitment.unwrap_or(u32::from(priorities.scheduled_levels())),
        resend_timeout: spec.resend_timeout,
        resend_timer: spec.resend_timer,
        ack: spec.ack,
    }
}

impl super::Plugin for Plugin {
    type Header = HomaPacket;
    type Sender = HomaSenderEnd;
    type Receiver = HomaReceiverEnd;
    type Processor = super::Never<HomaPacket>;
    type Discipline = HomaNic;
    type Setup = Setup;
    /// A Homa flow stalls when its packets are lost and its receiver waits `resend_timeout` to
    /// ask again, or its messages' packets do not fit the switches' buffers.
    const STALL_KEYS: &'static [&'static str] = &["homa.resend_timeout", "switch.buffer"];
    /// Without ACKs (`[homa] ack = false`, the default) a receiver tells its sender of delivery
    /// at once through a shared flag (docs/homa.md), which would cross between parts within a
    /// round. With them the two ends meet only through packets, and what a host's messages share
    /// (its receiver, its NIC's queue, the wakes of its receiver's messages) stays in the host's
    /// part.
    fn unsplit(scenario: &Scenario) -> Option<(&'static str, &'static str)> {
        (!scenario.sections.homa.ack).then_some((
            "homa.ack",
            "Homa flows without ACKs yet: a receiver tells its sender of delivery at once, with no packet between them (`ack = true` sends one)",
        ))
    }

    fn setup(scenario: &Scenario, net: &NetFacts) -> Setup {
        let spec = &scenario.sections.homa;
        let config = scenario.protocols_in_use().contains(&Protocol::Homa).then(|| config_of(spec, scenario, net));
        Setup { config, strip: spec.strip_priorities, receivers: Mutex::default(), nics: Mutex::default(), wakes: Arc::default() }
    }

    /// `[homa] resend_timeout`: a receiver missing packets asks for them again after it (zero in
    /// a run without Homa's flows, where the registry never asks).
    fn first_timeout(setup: &Setup) -> Duration {
        setup.config.as_ref().map_or(Duration::ZERO, |c| c.resend_timeout)
    }

    fn endpoints(setup: &Setup, start: &FlowStart<'_>) -> (HomaSenderEnd, HomaReceiverEnd) {
        let config = setup.config();
        // A long-lived flow is a message that never ends: the lowest in every SRPT order.
        let size = start.plan.size_bytes.unwrap_or(u64::MAX >> 1);
        let receiver = lock(&setup.receivers).entry(start.plan.dst).or_insert_with(|| Arc::new(Mutex::new(HomaReceiver::new(config)))).clone();
        // A NIC without Homa's queue (the scripted harness's) is never busy.
        let nic = lock(&setup.nics).get(&start.nic).cloned();
        let delivered = Arc::new(AtomicBool::new(false));
        let sender = SenderEnds { sender: HomaSender::new(config, size, start.now), nic, delivered: delivered.clone(), flow: start.flow, strip: setup.strip };
        let receiver = ReceiverEnds {
            id: MessageId::from(start.flow.0),
            src: start.plan.src,
            receiver,
            wakes: setup.wakes.clone(),
            ack: config.ack,
            delivered,
            strip: setup.strip,
            control_bytes: config.control_bytes as u16,
        };
        (HomaSenderEnd(Box::new(sender)), HomaReceiverEnd(Box::new(receiver)))
    }

    /// A host's NIC sends its messages' packets shortest first (Section 3.2's SRPT at the
    /// sender); switch ports keep the strict-priority classes `[switch]` gives them.
    fn discipline(setup: &Setup, port: &PortFacts) -> Option<HomaNic> {
        if !port.host {
            return None;
        }
        let queue = Arc::new(Mutex::new(NicQueue::default()));
        lock(&setup.nics).insert(port.id, queue.clone());
        Some(HomaNic::new(queue))
    }

    /// No handshake; full packets of `max_payload` under `data_header_bytes`.
    fn ideal(setup: &Setup, _protocol: Protocol, _opens: bool) -> IdealPackets {
        let (mss, header) = setup.config.map_or((incast_proto::homa::MAX_PAYLOAD, incast_proto::homa::DATA_HEADER_BYTES), |c| (c.max_payload, c.data_header_bytes));
        IdealPackets { mss: u64::from(mss), header_bytes: u64::from(header), handshake: None }
    }

    fn poll_wake(setup: &Setup) -> Option<FlowId> {
        setup.wakes.pop()
    }

    fn capture(_setup: &Setup, _header: &HomaPacket) -> CapturedHeader {
        CapturedHeader::default()
    }
}

/// A Homa message's sending end; boxed, so that the engine's flows of every transport stay
/// small.
pub(crate) struct HomaSenderEnd(Box<SenderEnds>);

/// What [`HomaSenderEnd`] holds.
struct SenderEnds {
    sender: HomaSender,
    /// The sending host's NIC queue, which says whether it still holds the message's packets.
    nic: Option<Arc<Mutex<NicQueue>>>,
    /// Set by the receiving end when the message is whole and Homa runs without ACKs: the
    /// sender learns of delivery as an RPC's client would from the response (incast's choice,
    /// docs/homa.md), at once and with no packet for it. The sending end takes it in before
    /// anything else it does (`take_delivery`). A signal with no delay between two hosts: a run
    /// split across threads cannot carry it, only a run in one loop (issue 41).
    delivered: Arc<AtomicBool>,
    flow: FlowId,
    strip: bool,
}

/// A Homa message's receiving end: its handle on the receiving host's receiver, which every
/// message into the host shares.
pub(crate) struct HomaReceiverEnd(Box<ReceiverEnds>);

/// What [`HomaReceiverEnd`] holds.
struct ReceiverEnds {
    id: MessageId,
    src: u32,
    receiver: Arc<Mutex<HomaReceiver>>,
    wakes: Arc<Wakes>,
    /// Whether the receiver ACKs a whole message; without, it sets `delivered`.
    ack: bool,
    delivered: Arc<AtomicBool>,
    strip: bool,
    control_bytes: u16,
}

/// The engine's packet for `header`, `left` bytes of its message not yet sent.
fn packet_of(header: HomaHeader, left: u64, strip: bool) -> HomaPacket {
    let class = if strip { 0 } else { header.priority() };
    HomaPacket { header, class, left }
}

impl SenderEnds {
    /// Takes in the delivery the receiving end announced, if any (see `delivered`).
    #[inline]
    fn take_delivery(&mut self) {
        if !self.sender.is_complete() && self.delivered.load(Ordering::Relaxed) {
            self.sender.handle_delivered();
        }
    }

    /// Whether the sender knows, or is about to learn, that the message is whole.
    fn knows_delivered(&self) -> bool {
        self.sender.is_complete() || self.delivered.load(Ordering::Relaxed)
    }
}

impl Drop for ReceiverEnds {
    /// The flow is over: its receiver forgets the message.
    fn drop(&mut self) {
        lock(&self.receiver).remove(self.id);
    }
}

impl SenderEnd for HomaSenderEnd {
    type Header = HomaPacket;

    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<HomaPacket>> {
        let e = &mut *self.0;
        e.take_delivery();
        let out = e.sender.poll_transmit(now)?;
        let left = match out.header {
            HomaHeader::Data { message_bytes, .. } => message_bytes - out.data.seq,
            _ => 0,
        };
        Some(Outgoing { seg: out.data, header: Some(packet_of(out.header, left, e.strip)) })
    }

    fn handle_ack(&mut self, now: Instant, _packet: &Packet, header: Option<&HomaPacket>) {
        let e = &mut *self.0;
        e.take_delivery();
        let Some(h) = header else { return };
        match h.header {
            HomaHeader::Grant { offset, priority } => e.sender.handle_grant(now, offset, priority),
            HomaHeader::Resend { start, len, priority } => {
                // Busy: the NIC still holds packets of this message, behind shorter messages'.
                let busy = e.nic.as_ref().is_some_and(|nic| lock(nic).holds(e.flow));
                e.sender.handle_resend(now, start, len, priority, busy);
            }
            HomaHeader::Ack => e.sender.handle_delivered(),
            HomaHeader::Data { .. } | HomaHeader::Busy => {}
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.0.take_delivery();
        self.0.sender.handle_timeout(now);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        // A delivered message's sender has no timer (`HomaSender::handle_delivered`).
        if self.0.knows_delivered() {
            return None;
        }
        self.0.sender.poll_timeout()
    }

    fn is_complete(&self) -> bool {
        self.0.knows_delivered()
    }

    fn outcome(&self) -> Outcome {
        let s = self.0.sender.stats();
        // The sender's loss timers: first packets sent again (the receiver adds its RESENDs).
        Outcome { retransmitted_bytes: s.retransmitted_bytes, timeouts: s.probes.min(u64::from(u32::MAX)) as u32, ..Outcome::default() }
    }

    fn trace(&self, _row: &mut TraceRow) {}
}

impl ReceiverEnd for HomaReceiverEnd {
    type Header = HomaPacket;

    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<HomaPacket>> {
        let e = &*self.0;
        let mut r = lock(&e.receiver);
        let header = r.poll_control(e.id)?;
        let ack = AckSegment { ack: r.delivered(e.id), ece: false, ts_echo: now, sack: SackBlocks::EMPTY, header_bytes: e.control_bytes };
        drop(r);
        Some(OutgoingAck { ack, ect: false, header: Some(packet_of(header, 0, e.strip)) })
    }

    fn handle_data(&mut self, now: Instant, packet: &Packet, header: Option<&HomaPacket>) {
        let Some(h) = header else { return };
        let e = &*self.0;
        let mut r = lock(&e.receiver);
        match h.header {
            HomaHeader::Data { message_bytes, priority } => {
                r.handle_data(now, e.id, e.src, message_bytes, priority, &packet.data_segment());
                if !e.ack && r.is_complete(e.id) {
                    e.delivered.store(true, Ordering::Relaxed);
                }
            }
            HomaHeader::Busy => r.handle_busy(now, e.id),
            HomaHeader::Grant { .. } | HomaHeader::Resend { .. } | HomaHeader::Ack => {}
        }
        e.wakes.take_from(&mut r);
    }

    fn handle_timeout(&mut self, now: Instant) {
        let e = &*self.0;
        let mut r = lock(&e.receiver);
        r.handle_timeout(now, e.id);
        e.wakes.take_from(&mut r);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        lock(&self.0.receiver).poll_timeout(self.0.id)
    }

    fn delivered_bytes(&self) -> u64 {
        lock(&self.0.receiver).delivered(self.0.id)
    }

    /// The receiver's loss timers: the RESENDs it sent.
    fn timeouts(&self) -> u64 {
        lock(&self.0.receiver).stats(self.0.id).resends
    }
}

#[cfg(test)]
mod tests {
    use incast_proto::time::{BitsPerSec, Duration};

    use super::*;
    use crate::scenario::{named_distribution, HomaModel, LinkSpec, PoissonWorkload, TopologySpec};

    /// A 10 Gbps star with 1 us links whose flows run Homa, sizes from `named`.
    fn homa_scenario(named: &str, homa: HomaSpec) -> (Scenario, NetFacts) {
        let link = LinkSpec { rate: BitsPerSec(10_000_000_000), delay: Duration::from_us(1) };
        let size = named_distribution("size", named).expect("a shipped distribution");
        let poisson = PoissonWorkload { size, ..PoissonWorkload::new(1_000.0, vec![0, 1, 2, 3], Instant::ZERO + Duration::from_ms(1)) };
        let mut s = Scenario::new(TopologySpec::Star { hosts: 4, link }, vec![poisson.into()]);
        s.transport.protocol = Protocol::Homa;
        s.sections.homa = homa;
        (s, NetFacts { fastest_host_link: link.rate, longest_path: vec![link, link] })
    }

    #[test]
    fn rtt_bytes_are_a_full_packet_out_and_a_grant_back_at_line_rate() {
        // 1500 B through two 10 Gbps hops (2.4 us), 46 B back (0.0736 us), 4 us of propagation:
        // 6.4736 us at 1.25 GB/s.
        let (s, net) = homa_scenario("homa-w5", HomaSpec::default());
        assert_eq!(config_of(&s.sections.homa, &s, &net).rtt_bytes, 8_092);
    }

    #[test]
    fn levels_and_cutoffs_follow_each_workloads_unscheduled_bytes() {
        // With the authors' 9,328 B unscheduled, computed apart from the shipped files: the
        // unscheduled share of bytes times 8 levels, rounded (W1 all but one level), and cutoffs
        // at each sixth (W2) or half (W3) of the unscheduled bytes.
        let homa = HomaSpec { unscheduled_bytes: Some(9_328), ..HomaSpec::default() };
        let expected: [(&str, u8, &[u64]); 5] = [
            ("homa-w1", 7, &[186, 335, 515, 760, 1150, 2007]),
            ("homa-w2", 6, &[301, 366, 465, 1024, 2926]),
            ("homa-w3", 2, &[5643]),
            ("homa-w4", 1, &[]),
            ("homa-w5", 1, &[]),
        ];
        for (named, unscheduled, cutoffs) in expected {
            let (s, net) = homa_scenario(named, homa.clone());
            let c = config_of(&s.sections.homa, &s, &net);
            assert_eq!(c.priorities.unscheduled_levels(), unscheduled, "{named}");
            assert_eq!(c.priorities.cutoffs(), cutoffs, "{named}");
            // The degree of overcommitment is the scheduled levels.
            assert_eq!(c.overcommitment, u32::from(8 - unscheduled), "{named}");
        }
    }

    #[test]
    fn explicit_cutoffs_and_the_ns3_model_need_no_sizes() {
        let (s, net) = homa_scenario("homa-w5", HomaSpec::of_model(HomaModel::Ns3));
        let c = config_of(&s.sections.homa, &s, &net);
        assert_eq!((c.rtt_bytes, c.priorities.unscheduled_levels(), c.priorities.cutoffs()), (7 * 1460, 2, &[12 * 1460][..]));
        assert_eq!((c.overcommitment, c.max_payload, c.ack), (6, 1460, true));
    }
}
