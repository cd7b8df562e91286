"""The generated blocks of docs/results-d3.md: D3's figures and tables, the multi-bottleneck case
and `rcpdc-ps`, from the reports of `incast.reproduce.d3.microbenchmarks` and `incast.reproduce.d3.rcpdc_ps`.

Each renderer reads one reproduction's tables (or claims) and writes a table or a clause in the
shape the doc had when it was typed by hand. Numbers measured over several seeds carry their 95%
interval (`cells.number`); a count derived from a whole curve (senders supported) or a ratio of
two schemes is computed on each seed's rows, then taken over the seeds (`seeds.per_seed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from incast.protocols import labels
from incast.reproduce.core import verdict_text
from incast.reproduce.d3.ideal_allocators import flows_supported
from incast.reproduce.d3.microbenchmarks import DEADLINE_NAMES, SCHEME_LABELS, SCHEMES, senders_supported
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.cells import number, percent
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.errors import DocsError
from incast.reproduce.rendering.seeds import estimate, per_seed, seed_means, seed_tables
from incast.reproduce.verdict import NON_NEGATIVE, Estimate
from incast.stats import INDEX, quantile
from incast.units import bytes_

if TYPE_CHECKING:
    import pyarrow as pa

Renderer = Callable[[Reproductions], str]
Curves = Dict[Tuple[Any, ...], Dict[Any, float]]


def _curves(rows: "pa.Table", keys: Sequence[str], x: str, y: str) -> Curves:
    """`{(key values): {x: y}}` from the rows of one seed."""
    out: Curves = {}
    for row in rows.to_pylist():
        out.setdefault(tuple(row[k] for k in keys), {})[row[x]] = row[y]
    return out


def _said(claim: Mapping[str, Any]) -> str:
    """A claim's number and verdict, `3.25x, matches`."""
    return f"{claim['ours']}, {verdict_text(claim)}"


def _deadline(mean: str) -> str:
    """`tight (20 ms)` for `20ms`."""
    return f"{DEADLINE_NAMES[mean]} ({mean[:-2]} ms)"


def _where(names: Sequence[str], of: int) -> str:
    """Which of `of` deadline settings a statement holds at, in words."""
    if len(names) == of:
        return "at every deadline setting"
    if not names:
        return "at no deadline setting"
    return f"only for {cells.listing(list(names))} deadlines"


# --- Figure 5 ------------------------------------------------------------------------------------


def _fig5_supported(r: Reproductions) -> Dict[Tuple[str, int], Estimate]:
    def supported(rows: "pa.Table") -> Dict[Tuple[str, int], float]:
        curves = _curves(rows, ("allocator", "deadline_mean_ms"), "flows", "app_throughput")
        out = {(a, m): float(flows_supported(c)) for (a, m), c in curves.items()}
        for (a, m) in list(out):
            if a != "fair-share":
                out[(f"{a}/fair", m)] = out[(a, m)] / max(out[("fair-share", m)], 1.0)
        return out

    return per_seed(r.table("d3-fig5", "figure5"), supported)


def fig5_supported(r: Reproductions) -> str:
    """Flows supported with every deadline met, per allocator and deadline mean."""
    s = _fig5_supported(r)
    means = sorted({m for _, m in s})
    return cells.table(
        ["deadlines", "fair share", "EDF", "rate reservation", "EDF / fair", "reservation / fair"],
        [[_deadline(f"{m}ms"), *(number(s[(a, m)], "{:.0f}") for a in ("fair-share", "edf", "reservation")),
          *(number(s[(f"{a}/fair", m)], "{:.1f}") for a in ("edf", "reservation"))] for m in means])


def fig5_ours(r: Reproductions) -> str:
    """Inline: each allocator's gain over fair share and where it lies in the paper's 3-5x."""
    s = _fig5_supported(r)
    means = sorted({m for _, m in s})
    parts = []
    for allocator, label in (("reservation", "reservation"), ("edf", "EDF")):
        ratios = [s[(f"{allocator}/fair", m)].mean for m in means]
        inside = [DEADLINE_NAMES[f"{m}ms"] for m in means
                  if r.claim("d3-fig5", f"{allocator} supports", f"(mean {m} ms")["verdict"] == "matches"]
        parts.append(f"{cells.span(ratios)}x for {label}, inside the range {_where(inside, len(means))}")
    return "; ".join(parts)


def fig5_edf_overload(r: Reproductions) -> str:
    """Inline: EDF's application throughput past its collapse, tight deadlines."""
    m = seed_means(r.table("d3-fig5", "figure5"), ["app_throughput"])
    return ", ".join(f"{percent(m.of('app_throughput', allocator='edf', deadline_mean_ms=20, flows=n), 0)} at {n} "
                     "flows" for n in (100, 150))


# --- Figures 9 and 10: flow bursts -----------------------------------------------------------------


def fig9_senders(r: Reproductions) -> str:
    """Senders supported at 99% per scheme and deadline mean, and D3's ratios over RCPdc and TCP."""
    t = r.table("d3-fig9", "figure9")
    m = seed_means(t, ["supported_99", "supported_95"])

    def ratios(rows: "pa.Table") -> Dict[Tuple[str, str], float]:
        at = {(row["scheme"], row["deadline_mean"]): row["supported_99"] for row in rows.to_pylist()}
        return {(other, mean): at[("d3", mean)] / max(at[(other, mean)], 1)
                for (other, mean) in at if other != "d3"}

    ratio = per_seed(t, ratios)
    return cells.table(
        ["deadlines", *(SCHEME_LABELS[s] for s in SCHEMES), "D3 / RCPdc", "D3 / TCP"],
        [[_deadline(mean), *(number(m.of("supported_99", scheme=s, deadline_mean=mean), "{:.0f}") for s in SCHEMES),
          number(ratio[("rcpdc", mean)], "{:.3g}"), number(ratio[("tcp", mean)], "{:.3g}")]
         for mean in m.levels("deadline_mean")])


def fig9_ratios(r: Reproductions) -> str:
    """The report's verdicts on D3's gains at 99%, per deadline mean."""
    names = [DEADLINE_NAMES[mean] for mean in ("20ms", "30ms", "40ms")]
    rows = []
    for label, words in (("RCPdc", "as RCPdc at 99%"), ("TCP", "as TCP at 99%"), ("TCPpr", "as TCPpr at 99%")):
        claims = [r.claim("d3-fig9", words, f"({name})") for name in names]
        rows.append([label, claims[0]["paper"], *(_said(c) for c in claims)])
    return cells.table(["D3 over, at 99%", "paper", *names], rows)


def fig9_growth(r: Reproductions) -> str:
    """Inline: the gain in senders from tight to lax deadlines, per scheme, and its verdict."""
    return _said(r.claim("d3-fig9", "the increase in", "senders supported"))


def fig9_at95(r: Reproductions) -> str:
    """Senders supported at 95%, moderate deadlines: the paper's, ours and the verdicts."""
    m = seed_means(r.table("d3-fig9", "figure9"), ["supported_99", "supported_95"])
    claims = {s: r.claim("d3-fig9", f"at 95%, moderate deadlines: {SCHEME_LABELS[s]} supports") for s in SCHEMES}
    return cells.table(
        ["senders at 95%, moderate", *(SCHEME_LABELS[s] for s in SCHEMES)],
        [["paper", *(claims[s]["paper"].replace(" senders", "") for s in SCHEMES)],
         ["ours", *(number(m.of("supported_95", scheme=s, deadline_mean="30ms"), "{:.0f}") for s in SCHEMES)],
         ["verdict", *(verdict_text(claims[s]) for s in SCHEMES)]])


def _fig10_gaps(r: Reproductions) -> Dict[Tuple[str, Any], Estimate]:
    """Per seed: the ideal fair share's and RCPdc's application throughput (moderate), their gap
    at each sender count, and the largest gap over every count and deadline mean."""
    def gaps(rows: "pa.Table") -> Dict[Tuple[str, Any], float]:
        c = _curves(rows, ("scheme", "deadline_mean"), "senders", "app_throughput")
        fluid = {mean: curve for (scheme, mean), curve in c.items() if scheme == "fluid-fair-share"}
        out: Dict[Tuple[str, Any], float] = {}
        for n, v in c[("fluid-fair-share", "30ms")].items():
            out[("fluid", n)] = v
            out[("rcpdc", n)] = c[("rcpdc", "30ms")][n]
            out[("gap", n)] = v - c[("rcpdc", "30ms")][n]
        out[("largest", None)] = max(curve[n] - c[("rcpdc", mean)][n] for mean, curve in fluid.items() for n in curve)
        return out

    return per_seed(r.table("d3-fig10", "figure10"), gaps)


FIG10_COUNTS = (10, 20, 30, 40)
"""The sender counts the doc shows of Figure 10."""


def fig10_fair_share(r: Reproductions) -> str:
    """Inline: the ideal fair share against RCPdc on the same bursts (moderate deadlines)."""
    g = _fig10_gaps(r)
    fluid = [f"{percent(g[('fluid', n)])} at {n}" for n in FIG10_COUNTS]
    return (f"meets {cells.listing(fluid)} senders; RCPdc meets "
            f"{cells.listing([percent(g[('rcpdc', n)]) for n in FIG10_COUNTS])}, "
            f"{cells.span([100 * g[('gap', n)].mean for n in FIG10_COUNTS])} points below it, and up to "
            f"{number(g[('largest', None)], scale=100)} points below over every sender count and deadline setting")


def one_sender(r: Reproductions) -> str:
    """Inline: the lowest application throughput with one sender, over every scheme and deadline
    mean of Figure 10's runs (the premise of the deadline floor)."""
    m = seed_means(r.table("d3-fig10", "figure10"), ["app_throughput"])
    lowest = min((m.of("app_throughput", scheme=s, deadline_mean=mean, senders=1) for s in SCHEMES
                  for mean in m.levels("deadline_mean")), key=lambda e: e.mean)
    if lowest.mean == 1.0:
        return "with one sender every scheme meets every deadline at every deadline mean in Figure 10's runs"
    return f"with one sender every scheme meets at least {percent(lowest)} of deadlines in Figure 10's runs"


def fair_share_at95(r: Reproductions) -> str:
    """Inline: the senders the ideal fair share supports at 95%, moderate deadlines."""
    t = r.table("d3-fig10", "figure10")

    def supported(rows: "pa.Table") -> Dict[str, float]:
        curve = _curves(rows, ("scheme", "deadline_mean"), "senders", "app_throughput")[("fluid-fair-share", "30ms")]
        return {"95": float(senders_supported(curve, 0.95))}

    return f"supports only {number(per_seed(t, supported)['95'], '{:.0f}')} senders at 95% (moderate deadlines)"


def fig10_throughput(r: Reproductions) -> str:
    """Application throughput at 10-40 senders, moderate deadlines, per scheme."""
    m = seed_means(r.table("d3-fig10", "figure10"), ["app_throughput"])
    return cells.table(
        ["", *map(str, FIG10_COUNTS)],
        [[SCHEME_LABELS[s], *(percent(m.of("app_throughput", scheme=s, deadline_mean="30ms", senders=n))
                              for n in FIG10_COUNTS)] for s in SCHEMES])


def fig10_ours(r: Reproductions) -> str:
    """Inline: D3's gain over each scheme at 40 senders, and from where RCPdc stays above TCP."""
    t = r.table("d3-fig10", "figure10")

    def gains(rows: "pa.Table") -> Dict[str, float]:
        c = _curves(rows, ("scheme", "deadline_mean"), "senders", "app_throughput")
        top = max(c[("d3", "30ms")])
        return {s: 100 * (c[("d3", "30ms")][top] - c[(s, "30ms")][top]) for s in SCHEMES if s != "d3"}

    gain = per_seed(t, gains)
    m = seed_means(t, ["app_throughput"])
    counts = m.levels("senders")

    def share(scheme: str, n: int) -> float:
        return m.of("app_throughput", scheme=scheme, deadline_mean="30ms", senders=n).mean

    def above(n: int) -> bool:
        return all(share("rcpdc", k) > share("tcp", k) for k in counts if k >= n)

    since = next((n for n in counts if above(n)), None)
    text = (f"D3 is {number(gain['tcp'], '{:.0f}')} points above TCP, {number(gain['rcpdc'], '{:.0f}')} above RCPdc "
            f"and {number(gain['tcppr'], '{:.0f}')} above TCPpr at {max(counts)} senders")
    return text + (f"; RCPdc is above TCP from {since} senders on" if since is not None else
                   "; RCPdc is not above TCP at the largest count")


# --- Figure 11: lateness ---------------------------------------------------------------------------


def _lateness(r: Reproductions) -> Dict[Tuple[str, str], Estimate]:
    """Per scheme, over each seed's flows: the missed fraction, the 95th percentile and mean of
    late flows' overshoot (as `incast.reproduce.d3.microbenchmarks.figure11` computes them) and the late count."""
    def stats(rows: "pa.Table") -> Dict[Tuple[str, str], float]:
        per: Dict[str, Dict[str, Any]] = {}
        for f in rows.to_pylist():
            if f["met_deadline"] is None:
                continue  # unknown: the run ended before its deadline
            s = per.setdefault(f["scheme"], {"total": 0, "missed": 0, "over": []})
            s["total"] += 1
            if not f["met_deadline"]:
                s["missed"] += 1
                if f["fct_ms"] is not None:
                    s["over"].append((f["fct_ms"] - f["deadline_ms"]) / f["deadline_ms"])
        out: Dict[Tuple[str, str], float] = {}
        for scheme, s in per.items():
            over = sorted(s["over"])
            out[(scheme, "missed")] = s["missed"] / s["total"]
            out[(scheme, "late")] = float(len(over))
            if over:
                out[(scheme, "p95")] = quantile(over, 0.95, INDEX)
                out[(scheme, "mean")] = sum(over) / len(over)
        return out

    return per_seed(r.table("d3-fig11", "figure11"), stats)


def _fig11_paper(r: Reproductions, scheme: str) -> List[Mapping[str, Any]]:
    """The report's claims of the paper's missed fraction, 95th percentile and mean overshoot."""
    label = SCHEME_LABELS[scheme]
    return [r.claim("d3-fig11", f"{label} misses", "of flow deadlines"),
            r.claim("d3-fig11", f"late {label} flows", "95th percentile"),
            r.claim("d3-fig11", f"late {label} flows", "on average")]


def fig11_lateness(r: Reproductions) -> str:
    """Missed deadlines and late flows' overshoot: the paper's (from the report's claims) and ours."""
    s = _lateness(r)
    rows = []
    for scheme in ("rcpdc", "d3"):
        label = SCHEME_LABELS[scheme]
        rows.append([f"{label}, paper", *(c["paper"] for c in _fig11_paper(r, scheme))])
        rows.append([f"{label}, ours", percent(s[(scheme, "missed")]),
                     percent(s.get((scheme, "p95")), 0, within=NON_NEGATIVE),
                     percent(s.get((scheme, "mean")), 0, within=NON_NEGATIVE)])
    # TCP's late flows wait out 300 ms timeouts: overshoots of many times the deadline, not a
    # number the paper gives.
    rows.append(["TCP, ours", percent(s[("tcp", "missed")]), "(300 ms timeouts)", ""])
    return cells.table(["", "missed", "p95 overshoot of late flows", "mean overshoot"], rows)


def fig11_ours(r: Reproductions) -> str:
    """Inline: how D3 and RCPdc compare with each other and with the paper."""
    s = _lateness(r)
    paper = {k: [float(c["paper"].rstrip("%")) for c in _fig11_paper(r, k)] for k in ("rcpdc", "d3")}
    missed = [100 * s[(k, "missed")].mean / paper[k][0] for k in paper]
    over = [100 * s[(k, q)].mean / paper[k][i] for k in paper for i, q in ((1, "p95"), (2, "mean"))]
    fewer = s[("rcpdc", "missed")].mean / s[("d3", "missed")].mean
    return (f"D3 misses {fewer:.1f} times fewer deadlines than RCPdc; both miss {cells.span(missed)} times the "
            f"paper's fraction, and their late flows overshoot {cells.span(over)} times as much")


def fig11_late_flows(r: Reproductions) -> str:
    """Inline: how many late D3 flows its percentile rests on."""
    late = _lateness(r)[("d3", "late")]
    seeds = "one seed" if late.seeds == 1 else f"{late.seeds} seeds (mean per seed)"
    return f"{number(late, '{:.0f}')} late flows of {seeds}"


# --- Figures 12 and 13: a long background flow ------------------------------------------------------


def fig12_supported(r: Reproductions) -> str:
    """Senders supported at 99% without and with the long flow, and the relative drop."""
    m = seed_means(r.table("d3-fig12", "figure12"), ["supported_99_alone", "supported_99_background", "relative_drop"])
    return cells.table(
        ["senders at 99%, moderate", *(SCHEME_LABELS[s] for s in SCHEMES)],
        [["bursts alone (Figure 9's runs)", *(number(m.of("supported_99_alone", scheme=s), "{:.0f}") for s in SCHEMES)],
         ["with the long flow", *(number(m.of("supported_99_background", scheme=s), "{:.0f}") for s in SCHEMES)],
         ["relative drop", *(percent(m.maybe("relative_drop", scheme=s), 0, within=None) for s in SCHEMES)]])


def fig12_ours(r: Reproductions) -> str:
    """Inline: the report's verdicts on Figure 12's two claims."""
    two = r.claim("d3-fig12", "even with only two senders")
    drop = r.claim("d3-fig12", "the relative drop in", "senders supported")
    tcp2 = two.get("numbers", {}).get("tcp at 2 senders %")
    met = number(estimate(tcp2), unit="%") if tcp2 else two["ours"]
    held = drop.get("numbers", {}).get("holds", [])
    smallest = "is the smallest" if drop["verdict"] == "matches" else "is not the smallest"
    if len(held) > 1:
        smallest += f" (it is in {sum(h == 1 for h in held)} of {len(held)} seeds)"
    return f"TCP meets {met} at two senders ({verdict_text(two)}); D3's relative drop {smallest} ({verdict_text(drop)})"


def fig13_ours(r: Reproductions) -> str:
    """Inline: the lowest application throughput of D3 and RCPdc, and where TCP and TCPpr stay below 95%."""
    t = r.table("d3-fig13", "figure13")

    def lowest(rows: "pa.Table") -> Dict[str, float]:
        return {s: min(c.values()) for (s,), c in _curves(rows, ("scheme",), "senders", "app_throughput").items()}

    low = per_seed(t, lowest)
    m = seed_means(t, ["app_throughput"])
    counts = m.levels("senders")

    def below_from(scheme: str) -> Optional[int]:
        return next((n for n in counts
                     if all(m.of("app_throughput", scheme=scheme, senders=k).mean < 0.95 for k in counts if k >= n)),
                    None)

    parts = [f"the lowest application throughput over {min(counts)}-{max(counts)} senders is {percent(low['d3'])} "
             f"for D3 and {percent(low['rcpdc'])} for RCPdc"]
    since = {s: below_from(s) for s in ("tcp", "tcppr")}

    def below(n: Optional[int]) -> str:
        return f"below 95% from {n} senders on" if n is not None else "not below 95% at every count"

    if since["tcp"] == since["tcppr"]:
        parts.append(f"TCP and TCPpr are {below(since['tcp'])}")
    else:
        parts += [f"{SCHEME_LABELS[s]} is {below(n)}" for s, n in since.items()]
    return "; ".join(parts)


# --- Table 1, Figures 14 and 15: benchmark traffic ---------------------------------------------------

BENCHMARK_VALUES = ["flows", "app_throughput", "fct_p1_ms", "fct_p5_ms", "fct_p50_ms", "fct_p95_ms", "fct_p99_ms",
                    "long_flow_mbps"]
"""The measured columns of the benchmark tables (one row per variant and rate)."""
TABLE1_RATES = (100.0, 500.0, 1000.0, 2000.0, 3000.0, 3500.0, 4000.0)
TABLE1_LABELS = labels(["tcp", "tcp-10ms", "rcpdc", "d3"], {"tcp-10ms": "TCP, 10 ms RTO"})


def table1_benchmark(r: Reproductions) -> str:
    """Application throughput by arrival rate, and the rate supported: ours and the paper's."""
    m = seed_means(r.table("d3-table1", "benchmark"), BENCHMARK_VALUES)
    supported = seed_means(r.table("d3-table1", "table1"), ["supported_flows_per_s", "paper_flows_per_s"])
    return cells.table(
        ["", *(f"{rate:.0f}/s" for rate in TABLE1_RATES), "supported (> 99%)", "paper"],
        [[label, *(percent(m.of("app_throughput", variant=v, rate_per_s=rate)) for rate in TABLE1_RATES),
          number(supported.of("supported_flows_per_s", variant=v), "{:.0f}"),
          number(supported.of("paper_flows_per_s", variant=v), "{:.0f}")] for v, label in TABLE1_LABELS.items()])


def table1_ours(r: Reproductions) -> str:
    """Inline: each variant's rate against the paper's, with the report's verdicts."""
    parts = []
    for label in ("RCPdc", "D3", "TCP", "TCP (10 ms RTO)"):
        c = r.claim("d3-table1", f"{label} supports about")
        parts.append(f"{label} {c['ours']} against the paper's {c['paper']} ({verdict_text(c)})")
    order = r.claim("d3-table1", "in flows/s supported")
    return "; ".join(parts) + f"; the paper's order of the four: {verdict_text(order)}"


def fig14_at_2000(r: Reproductions) -> str:
    """Inline: RCPdc and D3 at 2000 flows/s, with the verdicts of the paper's two numbers there."""
    m = seed_means(r.table("d3-fig14", "figure14"), BENCHMARK_VALUES)
    rcpdc = r.claim("d3-fig14", "RCPdc can only satisfy")
    d3 = r.claim("d3-fig14", "D3 can satisfy 99%")
    return (f"RCPdc meets {percent(m.of('app_throughput', variant='rcpdc', rate_per_s=2000.0))} of deadlines there "
            f"({rcpdc['ours']} against {rcpdc['paper']}: {verdict_text(rcpdc)}), D3 "
            f"{percent(m.of('app_throughput', variant='d3', rate_per_s=2000.0))} ({verdict_text(d3)})")


def benchmark_medians(r: Reproductions) -> str:
    """Inline: TCP's and D3's median completion times at 250 flows/s."""
    m = seed_means(r.table("d3-table1", "benchmark"), BENCHMARK_VALUES)
    return (f"median completion {number(m.of('fct_p50_ms', variant='tcp', rate_per_s=250.0))} ms at 250 flows/s "
            f"against {number(m.of('fct_p50_ms', variant='d3', rate_per_s=250.0))} ms for D3")


def fig14_median_ratio(r: Reproductions) -> str:
    """Inline: TCP's median completion time over D3's at the lowest rate, and the verdict."""
    t = r.table("d3-fig14", "figure14")

    def ratio(rows: "pa.Table") -> Dict[str, float]:
        at = {(row["variant"], row["rate_per_s"]): row["fct_p50_ms"] for row in rows.to_pylist()}
        low = min(rate for _, rate in at)
        return {"ratio": at[("tcp", low)] / at[("d3", low)], "rate": low}

    s = per_seed(t, ratio)
    claim = r.claim("d3-fig14", "median completion time is 50% higher")
    return f"{number(s['ratio'], '{:.1f}')} times at {s['rate'].mean:.0f} flows/s, Figure 14's claim, which " \
           f"{verdict_text(claim)}"


FIG14_RATES = (100.0, 1000.0, 2000.0, 2500.0, 3000.0, 3500.0)


def fig14_long_flows(r: Reproductions) -> str:
    """Throughput of each long flow under D3 and RCPdc by arrival rate, and their ratio."""
    t = r.table("d3-fig14", "figure14")
    m = seed_means(t, BENCHMARK_VALUES)

    def ratio(rows: "pa.Table") -> Dict[float, Optional[float]]:
        at = {(row["variant"], row["rate_per_s"]): row["long_flow_mbps"] for row in rows.to_pylist()}
        return {rate: at[("d3", rate)] / at[("rcpdc", rate)] if at[("rcpdc", rate)] else None for _, rate in at}

    share = per_seed(t, ratio)
    return cells.table(
        ["flows/s", *(f"{rate:.0f}" for rate in FIG14_RATES)],
        [*([f"{label}, Mbps per long flow", *(number(m.of("long_flow_mbps", variant=v, rate_per_s=rate), "{:.0f}")
                                              for rate in FIG14_RATES)] for v, label in (("d3", "D3"),
                                                                                        ("rcpdc", "RCPdc"))),
         ["D3 / RCPdc", *(percent(share.get(rate), 0, within=NON_NEGATIVE) for rate in FIG14_RATES)]])


def fig14_long_flows_hold(r: Reproductions) -> str:
    """Inline: up to which rate D3's long flows keep 90% of RCPdc's (the claim's rule), and the verdict."""
    m = seed_means(r.table("d3-fig14", "figure14"), BENCHMARK_VALUES)
    rates = m.levels("rate_per_s")

    def keeps(rate: float) -> bool:
        d3 = m.of("long_flow_mbps", variant="d3", rate_per_s=rate).mean
        return d3 >= 0.9 * m.of("long_flow_mbps", variant="rcpdc", rate_per_s=rate).mean

    upto = next((rates[i - 1] for i, rate in enumerate(rates) if not keeps(rate)), rates[-1])
    claim = r.claim("d3-fig14", "long flows do not suffer")
    return f"up to {upto:.0f} flows/s (the report's claim, 90% of RCPdc's at every rate, {verdict_text(claim)})"


FIG15_RATES = (3000.0, 3500.0, 4000.0, 5000.0, 6000.0)


def fig15_quenching(r: Reproductions) -> str:
    """Application throughput of D3 without and with quenching past the collapse."""
    m = seed_means(r.table("d3-fig15", "figure15"), BENCHMARK_VALUES)
    return cells.table(
        ["flows/s", *(f"{rate:.0f}" for rate in FIG15_RATES)],
        [[label, *(percent(m.of("app_throughput", variant=v, rate_per_s=rate)) for rate in FIG15_RATES)]
         for v, label in (("d3", "D3"), ("d3-quench", "D3 with quenching"))])


def fig15_collapse(r: Reproductions) -> str:
    """Inline: between which measured rates D3 first falls below 50%."""
    m = seed_means(r.table("d3-fig15", "figure15"), BENCHMARK_VALUES)
    rates = m.levels("rate_per_s")
    below = [rate for rate in rates if m.of("app_throughput", variant="d3", rate_per_s=rate).mean < 0.5]
    if not below:
        return f"D3 stays above 50% up to {rates[-1]:.0f} flows/s, the highest rate measured"
    before = [rate for rate in rates if rate < below[0]]
    return (f"the collapse (the first rate below 50%) sits between {before[-1]:.0f} and {below[0]:.0f} flows/s"
            if before else f"D3 is below 50% from the lowest rate measured, {below[0]:.0f} flows/s")


# --- Figure 16 and the multi-bottleneck case: long flows -------------------------------------------

FIG16_VALUES = ["goodput_gbps", "queue_mean_kb", "queue_median_kb", "queue_p99_kb"]


def fig16_long_flows(r: Reproductions) -> str:
    """Goodput and queue at the receiver's port by number of long flows, bursts and paced."""
    m = seed_means(r.table("d3-fig16", "figure16"), FIG16_VALUES)
    counts = m.levels("flows")

    def row(label: str, cell: Callable[[int], str]) -> List[str]:
        return [label, *(cell(n) for n in counts)]

    return cells.table(["flows", *map(str, counts)], [
        row("goodput", lambda n: percent(m.of("goodput_gbps", pacing="burst", flows=n), 0)),
        row("queue mean", lambda n: number(m.of("queue_mean_kb", pacing="burst", flows=n), unit=" KB")),
        row("queue median / p99", lambda n: f"{number(m.of('queue_median_kb', pacing='burst', flows=n), '{:.3g}')} / "
                                            f"{number(m.of('queue_p99_kb', pacing='burst', flows=n), unit=' KB')}"),
        row("goodput, hosts pacing at the rate", lambda n: percent(m.of("goodput_gbps", pacing="rate", flows=n), 0)),
    ])


def fig16_goodput(r: Reproductions) -> str:
    """Inline: the range of goodput, and which flow counts reach the paper's throughput range."""
    m = seed_means(r.table("d3-fig16", "figure16"), FIG16_VALUES)
    counts = m.levels("flows")
    goodput = {n: 100 * m.of("goodput_gbps", pacing="burst", flows=n).mean for n in counts}
    # The claim's range (incast.reproduce.d3.microbenchmarks.figure16): the paper's 0.95 Gbps printed to two
    # digits, its low end read as payload in case the paper counted headers.
    low, high = 100 * 0.945 * 1460 / 1500, 95.5
    inside = [str(n) for n in counts if low <= goodput[n] <= high]
    where = f"only with {cells.listing(inside)} flows" if inside else "with no number of flows"
    return (f"{cells.span(goodput.values(), '{:.0f}')}% goodput (payload; the link carries about 3% more in "
            f"headers), in the paper's throughput range ({low:.1f}-{high:.1f}%) {where}")


def _multi_bottleneck(r: Reproductions) -> Dict[str, Estimate]:
    def totals(rows: "pa.Table") -> Dict[str, float]:
        into3 = [row for row in rows.to_pylist() if row["flow"].endswith("->3")]
        return {"mbps": sum(row["mbps"] for row in into3), "paced_mbps": sum(row["paced_mbps"] for row in into3),
                "paper_mbps": float(sum(row["paper_mbps"] for row in into3))}

    return per_seed(r.table("d3-multi-bottleneck", "multi_bottleneck"), totals)


def multi_bottleneck(r: Reproductions) -> str:
    """Each flow's throughput: the paper's, ours, and ours with hosts pacing at the rate."""
    m = seed_means(r.table("d3-multi-bottleneck", "multi_bottleneck"), ["paper_mbps", "mbps", "paced_mbps"])
    flows = [f for f in ("1->3", "2->3", "4->3", "4->5") if (f,) in m.cells]
    if len(flows) != len(m.cells):
        raise DocsError("the multi-bottleneck table has flows other than 1->3, 2->3, 4->3 and 4->5")
    return cells.table(["", *flows], [
        [label, *(number(m.of(column, flow=f), "{:.0f}") for f in flows)]
        for column, label in (("paper_mbps", "paper, Mbps"), ("mbps", "ours, Mbps"),
                              ("paced_mbps", "ours, hosts pacing at the rate, Mbps"))])


def multi_bottleneck_into3(r: Reproductions) -> str:
    """Inline: what host 3's downlink carries, against the paper."""
    s = _multi_bottleneck(r)
    return f"{number(s['mbps'], '{:.0f}')} Mbps instead of about {s['paper_mbps'].mean:.0f}"


def multi_bottleneck_into3_paced(r: Reproductions) -> str:
    """Inline: what host 3's downlink carries with hosts pacing at the rate."""
    s = _multi_bottleneck(r)
    return f"{number(s['paced_mbps'], '{:.0f}')} Mbps (the paper's total: {s['paper_mbps'].mean:.0f})"


# --- rcpdc-ps ------------------------------------------------------------------------------------

RCPDC_PS_VALUES = ["flows", "unfinished", "mean_fct_ms", "mean_ps_ms", "mean_reference_ms", "ratio", "peak_flows"]
RCPDC_PS_VARIANTS = (("rcpdc", "RCPdc as specified"), ("repaired", "RCPdc with incast's repairs"),
                     ("controller-at-link", "capacity held at the link (alpha = beta = 0)"),
                     ("no-pause", "held at the link, no new-flow pause"), ("paced", "hosts pacing at the rate"))


def _ratio(e: Optional[Estimate]) -> str:
    """A completion-time ratio: two decimals near 1, whole numbers once it runs away."""
    return number(e, "{:.2f}" if e is None or e.mean < 10 else "{:.0f}")


def rcpdc_ps_ratios(r: Reproductions) -> str:
    """Mean completion time over PS plus overhead, per variant and offered load."""
    m = seed_means(r.table("rcpdc-ps", "rcpdc_ps"), RCPDC_PS_VALUES)
    loads = m.levels("load")
    def cell(v: str, x: float) -> str:
        # The parts of RCPdc run up to the judged load only: blank beyond it.
        setting = {"variant": v, "load": x}
        if tuple(setting[k] for k in m.keys) not in m.cells:
            return ""
        return _ratio(m.of("ratio", **setting))

    return cells.table(["load", *(f"{x:g}" for x in loads)],
                       [[label, *(cell(v, x) for x in loads)] for v, label in RCPDC_PS_VARIANTS])


def rcpdc_ps_pooling(r: Reproductions) -> str:
    """Inline: how the rcpdc-ps tables combine the seeds: pooled into one row per load (a table
    without a `seed` column), or one row per seed averaged here."""
    t = r.table("rcpdc-ps", "rcpdc_ps")
    if "seed" not in t.column_names:
        return "the flows of every seed pooled into one row per load before dividing, flow counts summed"
    return f"the mean over the {len(seed_tables(t))} seeds of each seed's value, with its 95% interval"


def rcpdc_ps_target(r: Reproductions) -> str:
    """Inline: the report's judgement of the target, per load, with each load's interval."""
    claim = r.claim("rcpdc-ps", "represents the limit for any fair share protocol")
    return f"{claim['ours']}; verdict: {verdict_text(claim)}"


def _duration_ms(e: Estimate) -> str:
    return number(e, "{:.1f}", unit=" ms") if e.mean < 1000 else number(e, "{:.1f}", scale=1e-3, unit=" s")


def rcpdc_ps_backlog(r: Reproductions) -> str:
    """RCPdc as specified by load: the most flows alive at once, the mean completion time and
    the flows left unfinished."""
    m = seed_means(r.table("rcpdc-ps", "rcpdc_ps"), RCPDC_PS_VALUES)
    loads = m.levels("load")
    return cells.table(["RCPdc as specified, load", *(f"{x:g}" for x in loads)], [
        ["most flows alive at once", *(number(m.of("peak_flows", variant="rcpdc", load=x), "{:,.0f}") for x in loads)],
        ["mean completion time", *(_duration_ms(m.of("mean_fct_ms", variant="rcpdc", load=x)) for x in loads)],
        ["flows unfinished / flows", *(f"{number(m.of('unfinished', variant='rcpdc', load=x), '{:,.0f}')} / "
                                       f"{number(m.of('flows', variant='rcpdc', load=x), '{:,.0f}')}" for x in loads)],
    ])


def rcpdc_ps_by_size(r: Reproductions) -> str:
    """RCPdc as specified: mean completion time over PS plus overhead by flow size, up to load 0.8."""
    m = seed_means(r.table("rcpdc-ps", "by_size"), ["flows", "mean_fct_ms", "mean_reference_ms", "ratio"])
    buckets = sorted({(lo, hi) for (v, _, lo, hi) in m.cells if v == "rcpdc"}, key=lambda b: b[0])
    loads = [x for x in m.levels("load") if x <= 0.8 + 1e-9]

    def name(lo: float, hi: Optional[float]) -> str:
        def size(kb: float) -> str:
            return bytes_(kb * 1e3)
        return f"under {size(hi)}" if lo == 0 and hi is not None else f"{size(lo)} and more" if hi is None \
            else f"{size(lo)} to {size(hi)}"

    def cell(x: float, lo: float, hi: Optional[float]) -> str:
        if ("rcpdc", x, lo, hi) not in m.cells:
            return ""
        return _ratio(m.of("ratio", variant="rcpdc", load=x, size_from_kb=lo, size_to_kb=hi))

    return cells.table(["load", *(name(lo, hi) for lo, hi in buckets)],
                       [[f"{x:g}", *(cell(x, lo, hi) for lo, hi in buckets)] for x in loads])


def sustained_delivered(r: Reproductions) -> str:
    """d3-sustained: the share of offered bytes delivered within 1 s of the last arrival, and the
    flows left unfinished, per scheme, variant and load (each the mean over its seeds)."""
    from incast.reproduce.d3.sustained import LABELS

    m = seed_means(r.table("d3-sustained", "sustained"),
                   ["flows", "finished", "quenched", "delivered_share", "mean_fct_ms"],
                   ignore=["completions_per_s", "stalled_at_s"])
    loads = m.levels("load")
    rows = []
    for (scheme, variant), label in LABELS.items():
        rows.append([f"{label}, delivered", *(percent(m.of("delivered_share", scheme=scheme, variant=variant, load=x))
                                              for x in loads)])
        rows.append([f"{label}, flows left unfinished", *(number(_unfinished(m, scheme, variant, x), "{:,.0f}")
                                                          for x in loads)])
    return cells.table(["load", *(f"{x:g}" for x in loads)], rows)


def _unfinished(m: Any, scheme: str, variant: str, load: float) -> Estimate:
    """Flows neither finished nor quenched when the run ended, per seed."""
    flows, done, quenched = (m.of(v, scheme=scheme, variant=variant, load=load)
                             for v in ("flows", "finished", "quenched"))
    values = [a - b - c for a, b, c in zip(flows.values, done.values, quenched.values)] if flows.values else \
        [flows.mean - done.mean - quenched.mean]
    return Estimate.of(values, NON_NEGATIVE)


def sustained_claim(r: Reproductions) -> str:
    """Inline: the d3-sustained claim's numbers and verdict."""
    claim = r.claim("d3-sustained", "represents the limit for any fair share protocol")
    return f"{claim['ours']}; verdict: {verdict_text(claim)}"


RENDERERS: Dict[str, Renderer] = {
    "d3-fig5-supported": fig5_supported,
    "d3-fig5-ours": fig5_ours,
    "d3-fig5-edf-overload": fig5_edf_overload,
    "d3-fig9-senders": fig9_senders,
    "d3-fig9-ratios": fig9_ratios,
    "d3-fig9-growth": fig9_growth,
    "d3-fig9-at95": fig9_at95,
    "d3-fig10-fair-share": fig10_fair_share,
    "d3-one-sender": one_sender,
    "d3-fair-share-at95": fair_share_at95,
    "d3-fig10-throughput": fig10_throughput,
    "d3-fig10-ours": fig10_ours,
    "d3-fig11-lateness": fig11_lateness,
    "d3-fig11-ours": fig11_ours,
    "d3-fig11-late-flows": fig11_late_flows,
    "d3-fig12-supported": fig12_supported,
    "d3-fig12-ours": fig12_ours,
    "d3-fig13-ours": fig13_ours,
    "d3-table1-benchmark": table1_benchmark,
    "d3-table1-ours": table1_ours,
    "d3-benchmark-medians": benchmark_medians,
    "d3-fig14-at-2000": fig14_at_2000,
    "d3-fig14-median-ratio": fig14_median_ratio,
    "d3-fig14-long-flows": fig14_long_flows,
    "d3-fig14-long-flows-hold": fig14_long_flows_hold,
    "d3-fig15-quenching": fig15_quenching,
    "d3-fig15-collapse": fig15_collapse,
    "d3-fig16-long-flows": fig16_long_flows,
    "d3-fig16-goodput": fig16_goodput,
    "d3-multi-bottleneck": multi_bottleneck,
    "d3-multi-bottleneck-into3": multi_bottleneck_into3,
    "d3-multi-bottleneck-into3-paced": multi_bottleneck_into3_paced,
    "rcpdc-ps-pooling": rcpdc_ps_pooling,
    "rcpdc-ps-ratios": rcpdc_ps_ratios,
    "rcpdc-ps-target": rcpdc_ps_target,
    "rcpdc-ps-backlog": rcpdc_ps_backlog,
    "rcpdc-ps-by-size": rcpdc_ps_by_size,
    "d3-sustained-delivered": sustained_delivered,
    "d3-sustained-claim": sustained_claim,
}
