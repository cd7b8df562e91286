"""Flow completion time slowdown by flow size, as the field reports it since pFabric (SIGCOMM
2013, Figures 9-11): each flow's FCT over its ideal FCT alone on the idle network (the flows
table's `slowdown`, docs/python.md), grouped into size buckets, with the mean, median and 99th
percentile of each. pFabric's buckets are (0, 100 KB], (100 KB, 10 MB] and over 10 MB.

Only finished flows have a slowdown; a transport that leaves flows unfinished would look better
than it is if they were dropped silently, so every bucket also counts its unfinished flows.
Long-lived flows (no size) belong to no bucket."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

if TYPE_CHECKING:
    import pyarrow as pa

#: pFabric's bucket edges in bytes: (0, 100 KB], (100 KB, 10 MB], (10 MB, inf).
PFABRIC_EDGES = (100_000, 10_000_000)


def _label(low: float, high: float) -> str:
    def size(b: float) -> str:
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
            if b >= scale:
                return f"{b / scale:g} {unit}"
        return f"{b:g} B"
    return f"({size(low)}, {size(high)}]" if math.isfinite(high) else f"> {size(low)}"


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values with linear interpolation (numpy's default)."""
    position = q * (len(ordered) - 1)
    lo = math.floor(position)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (position - lo)


def by_size(flows: "pa.Table", edges: Sequence[float] = PFABRIC_EDGES) -> "pa.Table":
    """Slowdown by size bucket of a flows table (`RunResult.flows`, or several runs' tables
    concatenated): one row per bucket (low, high], in order, with `bucket` (a label such as
    "(0 B, 100 KB]"), `low_bytes`, `high_bytes` (inf for the last), `flows` (finished flows),
    `unfinished`, `mean`, `p50` and `p99` of the slowdown (null when the bucket has no finished
    flow). `edges` are the bucket boundaries in bytes, rising and positive."""
    import pyarrow as pa

    bounds = [float(e) for e in edges]
    if any(not math.isfinite(e) or e <= 0 for e in bounds) or any(a >= b for a, b in zip(bounds, bounds[1:])):
        raise ValueError(f"edges: must be positive, finite and rising, got {list(edges)}")
    lows, highs = [0.0, *bounds], [*bounds, math.inf]
    finished: List[List[float]] = [[] for _ in lows]
    unfinished = [0] * len(lows)
    for row in flows.select(["size_bytes", "slowdown"]).to_pylist():
        size, slowdown = row["size_bytes"], row["slowdown"]
        if size is None:
            continue
        k = next(i for i, high in enumerate(highs) if size <= high)
        if slowdown is None:
            unfinished[k] += 1
        else:
            finished[k].append(slowdown)
    rows: List[Dict[str, Any]] = []
    for low, high, values, left in zip(lows, highs, finished, unfinished):
        ordered = sorted(values)
        stat: Dict[str, Optional[float]] = {"mean": None, "p50": None, "p99": None}
        if ordered:
            stat = {"mean": math.fsum(ordered) / len(ordered), "p50": _quantile(ordered, 0.5),
                    "p99": _quantile(ordered, 0.99)}
        rows.append({"bucket": _label(low, high), "low_bytes": low, "high_bytes": high, "flows": len(ordered),
                     "unfinished": left, **stat})
    fields: List["pa.Field[Any]"] = [
        pa.field("bucket", pa.string()), pa.field("low_bytes", pa.float64()), pa.field("high_bytes", pa.float64()),
        pa.field("flows", pa.int64()), pa.field("unfinished", pa.int64()), pa.field("mean", pa.float64()),
        pa.field("p50", pa.float64()), pa.field("p99", pa.float64())]
    schema = pa.schema(fields)
    return pa.Table.from_pylist(rows, schema=schema)
