"""D3 Section 6.1.1, flow-burst microbenchmark: many workers answer one aggregator at once.

Workers respond with flows of uniform [2 KB, 50 KB], each with a deadline drawn exponentially
around 30 ms ("moderate") with a 3 ms floor; the metric is application throughput, the share of flows that finish
before their deadline (D3 Figure 10). Here on one 1 Gbps switch, comparing TCP NewReno with a
10 ms minimum RTO (D3 Table 1's reduced RTO) and DCTCP with marking threshold K = 20 packets
(DCTCP Section 4 for 1 Gbps) on D3's 100 KB hardware switch (D3 Section 6.1.1: "the hardware
switch has a buffer of 100KB"), against D3 and RCPdc on its 128 KB software routers (D3 Section 5),
PDQ (SIGCOMM 2012, docs/pdq.md) with its public code's constants on the same 128 KB as D3, the
protocol PDQ's paper measures itself against, and pFabric (SIGCOMM 2013; docs/pfabric.md) sized for
this network by its
paper's rules: with 125 us links the round trip is 500 us and the bandwidth-delay product at
1 Gbps 62.5 KB, so an initial window of one BDP (43 segments, capped 3 above as pFabric's 12 and
15), 2 BDPs of buffer at every port (125 KB) and a fixed RTO of 3 RTTs (1.5 ms). pFabric's hosts
open no connection, so its flows skip the handshake the others pay (one RTT).

Homa (SIGCOMM 2018, docs/homa.md) and NDP (SIGCOMM 2017, docs/ndp.md), the receiver-driven
successors, run on the same star without knowing of deadlines: Homa grants by bytes left (SRPT)
and NDP pulls its senders in turn. Homa runs its paper model on D3's 100 KB hardware switch with
8 strict-priority classes (its paper's 8 levels); its RTTbytes, computed from this network
(`unscheduled_bytes = "auto"`, 62.5 KB), exceed every response here, so every response goes out
unscheduled, in full, at the level of its size, and a lost packet waits for Homa's 5 ms RESEND.
Homa's messages need no connection, so they skip the handshake too. NDP runs its trimming ports
(8-packet data queues) with 1,500 B packets on the wire (`mtu = 1436B` under its 64 B header, the
size every other scheme sends) and a first window of one bandwidth-delay product, 44 packets
(62.5 KB), its paper's rule; the star has one path between two hosts, so it sprays nothing.
"""

from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, cast

from incast.api import Progress, run
from incast.durable import staged_files
from incast.protocols import label

# The floor under exponential deadlines that makes every deadline feasible on an idle network
# (derived in docs/results-d3.md; the paper gives none).
from incast.reproduce.d3.settings import DEADLINE_FLOOR, STACK
from incast.stats import quantile

if TYPE_CHECKING:
    import pyarrow as pa

PROTOCOLS = ("tcp", "dctcp", "rcpdc", "d3", "pdq", "pfabric", "homa", "ndp")
DEADLINE_MEAN = "30ms"
BUFFER = "100KB"
D3_BUFFER = "128KB"
MIN_RTO = "10ms"
DCTCP_K_PACKETS = 20
# pFabric sized for this network (module docstring).
PFABRIC = {"initial_window": 43, "max_window": 46, "buffer": "125KB", "rto": "1.5ms"}
# Homa on 8 priority classes, NDP with 1,500 B packets and a BDP's first window (module docstring).
HOMA_CLASSES = 8
NDP = {"mtu": "1436B", "initial_window": 44}


def scenario(senders: int, protocol: str, seed: int, rounds: int) -> Dict[str, Any]:
    """One point of the sweep: `senders` workers on their own hosts, `rounds` bursts."""
    return {
        "seed": seed,
        # Host 0 is the aggregator, hosts 1..senders the workers; link delay is the default,
        # D3's in-rack RTT.
        "topology": {"kind": "star", "hosts": senders + 1, "link_rate": "1Gbps"},
        "switch": {
            "buffer": D3_BUFFER if protocol in ("d3", "rcpdc", "pdq") else BUFFER,
            # TCP is not ECN-capable; DCTCP marks above K packets.
            "ecn_threshold": DCTCP_K_PACKETS if protocol == "dctcp" else "off",
            **({"priority_classes": HOMA_CLASSES} if protocol == "homa" else {}),
        },
        # Every scheme pays one RTT to open its connection, as in the paper's stacks (TCP's
        # three-way handshake, D3's SYN of Figure 7).
        "transport": {"stack": STACK, "protocol": protocol, "min_rto": MIN_RTO, "handshake": True},
        **({"pfabric": PFABRIC} if protocol == "pfabric" else {}),
        **({"ndp": NDP} if protocol == "ndp" else {}),
        "workload": [
            {
                "kind": "flow-burst",
                "aggregator": 0,
                "senders": senders,
                "size": {"dist": "uniform", "min": "2KB", "max": "50KB"},
                "deadline": {"dist": "exponential", "mean": DEADLINE_MEAN, "min": DEADLINE_FLOOR},
                "rounds": rounds,
                "round_gap": "1ms",
            }
        ],
    }


class _Cancelled(Exception):
    pass


def sweep(
    senders: Sequence[int],
    seeds: int,
    rounds: int,
    jobs: int = 1,
    progress: bool = False,
) -> "pa.Table":
    """Runs every (senders, protocol, seed) point, `jobs` at a time in threads (the engine
    releases the GIL), and returns all their flows with columns `senders`, `scheme` and `seed`
    added. Ctrl-C stops every run within one engine chunk."""
    import pyarrow as pa

    points: List[Tuple[int, str, int]] = [
        (n, proto, seed) for n in senders for proto in PROTOCOLS for seed in range(1, seeds + 1)
    ]
    stop = threading.Event()

    def check_stop(_: Progress) -> None:
        if stop.is_set():
            raise _Cancelled

    def one(point: Tuple[int, str, int]) -> "pa.Table":
        n, proto, seed = point
        # Every scheme shares one [transport], which pFabric's hosts do not read: warned by
        # design, so not issued (docs/scenario.md, "Warnings").
        flows = run(scenario(n, proto, seed, rounds), progress=check_stop, warn=False).flows
        rows = flows.num_rows
        return (
            flows.append_column("senders", pa.array([n] * rows, pa.uint32()))
            .append_column("scheme", pa.array([proto] * rows, pa.string()))
            .append_column("seed", pa.array([seed] * rows, pa.uint64()))
        )

    bar = _bar(len(points)) if progress else None
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        tables = []
        for table in pool.map(one, points):
            tables.append(table)
            if bar is not None:
                bar.update(1)
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()
    return pa.concat_tables(tables)


def _bar(total: int) -> Any:
    import sys

    from tqdm import tqdm

    return tqdm(
        total=total, unit="run", file=sys.stderr, leave=False, delay=1.0, disable=not sys.stderr.isatty()
    )


def summarize(flows: "pa.Table", senders: Sequence[int], seeds: int, rounds: int) -> List[Dict[str, Any]]:
    """One row per (senders, protocol): application throughput, timeouts per burst and the 99th
    percentile completion time of the flows that completed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = []
    for n in senders:
        for scheme in PROTOCOLS:
            t = flows.filter(pc.and_(pc.equal(flows["senders"], pa.scalar(n)),
                                     pc.equal(flows["scheme"], pa.scalar(scheme))))
            # The flows the run could judge: met_deadline is null without a deadline, or past the run's end.
            judged = t.num_rows - t["met_deadline"].null_count
            met = pc.sum(pc.cast(t["met_deadline"], "uint64")).as_py() or 0
            done = t.filter(pc.is_valid(t["finish_s"]))
            fct_ms = pc.multiply(pc.subtract(done["finish_s"], done["start_s"]), 1e3)
            rows.append(
                {
                    "senders": n,
                    "scheme": scheme,
                    "flows": t.num_rows,
                    "app_throughput": met / judged if judged else None,
                    "timeouts_per_burst": (pc.sum(t["timeouts"]).as_py() or 0) / (seeds * rounds),
                    "p99_fct_ms": quantile(cast(List[float], fct_ms.to_pylist()), 0.99) if done.num_rows else None,
                }
            )
    return rows


def describe(seeds: int, rounds: int) -> str:
    """The heading printed above the table."""
    return (
        f"D3 flow burst (Section 6.1.1): star, 1 Gbps, {BUFFER} per port ({D3_BUFFER} for D3, RCPdc and PDQ), "
        f"sizes U[2KB, 50KB], deadlines exp. mean {DEADLINE_MEAN} (floor {DEADLINE_FLOOR}); TCP min RTO {MIN_RTO}, "
        f"DCTCP K={DCTCP_K_PACKETS}; pFabric {PFABRIC['buffer']} per port, IW {PFABRIC['initial_window']}, "
        f"RTO {PFABRIC['rto']}; Homa and NDP (no deadline awareness) on {BUFFER}, NDP's first window "
        f"{NDP['initial_window']} packets; {seeds} seed(s) x {rounds} burst(s) per point"
    )


def format_rows(rows: List[Dict[str, Any]]) -> str:
    """The summary as a text table."""

    def pct(v: Optional[float]) -> str:
        return "n/a" if v is None else f"{100 * v:.1f}%"

    def ms(v: Optional[float]) -> str:
        return "n/a" if v is None or math.isnan(v) else f"{v:.2f}"

    header = ("senders", "protocol", "flows", "app thpt", "timeouts/burst", "p99 FCT ms")
    note = (
        f"note: deadlines have a floor of {DEADLINE_FLOOR}, the time the largest response needs on an "
        "idle network (D3 gives none; without it a few percent of deadlines cannot be met by any "
        "scheme: docs/results-d3.md)."
    )
    lines = ["{:>7}  {:<8} {:>7} {:>9} {:>14} {:>10}".format(*header)]
    for r in rows:
        lines.append(
            f"{r['senders']:>7}  {r['scheme']:<8} {r['flows']:>7} {pct(r['app_throughput']):>9} "
            f"{r['timeouts_per_burst']:>14.2f} {ms(r['p99_fct_ms']):>10}"
        )
    lines.append(note)
    return "\n".join(lines)


def plot(rows: List[Dict[str, Any]], path: Path) -> None:
    """Application throughput and p99 completion time against senders, one line per protocol."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_thpt, ax_fct) = plt.subplots(1, 2, figsize=(10, 4))
    curves = (
        ("tcp", f"{label('tcp')} (min RTO {MIN_RTO})"),
        ("dctcp", f"{label('dctcp')} (K={DCTCP_K_PACKETS})"),
        ("rcpdc", label("rcpdc")),
        ("d3", label("d3")),
        ("pdq", label("pdq")),
        ("pfabric", f"{label('pfabric')} ({PFABRIC['buffer']}, RTO {PFABRIC['rto']})"),
        ("homa", f"{label('homa')} (no deadlines)"),
        ("ndp", f"{label('ndp')} (no deadlines)"),
    )
    for scheme, name in curves:
        mine = [r for r in rows if r["scheme"] == scheme]
        xs = [r["senders"] for r in mine]
        thpt = [math.nan if r["app_throughput"] is None else 100 * r["app_throughput"] for r in mine]
        fct = [math.nan if r["p99_fct_ms"] is None else r["p99_fct_ms"] for r in mine]
        ax_thpt.plot(xs, thpt, marker="o", label=name)
        ax_fct.plot(xs, fct, marker="o", label=name)
    ax_thpt.set(
        xlabel="concurrent senders",
        ylabel="application throughput (%)",
        title=f"Flows meeting deadline (exp. mean {DEADLINE_MEAN})",
    )
    ax_fct.set(
        xlabel="concurrent senders", ylabel="99th percentile completion (ms)", title="Flow completion time"
    )
    for ax in (ax_thpt, ax_fct):
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle(f"D3 flow burst: 1 Gbps star, {BUFFER} per port ({D3_BUFFER} for D3, RCPdc, PDQ; "
                 f"{PFABRIC['buffer']} for pFabric)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def save(flows: "pa.Table", rows: List[Dict[str, Any]], out: Path) -> None:
    """Writes demo.png and demo.parquet into `out`, each under a temporary name first."""
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    with staged_files() as stage:
        plot(rows, stage(out / "demo.png"))
        pq.write_table(flows, stage(out / "demo.parquet"))
