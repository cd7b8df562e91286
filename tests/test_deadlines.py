"""incast.deadlines: deadlines met and missed per group, by hand and against the engine's own
summary; SweepResult.deadlines and `incast sweep --deadlines`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from incast.deadlines import by_group

from conftest import SMALL_TOML, write


def test_counts_by_hand() -> None:
    # Eight flows: a met, two missed, an unknown, one without a deadline, one in the warm-up (not
    # measured), for protocol a; for b one met. Protocol c has only a flow without a deadline.
    flows = pa.table({
        "protocol": ["a", "a", "a", "a", "a", "a", "b", "c"],
        "deadline_s": [0.01, 0.01, 0.02, 0.03, None, 0.01, 0.01, None],
        "met_deadline": [True, False, False, None, None, True, True, None],
        "measured": [True, True, True, True, True, False, True, True],
    })
    rows = by_group(flows, ["protocol"]).to_pylist()
    assert rows == [
        {"protocol": "a", "deadline_flows": 3, "met": 1, "missed": 2, "unknown": 1,
         "app_throughput": 1 / 3, "missed_share": 2 / 3},
        {"protocol": "b", "deadline_flows": 1, "met": 1, "missed": 0, "unknown": 0,
         "app_throughput": 1.0, "missed_share": 0.0},
    ]
    # A group whose every flow is unknown has no share, not a share of zero.
    only_unknown = by_group(flows.slice(3, 1), ["protocol"]).to_pylist()
    assert only_unknown[0]["deadline_flows"] == 0 and only_unknown[0]["app_throughput"] is None
    with pytest.raises(ValueError, match="no column 'scheme'"):
        by_group(flows, ["scheme"])


TINY_SWEEP = """\
scenario = "base.toml"
seeds = [5, 9]

[vary.grid]
"workload.0.senders" = [2, 6]
"transport.protocol" = ["tcp", "d3"]
"""


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from incast.sweep import run_sweep

    directory = tmp_path_factory.mktemp("sweep")
    write(directory / "base.toml", SMALL_TOML)
    return run_sweep(write(directory / "s.toml", TINY_SWEEP), directory / "out", jobs=2)


def test_sweep_deadlines_agree_with_the_engines_summary(sweep: Any) -> None:
    # The engine judges each run's flows itself (summary: deadline_flows, app_throughput); the
    # pooled counts over the seeds must be the sums of its.
    summary = sweep.summary().to_pylist()
    rows = sweep.deadlines().to_pylist()
    assert len(rows) == 4
    for row in rows:
        assert row["protocol"] == row["transport.protocol"]
        runs = [s for s in summary if s["workload.0.senders"] == row["workload.0.senders"]
                and s["transport.protocol"] == row["transport.protocol"]]
        assert len(runs) == 2
        assert row["deadline_flows"] == sum(s["deadline_flows"] for s in runs)
        assert row["unknown"] == sum(s["deadline_unknown"] for s in runs)
        assert row["met"] == pytest.approx(sum(s["app_throughput"] * s["deadline_flows"] for s in runs))
    per_seed = sweep.deadlines(by=["transport.protocol", "seed"]).to_pylist()
    assert {(r["transport.protocol"], r["seed"]) for r in per_seed} == {(p, s) for p in ("d3", "tcp") for s in (5, 9)}


def test_sweep_prints_deadlines_on_request(sweep: Any, capsys: pytest.CaptureFixture) -> None:
    from incast.cli import main

    assert main(["sweep", str(Path(sweep.out).parent / "s.toml"), "--out", str(sweep.out), "--deadlines"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("workload.0.senders"))
    assert lines[header].split() == ["workload.0.senders", "transport.protocol", "protocol", "judged", "met",
                                     "missed", "unknown", "app", "thpt", "%", "missed"]
    table = lines[header + 1:]
    assert len(table) == 4
    for line, row in zip(table, sweep.deadlines().to_pylist()):
        cells = line.split()
        assert cells[:3] == [str(row["workload.0.senders"]), row["transport.protocol"], row["protocol"]]
        assert cells[3] == f"{row['deadline_flows']:,}" and cells[4] == f"{row['met']:,}"
        assert cells[7] == f"{100 * row['app_throughput']:.2f}%"
