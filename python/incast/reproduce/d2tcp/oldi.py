"""Reproductions of the D2TCP paper (Vamanan et al., SIGCOMM 2012), Section 4.2: the 1000-host OLDI
workload (`oldi` in docs/scenario.md) on the two-tier network of its Figure 8, under TCP, DCTCP,
D3 and D2TCP. Each figure and table runs under two settings (`Setting`): our reading of every
number the paper prints (`d2tcp-*`), and the defaults of the paper's own simulator, ns-3 of 2012
(`d2tcp-ns3-*`).

Our reading of the workload (docs/scenario.md, `kind = "oldi"`) follows every number the paper
prints: 25 racks of 40 hosts, 4 MB shared ToR buffers, 20 us links, five applications of five
trees, messages of 2-18 KB with base deadlines of 20-45 ms, TCP min RTO 20 ms, and query arrivals
at 15% utilization of each parent's downlink. Under it, few deadlines are missed by any scheme:
the paper's workload was "carefully calibrated" (Section 4.2.1) in ways it does not print. Every
report therefore also shows a sensitivity run with static 100 KB per-port buffers, where losses
occur, and says which claims hold there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Sequence, Tuple

from incast.protocols import labels
from incast.reproduce.core import Context, Outcome, Reproduction, line_plot, table, varied_value
from incast.reproduce.d2tcp.messages import judged_of, latency_quantiles, sweep_means
from incast.reproduce.figures import BAR, POINTS, Line, Panel, Plot, Series
from incast.reproduce.verdict import (
    NON_NEGATIVE,
    PERCENT,
    PRINTED,
    READ_OFF_FIGURE,
    Claim,
    Text,
    bound_claim,
    condition_claim,
    every,
    order_claim,
    range_claim,
    ratio_claim,
)

if TYPE_CHECKING:

    from incast.sweep import SweepResult


PROTOCOLS = ("tcp", "dctcp", "d3", "d2tcp")
LABELS = labels(PROTOCOLS)
VARIANCES = ("low", "medium", "high")
BASE_DEADLINES_MS = (20, 30, 35, 40, 45)
PROTOCOL = "transport.protocol"
FAN_IN = "workload.0.fan_in"
VARIANCE = "workload.0.deadline_variance"
UTILIZATION = 0.15
# The TCP stack of these reproductions, stated so that incast's default stack can change without
# changing them: the d3-testbed stack they were first built on (IW 2, no SACK, no delayed ACKs,
# instant ECN cuts). The paper's own simulator, ns-3 of 2012, is the `NS3_2012` setting below.
STACK = "d3-testbed"
# The paper's buffers, and the sensitivity setting: ns-3's queues of 2012 were per device.
PAPER_SWITCH = {"shared_buffer": "4MB", "core_buffer": "100MB", "ecn_threshold": "auto"}
# Section 4.2.1: "We set D3's base rate to be one segment per RTT". A flow at the base grant sends
# one segment; its routers count one 1500 B packet per the paper's average RTT of 200 us, 60 Mbps.
D3_BASE_RATE = {"base_grant": "one-segment", "base_rate": "60Mbps"}
PER_PORT_SWITCH = {"buffer": "100KB", "core_buffer": "100MB", "ecn_threshold": "auto"}
# ns-3's point-to-point DropTailQueue of 2012 held 100 packets of any size (`MaxPackets`, its
# default, in `Packets` mode); the paper enabled "the marking of CE bits in the switch model of
# ns-3", so marking stays at DCTCP's K = 20 packets for 1 Gbps. The fabric switch's "large
# buffers" the paper leaves unsized; we keep 100 MB as in the main setting.
NS3_SWITCH = {"buffer": "100pkts", "core_buffer": "100MB", "ecn_threshold": "auto"}


NOT_CONGESTED = ("under the paper's printed settings our network is barely congested: 15% of a parent's downlink "
                 "with 4 MB shared ToR buffers absorbs every fan-in burst, so no scheme misses many deadlines and "
                 "there is little for D2TCP to improve; the paper calibrated its workload further without "
                 "printing how (Section 4.2.1). The sensitivity panel (100 KB per port) shows the regime with "
                 "losses; there DCTCP and D2TCP coincide on 2-18 KB messages, whose windows never leave the "
                 "two-segment floor long enough for alpha^d to differ from alpha")


HIGH_VARIANCE = ("with high variance (exponential deadlines with no floor, as the paper specifies) most misses are "
                 "deadlines shorter than a message needs on an idle network, which no congestion control can meet; "
                 "DCTCP and D2TCP miss the same messages, since 2-18 KB messages never leave the two-segment floor "
                 "long enough for alpha^d to differ from alpha")

NS3_STALLS = ("under ns-3's TCP of 2012 a message's first segment waits out the 20 ms minimum RTO: the initial "
              "window is one 536 B segment and the receiver holds its ACK until a second segment arrives or 200 ms "
              "pass, so the sender times out first (an odd last segment adds a spurious timeout after delivery). "
              "These stalls set a floor under the misses: at the smallest fan-in, where nothing queues, TCP, "
              "DCTCP and D2TCP miss the same share, the messages given less than about 20 ms. DCTCP's and "
              "D2TCP's ECN cuts floor at one segment and bring the stall back mid-message; D2TCP cuts "
              "far-deadline messages (d < 1) harder and times out more often per message, so it misses more, not "
              "fewer. Without delayed ACKs (the sensitivity panel) the stalls are gone")
NS3_D3 = ("D3's end hosts are not ns-3's TCP (the paper wrote D3's end-host protocol itself): they send at "
          "their granted rate, not from a window of one segment that waits for a delayed ACK, so the stalls that "
          "delay DCTCP's messages do not delay D3's (alone on the network a 2-18 KB D3 message takes under 1 ms; "
          "its timeouts, from the delayed ACK of a last segment, come after delivery), and 15% load through "
          "100-packet queues leaves it almost nothing to miss")


@dataclass(frozen=True)
class Setting:
    """The network stack one set of D2TCP reproductions runs under, and the sensitivity panel
    shown beside it: the same reproductions run under each, so that each figure can be read
    under our default reading of the paper and under its own simulator's defaults."""

    prefix: str
    """Prepended to reproduction ids and sweep names after `d2tcp-`: "" or "ns3-"."""
    label: str
    """The main panel, as a figure title says it."""
    transport: Mapping[str, Any]
    switch: Mapping[str, Any]
    sensitivity_label: str
    sensitivity_tag: str
    """The sensitivity panel, and the name of its sweeps."""
    sensitivity_transport: Mapping[str, Any]
    sensitivity_switch: Mapping[str, Any]
    """The sensitivity panel's `transport` (before the protocol and min RTO) and `switch`."""
    where: str
    """The main panel in a sentence's words: "the paper's settings"."""
    panel_column: str
    panels: Tuple[str, str]
    """How tables name the panels: a column, and its value for the main and the sensitivity panel."""
    why: str
    """Why the main panel's missed deadlines stay off the paper's, for the claims that depend on them."""
    why_high_variance: str
    why_d3: str
    """Why D3's missed deadlines in the main panel stay off the paper's."""

    def sweep(self, name: str) -> str:
        return f"d2tcp-{self.prefix}{name}"


# Our reading of the paper: every number it prints, on the d3-testbed stack.
PRINTED_SETTING = Setting(
    prefix="", label="4 MB shared ToR buffers (paper)", transport={"stack": STACK}, switch=PAPER_SWITCH,
    sensitivity_label="100 KB per port (sensitivity)", sensitivity_tag="perport",
    sensitivity_transport={"stack": STACK}, sensitivity_switch=PER_PORT_SWITCH,
    where="the paper's settings", panel_column="buffers", panels=("4MB shared", "100KB per port"),
    why=NOT_CONGESTED, why_high_variance=HIGH_VARIANCE, why_d3=NOT_CONGESTED)
# The paper's simulator (Section 4.2.1: "on top of ns-3's TCP New Reno"): the `ns3-2012` stack
# (docs/scenario.md: ns-3.12-3.15's TcpSocket defaults, 536 B segments, IW 1, delayed ACKs of 2
# segments or 200 ms, DCTCP's alpha from 0 and its cut floored at one segment as the 2013 ns-3
# D2TCP port) with ns-3's per-device drop-tail queues of 100 packets. Every setting together, not
# one at a time. The sensitivity panel turns off the one default that dominates the result.
NS3_2012 = Setting(
    prefix="ns3-", label="ns-3 of 2012: its TCP, 100-packet queues per port", transport={"stack": "ns3-2012"},
    switch=NS3_SWITCH, sensitivity_label="the same without delayed ACKs (sensitivity)", sensitivity_tag="nodelack",
    sensitivity_transport={"stack": "ns3-2012", "delayed_ack": False}, sensitivity_switch=NS3_SWITCH,
    where="ns-3 of 2012", panel_column="stack", panels=("ns3-2012", "ns3-2012 without delayed ACKs"),
    why=NS3_STALLS, why_high_variance=NS3_STALLS, why_d3=NS3_D3)


def oldi_scenario(ctx: Context, setting: Setting = PRINTED_SETTING, *, sensitivity: bool = False,
                  background: bool = False, variance: str = "medium",
                  deadlines_ms: Sequence[float] = BASE_DEADLINES_MS) -> Dict[str, Any]:
    """D2TCP Section 4.2.1 as a scenario under `setting` (its sensitivity panel's with
    `sensitivity`); `ctx.quick` shortens the run to 0.2 s."""
    duration = 0.2 if ctx.quick else 1.0
    transport = setting.sensitivity_transport if sensitivity else setting.transport
    return {
        "topology": {"kind": "two-tier", "racks": 25, "hosts_per_rack": 40, "link_rate": "1Gbps", "link_delay": "20us"},
        "switch": dict(setting.sensitivity_switch if sensitivity else setting.switch),
        "transport": {**transport, "protocol": "d2tcp", "min_rto": "20ms"},
        "d3": dict(D3_BASE_RATE),
        "workload": [{
            "kind": "oldi",
            "fan_in": 10,
            "utilization": UTILIZATION,
            "deadline_variance": variance,
            "deadlines": [f"{d:g}ms" for d in deadlines_ms],
            "background": background,
            # Arrivals stop 70 ms before the end, so every low- and medium-variance deadline
            # (at most 1.5 x 45 ms) falls inside the run.
            "stop": f"{duration - 0.07:g}s",
        }],
        "run": {"duration": f"{duration:g}s"},
    }


def fan_ins(ctx: Context) -> List[int]:
    return [10, 40] if ctx.quick else [5, 10, 15, 20, 25, 30, 35, 40]


def _run(ctx: Context, name: str, scenario: Mapping[str, Any], grid: Mapping[str, Sequence[Any]],
         zips: Sequence[Mapping[str, Sequence[Any]]] = ()) -> "SweepResult":
    return ctx.sweep(name, scenario, grid=grid, zips=zips)


def fewer_missed_claim(claim: str, cells: Mapping[Tuple[str, int], float], fans: Sequence[int], *, why: Any,
                       setting: str) -> Claim:
    """D2TCP misses strictly fewer deadlines than both DCTCP and D3 at every fan-in of `fans`
    where both of them miss some: where neither misses anything, "fewer" says nothing, and a
    figure where that holds at every fan-in is not exercised."""
    judged = [n for n in fans if min(cells[("dctcp", n)], cells[("d3", n)]) > 0]
    percent = {f"{p} {n}": 100 * cells[(p, n)] for p in ("d2tcp", "dctcp", "d3") for n in fans}
    return condition_claim(
        claim, "D2TCP lowest",
        Text(lambda f: ", ".join(f"{n}: D2TCP {f[f'd2tcp {n}']:.1f}%, DCTCP {f[f'dctcp {n}']:.1f}%, "
                                 f"D3 {f[f'd3 {n}']:.1f}%" for n in fans), percent),
        all(cells[("d2tcp", n)] < min(cells[("dctcp", n)], cells[("d3", n)]) for n in judged),
        "strictly below both at every fan-in >= 20 where both miss some deadlines", why=why,
        exercised=bool(judged),
        premise=Text(lambda f: (f"at no fan-in >= 20 did both DCTCP and D3 miss a deadline ({setting}; at most DCTCP "
                                f"{f['dctcp']:.2f}%, D3 {f['d3']:.2f}%), so there was nothing for D2TCP to miss "
                                "fewer of"),
                     {p: 100 * max(cells[(p, n)] for n in fans) for p in ("dctcp", "d3")}),
        values={f"{p} missed % at {n}": 100 * cells[(p, n)] for p in ("d2tcp", "dctcp", "d3") for n in fans})


# --- Figures 9-11: missed deadlines against fan-in, three variances; Figure 12; Table 1 --------


def _variance_sweep(ctx: Context, variance: str, setting: Setting = PRINTED_SETTING,
                    sensitivity: bool = False) -> "SweepResult":
    """Every protocol at every fan-in for one deadline variance: the runs Figures 9-12 and
    Table 1 share (one definition, so they always hit the same cached sweep)."""
    tag = setting.sensitivity_tag if sensitivity else "paper"
    return _run(ctx, setting.sweep(f"{tag}-{variance}"),
                oldi_scenario(ctx, setting, sensitivity=sensitivity, variance=variance),
                grid={FAN_IN: fan_ins(ctx), PROTOCOL: list(PROTOCOLS)})


def _variance_runs(ctx: Context, variance: str, setting: Setting,
                   sensitivity: bool = False) -> Tuple[Dict[Tuple[str, int], float], Dict[Tuple[str, int], float]]:
    """Missed deadlines, and retransmission timeouts per message, by protocol and fan-in."""
    result = _variance_sweep(ctx, variance, setting, sensitivity)
    by = (PROTOCOL, FAN_IN)
    return sweep_means(result, "missed", by), sweep_means(result, "timeouts", by)


# The labels Figures 9-11 print above their clipped y-axes (45% and 40%): TCP's bars at fan-in 35
# and 40, the only ones that leave the axis.
PAPER_TCP_MISSED = {"low": {35: 52.3, 40: 58.2}, "medium": {35: 50.71, 40: 56.95}, "high": {35: 51.62, 40: 57.82}}


def _missed_figure(ctx: Context, variance: str, figure: int, setting: Setting) -> Outcome:
    paper, paper_timeouts = _variance_runs(ctx, variance, setting)
    sens, sens_timeouts = _variance_runs(ctx, variance, setting, sensitivity=True)
    rows = [{setting.panel_column: b, "protocol": p, "fan_in": n, "missed": v, "timeouts_per_message": timeouts[(p, n)]}
            for b, cells, timeouts in zip(setting.panels, (paper, sens), (paper_timeouts, sens_timeouts))
            for (p, n), v in sorted(cells.items())]
    fans = fan_ins(ctx)
    fig = Plot(f"D2TCP Figure {figure}: missed deadlines, {variance} variance", [
        Panel(title, "fan-in degree", "missed deadlines (%)", series=[
            Series(LABELS[p], {n: 100 * cells[(p, n)] for n in fans if (p, n) in cells}, within=PERCENT)
            for p in PROTOCOLS] + ([Series("TCP, labels printed on the paper's figure", PAPER_TCP_MISSED[variance],
                                           kind=POINTS, paper=True)] if main else []))
        for title, cells, main in ((setting.label, paper, True), (setting.sensitivity_label, sens, False))])
    top, low = max(fans), min(fans)
    high = [n for n in fans if n >= 20]
    # What the explanations quote, over seeds: each panel's misses and the main panel's timeouts.
    facts = {**{f"{p} at {n}": 100 * paper[(p, n)] for p in PROTOCOLS for n in (low, top)},
             **{f"{p} timeouts": paper_timeouts[(p, top)] for p in ("dctcp", "d2tcp")},
             **{f"{p} sensitivity": 100 * sens[(p, top)] for p in ("dctcp", "d2tcp")}}
    reason = setting.why_high_variance if variance == "high" else setting.why

    def evidence(f: Mapping[str, float]) -> str:
        return (f"{reason} (missed at fan-in {low}: "
                + ", ".join(f"{LABELS[p]} {f[f'{p} at {low}']:.1f}%" for p in ("tcp", "dctcp", "d2tcp"))
                + f"; at {top}: " + ", ".join(f"{LABELS[p]} {f[f'{p} at {top}']:.1f}% with {f[f'{p} timeouts']:.2f} "
                                           "timeouts per message" for p in ("dctcp", "d2tcp"))
                + f"; in the sensitivity panel at {top}: DCTCP {f['dctcp sensitivity']:.2f}%, D2TCP "
                  f"{f['d2tcp sensitivity']:.2f}%)")

    why = Text(evidence, facts)
    printed = {n: v for n, v in PAPER_TCP_MISSED[variance].items() if n in fans}
    claims: List[Claim] = [
        fewer_missed_claim(f"D2TCP misses fewer deadlines than DCTCP and D3 at fan-in >= 20 ({variance} variance)",
                           paper, high, why=why, setting=f"{variance} variance, {setting.where}"),
        # "rapidly increasing": the figure prints how far, TCP's labels at fan-in 35 and 40.
        every(f"\"TCP misses a rapidly increasing number of deadlines as we increase the fan-in degree\" ({variance}; "
              f"Figure {figure} prints TCP's bars above its axis: "
              + ", ".join(f"{v:g}% at fan-in {n}" for n, v in PAPER_TCP_MISSED[variance].items()) + ")",
              " and ".join(f"{v:g}% at {n}" for n, v in printed.items()),
              {n: ratio_claim("", v, 100 * paper[("tcp", n)], "%", tolerance=PRINTED, fmt="{:.1f}", within=PERCENT)
               for n, v in printed.items()}, why=why),
    ]
    if variance == "medium":
        dctcp, d3 = 100 * paper[("dctcp", top)], 100 * paper[("d3", top)]
        claims += [
            bound_claim("medium variance, fan-in 40: D2TCP keeps missed deadlines under 7% (\"D2TCP keeps the "
                        "fraction of missed deadlines under 7% at a fan-in degree of 40\")", "< 7%",
                        100 * paper[("d2tcp", top)], at_most=7, unit="%", exercised=max(dctcp, d3) > 7,
                        premise=Text(lambda f: (
                            f"at fan-in {top} DCTCP missed {f['dctcp']:.2f}% and D3 {f['d3']:.2f}% of deadlines, "
                            "neither above 7%, so the bound cannot tell D2TCP from them: the congestion behind the "
                            "paper's 'around 25%' did not occur"), {"dctcp": dctcp, "d3": d3}),
                        why=why, within=PERCENT),
            # "around 25%" is the paper's own reading of its Figure 10 at fan-in 40.
            ratio_claim("medium variance, fan-in 40: DCTCP misses around 25% (\"both DCTCP and D3 miss around 25% of "
                        "the deadlines at the fan-in degree is 40\", read off Figure 10)", 25, dctcp, "%",
                        tolerance=READ_OFF_FIGURE, why=why, within=PERCENT),
            ratio_claim("medium variance, fan-in 40: D3 misses around 25% (the same words)", 25, d3, "%",
                        tolerance=READ_OFF_FIGURE, why=setting.why_d3, within=PERCENT),
        ]
    if variance == "high":
        d3_missed = [100 * paper[("d3", n)] for n in fans]
        claims.append(range_claim(f"high variance: \"the fraction of missed deadlines for D3 fall in the range of "
                                  f"0-15%\" (0-9% in the D3 paper); ours the largest over fan-in {low}-{top}",
                                  0, 15, max(d3_missed), "%", why=setting.why_high_variance, within=PERCENT))
    notes = (f"Missed deadlines of OLDI messages, {variance} variance, fan-in {', '.join(map(str, fans))}, "
             f"{'0.2' if ctx.quick else '1'} simulated s per point. Left: {setting.label}. Right: "
             f"{setting.sensitivity_label}. `timeouts_per_message`: retransmission timeouts per judged message.")
    tables = {f"figure{figure}": table(rows)}
    if variance == "medium":
        tables["past_deadline"] = table(_past_deadline_rows(ctx, setting, paper, sens))
        notes += (" Table `past_deadline`: D2TCP's missed deadlines with d = 1 once a deadline has passed (`d_one`, "
                  "our default) and with d = n (`d_max`, the 2013 ns-3 port's), in both panels.")
    return Outcome(claims=claims, tables=tables, figure=fig, notes=notes)


def _past_deadline_rows(ctx: Context, setting: Setting, paper: Mapping[Tuple[str, int], float],
                        sens: Mapping[Tuple[str, int], float]) -> List[Dict[str, Any]]:
    """D2TCP with d = n past the deadline beside the runs' d = 1, per panel and fan-in."""
    rows: List[Dict[str, Any]] = []
    for panel, sensitivity, d_one in zip(setting.panels, (False, True), (paper, sens)):
        tag = setting.sensitivity_tag if sensitivity else "paper"
        result = _run(ctx, setting.sweep(f"past-max-{tag}-medium"),
                      oldi_scenario(ctx, setting, sensitivity=sensitivity),
                      grid={FAN_IN: fan_ins(ctx), "d2tcp.past_deadline": ["max"]})
        d_max = sweep_means(result, "missed", (FAN_IN,))
        rows += [{setting.panel_column: panel, "fan_in": n, "d_one": d_one[("d2tcp", n)], "d_max": d_max[(n,)]}
                 for n in fan_ins(ctx)]
    return rows


def figure9(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    return _missed_figure(ctx, "low", 9, setting)


def figure10(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    return _missed_figure(ctx, "medium", 10, setting)


def figure11(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    return _missed_figure(ctx, "high", 11, setting)


def figure12(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    quantiles = latency_quantiles(_variance_sweep(ctx, "medium", setting), (PROTOCOL, FAN_IN))
    rows = [{"protocol": p, "fan_in": n, **q} for (p, n), q in sorted(quantiles.items())]
    at = quantiles
    shown = ("dctcp", "d3", "d2tcp")
    fig = Plot("D2TCP Figure 12: latency normalized to the deadline", [
        Panel(f"{q}th percentile", "fan-in degree", "latency / deadline (%)", series=[
            Series(LABELS[p], {n: 100 * at[(p, n)][f"p{q}"] for n in fan_ins(ctx) if (p, n) in at},
                   within=NON_NEGATIVE) for p in shown])
        for q in (50, 90, 99)], panel_size=(4.6, 4.0))
    # Figure 12's points run over fan-in 20-40 (its axis 15-45).
    judged = [n for n in fan_ins(ctx) if 20 <= n <= 40]
    claims = [every("\"D2TCP's latencies are significantly lower than those of DCTCP and D3\" (Figure 12: 50th, 90th "
                    "and 99th percentiles normalized to the deadline; ours at every fan-in of 20-40, its points)",
                    "D2TCP lowest at p90 and p99",
                    {n: condition_claim(
                        "", "",
                        Text(lambda f: ", ".join(f"{LABELS[p]} p99 {f[p]:.0f}%" for p in shown),
                             {p: 100 * at[(p, n)]["p99"] for p in shown}),
                        all(at[("d2tcp", n)][q] < min(at[("dctcp", n)][q], at[("d3", n)][q]) for q in ("p90", "p99")),
                        "D2TCP's p90 and p99 below both others'",
                        values={f"{p} {q} %": 100 * at[(p, n)][q] for p in shown for q in ("p90", "p99")})
                     for n in judged}, why=setting.why)]
    return Outcome(claims=claims, tables={"figure12": table(rows)}, figure=fig,
                   notes=f"Medium variance, {setting.where} (the runs of Figure 10).")


# Table 1 of the paper: D3's priority inversions (%), per variance and fan-in.
PAPER_TABLE1 = {"low": {20: 31.9, 25: 33.2, 30: 35.7, 35: 41.9, 40: 48.6},
                "medium": {20: 26.3, 25: 28.7, 30: 30.8, 35: 33.4, 40: 40.5},
                "high": {20: 24.1, 25: 24.6, 30: 28.6, 35: 31.5, 40: 33.1}}


D3_VARIANT = "d3.variant"


def fine_fan_ins(ctx: Context) -> List[int]:
    """Table 1's fan-ins in steps of 1 (issue 23): 14-40, or in the quick run the two steps where
    the repaired router's time slices double their groups."""
    return [16, 17, 32, 33] if ctx.quick else list(range(14, 41))


def _fine_inversions(ctx: Context, setting: Setting) -> Dict[Tuple[str, int], float]:
    """D3's priority inversions at every fan-in of `fine_fan_ins`, medium variance, as printed
    and with incast's repairs: per (variant, fan-in), the share of D3's requests."""
    scenario = oldi_scenario(ctx, setting, variance="medium")
    scenario = {**scenario, "transport": {**scenario["transport"], "protocol": "d3"}}
    result = _run(ctx, setting.sweep("table1-fine"), scenario,
                  grid={FAN_IN: fine_fan_ins(ctx), D3_VARIANT: ["paper", "repaired"]})
    out: Dict[Tuple[str, int], float] = {}
    for s in result.summary().select([D3_VARIANT, FAN_IN, "d3_priority_inversions", "d3_requests"]).to_pylist():
        out[(s[D3_VARIANT], s[FAN_IN])] = s["d3_priority_inversions"] / s["d3_requests"] if s["d3_requests"] else 0.0
    return out


def table1(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    rows: List[Dict[str, Any]] = []
    for variance in VARIANCES:
        summary = _variance_sweep(ctx, variance, setting).summary()
        for s in summary.select([PROTOCOL, FAN_IN, "d3_priority_inversions", "d3_requests"]).to_pylist():
            if s[PROTOCOL] == "d3":
                share = s["d3_priority_inversions"] / s["d3_requests"] if s["d3_requests"] else 0.0
                rows.append({"variance": variance, "fan_in": s[FAN_IN], "inverted_requests": share})
    at = {(r["variance"], r["fan_in"]): r["inverted_requests"] for r in rows}
    # In steps of 1, in the main setting only (the ns-3 variant's D3 is the same router).
    fine = _fine_inversions(ctx, setting) if setting is PRINTED_SETTING else {}
    fans = fine_fan_ins(ctx)
    fine_rows = [{"variant": v, "fan_in": n, "inverted_requests": fine[(v, n)]}
                 for v in ("paper", "repaired") for n in fans if (v, n) in fine]
    panels = [
        Panel("Table 1's fan-ins, D3 as printed", "fan-in degree",
              "requests denied while a later deadline holds a grant (%)", series=[
                  *(Series(f"{v} variance", {n: 100 * at[(v, n)] for n in fan_ins(ctx)}, within=PERCENT)
                    for v in VARIANCES),
                  *(Series(f"{v} variance, paper (Table 1)", PAPER_TABLE1[v], kind=POINTS, paper=True)
                    for v in VARIANCES)])]
    if fine:
        panels.append(Panel("Every fan-in, medium variance: D3 as printed and repaired", "fan-in degree",
                            "requests denied while a later deadline holds a grant (%)", series=[
                                Series("D3 as printed", {n: 100 * fine[("paper", n)] for n in fans}, within=PERCENT),
                                Series("D3 with incast's repairs", {n: 100 * fine[("repaired", n)] for n in fans},
                                       within=PERCENT)]))
    fig = Plot("D2TCP Table 1: D3's priority inversions", panels, panel_size=(7.5, 4.5))
    n20 = 20 if ("high", 20) in at else max(fan_ins(ctx))
    # The paper's Table 1 covers fan-in 20-40; the quick run has two fan-ins.
    steps = [n for n in fan_ins(ctx) if n >= 20]
    steps = steps if len(steps) >= 2 else fan_ins(ctx)
    percent = {f"{v} {n}": 100 * at[(v, n)] for v in VARIANCES for n in fan_ins(ctx)}

    def rising(f: Mapping[str, float]) -> str:
        return "; ".join(f"{v}: " + ", ".join(f"{n}: {f[f'{v} {n}']:.1f}%" for n in steps) for v in VARIANCES)

    def falls(f: Mapping[str, float]) -> str:
        return "ours fall at " + ("; ".join(f"{v} {a} -> {b}" for v in VARIANCES for a, b in zip(steps, steps[1:])
                                            if f[f"{v} {b}"] <= f[f"{v} {a}"]) or "no step of the means") \
            + "; why they stop rising we have not found"

    def spread(f: Mapping[str, float]) -> str:
        most = max(max(f[f"{v} {n}"] for v in VARIANCES) - min(f[f"{v} {n}"] for v in VARIANCES) for n in steps)
        return (f"ours barely depend on the variance: at most {most:.1f} points apart at any fan-in; why the paper's "
                "grow as deadlines tighten and ours do not we have not found")

    claims = [
        ratio_claim(f"\"even in a favorable setting (high variance deadlines with a fan-in degree of 20), D3 incurs "
                    f"priority inversion for nearly 25% of all flows\" (Table 1 prints 24.1%; ours at fan-in {n20})",
                    24.1, 100 * at[("high", n20)], "%", tolerance=PRINTED, within=PERCENT,
                    why="at 15% utilization bursts rarely overlap at a port, so few requests are denied at all"),
        condition_claim("\"the priority inversions worsen both as the fan-in degree increases\"", "rising with fan-in",
                        Text(rising, percent),
                        all(at[(v, b)] > at[(v, a)] for v in VARIANCES for a, b in zip(steps, steps[1:])),
                        f"rising at every step of fan-in {', '.join(map(str, steps))} (the paper's table rises at "
                        "every step of 20-40), every variance", why=Text(falls, percent),
                        values={f"{v} % at {n}": 100 * at[(v, n)] for v in VARIANCES for n in steps}),
        # The paper's table orders its variances so at every fan-in of 20-40, and says so of all of them.
        every("\"and as the variance in deadlines gets tighter causing more burstiness\" (Table 1 orders the "
              "variances so at every fan-in of 20-40; ours at each)", "high < medium < low",
              {n: order_claim("", "", {v: 100 * at[(v, n)] for v in VARIANCES}, ("high", "medium", "low"),
                              within=PERCENT) for n in steps}, why=Text(spread, percent)),
    ]
    notes = ("Share of D3 rate requests of deadline flows denied (allocation below the request) while a flow with a "
             "later deadline held a grant at the same port, counted by the simulator (not the routers). The paper "
             "reports it per request too. D3 runs as the paper prints it (`[d3] variant = \"paper\"`).")
    if fine:
        notes += (
            f" The right panel and table `fine` give D3's share at every fan-in of {fans[0]}-{fans[-1]} (medium "
            "variance), as printed and with incast's repairs. The repaired router time-slices a port whose fair share "
            "is below one unit of the 8-bit field into a power-of-two number of groups that take turns "
            "(docs/scenario.md, `[d3]`), so its share steps down where the flows at a parent's port cross a power "
            "of two (16 and 32 leaves); the paper's router has no time slices and no such steps "
            "(docs/results-d2tcp.md gives the steps of the committed run).")
    tables = {"table1": table(rows)}
    if fine_rows:
        tables["fine"] = table(fine_rows)
    return Outcome(claims=claims, tables=tables, figure=fig, notes=notes)


# --- Figures 13 and 14: background flows -------------------------------------------------------


def _background(ctx: Context, setting: Setting) -> Tuple[Dict[Tuple[str, int], float], Dict[Tuple[str, int], float]]:
    result = _run(ctx, setting.sweep("background"), oldi_scenario(ctx, setting, background=True),
                  grid={FAN_IN: fan_ins(ctx), PROTOCOL: list(PROTOCOLS)})
    by = (PROTOCOL, FAN_IN)
    return (sweep_means(result, "missed", by),
            sweep_means(result, "mbps", by, background=True))


def figure13(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    _, bw = _background(ctx, setting)
    rows: List[Dict[str, Any]] = [
        {"protocol": p, "fan_in": n, "mbps": bw[(p, n)], "normalized_to_tcp": bw[(p, n)] / bw[("tcp", n)]}
        for (p, n) in sorted(bw) if ("tcp", n) in bw]
    fig = line_plot({LABELS[p]: {r["fan_in"]: r["normalized_to_tcp"] for r in rows if r["protocol"] == p}
                     for p in ("dctcp", "d3", "d2tcp")}, percent=False, within=NON_NEGATIVE,
                    xlabel="fan-in degree", ylabel="background bandwidth / TCP's", title="D2TCP Figure 13")
    norm = {(r["protocol"], r["fan_in"]): r["normalized_to_tcp"] for r in rows}
    lowest = {p: 100 * min(v for (q, _), v in norm.items() if q == p) for p in ("dctcp", "d3", "d2tcp")}
    claims = [
        bound_claim("\"all the schemes perform well, achieving 85% or more of the bandwidth achieved by TCP\" (ours: "
                    "the lowest of any scheme at any fan-in)", ">= 85%", min(lowest.values()), at_least=85, unit="%",
                    within=NON_NEGATIVE,
                    why=Text(lambda f: ("D3 allocates background flows only the fair share of what deadline flows "
                                        "leave, truncated to whole units of its 8-bit field; the lowest of each: "
                                        + ", ".join(f"{LABELS[p]} {f[p]:.1f}%" for p in ("dctcp", "d3", "d2tcp"))),
                             lowest)),
        bound_claim("\"Overall, D2TCP achieves 95% or more of the bandwidth achieved by TCP\" (ours: its lowest at any "
                    "fan-in)", ">= 95%", lowest["d2tcp"], at_least=95, unit="%", within=NON_NEGATIVE,
                    why="DCTCP-style marking at K = 20 packets keeps 1 MB flows below TCP, which fills the "
                        "4 MB buffer; the gap is DCTCP's own"),
    ]
    return Outcome(claims=claims, tables={"figure13": table(rows)}, figure=fig,
                   notes="One leaf per tree sends 1 MB background flows (exponential inter-arrivals, mean 300 ms) "
                         "instead of answering queries; bandwidth is each completed background flow's size over its "
                         "completion time, averaged, and normalized to TCP's at the same fan-in.")


def figure14(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    missed, _ = _background(ctx, setting)
    without, _ = _variance_runs(ctx, "medium", setting)
    rows: List[Dict[str, Any]] = [
        {"protocol": p, "fan_in": n, "missed_with_background": v, "missed_without": without.get((p, n))}
        for (p, n), v in sorted(missed.items())]
    fig = Plot("D2TCP Figure 14: with background flows", [
        Panel("", "fan-in degree", "missed deadlines (%)", series=[
            Series(f"{LABELS[p]}{label}", {r["fan_in"]: 100 * (r[key] or 0) for r in rows if r["protocol"] == p},
                   within=PERCENT)
            for p in PROTOCOLS for label, key in (("", "missed_with_background"),
                                                  (", without (Figure 10)", "missed_without"))])],
        panel_size=(7.5, 4.5))
    close = all(abs(r["missed_with_background"] - (r["missed_without"] or 0)) <= 0.03 for r in rows)
    missed_any = any(r["missed_with_background"] > 0 or (r["missed_without"] or 0) > 0 for r in rows)
    shares = {**{f"{r['protocol']} {r['fan_in']} without": 100 * (r["missed_without"] or 0) for r in rows},
              **{f"{r['protocol']} {r['fan_in']} with": 100 * r["missed_with_background"] for r in rows}}
    cells = [(r["protocol"], r["fan_in"]) for r in rows]
    claims = [condition_claim("\"For all the schemes, the fraction remains similar to that in the absence of the "
                              "background flows (Figure 10)\"", "similar to Figure 10",
                              Text(lambda f: ", ".join(f"{LABELS[p]}@{n}: {f[f'{p} {n} without']:.1f}% -> "
                                                       f"{f[f'{p} {n} with']:.1f}%" for p, n in cells), shares),
                              close, "every scheme and fan-in within 3 points of the run without background "
                              "(our reading of 'similar', an eighth of the paper's DCTCP and D3 levels of about 25%)",
                              exercised=missed_any,
                              premise="no scheme missed a deadline at any fan-in, with background flows or without: "
                                      "too little congestion for background flows to add to",
                              values={f"{r['protocol']} missed % at {r['fan_in']}, background":
                                      100 * r["missed_with_background"] for r in rows})]
    return Outcome(claims=claims, tables={"figure14": table(rows)}, figure=fig,
                   notes="Medium variance with background flows, against Figure 10's runs.")


# --- Figure 15: the cap on d ------------------------------------------------------------------


def figure15(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    caps = [1.25, 2.0, 3.0] if ctx.quick else [1.25, 1.5, 2.0, 2.5, 3.0]
    fans = [40] if ctx.quick else [25, 30, 35]
    results = {}
    for tag, sensitivity in (("paper", False), (setting.sensitivity_tag, True)):
        result = _run(ctx, setting.sweep(f"dcap-{tag}"), oldi_scenario(ctx, setting, sensitivity=sensitivity),
                      grid={FAN_IN: fans, "d2tcp.d_cap": caps})
        results[tag] = sweep_means(result, "missed", (FAN_IN, "d2tcp.d_cap"))
    rows = [{setting.panel_column: panel, "fan_in": n, "d_cap": c, "missed": v}
            for panel, cells in zip(setting.panels, results.values()) for (n, c), v in sorted(cells.items())]
    fig = Plot("D2TCP Figure 15: missed deadlines against the cap on d", [
        Panel(setting.label if tag == "paper" else setting.sensitivity_label, "n (d in [1/n, n])",
              "missed deadlines (%)", series=[Series(f"fan-in {n}", {c: 100 * results[tag][(n, c)] for c in caps},
                                                     within=PERCENT) for n in fans])
        for tag in results])
    paper = results["paper"]
    best = {n: min(caps, key=lambda c: (paper[(n, c)], abs(c - 2.0))) for n in fans}
    percent = {f"{n} {c:g}": 100 * paper[(n, c)] for n in fans for c in caps}
    claims = [condition_claim("\"when n is close to 1.0, D2TCP's behavior matches DCTCP and the fraction of missed "
                              "deadlines is high. As n increases to 2.0, the fraction drops dramatically but then "
                              "levels "
                              "off\"", "n = 1.25 worst, n = 2 near best",
                              Text(lambda f: ", ".join(f"fan-in {n}: " + ", ".join(f"{c:g}: {f[f'{n} {c:g}']:.1f}%"
                                                                                   for c in caps) for n in fans),
                                   percent),
                              all(paper[(n, 1.25)] > paper[(n, 2.0)] and abs(best[n] - 2.0) <= 0.5 for n in fans),
                              "n = 1.25 above n = 2 and the best n within 0.5 of 2, every fan-in", why=setting.why,
                              exercised=any(v > 0 for v in paper.values()),
                              premise=f"D2TCP missed no deadline at any cap and fan-in ({setting.where}), so no "
                                      "cap can miss more or fewer than another",
                              values={f"missed % at fan-in {n}, cap {c:g}": 100 * paper[(n, c)] for n in fans
                                      for c in caps})]
    return Outcome(claims=claims, tables={"figure15": table(rows)}, figure=fig,
                   notes="D2TCP only, medium variance, caps n on d in [1/n, n].")


# --- Figure 16 and Table 2: coexistence with TCP ------------------------------------------------

# Set A: applications 0-2, set B: applications 3-4 (which three and which two the paper does
# not say; we take the first three as A).
MIXES = {
    "all-tcp": (["tcp"] * 5, "tcp"),
    "mix1": (["tcp"] * 3 + ["d2tcp"] * 2, "tcp"),
    "mix2": (["tcp"] * 3 + ["d2tcp"] * 2, "d2tcp"),
}

MIX_LABELS = {"all-tcp": "All-TCP", "mix1": "Mix#1", "mix2": "Mix#2"}


def _coexistence(ctx: Context, setting: Setting) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    fans = [15, 20] if not ctx.quick else [20]
    mixes = list(MIXES)
    result = _run(ctx, setting.sweep("coexistence"), oldi_scenario(ctx, setting, background=True),
                  grid={FAN_IN: fans},
                  zips=[{"workload.0.protocols": [MIXES[m][0] for m in mixes],
                         "workload.0.background_protocol": [MIXES[m][1] for m in mixes]}])
    runs = ("workload.0.protocols", "workload.0.background_protocol", FAN_IN)

    def mix(protocols: Any, background_protocol: str) -> str:
        return next(m for m in mixes if MIXES[m] == (varied_value(protocols), background_protocol))

    # Set A is applications 0-2, set B 3-4: count per application, then add up per set.
    counts = judged_of(result, [*runs, "app"]).group_by([*runs, "app"]).aggregate([("missed", "sum"),
                                                                                  ("missed", "count")])
    cells: Dict[Tuple[str, int, str], List[int]] = {}
    for r in counts.to_pylist():
        c = cells.setdefault((mix(r[runs[0]], r[runs[1]]), r[FAN_IN], "A" if r["app"] < 3 else "B"), [0, 0])
        c[0] += r["missed_sum"]
        c[1] += r["missed_count"]
    missed = [{"mix": m, "fan_in": n, "set": g, "missed": a / t} for (m, n, g), (a, t) in sorted(cells.items())]
    bw = sweep_means(result, "mbps", runs, background=True)
    long_bw = sorted(({"mix": mix(p, b), "fan_in": n, "long_flow_mbps": v} for (p, b, n), v in bw.items()),
                     key=lambda r: (r["mix"], r["fan_in"]))
    return missed, long_bw


def figure16(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    missed, _ = _coexistence(ctx, setting)
    at = {(r["mix"], r["fan_in"], r["set"]): r["missed"] for r in missed}
    fans = sorted({r["fan_in"] for r in missed})
    fig = Plot("D2TCP Figure 16: sets A (TCP) and B when D2TCP and TCP coexist", [
        Panel("", "set and fan-in", "missed deadlines (%)", series=[
            Series(MIX_LABELS[m], {f"set {g}, fan-in {n}": 100 * at[(m, n, g)] for n in fans for g in ("A", "B")},
                   kind=BAR, within=PERCENT) for m in MIXES])], panel_size=(8.0, 4.0))
    tol = 0.01

    def pair(first: str, second: str, group: str) -> Text:
        return Text(lambda f: ", ".join(f"fan-in {n}: {f[f'{first} {n}']:.2f}% -> {f[f'{second} {n}']:.2f}%"
                                        for n in fans),
                    {f"{m} {n}": 100 * at[(m, n, group)] for m in (first, second) for n in fans})

    def missed_in(first: str, second: str, group: str) -> bool:
        return any(at[(m, n, group)] > 0 for m in (first, second) for n in fans)

    def values(first: str, second: str, group: str) -> Dict[str, float]:
        return {f"{m} set {group} missed % at {n}": 100 * at[(m, n, group)] for m in (first, second) for n in fans}

    def premise(first: str, second: str, group: str) -> str:
        return (f"no message of set {group} missed a deadline in {MIX_LABELS[first]} or {MIX_LABELS[second]} at any "
                "fan-in: too little congestion for a neighbour to hurt or help")

    claims = [
        condition_claim("set A (TCP) is not hurt by sharing the network with D2TCP (All-TCP vs Mix#1: \"TCP's (i.e., "
                        "set A's) missed-deadline fraction is not worsened by sharing the network with D2TCP "
                        "traffic\")", "no worse",
                        pair("all-tcp", "mix1", "A"),
                        all(at[("mix1", n, "A")] <= at[("all-tcp", n, "A")] + tol for n in fans),
                        "within +1 point (our reading of 'not worsened')",
                        exercised=missed_in("all-tcp", "mix1", "A"), premise=premise("all-tcp", "mix1", "A"),
                        values=values("all-tcp", "mix1", "A")),
        condition_claim("set B sees fewer missed deadlines after moving to D2TCP (All-TCP vs Mix#1: \"set B sees a "
                        "reduction in missed deadlines upon migrating from TCP (All-TCP) to D2TCP (Mix#1)\")",
                        "reduction",
                        pair("all-tcp", "mix1", "B"),
                        all(at[("mix1", n, "B")] < at[("all-tcp", n, "B")] for n in fans), "strictly lower",
                        why=setting.why, exercised=missed_in("all-tcp", "mix1", "B"),
                        premise=premise("all-tcp", "mix1", "B"),
                        values=values("all-tcp", "mix1", "B")),
        condition_claim("set A is not hurt when background flows move to D2TCP (Mix#1 vs Mix#2: \"TCP's (i.e., set "
                        "A's) missed-deadline fraction is not hurt by background flows upgrading to D2TCP\")",
                        "no worse", pair("mix1", "mix2", "A"),
                        all(at[("mix2", n, "A")] <= at[("mix1", n, "A")] + tol for n in fans),
                        "within +1 point (our reading of 'not hurt')",
                        exercised=missed_in("mix1", "mix2", "A"), premise=premise("mix1", "mix2", "A"),
                        values=values("mix1", "mix2", "A")),
        condition_claim("set B is not hurt when background flows move to D2TCP (Mix#1 vs Mix#2: \"set B's) "
                        "missed-deadline fraction stays the same between Mix#1 and Mix#2\")", "the same",
                        pair("mix1", "mix2", "B"),
                        all(abs(at[("mix2", n, "B")] - at[("mix1", n, "B")]) <= tol for n in fans),
                        "within 1 point either way (our reading of 'stays the same')",
                        exercised=missed_in("mix1", "mix2", "B"), premise=premise("mix1", "mix2", "B"),
                        values=values("mix1", "mix2", "B")),
    ]
    return Outcome(claims=claims, tables={"figure16": table(missed)}, figure=fig,
                   notes="Background flows on; set A = applications 0-2, set B = applications 3-4. All-TCP: everything "
                         "on TCP; Mix#1: set B on D2TCP; Mix#2: set B and the background flows on D2TCP.")


# Table 2, All-TCP column: long-flow bandwidth by fan-in.
PAPER_TABLE2_ALL_TCP_MBPS = {15: 90.0, 20: 86.0}


def table2(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    _, long_bw = _coexistence(ctx, setting)
    at = {(r["mix"], r["fan_in"]): r["long_flow_mbps"] for r in long_bw}
    fans = sorted({r["fan_in"] for r in long_bw})
    fig = Plot("D2TCP Table 2: long flows when D2TCP and TCP coexist", [
        Panel("", "fan-in", "long-flow throughput (Mbps)", series=[
            Series("paper (all three)", {f"fan-in {n}": PAPER_TABLE2_ALL_TCP_MBPS[n] for n in fans
                                         if n in PAPER_TABLE2_ALL_TCP_MBPS}, kind=BAR, paper=True),
            *(Series(MIX_LABELS[m], {f"fan-in {n}": at[(m, n)] for n in fans}, kind=BAR, within=NON_NEGATIVE)
              for m in MIXES)])], panel_size=(7.0, 4.0))

    def kept(before: str, after: str, claim: str, why: str = "") -> Claim:
        """The paper prints the same long-flow bandwidth (90 and 86 Mbps) in all three runs, so the
        ratio of two runs is 1, at each fan-in."""
        levels = Text(lambda f: (why + "; " if why else "") + ", ".join(
            f"fan-in {k}: {f[f'{before} {k}']:.0f} -> {f[f'{after} {k}']:.0f} Mbps" for k in fans),
            {f"{m} {k}": at[(m, k)] for m in (before, after) for k in fans})
        return every(f"{claim}: {MIX_LABELS[after]} / {MIX_LABELS[before]} long-flow throughput (Table 2 prints equal "
                     "throughput in both, at each fan-in)", "1",
                     {n: ratio_claim("", 1.0, at[(after, n)] / at[(before, n)], tolerance=PRINTED, fmt="{:.3f}",
                                     within=NON_NEGATIVE) for n in fans}, why=levels)

    claims = [
        kept("all-tcp", "mix1", "\"Going from All-TCP to Mix#1, the throughput does not degrade\""),
        kept("mix1", "mix2", "\"D2TCP's long-flow throughput is similar to that of TCP\" (Mix#2 against Mix#1)",
             why="D2TCP's long flows react to marks at K = 20 packets while TCP's fill the buffer"),
    ]
    # The paper's absolute All-TCP figures; the quick run has only fan-in 20.
    claims += [ratio_claim(f"All-TCP long-flow throughput at fan-in {n} (Table 2)", paper, at[("all-tcp", n)],
                           " Mbps", tolerance=PRINTED, within=NON_NEGATIVE,
                           why="a 1 MB flow at that rate shares its bottleneck with about ten others for its whole "
                               "life; ours meet a lightly loaded parent link. In the d2tcp-load sensitivity run, at "
                               "95% load of a parent's downlink, TCP's long flows still get more than twice the "
                               "paper's rate")
               for n, paper in PAPER_TABLE2_ALL_TCP_MBPS.items() if ("all-tcp", n) in at]
    return Outcome(claims=claims, tables={"table2": table(long_bw)}, figure=fig,
                   notes="Mean throughput of completed 1 MB background flows in the runs of Figure 16.")


# --- Figure 17 and Table 3: tighter deadlines --------------------------------------------------


def figure17(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    tighter = [0.8 * d for d in BASE_DEADLINES_MS]
    result = _run(ctx, setting.sweep("tighter"), oldi_scenario(ctx, setting, deadlines_ms=tighter),
                  grid={FAN_IN: fan_ins(ctx), PROTOCOL: list(PROTOCOLS)})
    cells: Dict[Tuple[str, int], float] = sweep_means(result, "missed", (PROTOCOL, FAN_IN))
    rows = [{"protocol": p, "fan_in": n, "missed": v} for (p, n), v in sorted(cells.items())]
    fig = line_plot({LABELS[p]: {n: cells[(p, n)] for n in fan_ins(ctx)} for p in PROTOCOLS},
                    xlabel="fan-in degree", ylabel="missed deadlines (%)",
                    title="D2TCP Figure 17: deadlines 20% tighter")
    high = [n for n in fan_ins(ctx) if n >= 20]
    claims = [fewer_missed_claim("under 20% tighter deadlines D2TCP keeps its advantage over DCTCP and D3 (\"D2TCP "
                                 "maintains its advantage over DCTCP and D3 under the tighter deadlines\")", cells,
                                 high, why=setting.why, setting=f"deadlines 20% tighter, {setting.where}")]
    return Outcome(claims=claims, tables={"figure17": table(rows)}, figure=fig,
                   notes="Medium variance, base deadlines 16, 24, 28, 32 and 36 ms (20% tighter).")


# Table 3: how much tighter D2TCP's deadlines are than D3's at a similar missed fraction, by fan-in.
PAPER_TABLE3_TIGHTER_PCT = {10: 55.0, 15: 45.0, 20: 35.0}


def table3(ctx: Context, setting: Setting = PRINTED_SETTING) -> Outcome:
    scales = [1.0, 0.6, 0.3] if ctx.quick else [1.0, 0.8, 0.65, 0.5, 0.4, 0.3, 0.2]
    fans = [20] if ctx.quick else [10, 15, 20]
    result = _run(ctx, setting.sweep("tightness"), oldi_scenario(ctx, setting),
                  grid={FAN_IN: fans, PROTOCOL: ["d3", "d2tcp"]},
                  zips=[{"workload.0.deadlines": [[f"{s * d:g}ms" for d in BASE_DEADLINES_MS] for s in scales]}])
    by_scale: Dict[Tuple[str, int, float], float] = {}
    shares = sweep_means(result, "missed", (PROTOCOL, FAN_IN, "workload.0.deadlines"))
    for (p, n, deadlines), v in shares.items():
        scale = round(float(varied_value(deadlines)[0].rstrip("ms")) / BASE_DEADLINES_MS[0], 3)
        by_scale[(p, n, scale)] = v
    rows: List[Dict[str, Any]] = []
    for n in fans:
        for p in ("d3", "d2tcp"):
            ok = [s for s in scales if by_scale[(p, n, round(s, 3))] <= 0.05]
            rows.append({"fan_in": n, "protocol": p, "tightest_scale_at_5pct": min(ok) if ok else None})
    at = {(r["protocol"], r["fan_in"]): r["tightest_scale_at_5pct"] for r in rows}
    fig = Plot("D2TCP Table 3: missed deadlines against the deadlines' scale", [
        Panel("", "deadline scale (1 = base deadlines)", "missed deadlines (%)", invert_x=True,
              lines=[Line(5, "5% (the paper's target)", paper=False)], legend_size=7, series=[
                  Series(f"{LABELS[p]} fan-in {n}", {sc: 100 * by_scale[(p, n, round(sc, 3))] for sc in scales},
                         within=PERCENT) for p in ("d3", "d2tcp") for n in fans])], panel_size=(7.0, 4.0))
    claims = []
    for n in fans:
        d3, d2tcp = at[("d3", n)], at[("d2tcp", n)]
        # The scale found is the tightest only if a tighter one was tried and missed more than 5%.
        found = [p for p, x in (("d3", d3), ("d2tcp", d2tcp)) if x is not None and x > min(scales)]
        gain = 100 * (1 - d2tcp / d3) if d3 and d2tcp else 0.0
        # Facts: each scheme's tightest scale, or that none was found, in which direction.
        facts = {f"{p} {'scale' if x is not None else 'none'}": x if x is not None else 1.0
                 for p, x in (("d3", d3), ("d2tcp", d2tcp))}

        def not_found(f: Mapping[str, float], n: int = n) -> str:
            return f"at fan-in {n} the tightest deadline at 5% missed was not found: " + "; ".join(
                f"{LABELS[p]} missed " + (f"at most 5% down to the tightest scale tried, x{min(scales):g}"
                                          if f"{p} none" not in f else "more than 5% even at the base deadlines")
                for p in ("d3", "d2tcp") if f"{p} none" in f or f[f"{p} scale"] <= min(scales))

        claims.append(ratio_claim(
            f"for a similar fraction of missed deadlines (5%), D2TCP achieves deadlines tighter than D3's by "
            f"{PAPER_TABLE3_TIGHTER_PCT[n]:g}% at fan-in {n} (\"D2TCP achieves deadlines that are tighter by "
            "35-55%\", Table 3); ours 1 - D2TCP's tightest scale / D3's", PAPER_TABLE3_TIGHTER_PCT[n], gain, "%",
            tolerance=PRINTED, exercised=len(found) == 2, premise=Text(not_found, facts),
            why=Text(lambda f: "tightest scales: " + ", ".join(
                f"{LABELS[p]} x{f[f'{p} scale']:.2f}" if f"{p} scale" in f else f"{LABELS[p]} none"
                for p in ("d3", "d2tcp")), facts)))
    return Outcome(claims=claims, tables={"table3": table(rows)}, figure=fig,
                   notes=f"Base deadlines scaled by {', '.join(map(str, scales))}; the tightest scale at which each "
                         "scheme misses at most 5% of deadlines (medium variance).")


# Seeds of a full run: three, not the default five, because a full run of the 1000-host OLDI
# reproductions takes about three minutes per seed on two cores, and `incast reproduce all` is
# meant to stay under half an hour. Three is also the fewest an interval can come from (with two,
# Student's t has one degree of freedom and its interval is wider than most of our numbers).
SEEDS = 3

# Figures 9-17 and Tables 1-3: each runs under our reading of the paper and, as `d2tcp-ns3-*`,
# under the paper's own simulator.
FIGURES: Tuple[Tuple[str, str, Callable[..., Outcome]], ...] = (
    ("fig9", "Figure 9: missed deadlines, low variance", figure9),
    ("fig10", "Figure 10: missed deadlines, medium variance", figure10),
    ("fig11", "Figure 11: missed deadlines, high variance", figure11),
    ("fig12", "Figure 12: latency normalized to the deadline", figure12),
    ("table1", "Table 1: D3's priority inversions", table1),
    ("fig13", "Figure 13: bandwidth of background flows", figure13),
    ("fig14", "Figure 14: missed deadlines with background flows", figure14),
    ("fig15", "Figure 15: missed deadlines against the cap on d", figure15),
    ("fig16", "Figure 16: D2TCP and TCP coexisting", figure16),
    ("table2", "Table 2: long flows when D2TCP and TCP coexist", table2),
    ("fig17", "Figure 17: missed deadlines under 20% tighter deadlines", figure17),
    ("table3", "Table 3: deadline tightness at 5% missed, D3 against D2TCP", table3),
)

REPRODUCTIONS = (
    *(Reproduction(f"d2tcp-{name}", "D2TCP", title, build, seeds=SEEDS) for name, title, build in FIGURES),
)
"""Figures 9-17 and Tables 1-3 under the paper's printed settings."""
NS3_REPRODUCTIONS = (
    *(Reproduction(f"d2tcp-ns3-{name}", "D2TCP", f"{title}, under ns-3 of 2012",
                   functools.partial(build, setting=NS3_2012), seeds=SEEDS) for name, title, build in FIGURES),
)
"""The same under ns-3 of 2012's defaults."""
