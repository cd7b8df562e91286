"""D3 and RCPdc under sustained load: ten seconds of Poisson arrivals into one 1 Gbps port, the
setting of the `d3-sustained` reproduction (python/incast/reproduce/d3_sustained.py).

The repaired D3 must deliver what is offered at every load up to 0.9; the paper's D3, measured the
same way, stops keeping up (its truncated fair shares waste the link once a backlog forms), which
the reproduction reports and a test here pins at one load, so that a change of either shows."""

from __future__ import annotations

import copy
from typing import Any, Dict

import pytest

from incast.api import run
from incast.reproduce.d3_sustained import KEPT_UP, LINK_BYTES_PER_S, MEAN_SIZE, scenario

ARRIVALS_S = 10.0


def sustained(protocol: str, variant: str, load: float, seed: int = 1) -> Dict[str, Any]:
    s = copy.deepcopy(scenario(ARRIVALS_S))
    s["transport"]["protocol"] = protocol
    s["d3"]["variant"] = variant
    s["workload"][0]["rate"] = load * LINK_BYTES_PER_S / MEAN_SIZE
    s["seed"] = seed
    flows = run(s).flows
    offered = sum(flows["size_bytes"].to_pylist())
    return {
        "delivered_share": sum(flows["delivered_bytes"].to_pylist()) / offered,
        "unfinished": flows["finish_s"].null_count,
        "flows": flows.num_rows,
    }


@pytest.mark.parametrize("protocol", ["rcpdc", "d3"])
@pytest.mark.parametrize("load", [0.5, 0.7, 0.9])
def test_repaired_d3_keeps_up_with_ten_seconds_of_arrivals(protocol: str, load: float) -> None:
    r = sustained(protocol, "repaired", load)
    assert r["flows"] > 0.9 * load * LINK_BYTES_PER_S / MEAN_SIZE * ARRIVALS_S
    assert r["delivered_share"] >= KEPT_UP, r
    assert r["unfinished"] == 0, r


def test_paper_rcpdc_stops_keeping_up_at_load_0_8() -> None:
    # Measured, not a bound we chose: seed 1's backlog passes 125 flows about 6 s in, every fair
    # share then truncates to the base rate, and about half the offered bytes are left behind.
    r = sustained("rcpdc", "paper", 0.8)
    assert r["delivered_share"] < 0.75, r
    assert r["unfinished"] > 1000, r
