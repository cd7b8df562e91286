//! Validation of `[output]`: what a run samples, captures and traces. Port patterns
//! (`queue_sample_ports`, `capture_ports`) are matched here against the names of the topology's
//! ports, which the engine supplies ([`PortNames`]; the names of the results' ports table), so
//! that a pattern that names no port is an error of the file, reported by `incast check`, and
//! never of the run.

use incast_proto::time::Duration;

use super::check::{err, positive_time, Hosts, Result};
use super::file::RawOutput;
use super::limits;
use super::spec::{CaptureSpec, HostIndex, OfferLogSpec, OutputSpec, QueueSampling, RunSpec, TopologySpec, TraceSpec};
use crate::port_pattern;

/// The names of a topology's egress ports, which only the engine knows: it decides how a
/// topology becomes nodes and ports, and names each port `{node}->{peer}` (`tor3->fabric`).
/// Validation asks for them only when `[output]` lists port patterns, and refuses a pattern that
/// matches none of them. `incast_sim::scenario` parses with the engine's.
pub trait PortNames {
    /// The names of the ports of the network `topology` describes, in the engine's order (an
    /// error quotes the first few), or why they cannot be had: validation then fails at the
    /// pattern list's key with "cannot name the topology's ports: {why}".
    fn port_names(&self, topology: &TopologySpec) -> std::result::Result<Vec<String>, String>;
}

/// `[output]`, with its port patterns resolved against the names `port_names` gives
/// `topology`'s ports, for a scenario of `workload_count` workloads whose OLDI workloads have at most
/// `app_count` applications.
pub(crate) fn section(
    raw: RawOutput,
    topology: &TopologySpec,
    port_names: &dyn PortNames,
    hosts: &Hosts,
    run: &RunSpec,
    workload_count: usize,
    app_count: usize,
) -> Result<OutputSpec> {
    limits::within_horizon(|| "output.queue_sample_interval".into(), raw.queue_sample_interval, run)?;
    limits::within_horizon(|| "output.flow_throughput_interval".into(), raw.flow_throughput_interval, run)?;
    let queue_samples = match (raw.queue_sample_interval, raw.queue_sample_hosts, raw.queue_sample_ports) {
        (None, None, None) => None,
        (Some(_), None, None) => {
            return Err(err(
                "output.queue_sample_hosts",
                "is required with queue_sample_interval (hosts whose downlink queue to sample), or \
                 queue_sample_ports (ports by name or pattern)",
            ))
        }
        (None, Some(_), _) => return Err(err("output.queue_sample_interval", "is required with queue_sample_hosts")),
        (None, None, Some(_)) => return Err(err("output.queue_sample_interval", "is required with queue_sample_ports")),
        (Some(interval), hosts_list, ports) => {
            let interval = positive_time(
                || "output.queue_sample_interval".into(),
                Some(interval),
                Duration::ZERO,
            )?;
            let field = if hosts_list.is_some() { "output.queue_sample_hosts" } else { "output.queue_sample_ports" };
            let list = hosts_list.unwrap_or_default();
            let ports = ports.unwrap_or_default();
            if list.is_empty() && ports.is_empty() {
                return Err(err(field, "must list at least one host or port"));
            }
            for (j, &h) in list.iter().enumerate() {
                hosts.check(|| format!("output.queue_sample_hosts[{j}]"), u64::from(h))?;
            }
            port_patterns("output.queue_sample_ports", &ports, topology, port_names)?;
            Some(QueueSampling {
                interval,
                host_downlinks: list as Vec<HostIndex>,
                ports,
            })
        }
    };
    let flow_throughput_interval = match raw.flow_throughput_interval {
        None => None,
        Some(t) => Some(positive_time(
            || "output.flow_throughput_interval".into(),
            Some(t),
            Duration::ZERO,
        )?),
    };
    let capture = watched_ports(
        ("capture_ports", raw.capture_ports),
        ("capture_max_packets", raw.capture_max_packets, CaptureSpec::DEFAULT_MAX_PACKETS),
        topology,
        port_names,
    )?
    .map(|(ports, max_packets)| CaptureSpec { ports, max_packets });
    let offer_log = watched_ports(
        ("offer_log_ports", raw.offer_log_ports),
        ("offer_log_max_rows", raw.offer_log_max_rows, OfferLogSpec::DEFAULT_MAX_ROWS),
        topology,
        port_names,
    )?
    .map(|(ports, max_rows)| OfferLogSpec { ports, max_rows });
    let traces = match (raw.trace_flows, raw.trace_workloads, raw.trace_apps) {
        (None, None, None) => None,
        (flows, workloads, apps) => {
            let (flows, workloads, apps) = (flows.unwrap_or_default(), workloads.unwrap_or_default(), apps.unwrap_or_default());
            if flows.is_empty() && workloads.is_empty() && apps.is_empty() {
                return Err(err(
                    "output.trace_flows",
                    "must list at least one flow id (or trace_workloads a workload, or trace_apps an OLDI application)",
                ));
            }
            for (j, &a) in apps.iter().enumerate() {
                if a as usize >= app_count {
                    return Err(err(
                        format!("output.trace_apps[{j}]"),
                        format!("application {a} does not exist (the scenario's OLDI workloads have {app_count}, numbered from 0)"),
                    ));
                }
            }
            for (j, &w) in workloads.iter().enumerate() {
                if w as usize >= workload_count {
                    return Err(err(
                        format!("output.trace_workloads[{j}]"),
                        format!("workload {w} does not exist (the scenario has {workload_count}, numbered from 0)"),
                    ));
                }
            }
            Some(TraceSpec { flows, workloads, apps })
        }
    };
    Ok(OutputSpec {
        queue_samples,
        flow_throughput_interval,
        capture,
        traces,
        offer_log,
    })
}

/// A list of ports to watch and the most the watching may record (`capture_ports` with
/// `capture_max_packets`, `offer_log_ports` with `offer_log_max_rows`): both absent, or a
/// non-empty list of patterns that name ports of `topology` and a limit of at least 1 (its
/// default when not given). The limit alone is an error naming the list.
fn watched_ports(
    (ports_key, ports): (&str, Option<Vec<String>>),
    (max_key, max, default): (&str, Option<u64>, u64),
    topology: &TopologySpec,
    port_names: &dyn PortNames,
) -> Result<Option<(Vec<String>, u64)>> {
    let field = format!("output.{ports_key}");
    let ports = match (ports, max) {
        (None, None) => return Ok(None),
        (None, Some(_)) => return Err(err(field, format!("is required with {max_key}"))),
        (Some(ports), _) => ports,
    };
    if ports.is_empty() {
        return Err(err(field, "must list at least one port"));
    }
    port_patterns(&field, &ports, topology, port_names)?;
    let max = max.unwrap_or(default);
    if max == 0 {
        return Err(err(format!("output.{max_key}"), "must be at least 1"));
    }
    Ok(Some((ports, max)))
}

/// Checks the port patterns listed at `field`: each is a possible port name, and each names at
/// least one port of `topology`. The names are asked for only when some pattern is given.
fn port_patterns(field: &str, patterns: &[String], topology: &TopologySpec, port_names: &dyn PortNames) -> Result<()> {
    for (j, pattern) in patterns.iter().enumerate() {
        port_pattern::check(pattern).map_err(|message| err(format!("{field}[{j}]"), message))?;
    }
    if patterns.is_empty() {
        return Ok(());
    }
    let names = port_names
        .port_names(topology)
        .map_err(|e| err(field, format!("cannot name the topology's ports: {e}")))?;
    if let Some(j) = port_pattern::first_unmatched(patterns, &names) {
        let some: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
        return Err(err(
            format!("{field}[{j}]"),
            format!(
                "{:?} matches no port of this topology (its ports are named like {})",
                patterns[j],
                some.join(", ")
            ),
        ));
    }
    Ok(())
}
