//! Homa through the whole engine (docs/homa.md): the receiver's SRPT grants, priorities that the
//! switches' classes honour (and the ns-3 port's stripped ones that they cannot), loss recovery
//! by RESEND on small buffers, the ns-3 port's model. Each against what the rules give by hand.


use crate::common::assert_conservation;
use incast_proto::time::{BitsPerSec, Duration, Instant};
use incast_sim::results::{FlowRecord, RunResults};
use incast_sim::scenario::*;

const TEN_GBPS: BitsPerSec = BitsPerSec(10_000_000_000);

/// A star of `hosts` at 10 Gbps with 1 us links, 8-class ports holding `buffer_bytes`, `flows`
/// on Homa with `homa`'s settings.
fn homa_star(hosts: u32, buffer_bytes: u64, homa: HomaSpec, flows: Vec<ExplicitFlow>) -> Scenario {
    let link = LinkSpec { rate: TEN_GBPS, delay: Duration::from_us(1) };
    let mut s = Scenario {
        switch: SwitchSpec { buffer: BufferSpec::PerPort { bytes: buffer_bytes }, priority_classes: 8, ..SwitchSpec::default() },
        ..Scenario::new(TopologySpec::Star { hosts, link }, vec![FlowListWorkload::new(flows).into()])
    };
    s.transport.protocol = Protocol::Homa;
    s.sections.homa = homa;
    s
}

fn flow(src: u32, size: u64, start_us: u64) -> ExplicitFlow {
    ExplicitFlow { src, dst: 0, size_bytes: Some(size), start: Instant::ZERO + Duration::from_us(start_us), deadline: None }
}

fn run(s: &Scenario) -> RunResults {
    let r = incast_sim::run(s).expect("a valid scenario");
    assert_conservation(&r);
    for f in &r.flows {
        assert_eq!(Some(f.delivered_bytes), f.size_bytes, "flow {} delivered whole", f.flow_id);
    }
    r
}

fn fct(f: &FlowRecord) -> f64 {
    f.finish_s.expect("finished") - f.start_s
}

#[test]
fn simultaneous_messages_finish_shortest_first_at_line_rate() {
    // 400, 200, 100 and 50 kB into host 0 at once: the receiver grants the fewest remaining
    // bytes first, so they finish in size order; the last when the 750 kB have crossed its link.
    let sizes = [400_000u64, 200_000, 100_000, 50_000];
    let flows = sizes.iter().enumerate().map(|(i, &size)| flow(i as u32 + 1, size, 0)).collect();
    let r = run(&homa_star(5, 10_000_000, HomaSpec::default(), flows));
    let finish: Vec<f64> = r.flows.iter().map(|f| f.finish_s.unwrap()).collect();
    assert!(finish[3] < finish[2] && finish[2] < finish[1] && finish[1] < finish[0], "{finish:?}");
    // 750 kB in packets of 1442 B under 58 B of headers: 520 packets of 1500 B at 10 Gbps.
    let wire = 750_000.0 / 1442.0 * 1500.0 * 8.0 / 1e10;
    assert!(finish[0] > wire && finish[0] < wire * 1.05 + 20e-6, "{} s for {wire} s of bytes", finish[0]);
}

#[test]
fn a_short_message_passes_long_ones_queued_at_lower_priorities_unless_priorities_are_stripped() {
    // Eight 2 MB messages keep host 0's downlink queue full of their scheduled packets (levels
    // 1-7); a one-packet message at 200 us rides level 0 past them. With the ns-3 port's
    // stripped priorities (issue 7 at 3cac711) it waits behind them in class 0.
    let flows = || {
        let mut f: Vec<ExplicitFlow> = (1..=8).map(|h| flow(h, 2_000_000, 0)).collect();
        f.push(flow(9, 1_000, 200));
        f
    };
    let short = |homa: HomaSpec| {
        let r = run(&homa_star(10, 10_000_000, homa, flows()));
        let f = r.flows.iter().find(|f| f.size_bytes == Some(1_000)).expect("the short message");
        (fct(f), f.ideal_fct_s.expect("an ideal"))
    };
    let (with, ideal) = short(HomaSpec::default());
    let (stripped, _) = short(HomaSpec { strip_priorities: true, ..HomaSpec::default() });
    assert!(with < 2.0 * ideal, "with priorities: {with} s, ideal {ideal} s");
    assert!(stripped > 4.0 * with, "stripped: {stripped} s, with priorities: {with} s");
}

#[test]
fn losses_on_small_buffers_are_recovered_by_resends() {
    // Ten 100 kB messages at once into 15 kB of buffer: the unscheduled bursts overflow it, and
    // the receiver asks again after 5 ms of silence.
    let flows = (1..=10).map(|h| flow(h, 100_000, 0)).collect();
    let r = run(&homa_star(11, 15_000, HomaSpec::default(), flows));
    assert!(r.summary.packets_dropped > 0);
    assert!(r.flows.iter().map(|f| f.retransmitted_bytes).sum::<u64>() > 0);
    assert!(r.flows.iter().map(|f| f.timeouts).sum::<u32>() > 0);
    let last = r.flows.iter().map(fct).fold(0.0, f64::max);
    assert!(last > 0.005, "a RESEND waits 5 ms of silence: {last} s");
}

#[test]
fn the_ns3_model_acknowledges_every_message() {
    // The port's ACK per message: one control packet back for each message, beyond grants.
    let flows: Vec<ExplicitFlow> = (1..=4).map(|h| flow(h, 3_000, 0)).collect();
    let paper = run(&homa_star(5, 10_000_000, HomaSpec::default(), flows.clone()));
    let ns3 = run(&homa_star(5, 10_000_000, HomaSpec::of_model(HomaModel::Ns3), flows));
    // 3 kB fits in either model's unscheduled bytes: the paper's receivers send nothing back.
    assert_eq!(paper.summary.packets_sent, 4 * 3);
    assert_eq!(ns3.summary.packets_sent, 4 * 3 + 4);
}
