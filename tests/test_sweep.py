"""Sweeps: expansion of grid, zip and seeds; bad sweep files through the CLI; the per-point cache
and resuming after deleted points, Ctrl-C and kill; Dask workers, one of them killed."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Dict, List, Tuple

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import incast.api
from incast.cli import main
from incast.sweep import (
    PointError,
    Sweep,
    SweepError,
    SweepProgress,
    load_sweep,
    point_key,
    run_sweep,
    sweep_from_dict,
)
from incast.sweep.spec import build_version
from incast.sweep.store import Store

from conftest import SMALL_TOML, assert_clean_error, write
from conftest import incast as incast_cli

# 2 sender counts x 2 (protocol, buffer) pairs x 2 seeds: 8 points of a few milliseconds.
SMALL_SWEEP = """\
scenario = "base.toml"
seeds = [5, 9]

[vary.grid]
"workload.0.senders" = [2, 3]

[vary.zip]
"transport.protocol" = ["tcp", "d3"]
"switch.buffer" = ["64KB", "128KB"]
"""

# 2 protocols x 6 seeds: 12 points of about a third of a second each, long enough to interrupt.
SLOW_SWEEP = """\
seeds = 6

[scenario]
topology = { kind = "star", hosts = 41 }
transport = { protocol = "dctcp", min_rto = "10ms" }

[[scenario.workload]]
kind = "flow-burst"
senders = 40
size = { dist = "uniform", min = "2KB", max = "50KB" }
rounds = 300

[vary.grid]
"transport.protocol" = ["dctcp", "tcp"]
"""
SLOW_POINTS = 12


def sweep_file(directory: Path, body: str, name: str = "s.toml") -> Path:
    """`body` as a sweep file beside base.toml (the small scenario of conftest)."""
    write(directory / "base.toml", SMALL_TOML)
    return write(directory / name, body)


def stats(out: Path) -> Dict[str, Tuple[int, int]]:
    """(inode, mtime) of every result file: unchanged when a rerun leaves a point alone."""
    return {
        str(p.relative_to(out)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for table in ("flows", "summary")
        for p in (out / table).glob("*.parquet")
    }


def snapshot(out: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def table(out: Path, name: str) -> pa.Table:
    """A table of the dataset, in point order, without the one value that differs between runs."""
    t = ds.dataset(out / name, format="parquet").to_table()
    if "wall_time_s" in t.column_names:
        t = t.drop_columns(["wall_time_s"])
    keys = [("point", "ascending")] + ([("flow_id", "ascending")] if "flow_id" in t.column_names else [])
    return t.sort_by(keys)


def assert_complete(out: Path, sweep: Sweep) -> None:
    """Every point exactly once in both datasets, and nothing else."""
    expected = sorted(p.key for p in sweep.points)
    summary = ds.dataset(out / "summary", format="parquet").to_table()
    assert sorted(summary["point"].to_pylist()) == expected
    flows = ds.dataset(out / "flows", format="parquet").to_table()
    assert sorted(set(flows["point"].to_pylist())) == expected
    assert flows.num_rows == sum(summary["flows"].to_pylist())
    assert sorted(p.stem for p in (out / "flows").glob("*.parquet")) == expected
    assert not list(out.rglob("*.tmp"))


# --- expansion -----------------------------------------------------------------------------------


def test_grid_zip_and_seeds_expand_in_order(tmp_path: Path) -> None:
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    rows = [
        (p.params["workload.0.senders"], p.params["transport.protocol"], p.params["switch.buffer"], p.seed)
        for p in sweep.points
    ]
    assert rows == [
        (2, "tcp", "64KB", 5),
        (2, "tcp", "64KB", 9),
        (2, "d3", "128KB", 5),
        (2, "d3", "128KB", 9),
        (3, "tcp", "64KB", 5),
        (3, "tcp", "64KB", 9),
        (3, "d3", "128KB", 5),
        (3, "d3", "128KB", 9),
    ]
    assert sweep.columns == {
        "workload.0.senders": "int64",
        "transport.protocol": "string",
        "switch.buffer": "string",
    }
    assert len({p.key for p in sweep.points}) == 8
    point = sweep.points[6]
    assert point.scenario["workload"][0]["senders"] == 3
    assert point.scenario["transport"] == {"protocol": "d3", "min_rto": "10ms"}
    assert point.scenario["switch"] == {"buffer": "128KB"}
    assert point.scenario["seed"] == 5
    # Substitution copies: the base tree is untouched.
    assert sweep.base["workload"][0]["senders"] == 3 and sweep.base["transport"]["protocol"] == "dctcp"


def test_zip_groups_bare_keys_and_bracket_indices(tmp_path: Path) -> None:
    body = (
        'scenario = "base.toml"\nseeds = 3\n'
        '[vary.grid]\ntransport.protocol = ["tcp", "dctcp"]\n'  # bare dotted key: nested tables
        '[[vary.zip]]\n"workload[0].rounds" = [1, 2]\n"workload.0.senders" = [2, 3]\n'
        '[[vary.zip]]\n"switch.buffer" = ["64KB", "1MB"]\n"switch.ecn_threshold" = [20, "off"]\n'
    )
    sweep = load_sweep(sweep_file(tmp_path, body))
    assert sweep.seeds == [1, 2, 3]
    assert len(sweep.points) == 2 * 2 * 2 * 3
    assert list(sweep.points[0].params) == [
        "transport.protocol",
        "workload.0.rounds",
        "workload.0.senders",
        "switch.buffer",
        "switch.ecn_threshold",
    ]
    pairs = {(p.params["workload.0.rounds"], p.params["workload.0.senders"]) for p in sweep.points}
    assert pairs == {(1, 2), (2, 3)}
    assert {p.scenario["switch"]["ecn_threshold"] for p in sweep.points} == {20, "off"}
    # A column mixing types holds text.
    assert sweep.columns["switch.ecn_threshold"] == "json"


def test_seeds_alone_and_an_inline_scenario_with_a_trace(tmp_path: Path) -> None:
    write(tmp_path / "flows.csv", "src,dst,size_bytes,start_s\n1,0,1000,0\n2,0,2000,0\n")
    body = (
        'seeds = [3, 1]\n[scenario]\ntopology = { kind = "star", hosts = 3 }\n'
        '[[scenario.workload]]\nkind = "trace"\npath = "flows.csv"\n'
    )
    sweep = load_sweep(write(tmp_path / "s.toml", body))
    assert [(p.seed, p.params) for p in sweep.points] == [(3, {}), (1, {})]
    assert sweep.points[0].scenario["workload"][0]["path"] == str(tmp_path / "flows.csv")
    before = sweep.points[0].key
    # The trace's bytes are part of the key: a changed trace is a new point.
    write(tmp_path / "flows.csv", "src,dst,size_bytes,start_s\n1,0,1000,0\n2,0,3000,0\n")
    assert load_sweep(tmp_path / "s.toml").points[0].key != before
    # From another directory, the same trace at the same relative path gives the same key.
    other = tmp_path / "elsewhere"
    other.mkdir()
    write(other / "flows.csv", (tmp_path / "flows.csv").read_text())
    moved = sweep_from_dict({"seeds": [3], "scenario": load_sweep(tmp_path / "s.toml").base}, base_dir=other)
    assert moved.points[0].key == load_sweep(tmp_path / "s.toml").points[0].key


def test_cache_key_changes_with_scenario_seed_and_version() -> None:
    from conftest import small_scenario

    base = small_scenario()
    key = point_key(base, 1, version="1.0")
    assert key == point_key(dict(reversed(list(base.items()))), 1, version="1.0"), "key order must not matter"
    assert re.fullmatch(r"[0-9a-f]{32}", key)
    changed = dict(base, switch={"buffer": "65KB"})
    assert point_key(changed, 1, version="1.0") != key
    assert point_key(base, 2, version="1.0") != key
    assert point_key(base, 1, version="1.1") != key
    assert point_key(base, 1, version="1.0", inputs={"workload[0].path": "ab"}) != key
    # 1 and 1.0 are different scenarios to the key, as they are different text in a file.
    assert point_key(dict(base, d3={"alpha": 1}), 1) != point_key(dict(base, d3={"alpha": 1.0}), 1)
    assert point_key(base, 1) == point_key(base, 1, version=build_version())
    assert build_version().startswith(incast.__version__ + "+")


# --- bad sweeps: one line naming the key, exit 2, nothing written --------------------------------

BAD = [
    ("unknown-key", 'colour = 1\nscenario = "base.toml"\nseeds = 1\n', ["colour", "unknown key"]),
    ("no-scenario", "seeds = 1\n", ["scenario: missing"]),
    (
        "missing-scenario-file",
        'scenario = "nope.toml"\nseeds = 1\n',
        ["scenario", "nope.toml", "No such file"],
    ),
    ("no-seeds", 'scenario = "base.toml"\n', ["seeds: missing"]),
    ("zero-seeds", 'scenario = "base.toml"\nseeds = 0\n', ["seeds:", "at least 1"]),
    ("empty-seeds", 'scenario = "base.toml"\nseeds = []\n', ["seeds:", "empty"]),
    ("repeated-seed", 'scenario = "base.toml"\nseeds = [1, 1]\n', ["seeds[1]", "twice"]),
    ("negative-seed", 'scenario = "base.toml"\nseeds = [2, -1]\n', ["seeds[1]", "2**64"]),
    ("text-seeds", 'scenario = "base.toml"\nseeds = "3"\n', ["seeds:", "string"]),
    (
        "unknown-key-path",
        '[vary.grid]\n"transport.protocl" = ["tcp"]\n',
        ['vary.grid."transport.protocl"', "unknown key"],
    ),
    (
        "index-out-of-range",
        '[vary.grid]\n"workload.3.senders" = [4]\n',
        ['vary.grid."workload.3.senders"', "no index 3"],
    ),
    (
        "word-index",
        '[vary.grid]\n"workload.first.senders" = [4]\n',
        ['vary.grid."workload.first.senders"', "not an index"],
    ),
    (
        "into-a-string",
        '[vary.grid]\n"transport.protocol.name" = ["x"]\n',
        ['vary.grid."transport.protocol.name"', "string"],
    ),
    ("empty-list", '[vary.grid]\n"workload.0.senders" = []\n', ['vary.grid."workload.0.senders"', "empty"]),
    ("not-a-list", '[vary.grid]\n"workload.0.senders" = 4\n', ['vary.grid."workload.0.senders"', "list"]),
    (
        "repeated-value",
        '[vary.grid]\n"workload.0.senders" = [2, 2]\n',
        ['vary.grid."workload.0.senders"', "twice"],
    ),
    (
        "zip-lengths-differ",
        '[vary.zip]\n"transport.protocol" = ["tcp", "d3"]\n"switch.buffer" = ["64KB"]\n',
        ['vary.zip."switch.buffer"', "has 1 value but", "same length"],
    ),
    (
        "zip-group-lengths-differ",
        '[[vary.zip]]\n"workload.0.senders" = [2]\n'
        '[[vary.zip]]\n"transport.protocol" = ["tcp", "d3"]\n"switch.buffer" = ["64KB"]\n',
        ['vary.zip[1]."switch.buffer"', "same length"],
    ),
    ("zip-repeated-entry", '[vary.zip]\n"workload.0.senders" = [2, 2]\n', ["vary.zip:", "entries 1 and 2"]),
    (
        "invalid-after-substitution",
        '[vary.grid]\n"workload.0.senders" = [2, 0]\n',
        ['vary.grid."workload.0.senders": 0 gives an invalid scenario', "`workload[0].senders`"],
    ),
    (
        "invalid-table-value",
        '[vary.grid]\n"workload.0.size" = [{ dist = "uniform", min = "9KB", max = "1KB" }]\n',
        ['vary.grid."workload.0.size"', "`workload[0].size.min`"],
    ),
    (
        "invalid-by-combination",
        '[vary.grid]\n"topology.kind" = ["star", "fat-tree"]\n',
        ['vary: the point topology.kind = "fat-tree" gives an invalid scenario', "`topology.hosts`"],
    ),
    (
        "key-and-its-table",
        '[vary.grid]\n"transport.protocol" = ["tcp"]\n"transport" = [{ protocol = "d3" }]\n',
        ['vary.grid."transport"', "overlaps"],
    ),
    (
        "same-key-twice",
        '[vary.grid]\n"workload.0.senders" = [2]\n[vary.zip]\n"workload[0].senders" = [3]\n',
        ['vary.zip."workload[0].senders"', "the same key"],
    ),
    ("vary-seed", "[vary.grid]\nseed = [1, 2]\n", ['vary.grid."seed"', "seeds"]),
    ("vary-a-result-column", "[vary.grid]\nworkload = [[]]\n", ['vary.grid."workload"', "column"]),
    (
        "empty-segment",
        '[vary.grid]\n"transport..protocol" = ["tcp"]\n',
        ['vary.grid."transport..protocol"', "empty key segment"],
    ),
    ("not-finite", '[vary.grid]\n"d3.alpha" = [0.5, nan]\n', ['vary.grid."d3.alpha"[1]', "finite"]),
    ("unknown-section", '[vary.cartesian]\n"switch.buffer" = ["1KB"]\n', ["vary.cartesian", "unknown key"]),
    ("toml-syntax", "[vary.grid\n", ["TOML syntax error", "line 3"]),
]


@pytest.mark.parametrize("body,needles", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_sweep_is_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture, body: str, needles: List[str]
) -> None:
    if not body.startswith(("colour", "seeds", "scenario")):
        body = 'scenario = "base.toml"\nseeds = 2\n' + body
    sweep = sweep_file(tmp_path, body, "bad.toml")
    out = tmp_path / "out"
    assert main(["sweep", str(sweep), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"incast: error: {sweep}: "), captured.err
    for needle in needles:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
    assert not out.exists(), "a sweep that fails its checks must not create its output directory"


def test_bad_inline_scenario_names_scenario(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    body = 'seeds = 1\n[scenario]\ntopology = { kind = "star", hosts = "four" }\n'
    assert main(["sweep", str(write(tmp_path / "s.toml", body)), "--out", str(tmp_path / "o")]) == 2
    assert "scenario: `topology.hosts`: " in capsys.readouterr().err


def test_bad_sweeps_through_the_real_command(tmp_path: Path) -> None:
    """As a user sees them: a separate process, no traceback."""
    bad = sweep_file(tmp_path, 'scenario = "base.toml"\nseeds = 1\n[vary.grid]\n"workload.0.senders" = [0]\n')
    assert_clean_error(
        incast_cli("sweep", str(bad), "--out", str(tmp_path / "o")), 'vary.grid."workload.0.senders"'
    )
    assert_clean_error(
        incast_cli("sweep", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "o")), "nope.toml"
    )
    assert_clean_error(incast_cli("sweep", str(bad), "--out", str(tmp_path / "o"), "--jobs", "0"), "--jobs")
    assert_clean_error(incast_cli("sweep", str(bad)), "--out")
    assert not (tmp_path / "o").exists()


def test_failures_leave_finished_results_alone(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    good = sweep_file(tmp_path, SMALL_SWEEP)
    out = tmp_path / "out"
    assert main(["sweep", str(good), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    before = snapshot(out)
    assert "sweep.json" in before and "sweep.toml" in before and len(before) == 3 + 2 * 8  # and the lock

    bad = write(tmp_path / "bad.toml", SMALL_SWEEP.replace("[2, 3]", "[2, 0]"))
    assert main(["sweep", str(bad), "--out", str(out)]) == 2
    assert 'vary.grid."workload.0.senders"' in capsys.readouterr().err

    # A different sweep (one more seed) is refused, not mixed in.
    other = write(tmp_path / "other.toml", SMALL_SWEEP.replace("[5, 9]", "[5, 9, 10]"))
    assert main(["sweep", str(other), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err.startswith(f"incast: error: --out {str(out)!r}: ")
        and "another sweep (8 points, 8 of them in this one of 12)" in err
    )
    assert "\n" not in err

    # A directory that is not a sweep's is refused too.
    stranger = tmp_path / "stranger"
    write(stranger.mkdir() or stranger / "notes.txt", "mine")
    assert main(["sweep", str(good), "--out", str(stranger)]) == 2
    assert "holds no sweep.json" in capsys.readouterr().err
    assert sorted(os.listdir(stranger)) == ["notes.txt"]

    assert snapshot(out) == before


def test_one_sweep_at_a_time_per_directory(tmp_path: Path) -> None:
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    with Store(tmp_path / "out", sweep):
        with pytest.raises(SweepError, match="another incast sweep is writing into it") as info:
            run_sweep(sweep, tmp_path / "out")
        assert info.value.key == "out"
    assert run_sweep(sweep, tmp_path / "out").ran == 8


# --- the cache -----------------------------------------------------------------------------------


def test_rerun_computes_only_missing_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    out = tmp_path / "out"
    seen: List[SweepProgress] = []
    first = run_sweep(sweep, out, jobs=2, progress=seen.append)
    assert (first.ran, first.cached) == (8, 0)
    assert [s.done for s in seen] == list(range(9)) and seen[0].point is None
    assert {s.point.key for s in seen[1:]} == {p.key for p in sweep.points}
    assert_complete(out, sweep)
    flows, summary = table(out, "flows"), table(out, "summary")
    before = stats(out)

    # One point loses its flows, one its summary, one both: only those three run again.
    victims = [p.key for p in sweep.points[1:4]]
    (out / "flows" / f"{victims[0]}.parquet").unlink()
    (out / "summary" / f"{victims[1]}.parquet").unlink()
    for name in ("flows", "summary"):
        (out / name / f"{victims[2]}.parquet").unlink()
    calls: List[int] = []
    real_run = incast.api.run
    monkeypatch.setattr(
        incast.api, "run", lambda scenario, **kw: calls.append(scenario["seed"]) or real_run(scenario, **kw)
    )
    again = run_sweep(tmp_path / "s.toml", out, jobs=2)
    assert (again.ran, again.cached, len(calls)) == (3, 5, 3)
    after = stats(out)
    untouched = {f: s for f, s in before.items() if not any(v in f for v in victims)}
    assert untouched and all(after[f] == s for f, s in untouched.items())
    assert_complete(out, sweep)
    assert table(out, "flows").equals(flows) and table(out, "summary").equals(summary)

    # Nothing left to do: nothing runs, nothing is rewritten.
    assert run_sweep(sweep, out).ran == 0 and stats(out) == after and len(calls) == 3


def test_dataset_columns_and_types(tmp_path: Path) -> None:
    result = run_sweep(load_sweep(sweep_file(tmp_path, SMALL_SWEEP)), tmp_path / "out")
    flows = result.dataset("flows")
    head = flows.schema.names[:6]
    assert head == ["point", "workload.0.senders", "transport.protocol", "switch.buffer", "seed", "flow_id"]
    assert flows.schema.field("seed").type == pa.uint64()
    assert flows.schema.field("workload.0.senders").type == pa.int64()
    import pyarrow.compute as pc

    d3 = flows.to_table(filter=pc.field("transport.protocol") == "d3")
    assert set(d3["protocol"].to_pylist()) == {"d3"} and set(d3["switch.buffer"].to_pylist()) == {"128KB"}
    summary = result.summary()
    assert summary.num_rows == 8 and summary.schema.field("app_throughput").type == pa.float64()
    row = summary.filter(pc.field("seed") == 9).sort_by("workload.0.senders").to_pylist()[0]
    assert row["workload.0.senders"] == 2 and row["flows"] == 2 * 2  # 2 senders x 2 rounds


def test_same_results_on_one_and_two_threads(tmp_path: Path) -> None:
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    run_sweep(sweep, tmp_path / "one", jobs=1)
    run_sweep(sweep, tmp_path / "two", jobs=2)
    for name in ("flows", "summary"):
        assert table(tmp_path / "one", name).equals(table(tmp_path / "two", name))


def _interrupted(tmp_path: Path, sig: int) -> Tuple[subprocess.Popen, str]:
    """Starts the slow sweep on one thread and sends `sig` once two points are done (as its
    progress bar says)."""
    sweep = write(tmp_path / "slow.toml", SLOW_SWEEP)
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "incast",
            "sweep",
            str(sweep),
            "--out",
            str(tmp_path / "out"),
            "--jobs",
            "1",
            "--progress",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A shell without job control starts background commands with SIGINT ignored, and Python
        # keeps it so: give the child the default, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert child.stderr is not None
    seen = b""
    deadline = time.monotonic() + 60
    while not re.search(rb"\b[2-5]/%d\b" % SLOW_POINTS, seen):
        assert time.monotonic() < deadline and child.poll() is None, seen.decode(errors="replace")
        if select.select([child.stderr], [], [], 1.0)[0]:
            seen += os.read(child.stderr.fileno(), 4096)
    # Still running, with a few seconds of points to go: the signal lands mid-sweep.
    assert child.poll() is None
    child.send_signal(sig)
    _, rest = child.communicate(timeout=60)
    return child, (seen + rest).decode(errors="replace")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill", "ctrl-c"])
def test_interrupted_sweep_resumes(tmp_path: Path, sig: int) -> None:
    child, stderr = _interrupted(tmp_path, sig)
    out = tmp_path / "out"
    if sig == signal.SIGINT:
        assert child.returncode == 130 and stderr.strip().splitlines()[-1].strip() == "incast: interrupted"
        assert "Traceback" not in stderr
        assert not list(out.rglob("*.tmp")), "Ctrl-C must not leave temporary files"
    else:
        assert child.returncode == -signal.SIGKILL
        # What a kill in the middle of writing a point leaves behind.
        write(out / "summary" / ".0123.parquet.x1y2.tmp", "half a Parquet file")
    finished = stats(out)
    done = {Path(f).stem for f in finished if f.startswith("summary")}
    assert 2 <= len(done) < SLOW_POINTS
    # Temporary files are invisible to the dataset...
    assert ds.dataset(out / "summary", format="parquet").count_rows() == len(done)

    sweep = load_sweep(tmp_path / "slow.toml")
    result = run_sweep(sweep, out)
    assert (result.ran, result.cached) == (SLOW_POINTS - len(done), len(done))
    after = stats(out)
    assert all(after[f] == s for f, s in finished.items() if Path(f).stem in done)
    # ...and gone after the rerun.
    assert_complete(out, sweep)


# --- Dask ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The slow sweep run in threads here, to compare the clusters' results with."""
    directory = tmp_path_factory.mktemp("reference")
    run_sweep(load_sweep(write(directory / "slow.toml", SLOW_SWEEP)), directory / "out", jobs=2)
    return directory / "out"


def test_killed_dask_worker_loses_no_point(tmp_path: Path, slow_reference: Path) -> None:
    distributed = pytest.importorskip("distributed")
    sweep = load_sweep(write(tmp_path / "slow.toml", SLOW_SWEEP))
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        killed: List[Tuple[str, tuple]] = []

        def kill_a_busy_worker(progress: SweepProgress) -> None:
            if progress.point is None or killed:
                return
            busy = [(addr, keys) for addr, keys in client.processing().items() if keys]
            assert busy, "no point running when the first finished"
            os.kill(pids[busy[0][0]], signal.SIGKILL)
            killed.append(busy[0])

        result = run_sweep(
            sweep, tmp_path / "out", scheduler=cluster.scheduler_address, progress=kill_a_busy_worker
        )
        assert killed and result.ran == SLOW_POINTS
        # The worker's nanny restarted it: a new process took its place.
        assert pids[killed[0][0]] not in client.run(os.getpid).values()
    out = tmp_path / "out"
    assert_complete(out, sweep)
    # The points the killed worker held were run again elsewhere, and written once.
    interrupted = {k.split("-")[-1] for k in killed[0][1]}
    assert interrupted and interrupted <= set(result.summary()["point"].to_pylist())
    for name in ("flows", "summary"):
        assert table(out, name).equals(table(slow_reference, name))


def test_scheduler_local_from_the_command_line(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    sweep = sweep_file(tmp_path, SMALL_SWEEP)
    out = tmp_path / "out"
    proc = incast_cli("sweep", str(sweep), "--out", str(out), "--scheduler", "local", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "8 points: 8 run, 0 already done" in proc.stdout
    run_sweep(load_sweep(sweep), tmp_path / "threads")
    for name in ("flows", "summary"):
        assert table(out, name).equals(table(tmp_path / "threads", name))


def test_scheduler_without_dask_says_how_to_install_it(tmp_path: Path) -> None:
    # A `distributed` that cannot be imported, as when Dask is not installed.
    fake = tmp_path / "fake" / "distributed"
    fake.mkdir(parents=True)
    write(fake / "__init__.py", "raise ImportError(\"No module named 'distributed'\")\n")
    sweep = sweep_file(tmp_path, SMALL_SWEEP)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")]))
    proc = incast_cli(
        "sweep", str(sweep), "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:8786", timeout=60, env=env
    )
    assert_clean_error(proc, "--scheduler 'tcp://127.0.0.1:8786'", "pip install 'incast[dask]'")
    assert not (tmp_path / "o").exists()


def test_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    sweep = sweep_file(tmp_path, SMALL_SWEEP)
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="1s")
    proc = incast_cli(
        "sweep", str(sweep), "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:9", timeout=60, env=env
    )
    assert_clean_error(proc, "--scheduler 'tcp://127.0.0.1:9'", "cannot connect")
    assert not (tmp_path / "o").exists()


def test_importing_incast_does_not_import_dask() -> None:
    code = (
        "import sys, incast, incast.sweep, incast.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')]; "
        "assert not bad, bad"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_stalled_point_is_a_result_kept_and_not_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Issue 39: a point whose run stalls (D3 capacity too small to grant three flows anything but
    the base rate) is recorded as stalled, like any result, and the sweep says so."""
    body = (
        'seeds = 1\n[scenario]\ntopology = { kind = "star", hosts = 4 }\ntransport = { protocol = "d3" }\n'
        "d3 = { capacity_min = 0.01 }\n"
        '[[scenario.workload]]\nkind = "flow-burst"\nsenders = 3\nsize = "2KB"\n'
        '[vary.grid]\n"d3.capacity_max" = [0.01, 2.0]\n'
    )
    path = write(tmp_path / "s.toml", body)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err == (
        'incast: warning: 1 of the 2 points run stalled ([run] stall_after): kept, with status "stalled" and '
        "stall_reason in their summary rows\n"
    )
    summary = table(out, "summary").sort_by("d3.capacity_max").to_pylist()
    assert [(r["d3.capacity_max"], r["status"], r["flows_completed"]) for r in summary] == [
        (0.01, "stalled", 0),
        (2.0, "flows-ended", 3),
    ]
    assert "d3.capacity_max" in summary[0]["stall_reason"] and summary[1]["stall_reason"] == ""
    # Done: a rerun runs neither point.
    sweep = load_sweep(path)
    calls = record_runs(monkeypatch, sweep)
    again = run_sweep(sweep, out)
    assert (again.ran, again.stalled, calls) == (0, 0, [])


# A k = 4 fat tree on 2 threads, 2 points; and a star, which runs as one loop whatever
# `run.threads` says.
THREADED_SWEEP = """\
seeds = [1, 2]

[scenario]
topology = { kind = "fat-tree", k = 4 }
transport = { protocol = "dctcp" }
run = { threads = 2 }

[[scenario.workload]]
kind = "poisson"
load = 0.2
size = { dist = "fixed", value = "10KB" }
stop = "200us"
"""


def test_points_on_threads_side_by_side_beyond_the_cores_are_warned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from incast import ScenarioWarning
    from incast.sweep import execute

    sweep = load_sweep(sweep_file(tmp_path, THREADED_SWEEP))
    assert [p.threads for p in sweep.points] == [2, 2]
    monkeypatch.setattr(execute, "_cores", lambda: 2)
    with pytest.warns(ScenarioWarning) as warned:
        run_sweep(sweep, tmp_path / "two-jobs", jobs=2)
    (w,) = [w.message for w in warned]
    assert isinstance(w, ScenarioWarning) and w.path == "run.threads"
    assert w.message.startswith("2 points at a time (jobs), each on up to 2 threads, want 4 threads on 2 cores")
    # One point at a time, or enough cores, or a star (one part: no threads): nothing to say.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ScenarioWarning)
        run_sweep(sweep, tmp_path / "one-job", jobs=1)
        monkeypatch.setattr(execute, "_cores", lambda: 4)
        run_sweep(sweep, tmp_path / "four-cores", jobs=2)
        monkeypatch.setattr(execute, "_cores", lambda: 2)
        star_sweep = THREADED_SWEEP.replace('{ kind = "fat-tree", k = 4 }', '{ kind = "star", hosts = 8 }')
        star = load_sweep(sweep_file(tmp_path, star_sweep, "star.toml"))
        assert [p.threads for p in star.points] == [1, 1]
        run_sweep(star, tmp_path / "star", jobs=2)
    # The command prints it as one warning line before the points run.
    monkeypatch.setattr(execute, "_cores", lambda: 2)
    capsys.readouterr()
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "cli"), "--jobs", "2", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err == f"incast: warning: {tmp_path / 's.toml'}: `run.threads`: {w.message}\n"


def test_run_sweep_rejects_zero_jobs(tmp_path: Path) -> None:
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    with pytest.raises(SweepError) as info:
        run_sweep(sweep, tmp_path / "out", jobs=0)
    assert info.value.key == "jobs" and not (tmp_path / "out").exists()


@pytest.mark.parametrize("scheduler", [None, "local"], ids=["threads", "dask"])
def test_a_point_failing_at_run_time_keeps_the_others(tmp_path: Path, scheduler: str | None) -> None:
    if scheduler is not None:
        pytest.importorskip("distributed")
    write(tmp_path / "a.csv", "src,dst,size_bytes,start_s\n1,0,1000,0\n")
    write(tmp_path / "b.csv", "src,dst,size_bytes,start_s\n2,0,1000,0\n")
    body = (
        'seeds = 1\n[scenario]\ntopology = { kind = "star", hosts = 3 }\n'
        '[[scenario.workload]]\nkind = "trace"\npath = "a.csv"\n'
        '[vary.grid]\n"workload.0.path" = ["b.csv", "a.csv"]\n'
    )
    sweep = load_sweep(write(tmp_path / "s.toml", body))
    (tmp_path / "b.csv").unlink()  # after the checks, before the run
    # The first point fails; the second still runs.
    with pytest.raises(PointError, match=r'workload\.0\.path = "b\.csv", seed = 1\) failed: .*b\.csv') as info:
        run_sweep(sweep, tmp_path / "out", jobs=1, scheduler=scheduler)
    assert [f.point for f in info.value.failures] == [sweep.points[0]]
    assert (info.value.result.ran, info.value.result.failed) == (2, 1)
    done = [p for p in sweep.points if (tmp_path / "out" / "summary" / f"{p.key}.parquet").exists()]
    assert [p.params["workload.0.path"] for p in done] == ["a.csv"]


# --- damaged caches, full disks and failing points -----------------------------------------------


def record_runs(monkeypatch: pytest.MonkeyPatch, sweep: Sweep) -> List[str]:
    """The keys of the points of `sweep` that `incast.api.run` is called for from here on."""
    by_scenario = {repr(p.scenario): p.key for p in sweep.points}
    calls: List[str] = []
    real_run = incast.api.run

    def run(scenario, **kw):  # type: ignore[no-untyped-def]
        calls.append(by_scenario[repr(scenario)])
        return real_run(scenario, **kw)

    monkeypatch.setattr(incast.api, "run", run)
    return calls


def test_damaged_points_are_recomputed_and_the_dataset_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The fault injection of issue 12: one point's flows truncated, two points' summaries
    swapped, one point's flows emptied. The rerun recomputes exactly those four points, says so,
    and the dataset reads whole, every point once, equal to the first run's."""
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    out = tmp_path / "out"
    run_sweep(sweep, out, jobs=2)
    flows, summary = table(out, "flows"), table(out, "summary")
    before = stats(out)

    truncated, swapped_a, swapped_b, emptied = (p.key for p in sweep.points[1:5])
    path = out / "flows" / f"{truncated}.parquet"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    a, b = out / "summary" / f"{swapped_a}.parquet", out / "summary" / f"{swapped_b}.parquet"
    a_bytes, b_bytes = a.read_bytes(), b.read_bytes()
    a.write_bytes(b_bytes)
    b.write_bytes(a_bytes)
    (out / "flows" / f"{emptied}.parquet").write_bytes(b"")
    damaged = {truncated, swapped_a, swapped_b, emptied}
    # What a reader of the damaged dataset would have met: an unreadable file.
    with pytest.raises(pa.ArrowInvalid):
        ds.dataset(out / "flows", format="parquet").to_table()

    calls = record_runs(monkeypatch, sweep)
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(out), "--jobs", "2"]) == 0
    line = capsys.readouterr().out
    assert "8 points: 4 run (4 damaged points recomputed), 4 already done" in line, line
    assert sorted(calls) == sorted(damaged)
    assert_complete(out, sweep)
    assert table(out, "flows").equals(flows) and table(out, "summary").equals(summary)
    after = stats(out)
    assert all(after[f] == s for f, s in before.items() if not any(k in f for k in damaged))


def test_a_point_verified_earlier_in_the_process_is_read_again_once_its_files_change(tmp_path: Path) -> None:
    """The store keeps a point's verdict for the process (reproductions ask for the same cached
    sweep many times) only while its files are the ones it verified: swapping two summaries
    after they verified still recomputes both."""
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    out = tmp_path / "out"
    run_sweep(sweep, out, jobs=2)
    again = run_sweep(sweep, out, jobs=2)  # verifies every point, and remembers it
    assert (again.ran, again.cached) == (0, len(sweep.points))
    a, b = (out / "summary" / f"{p.key}.parquet" for p in sweep.points[:2])
    a_bytes, b_bytes = a.read_bytes(), b.read_bytes()
    a.write_bytes(b_bytes)
    b.write_bytes(a_bytes)
    third = run_sweep(sweep, out, jobs=2)
    assert (third.ran, third.damaged) == (2, 2)
    assert_complete(out, sweep)


@pytest.mark.parametrize(
    "damage",
    ["no-key", "rows-dropped", "other-table", "unlisted-table", "orphan-flows", "flows-missing"],
)
def test_each_kind_of_damage_is_recomputed(tmp_path: Path, damage: str) -> None:
    import pyarrow.parquet as pq

    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    out = tmp_path / "out"
    run_sweep(sweep, out)
    key = sweep.points[0].key
    flows, summary = out / "flows" / f"{key}.parquet", out / "summary" / f"{key}.parquet"
    store = Store(out, sweep)
    if damage == "no-key":
        # As incast 0.1 wrote it: the same columns, no metadata.
        pq.write_table(pq.read_table(summary).replace_schema_metadata(None), summary)
    elif damage == "rows-dropped":
        t = pq.read_table(flows)
        pq.write_table(t.slice(1).replace_schema_metadata(t.schema.metadata), flows)
    elif damage == "other-table":
        flows.write_bytes(summary.read_bytes())
    elif damage == "unlisted-table":
        (out / "queues").mkdir()
        (out / "queues" / f"{key}.parquet").write_bytes(flows.read_bytes())
    elif damage == "orphan-flows":
        summary.unlink()  # killed between the renames of flows and summary
    else:
        flows.unlink()
    reason = store.verify(sweep.points[0])
    assert reason is not None
    assert all(store.verify(p) is None for p in sweep.points[1:])
    result = run_sweep(sweep, out)
    assert (result.ran, result.cached) == (1, 7)
    assert result.damaged == (0 if damage == "orphan-flows" else 1), reason
    assert store.verify(sweep.points[0]) is None
    assert not (out / "queues" / f"{key}.parquet").exists()
    assert_complete(out, sweep)


def test_full_disk_is_a_clean_error_and_loses_no_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import errno

    import pyarrow.parquet as pq

    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    out = tmp_path / "out"
    real_write = pq.write_table
    writes: List[int] = []

    def write_until_full(table, where, **kw):  # type: ignore[no-untyped-def]
        writes.append(1)
        if len(writes) > 7:  # three points and a half: the fourth's summary does not fit
            Path(where).write_bytes(b"PAR1 half")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(table, where, **kw)

    monkeypatch.setattr(pq, "write_table", write_until_full)
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(out), "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"incast: error: --out {str(out)!r}: cannot write point ") and err.endswith(
        "No space left on device"
    ), err
    store = Store(out, sweep)
    done = [p for p in sweep.points if store.done(p)]
    assert len(done) == 3 and [p.key for p in done] == [p.key for p in sweep.points[:3]]
    assert not list(out.rglob("*.tmp"))
    # The finished points form a whole dataset, and a rerun with room completes the sweep.
    assert ds.dataset(out / "summary", format="parquet").count_rows() == 3
    monkeypatch.setattr(pq, "write_table", real_write)
    result = run_sweep(sweep, out)
    assert (result.ran, result.cached, result.damaged) == (5, 3, 0)
    assert_complete(out, sweep)


def test_a_point_out_of_memory_fails_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    out = tmp_path / "out"
    doomed = {sweep.points[0].key: MemoryError, sweep.points[5].key: incast.ResourceError}
    by_scenario = {repr(p.scenario): p.key for p in sweep.points}
    real_run = incast.api.run

    def run(scenario, **kw):  # type: ignore[no-untyped-def]
        error = doomed.get(by_scenario[repr(scenario)])
        if error is not None:
            raise error("cannot allocate 10000000000 flows (1.2 TB)")
        return real_run(scenario, **kw)

    monkeypatch.setattr(incast.api, "run", run)
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(out), "--jobs", "1", "--quiet"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(lines)
    assert len(lines) == 3, lines
    for line, point in zip(lines, (sweep.points[0], sweep.points[5])):
        assert line.startswith(f"incast: error: point {point.key} ({point.describe()}) failed: out of memory: ")
        assert line.endswith("cannot allocate 10000000000 flows (1.2 TB)")
    assert lines[2].startswith("incast: error: 2 of 8 points failed; 6 run, 0 already done"), lines[2]
    store = Store(out, sweep)
    assert [store.done(p) for p in sweep.points] == [p.key not in doomed for p in sweep.points]
    # The rerun retries the two, and only them.
    doomed.clear()
    result = run_sweep(sweep, out)
    assert (result.ran, result.cached, result.failed) == (2, 6, 0)
    assert_complete(out, sweep)


def test_a_panicking_point_fails_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class PanicException(BaseException):  # what pyo3 raises for a Rust panic
        pass

    sweep = load_sweep(sweep_file(tmp_path, SMALL_SWEEP))
    victim = repr(sweep.points[3].scenario)
    real_run = incast.api.run

    def run(scenario, **kw):  # type: ignore[no-untyped-def]
        if repr(scenario) == victim:
            raise PanicException("index out of bounds")
        return real_run(scenario, **kw)

    monkeypatch.setattr(incast.api, "run", run)
    with pytest.raises(PointError) as info:
        run_sweep(sweep, tmp_path / "out", jobs=2)
    (failure,) = info.value.failures
    assert failure.point == sweep.points[3] and "internal error in the engine: index out of bounds" in failure.cause
    assert (info.value.result.ran, info.value.result.failed) == (8, 1)
