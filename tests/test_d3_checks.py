"""The D3 quick checks run and point the paper's way (their numbers are compared in the notes)."""

from __future__ import annotations

from incast.reproduce.d3 import checks
from incast.reproduce.d3.microbenchmarks import senders_supported


def test_multi_bottleneck_shares_the_downlink_and_the_uplink() -> None:
    a, b, c, last = checks.multi_bottleneck()
    assert max(a, b, c) - min(a, b, c) <= 0.1 * max(a, b, c)
    assert last > 1.5 * max(a, b, c)
    assert a + b + c + last > 1000  # two bottlenecks: more than one link's worth in total


def test_long_flows_keep_the_queue_short() -> None:
    r = checks.long_flows(5, duration_s=0.05)
    assert r["goodput_gbps"] > 0.8
    assert r["queue_median_kb"] < 10


def test_d3_misses_fewer_deadlines_than_rcpdc() -> None:
    d3 = checks.burst_lateness("d3", seeds=2)
    rcpdc = checks.burst_lateness("rcpdc", seeds=2)
    assert d3["missed"] < rcpdc["missed"]


def test_benchmark_traffic_keeps_long_flows_going_under_d3() -> None:
    r = checks.benchmark_traffic("d3", 500, arrivals_s=0.2)
    assert r["app_throughput"] >= 0.99  # well inside the 2000 flows/s D3 supports in the paper
    assert len(r["long_flow_mbps"]) == 2 and min(r["long_flow_mbps"]) > 100


def test_senders_supported_stops_at_the_first_count_below_the_level() -> None:
    curve = {1: 1.0, 2: 0.99, 3: 0.98, 4: 0.999, 6: 0.96}
    assert senders_supported(curve, 0.99) == 2  # the level is inclusive; 4 recovering does not count
    assert senders_supported(curve, 0.95) == 6
    assert senders_supported(curve, 1.0) == 1 and senders_supported({1: 0.5}, 0.99) == 0


def test_d3_supports_six_senders_at_99_with_loose_deadlines() -> None:
    # Figure 9's measure on the testbed: with a 5 ms floor six D3 senders meet every deadline level.
    assert checks.senders_supported("d3", "30ms", deadline_min="5ms", runs=5, max_senders=6) == (6, 6)


def test_quenching_softens_collapse() -> None:
    # D3 Figure 15's direction: past the collapse point quenching keeps more deadlines.
    plain = checks.benchmark_traffic("d3", 5000, arrivals_s=0.3)
    quenched = checks.benchmark_traffic("d3", 5000, arrivals_s=0.3, quench=True)
    assert quenched["quenched"] > 0 and plain["quenched"] == 0
    assert quenched["app_throughput"] > plain["app_throughput"]


def test_deadline_floor_makes_every_deadline_feasible_on_an_idle_testbed() -> None:
    # The premise of DEADLINE_FLOOR (docs/results-d3.md): one sender meets every deadline.
    for protocol in ("tcp", "d3"):
        assert checks.application_throughput(protocol, 1, deadline_mean="20ms", runs=40) == 1.0


def test_rcpdc_stays_near_ideal_fair_share() -> None:
    rcpdc, ideal = checks.fair_share_reference(20, runs=10)
    assert abs(rcpdc - ideal) < 0.1
