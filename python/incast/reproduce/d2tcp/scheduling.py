"""D2TCP's deadline-aware scheduling figure: four flows on the 10 Gbps testbed, each flow's
throughput over time under DCTCP and under D2TCP.

The figure is in the talk's slides ("D2TCP: Deadline-aware Scheduling", four curves Flow-0 to
Flow-3 in a DCTCP panel and a D2TCP panel): "DCTCP -> All flows get same b/w irrespective of
deadline; D2TCP -> Near-deadline flows get more bandwidth". The section of the paper that held it
is missing from our copy, so the setting below is the testbed of Section 4.1.3 and the slides
("Real Implementation") with our assumptions for everything the slide does not show:

- The testbed as `d2tcp-fig7` runs it (`incast.reproduce.d2tcp.testbed`): 16 machines on one
  ToR with 10 Gbps ports and a 4 MB shared buffer, DCTCP's K for 10 Gbps (65 packets), 25 us per
  link (an assumption of that reproduction), the `linux` stack with DCTCP's alpha starting at 0
  (the DCTCP patch the testbed ran), g = 1/16, n = 2.
- Four senders (machines 1-4), one flow each, to one receiver (machine 0): the slide's four
  flows share one bottleneck, the receiver's downlink, or "the same b/w" would not be the fair
  outcome. Assumed.
- Every flow carries 10 MB, the testbed's long-flow size ("long-lived flows of 10MB", Section
  4.1.3), so that the flows differ in their deadlines only and "irrespective of deadline" is
  what equal shares show. Assumed; the quick variant uses 2 MB.
- They start together, within one round trip (100 us) of each other, at offsets drawn from the
  run's seed, and which machine sends which deadline is drawn from the seed too: the seeds vary
  the phase of the flows' sawtooths and where each deadline enters the switch, so that neither
  can line up with the order of the deadlines. Assumed.
- Deadlines: flow i's deadline is T / d_i, where T is the time the four flows need at equal
  shares of the link (4 x 10 MB at the link's goodput) and d_i = 2^(3/4), 2^(1/4), 2^(-1/4),
  2^(-3/4): at the fair share, the flows' deadline imminence d = Tc / D spreads evenly (in
  log) over D2TCP's range [1/2, 2], Flow-0 nearest, Flow-3 farthest. Assumed: the slide does not
  print its deadlines; the spread is chosen so that no flow starts at a clamp end and the order
  of the d's is the order of the deadlines.

What is judged is each flow's mean throughput while all four are active: from the first
throughput sample (every flow has started) to the last sample before the first flow completes,
over ten seeds. Within one seed, four DCTCP flows on identical paths do not share a few hundred
round trips exactly equally (which flow is ahead changes with the seed); "the same b/w" is judged
on each flow's share averaged over the seeds, and the spread within each seed is in the table.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Sequence, Tuple

from incast.protocols import labels
from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.d2tcp import testbed
from incast.reproduce.figures import BAR, Line, Mark, Panel, Plot
from incast.reproduce.figures import Series as Curve
from incast.reproduce.verdict import NON_NEGATIVE, Claim, Text, Tolerance, every, order_claim, ratio_claim

if TYPE_CHECKING:
    import pyarrow as pa

SENDERS = (1, 2, 3, 4)
"""Machines of the four flows; machine 0 receives them all."""
RECEIVER = 0
SIZE_BYTES = 10_000_000
QUICK_SIZE_BYTES = 2_000_000
D_AT_FAIR_SHARE = (2 ** 0.75, 2 ** 0.25, 2 ** -0.25, 2 ** -0.75)
"""Each flow's d = Tc / D when the four share the link equally, Flow-0 first."""
START_SPREAD_S = 100e-6
"""The flows start within this much of each other: one round trip (4 links of 25 us)."""
PAYLOAD_SHARE = 1448 / 1500
"""Payload per byte on the wire of a full `linux` segment (1448 B + 52 B of headers and
timestamps; docs/scenario.md, "Bytes on the wire")."""
SAMPLE_S = 0.5e-3
QUICK_SAMPLE_S = 0.2e-3
SIMILAR = Tolerance(1.05, "the slides' own measure of similar bandwidth: 'Long-lived flows achieve similar b/w "
                           "under D2TCP (within 5% of TCP)'")
"""How far from the four flows' mean a flow's share may lie and still be "the same b/w"."""
PROTOCOL = "transport.protocol"
LABELS = labels(["dctcp", "d2tcp"])
FIGURE_POINTS = 60
"""About this many points per throughput curve: the figure's bins are whole numbers of samples."""
MIN_BIN_S = 4 * START_SPREAD_S
"""The figure's bins are at least four round trips long: over fewer, a flow's rate shows its
window's sawtooth and its ACK clock rather than its share of the link."""


def size_bytes(ctx: Context) -> int:
    return QUICK_SIZE_BYTES if ctx.quick else SIZE_BYTES


def sample_s(ctx: Context) -> float:
    return QUICK_SAMPLE_S if ctx.quick else SAMPLE_S


def fair_completion_s(size: int) -> float:
    """T: the time the four flows need at equal shares of the link's goodput."""
    return len(SENDERS) * size * 8 / (testbed.LINK_RATE_BPS * PAYLOAD_SHARE)


def deadlines_s(size: int) -> List[float]:
    """Each flow's deadline, relative to its start: T / d_i."""
    return [fair_completion_s(size) / d for d in D_AT_FAIR_SHARE]


def placement(seed: int) -> List[Tuple[int, float]]:
    """Flow-i's sender and start, drawn from the seed: the senders in a random order, each start
    within `START_SPREAD_S`."""
    draw = random.Random(seed)
    senders = draw.sample(SENDERS, len(SENDERS))
    return [(src, draw.uniform(0.0, START_SPREAD_S)) for src in senders]


def scheduling_scenario(ctx: Context) -> Dict[str, Any]:
    """The four flows on the testbed (see the module's docstring); the sweep sets the protocol."""
    size = size_bytes(ctx)
    flows = [{"src": src, "dst": RECEIVER, "size_bytes": size, "start_s": start, "deadline_s": deadline}
             for (src, start), deadline in zip(placement(ctx.seed or 1), deadlines_s(size))]
    return {
        "topology": {"kind": "star", "hosts": testbed.HOSTS, "link_rate": "10Gbps", "link_delay": "25us"},
        "switch": {"shared_buffer": "4MB", "ecn_threshold": "auto"},
        "transport": {"stack": "linux", "protocol": "dctcp", "dctcp_initial_alpha": 0.0},
        "workload": [{"kind": "flows", "flows": flows}],
        "output": {"flow_throughput_interval": f"{sample_s(ctx) * 1e6:g}us"},
    }


Series = Dict[int, List[Tuple[float, int]]]
"""Per flow (Flow-i, the i-th nearest deadline): (time in s, delivered bytes) at each sample, in
time order."""


def _series(samples: "pa.Table", protocol: str, flow_of: Mapping[int, int]) -> Series:
    """The samples of `protocol`'s run, keyed by Flow-i (`flow_of` maps the run's flow ids)."""
    out: Series = {}
    rows = samples.select([PROTOCOL, "flow_id", "time_s", "delivered_bytes"]).to_pylist()
    for r in sorted((r for r in rows if r[PROTOCOL] == protocol), key=lambda r: (r["flow_id"], r["time_s"])):
        out.setdefault(flow_of[r["flow_id"]], []).append((r["time_s"], r["delivered_bytes"]))
    return out


def shares(series: Series, finish_s: Mapping[int, float]) -> Tuple[Dict[int, float], float, float]:
    """Each flow's mean throughput (bits/s) while all are active, and that interval (t0, t1): from
    the first sample at which every flow has a row to the last sample before the first flow
    completes."""
    t0 = max(points[0][0] for points in series.values())
    first_done = min(finish_s.values())
    t1 = max(t for t, _ in series[min(finish_s, key=lambda f: finish_s[f])] if t <= first_done)
    if not t1 > t0:
        raise ValueError(f"no interval with all {len(series)} flows active between samples ({t0} s, {t1} s)")

    def delivered(points: Sequence[Tuple[float, int]], t: float) -> int:
        return next(b for s, b in points if s == t)

    return ({f: (delivered(p, t1) - delivered(p, t0)) * 8 / (t1 - t0) for f, p in series.items()}, t0, t1)


def rates(points: Sequence[Tuple[float, int]]) -> List[Tuple[float, float]]:
    """(time, bits/s) over each sampling interval, from delivered bytes (0 before the first row)."""
    out: List[Tuple[float, float]] = []
    prev_t, prev_b = 0.0, 0
    for t, b in points:
        if t > prev_t:
            out.append((t, (b - prev_b) * 8 / (t - prev_t)))
        prev_t, prev_b = t, b
    return out


def grid(sample: float, horizon_s: float) -> Tuple[int, int]:
    """The figure's common time grid: (samples per bin, bins), bins of whole samples from time 0
    to at least `horizon_s`, about `FIGURE_POINTS` of them and none shorter than `MIN_BIN_S`."""
    samples = math.ceil(horizon_s / sample - 1e-9)
    per_bin = max(1, round(samples / FIGURE_POINTS), math.ceil(MIN_BIN_S / sample - 1e-9))
    return per_bin, math.ceil(samples / per_bin)


def binned(points: Sequence[Tuple[float, int]], size: int, sample: float, per_bin: int,
           bins: int) -> List[float]:
    """A flow's mean throughput (bits/s) over each bin of the common grid: bin j spans samples
    j * per_bin to (j + 1) * per_bin. The engine samples at whole multiples of the interval from
    time 0, a flow from its first sample after it starts to its last before it completes: before
    its rows the flow has delivered nothing, after them all `size` bytes, so that every seed's
    curve has a value at every bin."""
    at = {round(t / sample): b for t, b in points}
    first, last = min(at), max(at)
    if len(at) != last - first + 1:
        raise ValueError(f"the throughput samples between {first * sample} s and {last * sample} s have gaps")

    def delivered(k: int) -> int:
        return 0 if k < first else size if k > last else at[k]

    width = per_bin * sample
    return [(delivered((j + 1) * per_bin) - delivered(j * per_bin)) * 8 / width for j in range(bins)]


def figure(ctx: Context) -> Outcome:
    size = size_bytes(ctx)
    result = ctx.sweep("d2tcp-scheduling", scheduling_scenario(ctx), grid={PROTOCOL: list(LABELS)})
    flows = result.flows().select([PROTOCOL, "flow_id", "src", "start_s", "finish_s", "met_deadline"])
    samples = result.dataset("throughput").to_table()
    deadlines = deadlines_s(size)
    names = [f"Flow-{i} ({1e3 * d:.1f} ms)" for i, d in enumerate(deadlines)]

    per: Dict[str, Dict[int, float]] = {}
    series: Dict[str, Series] = {}
    share_rows: List[Dict[str, Any]] = []
    series_rows: List[Dict[str, Any]] = []
    for p in LABELS:
        flow_of = {src: i for i, (src, _) in enumerate(placement(ctx.seed or 1))}
        mine = {flow_of[f["src"]]: f for f in flows.to_pylist() if f[PROTOCOL] == p}
        series[p] = _series(samples, p, {f["flow_id"]: i for i, f in mine.items()})
        per[p], t0, t1 = shares(series[p], {i: f["finish_s"] for i, f in mine.items()})
        for i, f in sorted(mine.items()):
            share_rows.append({"protocol": p, "flow": i, "sender": f["src"], "deadline_ms": 1e3 * deadlines[i],
                               "mean_gbps": per[p][i] / 1e9, "from_ms": 1e3 * t0, "to_ms": 1e3 * t1,
                               "finish_ms": 1e3 * (f["finish_s"] - f["start_s"]), "met_deadline": f["met_deadline"]})
        series_rows += [{"protocol": p, "flow": i, "time_ms": 1e3 * t, "gbps": r / 1e9}
                        for i, points in sorted(series[p].items()) for t, r in rates(points)]

    # Each flow's share over the four flows' mean: what DCTCP's claim judges.
    ratio = {p: {i: v / (sum(per[p].values()) / len(per[p])) for i, v in per[p].items()} for p in LABELS}
    per_bin, bins = grid(sample_s(ctx), max(deadlines))
    width_ms = 1e3 * per_bin * sample_s(ctx)
    times = [round((j + 0.5) * width_ms, 9) for j in range(bins)]
    flow_names = [f"Flow-{i}" for i in range(len(deadlines))]
    fig = Plot(f"D2TCP's deadline-aware scheduling: four {size // 1_000_000} MB flows into one 10 Gbps port", [
        *(Panel(f"{LABELS[p]}: each flow's throughput ({width_ms:g} ms bins)", "time (ms)", "throughput (Gbps)",
                legend_size=7, series=[
                    Curve(names[i], dict(zip(times, (r / 1e9 for r in binned(points, size, sample_s(ctx), per_bin,
                                                                              bins)))), within=NON_NEGATIVE)
                    for i, points in sorted(series[p].items())],
                marks=[Mark(1e3 * d, f"Flow-{i}'s deadline") for i, d in enumerate(deadlines)])
          for p in LABELS),
        Panel("DCTCP's claim: each flow's share over the four's mean, all four active", "flow (nearest deadline first)",
              "share / mean of the four", legend_size=7,
              lines=[Line(1 / SIMILAR.factor, f"within {100 * (SIMILAR.factor - 1):.0f}% (the rule)", paper=False,
                          to=SIMILAR.factor)],
              series=[Curve(LABELS[p], {flow_names[i]: ratio[p][i] for i in sorted(per[p])}, kind=BAR,
                            within=NON_NEGATIVE) for p in LABELS]),
        Panel("D2TCP's claim: mean throughput while all four are active", "flow (nearest deadline first)",
              "throughput (Gbps)", legend_size=7,
              series=[Curve(LABELS[p], {flow_names[i]: per[p][i] / 1e9 for i in sorted(per[p])}, kind=BAR,
                            within=NON_NEGATIVE) for p in LABELS])],
        columns=2)

    spread = max(abs(100 * (r - 1)) for r in ratio["dctcp"].values())
    claims: List[Claim] = [
        every("DCTCP: all flows get the same bandwidth irrespective of deadline (slides, 'D2TCP: Deadline-aware "
              "Scheduling'); ours: each flow's share over the four flows' mean, while all four are active",
              "equal shares",
              {names[i]: ratio_claim(f"{names[i]}'s share over the mean", 1.0, ratio["dctcp"][i], tolerance=SIMILAR,
                                     fmt="{:.3f}", within=NON_NEGATIVE)
               for i in sorted(ratio["dctcp"])},
              why=Text(lambda f: "DCTCP does not know the deadlines, so a flow's share depends on its deadline only "
                       f"by chance; within one seed the four shares lie up to {f['spread']:.0f}% from their mean (the "
                       "mean over the seeds of each seed's largest departure), which flow is ahead changing with the "
                       "seed, and the mean over the seeds keeps part of that noise (see each flow's interval)",
                       {"spread": spread})),
        order_claim(
            "D2TCP: near-deadline flows get more bandwidth (ours: the flows' mean throughput while all four are "
            "active, in the order of their deadlines, farthest first)", "nearest deadline, most bandwidth",
            {names[i]: per["d2tcp"][i] / 1e9 for i in sorted(per["d2tcp"])}, names[::-1], fmt="{:.2f}",
            within=NON_NEGATIVE,
            why="the flows' shares do not follow their deadlines: D2TCP's d is clamped to [1/2, 2] and each flow's "
                "d drifts as its share moves its Tc"),
    ]
    notes = (f"Four {size // 1_000_000} MB flows from machines 1-4 to machine 0 of the testbed (16 machines, 10 Gbps, "
             "4 MB shared buffer, K = 65 packets, 25 us links, `linux` stack with DCTCP's alpha from 0), starting "
             f"within {START_SPREAD_S * 1e6:g} us of each other (offsets, and which machine sends which deadline, "
             "drawn from the seed). Deadlines "
             + ", ".join(f"{1e3 * d:.1f}" for d in deadlines)
             + f" ms: T / d with T = {1e3 * fair_completion_s(size):.1f} ms, the four flows' time at equal shares, "
             "and d = 2^(3/4), 2^(1/4), 2^(-1/4), 2^(-3/4). Throughput sampled every "
             f"{sample_s(ctx) * 1e3:g} ms; shares judged while all four are active: from the first sample at which "
             "every flow has started to the last before the first completes (each seed's window: `from_ms`, "
             "`to_ms` of the `shares` table). The figure's upper panels put every seed's samples on one common time "
             f"grid, bins of {width_ms:g} ms from time 0 (a flow has delivered nothing before its first sample and "
             "all its bytes after its last), so that the seeds join bin by bin: each point is the mean over the "
             "seeds of the flow's throughput in the bin, its band the 95% confidence interval of that mean; the grey "
             "lines, in each flow's line style, are the deadlines (counted from time 0; each flow's runs from its "
             f"start, within {START_SPREAD_S * 1e6:g} us). The lower panels are the numbers the claims judge, the "
             "mean over the seeds with its 95% interval as an error bar. The module docstring of "
             "`incast.reproduce.d2tcp.scheduling` gives every assumption; the "
             "slide prints no setting.")
    return Outcome(claims=claims, tables={"shares": table(share_rows), "throughput": table(series_rows)}, figure=fig,
                   notes=notes)


REPRODUCTIONS = (
    Reproduction("d2tcp-scheduling", "D2TCP", "Deadline-aware scheduling (talk slides): four flows' throughput over "
                 "time on the testbed, DCTCP and D2TCP", figure, seeds=10),
)
