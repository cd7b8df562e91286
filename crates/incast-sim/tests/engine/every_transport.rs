//! What every transport in the registry gets tested for, without a line of its own: on small
//! incasts drawn at random (senders, sizes, buffers, link rates, seeds), run through the whole
//! engine with the transport's own endpoints, headers, processors and disciplines,
//!
//! - packet conservation: every packet sent is delivered, dropped, or still in the network, and
//!   every drop happened at some port;
//! - complete, in-order delivery: every flow ends with its receiver holding exactly its bytes in
//!   order (the engine counts delivery by in-order bytes; no flow has a deadline, so none may give
//!   up);
//! - determinism: the same scenario run twice gives the same flows, ports and summary.
//!
//! A transport added to `incast_scenario::for_each_transport!` is in `Protocol::ALL`, so it runs
//! here with its sections' defaults (docs/adding-a-transport.md).

use incast_sim::results::{RunResults, Summary};
use incast_sim::scenario::{parse_toml, Protocol};
use proptest::prelude::*;

/// An incast of `senders` flows of `size` bytes into host 0 of a star, one round, on switch
/// buffers of `buffer` packets, links of `gbps`, under `protocol` with its defaults (a 1 ms
/// minimum RTO, so that losses recover in simulated milliseconds).
fn incast(protocol: Protocol, senders: u32, size: u64, buffer: u32, gbps: u32, seed: u64) -> String {
    format!(
        r#"
seed = {seed}
[topology]
kind = "star"
hosts = {hosts}
link_rate = "{gbps}Gbps"
link_delay = "2us"
[switch]
buffer = "{buffer}pkts"
priority_classes = 8
[transport]
protocol = "{name}"
min_rto = "1ms"
[[workload]]
kind = "flow-burst"
senders = {senders}
size = "{size}B"
rounds = 1
[run]
horizon = "10s"
"#,
        hosts = senders + 1,
        name = protocol.name(),
    )
}

fn run(text: &str) -> RunResults {
    let scenario = parse_toml(text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    incast_sim::run(&scenario).expect("runs")
}

/// The summary without what depends on the machine.
fn counts(s: &Summary) -> Summary {
    Summary { wall_time_s: 0.0, ..s.clone() }
}

/// The three properties, for one scenario.
fn check(protocol: Protocol, text: &str) -> Result<(), TestCaseError> {
    let r = run(text);
    let s = &r.summary;
    prop_assert!(!s.stopped_at_horizon, "{protocol:?}: stopped at the horizon\n{text}");
    prop_assert_eq!(s.packets_sent, s.packets_delivered + s.packets_dropped + s.packets_in_network, "{:?}: conservation", protocol);
    prop_assert_eq!(r.ports.iter().map(|p| p.drops).sum::<u64>(), s.packets_dropped, "{:?}: drops at ports", protocol);
    for f in &r.flows {
        let size = f.size_bytes.expect("finite flows");
        prop_assert!(f.finish_s.is_some(), "{:?}: flow {} of {} B never finished\n{}", protocol, f.flow_id, size, text);
        prop_assert_eq!(f.delivered_bytes, size, "{:?}: flow {} delivered {} B in order", protocol, f.flow_id, f.delivered_bytes);
        prop_assert!(!f.quenched, "{:?}: flow {} given up without a deadline", protocol, f.flow_id);
    }
    let again = run(text);
    prop_assert!(again.flows == r.flows && again.ports == r.ports, "{:?}: a second run differs", protocol);
    prop_assert_eq!(counts(&again.summary), counts(s), "{:?}: a second run's summary differs", protocol);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_transport_conserves_packets_delivers_in_order_and_repeats_itself(
        senders in 1u32..=12,
        size in 1u64..=150_000,
        buffer in 8u32..=100,
        gbps in prop::sample::select(vec![1u32, 10]),
        seed in 0u64..1_000,
    ) {
        for &protocol in Protocol::ALL {
            check(protocol, &incast(protocol, senders, size, buffer, gbps, seed))?;
        }
    }
}

/// Every registered protocol runs here: the list is the registry's, not this file's.
#[test]
fn every_registered_protocol_is_exercised() {
    let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
    assert!(names.len() >= 8 && names.contains(&"pfabric") && names.contains(&"pdq"), "{names:?}");
}
