//! Workloads built in code: one struct per kind of [`WorkloadSpec`] that code builds by hand, with
//! a constructor taking what has no default independent of the topology (the hosts, a Poisson
//! workload's rate and stop) and giving every other field the value a file that leaves its key
//! out gets; `into()` makes it the [`WorkloadSpec`].
//!
//! Tests and benchmarks that build scenarios in code set what they vary and take the rest from
//! here (`FlowBurstWorkload { rounds: 200, ..FlowBurstWorkload::new(0, workers) }.into()`), so
//! that a new field of a workload kind changes its struct, its constructor and its `From`, not
//! every workload written out. The fields are those of the [`WorkloadSpec`] variant of the same
//! name, which documents them in full.

use incast_proto::time::{Duration, Instant};

use crate::spec::{
    DeadlineDist, ExplicitFlow, FlowOptions, HostIndex, RackLocal, RoundStarts, SizeDist, TrafficPattern, WorkloadSpec,
    DEFAULT_RESPONSE_SIZE,
};

/// [`WorkloadSpec::FlowBurst`]: workers all answer one aggregator at once, round after round.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowBurstWorkload {
    /// Receiver of every response.
    pub aggregator: HostIndex,
    /// Sender of each response, one flow each (a host may appear several times).
    pub workers: Vec<HostIndex>,
    /// Response sizes.
    pub size: SizeDist,
    /// Response deadlines; `None` for no deadline.
    pub deadline: Option<DeadlineDist>,
    /// Start of the first round.
    pub start: Instant,
    /// Number of rounds.
    pub rounds: u32,
    /// When the rounds start.
    pub round_starts: RoundStarts,
    /// Protocol and priority.
    pub options: FlowOptions,
}

impl FlowBurstWorkload {
    /// `workers` answer `aggregator` once, at time zero, with D3's response sizes (uniform in
    /// [2 KB, 50 KB]) and no deadline: a `flow-burst` workload that sets only `aggregator` and
    /// `worker_hosts` (whose default, every other host, depends on the topology).
    pub fn new(aggregator: HostIndex, workers: Vec<HostIndex>) -> Self {
        FlowBurstWorkload {
            aggregator,
            workers,
            size: DEFAULT_RESPONSE_SIZE,
            deadline: None,
            start: Instant::ZERO,
            rounds: 1,
            round_starts: RoundStarts::AfterCompletion { gap: Duration::ZERO },
            options: FlowOptions::default(),
        }
    }
}

impl From<FlowBurstWorkload> for WorkloadSpec {
    fn from(w: FlowBurstWorkload) -> Self {
        let FlowBurstWorkload { aggregator, workers, size, deadline, start, rounds, round_starts, options } = w;
        WorkloadSpec::FlowBurst { aggregator, workers, size, deadline, start, rounds, round_starts, options }
    }
}

/// [`WorkloadSpec::LongFlows`]: flows that never finish.
#[derive(Clone, Debug, PartialEq)]
pub struct LongFlowsWorkload {
    /// (source, destination) of each flow.
    pub pairs: Vec<(HostIndex, HostIndex)>,
    /// When they start.
    pub start: Instant,
    /// Protocol and priority.
    pub options: FlowOptions,
}

impl LongFlowsWorkload {
    /// One long-lived flow per (source, destination) pair, from time zero: a `long-flows`
    /// workload that sets only `pairs`.
    pub fn new(pairs: Vec<(HostIndex, HostIndex)>) -> Self {
        LongFlowsWorkload { pairs, start: Instant::ZERO, options: FlowOptions::default() }
    }
}

impl From<LongFlowsWorkload> for WorkloadSpec {
    fn from(w: LongFlowsWorkload) -> Self {
        let LongFlowsWorkload { pairs, start, options } = w;
        WorkloadSpec::LongFlows { pairs, start, options }
    }
}

/// [`WorkloadSpec::Poisson`]: flows arriving as a Poisson process between hosts.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonWorkload {
    /// Mean arrivals per second.
    pub rate_per_sec: f64,
    /// Hosts that may send (and, without `destinations`, receive).
    pub hosts: Vec<HostIndex>,
    /// Hosts that receive, if not `hosts`.
    pub destinations: Option<Vec<HostIndex>>,
    /// How each flow's destination is picked.
    pub pattern: TrafficPattern,
    /// The share of flows that stay inside their sender's rack, when set.
    pub rack_local: Option<RackLocal>,
    /// The rate came from `load` (so errors about it name that key).
    pub from_load: bool,
    /// Sizes.
    pub size: SizeDist,
    /// Deadlines; `None` for no deadline.
    pub deadline: Option<DeadlineDist>,
    /// First possible arrival.
    pub start: Instant,
    /// No arrivals at or after this time.
    pub stop: Instant,
    /// Protocol and priority.
    pub options: FlowOptions,
}

impl PoissonWorkload {
    /// `rate_per_sec` arrivals a second from time zero until `stop`, each between two random
    /// hosts of `hosts`, with D3's response sizes and no deadline: a `poisson` workload that sets
    /// only `rate`, `hosts` (whose default, every host, depends on the topology) and `stop`.
    pub fn new(rate_per_sec: f64, hosts: Vec<HostIndex>, stop: Instant) -> Self {
        PoissonWorkload {
            rate_per_sec,
            hosts,
            destinations: None,
            pattern: TrafficPattern::default(),
            rack_local: None,
            from_load: false,
            size: DEFAULT_RESPONSE_SIZE,
            deadline: None,
            start: Instant::ZERO,
            stop,
            options: FlowOptions::default(),
        }
    }
}

impl From<PoissonWorkload> for WorkloadSpec {
    fn from(w: PoissonWorkload) -> Self {
        let PoissonWorkload {
            rate_per_sec,
            hosts,
            destinations,
            pattern,
            rack_local,
            from_load,
            size,
            deadline,
            start,
            stop,
            options,
        } = w;
        WorkloadSpec::Poisson {
            rate_per_sec,
            hosts,
            destinations,
            pattern,
            rack_local,
            from_load,
            size,
            deadline,
            start,
            stop,
            options,
        }
    }
}

/// [`WorkloadSpec::Flows`]: flows given one by one.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowListWorkload {
    /// The flows.
    pub flows: Vec<ExplicitFlow>,
    /// Protocol and priority.
    pub options: FlowOptions,
}

impl FlowListWorkload {
    /// `flows` on the scenario's transport: a `flows` workload that sets only `flows`.
    pub fn new(flows: Vec<ExplicitFlow>) -> Self {
        FlowListWorkload { flows, options: FlowOptions::default() }
    }
}

impl From<FlowListWorkload> for WorkloadSpec {
    fn from(w: FlowListWorkload) -> Self {
        let FlowListWorkload { flows, options } = w;
        WorkloadSpec::Flows { flows, options }
    }
}
