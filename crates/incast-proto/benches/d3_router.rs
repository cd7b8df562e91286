//! Speed of the D3 per-port allocator (D3, SIGCOMM 2011, Snippet 1): nanoseconds per
//! `Router::handle_request`. The paper's software router spent 0.208 µs per packet (Section 5,
//! "Router overhead"), parsing and forwarding included; the target here is under 20 ns.
//!
//! A trace of requests is recorded once from 256 simulated flows, 10 % of them with deadlines,
//! that start, ask every RTT with a changing desired rate, sometimes behind an upstream cap, and
//! finish, echoing back what the router gave them as real hosts do. The trace is then replayed
//! into fresh copies of the same router, which answers exactly as when it was recorded, so the
//! timed loop contains only `handle_request` and the counters stay realistic. Prints the median
//! over repeated replays. Run with `cargo bench -p incast-proto --bench d3_router`.

use std::hint::black_box;
use std::time::Instant as WallClock;

use incast_proto::d3::{RateRequest, Router, RouterConfig};
use incast_proto::time::{BitsPerSec, Instant};

/// Requests per replay.
const REQUESTS: usize = 1 << 16;
/// Simulated flows sharing the port.
const FLOWS: usize = 256;
/// Timed replays; the median is reported.
const REPLAYS: usize = 201;

/// A small deterministic generator (SplitMix64), so the bench needs no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One flow as its host sees it: live or not, whether it has a deadline, and what it last asked
/// for and was given.
#[derive(Clone, Copy, Default)]
struct Flow {
    live: bool,
    deadline: bool,
    desired: u64,
    alloc: u64,
}

/// Records `REQUESTS` requests from `FLOWS` flows against `router`.
fn record(router: &mut Router) -> Vec<RateRequest> {
    let mut rng = SplitMix(0xD3);
    let mut flows = [Flow::default(); FLOWS];
    let mut trace = Vec::with_capacity(REQUESTS);
    while trace.len() < REQUESTS {
        let f = &mut flows[rng.below(FLOWS as u64) as usize];
        let upstream_min = (rng.below(4) == 0).then(|| 1_000_000 + rng.below(200_000_000));
        let req = if !f.live {
            f.live = true;
            f.deadline = rng.below(10) == 0;
            f.desired = if f.deadline {
                1_000_000 + rng.below(20_000_000)
            } else {
                0
            };
            RateRequest {
                syn: true,
                desired: f.desired,
                upstream_min,
                ..RateRequest::default()
            }
        } else if rng.below(20) == 0 {
            f.live = false;
            RateRequest {
                fin: true,
                prev_desired: f.desired,
                prev_alloc: f.alloc,
                ..RateRequest::default()
            }
        } else {
            let prev_desired = f.desired;
            if f.deadline {
                f.desired = rng.below(40_000_000);
            }
            RateRequest {
                desired: f.desired,
                prev_desired,
                prev_alloc: f.alloc,
                upstream_min,
                ..RateRequest::default()
            }
        };
        f.alloc = router.handle_request(&req);
        trace.push(req);
    }
    trace
}

/// Replays `trace` into fresh copies of `fresh` and prints the median nanoseconds per request.
fn time_replays(label: &str, fresh: &Router, trace: &[RateRequest]) {
    let mut per_request_ns = Vec::with_capacity(REPLAYS);
    let mut checksum = 0u64;
    for _ in 0..REPLAYS {
        let mut router = fresh.clone();
        let start = WallClock::now();
        for req in trace {
            checksum = checksum.wrapping_add(router.handle_request(black_box(req)));
        }
        let elapsed = start.elapsed();
        black_box(router.counters());
        per_request_ns.push(elapsed.as_nanos() as f64 / REQUESTS as f64);
    }
    per_request_ns.sort_by(f64::total_cmp);
    let median = per_request_ns[REPLAYS / 2];
    let (fastest, slowest) = (per_request_ns[0], per_request_ns[REPLAYS - 1]);
    let end = {
        let mut router = fresh.clone();
        trace.iter().for_each(|req| {
            router.handle_request(req);
        });
        router.counters()
    };
    println!(
        "d3_router handle_request ({label}): median {median:.2} ns/request \
         (fastest {fastest:.2}, slowest {slowest:.2}) over {REPLAYS} replays of {REQUESTS} \
         requests from {FLOWS} flows; paper: 208 ns/packet"
    );
    println!(
        "  final counters: N = {}, D = {} B/s, A = {} B/s, C = {} B/s (checksum {checksum})",
        end.flows, end.demand, end.allocated, end.capacity
    );
}

/// The router as the paper prints it (the default), then with incast's repairs (time slices and
/// the carried remainder add work per request), each replaying a trace recorded against itself.
fn main() {
    let configs = [
        ("paper", RouterConfig::for_link(BitsPerSec::GBPS)),
        ("repaired", RouterConfig::repaired(BitsPerSec::GBPS)),
    ];
    for (label, config) in configs {
        let fresh = Router::new(config, Instant::ZERO);
        let trace = record(&mut fresh.clone());
        time_replays(label, &fresh, &trace);
    }
}
