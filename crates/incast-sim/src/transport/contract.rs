//! The contract between the engine and a transport: what a transport gives the engine
//! (`Plugin` with its header, endpoints, port processor, queue discipline and setup), what the
//! engine shows it (packets, passages, ports, flows starting), and what it reports back (trace
//! rows, captured headers, the packets of an ideal flow). Below every transport and the
//! registry; it names none of them.

use incast_proto::tcp::{AckSegment, DataSegment, SackBlocks, TcpConfig};
use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::ids::{FlowId, PacketId, PortId};
use crate::outcome::Outcome;
use crate::packet::{Packet, PacketKind};
use crate::results::{ExtraColumn, ExtraValue};
use crate::scenario::{LinkSpec, Protocol, Scenario};
use crate::workload::FlowPlan;

/// The trace column of the rate an explicit-rate sender sends at, declared by each transport
/// that has one.
pub(crate) const SENDING_RATE: ExtraColumn = ExtraColumn {
    name: "rate_bytes_per_s",
    doc: "explicit-rate transports: the rate the sender sends at, bytes per second (D3 and RCPdc: their allocation; \
          PDQ: the rate the ports accepted, 0 while paused)",
    kind: crate::results::ExtraKind::U64,
};

/// A transport plugged into the engine: its types and what it decides once per run, per flow
/// and per port. The registry (`registry.rs`) turns each plug-in's types into a variant of the
/// engine's dispatch enums.
pub(crate) trait Plugin {
    /// What the transport's packets carry beyond the common segment fields.
    type Header: WireHeader;
    /// A running flow's sending end, at its source host.
    type Sender: SenderEnd<Header = Self::Header>;
    /// A running flow's receiving end, at its destination host.
    type Receiver: ReceiverEnd<Header = Self::Header>;
    /// What the transport's ports do to its packets passing them; [`Never`] for none.
    type Processor: PortProcessor<Header = Self::Header>;
    /// How the transport's ports queue; [`Never`] to keep the shared strict-priority FIFOs.
    type Discipline: QueueDiscipline<Header = Self::Header>;
    /// The transport's settings for one run.
    type Setup;

    /// Columns the transport's senders add to the traces table (`endpoints.trace`). A column
    /// another transport declares too (same name) is one column of the table.
    const TRACE_COLUMNS: &'static [ExtraColumn] = &[];
    /// Counters its processors keep, summed over the ports into the run's summary (zero in a run
    /// without them).
    const PORT_COUNTERS: &'static [&'static str] = &[];
    /// Columns its processors add to a sampled port's queue series.
    const PORT_SAMPLES: &'static [ExtraColumn] = &[];
    /// The scenario keys most likely behind a stall of its flows, most likely first: what the
    /// progress watchdog (`[run] stall_after`, `crate::watchdog`) names when they deliver
    /// nothing for the span, or their timers fire faster than packets can move.
    const STALL_KEYS: &'static [&'static str];
    /// Why a run of `scenario` cut into parts (`crate::rounds`) cannot have the transport's flows
    /// yet, with the key to name: its ends, or the hosts they run on, share state that no packet
    /// carries, which would cross between parts within a round. The message reads "a run cut
    /// into parts cannot have" and the text. `None` (the default): its ends meet only through
    /// packets.
    fn unsplit(_scenario: &Scenario) -> Option<(&'static str, &'static str)> {
        None
    }

    /// Its settings for a run of `scenario` over `net`.
    fn setup(scenario: &Scenario, net: &NetFacts) -> Self::Setup;

    /// How long a flow of this transport that lost everything it sent waits before it first
    /// sends again: its first retransmission timeout, or its receiver's first resend request.
    /// `stall_after = "auto"` waits several of them before calling a run stalled
    /// (`crate::watchdog::span`), so it must be the transport's own timer, not another's.
    fn first_timeout(setup: &Self::Setup) -> Duration;

    /// The two ends of a flow starting as `start` says.
    fn endpoints(setup: &Self::Setup, start: &FlowStart<'_>) -> (Self::Sender, Self::Receiver);

    /// The strict-priority class of flow `plan` of `protocol`: the workload's, unless the
    /// transport picks its own (TCPpr, by deadline).
    fn priority(setup: &Self::Setup, protocol: Protocol, plan: &FlowPlan) -> u8 {
        let _ = (setup, protocol);
        plan.priority
    }

    /// How `port` queues when the run's flows use this transport; `None` keeps the port as
    /// `[switch]` configures it.
    fn discipline(setup: &Self::Setup, port: &PortFacts) -> Option<Self::Discipline> {
        let _ = (setup, port);
        None
    }

    /// What `port` runs for this transport's packets, if anything.
    fn processor(setup: &Self::Setup, port: &PortFacts) -> Option<Self::Processor> {
        let _ = (setup, port);
        None
    }

    /// What a flow's ideal completion time assumes of a flow of `protocol`'s packets
    /// (`crate::ideal`); `opens` if the flow opens its connection (not a later message of a
    /// persistent one).
    fn ideal(setup: &Self::Setup, protocol: Protocol, opens: bool) -> IdealPackets;

    /// A flow to which a call on another flow's receiver gave something to send, for a
    /// transport whose flows share state (Homa's receiver schedules every message into its host,
    /// and grants the next one when a message needs no more grants). The engine asks after each
    /// time it hands a receiver a packet or a timer, and wakes the receiver of each flow named as
    /// its due timer would, at the next instant: the receiver's timer runs and it is polled. The
    /// shared state lives where the setup hands it to the flows' ends.
    fn poll_wake(setup: &Self::Setup) -> Option<FlowId> {
        let _ = setup;
        None
    }

    /// What a capture shows of `header` (`crate::capture`).
    fn capture(setup: &Self::Setup, header: &Self::Header) -> CapturedHeader {
        let _ = (setup, header);
        CapturedHeader::default()
    }
}

/// A transport's own header, in the packets that carry one.
pub(crate) trait WireHeader: Copy + std::fmt::Debug + PartialEq {
    /// Bytes it adds on the wire beyond the segment's (SACK blocks are counted in TCP's header
    /// already: 0).
    fn wire_bytes(&self) -> u32;

    /// Which processors see it: those of the ports a packet of `kind` leaves by (`Way::Out`),
    /// those that forward its flow's data from the nodes it passes on the way back (`Way::Back`),
    /// or none.
    fn way(&self, kind: PacketKind) -> Option<Way> {
        let _ = kind;
        None
    }

    /// The strict-priority class the packet rides in, if the endpoint that sent it chose one for
    /// this packet (Homa's: a sender's by its message's size, a receiver's in each GRANT); `None`
    /// keeps its flow's class (`Plugin::priority`). Ports map it to their classes as any packet's.
    fn priority(&self) -> Option<u8> {
        None
    }
}

/// Where a port's processor meets a packet (`WireHeader::way`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Way {
    /// At each port the packet leaves through (a request on its way to the receiver).
    Out,
    /// At each node the packet passes (or reaches) on its flow's way back, by the port that
    /// sends the flow's data from that node (PDQ's Algorithm 3: an ACK confirms the schedule of
    /// the port whose list holds the flow, though it leaves by another).
    Back,
}

/// A data packet a sender hands its NIC.
pub(crate) struct Outgoing<H> {
    pub(crate) seg: DataSegment,
    pub(crate) header: Option<H>,
}

/// An ACK a receiver hands its NIC.
pub(crate) struct OutgoingAck<H> {
    pub(crate) ack: AckSegment,
    /// Whether the ACK is ECN-capable.
    pub(crate) ect: bool,
    pub(crate) header: Option<H>,
}

/// A flow's sending end, sans-IO (the calling order of incast-proto's state machines): the
/// engine hands it the packets that reach the sender (ACKs, grants, pulls, returned data) and its
/// timer's expiry, and polls it for what to send. It and the flow's [`ReceiverEnd`] share
/// nothing but the packets between them: a host's half of a flow is all its host knows of it,
/// which is what lets the two halves live apart (issue 41: a run split across threads keeps each
/// host's halves with the host).
pub(crate) trait SenderEnd {
    /// The transport's header.
    type Header;

    /// The sender's next packet, if it may send one now.
    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<Self::Header>>;

    /// An ACK (or another packet of the receiver's) reached the sender.
    fn handle_ack(&mut self, now: Instant, packet: &Packet, header: Option<&Self::Header>);

    /// A data packet a port's discipline returned (`Joined::Returned`) reached the sender that
    /// sent it. Only a transport whose discipline returns packets gets one.
    fn handle_returned(&mut self, now: Instant, packet: &Packet, header: Option<&Self::Header>) {
        let _ = (now, packet, header);
    }

    /// The sender acts on whatever timers are due.
    fn handle_timeout(&mut self, now: Instant);

    /// The sender's earliest timer.
    fn poll_timeout(&self) -> Option<Instant>;

    /// Whether the sender has nothing left to do.
    fn is_complete(&self) -> bool;

    /// What the sender counted so far (`delivered_bytes` is the receiver's to say: 0 here).
    fn outcome(&self) -> Outcome;

    /// The sender's state for the traces table: its smoothed RTT and RTO, and the transport's
    /// own columns (`Plugin::TRACE_COLUMNS`) set in `row`.
    fn trace(&self, row: &mut TraceRow);

    /// Appends the next message of a persistent connection to the sender's byte stream.
    /// Validation lets only transports that keep connections carry persistent flows.
    fn push_message(&mut self, now: Instant, bytes: u64, deadline: Option<Instant>) {
        let _ = (now, bytes, deadline);
        unreachable!("validation lets persistent connections only on transports that keep them")
    }
}

/// A flow's receiving end, sans-IO: the engine hands it the flow's data packets (and returned
/// ACKs) and its timer's expiry, and polls it for its answers (ACKs, NACKs, PULLs, grants).
pub(crate) trait ReceiverEnd {
    /// The transport's header.
    type Header;

    /// The receiver's next answer, if it has one to send.
    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<Self::Header>>;

    /// A data packet (or header-only one) reached the receiver.
    fn handle_data(&mut self, now: Instant, packet: &Packet, header: Option<&Self::Header>);

    /// An answer of this receiver's that a port's discipline returned (`Joined::Returned`) came
    /// back to it.
    fn handle_returned(&mut self, now: Instant, packet: &Packet, header: Option<&Self::Header>) {
        let _ = (now, packet, header);
    }

    /// The receiver acts on whatever timers are due (delayed ACKs, resend requests).
    fn handle_timeout(&mut self, now: Instant) {
        let _ = now;
    }

    /// The receiver's earliest timer.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    /// Payload bytes the receiver holds in order.
    fn delivered_bytes(&self) -> u64;

    /// Loss timers of the receiver's that fired (Homa's RESENDs), added to the sender's in the
    /// flow's `timeouts`.
    fn timeouts(&self) -> u64 {
        0
    }
}

/// What a port's processor may observe of the port it sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PortView {
    /// Line rate of the port's link.
    pub(crate) rate: BitsPerSec,
    /// Bytes waiting (the packet being serialized has left the queue: `Port::serve`).
    pub(crate) queue_bytes: u64,
    /// Bytes this port has finished transmitting since the start.
    pub(crate) bytes_sent: u64,
}

/// What a processor may ask of the run's flows (the engine's flow table answers).
pub(crate) trait FlowFacts {
    /// Flow `flow`'s absolute deadline, if it has one.
    fn deadline(&self, flow: FlowId) -> Option<Instant>;
}

/// What a processor knows of the packet passing its port.
pub(crate) struct Passage<'a> {
    pub(crate) now: Instant,
    pub(crate) flow: FlowId,
    pub(crate) port: &'a PortView,
    flows: &'a dyn FlowFacts,
}

impl<'a> Passage<'a> {
    pub(crate) fn new(now: Instant, flow: FlowId, port: &'a PortView, flows: &'a dyn FlowFacts) -> Passage<'a> {
        Passage { now, flow, port, flows }
    }

    /// The flow's absolute deadline, if it has one (D3's priority inversions are judged by it).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.flows.deadline(self.flow)
    }
}

/// In-network processing at one port for one transport's packets (D3 Section 4.3: the routers on
/// a flow's path allocate its rate; PDQ Section 3.3: each link's scheduler). The engine shows the
/// processor each packet of its transport whose header says so (`WireHeader::way`), before the
/// buffer decides to admit it.
pub(crate) trait PortProcessor {
    /// The transport's header.
    type Header;

    /// A packet leaves through the port: the processor answers its header. Returns whether the
    /// processor must hear of it (`on_dropped`) if the port then drops the packet.
    fn on_out(&mut self, passage: &Passage<'_>, header: &mut Self::Header) -> bool;

    /// A packet of a flow whose data this port sends passes the port's node on its way back.
    fn on_back(&mut self, passage: &Passage<'_>, header: &mut Self::Header) {
        let _ = (passage, header);
    }

    /// The port dropped a packet whose header `on_out` answered (its buffer was full): undo what
    /// only a delivered packet should have done. `header` is as `on_out` left it.
    fn on_dropped(&mut self, now: Instant, header: &Self::Header) {
        let _ = (now, header);
    }

    /// When the processor next wants `handle_timeout` (periodic work such as capacity estimation).
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    /// Called at or after `poll_timeout()`; a no-op when nothing is due.
    fn handle_timeout(&mut self, now: Instant, port: &PortView) {
        let _ = (now, port);
    }

    /// Adds its counters (`Plugin::PORT_COUNTERS`, in order) to `sums`.
    fn count(&self, sums: &mut [u64]) {
        let _ = sums;
    }

    /// Its values of `Plugin::PORT_SAMPLES` now, in order, if it samples.
    fn sample(&self, out: &mut [Option<u64>]) -> bool {
        let _ = out;
        false
    }
}

/// A packet as a port sees it on arrival: what the shared buffer accounting and a discipline
/// read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arriving {
    pub(crate) id: PacketId,
    /// Its size on the wire, headers included.
    pub(crate) wire_bytes: u32,
    /// Its priority class (0 first).
    pub(crate) priority: u8,
    /// Whether it is ECN-capable.
    pub(crate) ect: bool,
    /// Whether an earlier port marked it CE.
    pub(crate) ce: bool,
    /// Whether it carries payload (a data segment), rather than being a SYN or a pure ACK.
    pub(crate) payload: bool,
    /// Its flow.
    pub(crate) flow: FlowId,
    /// Whether it is on its way back to its sender (a discipline returned it, `Joined::Returned`):
    /// a discipline must not return it again.
    pub(crate) returned: bool,
}

/// What a discipline did with an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Joined {
    /// It waits.
    Queued,
    /// It joined and `victim` (perhaps the arrival itself) of `bytes` left the queue, dropped.
    Displaced {
        /// The packet dropped.
        victim: PacketId,
        /// Its size on the wire.
        bytes: u32,
    },
    /// It joined, and `packet` (perhaps the arrival itself) waits without its payload, `cut`
    /// bytes lighter (NDP's trimming): the port counts it at its new size, the engine drops the
    /// payload from the packet.
    Trimmed {
        /// The packet trimmed.
        packet: PacketId,
        /// Payload bytes it lost.
        cut: u32,
    },
    /// `packet` (perhaps the arrival itself; if not, the arrival joined) left the queue, `bytes`
    /// as it was counted, and goes back to the host that sent it, `cut` bytes of payload lighter
    /// (NDP's return-to-sender: a header that found no room). The port counts it as gone, not
    /// dropped; the engine turns it around at the port's node, onto the mirror of the way it
    /// came (`Network::way_back`), and hands it to the end that sent it
    /// (`SenderEnd::handle_returned` for data, `ReceiverEnd::handle_returned` for an answer). A
    /// packet is returned once at most (`Arriving::returned`).
    Returned {
        /// The packet returned.
        packet: PacketId,
        /// Its size on the wire as the port counted it.
        bytes: u32,
        /// Payload bytes it lost.
        cut: u32,
    },
}

/// How a port queues, picks the next packet and drops, for a transport that has its own
/// (pFabric Section 4.1, NDP's trimming). The port keeps the accounting (bytes and packets
/// waiting, counters, the serializer and the wire); the discipline holds the waiting packets and
/// the policy. It reads the clock: a discipline may hold waiting packets back until a time of
/// its own (NDP's PULL pacer), which `held_until` gives.
pub(crate) trait QueueDiscipline {
    /// The transport's header.
    type Header;

    /// A packet arrives at `now` (with its header, if it has one) and finds `waiting` bytes
    /// queued, itself not counted: it joins, joins and displaces a packet, joins and the
    /// discipline trims a packet to its headers, or a packet (it, or one waiting) goes back to
    /// its sender.
    fn offer(&mut self, now: Instant, packet: &Arriving, header: Option<&Self::Header>, waiting: u64) -> Joined;

    /// The next packet to serialize at `now`, if any waits and may go.
    fn next(&mut self, now: Instant) -> Option<PacketId>;

    /// A packet of `wire_bytes` (`payload` if it carries any) arrives at `now` and finds nothing
    /// waiting and the serializer free: if `offer` would queue it and `next` then send it at
    /// once, the discipline keeps what it would keep of it in service and says yes, and the
    /// port puts it on the wire without offering it (`Port::send_if_idle`: most hops of a
    /// network that is not congested). It says no (the default) where the two calls would do
    /// anything else, or where the packet might have to wait (a pacer).
    fn take_when_idle(&mut self, _now: Instant, _wire_bytes: u32, _payload: bool) -> bool {
        false
    }

    /// When a packet that waits but may not go yet may go (`next` returned `None` while `len`
    /// is not 0): the port wakes then. `None` if every packet that waits may go.
    fn held_until(&self) -> Option<Instant> {
        None
    }

    /// Packets waiting.
    fn len(&self) -> usize;
}

/// The processor or discipline of a transport that has none (for its header `H`): it has no
/// values, so the registry's variant for it is never built and costs nothing.
pub(crate) struct Never<H>(std::convert::Infallible, std::marker::PhantomData<H>);

impl<H> PortProcessor for Never<H> {
    type Header = H;

    fn on_out(&mut self, _: &Passage<'_>, _: &mut H) -> bool {
        match self.0 {}
    }
}

impl<H> QueueDiscipline for Never<H> {
    type Header = H;

    fn offer(&mut self, _: Instant, _: &Arriving, _: Option<&H>, _: u64) -> Joined {
        match self.0 {}
    }

    fn next(&mut self, _: Instant) -> Option<PacketId> {
        match self.0 {}
    }

    fn len(&self) -> usize {
        match self.0 {}
    }
}

/// What a transport's setup may know of the network, beyond the scenario.
pub(crate) struct NetFacts {
    /// The fastest host link (D3's header carries rates at the scale that covers it).
    pub(crate) fastest_host_link: BitsPerSec,
    /// The links from the first host to the host farthest from it (the most hops), in order: the
    /// network's longest path on the topologies incast builds (a graph file's may have a longer
    /// one elsewhere).
    pub(crate) longest_path: Vec<LinkSpec>,
}

impl NetFacts {
    /// The round trip over the longest path with nothing else on it: a packet of `out_bytes`
    /// there (stored and forwarded at each hop) and one of `back_bytes` back (Homa's RTTbytes
    /// is this for a full packet and a grant, times the host link's rate).
    pub(crate) fn round_trip(&self, out_bytes: u64, back_bytes: u64) -> Duration {
        let one_way = |bytes| crate::ideal::tandem(&self.longest_path, crate::ideal::Train::single(bytes));
        one_way(out_bytes) + one_way(back_bytes)
    }
}

/// A flow about to start.
pub(crate) struct FlowStart<'a> {
    /// Its number (what `Plugin::poll_wake` names it by).
    pub(crate) flow: FlowId,
    /// Its sender's NIC.
    pub(crate) nic: PortId,
    pub(crate) protocol: Protocol,
    pub(crate) plan: &'a FlowPlan,
    /// Its absolute deadline.
    pub(crate) deadline: Option<Instant>,
    pub(crate) now: Instant,
    /// Rate of the sender's NIC.
    pub(crate) uplink: BitsPerSec,
}

/// A port as a transport sees it when the network is built.
pub(crate) struct PortFacts {
    pub(crate) id: PortId,
    /// A host's NIC rather than a switch port.
    pub(crate) host: bool,
    /// A host NIC that queues like a switch port (`[switch] host_nic = "like-switch"`).
    pub(crate) like_switch: bool,
    pub(crate) view: PortView,
}

/// The packets of a flow as its ideal completion time counts them (`crate::ideal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IdealPackets {
    /// Payload per full segment.
    pub(crate) mss: u64,
    /// Header bytes of a data segment.
    pub(crate) header_bytes: u64,
    /// The handshake before data, if the flow makes one: the bytes of its first packet and of
    /// the answer.
    pub(crate) handshake: Option<(u64, u64)>,
}

impl IdealPackets {
    /// A flow of a TCP stack configured by `tcp`: its segments, and its SYN and SYN/ACK if the
    /// stack opens connections with a handshake.
    pub(crate) fn of_tcp(tcp: &TcpConfig, opens: bool) -> IdealPackets {
        let syn = u64::from(tcp.syn_header_bytes());
        IdealPackets {
            mss: tcp.mss(),
            header_bytes: u64::from(tcp.data_header_bytes()),
            handshake: (opens && tcp.handshake).then_some((syn, syn)),
        }
    }
}

/// What a capture writes of a transport's header: TCP options it rides in, and bytes that open
/// the TCP payload (a dissector reads them there).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CapturedHeader {
    /// SACK blocks, written as TCP's SACK option.
    pub(crate) sack: Option<SackBlocks>,
    /// The header ends the flow (D3's, PDQ's FIN): TCP's FIN flag.
    pub(crate) fin: bool,
    /// The header's bytes at the start of the payload, and how many there are.
    pub(crate) payload: ([u8; CapturedHeader::MAX_PAYLOAD], usize),
}

impl Default for CapturedHeader {
    /// Nothing beyond the segment's own fields.
    fn default() -> CapturedHeader {
        CapturedHeader { sack: None, fin: false, payload: ([0; Self::MAX_PAYLOAD], 0) }
    }
}

impl CapturedHeader {
    /// The most bytes a header may put at the start of a captured payload.
    pub(crate) const MAX_PAYLOAD: usize = 64;

    /// A header written as `bytes` at the start of the payload, ending the flow if `fin`.
    pub(crate) fn payload(bytes: &[u8], fin: bool) -> CapturedHeader {
        let mut out = [0u8; Self::MAX_PAYLOAD];
        out[..bytes.len()].copy_from_slice(bytes);
        CapturedHeader { sack: None, fin, payload: (out, bytes.len()) }
    }

    /// The payload's header bytes.
    pub(crate) fn payload_bytes(&self) -> &[u8] {
        &self.payload.0[..self.payload.1]
    }
}

/// A traced sender's state: the common fields, and the values its transport sets of its own
/// trace columns (`Plugin::TRACE_COLUMNS`), by column name; the traces table puts them in their
/// columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TraceRow {
    /// Smoothed RTT, picoseconds, once measured.
    pub(crate) srtt_ps: Option<u64>,
    /// Retransmission timeout, back-off included, picoseconds.
    pub(crate) rto_ps: u64,
    /// The transport's columns that hold a value now.
    pub(crate) values: Vec<(&'static str, ExtraValue)>,
}

impl TraceRow {
    /// Sets `column` (a transport's `TRACE_COLUMNS` entry) to `value`, or leaves it null.
    pub(crate) fn set(&mut self, column: &ExtraColumn, value: Option<ExtraValue>) {
        if let Some(value) = value {
            self.values.push((column.name, value));
        }
    }

    /// The value of the column named `name`, if set.
    pub(crate) fn get(&self, name: &str) -> Option<ExtraValue> {
        self.values.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}
