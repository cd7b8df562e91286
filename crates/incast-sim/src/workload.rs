//! Turns workload specifications into the flows of a run: D3's flow-burst microbenchmark (with
//! closed- or open-loop rounds, `workload::burst`), long-lived background flows, Poisson arrivals,
//! explicit lists / traces and D2TCP's OLDI applications (`workload::oldi`).

mod burst;
mod oldi;
mod poisson;

pub(crate) use burst::Burst;
pub(crate) use poisson::PoissonSource;
use poisson::PoissonSpec;

use incast_proto::time::{Duration, Instant};

use crate::error::{reserve, ResourceError};
use crate::rng::Rng;
use crate::scenario::{DeadlineDist, FlowOptions, Protocol, SizeDist, WorkloadSpec};

/// A flow as planned before the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FlowPlan {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    /// `None` for a long-lived flow.
    pub(crate) size_bytes: Option<u64>,
    pub(crate) start: Instant,
    /// Deadline relative to the start.
    pub(crate) deadline: Option<Duration>,
    pub(crate) protocol: Option<Protocol>,
    pub(crate) priority: u8,
    pub(crate) workload: u32,
    pub(crate) round: u32,
    /// Application of an OLDI workload's flow.
    pub(crate) app: Option<u32>,
    /// Sent by an OLDI tree's background sender (D2TCP Section 4.2.3).
    pub(crate) background: bool,
    /// The next message of the persistent connection of its (src, dst, protocol), opened by
    /// the first such flow, rather than a connection of its own.
    pub(crate) persistent: bool,
}

impl FlowPlan {
    /// A flow of workload `workload` with its `options`, outside any burst round or OLDI
    /// application.
    fn new(
        workload: u32,
        options: &FlowOptions,
        src: u32,
        dst: u32,
        size_bytes: Option<u64>,
        start: Instant,
        deadline: Option<Duration>,
    ) -> FlowPlan {
        FlowPlan {
            src,
            dst,
            size_bytes,
            start,
            deadline,
            protocol: options.protocol,
            priority: options.priority,
            workload,
            round: 0,
            app: None,
            background: false,
            persistent: false,
        }
    }
}

/// Arrival times of a Poisson process from `start` until `stop`, drawn one at a time so that the
/// caller can interleave its own draws from the same stream.
#[derive(Clone)]
struct Arrivals {
    /// Last arrival, seconds.
    t: f64,
    mean_gap_s: f64,
    stop: Instant,
}

impl Arrivals {
    /// Arrivals `mean_gap_s` seconds apart on average (exponential gaps), the first one gap
    /// after `start`.
    fn new(mean_gap_s: f64, start: Instant, stop: Instant) -> Arrivals {
        Arrivals { t: start.as_secs_f64(), mean_gap_s, stop }
    }

    /// The next arrival, or `None` once it would fall at or after `stop`.
    fn next(&mut self, rng: &mut Rng) -> Option<Instant> {
        self.t += rng.exponential(self.mean_gap_s);
        let at = Instant::ZERO + Duration::from_secs_f64(self.t);
        (at < self.stop).then_some(at)
    }
}

/// The flows of a run: those drawn before it, the Poisson workloads whose arrivals are drawn
/// during it, and the generators of closed-loop flow-burst rounds (indexed by workload; `None`
/// for every other workload, open-loop flow bursts included).
///
/// Flows are numbered in workload order, in start order within each: workload by workload, the
/// flows drawn before the run (`flows`, in order) and the number ranges that `sources` reserve.
#[derive(Default)]
pub(crate) struct Plan {
    pub(crate) flows: Vec<FlowPlan>,
    pub(crate) sources: Vec<LazySource>,
    pub(crate) bursts: Vec<Option<Burst>>,
}

/// A Poisson workload's arrivals with the numbers they take.
pub(crate) struct LazySource {
    pub(crate) arrivals: PoissonSource,
    /// Number of its first flow.
    pub(crate) first: u32,
    /// How many flows it draws.
    pub(crate) count: u64,
    /// How many of `Plan::flows` were planned before it.
    at: usize,
    /// Flows drawn so far.
    drawn: u64,
}

impl LazySource {
    /// The next flow with its number, or `None` once all `count` are drawn.
    pub(crate) fn draw(&mut self) -> Option<(u32, FlowPlan)> {
        let flow = self.arrivals.next()?;
        let number = self.first + self.drawn as u32;
        self.drawn += 1;
        debug_assert!(self.drawn <= self.count, "the count drew the same stream");
        Some((number, flow))
    }

    /// The protocol its flows run, `default` unless the workload names one; `None` if it draws
    /// no flow.
    pub(crate) fn protocol(&self, default: Protocol) -> Option<Protocol> {
        (self.count > 0).then(|| self.arrivals.protocol().unwrap_or(default))
    }
}

impl Plan {
    /// Flows in all, drawn before the run or during it (closed-loop rounds not counted).
    pub(crate) fn total(&self) -> u64 {
        self.flows.len() as u64 + self.sources.iter().map(|s| s.count).sum::<u64>()
    }

    /// The flows drawn before the run with their numbers, in order.
    pub(crate) fn numbered(&self) -> impl Iterator<Item = (u32, &FlowPlan)> + '_ {
        let mut sources = self.sources.iter().peekable();
        let mut skipped = 0u64;
        self.flows.iter().enumerate().map(move |(i, f)| {
            while let Some(s) = sources.next_if(|s| s.at <= i) {
                skipped += s.count;
            }
            ((i as u64 + skipped) as u32, f)
        })
    }

    /// Every flow in number order, the sources drawn out: what an eager plan would hold.
    #[cfg(test)]
    pub(crate) fn expanded(mut self) -> Vec<FlowPlan> {
        let mut all: Vec<(u32, FlowPlan)> = self.numbered().map(|(i, f)| (i, *f)).collect();
        for s in &mut self.sources {
            all.extend(std::iter::from_fn(|| s.draw()));
        }
        all.sort_by_key(|&(i, _)| i);
        all.into_iter().map(|(_, f)| f).collect()
    }
}

/// Where planned flows go: at most `max_flows` of them, however the random draws fall (a
/// Poisson workload's count is only expected to be near the estimate checked at load time).
pub(crate) struct FlowSink<'a> {
    flows: &'a mut Vec<FlowPlan>,
    /// Flows of the sources planned so far, drawn during the run.
    lazy: u64,
    max_flows: u64,
    /// The key of the workload being planned, for the error.
    key: String,
}

impl FlowSink<'_> {
    /// Flows planned so far, drawn before the run or not.
    fn planned(&self) -> u64 {
        self.flows.len() as u64 + self.lazy
    }

    /// The error of a workload that takes the run past `max_flows`.
    fn over_limit(&self) -> ResourceError {
        ResourceError::new(
            self.key.clone(),
            format!(
                "the workloads drew more than the limit of {} flows (`run.max_flows`; raise it to run anyway)",
                self.max_flows
            ),
        )
    }

    /// Adds one flow, or errs once the run holds `max_flows` or memory runs out.
    pub(crate) fn push(&mut self, flow: FlowPlan) -> Result<(), ResourceError> {
        if self.planned() >= self.max_flows {
            return Err(self.over_limit());
        }
        if self.flows.len() == self.flows.capacity() {
            reserve(self.flows, 1, "the planned flows")?;
        }
        self.flows.push(flow);
        Ok(())
    }

    /// Reserves the numbers of `arrivals`' flows, or errs if they take the run past
    /// `max_flows` (counting stops there).
    fn reserve_source(&mut self, arrivals: PoissonSource) -> Result<LazySource, ResourceError> {
        let room = self.max_flows.saturating_sub(self.planned());
        let count = arrivals.count(room.saturating_add(1));
        if count > room {
            return Err(self.over_limit());
        }
        let source = LazySource { arrivals, first: self.planned() as u32, count, at: self.flows.len(), drawn: 0 };
        self.lazy += count;
        Ok(source)
    }
}

/// Expands `workloads`, at most `max_flows` flows in all; workload i draws from random stream i
/// of `seed`. Poisson workloads are counted, not drawn: their flows are drawn as the run
/// reaches them (`workload::poisson`).
pub(crate) fn plan(workloads: &[WorkloadSpec], seed: u64, max_flows: u64) -> Result<Plan, ResourceError> {
    let mut out = Plan::default();
    let mut lazy = 0;
    for (w, spec) in workloads.iter().enumerate() {
        let key = match spec {
            WorkloadSpec::Poisson { from_load: true, .. } => format!("workload[{w}].load"),
            WorkloadSpec::Poisson { .. } => format!("workload[{w}].rate"),
            _ => format!("workload[{w}]"),
        };
        let mut sink = FlowSink { flows: &mut out.flows, lazy, max_flows, key };
        let rng = Rng::new(seed, w as u64);
        let w = w as u32;
        out.bursts.push(None);
        match spec {
            WorkloadSpec::FlowBurst { aggregator, workers, size, deadline, start, rounds, round_starts, options } => {
                let responses = burst::Responses {
                    workload: w,
                    aggregator: *aggregator,
                    workers: workers.clone(),
                    size: size.clone(),
                    deadline: deadline.clone(),
                    options: options.clone(),
                };
                out.bursts[w as usize] = burst::plan(responses, *start, *rounds, *round_starts, rng, &mut sink)?;
            }
            WorkloadSpec::LongFlows { pairs, start, options } => {
                for &(src, dst) in pairs {
                    sink.push(FlowPlan::new(w, options, src, dst, None, *start, None))?;
                }
            }
            WorkloadSpec::Poisson {
                rate_per_sec,
                hosts,
                destinations,
                pattern,
                rack_local,
                size,
                deadline,
                start,
                stop,
                options,
                ..
            } => {
                let spec = PoissonSpec {
                    rate_per_sec: *rate_per_sec,
                    hosts,
                    destinations: destinations.as_deref(),
                    pattern: *pattern,
                    rack_local: rack_local.as_ref(),
                    size,
                    deadline: deadline.as_ref(),
                    start: *start,
                    stop: *stop,
                    options,
                };
                let source = sink.reserve_source(PoissonSource::new(w, &spec, rng))?;
                out.sources.push(source);
            }
            WorkloadSpec::Flows { flows, options } => {
                for f in flows {
                    sink.push(FlowPlan::new(w, options, f.src, f.dst, f.size_bytes, f.start, f.deadline))?;
                }
            }
            WorkloadSpec::Oldi(spec) => oldi::plan(spec, w, rng, &mut sink)?,
        }
        lazy = sink.lazy;
    }
    Ok(out)
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
    use crate::scenario::{RackLocal, RoundStarts, TrafficPattern};

    fn burst(rounds: u32) -> WorkloadSpec {
        WorkloadSpec::FlowBurst {
            aggregator: 0,
            workers: vec![1, 2, 1],
            size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
            deadline: Some(DeadlineDist::Exponential { mean: Duration::from_ms(20), min: Duration::ZERO }),
            start: Instant::ZERO,
            rounds,
            round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(1) },
            options: FlowOptions { protocol: None, priority: 0 },
        }
    }

    #[test]
    fn flow_burst_draws_the_next_round_when_the_last_flow_completes() {
        let mut p = plan(&[burst(3)], 1, u64::MAX).unwrap();
        assert_eq!(p.flows.len(), 3);
        assert!(p.flows.iter().all(|f| f.start == Instant::ZERO && f.round == 0));
        assert!(p.flows.iter().all(|f| f.dst == 0 && (2_000..=50_000).contains(&f.size_bytes.unwrap())));
        let b = p.bursts[0].as_mut().unwrap();
        let t = Instant::ZERO + Duration::from_ms(7);
        let mut next = Vec::new();
        assert!(!b.flow_completed(t, &mut next));
        assert!(!b.flow_completed(t, &mut next));
        assert!(b.flow_completed(t, &mut next));
        assert_eq!(next.len(), 3);
        assert!(next.iter().all(|f| f.round == 1 && f.start == t + Duration::from_ms(1)));
        for _ in 0..3 {
            b.flow_completed(t, &mut next);
        }
        assert!(!b.has_more_rounds());
        for _ in 0..3 {
            assert!(!b.flow_completed(t, &mut next), "no fourth round");
        }
    }

    #[test]
    fn plans_are_deterministic_per_seed() {
        let flows = |seed| plan(&[burst(2)], seed, u64::MAX).unwrap().flows;
        assert_eq!(flows(5), flows(5));
        assert_ne!(flows(5), flows(6));
    }

    #[test]
    fn poisson_never_sends_to_self_and_stops_in_time() {
        let spec = WorkloadSpec::Poisson {
            from_load: false,
            rack_local: None,
            rate_per_sec: 10_000.0,
            hosts: vec![3, 4, 5],
            destinations: None,
            pattern: TrafficPattern::Random,
            size: SizeDist::Fixed(1000),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(100),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let flows = plan(&[spec], 2, u64::MAX).unwrap().expanded();
        assert!((800..1200).contains(&flows.len()), "{} arrivals", flows.len());
        assert!(flows.iter().all(|f| f.src != f.dst && f.start < Instant::ZERO + Duration::from_ms(100)));
        assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
    }

    /// Under `pattern = "permutation"` each sender keeps one partner, never itself, and the
    /// partners form one cycle over the hosts: every host sends to exactly one and receives from
    /// exactly one.
    #[test]
    fn a_permutation_gives_every_host_one_partner_in_one_cycle() {
        let hosts: Vec<u32> = (10..26).collect();
        let spec = WorkloadSpec::Poisson {
            from_load: false,
            rack_local: None,
            rate_per_sec: 20_000.0,
            hosts: hosts.clone(),
            destinations: None,
            pattern: TrafficPattern::Permutation,
            size: SizeDist::Fixed(1000),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(100),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let flows = plan(&[spec], 4, u64::MAX).unwrap().expanded();
        let mut partner = std::collections::HashMap::new();
        for f in &flows {
            assert_ne!(f.src, f.dst);
            assert_eq!(*partner.entry(f.src).or_insert(f.dst), f.dst, "host {} changed partner", f.src);
        }
        assert_eq!(partner.len(), hosts.len(), "every host sent");
        let mut receivers: Vec<u32> = partner.values().copied().collect();
        receivers.sort_unstable();
        assert_eq!(receivers, hosts, "every host receives from exactly one");
        let (mut at, mut steps) = (hosts[0], 0);
        loop {
            at = partner[&at];
            steps += 1;
            if at == hosts[0] {
                break;
            }
        }
        assert_eq!(steps, hosts.len(), "one cycle through every host");
    }

    #[test]
    fn poisson_with_destinations_sends_only_to_them_and_never_to_self() {
        let spec = WorkloadSpec::Poisson {
            from_load: false,
            rack_local: None,
            rate_per_sec: 10_000.0,
            hosts: vec![0, 1, 2],
            destinations: Some(vec![0, 1]),
            pattern: TrafficPattern::Random,
            size: SizeDist::Fixed(1000),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(100),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let flows = plan(&[spec], 3, u64::MAX).unwrap().expanded();
        assert!(flows.iter().all(|f| [0, 1].contains(&f.dst) && f.src != f.dst));
        // Host 2 sends to both, hosts 0 and 1 only to each other: every pair shows up.
        for pair in [(0, 1), (1, 0), (2, 0), (2, 1)] {
            assert!(flows.iter().any(|f| (f.src, f.dst) == pair), "{pair:?}");
        }
    }

    /// With `rack_local = 0.3` on 4 racks of 4 hosts, 30% of flows stay in their sender's rack
    /// (within 4 standard errors), none goes to its sender, and every host of another rack is a
    /// destination about equally often.
    #[test]
    fn rack_local_share_of_flows_stays_in_the_rack() {
        let racks: Vec<u32> = (0..16).map(|h| h / 4).collect();
        let spec = WorkloadSpec::Poisson {
            from_load: false,
            rack_local: Some(RackLocal { share: 0.3, racks: racks.clone() }),
            rate_per_sec: 1e6,
            hosts: (0..16).collect(),
            destinations: None,
            pattern: TrafficPattern::Random,
            size: SizeDist::Fixed(1000),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(40),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let flows = plan(&[spec], 5, u64::MAX).unwrap().expanded();
        let n = flows.len() as f64;
        assert!(flows.iter().all(|f| f.src != f.dst));
        let local = flows.iter().filter(|f| racks[f.src as usize] == racks[f.dst as usize]).count() as f64;
        let se = (0.3 * 0.7 / n).sqrt();
        assert!((local / n - 0.3).abs() < 4.0 * se, "{} of {n} flows rack-local", local / n);
        // From host 0 (rack 0), remote flows spread over hosts 4..16.
        let remote: Vec<u32> = flows.iter().filter(|f| f.src == 0 && f.dst >= 4).map(|f| f.dst).collect();
        let per_host = remote.len() as f64 / 12.0;
        for h in 4..16 {
            let k = remote.iter().filter(|&&d| d == h).count() as f64;
            assert!((k - per_host).abs() < 4.0 * per_host.sqrt(), "host {h}: {k} of {} remote flows", remote.len());
        }
    }

    #[test]
    fn poisson_generation_stops_at_the_flow_limit_whatever_the_draws() {
        let mut spec = WorkloadSpec::Poisson {
            from_load: false,
            rack_local: None,
            rate_per_sec: 1e6,
            hosts: vec![0, 1],
            destinations: None,
            pattern: TrafficPattern::Random,
            size: SizeDist::Fixed(1000),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(10),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        assert!(plan(std::slice::from_ref(&spec), 1, 20_000).is_ok());
        let e = plan(std::slice::from_ref(&spec), 1, 1_000).err().expect("10 000 expected arrivals pass a limit of 1000");
        assert_eq!(e.path, "workload[0].rate");
        assert!(e.message.contains("limit of 1000 flows (`run.max_flows`"), "{e}");
        // A rate that came from `load` is blamed on that key.
        let WorkloadSpec::Poisson { from_load, .. } = &mut spec else { unreachable!() };
        *from_load = true;
        assert_eq!(plan(&[spec], 1, 1_000).err().expect("over the limit").path, "workload[0].load");
    }

    /// The sizes drawn from each shipped distribution average to the mean its file states and
    /// `load` divides by (`SizeDist::mean_bytes`), within four standard errors of 400,000 draws.
    #[test]
    fn named_distributions_draw_their_stated_means() {
        use crate::scenario::named_sizes;
        for (k, name) in named_sizes::NAMES.iter().enumerate() {
            let dist = named_sizes::distribution("size", name).unwrap();
            let mut rng = Rng::new(7, k as u64);
            let n = 400_000;
            let draws: Vec<f64> = (0..n).map(|_| sample_size(&dist, &mut rng) as f64).collect();
            let mean = draws.iter().sum::<f64>() / n as f64;
            let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let se = (var / n as f64).sqrt();
            let want = dist.mean_bytes();
            assert!((mean - want).abs() < 4.0 * se, "{name}: drew a mean of {mean} B, stated {want} B (se {se})");
        }
    }

    /// A Poisson workload at the rate `load = 0.5` implies for 16 senders at 10 Gbps in web-search
    /// flows (the scenario tests check that arithmetic) offers half of those links' bytes over a
    /// second of arrivals, within four standard deviations of a compound Poisson total
    /// (sqrt(rate x T x E[size^2])).
    #[test]
    fn poisson_at_a_load_offers_that_load() {
        use crate::scenario::named_sizes;
        let size = named_sizes::distribution("size", "web-search").unwrap();
        let (load, senders, link_bps, seconds) = (0.5, 16usize, 10e9, 1.0);
        let rate = load * senders as f64 * link_bps / (8.0 * size.mean_bytes());
        let spec = WorkloadSpec::Poisson {
            from_load: false,
            rack_local: None,
            rate_per_sec: rate,
            hosts: (0..senders as u32).collect(),
            destinations: None,
            pattern: TrafficPattern::Random,
            size,
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(1000),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let flows = plan(&[spec], 11, u64::MAX).unwrap().expanded();
        let sizes: Vec<f64> = flows.iter().map(|f| f.size_bytes.unwrap() as f64).collect();
        let offered: f64 = sizes.iter().sum();
        let requested = load * senders as f64 * link_bps / 8.0 * seconds;
        let second_moment = sizes.iter().map(|s| s * s).sum::<f64>() / sizes.len() as f64;
        let sd = (rate * seconds * second_moment).sqrt();
        assert!(
            (offered - requested).abs() < 4.0 * sd,
            "offered {offered} B against {requested} B requested (sd {sd} B, {} flows)",
            sizes.len()
        );
    }

    /// A Poisson workload between two lists keeps the numbers an eager plan gave: its flows take
    /// the range after the first list's, the second list's come after them.
    #[test]
    fn poisson_flows_are_numbered_in_workload_order_though_drawn_later() {
        let list = |src: u32| WorkloadSpec::Flows {
            flows: (0..3).map(|i| crate::scenario::ExplicitFlow { src, dst: 0, size_bytes: Some(1_000 + i), start: Instant::ZERO, deadline: None }).collect(),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let poisson = WorkloadSpec::Poisson {
            rate_per_sec: 1_000.0,
            hosts: vec![0, 1, 2],
            destinations: None,
            pattern: TrafficPattern::Random,
            rack_local: None,
            from_load: false,
            size: SizeDist::Fixed(500),
            deadline: None,
            start: Instant::ZERO,
            stop: Instant::ZERO + Duration::from_ms(20),
            options: FlowOptions { protocol: None, priority: 0 },
        };
        let p = plan(&[list(1), poisson, list(2)], 7, u64::MAX).unwrap();
        let n = p.sources[0].count;
        assert!(n > 5 && p.total() == 6 + n, "{n} arrivals");
        let numbers: Vec<(u32, u32)> = p.numbered().map(|(i, f)| (i, f.src)).collect();
        let after = 3 + n as u32;
        assert_eq!(numbers, [(0, 1), (1, 1), (2, 1), (after, 2), (after + 1, 2), (after + 2, 2)]);
        assert_eq!(p.sources[0].first, 3);
        let all = p.expanded();
        assert!(all[3..3 + n as usize].iter().all(|f| f.workload == 1 && f.size_bytes == Some(500)));
        assert!(all[..3].iter().chain(&all[3 + n as usize..]).all(|f| f.workload != 1));
    }

    #[test]
    fn cdf_sampling_interpolates() {
        let pts = [(1_000, 0.5), (3_000, 1.0)];
        assert_eq!(sample_cdf(&pts, 0.25), 500);
        assert_eq!(sample_cdf(&pts, 0.75), 2_000);
        assert_eq!(sample_cdf(&pts, 1.0), 3_000);
    }
}
