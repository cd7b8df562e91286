"""The crosscheck's bookkeeping without ns-3: flows of the D2TCP fabric's cases, results saved and
loaded again, and the report's judgement of a synthetic pair of results (a quantile between two
clusters of flow times, a marks gap at one group of ports)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List

from incast.crosscheck import CASES, MARK_KINDS, flows_for, load_results, port_groups, save_results, summarize
from incast.crosscheck.report import targets_met, write_report


def _case(name: str) -> Any:
    return next(c for c in CASES if c.name == name)


def test_d2tcp_fabric_flows_are_the_trees_answering_their_parents() -> None:
    periodic, poisson = _case("dctcp-d2tcp-fabric-10ms"), _case("dctcp-d2tcp-fabric-poisson")
    flows = flows_for(periodic, 2)
    # 5 applications x 5 trees x 20 leaves, every 10 ms.
    assert len(flows) == 2 * 500 and {f["start_ns"] for f in flows} == {0, 10_000_000}
    parents = {f["dst"] for f in flows}
    leaves = {f["src"] for f in flows}
    assert len(parents) == 25 and len(leaves) == 500 and not parents & leaves
    assert {f["size"] for f in flows} == {2_000, 6_000, 10_000, 14_000, 18_000}
    # Each leaf sends to one parent, and NewReno's twin answers the same flows.
    assert len({(f["src"], f["dst"]) for f in flows}) == 500
    assert flows_for(_case("newreno-d2tcp-fabric-10ms"), 2) == flows
    # Poisson queries (trees drawn from a stream of their own): each query all of a tree's leaves
    # at one instant, 10 ms apart on average.
    q = flows_for(poisson, 50)
    assert len({f["dst"] for f in q}) == 25 and len({(f["src"], f["dst"]) for f in q}) == 500
    assert len({(f["src"], f["start_ns"]) for f in q}) == len(q) and 20_000 < len(q) < 30_000
    assert all(f["start_ns"] < 500_000_000 for f in q)


def _result(name: str, ns3_fct: List[float], incast_fct: List[float],
            marks: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
    flows = [{"src": i, "dst": 0, "size": 1000, "start_ns": 0, "deadline_ns": 20_000_000} for i in range(len(ns3_fct))]
    out: Dict[str, Any] = {"case": asdict(_case(name)), "variants": {}, "agreement": {
        "median_abs_rel_diff": 0.0, "within_10pct": 1.0, "fct_correlation": 1.0, "deadline_agreement": 1.0}}
    for sim, fct in (("ns3", ns3_fct), ("incast", incast_fct)):
        ports = {"tor0->h0": {**marks[sim], "drops": marks[sim]["marked_then_dropped"]},
                 "fabric->tor0": {k: 10 for k in (*MARK_KINDS, "drops")}}
        totals = {k: sum(p[k] for p in ports.values()) for k in MARK_KINDS}
        out[sim] = summarize(flows, [x / 1e3 for x in fct], [0 if x < 10 else 1 for x in fct], [0] * len(fct),
                             totals["marked_then_dropped"], totals)
        out[f"{sim}_fct_ms"] = fct
        out.setdefault("ports", {})[sim] = port_groups(ports)
    out["ns3_detail"] = {"cwr_from_loss": 3, "cwr_from_recovery": 0}
    out["wall_s"] = out["cpu_s"] = {"ns3": 1.0, "incast": 0.01}
    return out


def test_report_explains_a_quantile_between_clusters_and_locates_a_marks_gap(tmp_path: Path) -> None:
    same = {"first_data": 100, "first_control": 5, "remarks": 0, "marked_then_dropped": 20}
    more = {**same, "first_data": 130}
    # 51 of 100 flows under 5 ms in ns-3, 49 in incast: the medians fall in different clusters.
    ns3 = [2.0] * 51 + [12.0] * 49
    mine = [2.0] * 49 + [12.0] * 51
    first = _result("dctcp-d2tcp-fabric-poisson", ns3, mine, {"ns3": same, "incast": same})
    second = _result("dctcp-two-tier-30", ns3, ns3, {"ns3": same, "incast": more})
    doc = {"rounds": 2, "quick": True, "settings": _settings(), "results": [first, second]}
    assert not targets_met(first) and first["incast"]["fct_p50_ms"] == 12.0
    assert not targets_met(second) and second["incast"]["marks"] == 140
    save_results(tmp_path, doc)
    assert load_results(tmp_path) == doc
    write_report(tmp_path, doc)
    report = (tmp_path / "report.md").read_text()
    assert "**0 of 2 cases meet the targets**" in report
    assert ("dctcp-d2tcp-fabric-poisson, p50: ns-3's is 2.00 ms, incast's 12.00 ms, and 0 of ns-3's and 0 of "
            "incast's 100 flows finish between the two: 51.0% of ns-3's flows and 49.0% of incast's finish by "
            "7.0 ms") in report
    assert "dctcp-two-tier-30, marks: the difference (+30 first marks on data) is at the ports to hosts" in report
    assert "| dctcp-two-tier-30 | 100 / 100 | 0 / 0 | 0 / 0 |" not in report  # clusters: 51 under 5 ms
    assert "| dctcp-two-tier-30 | 51 / 51 | 0 / 0 | 49 / 49 |" in report
    assert (tmp_path / "histogram.png").read_bytes().startswith(b"\x89PNG")


def _settings() -> Dict[str, Any]:
    from incast.crosscheck import settings

    return {**settings(), "ns3_version": "test"}
