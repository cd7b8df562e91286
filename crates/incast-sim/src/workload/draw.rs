//! What every workload draws its flows with: the flow it plans (`FlowPlan`), Poisson arrival
//! times, sizes and deadlines from their distributions, and where planned flows go within the
//! run's flow limit (`FlowSink`). Below the workload generators (`burst`, `oldi`, `poisson`)
//! and the planner that dispatches to them (`workload`).

use incast_proto::time::{Duration, Instant};

use crate::error::{reserve, ResourceError};
use crate::rng::Rng;
use crate::scenario::{DeadlineDist, FlowOptions, Protocol, SizeDist};

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
    pub(crate) fn new(
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
pub(crate) struct Arrivals {
    /// Last arrival, seconds.
    t: f64,
    mean_gap_s: f64,
    stop: Instant,
}

impl Arrivals {
    /// Arrivals `mean_gap_s` seconds apart on average (exponential gaps), the first one gap
    /// after `start`.
    pub(crate) fn new(mean_gap_s: f64, start: Instant, stop: Instant) -> Arrivals {
        Arrivals { t: start.as_secs_f64(), mean_gap_s, stop }
    }

    /// The next arrival, or `None` once it would fall at or after `stop`.
    pub(crate) fn next(&mut self, rng: &mut Rng) -> Option<Instant> {
        self.t += rng.exponential(self.mean_gap_s);
        let at = Instant::ZERO + Duration::from_secs_f64(self.t);
        (at < self.stop).then_some(at)
    }
}

/// Where planned flows go: at most `max_flows` of them, however the random draws fall (a
/// Poisson workload's count is only expected to be near the estimate checked at load time).
pub(crate) struct FlowSink<'a> {
    pub(crate) flows: &'a mut Vec<FlowPlan>,
    /// Flows of the sources planned so far, drawn during the run.
    pub(crate) lazy: u64,
    pub(crate) max_flows: u64,
    /// The key of the workload being planned, for the error.
    pub(crate) key: String,
}

impl FlowSink<'_> {
    /// Flows planned so far, drawn before the run or not.
    pub(crate) fn planned(&self) -> u64 {
        self.flows.len() as u64 + self.lazy
    }

    /// The error of a workload that takes the run past `max_flows`.
    pub(crate) fn over_limit(&self) -> ResourceError {
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

    /// The sizes drawn from each shipped distribution average to the mean its file states and
    /// `load` divides by (`SizeDist::mean_bytes`), within four standard errors of 400,000 draws.
    #[test]
    fn named_distributions_draw_their_stated_means() {
        use crate::scenario::named_sizes;
        for (k, name) in named_sizes::NAMES.iter().enumerate() {
            let dist = crate::scenario::named_distribution("size", name).unwrap();
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

    #[test]
    fn cdf_sampling_interpolates() {
        let pts = [(1_000, 0.5), (3_000, 1.0)];
        assert_eq!(sample_cdf(&pts, 0.25), 500);
        assert_eq!(sample_cdf(&pts, 0.75), 2_000);
        assert_eq!(sample_cdf(&pts, 1.0), 3_000);
    }
}
