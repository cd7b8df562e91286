"""The run's bounds through the Python API: a run past its horizon stops there and says so in its
summary, scenarios beyond the `[run]` limits raise ScenarioError naming the key, and limits only
the run can see raise ResourceError (a MemoryError) naming the key, never an abort."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict

import pytest

import incast
from incast import _core


def star(**workload: Any) -> Dict[str, Any]:
    """Four hosts on one switch and one workload of the given keys."""
    return {"topology": {"kind": "star", "hosts": 4}, "workload": [workload]}


def one_slow_flow(horizon: str) -> Dict[str, Any]:
    """A 1 MB flow over 1 Mbps links (about 8 s of serialization) and a horizon."""
    scenario = star(kind="flows", flows=[{"src": 1, "dst": 0, "size": "1MB"}])
    scenario["topology"]["link_rate"] = "1Mbps"
    scenario["run"] = {"horizon": horizon}
    return scenario


def test_every_summary_says_whether_the_run_stopped_at_its_horizon() -> None:
    result = incast.run(star(kind="flow-burst", senders=3, size="10KB"))
    assert result.summary["stopped_at_horizon"] is False


def test_a_run_past_its_horizon_stops_there_in_bounded_time() -> None:
    start = time.monotonic()
    result = incast.run(one_slow_flow("2s"))
    assert time.monotonic() - start < 30
    summary = result.summary
    assert summary["stopped_at_horizon"] is True
    assert summary["sim_time_s"] == 2.0
    assert (summary["flows"], summary["flows_completed"]) == (1, 0)
    assert result.flows["finish_s"].to_pylist() == [None]


def test_the_same_run_with_room_finishes_unflagged() -> None:
    result = incast.run(one_slow_flow("60s"))
    assert result.summary["stopped_at_horizon"] is False
    assert result.summary["flows_completed"] == 1


@pytest.mark.parametrize(
    ("changes", "path", "needle"),
    [
        ({"switch": {"buffer": "100B"}}, "switch.buffer", "smaller than one full-size packet"),
        ({"topology": {"kind": "star", "hosts": 4, "link_rate": "1bps"}, "run": {"horizon": "100s"}},
         "topology.link_rate", "no packet could ever arrive"),
        ({"transport": {"receive_window": "1B"}}, "transport.receive_window", "at least one MSS"),
        ({"transport": {"max_rto": "1000000s"}}, "transport.max_rto", "longer than the run's horizon"),
        ({"run": {"duration": "2s", "horizon": "1s"}}, "run.duration", "must not exceed run.horizon"),
        ({"run": {"horizon": "0s"}}, "run.horizon", "must be positive"),
        ({"topology": {"kind": "star", "hosts": 2_000_000}}, "topology.hosts", "`run.max_hosts`"),
    ],
)
def test_what_cannot_work_is_refused_naming_the_key(changes: Dict[str, Any], path: str, needle: str) -> None:
    scenario = star(kind="flow-burst", senders=3, size="10KB")
    scenario.update(changes)
    with pytest.raises(incast.ScenarioError) as err:
        incast.run(scenario)
    assert err.value.path == path
    assert needle in err.value.message


def test_a_start_past_the_horizon_is_refused() -> None:
    scenario = star(kind="flows", flows=[{"src": 1, "dst": 0, "size_bytes": 1000, "start_s": 18446744.0}])
    with pytest.raises(incast.ScenarioError) as err:
        incast.run(scenario)
    assert err.value.path == "workload[0].flows[0].start_s"


def test_resource_bombs_are_refused_before_the_run_naming_the_key_and_the_limit() -> None:
    bombs = [
        (star(kind="poisson", rate=1e18, stop="1s"), "workload[0].rate", "run.max_flows"),
        (
            {**star(kind="long-flows", pairs=[[1, 0]]), "run": {"duration": "1s"},
             "output": {"queue_sample_interval": "1ps", "queue_sample_hosts": [0]}},
            "output.queue_sample_interval",
            "run.max_samples",
        ),
        (
            {**star(kind="long-flows", pairs=[[1, 0]]), "run": {"duration": "1s"},
             "output": {"flow_throughput_interval": "1ns"}},
            "output.flow_throughput_interval",
            "run.max_samples",
        ),
    ]
    for scenario, path, limit in bombs:
        with pytest.raises(incast.ScenarioError) as err:
            incast.run(scenario)
        assert (err.value.path, f"`{limit}`; raise it" in err.value.message) == (path, True), err.value


def test_raising_a_limit_admits_the_scenario() -> None:
    scenario = star(kind="poisson", rate=2000.0, stop="10ms", size="1KB")
    scenario["run"] = {"max_flows": 10}
    with pytest.raises(incast.ScenarioError):
        incast.run(scenario)
    scenario["run"] = {"max_flows": 100}
    assert incast.run(scenario).summary["flows"] > 0


def test_a_limit_only_the_run_can_see_raises_resource_error() -> None:
    # Without a duration the sample rows cannot be estimated: the engine counts them.
    scenario = one_slow_flow("60s")
    scenario["output"] = {"queue_sample_interval": "1us", "queue_sample_hosts": [0]}
    scenario["run"]["max_samples"] = 1000
    with pytest.raises(incast.ResourceError) as err:
        incast.run(scenario)
    assert err.value.path == "output.queue_sample_interval"
    assert "`run.max_samples`" in err.value.message
    assert isinstance(err.value, MemoryError)


def test_resource_error_is_the_core_exception_and_a_memory_error() -> None:
    assert incast.ResourceError is _core.ResourceError
    assert issubclass(incast.ResourceError, MemoryError)
    assert not issubclass(incast.ResourceError, incast.ScenarioError)


def test_the_cli_reports_a_limit_reached_during_the_run_as_the_scenarios_fault(tmp_path: Path) -> None:
    # The same run-time limit as above, through `incast run`: one line naming the key, status 2,
    # nothing written; an allocation that fails with no key to blame is status 70
    # (tests/test_cli_errors.py).
    scenario = one_slow_flow("60s")
    scenario["output"] = {"queue_sample_interval": "1us", "queue_sample_hosts": [0]}
    scenario["run"]["max_samples"] = 1000
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    done = subprocess.run(
        [sys.executable, "-m", "incast", "run", str(path), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("incast: error: `output.queue_sample_interval`: "), lines
    assert "`run.max_samples`" in lines[0]
    assert not (tmp_path / "out").exists()
