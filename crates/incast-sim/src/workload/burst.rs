//! D3 Section 6.1.1's flow bursts as flows: every worker answers one aggregator at the same
//! instant, round after round. A closed loop draws each round when the previous one has completed
//! (`Burst`, driven by the engine); an open loop's rounds start on a schedule known before the
//! run (periodic, or Poisson as the queries of a partition-aggregate benchmark), so all of them
//! are planned up front.

use incast_proto::time::{Duration, Instant};

use crate::error::ResourceError;
use crate::rng::Rng;
use crate::scenario::{DeadlineDist, FlowOptions, RoundStarts, SizeDist};

use super::draw::{sample_deadline, sample_size, Arrivals, FlowPlan, FlowSink};

/// What each round of a flow-burst workload draws: one response per worker to the aggregator.
pub(super) struct Responses {
    pub(super) workload: u32,
    pub(super) aggregator: u32,
    pub(super) workers: Vec<u32>,
    pub(super) size: SizeDist,
    pub(super) deadline: Option<DeadlineDist>,
    pub(super) options: FlowOptions,
}

impl Responses {
    /// The flows of round `round`, all starting at `at`, one per worker in order; each draws its
    /// size, then its deadline, from `rng` as it is taken.
    fn flows<'a>(&'a self, round: u32, at: Instant, rng: &'a mut Rng) -> impl Iterator<Item = FlowPlan> + 'a {
        self.workers.iter().map(move |&worker| {
            let size = sample_size(&self.size, rng);
            let deadline = self.deadline.as_ref().map(|d| sample_deadline(d, rng));
            let flow = FlowPlan::new(self.workload, &self.options, worker, self.aggregator, Some(size), at, deadline);
            FlowPlan { round, ..flow }
        })
    }
}

/// A closed-loop flow-burst workload in progress. Rounds are drawn when they begin, so a run
/// with thousands of rounds holds only the flows it has started.
pub(crate) struct Burst {
    responses: Responses,
    rng: Rng,
    rounds: u32,
    gap: Duration,
    /// Round most recently begun.
    current: u32,
    /// Flows of the current round not yet complete.
    outstanding: u32,
}

impl Burst {
    /// Draws the flows of the next round, starting at `at`, into `out`.
    fn begin_round(&mut self, round: u32, at: Instant, out: &mut Vec<FlowPlan>) {
        self.current = round;
        self.outstanding = self.responses.workers.len() as u32;
        out.extend(self.responses.flows(round, at, &mut self.rng));
    }

    /// Flows of the rounds not yet drawn.
    pub(crate) fn flows_to_come(&self) -> u64 {
        u64::from(self.rounds.saturating_sub(self.current + 1)) * self.responses.workers.len() as u64
    }

    /// One flow of the current round completed at `now`; when it was the last, draws the next
    /// round (starting `gap` later) into `out` and returns true.
    pub(crate) fn flow_completed(&mut self, now: Instant, out: &mut Vec<FlowPlan>) -> bool {
        self.outstanding -= 1;
        if self.outstanding > 0 || self.current + 1 >= self.rounds {
            return false;
        }
        self.begin_round(self.current + 1, now + self.gap, out);
        true
    }

    /// Whether rounds remain to be drawn.
    #[cfg(test)]
    pub(crate) fn has_more_rounds(&self) -> bool {
        self.current + 1 < self.rounds
    }
}

/// Start times of the rounds of an open loop.
enum Schedule {
    /// Round r at `first + r x interval`.
    Periodic { first: Instant, interval: Duration },
    /// At the arrivals of a Poisson process.
    Poisson(Arrivals),
}

impl Schedule {
    /// The start of round `round` (rounds are asked for in order), or `None` past the end of
    /// simulated time.
    fn start(&mut self, round: u32, rng: &mut Rng) -> Option<Instant> {
        match self {
            Schedule::Periodic { first, interval } => Some(*first + interval.saturating_mul(u64::from(round))),
            Schedule::Poisson(arrivals) => arrivals.next(rng),
        }
    }
}

/// Plans a flow-burst workload of `rounds` rounds, the first starting at `start` or, for Poisson
/// starts, one exponential gap after it. A closed loop's first round goes into `out` and the
/// `Burst` that draws the others is returned; an open loop's rounds all go into `out`, in start
/// order, each round's start drawn from `rng` before its flows.
pub(super) fn plan(
    responses: Responses,
    start: Instant,
    rounds: u32,
    round_starts: RoundStarts,
    mut rng: Rng,
    out: &mut FlowSink<'_>,
) -> Result<Option<Burst>, ResourceError> {
    let mut schedule = match round_starts {
        RoundStarts::AfterCompletion { gap } => {
            let mut burst = Burst { responses, rng, rounds, gap, current: 0, outstanding: 0 };
            if rounds > 0 {
                burst.begin_round(0, start, out.flows);
            }
            return Ok(Some(burst));
        }
        RoundStarts::Periodic { interval } => Schedule::Periodic { first: start, interval },
        // Bounded by the end of simulated time only: a round past the horizon is planned and
        // left unstarted, so the run reports it unfinished rather than silently dropping it.
        RoundStarts::Poisson { rate_per_sec } => Schedule::Poisson(Arrivals::new(1.0 / rate_per_sec, start, Instant::NEVER)),
    };
    for round in 0..rounds {
        // Only a start past 2^64 ps (beyond any horizon) ends early; later ones would be later.
        let Some(at) = schedule.start(round, &mut rng) else { break };
        for flow in responses.flows(round, at, &mut rng) {
            out.push(flow)?;
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FlowBurstWorkload, WorkloadSpec};
    use crate::workload::plan as plan_all;

    /// Three workers (hosts 1, 2, 1) answering host 0 with random sizes and deadlines, `rounds`
    /// rounds starting as `round_starts` says, the first at 1 ms.
    fn burst(rounds: u32, round_starts: RoundStarts) -> WorkloadSpec {
        FlowBurstWorkload {
            size: SizeDist::Uniform { lo: 2_000, hi: 50_000 },
            deadline: Some(DeadlineDist::Exponential { mean: Duration::from_ms(20), min: Duration::ZERO }),
            start: Instant::ZERO + Duration::from_ms(1),
            rounds,
            round_starts,
            ..FlowBurstWorkload::new(0, vec![1, 2, 1])
        }
        .into()
    }

    const EVERY_80_MS: RoundStarts = RoundStarts::Periodic { interval: Duration::from_ms(80) };

    /// The start of each round, checking that every flow of a round starts with it.
    fn round_starts(flows: &[FlowPlan], rounds: u32) -> Vec<Instant> {
        let mut of_round: Vec<Vec<&FlowPlan>> = vec![Vec::new(); rounds as usize];
        for f in flows {
            of_round[f.round as usize].push(f);
        }
        of_round
            .iter()
            .enumerate()
            .map(|(r, of_round)| {
                assert_eq!(of_round.len(), 3, "round {r}");
                assert!(of_round.iter().all(|f| f.start == of_round[0].start), "round {r} starts at once");
                of_round[0].start
            })
            .collect()
    }

    #[test]
    fn periodic_rounds_start_exactly_one_interval_apart_and_are_all_planned_up_front() {
        let p = plan_all(&[burst(5, EVERY_80_MS)], 1, u64::MAX).unwrap();
        assert!(p.bursts[0].is_none(), "an open loop needs no generator during the run");
        assert_eq!(p.flows.len(), 15);
        let expected: Vec<Instant> = (0..5).map(|r| Instant::ZERO + Duration::from_ms(1 + 80 * r)).collect();
        assert_eq!(round_starts(&p.flows, 5), expected);
        let rounds: Vec<u32> = p.flows.iter().map(|f| f.round).collect();
        assert_eq!(rounds, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
        let senders: Vec<u32> = p.flows.iter().map(|f| f.src).collect();
        assert_eq!(senders, [1, 2, 1].repeat(5));
        assert!(p.flows.iter().all(|f| f.dst == 0 && f.workload == 0));
    }

    #[test]
    fn poisson_rounds_start_after_start_in_order_with_the_mean_gap_of_the_rate() {
        let rounds = 20_000;
        let p = plan_all(&[burst(rounds, RoundStarts::Poisson { rate_per_sec: 1_000.0 })], 2, u64::MAX).unwrap();
        assert!(p.bursts[0].is_none());
        assert_eq!(p.flows.len(), 3 * rounds as usize);
        let starts = round_starts(&p.flows, rounds);
        let first = Instant::ZERO + Duration::from_ms(1);
        assert!(starts[0] > first, "the first round waits one gap after start");
        assert!(starts.windows(2).all(|w| w[0] <= w[1]), "rounds start in order");
        assert!(p.flows.windows(2).all(|w| w[0].start <= w[1].start && w[0].round <= w[1].round));
        let mean_gap_s = starts[starts.len() - 1].saturating_since(first).as_secs_f64() / f64::from(rounds);
        // 20 000 exponential gaps: the standard error of their mean is 0.7%.
        assert!((mean_gap_s - 1e-3).abs() < 3e-5, "mean gap {mean_gap_s} s");
        // Exponential gaps: about 1 - 1/e of them below the mean.
        let short = starts.windows(2).filter(|w| w[1].saturating_since(w[0]) < Duration::from_ms(1)).count();
        let share = short as f64 / f64::from(rounds - 1);
        assert!((share - 0.632).abs() < 0.02, "{share} of the gaps below the mean");
    }

    #[test]
    fn every_flow_of_an_open_loop_draws_its_own_size_and_deadline() {
        let p = plan_all(&[burst(100, RoundStarts::Poisson { rate_per_sec: 50.0 })], 3, u64::MAX).unwrap();
        let sizes: std::collections::HashSet<u64> = p.flows.iter().map(|f| f.size_bytes.unwrap()).collect();
        let deadlines: std::collections::HashSet<Duration> = p.flows.iter().map(|f| f.deadline.unwrap()).collect();
        // 300 draws from 48 001 sizes and a continuous deadline: nearly all distinct.
        assert!(sizes.len() > 290 && deadlines.len() > 290, "{} sizes, {} deadlines", sizes.len(), deadlines.len());
        assert!(p.flows.iter().all(|f| (2_000..=50_000).contains(&f.size_bytes.unwrap())));
    }

    #[test]
    fn periodic_rounds_draw_sizes_and_deadlines_as_the_closed_loop_does() {
        // With the same stream and no draws for the starts, round r of either loop gets the same
        // flows: only the start times differ.
        let closed = RoundStarts::AfterCompletion { gap: Duration::ZERO };
        let mut p = plan_all(&[burst(2, closed)], 4, u64::MAX).unwrap();
        let mut next = Vec::new();
        for _ in 0..3 {
            p.bursts[0].as_mut().unwrap().flow_completed(Instant::ZERO, &mut next);
        }
        let closed_flows: Vec<FlowPlan> = p.flows.into_iter().chain(next).collect();
        let open_flows = plan_all(&[burst(2, EVERY_80_MS)], 4, u64::MAX).unwrap().flows;
        let drawn = |f: &FlowPlan| (f.src, f.size_bytes, f.deadline, f.round);
        assert_eq!(closed_flows.iter().map(drawn).collect::<Vec<_>>(), open_flows.iter().map(drawn).collect::<Vec<_>>());
    }

    #[test]
    fn open_loops_are_deterministic_per_seed() {
        let flows = |seed| plan_all(&[burst(50, RoundStarts::Poisson { rate_per_sec: 100.0 })], seed, u64::MAX).unwrap().flows;
        assert_eq!(flows(5), flows(5));
        assert_ne!(flows(5), flows(6));
    }

    #[test]
    fn open_loop_planning_stops_at_the_flow_limit() {
        assert!(plan_all(&[burst(4, EVERY_80_MS)], 1, 12).is_ok());
        let e = plan_all(&[burst(5, EVERY_80_MS)], 1, 12).err().expect("15 flows pass a limit of 12");
        assert!(e.message.contains("limit of 12 flows (`run.max_flows`"), "{e}");
    }
}
