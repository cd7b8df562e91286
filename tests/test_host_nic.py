"""`[switch] host_nic`: a host NIC that holds senders back (a real host) or one that is a queue
like a switch port's (the field's simulators), and nothing else about the run changes."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import incast


def scenario(host_nic: str) -> Dict[str, Any]:
    """One DCTCP sender whose initial window (200 segments) is far above the 20-packet port
    buffer: only the NIC's policy decides where the burst waits."""
    return {
        "topology": {"kind": "star", "hosts": 2, "link_rate": "10Gbps", "link_delay": "1us"},
        "switch": {"buffer": "20pkts", "ecn_threshold": 5, "host_nic": host_nic},
        "transport": {"protocol": "dctcp", "initial_window": 200, "min_rto": "1ms"},
        "workload": [{"kind": "flows", "flows": [{"src": 1, "dst": 0, "size": "400KB", "start": "0s"}]}],
    }


def nic(result: incast.RunResult) -> Dict[str, Any]:
    return next(p for p in result.ports.to_pylist() if p["port"] == "h1->switch")


def test_a_backlog_nic_never_drops_or_marks_and_a_switch_like_one_does() -> None:
    backlog = incast.run(scenario("backlog"))
    like_switch = incast.run(scenario("like-switch"))
    assert (nic(backlog)["drops"], nic(backlog)["ecn_marks"]) == (0, 0)
    assert nic(backlog)["max_queue_bytes"] > 20 * 1500
    # The burst meets the NIC's own 20-packet buffer: drops and marks there, none downstream.
    assert nic(like_switch)["drops"] > 0 and nic(like_switch)["ecn_marks"] > 0
    assert nic(like_switch)["max_queue_bytes"] <= 20 * 1500
    assert like_switch.summary["packets_dropped"] == sum(p["drops"] for p in like_switch.ports.to_pylist())
    for r in (backlog, like_switch):
        assert r.flows["delivered_bytes"].to_pylist() == [400_000]


def test_a_switch_like_nic_needs_a_per_port_buffer() -> None:
    s = scenario("like-switch")
    s["switch"] = {"shared_buffer": "4MB", "host_nic": "like-switch"}
    with pytest.raises(incast.ScenarioError, match=r"switch\.host_nic.*per-port"):
        incast.run(s)
    s["switch"] = {"host_nic": "switchy"}
    with pytest.raises(incast.ScenarioError, match=r'switch\.host_nic.*"backlog", "like-switch"'):
        incast.run(s)
