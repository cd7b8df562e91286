//! The primitive checks every scenario section is built from: ranges, required and
//! kind-specific keys, host indices and one explicit flow, each error naming its key path. A leaf
//! of the scenario modules: the section validators (`validate`, `output`, `traffic`, `oldi`,
//! `trace`, `limits`) import it and it imports none of them, so their dependencies point one way.

use incast_proto::time::Duration;

use super::error::{join, ScenarioError};
use super::units::Time;
use super::spec::ExplicitFlow;

/// Result of a validation step.
pub(crate) type Result<T> = std::result::Result<T, ScenarioError>;

/// An error at `path`.
pub(crate) fn err(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, message)
}

/// Rejects keys that were given but do not apply to `what` (e.g. `kind = "star"`).
pub(crate) fn only_keys(
    path: &str,
    what: &str,
    given: &[(&str, bool)],
    allowed: &[&str],
) -> Result<()> {
    for &(key, present) in given {
        if present && !allowed.contains(&key) {
            let valid = if allowed.is_empty() {
                "it takes none of the optional keys".to_owned()
            } else {
                format!("its keys are {}", allowed.join(", "))
            };
            return Err(err(
                join(path, key),
                format!("does not apply to {what}; {valid}"),
            ));
        }
    }
    Ok(())
}

/// `value`, or "is required for {what}" at `path.key`.
pub(crate) fn required<T>(value: Option<T>, path: &str, key: &str, what: &str) -> Result<T> {
    value.ok_or_else(|| err(join(path, key), format!("is required for {what}")))
}

/// `value` if it is not zero.
pub(crate) fn positive(path: impl FnOnce() -> String, value: u64, unit: &str) -> Result<u64> {
    if value == 0 {
        Err(err(path(), format!("must be positive (found 0 {unit})")))
    } else {
        Ok(value)
    }
}

/// An optional time that must not be zero when given, else `default`.
pub(crate) fn positive_time(
    path: impl FnOnce() -> String,
    value: Option<Time>,
    default: Duration,
) -> Result<Duration> {
    match value {
        None => Ok(default),
        Some(Time(0)) => Err(err(path(), "must be positive (found 0)")),
        Some(Time(ps)) => Ok(Duration::from_ps(ps)),
    }
}

/// A count in `min..=max`.
pub(crate) fn count(path: impl FnOnce() -> String, value: u64, min: u64, max: u64) -> Result<u32> {
    if value < min || value > max {
        return Err(err(
            path(),
            format!("must be between {min} and {max} (found {value})"),
        ));
    }
    u32::try_from(value).map_err(|_| err(String::new(), "count out of range"))
}

/// `value` if it is neither NaN nor infinite.
pub(crate) fn finite(path: &str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(err(
            path,
            format!("must be a finite number (found {value})"),
        ))
    }
}

/// The hosts of the topology, for range checks with a message that says how many there are.
pub(crate) struct Hosts {
    /// Hosts are numbered `0..count`.
    pub(crate) count: u32,
    /// The topology's kind name, for messages.
    pub(crate) topology: &'static str,
}

impl Hosts {
    /// Why `host` is out of range, or `None` if it exists.
    pub(crate) fn missing(&self, host: u64) -> Option<String> {
        (host >= u64::from(self.count)).then(|| {
            format!(
                "host {host} does not exist: the {} topology has {} hosts, numbered 0 to {}",
                self.topology,
                self.count,
                self.count.saturating_sub(1)
            )
        })
    }

    /// Errs at `path()` if `host` does not exist.
    pub(crate) fn check(&self, path: impl FnOnce() -> String, host: u64) -> Result<()> {
        match self.missing(host) {
            Some(message) => Err(err(path(), message)),
            None => Ok(()),
        }
    }
}

/// `hosts` of the workload at `p`: distinct existing hosts, at least 2; every host if not given.
/// Flows drawn from the list (Poisson sources and destinations, OLDI trees) then need no check
/// of their own: a drawn sender and receiver are two of these hosts.
pub(crate) fn host_list(p: &str, list: Option<Vec<u32>>, hosts: &Hosts) -> Result<Vec<u32>> {
    let Some(list) = list else {
        return Ok((0..hosts.count).collect());
    };
    distinct_hosts(&join(p, "hosts"), &list, hosts)?;
    if list.len() < 2 {
        return Err(err(
            join(p, "hosts"),
            "must list at least 2 hosts (a flow needs a sender and a receiver)",
        ));
    }
    Ok(list)
}

/// Every entry of the host list at key `at` exists, and none is listed twice.
pub(crate) fn distinct_hosts(at: &str, list: &[u32], hosts: &Hosts) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for (j, &h) in list.iter().enumerate() {
        hosts.check(|| format!("{at}[{j}]"), u64::from(h))?;
        if !seen.insert(h) {
            return Err(err(format!("{at}[{j}]"), format!("host {h} is listed twice")));
        }
    }
    Ok(())
}

/// Checks one explicit flow (inline or from a trace); the error names the offending field
/// (`src`, `dst`, `size` or `deadline`).
pub(crate) fn check_flow(
    f: &ExplicitFlow,
    hosts: &Hosts,
) -> std::result::Result<(), (&'static str, String)> {
    if let Some(m) = hosts.missing(u64::from(f.src)) {
        return Err(("src", m));
    }
    if let Some(m) = hosts.missing(u64::from(f.dst)) {
        return Err(("dst", m));
    }
    if f.src == f.dst {
        return Err((
            "dst",
            format!(
                "is the same host as src ({}); a flow needs two distinct hosts",
                f.src
            ),
        ));
    }
    if f.size_bytes == Some(0) {
        return Err((
            "size",
            "must be positive (omit it for a long-lived flow)".into(),
        ));
    }
    match f.deadline {
        Some(d) if d == Duration::ZERO => Err((
            "deadline",
            "must be positive (omit it for no deadline)".into(),
        )),
        Some(_) if f.size_bytes.is_none() => Err((
            "deadline",
            "a long-lived flow (no size) cannot have a deadline".into(),
        )),
        _ => Ok(()),
    }
}

/// A DCTCP-family estimation gain g: finite and in (0, 1] (DCTCP Section 3.1, equation 1).
pub(crate) fn estimation_gain(path: &str, g: f64) -> Result<f64> {
    let g = finite(path, g)?;
    if !(g > 0.0 && g <= 1.0) {
        return Err(err(path, format!("must be in (0, 1] (found {g})")));
    }
    Ok(g)
}

/// A DCTCP-family alpha for a new flow: finite and in [0, 1], since alpha estimates a fraction of
/// marked bytes.
pub(crate) fn initial_alpha(path: &str, alpha: f64) -> Result<f64> {
    let alpha = finite(path, alpha)?;
    if !(0.0..=1.0).contains(&alpha) {
        return Err(err(path, format!("must be in [0, 1] (found {alpha})")));
    }
    Ok(alpha)
}
