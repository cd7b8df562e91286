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
