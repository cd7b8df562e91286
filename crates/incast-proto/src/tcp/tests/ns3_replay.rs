//! ns-3's ACKs replayed into the `ns3` stack's sender: for each flow of an ns-3 sender log
//! (`incast crosscheck --case NAME --sender-traces`), the ACKs ns-3's sender received are fed,
//! at the times it received them, to a [`TcpSender`] with the `ns3` stack's settings, and
//! what it sends after each is compared with what ns-3's sent. The two simulators' networks
//! part within a millisecond of any congested burst, so only a replay compares the senders
//! segment by segment; it found the bookkeeping that `TcpConfig::ns3_bookkeeping` models.
//!
//! The committed log (`testdata/ns3_sender_traces.txt`) holds 26 flows of five of the
//! crosscheck's cases, each of which the sender got wrong before that bookkeeping; all 107,520
//! senders of the twelve cases replay exactly (docs/crosscheck/marks-gap.md). Any other log
//! can be replayed with
//! `NS3_TRACE=FILE cargo test -p incast-proto --lib replay_a_log -- --ignored --nocapture`
//! (`NS3_BOOKKEEPING=false` replays into the stack without `ns3_bookkeeping`).
//!
//! The log gives times in whole microseconds, so what each sender sent between two ACKs is
//! compared. It does not give the timestamps ACKs echo: the replay echoes the time the segment
//! that advanced the cumulative ACK (or the SYN) was last sent, as RFC 7323 and ns-3 choose it.

use std::collections::BTreeMap;

use crate::cc::{CcKind, CongestionControl};
use crate::tcp::{AckSegment, SackBlocks, Stack, TcpConfig, TcpSender};
use crate::time::{Duration, Instant};

/// The MSS of the crosscheck, in which the log numbers sequence offsets.
const MSS: u64 = 1448;
/// The crosscheck's minimum RTO (ns-3's `MinRto`).
const MIN_RTO: Duration = Duration::from_ms(10);

/// One flow of a log.
struct TracedFlow<'a> {
    id: u64,
    size: u64,
    protocol: &'a str,
    /// When the flow's SYN left, in nanoseconds.
    start_ns: u64,
    lines: Vec<&'a str>,
}

fn parse(text: &str) -> Vec<TracedFlow<'_>> {
    let mut flows: Vec<TracedFlow<'_>> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("flow ") {
            let mut f = rest.split_whitespace();
            let mut next = || f.next().unwrap_or_else(|| panic!("malformed flow line {line:?}"));
            let (id, size, protocol) = (next().parse().expect("flow index"), next().parse().expect("flow size"), next());
            let start_ns = next().parse().expect("flow start");
            flows.push(TracedFlow { id, size, protocol, start_ns, lines: Vec::new() });
        } else if line.starts_with("ns3 ") {
            flows.last_mut().expect("a flow line first").lines.push(line);
        }
    }
    flows
}

/// A sequence offset of the log (in segments of [`MSS`] from the first data byte, as a
/// decimal; SACK blocks as `[a,` and `b)`) in bytes.
fn offset(field: &str) -> u64 {
    let x: f64 = field.trim_matches(|c| c == '[' || c == ')' || c == ',').parse().expect("an offset");
    (x * MSS as f64).round() as u64
}

/// Where a replay first departs from ns-3's sender.
#[derive(Debug)]
struct Divergence {
    at_us: u64,
    ns3: Vec<u64>,
    incast: Vec<u64>,
}

/// Replays one flow's ACKs into a sender with `config`; `None` if every send matched.
fn replay(flow: &TracedFlow<'_>, config: TcpConfig) -> Option<Divergence> {
    let config = TcpConfig { mss_bytes: MSS as u32, min_rto: MIN_RTO, delayed_ack: None, ..config };
    let kind = match flow.protocol {
        "tcp" => CcKind::NewReno,
        "dctcp" => CcKind::dctcp(),
        other => panic!("flow {}: no replay for protocol {other:?}", flow.id),
    };
    // The SYN leaves at the flow's start (ns-3 logs no SYN); its SYN/ACK, the log's first
    // "ack 0", gives the first RTT sample, as in ns-3.
    let start = Instant::ZERO + Duration::from_ns(flow.start_ns);
    let mut s = TcpSender::new(config, CongestionControl::new(kind), Some(flow.size), kind != CcKind::NewReno, None, start);
    let mut replayed = Replayed { syn_at: start, last_sent: BTreeMap::new(), sent: Vec::new() };
    replayed.drain(&mut s, start);
    let mut established = false;
    let mut ns3_sent = Vec::new();
    // The cumulative ACK before this one, and the timestamp the receiver echoes.
    let (mut echo_ack, mut echo) = (0, None);
    // What each sender sent after one ACK and before the next (timeouts included) is compared:
    // the log's times are whole microseconds, too coarse to order events within one.
    let mut ack_us = flow.start_ns / 1_000;
    for line in &flow.lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        let us: u64 = f[1].parse().expect("a time in us");
        let now = Instant::ZERO + Duration::from_us(us);
        while let Some(due) = s.poll_timeout().filter(|&due| due <= now) {
            s.handle_timeout(due);
            replayed.drain(&mut s, due);
        }
        if f[3] == "ack" {
            if ns3_sent != replayed.sent {
                return Some(Divergence { at_us: ack_us, ns3: ns3_sent, incast: replayed.sent });
            }
            ns3_sent.clear();
            replayed.sent.clear();
            ack_us = us;
        }
        match f[3] {
            // Header-only segments (the handshake's ACK, a FIN) are left out.
            "tx" if f[6] != "0" => ns3_sent.push(offset(f[4])),
            "ack" if !established => {
                // The SYN/ACK, for the latest SYN (its ECE negotiates ECN and echoes no mark).
                s.handle_ack(now, &AckSegment::plain(0, false, replayed.syn_at));
                established = true;
                replayed.drain(&mut s, now);
            }
            "ack" => {
                let mut blocks = Vec::new();
                let mut ece = false;
                let mut rest = f[5..].iter();
                while let Some(&field) = rest.next() {
                    if field == "ece" {
                        ece = true;
                    } else {
                        blocks.push((offset(field), offset(rest.next().expect("a SACK block's end"))));
                    }
                }
                // ns-3's FIN takes the sequence number after the data; incast's flows end there.
                let ack = offset(f[4]).min(flow.size);
                // The receiver echoes the timestamp of the segment that last advanced its
                // cumulative ACK (RFC 7323's TS.Recent; ns-3's `m_timestampToEcho`): the one
                // that started at the previous ACK, else, for a duplicate, the same as before.
                if ack > echo_ack {
                    echo = replayed.last_sent.get(&echo_ack).copied().or(echo);
                    echo_ack = ack;
                }
                let ts_echo = echo.unwrap_or(now);
                let sack = SackBlocks::from_slice(&blocks[..blocks.len().min(SackBlocks::MAX)]);
                s.handle_ack(now, &AckSegment { ack, ece, ts_echo, sack, header_bytes: 52 });
                replayed.drain(&mut s, now);
            }
            _ => {}
        }
    }
    (ns3_sent != replayed.sent).then_some(Divergence { at_us: ack_us, ns3: ns3_sent, incast: replayed.sent })
}

/// What the replayed sender sent.
struct Replayed {
    /// When the latest SYN left.
    syn_at: Instant,
    /// When each segment (by its first byte) last left: the timestamp its ACK echoes.
    last_sent: BTreeMap<u64, Instant>,
    /// Data segments since the last ACK, by first byte.
    sent: Vec<u64>,
}

impl Replayed {
    fn drain(&mut self, s: &mut TcpSender, now: Instant) {
        while let Some(seg) = s.poll_transmit(now) {
            if seg.syn {
                self.syn_at = now;
            } else if seg.len > 0 {
                self.last_sent.insert(seg.seq, now);
                self.sent.push(seg.seq);
            }
        }
    }
}

/// Replays every flow of `text`; the flows that diverged, with where.
fn diverging(text: &str, config: TcpConfig) -> Vec<(u64, Divergence)> {
    parse(text).iter().filter_map(|f| replay(f, config).map(|d| (f.id, d))).collect()
}

const COMMITTED: &str = include_str!("../testdata/ns3_sender_traces.txt");

/// Every flow of the committed log, replayed into the `ns3` stack, sends what ns-3 sent.
#[test]
fn ns3_senders_replayed_send_what_ns3_sent() {
    let flows = parse(COMMITTED).len();
    assert!(flows >= 20, "{flows} flows in the committed log");
    let diverged = diverging(COMMITTED, Stack::Ns3.tcp_config());
    assert!(diverged.is_empty(), "{} of {flows} flows diverge: {diverged:?}", diverged.len());
}

/// The replay can fail: without ns-3's bookkeeping every committed flow diverges (each was
/// chosen for that).
#[test]
fn without_ns3_bookkeeping_every_committed_flow_diverges() {
    let config = TcpConfig { ns3_bookkeeping: false, ..Stack::Ns3.tcp_config() };
    let all: Vec<u64> = parse(COMMITTED).iter().map(|f| f.id).collect();
    let diverged: Vec<u64> = diverging(COMMITTED, config).iter().map(|(id, _)| *id).collect();
    assert_eq!(diverged, all);
}

/// Replays a log named by `NS3_TRACE` and prints each diverging flow.
#[test]
#[ignore = "needs NS3_TRACE=<file from incast crosscheck --sender-traces>"]
fn replay_a_log() {
    let path = std::env::var("NS3_TRACE").expect("NS3_TRACE=<log file>");
    let text = std::fs::read_to_string(&path).expect("a readable log");
    let flows = parse(&text).len();
    // NS3_BOOKKEEPING=false replays into the stack without it, for comparison.
    let bookkeeping = std::env::var("NS3_BOOKKEEPING").map_or(true, |v| v != "false");
    let diverged = diverging(&text, TcpConfig { ns3_bookkeeping: bookkeeping, ..Stack::Ns3.tcp_config() });
    for (id, d) in &diverged {
        let segs = |v: &[u64]| v.iter().map(|s| format!("{:.4}", *s as f64 / MSS as f64)).collect::<Vec<_>>().join(" ");
        println!("flow {id}: at {} us ns-3 sent [{}], incast [{}]", d.at_us, segs(&d.ns3), segs(&d.incast));
    }
    println!("{path}: {flows} flows, {} diverge", diverged.len());
}
