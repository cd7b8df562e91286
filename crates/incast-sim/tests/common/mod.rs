//! Scenario builders and checks shared by the integration tests.
#![allow(dead_code, missing_docs, unreachable_pub)]

use incast_proto::tcp::{Stack, TcpConfig};
use incast_proto::time::{BitsPerSec, Duration, Instant};
use incast_sim::results::RunResults;
use incast_sim::scenario::*;

pub const GBPS: BitsPerSec = BitsPerSec::GBPS;

pub fn star(hosts: u32) -> TopologySpec {
    TopologySpec::Star { hosts, link: LinkSpec { rate: GBPS, delay: Duration::from_us(10) } }
}

pub fn options() -> FlowOptions {
    FlowOptions { protocol: None, priority: 0 }
}

pub fn scenario(topology: TopologySpec, protocol: Protocol, buffer_bytes: u64, workloads: Vec<WorkloadSpec>) -> Scenario {
    Scenario {
        seed: 1,
        topology,
        switch: SwitchSpec { buffer: BufferSpec::PerPort { bytes: buffer_bytes }, core_buffer: None, ecn: EcnSpec::Auto, priority_classes: 1, host_nic: HostNic::Backlog, load_balancing: LoadBalancing::Ecmp },
        transport: TransportSpec { protocol, stack: Stack::D3Testbed, tcp: TcpConfig::default(), dctcp_g: 1.0 / 16.0, dctcp_initial_alpha: 1.0 },
        sections: ProtocolSections::default(),
        workloads,
        run: RunSpec::default(),
        output: OutputSpec::default(),
    }
}

/// Hosts 1..=`workers` answer host 0 with `size_bytes` each at once, `rounds` closed-loop rounds
/// 1 ms apart.
pub fn burst_into_host0(workers: u32, size_bytes: u64, rounds: u32, deadline: Option<DeadlineDist>) -> WorkloadSpec {
    WorkloadSpec::FlowBurst {
        aggregator: 0,
        workers: (1..=workers).collect(),
        size: SizeDist::Fixed(size_bytes),
        deadline,
        start: Instant::ZERO,
        rounds,
        round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(1) },
        options: options(),
    }
}

/// `n` long-lived flows from hosts 1..=n into host 0.
pub fn long_flows_into_host0(n: u32) -> WorkloadSpec {
    WorkloadSpec::LongFlows { pairs: (1..=n).map(|s| (s, 0)).collect(), start: Instant::ZERO, options: options() }
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
