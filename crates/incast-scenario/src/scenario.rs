//! The validated scenario as a whole: its parts (`spec`) and the protocols' own sections
//! (`protocols`), what the engine builds a simulation from.

use crate::error::Warning;
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
    /// What validation found the run will do that the file may not mean (docs/scenario.md,
    /// "Warnings"), each once; none for a scenario built in code.
    pub warnings: Vec<Warning>,
}

impl Scenario {
    /// The seed of a file that gives none.
    pub const DEFAULT_SEED: u64 = 1;

    /// `workloads` on `topology`, every other part as a file without its section gets it: seed
    /// [`Scenario::DEFAULT_SEED`], [`SwitchSpec::default`], [`TransportSpec::default`], the
    /// protocols' default sections, [`RunSpec::default`], no instrumentation and no warnings.
    ///
    /// For code that builds a scenario instead of parsing one (the engine's tests and benchmark,
    /// programs that generate scenarios): change what differs by assigning fields or with struct
    /// update syntax (`Scenario { seed: 7, ..Scenario::new(topology, workloads) }`), so that a new
    /// part or key changes only the defaults, not every such scenario. Nothing validates it, so
    /// it must hold what validation would have checked (hosts that exist, a `run.duration` for
    /// long-lived flows, ...).
    pub fn new(topology: TopologySpec, workloads: Vec<WorkloadSpec>) -> Scenario {
        Scenario {
            seed: Scenario::DEFAULT_SEED,
            topology,
            switch: SwitchSpec::default(),
            transport: TransportSpec::default(),
            sections: ProtocolSections::default(),
            workloads,
            run: RunSpec::default(),
            output: OutputSpec::default(),
            warnings: Vec::new(),
        }
    }

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
