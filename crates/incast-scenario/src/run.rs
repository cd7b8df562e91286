//! `[run]`: the horizon, the limits and the duration, read before every other section so that
//! each is checked against them (`limits` holds the checks that use them).

use incast_proto::time::{Duration, Instant};

use super::check::{err, positive_time, Result};
use super::file::{RawRun, RawStallAfter, RawThreads};
use super::limits::seconds;
use super::spec::{RunSpec, DEFAULT_HORIZON, DEFAULT_MAX_FLOWS, DEFAULT_MAX_HOSTS, DEFAULT_MAX_SAMPLES, DEFAULT_MAX_TRACE_BYTES, DEFAULT_MAX_NETWORK_BYTES, MAX_HORIZON, MAX_THREADS, StallAfter, Threads};
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
    let stall_after = match raw.stall_after {
        None | Some(RawStallAfter::Auto) => StallAfter::Auto,
        Some(RawStallAfter::Off) => StallAfter::Off,
        Some(RawStallAfter::After(0)) => {
            return Err(err("run.stall_after", "must be positive (found 0 s); \"off\" turns the watchdog off"))
        }
        Some(RawStallAfter::After(ps)) if Duration::from_ps(ps) > horizon => {
            return Err(err(
                "run.stall_after",
                format!(
                    "is past the run's horizon ({} > run.horizon = {}): no run could wait that long; \"off\" turns the watchdog off",
                    seconds(Duration::from_ps(ps)),
                    seconds(horizon)
                ),
            ))
        }
        Some(RawStallAfter::After(ps)) => StallAfter::After(Duration::from_ps(ps)),
    };
    let threads = match raw.threads {
        None => None,
        Some(RawThreads::Auto) => Some(Threads::Auto),
        Some(RawThreads::Count(n)) if (1..=i64::from(MAX_THREADS)).contains(&n) => Some(Threads::Count(n as u32)),
        Some(RawThreads::Count(n)) => {
            return Err(err("run.threads", format!("must be between 1 and {MAX_THREADS} (found {n}), or \"auto\" (one per core)")))
        }
    };
    Ok(RunSpec {
        threads,
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
        stall_after,
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

#[cfg(test)]
mod tests {
    use incast_proto::time::Duration;

    use crate::fixtures::PORTS;
    use crate::{parse_toml, Scenario, ScenarioError, StallAfter};

    fn parse(run: &str) -> Result<Scenario, ScenarioError> {
        let text = format!("[topology]\nkind = \"star\"\nhosts = 4\n[run]\n{run}\n[[workload]]\nkind = \"flow-burst\"\n");
        parse_toml(&text, None, &PORTS)
    }

    #[test]
    fn stall_after_is_auto_a_time_or_off() {
        assert_eq!(parse("").expect("valid").run.stall_after, StallAfter::Auto);
        assert_eq!(parse("stall_after = \"AUTO\"").expect("valid").run.stall_after, StallAfter::Auto);
        assert_eq!(parse("stall_after = \"off\"").expect("valid").run.stall_after, StallAfter::Off);
        assert_eq!(parse("stall_after = \"250ms\"").expect("valid").run.stall_after, StallAfter::After(Duration::from_ms(250)));
    }

    #[test]
    fn stall_after_is_positive_within_the_horizon() {
        for (run, needle) in [
            ("stall_after = \"0s\"", "must be positive"),
            ("stall_after = \"2s\"\nhorizon = \"1s\"", "is past the run's horizon (2 s > run.horizon = 1 s)"),
            ("stall_after = \"soon\"", "or \"auto\" or \"off\""),
            ("stall_after = 10", "a time string such as \"10s\""),
        ] {
            let e = parse(run).expect_err(run);
            assert_eq!(e.path, "run.stall_after", "{e}");
            assert!(e.message.contains(needle), "{needle:?} not in {e}");
        }
    }
}
