//! The bounds of a run: its simulated-time horizon and the resource limits of `[run]`, read before
//! every other section so that each is checked against them, and the check-time estimates that
//! hold a scenario to them. Each error names the key that produced the excess and the `[run]` key
//! that would allow it; docs/scenario.md ("The `[run]` section") is the user-facing copy.

use std::cell::{Cell, RefCell};

use incast_proto::time::{Duration, Instant};

use super::check::{err, Result};
use super::footprint::{size_key, Footprint, Shape};
use super::units::Time;
use super::spec::{
    BufferSpec, LinkSpec, OutputSpec, RunSpec, SwitchSpec, TopologySpec, TransportSpec,
};

/// A time in seconds, for messages.
pub(crate) fn seconds(t: Duration) -> String {
    format!("{} s", t.as_secs_f64())
}

/// A count for messages: exact while it reads easily, else in scientific notation.
fn amount(n: f64) -> String {
    if n < 1e9 {
        format!("{n:.0}")
    } else {
        format!("{n:.2e}")
    }
}

/// The sentence of an error at a limit: `found` (what the key produced) is above `limit` `unit`s
/// of `run.{key}`.
pub(crate) fn above_limit(found: &str, limit: u64, unit: &str, key: &str) -> String {
    format!("{found}, above the limit of {limit} {unit} (`run.{key}`; raise it to run anyway)")
}

/// Errs at `path` if `hosts` is above `run.max_hosts`.
pub(crate) fn hosts(path: impl FnOnce() -> String, hosts: u64, run: &RunSpec) -> Result<()> {
    if hosts > run.max_hosts {
        return Err(err(path(), above_limit(&format!("{hosts} hosts"), run.max_hosts, "hosts", "max_hosts")));
    }
    Ok(())
}

/// Errs at `path` if a delay, timer or interval the file set is longer than the horizon: it
/// could never elapse within the run.
pub(crate) fn within_horizon(path: impl FnOnce() -> String, value: Option<Time>, run: &RunSpec) -> Result<()> {
    match value {
        Some(Time(ps)) if Duration::from_ps(ps) > run.horizon => Err(err(
            path(),
            format!(
                "is longer than the run's horizon ({} > run.horizon = {}), so it could never elapse; \
                 raise run.horizon or shorten it",
                seconds(Duration::from_ps(ps)),
                seconds(run.horizon)
            ),
        )),
        _ => Ok(()),
    }
}

/// Why a flow starting at `start` never could, or `None`: the engine processes nothing at or
/// after the horizon.
pub(crate) fn late_start(start: Instant, run: &RunSpec) -> Option<String> {
    (start >= Instant::ZERO + run.horizon).then(|| {
        format!(
            "starts at or after the run's horizon ({} >= run.horizon = {}), so it would never run",
            seconds(start.saturating_since(Instant::ZERO)),
            seconds(run.horizon)
        )
    })
}

/// Errs at `path` if a workload starting at `start` never could.
pub(crate) fn start_before_horizon(path: impl FnOnce() -> String, start: Instant, run: &RunSpec) -> Result<()> {
    match late_start(start, run) {
        Some(message) => Err(err(path(), message)),
        None => Ok(()),
    }
}

/// Flows the workloads plan, counted against `run.max_flows` as each workload is checked.
pub(crate) struct FlowBudget {
    limit: u64,
    planned: Cell<f64>,
    /// The key that planned the most flows, and how many: what an error about the flows'
    /// memory names (`network_memory`).
    largest: RefCell<Option<(String, f64)>>,
}

impl FlowBudget {
    /// An empty budget of `run.max_flows`.
    pub(crate) fn new(run: &RunSpec) -> Self {
        FlowBudget { limit: run.max_flows, planned: Cell::new(0.0), largest: RefCell::new(None) }
    }

    /// Flows planned so far (expected, for random arrivals).
    pub(crate) fn planned(&self) -> f64 {
        self.planned.get()
    }

    /// Adds a workload's `flows` (an expectation for random arrivals); errs at `path` when the
    /// total passes the limit. `what` says how the key produced them ("about 1e18 flows over 1 s").
    pub(crate) fn charge(&self, path: impl FnOnce() -> String, flows: f64, what: impl FnOnce(&str) -> String) -> Result<()> {
        let before = self.planned.get();
        let total = before + flows;
        let path = path();
        if total > self.limit as f64 {
            let mut found = what(&amount(flows));
            if before > 0.0 {
                found = format!("{found} (plus {} from the workloads before it)", amount(before));
            }
            return Err(err(path, above_limit(&found, self.limit, "flows", "max_flows")));
        }
        self.planned.set(total);
        let mut largest = self.largest.borrow_mut();
        if largest.as_ref().is_none_or(|&(_, most)| flows > most) {
            *largest = Some((path, flows));
        }
        Ok(())
    }
}

/// `1 switch`, `2 switches`: a count with its noun.
fn counted(n: u64, noun: &str) -> String {
    let plural = if noun.ends_with("ch") { "es" } else { "s" };
    format!("{n} {noun}{}", if n == 1 { "" } else { plural })
}

/// Errs if the network's memory, estimated from its size and its flows (`footprint`), is above
/// `run.max_network_bytes`. The error names the topology's key when the network's size costs
/// more than its flows' routes and events, else the workload key that planned the most flows.
pub(crate) fn network_memory(topology: &TopologySpec, switch: &SwitchSpec, flows: &FlowBudget, run: &RunSpec) -> Result<()> {
    let shape = Shape::of(topology);
    let planned = flows.planned();
    let footprint = Footprint::of(&shape, switch, planned);
    let total = footprint.total();
    if total <= run.max_network_bytes as f64 {
        // On several threads each engine holds a copy of the network and its flows, one engine
        // per thread at most one per switch (each switch is a part at most).
        let engines = run.threads.map_or(1, |t| u64::from(t.count()).min(shape.switches.max(1)));
        if engines > 1 && total * engines as f64 > run.max_network_bytes as f64 {
            let found = format!(
                "{engines} threads each hold a copy of the network and its flows (about {} each): about {}",
                bytes(total),
                bytes(total * engines as f64)
            );
            return Err(err("run.threads", above_limit(&found, run.max_network_bytes, "bytes", "max_network_bytes")));
        }
        return Ok(());
    }
    let ports = 2 * shape.links;
    let found = format!(
        "the network needs about {} ({}, {} and {}: {}; routes and events of {} flows: {})",
        bytes(total),
        counted(ports, "port"),
        counted(shape.switches, "switch"),
        counted(shape.hosts, "host"),
        bytes(footprint.network),
        amount(planned),
        bytes(footprint.flows)
    );
    let path = match &*flows.largest.borrow() {
        Some((path, _)) if footprint.flows > footprint.network => path.clone(),
        _ => size_key(topology).to_string(),
    };
    Err(err(path, above_limit(&found, run.max_network_bytes, "bytes", "max_network_bytes")))
}

/// A size in bytes for messages, in decimal units.
fn bytes(n: f64) -> String {
    match n {
        n if n >= 1e9 => format!("{:.1} GB", n / 1e9),
        n if n >= 1e6 => format!("{:.0} MB", n / 1e6),
        n => format!("{:.0} kB", (n / 1e3).ceil()),
    }
}

/// Bytes on the wire of a full-size data packet: the MSS, the TCP/IP headers with the stack's
/// options, and the largest header of a protocol the flows run (`extension_bytes`: D3's
/// congestion header, PDQ's scheduling header).
pub(crate) fn full_packet_bytes(transport: &TransportSpec, extension_bytes: u32) -> u64 {
    u64::from(transport.tcp.mss_bytes + transport.tcp.data_header_bytes() + extension_bytes)
}

/// A buffer smaller than one full-size packet never admits one, and a link too slow to
/// serialize one before the horizon never delivers one: both would leave every flow retrying
/// until the horizon, so they are refused with the key that set them.
pub(crate) fn network(topology: &TopologySpec, switch: &SwitchSpec, packet: u64, run: &RunSpec) -> Result<()> {
    let tiers = [(switch.buffer, ["buffer", "shared_buffer"]), (switch.core_buffer.unwrap_or(switch.buffer), ["core_buffer", "core_shared_buffer"])];
    for (spec, keys) in tiers {
        let (bytes, key) = match spec {
            BufferSpec::PerPort { bytes } => (bytes, keys[0]),
            BufferSpec::Shared { bytes, .. } => (bytes, keys[1]),
            // A packet count always admits a packet of any size.
            BufferSpec::PerPortPackets { .. } => continue,
        };
        if bytes < packet {
            return Err(err(
                format!("switch.{key}"),
                format!(
                    "{bytes} B is smaller than one full-size packet ({packet} B on the wire: the MSS plus \
                     headers), so no data packet could ever be queued"
                ),
            ));
        }
    }
    // (key, what the message starts with, link)
    let keyed = |key: &str, link: LinkSpec| (format!("topology.{key}"), String::new(), link);
    let links: Vec<(String, String, LinkSpec)> = match topology {
        TopologySpec::Star { link, .. } | TopologySpec::D3Testbed { link } => vec![keyed("link_rate", *link)],
        TopologySpec::FatTree { host_link, agg_link, core_link, .. } => {
            vec![keyed("link_rate", *host_link), keyed("fabric_rate", *agg_link), keyed("core_rate", *core_link)]
        }
        TopologySpec::TwoTier { host_link, fabric_link, .. } | TopologySpec::LeafSpine { host_link, fabric_link, .. } => {
            vec![keyed("link_rate", *host_link), keyed("fabric_rate", *fabric_link)]
        }
        TopologySpec::Graph(g) => {
            for l in &g.links {
                if let Some(BufferSpec::PerPort { bytes }) = l.buffer {
                    if bytes < packet {
                        return Err(err(
                            "topology.file",
                            format!("{}:{}: buffer: {bytes} B is smaller than one full-size packet ({packet} B on the wire)", g.file, l.line),
                        ));
                    }
                }
            }
            g.links.iter().map(|l| ("topology.file".into(), format!("{}:{}: rate: ", g.file, l.line), l.link)).collect()
        }
    };
    for (key, lead, link) in links {
        let serialization = link.rate.tx_time(packet);
        if serialization > run.horizon {
            return Err(err(
                key,
                format!(
                    "{lead}{} bps takes {} to send one full-size packet ({packet} B), longer than the run's \
                     horizon (run.horizon = {}): no packet could ever arrive",
                    link.rate.0,
                    seconds(serialization),
                    seconds(run.horizon)
                ),
            ));
        }
    }
    Ok(())
}

/// Rows of queue and throughput samples a run with a duration will record, against
/// `run.max_samples`. A run without a duration ends when its flows do, which cannot be
/// predicted; the engine enforces the limit while sampling instead. Throughput rows are counted
/// for the `long_lived` flows, which are sampled at every tick (finite flows only while they run).
pub(crate) fn samples(output: &OutputSpec, run: &RunSpec, long_lived: u64) -> Result<()> {
    let Some(duration) = run.duration else { return Ok(()) };
    let ticks = |interval: Duration| (duration.as_ps() / interval.as_ps().max(1)) as f64 + 1.0;
    let queue = output.queue_samples.as_ref().map(|q| {
        // A pattern names at least one port (more are counted as the run samples them).
        let ports = q.host_downlinks.len() + q.ports.len();
        let rows = ticks(q.interval) * ports as f64;
        ("output.queue_sample_interval", rows, format!("{ports} ports sampled every {}", seconds(q.interval)))
    });
    let throughput = output.flow_throughput_interval.map(|interval| {
        let flows = long_lived.max(1);
        ("output.flow_throughput_interval", ticks(interval) * flows as f64, format!("{flows} flows sampled every {}", seconds(interval)))
    });
    let total: f64 = queue.iter().chain(throughput.iter()).map(|(_, rows, _)| rows).sum();
    if total <= run.max_samples as f64 {
        return Ok(());
    }
    let (path, rows, what) = queue
        .into_iter()
        .chain(throughput)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("samples are counted only when some are taken");
    let found = format!("about {} sample rows ({what} over {})", amount(rows), seconds(duration));
    Err(err(path, above_limit(&found, run.max_samples, "rows", "max_samples")))
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{burst, malformed, star, toml};
    use super::*;
    /// A Poisson workload of 1000 flows a second for one second.
    macro_rules! poisson {
        () => {
            "[[workload]]\nkind = \"poisson\"\nrate = 1000.0\nstop = \"1s\"\n"
        };
    }
    /// One long flow, sampled (keys of `[output]` follow); the run lasts `one_second!()`.
    macro_rules! sampled {
        () => {
            concat!(star!(), "[[workload]]\nkind = \"long-flows\"\npairs = [[1, 0]]\n[output]\n")
        };
    }
    macro_rules! one_second {
        () => {
            "[run]\nduration = \"1s\"\n"
        };
    }

    #[test]
    fn defaults_are_a_day_and_the_documented_limits() {
        let s = toml(concat!(star!(), burst!()));
        assert_eq!(s.run.horizon, Duration::from_secs(86_400));
        assert_eq!(
            (s.run.max_flows, s.run.max_hosts, s.run.max_samples, s.run.max_trace_bytes, s.run.max_network_bytes),
            (10_000_000, 1_048_576, 100_000_000, 1_073_741_824, 4_294_967_296)
        );
        assert_eq!(s.run.end(), Instant::ZERO + Duration::from_secs(86_400));
    }

    #[test]
    fn every_run_key_overrides_its_default() {
        let s = toml(concat!(
            star!(),
            burst!(),
            "[run]\nduration = \"2s\"\nhorizon = \"3s\"\nmax_flows = 7\nmax_hosts = 9\nmax_samples = 11\nmax_trace_bytes = 13\nmax_network_bytes = 17000000000\nstall_after = \"1s\"\nthreads = 3\n",
        ));
        assert_eq!(
            s.run,
            RunSpec {
                duration: Some(Duration::from_secs(2)),
                stop_after_finite_flows: false,
                horizon: Duration::from_secs(3),
                warmup: Duration::ZERO,
                measure_until: None,
                max_flows: 7,
                max_hosts: 9,
                max_samples: 11,
                max_trace_bytes: 13,
                max_network_bytes: 17_000_000_000,
                stall_after: crate::spec::StallAfter::After(Duration::from_secs(1)),
                threads: Some(crate::spec::Threads::Count(3)),
            }
        );
        assert_eq!(s.run.end(), Instant::ZERO + Duration::from_secs(2));
    }

    #[test]
    fn raising_a_limit_admits_what_it_refused() {
        toml(concat!(star!(), poisson!(), "[run]\nmax_flows = 2000\n"));
        toml(concat!("[topology]\nkind = \"star\"\nhosts = 2000000\n[run]\nmax_hosts = 2000000\n", burst!(), "senders = 3\n"));
        toml(concat!(sampled!(), "queue_sample_interval = \"1us\"\nqueue_sample_hosts = [0]\n", one_second!(), "max_samples = 2000000\n"));
        toml(concat!(star!(), "[run]\nhorizon = \"1000000s\"\n", burst!(), "start = \"100000s\"\n"));
        // The largest fat tree `max_hosts` admits, with room for it (as validated: nothing built).
        toml(concat!("[topology]\nkind = \"fat-tree\"\nk = 160\n", burst!(), "[run]\nmax_network_bytes = 6000000000\n"));
        // A Poisson rate beyond the default flow limit, with the limit raised for it.
        toml(concat!(star!(), "[run]\nmax_flows = 20000000\n[[workload]]\nkind = \"poisson\"\nrate = 1e7\nstop = \"1s\"\n"));
    }

    #[test]
    fn threads_take_a_count_or_auto() {
        assert_eq!(toml(concat!(star!(), burst!())).run.threads, None);
        let auto = toml(concat!(star!(), burst!(), "[run]\nthreads = \"Auto\"\n")).run.threads.expect("set");
        assert_eq!(auto, crate::spec::Threads::Auto);
        assert!(auto.count() >= 1);
        assert_eq!(toml(concat!(star!(), burst!(), "[run]\nthreads = 1024\n")).run.threads, Some(crate::spec::Threads::Count(1024)));
    }

    #[test]
    fn a_packet_count_buffer_and_an_exact_one_packet_buffer_are_enough() {
        toml(concat!(star!(), "[switch]\nbuffer = \"1pkts\"\n", burst!()));
        // 1448 B of payload (Linux, timestamps on) + 52 B of headers.
        toml(concat!(star!(), "[switch]\nbuffer = \"1500B\"\n", burst!()));
    }

    malformed! {
        horizon_zero: concat!(star!(), burst!(), "[run]\nhorizon = \"0s\"\n"), "run.horizon", "must be positive";
        horizon_past_saturation: concat!(star!(), burst!(), "[run]\nhorizon = \"18000000s\"\n"), "run.horizon", "must be at most 10000000 s";
        duration_past_horizon: concat!(star!(), burst!(), "[run]\nhorizon = \"1s\"\nduration = \"2s\"\n"), "run.duration", "must not exceed run.horizon (2 s > 1 s)";
        duration_past_default_horizon: concat!(star!(), burst!(), "[run]\nduration = \"100000s\"\n"), "run.duration", "must not exceed run.horizon";
        zero_max_flows: concat!(star!(), burst!(), "[run]\nmax_flows = 0\n"), "run.max_flows", "between 1 and 4294967295";
        huge_max_hosts: concat!(star!(), burst!(), "[run]\nmax_hosts = 1000000000000\n"), "run.max_hosts", "between 1 and 268435456";
        zero_max_samples: concat!(star!(), burst!(), "[run]\nmax_samples = 0\n"), "run.max_samples", "must be a positive integer (found 0)";
        zero_max_trace_bytes: concat!(star!(), burst!(), "[run]\nmax_trace_bytes = 0\n"), "run.max_trace_bytes", "must be a positive integer (found 0)";
        zero_threads: concat!(star!(), burst!(), "[run]\nthreads = 0\n"), "run.threads", "must be between 1 and 1024 (found 0), or \"auto\"";
        negative_threads: concat!(star!(), burst!(), "[run]\nthreads = -2\n"), "run.threads", "must be between 1 and 1024 (found -2)";
        threads_as_a_word: concat!(star!(), burst!(), "[run]\nthreads = \"many\"\n"), "run.threads", "a number of threads such as 4, or \"auto\"";
        threads_as_a_fraction: concat!(star!(), burst!(), "[run]\nthreads = 1.5\n"), "run.threads", "a number of threads";
        buffer_below_a_packet: concat!(star!(), "[switch]\nbuffer = \"100B\"\n", burst!()), "switch.buffer", "100 B is smaller than one full-size packet (1500 B on the wire";
        buffer_below_a_d3_packet: concat!(star!(), "[switch]\nbuffer = \"1500B\"\n", burst!(), "protocol = \"d3\"\n"), "switch.buffer", "(1522 B on the wire";
        buffer_below_a_jumbo_packet: concat!(star!(), "[switch]\nbuffer = \"8KB\"\n[transport]\nmss = 9000\n", burst!()), "switch.buffer", "(9052 B on the wire";
        shared_buffer_below_a_packet: concat!(star!(), "[switch]\nshared_buffer = \"1KB\"\n", burst!()), "switch.shared_buffer", "smaller than one full-size packet";
        core_buffer_below_a_packet: concat!("[topology]\nkind = \"d3-testbed\"\n[switch]\ncore_buffer = \"1KB\"\n", burst!()), "switch.core_buffer", "smaller than one full-size packet";
        link_too_slow_for_a_packet: concat!(star!(), "link_rate = \"1bps\"\n", burst!(), "[run]\nhorizon = \"10000s\"\n"), "topology.link_rate", "1 bps takes 12000 s to send one full-size packet (1500 B), longer than the run's horizon (run.horizon = 10000 s)";
        link_too_slow_for_a_short_horizon: concat!(star!(), "link_rate = \"1Mbps\"\n", burst!(), "[run]\nhorizon = \"1ms\"\n"), "topology.link_rate", "no packet could ever arrive";
        fabric_too_slow: concat!("[topology]\nkind = \"two-tier\"\nracks = 2\nhosts_per_rack = 2\nfabric_rate = \"1bps\"\n", burst!(), "[run]\nhorizon = \"1000s\"\n"), "topology.fabric_rate", "no packet could ever arrive";
        link_delay_past_horizon: concat!(star!(), "link_delay = \"1e6s\"\n", burst!()), "topology.link_delay", "longer than the run's horizon (1000000 s > run.horizon = 86400 s)";
        receive_window_below_mss: concat!(star!(), "[transport]\nreceive_window = \"1B\"\n", burst!()), "transport.receive_window", "the receive window (1 B) must hold at least one MSS (1448 B)";
        max_rto_past_horizon: concat!(star!(), "[transport]\nmax_rto = \"1e6s\"\n", burst!()), "transport.max_rto", "longer than the run's horizon";
        min_rto_past_horizon: concat!(star!(), "[transport]\nmin_rto = \"2s\"\n", burst!(), "[run]\nhorizon = \"1s\"\n"), "transport.min_rto", "could never elapse";
        initial_rto_past_horizon: concat!(star!(), "[transport]\ninitial_rto = \"2s\"\n", burst!(), "[run]\nhorizon = \"1s\"\n"), "transport.initial_rto", "could never elapse";
        clock_granularity_past_horizon: concat!(star!(), "[transport]\nclock_granularity = \"2s\"\n", burst!(), "[run]\nhorizon = \"1s\"\n"), "transport.clock_granularity", "could never elapse";
        delayed_ack_timeout_past_horizon: concat!(star!(), "[transport]\ndelayed_ack = { timeout = \"2s\" }\n", burst!(), "[run]\nhorizon = \"1s\"\n"), "transport.delayed_ack.timeout", "could never elapse";
        control_interval_past_horizon: concat!(star!(), "[d3]\ncontrol_interval = \"2s\"\n", burst!(), "[run]\nhorizon = \"1s\"\n"), "d3.control_interval", "could never elapse";
        burst_starts_at_horizon: concat!(star!(), burst!(), "start = \"86400s\"\n"), "workload[0].start", "starts at or after the run's horizon (86400 s >= run.horizon = 86400 s)";
        round_gap_past_horizon: concat!(star!(), burst!(), "rounds = 2\nround_gap = \"1e6s\"\n"), "workload[0].round_gap", "longer than the run's horizon";
        flow_start_s_near_saturation: concat!(star!(), "[[workload]]\nkind = \"flows\"\nflows = [{ src = 1, dst = 0, size_bytes = 1000, start_s = 18446744.0 }]\n"), "workload[0].flows[0].start_s", "starts at or after the run's horizon";
        flow_start_past_horizon: concat!(star!(), "[[workload]]\nkind = \"flows\"\nflows = [{ src = 1, dst = 0, size = \"1KB\" }, { src = 1, dst = 0, size = \"1KB\", start = \"2s\" }]\n[run]\nhorizon = \"1s\"\n"), "workload[0].flows[1].start", "at or after the run's horizon";
        long_flows_start_past_horizon: concat!(star!(), "[[workload]]\nkind = \"long-flows\"\npairs = [[1, 0]]\nstart = \"1s\"\n[run]\nhorizon = \"1s\"\nduration = \"1s\"\n"), "workload[0].start", "at or after the run's horizon";
        poisson_stop_past_horizon: concat!(star!(), "[[workload]]\nkind = \"poisson\"\nrate = 10.0\nstop = \"1e6s\"\n"), "workload[0].stop", "longer than the run's horizon";
        poisson_rate_bomb: concat!(star!(), "[[workload]]\nkind = \"poisson\"\nrate = 1e18\nstop = \"1s\"\n"), "workload[0].rate", "about 1.00e18 flows over 1 s, above the limit of 10000000 flows (`run.max_flows`; raise it to run anyway)";
        poisson_above_a_lowered_limit: concat!(star!(), poisson!(), "[run]\nmax_flows = 500\n"), "workload[0].rate", "about 1000 flows over 1 s, above the limit of 500 flows";
        workloads_add_up_to_the_limit: concat!(star!(), poisson!(), poisson!(), "[run]\nmax_flows = 1500\n"), "workload[1].rate", "(plus 1000 from the workloads before it), above the limit of 1500 flows";
        senders_bomb: concat!("[topology]\nkind = \"star\"\nhosts = 1000000\n", burst!(), "senders = 1000000000\n"), "workload[0].senders", "1000000000 senders x 1 rounds = 1.00e9 flows, above the limit of 10000000 flows";
        rounds_bomb: concat!(star!(), burst!(), "rounds = 4000000000\n"), "workload[0].rounds", "3 senders x 4000000000 rounds = 1.20e10 flows";
        explicit_flows_above_limit: concat!(star!(), "[[workload]]\nkind = \"flows\"\nflows = [{ src = 1, dst = 0 }, { src = 2, dst = 0 }]\n[run]\nmax_flows = 1\nduration = \"1s\"\n"), "workload[0].flows", "2 flows listed, above the limit of 1 flows";
        star_hosts_above_limit: concat!("[topology]\nkind = \"star\"\nhosts = 2000000\n", burst!()), "topology.hosts", "2000000 hosts, above the limit of 1048576 hosts (`run.max_hosts`; raise it to run anyway)";
        star_hosts_above_lowered_limit: concat!(star!(), burst!(), "[run]\nmax_hosts = 3\n"), "topology.hosts", "4 hosts, above the limit of 3 hosts";
        two_tier_hosts_above_limit: concat!("[topology]\nkind = \"two-tier\"\nracks = 2000\nhosts_per_rack = 1000\n", burst!()), "topology.hosts_per_rack", "2000000 hosts, above the limit";
        two_tier_racks_above_limit: concat!("[topology]\nkind = \"two-tier\"\nracks = 2000000\n", burst!()), "topology.racks", "2000000 hosts, above the limit";
        queue_samples_every_picosecond: concat!(sampled!(), "queue_sample_interval = \"1ps\"\nqueue_sample_hosts = [0]\n", one_second!()), "output.queue_sample_interval", "about 1.00e12 sample rows (1 ports sampled every 0.000000000001 s over 1 s), above the limit of 100000000 rows (`run.max_samples`; raise it to run anyway)";
        throughput_samples_every_nanosecond: concat!(sampled!(), "flow_throughput_interval = \"1ns\"\n", one_second!()), "output.flow_throughput_interval", "about 1.00e9 sample rows";
        samples_above_a_lowered_limit: concat!(sampled!(), "queue_sample_interval = \"1ms\"\nqueue_sample_hosts = [0, 1]\n", one_second!(), "max_samples = 1000\n"), "output.queue_sample_interval", "about 2002 sample rows";
        sample_interval_past_horizon: concat!(star!(), burst!(), "[output]\nqueue_sample_interval = \"1e6s\"\nqueue_sample_hosts = [0]\n"), "output.queue_sample_interval", "longer than the run's horizon";
        zero_max_network_bytes: concat!(star!(), burst!(), "[run]\nmax_network_bytes = 0\n"), "run.max_network_bytes", "must be a positive integer (found 0)";
        fat_tree_k160_above_network_limit: concat!("[topology]\nkind = \"fat-tree\"\nk = 160\n", burst!()), "topology.k", "the network needs about 5.3 GB (6144000 ports, 32000 switches and 1024000 hosts: 5.1 GB; routes and events of 1023999 flows: 205 MB), above the limit of 4294967296 bytes (`run.max_network_bytes`; raise it to run anyway)";
        million_spines_four_racks: concat!("[topology]\nkind = \"leaf-spine\"\nracks = 4\nhosts_per_rack = 2\nspines = 1000000\n", burst!()), "topology.spines", "(8000016 ports, 1000004 switches and 8 hosts";
        threads_above_network_limit: concat!("[topology]\nkind = \"fat-tree\"\nk = 32\n", burst!(), "[run]\nthreads = 1024\n"), "run.threads", "1024 threads each hold a copy of the network and its flows (about";
        star_above_lowered_network_limit: concat!(star!(), burst!(), "[run]\nmax_network_bytes = 1000000\n"), "topology.hosts", "the network needs about 16 MB";
        two_tier_racks_above_network_limit: concat!("[topology]\nkind = \"two-tier\"\nracks = 1000\nhosts_per_rack = 2\n", burst!(), "[run]\nmax_network_bytes = 2000000\n"), "topology.racks", "above the limit of 2000000 bytes";
        flows_routes_above_network_limit: concat!(star!(), "[[workload]]\nkind = \"poisson\"\nrate = 1e8\nstop = \"1s\"\n[run]\nmax_flows = 200000000\n"), "workload[0].rate", "routes and events of 100000000 flows: 7.2 GB)";
        throughput_interval_past_horizon: concat!(star!(), burst!(), "[output]\nflow_throughput_interval = \"1e6s\"\n"), "output.flow_throughput_interval", "longer than the run's horizon";
    }

    #[test]
    fn amounts_read_easily() {
        assert_eq!(amount(12.4), "12");
        assert_eq!(amount(1e18), "1.00e18");
    }

    #[test]
    fn the_budget_adds_workloads_and_names_the_one_that_passes_the_limit() {
        let run = RunSpec { max_flows: 10, ..RunSpec::default() };
        let budget = FlowBudget::new(&run);
        budget.charge(|| "workload[0].senders".into(), 6.0, |n| format!("{n} senders")).unwrap();
        let e = budget.charge(|| "workload[1].senders".into(), 5.0, |n| format!("{n} senders")).unwrap_err();
        assert_eq!(e.path, "workload[1].senders");
        assert_eq!(
            e.message,
            "5 senders (plus 6 from the workloads before it), above the limit of 10 flows (`run.max_flows`; raise it to run anyway)"
        );
    }
}
