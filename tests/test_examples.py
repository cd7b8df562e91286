"""Every scenario and sweep in examples/ runs through the CLI (the README promises they all work),
and every example's flow table is pinned bit for bit (`example_pins.json`): a change meant to
leave results alone (a faster engine, a refactoring) must leave every value of every flow as it
was. A change that moves results on purpose rewrites the pins with `INCAST_UPDATE_PINS=1 pytest
tests/test_examples.py` and says why in its commit."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import REPO, incast

EXAMPLES = sorted((REPO / "examples").glob("*.toml"))
SWEEPS = sorted((REPO / "examples" / "sweeps").glob("*.toml"))
PINS = Path(__file__).with_name("example_pins.json")


def flows_digest(path: Path) -> str:
    """A digest of every value of a flows table, column by column: floats by their shortest exact
    decimal form (`repr`), so any change of any bit of any value changes it, and nothing of the
    Parquet encoding does."""
    table = pq.read_table(path)
    text = json.dumps({name: table[name].to_pylist() for name in table.column_names}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def check_pin(name: str, digest: str, events: int) -> None:
    """Compares an example's digest and event count with its pin, or records them when
    `INCAST_UPDATE_PINS` is set."""
    pins = json.loads(PINS.read_text()) if PINS.exists() else {}
    found = {"flows_sha256": digest, "events": events}
    if os.environ.get("INCAST_UPDATE_PINS"):
        pins[name] = found
        PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
        return
    assert name in pins, f"{name} has no pin: run INCAST_UPDATE_PINS=1 pytest tests/test_examples.py"
    assert pins[name] == found, (
        f"{name}: its flows changed ({pins[name]} -> {found}); if that is intended, rerun with "
        "INCAST_UPDATE_PINS=1 and say why in the commit")


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
    check_pin(scenario.stem, flows_digest(out / "flows.parquet"), s["events"])


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
