//! End to end: pFabric's ports and hosts (`protocol = "pfabric"`) on small networks, and the packet
//! spraying its evaluation uses (`[switch] load_balancing = "spray"`).


use crate::common::assert_conservation;
use incast_sim::results::RunResults;
use incast_sim::scenario::parse_toml;

fn run(text: &str) -> RunResults {
    let scenario = parse_toml(text, None).expect("valid scenario");
    let r = incast_sim::run(&scenario).expect("builds");
    assert_conservation(&r);
    r
}

/// A leaf-spine of 3 racks of 4 hosts with Poisson web-search flows at half load for 2 ms.
fn leaf_spine(protocol: &str) -> String {
    format!(
        "seed = 5\n[topology]\nkind = \"leaf-spine\"\nracks = 3\nhosts_per_rack = 4\nspines = 2\n\
         [switch]\nbuffer = \"225KB\"\necn_threshold = 65\nhost_nic = \"like-switch\"\n\
         [transport]\nprotocol = \"{protocol}\"\nmin_rto = \"2ms\"\ninitial_rto = \"2ms\"\nhandshake = false\ndelayed_ack = false\n\
         [[workload]]\nkind = \"poisson\"\nload = 0.5\nsize = \"web-search\"\nstop = \"2ms\"\n"
    )
}

#[test]
fn pfabric_finishes_every_flow_conserving_packets_and_deterministically() {
    let r = run(&leaf_spine("pfabric"));
    assert!(r.summary.flows > 10, "{:?}", r.summary);
    assert_eq!(r.summary.flows_completed, r.summary.flows);
    assert!(r.flows.iter().all(|f| f.protocol == "pfabric"));
    let rows = |r: &RunResults| -> Vec<String> { r.flows.iter().map(|f| format!("{f:?}")).collect() };
    assert_eq!(rows(&r), rows(&run(&leaf_spine("pfabric"))), "same seed, same flows");
    // The ports' drops (evictions included) are the run's drops.
    let port_drops: u64 = r.ports.iter().map(|p| p.drops).sum();
    assert_eq!(port_drops, r.summary.packets_dropped);
}

/// Four 2 MB flows into host 0 from t = 0, and a 20 KB flow into it from host 5 at 0.5 ms.
fn short_behind_long(protocol: &str) -> String {
    let mut text = format!(
        "[topology]\nkind = \"star\"\nhosts = 6\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
         [switch]\nbuffer = \"36864B\"\nhost_nic = \"like-switch\"\n\
         [transport]\nprotocol = \"{protocol}\"\nmin_rto = \"1ms\"\ninitial_rto = \"1ms\"\nhandshake = false\ndelayed_ack = false\n\
         [[workload]]\nkind = \"flows\"\nflows = [\n"
    );
    for src in 1..=4 {
        text += &format!("  {{ src = {src}, dst = 0, size = \"2MB\" }},\n");
    }
    text += "  { src = 5, dst = 0, size = \"20KB\", start = \"500us\" },\n]\n";
    text
}

#[test]
fn a_short_flow_overtakes_long_ones_at_a_pfabric_port_but_not_at_a_fifo() {
    let short = |r: &RunResults| r.flows.iter().find(|f| f.size_bytes == Some(20_000)).and_then(|f| f.slowdown).expect("finished");
    let pfabric = run(&short_behind_long("pfabric"));
    let tcp = run(&short_behind_long("tcp"));
    assert_eq!(pfabric.summary.flows_completed, 5);
    // Alone it would take its ideal; at the pFabric port it waits for at most the packet in
    // service per hop, while at the FIFO it waits behind a full buffer, and loses packets.
    assert!(short(&pfabric) < 1.5, "pFabric: {}", short(&pfabric));
    assert!(short(&tcp) > 2.0 * short(&pfabric), "TCP {} vs pFabric {}", short(&tcp), short(&pfabric));
    // The long flows still finish, losing packets only to each other.
    let long_timeouts: u32 = pfabric.flows.iter().filter(|f| f.size_bytes == Some(2_000_000)).map(|f| f.timeouts).sum();
    assert!(pfabric.flows.iter().all(|f| f.finish_s.is_some()), "{long_timeouts} timeouts");
}

/// One 2 MB flow from rack 0 to rack 2 of a leaf-spine with 4 spines, by `load_balancing`:
/// the bytes its rack's uplinks sent, uplink by uplink.
fn uplink_bytes(protocol: &str, load_balancing: &str) -> (Vec<u64>, RunResults) {
    let text = format!(
        "[topology]\nkind = \"leaf-spine\"\nracks = 3\nhosts_per_rack = 4\nspines = 4\n\
         [switch]\nbuffer = \"225KB\"\nload_balancing = \"{load_balancing}\"\n\
         [transport]\nprotocol = \"{protocol}\"\n\
         [[workload]]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 11, size = \"2MB\" }}]\n"
    );
    let r = run(&text);
    let up: Vec<u64> = r.ports.iter().filter(|p| p.node == r.ports.iter().find(|q| q.node.starts_with("leaf")).unwrap().node && p.up).map(|p| p.bytes_sent).collect();
    (up, r)
}

#[test]
fn spraying_spreads_one_flow_over_every_spine_and_ecmp_keeps_it_on_one() {
    for protocol in ["pfabric", "dctcp"] {
        let (sprayed, r) = uplink_bytes(protocol, "spray");
        assert_eq!(r.summary.flows_completed, 1, "{protocol}");
        assert_eq!(sprayed.len(), 4, "{protocol}: {sprayed:?}");
        let (min, max) = (*sprayed.iter().min().unwrap(), *sprayed.iter().max().unwrap());
        assert!(min > 400_000 && max - min < max / 10, "{protocol}: round robin spreads the 2 MB evenly: {sprayed:?}");
        let (hashed, r) = uplink_bytes(protocol, "ecmp");
        assert_eq!(r.summary.flows_completed, 1, "{protocol}");
        assert_eq!(hashed.iter().filter(|&&b| b > 0).count(), 1, "{protocol}: one path: {hashed:?}");
    }
}

#[test]
fn spraying_in_random_order_spreads_one_flow_as_evenly_and_the_seed_fixes_the_order() {
    for protocol in ["pfabric", "dctcp", "ndp"] {
        let (permuted, r) = uplink_bytes(protocol, "spray-permute");
        assert_eq!(r.summary.flows_completed, 1, "{protocol}");
        assert_eq!(permuted.len(), 4, "{protocol}: {permuted:?}");
        // Every cycle of four packets takes each spine once, in whatever order: the spines'
        // shares differ by at most a packet a cycle's worth, as round robin's do.
        let (min, max) = (*permuted.iter().min().unwrap(), *permuted.iter().max().unwrap());
        assert!(min > 400_000 && max - min < max / 10, "{protocol}: every cycle takes every spine: {permuted:?}");
        // Deterministic: the same scenario (and seed) gives the same run.
        let (again, r2) = uplink_bytes(protocol, "spray-permute");
        assert_eq!((permuted, r.summary.events), (again, r2.summary.events), "{protocol}");
    }
}
