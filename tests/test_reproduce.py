"""`incast reproduce` and `incast report`: every registered reproduction runs in its quick form
and writes its data, figure and report; the HTML report gathers them; bad requests are one-line
errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from incast.cli import main
from incast.reproduce import REPRODUCTIONS, pins
from incast.reproduce.core import Outcome, join_outcomes, markdown, table, wall_time
from incast.reproduce.figures import Panel, Plot, Series
from incast.reproduce.verdict import DEVIATES, MATCHES, NOT_EXERCISED, VERDICTS, Tolerance, ratio_claim


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
        assert claim["verdict"] in VERDICTS
        assert claim["paper"] and claim["ours"] and claim["rule"]
        # A tolerance is never a bare factor, and a claim not exercised names its premise.
        if "within a factor" in claim["rule"] or "widened by a factor" in claim["rule"]:
            assert claim["tolerance"], claim
        if claim["verdict"] == NOT_EXERCISED:
            assert claim["why"], claim
    for name in report["tables"]:
        assert pq.read_table(d / f"{name}.parquet").num_rows > 0
    assert (d / "figure.png").read_bytes().startswith(b"\x89PNG")
    md = (d / "report.md").read_text()
    assert report["title"] in md and "| claim (paper) |" in md
    assert set(report["simulations"]) == {"run", "cached"} and wall_time(report) in md


def _outcome(value: float, claims: int = 1) -> Outcome:
    fig = Plot("t", [Panel("p", "x", "y", series=[Series("s", {1: value, 2: 2 * value})])])
    return Outcome(claims=[ratio_claim("c", 2.0, value, tolerance=Tolerance(2.0, "test"))] * claims,
                   tables={"t": table([{"x": 1, "y": value}])}, figure=fig, notes="setting")


def test_runs_over_seeds_join_into_one_outcome() -> None:
    joined = join_outcomes([_outcome(3.0), _outcome(5.0), _outcome(4.0)], [1, 2, 3])
    (claim,) = joined.claims
    assert claim.numbers == {"ours": [3.0, 5.0, 4.0]} and claim.verdict == MATCHES and "3 seeds" in claim.ours
    assert joined.tables["t"].to_pylist() == [{"seed": s, "x": 1, "y": y} for s, y in ((1, 3.0), (2, 5.0), (3, 4.0))]
    assert joined.notes.startswith("setting\n\nEvery run was made on seeds 1-3")
    # The figure is the mean over the seeds, each point with its interval.
    (panel,) = joined.figure.panels
    assert isinstance(panel, Panel)
    (series,) = panel.series
    assert {x: e.mean for x, e in series.points.items()} == {1: 4.0, 2: 8.0}  # type: ignore[union-attr]
    assert "mean over 3 seeds" in joined.figure.note
    with pytest.raises(ValueError, match="same claims on every seed"):
        join_outcomes([_outcome(3.0), _outcome(5.0, claims=2)], [1, 2])


PINS = Path(__file__).with_name("reproduce_pins.json")


def test_quick_numbers_stay_within_their_seed_noise(quick_run: Path) -> None:
    """Every number a verdict of a quick reproduction uses is where `make pins` left it, within
    the 95% interval of its seeds (python/incast/reproduce/pins.py): a change that moves a result
    beyond its noise fails here until it is re-pinned and the move explained."""
    problems = pins.moved(quick_run, json.loads(PINS.read_text()))
    assert not problems, "numbers moved beyond their seed noise (intended? `make pins`):\n" + "\n".join(problems)


def test_pins_fail_when_a_number_moves_beyond_its_tolerance(tmp_path: Path) -> None:
    def report(values: list[float], rid: str = "x") -> None:
        d = tmp_path / rid
        d.mkdir(exist_ok=True)
        claim = {"claim": "c", "numbers": {"ours": values, "flat": [2.0, 2.0, 2.0]}}
        (d / "report.json").write_text(json.dumps({"id": rid, "quick": True, "seeds": [1, 2, 3], "claims": [claim]}))

    report([1.0, 2.0, 3.0])
    pinned = pins.pins_of(tmp_path)
    half = pins.tolerance([1.0, 2.0, 3.0])
    assert half == pytest.approx(4.303 * (1 / 3) ** 0.5, rel=1e-3)
    assert pins.moved(tmp_path, pinned) == []
    report([1.0 + half - 1e-6, 2.0, 3.0 + 2 * half])  # the mean moves by just under its tolerance
    assert pins.moved(tmp_path, pinned) == []
    report([1.0, 2.0, 3.0 + 3 * half + 1e-6])  # and by just over
    (problem,) = pins.moved(tmp_path, pinned)
    assert problem.startswith("x claim 1 (c): 'ours' is") and "pinned at 2 +- " in problem
    # A number without spread may move by float rounding only.
    pinned["x"]["claims"][0]["numbers"]["ours"] = pins.pins_of(tmp_path)["x"]["claims"][0]["numbers"]["ours"]
    (tmp_path / "x" / "report.json").write_text(json.dumps({"id": "x", "quick": True, "claims": [
        {"claim": "c", "numbers": {"ours": [1.0, 2.0, 3.0 + 3 * half + 1e-6], "flat": [2.0, 2.0, 2.0 + 1e-6]}}]}))
    (problem,) = pins.moved(tmp_path, pinned)
    assert "'flat' is 2" in problem
    report([1.0, 2.0, 3.0], rid="y")
    assert "y: not pinned (run `make pins`)" in pins.moved(tmp_path, pinned)


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
        (["reproduce", "d3-multi-bottleneck", "--out", "x", "--d3", "variant"], "is not KEY=VALUE"),
        (["reproduce", "d3-multi-bottleneck", "--out", "x", "--d3", "=paper"], "is not KEY=VALUE"),
        (["reproduce", "d3-multi-bottleneck", "--out", "x", "--d3", "gamma=1"], "d3.gamma"),
        (["reproduce", "d3-multi-bottleneck", "--out", "x", "--d3", "controller=rcp"], "d3.controller"),
        (["reproduce", "d3-multi-bottleneck", "--out", "x", "--d3", "pacing=rate"], "varies d3.pacing itself"),
        (["reproduce", "d3-sustained", "--out", "x", "--d3", "variant=repaired"], "varies d3.variant itself"),
    ],
)
def test_bad_requests_are_one_line_errors(argv, message, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("incast: error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("where", ["elsewhere", "out", "none"])
def test_a_file_a_reproduction_cannot_open_is_named_not_blamed_on_out(where, tmp_path, monkeypatch, capsys) -> None:
    """A data file a reproduction reads that is missing (Homa's committed reference rows, in a copy
    of the package without its repository) is named; a failure to write into --out, or one
    without a file, is --out's."""
    import errno

    import incast.reproduce

    out = tmp_path / "out"
    missing = {"elsewhere": str(tmp_path / "docs" / "reference.txt"), "out": str(out / "homa-w3" / "flows.parquet"),
               "none": None}[where]

    def fails(rid, *args, **kwargs):  # type: ignore[no-untyped-def]
        code = errno.ENOENT if where != "none" else errno.ENOSPC
        raise OSError(code, os.strerror(code), missing)

    monkeypatch.setattr(incast.reproduce, "run_reproduction", fails)
    assert main(["reproduce", "d3-fig5", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    if where == "elsewhere":
        assert err == f"incast: error: d3-fig5: cannot open {missing!r}: No such file or directory", err
    else:
        assert err.startswith(f"incast: error: --out {str(out)!r}: cannot write results: "), err


def test_d3_settings_run_every_simulation_under_them_and_say_so(tmp_path: Path) -> None:
    out = tmp_path / "repaired"
    argv = ["reproduce", "d3-multi-bottleneck", "--quick", "--out", str(out), "--quiet", "--d3", "variant=repaired",
            "--d3", "capacity_max=1.5", "--d3", "time_slices=false"]
    assert main(argv) == 0
    report = json.loads((out / "d3-multi-bottleneck" / "report.json").read_text())
    assert report["d3"] == {"variant": "repaired", "capacity_max": 1.5, "time_slices": False}
    md = (out / "d3-multi-bottleneck" / "report.md").read_text()
    assert "--d3 variant=repaired --d3 capacity_max=1.5 --d3 time_slices=false" in md
    # The runs are the repaired D3's: their sweeps' scenarios carry the keys.
    sweeps = [json.loads(p.read_text())["sweep"]["scenario"] for p in (out / "runs").glob("*/sweep.json")]
    assert sweeps and all(s["d3"]["variant"] == "repaired" and s["d3"]["capacity_max"] == 1.5 for s in sweeps)


def test_report_of_a_directory_without_reproductions_is_an_error(tmp_path, capsys) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "holds no reproduction" in capsys.readouterr().err
    assert not (tmp_path / "report.html").exists()


def test_every_verdict_shows_with_its_reason(tmp_path: Path) -> None:
    # The rules themselves are tested in test_verdict.py; here, how the reports show them.
    claims = [
        {"claim": "a", "paper": "2", "ours": "3", "verdict": MATCHES, "rule": "r1", "why": "",
         "tolerance": "read off a figure", "straddles": True},
        {"claim": "b", "paper": "< 7%", "ours": "0%", "verdict": NOT_EXERCISED, "rule": "r2",
         "why": "nothing missed a deadline", "tolerance": "", "straddles": False},
        {"claim": "c", "paper": "1", "ours": "9", "verdict": DEVIATES, "rule": "r3", "why": "because"},
    ]
    fake_reproduction(tmp_path, claims=claims)
    assert main(["report", str(tmp_path)]) == 0
    page = (tmp_path / "report.html").read_text()
    assert "1 of 3 claims match, 1 deviate, 1 not exercised (1 within the noise of their rule&#x27;s edge)" in page
    assert "matches (within the noise of the edge)" in page and "r1; tolerance: read off a figure" in page
    assert "class='not-exercised'>not exercised<div class='why'>nothing missed a deadline" in page
    md = markdown({"id": "x", "paper": "D3", "title": "t", "quick": True, "wall_s": 1.0, "notes": "",
                   "claims": claims, "tables": []})
    assert "## Not exercised\n\n- *b*: nothing missed a deadline" in md
    assert "## Deviations\n\n- *c*: because" in md
    assert "| **matches (within the noise of the edge)** | r1; tolerance: read off a figure |" in md


def test_a_wall_time_says_whether_it_was_cold() -> None:
    assert wall_time({"wall_s": 4.9, "simulations": {"run": 0, "cached": 60}}) == (
        "4.9 s of wall time, warm (0 simulations run, 60 taken from the cache)")
    assert wall_time({"wall_s": 33.0, "simulations": {"run": 60, "cached": 0}}) == (
        "33.0 s of wall time, cold (60 simulations run)")
    assert wall_time({"wall_s": 1.0}) == "1.0 s of wall time"
    assert wall_time({"wall_s": 0.2, "simulations": {"run": 0, "cached": 0}}) == (
        "0.2 s of wall time (no packet-level simulation)")


def test_a_verdict_outside_the_vocabulary_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claim = {"claim": "c", "paper": "1", "ours": "1", "verdict": "roughly", "rule": "r"}
    fake_reproduction(tmp_path, claims=[claim])
    assert main(["report", str(tmp_path)]) == 2
    assert "`claims[0].verdict`: must be one of 'matches', 'deviates', 'not exercised'" in capsys.readouterr().err


# --- a hostile DIR: everything escaped, only regular files inside it read, bad report.json named --


def fake_reproduction(root: Path, rid: str = "d3-fig9", **changes: object) -> Path:
    """`root/rid/report.json` as `incast reproduce` writes it, with `changes` applied (a value
    of None removes the key), and a small figure.png."""
    report = {
        "id": rid, "paper": "D3", "title": "Figure 9", "quick": True, "wall_s": 1.5, "notes": "`x` notes",
        "claims": [{"claim": "c", "paper": "1", "ours": "1.1", "verdict": MATCHES, "rule": "r", "why": ""}],
        "tables": [],
    }
    report.update(changes)
    report = {k: v for k, v in report.items() if v is not None}
    directory = root / rid
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "report.json").write_text(json.dumps(report))
    (directory / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    return directory


def test_report_escapes_every_value(tmp_path: Path) -> None:
    script = "<script>alert(1)</script>"
    fake_reproduction(
        tmp_path, rid="x'><script>", title=script, paper=script, notes=script,
        claims=[{"claim": script, "paper": script, "ours": script, "verdict": DEVIATES, "rule": script, "why": script}],
    )
    assert main(["report", str(tmp_path)]) == 0
    page = (tmp_path / "report.html").read_text()
    assert "<script" not in page and page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 8


def test_a_figure_outside_the_directory_is_not_embedded(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"private bytes")
    root = tmp_path / "repro"
    figure = fake_reproduction(root) / "figure.png"
    figure.unlink()
    figure.symlink_to(secret)
    assert main(["report", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"incast: error: {figure}: leads out of {str(root)!r}") and err.count("\n") == 1
    assert not (root / "report.html").exists()
    # A symlink to a file inside the directory is fine.
    figure.unlink()
    (root / "figure-store.png").write_bytes(b"\x89PNG\r\n\x1a\nin")
    figure.symlink_to(root / "figure-store.png")
    assert main(["report", str(root)]) == 0


def test_a_fifo_figure_is_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    figure = fake_reproduction(tmp_path) / "figure.png"
    figure.unlink()
    os.mkfifo(figure)
    assert main(["report", str(tmp_path)]) == 2
    assert f"{figure}: not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "changes, needle",
    [
        ({"claims": [{"claim": "c", "paper": "1", "ours": "1", "rule": "r"}]}, "`claims[0].verdict`: missing"),
        ({"wall_s": "<script>alert(1)</script>"}, "`wall_s`: must be a number, not a string"),
        ({"quick": 1}, "`quick`: must be true or false, not a number"),
        ({"id": None}, "`id`: missing"),
        ({"claims": {"a": 1}}, "`claims`: must be a list, not an object"),
        ({"claims": ["c"]}, "`claims[0]`: must be an object, not a string"),
        (
            {"claims": [{"claim": "c", "paper": "1", "ours": "1", "verdict": "<b>", "rule": "r"}]},
            "`claims[0].verdict`: must be one of 'matches', 'deviates', 'not exercised', not '<b>'",
        ),
        ({"notes": 3}, "`notes`: must be a string, not a number"),
        ({"wall_s": True}, "`wall_s`: must be a number, not true or false"),
    ],
)
def test_a_malformed_report_json_is_one_line_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture, changes: dict, needle: str
) -> None:
    directory = fake_reproduction(tmp_path, **changes)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"incast: error: {directory / 'report.json'}: {needle}\n"
    assert not (tmp_path / "report.html").exists()


def test_a_report_json_that_is_not_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    directory = fake_reproduction(tmp_path)
    (directory / "report.json").write_text("{not json")
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"incast: error: {directory / 'report.json'}: not JSON (") and err.count("\n") == 1
    (directory / "report.json").write_text("[]")
    assert main(["report", str(tmp_path)]) == 2
    assert "must hold a JSON object, not a list" in capsys.readouterr().err
