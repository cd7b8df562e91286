"""Small plots of runs: a port's queue over time (`queue`) and a flow's window over time
(`window`), from `RunResult.queues` and `RunResult.traces`, and the FCT slowdown against flow
size of several runs overlaid (`slowdown`), from their flows. Each draws on the matplotlib `Axes`
given, or on a new figure's, and returns it, so that plots compose:

    import incast, incast.plots
    result = incast.run("examples/d2tcp-fan-in.toml")
    ax = incast.plots.window(result, flow_id=0)
    ax.figure.savefig("window.png")
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

if TYPE_CHECKING:
    import os

    import pyarrow as pa

    from incast.api import RunResult


def _axes(ax: Optional[Any]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(7, 3.5))
    return ax


def _pick(column: List[Any], value: Any) -> List[int]:
    return [i for i, v in enumerate(column) if v == value]


def queue(result: "RunResult", port: Optional[str] = None, *, ax: Optional[Any] = None) -> Any:
    """Queued bytes over time at `port` (a name from `result.queues`, e.g. "switch->h0"), or at
    every sampled port when `port` is None. Needs `[output] queue_sample_interval` with
    `queue_sample_hosts` or `queue_sample_ports`; raises ValueError naming what is missing."""
    q = result.queues
    if q.num_rows == 0:
        raise ValueError("the run sampled no queue: set [output] queue_sample_interval and queue_sample_ports "
                         "(or queue_sample_hosts)")
    ports: List[Any] = q["port"].to_pylist()
    names = list(dict.fromkeys(ports)) if port is None else [port]
    if port is not None and port not in ports:
        raise ValueError(f"port {port!r} was not sampled; sampled: {', '.join(dict.fromkeys(ports))}")
    ax = _axes(ax)
    times: List[Any] = q["time_s"].to_pylist()
    sizes: List[Any] = q["queue_bytes"].to_pylist()
    for name in names:
        rows = _pick(ports, name)
        ax.step([1e3 * times[i] for i in rows], [sizes[i] / 1e3 for i in rows], where="post", label=name)
    ax.set(xlabel="time (ms)", ylabel="queue (KB)")
    if len(names) > 1 or port is None:
        ax.legend(fontsize=7)
    return ax


def window(result: "RunResult", flow_id: int, *, ax: Optional[Any] = None) -> Any:
    """A traced flow's congestion window (TCP family) or sending rate (D3, RCPdc) over time,
    with DCTCP's alpha on a second axis when the flow has one. Needs the flow traced
    (`[output] trace_flows` or `trace_workloads`); raises ValueError naming what is missing."""
    t = result.traces
    if t is None:
        raise ValueError("the run traced no flow: set [output] trace_flows = [id, ...] (or trace_workloads)")
    flows: List[Any] = t["flow_id"].to_pylist()
    rows = _pick(flows, flow_id)
    if not rows:
        traced = sorted(set(flows))
        raise ValueError(f"flow {flow_id} was not traced; traced: {', '.join(map(str, traced)) or 'none'}")
    ax = _axes(ax)
    times = [1e3 * t["time_s"][i].as_py() for i in rows]
    cwnd = [t["cwnd_bytes"][i].as_py() for i in rows]
    if cwnd[0] is not None:
        ax.step(times, [c / 1e3 for c in cwnd], where="post", label="cwnd")
        ax.set(ylabel="window (KB)")
    else:
        rate = [t["rate_bytes_per_s"][i].as_py() for i in rows]
        ax.step(times, [8e-6 * r for r in rate], where="post", label="rate")
        ax.set(ylabel="sending rate (Mbps)")
    ax.set(xlabel="time (ms)", title=f"flow {flow_id}")
    alpha = [t["alpha"][i].as_py() for i in rows]
    if alpha[0] is not None:
        twin = ax.twinx()
        twin.step(times, alpha, where="post", color="C1", label="alpha")
        twin.set(ylabel="alpha", ylim=(0, 1.05))
    return ax


SAVE_FORMATS = (".pdf", ".svg", ".png")
"""Suffixes `slowdown(path=...)` saves as: vector for papers, PNG for a quick look."""

QUANTILES = ("mean", "p50", "p99")
"""What `slowdown` can draw per bucket: columns of `incast.slowdown.by_size`."""

# Runs differ by line style and marker shape, so that a greyscale print tells them apart; their
# colours (cividis, whose lightness rises steadily, stopped before its pale end) only help.
_LINE_STYLES: Tuple[Any, ...] = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (1, 3)))
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
# The statistics of one run differ by marker fill and line weight: p50 solid markers on a heavy
# line, p99 hollow ones on a light line (mean: half-filled), whatever the run's line style.
_QUANTILE_STYLE = {"p50": ("full", 1.6), "mean": ("left", 1.2), "p99": ("none", 0.9)}

Runs = Union[Mapping[str, Any], Sequence[Any], Any]


def slowdown(
    runs: Runs,
    *,
    quantiles: Sequence[str] = ("p50", "p99"),
    edges: Optional[Sequence[float]] = None,
    ax: Optional[Any] = None,
    path: Union[str, "os.PathLike[str]", None] = None,
    labels: Optional[Sequence[str]] = None,
) -> Any:
    """The median and 99th-percentile FCT slowdown against flow size, of several runs overlaid,
    as pFabric's Figures 9-11 show it but with finer buckets. `runs` maps a label to a flows
    table or a `RunResult`, or lists them (labelled `labels`, else "run 1", "run 2", ...); a
    single one is a list of one. `quantiles` are any of "mean", "p50" and "p99".

    Each run's flows are cut into the size buckets of `edges` (`incast.slowdown.by_size`; by
    default `log_edges` over the smallest and largest size of all runs together, so that every
    run has the same buckets), and each bucket with a finished flow is drawn at its geometric
    centre (the first and last bucket clipped to the sizes present), both axes on a log scale.
    Runs differ by line style and marker, the quantiles by filled (p50) and hollow (p99)
    markers, so the figure reads in greyscale.

    `path` also saves the figure, as PDF, SVG or PNG by its suffix. Returns the axes."""
    from incast.slowdown import by_size, log_edges

    tables = _label_runs(runs, labels)
    unknown = [q for q in quantiles if q not in QUANTILES]
    if unknown or not quantiles:
        raise ValueError(f"quantiles: choose among {', '.join(QUANTILES)}, got {list(quantiles)}")
    if path is not None and Path(path).suffix.lower() not in SAVE_FORMATS:
        raise ValueError(f"path {str(path)!r}: the suffix chooses the format: {', '.join(SAVE_FORMATS)}")
    smallest, largest = _size_range(tables.values())
    if edges is None:
        edges = log_edges(smallest, largest)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import EngFormatter

    ax = _axes(ax)
    colours = plt.get_cmap("cividis")
    for i, (label, flows) in enumerate(tables.items()):
        buckets = by_size(flows, edges).to_pylist()
        style = _LINE_STYLES[i % len(_LINE_STYLES)]
        marker = _MARKERS[i % len(_MARKERS)]
        colour = colours(0.65 * i / max(len(tables) - 1, 1))
        for q in quantiles:
            points = [(_centre(b["low_bytes"], b["high_bytes"], smallest, largest), b[q])
                      for b in buckets if b[q] is not None]
            fill, width = _QUANTILE_STYLE[q]
            ax.plot([x for x, _ in points], [y for _, y in points], linestyle=style, linewidth=width, marker=marker,
                    fillstyle=fill, markersize=5, color=colour, markerfacecoloralt="white", label=f"{label} {q}")
    ax.set(xscale="log", yscale="log", xlabel="flow size", ylabel="FCT slowdown")
    ax.xaxis.set_major_formatter(EngFormatter(unit="B"))
    ax.legend(fontsize=7)
    if path is not None:
        ax.figure.savefig(path, bbox_inches="tight")
    return ax


def _label_runs(runs: Runs, labels: Optional[Sequence[str]]) -> "Dict[str, pa.Table]":
    """`runs` as {label: flows table}, in order."""
    import pyarrow as pa

    if isinstance(runs, Mapping):
        named = list(runs.items())
        if labels is not None:
            raise ValueError("labels: runs given as a mapping are labelled by its keys")
    else:
        single = isinstance(runs, (pa.Table, str)) or hasattr(runs, "flows")
        items = [runs] if single else list(runs)
        if labels is not None and len(labels) != len(items):
            raise ValueError(f"labels: {len(labels)} for {len(items)} runs")
        named = list(zip(labels if labels is not None else [f"run {i + 1}" for i in range(len(items))], items))
    if not named:
        raise ValueError("runs: nothing to plot")
    tables = {}
    for label, run in named:
        flows = getattr(run, "flows", run)
        if not isinstance(flows, pa.Table):
            raise TypeError(f"runs: {label!r} is a {type(run).__name__}, not a flows table or a RunResult")
        tables[str(label)] = flows
    if len(tables) < len(named):
        raise ValueError("labels: two runs have the same label")
    return tables


def _size_range(tables: Any) -> Tuple[float, float]:
    """The smallest and largest flow size over every table (long-lived flows have none)."""
    import pyarrow.compute as pc

    lows = [low for t in tables if (low := pc.min(t["size_bytes"]).as_py()) is not None]
    highs = [high for t in tables if (high := pc.max(t["size_bytes"]).as_py()) is not None]
    if not lows:
        raise ValueError("runs: no flow has a size (only long-lived flows), so there is no slowdown by size")
    # A zero-byte flow has no place on a log axis; its bucket starts at one byte.
    return max(float(min(lows)), 1.0), max(float(max(highs)), 1.0)


def _centre(low: float, high: float, smallest: float, largest: float) -> float:
    """A bucket's geometric centre, its open ends (0 and infinity) clipped to the sizes present."""
    return math.sqrt(max(low, smallest) * min(high, largest))
