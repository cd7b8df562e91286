//! End to end: PDQ's ports and hosts (`protocol = "pdq"`) on small networks.


use crate::common::assert_conservation;
use incast_sim::results::RunResults;
use incast_sim::scenario::parse_toml;

fn run(text: &str) -> RunResults {
    let scenario = parse_toml(text, None).expect("valid scenario");
    let r = incast_sim::run(&scenario).expect("builds");
    assert_conservation(&r);
    r
}

/// `n` flows of `size` into host 0 of a 1 Gbps star, all starting at 0.
fn fan_in(protocol: &str, n: u32, size: &str) -> String {
    let mut text = format!(
        "[topology]\nkind = \"star\"\nhosts = {}\nlink_rate = \"1Gbps\"\nlink_delay = \"25us\"\n\
         [switch]\nbuffer = \"128KB\"\n[transport]\nprotocol = \"{protocol}\"\n\
         [[workload]]\nkind = \"flows\"\nflows = [\n",
        n + 1
    );
    for src in 1..=n {
        text += &format!("  {{ src = {src}, dst = 0, size = \"{size}\" }},\n");
    }
    text + "]\n"
}

fn finish_times(r: &RunResults) -> Vec<f64> {
    let mut t: Vec<f64> = r.flows.iter().map(|f| f.finish_s.expect("finished")).collect();
    t.sort_by(f64::total_cmp);
    t
}

#[test]
fn pdq_finishes_flows_one_after_another_where_tcp_shares() {
    let pdq = run(&fan_in("pdq", 4, "500KB"));
    let tcp = run(&fan_in("tcp", 4, "500KB"));
    assert_eq!(pdq.summary.flows_completed, 4);
    let (p, t) = (finish_times(&pdq), finish_times(&tcp));
    println!("pdq {p:?}\ntcp {t:?}");
    // 500 KB takes 4 ms at 1 Gbps: PDQ serves the flows in turn, so the first finishes after
    // about one flow's time and the mean is well below the fair share's (all near the end).
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(p[0] < 0.006, "first PDQ flow at {} s", p[0]);
    assert!(mean(&p) < 0.8 * mean(&t), "PDQ mean {} vs TCP {}", mean(&p), mean(&t));
    assert!(p[3] < 1.1 * t[3], "the last finishes no later: {} vs {}", p[3], t[3]);
}

#[test]
fn pdq_runs_are_deterministic() {
    let rows = |r: &RunResults| -> Vec<String> { r.flows.iter().map(|f| format!("{f:?}")).collect() };
    assert_eq!(rows(&run(&fan_in("pdq", 6, "100KB"))), rows(&run(&fan_in("pdq", 6, "100KB"))));
}

/// A leaf-spine of 3 racks of 4 hosts with Poisson web-search flows at 80% load for 5 ms: many
/// flows over two tiers, where an ACK reaches the list of each port that forwards its flow's data.
fn leaf_spine_pdq() -> String {
    "seed = 7\n[topology]\nkind = \"leaf-spine\"\nracks = 3\nhosts_per_rack = 4\nspines = 2\n\
     [switch]\nbuffer = \"225KB\"\nhost_nic = \"like-switch\"\n\
     [transport]\nprotocol = \"pdq\"\nmin_rto = \"2ms\"\ninitial_rto = \"2ms\"\n\
     [[workload]]\nkind = \"poisson\"\nload = 0.8\nsize = \"web-search\"\nstop = \"5ms\"\n"
        .to_string()
}

#[test]
fn pdq_on_a_leaf_spine_finishes_every_flow_conserving_packets() {
    let r = run(&leaf_spine_pdq());
    assert!(r.summary.flows > 20, "{:?}", r.summary);
    assert_eq!(r.summary.flows_completed, r.summary.flows);
    // The rate control keeps the 225 KB ports from overflowing at this load.
    assert_eq!(r.summary.packets_dropped, 0);
    let rows = |r: &RunResults| -> Vec<String> { r.flows.iter().map(|f| format!("{f:?}")).collect() };
    assert_eq!(rows(&r), rows(&run(&leaf_spine_pdq())), "same seed, same flows");
}

