"""The Python API: run from a dict or a file, the result tables, determinism, threads."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import incast
from incast import _core
from incast.api import flows_schema, table_schema

from conftest import SMALL_TOML, small_scenario, write

SUMMARY_KEYS = {
    "events",
    "sim_time_s",
    "wall_time_s",
    "flows",
    "flows_measured",
    "flows_completed",
    "deadline_flows",
    "deadline_unknown",
    "app_throughput",
    "packets_sent",
    "packets_delivered",
    "packets_dropped",
    "packets_in_network",
    "packet_hops",
    "ecn_marked",
    "ecn_marked_dropped",
    "ecn_marked_control",
    "ecn_remarked",
    "max_queue_bytes",
    "timeouts",
    "d3_requests",
    "d3_priority_inversions",
    "transport",
    "stopped_at_horizon",
    "status",
    "stall_reason",
    "stall_keys",
}
FLOW_COLUMNS = [
    "flow_id",
    "src",
    "dst",
    "size_bytes",
    "start_s",
    "finish_s",
    "deadline_s",
    "met_deadline",
    "delivered_bytes",
    "retransmitted_bytes",
    "timeouts",
    "lateness_s",
    "quenched",
    "time_at_base_rate_s",
    "max_stall_s",
    "workload",
    "round",
    "protocol",
    "priority",
    "app",
    "background",
    "ideal_fct_s",
    "slowdown",
    "measured",
]


def burst(senders: int = 8, rounds: int = 3, seed: int = 1, protocol: str = "tcp") -> dict:
    """A flow burst big enough to overflow the buffer, so seeds and protocols matter."""
    return {
        "seed": seed,
        "topology": {"kind": "star", "hosts": senders + 1},
        "switch": {"buffer": "32KB"},
        "transport": {"protocol": protocol, "min_rto": "10ms"},
        "workload": [
            {
                "kind": "flow-burst",
                "senders": senders,
                "size": {"dist": "uniform", "min": "2KB", "max": "50KB"},
                "deadline": {"dist": "exponential", "mean": "20ms"},
                "rounds": rounds,
            }
        ],
    }


def test_run_from_dict_and_from_path_agree(tmp_path: Path) -> None:
    from_path = incast.run(write(tmp_path / "s.toml", SMALL_TOML))
    from_dict = incast.run(small_scenario())
    assert from_path.flows.num_rows == 6
    assert from_path.flows.equals(from_dict.flows)


def test_flow_columns_and_types() -> None:
    flows = incast.run(small_scenario()).flows
    assert flows.column_names == FLOW_COLUMNS
    assert flows.schema.equals(flows_schema())
    assert flows["flow_id"].to_pylist() == list(range(flows.num_rows))
    assert set(flows["protocol"].to_pylist()) == {"dctcp"}
    assert set(flows["src"].to_pylist()) == {1, 2, 3}
    assert set(flows["dst"].to_pylist()) == {0}
    assert flows["round"].to_pylist() == [0, 0, 0, 1, 1, 1]
    for row in flows.to_pylist():
        assert 2000 <= row["size_bytes"] <= 20000
        assert row["finish_s"] > row["start_s"]
        assert row["delivered_bytes"] == row["size_bytes"]
        assert row["met_deadline"] == (row["finish_s"] <= row["deadline_s"])
        assert row["slowdown"] == pytest.approx((row["finish_s"] - row["start_s"]) / row["ideal_fct_s"], rel=1e-12)
        assert row["slowdown"] >= 1.0


def test_nulls_where_a_value_does_not_apply() -> None:
    scenario = {
        "topology": {"kind": "star", "hosts": 3},
        "run": {"duration": "20ms"},
        "workload": [
            {
                "kind": "flows",
                "flows": [
                    {"src": 1, "dst": 0, "size": "10KB", "deadline": "50ms"},
                    {"src": 2, "dst": 0, "size": "10KB"},
                    {"src": 1, "dst": 2},  # long-lived: no size, never finishes
                ],
            }
        ],
    }
    rows = incast.run(scenario).flows.to_pylist()
    with_deadline, without_deadline, long_lived = rows
    assert with_deadline["deadline_s"] == pytest.approx(0.05)
    assert with_deadline["met_deadline"] is True
    assert without_deadline["deadline_s"] is None and without_deadline["met_deadline"] is None
    assert without_deadline["finish_s"] is not None
    assert long_lived["size_bytes"] is None and long_lived["finish_s"] is None
    assert long_lived["delivered_bytes"] > 0
    assert all(r["app"] is None and r["background"] is False for r in rows)


def test_met_deadline_is_null_where_the_run_ended_before_the_deadline() -> None:
    # 100 KB takes about 1 ms at 1 Gbps, 10 MB about 84 ms; the run stops at 20 ms.
    scenario = {
        "topology": {"kind": "star", "hosts": 8},
        "run": {"duration": "20ms"},
        "workload": [
            {
                "kind": "flows",
                "flows": [
                    {"src": 1, "dst": 0, "size": "100KB", "deadline": "50ms"},  # met
                    {"src": 2, "dst": 3, "size": "10MB", "deadline": "10ms"},  # missed: due inside the run
                    {"src": 4, "dst": 5, "size": "10MB", "deadline": "50ms"},  # unknown: due after its end
                    {"src": 6, "dst": 7, "size": "100KB", "start": "30ms", "deadline": "5ms"},  # never started
                ],
            }
        ],
    }
    result = incast.run(scenario)
    assert [r["met_deadline"] for r in result.flows.to_pylist()] == [True, False, None, None]
    s = result.summary
    assert (s["deadline_flows"], s["deadline_unknown"], s["app_throughput"]) == (2, 2, 0.5)


def test_oldi_flows_name_their_app_and_background_senders() -> None:
    # 2 racks x 20 hosts, five apps of 8 hosts, fan-in 5, background senders; 60 ms of queries.
    scenario = {
        "topology": {"kind": "two-tier", "racks": 2, "hosts_per_rack": 20},
        "switch": {"shared_buffer": "4MB", "core_buffer": "100MB"},
        "transport": {"protocol": "dctcp", "min_rto": "20ms"},
        "run": {"duration": "60ms"},
        "workload": [
            {
                "kind": "oldi",
                "fan_in": 5,
                "utilization": 0.2,
                "background": True,
                "background_interval": "20ms",
                "protocols": ["tcp", "dctcp", "dctcp", "dctcp", "dctcp"],
            }
        ],
    }
    flows = incast.run(scenario).flows
    rows = flows.to_pylist()
    assert set(flows["app"].to_pylist()) == {0, 1, 2, 3, 4}
    oldi = [r for r in rows if not r["background"]]
    background = [r for r in rows if r["background"]]
    assert background and all(r["deadline_s"] is None and r["size_bytes"] == 1_000_000 for r in background)
    sizes = {r["app"]: r["size_bytes"] for r in oldi}
    assert sizes == {0: 2000, 1: 6000, 2: 10000, 3: 14000, 4: 18000}
    assert {r["protocol"] for r in oldi if r["app"] == 0} == {"tcp"}
    assert {r["protocol"] for r in oldi if r["app"] != 0} == {"dctcp"}
    # The paper's metrics come straight from the table: missed deadlines per app and latency
    # normalized to the deadline (D2TCP Figures 10 and 12).
    for r in oldi:
        assert r["deadline_s"] is not None
        if r["finish_s"] is not None:
            normalized = (r["finish_s"] - r["start_s"]) / (r["deadline_s"] - r["start_s"])
            assert normalized > 0 and r["met_deadline"] == (normalized <= 1)


def test_summary_keys_and_consistency() -> None:
    result = incast.run(burst())
    s = result.summary
    assert set(s) == SUMMARY_KEYS
    assert (s["status"], s["stall_reason"], s["stall_keys"]) == ("flows-ended", "", [])
    assert s["flows"] == result.flows.num_rows == 24
    assert s["flows_completed"] == 24
    assert s["deadline_flows"] == 24
    met = sum(result.flows["met_deadline"].to_pylist())
    assert s["app_throughput"] == pytest.approx(met / 24)
    assert s["timeouts"] == sum(result.flows["timeouts"].to_pylist())
    assert s["events"] > 0 and s["packet_hops"] >= s["packets_delivered"] > 0
    assert s["packets_sent"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_network"]
    json.dumps(s)  # plain JSON values only
    # The settings in effect: the default stack, with the keys the scenario gave.
    assert s["transport"]["stack"] == "linux" and s["transport"]["protocol"] == burst()["transport"]["protocol"]
    assert s["transport"] == incast.effective_transport(burst())


def test_a_run_that_never_moves_stops_stalled_and_says_why() -> None:
    """Issue 39: D3 ports whose capacity (1.25 units of the header's field) leaves each of three
    flows less than a unit: every grant is the base grant and no flow sends a byte. The progress
    watchdog stops the run after 10 s of that, instead of a simulated day."""
    tree = {
        "topology": {"kind": "star", "hosts": 4},
        "transport": {"protocol": "d3"},
        "d3": {"capacity_min": 0.01, "capacity_max": 0.01},
        "workload": [{"kind": "flow-burst", "senders": 3, "size": "2KB"}],
    }
    s = incast.run(tree).summary
    assert (s["status"], s["sim_time_s"], s["flows_completed"], s["stopped_at_horizon"]) == ("stalled", 10.0, 0, False)
    assert s["stall_keys"] == ["d3.capacity_max", "d3.capacity_min", "d3.base_rate"]
    assert s["stall_reason"].startswith("no flow got a byte through for 10 s (none since the start) while 3 unfinished")
    # The same run without the watchdog goes on to its horizon; with a duration, to that.
    off = incast.run({**tree, "run": {"stall_after": "off", "horizon": "20s"}}).summary
    assert (off["status"], off["sim_time_s"], off["stall_reason"], off["stall_keys"]) == ("horizon", 20.0, "", [])
    timed = incast.run({**tree, "run": {"duration": "20s"}}).summary
    assert (timed["status"], timed["sim_time_s"]) == ("duration", 20.0)


def test_same_seed_same_flows_different_seed_differs() -> None:
    a, b = incast.run(burst(seed=3)), incast.run(burst(seed=3))
    assert a.flows.equals(b.flows)
    assert {k: v for k, v in a.summary.items() if k != "wall_time_s"} == {
        k: v for k, v in b.summary.items() if k != "wall_time_s"
    }
    c = incast.run(burst(seed=4))
    assert not a.flows.equals(c.flows)


def test_seed_argument_overrides_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", SMALL_TOML)
    assert incast.run(path, seed=11).flows.equals(incast.run(small_scenario(seed=11)).flows)
    assert not incast.run(path, seed=11).flows.equals(incast.run(path).flows)
    with pytest.raises(ValueError):
        incast.run(path, seed=-1)
    with pytest.raises(TypeError):
        incast.run(path, seed="3")  # type: ignore[arg-type]


def test_threads_give_the_same_results_and_are_checked() -> None:
    # A k = 4 fat tree (20 parts) of Poisson DCTCP flows with drops: the network cut into parts,
    # run on 1, 2 and 3 threads (docs/scenario.md, "Threads"), gives the same flows and ports.
    scenario = {
        "topology": {"kind": "fat-tree", "k": 4},
        "switch": {"buffer": "16KB", "ecn_threshold": 10},
        "transport": {"protocol": "dctcp", "min_rto": "1ms"},
        "workload": [{"kind": "poisson", "load": 0.7, "size": {"dist": "uniform", "min": "1KB", "max": "60KB"},
                      "stop": "2ms"}],
        "run": {"threads": 1},
    }
    one = incast.run(scenario)
    assert one.summary["packets_dropped"] > 0 and one.summary["flows_completed"] > 50
    for threads in (2, "3"):
        other = incast.run(scenario, threads=threads)
        assert other.flows.equals(one.flows), threads
        assert other.ports.equals(one.ports), threads
        assert other.summary["events"] == one.summary["events"]
    assert incast.api.simulation(scenario, threads=2).threads() == 2
    # The one loop (no `threads`) runs the same flows, in another order of simultaneous events.
    loop = incast.run({k: v for k, v in scenario.items() if k != "run"})
    assert loop.flows.num_rows == one.flows.num_rows
    assert incast.api.simulation({k: v for k, v in scenario.items() if k != "run"}).threads() is None
    for bad in (0, -1, True, 1.5, "many"):
        with pytest.raises(ValueError, match="threads must be"):
            incast.run(scenario, threads=bad)  # type: ignore[arg-type]
    with pytest.raises(incast.ScenarioError, match="run.threads"):
        incast.run({**scenario, "run": {"threads": 0}})
    # Samples read ports and flows' ends that other threads run: the same rows on 1 and 2 threads.
    sampled = {**scenario, "output": {"queue_sample_interval": "50us", "queue_sample_hosts": [0, 9],
                                      "queue_sample_ports": ["agg*"], "flow_throughput_interval": "100us"}}
    one_sampled, two_sampled = incast.run(sampled), incast.run(sampled, threads=2)
    assert one_sampled.queues.num_rows > 100 and one_sampled.queues.equals(two_sampled.queues)
    assert one_sampled.throughput.num_rows > 100 and one_sampled.throughput.equals(two_sampled.throughput)
    traced = {**scenario, "output": {"trace_workloads": [0]}}
    one_traced = incast.run(traced)
    assert one_traced.traces.num_rows > 1000 and one_traced.traces.equals(incast.run(traced, threads=3).traces)
    # Captures and offer logs record each port's packets in one part, joined and ordered after
    # the run, their limits kept as one thread keeps them.
    recorded = {**scenario, "output": {"capture_ports": ["agg*"], "capture_max_packets": 3000,
                                       "offer_log_ports": ["core*"], "offer_log_max_rows": 2000}}
    one_recorded, two_recorded = incast.run(recorded), incast.run(recorded, threads=2)
    assert one_recorded.capture is not None and two_recorded.capture is not None
    assert one_recorded.capture.missed > 0 and one_recorded.offers_missed > 0
    assert one_recorded.capture.pcap == two_recorded.capture.pcap
    assert one_recorded.capture.missed == two_recorded.capture.missed
    assert one_recorded.offers is not None and one_recorded.offers.num_rows == 2000
    assert one_recorded.offers.equals(two_recorded.offers) and one_recorded.offers_missed == two_recorded.offers_missed


def test_d2tcp_mixes_with_tcp_and_names_both_in_the_protocol_column() -> None:
    scenario = burst(senders=8, rounds=2, protocol="d2tcp")
    scenario["workload"].append(
        {"kind": "flows", "protocol": "tcp", "flows": [{"src": 1, "dst": 0, "size": "200KB"}]}
    )
    flows = incast.run(scenario).flows
    protocols = flows["protocol"].to_pylist()
    assert sorted(protocols) == ["d2tcp"] * 16 + ["tcp"]
    assert flows["workload"].to_pylist()[protocols.index("tcp")] == 1
    assert all(f is not None for f in flows["finish_s"].to_pylist())


def test_d2tcp_without_deadlines_gives_dctcp_flow_table() -> None:
    def table(protocol: str) -> pa.Table:
        scenario = burst(senders=8, rounds=2, protocol=protocol)
        del scenario["workload"][0]["deadline"]
        return incast.run(scenario).flows.drop(["protocol"])

    assert table("d2tcp").equals(table("dctcp"))


def test_threads_give_the_same_results_as_sequential_runs() -> None:
    scenarios = [burst(seed=s, protocol=p) for s in (1, 2) for p in ("tcp", "dctcp")]
    sequential = [incast.run(s).flows for s in scenarios]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda s: incast.run(s).flows, scenarios))
    for seq, par in zip(sequential, parallel):
        assert seq.equals(par)


def test_step_releases_the_gil() -> None:
    # Long-lived flows for a long simulated time: one step call of many events.
    scenario = {
        "topology": {"kind": "star", "hosts": 3},
        "run": {"duration": "20s"},
        "workload": [{"kind": "long-flows", "pairs": [[1, 0], [2, 0]]}],
    }
    sim = incast.api.simulation(scenario)
    ticks = 0
    done = threading.Event()

    def engine() -> None:
        sim.step(1 << 62)
        done.set()

    worker = threading.Thread(target=engine)
    started = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - started
    if elapsed < 0.2:
        pytest.skip(f"the run took only {elapsed:.3f} s, too short to tell")
    # Holding the GIL would leave this thread a tick or two; released, it ticks every ~1 ms.
    assert ticks > 20 * elapsed, (ticks, elapsed)


def test_progress_callback_sees_the_run_end() -> None:
    seen: list = []
    incast.run(burst(rounds=5), progress=seen.append, chunk_events=1000)
    assert len(seen) >= 2
    assert all(isinstance(p, incast.Progress) for p in seen)
    assert [p.events for p in seen] == sorted(p.events for p in seen)
    last = seen[-1]
    assert last.flows_completed == last.flows_total == 40
    assert last.fraction == 1.0


def test_ctrl_c_handled_inside_a_destructor_still_stops_the_run(python_sigint: None) -> None:
    # Python raises KeyboardInterrupt wherever it handles the signal; raised inside a __del__
    # (tqdm has one) it is printed as "Exception ignored" and lost. The run loop must stop anyway.
    class InterruptOnDelete:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # Python code, where the signal is handled
                pass

    calls = []

    def progress(p: incast.Progress) -> None:
        calls.append(p.events)
        if len(calls) == 2:
            InterruptOnDelete()  # deleted at once, inside this call

    with pytest.raises(KeyboardInterrupt):
        incast.run(burst(rounds=50), progress=progress, chunk_events=1000)
    assert len(calls) == 2, "the run went on after Ctrl-C"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_scenario_error_has_path_and_message() -> None:
    bad = small_scenario()
    bad["workload"][0]["size"] = {"dist": "uniform", "min": "9KB", "max": "1KB"}
    with pytest.raises(incast.ScenarioError) as info:
        incast.run(bad)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.path == "workload[0].size.min"
    assert err.message and err.message in str(err)
    assert str(err).startswith("`workload[0].size.min`: ")


def test_unserializable_dict_value_names_its_key() -> None:
    bad = small_scenario()
    bad["workload"][0]["rounds"] = object()
    with pytest.raises(incast.ScenarioError) as info:
        incast.run(bad)
    assert info.value.path == "workload[0].rounds"


def test_missing_file_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        incast.run(tmp_path / "nope.toml")


def test_parquet_trace_matches_csv_trace(tmp_path: Path) -> None:
    trace = pa.table(
        {
            "src": pa.array([1, 1, 2, 3], pa.uint32()),
            "dst": pa.array([0, 2, 0, 0], pa.uint32()),
            "size_bytes": pa.array([20000, None, 30000, 5000], pa.uint64()),
            "start_s": [0.0, 0.0, 0.0001, 0.0002],
            "deadline_s": [0.01, None, None, 0.002],
        }
    )
    pq.write_table(trace, tmp_path / "trace.parquet")
    csv = ["src,dst,size_bytes,start_s,deadline_s"]
    for r in trace.to_pylist():
        csv.append(",".join("" if r[c] is None else str(r[c]) for c in trace.column_names))
    write(tmp_path / "trace.csv", "\n".join(csv) + "\n")
    base = '[topology]\nkind = "star"\nhosts = 4\n[run]\nduration = "30ms"\n[[workload]]\nkind = "trace"\n'
    via_parquet = incast.run(write(tmp_path / "p.toml", base + 'path = "trace.parquet"\n'))
    via_csv = incast.run(write(tmp_path / "c.toml", base + 'path = "trace.csv"\n'))
    assert via_parquet.flows.num_rows == 4
    assert via_parquet.flows.equals(via_csv.flows)
    # A dict names the trace relative to the working directory, or absolutely.
    as_dict = incast.load_scenario(tmp_path / "p.toml")
    assert Path(as_dict["workload"][0]["path"]).is_absolute()
    assert incast.run(as_dict).flows.equals(via_csv.flows)


PARQUET_TRACE_TOML = '[topology]\nkind = "star"\nhosts = 8\n[[workload]]\nkind = "trace"\npath = "t.parquet"\n'


def _long_trace(rows: int, hosts: int = 8) -> pa.Table:
    """`rows` 1 KB flows from hosts 1.. to host 0, a microsecond apart, in start order."""
    return pa.table(
        {
            "src": pa.array([1 + i % (hosts - 1) for i in range(rows)], pa.uint32()),
            "dst": pa.array([0] * rows, pa.uint32()),
            "size_bytes": pa.array([1000] * rows, pa.uint64()),
            "start_s": [i * 1e-6 for i in range(rows)],
        }
    )


def test_a_parquet_trace_streams_as_the_csv_of_its_rows_made_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INCAST_CACHE_DIR", str(tmp_path / "cache"))
    # More rows than one batch of the conversion, so the CSV is written in several.
    rows = incast.scenario.PARQUET_BATCH_ROWS + 1000
    pq.write_table(_long_trace(rows), tmp_path / "t.parquet")
    scenario = write(tmp_path / "s.toml", PARQUET_TRACE_TOML)
    result = incast.run(scenario)
    assert result.flows.num_rows == rows and result.summary["flows_completed"] == rows
    (csv,) = (tmp_path / "cache" / "traces").glob("*.csv")
    assert csv.read_text().splitlines()[:3] == ["src,dst,size_bytes,start_s", "1,0,1000,0", "2,0,1000,0.000001"]
    # The same file's next run reads the CSV made by the first.
    made = csv.stat().st_mtime_ns
    assert incast.run(scenario).flows.equals(result.flows)
    assert csv.stat().st_mtime_ns == made


def test_max_trace_bytes_holds_against_the_parquet_file_not_its_larger_csv(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INCAST_CACHE_DIR", str(tmp_path / "cache"))
    pq.write_table(_long_trace(2000), tmp_path / "t.parquet")
    parquet_bytes = (tmp_path / "t.parquet").stat().st_size
    limit = parquet_bytes + 100
    scenario = write(tmp_path / "s.toml", PARQUET_TRACE_TOML + f"[run]\nmax_trace_bytes = {limit}\n")
    result = incast.run(scenario)
    assert result.flows.num_rows == 2000
    (csv,) = (tmp_path / "cache" / "traces").glob("*.csv")
    assert csv.stat().st_size > limit, "the CSV the engine read is over the limit the user set"
    write(tmp_path / "s.toml", PARQUET_TRACE_TOML + f"[run]\nmax_trace_bytes = {parquet_bytes - 1}\n")
    with pytest.raises(incast.ScenarioError, match="max_trace_bytes"):
        incast.run(tmp_path / "s.toml")


def test_parquet_trace_rows_out_of_order_or_of_the_wrong_type_are_named(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", PARQUET_TRACE_TOML)
    # A start before the row above, just past the first batch: the row counts across batches.
    batch = incast.scenario.PARQUET_BATCH_ROWS
    trace = _long_trace(batch + 10)
    starts = trace["start_s"].to_pylist()
    starts[batch + 2] = 0.0
    pq.write_table(trace.set_column(3, "start_s", pa.array(starts)), tmp_path / "t.parquet")
    unsorted = rf"t.parquet\" row {batch + 3} \(start_s\): starts before the flow of row {batch + 2}:"
    with pytest.raises(incast.ScenarioError, match=unsorted):
        incast.run(scenario)
    # A float host column, as pandas writes an integer column holding a NaN.
    pq.write_table(_long_trace(3).set_column(0, "src", pa.array([1.0, 2.0, 3.0])), tmp_path / "t.parquet")
    with pytest.raises(incast.ScenarioError, match="column src holds double, expected whole numbers"):
        incast.run(scenario)
    # What the engine finds in the converted CSV names the Parquet file and its row, never the CSV.
    pq.write_table(_long_trace(3).set_column(1, "dst", pa.array([0, 2, 0], pa.uint32())), tmp_path / "t.parquet")
    with pytest.raises(incast.ScenarioError) as e:
        incast.run(scenario)
    assert e.value.path == "workload[0].path"
    assert e.value.message.startswith("t.parquet row 2 (dst): "), e.value.message
    assert ".csv" not in str(e.value)


def test_load_scenario_returns_an_editable_dict(tmp_path: Path) -> None:
    tree = incast.load_scenario(write(tmp_path / "s.toml", SMALL_TOML))
    assert tree["topology"] == {"kind": "star", "hosts": 4}
    tree["workload"][0]["senders"] = 2
    assert incast.run(tree).flows.num_rows == 4
    with pytest.raises(incast.ScenarioError):
        incast.load_scenario(write(tmp_path / "bad.toml", SMALL_TOML + "bogus = 1\n"))


def test_queue_and_throughput_series() -> None:
    scenario = burst(rounds=1)
    scenario["output"] = {
        "queue_sample_interval": "100us",
        "queue_sample_hosts": [0, 1],
        "flow_throughput_interval": "1ms",
    }
    result = incast.run(scenario)
    q = result.queues
    assert q.column_names == ["port", "host", "time_s", "queue_bytes", "d3_flows", "d3_demand_bytes_per_s",
                              "d3_allocated_bytes_per_s", "d3_capacity_bytes_per_s"]
    assert q.num_rows > 0 and set(q["host"].to_pylist()) == {0, 1}
    assert max(q["queue_bytes"].to_pylist()) > 0
    t = result.throughput
    assert t is not None and t.column_names == ["time_s", "flow_id", "delivered_bytes"]
    assert t.num_rows > 0
    assert incast.run(burst(rounds=1)).throughput is None
    assert q["d3_flows"].null_count == q.num_rows, "no D3 allocator, no counters"


def test_every_declared_table_has_the_engine_schema() -> None:
    # The engine declares each table's columns once (_core.columns); the tables it hands over
    # and the schemas Python builds from the declaration agree, nullability included.
    scenario = burst(rounds=1)
    scenario["output"] = {"flow_throughput_interval": "1ms", "trace_flows": [0], "queue_sample_interval": "1ms",
                          "queue_sample_hosts": [0]}
    result = incast.run(scenario)
    tables = {"flows": result.flows, "ports": result.ports, "traces": result.traces, "throughput": result.throughput}
    for name, t in tables.items():
        assert t is not None and t.num_rows > 0, name
        declared = _core.columns(name)  # type: ignore[arg-type]
        assert t.schema.equals(table_schema(name)), name  # type: ignore[arg-type]
        assert t.column_names == [c[0] for c in declared]
        assert all(c[3] for c in declared), f"{name}: every column has a doc"
        for field in t.schema:
            if not field.nullable:
                assert t[field.name].null_count == 0, (name, field.name)
    assert flows_schema().equals(table_schema("flows"))
    # The queue table puts the sampled port's name before the declared columns.
    declared = [c[0] for c in _core.columns("queues")]
    assert result.queues.num_rows > 0 and result.queues.column_names == ["port", *declared]
    assert declared[:3] == ["host", "time_s", "queue_bytes"] and "d3_flows" in declared
    with pytest.raises(ValueError, match="queues"):
        _core.columns("nodes")  # type: ignore[arg-type]


def test_docs_list_every_declared_column() -> None:
    # docs/python.md's tables of flows, ports, traces and offers name each column the engine declares.
    docs = (Path(__file__).parents[1] / "docs" / "python.md").read_text()
    for name, heading in (("flows", "### `flows`"), ("ports", "### `ports`"), ("traces", "### `traces`"),
                          ("offers", "### `offers`")):
        section = docs.split(heading, 1)[1].split("\n### ", 1)[0]
        documented = {n for line in section.splitlines() if line.startswith("| `")
                      for n in line.split("|")[1].replace("`", "").replace(" ", "").split(",")}
        declared = {c[0] for c in _core.columns(name)}  # type: ignore[arg-type]
        assert declared == documented, name


def test_d3_priority_inversions_are_counted_under_a_burst() -> None:
    result = incast.run(burst(senders=30, rounds=2, protocol="d3"))
    s = result.summary
    assert s["d3_requests"] > 0
    assert 0 < s["d3_priority_inversions"] < s["d3_requests"]
    tcp = incast.run(burst(senders=30, rounds=2, protocol="tcp")).summary
    assert tcp["d3_requests"] == tcp["d3_priority_inversions"] == 0


def test_d3_counters_are_sampled_at_ports_with_an_allocator() -> None:
    scenario = burst(senders=8, rounds=1, protocol="d3")
    scenario["output"] = {"queue_sample_interval": "100us", "queue_sample_hosts": [0]}
    q = incast.run(scenario).queues
    assert q["d3_flows"].null_count == 0
    # The allocator counts the burst's flows while they run and returns to none at the end.
    flows = q["d3_flows"].to_pylist()
    assert max(flows) == 8 and flows[-1] == 0
    capacity = q["d3_capacity_bytes_per_s"].to_pylist()
    assert all(125_000_000 // 4 <= c <= 2 * 125_000_000 for c in capacity)
    assert incast.run(burst(rounds=1)).queues.num_rows == 0


def test_save_writes_atomically_and_drops_stale_files(tmp_path: Path) -> None:
    scenario = burst(rounds=1)
    scenario["output"] = {"queue_sample_interval": "1ms", "queue_sample_hosts": [0]}
    incast.run(scenario).save(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["flows.parquet", "ports.parquet", "queues.parquet", "summary.json"]
    result = incast.run(burst(rounds=1))
    written = result.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flows.parquet", "ports.parquet", "summary.json"]
    assert sorted(p.name for p in written) == ["flows.parquet", "ports.parquet", "summary.json"]
    assert pq.read_table(tmp_path / "flows.parquet").equals(result.flows)
    assert json.loads((tmp_path / "summary.json").read_text()) == result.summary


def test_ports_table_names_every_port_and_locates_the_drops() -> None:
    result = incast.run(burst())
    ports = result.ports
    assert ports.column_names == ["port", "node", "peer", "role", "tier", "up", "link_rate_bps", "packets_sent",
                                  "bytes_sent", "drops", "ecn_marks", "ecn_marks_dropped", "ecn_marks_control",
                                  "ecn_remarks", "max_queue_bytes", "mean_queue_bytes"]
    assert ports.num_rows == 2 * 9
    rows = {p["port"]: p for p in ports.to_pylist()}
    down = rows["switch->h0"]
    # Eight TCP senders into one 32 KB port: the aggregator's downlink drops every dropped packet.
    assert down["drops"] == result.summary["packets_dropped"] > 0
    assert sum(p["drops"] for p in rows.values()) == down["drops"]
    assert down["max_queue_bytes"] == result.summary["max_queue_bytes"]
    assert 0 < down["mean_queue_bytes"] < down["max_queue_bytes"]
    assert (rows["h3->switch"]["role"], rows["h3->switch"]["tier"], rows["h3->switch"]["up"]) == ("host", 0, True)
    assert (down["node"], down["peer"], down["role"], down["tier"], down["up"]) == ("switch", "h0", "switch", 1, False)


def test_ports_of_a_fat_tree_show_where_the_hottest_queue_was() -> None:
    # Issue 14's case: host-facing ports are not where a fat tree's traffic queues hardest.
    scenario = {
        "topology": {"kind": "fat-tree", "k": 4},
        "switch": {"buffer": "64KB"},
        "transport": {"protocol": "dctcp"},
        "workload": [{"kind": "poisson", "rate": 20000.0, "stop": "10ms", "size": "100KB"}],
    }
    result = incast.run(scenario)
    ports = result.ports.to_pylist()
    assert {p["role"] for p in ports} == {"host", "edge", "agg", "core"}
    assert len([p for p in ports if p["role"] == "edge" and p["up"]]) == 8 * 2
    switch_ports = [p for p in ports if p["role"] != "host"]
    hottest = max(switch_ports, key=lambda p: p["max_queue_bytes"])
    assert hottest["max_queue_bytes"] == result.summary["max_queue_bytes"]
    # Not a port `queue_sample_hosts` can name (an edge switch's downlink to a host), and most
    # drops happen at such ports too.
    host_facing = [p for p in switch_ports if p["role"] == "edge" and not p["up"]]
    assert hottest not in host_facing, hottest["port"]
    inner_drops = sum(p["drops"] for p in switch_ports if p not in host_facing)
    assert inner_drops > sum(p["drops"] for p in host_facing) > 0
    assert sum(p["drops"] for p in ports) == result.summary["packets_dropped"]
    assert sum(p["ecn_marks"] for p in ports) == result.summary["ecn_marked"]


def test_marks_counted_by_fate_and_payload_sum_over_ports() -> None:
    # A two-tier incast that marks at the ToR uplinks and again at the receiver's downlink, with
    # ns-3's ECN-capable SYNs and ACKs (`ect_control_packets`), which change nothing else.
    def run(ect_control: bool) -> "incast.RunResult":
        return incast.run({
            "topology": {"kind": "two-tier", "racks": 3, "hosts_per_rack": 10, "fabric_rate": "10Gbps"},
            "switch": {"buffer": "40pkts", "ecn_threshold": 5},
            "transport": {"stack": "ns3", "protocol": "dctcp", "mss": 1448, "min_rto": "10ms",
                          "ect_control_packets": ect_control},
            "workload": [{"kind": "flow-burst", "aggregator": 0, "worker_hosts": list(range(10, 30)), "senders": 20,
                          "rounds": 3, "size": "30KB"}],
        })

    on, off = run(True), run(False)
    s = on.summary
    assert s["ecn_marked"] > 0 and s["ecn_marked_dropped"] > 0 and s["ecn_remarked"] > 0
    assert s["ecn_marked_control"] > 0 and off.summary["ecn_marked_control"] == 0
    assert on.flows.drop(["flow_id"]).equals(off.flows.drop(["flow_id"]))
    ports = on.ports.to_pylist()
    for column, total in [("ecn_marks", "ecn_marked"), ("ecn_marks_dropped", "ecn_marked_dropped"),
                          ("ecn_marks_control", "ecn_marked_control"), ("ecn_remarks", "ecn_remarked")]:
        assert sum(p[column] for p in ports) == s[total]  # type: ignore[literal-required]
    # Drops above the threshold are all the drops at a marking port whose buffer exceeds K.
    assert s["ecn_marked_dropped"] <= s["packets_dropped"]


def test_queue_sampling_by_port_pattern_names_each_series() -> None:
    scenario = {
        "topology": {"kind": "two-tier", "racks": 2, "hosts_per_rack": 3},
        "transport": {"protocol": "dctcp"},
        "workload": [{"kind": "flows", "flows": [{"src": 0, "dst": 4, "size": "200KB"}]}],
        "output": {"queue_sample_interval": "100us", "queue_sample_hosts": [4], "queue_sample_ports": ["tor*->fabric"]},
    }
    q = incast.run(scenario).queues
    assert q.column_names[:4] == ["port", "host", "time_s", "queue_bytes"]
    ports = list(dict.fromkeys(q["port"].to_pylist()))
    assert ports == ["tor1->h4", "tor0->fabric", "tor1->fabric"]
    hosts = {p: h for p, h in zip(q["port"].to_pylist(), q["host"].to_pylist())}
    assert hosts == {"tor1->h4": 4, "tor0->fabric": None, "tor1->fabric": None}
    # The flow crosses rack 0's uplink: its queue is sampled there, not only at host downlinks.
    uplink = [b for p, b in zip(q["port"].to_pylist(), q["queue_bytes"].to_pylist()) if p == "tor0->fabric"]
    assert len(uplink) > 1
    scenario["output"] = {"queue_sample_interval": "100us", "queue_sample_ports": ["core*"]}
    with pytest.raises(incast.ScenarioError, match=r"queue_sample_ports\[0\].*matches no port"):
        incast.run(scenario)


def _captured_incast() -> incast.RunResult:
    scenario = burst(senders=8, rounds=2, protocol="dctcp", seed=3)
    scenario["workload"][0]["size"] = "40KB"
    scenario["output"] = {"capture_ports": ["switch->h0"]}
    return incast.run(scenario)


def test_capture_reads_back_with_dpkt_and_matches_the_flow_table(tmp_path: Path) -> None:
    import dpkt

    result = _captured_incast()
    assert result.capture is not None and result.capture.missed == 0 and result.summary["packets_dropped"] > 0
    written = result.save(tmp_path)
    assert tmp_path / "capture.pcap" in written
    payload: dict[int, int] = {}
    repeats: dict[int, int] = {}
    highest: dict[int, int] = {}
    frames = 0
    with open(tmp_path / "capture.pcap", "rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == dpkt.pcap.DLT_EN10MB
        for _, frame in reader:
            frames += 1
            ip = dpkt.ethernet.Ethernet(frame).data
            assert isinstance(ip, dpkt.ip.IP) and ip.dst == bytes([10, 0, 0, 1])
            tcp = ip.data
            size = ip.len - 4 * ip.hl - 4 * tcp.off
            payload[tcp.sport] = payload.get(tcp.sport, 0) + size
            # A segment that starts below the highest sequence number seen is a retransmission.
            if size and tcp.seq < highest.get(tcp.sport, 0):
                repeats[tcp.sport] = repeats.get(tcp.sport, 0) + size
            highest[tcp.sport] = max(highest.get(tcp.sport, 0), tcp.seq + size)
    assert frames == result.capture.packets
    for flow in result.flows.to_pylist():
        sport = 1024 + flow["flow_id"]
        # Every byte crossed the port; a byte it carried twice was resent by the sender.
        assert flow["size_bytes"] <= payload[sport] <= flow["size_bytes"] + flow["retransmitted_bytes"]
        assert repeats.get(sport, 0) <= flow["retransmitted_bytes"]
    assert sum(repeats.values()) > 0, "the port dropped, so some segments crossed it out of order"


def test_capture_opens_in_tshark_without_malformed_packets(tmp_path: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (Debian: apt install tshark)")
    result = _captured_incast()
    result.save(tmp_path)
    run = subprocess.run(["tshark", "-r", str(tmp_path / "capture.pcap"), "-T", "fields", "-e", "tcp.stream",
                          "-Y", "tcp"], capture_output=True, text=True, timeout=120, check=True)
    assert len(set(run.stdout.split())) == result.flows.num_rows, "one TCP stream per flow"
    bad = subprocess.run(["tshark", "-r", str(tmp_path / "capture.pcap"), "-Y", "_ws.malformed"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert bad.stdout.strip() == ""


def _traced(protocol: str) -> incast.RunResult:
    scenario = burst(senders=8, rounds=1, protocol=protocol)
    scenario["workload"][0]["size"] = "200KB"
    scenario["switch"] = {"buffer": "256KB"}  # room to queue past K = 20 packets: ECN cuts, not drops
    scenario["output"] = {"trace_flows": [0, 3], "queue_sample_interval": "100us", "queue_sample_ports": ["switch->*"]}
    return incast.run(scenario)


def test_traces_hold_the_flows_asked_for_at_each_change(tmp_path: Path) -> None:
    result = _traced("d2tcp")
    t = result.traces
    assert t is not None and t.column_names == [
        "flow_id", "time_s", "srtt_s", "rto_s", "cwnd_bytes", "ssthresh_bytes", "alpha", "d2tcp_d", "d2tcp_p",
        "rate_bytes_per_s", "d3_desired_bytes_per_s"]
    assert set(t["flow_id"].to_pylist()) == {0, 3}
    flow0 = [r for r in t.to_pylist() if r["flow_id"] == 0]
    assert all(a != b for a, b in zip(flow0, flow0[1:])), "a row per change"
    assert flow0[0]["cwnd_bytes"] > 0 and flow0[0]["rate_bytes_per_s"] is None
    assert any(r["alpha"] < 1 for r in flow0)
    # D2TCP's d and p appear with its first ECN cut, p = alpha^d of the alpha it cut with.
    cuts = [r for r in flow0 if r["d2tcp_d"] is not None]
    assert cuts and all(0.5 <= r["d2tcp_d"] <= 2 and 0 <= r["d2tcp_p"] <= 1 for r in cuts)
    assert tmp_path / "traces.parquet" in result.save(tmp_path)
    d3 = _traced("d3").traces
    assert d3 is not None and d3["cwnd_bytes"].null_count == d3.num_rows
    assert max(d3["rate_bytes_per_s"].to_pylist()) > 0
    assert incast.run(burst(rounds=1)).traces is None


def test_trace_slowest_traces_the_flows_a_first_run_found_slowest() -> None:
    scenario = {
        "topology": {"kind": "star", "hosts": 5},
        "switch": {"buffer": "64KB"},
        "workload": [{"kind": "flows", "flows": [
            {"src": s, "dst": 0, "size": size} for s, size in [(1, "20KB"), (2, "400KB"), (3, "50KB"), (4, "300KB")]]}],
    }
    plain = incast.run(scenario)
    fct = {r["flow_id"]: r["finish_s"] - r["start_s"] for r in plain.flows.to_pylist()}
    slowest = sorted(fct, key=fct.__getitem__, reverse=True)[:2]
    assert incast.api.slowest_flows(plain.flows, 2) == slowest
    traced = incast.run(scenario, trace_slowest=2, trace_flows=[0])
    assert traced.flows.equals(plain.flows), "tracing changes nothing"
    assert traced.traces is not None and set(traced.traces["flow_id"].to_pylist()) == {0, *slowest}
    with pytest.raises(ValueError, match="trace_flows: flow 9 does not exist"):
        incast.run(scenario, trace_flows=[9])
    with pytest.raises(ValueError, match="trace_slowest"):
        incast.run(scenario, trace_slowest=-1)


def test_plots_draw_a_queue_and_a_window_and_say_what_is_missing() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import incast.plots

    result = _traced("dctcp")
    ax = incast.plots.queue(result, "switch->h0")
    assert ax.get_lines() and ax.get_ylabel() == "queue (KB)"
    ax = incast.plots.window(result, 3)
    assert ax.get_lines() and ax.get_title() == "flow 3"
    with pytest.raises(ValueError, match="flow 5 was not traced; traced: 0, 3"):
        incast.plots.window(result, 5)
    with pytest.raises(ValueError, match="port 'core0->agg0' was not sampled"):
        incast.plots.queue(result, "core0->agg0")
    with pytest.raises(ValueError, match="trace_flows"):
        incast.plots.window(incast.run(burst(rounds=1)), 0)


def test_finished_simulation_cannot_be_reused() -> None:
    sim = incast.api.simulation(small_scenario())
    while not sim.step(1 << 20):
        pass
    sim.finish()
    with pytest.raises(RuntimeError):
        sim.step(1)
    with pytest.raises(RuntimeError):
        sim.finish()


def test_core_rejects_unknown_format() -> None:
    with pytest.raises(ValueError, match="format"):
        _core.Simulation("{}", "yaml")


def test_version() -> None:
    assert incast.__version__ == _core.version()


POISSON_TOML = """\
seed = 4

[topology]
kind = "star"
hosts = 8
link_rate = "10Gbps"

[switch]
buffer = "40pkts"

[transport]
protocol = "dctcp"
min_rto = "1ms"

[[workload]]
kind = "poisson"
rate = 200000.0
size = { dist = "uniform", min = "1KB", max = "50KB" }
stop = "8ms"

[run]
duration = "6ms"
"""


def test_on_flows_streams_the_flow_table_in_batches(tmp_path: Path) -> None:
    """Rows handed over as flows end, then the rest, are the rows of a run that keeps them; the
    result's own table is then empty and the summary unchanged."""
    scenario = write(tmp_path / "poisson.toml", POISSON_TOML)
    whole = incast.run(scenario)
    batches: list = []
    streamed = incast.run(scenario, on_flows=batches.append, chunk_events=5_000)
    assert len(batches) > 3, "several batches during the run, and one at its end"
    assert all(b.schema == flows_schema() and b.num_rows > 0 for b in batches)
    assert streamed.flows.num_rows == 0 and streamed.flows.schema == flows_schema()
    rows = pa.concat_tables(batches)
    assert rows.num_rows == whole.flows.num_rows == whole.summary["flows"]
    assert rows["flow_id"].to_pylist() != sorted(rows["flow_id"].to_pylist()), "in the order flows ended"
    assert rows.sort_by("flow_id").equals(whole.flows)
    keep = lambda s: {k: v for k, v in s.items() if k != "wall_time_s"}  # noqa: E731
    assert keep(streamed.summary) == keep(whole.summary)


def test_on_flows_must_be_callable() -> None:
    with pytest.raises(ValueError, match="on_flows must be callable, not int"):
        incast.run(small_scenario(), on_flows=3)  # type: ignore[arg-type]


def test_partition_cuts_a_leaf_spine_at_its_fabric_links() -> None:
    """`Simulation.partition` (issue 41's groundwork): a part per leaf with its hosts and one per
    spine; the lookahead is the delay of the leaf-spine links, the only links cut."""
    scenario = small_scenario()
    scenario["topology"] = {"kind": "leaf-spine", "racks": 3, "hosts_per_rack": 4, "spines": 2, "link_delay": "2us"}
    part = incast.api.simulation(scenario).partition()
    assert part == {"parts": 5, "lookahead_s": pytest.approx(2e-6), "cut_links": 6, "largest_part_ports": 4 + 4 + 2}
