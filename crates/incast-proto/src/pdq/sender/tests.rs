//! Scripted runs of one sender: start, pacing, pause and probes, completion, Early Termination.

use super::*;
use crate::tcp::MSS_BYTES;

const GBPS: Rate = 125_000_000;
const MSS: u64 = MSS_BYTES as u64;

fn us(t: u64) -> Instant {
    Instant::ZERO + Duration::from_us(t)
}

fn sender(size: u64, deadline: Option<Instant>) -> PdqSender {
    let config = PdqConfig { tcp: TcpConfig::default(), max_rate: GBPS, early_termination: true };
    PdqSender::new(config, Some(size), deadline, Instant::ZERO)
}

fn drain(s: &mut PdqSender, now: Instant) -> Vec<PdqSegment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// The ACK of `seg` as the receiver would send it, with the switches' answer `rate`/`pause_by`.
fn answer(seg: &PdqSegment, acked: u64, rate: Rate, pause_by: Option<SwitchId>) -> (AckSegment, SchedulingHeader) {
    let ack = AckSegment::plain(acked, false, seg.data.ts);
    (ack, SchedulingHeader { rate, pause_by, ..seg.header })
}

fn started(size: u64, rate: Rate) -> PdqSender {
    let mut s = sender(size, None);
    let syn = drain(&mut s, us(0));
    let (ack, echo) = answer(&syn[0], 0, rate, None);
    s.handle_ack(us(100), &ack, Some(&echo));
    s
}

/// A flow whose SYN switch 1 answered at 100 us with a pause.
fn paused(size: u64, deadline: Option<Instant>) -> PdqSender {
    let mut s = sender(size, deadline);
    let syn = drain(&mut s, us(0));
    let (ack, echo) = answer(&syn[0], 0, 0, Some(1));
    s.handle_ack(us(100), &ack, Some(&echo));
    s
}

#[test]
fn the_syn_goes_alone_and_asks_for_the_nic_rate() {
    let mut s = sender(10 * MSS, Some(us(10_000)));
    let out = drain(&mut s, us(0));
    assert_eq!(out.len(), 1);
    let h = out[0].header;
    assert!(h.syn && h.probe && !h.fin);
    assert_eq!(out[0].data.len, 0);
    assert_eq!((h.rate, h.pause_by, h.deadline), (GBPS, None, Some(us(10_000))));
    // T = 14,600 B at 1 Gbps = 116.8 us.
    assert_eq!(h.expected_time, Duration::from_ns(116_800));
    assert!(drain(&mut s, us(50)).is_empty(), "nothing before the switches answer");
}

#[test]
fn data_is_paced_at_the_accepted_rate() {
    let mut s = started(10 * MSS, GBPS / 2);
    let first = drain(&mut s, us(100));
    assert_eq!(first.len(), 1, "one packet, then the pacer");
    // 1500 B of segment plus the 20 B header at 62.5 MB/s: 24.32 us.
    let gap = Duration::from_ns(24_320);
    assert_eq!(s.poll_timeout(), Some(us(100) + gap));
    assert_eq!(drain(&mut s, us(100) + gap).len(), 1);
    assert_eq!(first[0].data.len as u64, MSS);
    assert!(!first[0].header.probe);
}

#[test]
fn a_paused_flow_probes_every_max_i_and_one_rtts_and_resumes_on_an_answer() {
    let mut s = started(10 * MSS, GBPS);
    let data = drain(&mut s, us(100));
    let (ack, echo) = answer(&data[0], MSS, 0, Some(3));
    s.handle_ack(us(200), &ack, Some(&echo));
    assert_eq!((s.rate(), s.paused_by()), (0, Some(3)));
    // RTT samples: 100 us each; I_S = 0, so one RTT after the last packet sent (at 100 us):
    // at once.
    let probe = drain(&mut s, us(200));
    assert_eq!(probe.len(), 1);
    assert!(probe[0].header.probe && probe[0].data.len == 0);
    assert_eq!(probe[0].header.pause_by, Some(3), "P_H carries P_S");
    assert!(drain(&mut s, us(250)).is_empty(), "one probe at a time");
    // Still paused, and Suppressed Probing says 2.5 RTTs.
    let (ack, mut echo) = answer(&probe[0], MSS, 0, Some(3));
    echo.inter_probe = 2_500;
    s.handle_ack(us(300), &ack, Some(&echo));
    assert!(drain(&mut s, us(300)).is_empty());
    assert_eq!(s.poll_timeout(), Some(us(450)));
    let probe = drain(&mut s, us(450));
    let (ack, echo) = answer(&probe[0], MSS, GBPS, None);
    s.handle_ack(us(550), &ack, Some(&echo));
    assert_eq!(drain(&mut s, us(550)).len(), 1, "resumed");
    assert_eq!(s.stats().probes, 2);
    assert_eq!(s.stats().time_paused, Duration::from_us(350));
}

#[test]
fn the_fin_follows_the_last_ack_and_is_resent_until_answered() {
    let mut s = started(MSS, GBPS);
    let data = drain(&mut s, us(100));
    let (ack, echo) = answer(&data[0], MSS, GBPS, None);
    s.handle_ack(us(200), &ack, Some(&echo));
    assert_eq!(s.completed_at(), Some(us(200)));
    let fin = drain(&mut s, us(200));
    assert!(fin.len() == 1 && fin[0].header.fin && fin[0].header.probe);
    assert!(!s.is_complete());
    // Lost: re-sent after an RTO.
    let t = s.poll_timeout().expect("FIN timer");
    s.handle_timeout(t);
    let again = drain(&mut s, t);
    assert!(again.len() == 1 && again[0].header.fin);
    let (ack, echo) = answer(&again[0], MSS, 0, None);
    s.handle_ack(t + Duration::from_us(100), &ack, Some(&echo));
    assert!(s.is_complete() && !s.terminated());
}

#[test]
fn early_termination_gives_up_when_the_bytes_left_cannot_make_the_deadline() {
    // 100 segments need 1.168 ms at 1 Gbps; the deadline is 1 ms away: nothing is sent at all.
    let mut s = sender(100 * MSS, Some(us(1_000)));
    assert!(drain(&mut s, us(0)).is_empty());
    assert!(s.terminated() && s.is_complete());
    assert_eq!(s.completed_at(), Some(us(0)));
    // 50 segments (584 us) fit at first; paused, they no longer do after 416 us.
    let mut s = paused(50 * MSS, Some(us(1_000)));
    let probe = drain(&mut s, us(100));
    assert!(probe.len() == 1 && !probe[0].header.fin);
    let (ack, echo) = answer(&probe[0], 0, 0, Some(1));
    s.handle_ack(us(200), &ack, Some(&echo));
    assert!(drain(&mut s, us(400)).iter().all(|p| !p.header.fin), "600 us left at 400 us");
    let term = drain(&mut s, us(417));
    assert!(term.len() == 1 && term[0].header.fin && s.terminated());
    assert_eq!(s.completed_at(), Some(us(417)));
    assert!(!s.is_complete(), "until the TERM is answered");
}

#[test]
fn early_termination_gives_up_on_a_paused_flow_with_less_than_an_rtt_left() {
    let mut s = paused(2 * MSS, Some(us(400)));
    // Paused with 300 us to go (RTT 100 us): it probes.
    let probe = drain(&mut s, us(100));
    assert!(probe.len() == 1 && !probe[0].header.fin);
    let (ack, echo) = answer(&probe[0], 0, 0, Some(1));
    s.handle_ack(us(320), &ack, Some(&echo));
    let term = drain(&mut s, us(320));
    assert!(term.iter().any(|p| p.header.fin) && s.terminated(), "80 us left, RTT 100 us");
}

#[test]
fn a_flow_without_early_termination_keeps_trying_past_its_deadline() {
    let config = PdqConfig { tcp: TcpConfig::default(), max_rate: GBPS, early_termination: false };
    let mut s = PdqSender::new(config, Some(100 * MSS), Some(us(10)), Instant::ZERO);
    let syn = drain(&mut s, us(0));
    let (ack, echo) = answer(&syn[0], 0, GBPS, None);
    s.handle_ack(us(100), &ack, Some(&echo));
    let out = drain(&mut s, us(100));
    assert!(out.len() == 1 && out[0].data.len > 0 && !s.terminated());
}

#[test]
fn a_higher_rate_shortens_the_gap_already_waited_for() {
    let mut s = started(10 * MSS, GBPS / 100);
    let first = drain(&mut s, us(100));
    assert_eq!(first.len(), 1);
    // At 1% of the link the next segment would wait 1,216 us; an answer at the full rate lets
    // it go 12.16 us after the first.
    let (ack, echo) = answer(&first[0], 0, GBPS, None);
    s.handle_ack(us(105), &ack, Some(&echo));
    assert!(drain(&mut s, us(105)).is_empty());
    assert_eq!(s.poll_timeout(), Some(us(100) + Duration::from_ns(12_160)));
}

#[test]
fn a_rate_too_low_to_send_within_an_rtt_probes_like_a_paused_flow() {
    // The last ACK in flight grants 5 B/s: the next segment would leave 304 s later.
    let mut s = started(10 * MSS, GBPS);
    let data = drain(&mut s, us(100));
    let (ack, echo) = answer(&data[0], MSS, 5, None);
    s.handle_ack(us(200), &ack, Some(&echo));
    let out = drain(&mut s, us(200));
    assert_eq!(out.len(), 1, "one probe one RTT after the last packet, not a segment");
    assert!(out[0].header.probe && out[0].data.len == 0);
    let (ack, echo) = answer(&out[0], MSS, GBPS, None);
    s.handle_ack(us(300), &ack, Some(&echo));
    let out = drain(&mut s, us(300));
    assert!(out.len() == 1 && out[0].data.len > 0, "the probe's answer restores the rate");
}
