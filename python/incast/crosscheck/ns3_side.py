"""Runs crosscheck cases in ns-3 (its Python bindings, `pip install ns3`, ns-3.44) and writes
the per-flow results as JSON: `python -m incast.crosscheck.ns3_side CASES.json OUT.json`.

A child process of its own, because ns-3 keeps global state (the simulator, the node list,
attribute defaults) and takes some 15 s to load and compile `ns3_model.cpp` through cppyy; all
cases of one invocation share that cost and run one after the other.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

MODULES = ["core", "network", "internet", "point-to-point", "applications", "traffic-control"]


def load() -> Any:
    """The compiled model's namespace (`incast_crosscheck` in cppyy's global namespace)."""
    import cppyy
    from ns import ns  # noqa: F401  (loads the ns-3 libraries into cppyy)

    for module in MODULES:
        cppyy.include(f"ns3/{module}-module.h")
    cppyy.cppdef((Path(__file__).with_name("ns3_model.cpp")).read_text())
    return cppyy.gbl.incast_crosscheck


def run_case(model: Any, case: Dict[str, Any]) -> Dict[str, Any]:
    """One case: its ns-3 setup fields and flows in, per-flow results and counters out."""
    import cppyy

    setup = model.Setup()
    for key, value in case["ns3"].items():
        setattr(setup, key, value)
    flows = cppyy.gbl.std.vector[model.Flow]()
    for f in case["flows"]:
        flow = model.Flow()
        flow.src, flow.dst, flow.size, flow.start_ns = f["src"], f["dst"], f["size"], f["start_ns"]
        flows.push_back(flow)
    t0, c0 = time.perf_counter(), time.process_time()
    r = model.Run(setup, flows)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "name": case["name"],
        "wall_s": wall,
        "cpu_s": cpu,
        "finish_s": list(r.finish_s),
        "delivered": list(r.delivered),
        "retransmitted": list(r.retransmitted),
        "timeouts": list(r.timeouts),
        "drops_data": int(r.drops_data),
        "drops_other": int(r.drops_other),
        "marks_data": int(r.marks_data),
        "marks_other": int(r.marks_other),
        # Per switch port, by incast's port names.
        "ports": {str(name): {"first_data": int(a), "first_control": int(b), "remarks": int(c),
                              "marked_then_dropped": int(d), "drops": int(e)}
                  for name, a, b, c, d, e in zip(r.port_names, r.port_marks_first_data, r.port_marks_first_control,
                                                 r.port_remarks, r.port_marked_then_dropped, r.port_drops)},
        "device_drops": int(r.device_drops),
        "cwr_from_loss": int(r.cwr_from_loss),
        "cwr_from_recovery": int(r.cwr_from_recovery),
    }


def main(argv: List[str]) -> int:
    cases = json.loads(Path(argv[0]).read_text())
    model = load()
    results = [run_case(model, case) for case in cases]
    Path(argv[1]).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
