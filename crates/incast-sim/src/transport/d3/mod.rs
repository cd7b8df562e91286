//! D3's transport (D3 Sections 4 and 5), and RCPdc, D3 without deadlines (Section 6.1): hosts
//! that ask the routers on their path for a rate every RTT in a 22-byte congestion header, and a
//! router at every switch egress port that allocates it (`router`) and counts its priority
//! inversions (`inversions`).

mod header;
mod inversions;
mod router;

use incast_proto::d3::{D3Config, D3Receiver, D3Sender, RateField, D3_HEADER_BYTES};
use incast_proto::rate::from_bits_per_sec;
use incast_proto::tcp::{SackBlocks, TcpConfig};
use incast_proto::time::{Duration, Instant};
use incast_wire::d3::{Packet as D3Packet, HEADER_LEN};

use super::tcp::first_rto;
use super::{
    CapturedHeader, FlowStart, ReceiverEnd, SenderEnd, IdealPackets, NetFacts, Never, Outgoing, OutgoingAck, TraceRow,
    SENDING_RATE,
};
use crate::outcome::Outcome;
use crate::packet::Packet;
use crate::results::{ExtraColumn, ExtraValue};
use crate::scenario::{D3Spec, Protocol, Scenario};

pub(crate) use header::D3Header;
pub(crate) use router::D3Port;

use header::{COUNTERS, DESIRED_RATE, SAMPLES};

/// The D3 transport.
pub(crate) struct Plugin;

/// D3's settings for a run: `[d3]`, the TCP its hosts recover losses with, and how its header
/// carries rates in this network.
pub(crate) struct Setup {
    d3: D3Spec,
    tcp: TcpConfig,
    /// The 8-bit fields at the scale that covers the fastest host link (D3 Section 5), or exact
    /// rates without `quantize`: the same for hosts and routers.
    field: RateField,
    /// The scale a capture writes rates at.
    wire_scale: u8,
}

impl super::Plugin for Plugin {
    type Header = D3Header;
    type Sender = D3SenderEnd;
    type Receiver = D3ReceiverEnd;
    type Processor = D3Port;
    type Discipline = Never<D3Header>;
    type Setup = Setup;

    const TRACE_COLUMNS: &'static [ExtraColumn] = &[SENDING_RATE, DESIRED_RATE];
    /// A D3 flow sends nothing but its requests while every grant is the base grant: a port's
    /// capacity too small for a share above it (issue 39).
    const STALL_KEYS: &'static [&'static str] = &["d3.capacity_max", "d3.capacity_min", "d3.base_rate"];
    const PORT_COUNTERS: &'static [&'static str] = COUNTERS;
    const PORT_SAMPLES: &'static [ExtraColumn] = SAMPLES;

    fn setup(scenario: &Scenario, net: &NetFacts) -> Setup {
        let d3 = scenario.sections.d3;
        let fastest = from_bits_per_sec(net.fastest_host_link);
        Setup { d3, tcp: scenario.transport.tcp, field: RateField::new(d3.quantize, fastest), wire_scale: incast_wire::d3::scale_for(fastest) }
    }

    fn first_timeout(setup: &Setup) -> Duration {
        first_rto(&setup.tcp)
    }

    fn endpoints(setup: &Setup, start: &FlowStart<'_>) -> (D3SenderEnd, D3ReceiverEnd) {
        let d3 = &setup.d3;
        let config = D3Config {
            base_rate: d3.base_rate_bytes_per_sec,
            base_grant: d3.base_grant,
            pacing: d3.pacing,
            field: setup.field,
            deadline_aware: start.protocol == Protocol::D3,
            quench: d3.quench,
            pace_requests: d3.pace_requests,
            // D3 repairs losses NewReno's way under its rate budget: no SACK.
            ..D3Config::new(TcpConfig { sack: false, prr: false, ..setup.tcp }, start.uplink)
        };
        (
            D3SenderEnd(Box::new(D3Sender::new(config, start.plan.size_bytes, start.deadline, start.now))),
            D3ReceiverEnd(Box::new(D3Receiver::new(&setup.tcp))),
        )
    }

    /// D3 and RCPdc need an allocator at every switch egress port (D3 Section 4.3).
    fn processor(setup: &Setup, port: &super::PortFacts) -> Option<D3Port> {
        (!port.host).then(|| D3Port::new(&setup.d3, &port.view, setup.field))
    }

    /// D3 Figure 7: the SYN asks for a rate and data waits for its grant; both carry the 22 B
    /// congestion header, and D3's hosts send no SACK.
    fn ideal(setup: &Setup, _protocol: Protocol, opens: bool) -> IdealPackets {
        let syn = u64::from(TcpConfig { sack: false, ..setup.tcp }.syn_header_bytes() + D3_HEADER_BYTES);
        IdealPackets { handshake: opens.then_some((syn, syn)), ..IdealPackets::of_tcp(&setup.tcp, opens) }
    }

    /// The header's 22 bytes open the TCP payload (D3 Figure 6, `incast_wire::d3`), its rates at
    /// the scale that covers the fastest host link.
    fn capture(setup: &Setup, header: &D3Header) -> CapturedHeader {
        let (repr, fin) = match header {
            D3Header::Request(h) => (h.to_wire(setup.wire_scale), h.fin),
            D3Header::Feedback(f) => (f.to_wire(setup.wire_scale), false),
        };
        let mut bytes = [0u8; HEADER_LEN];
        repr.emit(&mut D3Packet::new_unchecked(&mut bytes[..]));
        CapturedHeader::payload(&bytes, fin)
    }
}

/// A D3 or RCPdc flow's sending end.
pub(crate) struct D3SenderEnd(Box<D3Sender>);

/// A D3 or RCPdc flow's receiving end.
pub(crate) struct D3ReceiverEnd(Box<D3Receiver>);

impl SenderEnd for D3SenderEnd {
    type Header = D3Header;

    #[inline]
    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<D3Header>> {
        self.0.poll_transmit(now).map(|out| Outgoing { seg: out.data, header: out.header.map(D3Header::Request) })
    }

    #[inline]
    fn handle_ack(&mut self, now: Instant, packet: &Packet, header: Option<&D3Header>) {
        let feedback = match header {
            Some(D3Header::Feedback(f)) => Some(f),
            _ => None,
        };
        self.0.handle_ack(now, &packet.ack_segment(SackBlocks::EMPTY), feedback);
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
            quenched: self.0.quenched(),
            time_at_base_rate: s.time_at_base_rate,
            ..Outcome::default()
        }
    }

    fn trace(&self, row: &mut TraceRow) {
        row.srtt_ps = self.0.srtt().map(Duration::as_ps);
        row.rto_ps = self.0.rto().as_ps();
        row.set(&SENDING_RATE, Some(ExtraValue::U64(self.0.sending_rate())));
        row.set(&DESIRED_RATE, Some(ExtraValue::U64(self.0.desired_rate())));
    }
}

impl ReceiverEnd for D3ReceiverEnd {
    type Header = D3Header;

    #[inline]
    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<D3Header>> {
        self.0.poll_ack(now).map(|(ack, feedback)| OutgoingAck { ack, ect: false, header: feedback.map(D3Header::Feedback) })
    }

    #[inline]
    fn handle_data(&mut self, now: Instant, packet: &Packet, header: Option<&D3Header>) {
        let request = match header {
            Some(D3Header::Request(h)) => Some(h),
            _ => None,
        };
        self.0.handle_data(now, &packet.data_segment(), request);
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
