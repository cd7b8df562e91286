//! The message sizes Homa's priorities are computed from (Montazeri et al., SIGCOMM 2018,
//! Section 3.4: receivers compute the unscheduled cutoffs from the sizes of the messages they
//! see): the size distribution of the scenario's workloads that run Homa, as (size, probability)
//! pairs. A step of a CDF is its size; a stretch drawn by linear interpolation, and the uniform
//! and exponential distributions, are cut into `PIECES` equal slices of probability, each at its
//! middle size.

use crate::scenario::{Protocol, Scenario, SizeDist, TraceRows, WorkloadSpec};

/// Slices per interpolated stretch of a CDF, and per uniform or exponential distribution.
const PIECES: u32 = 64;

/// The sizes of the workloads that run Homa, each workload weighing the same (incast knows
/// their rates only for Poisson workloads); a point mass of 1 B when none has sizes.
pub(super) fn of_homa(scenario: &Scenario) -> Vec<(u64, f64)> {
    let runs_homa = |w: &WorkloadSpec| w.flow_protocols(scenario.transport.protocol).contains(&Protocol::Homa);
    let dists: Vec<Vec<(u64, f64)>> = scenario.workloads.iter().filter(|w| runs_homa(w)).filter_map(of_workload).collect();
    if dists.is_empty() {
        return vec![(1, 1.0)];
    }
    let share = 1.0 / dists.len() as f64;
    dists.into_iter().flatten().map(|(s, p)| (s, p * share)).collect()
}

/// A workload's sizes, if it has sizes.
fn of_workload(w: &WorkloadSpec) -> Option<Vec<(u64, f64)>> {
    match w {
        WorkloadSpec::FlowBurst { size, .. } | WorkloadSpec::Poisson { size, .. } => Some(of_dist(size)),
        WorkloadSpec::Flows { flows, .. } => {
            let sized: Vec<u64> = flows.iter().filter_map(|f| f.size_bytes).collect();
            let p = 1.0 / sized.len().max(1) as f64;
            (!sized.is_empty()).then(|| sized.into_iter().map(|s| (s, p)).collect())
        }
        WorkloadSpec::Oldi(o) => {
            let p = 1.0 / o.apps.len().max(1) as f64;
            (!o.apps.is_empty()).then(|| o.apps.iter().map(|a| (a.message_bytes, p)).collect())
        }
        WorkloadSpec::Trace { trace, .. } => {
            // The file is read once more, row by row: its sizes alone are kept (8 B a flow,
            // for the setup only). A file that cannot be read again is the run's own error,
            // reported when the run reaches it; here it only leaves the workload out.
            let mut rows = TraceRows::open(trace).ok()?;
            let mut sized = Vec::new();
            while let Ok(Some(flow)) = rows.next_flow() {
                sized.extend(flow.size_bytes);
            }
            let p = 1.0 / sized.len().max(1) as f64;
            (!sized.is_empty()).then(|| sized.into_iter().map(|s| (s, p)).collect())
        }
        WorkloadSpec::LongFlows { .. } => None,
    }
}

/// A distribution as (size, probability) pairs.
fn of_dist(d: &SizeDist) -> Vec<(u64, f64)> {
    let slice = 1.0 / f64::from(PIECES);
    let mid = |i: u32| (f64::from(i) + 0.5) * slice;
    match *d {
        SizeDist::Fixed(s) => vec![(s, 1.0)],
        SizeDist::Uniform { lo, hi } => (0..PIECES).map(|i| (lo + ((hi - lo) as f64 * mid(i)).round() as u64, slice)).collect(),
        SizeDist::Exponential { mean } => (0..PIECES).map(|i| (((-(1.0 - mid(i)).ln()) * mean as f64).ceil().max(1.0) as u64, slice)).collect(),
        SizeDist::Cdf(ref points) => {
            let mut out = Vec::new();
            let mut prev = (0u64, 0.0f64);
            for &(size, p) in points {
                let mass = p - prev.1;
                if mass > 0.0 {
                    if size == prev.0 {
                        out.push((size, mass));
                    } else {
                        let width = (size - prev.0) as f64;
                        out.extend((0..PIECES).map(|i| (prev.0 + (width * mid(i)).round() as u64, mass * slice)));
                    }
                }
                prev = (size, p);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_keep_their_sizes_and_stretches_are_sliced() {
        // A step at 100 B (half), then a stretch from 100 to 300 B (the other half).
        let d = SizeDist::Cdf(vec![(100, 0.0), (100, 0.5), (300, 1.0)]);
        let pairs = of_dist(&d);
        assert_eq!(pairs[0], (100, 0.5));
        assert_eq!(pairs.len(), 1 + PIECES as usize);
        let mean: f64 = pairs.iter().map(|&(s, p)| s as f64 * p).sum();
        assert!((mean - 150.0).abs() < 0.5, "{mean}: half at 100, half averaging 200");
        let total: f64 = pairs.iter().map(|&(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }
}
