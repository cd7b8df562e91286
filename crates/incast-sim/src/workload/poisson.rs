//! Poisson arrivals between random hosts (the field's all-to-all workloads), drawn as the run
//! reaches them rather than all before it: a run of millions of flows holds one pending arrival
//! per workload, not a plan per flow (issue 26: memory that follows the flows in flight).
//!
//! The flows are numbered before the run all the same: planning counts the workload's arrivals
//! by drawing them once from a copy of its random stream, so that its flows keep the numbers an
//! eager plan gave them (the order of the workloads, arrivals in order within each) and every
//! result stays bit-identical. Counting costs one pass of draws, no memory.

use std::collections::HashMap;

use incast_proto::time::Instant;

use crate::rng::Rng;
use crate::scenario::{DeadlineDist, FlowOptions, HostIndex, Protocol, RackLocal, SizeDist, TrafficPattern};

use super::draw::{sample_deadline, sample_size, Arrivals, FlowPlan};

/// A Poisson workload's arrivals: each [`next`](Self::next) draws one flow, in the order, and
/// with the draws from the workload's random stream, of the eager plan this replaces (arrival
/// time, source, destination, size, deadline).
#[derive(Clone)]
pub(crate) struct PoissonSource {
    workload: u32,
    rng: Rng,
    arrivals: Arrivals,
    hosts: Vec<HostIndex>,
    destinations: Option<Vec<HostIndex>>,
    /// Under `pattern = "permutation"`: each sender's partner, by index into `hosts`.
    partner: Option<Vec<usize>>,
    by_rack: Option<ByRack>,
    size: SizeDist,
    deadline: Option<DeadlineDist>,
    options: FlowOptions,
}

/// What a Poisson workload spec holds, borrowed for [`PoissonSource::new`].
pub(crate) struct PoissonSpec<'a> {
    pub(crate) rate_per_sec: f64,
    pub(crate) hosts: &'a [HostIndex],
    pub(crate) destinations: Option<&'a [HostIndex]>,
    pub(crate) pattern: TrafficPattern,
    pub(crate) rack_local: Option<&'a RackLocal>,
    pub(crate) size: &'a SizeDist,
    pub(crate) deadline: Option<&'a DeadlineDist>,
    pub(crate) start: Instant,
    pub(crate) stop: Instant,
    pub(crate) options: &'a FlowOptions,
}

impl PoissonSource {
    /// The arrivals of workload `workload` as `spec` describes them, drawn from `rng` (a
    /// permutation pattern draws its partners first).
    pub(crate) fn new(workload: u32, spec: &PoissonSpec<'_>, mut rng: Rng) -> PoissonSource {
        let partner = match spec.pattern {
            TrafficPattern::Random => None,
            TrafficPattern::Permutation => Some(cyclic_permutation(spec.hosts.len(), &mut rng)),
        };
        let by_rack = spec.rack_local.map(|r| ByRack::new(spec.destinations.unwrap_or(spec.hosts), r));
        PoissonSource {
            workload,
            rng,
            arrivals: Arrivals::new(1.0 / spec.rate_per_sec, spec.start, spec.stop),
            hosts: spec.hosts.to_vec(),
            destinations: spec.destinations.map(<[HostIndex]>::to_vec),
            partner,
            by_rack,
            size: spec.size.clone(),
            deadline: spec.deadline.cloned(),
            options: spec.options.clone(),
        }
    }

    /// The protocol the workload's flows run, when it names one.
    pub(crate) fn protocol(&self) -> Option<Protocol> {
        self.options.protocol
    }

    /// How many flows the workload will draw, counting at most `limit` (the count is then
    /// `limit`): the arrivals drawn from a copy of the stream and thrown away.
    pub(crate) fn count(&self, limit: u64) -> u64 {
        let mut copy = self.clone();
        let mut n = 0;
        while n < limit && copy.next().is_some() {
            n += 1;
        }
        n
    }

    /// The next arrival, or `None` once they would fall at or after the workload's stop.
    pub(crate) fn next(&mut self) -> Option<FlowPlan> {
        let rng = &mut self.rng;
        let at = self.arrivals.next(rng)?;
        let hosts = &self.hosts;
        let si = rng.index(hosts.len());
        let src = hosts[si];
        let dst = match (&self.destinations, &self.partner, &self.by_rack) {
            (_, _, Some(by_rack)) => by_rack.draw(src, rng),
            (_, Some(partner), None) => hosts[partner[si]],
            (None, None, None) => {
                let mut di = rng.index(hosts.len() - 1);
                if di == si {
                    // Uniform over the other hosts: the source's own slot stands for the last.
                    di = hosts.len() - 1;
                }
                hosts[di]
            }
            // Uniform over the destinations other than the source (validation guarantees there
            // is one).
            (Some(to), None, None) => loop {
                let d = to[rng.index(to.len())];
                if d != src {
                    break d;
                }
            },
        };
        let s = sample_size(&self.size, rng);
        let d = self.deadline.as_ref().map(|d| sample_deadline(d, rng));
        Some(FlowPlan::new(self.workload, &self.options, src, dst, Some(s), at, d))
    }
}

/// The destinations of a workload with rack-local traffic, grouped by rack, so that a draw from
/// a sender's rack or from outside it is one uniform index.
#[derive(Clone)]
struct ByRack {
    /// The destinations ordered by rack (file order within one).
    hosts: Vec<HostIndex>,
    /// Where each rack's destinations lie in `hosts`, by rack.
    ranges: HashMap<u32, (usize, usize)>,
    spec: RackLocal,
}

impl ByRack {
    fn new(destinations: &[HostIndex], spec: &RackLocal) -> Self {
        let mut hosts = destinations.to_vec();
        hosts.sort_by_key(|&h| spec.racks[h as usize]);
        let mut ranges: HashMap<u32, (usize, usize)> = HashMap::new();
        for (i, &h) in hosts.iter().enumerate() {
            ranges.entry(spec.racks[h as usize]).and_modify(|r| r.1 = i + 1).or_insert((i, i + 1));
        }
        ByRack { hosts, ranges, spec: spec.clone() }
    }

    /// A destination for `src`: with probability `share` uniform over the other destinations of
    /// its rack, else uniform over those outside it (validation guarantees both exist when their
    /// probability is above 0).
    fn draw(&self, src: HostIndex, rng: &mut Rng) -> HostIndex {
        let (lo, hi) = self.ranges.get(&self.spec.racks[src as usize]).copied().unwrap_or((0, 0));
        if rng.unit() < self.spec.share {
            loop {
                let d = self.hosts[lo + rng.index(hi - lo)];
                if d != src {
                    return d;
                }
            }
        }
        // Uniform over the indices outside [lo, hi).
        let i = rng.index(self.hosts.len() - (hi - lo));
        self.hosts[if i < lo { i } else { i + (hi - lo) }]
    }
}

/// A uniformly random cyclic permutation of `0..n` (Sattolo's algorithm): `partner[i]` is never
/// `i`, and following partners visits every index, so every host sends to one other and
/// receives from one other.
fn cyclic_permutation(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut partner: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.index(i);
        partner.swap(i, j);
    }
    partner
}
