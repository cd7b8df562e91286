//! Scripted decisions of one port: accept, pause, preempt, Early Start, Dampening, Suppressed
//! Probing, the list's bound and the rate controller.

use super::*;

const GBPS: Rate = 125_000_000;
const ME: SwitchId = 7;

fn config() -> SwitchConfig {
    SwitchConfig { id: ME, link_rate: GBPS, early_start_rtts: 2, probe_spacing: 200, dampening: Duration::from_us(10), max_flows: 8 }
}

fn us(t: u64) -> Instant {
    Instant::ZERO + Duration::from_us(t)
}

/// A header of a flow that wants the whole link, with `expected_us` of data left and a 100 us RTT.
fn header(deadline_us: Option<u64>, expected_us: u64) -> SchedulingHeader {
    SchedulingHeader {
        rate: GBPS,
        deadline: deadline_us.map(us),
        expected_time: Duration::from_us(expected_us),
        rtt: Duration::from_us(100),
        ..SchedulingHeader::default()
    }
}

/// Sends a packet of `flow` through the port and its ACK back, as the network would with no
/// other switch on the path; returns the decision and the header the sender hears.
fn round_trip(s: &mut PdqSwitch, now: Instant, flow: u32, mut h: SchedulingHeader) -> (Decision, SchedulingHeader) {
    let d = s.on_data(now, flow, &mut h, 0);
    s.on_ack(flow, &mut h);
    (d, h)
}

#[test]
fn a_lone_flow_is_accepted_at_the_link_rate_and_its_rate_confirmed_by_the_ack() {
    let mut s = PdqSwitch::new(config());
    let (d, h) = round_trip(&mut s, us(0), 1, header(None, 1_000));
    assert_eq!(d, Decision::Accepted(GBPS));
    assert_eq!((h.rate, h.pause_by), (GBPS, None));
    assert_eq!(s.flows().collect::<Vec<_>>(), [(1, GBPS, None)]);
}

#[test]
fn a_less_critical_flow_is_paused_while_a_more_critical_one_holds_the_link() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 1_000));
    let (d, h) = round_trip(&mut s, us(1), 2, header(None, 5_000));
    assert_eq!(d, Decision::Paused);
    assert_eq!((h.rate, h.pause_by), (0, Some(ME)));
    assert_eq!(s.flows().collect::<Vec<_>>(), [(1, GBPS, None), (2, 0, Some(ME))]);
}

#[test]
fn a_more_critical_flow_preempts_the_sending_one() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 5_000));
    // A shorter flow arrives: it is ahead in the list, so the whole link is free for it.
    let (d, _) = round_trip(&mut s, us(1), 2, header(None, 1_000));
    assert_eq!(d, Decision::Accepted(GBPS));
    // The longer flow's next packet finds the link taken: paused.
    let (d, h) = round_trip(&mut s, us(2), 1, header(None, 4_990));
    assert_eq!(d, Decision::Paused);
    assert_eq!(h.pause_by, Some(ME));
    // An earlier deadline beats a shorter job.
    let (d, _) = round_trip(&mut s, us(3), 3, header(Some(50_000), 9_000));
    assert_eq!(d, Decision::Accepted(GBPS));
    let (d, _) = round_trip(&mut s, us(4), 2, header(None, 990));
    assert_eq!(d, Decision::Paused);
}

#[test]
fn the_rate_left_over_goes_to_the_next_flow() {
    let mut s = PdqSwitch::new(config());
    // Flow 1 is held to 40% of the link elsewhere: its ACK confirms 0.4 x link here.
    let mut h = header(None, 1_000);
    s.on_data(us(0), 1, &mut h, 0);
    h.rate = GBPS * 2 / 5;
    s.on_ack(1, &mut h);
    let (d, _) = round_trip(&mut s, us(1), 2, header(None, 5_000));
    assert_eq!(d, Decision::Accepted(GBPS * 3 / 5));
}

#[test]
fn early_start_lets_the_next_flow_start_while_a_flow_ahead_finishes() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 1_000));
    // Flow 1 now needs 150 us more, 1.5 RTTs < K = 2: its rate does not count.
    let (d, _) = round_trip(&mut s, us(1), 1, header(None, 150));
    assert_eq!(d, Decision::Accepted(GBPS));
    let (d, _) = round_trip(&mut s, us(2), 2, header(None, 5_000));
    assert_eq!(d, Decision::Accepted(GBPS), "Early Start");
    // At most K RTTs of finishing flows are left out: once 2.5 RTTs of them are, the next one
    // ahead counts.
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 150));
    round_trip(&mut s, us(1), 2, header(None, 160));
    round_trip(&mut s, us(2), 3, header(None, 100));
    let (d, _) = round_trip(&mut s, us(3), 4, header(None, 5_000));
    assert_eq!(d, Decision::Paused, "flows 3 and 1 (1 + 1.5 RTTs) left out, flow 2's rate counts");
}

/// A probe of a flow whose sender knows this port paused it.
fn probe(expected_us: u64) -> SchedulingHeader {
    SchedulingHeader { pause_by: Some(ME), probe: true, ..header(None, expected_us) }
}

#[test]
fn dampening_accepts_one_paused_flow_at_a_time() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 1_000));
    round_trip(&mut s, us(1), 2, header(None, 5_000));
    round_trip(&mut s, us(1), 3, header(None, 6_000));
    // Flow 1 finishes; flow 2 is held to half the link elsewhere, so half is left for flow 3.
    let mut fin = header(None, 0);
    fin.fin = true;
    assert_eq!(s.on_data(us(100), 1, &mut fin, 0), Decision::Released);
    let mut h = probe(5_000);
    assert_eq!(s.on_data(us(101), 2, &mut h, 0), Decision::Accepted(GBPS));
    h.rate = GBPS / 2;
    s.on_ack(2, &mut h);
    // Flow 3's probe comes within 10 us of accepting paused flow 2.
    let (d3, _) = round_trip(&mut s, us(105), 3, probe(6_000));
    assert_eq!(d3, Decision::Paused);
    assert_eq!(s.stats().dampened, 1);
    let (d3, _) = round_trip(&mut s, us(112), 3, probe(6_000));
    assert_eq!(d3, Decision::Accepted(GBPS / 2));
}

#[test]
fn packets_a_paused_flow_sent_before_it_knew_are_not_dampened() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 1_000));
    round_trip(&mut s, us(1), 2, header(None, 5_000));
    let mut fin = header(None, 0);
    fin.fin = true;
    s.on_data(us(100), 1, &mut fin, 0);
    let mut h = probe(5_000);
    s.on_data(us(101), 2, &mut h, 0);
    h.rate = GBPS / 2;
    s.on_ack(2, &mut h);
    // Flow 3 was accepted, then paused on a later packet; its sender does not know yet, so its
    // next packets carry no pause: they are judged on the bandwidth alone.
    round_trip(&mut s, us(102), 3, header(None, 6_000));
    let (d3, _) = round_trip(&mut s, us(103), 3, header(None, 6_000));
    assert_eq!(d3, Decision::Accepted(GBPS / 2));
    assert_eq!(s.stats().dampened, 0);
}

#[test]
fn a_flow_paused_by_another_switch_leaves_the_list_and_its_header_is_untouched() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 1_000));
    let mut h = header(None, 1_000);
    h.pause_by = Some(ME + 1);
    h.rate = 0;
    let before = h;
    assert_eq!(s.on_data(us(1), 1, &mut h, 0), Decision::PausedElsewhere);
    assert_eq!(h, before);
    assert_eq!(s.flows().count(), 0);
    // Accepted here, paused downstream: the ACK takes the flow out of this list too.
    let mut h = header(None, 1_000);
    s.on_data(us(2), 2, &mut h, 0);
    h.pause_by = Some(ME + 1);
    s.on_ack(2, &mut h);
    assert_eq!((h.rate, s.flows().count()), (0, 0));
}

#[test]
fn suppressed_probing_spaces_probes_by_place_in_the_list() {
    let mut s = PdqSwitch::new(config());
    let mut last = SchedulingHeader::default();
    for flow in 0..4 {
        last = round_trip(&mut s, us(u64::from(flow)), flow, header(None, 1_000 * u64::from(flow + 1))).1;
    }
    assert_eq!(last.inter_probe, 600, "fourth in the list: X x 3 = 0.6 RTT");
    let mut h = header(None, 1_000);
    h.inter_probe = 900;
    s.on_data(us(9), 0, &mut h, 0);
    s.on_ack(0, &mut h);
    assert_eq!(h.inter_probe, 900, "a switch only raises I_H");
}

#[test]
fn a_full_list_pauses_less_critical_newcomers_and_evicts_for_more_critical_ones() {
    let mut s = PdqSwitch::new(SwitchConfig { max_flows: 2, ..config() });
    round_trip(&mut s, us(0), 1, header(None, 1_000));
    round_trip(&mut s, us(1), 2, header(None, 2_000));
    let (d, _) = round_trip(&mut s, us(2), 3, header(None, 3_000));
    assert_eq!(d, Decision::Paused);
    assert_eq!(s.stats().list_full, 1);
    assert_eq!(s.flows().map(|f| f.0).collect::<Vec<_>>(), [1, 2]);
    round_trip(&mut s, us(3), 4, header(None, 500));
    assert_eq!(s.flows().map(|f| f.0).collect::<Vec<_>>(), [4, 1], "the least critical flow left");
}

#[test]
fn the_rate_controller_hands_out_less_while_a_queue_stands() {
    let mut s = PdqSwitch::new(config());
    round_trip(&mut s, us(0), 1, header(None, 5_000));
    assert_eq!(s.capacity(), GBPS, "no RTT known yet: the link");
    // 25 KB queued over 2 RTT = 200 us is the whole link: C = r - q/2RTT = 0.
    let mut h = header(None, 4_000);
    assert_eq!(s.on_data(us(1), 1, &mut h, 25_000), Decision::Paused);
    // The controller runs again only 2 RTTs later, whatever the queue meanwhile.
    let mut h = header(None, 4_000);
    assert_eq!(s.on_data(us(150), 1, &mut h, 0), Decision::Paused);
    // Then 12.5 KB standing takes half the link.
    let mut h = header(None, 4_000);
    assert_eq!(s.on_data(us(201), 1, &mut h, 12_500), Decision::Accepted(GBPS / 2));
    assert_eq!(s.capacity(), GBPS / 2);
}
