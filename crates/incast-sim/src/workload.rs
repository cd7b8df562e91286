//! Turns workload specifications into the flows of a run: D3's flow-burst microbenchmark (with
//! closed-loop rounds), long-lived background flows, Poisson arrivals and explicit lists / traces.

use incast_proto::time::{Duration, Instant};

use crate::rng::Rng;
use crate::scenario::{DeadlineDist, FlowOptions, Protocol, SizeDist, WorkloadSpec};

/// A flow as planned before the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FlowPlan {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    /// `None` for a long-lived flow.
    pub(crate) size_bytes: Option<u64>,
    /// `None` while the flow waits for its round to begin.
    pub(crate) start: Option<Instant>,
    /// Deadline relative to the start.
    pub(crate) deadline: Option<Duration>,
    pub(crate) protocol: Option<Protocol>,
    pub(crate) priority: u8,
    pub(crate) workload: u32,
    pub(crate) round: u32,
}

/// A flow-burst workload's rounds: round r holds flows `first + r*per_round ..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rounds {
    pub(crate) first_flow: u32,
    pub(crate) per_round: u32,
    pub(crate) rounds: u32,
    pub(crate) gap: Duration,
}

/// Every flow of a run plus the round structure of its flow-burst workloads.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) flows: Vec<FlowPlan>,
    pub(crate) rounds: Vec<Rounds>,
}

/// Expands `workloads`; workload i draws from random stream i of `seed`.
pub(crate) fn plan(workloads: &[WorkloadSpec], seed: u64) -> Plan {
    let mut out = Plan::default();
    for (w, spec) in workloads.iter().enumerate() {
        let mut rng = Rng::new(seed, w as u64);
        let w = w as u32;
        let flow = |src, dst, size_bytes, start, deadline, options: &FlowOptions, round| FlowPlan {
            src,
            dst,
            size_bytes,
            start,
            deadline,
            protocol: options.protocol,
            priority: options.priority,
            workload: w,
            round,
        };
        match spec {
            WorkloadSpec::FlowBurst { aggregator, workers, size, deadline, start, rounds, round_gap, options } => {
                out.rounds.push(Rounds {
                    first_flow: out.flows.len() as u32,
                    per_round: workers.len() as u32,
                    rounds: *rounds,
                    gap: *round_gap,
                });
                for round in 0..*rounds {
                    let at = (round == 0).then_some(*start);
                    for &worker in workers {
                        let s = sample_size(size, &mut rng);
                        let d = deadline.as_ref().map(|d| sample_deadline(d, &mut rng));
                        out.flows.push(flow(worker, *aggregator, Some(s), at, d, options, round));
                    }
                }
            }
            WorkloadSpec::LongFlows { pairs, start, options } => {
                for &(src, dst) in pairs {
                    out.flows.push(flow(src, dst, None, Some(*start), None, options, 0));
                }
            }
            WorkloadSpec::Poisson { rate_per_sec, hosts, size, deadline, start, stop, options } => {
                let mut t = start.as_secs_f64();
                loop {
                    t += rng.exponential(1.0 / rate_per_sec);
                    let at = Instant::ZERO + Duration::from_secs_f64(t);
                    if at >= *stop {
                        break;
                    }
                    let src = hosts[rng.index(hosts.len())];
                    let mut dst = hosts[rng.index(hosts.len() - 1)];
                    if dst == src {
                        // Draw among the others: map the source's slot to the last host.
                        dst = hosts[hosts.len() - 1];
                    }
                    let s = sample_size(size, &mut rng);
                    let d = deadline.as_ref().map(|d| sample_deadline(d, &mut rng));
                    out.flows.push(flow(src, dst, Some(s), Some(at), d, options, 0));
                }
            }
            WorkloadSpec::Flows { flows, options } => {
                for f in flows {
                    out.flows.push(flow(f.src, f.dst, f.size_bytes, Some(f.start), f.deadline, options, 0));
                }
            }
        }
    }
    out
}

/// Draws a flow size, at least one byte.
pub(crate) fn sample_size(dist: &SizeDist, rng: &mut Rng) -> u64 {
    let s = match *dist {
        SizeDist::Fixed(s) => s,
        SizeDist::Uniform { lo, hi } => rng.uniform_u64(lo, hi),
        SizeDist::Exponential { mean } => rng.exponential(mean as f64).ceil() as u64,
        SizeDist::Cdf(ref points) => sample_cdf(points, rng.unit()),
    };
    s.max(1)
}

/// Inverse of a piecewise-linear CDF given as (size, cumulative probability) points.
fn sample_cdf(points: &[(u64, f64)], u: f64) -> u64 {
    let mut prev = (0u64, 0.0f64);
    for &(size, p) in points {
        if u <= p {
            if p <= prev.1 {
                return size;
            }
            let frac = (u - prev.1) / (p - prev.1);
            return prev.0 + ((size - prev.0.min(size)) as f64 * frac).round() as u64;
        }
        prev = (size, p);
    }
    prev.0
}

/// Draws a relative deadline.
pub(crate) fn sample_deadline(dist: &DeadlineDist, rng: &mut Rng) -> Duration {
    match *dist {
        DeadlineDist::Fixed(d) => d,
        DeadlineDist::Uniform { lo, hi } => Duration::from_ps(rng.uniform_u64(lo.as_ps(), hi.as_ps())),
        DeadlineDist::Exponential { mean, min } => {
            let d = Duration::from_ps(rng.exponential(mean.as_ps() as f64).round() as u64);
            d.max(min).max(Duration::from_ps(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn burst(rounds: u32) -> WorkloadSpec {
        WorkloadSpec::FlowBurst {
            aggregator: 0,
            workers: vec![1, 2, 1],
            size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
            deadline: Some(DeadlineDist::Exponential { mean: Duration::from_ms(20), min: Duration::ZERO }),
            start: Instant::ZERO,
            rounds,
            round_gap: Duration::from_ms(1),
            options: FlowOptions { protocol: None, priority: 0 },
        }
    }

    #[test]
    fn flow_burst_rounds_wait_for_their_barrier() {
        let p = plan(&[burst(3)], 1);
        assert_eq!(p.flows.len(), 9);
        assert!(p.flows[..3].iter().all(|f| f.start == Some(Instant::ZERO) && f.round == 0));
        assert!(p.flows[3..].iter().all(|f| f.start.is_none()));
        assert_eq!(p.rounds[0], Rounds { first_flow: 0, per_round: 3, rounds: 3, gap: Duration::from_ms(1) });
        assert!(p.flows.iter().all(|f| f.dst == 0 && (2_000..=50_000).contains(&f.size_bytes.unwrap())));
    }

    #[test]
    fn plans_are_deterministic_per_seed() {
        assert_eq!(plan(&[burst(2)], 5).flows, plan(&[burst(2)], 5).flows);
        assert_ne!(plan(&[burst(2)], 5).flows, plan(&[burst(2)], 6).flows);
    }

    #[test]
    fn poisson_never_sends_to_self_and_stops_in_time() {
        let spec = WorkloadSpec::Poisson {
            rate_per_sec: 10_000.0,
            hosts: vec![3, 4, 5],
            size: SizeDist::Fixed(1000),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(100),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let p = plan(&[spec], 2);
        assert!((800..1200).contains(&p.flows.len()), "{} arrivals", p.flows.len());
        assert!(p.flows.iter().all(|f| f.src != f.dst && f.start.unwrap() < Instant::ZERO + Duration::from_ms(100)));
        assert!(p.flows.windows(2).all(|w| w[0].start <= w[1].start));
    }

    #[test]
    fn cdf_sampling_interpolates() {
        let pts = [(1_000, 0.5), (3_000, 1.0)];
        assert_eq!(sample_cdf(&pts, 0.25), 500);
        assert_eq!(sample_cdf(&pts, 0.75), 2_000);
        assert_eq!(sample_cdf(&pts, 1.0), 3_000);
    }
}
