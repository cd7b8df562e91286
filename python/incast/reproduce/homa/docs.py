"""Blocks of docs/results-line.md drawn from Homa's reproduction: the 99th-percentile slowdown of
each size bucket of W1-W5 at 80% load, per transport, beside the authors' numbers
(`homa-slowdown`)."""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from incast.reproduce.homa import settings
from incast.reproduce.homa.settings import LABELS, PROTOCOLS
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.seeds import SeedMeans, seed_means
from incast.reproduce.verdict import NON_NEGATIVE, Estimate

_KEYS = ["protocol", "workload", "bucket_index", "bucket", "high_bytes"]


def _means(r: Reproductions) -> SeedMeans:
    t = r.table("homa-slowdown", "slowdown")
    return seed_means(t, ["p99", "mean", "messages", "unfinished"],
                      ignore=[c for c in t.column_names if c not in (*_KEYS, "seed", "p99", "mean", "messages",
                                                                      "unfinished")])


def _cut(e: Optional[Estimate]) -> Optional[Estimate]:
    """A slowdown's interval kept at 0 or above (`verdict.Estimate.of` says why)."""
    return e.cut(NON_NEGATIVE) if e is not None else None


def _range(bracket: Optional[Tuple[float, float]]) -> str:
    return "" if bracket is None else f"{bracket[0]:.2f}-{bracket[1]:.2f}"


def homa_slowdown(r: Reproductions) -> str:
    """Display: per workload and size bucket, each transport's 99th-percentile slowdown (mean over
    seeds with its interval), the authors' range for Homa, pFabric and (W5) NDP, and the measured
    messages per seed."""
    m = _means(r)
    rows: List[List[str]] = []
    for w in settings.WORKLOADS:
        cuts = settings.buckets(w)
        for i, b in enumerate(cuts):
            at = {"workload": w, "bucket_index": i, "bucket": b.label, "high_bytes": b.high}
            ndp: Sequence[Tuple[float, float]] = settings.NDP_P99.get(w, ())
            messages = m.maybe("messages", protocol="homa", **at)
            rows.append([w, b.label, *(cells.number(_cut(m.maybe("p99", protocol=p, **at)), "{:.2f}")
                                       for p in PROTOCOLS),
                         _range((min(b.homa_p99), max(b.homa_p99))), _range(settings.PFABRIC_P99[w][i]),
                         _range(ndp[i] if ndp else None), cells.number(messages, "{:.0f}")])
    return cells.table(["workload", "size bucket", *(f"{LABELS[p]} p99" for p in PROTOCOLS), "authors' Homa",
                        "authors' pFabric", "authors' NDP", "messages per seed"], rows)


def _ratios(r: Reproductions, over: str, under: str) -> List[float]:
    """`over`'s 99th percentile over `under`'s, per workload and bucket (means over seeds)."""
    m = _means(r)
    out = []
    for w in settings.WORKLOADS:
        for i, b in enumerate(settings.buckets(w)):
            at = {"workload": w, "bucket_index": i, "bucket": b.label, "high_bytes": b.high}
            a, c = m.maybe("p99", protocol=over, **at), m.maybe("p99", protocol=under, **at)
            if a is not None and c is not None:
                out.append(a.mean / c.mean)
    return out


def homa_over_pfabric(r: Reproductions) -> str:
    """Inline: the range over every workload and bucket of Homa's 99th percentile over pFabric's."""
    return cells.span(_ratios(r, "homa", "pfabric"), "{:.2f}")


def ndp_over_homa(r: Reproductions) -> str:
    """Inline: the range over every workload and bucket of NDP's 99th percentile over Homa's."""
    return cells.span(_ratios(r, "ndp", "homa"), "{:.1f}")


def ndp_w5(r: Reproductions) -> str:
    """Inline: NDP's 99th percentiles over W5's buckets, and the authors' (means over seeds)."""
    m = _means(r)
    ours = [e.mean for i, b in enumerate(settings.buckets("W5"))
            if (e := m.maybe("p99", protocol="ndp", workload="W5", bucket_index=i, bucket=b.label,
                             high_bytes=b.high)) is not None]
    theirs = [v for bracket in settings.NDP_P99["W5"] for v in bracket]
    return f"{cells.span(ours, '{:.1f}')} where the authors' ranges span {cells.span(theirs, '{:.1f}')}"


RENDERERS: Dict[str, Callable[[Reproductions], str]] = {
    "homa-slowdown": homa_slowdown,
    "homa-over-pfabric": homa_over_pfabric,
    "homa-ndp-ratio": ndp_over_homa,
    "homa-ndp-w5": ndp_w5,
}
