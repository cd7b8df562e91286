//! Turns workload specifications into the flows of a run: D3's flow-burst microbenchmark (with
//! closed- or open-loop rounds, `workload::burst`), long-lived background flows, Poisson arrivals,
//! explicit lists, CSV traces read as the run goes (`workload::trace`) and D2TCP's OLDI
//! applications (`workload::oldi`).

mod burst;
mod draw;
mod oldi;
mod poisson;
mod trace;

pub(crate) use burst::Burst;
pub(crate) use draw::FlowPlan;
use draw::FlowSink;
pub(crate) use poisson::PoissonSource;
use poisson::PoissonSpec;
use trace::TraceSource;


use crate::error::ResourceError;
use crate::rng::Rng;
use crate::scenario::{Protocol, WorkloadSpec};

/// The flows of a run: those drawn before it, the Poisson and trace workloads whose flows are
/// drawn during it, and the generators of closed-loop flow-burst rounds (indexed by workload; `None`
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

/// Where a source drawn during the run takes its flows from.
pub(crate) enum Arrivals {
    Poisson(PoissonSource),
    Trace(TraceSource),
}

/// A Poisson or trace workload's flows with the numbers they take.
pub(crate) struct LazySource {
    pub(crate) arrivals: Arrivals,
    /// Number of its first flow.
    pub(crate) first: u32,
    /// How many flows it draws.
    pub(crate) count: u64,
    /// How many of those are finite (all of a Poisson workload's; a trace's rows with a size).
    pub(crate) finite: u64,
    /// How many of `Plan::flows` were planned before it.
    at: usize,
    /// Flows drawn so far.
    drawn: u64,
}

impl LazySource {
    /// The next flow with its number, or `None` once all `count` are drawn. Fails only on a
    /// trace that no longer reads as its check found it.
    pub(crate) fn draw(&mut self) -> Result<Option<(u32, FlowPlan)>, ResourceError> {
        if self.drawn == self.count {
            return Ok(None);
        }
        let flow = match &mut self.arrivals {
            Arrivals::Poisson(poisson) => poisson.next(),
            Arrivals::Trace(trace) => trace.next()?,
        };
        let Some(flow) = flow else {
            return match &self.arrivals {
                Arrivals::Trace(trace) => Err(trace.ended_early(self.drawn, self.count)),
                // Not reached: the count drew the same stream.
                Arrivals::Poisson(_) => Ok(None),
            };
        };
        let number = self.first + self.drawn as u32;
        self.drawn += 1;
        Ok(Some((number, flow)))
    }

    /// The protocol its flows run, `default` unless the workload names one; `None` if it draws
    /// no flow.
    pub(crate) fn protocol(&self, default: Protocol) -> Option<Protocol> {
        let named = match &self.arrivals {
            Arrivals::Poisson(poisson) => poisson.protocol(),
            Arrivals::Trace(trace) => trace.protocol(),
        };
        (self.count > 0).then(|| named.unwrap_or(default))
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
            all.extend(std::iter::from_fn(|| s.draw().expect("a Poisson source draws")));
        }
        all.sort_by_key(|&(i, _)| i);
        all.into_iter().map(|(_, f)| f).collect()
    }
}

impl FlowSink<'_> {
    /// Reserves the numbers of `arrivals`' flows, `count` of them of which `finite` have a
    /// size, or errs if they take the run past `max_flows`.
    fn reserve_source(&mut self, arrivals: Arrivals, count: u64, finite: u64) -> Result<LazySource, ResourceError> {
        if count > self.max_flows.saturating_sub(self.planned()) {
            return Err(self.over_limit());
        }
        let source = LazySource { arrivals, first: self.planned() as u32, count, finite, at: self.flows.len(), drawn: 0 };
        self.lazy += count;
        Ok(source)
    }
}

/// Expands `workloads`, at most `max_flows` flows in all; workload i draws from random stream i
/// of `seed`. Poisson and trace workloads are counted, not drawn: their flows are drawn as the
/// run reaches them (`workload::poisson`, `workload::trace`). Fails if a trace cannot be opened
/// again.
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
                let arrivals = PoissonSource::new(w, &spec, rng);
                // Counting stops one past the room left: that many is over the limit already.
                let count = arrivals.count(max_flows.saturating_sub(sink.planned()).saturating_add(1));
                out.sources.push(sink.reserve_source(Arrivals::Poisson(arrivals), count, count)?);
            }
            WorkloadSpec::Flows { flows, options } => {
                for f in flows {
                    sink.push(FlowPlan::new(w, options, f.src, f.dst, f.size_bytes, f.start, f.deadline))?;
                }
            }
            WorkloadSpec::Trace { trace, options } => {
                let rows = Arrivals::Trace(TraceSource::open(w, trace, options)?);
                out.sources.push(sink.reserve_source(rows, trace.flows, trace.flows - trace.long_lived)?);
            }
            WorkloadSpec::Oldi(spec) => oldi::plan(spec, w, rng, &mut sink)?,
        }
        lazy = sink.lazy;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use incast_proto::time::{Duration, Instant};

    use super::*;
    use crate::scenario::{
        DeadlineDist, ExplicitFlow, FlowBurstWorkload, FlowListWorkload, PoissonWorkload, RackLocal, RoundStarts, SizeDist,
        TrafficPattern,
    };

    fn burst(rounds: u32) -> WorkloadSpec {
        FlowBurstWorkload {
            size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
            deadline: Some(DeadlineDist::Exponential { mean: Duration::from_ms(20), min: Duration::ZERO }),
            rounds,
            round_starts: RoundStarts::AfterCompletion { gap: Duration::from_ms(1) },
            ..FlowBurstWorkload::new(0, vec![1, 2, 1])
        }
        .into()
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
        let spec = PoissonWorkload {
            size: SizeDist::Fixed(1000),
            ..PoissonWorkload::new(10_000.0, vec![3, 4, 5], Instant::ZERO + Duration::from_ms(100))
        }
        .into();
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
        let spec = PoissonWorkload {
            pattern: TrafficPattern::Permutation,
            size: SizeDist::Fixed(1000),
            ..PoissonWorkload::new(20_000.0, hosts.clone(), Instant::ZERO + Duration::from_ms(100))
        }
        .into();
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
        let spec = PoissonWorkload {
            destinations: Some(vec![0, 1]),
            size: SizeDist::Fixed(1000),
            ..PoissonWorkload::new(10_000.0, vec![0, 1, 2], Instant::ZERO + Duration::from_ms(100))
        }
        .into();
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
        let spec = PoissonWorkload {
            rack_local: Some(RackLocal { share: 0.3, racks: racks.clone() }),
            size: SizeDist::Fixed(1000),
            ..PoissonWorkload::new(1e6, (0..16).collect(), Instant::ZERO + Duration::from_ms(40))
        }
        .into();
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
        let arrivals = PoissonWorkload {
            size: SizeDist::Fixed(1000),
            ..PoissonWorkload::new(1e6, vec![0, 1], Instant::ZERO + Duration::from_ms(10))
        };
        let spec = [arrivals.clone().into()];
        assert!(plan(&spec, 1, 20_000).is_ok());
        let e = plan(&spec, 1, 1_000).err().expect("10 000 expected arrivals pass a limit of 1000");
        assert_eq!(e.path, "workload[0].rate");
        assert!(e.message.contains("limit of 1000 flows (`run.max_flows`"), "{e}");
        // A rate that came from `load` is blamed on that key.
        let from_load = PoissonWorkload { from_load: true, ..arrivals };
        assert_eq!(plan(&[from_load.into()], 1, 1_000).err().expect("over the limit").path, "workload[0].load");
    }

    /// A Poisson workload at the rate `load = 0.5` implies for 16 senders at 10 Gbps in web-search
    /// flows (the scenario tests check that arithmetic) offers half of those links' bytes over a
    /// second of arrivals, within four standard deviations of a compound Poisson total
    /// (sqrt(rate x T x E[size^2])).
    #[test]
    fn poisson_at_a_load_offers_that_load() {
        let size = crate::scenario::named_distribution("size", "web-search").unwrap();
        let (load, senders, link_bps, seconds) = (0.5, 16usize, 10e9, 1.0);
        let rate = load * senders as f64 * link_bps / (8.0 * size.mean_bytes());
        let stop = Instant::ZERO + Duration::from_ms(1000);
        let spec = PoissonWorkload { size, ..PoissonWorkload::new(rate, (0..senders as u32).collect(), stop) }.into();
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
        let list = |src: u32| {
            let flows = (0..3).map(|i| ExplicitFlow { src, dst: 0, size_bytes: Some(1_000 + i), start: Instant::ZERO, deadline: None });
            FlowListWorkload::new(flows.collect()).into()
        };
        let poisson = PoissonWorkload {
            size: SizeDist::Fixed(500),
            ..PoissonWorkload::new(1_000.0, vec![0, 1, 2], Instant::ZERO + Duration::from_ms(20))
        }
        .into();
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
}
