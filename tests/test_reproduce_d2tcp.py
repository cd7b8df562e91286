"""The D2TCP reproductions' own arithmetic: the settings the ns-3 variant runs under, and how
the map (`d2tcp-map`) derives each cell's deadlines. Their numbers are pinned by the quick runs
(test_reproduce.py); these check what the pins cannot name."""

from __future__ import annotations

from pathlib import Path

import pytest

from incast.reproduce import d2tcp, d2tcp_map
from incast.reproduce.core import Context


def _ctx() -> Context:
    return Context(out=Path("unused"), runs=Path("unused"), quick=True)


def test_printed_setting_is_the_paper_and_its_per_port_sensitivity() -> None:
    main = d2tcp.oldi_scenario(_ctx())
    assert main["switch"] == d2tcp.PAPER_SWITCH
    assert main["transport"] == {"stack": "d3-testbed", "protocol": "d2tcp", "min_rto": "20ms"}
    assert d2tcp.oldi_scenario(_ctx(), sensitivity=True)["switch"] == d2tcp.PER_PORT_SWITCH


def test_ns3_variant_changes_stack_and_queues_and_its_sensitivity_only_the_delayed_acks() -> None:
    main = d2tcp.oldi_scenario(_ctx(), d2tcp.NS3_2012)
    sens = d2tcp.oldi_scenario(_ctx(), d2tcp.NS3_2012, sensitivity=True)
    assert main["switch"] == sens["switch"] == {"buffer": "100pkts", "core_buffer": "100MB", "ecn_threshold": "auto"}
    assert main["transport"] == {"stack": "ns3-2012", "protocol": "d2tcp", "min_rto": "20ms"}
    assert sens["transport"] == {**main["transport"], "delayed_ack": False}
    # Everything else (workload, topology, D3) is the printed setting's.
    printed = d2tcp.oldi_scenario(_ctx())
    assert {k: v for k, v in main.items() if k not in ("switch", "transport")} == \
        {k: v for k, v in printed.items() if k not in ("switch", "transport")}
    assert d2tcp.NS3_2012.sweep("paper-medium") == "d2tcp-ns3-paper-medium"
    assert d2tcp.PRINTED_SETTING.sweep("paper-medium") == "d2tcp-paper-medium"


def test_every_figure_runs_under_both_settings() -> None:
    ids = {r.id for r in (*d2tcp.REPRODUCTIONS, *d2tcp.NS3_REPRODUCTIONS)}
    for name, _, _ in d2tcp.FIGURES:
        assert {f"d2tcp-{name}", f"d2tcp-ns3-{name}"} <= ids


def test_map_idle_completion_adds_the_other_responses_at_line_rate() -> None:
    # 8 responses of 100 KB at 1 Gbps: 7 more responses of 100 KB plus 52 B of headers per
    # 1448 B segment, 5.80 ms, after the first one's own 1 ms.
    t = d2tcp_map.idle_completion_s(0.001, "100KB", 8, "1Gbps")
    assert t == pytest.approx(0.001 + 7 * 100_000 * (1500 / 1448) * 8 / 1e9)
    assert d2tcp_map.idle_completion_s(0.001, "100KB", 1, "10Gbps") == 0.001


def test_map_deadlines_spread_around_slack_times_idle_completion() -> None:
    point = {"slack": 1.5, "t_idle_s": 0.004}
    assert d2tcp_map._deadline(point) == {"dist": "uniform", "min": "3000000ns", "max": "9000000ns"}
