"""Blocks of docs/results-line.md drawn from PDQ's reproductions: senders supported with
deadlines (`pdq-deadlines`) and mean completion times without (`pdq-fct`)."""

from __future__ import annotations

from typing import Callable, Dict, List

from incast.reproduce.pdq.query_aggregation import LABELS as PDQ_LABELS
from incast.reproduce.pdq.query_aggregation import NETWORKS, SCHEMES
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.seeds import seed_means
from incast.reproduce.verdict import NON_NEGATIVE

PDQ_SENDER_COUNTS = (2, 5, 10, 20, 40)
"""The sender counts the mean-FCT table shows (the report has every one)."""


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
    "pdq-supported": pdq_supported,
    "pdq-mean-fct": pdq_mean_fct,
}
