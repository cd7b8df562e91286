"""Reproductions of the D3 paper's benchmark traffic (Wilson et al., SIGCOMM 2011, Sections 6.1.2
and 6.1.3): Table 1, Figures 14 and 15, all drawn from one sweep. Poisson responses from the two
other hosts of a rack to its aggregator, with a long flow from each of them, on the settings of
`incast.reproduce.d3.microbenchmarks` (its module docstring gives them).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Tuple

from incast.protocols import labels
from incast.reproduce.core import Context, Outcome, Reproduction, line_plot, table
from incast.reproduce.d3.microbenchmarks import sweep_flows
from incast.reproduce.d3.settings import DEADLINE_FLOOR, STACK
from incast.reproduce.figures import BAR, Line, Panel, Plot, Series
from incast.reproduce.verdict import (
    NON_NEGATIVE,
    PERCENT,
    PRINTED,
    Text,
    bound_claim,
    condition_claim,
    order_claim,
    ratio_claim,
)
from incast.stats import INDEX, quantiles

if TYPE_CHECKING:
    from incast.sweep import SweepResult

# --- Table 1, Figures 14 and 15: benchmark traffic ---------------------------------------------

# Each variant of Section 6.1.2 with its switch: TCP with the default and the reduced min RTO,
# RCPdc, D3, and D3 with flow quenching (Section 6.1.3).
BENCHMARK_VARIANTS = ("tcp", "tcp-10ms", "rcpdc", "d3", "d3-quench")
BENCHMARK_AXIS: Dict[str, List[Any]] = {
    "transport.protocol": ["tcp", "tcp", "rcpdc", "d3", "d3"],
    "transport.min_rto": ["300ms", "10ms", "300ms", "300ms", "300ms"],
    "switch.buffer": ["100KB", "100KB", "128KB", "128KB", "128KB"],
    "d3.quench": [False, False, False, False, True],
}
BENCHMARK_LABELS = labels(["tcp", "tcp-10ms", "rcpdc", "d3", "d3-quench"],
                          {"tcp-10ms": "TCP (10 ms RTO)", "d3-quench": "D3 with quenching"})
RATE = "workload.0.rate"


def _variant(row: Mapping[str, Any]) -> str:
    for name, protocol, rto, quench in zip(BENCHMARK_VARIANTS, BENCHMARK_AXIS["transport.protocol"],
                                           BENCHMARK_AXIS["transport.min_rto"], BENCHMARK_AXIS["d3.quench"]):
        if (row["transport.protocol"], row["transport.min_rto"], bool(row["d3.quench"])) == (protocol, rto, quench):
            return name
    raise ValueError(f"not a benchmark variant: {row}")


def _benchmark(ctx: Context) -> Tuple[Dict[str, Dict[float, Dict[str, Any]]], float]:
    """Per variant and arrival rate: application throughput, completion-time percentiles of the
    responses and throughput of each long flow."""
    rates = [100, 500, 1000, 2000, 3000, 4000, 6000] if ctx.quick else \
        [100, 250, 500, 750, 1000, 1300, 1600, 2000, 2500, 3000, 3500, 4000, 5000, 6000]
    arrivals = 0.25 if ctx.quick else 1.0
    result = ctx.sweep(
        "d3-benchmark",
        {
            "topology": {"kind": "d3-testbed"},
            "transport": {"stack": STACK, "protocol": "d3", "handshake": True},
            "workload": [
                {"kind": "poisson", "rate": 100.0, "hosts": [1, 2], "destinations": [0],
                 "size": {"dist": "uniform", "min": "2KB", "max": "50KB"},
                 "deadline": {"dist": "exponential", "mean": "30ms", "min": DEADLINE_FLOOR},
                 "stop": f"{arrivals}s"},
                {"kind": "long-flows", "pairs": [[1, 0], [2, 0]]},
            ],
            "run": {"duration": f"{arrivals + 2.0}s", "stop_after_finite_flows": True},
        },
        grid={RATE: [float(r) for r in rates]},
        zips=[BENCHMARK_AXIS],
    )
    key = (str(result.out), result.sweep.id)
    if key not in _BENCHMARKS:
        _BENCHMARKS[key] = _benchmark_cells(result)
    return _BENCHMARKS[key], arrivals


# Table 1 and Figures 14 and 15 draw on the same sweep: its cells, once per sweep in a process.
_BENCHMARKS: Dict[Tuple[str, str], Dict[str, Dict[float, Dict[str, Any]]]] = {}


def _benchmark_cells(result: "SweepResult") -> Dict[str, Dict[float, Dict[str, Any]]]:
    summary = {row["point"]: row["sim_time_s"] for row in result.summary().select(["point", "sim_time_s"]).to_pylist()}
    cells: Dict[str, Dict[float, Dict[str, Any]]] = {}
    columns = ["point", RATE, *BENCHMARK_AXIS, "size_bytes", "delivered_bytes", "met_deadline", "start_s", "finish_s"]
    for f in sweep_flows(result, columns).to_pylist():
        cell = cells.setdefault(_variant(f), {}).setdefault(f[RATE], {"met": 0, "judged": 0, "total": 0, "fct": [],
                                                                      "long": []})
        if f["size_bytes"] is None:
            cell["long"].append(f["delivered_bytes"] * 8 / summary[f["point"]] / 1e6)
            continue
        cell["total"] += 1
        if f["met_deadline"] is not None:  # null: its deadline lay past the end of the run
            cell["judged"] += 1
            cell["met"] += int(f["met_deadline"])
        if f["finish_s"] is not None:
            cell["fct"].append(f["finish_s"] - f["start_s"])
    return cells


#: The completion-time percentiles of each cell, `INDEX` quantiles (`incast.stats`: the committed
#: reports and the pins of Table 1 and Figures 14 and 15 were computed with it).
FCT_QUANTILES = (0.01, 0.05, 0.5, 0.95, 0.99)


def _benchmark_rows(cells: Mapping[str, Mapping[float, Mapping[str, Any]]]) -> List[Dict[str, Any]]:
    rows = []
    for variant, by_rate in cells.items():
        for rate, c in sorted(by_rate.items()):
            fct = quantiles(c["fct"], FCT_QUANTILES, INDEX) if c["fct"] else [math.nan] * len(FCT_QUANTILES)
            rows.append({
                "variant": variant, "rate_per_s": rate, "flows": c["total"],
                "app_throughput": c["met"] / c["judged"] if c["judged"] else None,
                **{f"fct_p{int(q * 100)}_ms": 1e3 * v for q, v in zip(FCT_QUANTILES, fct)},
                "long_flow_mbps": sum(c["long"]) / len(c["long"]) if c["long"] else None,
            })
    return rows


def _supported_rate(by_rate: Mapping[float, Mapping[str, Any]], level: float = 0.99) -> float:
    supported = 0.0
    for rate in sorted(by_rate):
        c = by_rate[rate]
        if not c["total"] or c["met"] / c["total"] <= level:
            break
        supported = rate
    return supported


def table1(ctx: Context) -> Outcome:
    cells, arrivals = _benchmark(ctx)
    rows = _benchmark_rows(cells)
    supported = {v: _supported_rate(cells[v]) for v in ("tcp", "tcp-10ms", "rcpdc", "d3")}
    paper = {"tcp": 100, "tcp-10ms": 1100, "rcpdc": 1300, "d3": 2000}
    fig = Plot("D3 Table 1: benchmark traffic (two long flows + Poisson responses)", [
        Panel("application throughput", "response arrivals (flows/s)", "application throughput (%)", xscale="log",
              lines=[Line(99, "99%", paper=False)], series=[
                  Series(BENCHMARK_LABELS[v], {r["rate_per_s"]: 100 * r["app_throughput"] for r in rows
                                               if r["variant"] == v and r["app_throughput"] is not None},
                         within=PERCENT) for v in paper]),
        Panel("flows/s supported at > 99%", "scheme", "flows/s", series=[
            Series("paper", {BENCHMARK_LABELS[v]: p for v, p in paper.items()}, kind=BAR, paper=True),
            Series("ours", {BENCHMARK_LABELS[v]: supported[v] for v in paper}, kind=BAR, within=NON_NEGATIVE)])],
        panel_size=(6.0, 4.0))
    why_tcp = ("our two NewReno long flows keep the 100 KB buffer full: a standing 0.8 ms queue on a 0.5 ms path, "
               "so responses need about 5 RTTs of 1.3 ms and every deadline under about 6 ms is missed even without "
               "a loss (docs/results-d3.md); the paper's TCP long flows did not fill the buffer, for a reason it "
               "does not give")
    why_d3 = Text(lambda f: (f"our D3 copes with more load than the paper's: it keeps more than 99% up to "
                             f"{f['d3']:.0f} flows/s and collapses later too (Figure 15's report; the paper's beyond "
                             "2500 flows/s); we have not found what limited the paper's D3"),
                  {"d3": supported["d3"]})
    claims = [ratio_claim(f"{BENCHMARK_LABELS[v]} supports about {p} flows/s at > 99% application throughput (Table 1: "
                          "\"Flow arrival rate supported while maintaining >99% application throughput\", TCP 100 "
                          "(1100 with reduced RTO), RCPdc 1300, D3 2000)",
                          p, supported[v], " flows/s", tolerance=PRINTED, fmt="{:.4g}", within=NON_NEGATIVE,
                          why=why_tcp if v.startswith("tcp") else
                          "RCPdc's fair sharing meets fewer deadlines under our deadline distribution (Figure 9's "
                          "report)" if v == "rcpdc" else why_d3)
              for v, p in paper.items()]
    claims.append(order_claim("TCP < TCP with 10 ms RTO < RCPdc < D3 in flows/s supported (Table 1's order)",
                              "100 < 1100 < 1300 < 2000", supported, ["tcp", "tcp-10ms", "rcpdc", "d3"],
                              fmt="{:g}", why=why_tcp))
    rows_t = [{"variant": v, "supported_flows_per_s": supported[v], "paper_flows_per_s": paper[v]} for v in paper]
    notes = (f"One rack of the testbed: Poisson responses of [2 KB, 50 KB] from hosts 1 and 2 to aggregator 0 for "
             f"{arrivals} s, moderate deadlines (3 ms floor), one long flow from each sender to the aggregator. "
             "Supported: the largest measured rate up to which every rate keeps more than 99%.")
    return Outcome(claims=claims, tables={"table1": table(rows_t), "benchmark": table(rows)}, figure=fig,
                   notes=notes)


def figure14(ctx: Context) -> Outcome:
    cells, arrivals = _benchmark(ctx)
    rows = [r for r in _benchmark_rows(cells) if r["variant"] in ("tcp", "rcpdc", "d3")]
    variants = ("tcp", "rcpdc", "d3")

    def curve(v: str, key: str, scale: float = 1.0) -> Dict[float, float]:
        return {r["rate_per_s"]: scale * r[key] for r in sorted(rows, key=lambda r: r["rate_per_s"])
                if r["variant"] == v and r[key] is not None and not math.isnan(r[key])}

    fig = Plot("D3 Figure 14: benchmark traffic", [
        Panel("(a) response completion times", "flows/s", "completion time (ms)", xscale="log", yscale="log",
              series=[Series(f"{BENCHMARK_LABELS[v]} {q}", curve(v, key), within=NON_NEGATIVE)
                      for v in variants for q, key in (("median", "fct_p50_ms"), ("99th percentile", "fct_p99_ms"))]),
        Panel("(b) long flows", "flows/s", "throughput per long flow (Mbps)", xscale="log",
              series=[Series(BENCHMARK_LABELS[v], curve(v, "long_flow_mbps"), within=NON_NEGATIVE) for v in variants]),
        Panel("application throughput (2000 flows/s: the claims)", "flows/s", "application throughput (%)",
              xscale="log", lines=[Line(99, "paper: D3 99%"), Line(96.5, "paper: RCPdc 96.5%")],
              series=[Series(BENCHMARK_LABELS[v], curve(v, "app_throughput", 100), within=PERCENT)
                      for v in variants])], panel_size=(5.5, 4.0))
    at = {(r["variant"], r["rate_per_s"]): r for r in rows}
    rate = 2000.0
    d3_2000, rcpdc_2000 = at[("d3", rate)]["app_throughput"], at[("rcpdc", rate)]["app_throughput"]
    rates = sorted(r for (v, r) in at if v == "d3")
    long_ok = all(at[("d3", r)]["long_flow_mbps"] >= 0.9 * at[("rcpdc", r)]["long_flow_mbps"] for r in rates)
    low = min(r for (v, r) in at)
    tcp_med, d3_med = at[("tcp", low)]["fct_p50_ms"], at[("d3", low)]["fct_p50_ms"]
    claims = [
        bound_claim("at 2000 flows/s D3 can satisfy 99% of flow deadlines (\"even at 2000 flows/s ... D3 can satisfy "
                    "99% of flow deadlines\", the operating regime of Table 1: > 99%)", ">= 99%", 100 * d3_2000,
                    at_least=99.0, unit="%", fmt="{:.1f}", within=PERCENT),
        # On the scale of misses: 96.5% satisfied is 3.5% missed, printed to two digits.
        ratio_claim("at 2000 flows/s RCPdc can only satisfy 96.5% of flow deadlines (misses 3.5%)", 3.5,
                    100 * (1 - rcpdc_2000), "% missed", tolerance=PRINTED, within=PERCENT,
                    why="RCPdc meets fewer deadlines than the paper's under our deadline distribution (Figure 9's "
                        "report)"),
        condition_claim("\"long flows do not suffer with D3\" (Figure 14(b): the average throughput of each long "
                        "flow, against RCPdc's)", "D3 long flows ~ RCPdc's",
                        Text(lambda f: ", ".join(f"{r:g}/s {f[f'd3 {r:g}']:.0f} vs {f[f'rcpdc {r:g}']:.0f}"
                                                 for r in rates),
                             {f"{v} {r:g}": at[(v, r)]["long_flow_mbps"] for v in ("d3", "rcpdc") for r in rates}),
                        long_ok, "every rate: D3's long-flow throughput >= 90% of RCPdc's",
                        values={f"{v} long-flow Mbps at {r:g}/s": at[(v, r)]["long_flow_mbps"]
                                for (v, r) in sorted(at) if v in ("d3", "rcpdc")},
                        why="nearer the collapse D3 gives the long flows less than RCPdc does, because deadline "
                            "flows take precedence"),
        ratio_claim(f"at very low load TCP's median completion time is 50% higher than D3's ({int(low)} flows/s; "
                    "\"At very low load, ... TCP's median flow completion time is 50% higher than D3\")",
                    1.5, tcp_med / d3_med, "x", tolerance=PRINTED, within=NON_NEGATIVE,
                    why=Text(lambda f: f"the standing queue of our TCP long flows (Table 1's report) makes TCP's "
                                       f"median {f['ratio']:.1f} times D3's ({f['tcp']:.1f} against {f['d3']:.1f} ms)",
                             {"ratio": tcp_med / d3_med, "tcp": tcp_med, "d3": d3_med})),
    ]
    notes = "The same runs as Table 1."
    return Outcome(claims=claims, tables={"figure14": table(rows)}, figure=fig, notes=notes)


def figure15(ctx: Context) -> Outcome:
    cells, arrivals = _benchmark(ctx)
    rows = [r for r in _benchmark_rows(cells) if r["variant"] in ("d3", "d3-quench")]
    fig = line_plot({BENCHMARK_LABELS[v]: {r["rate_per_s"]: r["app_throughput"] for r in rows if r["variant"] == v}
                     for v in ("d3", "d3-quench")},
                    xlabel="response arrivals (flows/s)", ylabel="application throughput (%)",
                    title="D3 Figure 15: flow quenching past the collapse", ylim=(0, 101))
    plain = {r["rate_per_s"]: r["app_throughput"] for r in rows if r["variant"] == "d3"}
    quench = {r["rate_per_s"]: r["app_throughput"] for r in rows if r["variant"] == "d3-quench"}
    collapse = next((r for r in sorted(plain) if plain[r] < 0.5), None)
    past = [r for r in sorted(plain) if collapse is not None and r >= collapse]
    last_ok = max((r for r in sorted(plain) if collapse is None or r < collapse), default=0.0)
    def why_collapse(f: Mapping[str, float]) -> str:
        if "collapse" not in f:
            return f"no collapse in the measured range (D3 keeps {f['kept']:.1f}% at {f['last']:.0f} flows/s)"
        return (f"our D3 keeps {f['kept']:.1f}% at {f['last']:.0f} flows/s and collapses only at {f['collapse']:.0f}: "
                "it copes with more load than the paper's throughout (Table 1's report)")

    claims = [
        # "Beyond 2500 flows/s" it cannot cope: up to 2500 it does. Ours is the last rate before
        # the first below 50% (the drastic drop), which the paper puts at 2500.
        ratio_claim("\"Beyond 2500 flows/s, D3 cannot cope with the network load ... the application throughput drops "
                    "drastically\" (ours: the last rate before application throughput first falls below 50%)", 2500,
                    last_ok, " flows/s", tolerance=PRINTED, fmt="{:.4g}", within=NON_NEGATIVE,
                    why=Text(why_collapse, {"last": last_ok, "kept": 100 * plain.get(last_ok, 0.0),
                                            **({} if collapse is None else {"collapse": collapse})})),
        condition_claim("\"Flow quenching leads to a smoother decline in performance at extreme loads\"",
                        "quenching above plain D3",
                        Text(lambda f: ", ".join(f"{r:g}/s {f[f'plain {r:g}']:.0f}% -> {f[f'quench {r:g}']:.0f}%"
                                                 for r in sorted(plain) if f"past {r:g}" in f) or "no collapse",
                             {**{f"plain {r:g}": 100 * plain[r] for r in plain},
                              **{f"quench {r:g}": 100 * quench[r] for r in quench},
                              **{f"past {r:g}": 1.0 for r in past}}),
                        bool(past) and all(quench[r] > plain[r] for r in past),
                        "with quenching, application throughput higher at every rate from the collapse on",
                        exercised=bool(past), premise="plain D3 never fell below 50% in the measured range",
                        values={f"{name} % at {r:g}/s": 100 * curve[r] for name, curve in (("d3", plain),
                                                                                         ("quench", quench))
                                for r in sorted(curve)}),
    ]
    notes = "The same runs as Table 1; quenched flows count as missed deadlines."
    return Outcome(claims=claims, tables={"figure15": table(rows)}, figure=fig, notes=notes)


REPRODUCTIONS = (
    Reproduction("d3-table1", "D3", "Table 1: flow arrival rate supported with benchmark traffic", table1),
    Reproduction("d3-fig14", "D3", "Figure 14: completion times and long flows under benchmark traffic", figure14),
    Reproduction("d3-fig15", "D3", "Figure 15: flow quenching", figure15),
)
