//! Validation of `kind = "oldi"`: D2TCP Section 4.2.1's OLDI applications and Section 4.2.3's
//! background flows, with the paper's defaults. docs/scenario.md documents every key and the
//! readings chosen where the paper is silent (what "utilization" means, which leaf a background
//! sender replaces).

use incast_proto::time::{Duration, Instant};

use super::check::{count, err, finite, host_list, positive, positive_time, required, Result};
use super::context::Context;
use super::error::join;
use super::file::RawWorkload;
use super::names::Name;
use super::units::{Size, Time};
use super::limits;
use super::spec::{
    BackgroundSpec, Connections, DeadlineVariance, FlowOptions, OldiApp, OldiSpec, Protocol, QueryLoad,
    D2TCP_APPS, D2TCP_TREES_PER_APP,
};

/// The keys `kind = "oldi"` takes besides `kind`, `protocol` and `priority`.
pub(crate) const KEYS: &[&str] = &[
    "fan_in",
    "trees_per_app",
    "message_sizes",
    "deadlines",
    "deadline_variance",
    "query_rate",
    "utilization",
    "protocols",
    "background",
    "background_size",
    "background_interval",
    "background_protocol",
    "hosts",
    "start",
    "stop",
    "connections",
];

/// Most tree nodes (applications x trees x (fan_in + 1)) one workload places, so a mistyped
/// count cannot allocate gigabytes.
const MAX_TREE_NODES: u64 = 1 << 24;

const WHAT: &str = "kind = \"oldi\"";

/// Converts the `kind = "oldi"` workload at key path `p`; `start` and `options` are the keys
/// every workload shares, already checked.
pub(crate) fn workload(
    p: &str,
    raw: RawWorkload,
    context: &Context<'_>,
    start: Instant,
    options: FlowOptions,
) -> Result<OldiSpec> {
    let at = |key: &str| join(p, key);
    let apps = apps(p, raw.message_sizes, raw.deadlines, raw.protocols)?;
    let hosts = host_list(p, raw.hosts, context.hosts)?;
    let per_app = (hosts.len() / apps.len()) as u64;
    let fan_in = required(raw.fan_in, p, "fan_in", WHAT)?;
    if fan_in == 0 || fan_in >= per_app {
        return Err(err(
            at("fan_in"),
            format!(
                "must be at least 1 and leave a tree's parent and leaves on distinct hosts: each of \
                 the {} applications gets {per_app} of the {} hosts, so at most {} (found {fan_in})",
                apps.len(),
                hosts.len(),
                per_app.saturating_sub(1)
            ),
        ));
    }
    let fan_in = fan_in as u32;
    let trees_per_app = count(
        || at("trees_per_app"),
        raw.trees_per_app.unwrap_or(u64::from(D2TCP_TREES_PER_APP)),
        1,
        u64::from(u32::MAX),
    )?;
    let nodes = (apps.len() as u64)
        .saturating_mul(u64::from(trees_per_app))
        .saturating_mul(u64::from(fan_in) + 1);
    if nodes > MAX_TREE_NODES {
        return Err(err(
            at("trees_per_app"),
            format!("places {nodes} tree nodes, more than the {MAX_TREE_NODES} this simulator builds"),
        ));
    }
    let load = match (raw.query_rate, raw.utilization) {
        (Some(_), Some(_)) => {
            return Err(err(at("utilization"), "give either query_rate or utilization, not both"))
        }
        (None, None) => {
            return Err(err(at("utilization"), format!("is required for {WHAT} (or give query_rate)")))
        }
        (Some(rate), None) => {
            let rate = finite(&at("query_rate"), rate)?;
            if rate <= 0.0 {
                return Err(err(
                    at("query_rate"),
                    format!("must be greater than 0 queries per second (found {rate})"),
                ));
            }
            QueryLoad::PerTree(rate)
        }
        (None, Some(fraction)) => {
            let fraction = finite(&at("utilization"), fraction)?;
            if !(fraction > 0.0 && fraction <= 1.0) {
                return Err(err(
                    at("utilization"),
                    format!("must be in (0, 1], a fraction of the host link rate (found {fraction})"),
                ));
            }
            QueryLoad::Utilization { fraction, link: context.topology.host_link_rate() }
        }
    };
    limits::within_horizon(|| at("background_interval"), raw.background_interval, context.run)?;
    let background = background(p, raw.background, raw.background_size, raw.background_interval, raw.background_protocol)?;
    if background.is_some() && fan_in < 2 {
        return Err(err(
            at("fan_in"),
            "must be at least 2 with background = true: one leaf of each tree becomes its background sender",
        ));
    }
    let Some(duration) = context.run.duration else {
        return Err(err(
            "run.duration",
            format!("is required because {p} ({WHAT}) starts queries until the run ends"),
        ));
    };
    let end = Instant::ZERO + duration;
    if start >= end {
        return Err(err(at("start"), format!("must be before the end of the run ({start} >= {end})")));
    }
    // Arrivals after the end of the run would never start: stop there at the latest.
    let stop = raw.stop.map_or(end, |t| Instant::from_ps(t.0).min(end));
    if stop <= start {
        return Err(err(at("stop"), format!("must be after start ({stop} <= {start})")));
    }
    let connections = raw.connections.map_or(Connections::PerMessage, |n| n.0);
    if connections == Connections::Persistent {
        if let Some(protocol) = (0..apps.len())
            .map(|a| apps[a].protocol.or(options.protocol).unwrap_or(context.protocol))
            .find(|p| !p.keeps_connections())
        {
            let keeps: Vec<&str> = Protocol::ALL.iter().filter(|p| p.keeps_connections()).map(|p| p.name()).collect();
            let not: Vec<&str> = Protocol::ALL.iter().filter(|p| !p.keeps_connections()).map(|p| p.label()).collect();
            return Err(err(
                at("connections"),
                format!(
                    "\"persistent\" needs a protocol that keeps its connections ({}), but messages would use {}: {} open a connection per flow",
                    keeps.join(", "),
                    protocol.name(),
                    super::protocols::prose(&not, "and")
                ),
            ));
        }
    }
    let spec = OldiSpec {
        apps,
        trees_per_app,
        fan_in,
        hosts,
        variance: raw.deadline_variance.map_or(DeadlineVariance::Medium, |n| n.0),
        load,
        background,
        start,
        stop,
        options,
        connections,
    };
    // Flows are planned before the run: a mistyped rate must not exhaust memory (the paper's
    // 1000 hosts at 20% utilization start about 560 000 flows per simulated second).
    let key = if raw.query_rate.is_some() { "query_rate" } else { "utilization" };
    let span = spec.stop.saturating_since(spec.start);
    context.flows.charge(
        || at(key),
        expected_flows(&spec),
        |n| format!("would start about {n} flows over {}", limits::seconds(span)),
    )?;
    Ok(spec)
}

/// The applications from the per-application lists. Their common length is the number of
/// applications (the paper's five when none is given); `message_sizes` and `deadlines` default
/// to the paper's values only for five applications.
fn apps(
    p: &str,
    sizes: Option<Vec<Size>>,
    deadlines: Option<Vec<Time>>,
    protocols: Option<Vec<Name<Protocol>>>,
) -> Result<Vec<OldiApp>> {
    let lists = [
        ("message_sizes", sizes.as_ref().map(Vec::len)),
        ("deadlines", deadlines.as_ref().map(Vec::len)),
        ("protocols", protocols.as_ref().map(Vec::len)),
    ];
    let (first, n) = lists
        .iter()
        .find_map(|&(key, len)| Some((key, len?)))
        .unwrap_or(("", D2TCP_APPS.len()));
    for (key, len) in lists {
        match len {
            Some(0) => return Err(err(join(p, key), "must list at least one application")),
            Some(len) if len != n => {
                return Err(err(join(p, key), format!("lists {len} applications but {first} lists {n}")))
            }
            None if key != "protocols" && n != D2TCP_APPS.len() => {
                return Err(err(
                    join(p, key),
                    format!(
                        "is required when {first} lists {n} applications (the default lists the paper's {})",
                        D2TCP_APPS.len()
                    ),
                ))
            }
            _ => {}
        }
    }
    (0..n)
        .map(|i| {
            let message_bytes = match &sizes {
                Some(v) => positive(|| format!("{p}.message_sizes[{i}]"), v[i].0, "bytes")?,
                None => D2TCP_APPS[i].0,
            };
            let base_deadline = match &deadlines {
                Some(v) => positive_time(|| format!("{p}.deadlines[{i}]"), Some(v[i]), Duration::ZERO)?,
                None => D2TCP_APPS[i].1,
            };
            let protocol = protocols.as_ref().map(|v| v[i].0);
            Ok(OldiApp { message_bytes, base_deadline, protocol })
        })
        .collect()
}

/// The background senders, if `background = true`; their keys are errors otherwise.
fn background(
    p: &str,
    on: Option<bool>,
    size: Option<Size>,
    interval: Option<Time>,
    protocol: Option<Name<Protocol>>,
) -> Result<Option<BackgroundSpec>> {
    if on != Some(true) {
        let given = [
            ("background_size", size.is_some()),
            ("background_interval", interval.is_some()),
            ("background_protocol", protocol.is_some()),
        ];
        if let Some((key, _)) = given.iter().find(|(_, g)| *g) {
            return Err(err(join(p, key), "only applies with background = true"));
        }
        return Ok(None);
    }
    let d = BackgroundSpec::default();
    Ok(Some(BackgroundSpec {
        size_bytes: match size {
            Some(s) => positive(|| join(p, "background_size"), s.0, "bytes")?,
            None => d.size_bytes,
        },
        mean_interval: positive_time(|| join(p, "background_interval"), interval, d.mean_interval)?,
        protocol: protocol.map(|n| n.0),
    }))
}

/// Flows the workload is expected to start: every tree's queries times its OLDI leaves, plus
/// the background flows.
fn expected_flows(spec: &OldiSpec) -> f64 {
    let span = (spec.stop.as_secs_f64() - spec.start.as_secs_f64()).max(0.0);
    let trees = f64::from(spec.trees_per_app);
    let queries: f64 = spec
        .apps
        .iter()
        .map(|a| trees * spec.load.queries_per_sec(spec.fan_in, a.message_bytes) * span)
        .sum();
    let background = spec.background.as_ref().map_or(0.0, |b| {
        spec.apps.len() as f64 * trees * span / b.mean_interval.as_secs_f64()
    });
    queries * f64::from(spec.fan_in) + background
}

#[cfg(test)]
mod tests {
    use incast_proto::time::{BitsPerSec, Duration, Instant};

    use crate::fixtures::{malformed, toml, PORTS};
    use crate::{
        BackgroundSpec, Connections, DeadlineVariance, FlowOptions, OldiApp, OldiSpec, Protocol, QueryLoad, WorkloadSpec,
    };

    /// 40 hosts (8 per application) and a 100 ms run.
    macro_rules! net {
        () => {
            "[topology]\nkind = \"two-tier\"\nracks = 4\nhosts_per_rack = 10\n[run]\nduration = \"100ms\"\n"
        };
    }
    /// The smallest valid OLDI workload; keys written after it belong to it.
    macro_rules! oldi {
        () => {
            "[[workload]]\nkind = \"oldi\"\nfan_in = 5\nutilization = 0.1\n"
        };
    }

    fn spec(text: &str) -> OldiSpec {
        match toml(text).workloads.remove(0) {
            WorkloadSpec::Oldi(spec) => spec,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults_are_the_papers_workload_on_every_host_until_the_run_ends() {
        let load = QueryLoad::Utilization { fraction: 0.1, link: BitsPerSec::GBPS };
        let expected = OldiSpec::d2tcp((0..40).collect(), 5, load, Instant::ZERO + Duration::from_ms(100));
        assert_eq!(spec(concat!(net!(), oldi!())), expected);
    }

    #[test]
    fn every_key_overrides_its_default() {
        let s = spec(concat!(
            net!(),
            "[[workload]]\nkind = \"oldi\"\nfan_in = 3\ntrees_per_app = 2\nprotocol = \"dctcp\"\n",
            "message_sizes = [\"1KB\", \"3KB\", \"5KB\"]\ndeadlines = [\"10ms\", \"15ms\", \"25ms\"]\n",
            "protocols = [\"tcp\", \"dctcp\", \"tcp\"]\ndeadline_variance = \"HIGH\"\nquery_rate = 250.0\n",
            "background = true\nbackground_size = \"500KB\"\nbackground_interval = \"100ms\"\nbackground_protocol = \"tcp\"\n",
            "hosts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]\nstart = \"1ms\"\nstop = \"50ms\"\n",
            "connections = \"persistent\"\n",
        ));
        let app = |kb: u64, ms: u64, protocol| OldiApp {
            message_bytes: kb * 1000,
            base_deadline: Duration::from_ms(ms),
            protocol: Some(protocol),
        };
        assert_eq!(
            s,
            OldiSpec {
                apps: vec![app(1, 10, Protocol::Tcp), app(3, 15, Protocol::Dctcp), app(5, 25, Protocol::Tcp)],
                trees_per_app: 2,
                fan_in: 3,
                hosts: (0..14).collect(),
                variance: DeadlineVariance::High,
                load: QueryLoad::PerTree(250.0),
                background: Some(BackgroundSpec {
                    size_bytes: 500_000,
                    mean_interval: Duration::from_ms(100),
                    protocol: Some(Protocol::Tcp),
                }),
                start: Instant::ZERO + Duration::from_ms(1),
                stop: Instant::ZERO + Duration::from_ms(50),
                options: FlowOptions { protocol: Some(Protocol::Dctcp), ..FlowOptions::default() },
                connections: Connections::Persistent,
            }
        );
    }

    #[test]
    fn background_defaults_and_stop_past_the_run() {
        let s = spec(concat!(net!(), oldi!(), "background = true\nstop = \"1s\"\n"));
        assert_eq!(s.background, Some(BackgroundSpec::default()));
        assert_eq!(s.stop, Instant::ZERO + Duration::from_ms(100), "arrivals stop with the run");
        let s = spec(concat!(net!(), oldi!(), "background = false\ndeadline_variance = \"low\"\n"));
        assert_eq!((s.background, s.variance), (None, DeadlineVariance::Low));
    }

    #[test]
    fn connections_default_per_message_and_name_case_insensitive() {
        assert_eq!(spec(concat!(net!(), oldi!())).connections, Connections::PerMessage);
        let s = spec(concat!(net!(), oldi!(), "connections = \"Per_Message\"\n"));
        assert_eq!(s.connections, Connections::PerMessage);
        // TCPpr is TCP-family: its messages may share a connection.
        let tcppr = concat!("[switch]\npriority_classes = 3\n", net!(), oldi!(), "connections = \"persistent\"\nprotocol = \"tcppr\"\n");
        let s = spec(tcppr);
        assert_eq!(s.connections, Connections::Persistent);
    }

    #[test]
    fn utilization_refers_to_the_host_links() {
        let s = spec(concat!(
            "[topology]\nkind = \"star\"\nhosts = 12\nlink_rate = \"10Gbps\"\n[run]\nduration = \"1s\"\n",
            "[[workload]]\nkind = \"oldi\"\nfan_in = 1\nutilization = 0.5\n",
        ));
        assert_eq!(s.load, QueryLoad::Utilization { fraction: 0.5, link: BitsPerSec(10_000_000_000) });
    }

    malformed! {
        oldi_without_fan_in: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nutilization = 0.1\n"), "workload[0].fan_in", "is required for kind = \"oldi\"";
        oldi_zero_fan_in: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 0\nutilization = 0.1\n"), "workload[0].fan_in", "must be at least 1";
        oldi_fan_in_above_share: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 8\nutilization = 0.1\n"), "workload[0].fan_in", "each of the 5 applications gets 8 of the 40 hosts, so at most 7 (found 8)";
        oldi_fan_in_string: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = \"5\"\nutilization = 0.1\n"), "workload[0].fan_in", "invalid type: string";
        oldi_one_leaf_with_background: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 1\nutilization = 0.1\nbackground = true\n"), "workload[0].fan_in", "at least 2 with background = true";
        oldi_zero_trees: concat!(net!(), oldi!(), "trees_per_app = 0\n"), "workload[0].trees_per_app", "between 1 and";
        oldi_too_many_trees: concat!(net!(), oldi!(), "trees_per_app = 4000000000\n"), "workload[0].trees_per_app", "tree nodes";
        oldi_no_apps: concat!(net!(), oldi!(), "message_sizes = []\n"), "workload[0].message_sizes", "at least one application";
        oldi_zero_message_size: concat!(net!(), oldi!(), "message_sizes = [\"2KB\", \"0KB\", \"1KB\", \"1KB\", \"1KB\"]\n"), "workload[0].message_sizes[1]", "must be positive";
        oldi_message_size_unit: concat!(net!(), oldi!(), "message_sizes = [\"2kb\", \"1KB\", \"1KB\", \"1KB\", \"1KB\"]\n"), "workload[0].message_sizes[0]", "invalid size \"2kb\"";
        oldi_deadlines_count_differs: concat!(net!(), oldi!(), "message_sizes = [\"2KB\", \"6KB\", \"10KB\"]\ndeadlines = [\"20ms\", \"30ms\"]\n"), "workload[0].deadlines", "lists 2 applications but message_sizes lists 3";
        oldi_deadlines_needed_for_other_app_counts: concat!(net!(), oldi!(), "message_sizes = [\"2KB\", \"6KB\", \"10KB\"]\n"), "workload[0].deadlines", "is required when message_sizes lists 3 applications";
        oldi_zero_deadline: concat!(net!(), oldi!(), "deadlines = [\"20ms\", \"0ms\", \"35ms\", \"40ms\", \"45ms\"]\n"), "workload[0].deadlines[1]", "must be positive";
        oldi_deadline_not_a_time: concat!(net!(), oldi!(), "deadlines = [20, 30, 35, 40, 45]\n"), "workload[0].deadlines[0]", "expected a time string";
        oldi_unknown_variance: concat!(net!(), oldi!(), "deadline_variance = \"huge\"\n"), "workload[0].deadline_variance", "expected one of \"low\", \"medium\", \"high\"";
        oldi_rate_and_utilization: concat!(net!(), oldi!(), "query_rate = 100.0\n"), "workload[0].utilization", "either query_rate or utilization, not both";
        oldi_without_load: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 5\n"), "workload[0].utilization", "is required for kind = \"oldi\" (or give query_rate)";
        oldi_utilization_above_one: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 5\nutilization = 1.5\n"), "workload[0].utilization", "must be in (0, 1]";
        oldi_utilization_nan: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 5\nutilization = nan\n"), "workload[0].utilization", "finite";
        oldi_zero_query_rate: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 5\nquery_rate = 0.0\n"), "workload[0].query_rate", "greater than 0";
        oldi_huge_query_rate: concat!(net!(), "[[workload]]\nkind = \"oldi\"\nfan_in = 5\nquery_rate = 1e9\n"), "workload[0].query_rate", "would start about";
        oldi_unknown_app_protocol: concat!(net!(), oldi!(), "protocols = [\"tcp\", \"cubic\", \"tcp\", \"tcp\", \"tcp\"]\n"), "workload[0].protocols[1]", "unknown protocol \"cubic\"";
        oldi_protocols_for_fewer_apps: concat!(net!(), oldi!(), "protocols = [\"tcp\", \"dctcp\"]\n"), "workload[0].message_sizes", "is required when protocols lists 2 applications";
        oldi_protocols_count_differs: concat!(net!(), oldi!(), "message_sizes = [\"2KB\"]\ndeadlines = [\"20ms\"]\nprotocols = [\"tcp\", \"dctcp\"]\n"), "workload[0].protocols", "lists 2 applications but message_sizes lists 1";
        oldi_background_not_bool: concat!(net!(), oldi!(), "background = \"yes\"\n"), "workload[0].background", "invalid type: string";
        oldi_background_size_without_background: concat!(net!(), oldi!(), "background_size = \"1MB\"\n"), "workload[0].background_size", "only applies with background = true";
        oldi_background_interval_when_off: concat!(net!(), oldi!(), "background = false\nbackground_interval = \"1s\"\n"), "workload[0].background_interval", "only applies with background = true";
        oldi_background_protocol_without_background: concat!(net!(), oldi!(), "background_protocol = \"tcp\"\n"), "workload[0].background_protocol", "only applies with background = true";
        oldi_zero_background_size: concat!(net!(), oldi!(), "background = true\nbackground_size = \"0MB\"\n"), "workload[0].background_size", "must be positive";
        oldi_zero_background_interval: concat!(net!(), oldi!(), "background = true\nbackground_interval = \"0ms\"\n"), "workload[0].background_interval", "must be positive";
        oldi_unknown_background_protocol: concat!(net!(), oldi!(), "background = true\nbackground_protocol = \"cubic\"\n"), "workload[0].background_protocol", "unknown protocol";
        oldi_host_twice: concat!(net!(), oldi!(), "hosts = [1, 2, 1]\n"), "workload[0].hosts[2]", "listed twice";
        oldi_host_out_of_range: concat!(net!(), oldi!(), "hosts = [1, 40]\n"), "workload[0].hosts[1]", "host 40 does not exist";
        oldi_too_few_hosts: concat!(net!(), oldi!(), "hosts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"), "workload[0].fan_in", "gets 2 of the 10 hosts";
        oldi_start_after_the_run: concat!(net!(), oldi!(), "start = \"100ms\"\n"), "workload[0].start", "before the end of the run";
        oldi_stop_before_start: concat!(net!(), oldi!(), "start = \"10ms\"\nstop = \"5ms\"\n"), "workload[0].stop", "must be after start";
        oldi_without_duration: concat!("[topology]\nkind = \"two-tier\"\nracks = 4\nhosts_per_rack = 10\n", oldi!()), "run.duration", "is required because workload[0] (kind = \"oldi\")";
        oldi_key_of_another_kind: concat!(net!(), oldi!(), "rounds = 3\n"), "workload[0].rounds", "does not apply to kind = \"oldi\"";
        oldi_key_in_another_kind: concat!(net!(), "[[workload]]\nkind = \"flow-burst\"\nfan_in = 3\n"), "workload[0].fan_in", "does not apply to kind = \"flow-burst\"";
        oldi_unknown_connections: concat!(net!(), oldi!(), "connections = \"pooled\"\n"), "workload[0].connections", "unknown connection model \"pooled\": expected one of \"per-message\", \"persistent\"";
        oldi_connections_not_a_string: concat!(net!(), oldi!(), "connections = true\n"), "workload[0].connections", "invalid type: boolean";
        oldi_persistent_with_d3_transport: concat!("[transport]\nprotocol = \"d3\"\n", net!(), oldi!(), "connections = \"persistent\"\n"), "workload[0].connections", "needs a protocol that keeps its connections (tcp, dctcp, d2tcp, tcppr, pfabric), but messages would use d3: D3, RCPdc, PDQ, NDP and Homa open a connection per flow";
        oldi_persistent_with_rcpdc_app: concat!(net!(), oldi!(), "connections = \"persistent\"\nprotocols = [\"tcp\", \"tcp\", \"rcpdc\", \"tcp\", \"tcp\"]\n"), "workload[0].connections", "but messages would use rcpdc";
        oldi_unknown_key: concat!(net!(), oldi!(), "fanin = 3\n"), "workload[0].fanin", "unknown key";
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(512))]

        #[test]
        fn arbitrary_values_in_any_oldi_key_never_panic(
            key in proptest::sample::select(super::KEYS.to_vec()),
            value in proptest::sample::select(vec![
                "0", "1", "7", "8", "18446744073709551615", "4294967295", "1e300", "1e-300", "0.5", "nan", "-1.0",
                "true", "\"1e30s\"", "\"0KB\"", "\"tcp\"", "\"high\"", "[]", "[\"1KB\"]", "[1, 2]", "{}",
            ]),
        ) {
            let text = format!("{}[[workload]]\nkind = \"oldi\"\nbackground = true\n{key} = {value}\n", net!());
            let _ = crate::parse_toml(&text, None, &PORTS);
            let text = format!("{}{}{key} = {value}\n", net!(), oldi!());
            let _ = crate::parse_toml(&text, None, &PORTS);
        }
    }
}
