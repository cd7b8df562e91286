"""Bad input through the CLI: one line naming the key, exit status 2, no traceback, no output."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import SMALL_TOML, assert_clean_error, incast, listing, write

TOPOLOGY = '[topology]\nkind = "star"\nhosts = 4\n'
BURST = '[[workload]]\nkind = "flow-burst"\naggregator = 0\nsenders = 3\n'
POISSON = '[[workload]]\nkind = "poisson"\nstop = "10ms"\n'
TWO_TIER_40 = '[topology]\nkind = "two-tier"\nracks = 4\nhosts_per_rack = 10\n'
# 40 hosts (8 per OLDI application) and a 100 ms run.
OLDI_NET = TWO_TIER_40 + '[run]\nduration = "100ms"\n'


def oldi(**keys: str | None) -> str:
    """An OLDI workload: fan-in 5 at 10% utilization, with `key = value` lines changed, added or
    (value None) removed."""
    lines = {"fan_in": "5", "utilization": "0.1", **keys}
    return '[[workload]]\nkind = "oldi"\n' + "".join(f"{k} = {v}\n" for k, v in lines.items() if v is not None)


def burst(**keys: str) -> str:
    """A flow-burst workload with extra `key = value` lines (values written as TOML)."""
    return BURST + "".join(f"{k} = {v}\n" for k, v in keys.items())


# (id, scenario text, what stderr must name)
CASES = [
    ("unknown-key", TOPOLOGY + 'colour = "red"\n' + burst(), "topology.colour"),
    ("unknown-table", TOPOLOGY + "[network]\nx = 1\n" + burst(), "network"),
    ("wrong-type", '[topology]\nkind = "star"\nhosts = "four"\n' + burst(), "topology.hosts"),
    ("missing-required-key", "[topology]\nhosts = 4\n" + burst(), "topology.kind"),
    ("negative-size", TOPOLOGY + burst(size='"-2KB"'), "workload[0].size"),
    ("zero-size", TOPOLOGY + burst(size='"0KB"'), "workload[0].size"),
    (
        "host-out-of-range",
        TOPOLOGY + burst().replace("aggregator = 0", "aggregator = 9"),
        "workload[0].aggregator",
    ),
    ("worker-is-aggregator", TOPOLOGY + burst(worker_hosts="[1, 0]"), "workload[0].worker_hosts[1]"),
    ("zero-deadline", TOPOLOGY + burst(deadline='"0ms"'), "workload[0].deadline"),
    ("unknown-protocol", TOPOLOGY + '[transport]\nprotocol = "cubic"\n' + burst(), "transport.protocol"),
    (
        "tcppr-too-few-classes",
        TOPOLOGY + '[transport]\nprotocol = "tcppr"\n' + burst(),
        "tcppr.thresholds",
    ),
    (
        "tcppr-thresholds-not-rising",
        TOPOLOGY + '[tcppr]\nthresholds = ["20ms", "10ms"]\n' + burst(),
        "tcppr.thresholds[1]",
    ),
    ("d2tcp-unknown-key", TOPOLOGY + "[d2tcp]\nn = 2.0\n" + burst(), "d2tcp.n"),
    ("d2tcp-cap-not-above-one", TOPOLOGY + "[d2tcp]\nd_cap = 1.0\n" + burst(), "d2tcp.d_cap"),
    ("d2tcp-cap-not-a-number", TOPOLOGY + '[d2tcp]\nd_cap = "2"\n' + burst(), "d2tcp.d_cap"),
    ("d2tcp-zero-gain", TOPOLOGY + "[d2tcp]\ng = 0.0\n" + burst(), "d2tcp.g"),
    ("d2tcp-unknown-past-deadline", TOPOLOGY + '[d2tcp]\npast_deadline = "drop"\n' + burst(), "d2tcp.past_deadline"),
    ("d2tcp-unknown-remaining", TOPOLOGY + '[d2tcp]\nremaining = "unread"\n' + burst(), "d2tcp.remaining"),
    ("d3-unknown-key", TOPOLOGY + "[d3]\ngamma = 1\n" + burst(), "d3.gamma"),
    ("d3-negative-gain", TOPOLOGY + "[d3]\nalpha = -0.1\n" + burst(), "d3.alpha"),
    ("d3-zero-interval", TOPOLOGY + '[d3]\ncontrol_interval = "0us"\n' + burst(), "d3.control_interval"),
    ("d3-quench-not-bool", TOPOLOGY + '[d3]\nquench = "yes"\n' + burst(), "d3.quench"),
    ("d3-unknown-base-grant", TOPOLOGY + '[d3]\nbase_grant = "two-segments"\n' + burst(), "d3.base_grant"),
    ("d3-unknown-pacing", TOPOLOGY + '[d3]\npacing = "smooth"\n' + burst(), "d3.pacing"),
    ("d3-zero-base-rate", TOPOLOGY + '[d3]\nbase_rate = "0bps"\n' + burst(), "d3.base_rate"),
    ("d3-unknown-variant", TOPOLOGY + '[d3]\nvariant = "fixed"\n' + burst(), "d3.variant"),
    ("d3-unknown-controller", TOPOLOGY + '[d3]\ncontroller = "rcp"\n' + burst(), "d3.controller"),
    ("d3-negative-capacity-min", TOPOLOGY + "[d3]\ncapacity_min = -0.5\n" + burst(), "d3.capacity_min"),
    ("d3-capacity-min-above-max", TOPOLOGY + "[d3]\ncapacity_min = 3.0\n" + burst(), "d3.capacity_min"),
    ("d3-zero-capacity-max", TOPOLOGY + "[d3]\ncapacity_min = 0.0\ncapacity_max = 0.0\n" + burst(), "d3.capacity_max"),
    ("d3-huge-capacity-max", TOPOLOGY + "[d3]\ncapacity_max = 1e9\n" + burst(), "d3.capacity_max"),
    ("d3-time-slices-not-bool", TOPOLOGY + '[d3]\ntime_slices = "on"\n' + burst(), "d3.time_slices"),
    ("d3-carry-remainder-not-bool", TOPOLOGY + "[d3]\ncarry_remainder = 1\n" + burst(), "d3.carry_remainder"),
    ("d3-reclaim-dropped-not-bool", TOPOLOGY + '[d3]\nreclaim_dropped = "no"\n' + burst(), "d3.reclaim_dropped"),
    ("d3-pace-requests-not-bool", TOPOLOGY + "[d3]\npace_requests = 0\n" + burst(), "d3.pace_requests"),
    ("unknown-topology-kind", '[topology]\nkind = "ring"\nhosts = 4\n' + burst(), "topology.kind"),
    ("fat-tree-odd-k", '[topology]\nkind = "fat-tree"\nk = 3\n' + burst(), "topology.k"),
    ("key-of-other-kind", '[topology]\nkind = "star"\nhosts = 4\nk = 4\n' + burst(), "topology.k"),
    ("toml-syntax", "[topology\nkind = 'star'\n", "TOML syntax error at line 1"),
    (
        "buffer-and-shared-buffer",
        TOPOLOGY + '[switch]\nbuffer = "100KB"\nshared_buffer = "4MB"\n' + burst(),
        "switch.shared_buffer",
    ),
    (
        "size-min-above-max",
        TOPOLOGY + burst(size='{ dist = "uniform", min = "50KB", max = "2KB" }'),
        "workload[0].size.min",
    ),
    (
        "unknown-size-dist",
        TOPOLOGY + burst(size='{ dist = "pareto", mean = "10KB" }'),
        "workload[0].size.dist",
    ),
    (
        "cdf-not-ending-at-1",
        TOPOLOGY + burst(size='{ dist = "cdf", points = [["1KB", 0.5], ["9KB", 0.9]] }'),
        "workload[0].size.points[1][1]",
    ),
    (
        "bad-unit",
        '[topology]\nkind = "star"\nhosts = 4\nlink_rate = "1Gbit"\n' + burst(),
        "topology.link_rate",
    ),
    (
        "zero-rate",
        '[topology]\nkind = "star"\nhosts = 4\nlink_rate = "0Gbps"\n' + burst(),
        "topology.link_rate",
    ),
    ("priority-out-of-range", TOPOLOGY + burst(priority="3"), "workload[0].priority"),
    (
        "too-many-priority-classes",
        TOPOLOGY + "[switch]\npriority_classes = 9\n" + burst(),
        "switch.priority_classes",
    ),
    (
        "bad-ecn-threshold",
        TOPOLOGY + '[switch]\necn_threshold = "sometimes"\n' + burst(),
        "switch.ecn_threshold",
    ),
    ("unknown-stack", TOPOLOGY + '[transport]\nstack = "bsd"\n' + burst(), "transport.stack"),
    ("mss-out-of-range", TOPOLOGY + '[transport]\nmss = 60\n' + burst(), "transport.mss"),
    ("prr-without-sack", TOPOLOGY + '[transport]\nsack = false\nprr = true\n' + burst(), "transport.prr"),
    ("sack-with-d3", TOPOLOGY + '[transport]\nprotocol = "d3"\nsack = true\n' + burst(), "transport.sack"),
    ("shared-buffer-in-packets", TOPOLOGY + '[switch]\nshared_buffer = "100pkts"\n' + burst(), "switch.shared_buffer"),
    (
        "max-rto-below-min-rto",
        TOPOLOGY + '[transport]\nmin_rto = "10ms"\nmax_rto = "5ms"\n' + burst(),
        "transport.max_rto",
    ),
    (
        "src-equals-dst",
        TOPOLOGY + '[[workload]]\nkind = "flows"\nflows = [{ src = 1, dst = 1, size = "10KB" }]\n',
        "workload[0].flows[0].dst",
    ),
    (
        "flow-host-out-of-range",
        TOPOLOGY + '[[workload]]\nkind = "flows"\nflows = [{ src = 1, dst = 7, size = "10KB" }]\n',
        "workload[0].flows[0].dst",
    ),
    (
        "long-pair-src-equals-dst",
        TOPOLOGY + '[run]\nduration = "1s"\n[[workload]]\nkind = "long-flows"\npairs = [[2, 2]]\n',
        "workload[0].pairs[0][1]",
    ),
    ("empty-workload-list", TOPOLOGY, "workload"),
    (
        "poisson-stop-before-start",
        TOPOLOGY + '[[workload]]\nkind = "poisson"\nrate = 1000\nstart = "10ms"\nstop = "5ms"\n',
        "workload[0].stop",
    ),
    ("oldi-fan-in-above-share", OLDI_NET + oldi(fan_in="8"), "workload[0].fan_in"),
    ("oldi-without-fan-in", OLDI_NET + oldi(fan_in=None), "workload[0].fan_in"),
    ("oldi-zero-trees", OLDI_NET + oldi(trees_per_app="0"), "workload[0].trees_per_app"),
    (
        "oldi-message-size-unit",
        OLDI_NET + oldi(message_sizes='["2kb", "6KB", "10KB", "14KB", "18KB"]'),
        "workload[0].message_sizes[0]",
    ),
    (
        "oldi-deadlines-count",
        OLDI_NET + oldi(message_sizes='["2KB", "6KB", "10KB"]', deadlines='["20ms", "30ms"]'),
        "workload[0].deadlines",
    ),
    ("oldi-unknown-variance", OLDI_NET + oldi(deadline_variance='"huge"'), "workload[0].deadline_variance"),
    ("oldi-rate-and-utilization", OLDI_NET + oldi(query_rate="100.0"), "workload[0].utilization"),
    ("oldi-zero-query-rate", OLDI_NET + oldi(utilization=None, query_rate="0.0"), "workload[0].query_rate"),
    ("oldi-utilization-above-one", OLDI_NET + oldi(utilization="1.5"), "workload[0].utilization"),
    (
        "oldi-unknown-app-protocol",
        OLDI_NET + oldi(protocols='["tcp", "cubic", "tcp", "tcp", "tcp"]'),
        "workload[0].protocols[1]",
    ),
    ("oldi-background-not-bool", OLDI_NET + oldi(background='"yes"'), "workload[0].background"),
    ("oldi-background-size-when-off", OLDI_NET + oldi(background_size='"1MB"'), "workload[0].background_size"),
    (
        "oldi-zero-background-interval",
        OLDI_NET + oldi(background="true", background_interval='"0ms"'),
        "workload[0].background_interval",
    ),
    (
        "oldi-unknown-background-protocol",
        OLDI_NET + oldi(background="true", background_protocol='"cubic"'),
        "workload[0].background_protocol",
    ),
    ("oldi-host-twice", OLDI_NET + oldi(hosts="[1, 2, 1]"), "workload[0].hosts[2]"),
    ("oldi-stop-before-start", OLDI_NET + oldi(start='"10ms"', stop='"5ms"'), "workload[0].stop"),
    ("oldi-without-duration", TWO_TIER_40 + oldi(), "run.duration"),
    (
        "long-flows-without-duration",
        TOPOLOGY + '[[workload]]\nkind = "long-flows"\npairs = [[1, 0]]\n',
        "run.duration",
    ),
    (
        "queue-hosts-without-interval",
        TOPOLOGY + burst() + "[output]\nqueue_sample_hosts = [0]\n",
        "output.queue_sample_interval",
    ),
    ("negative-seed", "seed = -1\n" + TOPOLOGY + burst(), "seed"),
    ("missing-csv-trace", TOPOLOGY + '[[workload]]\nkind = "trace"\npath = "nope.csv"\n', "workload[0].path"),
    (
        "missing-parquet-trace",
        TOPOLOGY + '[[workload]]\nkind = "trace"\npath = "nope.parquet"\n',
        "workload[0].path",
    ),
    ("unknown-size-name", TOPOLOGY + burst(size='"websearch"'), "workload[0].size"),
    ("poisson-load-and-rate", TOPOLOGY + POISSON + "load = 0.5\nrate = 10.0\n", "workload[0].load"),
    ("poisson-zero-load", TOPOLOGY + POISSON + "load = 0.0\n", "workload[0].load"),
    ("poisson-nan-load", TOPOLOGY + POISSON + "load = nan\n", "workload[0].load"),
]


@pytest.mark.parametrize("text,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_scenario_is_one_line_naming_the_key(tmp_path: Path, text: str, needle: str) -> None:
    scenario = write(tmp_path / "bad.toml", text)
    out = tmp_path / "out"
    proc = incast("run", str(scenario), "--out", str(out))
    assert_clean_error(proc, needle, "bad.toml")
    assert proc.stdout == ""
    assert not out.exists(), "a failed run must not create its output directory"


def test_check_reports_the_same_errors(tmp_path: Path) -> None:
    scenario = write(tmp_path / "bad.toml", CASES[0][1])
    assert_clean_error(incast("check", str(scenario)), "topology.colour")


# Errors that only the whole scenario shows (which ports the topology has, which protocols its flows
# run): `incast check` reports them, as a run does, without building the network.
WHOLE_SCENARIO_CASES = [
    (
        "queue-port-pattern-matching-no-port",
        TOPOLOGY + burst() + '[output]\nqueue_sample_interval = "1ms"\nqueue_sample_ports = ["switch->h0", "core*"]\n',
        "output.queue_sample_ports[1]",
        "matches no port",
    ),
    (
        "capture-port-pattern-matching-no-port",
        TOPOLOGY + burst() + '[output]\ncapture_ports = ["tor*->fabric"]\n',
        "output.capture_ports[0]",
        "matches no port",
    ),
    (
        "offer-log-port-pattern-matching-no-port",
        TOPOLOGY + burst() + '[output]\noffer_log_ports = ["tor*->fabric"]\n',
        "output.offer_log_ports[0]",
        "matches no port",
    ),
    (
        "tcppr-too-few-classes",
        TOPOLOGY + '[transport]\nprotocol = "tcppr"\n' + burst(),
        "tcppr.thresholds",
        "switch.priority_classes = 1",
    ),
]


@pytest.mark.parametrize(
    "text,key,needle", [c[1:] for c in WHOLE_SCENARIO_CASES], ids=[c[0] for c in WHOLE_SCENARIO_CASES]
)
def test_check_reports_what_only_the_whole_scenario_shows(tmp_path: Path, text: str, key: str, needle: str) -> None:
    scenario = write(tmp_path / "bad.toml", text)
    assert_clean_error(incast("check", str(scenario)), key, needle)


def test_json_scenario_errors_name_the_key(tmp_path: Path) -> None:
    scenario = write(
        tmp_path / "bad.json",
        '{"topology": {"kind": "star", "hosts": 4},'
        ' "workload": [{"kind": "flow-burst", "senders": "three"}]}',
    )
    assert_clean_error(incast("run", str(scenario), "--out", str(tmp_path / "o")), "workload[0].senders")


def test_parquet_trace_missing_a_column(tmp_path: Path) -> None:
    pq.write_table(pa.table({"src": [1], "dst": [0], "start_s": [0.0]}), tmp_path / "t.parquet")
    scenario = write(tmp_path / "s.toml", TOPOLOGY + '[[workload]]\nkind = "trace"\npath = "t.parquet"\n')
    assert_clean_error(
        incast("run", str(scenario), "--out", str(tmp_path / "o")), "workload[0].path", "size_bytes"
    )


def test_parquet_trace_rows_are_checked_by_the_engine(tmp_path: Path) -> None:
    trace = pa.table({"src": [1, 2], "dst": [0, 2], "size_bytes": [1000, 1000], "start_s": [0.0, 0.0]})
    pq.write_table(trace, tmp_path / "t.parquet")
    scenario = write(tmp_path / "s.toml", TOPOLOGY + '[[workload]]\nkind = "trace"\npath = "t.parquet"\n')
    proc = incast("run", str(scenario), "--out", str(tmp_path / "o"))
    assert_clean_error(proc, "`workload[0].path`: t.parquet row 2 (dst): ", "distinct hosts")


def test_unsorted_csv_trace_says_how_to_sort_it(tmp_path: Path) -> None:
    """Issue 41: `incast check` reads the whole trace and refuses rows out of start order with
    the line, and a command that sorts by the start column where this header puts it."""
    write(tmp_path / "t.csv", "start_s,src,dst,size_bytes\n0.002,1,0,1000\n# note\n0.001,2,0,1000\n")
    scenario = write(tmp_path / "s.toml", TOPOLOGY + '[[workload]]\nkind = "trace"\npath = "t.csv"\n')
    proc = incast("check", str(scenario))
    assert_clean_error(proc, "`workload[0].path`: t.csv line 4, column 1 (start_s): starts before the flow of line 2")
    assert "sort -s -t, -k1,1g" in proc.stderr


def test_missing_scenario_file(tmp_path: Path) -> None:
    proc = incast("run", str(tmp_path / "does-not-exist.toml"), "--out", str(tmp_path / "o"))
    assert_clean_error(proc, "does-not-exist.toml", "No such file")


def test_empty_scenario_file(tmp_path: Path) -> None:
    scenario = write(tmp_path / "empty.toml", "")
    assert_clean_error(incast("run", str(scenario), "--out", str(tmp_path / "o")), "topology")


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "{scenario}", "--out", "{tmp}/o", "--seed", "-1"], "--seed"),
        (["run", "{scenario}", "--out", "{tmp}/o", "--seed", "abc"], "--seed"),
        (["run", "{scenario}", "--out", "{tmp}/o", "--threads", "0"], "--threads"),
        (["run", "{scenario}", "--out", "{tmp}/o", "--threads", "two"], "--threads"),
        (["bench", "--threads", "1,x"], "--threads"),
        (["run", "{scenario}"], "--out"),
        (["run", "{scenario}", "--out", "{tmp}/o", "--bogus"], "--bogus"),
        (["demo", "--seeds", "0"], "--seeds"),
        (["demo", "--senders", "5,x"], "--senders"),
        (["bench", "--repeat", "-3"], "--repeat"),
        (["bench", "--dir", "{tmp}/nowhere"], "--dir"),
        (["frobnicate"], "frobnicate"),
        ([], "command"),
    ],
    ids=[
        "negative-seed",
        "text-seed",
        "zero-threads",
        "text-threads",
        "bench-text-threads",
        "no-out",
        "unknown-flag",
        "zero-seeds",
        "bad-senders",
        "negative-repeat",
        "missing-bench-dir",
        "unknown-command",
        "no-command",
    ],
)
def test_bad_flags(tmp_path: Path, args: list, needle: str) -> None:
    scenario = write(tmp_path / "ok.toml", SMALL_TOML)
    args = [a.format(scenario=scenario, tmp=tmp_path) for a in args]
    assert_clean_error(incast(*args, cwd=tmp_path), needle)
    assert not (tmp_path / "o").exists()


def test_unwritable_out_fails_before_running(tmp_path: Path) -> None:
    scenario = write(tmp_path / "ok.toml", SMALL_TOML)
    blocker = write(tmp_path / "a-file", "")
    proc = incast("run", str(scenario), "--out", str(blocker / "sub"))
    assert_clean_error(proc, "--out", "not a directory")
    proc = incast("run", str(scenario), "--out", str(blocker))
    assert_clean_error(proc, "--out", "not a directory")


def test_failing_run_does_not_clobber_a_good_result(tmp_path: Path) -> None:
    good = write(tmp_path / "good.toml", SMALL_TOML)
    out = tmp_path / "out"
    first = incast("run", str(good), "--out", str(out), "--quiet")
    assert first.returncode == 0, first.stderr
    before = {name: (out / name).read_bytes() for name in listing(out)}
    assert "flows.parquet" in before and "summary.json" in before

    bad = write(tmp_path / "bad.toml", SMALL_TOML.replace("senders = 3", "senders = 0"))
    assert_clean_error(incast("run", str(bad), "--out", str(out)), "workload[0].senders")
    after = {name: (out / name).read_bytes() for name in listing(out)}
    assert after == before, "the failed run changed or left files in --out"


def test_run_refuses_an_out_holding_other_files(tmp_path: Path) -> None:
    """`run --out` replaces the whole directory, so one holding anything but a run's result is
    refused before the run, and left alone."""
    scenario = write(tmp_path / "ok.toml", SMALL_TOML)
    mine = tmp_path / "mine"
    mine.mkdir()
    write(mine / "notes.txt", "mine")
    write(mine / "summary.json", "{}")
    proc = incast("run", str(scenario), "--out", str(mine))
    assert_clean_error(proc, f"--out {str(mine)!r}", "holds notes.txt, not written by incast run")
    assert listing(mine) == ["notes.txt", "summary.json"] and (mine / "notes.txt").read_text() == "mine"
    # The scenario's own directory, say.
    assert_clean_error(incast("run", "ok.toml", "--out", ".", cwd=tmp_path), "--out '.'", "ok.toml")


@pytest.mark.parametrize("message", ["cannot allocate the flow table: 10000000000 flows (1.2 TB)", ""])
def test_out_of_memory_is_one_line_and_status_70(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, message: str
) -> None:
    import incast
    import incast.api
    from incast.cli import main

    error = incast.ResourceError

    def run(*args: object, **kw: object) -> None:
        raise error(message)

    monkeypatch.setattr(incast.api, "run", run)
    out = tmp_path / "out"
    assert main(["run", str(write(tmp_path / "ok.toml", SMALL_TOML)), "--out", str(out), "--quiet"]) == 70
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"incast: error: {message or 'out of memory'}\n"
    assert not out.exists()


def test_a_stalled_run_warns_naming_the_likely_keys_and_succeeds(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from incast.cli import main

    scenario = write(
        tmp_path / "stuck.toml",
        '[topology]\nkind = "star"\nhosts = 4\n[transport]\nprotocol = "d3"\n[d3]\ncapacity_min = 0.01\n'
        'capacity_max = 0.01\n[[workload]]\nkind = "flow-burst"\nsenders = 3\nsize = "2KB"\n',
    )
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "incast: warning: the run stalled at 10 s with 3 of 3 flows unfinished: no flow got a byte through for 10 s "
        "(none since the start) while 3 unfinished flows of D3 ran; likely keys: d3.capacity_max, d3.capacity_min or "
        'd3.base_rate (run.stall_after = "10s": raise it, or set it to "off", to wait longer)\n'
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "stalled" and summary["stall_keys"][0] == "d3.capacity_max"


def test_a_run_stopped_at_its_horizon_warns_and_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import dataclasses

    import incast.api
    from incast.cli import main

    real_run = incast.api.run

    def run(*args: object, **kw: object) -> incast.api.RunResult:
        result = real_run(*args, **kw)  # type: ignore[arg-type]
        summary = dict(result.summary, stopped_at_horizon=True, flows_completed=4, sim_time_s=0.5)
        return dataclasses.replace(result, summary=summary)

    monkeypatch.setattr(incast.api, "run", run)
    out = tmp_path / "out"
    assert main(["run", str(write(tmp_path / "ok.toml", SMALL_TOML)), "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "incast: warning: the run reached its simulated-time horizon ([run] horizon = 0.5 s) "
        "with 2 of 6 flows unfinished\n"
    )
    assert listing(out) == ["flows.parquet", "ports.parquet", "summary.json"]
