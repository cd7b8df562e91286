"""NDP's incast (Handley et al., SIGCOMM 2017, Figure 16, as htsim's `sim/EXAMPLES/incast_shortflows`
reproduces it): N hosts of a 10 Gbps fat tree each send 450 KB (50 packets of 9000 B) to one
receiver, all at the same instant, "the worst-case example for an incast"; the completion time
of the last flow against N, NDP against DCTCP and TCP (settings: `incast.reproduce.ndp.settings`).

The paper's text and figure values could not be read here (docs/ndp.md). The claims are its
abstract's (the Cambridge repository's copy, www.repository.cam.ac.uk/handle/1810/279206) and
the authors' own words in the READMEs and plot scripts of the htsim examples that reproduce the
paper's incast figures (Broadcom/csg-htsim @841d9e7), each quoted with its file:

- the ideal ("optimal") completion time of an incast is the authors' own formula
  (`sim/EXAMPLES/incast_scaling/incast_sensitivity.plot`, the paper's Figure 20a): N times a
  flow's bytes on the wire (its packets with their 64 B headers) at the link rate, plus one
  unloaded trip across the network; here the trip is the nearest sender's, from incast's own
  ideal of a flow alone (`ideal_fct_s`, minus its bytes at the link rate);
- the full run sweeps N from 1 to 431 (every other host of 432) as the example's `run.sh` does,
  at fewer points; the quick one N from 1 to 127 on a 128-host tree.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple

from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.figures import LINE, Panel, Plot, Series
from incast.reproduce.ndp import settings
from incast.reproduce.ndp.settings import LABELS, PROTOCOLS
from incast.reproduce.verdict import (
    NON_NEGATIVE,
    ROUGH,
    Claim,
    Text,
    Tolerance,
    condition_claim,
    every,
    order_claim,
    ratio_claim,
)

SIZE = "450KB"
SIZE_BYTES = 450_000
PACKETS = SIZE_BYTES // settings.MTU
WIRE_BYTES = PACKETS * (settings.MTU + 64)
"""A flow's bytes on the wire: 50 packets of 9000 B payload and a 64 B header (htsim's 450 KB
flow, `incast_shortflows`; the authors' formula counts 271920 B for 30 packets)."""
SENDER_COUNTS = (1, 10, 25, 50, 100, 150, 200, 300, 431)
QUICK_SENDER_COUNTS = (1, 16, 64, 127)
SENDERS_KEY = "workload.0.senders"
RECEIVER = 0
LONG_RUN = "20s"
"""The horizon: TCP and DCTCP flows of the largest incasts back their RTO off several times."""

ABSTRACT = ("NDP's abstract: \"NDP, a novel data-center transport architecture that achieves near-optimal "
            "completion times for short transfers and high flow throughput in a wide range of scenarios, including "
            "incast\"")
GRACEFUL = ("NDP's abstract: \"transport protocols rarely deliver matching performance\" and NDP \"can deal "
            "gracefully with massive incast events\"")
MIN_MAX = ("htsim's incast_shortflows/README.md (the paper's Figure 16): \"We only graph the min and max completion "
           "times for each incast, as the two are so close\"")
NEAR = Tolerance(1.05, "'near-optimal' gives no number; the authors plot NDP's incast overhead above their optimal on "
                       "an axis that ends at 5% (htsim sim/EXAMPLES/incast_scaling/incast_sensitivity.plot, `set "
                       "yrange [-0.5:5]`, the paper's Figure 20a), so their own curve stays within 5% of it")


def _workload(k: int, seed: int, counts: Sequence[int]) -> Dict[str, Any]:
    return {"kind": "flow-burst", "aggregator": RECEIVER,
            "worker_hosts": settings.shuffled_senders(settings.hosts(k), RECEIVER, seed)[:max(counts)],
            "senders": 1, "size": SIZE, "rounds": 1}


def _points(ctx: Context) -> Tuple[List[Dict[str, Any]], List[int], int]:
    """One row per (protocol, senders) of this seed: the first and last flow's completion time,
    the ideal, timeouts, drops, and full packets sent again (for NDP, one per packet trimmed and
    NACKed)."""
    k = settings.QUICK_K if ctx.quick else settings.K
    counts = list(QUICK_SENDER_COUNTS if ctx.quick else SENDER_COUNTS)
    seed = ctx.seed if ctx.seed is not None else 1
    flows, summary = settings.sweep_protocols(ctx, "ndp-incast", k, _workload(k, seed, counts),
                                              {"horizon": LONG_RUN},
                                              ["start_s", "finish_s", "ideal_fct_s", "timeouts", "retransmitted_bytes"],
                                              grid={SENDERS_KEY: counts})
    grouped: Dict[Tuple[str, int], List[Mapping[str, Any]]] = {}
    for f in flows:
        grouped.setdefault((f["protocol"], f[SENDERS_KEY]), []).append(f)
    rows = []
    for p in PROTOCOLS:
        for n in counts:
            fs = grouped[(p, n)]
            done = [f["finish_s"] - f["start_s"] for f in fs if f["finish_s"] is not None]
            ndp_ideal = min(f["ideal_fct_s"] for f in grouped[("ndp", n)])
            trip = ndp_ideal - WIRE_BYTES * 8 / settings.LINK_BPS
            ideal = n * WIRE_BYTES * 8 / settings.LINK_BPS + trip
            s = summary[(p, n)]
            rows.append({
                "protocol": p, "senders": n, "flows": len(fs), "unfinished": len(fs) - len(done),
                "first_ms": 1e3 * min(done) if done else None, "last_ms": 1e3 * max(done) if done else None,
                "ideal_ms": 1e3 * ideal, "paper_ideal_ms": 1e3 * settings.ideal_incast_s(n, SIZE_BYTES),
                "last_over_ideal": max(done) / ideal if len(done) == len(fs) else None,
                "timeouts": sum(f["timeouts"] for f in fs),
                "flows_with_timeouts": sum(1 for f in fs if f["timeouts"]),
                "packets_dropped": s["packets_dropped"],
                "packets_resent": sum(f["retransmitted_bytes"] for f in fs) / settings.MTU,
            })
    return rows, counts, k


def _took(name: str) -> Callable[[Mapping[str, float]], str]:
    def write(f: Mapping[str, float]) -> str:
        return f"NDP's last flow took {f['ndp']:.1f} ms and {name}'s {f['other']:.1f} ms"
    return write


def _row(rows: Sequence[Mapping[str, Any]], p: str, n: int) -> Mapping[str, Any]:
    return next(r for r in rows if r["protocol"] == p and r["senders"] == n)


def incast(ctx: Context) -> Outcome:
    rows, counts, k = _points(ctx)
    most = max(counts)
    contended = [n for n in counts if n >= 2]
    last = {(p, n): _row(rows, p, n)["last_ms"] for p in PROTOCOLS for n in counts}
    panels = [
        Panel("completion time of the last flow", "senders (N)", "completion time (ms)", yscale="log", series=[
            *(Series(LABELS[p], {n: v for n in counts if (v := last[(p, n)]) is not None}, within=NON_NEGATIVE)
              for p in PROTOCOLS),
            Series("ideal", {n: _row(rows, "ndp", n)["ideal_ms"] for n in counts}, kind=LINE, within=NON_NEGATIVE)]),
        Panel("last flow over the ideal", "senders (N)", "completion time / ideal", yscale="log", series=[
            Series(LABELS[p], {n: v for n in counts if (v := _row(rows, p, n)["last_over_ideal"]) is not None},
                   within=NON_NEGATIVE) for p in PROTOCOLS]),
    ]
    fig = Plot(f"NDP: incast of N x {SIZE} on a k = {k} fat tree", panels, panel_size=(6.0, 4.2))

    claims: List[Claim] = []
    parts: Dict[object, Claim] = {}
    for n in counts:
        r = _row(rows, "ndp", n)
        ratio = r["last_over_ideal"]
        parts[f"N = {n}"] = ratio_claim(
            "", 1.0, ratio if ratio is not None else 0.0, tolerance=NEAR, within=NON_NEGATIVE, fmt="{:.3f}",
            exercised=ratio is not None, premise="an NDP flow did not finish within the run")
    worst = max((_row(rows, "ndp", n)["last_over_ideal"] or 0.0) for n in counts)
    claims.append(every(
        f"NDP's last flow of an incast finishes near the optimal, N x a flow's bytes on the wire at the link rate "
        f"plus one trip across the network, at every N from 1 to {most} ({ABSTRACT})", "1 (the optimal)", parts,
        why=Text(lambda f: f"NDP's last flow is up to {100 * (f['worst'] - 1):.1f}% past the optimal: headers of "
                           "trimmed packets and the resends they call for share the receiver's link",
                 {"worst": worst})))

    # The first and last flow finish close together: the pacer serves the senders in turn.
    spread: Dict[object, Claim] = {}
    for n in contended:
        r = _row(rows, "ndp", n)
        value = r["last_ms"] / r["first_ms"] if r["first_ms"] and r["unfinished"] == 0 else None
        spread[f"N = {n}"] = ratio_claim(
            "", 1.0, value if value is not None else 0.0, tolerance=ROUGH, within=NON_NEGATIVE, fmt="{:.2f}",
            exercised=value is not None, premise="an NDP flow did not finish within the run",
            why="the PULL pacer serves the first flows to arrive well before the last ones")
    claims.append(every(f"NDP's first and last flows of an incast finish close together, at every N from "
                        f"{min(contended)} ({MIN_MAX}; last / first, 'so close' read as a rough magnitude)",
                        "last / first near 1", spread))

    # Against DCTCP and TCP at the largest incast.
    values = {LABELS[p]: last[(p, most)] if last[(p, most)] is not None else math.inf for p in PROTOCOLS}
    finite = all(math.isfinite(v) for v in values.values())
    for other in ("dctcp", "tcp"):
        claims.append(order_claim(
            f"NDP's last flow finishes before {LABELS[other]}'s in the largest incast, N = {most} ({GRACEFUL})",
            "NDP below", {LABELS["ndp"]: values[LABELS["ndp"]], LABELS[other]: values[LABELS[other]]},
            [LABELS["ndp"], LABELS[other]], fmt="{:.1f}", within=NON_NEGATIVE, exercised=finite,
            premise="a flow did not finish within the run",
            why=Text(_took(LABELS[other]), {"ndp": values[LABELS["ndp"]], "other": values[LABELS[other]]})
            if finite else ""))
    timed_out = {p: _row(rows, p, most)["flows_with_timeouts"] for p in PROTOCOLS}
    holds = timed_out["ndp"] == 0 and timed_out["dctcp"] > 0 and timed_out["tcp"] > 0
    claims.append(condition_claim(
        f"In the largest incast, N = {most}, TCP and DCTCP flows suffer retransmission timeouts and NDP's none: "
        "losses NDP's trimming turns into NACKs cost the others a timeout (the mechanism behind NDP's claim, issue "
        "40's wording)", "timeouts: TCP, DCTCP > 0; NDP 0",
        Text(lambda f: f"flows with a timeout: NDP {f['ndp']:.3g}, DCTCP {f['dctcp']:.3g}, TCP {f['tcp']:.3g} of "
                       f"{f['n']:.0f}", {**{p: float(v) for p, v in timed_out.items()}, "n": float(most)}),
        holds, "flows with a retransmission timeout: none for NDP, some for DCTCP and for TCP",
        values={f"{LABELS[p]} flows with a timeout": float(v) for p, v in timed_out.items()},
        why=Text(lambda f: (f"NDP's flows time out too ({f['ndp']:.3g} of {f['n']:.0f}): {f['n']:.0f} first windows "
                            f"of 23 packets reach the receiver's port at once, its header queue (2,250 headers) "
                            f"overflows, and {f['ndp_drops']:.0f} packets were lost outright (with return-to-sender "
                            "on, a header that meets a full header queue on its way back; off, every header the "
                            "queue has no room for; docs/ndp.md, 'Return to sender'); incast resends each after "
                            "its own 10 ms timeout, while the pacer still has the other flows' PULLs to send, so "
                            f"NDP's last flow still ends {100 * (f['ndp_last'] - 1):.1f}% past the optimal. "
                            f"DCTCP's and TCP's timeouts ({f['dctcp']:.3g} and {f['tcp']:.3g} flows) each cost "
                            "250 ms or more"),
                 {**{p: float(v) for p, v in timed_out.items()}, "n": float(most),
                  "ndp_drops": float(_row(rows, "ndp", most)["packets_dropped"]),
                  "ndp_last": float(_row(rows, "ndp", most)["last_over_ideal"] or 0.0)})))

    notes = (f"N senders, drawn at random from the other hosts of a k = {k} fat tree ({settings.hosts(k)} hosts, "
             f"10 Gbps, 1 us links), each send {SIZE} ({PACKETS} packets of 9000 B) to host {RECEIVER} at the same "
             "instant; one burst per point. NDP runs `[ndp]`'s defaults (the htsim examples' 8-packet queues "
             "and first window of 23, return-to-sender on: a header the receiver's port has no room for goes back "
             "to its sender), each flow spraying its packets over its paths in a new random order every "
             "cycle (`load_balancing = \"spray-permute\"`, htsim's `-strat perm`); DCTCP and TCP take one ECMP "
             "path per flow with 100-packet queues, DCTCP marking above 15 packets, 9000 B segments and a 250 ms "
             "minimum RTO (htsim's; settings module). The "
             "ideal is the authors' optimal: N x 453.2 KB on the wire at 10 Gbps plus the nearest sender's unloaded "
             "trip. The full run is the example's 432-host tree with N up to 431; the quick run a 128-host tree.")
    return Outcome(claims=claims, tables={"incast": table(rows)}, figure=fig, notes=notes)


REPRODUCTIONS = (
    Reproduction("ndp-incast", "NDP", "Figure 16: incast completion time against the number of senders, NDP against "
                 "DCTCP and TCP", incast),
)
