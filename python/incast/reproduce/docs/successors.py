"""Blocks of docs/results-line.md drawn from the successors' reproductions: pFabric's slowdown
tables (`pfabric-*`) and PDQ's query-aggregation results (`pdq-*`)."""

from __future__ import annotations

from typing import Callable, Dict, List

from incast.reproduce.docs import cells
from incast.reproduce.docs.committed import Reproductions
from incast.reproduce.docs.seeds import seed_means
from incast.reproduce.pdq import LABELS as PDQ_LABELS
from incast.reproduce.pdq import NETWORKS, SCHEMES
from incast.reproduce.pfabric import LABELS, LONG, PROTOCOLS, SHORT
from incast.reproduce.verdict import NON_NEGATIVE

PDQ_SENDER_COUNTS = (2, 5, 10, 20, 40)
"""The sender counts the mean-FCT table shows (the report has every one)."""


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


def pdq_supported(r: Reproductions) -> str:
    """Display: senders supported at 99% application throughput per round trip and scheme."""
    m = seed_means(r.table("pdq-deadlines", "supported"), ["senders_99"])
    return cells.table(["round trip", *(PDQ_LABELS[s] for s in SCHEMES)],
                       [[name, *(cells.number(m.maybe("senders_99", network=name, scheme=s), "{:.1f}")
                                 for s in SCHEMES)] for name in NETWORKS.values()])


def pdq_mean_fct(r: Reproductions) -> str:
    """Display: mean FCT per round trip, sender count and scheme, and PDQ's saving against RCP."""
    m = seed_means(r.table("pdq-fct", "mean_fct"), ["mean_fct_ms", "unfinished", "packets_dropped"],
                   ignore=["link_delay"])
    rows: List[List[str]] = []
    for name in NETWORKS.values():
        for n in PDQ_SENDER_COUNTS:
            def fct(s: str, name: str = name, n: int = n) -> str:
                return cells.number(m.maybe("mean_fct_ms", network=name, scheme=s, senders=n), "{:.2f}")
            dropped = m.maybe("packets_dropped", network=name, scheme="pdq", senders=n)
            drops = cells.number(dropped.cut(NON_NEGATIVE) if dropped is not None else None, "{:.0f}")
            rows.append([name, str(n), *(fct(s) for s in SCHEMES), drops])
    return cells.table(["round trip", "senders", *(f"{PDQ_LABELS[s]} (ms)" for s in SCHEMES),
                        "PDQ's drops per run"], rows)


RENDERERS: Dict[str, Callable[[Reproductions], str]] = {
    "pfabric-slowdown-web-search": pfabric_slowdown("web-search"),
    "pfabric-slowdown-data-mining": pfabric_slowdown("data-mining"),
    "pdq-supported": pdq_supported,
    "pdq-mean-fct": pdq_mean_fct,
}
