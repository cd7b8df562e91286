"""`incast reproduce` and `incast report`: every registered reproduction runs in its quick form
and writes its data, figure and report; the HTML report gathers them; bad requests are one-line
errors."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from incast.cli import main
from incast.reproduce import REPRODUCTIONS
from incast.reproduce.core import DEVIATES, MATCHES, order_claim, ratio_claim


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("repro")
    assert main(["reproduce", "all", "--quick", "--out", str(out), "--quiet", "--jobs", "2"]) == 0
    return out


@pytest.mark.parametrize("rid", list(REPRODUCTIONS))
def test_every_reproduction_writes_data_figure_and_report(quick_run: Path, rid: str) -> None:
    d = quick_run / rid
    report = json.loads((d / "report.json").read_text())
    assert report["id"] == rid and report["quick"] is True
    assert report["claims"], "a reproduction states at least one claim"
    for claim in report["claims"]:
        assert claim["verdict"] in (MATCHES, DEVIATES)
        assert claim["paper"] and claim["ours"] and claim["rule"]
    for name in report["tables"]:
        assert pq.read_table(d / f"{name}.parquet").num_rows > 0
    assert (d / "figure.png").read_bytes().startswith(b"\x89PNG")
    md = (d / "report.md").read_text()
    assert report["title"] in md and "| claim (paper) |" in md


def test_rerun_reuses_every_cached_simulation(quick_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: p.stat().st_mtime_ns for p in (quick_run / "runs").rglob("*.parquet")}
    assert before
    assert main(["reproduce", "d3-fig9", "d3-fig10", "--quick", "--out", str(quick_run), "--quiet"]) == 0
    after = {p: p.stat().st_mtime_ns for p in (quick_run / "runs").rglob("*.parquet")}
    assert after == before


def test_report_html_is_self_contained(quick_run: Path) -> None:
    assert main(["report", str(quick_run)]) == 0
    page = (quick_run / "report.html").read_text()
    for rid in REPRODUCTIONS:
        assert f"id='{rid}'" in page
    assert page.count("data:image/png;base64,") == len(REPRODUCTIONS)
    assert "http://" not in page and "https://" not in page


def test_list_names_every_reproduction(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    for rid in REPRODUCTIONS:
        assert rid in listed


@pytest.mark.parametrize(
    "argv, message",
    [
        (["reproduce", "d3-fig99", "--out", "x"], "unknown reproduction 'd3-fig99'"),
        (["reproduce", "--out", "x"], "name reproductions"),
        (["reproduce", "d3-fig5"], "--out DIR is required"),
        (["report", "does-not-exist"], "is not a directory"),
    ],
)
def test_bad_requests_are_one_line_errors(argv, message, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("incast: error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_report_of_a_directory_without_reproductions_is_an_error(tmp_path, capsys) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "holds no reproduction" in capsys.readouterr().err
    assert not (tmp_path / "report.html").exists()


def test_verdict_rules() -> None:
    assert ratio_claim("x", 2.0, 3.9, factor=2).verdict == MATCHES
    assert ratio_claim("x", 2.0, 4.1, factor=2).verdict == DEVIATES
    assert ratio_claim("x", 2.0, 0.0).verdict == DEVIATES
    assert order_claim("x", "a<b", {"a": 1, "b": 2}, ["a", "b"]).verdict == MATCHES
    assert order_claim("x", "a<b", {"a": 2, "b": 2}, ["a", "b"]).verdict == DEVIATES
