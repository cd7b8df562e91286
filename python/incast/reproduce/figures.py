"""The reproductions' figures, drawn from what their verdicts judge: every reproduction describes
its figure as a `Plot` (panels of named series, one value per point), the runs over seeds are
joined point by point (`join`: the mean over seeds with its 95% interval, as the verdicts take
them), and one helper draws every figure (`draw`): a line with a band for its interval, a bar
with an error bar, markers for values read off the paper.

Every series has its own line style, marker and (for bars) hatch besides its colour, so that a
figure reads in greyscale; the paper's own values are drawn in black (hollow markers, dotted
lines), never in a colour of ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from incast.reproduce.verdict import Estimate, Number, Range

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

X = Union[int, float, str]
"""A point's x: a number (senders, fan-in, load) or a category (a deadline setting)."""

LINE = "line"
"""Lines with a band for each point's interval."""
BAR = "bar"
"""Grouped bars with an error bar each (categorical x)."""
POINTS = "points"
"""Markers with error bars and no line."""
KINDS = (LINE, BAR, POINTS)

# Distinct in greyscale: a line style, a marker and a hatch per series, in order.
LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 2)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--", "++")
REFERENCE_MARKERS = ("*", "P", "X", "h")


@dataclass(frozen=True)
class Series:
    """One curve or group of bars: y per x, each one number per seed (or an `Estimate` from a
    reproduction that estimates over seeds itself)."""

    label: str
    points: Mapping[Any, Number]
    kind: str = LINE
    within: Optional[Range] = None
    """The range y can take (`verdict.PERCENT` for a share): its interval stays inside."""
    paper: bool = False
    """The paper's values (the same on every seed): drawn in black."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a series is one of {', '.join(KINDS)}, not {self.kind!r}")


@dataclass(frozen=True)
class Scatter:
    """Points (x, y) of every seed, pooled: a scatter of flows has no mean to take."""

    label: str
    xy: Sequence[Tuple[float, float]]


@dataclass(frozen=True)
class Line:
    """A horizontal reference line (the paper's level, a rule's edge), or with `to` a band from
    `y` to `to` (the paper's range), the same on every seed."""

    y: float
    label: str
    paper: bool = True
    to: Optional[float] = None


@dataclass(frozen=True)
class Mark:
    """A vertical reference line at `x` (a deadline on a time axis), the same on every seed. The
    k-th mark of a panel takes the line style of its k-th series, so that a flow's deadline
    pairs with its curve in greyscale."""

    x: float
    label: str


@dataclass(frozen=True)
class Panel:
    """One axes of a figure."""

    title: str
    xlabel: str
    ylabel: str
    series: Sequence[Series] = ()
    scatters: Sequence[Scatter] = ()
    lines: Sequence[Line] = ()
    marks: Sequence[Mark] = ()
    xscale: str = "linear"
    yscale: str = "linear"
    xlim: Optional[Tuple[float, float]] = None
    ylim: Optional[Tuple[float, float]] = None
    invert_x: bool = False
    diagonal: bool = False
    """Draw y = x (a scatter of completion times against deadlines)."""
    legend_size: Optional[float] = None


@dataclass(frozen=True)
class Heatmap:
    """A grid of cells, each one number per seed, annotated with its mean and half-width."""

    title: str
    xlabel: str
    ylabel: str
    columns: Sequence[str]
    rows: Sequence[str]
    cells: Mapping[Tuple[str, str], Number]
    """Per (row, column)."""
    limit: float
    """Colours run from -limit to +limit."""
    colorbar: str = ""


@dataclass(frozen=True)
class Plot:
    """A reproduction's figure: its title and panels, `columns` of them per row."""

    title: str
    panels: Sequence[Union[Panel, Heatmap]]
    columns: int = 0
    """Panels per row (0: all in one row)."""
    panel_size: Tuple[float, float] = (6.0, 4.0)
    sharey: bool = False
    note: str = field(default="", compare=False)
    """A line under the title, set by `join` (how many seeds the figure shows)."""


def join(plots: Sequence[Plot], seeds: int) -> Plot:
    """One plot from the same plot of each seed's runs: each point the `Estimate` over the seeds
    (within its series' range), scatters pooled, lines and the paper's values as in the first."""
    first = plots[0]
    for p in plots[1:]:
        if len(p.panels) != len(first.panels) or any(type(a) is not type(b) for a, b in zip(p.panels, first.panels)):
            raise ValueError(f"the figure {first.title!r} has different panels in different seeds")
    panels = [_join_panel([p.panels[i] for p in plots]) for i in range(len(first.panels))]
    note = f"mean over {seeds} seeds; bands and error bars: 95% confidence interval" if seeds > 1 else ""
    return replace(first, panels=panels, note=note)


def _join_panel(panels: Sequence[Union[Panel, Heatmap]]) -> Union[Panel, Heatmap]:
    first = panels[0]
    if isinstance(first, Heatmap):
        heatmaps = [p for p in panels if isinstance(p, Heatmap)]
        return replace(first, cells=_join_points([h.cells for h in heatmaps], None, first.title))
    lined = [p for p in panels if isinstance(p, Panel)]
    assert isinstance(first, Panel)
    series = []
    for i, s in enumerate(first.series):
        others = [p.series[i] if i < len(p.series) else None for p in lined]
        if any(o is None or o.label != s.label for o in others):
            raise ValueError(f"panel {first.title!r}: series {s.label!r} is not in every seed's figure")
        series.append(replace(s, points=_join_points([o.points for o in others if o is not None], s.within,
                                                     f"{first.title}: {s.label}")))
    if any(len(p.series) != len(first.series) for p in lined):
        raise ValueError(f"panel {first.title!r} has different series in different seeds")
    if any(p.marks != first.marks for p in lined):
        raise ValueError(f"panel {first.title!r} has different marks in different seeds")
    scatters = [replace(s, xy=[xy for p in lined for xy in p.scatters[i].xy]) for i, s in enumerate(first.scatters)]
    return replace(first, series=series, scatters=scatters)


def _join_points(per_seed: Sequence[Mapping[Any, Number]], within: Optional[Range], what: str) -> Dict[Any, Number]:
    keys = list(per_seed[0])
    if any(list(p) != keys for p in per_seed):
        raise ValueError(f"{what}: different points in different seeds")
    out: Dict[Any, Number] = {}
    for k in keys:
        values = [p[k] for p in per_seed]
        if any(isinstance(v, Estimate) for v in values):
            if len(values) != 1:
                raise ValueError(f"{what}: a point estimated over seeds cannot be joined over seeds again")
            out[k] = values[0]
        else:
            out[k] = Estimate.of([float(v) for v in values], within)
    return out


def _bounds(v: Number) -> Tuple[float, float, float]:
    if isinstance(v, Estimate):
        return v.mean, v.low, v.high
    return float(v), float(v), float(v)


def draw(plot: Plot) -> "Figure":
    """The figure of `plot`, on the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(plot.panels)
    columns = plot.columns or n
    rows = -(-n // columns)
    width, height = plot.panel_size
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False,
                             sharey=plot.sharey)
    for i, panel in enumerate(plot.panels):
        ax = axes[i // columns][i % columns]
        if isinstance(panel, Heatmap):
            _heatmap(fig, ax, panel)
        else:
            _panel(ax, panel)
    for j in range(n, rows * columns):
        axes[j // columns][j % columns].set_visible(False)
    fig.suptitle(plot.title + (f"\n({plot.note})" if plot.note else ""), fontsize=11)
    fig.tight_layout()
    # `tight_layout` leaves a placeholder engine that does nothing at draw time but makes every
    # `savefig` lay the whole figure out once more in a dry run before drawing it: without an
    # engine the PNG is the same, byte for byte, and a figure costs one layout pass fewer.
    fig.set_layout_engine(None)
    return fig


def _panel(ax: "Axes", panel: Panel) -> None:
    ours = [s for s in panel.series if not s.paper]
    bars = [s for s in panel.series if s.kind == BAR]
    categories: List[Any] = []
    for s in bars:
        categories += [x for x in s.points if x not in categories]
    width = 0.8 / max(len(bars), 1)
    mine = paper_seen = 0
    for s in panel.series:
        k = ours.index(s) if not s.paper else paper_seen
        style: Dict[str, Any] = ({"color": "black", "markerfacecolor": "none"} if s.paper else
                                 {"color": f"C{k % 10}"})
        xs = list(s.points)
        mean, low, high = (list(v) for v in zip(*(_bounds(s.points[x]) for x in xs))) if xs else ([], [], [])
        if s.kind == BAR:
            b = bars.index(s)
            pos = [categories.index(x) + (b - (len(bars) - 1) / 2) * width for x in xs]
            err = [[m - lo for m, lo in zip(mean, low)], [hi - m for m, hi in zip(mean, high)]]
            ax.bar(pos, mean, width, label=s.label, hatch=HATCHES[b % len(HATCHES)],
                   color="white" if s.paper else style["color"], edgecolor="black",
                   yerr=err if any(lo != hi for lo, hi in zip(low, high)) else None, capsize=2,
                   error_kw={"elinewidth": 0.8, "zorder": 3})
        elif s.kind == POINTS:
            marker = REFERENCE_MARKERS[k % len(REFERENCE_MARKERS)] if s.paper else MARKERS[k % len(MARKERS)]
            err = [[m - lo for m, lo in zip(mean, low)], [hi - m for m, hi in zip(mean, high)]]
            ax.errorbar(xs, mean, yerr=err if any(lo != hi for lo, hi in zip(low, high)) else None, ls="",
                        marker=marker, markersize=8 if s.paper else 6, capsize=2, label=s.label, **style)
        else:
            ls = ":" if s.paper else LINE_STYLES[k % len(LINE_STYLES)]
            ax.plot(xs, mean, ls=ls, marker=MARKERS[k % len(MARKERS)], markersize=4, label=s.label, **style)
            if any(lo != hi for lo, hi in zip(low, high)):
                ax.fill_between(xs, low, high, alpha=0.18, color=style["color"], lw=0)
        if s.paper:
            paper_seen += 1
        else:
            mine += 1
    for k, sc in enumerate(panel.scatters):
        if sc.xy:
            sx, sy = zip(*sc.xy)
            ax.scatter(sx, sy, s=4, alpha=0.35, marker=MARKERS[k % len(MARKERS)], label=sc.label)
    for k, line in enumerate(panel.lines):
        if line.to is None:
            ax.axhline(line.y, color="black" if line.paper else "gray", ls=(":", "--", "-.")[k % 3], lw=1,
                       label=line.label)
        else:
            ax.axhspan(line.y, line.to, facecolor="none", edgecolor="gray", hatch=HATCHES[1 + k % 7], lw=0.5,
                       label=line.label)
    for k, mark in enumerate(panel.marks):
        ax.axvline(mark.x, color="gray", ls=LINE_STYLES[k % len(LINE_STYLES)], lw=0.8, label=mark.label)
    if panel.diagonal:
        lo, hi = panel.xlim or (1.0, 1000.0)
        ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    ax.set(title=panel.title, xlabel=panel.xlabel, ylabel=panel.ylabel, xscale=panel.xscale, yscale=panel.yscale)
    if bars:  # after the scales, which reset the ticks
        ax.set_xticks(range(len(categories)), [str(c) for c in categories],
                      rotation=30 if len(categories) > 6 else 0, ha="right" if len(categories) > 6 else "center",
                      fontsize=8 if len(categories) > 6 else None)
    if panel.xlim is not None:
        ax.set_xlim(*panel.xlim)
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
    elif panel.yscale == "linear" and panel.series and all(s.within is not None and s.within[0] >= 0
                                                          for s in panel.series if not s.paper):
        ax.set_ylim(bottom=0)  # a share or a count: no room below 0, even when all are 0
    if panel.invert_x:
        ax.invert_xaxis()
    ax.grid(True, alpha=0.3, which="both" if "log" in (panel.xscale, panel.yscale) else "major")
    if panel.series or panel.scatters or panel.lines or panel.marks:
        ax.legend(fontsize=panel.legend_size or 8)


def _heatmap(fig: "Figure", ax: "Axes", panel: Heatmap) -> None:
    grid = [[_bounds(panel.cells[(r, c)])[0] for c in panel.columns] for r in panel.rows]
    image = ax.imshow(grid, cmap="RdBu_r", vmin=-panel.limit, vmax=panel.limit, origin="lower", aspect="auto")
    for y, r in enumerate(panel.rows):
        for x, c in enumerate(panel.columns):
            mean, low, high = _bounds(panel.cells[(r, c)])
            text = f"{mean:+.0f}" + (f"\n±{(high - low) / 2:.0f}" if high > low else "")
            ax.text(x, y, text, ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(panel.columns)), list(panel.columns), fontsize=7)
    ax.set_yticks(range(len(panel.rows)), list(panel.rows), fontsize=7)
    ax.set(title=panel.title, xlabel=panel.xlabel, ylabel=panel.ylabel)
    ax.title.set_fontsize(9)
    if panel.colorbar:
        fig.colorbar(image, ax=ax, shrink=0.8, label=panel.colorbar)
