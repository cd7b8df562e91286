"""Writes the Parsimon study (NSDI 2023, Figure 7) as incast scenarios: the large benchmark of issue 41.
Run: python benches/make_parsimon.py [--windows 20ms,200ms] [--out DIR] [--matrix FILE] [--sizes FILE]

The network is Parsimon's Facebook fabric (parsimon-eval, `workload/topologies/cluster_b.dhall` and
`cluster_b_2_to_1.dhall` over `dhall/fb-fabric/funcs.dhall`): 8 pods of 48 racks of 16 hosts, 4
fabric switches per pod (every ToR links to each), 4 spine planes (fabric switch f of every pod
links to every spine of plane f) of 48 spines, or 24 in the 2:1 variant; hosts at 10 Gbps, every
other link at 40 Gbps, every link 1 us. It is written as a graph file (docs/scenario.md, "Graph
files"): incast's shortest-path ECMP finds the paths parsimon's `FabricRoutes` lists (4 between
racks of a pod, 4 x 48 between pods). Hosts are numbered rack by rack: host h is in rack h // 16,
pod h // 768.

The workload is parsimon-eval's `workload/src/flowgen.rs` (`FlowGenerator::generate`):
- a flow picks a (source rack, destination rack) pair with probability proportional to its entry
  in the rack-to-rack matrix, then a source and a destination host uniformly in those racks
  (distinct hosts) (`spatial.rs`, `SpatialWorkload::sample`);
- sizes follow the webserver distribution, an empirical CDF sampled by linear interpolation
  (`crates/utils/src/lib.rs`, `Ecdf`);
- inter-arrival times are log-normal with sigma 2 (`expts/fig_7/spec/*.mix.json`,
  `lognorm_sigma`), rounded to whole nanoseconds, with the mean that makes the busiest link run at
  `max_load` = 50%: the busiest directed link is the one with the most flows per Gbps; with f the
  fraction of flows crossing it and B its rate, the total offered rate is B x 0.5 / f and the mean
  inter-arrival is the mean flow size over that rate (`most_loaded_channel`, `mean_i_for_r`).
  parsimon-eval estimates f by routing 10,000 sampled flows per link (92 million here); this
  script computes its expectation exactly from the matrix (ECMP splits evenly), which the Monte
  Carlo estimate approaches.
- parsimon starts flows at 1 s and runs 5 s of arrivals; these traces start at 0 and hold each
  window's arrivals (20 ms, 200 ms). The window of w ms is the first w ms of the same sequence.

Data files. parsimon-eval carries no licence, so its Facebook rack matrix (`workload/spatials/
cluster_b.json`) and webserver size CDF (`workload/distributions/facebook/webserver-all.txt`) are
not copied here. The script ships stand-ins with the same statistics (below); `--matrix` and
`--sizes` read the originals from a parsimon-eval checkout instead.
- Rack matrix stand-in: the original has 324 racks with traffic (pods of 48, 48, 48, 48, 42, 39,
  30 and 21), placed at random among each pod's 48 ToRs as parsimon's `map_to` places them. It is
  drawn from a seeded model: racks are hot (30%, 8x the traffic) or not, times a log-normal
  factor; an entry is the source's weight times the destination's to the power 1.35, times a
  log-normal noise, lower within a pod and on the diagonal, 1.6% of entries empty; then entries,
  rows and columns are capped at the original's largest shares and the busiest destination rack is
  set to the original's share, which alone sets the offered load here (the busiest links are its
  hosts' downlinks). `STANDIN_TARGETS` lists the original's statistics, and
  tests/test_parsimon_bench.py holds the stand-in to them.
- Size stand-in: a CDF through the original's quantiles at 10/25/50/75/90/95/99% and its top 0.6%
  knot, whose largest size is set so that its mean is the original's, 91,343 B.

Transport: DCTCP as parsimon's ns-3 backend runs it (kwzhao/High-Precision-Congestion-Control,
branch `parsimon`, `simulation/run.py` at 4dad8cb, with parsimon-eval's `expts/fig_7/src/
experiment.rs`), each setting cited in the scenario file written.

The files go to `--out` (default benches/generated/, which git ignores): the graph files, one
trace (`parsimon_<window>.csv`, about 26 bytes a flow, 5.75 million flows a simulated second) and
one scenario per window and fabric (`parsimon_<window>.toml`, `parsimon_2to1_<window>.toml`).
`make bench-large` runs them (docs/notes/parallel-runs.md has the figures).
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

# --- the fabric -------------------------------------------------------------------------------

#: cluster_b.dhall: nr_pods, nr_racks_per_pod, nr_hosts_per_rack, nr_fabs_per_pod.
PODS, RACKS_PER_POD, HOSTS_PER_RACK, FABS_PER_POD = 8, 48, 16, 4
#: nr_spines_per_plane: 48 (cluster_b.dhall), 24 (cluster_b_2_to_1.dhall).
SPINES_FULL, SPINES_2TO1 = 48, 24
#: funcs.dhall, mkRack and mkPod/mkCluster: host links 10 Gbps, ToR-fabric and fabric-spine 40 Gbps.
HOST_GBPS, FABRIC_GBPS = 10, 40
#: funcs.dhall, mkLink: `delay = 1000` ns.
LINK_DELAY = "1us"


@dataclass(frozen=True)
class Fabric:
    """Parsimon's Facebook fabric (parsimon-eval `dhall/fb-fabric/funcs.dhall`, `mkCluster`)."""

    pods: int = PODS
    racks_per_pod: int = RACKS_PER_POD
    hosts_per_rack: int = HOSTS_PER_RACK
    fabs_per_pod: int = FABS_PER_POD
    spines_per_plane: int = SPINES_FULL

    @property
    def racks(self) -> int:
        return self.pods * self.racks_per_pod

    @property
    def hosts(self) -> int:
        return self.racks * self.hosts_per_rack

    @property
    def switches(self) -> int:
        return self.racks + self.pods * self.fabs_per_pod + self.fabs_per_pod * self.spines_per_plane

    def links(self) -> Iterator[Tuple[str, str, int]]:
        """Every link as (a, b, Gbps): hosts to ToRs, ToRs to their pod's fabric switches, fabric
        switch f of each pod to every spine of plane f."""
        for rack in range(self.racks):
            for i in range(self.hosts_per_rack):
                yield f"h{rack * self.hosts_per_rack + i}", f"tor{rack}", HOST_GBPS
        for rack in range(self.racks):
            pod = rack // self.racks_per_pod
            for f in range(self.fabs_per_pod):
                yield f"tor{rack}", f"fab{pod}_{f}", FABRIC_GBPS
        for pod in range(self.pods):
            for f in range(self.fabs_per_pod):
                for s in range(self.spines_per_plane):
                    yield f"fab{pod}_{f}", f"spine{f}_{s}", FABRIC_GBPS

    def graph(self) -> str:
        """The fabric as an incast graph file; hosts declared in rack order (host h in rack h // 16)."""
        out = [
            "# Parsimon's Facebook fabric (NSDI 2023 Figure 7; parsimon-eval dhall/fb-fabric/funcs.dhall):",
            f"# {self.pods} pods x {self.racks_per_pod} racks x {self.hosts_per_rack} hosts, "
            f"{self.fabs_per_pod} fabric switches per pod, {self.fabs_per_pod} planes of "
            f"{self.spines_per_plane} spines. Generated by benches/make_parsimon.py.",
        ]
        per_line = 64
        names = [f"h{h}" for h in range(self.hosts)]
        out += ["host " + " ".join(names[i : i + per_line]) for i in range(0, len(names), per_line)]
        switches = [f"tor{r}" for r in range(self.racks)]
        switches += [f"fab{p}_{f}" for p in range(self.pods) for f in range(self.fabs_per_pod)]
        switches += [f"spine{f}_{s}" for f in range(self.fabs_per_pod) for s in range(self.spines_per_plane)]
        out += ["switch " + " ".join(switches[i : i + per_line]) for i in range(0, len(switches), per_line)]
        out += [f"link {a} {b} {gbps}Gbps {LINK_DELAY}" for a, b, gbps in self.links()]
        return "\n".join(out) + "\n"


# --- the rack-to-rack matrix --------------------------------------------------------------------


@dataclass
class RackMatrix:
    """Flow weights between racks (global rack numbers, pod-major): `weights[i][j]` for source
    rack `racks[i]` and destination rack `racks[j]`."""

    racks: List[int]
    weights: List[List[float]]


#: The original matrix's statistics (parsimon-eval `workload/spatials/cluster_b.json`, computed by
#: this script's author from the file; shares of all flows): what the stand-in is drawn to match.
STANDIN_TARGETS: Dict[str, float] = {
    "racks": 324,
    "density": 0.9838,  # nonzero entries over 324^2
    "row_cv": 0.922,  # coefficient of variation of the racks' shares as sources
    "col_cv": 1.335,  # ... as destinations
    "row_max": 0.01363,  # the largest source rack's share
    "col_max": 0.01908,  # the largest destination rack's share: it sets the offered load
    "row_col_corr": 0.989,  # racks that send much receive much
    "intra_pod": 0.0568,  # flows between racks of one pod
    "diagonal": 0.0014,  # flows inside one rack
    "top1": 0.081,  # share of the largest 1% of entries
    "top10": 0.621,  # ... of the largest 10%
    "entry_max": 9.09e-5,  # the largest entry
}
#: Racks with traffic in each pod of the original (of 48 each), largest first.
STANDIN_ACTIVE_RACKS = (48, 48, 48, 48, 42, 39, 30, 21)
# The stand-in model's parameters, fitted by hand to STANDIN_TARGETS (seed 1).
_HOT_FRACTION, _HOT_FACTOR, _RACK_SIGMA, _COL_POWER = 0.3, 8.0, 0.4, 1.35
_ENTRY_SIGMA, _INTRA_POD, _DIAGONAL, _EMPTY = 0.2, 0.33, 0.35, 0.016
_CAP_ROUNDS = 60


def standin_matrix(fabric: Fabric, seed: int = 1) -> RackMatrix:
    """A rack matrix with the statistics of parsimon-eval's (module docstring, `STANDIN_TARGETS`)."""
    rng = random.Random(seed)
    racks: List[int] = []
    for p, active in enumerate(STANDIN_ACTIVE_RACKS[: fabric.pods]):
        slots = list(range(fabric.racks_per_pod))
        rng.shuffle(slots)
        racks += sorted(p * fabric.racks_per_pod + r for r in slots[:active])
    n = len(racks)
    pod = [r // fabric.racks_per_pod for r in racks]
    send: List[float] = []
    for _ in range(n):
        factor = _HOT_FACTOR if rng.random() < _HOT_FRACTION else 1.0
        send.append(factor * rng.lognormvariate(0, _RACK_SIGMA))
    receive = [x**_COL_POWER for x in send]
    w = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if rng.random() < _EMPTY:
                continue
            v = send[i] * receive[j] * rng.lognormvariate(0, _ENTRY_SIGMA)
            if pod[i] == pod[j]:
                v *= _INTRA_POD
            if i == j:
                v *= _DIAGONAL
            w[i][j] = v
    for _ in range(_CAP_ROUNDS):
        cap = STANDIN_TARGETS["entry_max"] * sum(map(sum, w))
        w = [[min(x, cap) for x in row] for row in w]
        total = sum(map(sum, w))
        for i in range(n):
            share = sum(w[i]) / total
            if share > STANDIN_TARGETS["row_max"]:
                w[i] = [x * STANDIN_TARGETS["row_max"] / share for x in w[i]]
        total = sum(map(sum, w))
        for j in range(n):
            share = sum(w[i][j] for i in range(n)) / total
            if share > STANDIN_TARGETS["col_max"]:
                for i in range(n):
                    w[i][j] *= STANDIN_TARGETS["col_max"] / share
    # The busiest destination rack to the original's share: c' / (T - c + c') = t.
    total = sum(map(sum, w))
    cols = [sum(w[i][j] for i in range(n)) for j in range(n)]
    hot = max(range(n), key=cols.__getitem__)
    t = STANDIN_TARGETS["col_max"]
    factor = t * (total - cols[hot]) / (cols[hot] * (1 - t))
    for i in range(n):
        w[i][hot] *= factor
    return RackMatrix(racks, w)


def read_parsimon_matrix(path: Path, fabric: Fabric, seed: int = 1) -> RackMatrix:
    """parsimon-eval's `SpatialData` JSON (`workload/spatials/cluster_b.json`): pods in the file's
    order take pods 0, 1, ...; each pod's racks take ToRs of that pod at random, as `map_to` does."""
    data = json.loads(path.read_text(encoding="utf-8"))
    inner: List[List[int]] = data["matrix"]["inner"]
    names: List[str] = data["matrix"]["idx2name"]
    pod2tors: Dict[str, List[str]] = data["pod2tors"]
    if len(pod2tors) != fabric.pods:
        raise SystemExit(f"--matrix: {len(pod2tors)} pods, the fabric has {fabric.pods}")
    rng = random.Random(seed)
    rack_of: Dict[str, int] = {}
    for pod, tors in enumerate(pod2tors.values()):
        slots = list(range(fabric.racks_per_pod))
        rng.shuffle(slots)
        for name, slot in zip(tors, slots):
            rack_of[name] = pod * fabric.racks_per_pod + slot
    n = len(names)
    weights = [[float(inner[i][j]) for j in range(n)] for i in range(n)]
    return RackMatrix([rack_of[name] for name in names], weights)


def matrix_stats(m: RackMatrix, racks_per_pod: int = RACKS_PER_POD) -> Dict[str, float]:
    """The statistics `STANDIN_TARGETS` lists, of any matrix."""
    n = len(m.racks)
    total = sum(map(sum, m.weights))
    rows = [sum(r) / total for r in m.weights]
    cols = [sum(m.weights[i][j] for i in range(n)) / total for j in range(n)]

    def mean(xs: Sequence[float]) -> float:
        return sum(xs) / len(xs)

    def sd(xs: Sequence[float]) -> float:
        mu = mean(xs)
        return math.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs))

    mr, mc = mean(rows), mean(cols)
    corr = sum((a - mr) * (b - mc) for a, b in zip(rows, cols)) / n / (sd(rows) * sd(cols))
    pod = [r // racks_per_pod for r in m.racks]
    entries = sorted((x / total for row in m.weights for x in row), reverse=True)
    return {
        "racks": float(n),
        "density": sum(1 for x in entries if x > 0) / len(entries),
        "row_cv": sd(rows) / mr,
        "col_cv": sd(cols) / mc,
        "row_max": max(rows),
        "col_max": max(cols),
        "row_col_corr": corr,
        "intra_pod": sum(m.weights[i][j] for i in range(n) for j in range(n) if pod[i] == pod[j]) / total,
        "diagonal": sum(m.weights[i][i] for i in range(n)) / total,
        "top1": sum(entries[: len(entries) // 100]),
        "top10": sum(entries[: len(entries) // 10]),
        "entry_max": entries[0],
    }


# --- flow sizes ---------------------------------------------------------------------------------

#: Stand-in for parsimon-eval's webserver CDF (`workload/distributions/facebook/webserver-all.txt`):
#: (bytes, percent) through the original's quantiles at 10/25/50/75/90/95/99% and its knot at
#: 99.3953%, closed at the size that gives the original's mean (91,343 B by `Ecdf::mean`).
WEBSERVER_MEAN_BYTES = 91_343
_WEBSERVER_KNOTS: List[Tuple[float, float]] = [
    (0, 0.0),
    (221, 10.0),
    (544, 25.0),
    (1_462, 50.0),
    (5_000, 75.0),
    (62_931, 90.0),
    (222_216, 95.0),
    (632_413, 99.0),
    (1_304_462, 99.3953),
]


def _closing_size(knots: List[Tuple[float, float]], mean: float) -> float:
    """The last knot's size (at 100%) that gives the CDF `mean` by the trapezoid rule."""
    partial = sum((x0 + x1) / 2 * (y1 - y0) for (x0, y0), (x1, y1) in zip(knots, knots[1:])) / 100
    x_last, y_last = knots[-1]
    return 2 * (mean - partial) * 100 / (100 - y_last) - x_last


WEBSERVER_STANDIN: List[Tuple[float, float]] = _WEBSERVER_KNOTS + [
    (round(_closing_size(_WEBSERVER_KNOTS, WEBSERVER_MEAN_BYTES)), 100.0)
]


def read_cdf(path: Path) -> List[Tuple[float, float]]:
    """A CDF file as parsimon-eval reads it (`read_ecdf`): `size percent` per line, to 100."""
    pts = [(float(a), float(b)) for a, b in (line.split() for line in path.read_text().splitlines() if line.strip())]
    if not pts or abs(pts[-1][1] - 100) > 1e-9:
        raise SystemExit(f"--sizes: {path} must end at 100 percent")
    return pts


def cdf_mean(cdf: Sequence[Tuple[float, float]]) -> float:
    """`Ecdf::mean`: the mean of the linearly interpolated CDF (trapezoids)."""
    return sum((x0 + x1) / 2 * (y1 - y0) for (x0, y0), (x1, y1) in zip(cdf, cdf[1:])) / 100


def sample_size(cdf: Sequence[Tuple[float, float]], ys: Sequence[float], rng: random.Random) -> int:
    """`Ecdf::sample`: a uniform percentile, interpolated linearly; rounded to bytes, at least 1
    (parsimon would round the smallest draws to a 0-byte flow, which incast does not run)."""
    y = rng.uniform(0.0, 100.0)
    i = bisect.bisect_left(ys, y)
    if i == 0:
        return max(1, round(cdf[0][0]))
    (x0, y0), (x1, y1) = cdf[i - 1], cdf[i]
    return max(1, round(x0 + (x1 - x0) / (y1 - y0) * (y - y0)))


# --- the load -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Busiest:
    """The directed link with the most flows per Gbps (`most_loaded_channel`)."""

    link: str
    gbps: int
    fraction: float  # of all flows that cross it

    def total_rate_bps(self, max_load: float) -> float:
        """The offered rate that loads this link to `max_load`: B x load / f."""
        return self.gbps * 1e9 * max_load / self.fraction


def link_fractions(fabric: Fabric, m: RackMatrix) -> Dict[str, Tuple[int, float]]:
    """Expected fraction of flows on every directed link with traffic, with its rate: hosts are
    picked uniformly in their racks, ECMP splits evenly over a ToR's fabric switches and a fabric
    switch's spines."""
    n = len(m.racks)
    total = sum(map(sum, m.weights))
    h, f, s = fabric.hosts_per_rack, fabric.fabs_per_pod, fabric.spines_per_plane
    pod = [r // fabric.racks_per_pod for r in m.racks]
    out: Dict[str, Tuple[int, float]] = {}
    pod_out = [0.0] * fabric.pods
    pod_in = [0.0] * fabric.pods
    for i in range(n):
        row = sum(m.weights[i]) / total
        col = sum(m.weights[k][i] for k in range(n)) / total
        diag = m.weights[i][i] / total
        rack = m.racks[i]
        out[f"host up, rack {rack}"] = (HOST_GBPS, row / h)
        out[f"host down, rack {rack}"] = (HOST_GBPS, col / h)
        out[f"tor{rack} up"] = (FABRIC_GBPS, (row - diag) / f)
        out[f"tor{rack} down"] = (FABRIC_GBPS, (col - diag) / f)
        for j in range(n):
            if pod[i] != pod[j]:
                pod_out[pod[i]] += m.weights[i][j] / total
                pod_in[pod[j]] += m.weights[i][j] / total
    for p in range(fabric.pods):
        out[f"fab{p}_* up to spines"] = (FABRIC_GBPS, pod_out[p] / (f * s))
        out[f"spines down to fab{p}_*"] = (FABRIC_GBPS, pod_in[p] / (f * s))
    return out


def busiest_link(fabric: Fabric, m: RackMatrix) -> Busiest:
    """`most_loaded_channel`, in expectation."""
    fractions = link_fractions(fabric, m)
    name = max(fractions, key=lambda k: fractions[k][1] / fractions[k][0])
    gbps, fraction = fractions[name]
    return Busiest(name, gbps, fraction)


def mean_interarrival_ns(total_rate_bps: float, mean_size_bytes: float) -> int:
    """`mean_i_for_r`: the mean gap between flows, whole nanoseconds."""
    return round(1e9 / (total_rate_bps / 8 / round(mean_size_bytes)))


# --- the trace ----------------------------------------------------------------------------------


class PairSampler:
    """`SpatialWorkload::sample`: a rack pair by weight, then distinct hosts uniformly in them."""

    def __init__(self, m: RackMatrix, hosts_per_rack: int) -> None:
        self.n = len(m.racks)
        self.racks = m.racks
        self.h = hosts_per_rack
        self.cumulative: List[float] = []
        acc = 0.0
        for row in m.weights:
            for x in row:
                acc += x
                self.cumulative.append(acc)

    def sample(self, rng: random.Random) -> Tuple[int, int]:
        idx = bisect.bisect_right(self.cumulative, rng.random() * self.cumulative[-1])
        idx = min(idx, len(self.cumulative) - 1)
        src_rack, dst_rack = self.racks[idx // self.n], self.racks[idx % self.n]
        while True:
            src = src_rack * self.h + rng.randrange(self.h)
            dst = dst_rack * self.h + rng.randrange(self.h)
            if src != dst:
                return src, dst


def write_traces(
    paths: Dict[int, Path], m: RackMatrix, cdf: Sequence[Tuple[float, float]], mean_gap_ns: int,
    sigma: float, hosts_per_rack: int, seed: int,
) -> Dict[int, int]:
    """One pass of arrivals from 0 written to every window's file (window in ns -> path): each
    holds the flows that start before its end. Returns the flows per window."""
    rng = random.Random(seed)
    pairs = PairSampler(m, hosts_per_rack)
    ys = [y for _, y in cdf]
    mu = math.log(mean_gap_ns) - sigma**2 / 2  # lognorm_mean_to_mu
    files = {w: p.open("w", encoding="utf-8") for w, p in paths.items()}
    counts = dict.fromkeys(paths, 0)
    longest = max(paths)
    try:
        for f in files.values():
            f.write("src,dst,size_bytes,start_s\n")
        now = 0
        while now < longest:
            src, dst = pairs.sample(rng)
            size = sample_size(cdf, ys, rng)
            line = f"{src},{dst},{size},{now // 10**9}.{now % 10**9:09d}\n"
            for w, f in files.items():
                if now < w:
                    f.write(line)
                    counts[w] += 1
            now += round(rng.lognormvariate(mu, sigma))
    finally:
        for f in files.values():
            f.close()
    return counts


# --- the scenario -------------------------------------------------------------------------------

HPCC = "kwzhao/High-Precision-Congestion-Control, branch parsimon, simulation/run.py (4dad8cb)"


def scenario(name: str, graph: str, trace: str, window_ms: int, busiest: Busiest, flows: int) -> str:
    """The scenario replaying `trace` on `graph` with the study's DCTCP, every setting cited."""
    return f"""# Generated by benches/make_parsimon.py: the Parsimon study (NSDI 2023, Figure 7), {window_ms} ms of
# arrivals ({flows} flows) on {graph}. Busiest link ({busiest.link}, {busiest.gbps} Gbps) at 50%:
# {busiest.total_rate_bps(0.5) / 1e12:.3f} Tbps offered. See the script's docstring for the sources.
seed = 1

[topology]
kind = "graph"
file = "{graph}"

[switch]
# {HPCC}, dctcp: KMIN_MAP = KMAX_MAP = 30 KB x rate / 10 Gbps with PMAX 1, step marking at K.
ecn_threshold = {{ "10Gbps" = "30KB", "40Gbps" = "120KB" }}
# Ibid.: BUFFER_SIZE = 16 x bw / 50 with bw = 10, 3 under Python 2, MB of one shared buffer per
# switch (scratch/third.cc: ConfigBufferSize(buffer_size * 1024 * 1024)). ns-3's ports are
# lossless (PFC); incast has no PFC and drops at the dynamic threshold instead.
shared_buffer = "3145728B"

[transport]
stack = "linux"
protocol = "dctcp"
mss = 1000                  # ibid.: PACKET_PAYLOAD_SIZE 1000
receive_window = "18000B"   # parsimon-eval expts/fig_7/src/experiment.rs: WINDOW 18000 B (FIXED_WIN, HAS_WIN 1)
dctcp_g = 0.0625            # ibid.: DCTCP_GAIN 0.0625 (run.py, dctcp: EWMA_GAIN g=0.0625)
delayed_ack = false         # run.py: L2_ACK_INTERVAL 1, an ACK per packet
handshake = false           # RDMA queue pairs start sending at once
min_rto = "2ms"             # incast's: ns-3's lossless fabric never times out (docs/scenario.md, RTOs on fast networks)
initial_rto = "2ms"

[run]
duration = "{window_ms}ms"   # the window: flows still running at its end are cut off
max_flows = {max(flows, 1)}

[[workload]]
kind = "trace"
path = "{trace}"
"""


def parse_ms(text: str) -> int:
    if not text.endswith("ms") or not text[:-2].isdigit() or int(text[:-2]) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a window is a whole number of ms, like 20ms")
    return int(text[:-2])


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", default="20ms,200ms", help="comma-separated windows of arrivals")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "generated")
    parser.add_argument("--matrix", type=Path, help="parsimon-eval workload/spatials/cluster_b.json")
    parser.add_argument("--sizes", type=Path, help="parsimon-eval .../facebook/webserver-all.txt")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sigma", type=float, default=2.0, help="log-normal sigma of inter-arrivals")
    parser.add_argument("--max-load", type=float, default=0.5, help="load of the busiest link")
    args = parser.parse_args(argv)
    windows = sorted({parse_ms(w) for w in args.windows.split(",")})
    args.out.mkdir(parents=True, exist_ok=True)
    full = Fabric()
    m = read_parsimon_matrix(args.matrix, full, args.seed) if args.matrix else standin_matrix(full, args.seed)
    cdf = read_cdf(args.sizes) if args.sizes else WEBSERVER_STANDIN
    fabrics = {"parsimon": full, "parsimon_2to1": Fabric(spines_per_plane=SPINES_2TO1)}
    busiest = {name: busiest_link(fab, m) for name, fab in fabrics.items()}
    rates = {name: b.total_rate_bps(args.max_load) for name, b in busiest.items()}
    if len({round(r) for r in rates.values()}) != 1:
        # The 2:1 fabric's busiest link is in the fabric: its own trace would be needed.
        raise SystemExit(f"the two fabrics' offered loads differ ({rates}); one trace cannot serve both")
    mean_gap = mean_interarrival_ns(rates["parsimon"], cdf_mean(cdf))
    traces = {w: args.out / f"parsimon_{w}ms.csv" for w in windows}
    counts = write_traces({w * 10**6: p for w, p in traces.items()}, m, cdf, mean_gap, args.sigma,
                          full.hosts_per_rack, args.seed)
    for name, fab in fabrics.items():
        (args.out / f"{name}.graph").write_text(fab.graph(), encoding="utf-8")
        for w in windows:
            text = scenario(name, f"{name}.graph", traces[w].name, w, busiest[name], counts[w * 10**6])
            (args.out / f"{name}_{w}ms.toml").write_text(text, encoding="utf-8")
            print(args.out / f"{name}_{w}ms.toml")
    b = busiest["parsimon"]
    print(f"busiest link: {b.link} ({b.gbps} Gbps, {b.fraction:.6f} of flows); offered "
          f"{rates['parsimon'] / 1e12:.3f} Tbps; mean gap {mean_gap} ns "
          f"({1e9 / mean_gap / 1e6:.2f} M flows/s, {5e9 / mean_gap / 1e6:.1f} M in 5 s); "
          + ", ".join(f"{w} ms: {counts[w * 10**6]} flows" for w in windows))


if __name__ == "__main__":
    main()
