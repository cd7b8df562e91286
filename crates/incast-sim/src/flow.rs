//! A flow's two endpoints and the transport they run, dispatched by enum (no boxing per packet).
//! The engine talks to every transport through the same sans-IO calls.

use incast_proto::cc::{CcKind, CongestionControl};
use incast_proto::rate::from_bits_per_sec;
use incast_proto::d3::{D3Config, D3Receiver, D3Sender, RateField};
use incast_proto::pdq::{PdqConfig, PdqSender, SchedulingHeader};
use incast_proto::tcp::{AckSegment, DataSegment, EchoReceiver, TcpConfig, TcpReceiver, TcpSender};
use incast_scenario::spec::PfabricSpec;
use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::connection::{Connection, Span};
use crate::outcome::Outcome;
use crate::network::Routes;
use crate::packet::{Ext, RouteCursor};
use crate::scenario::{Protocol, TransportSpec};
use crate::workload::FlowPlan;

/// The transport state of a running flow.
pub(crate) enum Transport {
    /// Window-based TCP (NewReno, DCTCP or D2TCP policy) over one reliability mechanism.
    Tcp {
        sender: Box<TcpSender>,
        receiver: Box<TcpReceiver>,
    },
    /// D3 or RCPdc: rates allocated by the routers on the path.
    D3 {
        sender: Box<D3Sender>,
        receiver: Box<D3Receiver>,
    },
    /// PDQ: rates accepted, or flows paused, by the ports on the path.
    Pdq {
        sender: Box<PdqSender>,
        receiver: Box<EchoReceiver<SchedulingHeader>>,
    },
}

/// A packet a sender hands its NIC.
pub(crate) struct Outgoing {
    pub(crate) seg: DataSegment,
    /// D3's rate request, on the first packet of an interval; PDQ's header, on every packet.
    pub(crate) ext: Option<Ext>,
}

/// An ACK a receiver hands its NIC.
pub(crate) struct OutgoingAck {
    pub(crate) ack: AckSegment,
    /// D3's allocations, on the ACK of a rate request; PDQ's header, answered; else the SACK
    /// blocks, if any.
    pub(crate) ext: Option<Ext>,
}

/// Everything a host needs to know to create a flow's endpoints.
pub(crate) struct Setup<'a> {
    pub(crate) spec: &'a TransportSpec,
    /// Rate of the sender's NIC (D3 quenching compares desired rates with it).
    pub(crate) uplink: BitsPerSec,
    /// How D3's header carries rates in this network, the same for hosts and routers.
    pub(crate) d3_field: RateField,
}

/// How D3's header carries rates in a network whose fastest host link is `fastest`: the 8-bit
/// fields at the scale that covers it (D3 Section 5), or exact rates without `quantize`.
pub(crate) fn d3_field(spec: &TransportSpec, fastest: BitsPerSec) -> RateField {
    RateField::new(spec.d3.quantize, from_bits_per_sec(fastest))
}

impl Transport {
    /// Creates the endpoints of `protocol` for a flow starting at `now`.
    pub(crate) fn new(protocol: Protocol, setup: &Setup<'_>, plan: &FlowPlan, deadline: Option<Instant>, now: Instant) -> Transport {
        let spec = setup.spec;
        let (kind, ect) = match protocol {
            Protocol::Tcp | Protocol::TcpPr => (CcKind::NewReno, false),
            Protocol::Pfabric => {
                let config = pfabric_host(&spec.pfabric);
                let sender = TcpSender::new(config, CongestionControl::new(CcKind::NewReno), plan.size_bytes, false, deadline, now);
                return Transport::Tcp { sender: Box::new(sender), receiver: Box::new(TcpReceiver::new(&config)) };
            }
            Protocol::Dctcp => (CcKind::Dctcp { g: spec.dctcp_g, initial_alpha: spec.dctcp_initial_alpha }, true),
            Protocol::D2tcp => (CcKind::D2tcp(spec.d2tcp), true),
            Protocol::D3 | Protocol::Rcpdc => {
                let config = D3Config {
                    base_rate: spec.d3.base_rate_bytes_per_sec,
                    base_grant: spec.d3.base_grant,
                    pacing: spec.d3.pacing,
                    field: setup.d3_field,
                    deadline_aware: protocol == Protocol::D3,
                    quench: spec.d3.quench,
                    pace_requests: spec.d3.pace_requests,
                    // D3 repairs losses NewReno's way under its rate budget: no SACK.
                    ..D3Config::new(TcpConfig { sack: false, prr: false, ..spec.tcp }, setup.uplink)
                };
                return Transport::D3 {
                    sender: Box::new(D3Sender::new(config, plan.size_bytes, deadline, now)),
                    receiver: Box::new(D3Receiver::new(&spec.tcp)),
                };
            }
            Protocol::Pdq => {
                // PDQ repairs losses NewReno's way at the accepted rate: no SACK, and every
                // packet is acknowledged at once (it carries a header to answer).
                let tcp = TcpConfig { sack: false, prr: false, ..spec.tcp };
                let config = PdqConfig {
                    tcp,
                    max_rate: from_bits_per_sec(setup.uplink),
                    early_termination: spec.pdq.early_termination && plan.deadline.is_some(),
                };
                return Transport::Pdq {
                    sender: Box::new(PdqSender::new(config, plan.size_bytes, deadline, now)),
                    receiver: Box::new(EchoReceiver::new(&tcp)),
                };
            }
        };
        let sender = TcpSender::new(spec.tcp, CongestionControl::new(kind), plan.size_bytes, ect, deadline, now);
        Transport::Tcp { sender: Box::new(sender), receiver: Box::new(TcpReceiver::new(&spec.tcp)) }
    }

    /// Appends the next message of a persistent connection to the sender's byte stream.
    ///
    /// # Panics
    /// For D3, RCPdc and PDQ, whose flows are not persistent (the scenario rejects that).
    pub(crate) fn push_message(&mut self, now: Instant, bytes: u64, deadline: Option<Instant>) {
        match self {
            Transport::Tcp { sender, .. } => sender.push_message(now, bytes, deadline),
            Transport::D3 { .. } | Transport::Pdq { .. } => unreachable!("persistent connections are TCP-family only"),
        }
    }

    /// pFabric's priority for the data packet just polled: the flow's bytes the receiver has
    /// not reported holding, saturating at `u32::MAX` (so a long-lived flow is the least
    /// urgent).
    pub(crate) fn pfabric_rank(&self) -> u32 {
        match self {
            Transport::Tcp { sender, .. } => sender.unreported_bytes().map_or(u32::MAX, |b| b.min(u64::from(u32::MAX)) as u32),
            Transport::D3 { .. } | Transport::Pdq { .. } => unreachable!("pFabric hosts run the TCP sender"),
        }
    }

    /// Whether the receiver's pure ACKs are ECN-capable: the flow's, as its sender negotiated
    /// them (`TcpConfig::ect_control_packets`); never for D3, RCPdc and PDQ.
    pub(crate) fn ack_ect(&self) -> bool {
        match self {
            Transport::Tcp { sender, .. } => sender.control_ect(),
            Transport::D3 { .. } | Transport::Pdq { .. } => false,
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing> {
        match self {
            Transport::Tcp { sender, .. } => sender.poll_transmit(now).map(|seg| Outgoing { seg, ext: None }),
            Transport::D3 { sender, .. } => sender.poll_transmit(now).map(|out| Outgoing { seg: out.data, ext: out.header.map(Ext::Request) }),
            Transport::Pdq { sender, .. } => sender.poll_transmit(now).map(|out| Outgoing { seg: out.data, ext: Some(Ext::Pdq(out.header)) }),
        }
    }

    pub(crate) fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck> {
        match self {
            Transport::Tcp { receiver, .. } => receiver.poll_ack(now).map(|ack| {
                let ext = (!ack.sack.is_empty()).then_some(Ext::Sack(ack.sack));
                OutgoingAck { ack, ext }
            }),
            Transport::D3 { receiver, .. } => receiver.poll_ack(now).map(|(ack, feedback)| OutgoingAck { ack, ext: feedback.map(Ext::Feedback) }),
            Transport::Pdq { receiver, .. } => receiver.poll_ack(now).map(|(ack, echo)| OutgoingAck { ack, ext: echo.map(Ext::Pdq) }),
        }
    }

    /// A data packet (or header-only one) arrived at the receiver, with its extension header.
    pub(crate) fn handle_data(&mut self, now: Instant, seg: &DataSegment, ext: Option<&Ext>) {
        match self {
            Transport::Tcp { receiver, .. } => receiver.handle_data(now, seg),
            Transport::D3 { receiver, .. } => receiver.handle_data(now, seg, ext.and_then(Ext::request)),
            Transport::Pdq { receiver, .. } => receiver.handle_data(now, seg, ext.and_then(Ext::pdq).copied()),
        }
    }

    /// An ACK arrived at the sender, with its extension header (its SACK blocks are in `ack`).
    pub(crate) fn handle_ack(&mut self, now: Instant, ack: &AckSegment, ext: Option<&Ext>) {
        match self {
            Transport::Tcp { sender, .. } => sender.handle_ack(now, ack),
            Transport::D3 { sender, .. } => sender.handle_ack(now, ack, ext.and_then(Ext::feedback)),
            Transport::Pdq { sender, .. } => sender.handle_ack(now, ack, ext.and_then(Ext::pdq)),
        }
    }

    /// Lets both endpoints act on whatever timers are due.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        match self {
            Transport::Tcp { sender, receiver } => {
                sender.handle_timeout(now);
                receiver.handle_timeout(now);
            }
            Transport::D3 { sender, receiver, .. } => {
                sender.handle_timeout(now);
                receiver.handle_timeout(now);
            }
            Transport::Pdq { sender, receiver } => {
                sender.handle_timeout(now);
                receiver.handle_timeout(now);
            }
        }
    }

    /// The earliest timer of either endpoint.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        match self {
            Transport::Tcp { sender, receiver } => earliest(sender.poll_timeout(), receiver.poll_timeout()),
            Transport::D3 { sender, receiver, .. } => earliest(sender.poll_timeout(), receiver.poll_timeout()),
            Transport::Pdq { sender, receiver } => earliest(sender.poll_timeout(), receiver.poll_timeout()),
        }
    }

    /// Payload bytes the receiver holds in order.
    pub(crate) fn delivered_bytes(&self) -> u64 {
        match self {
            Transport::Tcp { receiver, .. } => receiver.bytes_received_in_order(),
            Transport::D3 { receiver, .. } => receiver.bytes_received_in_order(),
            Transport::Pdq { receiver, .. } => receiver.bytes_received_in_order(),
        }
    }

    /// Whether the sender has nothing left to do.
    pub(crate) fn sender_complete(&self) -> bool {
        match self {
            Transport::Tcp { sender, .. } => sender.is_complete(),
            Transport::D3 { sender, .. } => sender.is_complete(),
            Transport::Pdq { sender, .. } => sender.is_complete(),
        }
    }

    /// What the flow achieved so far.
    pub(crate) fn outcome(&self) -> Outcome {
        match self {
            Transport::Tcp { sender, receiver } => {
                let s = sender.stats();
                Outcome {
                    delivered_bytes: receiver.bytes_received_in_order(),
                    retransmitted_bytes: s.retransmitted_bytes,
                    timeouts: s.timeouts as u32,
                    ..Outcome::default()
                }
            }
            Transport::D3 { sender, receiver, .. } => {
                let s = sender.stats();
                Outcome {
                    delivered_bytes: receiver.bytes_received_in_order(),
                    retransmitted_bytes: s.retransmitted_bytes,
                    timeouts: s.timeouts as u32,
                    quenched: sender.quenched(),
                    time_at_base_rate: s.time_at_base_rate,
                }
            }
            Transport::Pdq { sender, receiver } => {
                let s = sender.stats();
                Outcome {
                    delivered_bytes: receiver.bytes_received_in_order(),
                    retransmitted_bytes: s.retransmitted_bytes,
                    timeouts: s.timeouts as u32,
                    // Early Termination, like D3's quenching, gives up on the flow.
                    quenched: sender.terminated(),
                    ..Outcome::default()
                }
            }
        }
    }
}

/// The TCP settings of a flow of `protocol`: pFabric's hosts' own, else `[transport]`'s.
pub(crate) fn tcp_config_of(spec: &TransportSpec, protocol: Protocol) -> TcpConfig {
    match protocol {
        Protocol::Pfabric => pfabric_host(&spec.pfabric),
        _ => spec.tcp,
    }
}

/// A pFabric host (pFabric Section 4.2) on incast's TCP sender: it starts at the window
/// `[pfabric]` gives (one bandwidth-delay product) and grows by one segment per ACK of new data
/// up to the cap; it has no fast retransmit (the ns-2 MinTCP agent sets `dynamic_dupack_`
/// 1000000; pFabric's simulator has none either), so a loss waits for the timeout, which is
/// fixed: no RTT estimate and no back-off (MinTCP's `rtt_timeout` returns `minrto_`; YAPS arms
/// `retx_timeout` as is). A timeout sets the window to one segment and ssthresh to half the
/// window (at least two segments), and resends every byte not SACKed. Receivers ACK every
/// packet at once with SACK blocks; there is no handshake. After `[pfabric] probe_after`
/// timeouts in a row (5) the flow is in probe mode: each further timeout resends one byte of its
/// first hole, until any ACK returns (the ns-2 MinTCP agent's `prob_mode_`; YAPS has none). Segments carry 1460 B of payload
/// under 40 B of headers, as in pFabric's code (YAPS `params.cpp`: `mss` 1460, `hdr_size` 40);
/// no `[transport]` key applies.
pub(crate) fn pfabric_host(spec: &PfabricSpec) -> TcpConfig {
    TcpConfig {
        mss_bytes: incast_proto::tcp::MSS_BYTES,
        timestamps: false,
        initial_window_segments: spec.initial_window_segments,
        max_window_segments: Some(spec.max_window_segments),
        probe_after_timeouts: (spec.probe_after > 0).then_some(spec.probe_after),
        initial_ssthresh_bytes: None,
        min_rto: spec.rto,
        initial_rto: Some(spec.rto),
        max_rto: spec.rto,
        delayed_ack: None,
        receive_window_bytes: None,
        dupack_threshold: u32::MAX,
        sack: true,
        rescue_retransmission: false,
        partial_ack_retransmit: false,
        prr: false,
        limited_transmit: false,
        window_growth: incast_proto::tcp::WindowGrowth::PerAck,
        cwnd_validation: false,
        loss_basis: incast_proto::tcp::LossBasis::Cwnd,
        handshake: false,
        restart_after_idle: false,
        ..TcpConfig::default()
    }
}

fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A flow of the run: its plan, routes, transport and outcome.
pub(crate) struct Flow {
    pub(crate) plan: FlowPlan,
    pub(crate) protocol: Protocol,
    pub(crate) forward: RouteCursor,
    pub(crate) reverse: RouteCursor,
    pub(crate) transport: Option<Transport>,
    /// Final counters once `transport` has been freed.
    pub(crate) outcome: Option<Outcome>,
    pub(crate) started_at: Option<Instant>,
    pub(crate) finished_at: Option<Instant>,
    /// Absolute deadline once started.
    pub(crate) deadline_at: Option<Instant>,
    /// Time of this flow's pending timer event, if any (later events for it are stale).
    pub(crate) timer_at: Option<Instant>,
    /// Waiting for its host's NIC to drain.
    pub(crate) blocked: bool,
    /// A message of a persistent connection: where its bytes are on the connection.
    pub(crate) span: Option<Span>,
    /// The connection this flow carries, if it opened a persistent one; it then keeps its
    /// transport (never retires) for the connection's later messages.
    pub(crate) connection: Option<Box<Connection>>,
    /// When the receiver last got new in-order bytes, and the longest wait so far.
    pub(crate) stalls: Stalls,
    /// Its packets in the network (queued or on a wire): an arriving packet reads its flow, so
    /// an ended flow is released only once none is left.
    pub(crate) in_flight: u32,
    /// Forward, reverse: the route is the flow's own, given back when it is released
    /// (`Network::release_routes`).
    pub(crate) own_routes: [bool; 2],
}

/// When a receiver last got new in-order bytes, and the longest it went without (starvation is
/// what D3's time slices bound; a timeout shows here too). Two words per flow: a run keeps
/// millions of flows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stalls {
    /// The flow's start, then its last delivery of new bytes; `Instant::NEVER` once the flow
    /// has ended and no gap is open any more.
    pub(crate) since: Instant,
    /// Longest gap between two such instants so far.
    pub(crate) longest: Duration,
}

impl Stalls {
    /// The receiver got new in-order bytes at `now`.
    #[inline]
    pub(crate) fn on_progress(&mut self, now: Instant) {
        self.longest = self.longest_at(now);
        self.since = now;
    }

    /// The flow ended at `now`: the gap open until then counts, and no later one.
    pub(crate) fn close(&mut self, now: Instant) {
        self.longest = self.longest_at(now);
        self.since = Instant::NEVER;
    }

    /// The longest gap, counting the one still open at `now`.
    pub(crate) fn longest_at(&self, now: Instant) -> Duration {
        self.longest.max(now.saturating_since(self.since))
    }
}

impl Flow {
    /// A flow of `plan` with its `protocol` and routes, not started.
    pub(crate) fn new(plan: FlowPlan, protocol: Protocol, routes: Routes) -> Flow {
        Flow {
            plan,
            protocol,
            forward: routes.forward,
            reverse: routes.reverse,
            own_routes: routes.own,
            transport: None,
            outcome: None,
            started_at: None,
            finished_at: None,
            deadline_at: None,
            timer_at: None,
            blocked: false,
            span: None,
            connection: None,
            stalls: Stalls::default(),
            in_flight: 0,
        }
    }

    /// Its routes, as `Network::add_routes` gave them.
    pub(crate) fn routes(&self) -> Routes {
        Routes { forward: self.forward, reverse: self.reverse, own: self.own_routes }
    }

    /// An ended flow with no transport, no timer and no route of its own (for tests).
    #[cfg(test)]
    pub(crate) fn placeholder() -> Flow {
        let plan = FlowPlan {
            src: 0,
            dst: 0,
            size_bytes: Some(0),
            start: Instant::ZERO,
            deadline: None,
            protocol: None,
            priority: 0,
            workload: 0,
            round: 0,
            app: None,
            background: false,
            persistent: false,
        };
        let nowhere = RouteCursor { start: 0, len: 0, hop: 0 };
        let routes = Routes { forward: nowhere, reverse: nowhere, own: [false; 2] };
        Flow { outcome: Some(Outcome::default()), ..Flow::new(plan, Protocol::Tcp, routes) }
    }

    /// Counters so far (zero before the flow starts) of a flow that is not a message of a
    /// persistent connection; see `Span::outcome` for those.
    pub(crate) fn outcome(&self) -> Outcome {
        self.outcome.or_else(|| self.transport.as_ref().map(Transport::outcome)).unwrap_or_default()
    }

    /// When the flow is due: its deadline counted from its start, or from its planned start if
    /// it never started; `None` without a deadline.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.deadline_at.or_else(|| Some(self.plan.start + self.plan.deadline?))
    }

    /// The host gave up on the flow (D3 quenching): it retired without the receiver holding
    /// every byte, so it will never finish.
    pub(crate) fn abandoned(&self) -> bool {
        self.outcome.is_some() && self.finished_at.is_none()
    }

    /// Frees the endpoints of a flow whose both ends are done, keeping its counters.
    pub(crate) fn retire(&mut self) {
        self.outcome = Some(self.outcome());
        self.transport = None;
        self.timer_at = None;
    }
}

#[cfg(test)]
mod tests {
    use incast_proto::tcp::{SackBlocks, MSS_BYTES};

    use super::*;

    const MSS: u64 = MSS_BYTES as u64;

    fn at_us(us: u64) -> Instant {
        Instant::ZERO + Duration::from_us(us)
    }

    fn pfabric_sender(size: u64) -> TcpSender {
        let config = pfabric_host(&PfabricSpec::default());
        TcpSender::new(config, CongestionControl::new(CcKind::NewReno), Some(size), false, None, Instant::ZERO)
    }

    fn drain(s: &mut TcpSender, now: Instant) -> Vec<u64> {
        std::iter::from_fn(|| s.poll_transmit(now)).map(|seg| seg.seq / MSS).collect()
    }

    fn ack(s: &mut TcpSender, now: Instant, segments: u64, sack: &[(u64, u64)]) {
        let blocks = SackBlocks::from_slice(&sack.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect::<Vec<_>>());
        s.handle_ack(now, &AckSegment { sack: blocks, ..AckSegment::plain(segments * MSS, false, Instant::ZERO) });
    }

    #[test]
    fn pfabric_host_starts_at_its_window_and_grows_to_the_cap_only() {
        let mut s = pfabric_sender(100 * MSS);
        assert_eq!(drain(&mut s, Instant::ZERO), (0..12).collect::<Vec<_>>(), "12 segments at once, no handshake");
        for n in 1..=12 {
            ack(&mut s, at_us(10), n, &[]);
        }
        assert_eq!(s.cwnd_bytes(), 15 * MSS, "one segment per ACK of new data, up to 15");
    }

    #[test]
    fn pfabric_host_never_fast_retransmits_and_times_out_at_a_fixed_interval() {
        let mut s = pfabric_sender(100 * MSS);
        drain(&mut s, Instant::ZERO);
        // Segment 0 is lost: eleven ACKs SACK everything above it, no retransmission follows.
        for n in 1..12 {
            ack(&mut s, at_us(10), 0, &[(1, n + 1)]);
        }
        assert!(drain(&mut s, at_us(10)).iter().all(|&seq| seq >= 12), "new data only, no resend of segment 0");
        assert_eq!(s.unreported_bytes(), Some(89 * MSS), "100 segments less the 11 SACKed");
        // The RTO is 45 us from the first send (duplicate ACKs do not restart it), and again
        // 45 us after the timeout: no back-off.
        let first = s.poll_timeout().expect("data in flight");
        assert_eq!(first, at_us(45));
        s.handle_timeout(first);
        assert_eq!(s.cwnd_bytes(), MSS, "a timeout leaves one segment");
        assert_eq!(drain(&mut s, first), [0], "the hole, not what was SACKed");
        assert_eq!(s.poll_timeout(), Some(first + Duration::from_us(45)));
        s.handle_timeout(first + Duration::from_us(45));
        assert_eq!(s.poll_timeout(), Some(first + Duration::from_us(90)));
    }

    #[test]
    fn pfabric_host_probes_with_one_byte_after_five_timeouts_in_a_row_until_an_ack() {
        let mut s = pfabric_sender(100 * MSS);
        drain(&mut s, Instant::ZERO);
        let len = |s: &mut TcpSender, now| std::iter::from_fn(|| s.poll_transmit(now)).map(|seg| seg.len).collect::<Vec<_>>();
        let mut now = Instant::ZERO;
        let mut sent = Vec::new();
        for _ in 0..6 {
            now = s.poll_timeout().expect("armed");
            s.handle_timeout(now);
            sent.push(len(&mut s, now));
        }
        // Four timeouts resend a segment each; the fifth and sixth, in probe mode, one byte.
        assert_eq!(sent, [vec![1460], vec![1460], vec![1460], vec![1460], vec![1], vec![1]]);
        // The probe's ACK ends probe mode: the window (one segment after the timeouts) sends
        // a full segment from the byte after the probe.
        s.handle_ack(now, &AckSegment::plain(1, false, Instant::ZERO));
        let next: Vec<DataSegment> = std::iter::from_fn(|| s.poll_transmit(now)).collect();
        assert_eq!(next.first().map(|seg| (seg.seq, seg.len)), Some((1, 1460)));
    }
}
