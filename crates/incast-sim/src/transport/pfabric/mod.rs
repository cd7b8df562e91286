//! pFabric's transport (Alizadeh et al., SIGCOMM 2013; docs/pfabric.md): every data packet
//! carries its flow's remaining bytes as its priority, every port (host NICs too) keeps the
//! rank queue of `queue`, and hosts run a minimal TCP with a fixed window and timeout
//! (`incast_proto::tcp::pfabric_host`) on the TCP transport's ends.

mod header;
mod queue;

use incast_proto::tcp::{pfabric_host, TcpConfig};
use incast_proto::time::{Duration, Instant};

use super::tcp::{self, first_rto, TcpReceiverEnd, TcpSenderEnd, TRACE_COLUMNS as TCP_TRACE_COLUMNS};
use super::{
    CapturedHeader, FlowStart, IdealPackets, NetFacts, Never, Outgoing, OutgoingAck, PortFacts, ReceiverEnd, SenderEnd, TraceRow,
};
use crate::outcome::Outcome;
use crate::packet::Packet;
use crate::results::ExtraColumn;
use crate::scenario::{Protocol, Scenario};

pub(crate) use header::PfabricHeader;
pub(crate) use queue::PfabricQueue;

/// The pFabric transport.
pub(crate) struct Plugin;

/// pFabric's settings for a run (`[pfabric]`): its hosts' TCP and its ports' buffer.
pub(crate) struct Setup {
    host: TcpConfig,
    /// Bytes a port may hold waiting (switch ports, and host NICs like a switch's).
    buffer_bytes: u64,
}

impl super::Plugin for Plugin {
    type Header = PfabricHeader;
    type Sender = PfabricSender;
    type Receiver = PfabricReceiver;
    type Processor = Never<PfabricHeader>;
    type Discipline = PfabricQueue;
    type Setup = Setup;

    /// pFabric's hosts run TCP's sender: its columns.
    const TRACE_COLUMNS: &'static [ExtraColumn] = TCP_TRACE_COLUMNS;
    /// pFabric's fixed timer never backs off: one far below the round trip resends and probes
    /// every timeout (issue 39).
    const STALL_KEYS: &'static [&'static str] = &["pfabric.rto", "pfabric.buffer"];

    fn setup(scenario: &Scenario, _net: &NetFacts) -> Setup {
        let p = &scenario.sections.pfabric;
        Setup {
            host: pfabric_host(p.initial_window_segments, p.max_window_segments, p.rto, p.probe_after),
            buffer_bytes: p.buffer_bytes,
        }
    }

    /// `[pfabric] rto`, never `[transport]`'s.
    fn first_timeout(setup: &Setup) -> Duration {
        first_rto(&setup.host)
    }

    /// No `[transport]` key applies: pFabric's hosts use their own TCP, NewReno's window
    /// skeleton without ECN.
    fn endpoints(setup: &Setup, start: &FlowStart<'_>) -> (PfabricSender, PfabricReceiver) {
        let (sender, receiver) = tcp::ends(setup.host, incast_proto::cc::CcKind::NewReno, false, start);
        (PfabricSender(sender), PfabricReceiver(receiver))
    }

    /// Every port of a pFabric network is pFabric's, host NICs included (as in pFabric's
    /// simulator and ns-2 scripts): with `[pfabric] buffer`, or a real host's unlimited NIC
    /// queue held back by the backlog bound. It never marks ECN.
    fn discipline(setup: &Setup, port: &PortFacts) -> Option<PfabricQueue> {
        let limit = if port.host && !port.like_switch { u64::MAX } else { setup.buffer_bytes };
        Some(PfabricQueue::new(limit))
    }

    fn ideal(setup: &Setup, _protocol: Protocol, opens: bool) -> IdealPackets {
        IdealPackets::of_tcp(&setup.host, opens)
    }

    fn capture(_setup: &Setup, header: &PfabricHeader) -> CapturedHeader {
        match header {
            PfabricHeader::Ack(sack) => CapturedHeader { sack: Some(*sack), ..CapturedHeader::default() },
            PfabricHeader::Data { .. } => CapturedHeader::default(),
        }
    }
}

/// A pFabric flow's sending end: TCP's, stamping each data packet with its priority.
pub(crate) struct PfabricSender(TcpSenderEnd);

/// A pFabric flow's receiving end: TCP's, its SACK blocks in pFabric's header.
pub(crate) struct PfabricReceiver(TcpReceiverEnd);

impl SenderEnd for PfabricSender {
    type Header = PfabricHeader;

    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<PfabricHeader>> {
        let sender = &mut self.0 .0;
        let seg = sender.poll_transmit(now)?;
        // The bytes the receiver had not reported holding as the packet leaves.
        let rank = sender.unreported_bytes().map_or(u32::MAX, |b| b.min(u64::from(u32::MAX)) as u32);
        Some(Outgoing { seg, header: Some(PfabricHeader::Data { rank }) })
    }

    fn handle_ack(&mut self, now: Instant, packet: &Packet, header: Option<&PfabricHeader>) {
        let sack = match header {
            Some(PfabricHeader::Ack(sack)) => Some(sack),
            _ => None,
        };
        self.0.handle_ack_sack(now, packet, sack);
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.0.poll_timeout()
    }

    fn is_complete(&self) -> bool {
        self.0.is_complete()
    }

    fn outcome(&self) -> Outcome {
        self.0.counted()
    }

    fn trace(&self, row: &mut TraceRow) {
        self.0.trace_into(row);
    }

    fn push_message(&mut self, now: Instant, bytes: u64, deadline: Option<Instant>) {
        self.0.push_message(now, bytes, deadline);
    }
}

impl ReceiverEnd for PfabricReceiver {
    type Header = PfabricHeader;

    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<PfabricHeader>> {
        self.0.poll_ack_sack(now).map(|o| OutgoingAck { ack: o.ack, ect: o.ect, header: o.header.map(PfabricHeader::Ack) })
    }

    fn handle_data(&mut self, now: Instant, packet: &Packet, _header: Option<&PfabricHeader>) {
        self.0.handle_segment(now, packet);
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.0.poll_timeout()
    }

    fn delivered_bytes(&self) -> u64 {
        self.0.delivered_bytes()
    }
}

/// pFabric's ports as the engine runs them: its queue behind a port's shared accounting.
#[cfg(test)]
mod tests {
    use incast_proto::time::{BitsPerSec, Duration};

    use super::*;
    use crate::ids::{FlowId, NodeId, PacketId};
    use crate::port::{Admission, Port};
    use crate::scenario::LinkSpec;
    use crate::topology::PortInfo;
    use crate::transport::{Arriving, Discipline, Header};

    /// A pFabric port that holds `limit` bytes waiting.
    fn pfabric_port(limit: u64) -> Port {
        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        Port::plugged(PortInfo { node: NodeId(0), peer: NodeId(1), link }, Discipline::Pfabric(PfabricQueue::new(limit))).unwrap()
    }

    /// Packet `id` (a data packet, ECN-capable) of flow `flow` with pFabric priority `rank`.
    fn ranked(id: u32, flow: u32, rank: u32, wire_bytes: u32) -> (Arriving, Header) {
        let packet =
            Arriving { id: PacketId(id), wire_bytes, priority: 0, ect: true, ce: false, payload: true, flow: FlowId(flow), returned: false };
        (packet, Header::Pfabric(PfabricHeader::Data { rank }))
    }

    /// Offers `packet` with its `header` at time 0.
    fn offer(p: &mut Port, (packet, header): (Arriving, Header)) -> Admission {
        p.offer(Instant::ZERO, packet, &mut [], || Some(&header))
    }

    #[test]
    fn pfabric_port_drops_the_least_urgent_packet_and_sends_the_most_urgent_flow_in_its_order() {
        let mut p = pfabric_port(3000);
        // The first goes onto the wire at once; two wait, filling the 3000 B. None is marked:
        // pFabric ports never mark, whatever the threshold.
        assert_eq!(offer(&mut p, ranked(0, 1, 900_000, 1500)), Admission::Queued { marked: false });
        let _ = p.serve(Instant::ZERO, &mut [], |_| 1500);
        assert_eq!(offer(&mut p, ranked(1, 1, 800_000, 1500)), Admission::Queued { marked: false });
        assert_eq!(offer(&mut p, ranked(2, 2, 50_000, 1500)), Admission::Queued { marked: false });
        // A more urgent arrival pushes out the least urgent waiting packet (flow 1's).
        assert_eq!(offer(&mut p, ranked(3, 3, 7_000, 1500)), Admission::QueuedEvicting { victim: PacketId(1) });
        // A less urgent one than everything queued is the one dropped.
        assert_eq!(offer(&mut p, ranked(4, 4, 60_000, 1500)), Admission::Dropped);
        // A later, more urgent packet of flow 3 pushes out flow 2's, but does not overtake its
        // own flow's earlier packet.
        assert_eq!(offer(&mut p, ranked(5, 3, 1_000, 40)), Admission::QueuedEvicting { victim: PacketId(2) });
        assert_eq!((p.counters.drops, p.queue_bytes(), p.packets_held()), (3, 1540, 3));
        let mut sent = Vec::new();
        let mut t = Instant::ZERO;
        for _ in 0..2 {
            t += Duration::from_us(20);
            let _ = p.woken(t);
            let _ = p.serve(t, &mut [], |id| if id == PacketId(5) { 40 } else { 1500 });
        }
        while let Some((id, _)) = (p.packets_held() > 0).then(|| p.pop_arrival()) {
            sent.push(id.0);
        }
        assert_eq!(sent, [0, 3, 5]);
    }

    #[test]
    fn pfabric_host_nic_without_a_limit_orders_but_never_drops() {
        let mut p = pfabric_port(u64::MAX);
        for i in 0..100 {
            assert_eq!(offer(&mut p, ranked(i, i, 1_000_000 - i, 1500)), Admission::Queued { marked: false });
        }
        let _ = p.serve(Instant::ZERO, &mut [], |_| 1500);
        assert_eq!(p.pop_arrival().0, PacketId(99), "the smallest remaining size goes first");
        assert_eq!(p.counters.drops, 0);
    }

    /// An idle pFabric port sends a packet on as `offer` and `serve` would, and leaves to
    /// `offer` one larger than its whole buffer (which drops it) or one that finds a packet
    /// waiting (which the discipline must rank).
    #[test]
    fn an_idle_pfabric_port_sends_on_what_its_queue_would_send_at_once() {
        let (mut fast, mut slow) = (pfabric_port(3000), pfabric_port(3000));
        let sent = fast.send_if_idle(Instant::ZERO, PacketId(0), 1500, true, &[]);
        assert_eq!(offer(&mut slow, ranked(0, 1, 900_000, 1500)), Admission::Queued { marked: false });
        let served = slow.serve(Instant::ZERO, &mut [], |_| 1500);
        assert_eq!(sent, Some(served.arrival));
        assert_eq!(served.wake, None);
        assert_eq!((fast.queue_bytes(), fast.packets_held(), fast.counters.packets_sent), (0, 1, 1));
        assert_eq!(fast.pop_arrival(), slow.pop_arrival());
        let mut small = pfabric_port(1000);
        assert_eq!(small.send_if_idle(Instant::ZERO, PacketId(1), 1500, true, &[]), None, "above the limit");
        assert_eq!(offer(&mut small, ranked(1, 1, 0, 1500)), Admission::Dropped);
        // Busy until 12 us: a packet at 1 us waits, and one at 20 us finds it waiting.
        let mut busy = pfabric_port(3000);
        assert!(busy.send_if_idle(Instant::ZERO, PacketId(2), 1500, true, &[]).is_some());
        let at = |us| Instant::ZERO + Duration::from_us(us);
        assert_eq!(busy.send_if_idle(at(1), PacketId(3), 1500, true, &[]), None);
        assert_eq!(busy.offer(at(1), ranked(3, 2, 5, 1500).0, &mut [], || None), Admission::Queued { marked: false });
        assert_eq!(busy.send_if_idle(at(20), PacketId(4), 40, true, &[]), None);
    }
}
