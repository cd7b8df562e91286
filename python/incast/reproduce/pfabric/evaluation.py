"""Reproductions of pFabric (Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter Transport",
SIGCOMM 2013), Section 5's headline experiment: FCT slowdown by flow size on its 144-host
leaf-spine under Poisson all-to-all web-search and data-mining traffic at loads 0.1 to 0.8, for
pFabric, PDQ, DCTCP and TCP. The settings are those of `incast experiment leaf-spine`
(`incast.reproduce.pfabric.settings`, whose docstring gives the source of each: the public
pFabric-derived simulators, NetSys/simulator and HKUST-SING/PIAS-NS2) with every load from 0.1 to
0.8; slowdown is each flow's completion time over its ideal, its completion time alone on the
idle network, the paper's normalisation (`incast.slowdown`).

The paper's body could not be read (only its abstract is public in the sources reachable here),
so its figures' values are unknown: every claim is the abstract's, quoted, and judged by
direction (pFabric below the others) or against the ideal it names (slowdown 1).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Tuple

from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.figures import Panel, Plot, Series
from incast.reproduce.pfabric import settings
from incast.reproduce.verdict import NON_NEGATIVE, ROUGH, Claim, every, order_claim, ratio_claim
from incast.slowdown import PFABRIC_EDGES, by_size

PROTOCOLS = settings.PROTOCOLS
LABELS = settings.LABELS
OTHERS = tuple(p for p in PROTOCOLS if p != "pfabric")
LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
QUICK_LOADS = (0.2, 0.6)
QUICK_ARRIVALS_MS = 10.0
PROTOCOL = settings.PROTOCOL_KEY
LOAD = settings.LOAD_KEY
SHORT, LONG = 0, 2
"""Indices of (0, 100 KB] and > 10 MB among pFabric's three buckets (`PFABRIC_EDGES`)."""

ABSTRACT = "pFabric's abstract"
NEAR_OPTIMAL = ("\"provides near theoretically optimal flow completion times even at the 99th percentile for "
                "short flows\"")


def _slowdowns(ctx: Context, workload: str) -> Tuple[List[Dict[str, Any]], List[float]]:
    """One row per (protocol, load, bucket) of this seed's runs: finished and unfinished flows,
    mean, median and 99th percentile of the slowdown."""
    loads = QUICK_LOADS if ctx.quick else LOADS
    arrivals = QUICK_ARRIVALS_MS if ctx.quick else settings.ARRIVALS_MS
    scenario = settings.sweep_tree(1, arrivals_ms=arrivals)["scenario"]
    # The stack named, as every reproduction names its own: incast's default may change, these
    # results should not.
    scenario = {**scenario, "transport": {**scenario["transport"], "stack": "linux"},
                "workload": [{**scenario["workload"][0], "size": workload}]}
    result = ctx.sweep(f"pfabric-{workload}", scenario, grid={PROTOCOL: list(PROTOCOLS), LOAD: list(loads)})
    stats = by_size(result.flows(), PFABRIC_EDGES, by=[PROTOCOL, LOAD])
    rows = []
    buckets = 1 + len(PFABRIC_EDGES)
    for i, r in enumerate(stats.to_pylist()):
        rows.append({"protocol": r[PROTOCOL], "load": r[LOAD], "bucket_index": i % buckets, "bucket": r["bucket"],
                     "flows": r["flows"], "unfinished": r["unfinished"], "mean": r["mean"], "p50": r["p50"],
                     "p99": r["p99"]})
    return rows, list(loads)


def _cell(rows: Sequence[Mapping[str, Any]], protocol: str, load: float, bucket: int, stat: str) -> Any:
    for r in rows:
        if (r["protocol"], r["load"], r["bucket_index"]) == (protocol, load, bucket):
            return r[stat]
    raise KeyError((protocol, load, bucket))


def _near_ideal(rows: Sequence[Mapping[str, Any]], loads: Sequence[float], stat: str, what: str) -> Claim:
    """pFabric's short flows within a rough factor of the ideal slowdown 1, at every load."""
    parts: Dict[object, Claim] = {}
    for load in loads:
        value = _cell(rows, "pfabric", load, SHORT, stat)
        parts[f"load {load:g}"] = ratio_claim(
            "", 1.0, value if value is not None else 0.0, tolerance=ROUGH, within=NON_NEGATIVE, fmt="{:.3g}",
            exercised=value is not None, premise="no finished flow of (0, 100 KB] at this load",
            why="pFabric's short flows wait behind more than the ideal's idle network: the slowdown is the "
                "queueing of higher-priority (shorter) flows ahead of them")
    return every(f"pFabric {NEAR_OPTIMAL}: its {what} slowdown of (0, 100 KB] flows is near the ideal, 1, at every "
                 f"load ({ABSTRACT}; 'near' read as a rough magnitude)", "near 1", parts)


def _lowest(rows: Sequence[Mapping[str, Any]], loads: Sequence[float], bucket: int, stat: str, claim: str,
            paper: str, why: str) -> Claim:
    """pFabric's statistic below the lowest of PDQ's, DCTCP's and TCP's, at every load."""
    parts: Dict[object, Claim] = {}
    rest = "lowest of " + ", ".join(LABELS[p] for p in OTHERS)
    for load in loads:
        mine = _cell(rows, "pfabric", load, bucket, stat)
        others = [_cell(rows, p, load, bucket, stat) for p in OTHERS]
        exercised = mine is not None and all(v is not None for v in others)
        values = {"pFabric": mine if exercised else 0.0, rest: min(others) if exercised else 0.0}
        parts[f"load {load:g}"] = order_claim("", paper, values, ["pFabric", rest], within=NON_NEGATIVE,
                                              exercised=exercised, why=why,
                                              premise="a protocol finished no flow of this size at this load")
    return every(claim, paper, parts, why=why)


def _slowdown_figure(rows: Sequence[Mapping[str, Any]], loads: Sequence[float], title: str) -> Plot:
    panels = []
    for bucket, stat, name in settings.PANELS:
        panels.append(Panel(name, "load", "FCT slowdown", yscale="log", series=[
            Series(LABELS[p], {load: _cell(rows, p, load, bucket, stat) for load in loads
                               if _cell(rows, p, load, bucket, stat) is not None}, within=NON_NEGATIVE)
            for p in PROTOCOLS]))
    return Plot(title, panels, panel_size=(4.5, 3.6))


def _slowdown_reproduction(workload: str, figure: str) -> Reproduction:
    def run(ctx: Context) -> Outcome:
        rows, loads = _slowdowns(ctx, workload)
        why_short = "PDQ, DCTCP or TCP finished this load's short flows faster than pFabric (see the table)"
        claims = [
            _near_ideal(rows, loads, "mean", "mean"),
            _near_ideal(rows, loads, "p99", "99th-percentile"),
            _lowest(rows, loads, SHORT, "mean",
                    f"pFabric's mean slowdown of (0, 100 KB] flows is below PDQ's, DCTCP's and TCP's at every load "
                    f"({ABSTRACT}: {NEAR_OPTIMAL}; Section 5 compares it with these three)",
                    "pFabric lowest", why_short),
            _lowest(rows, loads, SHORT, "p99",
                    f"pFabric's 99th-percentile slowdown of (0, 100 KB] flows is below PDQ's, DCTCP's and TCP's at "
                    f"every load ({ABSTRACT}: {NEAR_OPTIMAL})", "pFabric lowest", why_short),
            _lowest(rows, loads, LONG, "mean",
                    f"pFabric's mean slowdown of flows over 10 MB is below PDQ's, DCTCP's and TCP's at every load "
                    f"({ABSTRACT}: \"while still minimizing average flow completion time for long flows\")",
                    "pFabric lowest",
                    "pFabric's long flows wait behind every shorter flow at each port, where DCTCP and TCP share "
                    "the link with them; at the loads where another scheme's long flows do better, the table shows "
                    "by how much"),
        ]
        notes = (f"The 144-host leaf-spine of `incast experiment leaf-spine` (docs/results-leaf-spine.md gives every "
                 f"setting and its source), {workload} flow sizes, Poisson all-to-all arrivals at each load for "
                 f"{QUICK_ARRIVALS_MS if ctx.quick else settings.ARRIVALS_MS:g} ms (the first 10% a warm-up, not "
                 "counted), every run until its last flow finished. The paper's values could not be read (only its "
                 "abstract is available): the claims are its abstract's, judged by direction or against the ideal "
                 "slowdown 1.")
        title = f"pFabric's {figure.lower()}: FCT slowdown, {workload} workload"
        return Outcome(claims=claims, tables={"slowdown": table(rows)}, figure=_slowdown_figure(rows, loads, title),
                       notes=notes)

    return Reproduction(f"pfabric-{workload}", "pFabric",
                        f"{figure}: FCT slowdown against load, {workload} workload, against PDQ, DCTCP and TCP",
                        run, seeds=3)


REPRODUCTIONS = (
    _slowdown_reproduction("web-search", "Evaluation"),
    _slowdown_reproduction("data-mining", "Evaluation"),
)
