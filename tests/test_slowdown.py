"""Ideal FCT and slowdown (`ideal_fct_s`, `slowdown` in the flows table) against values computed by
hand on every topology kind: one 1448 B flow on the `linux` stack (1500 B on the wire, a 60 B SYN
and SYN/ACK first) between hosts in different racks, so that it crosses the whole fabric. The
ideal is the handshake's round trip, then the packet's store-and-forward serialization at every
hop, then the propagation (crates/incast-sim/src/ideal.rs holds the multi-packet cases)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

import incast

US = 1e-6


def ser_us(bytes_: int, gbps: float) -> float:
    return bytes_ * 8 / (gbps * 1e3)


def one_packet_us(rates_gbps: list[float], delay_us: float) -> float:
    """SYN, SYN/ACK (60 B each) and one 1500 B data packet over hops of `rates_gbps`."""
    hops = len(rates_gbps)
    handshake = 2 * (sum(ser_us(60, r) for r in rates_gbps) + hops * delay_us)
    return handshake + sum(ser_us(1500, r) for r in rates_gbps) + hops * delay_us


CASES = [
    # kind, topology keys, src, dst, hand-computed ideal in us
    ("star", {"kind": "star", "hosts": 3, "link_delay": "10us"}, 1, 0, one_packet_us([1, 1], 10)),  # 85.92
    ("d3-testbed", {"kind": "d3-testbed"}, 0, 3, one_packet_us([1, 1, 1, 1], 125)),  # 1551.84
    ("two-tier", {"kind": "two-tier", "racks": 2, "hosts_per_rack": 2, "link_delay": "10us"}, 0, 2,
     one_packet_us([1, 2, 2, 1], 10)),  # fabric 2 x 1 Gbps: 158.88
    ("fat-tree", {"kind": "fat-tree", "k": 4}, 0, 15, one_packet_us([1] * 6, 10)),  # 257.76
    ("leaf-spine", {"kind": "leaf-spine"}, 0, 143, one_packet_us([10, 40, 40, 10], 0.2)),  # 5.64
]


@pytest.mark.parametrize("kind,topology,src,dst,ideal_us", CASES, ids=[c[0] for c in CASES])
def test_ideal_fct_by_hand_on_every_topology(kind: str, topology: Dict[str, Any], src: int, dst: int,
                                             ideal_us: float) -> None:
    scenario = {
        "topology": topology,
        "transport": {"stack": "linux"},
        "workload": [{"kind": "flows", "flows": [{"src": src, "dst": dst, "size": "1448B"}]}],
    }
    flows = incast.run(scenario).flows.to_pylist()
    assert flows[0]["ideal_fct_s"] == pytest.approx(ideal_us * US, rel=1e-9, abs=1e-12)
    # Alone on the network the flow is its own ideal, up to the ACK of the SYN/ACK that leaves
    # just before the data (52 B at the sender's link rate, well under 1%).
    assert 1.0 <= flows[0]["slowdown"] < 1.01


def test_ideal_fct_by_hand_on_a_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph whose hops differ in rate and delay: 25 Gbps and 1 us from the sender, a 5 Gbps,
    3 us link between the switches, 10 Gbps and 2 us to the receiver."""
    (tmp_path / "g.graph").write_text(
        "switch s0 s1\nhost a b\nlink a s0 25Gbps 1us\nlink s0 s1 5Gbps 3us\nlink b s1 10Gbps 2us\n")
    monkeypatch.chdir(tmp_path)
    rates, delay_us = [25, 5, 10], 1 + 3 + 2
    handshake = 2 * (sum(ser_us(60, r) for r in rates) + delay_us)
    # SYN and SYN/ACK: 2 x (0.0192 + 0.096 + 0.048 + 6) us; data: 0.48 + 2.4 + 1.2 + 6 us.
    ideal_us = handshake + sum(ser_us(1500, r) for r in rates) + delay_us
    scenario = {
        "topology": {"kind": "graph", "file": "g.graph"},
        "transport": {"stack": "linux"},
        "workload": [{"kind": "flows", "flows": [{"src": 0, "dst": 1, "size": "1448B"}]}],
    }
    flows = incast.run(scenario).flows.to_pylist()
    assert ideal_us == pytest.approx(22.4064)
    assert flows[0]["ideal_fct_s"] == pytest.approx(ideal_us * US, rel=1e-9, abs=1e-12)
    assert 1.0 <= flows[0]["slowdown"] < 1.01


def test_slowdown_grows_with_contention_and_is_null_for_unfinished_flows() -> None:
    scenario = {
        "topology": {"kind": "star", "hosts": 9, "link_delay": "10us"},
        "transport": {"stack": "linux", "protocol": "dctcp"},
        "switch": {"ecn_threshold": 20},
        "workload": [{"kind": "flow-burst", "aggregator": 0, "senders": 8, "size": "100KB", "rounds": 1},
                     {"kind": "long-flows", "pairs": [[1, 2]]}],
        "run": {"duration": "50ms"},
    }
    flows = incast.run(scenario).flows.to_pylist()
    burst = [f for f in flows if f["workload"] == 0]
    long_flow = [f for f in flows if f["workload"] == 1][0]
    # Eight 100 KB responses share the aggregator's 1 Gbps link: the last needs about 8 x its
    # ideal, and none beats it.
    assert all(f["slowdown"] >= 1.0 for f in burst)
    assert max(f["slowdown"] for f in burst) > 4
    assert long_flow["ideal_fct_s"] is None and long_flow["slowdown"] is None


def test_slowdown_by_size_buckets_count_finished_and_unfinished_flows() -> None:
    import pyarrow as pa

    from incast.slowdown import by_size

    flows = pa.table({
        "size_bytes": pa.array([50_000, 100_000, 100_001, 5_000_000, 20_000_000, None, 60_000], pa.uint64()),
        "slowdown": [1.0, 3.0, 2.0, 4.0, None, None, 2.0],
    })
    t = by_size(flows).to_pylist()
    assert [r["bucket"] for r in t] == ["(0 B, 100 KB]", "(100 KB, 10 MB]", "> 10 MB"]
    # (0, 100 KB]: 1, 3 and 2 (100,000 B is inside), mean 2, median 2, p99 by linear interpolation 2.98.
    assert (t[0]["flows"], t[0]["unfinished"], t[0]["mean"], t[0]["p50"]) == (3, 0, 2.0, 2.0)
    assert t[0]["p99"] == pytest.approx(2.98)
    assert (t[1]["flows"], t[1]["mean"]) == (2, 3.0)
    # The 20 MB flow did not finish: counted, not averaged; the long-lived flow is in no bucket.
    assert (t[2]["flows"], t[2]["unfinished"], t[2]["mean"]) == (0, 1, None)
    assert [r["bucket"] for r in by_size(flows, edges=[1e6]).to_pylist()] == ["(0 B, 1 MB]", "> 1 MB"]
    with pytest.raises(ValueError, match="edges"):
        by_size(flows, edges=[10, 5])


def test_run_prints_slowdown_by_size_on_request(tmp_path: Path) -> None:
    from conftest import incast as run_cli

    proc = run_cli("run", "examples/leaf-spine-web-search.toml", "--out", str(tmp_path / "out"), "--slowdown",
                   cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].split()[-1] == "slowdown"
    assert [line.split("]")[0].strip() + "]" for line in lines[2:4]] == ["(0 B, 100 KB]", "(100 KB, 10 MB]"]
    assert lines[4].strip().startswith("> 10 MB")


def grouped_flows(measured: bool = True) -> Any:
    """Two protocols over two seeds, with what `by_size` must leave out: a flow marked unmeasured
    in the first bucket (slowdown 100, which would move every statistic), an unmeasured unfinished
    one over 10 MB and a long-lived one."""
    import pyarrow as pa

    table = pa.table({
        "proto": ["a", "a", "a", "a", "b", "b", "b", "b", "a"],
        "seed": pa.array([1, 2, 1, 2, 1, 2, 1, 2, 1], pa.uint64()),
        "size_bytes": pa.array([50_000, 60_000, 70_000, 200_000, 10_000, 20_000, 30_000, 20_000_000, None],
                               pa.uint64()),
        "slowdown": [1.0, 3.0, 100.0, None, 2.0, 4.0, 9.0, None, None],
        "measured": [True, True, False, True, True, True, True, False, True],
    })
    return table if measured else table.drop_columns(["measured"])


def stats(row: Dict[str, Any]) -> tuple:
    return row["flows"], row["unfinished"], row["mean"], row["p50"], row["p99"]


def test_slowdown_by_group_and_size_leaves_out_unmeasured_flows() -> None:
    import pyarrow as pa

    from incast.slowdown import by_size

    t = by_size(grouped_flows(), by=["proto"])
    assert t.column_names[:2] == ["proto", "bucket"] and t.schema.field("proto").type == pa.string()
    rows = t.to_pylist()
    assert [(r["proto"], r["bucket"]) for r in rows] == [
        (p, b) for p in "ab" for b in ("(0 B, 100 KB]", "(100 KB, 10 MB]", "> 10 MB")]
    # a: slowdowns 1 and 3 (not the unmeasured 100): mean 2, p99 = 1 + 0.99 x 2; the 200 KB flow unfinished.
    assert stats(rows[0]) == pytest.approx((2, 0, 2.0, 2.0, 2.98))
    assert stats(rows[1]) == (0, 1, None, None, None)
    # b: 2, 4 and 9: mean 5, median 4, p99 = 4 + 0.98 x 5; the unmeasured 20 MB flow is not unfinished.
    assert stats(rows[3]) == pytest.approx((3, 0, 5.0, 4.0, 8.9))
    assert stats(rows[5]) == (0, 0, None, None, None)

    # Each seed apart: the spread that pooling hides.
    per_seed = by_size(grouped_flows(), by=["proto", "seed"]).to_pylist()
    first = [((r["proto"], r["seed"]), *stats(r)) for r in per_seed if r["bucket"] == "(0 B, 100 KB]"]
    assert [row[:3] for row in first] == [(("a", 1), 1, 0), (("a", 2), 1, 0), (("b", 1), 2, 0), (("b", 2), 1, 0)]
    assert [row[3:] for row in first] == [(1.0, 1.0, 1.0), (3.0, 3.0, 3.0), (5.5, 5.5, pytest.approx(8.93)),
                                          (4.0, 4.0, 4.0)]

    # Without the column every flow counts.
    rows = by_size(grouped_flows(measured=False), by=["proto"]).to_pylist()
    assert (rows[0]["flows"], rows[0]["mean"], rows[5]["unfinished"]) == (3, pytest.approx(104 / 3), 1)
    with pytest.raises(ValueError, match="by: no column 'protocol'"):
        by_size(grouped_flows(), by=["protocol"])


TINY_SWEEP = """\
scenario = "base.toml"
seeds = [5, 9]

[vary.grid]
"workload.0.senders" = [2, 3]
"""


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Four points of a few milliseconds: 2 and 3 senders answering twice, over two seeds."""
    from incast.sweep import run_sweep

    from conftest import SMALL_TOML, write

    directory = tmp_path_factory.mktemp("sweep")
    write(directory / "base.toml", SMALL_TOML)
    return run_sweep(write(directory / "s.toml", TINY_SWEEP), directory / "out", jobs=2)


def test_sweep_slowdown_pools_seeds_unless_asked(tiny_sweep: Any) -> None:
    import statistics

    flows = tiny_sweep.flows().to_pylist()
    rows = tiny_sweep.slowdown().to_pylist()
    assert [(r["workload.0.senders"], r["bucket"]) for r in rows] == [
        (n, b) for n in (2, 3) for b in ("(0 B, 100 KB]", "(100 KB, 10 MB]", "> 10 MB")]
    for row in rows[::3]:
        n = row["workload.0.senders"]
        done = [f["slowdown"] for f in flows if f["workload.0.senders"] == n and f["slowdown"] is not None]
        # n senders x 2 rounds x 2 seeds, every one 20 KB or less.
        assert row["flows"] + row["unfinished"] == n * 2 * 2
        assert row["flows"] == len(done)
        assert row["mean"] == pytest.approx(statistics.mean(done))
        assert row["p99"] == pytest.approx(statistics.quantiles(done, n=100, method="inclusive")[98])

    per_seed = tiny_sweep.slowdown(by=["workload.0.senders", "seed"]).to_pylist()
    counts = {(r["workload.0.senders"], r["seed"]): r["flows"] + r["unfinished"] for r in per_seed[::3]}
    assert counts == {(2, 5): 4, (2, 9): 4, (3, 5): 6, (3, 9): 6}
    with pytest.raises(ValueError, match="it varies workload.0.senders over seeds"):
        tiny_sweep.slowdown(by=["senders"])


def test_sweep_prints_slowdown_per_combination_on_request(tiny_sweep: Any, capsys: pytest.CaptureFixture) -> None:
    from incast.cli import main

    assert main(["sweep", str(tiny_sweep.out.parent / "s.toml"), "--out", str(tiny_sweep.out), "--slowdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("4 points: 0 run, 4 already done")
    assert lines[1].split()[0] == "workload.0.senders" and lines[1].split()[-1] == "slowdown"
    table = [line.split() for line in lines[2:]]
    assert [(cells[0], cells[1:4]) for cells in table[::3]] == [("2", ["(0", "B,", "100"]), ("3", ["(0", "B,", "100"])]
    expected = tiny_sweep.slowdown().to_pylist()
    assert [int(cells[5]) for cells in table] == [r["flows"] for r in expected]
    assert len(table) == 6


def test_the_measurement_window_marks_flows_and_the_summaries_leave_them_out() -> None:
    """Flows arriving before `warmup` or from `measure_until` on run but are marked unmeasured:
    the summary's deadline counts and `by_size` skip them, and the flags follow the start times."""
    from incast.slowdown import by_size

    scenario = {
        "topology": {"kind": "star", "hosts": 8, "link_rate": "10Gbps", "link_delay": "1us"},
        "transport": {"protocol": "dctcp"},
        "workload": [{"kind": "poisson", "rate": 20_000.0, "size": "20KB", "deadline": "50ms", "stop": "10ms"}],
        "run": {"warmup": "2ms", "measure_until": "8ms"},
    }
    result = incast.run(scenario)
    flows = result.flows.to_pylist()
    expected = [0.002 <= f["start_s"] < 0.008 for f in flows]
    assert [f["measured"] for f in flows] == expected
    assert 0 < sum(expected) < len(flows)
    s = result.summary
    assert s["flows_measured"] == sum(expected)
    assert s["deadline_flows"] == sum(expected)
    finished_in_window = sum(1 for f, m in zip(flows, expected) if m and f["finish_s"])
    assert by_size(result.flows)["flows"].to_pylist()[0] == finished_in_window
    assert result.slowdown().equals(by_size(result.flows))
    unwindowed = incast.run({**scenario, "run": {}})
    assert unwindowed.summary["flows_measured"] == unwindowed.summary["flows"] == len(flows)
