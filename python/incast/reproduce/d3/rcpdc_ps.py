"""RCPdc against processor sharing: how close an explicit fair-share allocator built from D3's
router comes to the discipline it stands for.

D3 Section 6.1 introduces RCPdc as D3 without deadlines: "the fair share is explicitly
communicated to the hosts (i.e., no probe-based exploration is required) and it has been shown to
be optimal in terms minimizing flow completion times [10]. Hence, it represents the limit for any
fair share protocol." Reference [10] (RCP) approximates processor sharing (PS), so this
reproduction runs RCPdc on one 1 Gbps link, 32 senders answering one receiver with Poisson
arrivals of exponential sizes (mean 100 KB, 1000-packet buffers, the D3 testbed's 500 us RTT), at
offered loads from 0.3 to 0.95, and compares every flow's completion time with

    PS + overhead = its completion time under exact processor sharing of the same arrivals
                    (incast.fluid.fair_share, at the link's payload rate: 1460 of every 1500 B)
                    + the overhead of a flow of its size alone on the link (measured: the SYN's
                    RTT, the one-RTT pause of a new flow, the last packet's delivery).

RCPdc runs as the paper prints it (`[d3] variant = "paper"`), and beside it with incast's repairs
(`"repaired"`: time slices, the carried remainder, reclaimed grants of dropped requests, paced
requests; docs/scenario.md, `[d3]`), which is what it takes to drain the backlog of the highest
loads. Up to the load where the claim is judged, three more variants take the paper's RCPdc apart
one part at a time, to show where the gap from PS comes from: the capacity controller held at the
link (alpha = beta = 0), then also no one-RTT pause for new flows, and hosts that pace each
interval at the allocated rate instead of sending it as a burst ([d3] pacing = "rate").
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Sequence, Tuple

from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.figures import Line, Panel, Plot, Series
from incast.reproduce.verdict import NON_NEGATIVE, Estimate, bound_claim, condition_claim, every

if TYPE_CHECKING:
    import pyarrow as pa

LINK_BYTES_PER_S = 125e6
# The d3-testbed stack's segments: 1460 B of payload in 1500 B on the wire, so processor sharing
# of the link's payload rate is the fair share a transport could at best give.
PAYLOAD_BYTES_PER_S = LINK_BYTES_PER_S * 1460 / 1500
MEAN_SIZE = 100_000
SENDERS = 32
STACK = "d3-testbed"
RATE = "workload.0.rate"
SIZE = "workload.0.flows.0.size"
VARIANT_KEYS = ("d3.variant", "d3.alpha", "d3.beta", "d3.new_flow_pause", "d3.pacing")
# (name, label, variant, alpha, beta, new_flow_pause, pacing)
Variant = Tuple[str, str, str, float, float, bool, str]
# RCPdc as printed and repaired, at every load.
MAIN_VARIANTS: Tuple[Variant, ...] = (
    ("rcpdc", "RCPdc (D3's router, no deadlines)", "paper", 0.1, 1.0, True, "burst"),
    ("repaired", "RCPdc with incast's repairs", "repaired", 0.1, 1.0, True, "burst"),
)
# The paper's RCPdc taken apart, up to TARGET_LOAD.
PARTS: Tuple[Variant, ...] = (
    ("controller-at-link", "capacity held at the link", "paper", 0.0, 0.0, True, "burst"),
    ("no-pause", "held at the link, no new-flow pause", "paper", 0.0, 0.0, False, "burst"),
    ("paced", "RCPdc, hosts pacing at the rate", "paper", 0.1, 1.0, True, "rate"),
)
VARIANTS = MAIN_VARIANTS + PARTS
ISOLATED_SIZES = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000)
BUCKETS = ((0, 10e3), (10e3, 30e3), (30e3, 100e3), (100e3, 300e3), (300e3, 1e6), (1e6, math.inf))
TARGET = 1.10
TARGET_LOAD = 0.8


def loads(ctx: Context) -> List[float]:
    return [0.3, 0.5, 0.8] if ctx.quick else [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]


def _variant_zip(variants: Sequence[Variant] = VARIANTS) -> Dict[str, List[Any]]:
    return {key: [v[2 + i] for v in variants] for i, key in enumerate(VARIANT_KEYS)}


def _base(workload: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "topology": {"kind": "star", "hosts": SENDERS + 1},
        "switch": {"buffer": "1000pkts"},
        "transport": {"stack": STACK, "protocol": "rcpdc"},
        "d3": {},
        "workload": [workload],
    }


def _variant_of(row: Mapping[str, Any]) -> str:
    for v in VARIANTS:
        if all(row[k] == v[2 + i] for i, k in enumerate(VARIANT_KEYS)):
            return v[0]
    raise ValueError(f"no variant for {row}")


def isolated_overheads(ctx: Context) -> Dict[str, List[Tuple[int, float]]]:
    """Per variant, (size, overhead) of one flow alone on the link: its completion time minus
    its size at the payload rate."""
    scenario = _base({"kind": "flows", "flows": [{"src": 1, "dst": 0, "size": "1KB", "start": "0s"}]})
    result = ctx.sweep("rcpdc-ps-isolated", scenario, grid={SIZE: [f"{s}B" for s in ISOLATED_SIZES]},
                       zips=[_variant_zip()])
    out: Dict[str, List[Tuple[int, float]]] = {v[0]: [] for v in VARIANTS}
    for row in result.flows().to_pylist():
        size = row["size_bytes"]
        out[_variant_of(row)].append((size, row["finish_s"] - row["start_s"] - size / PAYLOAD_BYTES_PER_S))
    return {k: sorted(v) for k, v in out.items()}


def overhead_at(points: Sequence[Tuple[int, float]], size: float) -> float:
    """The isolated overhead at `size`, interpolated linearly in log size (constant beyond)."""
    sizes = [p[0] for p in points]
    if size <= sizes[0]:
        return points[0][1]
    if size >= sizes[-1]:
        return points[-1][1]
    i = bisect.bisect_right(sizes, size) - 1
    w = (math.log(size) - math.log(sizes[i])) / (math.log(sizes[i + 1]) - math.log(sizes[i]))
    return points[i][1] + w * (points[i + 1][1] - points[i][1])


def _loaded(ctx: Context) -> "pa.Table":
    arrivals = 0.3 if ctx.quick else 2.0
    scenario = _base({
        "kind": "poisson", "rate": 1.0, "hosts": list(range(1, SENDERS + 1)), "destinations": [0],
        "size": {"dist": "exponential", "mean": f"{MEAN_SIZE}B"}, "stop": f"{arrivals:g}s",
    })
    # Ends with the last flow; the cap only bounds a run that would not drain.
    scenario["run"] = {"duration": f"{arrivals + DRAIN_S:g}s", "stop_after_finite_flows": True}

    def rates(sel: Sequence[float]) -> List[float]:
        return [load * LINK_BYTES_PER_S / MEAN_SIZE for load in sel]

    import pyarrow as pa

    main = ctx.sweep("rcpdc-ps", scenario, grid={RATE: rates(loads(ctx))}, zips=[_variant_zip(MAIN_VARIANTS)],
                     seeds=[1, 2, 3])
    parts = ctx.sweep("rcpdc-ps-parts", scenario, grid={RATE: rates([x for x in loads(ctx) if x <= TARGET_LOAD])},
                      zips=[_variant_zip(PARTS)], seeds=[1, 2, 3])
    # Each run's flows carry its own point (a hash of its scenario and seed): the two sweeps' runs
    # stay apart.
    main_flows, part_flows = main.flows(), parts.flows()
    return pa.concat_tables([main_flows, part_flows], promote_options="default")


# How long past its last arrival a loaded run may take to drain: a port that has not drained by
# then has stopped draining (the paper's RCPdc past load 0.8: its backlog passes the 250 flows the
# printed controller's ceiling can serve a unit each, and every flow is paused for good), and its
# thousands of paused flows would otherwise cost most of the reproduction's time.
DRAIN_S = 5.0


def runs_of(flows: "pa.Table") -> List[Tuple[str, float, List[Dict[str, Any]]]]:
    """The flows of each run (one sweep point), with the run's variant and offered load, in the
    order of the points (not of the files that hold them), so that sums over runs are the same
    bit for bit from one cache to another."""
    runs: Dict[int, List[Dict[str, Any]]] = {}
    for row in flows.select(["point", "seed", RATE, *VARIANT_KEYS, "start_s", "finish_s", "size_bytes"]).to_pylist():
        runs.setdefault(row["point"], []).append(row)
    return [(_variant_of(rows[0]), round(rows[0][RATE] * MEAN_SIZE / LINK_BYTES_PER_S, 3), rows)
            for _, rows in sorted(runs.items())]


def compare(runs: Sequence[Tuple[str, float, Sequence[Mapping[str, Any]]]],
            overheads: Mapping[str, Sequence[Tuple[int, float]]]) -> List[Dict[str, Any]]:
    """One row per flow: its variant, load, size, completion time, and the PS and PS + overhead
    references on its own run's arrivals."""
    from incast.fluid import FluidFlow, fair_share

    out = []
    for variant, load, rows in runs:
        ps = fair_share([FluidFlow(r["start_s"], r["size_bytes"], math.inf) for r in rows], PAYLOAD_BYTES_PER_S)
        for r, done in zip(rows, ps):
            ps_fct = done - r["start_s"]
            out.append({
                "variant": variant, "load": load, "seed": r["seed"], "size_bytes": r["size_bytes"],
                "fct_s": None if r["finish_s"] is None else r["finish_s"] - r["start_s"],
                "ps_s": ps_fct, "reference_s": ps_fct + overhead_at(overheads[variant], r["size_bytes"]),
            })
    return out


def peak_flows(runs: Sequence[Tuple[str, float, Sequence[Mapping[str, Any]]]]) -> Dict[Tuple[str, float], int]:
    """The most flows alive at once in any run of each (variant, load): started, and not yet
    finished (an unfinished flow stays alive)."""
    peak: Dict[Tuple[str, float], int] = {}
    for variant, load, rows in runs:
        edges = [e for r in rows
                 for e in ((r["start_s"], 1), (math.inf if r["finish_s"] is None else r["finish_s"], -1))]
        alive = most = 0
        for _, step in sorted(edges):
            alive += step
            most = max(most, alive)
        peak[(variant, load)] = max(peak.get((variant, load), 0), most)
    return peak


def ratio_per_seed(per_flow: Sequence[Mapping[str, Any]]) -> Dict[Tuple[str, float], List[float]]:
    """Mean completion time over the mean reference, of each seed's finished flows alone, per
    (variant, load), in the order of the seeds."""
    cells: Dict[Tuple[str, float, int], List[float]] = {}
    for f in per_flow:
        if f["fct_s"] is not None:
            cell = cells.setdefault((f["variant"], f["load"], f["seed"]), [0.0, 0.0])
            cell[0] += f["fct_s"]
            cell[1] += f["reference_s"]
    out: Dict[Tuple[str, float], List[float]] = {}
    for (variant, load, _), (fct, reference) in sorted(cells.items()):
        out.setdefault((variant, load), []).append(fct / reference)
    return out


def summarize(per_flow: Sequence[Mapping[str, Any]]) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Mean completion time against the references per (variant, load), and per size bucket."""
    cells: Dict[Tuple[str, float], List[Mapping[str, Any]]] = {}
    for f in per_flow:
        cells.setdefault((f["variant"], f["load"]), []).append(f)
    means, buckets = [], []

    def mean(key: str, rows: Sequence[Mapping[str, Any]]) -> float:
        return sum(r[key] for r in rows) / len(rows) if rows else math.nan

    for (variant, load), fs in sorted(cells.items()):
        done = [f for f in fs if f["fct_s"] is not None]
        means.append({
            "variant": variant, "load": load, "flows": len(fs), "unfinished": len(fs) - len(done),
            "mean_fct_ms": 1e3 * mean("fct_s", done), "mean_ps_ms": 1e3 * mean("ps_s", done),
            "mean_reference_ms": 1e3 * mean("reference_s", done),
            "ratio": mean("fct_s", done) / mean("reference_s", done) if done else math.nan,
        })
        for lo, hi in BUCKETS:
            inside = [f for f in done if lo <= f["size_bytes"] < hi]
            if inside:
                buckets.append({
                    "variant": variant, "load": load, "size_from_kb": lo / 1e3,
                    "size_to_kb": None if math.isinf(hi) else hi / 1e3, "flows": len(inside),
                    "mean_fct_ms": 1e3 * mean("fct_s", inside), "mean_reference_ms": 1e3 * mean("reference_s", inside),
                    "ratio": mean("fct_s", inside) / mean("reference_s", inside),
                })
    return means, buckets


def rcpdc_ps(ctx: Context) -> Outcome:
    overheads = isolated_overheads(ctx)
    runs = runs_of(_loaded(ctx))
    per_flow = compare(runs, overheads)
    means, buckets = summarize(per_flow)
    per_seed = ratio_per_seed(per_flow)
    peaks = peak_flows(runs)
    for m in means:
        m["peak_flows"] = peaks[(m["variant"], m["load"])]
    at = {(m["variant"], m["load"]): m for m in means}
    rows_overhead = [{"variant": v, "size_bytes": s, "overhead_ms": 1e3 * o}
                     for v, pts in overheads.items() for s, o in pts]

    xs = sorted({m["load"] for m in means})

    def measured(name: str) -> List[float]:
        return [x for x in xs if (name, x) in at]

    fig = Plot("RCPdc against processor sharing: 32 senders, one 1 Gbps link, Poisson arrivals (3 seeds)", [
        Panel("Mean FCT, sizes exponential, mean 100 KB (all seeds' flows)", "offered load",
              "mean flow completion time (ms)", yscale="log", legend_size=7, series=[
                  Series("processor sharing", {x: at[("rcpdc", x)]["mean_ps_ms"] for x in xs}, paper=True),
                  Series("PS + RCPdc's isolated overhead", {x: at[("rcpdc", x)]["mean_reference_ms"] for x in xs},
                         paper=True),
                  *(Series(label, {x: at[(name, x)]["mean_fct_ms"] for x in measured(name)})
                    for name, label, *_ in VARIANTS)]),
        Panel("Against PS plus each variant's overhead (mean over seeds)", "offered load",
              "mean FCT / (PS + overhead)", yscale="log", legend_size=7,
              lines=[Line(TARGET, f"target: {TARGET:g}x up to load {TARGET_LOAD:g}", paper=False)],
              series=[Series(label, {x: Estimate.of(per_seed[(name, x)], NON_NEGATIVE) for x in measured(name)})
                      for name, label, *_ in VARIANTS])], panel_size=(6.0, 4.2))

    upto = [x for x in xs if x <= TARGET_LOAD + 1e-9]

    def fmt(name: str, sel: Sequence[float]) -> str:
        return ", ".join(f"{x:g}: {Estimate.of(per_seed[(name, x)]).mean:.2f}" for x in sel)

    why = (
        "taken apart on the same arrivals (load: the mean over seeds of each seed's ratio): the capacity controller "
        "held at the link, "
        f"{fmt('controller-at-link', upto)}; also without the new-flow pause, {fmt('no-pause', upto)}; hosts "
        f"pacing at the rate, {fmt('paced', upto)}; with incast's repairs, {fmt('repaired', upto)}. What is left "
        "is Snippet 1's own dynamics: fair shares truncated to whole units of the 8-bit field (the repairs carry the "
        "remainder), a new flow counted from its SYN that pauses one RTT while the others already shrank, an "
        "over-allocated port (shares given before the last arrival) that answers the next request with the base "
        "rate, and a departed flow's share that waits for the others' next requests. None of these is a "
        "parameter of ours"
    )
    finished = all(m["unfinished"] == 0 for m in means if m["variant"] == "rcpdc")
    top = xs[-1]
    beyond = [x for x in xs if x > TARGET_LOAD]
    why_finished = (
        f"past load {TARGET_LOAD:g} the paper's RCPdc stops draining: its fair shares, truncated to whole units of the "
        "8-bit field, waste up to a unit per flow once a backlog forms, the backlog grows (over the three seeds' "
        "runs: " + ", ".join(f"up to {at[('rcpdc', x)]['peak_flows']} flows at {x:g}" for x in beyond)
        + "), and past 250 flows, the most the printed controller's ceiling of twice the link can give a unit each, "
        f"every flow is paused for good (a run is cut {DRAIN_S:g} s after its last arrival). With incast's repairs "
        "every flow finishes at every load ("
        + ", ".join(f"{at[('repaired', x)]['unfinished']} unfinished at {x:g}" for x in beyond)
        + f"; mean FCT {Estimate.of(per_seed[('repaired', top)]).mean:.1f}x the reference at {top:g}, the mean over "
        "seeds)")
    claims = [
        every(
            "RCPdc's explicit fair share \"has been shown to be optimal in terms minimizing flow completion times "
            "[10]. Hence, it represents the limit for any fair share protocol\" (Section 6.1): mean FCT within "
            f"{TARGET:g}x of processor sharing plus the per-flow overhead, up to load {TARGET_LOAD:g} (per load: "
            "the mean over seeds of each seed's ratio)",
            f"<= {TARGET:g}x (issue 11's target)",
            {f"{x:g}": bound_claim("", "", Estimate.of(per_seed[("rcpdc", x)], NON_NEGATIVE), at_most=TARGET,
                                   unit="x", fmt="{:.2f}", within=NON_NEGATIVE) for x in upto}, why=why),
        condition_claim(
            "every flow completes at every offered load, 0.95 included (no livelock)", "all flows complete",
            ", ".join(f"{x:g}: {at[('rcpdc', x)]['unfinished']} of {at[('rcpdc', x)]['flows']} unfinished" for x in xs)
            + f" (with incast's repairs: {sum(at[('repaired', x)]['unfinished'] for x in xs)} unfinished in all)",
            finished, "no unfinished flow in any run", why=why_finished,
            values={f"unfinished at {x:g}": at[("rcpdc", x)]["unfinished"] for x in xs}),
    ]
    arrivals = "0.3 s (3 seeds)" if ctx.quick else "2 s (3 seeds)"
    notes = (
        f"RCPdc ({STACK} stack) from {SENDERS} senders to host 0 of a 1 Gbps star (125 us links: the D3 testbed's "
        f"500 us RTT), 1000-packet buffers, Poisson arrivals for {arrivals}, exponential sizes of mean 100 KB; load is "
        "the offered bytes over the link rate (the payload rate is 97.3% of it). The reference for each flow is its "
        "completion time under exact processor sharing of the same arrivals at the payload rate, plus the overhead of "
        "a flow of its size alone on the link under the same variant (table `overhead`, about 1.3 ms for RCPdc: the "
        "SYN's RTT, the new-flow pause and the last packet's delivery). The claims judge RCPdc as the paper prints "
        "it; the repaired RCPdc and the parts are shown beside it."
    )
    return Outcome(claims=claims, tables={"rcpdc_ps": table(means), "by_size": table(buckets),
                                          "overhead": table(rows_overhead)}, figure=fig, notes=notes)


REPRODUCTIONS = (
    Reproduction("rcpdc-ps", "D3", "RCPdc against processor sharing (Section 6.1's claim for RCPdc)", rcpdc_ps,
                 seeds=0, quick_seeds=0),
)
