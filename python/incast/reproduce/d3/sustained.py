"""Sustained load (not a figure of the D3 paper): RCPdc and D3 under ten seconds of Poisson
arrivals, as the paper prints them and with incast's repairs.

D3's benchmark traffic (Section 6.1.2) runs for seconds at loads well below the link; its Figure
15 and Table 1 find where D3 stops meeting deadlines, not where it stops delivering bytes. Both
schemes rest on the same router, and RCPdc is the paper's model of the best a fair-share protocol
can do ("it has been shown to be optimal in terms minimizing flow completion times [10]. Hence, it
represents the limit for any fair share protocol", Section 6.1). Processor sharing, which it
stands for, delivers any offered load below the link's capacity and drains every backlog. A short
window hides a port that does not: a backlog that grows by a few flows a second looks like noise
in 0.3 s and has taken the port over after ten.

32 senders answer host 0 of a 1 Gbps star (125 us links, the D3 testbed's 500 us RTT, 1000-packet
buffers, the `d3-testbed` stack) with Poisson arrivals of exponential sizes (mean 100 KB) for 10 s;
the run continues at most 1 s past the last arrival. RCPdc flows have no deadline; D3 flows have
exponential deadlines of mean 40 ms (the paper's lax setting) with the 3 ms floor of the other D3
reproductions, D3 without quenching (the paper's Sections 6.1.1-6.1.2) and with it (Section
6.1.3: a host gives up a flow whose deadline has passed or whose desired rate exceeds its
uplink; a quenched flow counts as ended, its bytes as undelivered). Each scheme runs as the
paper prints it (`[d3] variant = "paper"`) and with incast's repairs (`"repaired"`:
time slices, the carried remainder, reclaimed grants of dropped requests, requests paced to the
base rate; docs/scenario.md, `[d3]`). Load is the offered bytes over the link rate.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from incast.protocols import labels
from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.d3.settings import DEADLINE_FLOOR, STACK
from incast.reproduce.figures import Line, Panel, Plot, Series
from incast.reproduce.verdict import PERCENT, Estimate, bound_claim, every

LINK_BYTES_PER_S = 125e6
MEAN_SIZE = 100_000
SENDERS = 32
# (name, protocol, quench)
SCHEMES = (("rcpdc", "rcpdc", False), ("d3", "d3", False), ("d3-quench", "d3", True))
VARIANTS = ("paper", "repaired")
SCHEME_LABELS = labels([name for name, _, _ in SCHEMES], {"d3-quench": "D3 with quenching"})
LABELS = {(scheme, variant): SCHEME_LABELS[scheme] + (", repaired" if variant == "repaired" else "")
          for scheme, _, _ in SCHEMES for variant in VARIANTS}
SEEDS = (1, 2, 3)
RATE = "workload.0.rate"
PROTOCOL = "transport.protocol"
QUENCH = "d3.quench"
VARIANT = "d3.variant"
# A run keeps up when its flows' delivered bytes are at least this share of their offered bytes
# one second after the last arrival: under processor sharing at load 0.9 the backlog left at the
# end of the arrivals is about ten flows (0.9 / 0.1), 1 MB, drained well within that second.
KEPT_UP = 0.99


def loads(ctx: Context) -> List[float]:
    return [0.5, 0.8] if ctx.quick else [0.5, 0.6, 0.7, 0.8, 0.9]


def arrivals_s(ctx: Context) -> float:
    return 2.0 if ctx.quick else 10.0


def scenario(arrivals: float) -> Dict[str, Any]:
    return {
        "topology": {"kind": "star", "hosts": SENDERS + 1},
        "switch": {"buffer": "1000pkts"},
        "transport": {"stack": STACK, "protocol": "rcpdc"},
        "d3": {"variant": "paper"},
        "workload": [{
            "kind": "poisson", "rate": 1.0, "hosts": list(range(1, SENDERS + 1)), "destinations": [0],
            "size": {"dist": "exponential", "mean": f"{MEAN_SIZE}B"}, "stop": f"{arrivals:g}s",
            # Read by D3 flows only: RCPdc hosts know no deadline.
            "deadline": {"dist": "exponential", "mean": "40ms", "min": DEADLINE_FLOOR},
        }],
        # Ends with the last flow; the cap bounds a run whose port no longer drains.
        "run": {"duration": f"{arrivals + 1:g}s", "stop_after_finite_flows": True},
    }


def per_run(flows: Sequence[Mapping[str, Any]], arrivals: float) -> List[Dict[str, Any]]:
    """One row per run: its delivered share of the offered bytes, its flows finished (quenched ones
    apart), and the completions in each second of the arrivals."""
    runs: Dict[int, List[Mapping[str, Any]]] = {}
    for f in flows:
        runs.setdefault(f["point"], []).append(f)
    rows = []
    for _, fs in sorted(runs.items()):
        first = fs[0]
        seconds = int(math.ceil(arrivals))
        completions = [0] * (seconds + 1)
        for f in fs:
            if f["finish_s"] is not None:
                completions[min(int(f["finish_s"]), seconds)] += 1
        done = [f for f in fs if f["finish_s"] is not None]
        offered = sum(f["size_bytes"] for f in fs)
        scheme = next(name for name, protocol, quench in SCHEMES
                      if (protocol, quench) == (first[PROTOCOL], bool(first[QUENCH])))
        rows.append({
            "scheme": scheme, "variant": first[VARIANT], "seed": first["seed"],
            "load": round(first[RATE] * MEAN_SIZE / LINK_BYTES_PER_S, 3),
            "flows": len(fs), "finished": len(done), "quenched": sum(bool(f["quenched"]) for f in fs),
            "delivered_share": sum(f["delivered_bytes"] for f in fs) / offered,
            "mean_fct_ms": 1e3 * sum(f["finish_s"] - f["start_s"] for f in done) / len(done) if done else math.nan,
            "completions_per_s": completions,
        })
    return rows


def stalled_at(completions: Sequence[int], arrivals_per_s: float) -> float:
    """The first second in which fewer than half the flows that arrive in a second finished, or
    NaN if none: the port has stopped keeping up."""
    for second, n in enumerate(completions):
        if n < 0.5 * arrivals_per_s:
            return float(second)
    return math.nan


def d3_sustained(ctx: Context) -> Outcome:
    arrivals = arrivals_s(ctx)
    xs = loads(ctx)
    result = ctx.sweep(
        "d3-sustained", scenario(arrivals),
        grid={RATE: [x * LINK_BYTES_PER_S / MEAN_SIZE for x in xs], VARIANT: list(VARIANTS)},
        zips=[{PROTOCOL: [p for _, p, _ in SCHEMES], QUENCH: [q for _, _, q in SCHEMES]}], seeds=list(SEEDS))
    columns = ["point", "seed", RATE, PROTOCOL, QUENCH, VARIANT, "start_s", "finish_s", "size_bytes",
               "delivered_bytes", "quenched"]
    rows = per_run(result.flows().select(columns).to_pylist(), arrivals)
    cells: Dict[Tuple[str, str, float], List[Dict[str, Any]]] = {}
    for r in rows:
        r["stalled_at_s"] = stalled_at(r["completions_per_s"][:-1], r["load"] * LINK_BYTES_PER_S / MEAN_SIZE)
        cells.setdefault((r["scheme"], r["variant"], r["load"]), []).append(r)
    for runs_of_cell in cells.values():  # seed order, not the store's (which follows the build's cache keys)
        runs_of_cell.sort(key=lambda r: r["seed"])
    share = {k: Estimate.of([100 * r["delivered_share"] for r in v], PERCENT) for k, v in cells.items()}
    shown = 0.8 if 0.8 in xs else xs[-1]
    first = {k: next(r for r in v if r["seed"] == SEEDS[0]) for k, v in cells.items()}
    fig = Plot(f"Sustained load: {arrivals:g} s of Poisson arrivals into one 1 Gbps port", [
        Panel(f"Delivered within 1 s of the last arrival (mean of {len(SEEDS)} seeds, 95% CI)", "offered load",
              "offered bytes delivered (%)", ylim=(0, 105), legend_size=8,
              lines=[Line(100 * KEPT_UP, f"kept up ({100 * KEPT_UP:g}%)", paper=False)],
              series=[Series(label, {x: share[(key[0], key[1], x)] for x in xs}, within=PERCENT)
                      for key, label in LABELS.items()]),
        Panel(f"Completions over time at load {shown:g} (seed {SEEDS[0]}; the last point: after the arrivals)",
              "second of the run", "flows finished in that second", legend_size=8,
              lines=[Line(shown * LINK_BYTES_PER_S / MEAN_SIZE, "arrivals per second", paper=False)],
              series=[Series(label, dict(enumerate(first[(key[0], key[1], shown)]["completions_per_s"])))
                      for key, label in LABELS.items()]),
    ], panel_size=(6.0, 4.2))

    def stalls(scheme: str, variant: str) -> str:
        parts = []
        for x in xs:
            at = [r["stalled_at_s"] for r in cells[(scheme, variant, x)] if not math.isnan(r["stalled_at_s"])]
            if at:
                parts.append(f"at load {x:g} {len(at)} of {len(SEEDS)} seeds stopped keeping up (first second "
                             f"with fewer than half the arrivals finishing: " + ", ".join(f"{s:g} s" for s in at) + ")")
        return "; ".join(parts) or "no run stopped keeping up"

    def shares(scheme: str, variant: str) -> str:
        return ", ".join(f"{x:g}: {share[(scheme, variant, x)].mean:.1f}%" for x in xs)

    def judged(scheme: str, variant: str) -> Dict[object, Any]:
        return {f"{x:g}": bound_claim("", "", share[(scheme, variant, x)], at_least=100 * KEPT_UP, unit="%",
                                      fmt="{:.1f}") for x in xs}

    why_rcpdc = (
        "with the paper's router, fair shares (C - D)/N truncated to whole units of the 8-bit field waste up to "
        "a unit per flow (with 70 flows a share of 1.79 units is granted as 1): once a burst of arrivals has "
        "raised N past about 40, the port delivers less than is offered, the backlog grows, and past 125 flows "
        "every share truncates to the base rate and the port pauses every flow until the printed controller "
        "has raised C above N units (at most 250). By load: " + stalls("rcpdc", "paper")
        + ". With incast's repairs (the carried remainder, time slices) it keeps up: delivered "
        + shares("rcpdc", "repaired"))
    claims = [
        every("RCPdc \"represents the limit for any fair share protocol\" (Section 6.1): like processor sharing, "
              f"it delivers every offered load below the link's capacity; judged here as at least {100 * KEPT_UP:g}% "
              f"of the offered bytes delivered within 1 s of the last of {arrivals:g} s of arrivals, at every load",
              "processor sharing delivers every load below 1", judged("rcpdc", "paper"), why=why_rcpdc),
    ]
    # The means over the seeds (each share is estimated over them here).
    d3_note = (
        "D3 with deadlines (no claim of the paper covers it: its Table 1 and Figure 15 judge deadlines, d3-table1 "
        "and d3-fig15), the mean over the seeds of the offered bytes delivered: "
        + "; ".join(f"{LABELS[(scheme, variant)]} " + ", ".join(f"{x:g}: {share[(scheme, variant, x)].mean:.1f}%"
                                                               for x in xs)
                    for scheme in ("d3", "d3-quench") for variant in VARIANTS)
        + ". Without quenching, D3's late flows keep asking for their remaining bytes within the next RTT "
        "(docs/scenario.md, \"Late flows\"), so once a backlog has made flows late their demand holds the port "
        "above its capacity, as printed or repaired: the collapse the paper attributes to hosts that \"pursue "
        "intractable deadlines\" (Section 6.1.3). With quenching a late flow is given up (its bytes count as "
        "undelivered here) and the port keeps serving the others.")
    window = "" if arrivals == 10.0 else f" This run has {arrivals:g} s of arrivals, not 10 s."
    notes = (__doc__ or "").split("\n\n", 1)[1].strip() + window + "\n\n" + d3_note
    return Outcome(claims=claims, tables={"sustained": table(rows)}, figure=fig, notes=notes)


REPRODUCTIONS = (
    Reproduction("d3-sustained", "D3",
                 "Sustained load (not in the paper): RCPdc and D3 over seconds of Poisson arrivals",
                 d3_sustained, seeds=0, quick_seeds=0),
)
