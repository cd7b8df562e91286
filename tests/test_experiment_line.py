"""`incast experiment line`: the deadline-aware line on D2TCP's OLDI workload, end to end on one
fan-in and one seed, its options, and its summary by hand."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from incast.experiments import line

from conftest import incast


def test_the_experiment_runs_every_protocol_writes_its_table_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "line"
    args = ("experiment", "line", "--out", str(out), "--seeds", "1", "--fan-ins", "5", "--jobs", "2")
    proc = incast(*args, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [words for words in (text.split() for text in proc.stdout.splitlines()) if words[:1]
            and words[0] in line.PROTOCOLS]
    assert [r[0] for r in rows] == list(line.PROTOCOLS)
    assert ("8 runs: shared: 5 run, 0 already done; pfabric: 1 run, 0 already done; homa: 1 run, 0 already done; "
            "ndp: 1 run, 0 already done") in proc.stdout
    summary = pq.read_table(out / "missed.parquet").to_pylist()
    assert {r["protocol"] for r in summary} == set(line.PROTOCOLS)
    assert all(0.0 <= r["missed"] <= 1.0 and r["fan_in"] == 5 and r["seeds"] == 1 for r in summary)
    assert (out / "missed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = incast(*args, timeout=600)
    assert again.returncode == 0 and ("shared: 0 run, 5 already done; pfabric: 0 run, 1 already done; homa: 0 run, "
                                      "1 already done; ndp: 0 run, 1 already done") in again.stdout


def test_options_of_the_other_experiment_are_refused_by_name(tmp_path: Path) -> None:
    proc = incast("experiment", "line", "--out", str(tmp_path / "x"), "--loads", "0.5")
    assert proc.returncode == 2 and "--loads does not apply to experiment line" in proc.stderr
    proc = incast("experiment", "leaf-spine", "--out", str(tmp_path / "x"), "--fan-ins", "10")
    assert proc.returncode == 2 and "--fan-ins does not apply to experiment leaf-spine" in proc.stderr
    proc = incast("experiment", "line", "--out", str(tmp_path / "x"), "--fan-ins", "10,0")
    assert proc.returncode == 2 and "--fan-ins" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "x").exists()


def test_summary_averages_seeds_and_keeps_their_range() -> None:
    rows = [{"protocol": "pdq", "fan_in": 40, "seed": s, "missed": m} for s, m in ((1, 0.01), (2, 0.03))]
    [r] = line.summarize(rows)
    assert (r["protocol"], r["fan_in"], r["seeds"]) == ("pdq", 40, 2)
    assert (round(r["missed"], 12), r["missed_min"], r["missed_max"]) == (0.02, 0.01, 0.03)


def test_the_deadline_schemes_share_one_sweep_and_pfabric_homa_and_ndp_get_their_own() -> None:
    (shared_name, shared), (pf_name, pf), (homa_name, homa), (ndp_name, ndp) = line.sweep_trees(2, (10,))
    assert (shared_name, pf_name, homa_name, ndp_name) == ("shared", "pfabric", "homa", "ndp")
    assert shared["vary"]["grid"][line.PROTOCOL_KEY] == ["tcp", "dctcp", "d2tcp", "d3", "pdq"]
    assert "pfabric" not in shared["scenario"] and pf["scenario"]["pfabric"] == line.PFABRIC
    assert "d3" not in pf["scenario"] and "d3" not in homa["scenario"] and "d3" not in ndp["scenario"]
    # Homa's levels need the switch's strict-priority classes; NDP's ports mark nothing.
    assert homa["scenario"]["switch"]["priority_classes"] == line.HOMA_CLASSES
    assert ndp["scenario"]["ndp"] == line.NDP and "ecn_threshold" not in ndp["scenario"]["switch"]
    assert [t["vary"]["grid"][line.PROTOCOL_KEY] for t in (homa, ndp)] == [["homa"], ["ndp"]]
