"""Blocks of docs/results-line.md drawn from NDP's reproductions: the last flow's completion time of
an incast against N (`ndp-incast`) and the utilization of a permutation (`ndp-permutation`)."""

from __future__ import annotations

import math
from typing import Callable, Dict, List

from incast.reproduce.ndp.settings import LABELS, PROTOCOLS
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.seeds import seed_means
from incast.reproduce.verdict import NON_NEGATIVE


def ndp_incast(r: Reproductions) -> str:
    """Display: the last flow's completion time per sender count and protocol, the ideal, and the
    flows of each TCP variant that suffered a retransmission timeout."""
    m = seed_means(r.table("ndp-incast", "incast"),
                   ["first_ms", "last_ms", "ideal_ms", "paper_ideal_ms", "last_over_ideal", "timeouts",
                    "flows_with_timeouts", "packets_dropped", "packets_resent", "unfinished"],
                   ignore=["flows"])
    rows: List[List[str]] = []
    for n in m.levels("senders"):
        def last(p: str, n: int = n) -> str:
            return cells.number(m.maybe("last_ms", protocol=p, senders=n), "{:.2f}")

        def timed_out(p: str, n: int = n) -> str:
            e = m.maybe("flows_with_timeouts", protocol=p, senders=n)
            return cells.number(e.cut(NON_NEGATIVE) if e is not None else None, "{:.0f}")

        ratio = m.maybe("last_over_ideal", protocol="ndp", senders=n)
        rows.append([str(n), cells.number(m.maybe("ideal_ms", protocol="ndp", senders=n), "{:.2f}"),
                     *(last(p) for p in PROTOCOLS), cells.number(ratio, "{:.3f}"),
                     timed_out("dctcp"), timed_out("tcp")])
    return cells.table(["senders", "ideal (ms)", *(f"{LABELS[p]} last (ms)" for p in PROTOCOLS),
                        "NDP / ideal", "DCTCP flows timed out", "TCP flows timed out"], rows)


def ndp_permutation(r: Reproductions) -> str:
    """Display: mean, slowest, median and fastest flow's throughput per protocol."""
    m = seed_means(r.table("ndp-permutation", "utilization"),
                   ["utilization_pct", "min_gbps", "median_gbps", "max_gbps", "flows_below_half",
                    "slowest_resent_pct", "timeouts"])
    return cells.table(
        ["protocol", "utilization (% of 10 Gbps)", "slowest flow (Gbps)", "median (Gbps)", "fastest (Gbps)",
         "flows under 5 Gbps"],
        [[LABELS[p], cells.number(m.maybe("utilization_pct", protocol=p), "{:.1f}"),
          cells.number(m.maybe("min_gbps", protocol=p), "{:.2f}"),
          cells.number(m.maybe("median_gbps", protocol=p), "{:.2f}"),
          cells.number(m.maybe("max_gbps", protocol=p), "{:.2f}"),
          cells.number(m.maybe("flows_below_half", protocol=p), "{:.0f}")] for p in PROTOCOLS])


def ndp_incast_overhead(r: Reproductions) -> str:
    """Inline: the range over sender counts of NDP's last flow past the optimal, in percent (means
    over seeds)."""
    m = seed_means(r.table("ndp-incast", "incast"), ["last_over_ideal"],
                   ignore=[c for c in r.table("ndp-incast", "incast").column_names
                           if c not in ("seed", "protocol", "senders", "last_over_ideal")])
    shares = [100 * (m.of("last_over_ideal", protocol="ndp", senders=n).mean - 1) for n in m.levels("senders")
              if n > 1]
    return cells.span(shares, "{:.1f}", "%")


def ndp_incast_timeouts(r: Reproductions) -> str:
    """Inline: the sender counts at which some NDP flow timed out (mean over seeds above 0)."""
    m = seed_means(r.table("ndp-incast", "incast"), ["flows_with_timeouts"],
                   ignore=[c for c in r.table("ndp-incast", "incast").column_names
                           if c not in ("seed", "protocol", "senders", "flows_with_timeouts")])
    counts = [str(n) for n in m.levels("senders") if m.of("flows_with_timeouts", protocol="ndp", senders=n).mean > 0]
    return cells.listing(counts) if counts else "none"


def ndp_permutation_utilization(r: Reproductions) -> str:
    """Inline: each protocol's mean throughput as a share of 10 Gbps."""
    m = seed_means(r.table("ndp-permutation", "utilization"), ["utilization_pct"],
                   ignore=["min_gbps", "median_gbps", "max_gbps", "flows_below_half", "slowest_resent_pct",
                           "timeouts"])
    return ", ".join(f"{LABELS[p]} {cells.number(m.maybe('utilization_pct', protocol=p), '{:.1f}', unit='%')}"
                     for p in PROTOCOLS)


def ndp_permutation_fairness(r: Reproductions) -> str:
    """Inline: NDP's slowest flow over its mean flow, the mean over seeds (the report's claim)."""
    rows = [row for row in r.table("ndp-permutation", "utilization").to_pylist() if row["protocol"] == "ndp"]
    ratios = [row["min_gbps"] / (row["utilization_pct"] / 10) for row in rows]
    return f"{math.fsum(ratios) / len(ratios):.3f}"


RENDERERS: Dict[str, Callable[[Reproductions], str]] = {
    "ndp-incast-overhead": ndp_incast_overhead,
    "ndp-incast-timeouts": ndp_incast_timeouts,
    "ndp-permutation-utilization": ndp_permutation_utilization,
    "ndp-permutation-fairness": ndp_permutation_fairness,
    "ndp-incast": ndp_incast,
    "ndp-permutation": ndp_permutation,
}
