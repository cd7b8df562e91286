"""The shared figure helper (python/incast/reproduce/figures.py): the runs over seeds join point by
point into the mean with its interval, kept in the series' range; every kind of panel draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from incast.reproduce.figures import BAR, POINTS, Heatmap, Line, Mark, Panel, Plot, Scatter, Series, draw, join
from incast.reproduce.verdict import PERCENT, Estimate


def _plot(y: float, share: float) -> Plot:
    return Plot("title", [
        Panel("lines", "x", "y", series=[Series("ours", {1: y, 2: y + 1}),
                                         Series("share", {1: share}, within=PERCENT),
                                         Series("paper", {2: 5.0}, kind=POINTS, paper=True)],
              scatters=[Scatter("flows", [(y, y)])], lines=[Line(3.0, "paper level"), Line(1.0, "band", to=2.0)],
              marks=[Mark(1.5, "deadline")]),
        Panel("bars", "scheme", "senders", series=[Series("a", {"tight": y, "lax": 2 * y}, kind=BAR)]),
        Heatmap("map", "size", "slack", columns=["2KB"], rows=["1"], cells={("1", "2KB"): y}, limit=25),
    ])


def test_join_takes_the_mean_over_seeds_with_its_interval_in_range() -> None:
    joined = join([_plot(1.0, 0.0), _plot(2.0, 0.0), _plot(3.0, 1.2)], 3)
    lines, bars, heat = joined.panels
    assert isinstance(lines, Panel) and isinstance(bars, Panel) and isinstance(heat, Heatmap)
    ours = lines.series[0].points[1]
    assert isinstance(ours, Estimate) and ours.mean == 2.0
    assert ours.low == pytest.approx(2.0 - 4.303 * math.sqrt(1 / 3))
    share = lines.series[1].points[1]
    assert isinstance(share, Estimate) and share.low == 0.0  # a share's band never goes below 0%
    paper = lines.series[2].points[2]
    assert isinstance(paper, Estimate) and paper.low == paper.high == 5.0
    assert len(lines.scatters[0].xy) == 3  # a scatter pools every seed's points
    assert isinstance(heat.cells[("1", "2KB")], Estimate)
    assert joined.note == "mean over 3 seeds; bands and error bars: 95% confidence interval"


def test_join_refuses_figures_that_differ_between_seeds() -> None:
    other = Plot("title", [Panel("lines", "x", "y", series=[Series("someone else", {1: 1.0})])])
    with pytest.raises(ValueError, match="not in every seed"):
        join([Plot("title", [Panel("lines", "x", "y", series=[Series("ours", {1: 1.0})])]), other], 2)
    with pytest.raises(ValueError, match="different points"):
        join([Plot("t", [Panel("p", "x", "y", series=[Series("s", {1: 1.0})])]),
              Plot("t", [Panel("p", "x", "y", series=[Series("s", {2: 1.0})])])], 2)
    with pytest.raises(ValueError, match="different marks"):
        join([Plot("t", [Panel("p", "x", "y", marks=[Mark(1.0, "deadline")])]),
              Plot("t", [Panel("p", "x", "y", marks=[Mark(2.0, "deadline")])])], 2)


def test_every_kind_of_panel_draws() -> None:
    import matplotlib.pyplot as plt

    figure = draw(join([_plot(1.0, 0.0), _plot(2.0, 50.0), _plot(3.0, 1.0)], 3))
    assert len(figure.axes) >= 3
    assert [float(np.ravel(v.get_xdata())[0]) for v in figure.axes[0].lines if v.get_label() == "deadline"] == [1.5]
    plt.close(figure)
    with pytest.raises(ValueError, match="a series is one of"):
        Series("s", {}, kind="pie")
