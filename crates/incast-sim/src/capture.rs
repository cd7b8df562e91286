//! Packet capture of chosen ports (`[output] capture_ports`) into a pcap file that Wireshark and
//! tshark open: each packet the far end of a captured link receives, as an Ethernet, IPv4 and TCP
//! frame synthesized from the simulated packet.
//!
//! What a frame says, and where it comes from:
//! - Ethernet: host `i`'s address is `02:00:00:00:00:00` + (i + 1), end to end (the switches are
//!   not routers), EtherType IPv4.
//! - IPv4: host `i` is `10.0.0.0` + (i + 1); the ECN field is ECT(0) on an ECN-capable packet and
//!   CE once a switch marked it; TTL 64; the total length counts the whole simulated packet.
//! - TCP: the flow's sender uses port 1024 + (flow id mod 64512), its receiver port 80, so that
//!   each flow is one conversation; the initial sequence number is 0, so payload byte `b` is
//!   sequence number `b + 1` (the SYN takes 0), and an ACK of `b` bytes acknowledges `b + 1`. SYN,
//!   ACK and ECE flags as the packet has them; the timestamp option (TSval: the send time in
//!   microseconds) when the stack counts it on the wire; SACK blocks on ACKs that carry them.
//! - A transport's own header, as its plug-in writes it (`transport::CapturedHeader`): SACK
//!   blocks as TCP's option; D3's congestion header (D3 Figure 6, 22 bytes, `incast_wire::d3`:
//!   a rate request as the routers left it when it reached the captured link's far end, or on
//!   an ACK the allocations fed back, rates at the scale that covers the fastest host link) and
//!   PDQ's scheduling header (20 bytes, `incast_wire::pdq`) opening the TCP payload; a header's
//!   FIN (D3's, PDQ's) as TCP's FIN flag.
//! - The frame is captured up to the end of its headers (a transport's included): the payload (whose
//!   bytes the simulator does not model) is cut, and the record's original length is the whole
//!   frame, so Wireshark shows "[Packet size limited during capture]" and takes lengths and
//!   sequence analysis from the headers.
//! - The record's time is when the last bit reaches the far end of the link, nanoseconds.
//!
//! The file is the classic pcap format with nanosecond timestamps (magic `a1b23c4d`, link type 1):
//! written here, since it is two fixed headers.

use etherparse::{EtherType, Ethernet2Header, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement};
use incast_proto::tcp::TcpConfig;
use incast_proto::time::Instant;

use crate::error::{reserve, ResourceError};
use crate::packet::{Packet, PacketKind};
use crate::results::CaptureFile;
use crate::row_limit::RowLimit;
use crate::transport::CapturedHeader;

/// Bytes of the pcap file header.
const FILE_HEADER_LEN: usize = 24;

/// The pcap file header: nanosecond timestamps, version 2.4, snapshot length 65535, Ethernet.
fn file_header() -> [u8; FILE_HEADER_LEN] {
    let mut h = [0u8; FILE_HEADER_LEN];
    h[0..4].copy_from_slice(&0xa1b2_3c4d_u32.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&65_535u32.to_le_bytes());
    h[20..24].copy_from_slice(&1u32.to_le_bytes());
    h
}

/// A captured packet: who sent it to whom, in which flow, and whether its stack counts
/// timestamps on the wire.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame<'a> {
    pub(crate) packet: &'a Packet,
    /// What its transport's header adds to the frame.
    pub(crate) header: CapturedHeader,
    /// The host the packet comes from and the host it goes to.
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) flow_id: u32,
    pub(crate) timestamps: bool,
    /// What a SYN or SYN/ACK offers: its MSS, and SACK when the stack uses it.
    pub(crate) mss: u16,
    pub(crate) sack_permitted: bool,
}

impl<'a> Frame<'a> {
    /// The frame of `packet`, with what its transport header shows (`header`), of a flow from
    /// host `sender` to host `receiver` whose hosts run `tcp`.
    pub(crate) fn of(packet: &'a Packet, header: CapturedHeader, sender: u32, receiver: u32, tcp: &TcpConfig) -> Frame<'a> {
        // A returned packet travels back to the host that sent it.
        let (src, dst) = match (packet.kind, packet.returned) {
            (PacketKind::Data, false) | (PacketKind::Ack, true) => (sender, receiver),
            (PacketKind::Ack, false) | (PacketKind::Data, true) => (receiver, sender),
        };
        Frame {
            packet,
            header,
            src,
            dst,
            flow_id: packet.flow.0,
            timestamps: tcp.timestamps,
            mss: u16::try_from(tcp.mss_bytes).unwrap_or(u16::MAX),
            sack_permitted: tcp.sack,
        }
    }
}

/// The capture file being written, in memory until the run ends. In a run cut into parts
/// (`crate::rounds`) each engine captures the packets its parts receive; after the run the
/// records are joined and ordered, their limit kept as one engine would keep it
/// (`crate::row_limit`).
#[derive(Debug)]
pub(crate) struct Capture {
    /// Whether each port (by index) is captured.
    pub(crate) ports: Vec<bool>,
    bytes: Vec<u8>,
    packets: u64,
    limit: RowLimit,
    /// Packets of captured ports not written because the limit (`capture_max_packets`) was
    /// reached.
    missed: u64,
    /// A run cut into parts: where each record is, to order them after the run.
    records: Vec<Record>,
}

/// Where a record of a run cut into parts is in `Capture::bytes`, and what orders it.
#[derive(Clone, Copy, Debug)]
struct Record {
    at: Instant,
    port: u32,
    start: usize,
    len: usize,
}

fn ip_of(host: u32) -> [u8; 4] {
    (0x0a00_0000u32 + host + 1).to_be_bytes()
}

fn mac_of(host: u32) -> [u8; 6] {
    let [a, b, c, d] = (host + 1).to_be_bytes();
    [0x02, 0, a, b, c, d]
}

/// Wire sequence numbers: the SYN takes 0, payload byte `b` is `b + 1`, modulo 2^32.
fn wire_seq(b: u64) -> u32 {
    (b.wrapping_add(1) & 0xffff_ffff) as u32
}

impl Capture {
    /// A capture of `ports` (by index).
    pub(crate) fn new(ports: Vec<bool>, max_packets: u64) -> Capture {
        Capture { ports, bytes: file_header().to_vec(), packets: 0, limit: RowLimit::new(max_packets), missed: 0, records: Vec::new() }
    }

    /// The capture of a run cut into parts.
    pub(crate) fn cut_into_parts(&mut self) {
        self.limit.cut_into_parts();
    }

    /// Appends `frame` received at `at` from port `port`; false, writing nothing, past the
    /// limit (`RowLimit::keeps`).
    pub(crate) fn record(&mut self, at: Instant, port: u32, frame: &Frame<'_>) -> bool {
        if !self.limit.keeps(self.packets, at) {
            self.missed += 1;
            return false;
        }
        self.packets += 1;
        let start = self.bytes.len();
        self.write(at, frame);
        if self.limit.in_parts() {
            self.records.push(Record { at, port, start, len: self.bytes.len() - start });
        }
        true
    }

    /// Writes `frame`'s record, received at `at`.
    fn write(&mut self, at: Instant, frame: &Frame<'_>) {
        let p = frame.packet;
        let sender_port = 1024 + (frame.flow_id % 64_512) as u16;
        let (sport, dport) = match p.kind {
            PacketKind::Data => (sender_port, 80),
            PacketKind::Ack => (80, sender_port),
        };
        let mut tcp = TcpHeader::new(sport, dport, 0, 65_535);
        match p.kind {
            PacketKind::Data => {
                tcp.syn = p.syn;
                tcp.sequence_number = if p.syn { 0 } else { wire_seq(p.seq) };
                tcp.ack = !p.syn;
                tcp.acknowledgment_number = if p.syn { 0 } else { 1 };
            }
            PacketKind::Ack => {
                tcp.syn = p.syn;
                tcp.ack = true;
                tcp.sequence_number = if p.syn { 0 } else { 1 };
                tcp.acknowledgment_number = if p.syn { 1 } else { wire_seq(p.seq) };
                tcp.ece = p.ece;
            }
        }
        let mut options: Vec<TcpOptionElement> = Vec::new();
        if p.syn {
            // As Linux lays them out (docs/scenario.md, "Bytes on the wire": 8 bytes of MSS and
            // window scale, 4 more for SACK-permitted, which fits beside the timestamp).
            options.push(TcpOptionElement::MaximumSegmentSize(frame.mss));
            if frame.sack_permitted {
                options.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
                if !frame.timestamps {
                    options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop]);
                }
            }
            if frame.timestamps {
                let tsval = (p.ts.as_ps() / 1_000_000) as u32;
                options.push(TcpOptionElement::Timestamp(tsval, 0));
            }
            options.extend([TcpOptionElement::Noop, TcpOptionElement::WindowScale(7)]);
        } else if frame.timestamps {
            let tsval = (p.ts.as_ps() / 1_000_000) as u32;
            options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop, TcpOptionElement::Timestamp(tsval, 0)]);
        }
        if let Some(blocks) = frame.header.sack.filter(|b| !b.is_empty()) {
            let room = if frame.timestamps { 3 } else { 4 };
            let mut sack = blocks.as_slice().iter().take(room).map(|&(l, r)| (wire_seq(l), wire_seq(r)));
            let first = sack.next().expect("at least one block");
            let mut rest = [None; 3];
            for (slot, block) in rest.iter_mut().zip(sack) {
                *slot = Some(block);
            }
            options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop, TcpOptionElement::SelectiveAcknowledgement(first, rest)]);
        }
        // At most 40 bytes of options fit: timestamps with three blocks, or four blocks.
        tcp.set_options(&options).expect("the options fit, as the stack sized them");
        // The datagram is as long as the simulated packet (a transport's header included), and
        // never shorter than the headers written plus the payload.
        let ip_payload = (tcp.header_len() + p.len as usize).max(p.wire_bytes as usize - Ipv4Header::MIN_LEN);
        let payload = ip_payload - tcp.header_len();
        let mut ip = Ipv4Header::new(ip_payload as u16, 64, IpNumber::TCP, ip_of(frame.src), ip_of(frame.dst))
            .expect("a simulated packet fits an IPv4 datagram");
        ip.ecn = match (p.ect, p.ce) {
            (_, true) => IpEcn::CongestionExperienced,
            (true, false) => IpEcn::Ect0,
            (false, false) => IpEcn::NotEct,
        };
        ip.header_checksum = ip.calc_header_checksum();
        // The payload is zeros in the model: a checksum over zeros is the checksum over nothing
        // but the lengths, so the pseudo-header with the full length is all it needs.
        tcp.checksum = checksum_of_zeros(&tcp, &ip, payload);
        let eth = Ethernet2Header { source: mac_of(frame.src), destination: mac_of(frame.dst), ether_type: EtherType::IPV4 };
        tcp.fin = frame.header.fin;
        // The transport's header opens the payload, as much of it as the packet's size leaves
        // room for after the TCP header written (PDQ's probes count no SYN options, which the
        // frame writes): the frame is never longer than the datagram says.
        let opening = &frame.header.payload_bytes()[..frame.header.payload_bytes().len().min(payload)];
        let captured = Ethernet2Header::LEN + ip.header_len() + tcp.header_len() + opening.len();
        let original = Ethernet2Header::LEN + ip.header_len() + ip_payload;
        let ns = at.as_ps() / 1000;
        self.bytes.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        self.bytes.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        self.bytes.extend_from_slice(&(captured as u32).to_le_bytes());
        self.bytes.extend_from_slice(&(original as u32).to_le_bytes());
        eth.write(&mut self.bytes).expect("writing to a Vec");
        ip.write(&mut self.bytes).expect("writing to a Vec");
        tcp.write(&mut self.bytes).expect("writing to a Vec");
        self.bytes.extend_from_slice(opening);
    }

    /// Joins the records of `other`, another engine's capture of the same run
    /// (`crate::sim::crew`); fails if memory runs out.
    pub(crate) fn absorb(&mut self, other: Capture) -> Result<(), ResourceError> {
        let shift = self.bytes.len() - FILE_HEADER_LEN;
        reserve(&mut self.bytes, other.bytes.len() - FILE_HEADER_LEN, "the capture")?;
        self.bytes.extend_from_slice(&other.bytes[FILE_HEADER_LEN..]);
        reserve(&mut self.records, other.records.len(), "the capture")?;
        self.records.extend(other.records.into_iter().map(|r| Record { start: r.start + shift, ..r }));
        self.packets += other.packets;
        self.missed += other.missed;
        Ok(())
    }

    /// A run cut into parts, after `absorb`: orders the records by time, then port, and keeps
    /// the first of them, counting the others missed (`RowLimit::order_and_cut`).
    pub(crate) fn order_and_cut(&mut self) -> Result<(), ResourceError> {
        if !self.limit.in_parts() {
            return Ok(());
        }
        let records = &mut self.records;
        self.missed += self.limit.order_and_cut(records, |r| (r.at, r.port));
        self.packets = records.len() as u64;
        let mut bytes = Vec::new();
        reserve(&mut bytes, FILE_HEADER_LEN + records.iter().map(|r| r.len).sum::<usize>(), "the capture")?;
        bytes.extend_from_slice(&self.bytes[..FILE_HEADER_LEN]);
        for r in records.iter() {
            bytes.extend_from_slice(&self.bytes[r.start..r.start + r.len]);
        }
        self.bytes = bytes;
        Ok(())
    }

    /// The pcap file, with how many packets it holds and how many the limit kept out.
    pub(crate) fn finish(self) -> CaptureFile {
        CaptureFile { pcap: self.bytes, packets: self.packets, missed: self.missed }
    }
}

/// The TCP checksum of `tcp` in `ip` with `payload` zero bytes after it.
fn checksum_of_zeros(tcp: &TcpHeader, ip: &Ipv4Header, payload: usize) -> u16 {
    const ZEROS: [u8; 9_100] = [0; 9_100];
    tcp.calc_checksum_ipv4(ip, &ZEROS[..payload.min(ZEROS.len())]).expect("the segment fits")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::RouteCursor;
    use etherparse::{LaxNetSlice, LaxSlicedPacket, TransportSlice};

    fn packet(kind: PacketKind, seq: u64, len: u32) -> Packet {
        Packet {
            flow: FlowId(3),
            kind,
            seq,
            len,
            wire_bytes: 52 + len,
            ts: Instant::ZERO,
            ect: true,
            ce: true,
            ece: false,
            retransmission: false,
            syn: false,
            priority: 0,
            route: RouteCursor { start: 0, len: 1, hop: 0 },
            has_header: false,
            returned: false,
        }
    }

    #[test]
    fn a_frame_parses_back_with_its_addresses_sequence_ecn_and_original_length() {
        let mut c = Capture::new(vec![true], 10);
        let data = packet(PacketKind::Data, 1448, 1448);
        let header = CapturedHeader::default();
        let frame = Frame { packet: &data, header, src: 5, dst: 0, flow_id: 3, timestamps: true, mss: 1448, sack_permitted: false };
        assert!(c.record(Instant::ZERO, 0, &frame));
        let CaptureFile { pcap: bytes, missed, .. } = c.finish();
        assert_eq!(missed, 0);
        assert_eq!(&bytes[0..4], &0xa1b2_3c4d_u32.to_le_bytes());
        let (captured, original) = (&bytes[24 + 8..24 + 12], &bytes[24 + 12..24 + 16]);
        assert_eq!(u32::from_le_bytes(captured.try_into().unwrap()), 14 + 20 + 32);
        assert_eq!(u32::from_le_bytes(original.try_into().unwrap()), 14 + 20 + 32 + 1448);
        // Lax: the frame is cut after its headers, shorter than its IPv4 total length says.
        let sliced = LaxSlicedPacket::from_ethernet(&bytes[24 + 16..]).expect("parses");
        let Some(LaxNetSlice::Ipv4(ip)) = sliced.net else { panic!("IPv4") };
        assert_eq!(ip.header().source(), [10, 0, 0, 6]);
        assert_eq!(ip.header().destination(), [10, 0, 0, 1]);
        assert_eq!(ip.header().ecn(), IpEcn::CongestionExperienced);
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
        assert_eq!((tcp.source_port(), tcp.destination_port()), (1027, 80));
        assert_eq!(tcp.sequence_number(), 1449);
        assert!(tcp.ack() && !tcp.syn());
    }

    #[test]
    fn capture_stops_at_its_limit() {
        let mut c = Capture::new(vec![true], 1);
        let ack = packet(PacketKind::Ack, 10, 0);
        let header = CapturedHeader::default();
        let frame = Frame { packet: &ack, header, src: 0, dst: 5, flow_id: 3, timestamps: false, mss: 1448, sack_permitted: false };
        assert!(c.record(Instant::ZERO, 0, &frame));
        assert!(!c.record(Instant::ZERO, 0, &frame));
        let file = c.finish();
        assert_eq!((file.packets, file.missed), (1, 1), "the second is counted as missed");
    }

    /// Packets of one instant captured out of port order, the limit falling among them: the
    /// records kept are the first in (time, port) order, as if every engine had kept all.
    #[test]
    fn in_parts_an_engine_keeps_the_instant_of_its_limit_and_the_join_keeps_the_first_by_time_and_port() {
        // Each record tells its port by its acknowledgement number.
        let capture = |packets: &[(u64, u32)], max: u64| {
            let mut c = Capture::new(vec![true; 10], max);
            c.cut_into_parts();
            for &(ns, port) in packets {
                let ack = packet(PacketKind::Ack, u64::from(port), 0);
                let frame = Frame { packet: &ack, header: CapturedHeader::default(), src: 0, dst: 5, flow_id: 3, timestamps: false, mss: 1448, sack_permitted: false };
                c.record(Instant::from_ps(ns * 1000), port, &frame);
            }
            c
        };
        let ports_of = |file: &CaptureFile| {
            let mut ports = Vec::new();
            let mut at = 24;
            while at < file.pcap.len() {
                let len = u32::from_le_bytes(file.pcap[at + 8..at + 12].try_into().unwrap()) as usize;
                let sliced = LaxSlicedPacket::from_ethernet(&file.pcap[at + 16..at + 16 + len]).expect("parses");
                let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
                ports.push(tcp.acknowledgment_number() - 1);
                at += 16 + len;
            }
            ports
        };
        let mut a = capture(&[(1, 6), (2, 7), (2, 3), (3, 1)], 2);
        a.absorb(capture(&[(2, 4), (2, 5)], 2)).expect("memory");
        a.order_and_cut().expect("memory");
        let file = a.finish();
        assert_eq!(ports_of(&file), [6, 3]);
        assert_eq!((file.packets, file.missed), (2, 4));
    }
}
