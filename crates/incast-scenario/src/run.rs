//! `[run]`: the horizon, the limits and the duration, read before every other section so that
//! each is checked against them (`limits` holds the checks that use them).

use incast_proto::time::{Duration, Instant};

use super::check::{err, positive_time, Result};
use super::file::RawRun;
use super::limits::seconds;
use super::spec::{RunSpec, DEFAULT_HORIZON, DEFAULT_MAX_FLOWS, DEFAULT_MAX_HOSTS, DEFAULT_MAX_SAMPLES, DEFAULT_MAX_TRACE_BYTES, DEFAULT_MAX_NETWORK_BYTES, MAX_HORIZON};
use super::units::Time;

/// Largest `run.max_flows`: flow ids are 32-bit.
const MAX_MAX_FLOWS: u64 = u32::MAX as u64;
/// Largest `run.max_hosts`: 2^28 hosts keep every topology's node and port ids within 32 bits (a
/// fat-tree has six egress ports per host).
const MAX_MAX_HOSTS: u64 = 1 << 28;

/// `[run]`: the horizon, the limits and the duration (at most the horizon). Whether a duration is
/// required depends on the workloads and is checked after them.
pub(crate) fn run_spec(raw: &RawRun) -> Result<RunSpec> {
    let d = RunSpec::default();
    let horizon = positive_time(|| "run.horizon".into(), raw.horizon, DEFAULT_HORIZON)?;
    if horizon > MAX_HORIZON {
        return Err(err(
            "run.horizon",
            format!(
                "must be at most {} (found {}): simulated time is counted in 64-bit picoseconds and \
                 must leave room for the timers of a run at its horizon",
                seconds(MAX_HORIZON),
                seconds(horizon)
            ),
        ));
    }
    let duration = raw
        .duration
        .map(|t| positive_time(|| "run.duration".into(), Some(t), Duration::ZERO))
        .transpose()?;
    if let Some(duration) = duration.filter(|&t| t > horizon) {
        return Err(err(
            "run.duration",
            format!(
                "must not exceed run.horizon ({} > {}); raise run.horizon to run longer",
                seconds(duration),
                seconds(horizon)
            ),
        ));
    }
    let limit = |key: &str, value: Option<u64>, default: u64, max: u64| -> Result<u64> {
        match value {
            None => Ok(default),
            Some(n) if (1..=max).contains(&n) => Ok(n),
            Some(n) if max == u64::MAX => Err(err(format!("run.{key}"), format!("must be a positive integer (found {n})"))),
            Some(n) => Err(err(format!("run.{key}"), format!("must be between 1 and {max} (found {n})"))),
        }
    };
    for (key, value) in [("warmup", raw.warmup), ("measure_until", raw.measure_until)] {
        within_horizon_at(&format!("run.{key}"), value, horizon)?;
    }
    let warmup = raw.warmup.map_or(Duration::ZERO, |t| Duration::from_ps(t.0));
    let measure_until = match raw.measure_until {
        Some(Time(0)) => return Err(err("run.measure_until", "must be after 0 s: no flow could be measured")),
        Some(Time(ps)) if Duration::from_ps(ps) <= warmup => {
            return Err(err(
                "run.measure_until",
                format!(
                    "must be after run.warmup ({} <= {}): no flow could be measured",
                    seconds(Duration::from_ps(ps)),
                    seconds(warmup)
                ),
            ))
        }
        Some(Time(ps)) => Some(Instant::from_ps(ps)),
        None => None,
    };
    Ok(RunSpec {
        duration,
        stop_after_finite_flows: raw.stop_after_finite_flows.unwrap_or(d.stop_after_finite_flows),
        horizon,
        warmup,
        measure_until,
        max_flows: limit("max_flows", raw.max_flows, DEFAULT_MAX_FLOWS, MAX_MAX_FLOWS)?,
        max_hosts: limit("max_hosts", raw.max_hosts, DEFAULT_MAX_HOSTS, MAX_MAX_HOSTS)?,
        max_samples: limit("max_samples", raw.max_samples, DEFAULT_MAX_SAMPLES, u64::MAX)?,
        max_trace_bytes: limit("max_trace_bytes", raw.max_trace_bytes, DEFAULT_MAX_TRACE_BYTES, u64::MAX)?,
        max_network_bytes: limit("max_network_bytes", raw.max_network_bytes, DEFAULT_MAX_NETWORK_BYTES, u64::MAX)?,
    })
}

/// Errs at `key` if a time of `[run]` lies past `horizon`.
fn within_horizon_at(key: &str, value: Option<Time>, horizon: Duration) -> Result<()> {
    match value {
        Some(Time(ps)) if Duration::from_ps(ps) > horizon => Err(err(
            key,
            format!("is past the run's horizon ({} > run.horizon = {})", seconds(Duration::from_ps(ps)), seconds(horizon)),
        )),
        _ => Ok(()),
    }
}
