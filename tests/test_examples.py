"""Every scenario and sweep in examples/ runs through the CLI (the README promises they all work)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import REPO, incast

EXAMPLES = sorted((REPO / "examples").glob("*.toml"))
SWEEPS = sorted((REPO / "examples" / "sweeps").glob("*.toml"))


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 5 and SWEEPS


@pytest.mark.parametrize("scenario", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(scenario: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = incast("run", str(scenario), "--out", str(out), "--quiet", timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert (out / "flows.parquet").is_file() and (out / "summary.json").is_file()
    s = json.loads((out / "summary.json").read_text())
    ports = pq.read_table(out / "ports.parquet")
    # Every drop and mark happened at some port.
    assert sum(ports["drops"].to_pylist()) == s["packets_dropped"]
    assert sum(ports["ecn_marks"].to_pylist()) == s["ecn_marked"]
    # Conservation: every packet a transport sent was delivered, dropped or is still in flight.
    assert s["packets_sent"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_network"]
    assert s["packets_delivered"] > 0


@pytest.mark.parametrize("sweep", SWEEPS, ids=[p.stem for p in SWEEPS])
def test_sweep_example_runs(sweep: Path, tmp_path: Path) -> None:
    import pyarrow.dataset as ds

    out = tmp_path / "out"
    proc = incast("sweep", str(sweep), "--out", str(out), "--jobs", "2", timeout=900)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "sweep.json").read_text())
    points = {p["point"] for p in manifest["points"]}
    assert f"{len(points)} points: {len(points)} run, 0 already done" in proc.stdout
    summary = ds.dataset(out / "summary", format="parquet").to_table()
    assert sorted(summary["point"].to_pylist()) == sorted(points)
    assert ds.dataset(out / "flows", format="parquet").count_rows() == sum(summary["flows"].to_pylist())
