//! What the sections checked before the workloads tell each workload's validator (`traffic`,
//! `oldi`): the hosts, the switch, the topology, the run's limits and the flows planned so
//! far. Its own module so that the workload validators share it without importing each other.

use std::path::Path;

use super::check::Hosts;
use super::limits::FlowBudget;
use super::spec::{Protocol, RunSpec, SwitchSpec, TopologySpec};

/// What the rest of the scenario tells a workload.
pub(crate) struct Context<'a> {
    /// The topology's hosts.
    pub(crate) hosts: &'a Hosts,
    /// Switch configuration (priority classes).
    pub(crate) switch: &'a SwitchSpec,
    /// The network: its host link rates, which a load is a fraction of, and its racks.
    pub(crate) topology: &'a TopologySpec,
    /// `[run]`: the duration, the horizon and the limits.
    pub(crate) run: &'a RunSpec,
    /// Flows the workloads checked so far plan, against `run.max_flows`.
    pub(crate) flows: FlowBudget,
    /// Directory relative trace paths resolve against.
    pub(crate) base_dir: Option<&'a Path>,
    /// `[transport].protocol`: what flows use unless their workload says otherwise.
    pub(crate) protocol: Protocol,
}
