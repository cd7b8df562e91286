"""A sweep's messages as the D2TCP reproductions count them, in Arrow and numpy: which the run could
judge, which missed, the background flows and their throughput, and statistics per setting. A
full 1000-host sweep holds millions of flows: everything here reads only the columns it needs
and keeps what several figures share (`sweep_means`), since reading and converting flows, not
the simulations, was most of a figure's time besides them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Sequence, Tuple

from incast import stats

if TYPE_CHECKING:
    import pyarrow as pa

    from incast.sweep import SweepResult


def judged_messages(flows: "pa.Table") -> "pa.Table":
    """The OLDI messages of `flows` whose deadline the run could judge: the engine's
    `met_deadline` is known (not null: docs/python.md says when it is), which leaves out
    background flows (no deadline) and messages unfinished when their run ended before their
    deadline. Adds `missed` (1 if it missed its deadline, else 0).

    The one definition every D2TCP figure counts misses by, in Arrow: a full sweep holds up to
    15 million flows, far too many for Python objects."""
    import pyarrow as pa
    import pyarrow.compute as pc

    judged = flows.filter(pc.is_valid(flows["met_deadline"]))
    return judged.append_column("missed", pc.cast(pc.invert(judged["met_deadline"]), pa.int64()))


def background_flows(flows: "pa.Table") -> "pa.Table":
    """The completed background flows of `flows`, with `mbps`: size over completion time."""
    import pyarrow as pa
    import pyarrow.compute as pc

    done = flows.filter(pc.and_(flows["background"], pc.is_valid(flows["finish_s"])))
    mbps = pc.divide(pc.multiply(pc.cast(done["size_bytes"], pa.float64()), 8e-6),
                     pc.subtract(done["finish_s"], done["start_s"]))
    return done.append_column("mbps", mbps)


def mean_by(table: "pa.Table", column: str, by: Sequence[str]) -> Dict[Tuple[Any, ...], float]:
    """The mean of `column` per value of the `by` columns."""
    grouped = table.select([*by, column]).group_by(list(by)).aggregate([(column, "mean")])
    return {tuple(r[k] for k in by): r[f"{column}_mean"] for r in grouped.to_pylist()}


def judged_of(result: "SweepResult", columns: Sequence[str]) -> "pa.Table":
    """`judged_messages` of a sweep, read from its files with only `columns` (and the deadline
    verdict): a full sweep holds millions of flows, and reading all their columns to keep a few
    took most of a figure's time besides its simulations."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    wanted = list(dict.fromkeys([*(c for c in columns if c != "missed"), "met_deadline"]))
    flows = result.dataset("flows").to_table(columns=wanted, filter=pc.is_valid(ds.field("met_deadline")))
    return judged_messages(flows)


def background_of(result: "SweepResult", by: Sequence[str]) -> "pa.Table":
    """`background_flows` of a sweep, read with only the columns they need."""
    import pyarrow.dataset as ds

    columns = list(dict.fromkeys([*by, "background", "size_bytes", "start_s", "finish_s"]))
    return background_flows(result.dataset("flows").to_table(
        columns=columns, filter=ds.field("background") & ds.field("finish_s").is_valid()))


# Statistics of a sweep's flows, kept for the process: Figures 9-12, 14 and Table 1 read the same
# sweeps, each under one setting and seed; a sweep's id names its scenario, seed and incast version,
# so the same id in the same directory holds the same flows.
_MEANS: Dict[Tuple[Any, ...], Dict[Tuple[Any, ...], float]] = {}


def sweep_means(result: "SweepResult", column: str, by: Sequence[str],
                background: bool = False) -> Dict[Tuple[Any, ...], float]:
    """The mean of `column` of the judged messages (of the completed background flows with
    `background`) per value of the `by` columns, computed once per sweep."""
    key = (str(result.out), result.sweep.id, column, tuple(by), background)
    if key not in _MEANS:
        rows = background_of(result, by) if background else judged_of(result, [*by, column])
        _MEANS[key] = mean_by(rows, column, by)
    return _MEANS[key]


def missed_fraction(flows: "pa.Table", by: Sequence[str]) -> Dict[Tuple[Any, ...], float]:
    """Missed deadlines per value of the `by` columns, over the messages the run can judge."""
    return mean_by(judged_messages(flows), "missed", by)


def latency_quantiles(result: "SweepResult", by: Tuple[str, str],
                      quantiles: Sequence[int] = (50, 90, 99)) -> Dict[Tuple[str, int], Dict[str, float]]:
    """Per value of the two `by` columns (protocol and fan-in), the given percentiles (`p50`...) of
    each judged message's latency over the time its deadline allowed; a message unfinished at the
    end of its run took at least until then. In numpy: a full sweep holds millions of messages.
    The percentiles are `incast.stats.INDEX` quantiles (the sorted value at index int(q/100 n)),
    as the committed reports and pins of Figure 12 took them."""
    import numpy as np

    end = {r["point"]: r["sim_time_s"] for r in result.summary().select(["point", "sim_time_s"]).to_pylist()}
    t = judged_of(result, [by[0], by[1], "point", "start_s", "finish_s", "deadline_s"])
    start = t["start_s"].to_numpy(zero_copy_only=False)
    finish = t["finish_s"].to_numpy(zero_copy_only=False).copy()
    unfinished = np.flatnonzero(np.isnan(finish))
    if len(unfinished):
        points = t["point"].take(unfinished).to_pylist()
        finish[unfinished] = [end[p] for p in points]
    ratio = (finish - start) / (t["deadline_s"].to_numpy(zero_copy_only=False) - start)
    protocols = t[by[0]].to_numpy(zero_copy_only=False)
    fans = t[by[1]].to_numpy(zero_copy_only=False)
    out: Dict[Tuple[str, int], Dict[str, float]] = {}
    groups = t.select([by[0], by[1]]).group_by([by[0], by[1]]).aggregate([]).to_pylist()
    for p, n in sorted((str(r[by[0]]), int(r[by[1]])) for r in groups):
        values = np.sort(ratio[(protocols == p) & (fans == n)])
        at = stats.quantiles(values, [k / 100 for k in quantiles], stats.INDEX, presorted=True)
        out[(p, n)] = {f"p{k}": float(v) for k, v in zip(quantiles, at)}
    return out
