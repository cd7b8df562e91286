"""`incast experiment leaf-spine`: the field's slowdown experiment, end to end on a tiny version
(2 ms of arrivals, one seed, two loads), and its per-seed summary by hand."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from incast.experiments import leaf_spine

from conftest import incast


def test_the_experiment_writes_its_table_and_figures_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    args = ("experiment", "leaf-spine", "--out", str(out), "--seeds", "1", "--arrivals", "2", "--loads", "0.3,0.6",
            "--jobs", "2")
    proc = incast(*args, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    rows = [line.split() for line in lines if line.startswith(("web-search", "data-mining"))]
    # Two workloads x four protocols x two loads.
    assert sorted((r[0], r[1], r[2]) for r in rows) == sorted(
        (w, p, f"{load:.2f}") for w in ("web-search", "data-mining") for p in ("pfabric", "pdq", "dctcp", "tcp")
        for load in (0.3, 0.6))
    assert "16 runs: 16 run, 0 already done" in proc.stdout
    for name in ("slowdown.png", "slowdown.pdf", "slowdown.parquet", "slowdown-per-seed.parquet"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "slowdown.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "slowdown.pdf").read_bytes()[:5] == b"%PDF-"
    summary = pq.read_table(out / "slowdown.parquet").to_pylist()
    assert {r["bucket"] for r in summary} == {"(0 B, 100 KB]", "(100 KB, 10 MB]", "> 10 MB"}
    assert all(r["mean"] is None or r["mean"] >= 0.99 for r in summary)
    # A second run finds every point done and computes nothing.
    again = incast(*args, timeout=600)
    assert again.returncode == 0 and "16 runs: 0 run, 16 already done" in again.stdout


def test_bad_arguments_exit_2_naming_the_option(tmp_path: Path) -> None:
    proc = incast("experiment", "leaf-spine", "--out", str(tmp_path / "x"), "--loads", "0.5,0")
    assert proc.returncode == 2 and "--loads" in proc.stderr and "Traceback" not in proc.stderr
    proc = incast("experiment", "fat-tree", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "leaf-spine" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_summary_averages_seeds_and_keeps_their_range() -> None:
    """Two seeds of one point: the mean of their statistics, their min and max, flows summed."""
    def row(seed: int, mean: float, p99: float, flows: int) -> dict:
        return {"transport.protocol": "dctcp", "workload.0.size": "web-search", "workload.0.load": 0.5,
                "seed": seed, "bucket": "(0 B, 100 KB]", "low_bytes": 0.0, "high_bytes": 1e5,
                "flows": flows, "unfinished": 1, "mean": mean, "p50": 1.0, "p99": p99}
    table = pa.Table.from_pylist([row(1, 2.0, 10.0, 100), row(2, 4.0, 30.0, 50)])
    [r] = leaf_spine.summarize(table)
    assert (r["workload"], r["protocol"], r["load"], r["seeds"]) == ("web-search", "dctcp", 0.5, 2)
    assert (r["flows"], r["unfinished"]) == (150, 2)
    assert (r["mean"], r["mean_min"], r["mean_max"]) == (3.0, 2.0, 4.0)
    assert (r["p99"], r["p99_min"], r["p99_max"]) == (20.0, 10.0, 30.0)
