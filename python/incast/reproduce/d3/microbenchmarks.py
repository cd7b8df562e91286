"""Reproductions of the D3 paper (Wilson et al., SIGCOMM 2011): its figures and tables that a
simulator can reproduce, on the settings of its Section 6 (the `d3-testbed` topology, 1 Gbps,
about 500 us of in-rack RTT, 128 KB per router port for D3 and RCPdc, a 100 KB switch for TCP and
TCPpr, min RTO 300 ms, a one-RTT handshake for every scheme).

Deadlines are exponential with the paper's means and a 3 ms floor, without which no scheme meets
99% of deadlines even with one sender (`docs/results-d3.md` derives the floor).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Sequence, Tuple, cast

from incast.protocols import labels
from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.d3.settings import DEADLINE_FLOOR, STACK
from incast.reproduce.figures import BAR, Line, Panel, Plot, Scatter, Series
from incast.reproduce.verdict import (
    NON_NEGATIVE,
    PERCENT,
    PRINTED,
    ROUGH,
    Claim,
    Text,
    Tolerance,
    bound_claim,
    condition_claim,
    every,
    order_claim,
    range_claim,
    ratio_claim,
)
from incast.stats import INDEX, quantile, quantiles

if TYPE_CHECKING:
    import pyarrow as pa

    from incast.sweep import SweepResult

# D3 Section 6.1.1's "almost twice as many concurrent senders" is a word, not a printed number;
# "almost" puts it just under 2, so it matches within PRINTED's factor and no further.
ALMOST_TWICE = Tolerance(PRINTED.factor, "the paper's words 'almost twice' (Section 6.1.1): just under 2, so "
                                         "the factor of a printed number, 1.74x to 2.3x")
DEADLINE_MEANS = ("20ms", "30ms", "40ms")
DEADLINE_NAMES = {"20ms": "tight", "30ms": "moderate", "40ms": "lax"}
# Each scheme on the switch the paper ran it on (D3 Sections 5 and 6.1.1); TCPpr needs classes
# for its two deadline levels and, with background flows, a third below them.
SCHEMES = ("tcp", "tcppr", "rcpdc", "d3")
SCHEME_LABELS = labels(SCHEMES)
SCHEME_AXIS: Dict[str, List[Any]] = {
    "transport.protocol": list(SCHEMES),
    "switch.buffer": ["100KB", "100KB", "128KB", "128KB"],
    "switch.priority_classes": [1, 3, 1, 1],
}
PROTOCOL = "transport.protocol"
# How D3 hosts spend an interval's allocation: the paper's bursts, and pacing at the rate.
PACING = "d3.pacing"
PACINGS = ("burst", "rate")
SENDERS = "workload.0.senders"
DEADLINE_MEAN = "workload.0.deadline.mean"


def schemes_axis(schemes: Sequence[str]) -> Dict[str, List[Any]]:
    """The lock-step group (protocol, buffer, priority classes) for a subset of `SCHEMES`."""
    keep = [SCHEMES.index(s) for s in schemes]
    return {key: [values[i] for i in keep] for key, values in SCHEME_AXIS.items()}


def flow_burst_scenario(rounds: int, deadline_mean: str = "30ms", size: Mapping[str, Any] | None = None,
                        background: bool = False) -> Dict[str, Any]:
    """D3 Section 6.1.1: workers on the two other hosts of rack 0 answer aggregator 0 at once,
    `rounds` times (each round starts 2 ms after the previous one has completed, long enough for
    every router to see an idle control interval and reset; see docs/scenario.md). With
    `background`, a long flow from traffic generator 12 to the aggregator runs from time 0 and
    the bursts start after 50 ms, once it has filled its share (the paper waits five seconds)."""
    workload: List[Dict[str, Any]] = [
        {
            "kind": "flow-burst",
            "aggregator": 0,
            "worker_hosts": [1, 2],
            "senders": 1,
            "size": dict(size or {"dist": "uniform", "min": "2KB", "max": "50KB"}),
            "deadline": {"dist": "exponential", "mean": deadline_mean, "min": DEADLINE_FLOOR},
            "rounds": rounds,
            "round_gap": "2ms",
        }
    ]
    scenario: Dict[str, Any] = {
        "topology": {"kind": "d3-testbed"},
        "transport": {"stack": STACK, "protocol": "d3", "handshake": True},
        "workload": workload,
    }
    if background:
        workload[0]["start"] = "50ms"
        workload.append({"kind": "long-flows", "pairs": [[12, 0]]})
        # The run ends with the last burst; the duration only caps it (a second per round is
        # far more than any round takes, even with 300 ms timeouts).
        scenario["run"] = {"duration": f"{0.05 + rounds:g}s", "stop_after_finite_flows": True}
    return scenario


def application_throughput(flows: "pa.Table", by: Sequence[str]) -> Dict[Tuple[Any, ...], float]:
    """Share of the deadline flows the run could judge that met their deadline, per value of
    the `by` columns. In Arrow: Figure 9's sweep holds millions of flows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # Null: no deadline (a background flow), or one past the end of the run.
    columns = flows.select([*by, "met_deadline"])
    judged = columns.filter(pc.is_valid(columns["met_deadline"]))
    met = judged.select(list(by)).append_column("met", pc.cast(judged["met_deadline"], pa.int64()))
    grouped = met.group_by(list(by)).aggregate([("met", "sum"), ("met", "count")])
    return {tuple(r[k] for k in by): r["met_sum"] / r["met_count"] for r in grouped.to_pylist()}


def sweep_flows(result: "SweepResult", columns: Sequence[str]) -> "pa.Table":
    """The flows of a sweep with only `columns`: reading every column of Figure 9's flows took
    longer than the statistics drawn from them."""
    return result.dataset("flows").to_table(columns=list(dict.fromkeys(columns)))


def senders_supported(curve: Mapping[int, float], level: float) -> int:
    """The largest sender count n such that every measured count up to n keeps application
    throughput at or above `level` (0 if even the first misses it)."""
    supported = 0
    for n in sorted(curve):
        if curve[n] < level:
            break
        supported = n
    return supported


# --- Figure 5 ---------------------------------------------------------------------------------


def figure5(ctx: Context) -> Outcome:
    from incast.fluid import ALLOCATORS
    from incast.reproduce.d3 import ideal_allocators as ideal

    counts = (1, 2, 5, 10, 20, 30, 40, 60, 80, 100, 150) if ctx.quick else ideal.FLOW_COUNTS
    trials = 20 if ctx.quick else 200
    result = ideal.figure5(counts, trials, seed=ctx.seed or 1)
    rows = [
        {"allocator": a, "deadline_mean_ms": m, "flows": n, "app_throughput": share}
        for a, by_mean in result.items() for m, curve in by_mean.items() for n, share in curve.items()
    ]
    fig = Plot("D3 Figure 5: ideal allocators on one 1 Gbps link (fluid model)", [
        Panel(allocator, "number of flows", "application throughput (%)", ylim=(0, 102), series=[
            Series(f"mean {mean} ms", {n: 100 * v for n, v in result[allocator][mean].items()}, within=PERCENT)
            for mean in ideal.DEADLINE_MEANS_MS])
        for allocator in ALLOCATORS], panel_size=(4.4, 3.8), sharey=True)

    claims: List[Claim] = []
    why_edf = ("EDF is optimal while every deadline is feasible, so its margin over fair share grows as deadlines "
               "relax; the paper gives one range for both allocators and all three deadline settings, on a mix "
               "(flows, background, deadline floor) that we reconstructed (`incast.reproduce.d3.ideal_allocators`)")
    for mean in ideal.DEADLINE_MEANS_MS:
        fair = ideal.flows_supported(result["fair-share"][mean])
        for allocator in ("edf", "reservation"):
            mine = ideal.flows_supported(result[allocator][mean])
            claims.append(range_claim(
                f"{allocator} supports three to five times as many flows as fair share without missing any "
                f"deadline (mean {mean} ms; the flow counts are in the table)",
                3.0, 5.0, mine / max(fair, 1), "x", fmt="{:.2g}", why=why_edf,
                exercised=fair > 0, premise="fair share misses a deadline even with one flow"))
    notes = (
        "Exact fluid model (`incast.fluid`): n deadline flows of uniform [2 KB, 50 KB] arriving "
        "together with two long background flows, deadlines exponential (3 ms floor); "
        f"{trials} draws per point. The module docstring of `incast.reproduce.d3.ideal_allocators` "
        "gives the mix and its sources."
    )
    supported = [{"allocator": a, "deadline_mean_ms": m, "flows_supported": ideal.flows_supported(curve)}
                 for a, by_mean in result.items() for m, curve in by_mean.items()]
    return Outcome(claims=claims, tables={"figure5": table(rows), "supported": table(supported)}, figure=fig,
                   notes=notes)


# --- Figures 9 and 10: flow bursts ------------------------------------------------------------


def _burst_sweep(ctx: Context) -> Tuple["SweepResult", List[int], int]:
    senders = [1, 2, 4, 6, 8, 10, 14, 20, 30, 40] if ctx.quick else list(range(1, 41))
    rounds = 10 if ctx.quick else 200
    result = ctx.sweep(
        "d3-flow-burst",
        flow_burst_scenario(rounds),
        grid={SENDERS: senders, DEADLINE_MEAN: list(DEADLINE_MEANS)},
        zips=[SCHEME_AXIS],
    )
    return result, senders, rounds


Curves = Dict[Tuple[str, str], Dict[int, float]]
# Figures 9, 10 and 12 draw on the same sweep (one seed at a time): its curves and the fluid
# reference, computed once per sweep in a process. A sweep's id names its scenario, seeds and
# incast version, so the same id in the same directory holds the same flows.
_BURSTS: Dict[Tuple[str, str], Tuple[Curves, Dict[str, Dict[int, float]]]] = {}


def _burst_stats(result: "SweepResult") -> Tuple[Curves, Dict[str, Dict[int, float]]]:
    """Application throughput per (scheme, deadline mean) and sender count, and ideal fair
    sharing's on RCPdc's bursts per deadline mean and sender count."""
    key = (str(result.out), result.sweep.id)
    if key not in _BURSTS:
        flows = sweep_flows(result, [PROTOCOL, DEADLINE_MEAN, SENDERS, "point", "round", "size_bytes", "start_s",
                                     "deadline_s", "met_deadline"])
        _BURSTS[key] = (_burst_curves(flows), _fair_share_curves(flows))
    return _BURSTS[key]


def _burst_curves(flows: "pa.Table") -> Curves:
    shares = application_throughput(flows, (PROTOCOL, DEADLINE_MEAN, SENDERS))
    curves: Curves = {}
    for (protocol, mean, n), share in shares.items():
        curves.setdefault((protocol, mean), {})[n] = share
    return curves


def figure9(ctx: Context) -> Outcome:
    result, senders, rounds = _burst_sweep(ctx)
    curves, ideal = _burst_stats(result)
    rows: List[Dict[str, Any]] = []
    for (protocol, mean), curve in sorted(curves.items()):
        rows.append({"scheme": protocol, "deadline_mean": mean,
                     "supported_99": senders_supported(curve, 0.99), "supported_95": senders_supported(curve, 0.95)})
    at = {(r["scheme"], r["deadline_mean"]): r for r in rows}
    fig = Plot("D3 Figure 9: senders supported at 99% application throughput", [
        Panel("", "deadlines", "senders supported at >= 99%", series=[
            Series(SCHEME_LABELS[scheme], {f"{DEADLINE_NAMES[m]} ({m})": at[(scheme, m)]["supported_99"]
                                           for m in DEADLINE_MEANS}, kind=BAR, within=NON_NEGATIVE)
            for scheme in SCHEMES])], panel_size=(7.0, 4.0))

    def s99(scheme: str, mean: str) -> int:
        return senders_supported(curves[(scheme, mean)], 0.99)

    claims: List[Claim] = []
    gaps = [100 * (ideal[m][n] - curves[("rcpdc", m)][n]) for m in DEADLINE_MEANS for n in ideal[m]]
    why_rcpdc = Text(lambda f: (
        f"RCPdc meets up to {f['most fewer']:.1f} points fewer deadlines than an ideal fair-share allocator on the "
        "same flows" + ("" if f["most more"] <= 0 else f" (and up to {f['most more']:.1f} more)")
        + " (Figure 10's report), and that allocator itself supports only "
        f"{f['ideal at 95%']:.1f} senders at 95% with moderate deadlines, against 22 for the paper's RCPdc: the gap "
        "is mostly in the deadline distribution, which the paper does not fully specify and which hurts "
        "deadline-agnostic fair sharing most"),
        {"most fewer": max(gaps), "most more": -min(gaps), "ideal at 95%": senders_supported(ideal["30ms"], 0.95)})

    def why_tcp(other: str, mean: str) -> Text:
        def write(f: Mapping[str, float]) -> str:
            if f["d3"] / max(f["other"], 1) < 3:
                return (f"our {SCHEME_LABELS[other]} supports {f['other']:.1f} senders against D3's {f['d3']:.1f}, "
                        "relatively more than the paper's: at 95% too, our TCP and TCPpr support more senders than "
                        "the paper's (the claims below), since they lose less at a 100 KB buffer (windows start at "
                        "two segments on a 500 us path)")
            return (f"D3 gains more from laxer deadlines than the others (the next claim) while our "
                    f"{SCHEME_LABELS[other]} stays at {f['other']:.1f} senders")
        return Text(write, {"other": s99(other, mean), "d3": s99("d3", mean)})

    for mean in DEADLINE_MEANS:
        d3, rcpdc = s99("d3", mean), s99("rcpdc", mean)
        claims.append(ratio_claim(
            f"D3 \"can support almost twice as many concurrent senders while satisfying flow deadlines\" as RCPdc at "
            f"99% ({DEADLINE_NAMES[mean]})",
            2.0, d3 / max(rcpdc, 1), "x", tolerance=ALMOST_TWICE, why=why_rcpdc,
            exercised=rcpdc > 0, premise="RCPdc supports no sender at 99%", within=NON_NEGATIVE))
        for other in ("tcp", "tcppr"):
            n = s99(other, mean)
            claims.append(range_claim(
                f"\"(3-4 times as compared to TCP and TCPpr)\": D3 supports 3-4 times as many senders as "
                f"{SCHEME_LABELS[other]} at 99% ({DEADLINE_NAMES[mean]})",
                3.0, 4.0, d3 / max(n, 1), "x", why=why_tcp(other, mean),
                exercised=n > 0, premise=f"{SCHEME_LABELS[other]} supports no sender at 99%", within=NON_NEGATIVE))
    gain = {s: s99(s, "40ms") - s99(s, "20ms") for s in SCHEMES}
    claims.append(condition_claim(
        "\"the increase in the number of senders supported compared to tight deadlines is greater than for other "
        "approaches\" (for relaxed deadlines)",
        "more pronounced for relaxed deadlines",
        Text(lambda f: ", ".join(f"{SCHEME_LABELS[s]} {f[s]:+.1f}" for s in SCHEMES), {s: gain[s] for s in SCHEMES}),
        all(gain["d3"] > gain[s] for s in SCHEMES if s != "d3"),
        "D3's gain from tight (20 ms) to lax (40 ms) exceeds every other scheme's",
        values={f"{s} gain": gain[s] for s in SCHEMES}))
    paper95 = {"d3": 36, "rcpdc": 22, "tcppr": 10, "tcp": 8}
    why_more = ("our TCP and TCPpr lose less than the paper's stacks at a 100 KB buffer (windows start at two "
                "segments on a 500 us path) and so degrade from more senders on")
    why95: Dict[str, Any] = {
        "d3": "a --quick run measures only a few sender counts" if ctx.quick else
              "D3 misses 95% from fewer senders than the paper's; we have not traced why: RCPdc's larger deficit "
              "on the same bursts points at deadlines tighter than the paper's (above)",
        "rcpdc": why_rcpdc,
        "tcppr": why_more,
        "tcp": why_more,
    }
    for scheme, paper in paper95.items():
        claims.append(ratio_claim(
            f"at 95%, moderate deadlines: {SCHEME_LABELS[scheme]} supports {paper} senders (\"D3 can support 36 "
            "senders with moderate deadlines compared to the 22, 10 and 8 senders of RCPdc, TCPpr and TCP\")",
            paper, at[(scheme, "30ms")]["supported_95"], " senders", tolerance=PRINTED,
            why=why95[scheme], within=NON_NEGATIVE))
    grid = "1-40" if not ctx.quick else ",".join(map(str, senders))
    notes = (f"Flow bursts on the D3 testbed: senders {grid}, {rounds} bursts per point (one run of "
             f"{rounds} rounds), responses uniform [2 KB, 50 KB], deadlines exponential with a 3 ms floor. "
             "Senders supported: the largest n such that every measured count up to n keeps the level.")
    return Outcome(claims=claims, tables={"figure9": table(rows)}, figure=fig, notes=notes)


def figure10(ctx: Context) -> Outcome:
    result, senders, rounds = _burst_sweep(ctx)
    curves, ideal = _burst_stats(result)
    rows = [{"scheme": p, "deadline_mean": m, "senders": n, "app_throughput": v}
            for (p, m), curve in sorted(curves.items()) for n, v in sorted(curve.items())]
    rows += [{"scheme": "fluid-fair-share", "deadline_mean": m, "senders": n, "app_throughput": v}
             for m, curve in sorted(ideal.items()) for n, v in sorted(curve.items())]
    fig = Plot("D3 Figure 10: application throughput under flow bursts", [
        Panel(f"{DEADLINE_NAMES[mean]} deadlines ({mean})", "number of senders", "application throughput (%)",
              ylim=(40, 101), series=[
                  *(Series(SCHEME_LABELS[scheme], {n: 100 * v for n, v in sorted(curves[(scheme, mean)].items())},
                           within=PERCENT) for scheme in SCHEMES),
                  Series("ideal fair share (fluid, RCPdc's flows)",
                         {n: 100 * v for n, v in sorted(ideal[mean].items())}, within=PERCENT)])
        for mean in DEADLINE_MEANS], panel_size=(4.4, 3.8), sharey=True)

    # "when the number of senders does become too high for D3 to satisfy all deadlines, it still
    # improves application throughput by roughly 20% over TCP, and 10% or more, over RCPdc and
    # TCPpr": over the sender counts where D3 falls below the operating regime's 99%, in each
    # panel of the figure; the improvement is the mean over those counts, in points.
    def beyond(mean: str) -> List[int]:
        return [n for n in sorted(curves[("d3", mean)]) if curves[("d3", mean)][n] < 0.99]

    def gain(other: str, mean: str) -> float:
        counts = beyond(mean)
        return sum(100 * (curves[("d3", mean)][n] - curves[(other, mean)][n]) for n in counts) / max(len(counts), 1)

    def regime(mean: str) -> str:
        return f"{DEADLINE_NAMES[mean]}"

    premise = "D3 kept 99% of deadlines at every sender count up to 40"
    claims = [
        every("\"when the number of senders does become too high for D3 to satisfy all deadlines, it still improves "
              "application throughput by roughly 20% over TCP\" (ours: D3 minus TCP, in points, the mean over the "
              "sender counts where D3 is below 99%, each deadline setting)", "roughly 20 points",
              {regime(m): ratio_claim("", 20, gain("tcp", m), " points", tolerance=ROUGH, exercised=bool(beyond(m)),
                                      premise=premise) for m in DEADLINE_MEANS},
              why=Text(lambda f: "our TCP loses more than the paper's once D3 degrades (its y-axis starts at 60%): "
                                 + ", ".join(f"{DEADLINE_NAMES[m]} {f[m]:.1f} points" for m in DEADLINE_MEANS),
                       {m: gain("tcp", m) for m in DEADLINE_MEANS})),
    ]
    def margin(other: str) -> Text:
        return Text(lambda f: (f"D3's margin over {SCHEME_LABELS[other]} where it degrades: "
                               + ", ".join(f"{DEADLINE_NAMES[m]} {f[m]:.1f} points" for m in DEADLINE_MEANS)
                               + "; our D3 falls below 99% from fewer senders than the paper's (Figure 9's report), "
                                 "where the others are still close to it"), {m: gain(other, m) for m in DEADLINE_MEANS})

    for other in ("rcpdc", "tcppr"):
        claims.append(every(
            f"\"... and 10% or more, over RCPdc and TCPpr\": D3 over {SCHEME_LABELS[other]} (ours: the mean over "
            "the sender counts where D3 is below 99%, each deadline setting)", ">= 10 points",
            {regime(m): bound_claim("", ">= 10 points", gain(other, m), at_least=10, unit=" points", fmt="{:.1f}",
                                    exercised=bool(beyond(m)), premise=premise) for m in DEADLINE_MEANS},
            why=margin(other)))
    top = max(senders)
    claims.append(every(
        f"\"RCPdc outperforms TCP at high loads\" (ours: at {top} senders, each deadline setting)",
        f"TCP < RCPdc at {top} senders",
        {regime(m): order_claim("", "", {s: 100 * curves[(s, m)][top] for s in ("tcp", "rcpdc")}, ["tcp", "rcpdc"],
                                fmt="{:.1f}%", within=PERCENT) for m in DEADLINE_MEANS}))
    gaps = {(m, n): ideal[m][n] - curves[("rcpdc", m)][n] for m in DEADLINE_MEANS for n in ideal[m]}
    gap = max(abs(g) for g in gaps.values())

    def why_gap(f: Mapping[str, float]) -> str:
        head = (f"RCPdc stays below the fluid curve by up to {f['largest']:.1f} points, never above it"
                if f["smallest"] >= 0 else
                f"RCPdc lies {f['smallest']:.1f} to {f['largest']:.1f} points below the fluid curve (negative: "
                "above it)")
        return head + (": the fluid model starts every flow at its fair share at once, while a burst's flows are "
                       "counted from their SYNs one by one, pause one RTT (Section 4.5) and are granted shares "
                       "truncated to whole units of the 8-bit field (at 40 senders, 3 of the 3.1 units a flow's "
                       "share is), so during a burst the packet network hands out less than the fluid link "
                       "carries")

    claims.append(condition_claim(
        "(issue tracker) RCPdc in the packet simulator lands near the fluid fair-share curve on the same flows",
        "near ideal fair share",
        Text(lambda f: f"largest gap {f['gap']:.1f} points over every sender count and deadline setting",
             {"gap": 100 * gap}),
        gap <= 0.05, "every point within 5 points of processor sharing (+1 ms for handshake and pause)",
        why=Text(why_gap, {"smallest": 100 * min(gaps.values()), "largest": 100 * max(gaps.values())}),
        values={"largest gap, points": 100 * gap}))
    notes = f"The same runs as Figure 9 ({rounds} bursts per point)."
    return Outcome(claims=claims, tables={"figure10": table(rows)}, figure=fig, notes=notes)


def _fair_share_curves(flows: "pa.Table") -> Dict[str, Dict[int, float]]:
    """Application throughput of ideal processor sharing on RCPdc's bursts: each round's flows
    as one fluid burst on a 1 Gbps link of payload, plus 1 ms of fixed cost (the handshake and
    the one-RTT pause of a new flow on the testbed's ~500 us RTT).

    In numpy, every burst at once: a burst's flows all arrive at 0, so processor sharing finishes
    them in order of size, the k-th smallest (of n) when the link has served the next size
    difference to each of the n - k flows left; the sums are those `incast.fluid.fair_share`
    makes, in the same order, so the completion times are the same to the bit (Figure 9's sweep
    holds 24,000 bursts per seed, too many for one fluid model each)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from incast.reproduce.d3.settings import FAIR_SHARE_OVERHEAD_S, PAYLOAD_RATE

    rcpdc = flows.filter(pc.equal(flows[PROTOCOL], pa.scalar("rcpdc")))
    if rcpdc.num_rows == 0:
        return {}
    points = cast("pa.DictionaryArray[Any, Any]", pc.dictionary_encode(rcpdc["point"].combine_chunks()))
    point = points.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    rounds = rcpdc["round"].to_numpy(zero_copy_only=False).astype(np.int64)
    burst = point * (int(rounds.max()) + 1) + rounds
    order = np.lexsort((rcpdc["size_bytes"].to_numpy(zero_copy_only=False), burst))  # by burst, then size
    size = rcpdc["size_bytes"].to_numpy(zero_copy_only=False).astype(np.float64)[order]
    allowed = (rcpdc["deadline_s"].to_numpy(zero_copy_only=False) - rcpdc["start_s"].to_numpy(zero_copy_only=False))
    starts = np.concatenate(([0], np.flatnonzero(np.diff(burst[order])) + 1))
    counts = np.diff(np.append(starts, len(order)))
    member = np.repeat(np.arange(len(starts)), counts)
    rank = np.arange(len(order)) - starts[member]
    # The k-th smallest of a burst of n finishes when the link has served the next size
    # difference to the n - k flows left: fair_share's (v_done - virtual) * len(active) / C.
    previous = np.concatenate(([0.0], size[:-1]))
    previous[starts] = 0.0
    served = np.zeros((len(starts), int(counts.max())))
    served[member, rank] = (size - previous) * (counts[member] - rank) / PAYLOAD_RATE
    finish = np.cumsum(served, axis=1)[member, rank]  # row by row, in order: fair_share's sums
    met = finish + FAIR_SHARE_OVERHEAD_S <= allowed[order] + 1e-12  # deadlines_met's test
    met_per_point = np.bincount(point[order], weights=met, minlength=len(points.dictionary))
    flows_per_point = np.bincount(point, minlength=len(points.dictionary))
    first = np.unique(point, return_index=True)[1]
    means, senders = rcpdc[DEADLINE_MEAN].take(first).to_pylist(), rcpdc[SENDERS].take(first).to_pylist()
    cells: Dict[Tuple[str, int], List[int]] = {}
    for k, mean, n in zip(np.unique(point), means, senders):
        c = cells.setdefault((str(mean), int(cast(int, n))), [0, 0])
        c[0] += int(met_per_point[k])
        c[1] += int(flows_per_point[k])
    out: Dict[str, Dict[int, float]] = {}
    for (mean, n), (met_, total) in cells.items():
        out.setdefault(mean, {})[n] = met_ / total
    return out


# --- Figure 11: completion times against deadlines --------------------------------------------


def figure11(ctx: Context) -> Outcome:
    schemes = ("tcp", "rcpdc", "d3")
    rounds = 5 if ctx.quick else 25
    result = ctx.sweep("d3-figure11", flow_burst_scenario(rounds),
                       grid={SENDERS: [14, 18, 22, 26, 30]}, zips=[schemes_axis(schemes)])
    flows = result.flows()
    per: Dict[str, Dict[str, Any]] = {}
    rows = []
    for f in flows.to_pylist():
        scheme = f[PROTOCOL]
        allowed = f["deadline_s"] - f["start_s"]
        fct = None if f["finish_s"] is None else f["finish_s"] - f["start_s"]
        rows.append({"scheme": scheme, "senders": f[SENDERS], "deadline_ms": allowed * 1e3,
                     "fct_ms": None if fct is None else fct * 1e3, "met_deadline": f["met_deadline"]})
        if f["met_deadline"] is None:
            continue  # the run ended before its deadline: neither met nor missed
        s = per.setdefault(scheme, {"total": 0, "missed": 0, "overshoot": []})
        s["total"] += 1
        if not f["met_deadline"]:
            s["missed"] += 1
            if fct is not None:
                s["overshoot"].append((fct - allowed) / allowed)
    # The 95th percentile is an `INDEX` quantile (incast.stats: the committed reports and pins
    # were computed with it; incast.reproduce.d3.docs's `_lateness` recomputes it from the table
    # the same way).
    stats = {}
    for scheme, s in per.items():
        over = sorted(s["overshoot"])
        stats[scheme] = {
            "missed": s["missed"] / s["total"],
            "p95": quantile(over, 0.95, INDEX) if over else 0.0,
            "mean": sum(over) / len(over) if over else 0.0,
        }

    fig = Plot("D3 Figure 11: completion time vs deadline (moderate, 14-30 senders; the flows of every seed); "
               "above the line = met", [
                   Panel(SCHEME_LABELS[scheme], "flow completion time (ms)", "deadline (ms)", xscale="log",
                         yscale="log", xlim=(0.5, 1000), ylim=(1, 300), diagonal=True, scatters=[
                             Scatter("flows", [(r["fct_ms"], r["deadline_ms"]) for r in rows
                                               if r["scheme"] == scheme and r["fct_ms"] is not None])])
                   for scheme in schemes], panel_size=(4.4, 4.0), sharey=True)

    def why(f: Mapping[str, float]) -> str:
        return (f"both schemes miss more than in the paper (RCPdc {f['rcpdc']:.1f}%, D3 {f['d3']:.1f}%) for the "
                "reason of Figure 9 (the deadline distribution); the ordering holds")

    missed = {s: 100 * stats[s]["missed"] for s in schemes}
    late = {s: len(per[s]["overshoot"]) for s in schemes}

    def lateness(scheme: str, paper: float, what: str, key: str, quote: str) -> Claim:
        return ratio_claim(
            f"late {SCHEME_LABELS[scheme]} flows exceed their deadline by {paper:g}% {what} (\"{quote}\")", paper,
            100 * stats[scheme][key], "%", tolerance=PRINTED, why=why_late[scheme],
            exercised=late[scheme] > 0, premise=f"no {SCHEME_LABELS[scheme]} flow finished late", within=NON_NEGATIVE)

    why_late = {
        "rcpdc": Text(why, {s: missed[s] for s in ("rcpdc", "d3")}),
        "d3": Text(lambda f: (f"D3's late flows are few ({f['late']:.0f} per seed: D3 misses {f['missed']:.1f}% of "
                              "deadlines against the paper's 1%), so their 95th percentile rests on the few latest "
                              "of each seed; we have not traced the difference"),
                   {"late": late["d3"], "missed": missed["d3"]}),
    }
    # "1%" is printed to one significant digit: rounding alone stretches it to 1.5%, beyond the
    # 15% of a number printed to two or three.
    one_digit = Tolerance(1.5, "the paper prints '1%', one significant digit, which its rounding alone stretches to "
                               "0.5-1.5%; the factor of a number printed to two or three digits (1.15) would be "
                               "stricter than the paper's own precision")
    claims = [
        ratio_claim("RCPdc misses 8.1% of flow deadlines (\"RCPdc misses 8.1% of flow deadlines as compared to 1% "
                    "for D3\")", 8.1, missed["rcpdc"], "%", tolerance=PRINTED,
                    why=Text(why, {s: missed[s] for s in ("rcpdc", "d3")}), within=PERCENT),
        ratio_claim("D3 misses 1% of flow deadlines (\"as compared to 1% for D3\")", 1.0, missed["d3"], "%",
                    tolerance=one_digit, why=Text(why, {s: missed[s] for s in ("rcpdc", "d3")}), within=PERCENT),
        order_claim("fewer missed deadlines with D3 than with RCPdc (the paper's 1% against 8.1%; TCP's share it "
                    "does not give)", "D3 1% < RCPdc 8.1%",
                    {s: missed[s] for s in ("d3", "rcpdc")}, ["d3", "rcpdc"], fmt="{:.1f}%", within=PERCENT),
        lateness("rcpdc", 75, "at the 95th percentile", "p95",
                 "RCPdc causes their completion time to exceed their deadline by 75% at the 95th percentile"),
        lateness("rcpdc", 30, "on average", "mean", "(30% on average)"),
        lateness("d3", 27.7, "at the 95th percentile", "p95",
                 "With D3, completion times are extended by 27.7% at the 95th percentile"),
        lateness("d3", 9, "on average", "mean", "(9% on average)"),
    ]
    notes = f"Moderate deadlines, 14, 18, 22, 26 and 30 senders, {rounds} bursts each."
    return Outcome(claims=claims, tables={"figure11": table(rows)}, figure=fig, notes=notes)


# --- Figure 16: long flows --------------------------------------------------------------------


def figure16(ctx: Context) -> Outcome:
    counts = [2, 5, 10, 20] if ctx.quick else [2, 5, 10, 15, 20]
    duration = 0.05 if ctx.quick else 0.2
    result = ctx.sweep(
        "d3-figure16",
        {
            "topology": {"kind": "star", "hosts": 3},
            "transport": {"stack": STACK, "protocol": "d3"},
            "workload": [{"kind": "long-flows", "pairs": [[1, 0]]}],
            "run": {"duration": f"{duration}s"},
            "output": {"queue_sample_interval": "100us", "queue_sample_hosts": [0]},
        },
        grid={PACING: list(PACINGS)},
        zips=[{"topology.hosts": [n + 1 for n in counts],
               "workload.0.pairs": [[[i, 0] for i in range(1, n + 1)] for n in counts]}],
    )
    flows = result.flows().to_pylist()
    queues = result.dataset("queues").to_table().to_pylist()
    def point(pacing: str, n: int) -> Dict[str, Any]:
        delivered = sum(f["delivered_bytes"] for f in flows if f["topology.hosts"] == n + 1 and f[PACING] == pacing)
        q = [r["queue_bytes"] for r in queues if r["topology.hosts"] == n + 1 and r[PACING] == pacing]
        median, p99 = quantiles(q, (0.5, 0.99), INDEX)  # as committed and pinned (incast.stats)
        return {
            "pacing": pacing,
            "flows": n,
            "goodput_gbps": delivered * 8 / duration / 1e9,
            "queue_mean_kb": sum(q) / len(q) / 1e3,
            "queue_median_kb": median / 1e3,
            "queue_p99_kb": p99 / 1e3,
        }

    rows, rows_paced = ([point(pacing, n) for n in counts] for pacing in PACINGS)
    # What the claims judge: goodput, and the queue's mean, median and 99th percentile, per count.
    fig = Plot("D3 Figure 16: long flows into one host", [
        Panel("Throughput", "long flows", "aggregate goodput (Gbps)", ylim=(0, 1.05),
              series=[Series("ours (bursts)", {r["flows"]: r["goodput_gbps"] for r in rows}, within=NON_NEGATIVE),
                      Series("ours, hosts pacing at the rate", {r["flows"]: r["goodput_gbps"] for r in rows_paced},
                             within=NON_NEGATIVE)],
              lines=[Line(0.95, "paper: 0.95 Gbps")]),
        Panel("Queue at the receiver's port (bursts)", "long flows", "queue (KB, log above 2)", yscale="symlog",
              series=[Series(label, {r["flows"]: r[key] for r in rows}, within=NON_NEGATIVE)
            for label, key in (("mean", "queue_mean_kb"), ("median", "queue_median_kb"), ("99th percentile",
                                                                                        "queue_p99_kb"))],
              lines=[Line(4.0, "paper: mean 4-6 KB", to=6.0), Line(1.5, "paper: median 1.5 KB"),
                     Line(16.5, "paper: 99th percentile 16.5-48 KB", to=48.0)])], panel_size=(6.0, 3.8))
    why_util = Text(lambda f: (
        "the printed controller, floored at the link, hands out the whole link, and with 2 or 5 flows (shares of "
        "62 or 25 units of the 8-bit field) the flows fill it: payload at 96% of the link is 99% of it on the wire, "
        "above the paper's 95%. With 10 or more flows, each share truncated to whole units leaves part of a unit "
        "unallocated (10 flows' 12.5 units are granted as 12, 4% of the link). Hosts that pace each "
        "interval at the allocated rate ([d3] pacing = \"rate\", Section 4.1's \"sends data at this rate\") do "
        "about the same (flows: goodput, median queue): "
        + ", ".join(f"{n}: {f[f'goodput {n}']:.0f}%, {f[f'median {n}']:.1f} KB" for n in counts)),
        {**{f"goodput {r['flows']}": 100 * r["goodput_gbps"] for r in rows_paced},
         **{f"median {r['flows']}": r["queue_median_kb"] for r in rows_paced}})
    # The paper prints 0.95 Gbps (0.945 to 0.955); if it counted headers, our payload goodput would
    # read 1460/1500 of it (0.92).
    util_low, util_high = 100 * 0.945 * 1460 / 1500, 95.5
    util = every("\"the aggregate throughput remains the same as we increase the number of long flows with a median "
                 "and average network throughput of 0.95Gbps (95% of capacity)\", for 2 to 20 long flows", "95%",
                 {r["flows"]: range_claim("", util_low, util_high, 100 * r["goodput_gbps"], "%", fmt="{:.1f}",
                                          within=PERCENT) for r in rows}, why=why_util,
                 tolerance="the paper prints 0.95 Gbps (0.945 to 0.955); it may count headers where we count "
                           "payload (1460 of 1500 B), which moves the low end to 0.92")
    why_queue = Text(lambda f: (
        "our queue is shorter than the paper's on most measures: the flows leave "
        f"{f['least unused']:.0f}-{f['most unused']:.0f}% of the link unused (the throughput claim), so each "
        "RTT's bursts mostly drain before the next; with 5 flows, which leave least unused, the queue is longest. "
        "What kept the paper's queue at 4-6 KB on average the text does not say (its hosts' bursts, by its Section "
        "5, are as ours)"),
        {"least unused": min(100 - 100 * r["goodput_gbps"] for r in rows),
         "most unused": max(100 - 100 * r["goodput_gbps"] for r in rows)})
    claims = [
        util,
        every("the average queue size is 4-6 KB (\"For all scenarios, the average queue size is 4-6KB\")", "4-6 KB",
              {r["flows"]: range_claim("", 4.0, 6.0, r["queue_mean_kb"], " KB", fmt="{:.1f}", within=NON_NEGATIVE)
               for r in rows}, why=why_queue),
        every("the median queue is 1.5 KB (\"the median is 1.5KB\", for all scenarios)", "1.5 KB",
              {r["flows"]: ratio_claim("", 1.5, r["queue_median_kb"], " KB", tolerance=PRINTED, fmt="{:.1f}",
                                       within=NON_NEGATIVE) for r in rows}, why=why_queue),
        every("the 99th percentile of the queue is 16.5-48 KB (\"while the 99th percentile is 16.5-48KB\", for all "
              "scenarios)", "16.5-48 KB",
              {r["flows"]: range_claim("", 16.5, 48.0, r["queue_p99_kb"], " KB", fmt="{:.1f}", within=NON_NEGATIVE)
               for r in rows}, why=why_queue),
    ]
    notes = (f"n long D3 flows into host 0 of a 1 Gbps star for {duration} s; queue sampled every 100 us. The "
             "claims are judged on D3's hosts as the paper describes them (Section 5: each interval's allocation "
             "sent as a burst); the table and the dotted line add hosts that pace it at the allocated rate.")
    return Outcome(claims=claims, tables={"figure16": table(rows + rows_paced)}, figure=fig, notes=notes)


# --- Section 6.2: multiple bottlenecks ---------------------------------------------------------


def multi_bottleneck(ctx: Context) -> Outcome:
    duration = 0.2 if ctx.quick else 0.3
    result = ctx.sweep("d3-multi-bottleneck", {
        "topology": {"kind": "d3-testbed"},
        "transport": {"stack": STACK, "protocol": "d3"},
        "workload": [{"kind": "long-flows", "pairs": [[0, 2], [1, 2], [3, 2], [3, 4]]}],
        "run": {"duration": f"{duration}s"},
    }, grid={PACING: list(PACINGS)})
    by_pacing = {p: sorted((f for f in result.flows().to_pylist() if f[PACING] == p), key=lambda f: f["flow_id"])
                 for p in PACINGS}
    mbps, paced = ([f["delivered_bytes"] * 8 / duration / 1e6 for f in by_pacing[p]] for p in PACINGS)
    names = ("1->3", "2->3", "4->3", "4->5")
    paper = (302, 302, 302, 595)
    rows = [{"flow": n, "paper_mbps": p, "mbps": m, "paced_mbps": q} for n, p, m, q in zip(names, paper, mbps, paced)]
    fig = Plot("D3 Section 6.2: multiple bottlenecks (Figure 8 hosts)", [
        Panel("", "flow", "throughput (Mbps)", series=[
            Series("paper", {f"flow {n}": p for n, p in zip(names, paper)}, kind=BAR, paper=True),
            Series("ours (bursts)", {f"flow {n}": m for n, m in zip(names, mbps)}, kind=BAR, within=NON_NEGATIVE),
            Series("ours, hosts pacing at the rate", {f"flow {n}": q for n, q in zip(names, paced)}, kind=BAR,
                   within=NON_NEGATIVE)])], panel_size=(6.5, 3.8))
    why = Text(lambda f: (
        f"host 3's downlink carries {f['into 3']:.0f} Mbps instead of about 906: three flows' per-RTT bursts "
        "meet there and the capacity controller keeps beta/alpha x q/T unallocated (docs/results-d3.md); hosts "
        "that pace each interval at the allocated rate ([d3] pacing = \"rate\") get "
        + ", ".join(f"{f[f'paced {n}']:.0f}" for n in names) + f" Mbps ({f['paced into 3']:.0f} into host 3)"),
        {"into 3": sum(mbps[:3]), "paced into 3": sum(paced[:3]), **{f"paced {n}": q for n, q in zip(names, paced)}})
    quote = ("\"the first three flows achieved an average network throughput of 302 Mbps each, while the average "
             "throughput for the last flow was 595 Mbps\"")
    claims = [ratio_claim(f"flow {n} achieves {p} Mbps ({quote})", p, m, " Mbps", tolerance=PRINTED, why=why,
                          within=NON_NEGATIVE) for n, p, m in zip(names, paper, mbps)]
    claims.append(condition_claim(
        "flows 1->3, 2->3 and 4->3 share host 3's downlink equally; 4->5 gets what 4->3 leaves of host 4's uplink "
        "(\"The first three flows are bottlenecked at the downlink from the ToR switch to host 3. The last flow is "
        "bottlenecked at the uplink from host 4 to its ToR switch\")",
        "302 x 3, 595", Text(lambda f: ", ".join(f"{f[n]:.0f}" for n in names), dict(zip(names, mbps))),
        max(mbps[:3]) - min(mbps[:3]) <= 0.05 * max(mbps[:3]) and mbps[3] > 1.5 * max(mbps[:3]),
        "the first three within 5% of each other; the fourth more than 1.5x any of them",
        values={f"flow {n} Mbps": m for n, m in zip(names, mbps)}))
    notes = ("Figure 8's hosts 1-5 are our hosts 0-4. Four long D3 flows for "
             f"{duration} s; throughput is delivered payload. The claims are judged on D3's hosts as the paper "
             "describes them (Section 5: each interval's allocation sent as a burst); `paced_mbps` adds hosts "
             "that pace it at the allocated rate.")
    return Outcome(claims=claims, tables={"multi_bottleneck": table(rows)}, figure=fig, notes=notes)


# --- Figures 12 and 13: flow bursts over a background flow -----------------------------------


def _background_curves(ctx: Context, name: str, size: Mapping[str, Any], rounds: int,
                       senders: Sequence[int]) -> Dict[str, Dict[int, float]]:
    result = ctx.sweep(name, flow_burst_scenario(rounds, size=size, background=True),
                       grid={SENDERS: list(senders)}, zips=[SCHEME_AXIS])
    shares = application_throughput(sweep_flows(result, [PROTOCOL, SENDERS, "met_deadline"]), (PROTOCOL, SENDERS))
    curves: Dict[str, Dict[int, float]] = {}
    for (protocol, n), share in shares.items():
        curves.setdefault(protocol, {})[n] = share
    return curves


def _curves_panel(curves: Mapping[str, Mapping[int, float]], title: str, ylim: Tuple[float, float]) -> Panel:
    return Panel(title, "number of senders", "application throughput (%)", ylim=ylim, lines=[Line(99, "99%")],
                 series=[Series(SCHEME_LABELS[s], {n: 100 * v for n, v in sorted(curves[s].items())}, within=PERCENT)
                         for s in SCHEMES])


def figure12(ctx: Context) -> Outcome:
    # Fewer bursts than Figure 9's 200: every TCP burst here costs a 300 ms timeout of simulated
    # long-flow traffic (about 25,000 packets), so the full run keeps to 50 bursts per point.
    senders = [1, 2, 4, 6, 8, 10, 14, 20, 30, 40] if ctx.quick else \
        [1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30, 35, 40]
    rounds = 10 if ctx.quick else 50
    curves = _background_curves(ctx, "d3-figure12", {"dist": "uniform", "min": "2KB", "max": "50KB"}, rounds, senders)
    alone = _burst_stats(_burst_sweep(ctx)[0])[0]
    rows: List[Dict[str, Any]] = []
    for scheme in SCHEMES:
        without = senders_supported(alone[(scheme, "30ms")], 0.99)
        with_bg = senders_supported(curves[scheme], 0.99)
        rows.append({"scheme": scheme, "supported_99_alone": without, "supported_99_background": with_bg,
                     "relative_drop": 1 - with_bg / without if without else None})
    fig = Plot("D3 Figure 12: flow bursts with a long background flow (moderate)", [
        _curves_panel(curves, "application throughput with the long flow", (40, 101)),
        Panel("senders supported at 99%", "scheme", "senders", series=[
            Series(label, {SCHEME_LABELS[r["scheme"]]: r[key] for r in rows}, kind=BAR, within=NON_NEGATIVE)
            for label, key in (("without background (Figure 9's runs)", "supported_99_alone"),
                               ("with the long flow", "supported_99_background"))])], panel_size=(6.0, 4.0))
    drop = {r["scheme"]: r["relative_drop"] for r in rows}
    tcp2 = curves["tcp"].get(2)
    claims = [
        condition_claim(
            "\"When compared to the response-flows-only scenario, the relative drop in the maximum number of senders "
            "supported is less for D3 than for TCP, TCPpr and RCPdc\" (at 99%)", "D3's drop smallest",
            Text(lambda f: ", ".join(f"{SCHEME_LABELS[s]} {f[s + ' alone']:.1f} -> {f[s + ' background']:.1f}"
                                     for s in SCHEMES),
                 {**{f"{r['scheme']} alone": r["supported_99_alone"] for r in rows},
                  **{f"{r['scheme']} background": r["supported_99_background"] for r in rows}}),
            drop["d3"] is not None and all(drop[s] is None or drop["d3"] < drop[s] for s in SCHEMES if s != "d3"),
            "D3's relative drop strictly below every other scheme's (a scheme supporting 0 alone is skipped)",
            exercised=drop["d3"] is not None, premise="D3 supports no sender at 99% even without the long flow",
            values={f"{r['scheme']} senders at 99%, background": r["supported_99_background"] for r in rows},
            why="every scheme collapses here. For D3 and RCPdc: the long flow holds the whole of C when a burst "
                "arrives, so the burst's first requests find nothing left and wait one RTT for the long flow to "
                "shrink its share (Snippet 1's second scenario, Section 4.3); the long flow's per-RTT burst then "
                "meets the responses' first bursts at the aggregator's port, and the printed controller, floored at "
                "the link, can take back only what it handed out above the link, so the queue drains at the link's "
                "rate while responses with deadlines near the 3 ms floor miss. RCP's reading of the controller, "
                "which cuts C below the link while a queue stands, keeps more senders (docs/results-d3.md, 'Which "
                "D3'). For TCP and TCPpr: the long flow keeps the 100 KB buffer full (see Table 1's report)"),
        condition_claim("\"even with only two senders, TCP cannot achieve 99% of application throughput\"",
                        "TCP < 99% at 2 senders",
                        "n/a" if tcp2 is None else Text(lambda f: f"{f['tcp2']:.1f}%", {"tcp2": 100 * tcp2}),
                        tcp2 is not None and tcp2 < 0.99, "TCP's application throughput at 2 senders below 99%",
                        values={} if tcp2 is None else {"tcp at 2 senders %": 100 * tcp2},
                        why="our TCP short flows see the long flow's standing queue (0.8 ms on a 0.5 ms path) but "
                            "rarely a loss at two senders; see Table 1's report for the same effect"),
    ]
    notes = (f"Moderate deadlines (30 ms, 3 ms floor). A long flow from a traffic generator (host 12) to the "
             f"aggregator runs from time 0; the bursts start at 50 ms (the paper waits 5 s) and repeat {rounds} "
             "times; the run ends with the last burst. Compared with Figure 9's runs without background.")
    return Outcome(claims=claims, tables={"figure12": table(rows)}, figure=fig, notes=notes)


def figure13(ctx: Context) -> Outcome:
    senders = [1, 4, 8, 12, 16, 20, 30, 40] if ctx.quick else list(range(2, 41, 2))
    rounds = 10 if ctx.quick else 50
    curves = _background_curves(ctx, "d3-figure13", {"dist": "fixed", "value": "2.9KB"}, rounds, senders)
    rows = [{"scheme": s, "senders": n, "app_throughput": v} for s in SCHEMES for n, v in sorted(curves[s].items())]
    fig = Plot("D3 Figure 13: 2.9 KB responses with a long background flow",
               [_curves_panel(curves, "", (0, 101))], panel_size=(7.0, 4.0))
    tcp_drop = next((n for n in sorted(curves["tcp"]) if curves["tcp"][n] < 0.99), None)
    others = {s: min(curves[s].values()) for s in ("tcppr", "rcpdc", "d3")}
    why_others = {
        "tcppr": "TCPpr orders service by class but shares the 100 KB of buffer with the TCP long flow, which keeps "
                 "it full: two-packet responses are dropped on arrival and wait for a 300 ms timeout (the paper "
                 "itself notes, for Figure 12, that background flows 'still consume buffer space and hurt higher "
                 "priority response flows')",
        "rcpdc": "the long flow's share and its per-RTT burst, which the printed controller cannot cut below the "
                 "link, as in Figure 12's report",
        "d3": "the long flow's share and its per-RTT burst, which the printed controller cannot cut below the link, "
              "as in Figure 12's report",
    }
    claims = [
        ratio_claim("with TCP, \"application throughput starts dropping at only 12 senders\" (ours: the first count "
                    "below 99%)", 12, tcp_drop or 0, " senders", tolerance=PRINTED, within=NON_NEGATIVE,
                    why="TCP never falls below 99% in the measured range" if tcp_drop is None else
                    "the TCP long flow keeps the 100 KB buffer full, so responses are lost from few senders on "
                    "(Table 1's report)"),
    ]
    for scheme in ("tcppr", "rcpdc", "d3"):
        # "All deadlines" read as the paper's operating regime (Section 6.1.1: at least 99%).
        claims.append(bound_claim(
            f"{SCHEME_LABELS[scheme]}, one of \"the other three approaches\", \"satisfy all deadlines untill 40 "
            "senders\" (ours: the lowest application throughput over the counts)",
            ">= 99% up to 40", 100 * others[scheme], at_least=99.0, unit="%", fmt="{:.1f}", why=why_others[scheme],
            within=PERCENT))
    notes = (f"Responses of 2.9 KB (two packets), moderate deadlines (3 ms floor), one long background flow, "
             f"{rounds} bursts per point.")
    return Outcome(claims=claims, tables={"figure13": table(rows)}, figure=fig, notes=notes)


REPRODUCTIONS = (
    Reproduction("d3-fig5", "D3", "Figure 5: ideal fair share, EDF and rate reservation", figure5),
    Reproduction("d3-fig9", "D3", "Figure 9: senders supported at 99% application throughput", figure9),
    Reproduction("d3-fig10", "D3", "Figure 10: application throughput against senders", figure10),
    Reproduction("d3-fig11", "D3", "Figure 11: completion times against deadlines", figure11),
    Reproduction("d3-fig12", "D3", "Figure 12: flow bursts with a long background flow", figure12),
    Reproduction("d3-fig13", "D3", "Figure 13: 2.9 KB responses with a long background flow", figure13),
    Reproduction("d3-fig16", "D3", "Figure 16: throughput and queue with long flows", figure16),
    Reproduction("d3-multi-bottleneck", "D3", "Section 6.2: multiple bottlenecks", multi_bottleneck),
)
