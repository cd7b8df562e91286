"""Every scenario in examples/ runs through the CLI (the README promises they all work)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, incast

EXAMPLES = sorted((REPO / "examples").glob("*.toml"))


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("scenario", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(scenario: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = incast("run", str(scenario), "--out", str(out), "--quiet", timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert (out / "flows.parquet").is_file() and (out / "summary.json").is_file()
    s = json.loads((out / "summary.json").read_text())
    # Conservation: every packet a transport sent was delivered, dropped or is still in flight.
    assert s["packets_sent"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_network"]
    assert s["packets_delivered"] > 0
