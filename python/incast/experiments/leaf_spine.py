"""The field's standard experiment, as pFabric (Alizadeh et al., SIGCOMM 2013, Section 5) and most
datacenter transport papers since run it: Poisson arrivals between random hosts of a 144-host
leaf-spine (9 racks of 16 hosts, 4 spines, 10 Gbps hosts, 40 Gbps uplinks, so not
oversubscribed), flow sizes from the web-search (DCTCP, SIGCOMM 2010) or data-mining (VL2,
SIGCOMM 2009) distribution, at a load from 0.2 to 0.8 of every host's link; reported as FCT
slowdown by size: the mean and 99th percentile of flows up to 100 KB and the mean of flows over
10 MB, the three statistics pFabric plots per workload.

Settings and where they come from:

- Network: incast's `leaf-spine` defaults, which are pFabric's network as NetSys/simulator (YAPS)
  builds it, 0.2 us links (docs/scenario.md).
- Switches: 225 KB per port, and for DCTCP ECN marking above K = 65 packets: pFabric's DCTCP
  configuration, with the same drop-tail buffers for TCP. Host NICs are queues like the switches'
  (`host_nic = "like-switch"`), as the field's simulators build them (docs/scenario.md,
  `[switch]`): with a real host's 1 ms NIC backlog, flows whose first bottleneck is their own NIC
  grow windows no mark can reach, and the network's queues overflow behind them.
- Hosts: the `linux` stack (initial window 10, SACK), with a 2 ms minimum RTO, the value of the
  pFabric-derived ns-2 scripts of HKUST-SING/PIAS-NS2 for their TCP and DCTCP runs
  (`run_pias_dctcp.py`, `min_rto = 0.002`; Linux's 200 ms would make every timeout on this
  fabric cost 10^4 ideal completion times), and, as those scripts do, no connection handshake
  (ns-2's agents have none) and an initial RTO equal to the minimum (`Agent/TCP set
  rtxcur_init_ $min_rto`): without a SYN there is no RTT sample before the first data, and
  RFC 6298's 1 s initial RTO would stall any flow whose first window loses its tail for 1 s.
  Receivers ACK every segment, as those scripts do (`ackRatio 1`, their `segsperack_`): with delayed ACKs of 40 ms
  against a 2 ms RTO, a flow whose last segment is odd times out although it has finished.
- pFabric (`protocol = "pfabric"`, docs/pfabric.md): its own ports, 36 KiB each with host NICs
  included, and its own hosts (initial window 12, cap 15, fixed 45 us timeout, 1-byte probes
  after 5 timeouts in a row), the settings of pFabric's simulator (NetSys/simulator,
  `conf_str_pfabric`) and ns-2 agent; the switch and TCP keys above do not apply to it.
  Routing is per-flow ECMP for every protocol, where pFabric's evaluation sprays packets over
  the spines.
- PDQ (`protocol = "pdq"`, docs/pdq.md): a scheduler at every port with `[pdq]`'s defaults (the
  constants PDQ's public code cites), its senders on the TCP settings above without SACK; the
  same 225 KB drop-tail buffers, which its rate control keeps nearly empty.
- Arrivals: for `arrivals_ms` of simulated time (100 ms by default); flows that arrive in the first
  10% are the warm-up and are not counted (`[run] warmup`), and the run lasts until every flow
  has finished, so the slowdown of the largest flows is measured, not cut off.

pFabric published these curves only as figures, and no public source gives their values: what a
user can compare is direction (DCTCP's short flows well below TCP's; slowdowns rising with load;
the long flows of both close together), not numbers (docs/results-leaf-spine.md)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from incast.protocols import labels
from incast.slowdown import PFABRIC_EDGES, by_size
from incast.sweep import SweepResult, run_sweep, sweep_from_dict

if TYPE_CHECKING:
    import pyarrow as pa

PROTOCOLS = ("pfabric", "pdq", "dctcp", "tcp")
WORKLOADS = ("web-search", "data-mining")
LOADS = (0.2, 0.4, 0.6, 0.8)
BUFFER = "225KB"
DCTCP_K_PACKETS = 65
MIN_RTO = "2ms"
ARRIVALS_MS = 100.0
WARMUP_SHARE = 0.1

LABELS = labels(PROTOCOLS)

# The varied keys, as the sweep's columns name them.
PROTOCOL_KEY = "transport.protocol"
SIZE_KEY = "workload.0.size"
LOAD_KEY = "workload.0.load"

#: The statistics drawn, as (bucket index in pFabric's edges, statistic, title).
PANELS: Tuple[Tuple[int, str, str], ...] = (
    (0, "mean", "(0, 100 KB]: mean"),
    (0, "p99", "(0, 100 KB]: 99th percentile"),
    (2, "mean", "> 10 MB: mean"),
)


def sweep_tree(
    seeds: int,
    arrivals_ms: float = ARRIVALS_MS,
    loads: Sequence[float] = LOADS,
    workloads: Sequence[str] = WORKLOADS,
    protocols: Sequence[str] = PROTOCOLS,
) -> Dict[str, Any]:
    """The experiment as a sweep (docs/sweeps.md): every protocol, workload and load, `seeds`
    seeds each. The switch's ECN threshold is on for every point; TCP's packets are not
    ECN-capable, so only DCTCP's are marked."""
    warmup_ms = WARMUP_SHARE * arrivals_ms
    scenario = {
        "topology": {"kind": "leaf-spine"},
        "switch": {"buffer": BUFFER, "ecn_threshold": DCTCP_K_PACKETS, "host_nic": "like-switch"},
        "transport": {"protocol": "dctcp", "min_rto": MIN_RTO, "initial_rto": MIN_RTO, "handshake": False,
                      "delayed_ack": False},
        "workload": [{"kind": "poisson", "load": 0.5, "size": "web-search", "stop": f"{arrivals_ms}ms"}],
        # No duration: the run ends when the last flow does; the horizon only bounds a run gone wrong.
        "run": {"warmup": f"{warmup_ms}ms", "horizon": "100s"},
    }
    return {
        "scenario": scenario,
        "seeds": seeds,
        "vary": {"grid": {PROTOCOL_KEY: list(protocols), SIZE_KEY: list(workloads), LOAD_KEY: list(loads)}},
    }


def run(
    out: Path,
    *,
    seeds: int = 3,
    arrivals_ms: float = ARRIVALS_MS,
    loads: Sequence[float] = LOADS,
    jobs: Optional[int] = None,
    scheduler: Optional[str] = None,
    progress: bool = False,
) -> SweepResult:
    """Runs (or resumes) the sweep into `out/runs`: points already there are not run again."""
    sweep = sweep_from_dict(sweep_tree(seeds, arrivals_ms, loads))
    return run_sweep(sweep, out / "runs", jobs=jobs, scheduler=scheduler, progress=progress)


def per_seed(result: SweepResult) -> "pa.Table":
    """Slowdown by pFabric's size buckets for every point and seed of the sweep."""
    return by_size(result.flows(), PFABRIC_EDGES, by=[PROTOCOL_KEY, SIZE_KEY, LOAD_KEY, "seed"])


def summarize(table: "pa.Table") -> List[Dict[str, Any]]:
    """One row per (workload, protocol, load, bucket): the mean over seeds of each statistic,
    with its smallest and largest seed, and the flows counted over all seeds."""
    groups: Dict[Tuple[str, str, float, str], List[Dict[str, Any]]] = {}
    for row in table.to_pylist():
        key = (row[SIZE_KEY], row[PROTOCOL_KEY], row[LOAD_KEY], row["bucket"])
        groups.setdefault(key, []).append(row)
    out = []
    for (size, protocol, load, bucket), rows in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        entry: Dict[str, Any] = {
            "workload": size, "protocol": protocol, "load": load, "bucket": bucket,
            "seeds": len(rows),
            "flows": sum(r["flows"] for r in rows),
            "unfinished": sum(r["unfinished"] for r in rows),
        }
        for stat in ("mean", "p50", "p99"):
            values = [r[stat] for r in rows if r[stat] is not None]
            entry[stat] = math.fsum(values) / len(values) if values else None
            entry[f"{stat}_min"] = min(values) if values else None
            entry[f"{stat}_max"] = max(values) if values else None
        out.append(entry)
    return out


def _order(key: Tuple[str, str, float, str]) -> Tuple[int, int, float, str]:
    """Workloads and protocols in the order of `WORKLOADS` and `PROTOCOLS`, then load."""
    size, protocol, load, bucket = key

    def rank(names: Sequence[str], name: str) -> int:
        return names.index(name) if name in names else len(names)

    return rank(WORKLOADS, size), rank(PROTOCOLS, protocol), load, bucket


def format_rows(rows: List[Dict[str, Any]]) -> str:
    """The summary as a text table: the three statistics pFabric plots, per point."""
    labels = list(dict.fromkeys(r["bucket"] for r in rows))

    def num(v: Optional[float]) -> str:
        return "-" if v is None else f"{v:.2f}"

    lines = [f"{'workload':<12} {'protocol':<8} {'load':>5} {'flows':>8} {'<=100KB mean':>13} "
             f"{'<=100KB p99':>12} {'>10MB mean':>11} {'unfinished':>10}"]
    index = {(r["workload"], r["protocol"], r["load"], r["bucket"]): r for r in rows}
    for w, p, load in dict.fromkeys((r["workload"], r["protocol"], r["load"]) for r in rows):
        cells = [index.get((w, p, load, labels[i])) if i < len(labels) else None for i, _, _ in PANELS]
        stats = [num(c[stat]) if c else "-" for c, (_, stat, _) in zip(cells, PANELS)]
        flows = sum(index[(w, p, load, b)]["flows"] for b in labels if (w, p, load, b) in index)
        left = sum(index[(w, p, load, b)]["unfinished"] for b in labels if (w, p, load, b) in index)
        lines.append(f"{w:<12} {p:<8} {load:>5.2f} {flows:>8,} {stats[0]:>13} {stats[1]:>12} {stats[2]:>11} "
                     f"{left:>10,}")
    return "\n".join(lines)


def plot(rows: List[Dict[str, Any]], *outputs: Tuple[Path, Optional[str]]) -> None:
    """One row of panels per workload, one panel per statistic of `PANELS`, slowdown against
    load, a line per protocol with the range over seeds as error bars, drawn once and saved to
    each (path, format) of `outputs` (format None: from the path's suffix). Protocols differ by
    line style and marker, so the figure reads in greyscale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(r["bucket"] for r in rows))
    workloads = [w for w in WORKLOADS if any(r["workload"] == w for r in rows)]
    styles = {"pfabric": (":", "^", "0.3"), "pdq": ("-.", "D", "0.2"), "dctcp": ("-", "o", "0.1"),
              "tcp": ("--", "s", "0.45")}
    fig, axes = plt.subplots(len(workloads), len(PANELS), figsize=(4 * len(PANELS), 3.2 * len(workloads)),
                             squeeze=False)
    for i, w in enumerate(workloads):
        for j, (bucket, stat, title) in enumerate(PANELS):
            ax = axes[i][j]
            for protocol in PROTOCOLS:
                points = sorted(
                    (r["load"], r[stat], r[f"{stat}_min"], r[f"{stat}_max"]) for r in rows
                    if r["workload"] == w and r["protocol"] == protocol and bucket < len(labels)
                    and r["bucket"] == labels[bucket] and r[stat] is not None
                )
                if not points:
                    continue
                line, marker, grey = styles.get(protocol, (":", "^", "0.3"))
                x = [p[0] for p in points]
                y = [p[1] for p in points]
                err = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
                face = "white" if protocol == "tcp" else grey
                ax.errorbar(x, y, yerr=err, linestyle=line, marker=marker, color=grey, capsize=3,
                            markerfacecolor=face, label=LABELS.get(protocol, protocol))
            ax.set_title(f"{w}: {title}", fontsize=10)
            ax.set_xlabel("load")
            ax.set_ylabel("FCT slowdown")
            ax.set_ylim(bottom=0)
            ax.grid(True, color="0.85")
            if i == 0 and j == 0:
                ax.legend()
    fig.tight_layout()
    for path, fmt in outputs:
        fig.savefig(path, format=fmt)
    plt.close(fig)


def describe(seeds: int, arrivals_ms: float) -> str:
    """The heading printed above the table."""
    return (
        f"pFabric's leaf-spine (144 hosts, 10/40 Gbps); TCP, DCTCP and PDQ: {BUFFER} per port, "
        f"DCTCP K={DCTCP_K_PACKETS}, "
        f"min RTO {MIN_RTO}; pFabric: 36 KiB per port, RTO 45 us; Poisson all-to-all, {arrivals_ms:g} ms of arrivals "
        f"(first {100 * WARMUP_SHARE:g}% warm-up), run until every flow finishes; "
        f"{seeds} seed(s) per point. Slowdown = FCT / FCT alone on the idle network; "
        "mean over seeds."
    )


def save(per_seed_table: "pa.Table", rows: List[Dict[str, Any]], out: Path) -> List[Path]:
    """Writes the per-seed table, the summary and the figure (PNG and PDF) into `out`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from incast.durable import staged_files

    written = [out / "slowdown-per-seed.parquet", out / "slowdown.parquet", out / "slowdown.png", out / "slowdown.pdf"]
    with staged_files() as stage:
        pq.write_table(per_seed_table, stage(written[0]))
        pq.write_table(pa.Table.from_pylist(rows), stage(written[1]))
        plot(rows, (stage(written[2]), "png"), (stage(written[3]), "pdf"))
    return written
