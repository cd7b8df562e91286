"""The D3 quick checks run and point the paper's way (their numbers are compared in the notes)."""

from __future__ import annotations

from incast.experiments import d3_checks


def test_multi_bottleneck_shares_the_downlink_and_the_uplink() -> None:
    a, b, c, last = d3_checks.multi_bottleneck()
    assert max(a, b, c) - min(a, b, c) <= 0.1 * max(a, b, c)
    assert last > 1.5 * max(a, b, c)
    assert a + b + c + last > 1000  # two bottlenecks: more than one link's worth in total


def test_long_flows_keep_the_queue_short() -> None:
    r = d3_checks.long_flows(5, duration_s=0.05)
    assert r["goodput_gbps"] > 0.8
    assert r["queue_median_kb"] < 10


def test_d3_misses_fewer_deadlines_than_rcpdc() -> None:
    d3 = d3_checks.burst_lateness("d3", seeds=2)
    rcpdc = d3_checks.burst_lateness("rcpdc", seeds=2)
    assert 0 <= d3["missed"] < rcpdc["missed"] <= 1


def test_benchmark_traffic_keeps_long_flows_going_under_d3() -> None:
    r = d3_checks.benchmark_traffic("d3", 500, arrivals_s=0.2)
    assert 0.5 < r["app_throughput"] <= 1
    assert len(r["long_flow_mbps"]) == 2 and min(r["long_flow_mbps"]) > 100


def test_senders_supported_is_monotone_in_the_level() -> None:
    at99, at95 = d3_checks.senders_supported("d3", "30ms", deadline_min="5ms", runs=5, max_senders=6)
    assert 0 <= at99 <= at95 <= 6


def test_quenching_softens_collapse() -> None:
    # D3 Figure 15's direction: past the collapse point quenching keeps more deadlines.
    plain = d3_checks.benchmark_traffic("d3", 5000, arrivals_s=0.3)
    quenched = d3_checks.benchmark_traffic("d3", 5000, arrivals_s=0.3, quench=True)
    assert quenched["quenched"] > 0 and plain["quenched"] == 0
    assert quenched["app_throughput"] > plain["app_throughput"]


def test_deadline_floor_makes_every_deadline_feasible_on_an_idle_testbed() -> None:
    # The premise of DEADLINE_FLOOR (docs/results-d3.md): one sender meets every deadline.
    for protocol in ("tcp", "d3"):
        assert d3_checks.application_throughput(protocol, 1, deadline_mean="20ms", runs=40) == 1.0


def test_rcpdc_stays_near_ideal_fair_share() -> None:
    rcpdc, ideal = d3_checks.fair_share_reference(20, runs=10)
    assert 0 < rcpdc <= 1 and 0 < ideal <= 1
    assert abs(rcpdc - ideal) < 0.1
