"""Every scenario in examples/ runs through the CLI (the README promises they all work)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO, incast

EXAMPLES = sorted((REPO / "examples").glob("*.toml"))


@pytest.mark.skipif(not EXAMPLES, reason="examples/ has no scenarios yet")
@pytest.mark.parametrize("scenario", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(scenario: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = incast("run", str(scenario), "--out", str(out), "--quiet", timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert (out / "flows.parquet").is_file() and (out / "summary.json").is_file()
