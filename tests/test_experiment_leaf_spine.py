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
    for name in ("slowdown.png", "slowdown.pdf", "slowdown-by-size.png", "slowdown-by-size.pdf", "slowdown.parquet",
                 "slowdown-per-seed.parquet"):
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


def test_the_experiment_narrows_to_protocols_workloads_and_loads(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    proc = incast("experiment", "leaf-spine", "--out", str(out), "--seeds", "1", "--arrivals", "2", "--loads", "0.5",
                  "--protocols", "dctcp,tcp", "--workloads", "hadoop", timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split()[:3] for line in proc.stdout.splitlines() if line.startswith("hadoop")]
    assert sorted(rows) == [["hadoop", "dctcp", "0.50"], ["hadoop", "tcp", "0.50"]]
    assert "2 runs: 2 run, 0 already done" in proc.stdout
    assert (out / "slowdown-by-size.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "slowdown-by-size.pdf").read_bytes()[:5] == b"%PDF-"
    summary = pq.read_table(out / "slowdown.parquet").to_pylist()
    assert {(r["workload"], r["protocol"]) for r in summary} == {("hadoop", "dctcp"), ("hadoop", "tcp")}


def test_narrowing_to_what_the_experiment_has_no_settings_for_exits_2(tmp_path: Path) -> None:
    for option, value, needle in (("--protocols", "dctcp,d3", "no settings for d3"),
                                  ("--workloads", "web-search,cache", 'unknown size distribution "cache"'),
                                  ("--protocols", "tcp,tcp", "more than once")):
        proc = incast("experiment", "leaf-spine", "--out", str(tmp_path / "x"), option, value)
        assert proc.returncode == 2 and option in proc.stderr and needle in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = incast("experiment", "line", "--out", str(tmp_path / "x"), "--protocols", "tcp")
    assert proc.returncode == 2 and "--protocols does not apply to experiment line" in proc.stderr
    assert not (tmp_path / "x").exists()
