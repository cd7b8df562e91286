//! PDQ's transport (Hong, Caesar, Godfrey, SIGCOMM 2012): senders that send at the rate the
//! ports on their path accept and probe while paused, every packet carrying the scheduling
//! header, and a scheduler at every egress port, host NICs included (`scheduler`). docs/pdq.md
//! gives each rule's source.

mod scheduler;

use incast_proto::pdq::{PdqConfig, PdqSender, SchedulingHeader, PDQ_HEADER_BYTES};
use incast_proto::rate::from_bits_per_sec;
use incast_proto::tcp::{EchoReceiver, SackBlocks, TcpConfig};
use incast_proto::time::{Duration, Instant};
use incast_wire::pdq::{Packet as PdqPacket, HEADER_LEN};

use super::tcp::first_rto;
use super::{
    CapturedHeader, FlowStart, ReceiverEnd, SenderEnd, IdealPackets, NetFacts, Never, Outgoing, OutgoingAck, PortFacts, TraceRow, Way,
    WireHeader, SENDING_RATE,
};
use crate::outcome::Outcome;
use crate::packet::{Packet, PacketKind};
use crate::results::{ExtraColumn, ExtraValue};
use crate::scenario::{PdqSpec, Protocol, Scenario};

use scheduler::PdqPort;

/// The PDQ transport.
pub(crate) struct Plugin;

/// PDQ's settings for a run: `[pdq]` and `[transport]`'s TCP, which its hosts recover losses
/// with.
pub(crate) struct Setup {
    pdq: PdqSpec,
    tcp: TcpConfig,
}

impl WireHeader for SchedulingHeader {
    fn wire_bytes(&self) -> u32 {
        PDQ_HEADER_BYTES
    }

    /// Every port a data packet or probe leaves by schedules it (Algorithm 1); its ACK confirms
    /// the schedule at the ports that send the flow's data, as it passes their nodes
    /// (Algorithm 3).
    fn way(&self, kind: PacketKind) -> Option<Way> {
        Some(match kind {
            PacketKind::Data => Way::Out,
            PacketKind::Ack => Way::Back,
        })
    }
}

impl super::Plugin for Plugin {
    type Header = SchedulingHeader;
    type Sender = PdqSenderEnd;
    type Receiver = PdqReceiverEnd;
    type Processor = PdqPort;
    type Discipline = Never<SchedulingHeader>;
    type Setup = Setup;

    const TRACE_COLUMNS: &'static [ExtraColumn] = &[SENDING_RATE];
    /// A PDQ flow waits while its ports' lists hold more critical flows, and its losses back off
    /// as TCP's do.
    const STALL_KEYS: &'static [&'static str] = &["pdq.flow_list", "transport.max_rto"];

    fn setup(scenario: &Scenario, _net: &NetFacts) -> Setup {
        Setup { pdq: scenario.sections.pdq, tcp: scenario.transport.tcp }
    }

    fn first_timeout(setup: &Setup) -> Duration {
        first_rto(&setup.tcp)
    }

    fn endpoints(setup: &Setup, start: &FlowStart<'_>) -> (PdqSenderEnd, PdqReceiverEnd) {
        // PDQ repairs losses NewReno's way at the accepted rate: no SACK, and every packet is
        // acknowledged at once (it carries a header to answer).
        let tcp = TcpConfig { sack: false, prr: false, ..setup.tcp };
        let config = PdqConfig {
            tcp,
            max_rate: from_bits_per_sec(start.uplink),
            early_termination: setup.pdq.early_termination && start.plan.deadline.is_some(),
        };
        (
            PdqSenderEnd(Box::new(PdqSender::new(config, start.plan.size_bytes, start.deadline, start.now))),
            PdqReceiverEnd(Box::new(EchoReceiver::new(&tcp))),
        )
    }

    /// PDQ needs a scheduler at every egress port, host NICs included (PDQ Section 3.3: each
    /// link's scheduler; a host's NIC is the first link of its flows).
    fn processor(setup: &Setup, port: &PortFacts) -> Option<PdqPort> {
        Some(PdqPort::new(&setup.pdq, port.id, &port.view))
    }

    /// Counted on `[transport]`'s TCP as it is set, SACK included (whose SYN option PDQ's hosts,
    /// without SACK, do not send: with timestamps on it fits in their padding, without them the
    /// ideal counts 4 bytes more per SYN than PDQ sends).
    fn ideal(setup: &Setup, _protocol: Protocol, opens: bool) -> IdealPackets {
        IdealPackets::of_tcp(&setup.tcp, opens)
    }

    /// The header's 20 bytes open the TCP payload (`incast_wire::pdq`); its FIN is TCP's.
    fn capture(_setup: &Setup, header: &SchedulingHeader) -> CapturedHeader {
        let mut bytes = [0u8; HEADER_LEN];
        header.to_wire().emit(&mut PdqPacket::new_unchecked(&mut bytes[..]));
        CapturedHeader::payload(&bytes, header.fin)
    }
}

/// A PDQ flow's sending end.
pub(crate) struct PdqSenderEnd(Box<PdqSender>);

/// A PDQ flow's receiving end: TCP's, echoing each scheduling header.
pub(crate) struct PdqReceiverEnd(Box<EchoReceiver<SchedulingHeader>>);

impl SenderEnd for PdqSenderEnd {
    type Header = SchedulingHeader;

    #[inline]
    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<SchedulingHeader>> {
        self.0.poll_transmit(now).map(|out| Outgoing { seg: out.data, header: Some(out.header) })
    }

    #[inline]
    fn handle_ack(&mut self, now: Instant, packet: &Packet, header: Option<&SchedulingHeader>) {
        self.0.handle_ack(now, &packet.ack_segment(SackBlocks::EMPTY), header);
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now);
    }

    #[inline]
    fn poll_timeout(&self) -> Option<Instant> {
        self.0.poll_timeout()
    }

    #[inline]
    fn is_complete(&self) -> bool {
        self.0.is_complete()
    }

    fn outcome(&self) -> Outcome {
        let s = self.0.stats();
        Outcome {
            retransmitted_bytes: s.retransmitted_bytes,
            timeouts: s.timeouts as u32,
            // Early Termination, like D3's quenching, gives up on the flow.
            quenched: self.0.terminated(),
            ..Outcome::default()
        }
    }

    /// PDQ's accepted rate R_S shares the explicit-rate column (0 while paused).
    fn trace(&self, row: &mut TraceRow) {
        row.srtt_ps = self.0.srtt().map(Duration::as_ps);
        row.rto_ps = self.0.rto().as_ps();
        row.set(&SENDING_RATE, Some(ExtraValue::U64(self.0.rate())));
    }
}

impl ReceiverEnd for PdqReceiverEnd {
    type Header = SchedulingHeader;

    #[inline]
    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<SchedulingHeader>> {
        self.0.poll_ack(now).map(|(ack, echo)| OutgoingAck { ack, ect: false, header: echo })
    }

    #[inline]
    fn handle_data(&mut self, now: Instant, packet: &Packet, header: Option<&SchedulingHeader>) {
        self.0.handle_data(now, &packet.data_segment(), header.copied());
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now);
    }

    #[inline]
    fn poll_timeout(&self) -> Option<Instant> {
        self.0.poll_timeout()
    }

    #[inline]
    fn delivered_bytes(&self) -> u64 {
        self.0.bytes_received_in_order()
    }
}
