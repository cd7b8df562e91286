"""benches/make_parsimon.py, the Parsimon study as a benchmark (issue 41): the fabric's counts, the
load that puts the busiest link at 50%, the stand-in data's statistics, and sorted traces that
incast accepts. A few seconds: the traces are 1-2 ms of arrivals."""

from __future__ import annotations

import csv
import importlib.util
import random
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Iterator, List, Tuple

import pytest

import incast

SCRIPT = Path(__file__).resolve().parents[1] / "benches" / "make_parsimon.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_parsimon", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_parsimon"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


mp = _load()


@pytest.fixture(scope="module")
def matrix() -> object:
    return mp.standin_matrix(mp.Fabric())


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("parsimon")
    mp.main(["--windows", "1ms,2ms", "--out", str(out)])
    yield out


def rows(path: Path) -> List[Tuple[int, int, int, float]]:
    with path.open() as f:
        return [(int(r["src"]), int(r["dst"]), int(r["size_bytes"]), float(r["start_s"])) for r in csv.DictReader(f)]


@pytest.mark.parametrize(
    ("spines", "switches", "links"),
    [(48, 384 + 32 + 192, 6144 + 384 * 4 + 32 * 48), (24, 384 + 32 + 96, 6144 + 384 * 4 + 32 * 24)],
)
def test_fabric_has_parsimons_counts(spines: int, switches: int, links: int) -> None:
    fabric = mp.Fabric(spines_per_plane=spines)
    graph = fabric.graph().splitlines()
    hosts = [name for line in graph if line.startswith("host ") for name in line.split()[1:]]
    declared = [name for line in graph if line.startswith("switch ") for name in line.split()[1:]]
    edges = [line.split() for line in graph if line.startswith("link ")]
    assert len(hosts) == fabric.hosts == 6144 and hosts[:2] == ["h0", "h1"] and hosts[-1] == "h6143"
    assert len(declared) == fabric.switches == switches
    assert len(edges) == links
    degree = Counter(n for e in edges for n in e[1:3])
    assert all(degree[h] == 1 for h in hosts)
    assert {degree[f"tor{r}"] for r in range(384)} == {16 + 4}
    assert {degree[f"fab{p}_{f}"] for p in range(8) for f in range(4)} == {48 + spines}
    assert {degree[f"spine{f}_{s}"] for f in range(4) for s in range(spines)} == {8}
    rates = Counter((e[1][0] == "h", e[3]) for e in edges)
    assert rates == {(True, "10Gbps"): 6144, (False, "40Gbps"): links - 6144}
    assert {e[4] for e in edges} == {"1us"}
    # Host h hangs from rack h // 16; fabric switch f of each pod reaches only plane f.
    assert ["link", "h17", "tor1", "10Gbps", "1us"] in edges
    assert not any(e[1].startswith("fab0_1") and e[2].startswith("spine0_") for e in edges)


def test_busiest_link_of_a_hand_computed_matrix() -> None:
    """Half the flows from rack 0 (pod 0), half from rack 2 (pod 1), all to rack 1 (pod 0) of a
    small fabric: each of rack 1's two hosts receives half of them on 10 Gbps, more per Gbps than
    any other link: 50% on it is 10 Gbps in all, a 1000 B flow every 800 ns."""
    fabric = mp.Fabric(pods=2, racks_per_pod=2, hosts_per_rack=2, fabs_per_pod=4, spines_per_plane=2)
    m = mp.RackMatrix([0, 1, 2], [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    busiest = mp.busiest_link(fabric, m)
    assert (busiest.link, busiest.gbps, busiest.fraction) == ("host down, rack 1", 10, 0.5)
    assert busiest.total_rate_bps(0.5) == 10e9
    assert mp.mean_interarrival_ns(busiest.total_rate_bps(0.5), 1000) == 800
    fractions = mp.link_fractions(fabric, m)
    assert fractions["host up, rack 0"] == (10, 0.25) and fractions["host up, rack 2"] == (10, 0.25)
    assert fractions["tor0 up"] == (40, 0.125) and fractions["tor1 down"] == (40, 0.25)
    # Rack 2's flows leave pod 1 over its 4 fabric switches x 2 spines each.
    assert fractions["fab1_* up to spines"] == (40, 0.5 / 8) and fractions["fab0_* up to spines"] == (40, 0.0)
    assert fractions["spines down to fab0_*"] == (40, 0.5 / 8)


def test_standin_matrix_has_the_originals_statistics(matrix: object) -> None:
    stats = mp.matrix_stats(matrix)
    targets = mp.STANDIN_TARGETS
    assert stats["racks"] == targets["racks"]
    assert stats["col_max"] == pytest.approx(targets["col_max"], rel=1e-9), "sets the offered load"
    for key in ("density", "row_cv", "col_cv", "row_col_corr", "intra_pod", "diagonal", "top10", "entry_max"):
        assert stats[key] == pytest.approx(targets[key], rel=0.1), key
    for key in ("row_max", "top1"):
        assert stats[key] == pytest.approx(targets[key], rel=0.2), key


def test_busiest_link_is_a_hot_racks_host_downlink_on_both_fabrics(matrix: object) -> None:
    full = mp.busiest_link(mp.Fabric(), matrix)
    half = mp.busiest_link(mp.Fabric(spines_per_plane=24), matrix)
    assert full == half and full.link.startswith("host down") and full.gbps == 10
    assert full.fraction == pytest.approx(mp.STANDIN_TARGETS["col_max"] / 16)
    # 5.75 M flows a second of 91 KB: about 28.7 M in parsimon's 5 s.
    gap = mp.mean_interarrival_ns(full.total_rate_bps(0.5), mp.cdf_mean(mp.WEBSERVER_STANDIN))
    assert gap == 174


def test_size_standin_keeps_the_originals_mean_and_quantiles() -> None:
    cdf = mp.WEBSERVER_STANDIN
    assert mp.cdf_mean(cdf) == pytest.approx(mp.WEBSERVER_MEAN_BYTES, abs=1)
    assert [y for _, y in cdf] == sorted(y for _, y in cdf) and cdf[-1][1] == 100
    rng = random.Random(3)
    ys = [y for _, y in cdf]
    sizes = sorted(mp.sample_size(cdf, ys, rng) for _ in range(20_000))
    assert sizes[0] >= 1
    assert sizes[10_000] == pytest.approx(1462, rel=0.05)  # the median
    assert sizes[18_000] == pytest.approx(62_931, rel=0.1)  # the 90th percentile


def test_traces_are_sorted_prefixes_that_load_the_busiest_link_to_half(generated: Path, matrix: object) -> None:
    short, long = rows(generated / "parsimon_1ms.csv"), rows(generated / "parsimon_2ms.csv")
    assert long[: len(short)] == short and len(long) > len(short) > 4000
    starts = [r[3] for r in long]
    assert starts == sorted(starts) and starts[0] == 0 and starts[-1] < 0.002
    assert all(src != dst and 0 <= src < 6144 and 0 <= dst < 6144 and size >= 1 for src, dst, size, _ in long)
    # Flows arrive at the rate that puts the busiest link at 50% (log-normal gaps of sigma 2 over
    # 11,500 flows: a few percent of noise).
    assert len(long) / 0.002 == pytest.approx(1e9 / 174, rel=0.15)
    busiest = mp.busiest_link(mp.Fabric(), matrix)
    rack = int(busiest.link.rsplit(" ", 1)[1])
    into = sum(1 for _, dst, _, _ in long if dst // 16 == rack) / len(long)
    assert into == pytest.approx(busiest.fraction * 16, rel=0.25)


def test_generated_scenarios_are_valid(generated: Path) -> None:
    names = sorted(p.name for p in generated.glob("*.toml"))
    assert names == ["parsimon_1ms.toml", "parsimon_2ms.toml", "parsimon_2to1_1ms.toml", "parsimon_2to1_2ms.toml"]
    for name in ("parsimon_1ms.toml", "parsimon_2to1_1ms.toml"):
        incast.load_scenario(str(generated / name))
    text = (generated / "parsimon_1ms.toml").read_text()
    assert 'ecn_threshold = { "10Gbps" = "30KB", "40Gbps" = "120KB" }' in text
    assert 'duration = "1ms"' in text and 'path = "parsimon_1ms.csv"' in text
