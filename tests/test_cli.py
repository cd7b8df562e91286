"""The `incast` command on good input: run, check, demo, bench, Ctrl-C."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import pyarrow.parquet as pq
import pytest

from incast.api import RESULT_FILES

from conftest import SMALL_TOML, incast, listing, write


def test_run_writes_results_and_a_summary_line(small_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "nested"
    proc = incast("run", str(small_toml), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert listing(out) == ["flows.parquet", "ports.parquet", "summary.json"]
    flows = pq.read_table(out / "flows.parquet")
    summary = json.loads((out / "summary.json").read_text())
    assert flows.num_rows == summary["flows"] == 6
    assert proc.stdout.count("\n") == 1
    assert "6/6 flows completed" in proc.stdout and str(out) in proc.stdout
    assert proc.stderr == ""  # no progress bar without a terminal


def test_run_quiet_prints_nothing(small_toml: Path, tmp_path: Path) -> None:
    proc = incast("run", str(small_toml), "--out", str(tmp_path / "o"), "--quiet")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


def test_run_seed_option_changes_the_flows(small_toml: Path, tmp_path: Path) -> None:
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert (
            incast(
                "run", str(small_toml), "--out", str(tmp_path / name), "--seed", seed, "--quiet"
            ).returncode
            == 0
        )
    read = lambda name: pq.read_table(tmp_path / name / "flows.parquet")  # noqa: E731
    assert read("a").equals(read("b"))
    assert not read("a").equals(read("c"))


def test_run_writes_optional_series(tmp_path: Path) -> None:
    scenario = write(
        tmp_path / "s.toml",
        SMALL_TOML + "[output]\n"
        'queue_sample_interval = "100us"\nqueue_sample_hosts = [0]\nflow_throughput_interval = "1ms"\n',
    )
    out = tmp_path / "out"
    assert incast("run", str(scenario), "--out", str(out), "--quiet").returncode == 0
    assert listing(out) == ["flows.parquet", "ports.parquet", "queues.parquet", "summary.json", "throughput.parquet"]
    assert pq.read_table(out / "queues.parquet").column_names == [
        "port", "host", "time_s", "queue_bytes", "d3_flows", "d3_demand_bytes_per_s", "d3_allocated_bytes_per_s",
        "d3_capacity_bytes_per_s",
    ]


def test_json_scenario_runs(tmp_path: Path) -> None:
    from conftest import small_scenario

    scenario = write(tmp_path / "s.json", json.dumps(small_scenario()))
    assert incast("run", str(scenario), "--out", str(tmp_path / "o"), "--quiet").returncode == 0


def test_check_and_version(small_toml: Path) -> None:
    proc = incast("check", str(small_toml))
    assert proc.returncode == 0 and "ok" in proc.stdout
    proc = incast("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("incast ")


def test_module_and_console_script_agree(small_toml: Path, tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("incast")
    if not script.exists():
        pytest.skip("no console script beside this interpreter")
    proc = subprocess.run([str(script), "check", str(small_toml)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_demo_quick(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = incast("demo", "--out", str(out), "--seeds", "1", "--rounds", "2", "--senders", "5,10")
    assert proc.returncode == 0, proc.stderr
    assert listing(out) == ["demo.parquet", "demo.png"]
    assert (out / "demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    flows = pq.read_table(out / "demo.parquet")
    assert {"senders", "scheme", "seed", "met_deadline"} <= set(flows.column_names)
    assert flows.num_rows == (5 + 10) * 2 * 8  # senders x rounds x protocols
    assert set(flows["scheme"].to_pylist()) == {"tcp", "dctcp", "rcpdc", "d3", "pdq", "pfabric", "homa", "ndp"}
    table = proc.stdout.splitlines()
    assert any(line.split()[:2] == ["senders", "protocol"] for line in table)
    assert sum(1 for line in table if line.split()[:2] in (["5", "tcp"], ["10", "dctcp"], ["10", "d3"])) == 3


def test_bench_measures_a_scenario(tmp_path: Path) -> None:
    bench_dir = tmp_path / "benches"
    bench_dir.mkdir()
    write(bench_dir / "tiny.toml", SMALL_TOML)
    report = tmp_path / "bench.json"
    proc = incast("bench", "--dir", str(bench_dir), "--repeat", "2", "--json", str(report))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split()[:2] == ["benchmark", "events/s"]
    assert proc.stdout.splitlines()[1].startswith("tiny ")
    (result,) = json.loads(report.read_text())
    assert result["name"] == "tiny" and len(result["runs"]) == 2
    assert result["events"] > 0 and result["peak_rss_bytes"] > 1 << 20
    assert result["ns_per_event"] == pytest.approx(1e9 / result["events_per_s"])
    assert result["ns_per_event_best"] == pytest.approx(1e9 / max(r["events_per_s"] for r in result["runs"]))
    assert result["events_per_hop"] == pytest.approx(result["events"] / result["packet_hops"])
    # One switch: one part, nothing to run ahead of.
    assert (result["parts"], result["lookahead_s"], result["largest_part_ports"]) == (1, None, 8)
    # Without star_incast_dctcp in the run there is nothing to compare with.
    assert "ns per event over" not in proc.stdout and "ns_per_event_vs_reference" not in result


def test_bench_runs_each_case_on_each_number_of_threads(tmp_path: Path) -> None:
    bench_dir = tmp_path / "benches"
    bench_dir.mkdir()
    write(bench_dir / "tree.toml",
          '[topology]\nkind = "fat-tree"\nk = 4\n[transport]\nprotocol = "dctcp"\n[switch]\necn_threshold = 10\n'
          '[[workload]]\nkind = "poisson"\nload = 0.5\nsize = { dist = "uniform", min = "1KB", max = "30KB" }\n'
          'stop = "1ms"\n')
    report = tmp_path / "bench.json"
    proc = incast("bench", "--dir", str(bench_dir), "--repeat", "1", "--threads", "1,2", "--extrapolate-to", "1s",
                  "--json", str(report))
    assert proc.returncode == 0, proc.stderr
    one, two = json.loads(report.read_text())
    assert (one["threads"], two["threads"], one["parts"]) == (1, 2, 20)
    # The same run, bit for bit, whatever the threads.
    assert one["events"] == two["events"] and one["packet_hops"] == two["packet_hops"]
    lines = proc.stdout.splitlines()
    assert [line.split()[:2] for line in lines[1:3]] == [["tree", "x1"], ["tree", "x2"]]
    start = next(i for i, line in enumerate(lines) if line.startswith("extrapolated"))
    rows = [r for r in (line.split() for line in lines[start:]) if r and r[0] == "tree"]
    # threads, then the speed-up over the 1-thread row.
    assert [(r[1], r[8]) for r in rows][0] == ("1", "1.00") and rows[1][1] == "2"
    speedup = next(i for i, line in enumerate(lines) if line.startswith("speed-up over 1 thread"))
    assert lines[speedup + 1].split()[:2] == ["tree", "x2"] and "rounds" in lines[speedup + 1]
    assert set(two["speedup"]) == {"fastest", "rounds"} and "speedup" not in one


def test_bench_runs_thread_counts_in_turn_and_compares_each_round(monkeypatch: pytest.MonkeyPatch) -> None:
    from incast import bench

    order = []
    walls = {1: iter([10.0, 12.0, 9.0]), 4: iter([4.0, 4.0, 5.0])}

    def fake_run(scenario: Path, threads: int) -> dict:
        order.append(threads)
        wall = next(walls[threads])
        return {"events": 100, "packet_hops": 50, "sim_time_s": 0.01, "wall_s": wall, "build_s": 0.0,
                "events_per_s": 100 / wall, "packet_hops_per_s": 50 / wall, "sim_s_per_wall_s": 0.01 / wall,
                "cpu_s": wall, "peak_rss_bytes": 1, "parts": 20, "lookahead_s": 1e-6, "largest_part_ports": 8,
                "threads": threads}

    monkeypatch.setattr(bench, "_run_child", fake_run)
    one, four = bench.measure_interleaved(Path("tree.toml"), 3, [1, 4])
    # In turn, round by round: each round's two runs are seconds apart.
    assert order == [1, 4, 1, 4, 1, 4]
    assert (one["wall_s"], four["wall_s"], one["threads"], four["threads"]) == (10.0, 4.0, 1, 4)
    lines = bench.speedups([one, four])
    # Fastest over fastest: 9 / 4; each round's pair: 10/4, 12/4, 9/5.
    assert four["speedup"] == {"fastest": 2.25, "rounds": [2.5, 3.0, 1.8]}
    assert lines[1].split()[:3] == ["tree", "x4", "2.25x"] and "rounds 2.50, 3.00, 1.80 (median 2.50x)" in lines[1]
    # Without a 1-thread result there is nothing to compare with.
    assert bench.speedups([four]) == []


def test_bench_compares_every_case_with_the_reference_measured_alongside() -> None:
    from incast import bench

    results = [{"name": "fat", "ns_per_event": 330.0, "ns_per_event_best": 300.0},
               {"name": bench.REFERENCE, "ns_per_event": 140.0, "ns_per_event_best": 100.0}]
    lines = bench.compare_to_reference(results)
    assert [r["ns_per_event_vs_reference"] for r in results] == [3.0, 1.0]
    assert lines[0].startswith(f"ns per event over {bench.REFERENCE}'s (100.0 ns), fastest runs")
    assert lines[1].split() == ["fat", "3.00x"]


def test_bench_extrapolates_to_a_simulated_time_with_threads_and_parts_columns() -> None:
    from incast import bench

    results = [{"name": "study", "threads": 1, "sim_time_s": 0.02, "wall_s": 60.0, "cpu_s": 30.0,
                "peak_rss_bytes": 40 * 2**20, "parts": 608, "lookahead_s": 1e-6},
               {"name": "star", "threads": 1, "sim_time_s": 0.1, "wall_s": 1.0, "cpu_s": 1.0,
                "peak_rss_bytes": 20 * 2**20, "parts": 1, "lookahead_s": None}]
    lines = bench.extrapolate(results, 5.0)
    assert results[0]["extrapolated_wall_s"] == pytest.approx(15_000.0)
    assert lines[0].startswith("extrapolated to 5 s of simulated time")
    assert lines[1].split() == ["benchmark", "threads", "sim", "s", "wall", "s", "CPU", "s", "peak", "RSS",
                                "wall", "h", "CPU", "h", "speed-up", "parts", "lookahead"]
    assert lines[2].split() == ["study", "1", "0.02", "60.0", "30.0", "40.0MB", "4.17", "2.08", "1.00", "608", "1us"]
    assert lines[3].split()[-2:] == ["1", "-"]


def test_bench_refuses_a_bad_extrapolation_time(tmp_path: Path) -> None:
    proc = incast("bench", "--dir", str(tmp_path), "--extrapolate-to", "soon")
    assert proc.returncode == 2 and "'soon': give a positive simulated time" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_repository_benchmarks_are_valid_scenarios() -> None:
    benches = Path(__file__).resolve().parents[1] / "benches"
    scenarios = sorted(benches.glob("*.toml"))
    assert len(scenarios) >= 2
    for scenario in scenarios:
        proc = incast("check", str(scenario))
        assert proc.returncode == 0, proc.stderr


def test_ctrl_c_exits_130_without_traceback(tmp_path: Path, python_sigint: None) -> None:
    scenario = write(
        tmp_path / "long.toml",
        '[topology]\nkind = "star"\nhosts = 3\n[run]\nduration = "10000s"\n'
        '[[workload]]\nkind = "long-flows"\npairs = [[1, 0], [2, 0]]\n',
    )
    out = tmp_path / "out"
    child = subprocess.Popen(
        [sys.executable, "-m", "incast", "run", str(scenario), "--out", str(out), "--progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stderr is not None
    # Interrupt once the run is under way: the progress bar appears after a second of running.
    seen = b""
    deadline = time.monotonic() + 120
    while b"simulated s" not in seen:
        assert time.monotonic() < deadline and child.poll() is None, seen.decode(errors="replace")
        if select.select([child.stderr], [], [], 1.0)[0]:
            seen += os.read(child.stderr.fileno(), 4096)
    child.send_signal(signal.SIGINT)
    _, rest = child.communicate(timeout=60)
    stderr = (seen + rest).decode(errors="replace")
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr and "panicked" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].strip() == "incast: interrupted"
    assert not out.exists()


def test_check_prints_the_transport_in_effect(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", (
        "[topology]\nkind = \"star\"\nhosts = 3\n"
        "[transport]\nstack = \"ns3\"\nmss = 1448\n"
        "[[workload]]\nkind = \"flow-burst\"\nsenders = 2\n"))
    proc = incast("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert 'stack "ns3"' in lines[1]
    # The file's key, and the stack's defaults for the keys it leaves out.
    assert "  mss = 1448" in lines
    assert "  initial_window = 10" in lines and '  min_rto = "1s"' in lines
    assert '  window_growth = "per-ack"' in lines and "  sack = true" in lines
    assert not any(line.startswith("[d2tcp]") for line in lines), "no flow runs D2TCP"


@pytest.mark.parametrize("topology, line", [
    ('kind = "leaf-spine"\noversubscription = 3',
     "topology: leaf-spine, 144 hosts; links: host 10 Gbps, leaf-spine 13.33 Gbps; racks' uplinks oversubscribed 3:1"),
    ('kind = "fat-tree"\nk = 4\nlink_rate = "10Gbps"\noversubscription = 2\ncore_rate = "40Gbps"',
     "topology: fat-tree, 16 hosts; links: host 10 Gbps, edge-agg 5 Gbps, agg-core 40 Gbps; "
     "racks' uplinks oversubscribed 2:1"),
    ('kind = "star"\nhosts = 3', "topology: star, 3 hosts; links: every link 1 Gbps"),
])
def test_check_prints_the_network_and_its_oversubscription(tmp_path: Path, topology: str, line: str) -> None:
    scenario = write(tmp_path / "s.toml", f"[topology]\n{topology}\n[[workload]]\nkind = \"flow-burst\"\nsenders = 2\n")
    proc = incast("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    assert line in proc.stdout.splitlines()


@pytest.mark.parametrize("run, line", [
    # A k = 4 fat tree: 20 switches, 32 links between them, 1 us each.
    ('link_delay = "1us"\n[run]\nthreads = 2',
     "threads: 2 over 20 parts (each switch with its hosts), 32 links between parts, the shortest 1 us: "
     "rounds of at most 1 us of simulated time"),
    # More threads than parts: the run uses one per part.
    ('link_delay = "1us"\n[run]\nthreads = 64', "threads: 20 over 20 parts"),
    # Links without delay are never cut: one part.
    ('link_delay = "0s"\n[run]\nthreads = 2',
     "threads: a network of one part runs as the one event loop, on one thread"),
    ('link_delay = "1us"', None),
])
def test_check_says_how_threads_would_cut_the_network(tmp_path: Path, run: str, line: Optional[str]) -> None:
    scenario = write(tmp_path / "s.toml", (
        f"[topology]\nkind = \"fat-tree\"\nk = 4\n{run}\n[[workload]]\nkind = \"flow-burst\"\nsenders = 2\n"))
    proc = incast("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    threads = [x for x in proc.stdout.splitlines() if x.startswith("threads:")]
    if line is None:
        assert threads == [], proc.stdout
    else:
        assert len(threads) == 1 and threads[0].startswith(line), proc.stdout


@pytest.mark.parametrize("ecn, resolved", [
    # Parsimon's fabric (10 Gbps hosts, 40 Gbps leaf-spine links) with its thresholds.
    ('{ "10Gbps" = "30KB", "40Gbps" = "120KB" }', ['  10Gbps = "30000B"', '  40Gbps = "120000B"']),
    # DCTCP's 65 packets of 1500 B at 10 Gbps, in proportion: x4 at 40 Gbps.
    ('"scaled"', ['  10Gbps = "97500B"', '  40Gbps = "390000B"']),
    ('{ "10Gbps" = 20, "40Gbps" = "off" }', ["  10Gbps = 20", '  40Gbps = "off"']),
])
def test_check_prints_the_ecn_threshold_of_each_link_rate(tmp_path: Path, ecn: str, resolved: List[str]) -> None:
    scenario = write(tmp_path / "s.toml", (
        f"[topology]\nkind = \"leaf-spine\"\n[switch]\necn_threshold = {ecn}\n"
        "[[workload]]\nkind = \"flow-burst\"\nsenders = 2\n"))
    proc = incast("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = lines.index("[switch] ecn_threshold in effect, by link rate:")
    assert lines[at + 1:at + 3] == resolved


def test_check_prints_pfabric_in_effect_instead_of_the_tcp_keys(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", (
        "[topology]\nkind = \"star\"\nhosts = 3\n"
        "[transport]\nprotocol = \"pfabric\"\n[pfabric]\nrto = \"90us\"\n"
        "[[workload]]\nkind = \"flow-burst\"\nsenders = 2\n"))
    proc = incast("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1] == (
        "[transport] not in effect: every flow runs pFabric; pFabric's hosts run their own TCP, set by [pfabric]"
    )
    assert not any(line.startswith("  min_rto") for line in lines), "no TCP key applies"
    start = next(i for i, line in enumerate(lines) if line.startswith("[pfabric] in effect")) + 1
    assert lines[start:start + 5] == ['  buffer = "36864B"', "  initial_window = 12", "  max_window = 15",
                                      '  rto = "90us"', "  probe_after = 5"]


def test_check_prints_d2tcp_in_effect_when_a_flow_runs_it(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", (
        "[topology]\nkind = \"star\"\nhosts = 3\n"
        "[transport]\ndctcp_initial_alpha = 0.0\n"
        "[d2tcp]\ntc_units = \"round-trips\"\nclamp = \"upper\"\n"
        "[[workload]]\nkind = \"flow-burst\"\nsenders = 2\nprotocol = \"d2tcp\"\n"))
    proc = incast("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[d2tcp] in effect")) + 1
    section = lines[start:next(i for i, line in enumerate(lines) if line.startswith("topology:"))]
    # The file's keys, the defaults of the others, and DCTCP's initial alpha followed.
    assert section == ["  g = 0.0625", "  initial_alpha = 0.0", "  d_cap = 2.0", '  past_deadline = "one"',
                       '  nothing_left = "min"', '  remaining = "unacked"', '  tc_units = "round-trips"',
                       '  clamp = "upper"']


def test_check_bad_d2tcp_value_is_one_line_naming_the_key(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", (
        "[topology]\nkind = \"star\"\nhosts = 3\n[d2tcp]\nnothing_left = \"half\"\n"
        "[[workload]]\nkind = \"flow-burst\"\nsenders = 2\n"))
    proc = incast("check", str(scenario))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "d2tcp.nothing_left" in proc.stderr and '"one", "max", "min"' in proc.stderr


def test_crosscheck_without_ns3_is_a_clean_error(tmp_path: Path) -> None:
    # Shadow the `ns3` package with one that cannot be imported, as on a machine without it.
    shadow = tmp_path / "shadow"
    (shadow / "ns3").mkdir(parents=True)
    (shadow / "ns3" / "__init__.py").write_text("raise ImportError('no ns-3 here')\n")
    env = dict(os.environ, PYTHONPATH=str(shadow))
    proc = incast("crosscheck", "--quick", "--case", "newreno-star-10", "--out", str(tmp_path / "xc"), env=env)
    assert proc.returncode == 2
    assert "pip install 'incast[crosscheck]'" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "xc").exists()
    proc = incast("crosscheck", "--case", "no-such-case", "--out", str(tmp_path / "xc"))
    assert proc.returncode == 2 and "no such case" in proc.stderr
    proc = incast("crosscheck", "--sender-traces", "--out", str(tmp_path / "xc"))
    assert proc.returncode == 2 and "--sender-traces needs exactly one --case" in proc.stderr
    proc = incast("crosscheck", "--sender-traces", "--trace-flow", "3", "--case", "newreno-star-10",
                  "--out", str(tmp_path / "xc"))
    assert proc.returncode == 2 and "choose one" in proc.stderr and "Traceback" not in proc.stderr


# --- run --out is replaced as a group ------------------------------------------------------------


def siblings(out: Path) -> list:
    """What `replace_dir` may leave beside `out`: fresh and old results in hidden directories."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.incast-"))


def result_of(out: Path) -> tuple:
    """(flows rows, summary's flow count) of a complete result; they agree when it is whole."""
    assert set(listing(out)) <= set(RESULT_FILES)
    return pq.read_table(out / "flows.parquet").num_rows, json.loads((out / "summary.json").read_text())["flows"]


def test_run_replaces_an_earlier_result_and_follows_a_symlinked_out(tmp_path: Path) -> None:
    sampled = '[output]\nqueue_sample_interval = "1ms"\nqueue_sample_hosts = [0]\n'
    scenario = write(tmp_path / "s.toml", SMALL_TOML + sampled)
    real = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert incast("run", str(scenario), "--out", str(link), "--quiet").returncode == 0
    assert listing(real) == ["flows.parquet", "ports.parquet", "queues.parquet", "summary.json"]
    small = write(tmp_path / "small.toml", SMALL_TOML.replace("rounds = 2", "rounds = 3"))
    assert incast("run", str(small), "--out", str(link), "--quiet").returncode == 0
    assert link.is_symlink() and listing(real) == ["flows.parquet", "ports.parquet", "summary.json"]
    assert result_of(real) == (9, 9)
    assert siblings(real) == [] and siblings(link) == []


def test_run_traces_the_slowest_flows_and_names_a_flow_that_does_not_exist(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", SMALL_TOML)
    done = incast("run", str(scenario), "--out", str(tmp_path / "out"), "--quiet", "--trace-slowest", "2")
    assert done.returncode == 0, done.stderr
    assert len(set(pq.read_table(tmp_path / "out" / "traces.parquet")["flow_id"].to_pylist())) == 2
    bad = incast("run", str(scenario), "--out", str(tmp_path / "bad"), "--quiet", "--trace-flow", "4000000")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "trace_flows: flow 4000000 does not exist (the run has 6 flows, numbered from 0)" in bad.stderr, bad.stderr


def test_run_traces_the_slowest_flows_on_threads_as_on_one(tmp_path: Path) -> None:
    # The fat-tree example cut into parts: --trace-slowest runs it twice (to find the flows,
    # then to trace them), and 2 threads give the rows of 1 (docs/scenario.md, "Threads").
    example = Path(__file__).resolve().parent.parent / "examples" / "fat-tree-ports.toml"
    tables = []
    for threads in ("1", "2"):
        out = tmp_path / f"t{threads}"
        done = incast("run", str(example), "--out", str(out), "--quiet", "--threads", threads, "--trace-slowest", "3")
        assert done.returncode == 0, done.stderr
        tables.append(pq.read_table(out / "traces.parquet"))
    assert len(set(tables[0]["flow_id"].to_pylist())) == 3 and tables[0].num_rows > 50
    assert tables[0].equals(tables[1])


@pytest.mark.parametrize("fault", ["exchange", "second-rename", "full-disk"])
def test_a_failing_save_leaves_the_old_result_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, fault: str
) -> None:
    import errno

    import incast.durable
    from incast.cli import main

    scenario = write(tmp_path / "s.toml", SMALL_TOML)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--quiet"]) == 0
    before = {name: (out / name).read_bytes() for name in listing(out)}
    if fault == "exchange":
        def exchange(a, b):  # type: ignore[no-untyped-def]
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(b))

        monkeypatch.setattr(incast.durable, "_exchange", exchange)
    elif fault == "second-rename":
        # No exchange on this file system: two renames, and the second fails.
        monkeypatch.setattr(incast.durable, "_exchange", lambda a, b: False)
        real_rename = os.rename

        def rename(src, dst):  # type: ignore[no-untyped-def]
            if ".incast-tmp-" in str(src):
                raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
            real_rename(src, dst)

        monkeypatch.setattr(os, "rename", rename)
    else:
        real_write = pq.write_table

        def write_table(table, where, **kw):  # type: ignore[no-untyped-def]
            real_write(table, where, **kw)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(pq, "write_table", write_table)
    again = write(tmp_path / "again.toml", SMALL_TOML.replace("rounds = 2", "rounds = 3"))
    assert main(["run", str(again), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    expected = "No space left on device" if fault == "full-disk" else "Input/output error"
    assert err == f"incast: error: --out {str(out)!r}: cannot write results: {expected}", err
    assert {name: (out / name).read_bytes() for name in listing(out)} == before
    assert siblings(out) == []


def _saver(out: Path, mode: str) -> subprocess.Popen:
    """A child that saves two results (6 and 9 flows) into `out` in turns until killed: with
    RENAME_EXCHANGE, with two renames, or with two renames and a SIGKILL between them."""
    code = (
        "import os, sys, itertools\n"
        "import incast, incast.durable\n"
        "from conftest import small_scenario\n"
        "mode = sys.argv[2]\n"
        "if mode != 'exchange':\n"
        "    incast.durable._exchange = lambda a, b: False\n"
        "if mode == 'killed-between-renames':\n"
        "    real_rename = os.rename\n"
        "    def rename(src, dst):\n"
        "        real_rename(src, dst)\n"
        "        if '.incast-old-' in str(dst):\n"
        "            os.kill(os.getpid(), 9)\n"
        "    os.rename = rename\n"
        "two = dict(small_scenario()); two['workload'] = [dict(two['workload'][0], rounds=3)]\n"
        "results = [incast.run(small_scenario()), incast.run(two)]\n"
        "results[0].save(sys.argv[1])\n"
        "print('saving', flush=True)\n"
        "for i in itertools.count(1):\n"
        "    results[i % 2].save(sys.argv[1])\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen(
        [sys.executable, "-c", code, str(out), mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )


@pytest.mark.parametrize("mode", ["exchange", "two-renames"])
def test_a_killed_save_leaves_a_whole_result(tmp_path: Path, mode: str) -> None:
    """SIGKILL at random moments of saves in a loop: `--out` always holds one whole result
    (or, between the two renames of the fallback, is absent with the old result beside it), and
    the next run leaves no temporary directory."""
    from incast.durable import recover_dir

    out = tmp_path / "out"
    for delay in (0.0, 0.003, 0.011, 0.029, 0.047):
        child = _saver(out, mode)
        assert child.stdout is not None
        assert child.stdout.readline() == b"saving\n", child.communicate()[1].decode()
        time.sleep(delay)
        child.kill()
        child.communicate(timeout=60)
        if out.exists() or mode == "exchange":
            assert result_of(out) in ((6, 6), (9, 9))
        recover_dir(out)
        assert result_of(out) in ((6, 6), (9, 9))
        assert siblings(out) == []


def test_killed_between_the_two_renames_the_next_run_puts_the_old_result_back(
    tmp_path: Path, small_toml: Path
) -> None:
    out = tmp_path / "out"
    child = _saver(out, "killed-between-renames")
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL, stderr.decode()
    # The window of the fallback: the old result aside, the new one not yet in place.
    assert not out.exists() and [s.split("-")[1] for s in siblings(out)] == ["old", "tmp"]
    proc = incast("run", str(small_toml), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert result_of(out) == (6, 6) and siblings(out) == []


def test_run_warns_when_the_capture_limit_left_packets_out(tmp_path: Path) -> None:
    scenario = tmp_path / "cap.toml"
    scenario.write_text(SMALL_TOML + '[output]\ncapture_ports = ["switch->*"]\ncapture_max_packets = 3\n')
    out = tmp_path / "out"
    proc = incast("run", str(scenario), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "warning: the capture holds the first 3 packets" in proc.stderr and "capture_max_packets" in proc.stderr
    assert (out / "capture.pcap").read_bytes()[:4] == bytes.fromhex("4d3cb2a1")


def test_run_writes_the_offer_log_and_warns_when_its_limit_left_offers_out(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    scenario = tmp_path / "offers.toml"
    scenario.write_text(SMALL_TOML + '[output]\noffer_log_ports = ["switch->h0"]\noffer_log_max_rows = 5\n')
    out = tmp_path / "out"
    proc = incast("run", str(scenario), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "warning: the offer log holds the first 5 offers" in proc.stderr and "offer_log_max_rows" in proc.stderr
    offers = pq.read_table(out / "offers.parquet")
    assert offers.num_rows == 5 and set(offers["port"].to_pylist()) == {"switch->h0"}
    assert set(offers["outcome"].to_pylist()) <= {"queued", "marked", "dropped", "queued-evicting"}


def test_summary_line_counts_the_deadlines_the_run_could_not_judge() -> None:
    from incast.api import run
    from incast.cli import summary_line

    # The 10 MB flow is unfinished when the run stops at 5 ms, before its 50 ms deadline.
    flows = [{"src": 1, "dst": 0, "size": "10KB", "deadline": "4ms"}, {"src": 2, "dst": 0, "size": "10MB",
                                                                       "deadline": "50ms"}]
    result = run({"topology": {"kind": "star", "hosts": 3}, "run": {"duration": "5ms"},
                  "workload": [{"kind": "flows", "flows": flows}]})
    line = summary_line(result.summary, Path("out"))
    assert "app throughput 100.0% of 1 deadline flows; 1 deadlines past the end of the run;" in line


def test_stream_flows_writes_the_same_flow_table(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`--stream-flows` writes flows.parquet as flows end: the rows of a run without it, in the
    order flows ended, with the same other files; `--slowdown` reads them back."""
    from test_api import POISSON_TOML

    from incast.cli import main

    scenario = write(tmp_path / "poisson.toml", POISSON_TOML)
    kept, streamed = tmp_path / "kept", tmp_path / "streamed"
    assert main(["run", str(scenario), "--out", str(kept), "--quiet", "--slowdown"]) == 0
    slowdown_kept = capsys.readouterr().out
    assert main(["run", str(scenario), "--out", str(streamed), "--quiet", "--slowdown", "--stream-flows"]) == 0
    assert capsys.readouterr().out == slowdown_kept
    assert listing(streamed) == listing(kept)
    a, b = pq.read_table(kept / "flows.parquet"), pq.read_table(streamed / "flows.parquet")
    assert b["flow_id"].to_pylist() != a["flow_id"].to_pylist()
    assert b.sort_by("flow_id").equals(a)
    assert (streamed / "ports.parquet").read_bytes() == (kept / "ports.parquet").read_bytes()
    assert siblings(streamed) == [] and not [p for p in tmp_path.iterdir() if "flows.parquet" in p.name]


def test_stream_flows_leaves_nothing_when_the_run_fails(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from incast.cli import main

    bad = write(tmp_path / "bad.toml", SMALL_TOML.replace("rounds = 2", "rounds = -1"))
    assert main(["run", str(bad), "--out", str(tmp_path / "out"), "--quiet", "--stream-flows"]) == 2
    assert "rounds" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_stream_flows_reports_a_full_disk_while_streaming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import errno

    from test_api import POISSON_TOML

    from incast.cli import main

    def write_table(self, table, row_group_size=None):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq.ParquetWriter, "write_table", write_table)
    scenario = write(tmp_path / "poisson.toml", POISSON_TOML)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--quiet", "--stream-flows"]) == 2
    *warned, err = capsys.readouterr().err.strip().splitlines()
    assert err == f"incast: error: --out {str(out)!r}: cannot write results: No space left on device", err
    # Before the run, its scenario's warning (Linux's 1 s initial RTO on 10 Gbps links).
    assert [line.split("`")[1] for line in warned] == ["transport.initial_rto"], warned
    assert sorted(p.name for p in tmp_path.iterdir()) == ["poisson.toml"]
