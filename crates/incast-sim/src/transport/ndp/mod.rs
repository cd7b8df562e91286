//! NDP's transport (Handley et al., SIGCOMM 2017; docs/ndp.md): senders that start at line rate
//! and then send a packet per PULL, receivers that answer every arrival and pull through their
//! host's pacer, switch ports that trim past a small data queue, and host NICs that pace the
//! PULLs of every flow their host receives (`queue`). incast-proto's `ndp` holds the state
//! machines; this module joins them to the engine.

mod queue;

use incast_proto::ndp::{NdpConfig, NdpHeader, NdpReceiver, NdpSender, NDP_HEADER_BYTES};
use incast_proto::tcp::{AckSegment, SackBlocks};
use incast_proto::time::{Duration, Instant};

use super::{FlowStart, IdealPackets, NetFacts, Never, Outgoing, OutgoingAck, PortFacts, ReceiverEnd, SenderEnd, TraceRow, WireHeader};
use crate::outcome::Outcome;
use crate::packet::Packet;
use crate::scenario::{Protocol, Scenario};

pub(crate) use queue::NdpQueue;

/// The NDP transport.
pub(crate) struct Plugin;

/// NDP's settings for a run (`[ndp]`), and the run's seed for its ports' coins.
pub(crate) struct Setup {
    config: NdpConfig,
    /// A port's data queue, bytes (htsim's `memFromPkt(queue)`: packets of the payload size).
    queue_bytes: u64,
    pull_rate: f64,
    /// Whether switch ports return headers they have no room for (`[ndp] return_to_sender`).
    return_to_sender: bool,
    seed: u64,
}

/// The 64 B of an NDP packet are its whole header on the wire: the segment counts them
/// (`NDP_HEADER_BYTES`), so the header adds nothing more.
impl WireHeader for NdpHeader {
    fn wire_bytes(&self) -> u32 {
        0
    }
}

impl super::Plugin for Plugin {
    type Header = NdpHeader;
    type Sender = NdpSenderEnd;
    type Receiver = NdpReceiverEnd;
    type Processor = Never<NdpHeader>;
    type Discipline = NdpQueue;
    type Setup = Setup;
    const STALL_KEYS: &'static [&'static str] = &["ndp.rto", "ndp.pull_rate", "ndp.queue"];

    fn setup(scenario: &Scenario, _net: &NetFacts) -> Setup {
        let n = &scenario.sections.ndp;
        Setup {
            config: NdpConfig { mss: n.mtu_bytes, initial_window: n.initial_window, rto: n.rto },
            queue_bytes: u64::from(n.queue_packets) * u64::from(n.mtu_bytes),
            pull_rate: n.pull_rate,
            return_to_sender: n.return_to_sender,
            seed: scenario.seed,
        }
    }

    /// `[ndp] rto`: NDP resends from NACKs, its timer only when even the headers were lost.
    fn first_timeout(setup: &Setup) -> Duration {
        setup.config.rto
    }

    /// No `[transport]` key applies: NDP's hosts run NDP's own sender and receiver.
    fn endpoints(setup: &Setup, start: &FlowStart<'_>) -> (NdpSenderEnd, NdpReceiverEnd) {
        (NdpSenderEnd(Box::new(NdpSender::new(setup.config, start.plan.size_bytes, start.now))), NdpReceiverEnd(Box::new(NdpReceiver::new())))
    }

    /// Every port of an NDP network is NDP's: switch ports trim (`TrimmingQueue`), host NICs
    /// queue by priority and pace their host's PULLs (`HostQueue`), as htsim gives every host a
    /// `FairPriorityQueue` and a pacer (`main_ndp.cpp`), whatever `[switch] host_nic` says.
    fn discipline(setup: &Setup, port: &PortFacts) -> Option<NdpQueue> {
        let rate = port.view.rate;
        Some(if port.host {
            // One full packet's time at the pull rate (`NdpPullPacer`, `ndp.cpp` line 1817:
            // the packet's time in whole picoseconds, then divided by the rate modifier).
            let packet = rate.tx_time(u64::from(setup.config.mss + NDP_HEADER_BYTES)).as_ps();
            NdpQueue::host(Duration::from_ps((packet as f64 / setup.pull_rate) as u64))
        } else {
            NdpQueue::switch(setup.queue_bytes, rate, setup.seed, port.id, setup.return_to_sender)
        })
    }

    fn ideal(setup: &Setup, _protocol: Protocol, _opens: bool) -> IdealPackets {
        IdealPackets { mss: u64::from(setup.config.mss), header_bytes: u64::from(NDP_HEADER_BYTES), handshake: None }
    }
}

/// An NDP flow's sending end. Its calls (and its receiving end's) stay out of line: inlined
/// into the registry's dispatch they grew the event loop's hottest functions for every transport
/// (the engine bench's star incast under DCTCP ran 2.4% more instructions), and an NDP packet's
/// work is worth a call.
pub(crate) struct NdpSenderEnd(Box<NdpSender>);

/// An NDP flow's receiving end.
pub(crate) struct NdpReceiverEnd(Box<NdpReceiver>);

impl SenderEnd for NdpSenderEnd {
    type Header = NdpHeader;

    #[inline(never)]
    fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<NdpHeader>> {
        let s = self.0.poll_transmit(now)?;
        let seg = incast_proto::tcp::DataSegment {
            seq: s.seq,
            len: s.len,
            header_bytes: NDP_HEADER_BYTES as u16,
            ts: now,
            ect: false,
            ce: false,
            retransmission: s.retransmission,
            syn: false,
        };
        Some(Outgoing { seg, header: Some(NdpHeader::Data { last: s.last }) })
    }

    #[inline(never)]
    fn handle_ack(&mut self, now: Instant, _packet: &Packet, header: Option<&NdpHeader>) {
        match header {
            Some(&NdpHeader::Ack { seq, cum_ack, .. }) => self.0.handle_ack(now, seq, cum_ack),
            Some(&NdpHeader::Nack { seq, cum_ack, pull_no }) => self.0.handle_nack(now, seq, cum_ack, pull_no),
            Some(&NdpHeader::Pull { pull_no, cum_ack }) => self.0.handle_pull(now, pull_no, cum_ack),
            Some(NdpHeader::Data { .. }) | None => {}
        }
    }

    /// A returned data packet is the sender's to send again (`processRTS`).
    fn handle_returned(&mut self, now: Instant, packet: &Packet, header: Option<&NdpHeader>) {
        if let Some(NdpHeader::Data { .. }) = header {
            self.0.handle_returned(now, packet.seq);
        }
    }

    #[inline(never)]
    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now);
    }

    #[inline(never)]
    fn poll_timeout(&self) -> Option<Instant> {
        self.0.poll_timeout()
    }

    #[inline(never)]
    fn is_complete(&self) -> bool {
        self.0.is_complete()
    }

    fn outcome(&self) -> Outcome {
        let s = self.0.stats();
        Outcome { retransmitted_bytes: s.retransmitted_bytes, timeouts: s.timeouts as u32, ..Outcome::default() }
    }

    /// NDP keeps no RTT estimate: the traces show its fixed timeout.
    fn trace(&self, row: &mut TraceRow) {
        row.srtt_ps = None;
        row.rto_ps = self.0.rto().as_ps();
    }
}

/// A returned ACK, NACK or PULL is dropped by the receiver, as htsim's sink frees a bounced one
/// (`ndp.cpp` lines 1459-1466): the trait's default `handle_returned`. The receiver has no
/// timer (the pull pacer is its host NIC's, `NdpQueue::host`).
impl ReceiverEnd for NdpReceiverEnd {
    type Header = NdpHeader;

    #[inline(never)]
    fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<NdpHeader>> {
        let answer = self.0.poll_answer()?;
        let cum_ack = match answer {
            NdpHeader::Ack { cum_ack, .. } | NdpHeader::Nack { cum_ack, .. } | NdpHeader::Pull { cum_ack, .. } => cum_ack,
            NdpHeader::Data { .. } => unreachable!("a receiver answers with ACKs, NACKs and PULLs"),
        };
        let ack = AckSegment { ack: cum_ack, ece: false, ts_echo: now, sack: SackBlocks::EMPTY, header_bytes: NDP_HEADER_BYTES as u16 };
        Some(OutgoingAck { ack, ect: false, header: Some(answer) })
    }

    #[inline(never)]
    fn handle_data(&mut self, _now: Instant, packet: &Packet, header: Option<&NdpHeader>) {
        let last = matches!(header, Some(NdpHeader::Data { last: true }));
        self.0.handle_data(packet.seq, packet.len, last);
    }

    #[inline(never)]
    fn delivered_bytes(&self) -> u64 {
        self.0.in_order()
    }
}

/// NDP through the whole engine: a star incast whose receiver's link is the bottleneck.
#[cfg(test)]
mod tests {
    use incast_proto::time::BitsPerSec;

    use super::*;
    use crate::results::{OfferLogSeries, RunResults};
    use crate::scenario::parse_toml;

    /// `senders` flows of `size` bytes into host 0 of a 10 Gbps star (1 us links), NDP with its
    /// defaults and the `[ndp]` keys `ndp`, every offer to the receiver's downlink logged.
    fn incast(senders: u32, size: u64, ndp: &str) -> RunResults {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = {}\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [transport]\nprotocol = \"ndp\"\n[ndp]\n{ndp}\n[[workload]]\nkind = \"flow-burst\"\nsenders = {senders}\nsize = \"{size}B\"\n\
             [output]\noffer_log_ports = [\"switch->h0\"]\n",
            senders + 1
        );
        crate::run(&parse_toml(&text, None).expect("valid")).expect("runs")
    }

    fn outcomes(r: &RunResults, outcome: u8) -> usize {
        r.offer_log.as_ref().expect("logged").outcome.iter().filter(|&&o| o == outcome).count()
    }

    #[test]
    fn incast_trims_instead_of_dropping_and_resends_each_trimmed_packet_once() {
        let r = incast(4, 450_000, "");
        assert!(r.flows.iter().all(|f| f.delivered_bytes == 450_000 && f.finish_s.is_some()));
        assert_eq!(r.summary.packets_dropped, 0, "headers never fill 16 packets' worth of bytes here");
        let trimmed = outcomes(&r, OfferLogSeries::TRIMMING);
        // The four first windows (92 packets) arrive at 40 Gbps into a 10 Gbps port.
        assert!(trimmed > 30, "{trimmed} trims");
        let resent: u64 = r.flows.iter().map(|f| f.retransmitted_bytes).sum();
        assert_eq!(resent, trimmed as u64 * 9000, "every trimmed packet, and only those, sent again");
        assert!(r.flows.iter().all(|f| f.timeouts == 0));
    }

    #[test]
    fn incast_finishes_at_the_pull_rate_of_the_receivers_link() {
        let r = incast(4, 450_000, "");
        let last = r.flows.iter().filter_map(|f| f.finish_s).fold(0.0, f64::max);
        // 200 packets of 9064 B cross the receiver's 10 Gbps link: 1.450 ms at line rate. The
        // pacer pulls one per 9064 B at 99% of it (7.324 us) once the first windows are in,
        // headers and answers ride in between: a few percent above line rate, and no more.
        let line = BitsPerSec(10_000_000_000).tx_time(200 * 9064).as_secs_f64();
        assert!(last > line && last < line * 1.06, "last flow done at {last} s, line rate {line} s");
    }

    /// A host NIC of 1 Gbps (a 64 B answer takes 512 ns) whose pacer lets a PULL go every 7 us,
    /// driven as the engine drives a port: `serve` after each offer and at each wake the port
    /// asks for, a stale wake ignored. Returns when each packet started on the wire.
    fn nic_sends(offers: &[(u64, u32, NdpHeader)]) -> Vec<(u64, u32)> {
        use crate::ids::{FlowId, NodeId, PacketId};
        use crate::port::Port;
        use crate::scenario::LinkSpec;
        use crate::topology::PortInfo;
        use crate::transport::{Arriving, Discipline, Header};

        let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
        let info = PortInfo { node: NodeId(0), peer: NodeId(1), link };
        let mut port = Port::plugged(info, Discipline::Ndp(NdpQueue::host(Duration::from_us(7)))).expect("a port fits in memory");
        let ns = |t: u64| Instant::ZERO + Duration::from_ns(t);
        let mut wakes: Vec<Instant> = Vec::new();
        let mut sent = Vec::new();
        let serve = |port: &mut Port, now: Instant, wakes: &mut Vec<Instant>, sent: &mut Vec<(u64, u32)>| {
            let before = port.bytes_sent;
            let service = port.serve(now, &mut [], |_| NDP_HEADER_BYTES);
            if port.bytes_sent > before {
                sent.push((now.as_ps() / 1000, port.pop_arrival().0 .0));
            }
            wakes.extend(service.wake);
        };
        let mut next_offer = 0;
        loop {
            let offer_at = offers.get(next_offer).map(|&(t, ..)| ns(t));
            let wake_at = wakes.iter().copied().min();
            match (offer_at, wake_at) {
                (Some(o), w) if w.is_none_or(|w| o <= w) => {
                    let (_, id, header) = offers[next_offer];
                    next_offer += 1;
                    let arriving = Arriving {
                        id: PacketId(id),
                        wire_bytes: NDP_HEADER_BYTES,
                        priority: 0,
                        ect: false,
                        ce: false,
                        payload: false,
                        flow: FlowId(id),
                        returned: false,
                    };
                    let header = Header::Ndp(header);
                    let _ = port.offer(o, arriving, &mut [], || Some(&header));
                    serve(&mut port, o, &mut wakes, &mut sent);
                }
                (_, Some(w)) => {
                    wakes.retain(|&x| x != w);
                    if port.woken(w) {
                        serve(&mut port, w, &mut wakes, &mut sent);
                    }
                }
                (_, None) => return sent,
            }
        }
    }

    #[test]
    fn host_nic_sends_an_answer_at_once_while_the_pacer_holds_a_pull_back() {
        let pull = |n| NdpHeader::Pull { pull_no: n, cum_ack: 0 };
        let ack = NdpHeader::Ack { seq: 0, cum_ack: 0, pull_no: 1, done: false };
        // PULL 1 finds the pacer idle and goes at once; PULL 2 waits for 107 us. The ACKs that come
        // meanwhile do not wait for it: the first goes at once, the second as the first ends.
        let sent = nic_sends(&[(100_000, 1, pull(1)), (100_000, 2, pull(2)), (101_000, 3, ack), (101_200, 4, ack)]);
        assert_eq!(sent, [(100_000, 1), (101_000, 3), (101_512, 4), (107_000, 2)]);
    }

    /// 40 flows of 50 packets of 1000 B into host 0 of the star, with the `[ndp]` keys `ndp`.
    /// Their first windows of 1064 B packets reach the receiver's port 40 at a time per packet
    /// time, faster than it sends headers (17 per packet time), so its header queue (2 x 8 x
    /// 1000 B: 250 headers) overflows.
    fn overflowing(ndp: &str) -> RunResults {
        incast(40, 50_000, &format!("mtu = \"1000B\"\n{ndp}"))
    }

    fn returned(r: &RunResults) -> usize {
        outcomes(r, OfferLogSeries::RETURNED) + outcomes(r, OfferLogSeries::RETURNING)
    }

    /// Every packet sent is delivered (returned ones to their senders), dropped, or still out.
    fn conserved(r: &RunResults) -> bool {
        let s = &r.summary;
        s.packets_sent == s.packets_delivered + s.packets_dropped + s.packets_in_network
    }

    #[test]
    fn full_header_queue_returns_headers_to_their_senders_which_send_them_again() {
        let r = overflowing("");
        let returned = returned(&r);
        assert!(returned > 100, "{returned} returned");
        assert_eq!(r.summary.packets_dropped, 0, "every returned header found its way back");
        assert!(r.flows.iter().all(|f| f.delivered_bytes == 50_000 && f.finish_s.is_some() && f.timeouts == 0));
        // Each packet that lost its payload at the port, trimmed or returned, is sent again once.
        let trimmed = outcomes(&r, OfferLogSeries::TRIMMING);
        let resent: u64 = r.flows.iter().map(|f| f.retransmitted_bytes).sum();
        assert_eq!(resent, (trimmed + returned) as u64 * 1000);
        assert!(conserved(&r));
    }

    #[test]
    fn full_header_queue_without_return_to_sender_drops_and_the_timeout_resends() {
        let r = overflowing("return_to_sender = false\n");
        assert_eq!(returned(&r), 0);
        assert!(r.summary.packets_dropped > 100, "{} dropped", r.summary.packets_dropped);
        assert!(r.flows.iter().all(|f| f.delivered_bytes == 50_000 && f.finish_s.is_some()));
        assert!(r.flows.iter().any(|f| f.timeouts > 0));
        let last = |r: &RunResults| r.flows.iter().filter_map(|f| f.finish_s).fold(0.0, f64::max);
        assert!(last(&r) > last(&overflowing("")) + 0.009, "the 10 ms timeout shows in the last flow");
        assert!(conserved(&r));
    }

    /// 15 flows of 50 packets of 300 B into host 0 of a k = 4 fat tree (host 0's port overflows
    /// as in `overflowing`), on `load_balancing`: a returned header turns around at host 0's edge
    /// switch, three or five hops from its sender.
    fn fat_tree(load_balancing: &str) -> RunResults {
        let text = format!(
            "[topology]\nkind = \"fat-tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [switch]\nload_balancing = \"{load_balancing}\"\n[transport]\nprotocol = \"ndp\"\n[ndp]\nmtu = \"300B\"\n\
             [[workload]]\nkind = \"flow-burst\"\nsenders = 15\nsize = \"15000B\"\n[output]\noffer_log_ports = [\"*->h0\"]\n"
        );
        crate::run(&parse_toml(&text, None).expect("valid")).expect("runs")
    }

    #[test]
    fn returned_headers_find_their_way_back_across_a_fat_tree_and_runs_repeat_themselves() {
        for load_balancing in ["spray-permute", "ecmp"] {
            let r = fat_tree(load_balancing);
            assert!(returned(&r) > 10, "{load_balancing}: {} returned", returned(&r));
            assert_eq!(r.summary.packets_dropped, 0, "{load_balancing}: a way back from host 0's edge switch");
            assert!(r.flows.iter().all(|f| f.delivered_bytes == 15_000 && f.timeouts == 0), "{load_balancing}");
            assert!(conserved(&r), "{load_balancing}");
            let again = fat_tree(load_balancing);
            assert!(again.flows == r.flows && again.ports == r.ports, "{load_balancing}: a second run differs");
            assert_eq!(again.summary.events, r.summary.events);
        }
    }

    #[test]
    fn queue_key_sets_where_trimming_starts() {
        // A queue of 50 packets holds much of the four first windows; one of 2 trims nearly all.
        let few = outcomes(&incast(4, 450_000, "queue = 50\n"), OfferLogSeries::TRIMMING);
        let many = outcomes(&incast(4, 450_000, "queue = 2\n"), OfferLogSeries::TRIMMING);
        assert!(few < many, "{few} trims with 50 packets, {many} with 2");
    }
}
