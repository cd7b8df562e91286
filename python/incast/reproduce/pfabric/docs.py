"""Blocks of docs/results-line.md drawn from pFabric's reproductions: its slowdown tables."""

from __future__ import annotations

from typing import Callable, Dict, List

from incast.reproduce.pfabric.evaluation import LABELS, LONG, PROTOCOLS, SHORT
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.seeds import seed_means


def pfabric_slowdown(workload: str) -> Callable[[Reproductions], str]:
    def render(r: Reproductions) -> str:
        rid = f"pfabric-{workload}"
        m = seed_means(r.table(rid, "slowdown"), ["flows", "unfinished", "mean", "p50", "p99"], ignore=["bucket"])
        loads = m.levels("load")
        rows: List[List[str]] = []
        for protocol in PROTOCOLS:
            for load in loads:
                def at(bucket: int, stat: str, spec: str, protocol: str = protocol, load: float = load) -> str:
                    return cells.number(m.maybe(stat, protocol=protocol, load=load, bucket_index=bucket), spec)
                rows.append([LABELS[protocol], f"{load:g}", at(SHORT, "mean", "{:.2f}"), at(SHORT, "p99", "{:.1f}"),
                             at(LONG, "mean", "{:.2f}"), at(SHORT, "unfinished", "{:.0f}")])
        return cells.table(["protocol", "load", "(0, 100 KB] mean", "(0, 100 KB] p99", "> 10 MB mean",
                            "(0, 100 KB] unfinished"], rows)

    render.__doc__ = f"Display: pFabric's slowdown table, {workload}, mean over seeds with its interval."
    return render


RENDERERS: Dict[str, Callable[[Reproductions], str]] = {
    "pfabric-slowdown-web-search": pfabric_slowdown("web-search"),
    "pfabric-slowdown-data-mining": pfabric_slowdown("data-mining"),
}
