//! The validated scenario as a whole: its parts (`spec`) and the protocols' own sections
//! (`protocols`), what the engine builds a simulation from.

use crate::protocols::ProtocolSections;
use crate::spec::{protocols_in_use, OutputSpec, Protocol, RunSpec, SwitchSpec, TopologySpec, TransportSpec, WorkloadSpec};

/// A complete, validated simulation scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Seed of every random stream of the run (workload sizes, deadlines, placement, ECMP salt).
    pub seed: u64,
    /// The network.
    pub topology: TopologySpec,
    /// Switch buffers, ECN marking and priority classes.
    pub switch: SwitchSpec,
    /// Default transport of every flow (a workload may override the protocol).
    pub transport: TransportSpec,
    /// The protocols' own sections (`[d3]`, `[pdq]`, ...), defaults where the file has none.
    pub sections: ProtocolSections,
    /// Traffic sources; their flows are merged.
    pub workloads: Vec<WorkloadSpec>,
    /// When the run stops.
    pub run: RunSpec,
    /// Optional instrumentation.
    pub output: OutputSpec,
}

impl Scenario {
    /// The protocols the scenario's flows run, in the registry's order (`Protocol::ALL`); the
    /// default protocol counts only if some workload's flows take it.
    pub fn protocols_in_use(&self) -> Vec<Protocol> {
        protocols_in_use(&self.workloads, self.transport.protocol)
    }

    /// Whether any flow runs `protocol`.
    pub fn runs(&self, protocol: Protocol) -> bool {
        self.workloads.iter().any(|w| w.flow_protocols(self.transport.protocol).contains(&protocol))
    }
}
