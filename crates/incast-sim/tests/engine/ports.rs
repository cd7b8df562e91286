//! The ports table: every egress port's counters, named after the nodes at both ends of its link.


use crate::common::*;
use incast_proto::time::{Duration, Instant};
use incast_sim::results::{PortRecord, RunResults};
use incast_sim::scenario::*;

fn run(s: &Scenario) -> RunResults {
    let r = incast_sim::run(s).expect("valid scenario");
    assert_conservation(&r);
    r
}

fn port<'a>(r: &'a RunResults, name: &str) -> &'a PortRecord {
    r.ports.iter().find(|p| p.port == name).unwrap_or_else(|| panic!("no port {name}"))
}

/// Twenty DCTCP workers answer host 0 at once, three rounds, through 30-packet queues with
/// K = 10: the aggregator's downlink drops and marks.
fn incast() -> RunResults {
    let burst = burst_into_host0(20, 40_000, 3, None);
    let mut s = scenario(star(21), Protocol::Dctcp, 0, vec![burst]);
    s.switch.buffer = BufferSpec::PerPortPackets { packets: 30 };
    s.switch.ecn = EcnSpec::Packets(10);
    run(&s)
}

#[test]
fn every_port_is_listed_once_with_its_ends_role_and_direction() {
    let r = incast();
    assert_eq!(r.ports.len(), 42, "two ports per host link");
    let down = port(&r, "switch->h0");
    assert_eq!((down.node.as_str(), down.peer.as_str(), down.role, down.tier, down.up), ("switch", "h0", "switch", 1, false));
    let nic = port(&r, "h0->switch");
    assert_eq!((nic.role, nic.tier, nic.up, nic.link_rate_bps), ("host", 0, true, 1_000_000_000));
}

#[test]
fn the_aggregators_downlink_carries_drops_and_marks_and_every_packet_is_accounted_per_port() {
    let r = incast();
    let down = port(&r, "switch->h0");
    assert!(down.drops > 0 && down.ecn_marks > 0, "{down:?}");
    assert_eq!(down.drops, r.summary.packets_dropped, "no other port drops");
    assert_eq!(down.ecn_marks, r.summary.ecn_marked);
    // Every packet a worker's NIC sent went to the switch and on towards host 0, or was dropped
    // there; every packet host 0 sent (its ACKs) went out on a worker's downlink, but for those
    // still in the network when the last flow completed.
    let in_network = r.summary.packets_in_network;
    let workers_sent: u64 = (1..=20).map(|h| port(&r, &format!("h{h}->switch")).packets_sent).sum();
    let through = down.packets_sent + down.drops;
    assert!(through <= workers_sent && workers_sent <= through + in_network, "{workers_sent} vs {through}");
    let acks_out: u64 = (1..=20).map(|h| port(&r, &format!("switch->h{h}")).packets_sent).sum();
    let acks_sent = port(&r, "h0->switch").packets_sent;
    assert!(acks_out <= acks_sent && acks_sent <= acks_out + in_network, "{acks_sent} vs {acks_out}");
    assert!(in_network < 10, "{in_network} packets left in the network");
    assert_eq!(r.summary.max_queue_bytes, down.max_queue_bytes);
    // The queue builds during each burst and drains between them.
    assert!(down.mean_queue_bytes > 0.0 && down.mean_queue_bytes < down.max_queue_bytes as f64, "{down:?}");
    assert_eq!(port(&r, "switch->h5").drops, 0);
}

#[test]
fn the_ports_table_is_deterministic() {
    assert_eq!(incast().ports, incast().ports);
}

/// Sampling every 100 us on a two-tier network of 2 racks of 3 hosts, one flow from rack 0 to
/// rack 1, choosing ports by `patterns`.
fn two_tier_sampled(patterns: &[&str]) -> Result<RunResults, incast_sim::Error> {
    let link = LinkSpec { rate: GBPS, delay: Duration::from_us(10) };
    let topology = TopologySpec::TwoTier { racks: 2, hosts_per_rack: 3, host_link: link, fabric_link: link };
    let flow = ExplicitFlow { src: 0, dst: 4, size_bytes: Some(200_000), start: Instant::ZERO, deadline: None };
    let mut s = scenario(topology, Protocol::Dctcp, 100_000, vec![FlowListWorkload::new(vec![flow]).into()]);
    s.output.queue_samples = Some(QueueSampling {
        interval: Duration::from_us(100),
        host_downlinks: vec![4],
        ports: patterns.iter().map(|p| p.to_string()).collect(),
    });
    incast_sim::run(&s)
}

#[test]
fn queue_sampling_takes_ports_by_name_or_pattern_each_once() {
    let r = two_tier_sampled(&["tor*->fabric", "tor1->h4", "fabric->tor?"]).expect("valid");
    let sampled: Vec<(&str, Option<u32>)> = r.queues.iter().map(|q| (q.port.as_str(), q.host)).collect();
    // The host's downlink first (queue_sample_hosts), then pattern by pattern, each pattern's
    // ports in the topology's order; the downlink not twice.
    assert_eq!(
        sampled,
        [("tor1->h4", Some(4)), ("tor0->fabric", None), ("tor1->fabric", None), ("fabric->tor0", None), ("fabric->tor1", None)]
    );
    let uplink = &r.queues[1];
    assert!(uplink.time_s.len() > 1 && uplink.time_s.len() == uplink.queue_bytes.len());
}
