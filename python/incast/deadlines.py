"""Deadlines met and missed, per group of flows: D3's application throughput (the share of flows
with a deadline that met it, D3 Section 6.1) and its complement, the share missed that D2TCP
plots, for each protocol of a run or each point of a sweep.

A flow counts once the run could judge it: it has a deadline, is measured (not in the warm-up),
and the engine set `met_deadline` (docs/python.md, the flows table). Flows whose deadline lies
after the end of the run, unfinished at its end, cannot be judged; they are counted apart
(`unknown`) so that a run cut short does not look better than it is. The shares are over the
judged flows, as the summary's `app_throughput` is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Sequence, Tuple

if TYPE_CHECKING:
    import pyarrow as pa

COLUMNS = ("deadline_flows", "met", "missed", "unknown", "app_throughput", "missed_share")
"""The columns `by_group` adds after its group columns."""
NEEDED = ("deadline_s", "met_deadline", "measured")
"""The flows table's columns `by_group` reads (besides the group columns)."""


def by_group(flows: "pa.Table", by: Sequence[str]) -> "pa.Table":
    """One row per combination of the `by` columns that has a flow with a deadline (in order of
    the values, nulls last): the group columns, then `deadline_flows` (judged flows),
    `met`, `missed`, `unknown` (measured flows with a deadline the run could not judge),
    `app_throughput` (met / judged, null when none was judged) and `missed_share` (missed /
    judged). Flows without a deadline, or outside the measurement, belong to no row."""
    import pyarrow as pa

    missing = [name for name in (*by, *NEEDED) if name not in flows.column_names]
    if missing:
        raise ValueError(f"flows: no column {', '.join(map(repr, missing))}")
    columns = {name: flows.column(name).to_pylist() for name in (*by, *NEEDED)}
    counts: Dict[Tuple[Any, ...], List[int]] = {}
    for i in range(flows.num_rows):
        if columns["deadline_s"][i] is None or columns["measured"][i] is False:
            continue
        tally = counts.setdefault(tuple(columns[name][i] for name in by), [0, 0, 0])  # met, missed, unknown
        verdict = columns["met_deadline"][i]
        tally[0 if verdict is True else 1 if verdict is False else 2] += 1
    rows = []
    for key in sorted(counts, key=lambda k: tuple((v is None, v) for v in k)):
        met, missed, unknown = counts[key]
        judged = met + missed
        rows.append({**dict(zip(by, key)), "deadline_flows": judged, "met": met, "missed": missed,
                     "unknown": unknown, "app_throughput": met / judged if judged else None,
                     "missed_share": missed / judged if judged else None})
    fields = [flows.schema.field(name) for name in by] + [
        pa.field("deadline_flows", pa.int64()), pa.field("met", pa.int64()), pa.field("missed", pa.int64()),
        pa.field("unknown", pa.int64()), pa.field("app_throughput", pa.float64()),
        pa.field("missed_share", pa.float64())]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))
