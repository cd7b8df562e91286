//! Engine speed and memory on fixed scenarios, without Python in the way: (a) star incast, DCTCP,
//! 40 senders, responses uniform in [2 KB, 50 KB], 200 rounds; (b) two-tier 25 x 40 hosts,
//! DCTCP, OLDI-like fan-in traffic for 0.5 simulated seconds; (c) the star incast of (a) under D3
//! with the paper's settings (rate requests, router allocators at every switch port).
//! Prints the median of several runs. Run with `cargo bench -p incast-sim --bench engine`.

use incast_proto::tcp::{Stack, TcpConfig};
use incast_proto::time::{BitsPerSec, Duration};
use incast_sim::scenario::*;

/// DCTCP on the D3 testbed's TCP with a 10 ms minimum RTO.
fn transport() -> TransportSpec {
    let tcp = TcpConfig { min_rto: Duration::from_ms(10), ..TcpConfig::default() };
    TransportSpec { protocol: Protocol::Dctcp, tcp, ..TransportSpec::for_stack(Stack::D3Testbed) }
}

/// (a) Star incast.
fn star_incast() -> Scenario {
    let link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(10) };
    let burst = FlowBurstWorkload {
        size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
        deadline: Some(DeadlineDist::Exponential { mean: Duration::from_ms(20), min: Duration::ZERO }),
        rounds: 200,
        round_starts: RoundStarts::AfterCompletion { gap: Duration::from_us(100) },
        ..FlowBurstWorkload::new(0, (1..=40).collect())
    };
    Scenario {
        switch: SwitchSpec { buffer: BufferSpec::PerPort { bytes: 128_000 }, ..SwitchSpec::default() },
        transport: transport(),
        ..Scenario::new(TopologySpec::Star { hosts: 41, link }, vec![burst.into()])
    }
}

/// (c) The star incast of (a) under D3, the paper's router settings (`D3Spec::default`).
fn star_incast_d3() -> Scenario {
    let mut s = star_incast();
    s.transport.protocol = Protocol::D3;
    s
}

/// (b) Two-tier OLDI-like: 100 aggregation trees, each a parent and 40 leaves on random hosts
/// answering 2-18 KB, closed-loop rounds with a 2 ms think time (about 10-20% of host capacity).
fn two_tier_oldi() -> Scenario {
    let host_link = LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(20) };
    let fabric_link = LinkSpec { rate: BitsPerSec(40_000_000_000), delay: Duration::from_us(20) };
    let mut state = 12345u64;
    let mut next = move |n: u32| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(n)) as u32
    };
    let workloads = (0..100)
        .map(|_| {
            let parent = next(1000);
            let workers = (0..40).map(|_| loop { let h = next(1000); if h != parent { break h; } }).collect();
            FlowBurstWorkload {
                size: SizeDist::Uniform { lo: 2_000, hi: 18_000 },
                deadline: Some(DeadlineDist::Fixed(Duration::from_ms(30))),
                rounds: 10_000,
                round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(2) },
                ..FlowBurstWorkload::new(parent, workers)
            }
            .into()
        })
        .collect();
    let topology = TopologySpec::TwoTier { racks: 25, hosts_per_rack: 40, host_link, fabric_link };
    Scenario {
        switch: SwitchSpec {
            buffer: BufferSpec::Shared { bytes: 4_000_000, alpha: 1.0 },
            core_buffer: Some(BufferSpec::PerPort { bytes: 100_000_000 }),
            ..SwitchSpec::default()
        },
        transport: transport(),
        run: RunSpec { duration: Some(Duration::from_ms(500)), ..RunSpec::default() },
        ..Scenario::new(topology, workloads)
    }
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let repeats: usize = std::env::var("INCAST_BENCH_REPEAT").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    for (name, scenario) in [("a-star-incast", star_incast()), ("b-two-tier-oldi", two_tier_oldi()), ("c-star-incast-d3", star_incast_d3())] {
        if only.as_deref().is_some_and(|o| !name.starts_with(o)) {
            continue;
        }
        let (mut eps, mut hps, mut sps, mut wall) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..repeats {
            let t0 = std::time::Instant::now();
            let r = incast_sim::run(&scenario).expect("bench scenario is valid");
            let w = t0.elapsed().as_secs_f64();
            eps.push(r.summary.events as f64 / w);
            hps.push(r.summary.packet_hops as f64 / w);
            sps.push(r.summary.sim_time_s / w);
            wall.push(w);
            last = Some(r.summary);
        }
        let s = last.expect("at least one repeat");
        println!(
            "{name}: median of {repeats}: wall {:.3} s, {:.2} M events/s, {:.2} M packet-hops/s, {:.3} sim-s/wall-s; events {}, hops {}, flows {}, app_throughput {:?}, peak RSS {:.0} MiB",
            median(wall),
            median(eps) / 1e6,
            median(hps) / 1e6,
            median(sps),
            s.events,
            s.packet_hops,
            s.flows,
            s.app_throughput,
            peak_rss_mib()
        );
    }
}
