"""`incast.plots.slowdown`: where each bucket is drawn and at what height, runs told apart without
colour, and the figure saved as PDF, SVG or PNG by its path's suffix."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import matplotlib
import pyarrow as pa
import pytest

import incast
import incast.plots

from conftest import small_scenario

matplotlib.use("Agg")


def flows(slowdowns: Dict[int, List[float]]) -> pa.Table:
    """A flows table of the given slowdowns at each size in bytes."""
    rows = [(size, s) for size, values in slowdowns.items() for s in values]
    return pa.table({"size_bytes": pa.array([size for size, _ in rows], pa.uint64()),
                     "slowdown": [s for _, s in rows]})


# 1 KB to 10 MB; with edges at 10 KB and 1 MB the three buckets hold 1 KB, 100 KB and 10 MB.
FAST = flows({1_000: [1.0, 2.0, 3.0], 100_000: [1.5, 2.5], 10_000_000: [1.1]})
SLOW = flows({1_000: [4.0, 8.0], 100_000: [6.0], 10_000_000: [2.0, 3.0]})


@pytest.fixture(autouse=True)
def close_figures() -> Any:
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def by_label(ax: Any) -> Dict[str, Any]:
    return {line.get_label(): line for line in ax.get_lines()}


def test_buckets_drawn_at_their_geometric_centres_with_their_quantiles() -> None:
    ax = incast.plots.slowdown({"fast": FAST, "slow": SLOW}, edges=[10_000, 1_000_000])
    lines = by_label(ax)
    assert sorted(lines) == ["fast p50", "fast p99", "slow p50", "slow p99"]
    # The open first and last buckets are clipped to the sizes present (1 KB and 10 MB).
    centres = [math.sqrt(1e3 * 1e4), math.sqrt(1e4 * 1e6), math.sqrt(1e6 * 1e7)]
    assert list(lines["fast p50"].get_xdata()) == pytest.approx(centres)
    assert list(lines["fast p50"].get_ydata()) == pytest.approx([2.0, 2.0, 1.1])
    # p99 with linear interpolation: 2 + 0.98 x 1 and 1.5 + 0.99 x 1.
    assert list(lines["fast p99"].get_ydata()) == pytest.approx([2.98, 2.49, 1.1])
    assert list(lines["slow p50"].get_ydata()) == pytest.approx([6.0, 6.0, 2.5])
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")


def test_runs_differ_by_line_style_and_marker_and_quantiles_by_fill() -> None:
    runs = [FAST, SLOW, incast.run(small_scenario())]
    ax = incast.plots.slowdown(runs, labels=["fast", "slow", "small"], quantiles=["p50", "p99", "mean"])
    lines = by_label(ax)
    styles = [lines[f"{run} p50"].get_linestyle() for run in ("fast", "slow", "small")]
    markers = [lines[f"{run} p50"].get_marker() for run in ("fast", "slow", "small")]
    assert len(set(styles)) == 3 and len(set(markers)) == 3
    for run in ("fast", "slow", "small"):
        # One run's statistics share its line style and marker, and differ by the marker's fill.
        own = [lines[f"{run} {q}"] for q in ("p50", "p99", "mean")]
        assert len({line.get_linestyle() for line in own}) == 1 and len({line.get_marker() for line in own}) == 1
        assert [line.get_fillstyle() for line in own] == ["full", "none", "left"]


def test_default_buckets_are_log_spaced_over_every_run_sizes() -> None:
    # Sizes from 1 KB to 10 MB spread evenly on a log scale: each of the 16 buckets gets some.
    sizes = [round(1e3 * 10 ** (4 * i / 199)) for i in range(200)]
    table = pa.table({"size_bytes": pa.array(sizes, pa.uint64()), "slowdown": [1.0 + i % 7 for i in range(200)]})
    ax = incast.plots.slowdown({"spread": table, "small": FAST.slice(0, 1)}, quantiles=["p50"])
    x = list(by_label(ax)["spread p50"].get_xdata())
    assert len(x) == 16 and x == sorted(x) and 1e3 < x[0] and x[-1] < 1e7
    # The same buckets for every run: FAST's 1 KB flow sits in the first one.
    assert list(by_label(ax)["small p50"].get_xdata()) == pytest.approx(x[:1])


@pytest.mark.parametrize("suffix,magic", [(".pdf", b"%PDF-"), (".svg", b"<?xml"), (".png", b"\x89PNG\r\n\x1a\n")])
def test_saves_by_the_path_suffix(tmp_path: Path, suffix: str, magic: bytes) -> None:
    path = tmp_path / f"slowdown{suffix}"
    incast.plots.slowdown({"fast": FAST, "slow": SLOW}, path=path)
    data = path.read_bytes()
    assert data.startswith(magic)
    if suffix == ".svg":
        assert b"<svg" in data


def test_bad_arguments_name_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"path '.*slowdown\.jpg': the suffix chooses the format: .pdf, .svg, .png"):
        incast.plots.slowdown([FAST], path=tmp_path / "slowdown.jpg")
    assert not (tmp_path / "slowdown.jpg").exists()
    with pytest.raises(ValueError, match="quantiles: choose among mean, p50, p99"):
        incast.plots.slowdown([FAST], quantiles=["p90"])
    with pytest.raises(ValueError, match="labels: 1 for 2 runs"):
        incast.plots.slowdown([FAST, SLOW], labels=["fast"])
    with pytest.raises(TypeError, match="'run 1' is a str"):
        incast.plots.slowdown("flows.parquet")
    long_lived = pa.table({"size_bytes": pa.array([None], pa.uint64()), "slowdown": pa.array([None], pa.float64())})
    with pytest.raises(ValueError, match="no flow has a size"):
        incast.plots.slowdown([long_lived])
