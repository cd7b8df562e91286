//! The scenario file as written: serde structs that mirror the TOML/JSON tree key for key.
//!
//! They reject unknown keys (`deny_unknown_fields`) and parse unit strings while deserializing,
//! so that `serde_path_to_error` names the exact key of every type or unit error. Everything that
//! needs more than one key (ranges, host indices, kind-specific keys) is checked afterwards in
//! `scenario::validate`, which turns these structs into the spec types.
//!
//! Workloads, topologies and distributions are flat structs with a `kind`/`dist` name rather than
//! serde-tagged enums: tagged enums buffer their content and lose the key path of errors inside.

use std::fmt;

use serde::de::{self, value::MapAccessDeserializer, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use incast_proto::tcp::{DctcpLossCut, EcnReduction, LossBasis, Stack, SubSegmentWindow, WindowGrowth};

use super::names::{Name, Named, Pair};
use super::spec::{Connections, DeadlineVariance, HostNic, LoadBalancing, Protocol, TrafficPattern};
use super::units::{QueueLimit, Rate, Size, Time};
use super::{named_sizes, units};

/// Defines [`RawScenario`] with one field per section of the registry's transports.
macro_rules! raw_scenario {
    ($($module:ident: $family:ident [$($section:ident)*] { $($protocols:tt)* })+) => {
        /// The whole document.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct RawScenario {
            pub(crate) seed: Option<u64>,
            pub(crate) topology: RawTopology,
            #[serde(default)]
            pub(crate) switch: RawSwitch,
            #[serde(default)]
            pub(crate) transport: RawTransport,
            $($(
                #[doc = concat!("`[", stringify!($section), "]`, `None` when the file has none.")]
                pub(crate) $section: Option<crate::protocols::$section::Raw>,
            )*)+
            #[serde(default)]
            pub(crate) workload: Vec<RawWorkload>,
            #[serde(default)]
            pub(crate) run: RawRun,
            #[serde(default)]
            pub(crate) output: RawOutput,
        }

        impl RawScenario {
            /// The protocols' sections, taken out of the document.
            pub(crate) fn take_sections(&mut self) -> crate::protocols::RawSections {
                crate::protocols::RawSections { $($($section: self.$section.take(),)*)+ }
            }
        }
    };
}

crate::for_each_transport!(raw_scenario);

/// `[topology]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTopology {
    pub(crate) kind: Name<TopologyKind>,
    pub(crate) hosts: Option<u64>,
    pub(crate) racks: Option<u64>,
    pub(crate) hosts_per_rack: Option<u64>,
    pub(crate) k: Option<u64>,
    pub(crate) spines: Option<u64>,
    pub(crate) link_rate: Option<Rate>,
    pub(crate) link_delay: Option<Time>,
    pub(crate) fabric_rate: Option<Rate>,
    pub(crate) core_rate: Option<Rate>,
    pub(crate) oversubscription: Option<f64>,
    pub(crate) file: Option<String>,
}

/// `[switch]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSwitch {
    pub(crate) buffer: Option<QueueLimit>,
    pub(crate) shared_buffer: Option<QueueLimit>,
    pub(crate) dt_alpha: Option<f64>,
    pub(crate) core_buffer: Option<QueueLimit>,
    pub(crate) core_shared_buffer: Option<QueueLimit>,
    pub(crate) core_dt_alpha: Option<f64>,
    pub(crate) ecn_threshold: Option<RawEcn>,
    pub(crate) priority_classes: Option<u64>,
    pub(crate) host_nic: Option<Name<HostNic>>,
    pub(crate) load_balancing: Option<Name<LoadBalancing>>,
}

/// Defines a table of optional keys whose [`given`](RawTransport::given) lists the keys the file
/// sets, so that the list cannot miss a key.
macro_rules! optional_keys {
    ($(#[$meta:meta])* pub(crate) struct $name:ident { $(pub(crate) $key:ident: Option<$type:ty>,)+ }) => {
        $(#[$meta])*
        pub(crate) struct $name {
            $(pub(crate) $key: Option<$type>,)+
        }

        impl $name {
            /// The keys the file sets, in declaration order.
            pub(crate) fn given(&self) -> Vec<&'static str> {
                let mut keys = Vec::new();
                $(
                    if self.$key.is_some() {
                        keys.push(stringify!($key));
                    }
                )+
                keys
            }
        }
    };
}

optional_keys! {
    /// `[transport]`.
    #[derive(Deserialize, Default)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawTransport {
        pub(crate) protocol: Option<Name<Protocol>>,
        pub(crate) stack: Option<Name<Stack>>,
        pub(crate) mss: Option<u64>,
        pub(crate) timestamps: Option<bool>,
        pub(crate) sack: Option<bool>,
        pub(crate) rescue_retransmission: Option<bool>,
        pub(crate) partial_ack_retransmit: Option<bool>,
        pub(crate) prr: Option<bool>,
        pub(crate) ecn_reduction: Option<Name<EcnReduction>>,
        pub(crate) limited_transmit: Option<bool>,
        pub(crate) window_growth: Option<Name<WindowGrowth>>,
        pub(crate) cwnd_validation: Option<bool>,
        pub(crate) recovery_in_cwr: Option<bool>,
        pub(crate) loss_basis: Option<Name<LossBasis>>,
        pub(crate) dctcp_loss_cut: Option<Name<DctcpLossCut>>,
        pub(crate) ecn_cut_floor: Option<u64>,
        pub(crate) ecn_cut_after_timeout: Option<bool>,
        pub(crate) sub_segment_window: Option<Name<SubSegmentWindow>>,
        pub(crate) ce_sequence_check: Option<bool>,
        pub(crate) ect_control_packets: Option<bool>,
        pub(crate) ns3_bookkeeping: Option<bool>,
        pub(crate) handshake_ack: Option<bool>,
        pub(crate) initial_ssthresh: Option<Size>,
        pub(crate) initial_window: Option<u64>,
        pub(crate) min_rto: Option<Time>,
        pub(crate) initial_rto: Option<Time>,
        pub(crate) max_rto: Option<Time>,
        pub(crate) clock_granularity: Option<Time>,
        pub(crate) delayed_ack: Option<RawDelayedAck>,
        pub(crate) receive_window: Option<Size>,
        pub(crate) dupack_threshold: Option<u64>,
        pub(crate) dctcp_g: Option<f64>,
        pub(crate) dctcp_initial_alpha: Option<f64>,
        pub(crate) handshake: Option<bool>,
        pub(crate) restart_after_idle: Option<bool>,
    }
}

/// One `[[workload]]`: the union of every kind's keys; `validate` rejects keys of other kinds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWorkload {
    pub(crate) kind: Name<WorkloadKind>,
    pub(crate) protocol: Option<Name<Protocol>>,
    pub(crate) priority: Option<u64>,
    pub(crate) aggregator: Option<u32>,
    pub(crate) senders: Option<u64>,
    pub(crate) worker_hosts: Option<Vec<u32>>,
    pub(crate) size: Option<RawSizeDist>,
    pub(crate) deadline: Option<RawDeadlineDist>,
    pub(crate) start: Option<Time>,
    pub(crate) rounds: Option<u64>,
    pub(crate) round_gap: Option<Time>,
    pub(crate) pairs: Option<Vec<Pair<u32, u32>>>,
    pub(crate) rate: Option<f64>,
    pub(crate) load: Option<f64>,
    pub(crate) hosts: Option<Vec<u32>>,
    pub(crate) destinations: Option<Vec<u32>>,
    pub(crate) stop: Option<Time>,
    pub(crate) flows: Option<Vec<RawFlow>>,
    pub(crate) path: Option<String>,
    pub(crate) fan_in: Option<u64>,
    pub(crate) trees_per_app: Option<u64>,
    pub(crate) message_sizes: Option<Vec<Size>>,
    pub(crate) deadlines: Option<Vec<Time>>,
    pub(crate) deadline_variance: Option<Name<DeadlineVariance>>,
    pub(crate) query_rate: Option<f64>,
    pub(crate) query_interval: Option<Time>,
    pub(crate) utilization: Option<f64>,
    pub(crate) protocols: Option<Vec<Name<Protocol>>>,
    pub(crate) background: Option<bool>,
    pub(crate) background_size: Option<Size>,
    pub(crate) background_interval: Option<Time>,
    pub(crate) background_protocol: Option<Name<Protocol>>,
    pub(crate) connections: Option<Name<Connections>>,
    pub(crate) pattern: Option<Name<TrafficPattern>>,
    pub(crate) rack_local: Option<f64>,
}

/// One entry of a `kind = "flows"` list. Besides unit strings it takes plain numbers
/// (`size_bytes`, `start_s`, `deadline_s`, the trace CSV's columns), which is what the Python
/// layer emits when it converts a Parquet trace of millions of flows.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFlow {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) size: Option<Size>,
    pub(crate) size_bytes: Option<u64>,
    pub(crate) start: Option<Time>,
    pub(crate) start_s: Option<f64>,
    pub(crate) deadline: Option<Time>,
    pub(crate) deadline_s: Option<f64>,
}

/// `[run]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRun {
    pub(crate) duration: Option<Time>,
    pub(crate) stop_after_finite_flows: Option<bool>,
    pub(crate) horizon: Option<Time>,
    pub(crate) warmup: Option<Time>,
    pub(crate) measure_until: Option<Time>,
    pub(crate) max_flows: Option<u64>,
    pub(crate) max_hosts: Option<u64>,
    pub(crate) max_samples: Option<u64>,
    pub(crate) max_trace_bytes: Option<u64>,
    pub(crate) max_network_bytes: Option<u64>,
    pub(crate) stall_after: Option<RawStallAfter>,
    pub(crate) threads: Option<RawThreads>,
}

/// `threads`: a count or `"auto"`.
pub(crate) enum RawThreads {
    Auto,
    Count(i64),
}

/// `stall_after`: a time string, `"auto"` or `"off"`.
pub(crate) enum RawStallAfter {
    Auto,
    Off,
    After(u64),
}

/// `[output]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOutput {
    pub(crate) queue_sample_interval: Option<Time>,
    pub(crate) queue_sample_hosts: Option<Vec<u32>>,
    pub(crate) queue_sample_ports: Option<Vec<String>>,
    pub(crate) flow_throughput_interval: Option<Time>,
    pub(crate) capture_ports: Option<Vec<String>>,
    pub(crate) trace_flows: Option<Vec<u32>>,
    pub(crate) trace_workloads: Option<Vec<u32>>,
    pub(crate) trace_apps: Option<Vec<u32>>,
    pub(crate) capture_max_packets: Option<u64>,
    pub(crate) offer_log_ports: Option<Vec<String>>,
    pub(crate) offer_log_max_rows: Option<u64>,
}

/// `ecn_threshold`: `"auto"`, `"off"`, `"scaled"`, a packet count, a size string, or a table of
/// these by link rate (its keys as written, checked by the switch validator).
pub(crate) enum RawEcn {
    Auto,
    Off,
    Scaled,
    Packets(u64),
    Bytes(u64),
    PerRate(Vec<(String, RawEcn)>),
}

/// `delayed_ack`: a bool or a table.
pub(crate) enum RawDelayedAck {
    Enabled(bool),
    Table(RawDelayedAckTable),
}

/// `delayed_ack = { segments = 2, timeout = "200ms" }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDelayedAckTable {
    pub(crate) segments: Option<u64>,
    pub(crate) timeout: Option<Time>,
    pub(crate) quickack: Option<u64>,
}

/// `size`: a size string (fixed), the name of a shipped distribution, or a distribution table.
pub(crate) enum RawSizeDist {
    Fixed(u64),
    Named(&'static str),
    Table(RawSizeTable),
}

/// `size = { dist = "...", ... }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSizeTable {
    pub(crate) dist: Name<SizeDistKind>,
    pub(crate) value: Option<Size>,
    pub(crate) min: Option<Size>,
    pub(crate) max: Option<Size>,
    pub(crate) mean: Option<Size>,
    pub(crate) points: Option<Vec<Pair<Size, f64>>>,
}

/// `deadline`: a time string (fixed) or a distribution table.
pub(crate) enum RawDeadlineDist {
    Fixed(u64),
    Table(RawDeadlineTable),
}

/// `deadline = { dist = "...", ... }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDeadlineTable {
    pub(crate) dist: Name<DeadlineDistKind>,
    pub(crate) value: Option<Time>,
    pub(crate) min: Option<Time>,
    pub(crate) max: Option<Time>,
    pub(crate) mean: Option<Time>,
}

/// Values of `topology.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TopologyKind {
    Star,
    D3Testbed,
    TwoTier,
    FatTree,
    LeafSpine,
    Graph,
}

/// Values of `workload.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WorkloadKind {
    FlowBurst,
    LongFlows,
    Poisson,
    Flows,
    Trace,
    Oldi,
}

/// Values of `size.dist`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SizeDistKind {
    Fixed,
    Uniform,
    Exponential,
    Cdf,
}

/// Values of `deadline.dist`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeadlineDistKind {
    Fixed,
    Uniform,
    Exponential,
}

impl Named for Protocol {
    const WHAT: &'static str = "protocol";
    const NAMES: &'static [(&'static str, Self)] = Protocol::NAMES;
}

impl Named for Stack {
    const WHAT: &'static str = "TCP stack";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("linux", Stack::Linux),
        ("ns3", Stack::Ns3),
        ("ns3-2012", Stack::Ns3_2012),
        ("d3-testbed", Stack::D3Testbed),
    ];
}

impl Named for EcnReduction {
    const WHAT: &'static str = "ECN reduction";
    const NAMES: &'static [(&'static str, Self)] = &[("instant", EcnReduction::Instant), ("prr", EcnReduction::Prr)];
}

impl Named for LossBasis {
    const WHAT: &'static str = "loss basis";
    const NAMES: &'static [(&'static str, Self)] =
        &[("flight", LossBasis::Flight), ("pipe", LossBasis::Pipe), ("cwnd", LossBasis::Cwnd)];
}

impl Named for DctcpLossCut {
    const WHAT: &'static str = "DCTCP loss cut";
    const NAMES: &'static [(&'static str, Self)] = &[("half", DctcpLossCut::Half), ("alpha", DctcpLossCut::Alpha)];
}

impl Named for SubSegmentWindow {
    const WHAT: &'static str = "sub-segment window rule";
    const NAMES: &'static [(&'static str, Self)] = &[("send", SubSegmentWindow::Send), ("wait", SubSegmentWindow::Wait)];
}

impl Named for WindowGrowth {
    const WHAT: &'static str = "window growth";
    const NAMES: &'static [(&'static str, Self)] = &[("bytes", WindowGrowth::Bytes), ("per-ack", WindowGrowth::PerAck)];
}

impl Named for TopologyKind {
    const WHAT: &'static str = "topology kind";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("star", TopologyKind::Star),
        ("d3-testbed", TopologyKind::D3Testbed),
        ("two-tier", TopologyKind::TwoTier),
        ("fat-tree", TopologyKind::FatTree),
        ("leaf-spine", TopologyKind::LeafSpine),
        ("graph", TopologyKind::Graph),
    ];
}

impl Named for WorkloadKind {
    const WHAT: &'static str = "workload kind";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("flow-burst", WorkloadKind::FlowBurst),
        ("long-flows", WorkloadKind::LongFlows),
        ("poisson", WorkloadKind::Poisson),
        ("flows", WorkloadKind::Flows),
        ("trace", WorkloadKind::Trace),
        ("oldi", WorkloadKind::Oldi),
    ];
}

impl Named for HostNic {
    const WHAT: &'static str = "host NIC";
    const NAMES: &'static [(&'static str, Self)] = &[("backlog", HostNic::Backlog), ("like-switch", HostNic::LikeSwitch)];
}

impl Named for LoadBalancing {
    const WHAT: &'static str = "load balancing";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("ecmp", LoadBalancing::Ecmp),
        ("spray", LoadBalancing::Spray),
        ("spray-permute", LoadBalancing::SprayPermute),
    ];
}

impl Named for TrafficPattern {
    const WHAT: &'static str = "traffic pattern";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("random", TrafficPattern::Random),
        ("permutation", TrafficPattern::Permutation),
    ];
}

impl Named for Connections {
    const WHAT: &'static str = "connection model";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("per-message", Connections::PerMessage),
        ("persistent", Connections::Persistent),
    ];
}

impl Named for DeadlineVariance {
    const WHAT: &'static str = "deadline variance";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("low", DeadlineVariance::Low),
        ("medium", DeadlineVariance::Medium),
        ("high", DeadlineVariance::High),
    ];
}

impl Named for SizeDistKind {
    const WHAT: &'static str = "size distribution";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("fixed", SizeDistKind::Fixed),
        ("uniform", SizeDistKind::Uniform),
        ("exponential", SizeDistKind::Exponential),
        ("cdf", SizeDistKind::Cdf),
    ];
}

impl Named for DeadlineDistKind {
    const WHAT: &'static str = "deadline distribution";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("fixed", DeadlineDistKind::Fixed),
        ("uniform", DeadlineDistKind::Uniform),
        ("exponential", DeadlineDistKind::Exponential),
    ];
}

impl<'de> Deserialize<'de> for RawEcn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawEcn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "\"auto\", \"off\", \"scaled\", a number of packets, a size string such as \"30KB\", \
                     or a table of these by link rate such as { \"10Gbps\" = \"30KB\" }",
                )
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawEcn, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, RawEcn>()? {
                    entries.push(entry);
                }
                Ok(RawEcn::PerRate(entries))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawEcn, E> {
                match v.trim().to_ascii_lowercase().as_str() {
                    "auto" => Ok(RawEcn::Auto),
                    "off" => Ok(RawEcn::Off),
                    "scaled" => Ok(RawEcn::Scaled),
                    _ => units::parse_queue_size(v).map(|q| match q {
                        units::QueueSize::Bytes(b) => RawEcn::Bytes(b),
                        units::QueueSize::Packets(n) => RawEcn::Packets(n),
                    }).map_err(|e| {
                        E::custom(format!(
                            "{e}; or use \"auto\", \"off\", \"scaled\", a number of packets or a table by link rate"
                        ))
                    }),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawEcn, E> {
                Ok(RawEcn::Packets(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawEcn, E> {
                u64::try_from(v).map(RawEcn::Packets).map_err(|_| {
                    E::custom(format!("invalid ECN threshold {v}: must not be negative"))
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawStallAfter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RawStallAfter;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a time string such as \"10s\" (units ps, ns, us, ms, s), \"auto\" or \"off\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawStallAfter, E> {
                match v.trim().to_ascii_lowercase().as_str() {
                    "auto" => Ok(RawStallAfter::Auto),
                    "off" => Ok(RawStallAfter::Off),
                    _ => units::parse_time(v).map(RawStallAfter::After).map_err(|e| E::custom(format!("{e}; or \"auto\" or \"off\""))),
                }
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for RawThreads {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RawThreads;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of threads such as 4, or \"auto\" (one per core)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawThreads, E> {
                Ok(RawThreads::Count(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawThreads, E> {
                Ok(RawThreads::Count(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawThreads, E> {
                match v.trim().to_ascii_lowercase().as_str() {
                    "auto" => Ok(RawThreads::Auto),
                    _ => Err(E::custom(format!("invalid value {v:?}: a number of threads such as 4, or \"auto\" (one per core)"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawDelayedAck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawDelayedAck;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or a table { segments = 2, timeout = \"200ms\" }")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawDelayedAck, E> {
                Ok(RawDelayedAck::Enabled(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawDelayedAck, A::Error> {
                RawDelayedAckTable::deserialize(MapAccessDeserializer::new(map))
                    .map(RawDelayedAck::Table)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawSizeDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawSizeDist;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a size string such as \"20KB\", a distribution's name such as \"web-search\", \
                     or a table { dist = \"uniform\", ... }",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawSizeDist, E> {
                if let Some(name) = named_sizes::canonical(v) {
                    return Ok(RawSizeDist::Named(name));
                }
                // A string that does not start like a number is meant as a name.
                let numeric = v.trim_start().starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.'));
                if !numeric {
                    return Err(E::custom(format!(
                        "unknown size distribution \"{v}\": give a size such as \"20KB\" or one of {}",
                        named_sizes::NAMES.join(", ")
                    )));
                }
                units::parse_size(v)
                    .map(RawSizeDist::Fixed)
                    .map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawSizeDist, A::Error> {
                RawSizeTable::deserialize(MapAccessDeserializer::new(map)).map(RawSizeDist::Table)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawDeadlineDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawDeadlineDist;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a time string such as \"20ms\" or a table { dist = \"exponential\", ... }",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawDeadlineDist, E> {
                units::parse_time(v)
                    .map(RawDeadlineDist::Fixed)
                    .map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawDeadlineDist, A::Error> {
                RawDeadlineTable::deserialize(MapAccessDeserializer::new(map))
                    .map(RawDeadlineDist::Table)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::parse_name;

    #[test]
    fn names_ignore_case_and_underscores() {
        assert_eq!(parse_name::<Protocol>("DCTCP"), Ok(Protocol::Dctcp));
        assert_eq!(parse_name::<Protocol>("NewReno"), Ok(Protocol::Tcp));
        assert_eq!(
            parse_name::<TopologyKind>("fat_tree"),
            Ok(TopologyKind::FatTree)
        );
        assert_eq!(
            parse_name::<WorkloadKind>("Flow-Burst"),
            Ok(WorkloadKind::FlowBurst)
        );
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let err = parse_name::<Protocol>("cubic").unwrap_err();
        assert_eq!(
            err,
            "unknown protocol \"cubic\": expected one of \"tcp\", \"newreno\", \"dctcp\", \"d2tcp\", \"tcppr\", \"d3\", \"rcpdc\", \"pfabric\", \"pdq\", \"ndp\", \"homa\""
        );
    }

    #[test]
    fn canonical_names() {
        assert_eq!(TopologyKind::TwoTier.name(), "two-tier");
        assert_eq!(Protocol::Tcp.name(), "tcp");
        assert_eq!(DeadlineDistKind::Uniform.name(), "uniform");
    }

    #[test]
    fn unit_newtypes_parse_while_deserializing() {
        let t: Time = serde_json::from_str("\"20us\"").unwrap();
        assert_eq!(t, Time(20_000_000));
        let s: Size = serde_json::from_str("\"2KiB\"").unwrap();
        assert_eq!(s, Size(2048));
        let r: Rate = serde_json::from_str("\"10Gbps\"").unwrap();
        assert_eq!(r, Rate(10_000_000_000));
        let err = serde_json::from_str::<Size>("20000")
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected a size string"), "{err}");
    }

    #[test]
    fn ecn_threshold_forms() {
        let parse = |s: &str| serde_json::from_str::<RawEcn>(s);
        assert!(matches!(parse("\"auto\""), Ok(RawEcn::Auto)));
        assert!(matches!(parse("\"OFF\""), Ok(RawEcn::Off)));
        assert!(matches!(parse("20"), Ok(RawEcn::Packets(20))));
        assert!(matches!(parse("\"30KB\""), Ok(RawEcn::Bytes(30_000))));
        assert!(parse("-1").is_err());
        assert!(parse("1.5").is_err());
        assert!(parse("\"sometimes\"").is_err());
    }
}
