"""The generated blocks of docs/results-d2tcp.md (and the README's summary of it): the D2TCP
paper's testbed experiment (Figure 7, `incast.reproduce.d2tcp.testbed`), its OLDI figures and
tables and the `d2tcp-load` sensitivity run (`incast.reproduce.d2tcp.oldi`), from their reports.

Missed fractions are shown in percent to two decimals, and as a bare `0` when nothing at all
was missed, so that "no message missed" reads apart from "a few in a hundred thousand".
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from incast.reproduce.core import size_bytes, verdict_text
from incast.reproduce.d2tcp.oldi import LABELS, MIX_LABELS, NS3_2012, PROTOCOLS
from incast.reproduce.d2tcp.testbed import LABELS as TESTBED_LABELS
from incast.reproduce.d2tcp.testbed import PAPER_LONG_MBPS_40, PAPER_MISSED_40, SMALLEST_RESPONSES, VARIANTS
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.cells import number, percent
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.seeds import SeedMeans, per_seed, seed_means
from incast.reproduce.verdict import NON_NEGATIVE, Estimate

if TYPE_CHECKING:
    import pyarrow as pa

Renderer = Callable[[Reproductions], str]

PAPER_BUFFERS, PER_PORT = "4MB shared", "100KB per port"
"""The two buffer settings of Figures 9-11: the paper's, and the sensitivity run's."""


def points(e: Optional[Estimate]) -> str:
    """A missed fraction in percentage points, for a table whose header says so: `0` for none at
    all, else two decimals."""
    return number(e, "{:.2f}", scale=100, zero="0")


def _missed(r: Reproductions, rid: str, table: str) -> SeedMeans:
    """Missed deadlines (and, where the table has them, timeouts per message) per setting."""
    t = r.table(rid, table)
    return seed_means(t, ["missed", *(["timeouts_per_message"] if "timeouts_per_message" in t.column_names else [])])


def _largest_gap(means: Iterable[Tuple[SeedMeans, Dict[str, Any], str]]) -> Tuple[float, str]:
    """The largest difference, in points, between D2TCP's and DCTCP's mean missed fraction over
    the settings given (a table, the setting without protocol, its name), and where it is."""
    best = (-1.0, "")
    for m, setting, where in means:
        d2tcp, dctcp = m.of("missed", protocol="d2tcp", **setting), m.of("missed", protocol="dctcp", **setting)
        gap = 100 * abs(d2tcp.mean - dctcp.mean)
        if gap > best[0]:
            best = (gap, where)
    return best


# --- Figure 7: the 10 Gbps testbed -------------------------------------------------------------


def _fig7(r: Reproductions) -> SeedMeans:
    return seed_means(r.table("d2tcp-fig7", "figure7"), ["missed", "long_mbps"], ignore=["responses", "long_flows"])


def _fig7_setting(m: SeedMeans, variant: str, fan_in: int, smallest: str = SMALLEST_RESPONSES[0]) -> Dict[str, Any]:
    queries = m.levels("queries")[0]
    return {"variant": variant, "fan_in": fan_in, "smallest_response": smallest, "queries": queries}


def fig7_missed(r: Reproductions) -> str:
    """Missed deadlines (%) per scheme and fan-in, the main smallest response, beside the paper's
    testbed numbers at fan-in 40."""
    m = _fig7(r)
    fans = m.levels("fan_in")
    rows = []
    for v in VARIANTS:
        paper = PAPER_MISSED_40.get(v)
        rows.append([TESTBED_LABELS[v]]
                    + [number(m.of("missed", **_fig7_setting(m, v, n)), "{:.1f}") for n in fans]
                    + [f"{paper:g}" if paper is not None else ""])
    return cells.table(["missed deadlines, %", *(str(n) for n in fans), "paper at 40 (testbed)"], rows)


def fig7_reduction(r: Reproductions) -> str:
    """Inline: D2TCP's reduction of DCTCP's missed deadlines at fan-in 30 and the largest."""
    table = r.table("d2tcp-fig7", "figure7")
    main = SMALLEST_RESPONSES[0]

    def reductions(rows: "pa.Table") -> Dict[int, Optional[float]]:
        at = {(f["variant"], f["fan_in"]): f["missed"] for f in rows.to_pylist() if f["smallest_response"] == main}
        return {n: 100 * (1 - at[("d2tcp", n)] / at[("dctcp", n)]) if at[("dctcp", n)] else None
                for (v, n) in at if v == "dctcp"}

    cut = per_seed(table, reductions)
    shown = [n for n in (30, max(cut)) if n in cut]
    return ", ".join(f"{number(cut[n], '{:.0f}', unit='%')} at fan-in {n}" for n in dict.fromkeys(shown))


def fig7_smallest(r: Reproductions) -> str:
    """Missed deadlines at the largest fan-in for each smallest response size tried."""
    m = _fig7(r)
    top = max(m.levels("fan_in"))
    run = {k[2] for k in m.cells if k[:2] == ("dctcp", top)}
    rows = []
    for s in (s for s in SMALLEST_RESPONSES if s in run):
        dctcp, d2tcp = (m.of("missed", **_fig7_setting(m, v, top, s)) for v in ("dctcp", "d2tcp"))
        rows.append([f"{s} to 500 KB", number(dctcp, "{:.1f}"), number(d2tcp, "{:.1f}")])
    return cells.table([f"responses (fan-in {top})", "DCTCP missed, %", "D2TCP missed, %"], rows)


def fig7_long_flows(r: Reproductions) -> str:
    """Inline: the long flows' throughput at the largest fan-in, against the paper's."""
    m = _fig7(r)
    top = max(m.levels("fan_in"))
    return ", ".join(f"{TESTBED_LABELS[v]} {number(m.of('long_mbps', **_fig7_setting(m, v, top)), '{:.0f}')} Mbps "
                     f"(paper: {PAPER_LONG_MBPS_40[v]:g})" for v in ("dctcp", "d2tcp"))


def fig7_past_deadline(r: Reproductions) -> str:
    """Inline: D2TCP with d = n past the deadline against d = 1, per fan-in."""
    table = r.table("d2tcp-fig7", "past_deadline")

    def gaps(rows: "pa.Table") -> Dict[int, Optional[float]]:
        return {f["fan_in"]: f["d_max"] - f["d_one"] for f in rows.to_pylist()}

    gap = per_seed(table, gaps)
    return ", ".join(f"{number(gap[n], '{:+.2f}')} at {n}" for n in sorted(gap))


# --- Figures 9-11: missed deadlines by fan-in ------------------------------------------------------

FIG10_FANS = (5, 10, 20, 30, 40)
# D2TCP Figure 10 at fan-in 40, as the paper reads it off its own figure (Section 4.2.2).
PAPER_FIG10_AT_40 = {"tcp": "over 50", "dctcp": "about 25", "d3": "about 25", "d2tcp": "under 7"}


def _fig10_table(m: SeedMeans, column: str, panels: Sequence[Tuple[str, str, str]]) -> str:
    """Missed deadlines, medium variance, by fan-in, for each panel (its value of `column`, its
    name in a row, the note on its first row); the paper's reading beside the first panel."""
    rows = []
    for k_panel, (panel, what, first_note) in enumerate(panels):
        for k, p in enumerate(PROTOCOLS):
            rows.append([f"{LABELS[p]}, {what}{first_note if k == 0 else ''}",
                         *(points(m.of("missed", **{column: panel}, protocol=p, fan_in=n)) for n in FIG10_FANS),
                         PAPER_FIG10_AT_40[p] if k_panel == 0 else ""])
    return cells.table(["fan-in", *map(str, FIG10_FANS), "paper at 40"], rows)


def fig10_missed(r: Reproductions) -> str:
    """Missed deadlines, medium variance, by fan-in: the paper's buffers and the sensitivity run."""
    return _fig10_table(_missed(r, "d2tcp-fig10", "figure10"), "buffers",
                        ((PAPER_BUFFERS, "4 MB shared", " (paper's setting)"),
                         (PER_PORT, "100 KB per port", " (sensitivity)")))


def fig9_per_port(r: Reproductions) -> str:
    """Inline: low variance with 100 KB per port at the largest fan-in."""
    m = _missed(r, "d2tcp-fig9", "figure9")
    top = max(m.levels("fan_in"))
    return (f"at fan-in {top} TCP misses {percent(m.of('missed', buffers=PER_PORT, protocol='tcp', fan_in=top))}, "
            + ", ".join(f"{LABELS[p]} {percent(m.of('missed', buffers=PER_PORT, protocol=p, fan_in=top))}"
                        for p in ("dctcp", "d2tcp", "d3")))


def _curve_spans(m: SeedMeans, buffers: str) -> List[str]:
    """Per protocol, the range of its missed fraction over fan-in; DCTCP and D2TCP together when
    their curves are identical."""
    fans = m.levels("fan_in")
    curve = {p: [100 * m.of("missed", buffers=buffers, protocol=p, fan_in=n).mean for n in fans] for p in PROTOCOLS}
    same = curve["d2tcp"] == curve["dctcp"]
    parts = []
    for p in PROTOCOLS:
        if p == "d2tcp" and same:
            continue
        parts.append(f"DCTCP and D2TCP {cells.span(curve[p], unit='%')} and identical at every fan-in" if p == "dctcp"
                     and same else f"{LABELS[p]} {cells.span(curve[p], unit='%')}")
    return parts


def fig11_range(r: Reproductions) -> str:
    """Inline: high variance, the paper's buffers: the range over every scheme, and per scheme."""
    m = _missed(r, "d2tcp-fig11", "figure11")
    values = [100 * e.mean for key, cell in m.cells.items() if key[0] == PAPER_BUFFERS
              for e in [cell["missed"]] if e is not None]
    fans = m.levels("fan_in")
    rising = all(m.of("missed", buffers=PAPER_BUFFERS, protocol=p, fan_in=a).mean
                 <= m.of("missed", buffers=PAPER_BUFFERS, protocol=p, fan_in=b).mean
                 for p in PROTOCOLS for a, b in zip(fans, fans[1:]))
    return (f"misses {cells.span(values, unit='%')} under every scheme, "
            f"{'rising with fan-in' if rising else 'not rising steadily with fan-in'} "
            f"({', '.join(_curve_spans(m, PAPER_BUFFERS))})")


def headline(r: Reproductions) -> str:
    """Inline: under the paper's buffers, what low and medium variance miss, then high variance
    over every scheme, and D2TCP against DCTCP."""
    quiet = max(100 * e.mean for rid, table in (("d2tcp-fig9", "figure9"), ("d2tcp-fig10", "figure10"))
                for key, cell in _missed(r, rid, table).cells.items() if key[0] == PAPER_BUFFERS
                for e in [cell["missed"]] if e is not None)
    low = ("no scheme misses a deadline at low and medium variance" if quiet == 0 else
           f"at low and medium variance no scheme misses more than {quiet:.2f}%")
    m = _missed(r, "d2tcp-fig11", "figure11")
    values = [100 * m.of("missed", buffers=PAPER_BUFFERS, protocol=p, fan_in=n).mean
              for p in PROTOCOLS for n in m.levels("fan_in")]
    gap, _ = _largest_gap((m, {"buffers": PAPER_BUFFERS, "fan_in": n}, "") for n in m.levels("fan_in"))
    same = "exactly as many as DCTCP" if gap == 0 else f"within {gap:.2g} points of DCTCP"
    return f"{low}, and at high variance every scheme misses {cells.span(values, unit='%')}, D2TCP {same}"


def same_misses(r: Reproductions) -> str:
    """Inline: the largest difference between D2TCP and DCTCP over Figures 9-11, both buffers."""
    settings = []
    for rid, table, variance in (("d2tcp-fig9", "figure9", "low"), ("d2tcp-fig10", "figure10", "medium"),
                                 ("d2tcp-fig11", "figure11", "high")):
        m = _missed(r, rid, table)
        for buffers in (PAPER_BUFFERS, PER_PORT):
            for n in m.levels("fan_in"):
                where = f"{variance} variance, {buffers.replace('MB', ' MB').replace('KB', ' KB')}, fan-in {n}"
                settings.append((m, {"buffers": buffers, "fan_in": n}, where))
    gap, where = _largest_gap(settings)
    return f"at most {gap:.2g} points apart ({where})"


# --- Figure 12, Table 1, Figures 13-17, Tables 2 and 3 ------------------------------------------------


def fig12_p99(r: Reproductions) -> str:
    """Inline: the largest 99th percentile of latency over deadline."""
    t = r.table("d2tcp-fig12", "figure12")
    top = per_seed(t, lambda rows: {"p99": max(v for v in rows["p99"].to_pylist() if v is not None)})
    return f"p99 at most {percent(top['p99'], 0, within=NON_NEGATIVE)} of it"


TABLE1_FANS = (20, 25, 30, 35, 40)
"""The fan-ins of the paper's Table 1."""


def table1_inversions(r: Reproductions) -> str:
    """D3's priority inversions by deadline variance and fan-in."""
    m = seed_means(r.table("d2tcp-table1", "table1"), ["inverted_requests"])
    return cells.table(["variance", *(f"fan-in {n}" for n in TABLE1_FANS)],
                       [[v, *(percent(m.of("inverted_requests", variance=v, fan_in=n)) for n in TABLE1_FANS)]
                        for v in ("low", "medium", "high")])


def table1_ours(r: Reproductions) -> str:
    """Inline: where the inversions peak over fan-in, and how far apart the variances are."""
    m = seed_means(r.table("d2tcp-table1", "table1"), ["inverted_requests"])
    fans = m.levels("fan_in")
    variances = m.levels("variance")

    def at(n: int) -> List[float]:
        return [100 * m.of("inverted_requests", variance=v, fan_in=n).mean for v in variances]

    peak = max(fans, key=lambda n: max(at(n)))
    spread = max(max(at(n)) - min(at(n)) for n in fans)
    high20 = m.of("inverted_requests", variance="high", fan_in=20)
    return (f"{percent(high20)} of D3's requests at fan-in 20, high variance; highest at fan-in {peak} "
            f"({cells.span(at(peak), unit='%')}) and {cells.span(at(max(fans)), unit='%')} at fan-in {max(fans)}, "
            f"the three variances at most {spread:.1f} points apart at any fan-in")


def fig13_bandwidth(r: Reproductions) -> str:
    """Inline: the lowest share of TCP's background bandwidth each scheme keeps over fan-in."""
    t = r.table("d2tcp-fig13", "figure13")

    def lowest(rows: "pa.Table") -> Dict[str, float]:
        out: Dict[str, float] = {}
        for row in rows.to_pylist():
            out[row["protocol"]] = min(out.get(row["protocol"], 1e9), row["normalized_to_tcp"])
        return out

    low = per_seed(t, lowest)
    return ", ".join(f"{LABELS[p]} {percent(low[p])}" for p in ("d2tcp", "dctcp", "d3"))


def quiet_figures(r: Reproductions) -> str:
    """Inline: the most any scheme misses in Figures 14-17 under the paper's buffers, and in
    Figure 15's sensitivity panel."""
    paper: List[float] = []
    for rid, table, columns in (("d2tcp-fig14", "figure14", ("missed_with_background", "missed_without")),
                                ("d2tcp-fig16", "figure16", ("missed",)), ("d2tcp-fig17", "figure17", ("missed",))):
        t = r.table(rid, table)
        paper += [v for c in columns for v in t[c].to_pylist() if v is not None]
    fig15 = seed_means(r.table("d2tcp-fig15", "figure15"), ["missed"])
    paper += [e.mean for key, cell in fig15.cells.items() if key[0] == PAPER_BUFFERS for e in [cell["missed"]]
              if e is not None]
    per_port = {key: e.mean for key, cell in fig15.cells.items() if key[0] == PER_PORT for e in [cell["missed"]]
                if e is not None}
    spread = max(max(v for (_, n, _), v in per_port.items() if n == fan) - min(v for (_, n, _), v in per_port.items()
                                                                                if n == fan)
                 for fan in {n for (_, n, _) in per_port})
    worst = max(paper)
    text = "nothing is missed in any of them" if worst == 0 else f"at most {100 * worst:.2f}% is missed in any of them"
    return (f"{text} under the paper's buffers (Figure 15's 100 KB-per-port panel misses up to "
            f"{100 * max(per_port.values()):.2f}%, within {100 * spread:.2g} points between caps at each fan-in)")


def table3_tightest(r: Reproductions) -> str:
    """Inline: the tightest deadline scale at which D3 and D2TCP miss at most 5%."""
    m = seed_means(r.table("d2tcp-table3", "table3"), ["tightest_scale_at_5pct"])
    scales = {key: cell["tightest_scale_at_5pct"] for key, cell in m.cells.items()}
    if any(e is None for e in scales.values()):
        return "some scheme misses more than 5% even at the base deadlines (the report)"
    values = sorted({e.mean for e in scales.values() if e is not None})
    if len(values) == 1:
        return f"both D3 and D2TCP miss at most 5% down to {values[0]:g} of the base deadlines at every fan-in"
    return "the tightest scale at 5% missed is " + ", ".join(
        f"{LABELS[p]} {e.mean:g} at fan-in {n}" for (n, p), e in sorted(scales.items()) if e is not None)


TABLE2_FANS = (15, 20)


def table2_long_flows(r: Reproductions) -> str:
    """Long-flow throughput per mix and fan-in, and the paper's All-TCP numbers."""
    m = seed_means(r.table("d2tcp-table2", "table2"), ["long_flow_mbps"])
    paper = [r.claim("d2tcp-table2", f"All-TCP long-flow throughput at fan-in {n}")["paper"] for n in TABLE2_FANS]
    labels = {"all-tcp": "All-TCP", "mix1": "Mix#1 (set B on D2TCP)", "mix2": "Mix#2 (long flows on D2TCP too)"}
    return cells.table(["long flows, Mbps", *(f"fan-in {n}" for n in TABLE2_FANS)],
                       [*([labels.get(mix, MIX_LABELS.get(mix, mix)),
                           *(number(m.of("long_flow_mbps", mix=mix, fan_in=n), "{:.0f}") for n in TABLE2_FANS)]
                          for mix in m.levels("mix")),
                        ["paper (All-TCP)", *(p.replace(" Mbps", "") for p in paper)]])


# --- The ns-3 of 2012 variant (d2tcp-ns3-*) and the past-deadline d on Figure 10 ----------------

NS3, NS3_NO_DELACK = NS3_2012.panels
NS3_VARIANCES = (("d2tcp-ns3-fig9", "figure9", "low"), ("d2tcp-ns3-fig10", "figure10", "medium"),
                 ("d2tcp-ns3-fig11", "figure11", "high"))


def ns3_missed(r: Reproductions) -> str:
    """Missed deadlines, medium variance, by fan-in, under ns-3 of 2012 and without its delayed ACKs."""
    return _fig10_table(_missed(r, "d2tcp-ns3-fig10", "figure10"), NS3_2012.panel_column,
                        ((NS3, "ns-3 2012", " (its defaults)"), (NS3_NO_DELACK, "no delayed ACKs", " (sensitivity)")))


def ns3_timeouts(r: Reproductions) -> str:
    """Inline: retransmission timeouts per message at the largest fan-in, medium variance, per
    scheme under ns-3 of 2012, and DCTCP's and D2TCP's without delayed ACKs."""
    m = _missed(r, "d2tcp-ns3-fig10", "figure10")
    top = max(m.levels("fan_in"))

    def at(panel: str, p: str) -> str:
        return number(m.of("timeouts_per_message", stack=panel, protocol=p, fan_in=top), "{:.2f}")

    return (f"at fan-in {top} a message sees " + ", ".join(f"{at(NS3, p)} ({LABELS[p]})" for p in PROTOCOLS)
            + " timeouts on average; without delayed ACKs " + ", ".join(f"{at(NS3_NO_DELACK, p)} ({LABELS[p]})"
                                                                       for p in ("dctcp", "d2tcp")))


def ns3_smallest_fan_in(r: Reproductions) -> str:
    """Inline: what TCP, DCTCP and D2TCP miss at the smallest fan-in under ns-3 of 2012, medium variance."""
    m = _missed(r, "d2tcp-ns3-fig10", "figure10")
    low = min(m.levels("fan_in"))
    shares = {p: percent(m.of("missed", stack=NS3, protocol=p, fan_in=low), 2) for p in ("tcp", "dctcp", "d2tcp")}
    return f"at fan-in {low} " + ", ".join(f"{LABELS[p]} {v}" for p, v in shares.items())


def ns3_variances(r: Reproductions) -> str:
    """Per variance at the largest fan-in: DCTCP and D2TCP under ns-3 of 2012 and without its
    delayed ACKs, and D2TCP's reduction of DCTCP's misses in each."""
    rows = []
    for rid, table, variance in NS3_VARIANCES:
        t = r.table(rid, table)
        m = _missed(r, rid, table)
        top = max(m.levels("fan_in"))
        rows.append([f"{variance}, fan-in {top}"]
                    + [points(m.of("missed", stack=panel, protocol=p, fan_in=top))
                       for panel in (NS3, NS3_NO_DELACK) for p in ("dctcp", "d2tcp")]
                    + [_reduction(t, NS3_2012.panel_column, panel, top) for panel in (NS3, NS3_NO_DELACK)])
    return cells.table(["variance", "DCTCP, ns-3 2012", "D2TCP, ns-3 2012", "DCTCP, no delayed ACKs",
                        "D2TCP, no delayed ACKs", "D2TCP fewer, ns-3 2012", "D2TCP fewer, no delayed ACKs"], rows)


def _reduction(t: "pa.Table", column: str, panel: str, fan_in: int) -> str:
    """D2TCP's reduction of DCTCP's missed deadlines, in percent of DCTCP's, at one panel and fan-in."""
    def cut(rows: "pa.Table") -> Dict[str, Optional[float]]:
        at = {(f["protocol"], f["fan_in"], f[column]): f["missed"] for f in rows.to_pylist()}
        dctcp = at[("dctcp", fan_in, panel)]
        return {"cut": 100 * (1 - at[("d2tcp", fan_in, panel)] / dctcp) if dctcp else None}

    e = per_seed(t, cut).get("cut")
    return number(e, "{:.0f}", unit="%") if e is not None else "no DCTCP misses"


def ns3_headline(r: Reproductions) -> str:
    """Inline: medium variance at the largest fan-in under ns-3 of 2012, and without its delayed ACKs."""
    m = _missed(r, "d2tcp-ns3-fig10", "figure10")
    top = max(m.levels("fan_in"))

    def at(panel: str, p: str) -> str:
        return percent(m.of("missed", stack=panel, protocol=p, fan_in=top), 1 if panel == NS3 else 2)

    return (f"at fan-in {top}, medium variance, DCTCP misses {at(NS3, 'dctcp')}, D2TCP {at(NS3, 'd2tcp')} and D3 "
            f"{at(NS3, 'd3')}; without delayed ACKs DCTCP misses {at(NS3_NO_DELACK, 'dctcp')} and D2TCP "
            f"{at(NS3_NO_DELACK, 'd2tcp')}")


def _ns3_paired(panel: str) -> Callable[[Reproductions], str]:
    """Inline: D2TCP's missed share minus DCTCP's, seed by seed, at every fan-in from 20 of
    Figures 9-11 in one panel: its sign and range (the paired difference, which two seeds pin
    down far better than an interval of each scheme's own share)."""
    def render(r: Reproductions) -> str:
        gaps = [g for rid, table, _ in NS3_VARIANCES for g in _paired(r.table(rid, table), panel)]
        more = sum(g > 0 for g in gaps)
        sign = ("more" if more == len(gaps) else "fewer" if more == 0 else
                f"more in {more} and fewer in {len(gaps) - more}")
        span = cells.span([abs(g) for g in gaps], "{:.2f}")
        return (f"D2TCP misses {sign} than DCTCP in every seed, at every fan-in from 20 and every variance, by "
                f"{span} points" if more in (0, len(gaps)) else
                f"D2TCP misses {sign} of the {len(gaps)} cases (seed, fan-in from 20, variance), by {span} points")

    render.__doc__ = _ns3_paired.__doc__
    return render


def _paired(t: "pa.Table", panel: str) -> List[float]:
    """D2TCP's missed share minus DCTCP's, in points, per seed and fan-in from 20, in one panel."""
    at = {(f.get("seed"), f["protocol"], f["fan_in"]): f["missed"] for f in t.to_pylist()
          if f[NS3_2012.panel_column] == panel}
    return [100 * (v - at[(seed, "dctcp", n)]) for (seed, p, n), v in at.items() if p == "d2tcp" and n >= 20]


def _tally_of(prefix: str) -> Callable[[Reproductions], str]:
    def render(r: Reproductions) -> str:
        return cells.tally_of([rep for rep in r.reports() if str(rep.get("id", "")).startswith(prefix)])

    render.__doc__ = f"Inline: the verdicts over every claim of the reproductions `{prefix}*`."
    return render


def ns3_wall_time(r: Reproductions) -> str:
    """Inline: the sum of the ns-3 variant's own wall times."""
    reports = [rep for rep in r.reports() if str(rep.get("id", "")).startswith("d2tcp-ns3-")]
    return f"{sum(rep['wall_s'] for rep in reports):.0f} s"


def fig10_past_deadline(r: Reproductions) -> str:
    """Inline: D2TCP with d = n past the deadline against d = 1 at the largest fan-in, Figure 10,
    in each panel where anything is missed."""
    parts = []
    for rid, column, panels in (("d2tcp-fig10", "buffers", ((PER_PORT, "100 KB per port"),)),
                                ("d2tcp-ns3-fig10", NS3_2012.panel_column,
                                 ((NS3, "ns-3 2012"), (NS3_NO_DELACK, "ns-3 2012 without delayed ACKs")))):
        t = r.table(rid, "past_deadline")
        for panel, name in panels:
            gap = per_seed(t, functools.partial(_past_gaps, column=column, panel=panel))
            top = max(gap)
            parts.append(f"{number(gap[top], '{:+.2f}')} points ({name}, fan-in {top})")
    return cells.listing(parts)


def _past_gaps(rows: "pa.Table", column: str, panel: str) -> Dict[int, Optional[float]]:
    """d = n's missed deadlines minus d = 1's, in points, per fan-in of one panel."""
    return {f["fan_in"]: 100 * (f["d_max"] - f["d_one"]) for f in rows.to_pylist() if f[column] == panel}


# --- d2tcp-map ----------------------------------------------------------------------------------------


def _map(r: Reproductions) -> SeedMeans:
    return seed_means(r.table("d2tcp-map", "map"), ["dctcp_missed", "d2tcp_missed", "difference"],
                      ignore=["t_idle_ms", "rounds"])


def map_best(r: Reproductions) -> str:
    """Per response size and (link rate, initial alpha): D2TCP's largest reduction of missed
    deadlines against DCTCP over slack and fan-in (mean over seeds), and where."""
    m = _map(r)
    columns = [(rate, a) for rate in sorted(m.levels("link_rate"), key=lambda x: float(x.removesuffix("Gbps")))
               for a in m.levels("initial_alpha")]
    rows = []
    for size in sorted(m.levels("size"), key=size_bytes):
        row = [size]
        for rate, a in columns:
            best = min(((m.of("difference", link_rate=rate, initial_alpha=a, size=size, fan_in=n, slack=k), n, k)
                        for n in m.levels("fan_in") for k in m.levels("slack")), key=lambda x: x[0].mean)
            e, n, k = best
            where = f" at fan-in {n}, slack {k:g}"
            row.append("0" if round(100 * e.mean) == 0 else number(e, "{:.0f}", scale=100) + where)
        rows.append(row)
    return cells.table(["response", *(f"{rate}, alpha0 = {a:g}" for rate, a in columns)], rows)


def map_against(r: Reproductions) -> str:
    """Inline: the mean difference over the contested cells (the report's claim), and the worst
    cell for D2TCP."""
    claim = r.claim("d2tcp-map", "D2TCP misses fewer deadlines than DCTCP")
    m = _map(r)
    worst = max(((e, key) for key, cell in m.cells.items() for e in [cell["difference"]] if e is not None),
                key=lambda x: x[0].mean)
    setting = dict(zip(m.keys, worst[1]))
    return (f"{claim['ours']} on average, and at most {number(worst[0], '{:+.1f}', scale=100)} points in any cell "
            f"({setting['link_rate']}, alpha0 = {setting['initial_alpha']:g}, {setting['size']}, fan-in "
            f"{setting['fan_in']}, slack {setting['slack']:g})")


def map_slack(r: Reproductions) -> str:
    """Inline: DCTCP's missed share at each slack, the mean over every other setting of the map."""
    m = _map(r)
    at = m.keys.index("slack")
    shares = {k: [e.mean for key, cell in m.cells.items() if key[at] == k for e in [cell["dctcp_missed"]]
                  if e is not None] for k in m.levels("slack")}
    return ", ".join(f"{100 * sum(v) / len(v):.0f}% at slack {k:g}" for k, v in shares.items())


def map_headline(r: Reproductions) -> str:
    """Inline: D2TCP's largest reduction over the map and where, and the largest responses for
    which no cell moves by a point."""
    m = _map(r)
    diffs = {key: e for key, cell in m.cells.items() for e in [cell["difference"]] if e is not None}
    best_key = min(diffs, key=lambda k: diffs[k].mean)
    best = dict(zip(m.keys, best_key))
    size_at = m.keys.index("size")
    sizes = sorted(m.levels("size"), key=size_bytes)
    flat = [size for size in sizes if all(abs(100 * e.mean) < 1 for k, e in diffs.items() if k[size_at] == size)]
    small = [size for size in sizes if size_bytes(size) <= max((size_bytes(f) for f in flat), default=0)]
    quiet = (f"for responses up to {small[-1]}, no cell moves by a point" if small == flat and flat else
             "every response size has some cell that moves by a point or more")
    e = diffs[best_key]
    fewer = Estimate(-e.mean, -e.high, -e.low, e.seeds)
    return (f"D2TCP misses up to {number(fewer, '{:.0f}', scale=100)} points fewer deadlines "
            f"({best['size']} responses, fan-in {best['fan_in']}, slack {best['slack']:g}, {best['link_rate']}, "
            f"alpha0 = {best['initial_alpha']:g}); {quiet}")


# --- d2tcp-load -----------------------------------------------------------------------------------

LOAD_VALUES = ["missed", "missed_with_timeout", "background_mbps"]
LOAD_ROWS = (("tcp", 1.0, "TCP"), ("dctcp", 1.0, "DCTCP"), ("d2tcp", 1.0, "D2TCP"), ("d3", 1.0, "D3"),
             ("dctcp", 0.0, "DCTCP, alpha0 = 0"), ("d2tcp", 0.0, "D2TCP, alpha0 = 0"))


def _load(r: Reproductions) -> SeedMeans:
    return seed_means(r.table("d2tcp-load", "load"), LOAD_VALUES)


def load_missed(r: Reproductions) -> str:
    """Missed deadlines at fan-in 40 by load, per protocol and initial alpha, and TCP's background
    flows at fan-in 20."""
    m = _load(r)
    loads, top, low = m.levels("utilization"), max(m.levels("fan_in")), min(m.levels("fan_in"))
    rows = [[f"{label}, missed %", *(points(m.maybe("missed", protocol=p, initial_alpha=a, fan_in=top, utilization=u))
                                    for u in loads)] for p, a, label in LOAD_ROWS]
    rows.append([f"TCP background flows, Mbps (fan-in {low})",
                 *(number(m.maybe("background_mbps", protocol="tcp", initial_alpha=1.0, fan_in=low, utilization=u),
                          "{:.0f}") for u in loads)])
    return cells.table([f"fan-in {top}, load on a parent's downlink", *(f"{100 * u:.0f}%" for u in loads)], rows)


def _load_gap(m: SeedMeans) -> float:
    """The largest difference, in points, between D2TCP and DCTCP over every load, fan-in and
    initial alpha."""
    gap, _ = _largest_gap((m, {"initial_alpha": a, "fan_in": n, "utilization": u}, "")
                          for a in (0.0, 1.0) for n in m.levels("fan_in") for u in m.levels("utilization"))
    return gap


def load_first_missed(r: Reproductions) -> str:
    """Inline: the lowest load at which any scheme misses a deadline."""
    m = _load(r)
    for u in m.levels("utilization"):
        fans = [n for n in m.levels("fan_in")
                if any((m.maybe("missed", protocol=p, initial_alpha=a, fan_in=n, utilization=u) or Estimate(0, 0, 0, 1))
                       .mean > 0 for p, a, _ in LOAD_ROWS)]
        if fans:
            return f"deadlines are first missed at {100 * u:.0f}% load (fan-in {cells.listing([str(n) for n in fans])})"
    return "no deadline is missed at any load"


def _heaviest(m: SeedMeans) -> Tuple[float, int]:
    """The load sweep's highest load and fan-in, where its headline numbers sit."""
    return max(m.levels("utilization")), max(m.levels("fan_in"))


def _at_heaviest(m: SeedMeans, value: str, protocol: str) -> Estimate:
    """`value` of `protocol` (Linux's initial alpha) at the load sweep's highest load and fan-in."""
    u, top = _heaviest(m)
    return m.of(value, protocol=protocol, initial_alpha=1.0, fan_in=top, utilization=u)


def load_top(r: Reproductions) -> str:
    """Inline: DCTCP's and D3's missed deadlines at the highest load, fan-in 40."""
    m = _load(r)
    u, _ = _heaviest(m)
    dctcp, d3 = _at_heaviest(m, "missed", "dctcp"), _at_heaviest(m, "missed", "d3")
    return (f"at {100 * u:.0f}%, DCTCP ({percent(dctcp, 0)}) approaches the paper's \"about 25%\" and D3 "
            f"({percent(d3, 0)})")


def load_gap(r: Reproductions) -> str:
    """Inline: how far D2TCP departs from DCTCP at most over the load sweep."""
    return f"{_load_gap(_load(r)):.2g} points"


def load_no_timeout(r: Reproductions) -> str:
    """Inline: the share of DCTCP's missed messages without a timeout at the highest load."""
    m = _load(r)
    u, top = _heaviest(m)
    e = _at_heaviest(m, "missed_with_timeout", "dctcp")
    return (f"at fan-in {top} and {100 * u:.0f}% load "
            f"{percent(Estimate(1 - e.mean, 1 - e.high, 1 - e.low, e.seeds), 0)} of DCTCP's missed messages")


def load_background(r: Reproductions) -> str:
    """Inline: TCP's background flows at the lowest and highest load (fan-in 20)."""
    m = _load(r)
    loads, low = m.levels("utilization"), min(m.levels("fan_in"))

    def at(u: float) -> str:
        return number(m.of("background_mbps", protocol="tcp", initial_alpha=1.0, fan_in=low, utilization=u), "{:.0f}")

    return f"{at(loads[0])} Mbps at {100 * loads[0]:.0f}% load and still {at(loads[-1])} Mbps at {100 * loads[-1]:.0f}%"


def load_headline(r: Reproductions) -> str:
    """Inline (README): the load at which DCTCP misses the most, and D2TCP's distance from it."""
    m = _load(r)
    dctcp = _at_heaviest(m, "missed", "dctcp")
    return (f"raising the load until DCTCP misses {percent(dctcp, 0)} leaves D2TCP within {_load_gap(m):.2g} points of "
            "DCTCP")


def load_verdict(r: Reproductions) -> str:
    """Inline: the verdict of the load run's claim that D2TCP halves DCTCP's misses at some load."""
    return verdict_text(r.claim("d2tcp-load", "D2TCP misses far fewer deadlines than DCTCP"))


def _seeds(r: Reproductions, rid: str) -> int:
    seeds = r.report(rid).get("seeds")
    return len(seeds) if isinstance(seeds, list) else 1


def seeds_d2tcp(r: Reproductions) -> str:
    """Inline: how many seeds the D2TCP reproductions ran on, and which ran on another number."""
    ids = [rid for rid in r.ids() if rid.startswith("d2tcp-") and rid != "d2tcp-map"]
    count = _seeds(r, "d2tcp-fig10")
    odd = [rid for rid in ids if _seeds(r, rid) != count]
    if not odd:
        return f"{count} seeds"
    ns3 = [rid for rid in odd if rid.startswith("d2tcp-ns3-")]
    names = [f"`{rid}`" for rid in odd if rid not in ns3] + (["the ns-3 variant"] if ns3 else [])
    counts = " or ".join(str(n) for n in sorted({_seeds(r, rid) for rid in odd}))
    return f"{count} seeds ({cells.listing(names)} on {counts})"


def seeds_ns3(r: Reproductions) -> str:
    """Inline: the seeds of the ns-3 variant."""
    return f"{_seeds(r, 'd2tcp-ns3-fig10')} seeds"


RENDERERS: Dict[str, Renderer] = {
    "d2tcp-seeds": seeds_d2tcp,
    "d2tcp-ns3-seeds": seeds_ns3,
    "d2tcp-headline": headline,
    "d2tcp-fig7-missed": fig7_missed,
    "d2tcp-fig7-reduction": fig7_reduction,
    "d2tcp-fig7-smallest": fig7_smallest,
    "d2tcp-fig7-long-flows": fig7_long_flows,
    "d2tcp-fig7-past-deadline": fig7_past_deadline,
    "d2tcp-fig10-missed": fig10_missed,
    "d2tcp-fig9-per-port": fig9_per_port,
    "d2tcp-fig11-range": fig11_range,
    "d2tcp-same-misses": same_misses,
    "d2tcp-fig12-p99": fig12_p99,
    "d2tcp-table1-inversions": table1_inversions,
    "d2tcp-table1-ours": table1_ours,
    "d2tcp-fig13-bandwidth": fig13_bandwidth,
    "d2tcp-quiet-figures": quiet_figures,
    "d2tcp-table3-tightest": table3_tightest,
    "d2tcp-table2-long-flows": table2_long_flows,
    "d2tcp-load-missed": load_missed,
    "d2tcp-load-first-missed": load_first_missed,
    "d2tcp-load-top": load_top,
    "d2tcp-load-gap": load_gap,
    "d2tcp-load-no-timeout": load_no_timeout,
    "d2tcp-load-background": load_background,
    "d2tcp-load-headline": load_headline,
    "d2tcp-load-verdict": load_verdict,
    "d2tcp-ns3-missed": ns3_missed,
    "d2tcp-ns3-timeouts": ns3_timeouts,
    "d2tcp-ns3-smallest-fan-in": ns3_smallest_fan_in,
    "d2tcp-ns3-variances": ns3_variances,
    "d2tcp-ns3-tally": _tally_of("d2tcp-ns3-"),
    "d2tcp-ns3-wall-time": ns3_wall_time,
    "d2tcp-fig10-past-deadline": fig10_past_deadline,
    "d2tcp-map-best": map_best,
    "d2tcp-map-headline": map_headline,
    "d2tcp-map-slack": map_slack,
    "d2tcp-ns3-paired": _ns3_paired(NS3),
    "d2tcp-ns3-paired-no-delack": _ns3_paired(NS3_NO_DELACK),
    "d2tcp-ns3-headline": ns3_headline,
    "d2tcp-map-against": map_against,
}
