"""Issue 39's warnings and the rules behind them, through every surface: what `_core.check` and
`_core.Simulation` return, `incast.run` (issued with `warnings.warn`, listed in
`RunResult.warnings`), sweeps (`Sweep.warnings`, counted over the points; the points' runs issue
none) and `incast sweep`; and the docs naming the protocols the rules name. The scenarios each
warning is about, through `incast check` and `incast run` too, are cases of
tests/test_hostile.py (group `rules`); the warnings' texts and thresholds are
incast-scenario's own tests (`warnings.rs`).
"""

from __future__ import annotations

import copy
import pickle
import re
import warnings
from pathlib import Path
from typing import Any, Dict, List

import pytest

import incast
from incast import _core
from incast.scenario import source_of
from incast.sweep import load_sweep, run_sweep, sweep_from_dict

from conftest import REPO, small_scenario, write
from conftest import incast as run_cli

ECN = "switch.ecn_threshold"


def d2tcp_unmarked() -> Dict[str, Any]:
    """The small scenario on D2TCP with marking off, carrying a `[d3]` no flow reads: two
    warnings, the section's first."""
    tree = small_scenario()
    tree["switch"] = {**tree["switch"], "ecn_threshold": "off"}
    tree["transport"] = {**tree["transport"], "protocol": "d2tcp"}
    tree["d3"] = {"alpha": 0.2}
    return tree


def paths(found: Any) -> List[str]:
    return [w.path for w in found]


def test_check_and_simulation_give_the_same_warnings() -> None:
    source = source_of(d2tcp_unmarked())
    checked = _core.check(source.text, source.format, source.base_dir)["warnings"]
    built = _core.Simulation(source.text, source.format, source.base_dir).warnings()
    assert [tuple(w) for w in checked] == [tuple(w) for w in built]
    assert [w[0] for w in checked] == ["d3", ECN]
    source = source_of(small_scenario())
    assert _core.check(source.text, source.format, source.base_dir)["warnings"] == []


def test_run_issues_each_warning_once_at_the_caller_and_lists_it() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = incast.run(d2tcp_unmarked())
    assert [w.category for w in caught] == [incast.ScenarioWarning] * 2
    assert paths(w.message for w in caught) == ["d3", ECN]
    assert all(w.filename == __file__ for w in caught), "issued at the caller's line"
    assert result.warnings == tuple(w.message for w in caught)
    w = result.warnings[1]
    assert isinstance(w, UserWarning) and w.path == ECN
    assert str(w) == f"`{ECN}`: {w.message}"
    assert w.message.startswith('is "off": no port marks ECN, so the D2TCP flows (transport.protocol)')
    # A scenario without any: nothing issued, nothing listed.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert incast.run(small_scenario()).warnings == ()
    assert caught == []


def test_warn_false_lists_without_issuing_and_the_filters_decide_the_rest() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = incast.run(d2tcp_unmarked(), warn=False)
    assert caught == [] and paths(result.warnings) == ["d3", ECN]
    with warnings.catch_warnings():
        warnings.simplefilter("error", incast.ScenarioWarning)
        with pytest.raises(incast.ScenarioWarning) as raised:
            incast.run(d2tcp_unmarked())
    assert raised.value.path == "d3"


def test_trace_slowest_runs_twice_but_warns_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = incast.run(d2tcp_unmarked(), trace_slowest=1)
    assert paths(w.message for w in caught) == ["d3", ECN]
    assert paths(result.warnings) == ["d3", ECN]


def test_warnings_pickle_with_their_result() -> None:
    result = incast.run(d2tcp_unmarked(), warn=False)
    again = pickle.loads(pickle.dumps(result.warnings))
    assert again == result.warnings
    assert [(w.path, w.message, str(w)) for w in again] == [(w.path, w.message, str(w)) for w in result.warnings]


def unmarked_sweep(tmp_path: Path) -> Dict[str, Any]:
    """TCP, DCTCP and D2TCP over a base with marking off and a `[d3]`, two seeds: 6 points."""
    tree = small_scenario()
    tree["switch"] = {**tree["switch"], "ecn_threshold": "off"}
    tree["d3"] = {"alpha": 0.2}
    return {"scenario": tree, "seeds": 2, "vary": {"grid": {"transport.protocol": ["tcp", "dctcp", "d2tcp"]}}}


def test_a_sweep_counts_each_distinct_warning_over_its_points(tmp_path: Path) -> None:
    sweep = sweep_from_dict(unmarked_sweep(tmp_path), base_dir=tmp_path)
    assert len(sweep.points) == 6
    counted = [(w.path, w.message.split(", so the ")[-1][:10], n) for w, n in sweep.warnings]
    # [d3] on every point; each ECN transport's own warning on its two.
    assert counted == [("d3", "is set, bu", 6), (ECN, "DCTCP flow", 2), (ECN, "D2TCP flow", 2)]


def test_a_sweeps_points_issue_no_warnings_when_they_run(tmp_path: Path) -> None:
    sweep = sweep_from_dict(unmarked_sweep(tmp_path), base_dir=tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_sweep(sweep, tmp_path / "out", jobs=2, progress=False)
    assert result.ran == 6
    assert [w for w in caught if issubclass(w.category, incast.ScenarioWarning)] == []


def test_incast_sweep_prints_each_warning_once_with_its_points(tmp_path: Path) -> None:
    import json

    tree = unmarked_sweep(tmp_path)
    base = write(tmp_path / "base.json", json.dumps(tree["scenario"]))
    sweep = write(
        tmp_path / "s.toml",
        f'scenario = "{base.name}"\nseeds = 2\n[vary.grid]\n"transport.protocol" = ["tcp", "dctcp", "d2tcp"]\n',
    )
    proc = run_cli("sweep", str(sweep), "--out", str(tmp_path / "out"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 3, proc.stderr
    assert all(line.startswith(f"incast: warning: {sweep}: `") for line in lines), lines
    assert [re.search(r"\((\d+) of 6 points\)$", line)[1] for line in lines] == ["6", "2", "2"]  # type: ignore[index]
    assert "`d3`: is set, but no flow runs D3 or RCPdc" in lines[0]
    assert "the DCTCP flows (transport.protocol)" in lines[1] and "the D2TCP flows" in lines[2]
    # What `incast check` says of one point, in the same words.
    point = copy.deepcopy(tree["scenario"])
    point["transport"]["protocol"] = "d2tcp"
    one = write(tmp_path / "d2tcp.json", json.dumps(point))
    check = run_cli("check", str(one))
    assert check.returncode == 0
    def keyed(line: str) -> str:
        """The warning, from its key on, without the file it names."""
        return "`" + line.split(": `", 1)[1]

    shown = [keyed(line) for line in check.stderr.strip().splitlines()]
    assert shown == [keyed(lines[0]).rsplit(" (", 1)[0], keyed(lines[2]).rsplit(" (", 1)[0]]


def test_the_example_sweep_over_d3_flow_burst_warns_of_nothing() -> None:
    # TCP, RCPdc and D3 on the base with marking off: none of them reacts to marks.
    assert load_sweep(REPO / "examples" / "sweeps" / "flow-burst.toml").warnings == ()


def test_docs_name_the_protocols_the_rules_name() -> None:
    protocols = _core.protocols()
    keeping = [p["name"] for p in protocols if p["keeps_connections"]]
    scenario_md = (REPO / "docs" / "scenario.md").read_text()
    row = next(line for line in scenario_md.splitlines() if line.startswith("| `connections` |"))
    listed = row.split("for every application:")[1].split("(")[0]
    assert re.findall(r"`([a-z0-9]+)`", listed) == keeping
    # The engine's message lists the same.
    tree = {
        "topology": {"kind": "two-tier", "racks": 2, "hosts_per_rack": 20},
        "transport": {"protocol": "d3"},
        "workload": [{"kind": "oldi", "fan_in": 5, "utilization": 0.1, "connections": "persistent"}],
        "run": {"duration": "10ms"},
    }
    with pytest.raises(incast.ScenarioError) as raised:
        incast.effective_transport(tree)
    assert f"({', '.join(keeping)})" in raised.value.message
    # Those that react to ECN marks, as the docs' warnings say.
    assert [p["label"] for p in protocols if p["reacts_to_ecn"]] == ["DCTCP", "D2TCP"]
    assert "**An ECN-based transport on ports that never mark**: DCTCP or D2TCP flows" in scenario_md
