"""Where D2TCP beats DCTCP (not a figure of the paper): the difference in missed deadlines over
response size, deadline slack and fan-in, at 1 and 10 Gbps, with DCTCP's alpha starting at 0 and
at 1. The gamma correction can only act where a flow lives long enough to be cut more than once
and where flows with near and far deadlines share a bottleneck; this map shows, for one kind of
traffic, where that is.

The traffic, and why:

- An incast burst on one switch: `fan-in` senders each answer one aggregator with one response of
  a fixed size, at the same instant, in closed-loop rounds (the next one 1 ms after the last
  response of the previous one arrived), as D3 Section 6.1.1's flow bursts and D2TCP's OLDI
  trees. 1 Gbps links with 20 us latency (D2TCP Section 4.2.1) or 10 Gbps with 25 us (our
  `d2tcp-fig7` assumption); a 4 MB shared buffer (D2TCP's ToR) and DCTCP's K (20 packets at
  1 Gbps, 65 at 10 Gbps).
- The `linux` stack (IW 10, SACK, delayed ACKs with quick-ACK, min RTO 200 ms), the stack of the
  D2TCP testbed that `d2tcp-fig7` reproduces, and of the hosts a user of the map deploys on.
- Deadline slack s: each response's deadline is drawn uniformly from [s/2, 3s/2] times the burst's
  idle-network completion time T, so that near and far deadlines share the burst (with one
  deadline for all, D2TCP's d is the same for every flow and it cannot reorder them). T is the
  time the last response of a burst would arrive if the switch sent the responses one after the
  other at line rate: one response's completion time alone on the network (measured, with its
  handshake and slow start) plus the other responses' bytes on the wire at line rate. Below s = 1
  no scheduler can meet every deadline; at s = 1 an earliest-deadline-first scheduler meets most
  and fair sharing misses about half.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Tuple

from incast.reproduce.core import Context, Outcome, Reproduction, size_bytes, table, varied_value
from incast.reproduce.d2tcp.messages import judged_messages
from incast.reproduce.figures import Heatmap, Plot
from incast.reproduce.verdict import Claim, Text, bound_claim

if TYPE_CHECKING:
    import pyarrow as pa

RATES = ("1Gbps", "10Gbps")
LINK_DELAY = {"1Gbps": "20us", "10Gbps": "25us"}
ALPHA0 = (0.0, 1.0)
PROTOCOLS = ("dctcp", "d2tcp")
ROUND_GAP = "1ms"
FLOWS_PER_POINT = 160
"""Responses per point: rounds x fan-in at least this many."""
# Header bytes per byte of payload in full segments of the linux stack: IPv4 20, TCP 20 and 12 of
# timestamps on 1448 B (docs/scenario.md, "Bytes on the wire"; links carry no Ethernet framing).
WIRE_OVERHEAD = (20 + 20 + 12) / 1448

SIZE = "workload.0.size"
FAN_IN = "workload.0.senders"
RATE = "topology.link_rate"
ALPHA = "transport.dctcp_initial_alpha"
PROTOCOL = "transport.protocol"
DEADLINE = "workload.0.deadline"


def sizes(ctx: Context) -> List[str]:
    return ["2KB", "100KB", "1MB"] if ctx.quick else ["2KB", "10KB", "50KB", "200KB", "1MB"]


def slacks(ctx: Context) -> List[float]:
    return [0.5, 1.0, 2.0] if ctx.quick else [0.5, 0.75, 1.0, 1.25, 1.5, 2.0]


def fan_ins(ctx: Context) -> List[int]:
    return [8, 32] if ctx.quick else [8, 16, 32]


def burst_scenario(rate: str) -> Dict[str, Any]:
    """One incast burst per round on a star; the sweep sets the rest."""
    return {
        "topology": {"kind": "star", "hosts": 2, "link_rate": rate, "link_delay": LINK_DELAY[rate]},
        "switch": {"shared_buffer": "4MB", "ecn_threshold": "auto"},
        "transport": {"stack": "linux", "protocol": "dctcp"},
        "workload": [{"kind": "flow-burst", "aggregator": 0, "senders": 1, "size": "2KB", "rounds": 1,
                      "round_gap": ROUND_GAP}],
        "run": {"stop_after_finite_flows": True},
    }


def alone_s(ctx: Context) -> Dict[Tuple[str, str], float]:
    """Completion time of one response alone on the network, per (size, rate): the measured part
    of the idle-network completion time T."""
    times: Dict[Tuple[str, str], float] = {}
    for rate in RATES:
        result = ctx.sweep(f"d2tcp-map-alone-{rate}", burst_scenario(rate), grid={SIZE: sizes(ctx)})
        for f in result.flows().select([SIZE, "start_s", "finish_s"]).to_pylist():
            times[(f[SIZE], rate)] = f["finish_s"] - f["start_s"]
    return times


def idle_completion_s(alone: float, size: str, fan_in: int, rate: str) -> float:
    """T: one response's time alone plus the other responses' bytes on the wire at line rate."""
    bps = float(rate.removesuffix("Gbps")) * 1e9
    return alone + (fan_in - 1) * size_bytes(size) * (1 + WIRE_OVERHEAD) * 8 / bps


def _points(ctx: Context, alone: Dict[Tuple[str, str], float]) -> List[Dict[str, Any]]:
    """Every cell of the map, with its idle-network completion time T and its rounds."""
    return [{"rate": rate, "size": s, "fan_in": n, "slack": k, "rounds": math.ceil(FLOWS_PER_POINT / n),
             "t_idle_s": idle_completion_s(alone[(s, rate)], s, n, rate)}
            for rate in RATES for s in sizes(ctx) for n in fan_ins(ctx) for k in slacks(ctx)]


def _time(seconds: float) -> str:
    return f"{seconds * 1e9:.0f}ns"


def _deadline(point: Dict[str, Any]) -> Dict[str, str]:
    t = point["slack"] * point["t_idle_s"]
    return {"dist": "uniform", "min": _time(t / 2), "max": _time(t * 3 / 2)}


def _run(ctx: Context) -> Tuple["pa.Table", List[Dict[str, Any]]]:
    """Every cell under DCTCP and D2TCP from both initial alphas; the judged responses
    (`judged_messages`) carry the cell's index (`cell`) into `points`."""
    import pyarrow as pa

    points = _points(ctx, alone_s(ctx))
    result = ctx.sweep("d2tcp-map", burst_scenario(RATES[0]), grid={PROTOCOL: list(PROTOCOLS), ALPHA: list(ALPHA0)},
                       zips=[{
                           RATE: [p["rate"] for p in points],
                           "topology.link_delay": [LINK_DELAY[p["rate"]] for p in points],
                           SIZE: [p["size"] for p in points],
                           FAN_IN: [p["fan_in"] for p in points],
                           "topology.hosts": [p["fan_in"] + 1 for p in points],
                           "workload.0.rounds": [p["rounds"] for p in points],
                           DEADLINE: [_deadline(p) for p in points],
                       }])
    flows = result.flows()
    index = {(p["rate"], p["size"], p["fan_in"], json.dumps(_deadline(p), sort_keys=True)): i
             for i, p in enumerate(points)}
    keys = flows.select([RATE, SIZE, FAN_IN, DEADLINE]).to_pylist()
    cells = [index[(k[RATE], k[SIZE], k[FAN_IN], json.dumps(varied_value(k[DEADLINE]), sort_keys=True))] for k in keys]
    return judged_messages(flows.append_column("cell", pa.array(cells, pa.int64()))), points


# A cell can tell the schemes apart only if DCTCP misses some deadlines there but not all.
CONTESTED = (0.05, 0.95)


def d2tcp_map(ctx: Context) -> Outcome:
    flows, points = _run(ctx)
    grouped = flows.group_by(["cell", PROTOCOL, ALPHA]).aggregate([("missed", "mean"), ("missed", "count")])
    missed = {(r["cell"], r[PROTOCOL], r[ALPHA]): r["missed_mean"] for r in grouped.to_pylist()}
    rows: List[Dict[str, Any]] = []
    for i, p in enumerate(points):
        for a in ALPHA0:
            dctcp, d2tcp = missed[(i, "dctcp", a)], missed[(i, "d2tcp", a)]
            rows.append({"link_rate": p["rate"], "initial_alpha": a, "size": p["size"], "fan_in": p["fan_in"],
                         "slack": p["slack"], "t_idle_ms": 1e3 * p["t_idle_s"], "rounds": p["rounds"],
                         "dctcp_missed": dctcp, "d2tcp_missed": d2tcp, "difference": d2tcp - dctcp})
    cell = {(r["link_rate"], r["initial_alpha"], r["size"], r["fan_in"], r["slack"]): r for r in rows}

    panels = [(rate, a) for rate in RATES for a in ALPHA0]
    fans = fan_ins(ctx)
    fig = Plot("Where D2TCP beats DCTCP: D2TCP - DCTCP missed deadlines (points); blue, D2TCP misses fewer; "
               "red, more", [
        Heatmap(f"{rate}, alpha0 = {a:g}, fan-in {n}", "response size", "deadline slack", columns=sizes(ctx),
                rows=[f"{k:g}" for k in slacks(ctx)], limit=25, colorbar="points" if col == len(fans) - 1 else "",
                cells={(f"{k:g}", sz): 100 * cell[(rate, a, sz, n, k)]["difference"] for k in slacks(ctx)
                       for sz in sizes(ctx)})
        for rate, a in panels for col, n in enumerate(fans)], columns=len(fans), panel_size=(4.4, 3.4))

    contested = [r for r in rows if CONTESTED[0] <= r["dctcp_missed"] <= CONTESTED[1]]
    mean_gain = 100 * sum(r["difference"] for r in contested) / len(contested) if contested else 0.0
    # Every cell's difference, so that the words can name the worst cells of the means over seeds.
    facts = {f"{r['link_rate']} alpha0 {r['initial_alpha']:g} {r['size']} x{r['fan_in']} slack {r['slack']:g}":
             100 * r["difference"] for r in rows}
    facts["contested"] = float(len(contested))

    def why(f: Mapping[str, float]) -> str:
        worst = sorted((k for k in f if k != "contested"), key=lambda k: -f[k])[:3]
        return (f"{f['contested']:.0f} of {len(rows)} cells contested (DCTCP misses {100 * CONTESTED[0]:.0f}-"
                f"{100 * CONTESTED[1]:.0f}%; elsewhere every scheme misses all or none). Largest against D2TCP: "
                + ", ".join(f"{k}: {f[k]:+.0f}" for k in worst)
                + ". Where responses fit in one or two windows D2TCP has no cut to make different, and where "
                  "deadlines are loose or impossible no scheme changes the outcome; the gain sits in a narrow band "
                  "of slack")

    claims: List[Claim] = [bound_claim(
        "D2TCP misses fewer deadlines than DCTCP (Sections 4.1.3 and 4.2: at every fan-in of Figures 7 and 9-11); "
        f"ours the mean of D2TCP's missed share minus DCTCP's over the cells where DCTCP misses "
        f"{100 * CONTESTED[0]:.0f}-{100 * CONTESTED[1]:.0f}%",
        "D2TCP fewer", mean_gain, at_most=0, unit=" points", fmt="{:.2f}", exercised=bool(contested),
        premise="DCTCP missed all deadlines or none in every cell", why=Text(why, facts))]
    notes = ("Not a figure of the paper: D2TCP's missed deadlines minus DCTCP's, in points, per response size, "
             "deadline slack (each deadline uniform in [s/2, 3s/2] x T, T the burst's idle-network completion "
             f"time), fan-in, link rate and DCTCP's initial alpha; at least {FLOWS_PER_POINT} responses per cell. "
             "The module docstring of `incast.reproduce.d2tcp.advantage` gives the setting and its sources.")
    return Outcome(claims=claims, tables={"map": table(rows)}, figure=fig, notes=notes)


REPRODUCTIONS = (
    Reproduction("d2tcp-map", "D2TCP",
                 "map (not in the paper): where D2TCP beats DCTCP, by size, slack, fan-in, rate, alpha0", d2tcp_map),
)
