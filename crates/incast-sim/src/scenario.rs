//! Scenarios as this engine reads them: the spec types, errors and parsers of incast-scenario,
//! with the one check only the engine can make, that every `[output]` port pattern names a port
//! of the topology as the engine builds it (`Topology::port_names`). Parse with these
//! functions, not incast-scenario's, so that a pattern naming no port is an error of the file,
//! reported before any run (`incast check`, `incast._core.check`).

use std::path::Path;

pub use incast_scenario::spec::*;
pub use incast_scenario::{
    named_distribution, named_sizes, D3Spec, D3Variant, HomaModel, HomaSpec, PdqSpec, PfabricSpec, ProtocolSections, Scenario, TcpPrSpec,
    PFABRIC_DEFAULT_BUFFER_BYTES,
};
pub use incast_scenario::{FlowBurstWorkload, FlowListWorkload, LongFlowsWorkload, PoissonWorkload};
pub use incast_scenario::{document, effective_sections, effective_transport, read_trace_file, Format, ScenarioError, TraceRows, Warning};

use crate::topology::Topology;

/// The names of the ports the engine builds for a topology: the names of the results' ports
/// table and of the capture and queue sampling.
struct EnginePorts;

impl incast_scenario::PortNames for EnginePorts {
    fn port_names(&self, topology: &TopologySpec) -> Result<Vec<String>, String> {
        Topology::build(topology).map(|t| t.port_names()).map_err(|e| e.to_string())
    }
}

/// Parses a TOML scenario ([`incast_scenario::parse_toml`]). `base_dir` is the directory
/// relative trace paths are resolved against (the scenario file's directory; `None` resolves
/// them against the working directory).
pub fn parse_toml(text: &str, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    incast_scenario::parse_toml(text, base_dir, &EnginePorts)
}

/// Parses a JSON scenario ([`incast_scenario::parse_json`]): the same tree as the TOML form, as
/// the Python layer produces it from a dict. `base_dir` is as in [`parse_toml`].
pub fn parse_json(text: &str, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    incast_scenario::parse_json(text, base_dir, &EnginePorts)
}

/// Reads and parses a scenario file ([`incast_scenario::load`]): JSON if its extension is
/// `.json`, TOML otherwise. Trace paths resolve against the file's directory.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    incast_scenario::load(path, &EnginePorts)
}

/// Port patterns against the topologies the engine builds; incast-scenario's own tests check
/// every other rule.
#[cfg(test)]
mod tests {
    use super::*;

    /// Two racks of three hosts: ports `tor0->fabric`, `fabric->tor0`, `h0->tor0`, `tor0->h0`, ...
    const TWO_TIER: &str =
        "[topology]\nkind = \"two-tier\"\nracks = 2\nhosts_per_rack = 3\n[[workload]]\nkind = \"flow-burst\"\n";

    fn refused(output: &str) -> ScenarioError {
        parse_toml(&format!("{TWO_TIER}[output]\n{output}"), None).expect_err("accepted a pattern that names no port")
    }

    #[test]
    fn queue_port_pattern_matching_no_port_is_refused() {
        let e = refused("queue_sample_interval = \"1ms\"\nqueue_sample_ports = [\"tor*->fabric\", \"core*\"]\n");
        assert_eq!(e.path, "output.queue_sample_ports[1]");
        assert_eq!(
            e.message,
            "\"core*\" matches no port of this topology (its ports are named like tor0->fabric, fabric->tor0, \
             h0->tor0, tor0->h0)"
        );
    }

    #[test]
    fn capture_port_pattern_matching_no_port_is_refused() {
        let e = refused("capture_ports = [\"switch->h0\"]\n");
        assert_eq!(e.path, "output.capture_ports[0]");
        assert!(e.message.starts_with("\"switch->h0\" matches no port"), "{e}");
        let json = r#"{"topology": {"kind": "star", "hosts": 4}, "workload": [{"kind": "flow-burst"}],
                       "output": {"capture_ports": ["tor*"]}}"#;
        assert_eq!(parse_json(json, None).unwrap_err().path, "output.capture_ports[0]");
    }

    #[test]
    fn patterns_that_name_ports_are_accepted() {
        let output = "queue_sample_interval = \"1ms\"\nqueue_sample_ports = [\"tor*->fabric\"]\ncapture_ports = [\"fabric->tor?\"]\n";
        parse_toml(&format!("{TWO_TIER}[output]\n{output}"), None).unwrap();
    }

    /// Issue 39: port patterns refused `_ . :`, which graph files' node names may have ("has
    /// '_', which no port name has" for ports that exist).
    #[test]
    fn patterns_take_every_character_a_graph_node_name_may_have() {
        let dir = std::env::temp_dir().join(format!("incast-sim-graph-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("n.graph"),
            "switch rack_1.tor:a
host h_0 h.1 h:2
link h_0 rack_1.tor:a 1Gbps 1us
link h.1 rack_1.tor:a 1Gbps 1us
\
             link h:2 rack_1.tor:a 1Gbps 1us
",
        )
        .unwrap();
        let scenario = |ports: &str| {
            parse_toml(
                &format!(
                    "[topology]\nkind = \"graph\"\nfile = \"n.graph\"\n[[workload]]\nkind = \"flow-burst\"\n\
                     [output]\nqueue_sample_interval = \"1ms\"\nqueue_sample_ports = [{ports}]\n"
                ),
                Some(&dir),
            )
        };
        let s = scenario("\"rack_1.tor:a->h_0\", \"*->h.1\", \"h:?->*\"").unwrap_or_else(|e| panic!("{e}"));
        let sampled = crate::run(&s).unwrap().queues.iter().map(|q| q.port.clone()).collect::<Vec<_>>();
        assert_eq!(sampled, ["rack_1.tor:a->h_0", "rack_1.tor:a->h.1", "h:2->rack_1.tor:a"]);
        // A character no node name has is still refused, and one that could be is a pattern
        // matching no port.
        assert!(scenario("\"h 0->*\"").unwrap_err().message.contains("has ' ', which no port name has"));
        assert!(scenario("\"h_9->*\"").unwrap_err().message.starts_with("\"h_9->*\" matches no port"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_example_parses() {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut count = 0;
        for entry in std::fs::read_dir(examples).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "toml" || ext == "json" {
                load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                count += 1;
            }
        }
        assert!(count >= 5, "found only {count} example scenarios");
    }
}
