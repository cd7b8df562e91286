//! Validation of traffic: the workload kinds (D3 Section 6.1 flow bursts and Poisson arrivals,
//! long-lived background flows, explicit flow lists and traces) and their size and deadline
//! distributions, with the defaults of the papers' experiments.

use incast_proto::time::{Duration, Instant};

use super::check::{
    check_flow, count, distinct_hosts, err, finite, host_list, only_keys, positive, positive_time, required, Hosts,
    Result,
};
use super::context::Context;
use super::error::join;
use super::file::{DeadlineDistKind, RawDeadlineDist, RawFlow, RawSizeDist, RawWorkload, SizeDistKind, WorkloadKind};
use super::names::{Named, Pair};
use super::units::{Size, Time};
use super::limits;
use super::spec::{
    DeadlineDist, ExplicitFlow, FlowOptions, DEFAULT_RESPONSE_SIZE, HostIndex, RackLocal, RoundStarts, RunSpec, SizeDist, TopologySpec, TrafficPattern, WorkloadSpec,
};
use super::named_sizes::ParetoTail;
use super::{named_sizes, oldi, trace, units};

/// Converts the workload at key path `p` (`workload[i]`).
pub(crate) fn workload(p: &str, raw: RawWorkload, context: &Context<'_>) -> Result<WorkloadSpec> {
    let (hosts, switch, base_dir) = (context.hosts, context.switch, context.base_dir);
    let kind = raw.kind.0;
    let given = [
        ("aggregator", raw.aggregator.is_some()),
        ("senders", raw.senders.is_some()),
        ("worker_hosts", raw.worker_hosts.is_some()),
        ("size", raw.size.is_some()),
        ("deadline", raw.deadline.is_some()),
        ("start", raw.start.is_some()),
        ("rounds", raw.rounds.is_some()),
        ("round_gap", raw.round_gap.is_some()),
        ("pairs", raw.pairs.is_some()),
        ("rate", raw.rate.is_some()),
        ("load", raw.load.is_some()),
        ("pattern", raw.pattern.is_some()),
        ("rack_local", raw.rack_local.is_some()),
        ("hosts", raw.hosts.is_some()),
        ("stop", raw.stop.is_some()),
        ("flows", raw.flows.is_some()),
        ("path", raw.path.is_some()),
        ("fan_in", raw.fan_in.is_some()),
        ("trees_per_app", raw.trees_per_app.is_some()),
        ("message_sizes", raw.message_sizes.is_some()),
        ("deadlines", raw.deadlines.is_some()),
        ("deadline_variance", raw.deadline_variance.is_some()),
        ("query_rate", raw.query_rate.is_some()),
        ("query_interval", raw.query_interval.is_some()),
        ("utilization", raw.utilization.is_some()),
        ("protocols", raw.protocols.is_some()),
        ("background", raw.background.is_some()),
        ("background_size", raw.background_size.is_some()),
        ("background_interval", raw.background_interval.is_some()),
        ("background_protocol", raw.background_protocol.is_some()),
    ];
    let allowed: &[&str] = match kind {
        WorkloadKind::FlowBurst => &[
            "aggregator",
            "senders",
            "worker_hosts",
            "size",
            "deadline",
            "start",
            "rounds",
            "round_gap",
            "query_rate",
            "query_interval",
        ],
        WorkloadKind::LongFlows => &["pairs", "start"],
        WorkloadKind::Poisson => &["rate", "load", "pattern", "rack_local", "hosts", "destinations", "size", "deadline", "start", "stop"],
        WorkloadKind::Flows => &["flows"],
        WorkloadKind::Trace => &["path"],
        WorkloadKind::Oldi => oldi::KEYS,
    };
    let what = format!("kind = \"{}\"", kind.name());
    only_keys(p, &what, &given, allowed)?;
    let default = FlowOptions::default();
    let priority = raw.priority.unwrap_or(u64::from(default.priority));
    if priority >= u64::from(switch.priority_classes) {
        return Err(err(
            join(p, "priority"),
            format!(
                "must be below switch.priority_classes = {} (classes are numbered 0 to {}, 0 served first)",
                switch.priority_classes,
                switch.priority_classes - 1
            ),
        ));
    }
    let options = FlowOptions {
        protocol: raw.protocol.as_ref().map(|n| n.0).or(default.protocol),
        priority: priority as u8,
    };
    let start = Instant::from_ps(raw.start.map_or(0, |t| t.0));
    limits::start_before_horizon(|| join(p, "start"), start, context.run)?;
    let size = |raw: Option<RawSizeDist>| match raw {
        None => Ok(DEFAULT_RESPONSE_SIZE),
        Some(s) => size_dist(&join(p, "size"), s),
    };
    let deadline = |raw: Option<RawDeadlineDist>| match raw {
        None => Ok(None),
        Some(d) => deadline_dist(&join(p, "deadline"), d).map(Some),
    };
    Ok(match kind {
        WorkloadKind::FlowBurst => {
            let aggregator = raw.aggregator.unwrap_or(0);
            hosts.check(|| join(p, "aggregator"), u64::from(aggregator))?;
            let worker_hosts = match raw.worker_hosts {
                None => (0..hosts.count).filter(|&h| h != aggregator).collect(),
                Some(list) => {
                    let at = |j: usize| format!("{p}.worker_hosts[{j}]");
                    if list.is_empty() {
                        return Err(err(join(p, "worker_hosts"), "must list at least one host"));
                    }
                    for (j, &h) in list.iter().enumerate() {
                        hosts.check(|| at(j), u64::from(h))?;
                        if h == aggregator {
                            return Err(err(
                                at(j),
                                format!(
                                    "host {h} is the aggregator; a worker cannot send to itself"
                                ),
                            ));
                        }
                    }
                    list
                }
            };
            let senders = raw.senders.unwrap_or(worker_hosts.len() as u64);
            let rounds = count(
                || join(p, "rounds"),
                raw.rounds.unwrap_or(1),
                1,
                u64::from(u32::MAX),
            )?;
            // Every round starts one flow per sender.
            let key = if raw.senders.is_some() && senders > context.run.max_flows { "senders" } else { "rounds" };
            let flows = senders as f64 * f64::from(rounds);
            context.flows.charge(|| join(p, key), flows, |n| format!("{senders} senders x {rounds} rounds = {n} flows"))?;
            let senders = count(|| join(p, "senders"), senders, 1, context.run.max_flows)?;
            let round_starts = round_starts(p, raw.round_gap, raw.query_rate, raw.query_interval, start, rounds, context.run)?;
            let workers = (0..senders as usize)
                .map(|i| worker_hosts[i % worker_hosts.len()])
                .collect();
            WorkloadSpec::FlowBurst {
                aggregator,
                workers,
                size: size(raw.size)?,
                deadline: deadline(raw.deadline)?,
                start,
                rounds,
                round_starts,
                options,
            }
        }
        WorkloadKind::LongFlows => {
            let pairs = required(raw.pairs, p, "pairs", &what)?;
            if pairs.is_empty() {
                return Err(err(
                    join(p, "pairs"),
                    "must list at least one [src, dst] pair",
                ));
            }
            for (j, &Pair(src, dst)) in pairs.iter().enumerate() {
                let at = |i: usize| format!("{p}.pairs[{j}][{i}]");
                hosts.check(|| at(0), u64::from(src))?;
                hosts.check(|| at(1), u64::from(dst))?;
                if src == dst {
                    return Err(err(
                        at(1),
                        format!("destination {dst} is the source; a flow needs two distinct hosts"),
                    ));
                }
            }
            WorkloadSpec::LongFlows {
                pairs: pairs.into_iter().map(|Pair(s, d)| (s, d)).collect(),
                start,
                options,
            }
        }
        WorkloadKind::Poisson => {
            let list = host_list(p, raw.hosts, hosts)?;
            let pattern = raw.pattern.map_or(TrafficPattern::Random, |n| n.0);
            if pattern == TrafficPattern::Permutation && raw.destinations.is_some() {
                return Err(err(
                    join(p, "pattern"),
                    "\"permutation\" pairs every host of hosts with another of them; it takes no destinations",
                ));
            }
            let destinations = raw.destinations.map(|d| destination_list(p, d, &list, hosts)).transpose()?;
            let rack_local = raw
                .rack_local
                .map(|share| rack_local(p, share, pattern, &list, destinations.as_deref(), context.topology))
                .transpose()?;
            let size = size(raw.size)?;
            let rate = match (raw.rate, raw.load) {
                (Some(_), Some(_)) => {
                    return Err(err(
                        join(p, "load"),
                        "give rate (flows per second) or load (a fraction of each sender's link rate), not both",
                    ))
                }
                (None, None) => {
                    return Err(err(
                        p,
                        format!("{what} needs rate (flows per second) or load (a fraction of each sender's link rate)"),
                    ))
                }
                (Some(rate), None) => {
                    let rate = finite(&join(p, "rate"), rate)?;
                    if rate <= 0.0 {
                        return Err(err(
                            join(p, "rate"),
                            format!("must be greater than 0 flows per second (found {rate})"),
                        ));
                    }
                    rate
                }
                (None, Some(load)) => {
                    let load = finite(&join(p, "load"), load)?;
                    if load <= 0.0 {
                        return Err(err(
                            join(p, "load"),
                            format!("must be greater than 0, a fraction of each sender's link rate (found {load})"),
                        ));
                    }
                    arrival_rate(load, senders_bps(context.topology, &list), &size)
                }
            };
            let stop = required(raw.stop, p, "stop", &what)?;
            limits::within_horizon(|| join(p, "stop"), Some(stop), context.run)?;
            let stop = Instant::from_ps(stop.0);
            if stop <= start {
                return Err(err(
                    join(p, "stop"),
                    format!("must be after start ({stop} <= {start})"),
                ));
            }
            let span = stop.saturating_since(start);
            let rate_key = if raw.load.is_some() { "load" } else { "rate" };
            context.flows.charge(
                || join(p, rate_key),
                rate * span.as_secs_f64(),
                |n| format!("about {n} flows over {}", limits::seconds(span)),
            )?;
            WorkloadSpec::Poisson {
                rate_per_sec: rate,
                hosts: list,
                destinations,
                pattern,
                rack_local,
                from_load: raw.load.is_some(),
                size,
                deadline: deadline(raw.deadline)?,
                start,
                stop,
                options,
            }
        }
        WorkloadKind::Flows => {
            let raw_flows = required(raw.flows, p, "flows", &what)?;
            if raw_flows.is_empty() {
                return Err(err(join(p, "flows"), "must list at least one flow"));
            }
            context.flows.charge(|| join(p, "flows"), raw_flows.len() as f64, |n| format!("{n} flows listed"))?;
            let mut flows = Vec::with_capacity(raw_flows.len());
            for (j, f) in raw_flows.into_iter().enumerate() {
                // Name the key as the file wrote it (`size_bytes` rather than `size`).
                let numeric = (f.size_bytes.is_some(), f.deadline_s.is_some(), f.start_s.is_some());
                let flow = explicit_flow(f).and_then(|f| {
                    check_flow(&f, hosts)?;
                    limits::late_start(f.start, context.run).map_or(Ok(f), |m| Err(("start", m)))
                });
                flows.push(flow.map_err(|(key, msg)| {
                    let key = match key {
                        "size" if numeric.0 => "size_bytes",
                        "deadline" if numeric.1 => "deadline_s",
                        "start" if numeric.2 => "start_s",
                        key => key,
                    };
                    err(format!("{p}.flows[{j}].{key}"), msg)
                })?);
            }
            WorkloadSpec::Flows { flows, options }
        }
        WorkloadKind::Trace => {
            let file = required(raw.path, p, "path", &what)?;
            let late = |j, f: &ExplicitFlow| match limits::late_start(f.start, context.run) {
                Some(message) => Err(format!("flow {j} of trace {file:?} {message}")),
                None => Ok(()),
            };
            let trace = trace::check(&file, base_dir, context.run.max_trace_bytes, hosts, late)
                .map_err(|m| err(join(p, "path"), m))?;
            context.flows.charge(|| join(p, "path"), trace.flows as f64, |n| format!("{n} flows in the trace"))?;
            WorkloadSpec::Trace { trace, options }
        }
        WorkloadKind::Oldi => WorkloadSpec::Oldi(oldi::workload(p, raw, context, start, options)?),
    })
}

/// When the `rounds` rounds of the flow-burst workload at `p` start: after completions
/// (`round_gap`, the closed loop and the default) or on a schedule of their own (`query_rate` or
/// `query_interval`, an open loop), whose last round must start before the horizon.
fn round_starts(
    p: &str,
    round_gap: Option<Time>,
    query_rate: Option<f64>,
    query_interval: Option<Time>,
    start: Instant,
    rounds: u32,
    run: &RunSpec,
) -> Result<RoundStarts> {
    let given = [
        ("round_gap", round_gap.is_some()),
        ("query_rate", query_rate.is_some()),
        ("query_interval", query_interval.is_some()),
    ];
    if let Some(&(second, _)) = given.iter().filter(|(_, present)| *present).nth(1) {
        return Err(err(join(p, second), "give at most one of round_gap, query_rate and query_interval"));
    }
    // `how` gives the last round's start as the keys produce it, `remedy` the keys that move it.
    let before_horizon = |key: &str, last: Instant, how: String, remedy: &str| match limits::late_start(last, run) {
        Some(message) => Err(err(join(p, key), format!("the last round ({how}) {message}; {remedy}"))),
        None => Ok(()),
    };
    let from_zero = limits::seconds(start.saturating_since(Instant::ZERO));
    if let Some(rate) = query_rate {
        let rate = finite(&join(p, "query_rate"), rate)?;
        if rate <= 0.0 {
            return Err(err(
                join(p, "query_rate"),
                format!("must be greater than 0 rounds per second (found {rate})"),
            ));
        }
        // Random starts may land later; the expectation is what the file can be held to.
        let expected = start + Duration::from_secs_f64(f64::from(rounds) / rate);
        // Debug writes an extreme rate as 1e-300, not as 300 digits.
        let how = format!("expected at start + rounds / query_rate = {from_zero} + {rounds} / {rate:?} per s");
        before_horizon("query_rate", expected, how, "raise run.horizon or query_rate, or lower rounds")?;
        return Ok(RoundStarts::Poisson { rate_per_sec: rate });
    }
    if let Some(interval) = query_interval {
        let interval = positive_time(|| join(p, "query_interval"), Some(interval), Duration::ZERO)?;
        let last = start + interval.saturating_mul(u64::from(rounds - 1));
        let how = format!(
            "at start + (rounds - 1) x query_interval = {from_zero} + {} x {}",
            rounds - 1,
            limits::seconds(interval)
        );
        before_horizon("query_interval", last, how, "raise run.horizon, or shorten query_interval or lower rounds")?;
        return Ok(RoundStarts::Periodic { interval });
    }
    limits::within_horizon(|| join(p, "round_gap"), round_gap, run)?;
    Ok(RoundStarts::AfterCompletion { gap: Duration::from_ps(round_gap.map_or(0, |t| t.0)) })
}

/// The `destinations` of a Poisson workload: valid hosts, none twice, and for every source at
/// least one destination other than itself.
fn destination_list(p: &str, list: Vec<u32>, sources: &[u32], hosts: &Hosts) -> Result<Vec<u32>> {
    distinct_hosts(&join(p, "destinations"), &list, hosts)?;
    if let Some(&lonely) = sources.iter().find(|&&s| list.iter().all(|&d| d == s)) {
        return Err(err(
            join(p, "destinations"),
            format!("must hold a host other than source {lonely} (a flow needs a receiver other than its sender)"),
        ));
    }
    Ok(list)
}

/// A `flows` entry, with its error as (key, message).
fn explicit_flow(raw: RawFlow) -> std::result::Result<ExplicitFlow, (&'static str, String)> {
    let either = |a: &str, b: &'static str| (b, format!("give either {a} or {b}, not both"));
    let size_bytes = match (raw.size, raw.size_bytes) {
        (Some(_), Some(_)) => return Err(either("size", "size_bytes")),
        (s, b) => s.map(|s| s.0).or(b),
    };
    let start = match (raw.start, raw.start_s) {
        (Some(_), Some(_)) => return Err(either("start", "start_s")),
        (Some(t), None) => t.0,
        (None, Some(s)) => units::seconds_f64_to_ps(s).map_err(|m| ("start_s", m))?,
        (None, None) => 0,
    };
    let deadline = match (raw.deadline, raw.deadline_s) {
        (Some(_), Some(_)) => return Err(either("deadline", "deadline_s")),
        (Some(t), None) => Some(t.0),
        (None, Some(s)) => Some(units::seconds_f64_to_ps(s).map_err(|m| ("deadline_s", m))?),
        (None, None) => None,
    };
    Ok(ExplicitFlow {
        src: raw.src,
        dst: raw.dst,
        size_bytes,
        start: Instant::from_ps(start),
        deadline: deadline.map(Duration::from_ps),
    })
}

/// The Poisson arrival rate (flows per second) that offers `load` of each sender's link:
/// senders whose links sum to `senders_bps` start flows of mean size `size.mean_bytes()` at load
/// x their rate in bits per second of payload, as HPCC's traffic generator counts it (headers are not counted; the
/// pFabric-derived ns-2 scripts count 40 B of header per 1460 B packet, 2.7% fewer flows).
pub(crate) fn arrival_rate(load: f64, senders_bps: f64, size: &SizeDist) -> f64 {
    load * senders_bps / (8.0 * size.mean_bytes())
}

/// `rack_local` at `p`: a share in [0, 1] of a random pattern's flows, possible for every sender:
/// each has another destination in its rack if the share is above 0, and one outside it if the
/// share is below 1.
fn rack_local(
    p: &str,
    share: f64,
    pattern: TrafficPattern,
    senders: &[HostIndex],
    destinations: Option<&[HostIndex]>,
    topology: &TopologySpec,
) -> Result<RackLocal> {
    let key = join(p, "rack_local");
    let share = finite(&key, share)?;
    if !(0.0..=1.0).contains(&share) {
        return Err(err(key, format!("must be between 0 and 1, the share of flows that stay in their sender's rack (found {share})")));
    }
    if pattern != TrafficPattern::Random {
        return Err(err(key, "applies to pattern = \"random\" only: a permutation fixes every sender's destination"));
    }
    let racks: Vec<u32> = (0..topology.host_count()).map(|h| topology.rack_of(h)).collect();
    let to = destinations.unwrap_or(senders);
    // Destinations per rack, so that each sender is checked in constant time (a fat tree of
    // 65,536 hosts would otherwise compare every sender with every destination).
    let mut in_rack: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for &d in to {
        *in_rack.entry(racks[d as usize]).or_default() += 1;
    }
    let is_destination: std::collections::HashSet<HostIndex> = to.iter().copied().collect();
    for &src in senders {
        let rack = racks[src as usize];
        let here = in_rack.get(&rack).copied().unwrap_or(0);
        let local = here > usize::from(is_destination.contains(&src));
        let remote = to.len() > here;
        let missing = if share > 0.0 && !local {
            "no other destination in its rack"
        } else if share < 1.0 && !remote {
            "no destination outside its rack"
        } else {
            continue;
        };
        return Err(err(
            key,
            format!(
                "sender {src} has {missing} (on a {} topology; docs/scenario.md, \"Host numbering\", says which hosts share a rack)",
                topology.kind_name()
            ),
        ));
    }
    Ok(RackLocal { share, racks })
}

/// The link rates of `senders`, summed, in bits per second: what a load of 1 would offer.
pub(crate) fn senders_bps(topology: &TopologySpec, senders: &[HostIndex]) -> f64 {
    senders.iter().map(|&h| topology.host_rate(h).0 as f64).sum()
}

/// A size distribution at `p`: a plain size string is a fixed size.
fn size_dist(p: &str, raw: RawSizeDist) -> Result<SizeDist> {
    let t = match raw {
        RawSizeDist::Fixed(b) => return Ok(SizeDist::Fixed(positive(|| p.into(), b, "bytes")?)),
        RawSizeDist::Named(name) => return named_distribution(p, name),
        RawSizeDist::Table(t) => t,
    };
    let kind = t.dist.0;
    let what = format!("dist = \"{}\"", kind.name());
    let given = [
        ("value", t.value.is_some()),
        ("min", t.min.is_some()),
        ("max", t.max.is_some()),
        ("mean", t.mean.is_some()),
        ("points", t.points.is_some()),
    ];
    let allowed: &[&str] = match kind {
        SizeDistKind::Fixed => &["value"],
        SizeDistKind::Uniform => &["min", "max"],
        SizeDistKind::Exponential => &["mean"],
        SizeDistKind::Cdf => &["points"],
    };
    only_keys(p, &what, &given, allowed)?;
    let get = |v: Option<Size>, key: &str| -> Result<u64> {
        let v = required(v, p, key, &what)?;
        positive(|| join(p, key), v.0, "bytes")
    };
    Ok(match kind {
        SizeDistKind::Fixed => SizeDist::Fixed(get(t.value, "value")?),
        SizeDistKind::Uniform => {
            let (lo, hi) = (get(t.min, "min")?, get(t.max, "max")?);
            if lo > hi {
                return Err(err(
                    join(p, "min"),
                    format!("is greater than max ({lo} B > {hi} B)"),
                ));
            }
            SizeDist::Uniform { lo, hi }
        }
        SizeDistKind::Exponential => SizeDist::Exponential {
            mean: get(t.mean, "mean")?,
        },
        SizeDistKind::Cdf => {
            let points = required(t.points, p, "points", &what)?;
            cdf(&join(p, "points"), points)?
        }
    })
}

/// An empirical CDF table's `points`.
fn cdf(p: &str, points: Vec<Pair<Size, f64>>) -> Result<SizeDist> {
    cdf_points(p, points.into_iter().map(|Pair(Size(size), prob)| (size, prob)).collect())
}

/// The shipped distribution named `name` (one of `named_sizes::NAMES`), validated as a `cdf` table would be; an
/// error names the key `p` (and the shipped file, were one malformed).
pub fn named_distribution(p: &str, name: &str) -> Result<SizeDist> {
    let shipped = named_sizes::shipped(name).ok_or_else(|| err(p, format!("no shipped distribution named \"{name}\"")))?;
    let mut points = Vec::new();
    for (n, line) in shipped.text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || err(p, format!("{} line {}: not a size and a probability", shipped.file, n + 1));
        let fields: Vec<&str> = line.split_whitespace().collect();
        let size: f64 = fields.first().and_then(|v| v.parse().ok()).ok_or_else(bad)?;
        let cdf: f64 = fields.get(shipped.cdf_column).and_then(|v| v.parse().ok()).ok_or_else(bad)?;
        let bytes = (size * shipped.bytes_per_unit as f64).round() as u64;
        let prob = if shipped.percent { cdf / 100.0 } else { cdf };
        // The sampler starts from (0 B, 0) already; a file's own origin point adds nothing.
        if bytes == 0 && prob == 0.0 {
            continue;
        }
        points.push((bytes, prob));
    }
    if let Some(tail) = shipped.tail {
        pareto_tail(&mut points, tail);
    }
    if shipped.step {
        points = steps(&points);
    }
    cdf_points(p, points)
}

/// A step CDF's points as the sampler's: each size holds the probability between its point and
/// the one before (a step from the previous probability to its own), nothing between sizes.
/// Sizes that add no probability are left out.
fn steps(points: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut out = Vec::with_capacity(2 * points.len());
    let mut below = 0.0;
    for &(size, prob) in points {
        if prob > below {
            out.push((size, below));
            out.push((size, prob));
            below = prob;
        }
    }
    out
}

/// Appends the discretized tail beyond the last point, as HomaSimulation's `WorkloadEstimator`
/// does it for W1 (floating-point steps accumulated as its loop does, so the sizes are its own).
fn pareto_tail(points: &mut Vec<(u64, f64)>, tail: ParetoTail) {
    let Some(&(offset, p0)) = points.last() else { return };
    let increment = (tail.last - p0) / f64::from(tail.steps);
    let mut prob = p0 + increment;
    while prob <= tail.last {
        let size = (offset as f64 + (((1.0 - p0) / (1.0 - prob)).powf(tail.k) - 1.0) * tail.sigma / tail.k).round() as u64;
        match points.last_mut() {
            Some(last) if last.0 == size => last.1 = prob,
            _ => points.push((size, prob)),
        }
        prob += increment;
    }
    if let Some(last) = points.last_mut() {
        last.1 = 1.0;
    }
}

/// An empirical CDF: sizes never falling, probabilities rising to exactly 1. A size repeated
/// with a higher probability is a step of the CDF (that share of the flows has exactly that
/// size: half of the data-mining flows are one packet). Errors name `p[j][i]`.
pub(crate) fn cdf_points(p: &str, points: Vec<(u64, f64)>) -> Result<SizeDist> {
    if points.is_empty() {
        return Err(err(p, "must list at least one [size, probability] point"));
    }
    let mut out = Vec::with_capacity(points.len());
    let mut prev: Option<(u64, f64)> = None;
    for (j, (size, prob)) in points.into_iter().enumerate() {
        let at = |i: usize| format!("{p}[{j}][{i}]");
        positive(|| at(0), size, "bytes")?;
        let prob = finite(&at(1), prob)?;
        if !(0.0..=1.0).contains(&prob) {
            return Err(err(
                at(1),
                format!("probability must be in [0, 1] (found {prob})"),
            ));
        }
        if let Some((prev_size, prev_prob)) = prev {
            if size < prev_size {
                return Err(err(
                    at(0),
                    format!("sizes must not fall ({size} B after {prev_size} B)"),
                ));
            }
            if prob < prev_prob {
                return Err(err(
                    at(1),
                    format!("probabilities must not fall ({prob} after {prev_prob})"),
                ));
            }
            if size == prev_size && prob == prev_prob {
                return Err(err(
                    at(0),
                    format!("repeats the point before it ({size} B at {prob}); a size given twice needs a higher probability the second time (a step)"),
                ));
            }
        }
        prev = Some((size, prob));
        out.push((size, prob));
    }
    let last = out.len() - 1;
    // Tolerate float noise from generated files, then store the exact 1 the sampler relies on.
    if (out[last].1 - 1.0).abs() > 1e-9 {
        return Err(err(
            format!("{p}[{last}][1]"),
            format!("the last probability must be 1 (found {})", out[last].1),
        ));
    }
    out[last].1 = 1.0;
    Ok(SizeDist::Cdf(out))
}

/// A deadline distribution at `p`: a plain time string is a fixed deadline.
fn deadline_dist(p: &str, raw: RawDeadlineDist) -> Result<DeadlineDist> {
    let t = match raw {
        RawDeadlineDist::Fixed(ps) => {
            return Ok(DeadlineDist::Fixed(positive_time(
                || p.into(),
                Some(Time(ps)),
                Duration::ZERO,
            )?))
        }
        RawDeadlineDist::Table(t) => t,
    };
    let kind = t.dist.0;
    let what = format!("dist = \"{}\"", kind.name());
    let given = [
        ("value", t.value.is_some()),
        ("min", t.min.is_some()),
        ("max", t.max.is_some()),
        ("mean", t.mean.is_some()),
    ];
    let allowed: &[&str] = match kind {
        DeadlineDistKind::Fixed => &["value"],
        DeadlineDistKind::Uniform => &["min", "max"],
        DeadlineDistKind::Exponential => &["mean", "min"],
    };
    only_keys(p, &what, &given, allowed)?;
    let get = |v: Option<Time>, key: &str| -> Result<Duration> {
        let v = required(v, p, key, &what)?;
        positive_time(|| join(p, key), Some(v), Duration::ZERO)
    };
    Ok(match kind {
        DeadlineDistKind::Fixed => DeadlineDist::Fixed(get(t.value, "value")?),
        DeadlineDistKind::Uniform => {
            let (lo, hi) = (get(t.min, "min")?, get(t.max, "max")?);
            if lo > hi {
                return Err(err(
                    join(p, "min"),
                    format!("is greater than max ({lo} > {hi})"),
                ));
            }
            DeadlineDist::Uniform { lo, hi }
        }
        DeadlineDistKind::Exponential => DeadlineDist::Exponential {
            mean: get(t.mean, "mean")?,
            // D3 Section 6.1.1 gives only the mean; no floor unless the file asks for one.
            min: Duration::from_ps(t.min.map_or(0, |m| m.0)),
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{burst, malformed, star, toml};
    use super::named_distribution;
    use crate::spec::SizeDist;

    /// The means each file's header states (and docs/scenario.md), from the points as incast
    /// reads them: the HPCC code's 1,711,250 B for web search; for data mining, 5,116.6 packets of
    /// 1460 B (the pFabric-derived scripts hard-code 5,117).
    #[test]
    fn each_named_distribution_has_its_stated_mean() {
        let mean = |name: &str| named_distribution("size", name).unwrap().mean_bytes();
        assert!((mean("web-search") - 1_711_250.0).abs() < 1e-6);
        assert!((mean("data-mining") - 7_470_236.0).abs() < 1.0);
        assert!((mean("hadoop") - 120_420.75).abs() < 1e-6);
    }

    /// Homa's W1-W5 have the means their files' first lines state (HomaSimulation's generator
    /// reads them from there), but W1, whose generator draws its Pareto tail up to 1 GB while its
    /// priorities are computed from the tail discretized to the 99.9th percentile (4,120 B), as
    /// incast ships it: 182.34 B by that discretization, computed apart.
    #[test]
    fn homa_workloads_have_their_simulators_means() {
        let mean = |name: &str| named_distribution("size", name).unwrap().mean_bytes();
        assert!((mean("homa-w1") - 182.342).abs() < 1e-3, "{}", mean("homa-w1"));
        assert!((mean("homa-w2") - 440.7907).abs() < 1e-3);
        assert!((mean("homa-w3") - 2927.354).abs() < 1e-2);
        assert!((mean("homa-w4") - 127_796.6).abs() < 0.1);
        assert!((mean("homa-w5") / 1442.0 - 1744.70).abs() < 0.01, "1,744.70 packets of 1442 B");
    }

    /// Homa's files are step CDFs: W1's first size holds its probability exactly, its tail ends
    /// at the 4,120 B of the 99.9th percentile; W5's sizes are whole packets.
    #[test]
    fn homa_workloads_are_steps_of_whole_sizes() {
        let points = |name: &str| match named_distribution("size", name).unwrap() {
            SizeDist::Cdf(points) => points,
            _ => panic!("not a CDF"),
        };
        let w1 = points("homa-w1");
        assert_eq!(&w1[..4], &[(1, 0.0), (1, 0.00583), (2, 0.00583), (2, 0.18403)]);
        assert_eq!(w1.last(), Some(&(4120, 1.0)));
        assert!(points("homa-w5").iter().all(|&(s, _)| s % 1442 == 0));
    }

    /// Data mining keeps the step of its file: half the flows are exactly one packet.
    #[test]
    fn data_mining_keeps_its_one_packet_step() {
        let SizeDist::Cdf(points) = named_distribution("size", "data-mining").unwrap() else {
            panic!("not a CDF")
        };
        assert_eq!(&points[..2], &[(1460, 0.0), (1460, 0.5)]);
        assert_eq!(points.last(), Some(&(666_667 * 1460, 1.0)));
    }


    /// A one-second horizon.
    macro_rules! one_second {
        () => {
            "[run]\nhorizon = \"1s\"\n"
        };
    }

    #[test]
    fn open_loop_rounds_may_start_until_just_before_the_horizon() {
        // Periodic: the tenth round starts at 0.9 s; Poisson: the expected last start is 10 / 10.5 s.
        toml(concat!(star!(), one_second!(), burst!(), "rounds = 10\nquery_interval = \"100ms\"\n"));
        toml(concat!(star!(), one_second!(), burst!(), "rounds = 10\nquery_rate = 10.5\n"));
        // One round never waits for an interval, however long.
        toml(concat!(star!(), one_second!(), burst!(), "query_interval = \"1000s\"\n"));
    }

    malformed! {
        round_gap_and_query_rate: concat!(star!(), burst!(), "round_gap = \"1ms\"\nquery_rate = 10.0\n"), "workload[0].query_rate", "give at most one of round_gap, query_rate and query_interval";
        round_gap_and_query_interval: concat!(star!(), burst!(), "round_gap = \"1ms\"\nquery_interval = \"80ms\"\n"), "workload[0].query_interval", "give at most one of round_gap, query_rate and query_interval";
        query_rate_and_query_interval: concat!(star!(), burst!(), "query_rate = 10.0\nquery_interval = \"80ms\"\n"), "workload[0].query_interval", "give at most one of round_gap, query_rate and query_interval";
        zero_query_rate: concat!(star!(), burst!(), "query_rate = 0.0\n"), "workload[0].query_rate", "must be greater than 0 rounds per second (found 0)";
        negative_query_rate: concat!(star!(), burst!(), "query_rate = -5.0\n"), "workload[0].query_rate", "must be greater than 0 rounds per second (found -5)";
        nan_query_rate: concat!(star!(), burst!(), "query_rate = nan\n"), "workload[0].query_rate", "must be a finite number (found NaN)";
        infinite_query_rate: concat!(star!(), burst!(), "query_rate = inf\n"), "workload[0].query_rate", "must be a finite number (found inf)";
        query_rate_string: concat!(star!(), burst!(), "query_rate = \"10/s\"\n"), "workload[0].query_rate", "invalid type: string";
        zero_query_interval: concat!(star!(), burst!(), "query_interval = \"0ms\"\n"), "workload[0].query_interval", "must be positive (found 0)";
        negative_query_interval: concat!(star!(), burst!(), "query_interval = \"-80ms\"\n"), "workload[0].query_interval", "must not be negative";
        query_interval_without_unit: concat!(star!(), burst!(), "query_interval = 80\n"), "workload[0].query_interval", "a time string";
        periodic_last_round_at_horizon: concat!(star!(), one_second!(), burst!(), "rounds = 11\nquery_interval = \"100ms\"\n"), "workload[0].query_interval", "the last round (at start + (rounds - 1) x query_interval = 0 s + 10 x 0.1 s) starts at or after the run's horizon (1 s >= run.horizon = 1 s), so it would never run; raise run.horizon, or shorten query_interval or lower rounds";
        periodic_rounds_from_a_late_start: concat!(star!(), one_second!(), burst!(), "start = \"500ms\"\nrounds = 6\nquery_interval = \"100ms\"\n"), "workload[0].query_interval", "= 0.5 s + 5 x 0.1 s) starts at or after the run's horizon (1 s >=";
        periodic_rounds_past_the_end_of_time: concat!(star!(), burst!(), "rounds = 4000\nquery_interval = \"1e7s\"\n"), "workload[0].query_interval", "starts at or after the run's horizon";
        poisson_expected_last_round_at_horizon: concat!(star!(), one_second!(), burst!(), "rounds = 10\nquery_rate = 10.0\n"), "workload[0].query_rate", "the last round (expected at start + rounds / query_rate = 0 s + 10 / 10.0 per s) starts at or after the run's horizon (1 s >= run.horizon = 1 s), so it would never run; raise run.horizon or query_rate, or lower rounds";
        poisson_rate_too_slow_for_any_horizon: concat!(star!(), burst!(), "query_rate = 1e-300\n"), "workload[0].query_rate", "0 s + 1 / 1e-300 per s) starts at or after the run's horizon";
        open_loop_rounds_still_count_against_max_flows: concat!(star!(), burst!(), "rounds = 4000000000\nquery_rate = 1e9\n"), "workload[0].rounds", "3 senders x 4000000000 rounds = 1.20e10 flows";
        query_interval_on_another_kind: concat!(star!(), "[[workload]]\nkind = \"poisson\"\nrate = 10.0\nstop = \"1s\"\nquery_interval = \"1ms\"\n"), "workload[0].query_interval", "does not apply to kind = \"poisson\"";
    }
}
