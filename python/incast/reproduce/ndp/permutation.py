"""NDP's permutation (Handley et al., SIGCOMM 2017, Figure 14, as htsim's `sim/EXAMPLES/permutation`
reproduces it): every host of a 10 Gbps fat tree sends to one other, a random permutation, all at
once and without end; each flow's throughput, ranked, NDP against DCTCP and TCP (settings:
`incast.reproduce.ndp.settings`). htsim reads each flow's rate at 0.2 s; incast runs shorter
(below) and takes each flow's delivered payload over the whole run, its start included (NDP sends
its first window at line rate at once; a TCP flow's slow start from ten 9000 B segments takes a
few round trips of tens of microseconds).

The claims are the authors': the permutation example's README (Broadcom/csg-htsim @841d9e7,
`sim/EXAMPLES/permutation/README.md`, "essentially the NDP curve from Figure 14") and the abstract
of the paper as submitted, which its project published (SSICLOPS, ssiclops.eu/sigcomm-2017-best-
paper-award), whose sentence on throughput the final abstract shortened to "high flow
throughput". MPTCP, which the example also runs, is not in incast: TCP stands beside DCTCP.

Size: the example's 432 hosts (k = 12) in the full run, for 20 ms of simulated time; 128 hosts
(k = 8) for 5 ms in the quick run.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple

from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.figures import BAR, Line, Panel, Plot, Series
from incast.reproduce.ndp import settings
from incast.reproduce.ndp.settings import LABELS, PROTOCOLS
from incast.reproduce.verdict import (
    NON_NEGATIVE,
    PERCENT,
    ROUGH,
    Claim,
    Text,
    bound_claim,
    order_claim,
    ratio_claim,
)

DURATION_MS, QUICK_DURATION_MS = 20.0, 5.0
"""Simulated time: htsim reads its rates at 200 ms; 20 ms of 432 hosts at 10 Gbps is 1.2 million
packets per protocol and seed, about half a minute each on the development machine."""
RANKS = 16
"""Points of the ranked-throughput curve drawn (equal steps of rank), so that every seed's curve
has the same x values."""

SUBMITTED = ("NDP's abstract as submitted (SSICLOPS): \"for large transfers in heavily loaded Clos topologies, it "
             "can achieve more than 95% of the available network capacity\"")
README = ("htsim's permutation/README.md (the paper's Figure 14): \"the network can be run at nearly 100% "
          "utilization without significant unfairness\"")
POORLY = ("htsim's permutation/README.md: \"DCTCP performs poorly on the permutation traffic matrix in a FatTree "
          "topology, because it only uses a single path for each flow, routed using a random path using ECMP, and "
          "suffers from flow collisions as a result\"")


def _rates(ctx: Context) -> Tuple[Dict[str, List[float]], Dict[str, List[float]], int, float]:
    """Each protocol's per-flow throughput in Gbps, ascending, and beside each (in the same
    order) the share of its full packets that were sent again (for NDP: trimmed and NACKed)."""
    k = settings.QUICK_K if ctx.quick else settings.K
    duration = QUICK_DURATION_MS if ctx.quick else DURATION_MS
    seed = ctx.seed if ctx.seed is not None else 1
    partner = settings.derangement(settings.hosts(k), seed, "ndp-permutation")
    workload = {"kind": "long-flows", "pairs": [[s, d] for s, d in enumerate(partner)]}
    flows, _ = settings.sweep_protocols(ctx, "ndp-permutation", k, workload, {"duration": f"{duration:g}ms"},
                                        ["delivered_bytes", "retransmitted_bytes", "timeouts"])
    pairs: Dict[str, List[Tuple[float, float]]] = {p: [] for p in PROTOCOLS}
    for f in flows:
        sent = f["delivered_bytes"] + f["retransmitted_bytes"]
        pairs[f["protocol"]].append((f["delivered_bytes"] * 8 / (duration * 1e-3) / 1e9,
                                     f["retransmitted_bytes"] / sent if sent else 0.0))
    rates = {p: [r for r, _ in sorted(pairs[p])] for p in PROTOCOLS}
    resent = {p: [x for _, x in sorted(pairs[p])] for p in PROTOCOLS}
    timeouts = {p: float(sum(f["timeouts"] for f in flows if f["protocol"] == p)) for p in PROTOCOLS}
    resent["timeouts"] = [timeouts[p] for p in PROTOCOLS]
    return rates, resent, k, duration


def _utilization(rates: Sequence[float]) -> float:
    """Mean throughput as a share of the 10 Gbps links, in percent."""
    return 100 * math.fsum(rates) / len(rates) / (settings.LINK_BPS / 1e9)


def _ranked(rates: Sequence[float]) -> Dict[float, float]:
    """The ranked curve at RANKS + 1 equal steps of rank (0 = the slowest flow, 100 = the fastest),
    in percent of the flows."""
    n = len(rates)
    return {100 * i / RANKS: rates[min(n - 1, round(i * (n - 1) / RANKS))] for i in range(RANKS + 1)}


def _averages(name: str) -> Callable[[Mapping[str, float]], str]:
    def write(f: Mapping[str, float]) -> str:
        return f"{name} averages {f['o']:.1f}% of 10 Gbps and NDP {f['ndp']:.1f}%"
    return write


def permutation(ctx: Context) -> Outcome:
    rates, resent, k, duration = _rates(ctx)
    timeouts = dict(zip(PROTOCOLS, resent.pop("timeouts")))
    n = settings.hosts(k)
    util = {p: _utilization(rates[p]) for p in PROTOCOLS}
    payload = 100 * settings.wire_share()
    rows: List[Dict[str, Any]] = [{"protocol": p, "rank": i, "throughput_gbps": r}
                                  for p in PROTOCOLS for i, r in enumerate(rates[p])]
    stats = [{"protocol": p, "utilization_pct": util[p], "min_gbps": rates[p][0],
              "median_gbps": rates[p][len(rates[p]) // 2], "max_gbps": rates[p][-1],
              "flows_below_half": sum(1 for r in rates[p] if r < 5.0),
              "slowest_resent_pct": 100 * resent[p][0], "timeouts": timeouts[p]} for p in PROTOCOLS]
    fig = Plot(f"NDP: permutation on a k = {k} fat tree ({n} hosts)", [
        Panel("throughput of each flow, ranked", "flow rank (% of flows, slowest first)", "throughput (Gbps)",
              ylim=(0, 10.5), lines=[Line(10.0 * settings.wire_share(), "payload share of 10 Gbps", paper=False)],
              series=[Series(LABELS[p], _ranked(rates[p]), within=(0.0, 10.0)) for p in PROTOCOLS]),
        Panel("utilization", "protocol", "mean throughput (% of 10 Gbps)", ylim=(0, 101),
              lines=[Line(95.0, "95% (submitted abstract)")],
              series=[Series("utilization", {LABELS[p]: util[p] for p in PROTOCOLS}, kind=BAR, within=PERCENT)]),
    ], panel_size=(6.0, 4.2))

    claims: List[Claim] = []
    claims.append(bound_claim(
        f"NDP achieves more than 95% of the network's capacity under a permutation ({SUBMITTED}; mean throughput "
        "per host over 10 Gbps)", "> 95%", util["ndp"], at_least=95.0, unit="%", within=PERCENT, fmt="{:.1f}",
        why=Text(lambda f: (
            f"NDP's flows average {f['u']:.1f}% of 10 Gbps, of at most {f['p']:.1f}% that 9000 B of payload in "
            f"9064 B packets leave; {f['resent']:.1f}% of their packets were trimmed and sent again, each a slot of "
            "its receiver's link that a header took instead: the flows spray over a new random order of their "
            "paths every cycle, as htsim's do, and meet now and then at a port whose queue of 8 overflows. htsim "
            "does the same: given seed 1's permutation as 9 MB flows (841d9e7, `htsim_ndp -nodes 432 -cwnd 23 -q 8 "
            "-strat perm -linkspeed 10000 -mtu 9000`) it finished them in 7.905 ms on average, 91.1% of 10 Gbps, "
            "and incast on the same flows in 7.885 ms. With `load_balancing = \"spray\"`, fixed round-robin "
            "orders, incast's mean was 95.4% here, most flows never meeting and a few starved"),
            {"u": util["ndp"], "p": payload, "resent": 100 * math.fsum(resent["ndp"]) / n})))
    fairness = rates["ndp"][0] / (math.fsum(rates["ndp"]) / n)
    claims.append(ratio_claim(
        f"NDP's slowest flow gets about the mean throughput, 'without significant unfairness' ({README}; the slowest "
        "flow over the mean, read as a rough magnitude)", 1.0, fairness, tolerance=ROUGH, within=NON_NEGATIVE,
        fmt="{:.3f}", why=Text(lambda f: (
            f"NDP's slowest flow gets {f['slowest']:.2f} Gbps against a mean of {f['mean']:.2f}, and "
            f"{f['below']:.3g} of its {f['n']:.0f} flows get under 5 Gbps. They do not time out (NDP timeouts over "
            f"the run: {f['timeouts']:.3g}); {f['resent']:.0f}% of the slowest flow's packets were trimmed and sent "
            "again. htsim (841d9e7, `htsim_ndp -nodes 432 -cwnd 23 -q 8 -strat perm -linkspeed 10000 -mtu 9000`), "
            "given seed 1's permutation as 9 MB flows, finished every flow within 1.11x of its fastest, and so did "
            "incast (1.107x); with `load_balancing = \"spray\"`, fixed round-robin orders that kept some flows "
            "meeting cycle after cycle, incast's slowest took 1.68x and the slowest flow here got 0.368 of the "
            "mean"),
            {"slowest": rates["ndp"][0], "mean": math.fsum(rates["ndp"]) / n, "n": float(n),
             "below": float(sum(1 for r in rates["ndp"] if r < 5.0)), "timeouts": timeouts["ndp"],
             "resent": 100 * resent["ndp"][0]})))
    for other in ("dctcp", "tcp"):
        claims.append(order_claim(
            f"{LABELS[other]}, on one ECMP path per flow, uses less of the network than NDP ({POORLY})",
            f"{LABELS[other]} below NDP", {LABELS[other]: util[other], LABELS["ndp"]: util["ndp"]},
            [LABELS[other], LABELS["ndp"]], fmt="{:.1f}", within=PERCENT,
            why=Text(_averages(LABELS[other]), {"o": util[other], "ndp": util["ndp"]})))
    notes = (f"Every host of a k = {k} fat tree ({n} hosts, 10 Gbps, 1 us links) sends to one other host, a random "
             f"permutation drawn afresh for each seed, for {duration:g} ms; each flow's throughput is its delivered "
             "payload over the run. NDP runs `[ndp]`'s defaults, each flow spraying its packets over its paths in a "
             "new random order every cycle (`load_balancing = \"spray-permute\"`, htsim's `-strat perm`); DCTCP and "
             "TCP take one ECMP path per flow with 100-packet queues (DCTCP marking above 15), 9000 B segments and a "
             "250 ms minimum RTO (the settings module). The full run is the example's 432 hosts for 20 ms (htsim "
             "reads its rates at 200 ms); the quick run 128 hosts for 5 ms. MPTCP, the example's third protocol, is "
             "not in incast.")
    return Outcome(claims=claims, tables={"throughput": table(rows), "utilization": table(stats)}, figure=fig,
                   notes=notes)


REPRODUCTIONS = (
    Reproduction("ndp-permutation", "NDP", "Figure 14: throughput of each flow under a permutation, NDP against DCTCP "
                 "and TCP", permutation),
)
