//! Scenario builders and checks shared by the integration tests.
#![allow(dead_code, missing_docs, unreachable_pub)]

use incast_proto::tcp::Stack;
use incast_proto::time::{BitsPerSec, Duration};
use incast_sim::results::RunResults;
use incast_sim::scenario::*;

pub const GBPS: BitsPerSec = BitsPerSec::GBPS;

pub fn star(hosts: u32) -> TopologySpec {
    TopologySpec::Star { hosts, link: LinkSpec { rate: GBPS, delay: Duration::from_us(10) } }
}

/// `workloads` on `topology`, their flows on `protocol` over the D3 testbed's TCP, every switch
/// port holding `buffer_bytes`; the rest as a scenario file leaves it.
pub fn scenario(topology: TopologySpec, protocol: Protocol, buffer_bytes: u64, workloads: Vec<WorkloadSpec>) -> Scenario {
    Scenario {
        switch: SwitchSpec { buffer: BufferSpec::PerPort { bytes: buffer_bytes }, ..SwitchSpec::default() },
        transport: TransportSpec { protocol, ..TransportSpec::for_stack(Stack::D3Testbed) },
        ..Scenario::new(topology, workloads)
    }
}

/// Hosts 1..=`workers` answer host 0 with `size_bytes` each at once, `rounds` closed-loop rounds
/// 1 ms apart.
pub fn burst_into_host0(workers: u32, size_bytes: u64, rounds: u32, deadline: Option<DeadlineDist>) -> WorkloadSpec {
    FlowBurstWorkload {
        size: SizeDist::Fixed(size_bytes),
        deadline,
        rounds,
        round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(1) },
        ..FlowBurstWorkload::new(0, (1..=workers).collect())
    }
    .into()
}

/// `n` long-lived flows from hosts 1..=n into host 0.
pub fn long_flows_into_host0(n: u32) -> WorkloadSpec {
    LongFlowsWorkload::new((1..=n).map(|s| (s, 0)).collect()).into()
}

/// Every packet a transport injected is delivered, dropped, or still in the network.
pub fn assert_conservation(r: &RunResults) {
    let s = &r.summary;
    assert_eq!(
        s.packets_sent,
        s.packets_delivered + s.packets_dropped + s.packets_in_network,
        "packet conservation: {s:?}"
    );
}

/// Goodput of all flows as a fraction of `rate` over `[from, to]` seconds, from throughput samples.
pub fn goodput_fraction(r: &RunResults, from_s: f64, to_s: f64, rate: BitsPerSec) -> f64 {
    let tp = r.throughput.as_ref().expect("throughput sampling enabled");
    let at = |t: f64| -> u64 {
        tp.time_s
            .iter()
            .zip(&tp.delivered_bytes)
            .filter(|(ts, _)| (**ts - t).abs() < 1e-9)
            .map(|(_, b)| *b)
            .sum()
    };
    let bytes = at(to_s) - at(from_s);
    bytes as f64 * 8.0 / (to_s - from_s) / rate.0 as f64
}
