"""Flow completion time slowdown by flow size, as the field reports it since pFabric (SIGCOMM
2013, Figures 9-11): each flow's FCT over its ideal FCT alone on the idle network (the flows
table's `slowdown`, docs/python.md), grouped into size buckets, with the mean, median and 99th
percentile of each. pFabric's buckets are (0, 100 KB], (100 KB, 10 MB] and over 10 MB.

Only finished flows have a slowdown; a transport that leaves flows unfinished would look better
than it is if they were dropped silently, so every bucket also counts its unfinished flows.
Long-lived flows (no size) belong to no bucket, and neither do flows the run marks as outside
its measurement (`measured` false: started in the warm-up or after the window)."""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from incast.stats import quantiles
from incast.units import bytes_

if TYPE_CHECKING:
    import pyarrow as pa

#: pFabric's bucket edges in bytes: (0, 100 KB], (100 KB, 10 MB], (10 MB, inf).
PFABRIC_EDGES = (100_000, 10_000_000)

#: Buckets of `log_edges` by default: fine enough to show where a curve bends, coarse enough
#: that each bucket of a few thousand flows still has a meaningful 99th percentile.
LOG_BUCKETS = 16


def _label(low: float, high: float) -> str:
    return f"({bytes_(low)}, {bytes_(high)}]" if math.isfinite(high) else f"> {bytes_(low)}"


def _stats(values: List[float]) -> Dict[str, Optional[float]]:
    """`mean`, `p50` and `p99` of one bucket's slowdowns (quantiles `incast.stats.LINEAR`); all
    None for a bucket without any."""
    if not values:
        return {"mean": None, "p50": None, "p99": None}
    p50, p99 = quantiles(values, (0.5, 0.99))
    return {"mean": math.fsum(values) / len(values), "p50": p50, "p99": p99}


def _bounds(edges: Sequence[float]) -> List[float]:
    bounds = [float(e) for e in edges]
    if any(not math.isfinite(e) or e <= 0 for e in bounds) or any(a >= b for a, b in zip(bounds, bounds[1:])):
        raise ValueError(f"edges: must be positive, finite and rising, got {list(edges)}")
    return bounds


def _group_key(values: Tuple[Any, ...]) -> Tuple[Tuple[bool, Any], ...]:
    # Nulls sort last instead of failing to compare with the column's values.
    return tuple((v is None, v) for v in values)


def by_size(flows: "pa.Table", edges: Sequence[float] = PFABRIC_EDGES, *, by: Sequence[str] = ()) -> "pa.Table":
    """Slowdown by size bucket of a flows table (`RunResult.flows`, several runs' tables
    concatenated, or a sweep's `SweepResult.flows()`): one row per bucket (low, high], in order,
    with `bucket` (a label such as "(0 B, 100 KB]"), `low_bytes`, `high_bytes` (inf for the
    last), `flows` (finished flows), `unfinished`, `mean`, `p50` and `p99` of the slowdown (null
    when the bucket has no finished flow). `edges` are the bucket boundaries in bytes, rising and
    positive.

    `by` names columns to group on first, such as a sweep's varied keys: then there is one row
    per group and bucket, the group's values in front, groups in ascending order (nulls last),
    every bucket of every group present even when empty so that groups line up. Whatever `by`
    leaves out is pooled: grouping a sweep's flows by its varied keys pools the seeds, adding
    "seed" to `by` gives each seed its own rows (the spread between seeds).

    Flows whose `measured` is false (started in a warm-up, or after the measurement window) are
    left out, neither finished nor unfinished; a table without that column counts every flow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    bounds = _bounds(edges)
    by = list(by)
    missing = [name for name in by if name not in flows.column_names]
    if missing:
        raise ValueError(f"by: no column {', '.join(map(repr, missing))} in the flows table; "
                         f"it has {', '.join(flows.column_names)}")
    if "measured" in flows.column_names:
        # A null `measured` says nothing against the flow, so it is kept.
        measured = pc.field("measured")
        flows = flows.filter(measured | measured.is_null())
    lows, highs = [0.0, *bounds], [*bounds, math.inf]
    finished: Dict[Tuple[Any, ...], List[List[float]]] = {}
    unfinished: Dict[Tuple[Any, ...], List[int]] = {}
    columns = [flows[name].to_pylist() for name in (*by, "size_bytes", "slowdown")]
    for *group, size, slowdown in zip(*columns):
        if size is None:
            continue
        key = tuple(group)
        if key not in finished:
            finished[key], unfinished[key] = [[] for _ in lows], [0] * len(lows)
        # Buckets are (low, high]: a size on an edge belongs to the bucket below it.
        k = bisect.bisect_left(bounds, size)
        if slowdown is None:
            unfinished[key][k] += 1
        else:
            finished[key][k].append(slowdown)
    if not by and not finished:
        # One run's table with no sized flow still shows its (empty) buckets.
        finished[()], unfinished[()] = [[] for _ in lows], [0] * len(lows)
    rows: List[Dict[str, Any]] = []
    for key in sorted(finished, key=_group_key):
        for low, high, values, left in zip(lows, highs, finished[key], unfinished[key]):
            rows.append({**dict(zip(by, key)), "bucket": _label(low, high), "low_bytes": low, "high_bytes": high,
                         "flows": len(values), "unfinished": left, **_stats(values)})
    fields: List["pa.Field[Any]"] = [flows.schema.field(name) for name in by]
    fields += [
        pa.field("bucket", pa.string()), pa.field("low_bytes", pa.float64()), pa.field("high_bytes", pa.float64()),
        pa.field("flows", pa.int64()), pa.field("unfinished", pa.int64()), pa.field("mean", pa.float64()),
        pa.field("p50", pa.float64()), pa.field("p99", pa.float64())]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))


def log_edges(smallest_bytes: float, largest_bytes: float, buckets: int = LOG_BUCKETS) -> List[float]:
    """Edges for `by_size` that cut [smallest_bytes, largest_bytes] into `buckets` buckets of
    equal width on a log scale (the first reaching down to 0, the last up to infinity), in whole
    bytes: a flow size distribution spans several decades (web search: 1 KB to 30 MB), which
    pFabric's three buckets summarize and these resolve. Fewer buckets when the range holds
    fewer whole bytes; none (one bucket of everything) when the two sizes are equal."""
    if buckets < 1:
        raise ValueError(f"buckets: must be at least 1, got {buckets}")
    if not 0 < smallest_bytes <= largest_bytes:
        raise ValueError(f"smallest_bytes and largest_bytes: need 0 < {smallest_bytes} <= {largest_bytes}")
    ratio = largest_bytes / smallest_bytes
    inner = (round(smallest_bytes * ratio ** (i / buckets)) for i in range(1, buckets))
    return [float(e) for e in sorted(set(inner)) if smallest_bytes < e < largest_bytes]
