"""D3 and RCPdc under sustained load: ten seconds of Poisson arrivals into one 1 Gbps port, the
setting of the `d3-sustained` reproduction (python/incast/reproduce/d3/sustained.py).

The repaired D3 must deliver what is offered at every load up to 0.9, for RCPdc and for D3 hosts
whose flows have no deadline; with deadlines and without quenching D3 keeps up to 0.8 (beyond,
its late flows pursue their deadlines and hold the port, as the paper says of hosts that "pursue
intractable deadlines"). The paper's D3, measured the same way, stops keeping up (its truncated
fair shares waste the link once a backlog forms): the reproduction reports it, and a test here
pins it at one load, so that a change of either shows."""

from __future__ import annotations

import copy
from typing import Any, Dict

import pytest

from incast.api import run
from incast.reproduce.d3.sustained import KEPT_UP, LINK_BYTES_PER_S, MEAN_SIZE, scenario

ARRIVALS_S = 10.0


def sustained(protocol: str, variant: str, load: float, *, deadlines: bool = True,
              arrivals_s: float = ARRIVALS_S) -> Dict[str, Any]:
    s = copy.deepcopy(scenario(arrivals_s))
    s["transport"]["protocol"] = protocol
    s["d3"]["variant"] = variant
    s["workload"][0]["rate"] = load * LINK_BYTES_PER_S / MEAN_SIZE
    if not deadlines:
        del s["workload"][0]["deadline"]
    flows = run(s).flows
    offered = sum(flows["size_bytes"].to_pylist())
    return {
        "delivered_share": sum(flows["delivered_bytes"].to_pylist()) / offered,
        "unfinished": flows["finish_s"].null_count,
        "flows": flows.num_rows,
    }


def _kept_up(r: Dict[str, Any], load: float, arrivals_s: float = ARRIVALS_S) -> None:
    assert r["flows"] > 0.9 * load * LINK_BYTES_PER_S / MEAN_SIZE * arrivals_s
    assert r["delivered_share"] >= KEPT_UP, r
    assert r["unfinished"] == 0, r


@pytest.mark.parametrize("load", [0.5, 0.7, 0.9])
def test_repaired_rcpdc_keeps_up_with_ten_seconds_of_arrivals(load: float) -> None:
    _kept_up(sustained("rcpdc", "repaired", load), load)


@pytest.mark.parametrize("load", [0.5, 0.7, 0.9])
def test_repaired_d3_without_deadlines_keeps_up_with_ten_seconds_of_arrivals(load: float) -> None:
    _kept_up(sustained("d3", "repaired", load, deadlines=False), load)


@pytest.mark.parametrize("variant", ["paper", "repaired"])
def test_d3_with_deadlines_keeps_up_at_load_0_8(variant: str) -> None:
    _kept_up(sustained("d3", variant, 0.8), 0.8)


def test_paper_rcpdc_stops_keeping_up_at_load_0_9() -> None:
    # Measured, not a bound we chose: the backlog passes 125 flows within the first second, every
    # fair share then truncates to the base rate, and most offered bytes are left behind.
    r = sustained("rcpdc", "paper", 0.9, arrivals_s=3.0)
    assert r["delivered_share"] < 0.5, r
    assert r["unfinished"] > 1000, r
