//! End to end: OLDI leaves answering over persistent connections (`connections = "persistent"`).


use crate::common::assert_conservation;
use incast_sim::results::RunResults;
use incast_sim::scenario::parse_toml;

/// A small OLDI scenario: 40 hosts (8 per application), fan-in 5 at 30% utilization, 30 ms of
/// queries; `protocol` and the extra workload keys are filled in.
fn small_oldi(protocol: &str, extra: &str) -> String {
    format!(
        "seed = 3\n[topology]\nkind = \"two-tier\"\nracks = 2\nhosts_per_rack = 20\n[switch]\nbuffer = \"64KB\"\n\
         [transport]\nstack = \"d3-testbed\"\nprotocol = \"{protocol}\"\nmin_rto = \"10ms\"\nhandshake = true\n\
         [[workload]]\nkind = \"oldi\"\nfan_in = 5\nutilization = 0.3\nstop = \"30ms\"\n{extra}\
         [run]\nduration = \"100ms\"\n"
    )
}

fn run(text: &str) -> RunResults {
    let scenario = parse_toml(text, None).expect("valid scenario");
    let r = incast_sim::run(&scenario).expect("builds");
    assert_conservation(&r);
    r
}

/// FNV-1a over every flow row and the packet counters: any change in behaviour changes it.
fn fingerprint(r: &RunResults) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for f in &r.flows {
        eat(u64::from(f.src));
        eat(u64::from(f.dst));
        eat(f.start_s.to_bits());
        eat(f.finish_s.map_or(u64::MAX, f64::to_bits));
        eat(f.deadline_s.map_or(u64::MAX, f64::to_bits));
        eat(f.delivered_bytes);
        eat(f.retransmitted_bytes);
        eat(u64::from(f.timeouts));
    }
    let s = &r.summary;
    for x in [s.events, s.packets_sent, s.packets_delivered, s.packets_dropped, s.ecn_marked, s.timeouts] {
        eat(x);
    }
    h
}

/// Fingerprints of the small OLDI scenario per protocol on the d3-testbed stack: `per-message`
/// must leave every result bit-identical to a scenario that does not name it. First recorded
/// before persistent connections existed (commit b1838aa); re-recorded when SYNs began to carry
/// their 8 B of MSS and window-scale options and K began to count packets (issue 10), with
/// every other result of the d3-testbed stack checked bit-identical before that change.
const PER_MESSAGE_FINGERPRINTS: [(&str, u64); 3] =
    [("tcp", 0x2be7_f7f2_faba_abc9), ("dctcp", 0xf39f_3837_1166_a9af), ("d2tcp", 0x1f36_e007_c5a2_29e1)];

#[test]
fn per_message_oldi_results_are_bit_identical_to_before() {
    for (protocol, expected) in PER_MESSAGE_FINGERPRINTS {
        let implicit = run(&small_oldi(protocol, ""));
        assert_eq!(fingerprint(&implicit), expected, "{protocol}");
        let explicit = run(&small_oldi(protocol, "connections = \"per-message\"\n"));
        assert_eq!(fingerprint(&explicit), expected, "{protocol}");
    }
}

#[test]
fn persistent_oldi_keeps_one_row_per_message_and_conserves_packets() {
    for protocol in ["tcp", "dctcp", "d2tcp"] {
        let fresh = run(&small_oldi(protocol, ""));
        let persistent = run(&small_oldi(protocol, "connections = \"persistent\"\n"));
        // The same messages, in the same order, with the same starts and deadlines.
        let key = |r: &RunResults| -> Vec<(u32, u32, u64, u64, u64)> {
            r.flows
                .iter()
                .map(|f| (f.src, f.dst, f.size_bytes.unwrap(), f.start_s.to_bits(), f.deadline_s.unwrap().to_bits()))
                .collect()
        };
        assert_eq!(key(&persistent), key(&fresh), "{protocol}");
        let s = &persistent.summary;
        assert_eq!(s.flows_completed, s.flows, "{protocol}: every message finished");
        for f in &persistent.flows {
            let finish = f.finish_s.expect("finished");
            assert!(finish > f.start_s, "{protocol}: {f:?}");
            assert_eq!(f.delivered_bytes, f.size_bytes.unwrap(), "{protocol}: {f:?}");
            assert_eq!(f.met_deadline, Some(finish <= f.deadline_s.unwrap()), "{protocol}: {f:?}");
        }
        // The connection's counters are shared out among its messages, none lost or doubled.
        let timeouts: u64 = persistent.flows.iter().map(|f| u64::from(f.timeouts)).sum();
        assert_eq!(timeouts, s.timeouts, "{protocol}");
        // One handshake per (leaf, parent) pair instead of one per message.
        assert!(s.packets_sent < fresh.summary.packets_sent, "{protocol}: {} >= {}", s.packets_sent, fresh.summary.packets_sent);
    }
}

/// One leaf answering its parent with 20 KB messages, a query every 2 ms on average, on a
/// 10 Gbps star (no other traffic, no handshake). The path holds about 52 KB, more than a
/// message, so its completion time is set by the window, not by the link rate.
fn one_leaf(connections: &str) -> RunResults {
    run(&format!(
        "seed = 5\n[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"10us\"\n\
         [transport]\nprotocol = \"dctcp\"\nmin_rto = \"10ms\"\n\
         [[workload]]\nkind = \"oldi\"\nfan_in = 1\ntrees_per_app = 1\nquery_rate = 500.0\n\
         message_sizes = [\"20KB\"]\ndeadlines = [\"20ms\"]\nstop = \"40ms\"\nconnections = \"{connections}\"\n\
         [run]\nduration = \"100ms\"\n"
    ))
}

/// Median completion time of the messages after the first, seconds.
fn median_fct_after_first(r: &RunResults) -> f64 {
    let mut fct: Vec<f64> = r.flows.iter().skip(1).map(|f| f.finish_s.unwrap() - f.start_s).collect();
    assert!(fct.len() >= 10, "only {} messages", fct.len());
    fct.sort_by(f64::total_cmp);
    fct[fct.len() / 2]
}

#[test]
fn warmed_persistent_connection_sends_a_20kb_message_in_fewer_round_trips() {
    let fresh = median_fct_after_first(&one_leaf("per-message"));
    let warm = median_fct_after_first(&one_leaf("persistent"));
    // A round trip: 4 hops of 10 us, and a 1500-byte frame serialized at 10 Gbps (1.2 us) at
    // the sender and at the switch.
    let rtt = 4.0 * 10e-6 + 2.0 * 1.2e-6;
    let (fresh_rtts, warm_rtts) = (fresh / rtt, warm / rtt);
    // Fresh: 14 segments from a window of 2 take 3 round trips (2, 4, 8); warmed: one window.
    assert!(fresh_rtts > 2.5, "fresh connection: {fresh_rtts:.2} round trips");
    assert!(warm_rtts < fresh_rtts - 1.0, "warmed {warm_rtts:.2} vs fresh {fresh_rtts:.2} round trips");
}

/// pFabric keeps connections too (docs/pfabric.md, "Persistent connections"): each (leaf, parent)
/// pair's messages share one pFabric connection, every message keeps its row and finishes, and
/// the run conserves packets.
#[test]
fn persistent_pfabric_oldi_runs_every_message_on_one_connection_per_pair() {
    // The small OLDI scenario on a 10 Gbps fabric of 1 us links, which pFabric's defaults suit.
    let pfabric = |connections: &str| {
        small_oldi("pfabric", connections)
            .replace("hosts_per_rack = 20\n", "hosts_per_rack = 20\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n")
            .replace("stop = \"30ms\"", "stop = \"10ms\"")
    };
    let fresh = run(&pfabric(""));
    let persistent = run(&pfabric("connections = \"persistent\"\n"));
    let key = |r: &RunResults| -> Vec<(u32, u32, u64, u64)> {
        r.flows.iter().map(|f| (f.src, f.dst, f.size_bytes.unwrap(), f.start_s.to_bits())).collect()
    };
    assert_eq!(key(&persistent), key(&fresh));
    let s = &persistent.summary;
    assert_eq!(s.flows_completed, s.flows, "every message finished");
    for f in &persistent.flows {
        assert_eq!(f.delivered_bytes, f.size_bytes.unwrap(), "{f:?}");
    }
    let timeouts: u64 = persistent.flows.iter().map(|f| u64::from(f.timeouts)).sum();
    assert_eq!(timeouts, s.timeouts);
    // The same messages, sent otherwise: the runs differ.
    assert_ne!(fingerprint(&persistent), fingerprint(&fresh));
}
