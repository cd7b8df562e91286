"""The deadline-aware line on D2TCP's OLDI workload: TCP, DCTCP, D2TCP (SIGCOMM 2012), D3 (SIGCOMM
2011), PDQ (SIGCOMM 2012) and pFabric (SIGCOMM 2013) on the same 1000-host two-tier network and the
same messages, missed deadlines against fan-in. No paper ran all of them side by side.

The workload is D2TCP Figure 10's (Section 4.2.1; `incast.reproduce.d2tcp.oldi.oldi_scenario`): 25 racks
of 40 hosts, 1 Gbps links of 20 us, five applications of five trees, 2-18 KB messages with base
deadlines of 20-45 ms at medium variance, query arrivals at 15% of each parent's downlink, TCP's
minimum RTO 20 ms, D3's base rate one segment per RTT. The switches are the reproduction's
sensitivity panel, 100 KB per ToR port, where losses occur (under the paper's 4 MB shared buffers
no scheme misses a deadline: docs/results-d2tcp.md). TCP, DCTCP and D2TCP run the `d3-testbed`
stack as the reproductions do; D2TCP with its defaults; D3 as printed; PDQ with `[pdq]`'s defaults
on the same buffers.

pFabric owns its ports (docs/pfabric.md), sized for this network by its paper's rules as the demo
sizes it for its own: the round trip across the fabric is 8 links of 20 us plus a full packet's
serialization at each of 4 hops, about 210 us, so one bandwidth-delay product at 1 Gbps is 26 KB,
18 segments: an initial window of 18 capped 3 above (pFabric's 12 and 15), 2 BDPs of buffer per
port (52 KB) and a fixed RTO of 3 round trips (630 us). It is one more sweep, since `[pfabric]` is
an error beside other protocols.

Homa (SIGCOMM 2018, docs/homa.md) and NDP (SIGCOMM 2017, docs/ndp.md), the receiver-driven
successors, run beside them, each a sweep of its own (their sections and ports are their own).
Neither knows of deadlines: Homa grants by bytes left (SRPT), NDP pulls its senders in turn.
Homa runs its paper model, its RTTbytes computed from this network (`unscheduled_bytes = "auto"`,
26 KB, more than any message here, so every message goes unscheduled, in full, at the level of
its size) and its unscheduled levels from these messages' sizes, over the same 100 KB ToR ports
with 8 strict-priority classes (`priority_classes`, its paper's 8 levels). NDP runs its trimming
ports (8-packet data queues) with 1,500 B packets on the wire (`mtu = 1436B` under its 64 B
header, the size every other scheme here sends) and a first window of one bandwidth-delay
product, 18 packets (26 KB, as pFabric's), its paper's rule; its PULLs pace each receiver at its
link rate. The two-tier tree has one path between two hosts, so NDP sprays nothing.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from incast.protocols import labels

if TYPE_CHECKING:
    from incast.sweep import Sweep, SweepResult

PROTOCOLS = ("tcp", "dctcp", "d2tcp", "d3", "pdq", "pfabric", "homa", "ndp")
LABELS = labels(PROTOCOLS)
FAN_INS = (5, 10, 20, 30, 40)
# pFabric sized for the OLDI network (module docstring).
PFABRIC = {"initial_window": 18, "max_window": 21, "buffer": "52KB", "rto": "630us"}
# Homa's paper model on 8 priority classes, and NDP with 1,500 B packets and a BDP's first window
# (module docstring).
HOMA_CLASSES = 8
NDP = {"mtu": "1436B", "initial_window": 18}
OWN_SWEEPS = ("pfabric", "homa", "ndp")
"""The protocols that run a sweep of their own: their sections are errors or warnings beside the others'."""

PROTOCOL_KEY = "transport.protocol"
FAN_IN_KEY = "workload.0.fan_in"


def sweep_trees(seeds: int, fan_ins: Sequence[int] = FAN_INS,
                protocols: Sequence[str] = PROTOCOLS) -> List[Tuple[str, Dict[str, Any]]]:
    """The experiment as named sweeps (docs/sweeps.md): "shared" over the protocols that share a
    network's ports, and "pfabric", "homa" and "ndp" with their own sections. Each sweep's runs go
    in a directory of their own (a sweep's results are every file of its directory)."""
    from incast.reproduce.core import Context
    from incast.reproduce.d2tcp.oldi import PER_PORT_SWITCH, PRINTED_SETTING, oldi_scenario

    # The full-length run (the context's directories are not used by the scenario builder).
    base = oldi_scenario(Context(out=Path("."), runs=Path(".")), PRINTED_SETTING, sensitivity=True)
    base["switch"] = dict(PER_PORT_SWITCH)
    shared = [p for p in protocols if p not in OWN_SWEEPS]
    trees = []
    if shared:
        trees.append(("shared", {"scenario": base, "seeds": seeds,
                                 "vary": {"grid": {PROTOCOL_KEY: shared, FAN_IN_KEY: list(fan_ins)}}}))
    if "pfabric" in protocols:
        scenario = {k: v for k, v in base.items() if k != "d3"}
        scenario["transport"] = {**base["transport"], "protocol": "pfabric"}
        scenario["pfabric"] = dict(PFABRIC)
        trees.append(("pfabric", {"scenario": scenario, "seeds": seeds,
                                  "vary": {"grid": {PROTOCOL_KEY: ["pfabric"], FAN_IN_KEY: list(fan_ins)}}}))
    for own in ("homa", "ndp"):
        if own not in protocols:
            continue
        scenario = {k: v for k, v in base.items() if k != "d3"}
        scenario["transport"] = {**base["transport"], "protocol": own}
        if own == "homa":
            scenario["switch"] = {**base["switch"], "priority_classes": HOMA_CLASSES}
        else:
            scenario["switch"] = {k: v for k, v in base["switch"].items() if k != "ecn_threshold"}
            scenario["ndp"] = dict(NDP)
        trees.append((own, {"scenario": scenario, "seeds": seeds,
                            "vary": {"grid": {PROTOCOL_KEY: [own], FAN_IN_KEY: list(fan_ins)}}}))
    return trees


def sweeps(seeds: int, fan_ins: Sequence[int] = FAN_INS,
           protocols: Sequence[str] = PROTOCOLS) -> List[Tuple[str, "Sweep"]]:
    """`sweep_trees` as sweeps."""
    from incast.sweep import sweep_from_dict

    return [(name, sweep_from_dict(tree)) for name, tree in sweep_trees(seeds, fan_ins, protocols)]


def per_seed(results: Sequence["SweepResult"]) -> List[Dict[str, Any]]:
    """Missed deadlines (of the messages each run could judge) per protocol, fan-in and seed."""
    from incast.reproduce.d2tcp.messages import judged_of, mean_by

    rows: List[Dict[str, Any]] = []
    for result in results:
        by = [PROTOCOL_KEY, FAN_IN_KEY, "seed"]
        for (protocol, fan_in, seed), missed in mean_by(judged_of(result, [*by, "missed"]), "missed", by).items():
            rows.append({"protocol": protocol, "fan_in": fan_in, "seed": seed, "missed": missed})
    return sorted(rows, key=lambda r: (_rank(r["protocol"]), r["fan_in"], r["seed"]))


def _rank(protocol: str) -> int:
    return PROTOCOLS.index(protocol) if protocol in PROTOCOLS else len(PROTOCOLS)


def summarize(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Per protocol and fan-in: the mean over seeds of the missed share, and its range."""
    groups: Dict[Tuple[str, int], List[float]] = {}
    for r in rows:
        groups.setdefault((r["protocol"], r["fan_in"]), []).append(r["missed"])
    return [
        {"protocol": p, "fan_in": n, "seeds": len(v), "missed": math.fsum(v) / len(v), "missed_min": min(v),
         "missed_max": max(v)}
        for (p, n), v in sorted(groups.items(), key=lambda kv: (_rank(kv[0][0]), kv[0][1]))
    ]


def describe(seeds: int) -> str:
    """The heading printed above the table."""
    return (
        "D2TCP's OLDI workload (Figure 10: medium variance, 15% utilization) on its 1000-host two-tier network, "
        "100 KB per ToR port; pFabric on its own ports (52 KB, IW 18, RTO 630 us); Homa (paper model, 8 classes) "
        "and NDP (1,500 B packets, first window 18) with no deadline awareness; "
        f"{seeds} seed(s) per point. Missed deadlines, % of the messages each run can judge; mean over seeds."
    )


def format_rows(rows: Sequence[Dict[str, Any]]) -> str:
    """The summary as a text table: a row per protocol, a column per fan-in."""
    fans = sorted({r["fan_in"] for r in rows})
    index = {(r["protocol"], r["fan_in"]): r for r in rows}
    lines = [f"{'protocol':<9}" + "".join(f"{'fan-in ' + str(n):>12}" for n in fans)]
    def pct(cell: Optional[Dict[str, Any]]) -> str:
        return "-" if cell is None else f"{100 * cell['missed']:.2f}%"

    for protocol in dict.fromkeys(r["protocol"] for r in rows):
        lines.append(f"{protocol:<9}" + "".join(f"{pct(index.get((protocol, n))):>12}" for n in fans))
    return "\n".join(lines)


def plot(rows: Sequence[Dict[str, Any]], path: Path, fmt: Optional[str] = None) -> None:
    """Missed deadlines against fan-in, a line per protocol with the range over seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for protocol in dict.fromkeys(r["protocol"] for r in rows):
        mine = sorted((r for r in rows if r["protocol"] == protocol), key=lambda r: r["fan_in"])
        x = [r["fan_in"] for r in mine]
        y = [100 * r["missed"] for r in mine]
        err = [[100 * (r["missed"] - r["missed_min"]) for r in mine],
               [100 * (r["missed_max"] - r["missed"]) for r in mine]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=LABELS.get(protocol, protocol))
    ax.set(xlabel="fan-in", ylabel="missed deadlines (%)",
           title="D2TCP's OLDI workload, 100 KB per ToR port")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format=fmt)
    plt.close(fig)


def save(per_seed_rows: Sequence[Dict[str, Any]], rows: Sequence[Dict[str, Any]], out: Path) -> List[Path]:
    """Writes the per-seed table, the summary and the figure (PNG) into `out`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from incast.durable import staged_files

    written = [out / "missed-per-seed.parquet", out / "missed.parquet", out / "missed.png"]
    with staged_files() as stage:
        pq.write_table(pa.Table.from_pylist(list(per_seed_rows)), stage(written[0]))
        pq.write_table(pa.Table.from_pylist(list(rows)), stage(written[1]))
        plot(rows, stage(written[2]), "png")
    return written

