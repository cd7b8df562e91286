//! TCP's transport: `tcp` (NewReno), `dctcp`, `d2tcp` and `tcppr` flows on incast-proto's TCP
//! sender and receiver. The four differ in congestion policy (NewReno, DCTCP and D2TCP over one
//! window skeleton, `incast_proto::cc`) and, for TCPpr, in the strict-priority class its
//! deadline picks (D3 Section 6.1.1). Its packets carry SACK blocks, TCP's option, as their
//! header. The ends here are shared with pFabric's hosts, which run the same sender and receiver.

use incast_proto::cc::{CcKind, CongestionControl, D2tcpConfig};
use incast_proto::tcp::{SackBlocks, TcpConfig, TcpReceiver, TcpSender};
use incast_proto::time::{Duration, Instant};

use super::{FlowStart, IdealPackets, NetFacts, Never, Outgoing, OutgoingAck, ReceiverEnd, SenderEnd, TraceRow, WireHeader};
use crate::outcome::Outcome;
use crate::packet::Packet;
use crate::results::{ExtraColumn, ExtraKind, ExtraValue};
use crate::scenario::{Protocol, Scenario, TcpPrSpec};
use crate::workload::FlowPlan;

/// The TCP transport.
pub(crate) struct Plugin;

/// TCP's settings for a run: `[transport]`'s stack and DCTCP keys, `[d2tcp]` and `[tcppr]`.
pub(crate) struct Setup {
    tcp: TcpConfig,
    dctcp_g: f64,
    dctcp_initial_alpha: f64,
    d2tcp: D2tcpConfig,
    tcppr: TcpPrSpec,
    /// The switches' strict-priority classes, which validation has checked hold TCPpr's.
    priority_classes: u8,
}

/// The congestion window, bytes.
const CWND: ExtraColumn = ExtraColumn { name: "cwnd_bytes", doc: "TCP family: the congestion window, bytes", kind: ExtraKind::U64 };
/// The slow-start threshold, bytes.
const SSTHRESH: ExtraColumn = ExtraColumn {
    name: "ssthresh_bytes",
    doc: "TCP family: the slow-start threshold, bytes; null before the first cut",
    kind: ExtraKind::U64,
};
/// DCTCP's alpha.
const ALPHA: ExtraColumn =
    ExtraColumn { name: "alpha", doc: "DCTCP and D2TCP: the estimate of the fraction of marked bytes", kind: ExtraKind::F64 };
/// D2TCP's d of its last cut.
const D2TCP_D: ExtraColumn =
    ExtraColumn { name: "d2tcp_d", doc: "D2TCP: the deadline imminence d of its last ECN cut", kind: ExtraKind::F64 };
/// D2TCP's p of its last cut.
const D2TCP_P: ExtraColumn =
    ExtraColumn { name: "d2tcp_p", doc: "D2TCP: the penalty p = alpha^d of its last ECN cut", kind: ExtraKind::F64 };

/// The columns a TCP sender adds to the traces table (pFabric's hosts too).
pub(crate) const TRACE_COLUMNS: &[ExtraColumn] = &[CWND, SSTHRESH, ALPHA, D2TCP_D, D2TCP_P];

/// A TCP sender's first retransmission timeout (RFC 6298's initial RTO, never below the
/// minimum): what the transports built on TCP's repair (D3, PDQ, pFabric's hosts) wait too.
pub(crate) fn first_rto(tcp: &TcpConfig) -> Duration {
    tcp.initial_rto.unwrap_or(tcp.min_rto).max(tcp.min_rto)
}

impl super::Plugin for Plugin {
    type Header = SackBlocks;
    type Sender = TcpSenderEnd;
    type Receiver = TcpReceiverEnd;
    type Processor = Never<SackBlocks>;
    type Discipline = Never<SackBlocks>;
    type Setup = Setup;

    const TRACE_COLUMNS: &'static [ExtraColumn] = TRACE_COLUMNS;
    /// A TCP flow gets nothing through for long only when its packets keep being lost and its
    /// timer backs off (from the initial RTO, doubling up to the maximum).
    const STALL_KEYS: &'static [&'static str] = &["switch.buffer", "transport.initial_rto", "transport.max_rto"];

    fn setup(scenario: &Scenario, _net: &NetFacts) -> Setup {
        let t = &scenario.transport;
        Setup {
            tcp: t.tcp,
            dctcp_g: t.dctcp_g,
            dctcp_initial_alpha: t.dctcp_initial_alpha,
            d2tcp: scenario.sections.d2tcp,
            tcppr: scenario.sections.tcppr.clone(),
            priority_classes: scenario.switch.priority_classes.max(1),
        }
    }

    fn first_timeout(setup: &Setup) -> Duration {
        first_rto(&setup.tcp)
    }

    fn endpoints(setup: &Setup, start: &FlowStart<'_>) -> (TcpSenderEnd, TcpReceiverEnd) {
        let kind = match start.protocol {
            Protocol::Dctcp => CcKind::Dctcp { g: setup.dctcp_g, initial_alpha: setup.dctcp_initial_alpha },
            Protocol::D2tcp => CcKind::D2tcp(setup.d2tcp),
            _ => CcKind::NewReno,
        };
        // ECN-capable exactly when the scenario's rules say the protocol reacts to marks (its
        // warning about ports that never mark rests on the same rule).
        ends(setup.tcp, kind, start.protocol.reacts_to_ecn(), start)
    }

    /// TCPpr picks the class from the deadline (D3 Section 6.1.1; validation has checked that
    /// the switches have its classes); the others keep the workload's.
    fn priority(setup: &Setup, protocol: Protocol, plan: &FlowPlan) -> u8 {
        match protocol {
            Protocol::TcpPr => {
                debug_assert!(setup.tcppr.classes_needed() <= setup.priority_classes);
                setup.tcppr.class_of(plan.deadline)
            }
            _ => plan.priority,
        }
    }

    fn ideal(setup: &Setup, _protocol: Protocol, opens: bool) -> IdealPackets {
        IdealPackets::of_tcp(&setup.tcp, opens)
    }

    fn capture(_setup: &Setup, sack: &SackBlocks) -> super::CapturedHeader {
        super::CapturedHeader { sack: Some(*sack), ..super::CapturedHeader::default() }
    }
}

/// SACK blocks ride in TCP's header, whose size the ACK counts already.
impl WireHeader for SackBlocks {
    fn wire_bytes(&self) -> u32 {
        0
    }
}

/// A TCP flow's sending end, boxed: a run holds many flows, and a finished flow frees both ends
/// while its row waits.
pub(crate) struct TcpSenderEnd(pub(crate) Box<TcpSender>);

/// A TCP flow's receiving end.
pub(crate) struct TcpReceiverEnd {
    receiver: Box<TcpReceiver>,
    /// Whether its pure ACKs are ECN-capable: what the flow's SYN negotiated
    /// (`TcpSender::control_ect`), fixed for the flow.
    control_ect: bool,
}

/// The two ends of a flow starting as `start` says, on a stack configured by `config`, with the
/// congestion policy `kind`, its data ECN-capable if `ect`.
pub(crate) fn ends(config: TcpConfig, kind: CcKind, ect: bool, start: &FlowStart<'_>) -> (TcpSenderEnd, TcpReceiverEnd) {
    let sender = TcpSender::new(config, CongestionControl::new(kind), start.plan.size_bytes, ect, start.deadline, start.now);
    let control_ect = sender.control_ect();
    (TcpSenderEnd(Box::new(sender)), TcpReceiverEnd { receiver: Box::new(TcpReceiver::new(&config)), control_ect })
}

impl TcpSenderEnd {
    /// An ACK reached the sender, with its SACK blocks if it carries any.
    #[inline(always)]
    pub(crate) fn handle_ack_sack(&mut self, now: Instant, packet: &Packet, sack: Option<&SackBlocks>) {
        self.0.handle_ack(now, &packet.ack_segment(sack.copied().unwrap_or(SackBlocks::EMPTY)));
    }

    /// What the sender counted so far.
    pub(crate) fn counted(&self) -> Outcome {
        let s = self.0.stats();
        Outcome { retransmitted_bytes: s.retransmitted_bytes, timeouts: s.timeouts as u32, ..Outcome::default() }
    }

    /// The sender's window, RTT and congestion estimates.
    pub(crate) fn trace_into(&self, row: &mut TraceRow) {
        let sender = &self.0;
        row.srtt_ps = sender.srtt().map(Duration::as_ps);
        row.rto_ps = sender.rto().as_ps();
        row.set(&CWND, Some(ExtraValue::U64(sender.cwnd_bytes())));
        row.set(&SSTHRESH, Some(sender.ssthresh_bytes()).filter(|&s| s != u64::MAX).map(ExtraValue::U64));
        let cc = sender.congestion_control();
        row.set(&ALPHA, cc.dctcp_alpha().map(ExtraValue::F64));
        let cut = cc.d2tcp_last_cut();
        row.set(&D2TCP_D, cut.map(|(d, _)| ExtraValue::F64(d)));
        row.set(&D2TCP_P, cut.map(|(_, p)| ExtraValue::F64(p)));
    }
}

impl TcpReceiverEnd {
    /// The receiver's next ACK, with its SACK blocks as the header when it has any. The ACK is
    /// ECN-capable as the sender negotiated (`TcpConfig::ect_control_packets`).
    #[inline(always)]
    pub(crate) fn poll_ack_sack(&mut self, now: Instant) -> Option<OutgoingAck<SackBlocks>> {
        let ack = self.receiver.poll_ack(now)?;
        let header = (!ack.sack.is_empty()).then_some(ack.sack);
        Some(OutgoingAck { ack, ect: self.control_ect, header })
    }

    /// A data segment reached the receiver.
    #[inline(always)]
    pub(crate) fn handle_segment(&mut self, now: Instant, packet: &Packet) {
        self.receiver.handle_data(now, &packet.data_segment());
    }
}

impl SenderEnd for TcpSenderEnd {
    type Header = SackBlocks;

    #[inline]
    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<SackBlocks>> {
        self.0.poll_transmit(now).map(|seg| Outgoing { seg, header: None })
    }

    #[inline]
    fn handle_ack(&mut self, now: Instant, packet: &Packet, header: Option<&SackBlocks>) {
        self.handle_ack_sack(now, packet, header);
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
        self.counted()
    }

    fn trace(&self, row: &mut TraceRow) {
        self.trace_into(row);
    }

    fn push_message(&mut self, now: Instant, bytes: u64, deadline: Option<Instant>) {
        self.0.push_message(now, bytes, deadline);
    }
}

impl ReceiverEnd for TcpReceiverEnd {
    type Header = SackBlocks;

    #[inline]
    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<SackBlocks>> {
        self.poll_ack_sack(now)
    }

    #[inline]
    fn handle_data(&mut self, now: Instant, packet: &Packet, _header: Option<&SackBlocks>) {
        self.handle_segment(now, packet);
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.receiver.handle_timeout(now);
    }

    #[inline]
    fn poll_timeout(&self) -> Option<Instant> {
        self.receiver.poll_timeout()
    }

    #[inline]
    fn delivered_bytes(&self) -> u64 {
        self.receiver.bytes_received_in_order()
    }
}
