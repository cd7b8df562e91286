//! Packet capture (`[output] capture_ports`): the pcap file read back, against the flow and ports
//! tables of the same run.


use std::collections::HashMap;

use crate::common::*;
use etherparse::{LaxNetSlice, LaxSlicedPacket, TransportSlice};
use incast_proto::time::Duration;
use incast_sim::results::RunResults;
use incast_sim::scenario::*;

/// Eight DCTCP workers answer host 0 twice through a 32 KB port: drops and retransmissions.
fn captured(ports: &[&str], max_packets: u64) -> RunResults {
    let burst = burst_into_host0(8, 40_000, 2, None);
    let mut s = scenario(star(9), Protocol::Dctcp, 32_000, vec![burst]);
    s.transport.tcp.min_rto = Duration::from_ms(10);
    s.output.capture = Some(CaptureSpec { ports: ports.iter().map(|p| p.to_string()).collect(), max_packets });
    let r = incast_sim::run(&s).expect("valid");
    assert_conservation(&r);
    r
}

/// Each record of a pcap file: (seconds, IPv4 total length, TCP source port, payload bytes).
fn records(pcap: &[u8]) -> Vec<(f64, u16, u16, usize)> {
    assert_eq!(&pcap[..4], &0xa1b2_3c4d_u32.to_le_bytes(), "nanosecond pcap");
    let mut out = Vec::new();
    let mut at = 24;
    while at < pcap.len() {
        let word = |i: usize| u32::from_le_bytes(pcap[at + i..at + i + 4].try_into().unwrap());
        let (secs, nanos, captured) = (word(0), word(4), word(8) as usize);
        let frame = &pcap[at + 16..at + 16 + captured];
        let sliced = LaxSlicedPacket::from_ethernet(frame).expect("a frame");
        let Some(LaxNetSlice::Ipv4(ip)) = sliced.net else { panic!("IPv4") };
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
        let total = ip.header().total_len();
        let payload = usize::from(total) - usize::from(ip.header().ihl()) * 4 - tcp.header_len();
        out.push((f64::from(secs) + f64::from(nanos) * 1e-9, total, tcp.source_port(), payload));
        at += 16 + captured;
    }
    out
}

#[test]
fn a_capture_of_the_aggregators_downlink_adds_up_to_the_flow_and_port_tables() {
    let r = captured(&["switch->h0"], 1_000_000);
    assert!(r.summary.packets_dropped > 0, "the port drops, so flows retransmit");
    let capture = r.capture.as_ref().expect("asked for");
    let recs = records(&capture.pcap);
    assert_eq!(recs.len() as u64, capture.packets);
    assert_eq!(capture.missed, 0);
    assert!(recs.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
    // What the port sent is what the capture holds, but for packets still on its wire.
    let port = r.ports.iter().find(|p| p.port == "switch->h0").unwrap();
    let bytes: u64 = recs.iter().map(|&(_, len, _, _)| u64::from(len)).sum();
    assert!(bytes <= port.bytes_sent && port.bytes_sent - bytes <= 1500 * r.summary.packets_in_network);
    assert!(recs.len() as u64 <= port.packets_sent);
    // Every byte of every flow crossed the port at least once; beyond that only retransmissions.
    let mut payload: HashMap<u16, usize> = HashMap::new();
    for &(_, _, sport, bytes) in &recs {
        *payload.entry(sport).or_default() += bytes;
    }
    for f in &r.flows {
        let seen = payload[&(1024 + f.flow_id as u16)] as u64;
        let size = f.size_bytes.unwrap();
        assert!(size <= seen && seen - size <= f.retransmitted_bytes, "flow {}: {seen} of {size}", f.flow_id);
    }
}

#[test]
fn capture_stops_at_its_limit_and_counts_the_rest() {
    let r = captured(&["switch->*"], 100);
    let capture = r.capture.as_ref().unwrap();
    assert_eq!((capture.packets, records(&capture.pcap).len()), (100, 100));
    let sent: u64 = r.ports.iter().filter(|p| p.node == "switch").map(|p| p.packets_sent).sum();
    assert!(capture.packets + capture.missed <= sent && sent - capture.packets - capture.missed <= r.summary.packets_in_network);
}

#[test]
fn without_capture_there_is_none() {
    let burst = burst_into_host0(1, 4_000, 1, None);
    let r = incast_sim::run(&scenario(star(2), Protocol::Tcp, 32_000, vec![burst])).unwrap();
    assert!(r.capture.is_none());
}

#[test]
fn d3_packets_carry_their_congestion_header_at_the_start_of_the_payload() {
    let burst = burst_into_host0(4, 20_000, 1, Some(DeadlineDist::Fixed(Duration::from_ms(10))));
    let mut s = scenario(star(5), Protocol::D3, 128_000, vec![burst]);
    s.output.capture = Some(CaptureSpec { ports: vec!["switch->h0".into(), "switch->h1".into()], max_packets: 10_000 });
    let r = incast_sim::run(&s).expect("valid");
    let pcap = &r.capture.as_ref().unwrap().pcap;
    let mut at = 24;
    let (mut requests, mut feedback) = (0, 0);
    while at < pcap.len() {
        let captured = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let frame = &pcap[at + 16..at + 16 + captured];
        let sliced = LaxSlicedPacket::from_ethernet(frame).unwrap();
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
        let headers = 14 + 20 + tcp.header_len();
        if frame.len() > headers {
            let bytes = &frame[headers..];
            assert_eq!(bytes.len(), incast_wire::d3::HEADER_LEN);
            let repr = incast_wire::d3::Repr::parse(&incast_wire::d3::Packet::new_checked(bytes).unwrap()).expect("a valid header");
            assert_eq!(repr.scale, 1, "1 Gbps hosts: scale 1, 1 Gbps = 125");
            if tcp.destination_port() == 80 {
                requests += 1;
                // A request reaching host 0 has crossed the one switch: one router filled a slot.
                assert_eq!(repr.index, 1);
                assert!(repr.desired_rate > 0 || tcp.fin(), "a deadline flow asks for a rate");
            } else {
                feedback += 1;
            }
        }
        at += 16 + captured;
    }
    assert!(requests > 0 && feedback > 0, "{requests} requests, {feedback} feedback headers");
}

/// A capture of PDQ's ports: every PDQ packet's 20-byte scheduling header opens its TCP payload
/// (`incast_wire::pdq`), parsed back as the flow's; the last packet of each flow (its FIN) has
/// TCP's FIN flag; and no frame is longer than its datagram says, though PDQ's header-only
/// packets count no SYN options.
#[test]
fn a_capture_of_pdq_opens_each_payload_with_its_scheduling_header() {
    let burst = burst_into_host0(4, 20_000, 1, None);
    let mut s = scenario(star(5), Protocol::Pdq, 128_000, vec![burst]);
    s.output.capture = Some(CaptureSpec { ports: vec!["switch->h0".into()], max_packets: 1_000_000 });
    // Past the last completion, so that the FINs sent after it arrive too.
    s.run.duration = Some(Duration::from_ms(50));
    let r = incast_sim::run(&s).expect("valid");
    assert_eq!(r.summary.packets_in_network, 0, "every packet arrived");
    let pcap = &r.capture.as_ref().expect("asked for").pcap;
    let (mut at, mut fins, mut headers) = (24, 0, 0);
    while at < pcap.len() {
        let word = |i: usize| u32::from_le_bytes(pcap[at + i..at + i + 4].try_into().unwrap());
        let (captured, original) = (word(8) as usize, word(12) as usize);
        assert!(captured <= original, "a frame of {captured} B captured from {original} B");
        let frame = &pcap[at + 16..at + 16 + captured];
        let sliced = LaxSlicedPacket::from_ethernet(frame).expect("a frame");
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else { panic!("TCP") };
        let opening = &frame[14 + 20 + tcp.header_len()..];
        if opening.len() == incast_wire::pdq::HEADER_LEN {
            let repr = incast_wire::pdq::Repr::parse(&incast_wire::pdq::Packet::new_checked(opening).expect("20 bytes")).expect("a header");
            assert_eq!(repr.fin, tcp.fin(), "the header's FIN is TCP's");
            fins += usize::from(tcp.fin());
            headers += 1;
        }
        at += 16 + captured;
    }
    assert!(headers > 0, "headers were captured");
    assert_eq!(fins, 4, "each flow's FIN");
}
