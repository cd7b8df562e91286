"""incast's NDP beside htsim's, the authors' own simulator (issue 40): the same flows on the same
network in both, flow completion times compared per size bucket.

    python -m incast.crosscheck.htsim_ndp [--out DIR] [--htsim PATH] [--case NAME ...] [--list]

With `--htsim PATH` (htsim's `sim/datacenter/htsim_ndp` at Broadcom/csg-htsim 841d9e7, built as
htsim's own README says; no part of htsim is in this repository) it writes each case's
connection matrix and topology file into DIR, runs htsim on them (the command it ran is in
`htsim_<case>.cmd`) and keeps htsim's completion times (`htsim_<case>.fct`). Without it, it reads
those committed files, so the report is made again without htsim: only incast runs.

The network is pFabric's 144 hosts in 9 racks of 16, as a two-tier fat tree htsim builds from a
topology file (`topology.txt`): 10 Gbps host links, and 16 spines of 10 Gbps links (htsim's
fat tree takes one link rate per tier and as many uplinks per leaf as downlinks, so the 4 spines
of 40 Gbps of incast's default leaf-spine become 16 of 10 Gbps: the same 160 Gbps per leaf).
Every link has a 1 us delay. Both run the authors' example settings (`sim/EXAMPLES`): 9000 B
packets with a 64 B header, data queues of 8 packets, a first window of 23 packets, PULLs at 99%
of the receiver's link, packets sprayed over every path, each cycle over the paths in a new
random order (htsim `-strat perm`, incast `load_balancing = "spray-permute"`). A header that finds
a full header queue is dropped in both: htsim 841d9e7 has return-to-sender off and nothing turns
it on (`setRTS` is never called), so incast runs with `return_to_sender = false` (its default is
the paper's, on; docs/ndp.md, "Return to sender").

The cases:

- `incast`: 100 senders of the other racks send 450 KB (50 packets) each to host 0, all at once
  (the `incast_shortflows` example's flow size);
- `permutation`: every host sends 4.5 MB (500 packets) to another, a random permutation, all at
  once (the `permutation` example's matrix, with finite flows);
- `websearch`: Poisson all-to-all flows of the web-search sizes at half load for 20 ms, each size
  rounded up to whole packets (htsim sends only full packets).

htsim reports a flow done when its sender gets the ACK that completes it; incast when the receiver
holds its last byte. incast's times are compared with the final ACK's unloaded trip back added
(per hop, the link's delay and a 64 B ACK's serialization): `ACK_BACK_NS` below.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from incast.crosscheck.targets import FCT_TARGET, relative
from incast.stats import quantile

RACKS = 9
HOSTS_PER_RACK = 16
HOSTS = RACKS * HOSTS_PER_RACK
SPINES = 16
LINK_BPS = 10_000_000_000
LINK_DELAY_NS = 1_000
MTU = 9000
HEADER = 64
QUEUE_PACKETS = 8
INITIAL_WINDOW = 23
SEED = 13
#: The final ACK's trip from receiver to sender, per hop: the link's delay and 64 B at 10 Gbps.
ACK_HOP_NS = LINK_DELAY_NS + HEADER * 8 * 1e9 / LINK_BPS
#: Size buckets of the report, bytes (upper bounds, inclusive).
BUCKETS: Tuple[Tuple[str, float], ...] = (
    ("<= 100 KB", 100_000), ("100 KB - 1 MB", 1_000_000), ("1 - 10 MB", 10_000_000), ("> 10 MB", math.inf)
)
DEFAULT_OUT = Path("docs/crosscheck/ndp")
#: htsim's end of the run, us: far past the last flow's end.
END_US = 2_000_000


@dataclass(frozen=True)
class Case:
    """One workload on the network."""

    name: str
    label: str


CASES: List[Case] = [
    Case("incast", "100 senders of other racks, 450 KB each to host 0, at once"),
    Case("permutation", "a random permutation of the 144 hosts, 4.5 MB each, at once"),
    Case("websearch", "Poisson web-search flows at half load for 20 ms, sizes in whole packets"),
]


class CrosscheckError(Exception):
    """htsim failed, or its outputs are missing or do not match the flows."""


def rack_of(host: int) -> int:
    return host // HOSTS_PER_RACK


def ps_start(start_s: float) -> int:
    """A start time in picoseconds as htsim reads it: its connection matrix parses starts with
    `stof` (`connection_matrix.cpp`), a 32-bit float, so both sides start at the float's value."""
    return int(np.float32(round(start_s * 1e12)))


def flows_for(case: str, seed: int = SEED) -> List[Dict[str, int]]:
    """The case's flows: src, dst, size (bytes, whole packets), start (ps)."""
    rnd = random.Random(f"{seed}:{case}")
    if case == "incast":
        senders = list(range(HOSTS_PER_RACK, HOSTS))
        rnd.shuffle(senders)
        return [{"src": s, "dst": 0, "size": 50 * MTU, "start_ps": 0} for s in sorted(senders[:100])]
    if case == "permutation":
        while True:
            dst = list(range(HOSTS))
            rnd.shuffle(dst)
            if all(s != d for s, d in enumerate(dst)):
                break
        return [{"src": s, "dst": d, "size": 500 * MTU, "start_ps": 0} for s, d in enumerate(dst)]
    if case == "websearch":
        return websearch_flows(seed)
    raise CrosscheckError(f"no case {case!r}")


def websearch_flows(seed: int) -> List[Dict[str, int]]:
    """incast's own Poisson web-search workload on the network (the arrivals and sizes it would
    draw), each size rounded up to whole packets."""
    import incast

    scenario = scenario_for([], tempfile.gettempdir())
    scenario["seed"] = seed
    scenario["workload"] = [{"kind": "poisson", "load": 0.5, "size": "web-search", "stop": "20ms"}]
    scenario["transport"] = {"protocol": "dctcp"}
    del scenario["ndp"]
    scenario["switch"] = {"load_balancing": "spray"}
    scenario["run"] = {"duration": "1us"}
    flows = incast.run(scenario).flows.to_pylist()
    return [
        {"src": f["src"], "dst": f["dst"], "size": math.ceil(f["size_bytes"] / MTU) * MTU,
         "start_ps": ps_start(f["start_s"])}
        for f in sorted(flows, key=lambda f: f["flow_id"])
    ]


def scenario_for(flows: Sequence[Dict[str, int]], directory: str) -> Dict[str, Any]:
    """incast's scenario for `flows` (written to `directory`/flows.csv)."""
    path = Path(directory) / "flows.csv"
    with path.open("w") as f:
        f.write("src,dst,size_bytes,start_s\n")
        for fl in flows:
            f.write(f"{fl['src']},{fl['dst']},{fl['size']},{fl['start_ps'] / 1e12!r}\n")
    return {
        "seed": SEED,
        "topology": {
            "kind": "leaf-spine", "racks": RACKS, "hosts_per_rack": HOSTS_PER_RACK, "spines": SPINES,
            "link_rate": f"{LINK_BPS // 1_000_000_000}Gbps", "fabric_rate": f"{LINK_BPS // 1_000_000_000}Gbps",
            "link_delay": f"{LINK_DELAY_NS}ns",
        },
        "switch": {"load_balancing": "spray-permute"},
        "transport": {"protocol": "ndp"},
        "ndp": {"mtu": f"{MTU}B", "queue": QUEUE_PACKETS, "initial_window": INITIAL_WINDOW, "pull_rate": 0.99,
                "return_to_sender": False},
        "workload": [{"kind": "trace", "path": str(path)}],
        "run": {"horizon": "2s"},
    }


def topology_file() -> str:
    """htsim's two-tier fat tree of the network (`FatTreeTopology::load`)."""
    gbps = LINK_BPS // 1_000_000_000
    return "\n".join([
        f"Nodes {HOSTS}", "Tiers 2", f"Podsize {HOSTS}",
        "Tier 0", f"Downlink_speed_Gbps {gbps}", f"Radix_Up {HOSTS_PER_RACK}", f"Radix_Down {HOSTS_PER_RACK}",
        "Oversubscribed 1", f"Downlink_Latency_ns {LINK_DELAY_NS}",
        "Tier 1", f"Downlink_speed_Gbps {gbps}", f"Radix_Down {RACKS}", f"Downlink_Latency_ns {LINK_DELAY_NS}",
        "",
    ])


def connection_matrix(flows: Sequence[Dict[str, int]]) -> str:
    """htsim's connection matrix of `flows`: flow i is `id i+1`."""
    lines = [f"Nodes {HOSTS}", f"Connections {len(flows)}"]
    lines += [f"{f['src']}->{f['dst']} start {f['start_ps']} size {f['size']} id {i + 1}" for i, f in enumerate(flows)]
    return "\n".join(lines) + "\n"


def htsim_command(htsim: str, directory: Path, case: str, end_us: int) -> List[str]:
    """The htsim run of `case`: the examples' settings (`-cwnd 23 -q 8 -strat perm`, 9000 B
    packets), the pacers at the 10 Gbps host links (`-linkspeed` in Mbps: main_ndp's default is
    100 Gbps), the network of `topology.txt`."""
    return [
        htsim, "-o", "htsim.log", "-nodes", str(HOSTS), "-topo", str(directory / "topology.txt"),
        "-tm", str(directory / f"htsim_{case}.cm"), "-cwnd", str(INITIAL_WINDOW), "-q", str(QUEUE_PACKETS),
        "-strat", "perm", "-linkspeed", str(LINK_BPS // 1_000_000), "-mtu", str(MTU), "-seed", str(SEED),
        "-end", str(end_us),
    ]


#: htsim's line for a finished flow (`NdpSrc::processAck`); its progress dots may precede it.
FINISHED = re.compile(r"Flow \S+ flow_id (\d+) finished at ([0-9.e+-]+) total bytes (\d+)")
#: htsim's last line (`main_ndp.cpp`): data packets sent new and again, and headers bounced.
TOTALS = re.compile(r"New: (\d+) Rtx: (\d+) Bounced: (\d+)")


def run_htsim(htsim: str, out: Path, case: str, flows: Sequence[Dict[str, int]]) -> float:
    """Runs htsim on `case` and writes its completion times to `htsim_<case>.fct`; returns the
    wall time."""
    (out / "topology.txt").write_text(topology_file())
    (out / f"htsim_{case}.cm").write_text(connection_matrix(flows))
    shown = htsim_command("htsim_ndp", out, case, END_US)
    (out / f"htsim_{case}.cmd").write_text(" ".join(shlex.quote(c) for c in shown) + "\n")
    t = time.time()
    # htsim writes files of its own (its log, `idmap.txt`) into its working directory: a scratch one.
    with tempfile.TemporaryDirectory() as scratch:
        cmd = htsim_command(htsim, out.resolve(), case, END_US)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=scratch)
    wall = time.time() - t
    if proc.returncode != 0:
        raise CrosscheckError(f"htsim exited {proc.returncode} on {case}: {proc.stderr[-400:]}")
    rows = ["flow_id,finish_us,total_bytes"]
    for line in proc.stdout.splitlines():
        m = FINISHED.search(line)
        if m:
            rows.append(f"{m.group(1)},{m.group(2)},{m.group(3)}")
        m = TOTALS.search(line)
        if m:
            (out / f"htsim_{case}.totals").write_text(f"new,rtx,bounced\n{m.group(1)},{m.group(2)},{m.group(3)}\n")
    (out / f"htsim_{case}.fct").write_text("\n".join(rows) + "\n")
    return wall


def read_htsim(out: Path, case: str, flows: Sequence[Dict[str, int]]) -> List[Optional[float]]:
    """htsim's completion time of each flow, seconds (None if it never finished)."""
    path = out / f"htsim_{case}.fct"
    if not path.exists():
        raise CrosscheckError(f"{path} is missing: run with --htsim PATH to make it")
    fct: List[Optional[float]] = [None] * len(flows)
    for line in path.read_text().splitlines()[1:]:
        fid, finish_us, _ = line.split(",")
        i = int(fid) - 1
        if fct[i] is None:  # htsim prints a flow's line again for every later cumulative ACK
            fct[i] = float(finish_us) * 1e-6 - flows[i]["start_ps"] * 1e-12
    return fct


def run_incast(flows: Sequence[Dict[str, int]]) -> Tuple[List[Optional[float]], float, int]:
    """incast's completion time of each flow, seconds, with the final ACK's unloaded trip back
    added; the wall time; and the data packets it sent again."""
    import incast

    with tempfile.TemporaryDirectory() as d:
        scenario = scenario_for(flows, d)
        t = time.time()
        result = incast.run(scenario)
        wall = time.time() - t
    rows = sorted(result.flows.to_pylist(), key=lambda f: f["flow_id"])
    out: List[Optional[float]] = []
    for f, spec in zip(rows, flows):
        hops = 2 if rack_of(spec["src"]) == rack_of(spec["dst"]) else 4
        back = hops * ACK_HOP_NS * 1e-9
        out.append(None if f["finish_s"] is None else f["finish_s"] - f["start_s"] + back)
    return out, wall, sum(f["retransmitted_bytes"] for f in rows) // MTU


def bucket_stats(
    flows: Sequence[Dict[str, int]], fct: Sequence[Optional[float]], both: Sequence[bool]
) -> Dict[str, Dict[str, float]]:
    """Per size bucket: the flows, those finished, and the mean and 99th percentile FCT (ms) of
    those finished in both simulators (`both`)."""
    stats: Dict[str, Dict[str, float]] = {}
    lower = 0.0
    for name, upper in BUCKETS:
        inside = [i for i, f in enumerate(flows) if lower < f["size"] <= upper]
        lower = upper
        if not inside:
            continue
        times = [t for i in inside if both[i] and (t := fct[i]) is not None]
        stats[name] = {
            "flows": len(inside),
            "finished": sum(1 for i in inside if fct[i] is not None),
            "compared": len(times),
            "mean_ms": 1e3 * sum(times) / len(times) if times else math.nan,
            "p99_ms": 1e3 * quantile(times, 0.99) if times else math.nan,
        }
    return stats


def compare(out: Path, case: str, htsim: Optional[str]) -> Dict[str, Any]:
    flows = flows_for(case)
    htsim_wall = run_htsim(htsim, out, case, flows) if htsim else None
    ref = read_htsim(out, case, flows)
    ours, wall, resent = run_incast(flows)
    both = [a is not None and b is not None for a, b in zip(ref, ours)]
    h, i = bucket_stats(flows, ref, both), bucket_stats(flows, ours, both)
    buckets = {
        b: {"htsim": h[b], "incast": i[b], "gap_mean": relative(i[b]["mean_ms"], h[b]["mean_ms"]),
            "gap_p99": relative(i[b]["p99_ms"], h[b]["p99_ms"])}
        for b in h
    }
    totals = out / f"htsim_{case}.totals"
    htsim_resent = int(totals.read_text().splitlines()[1].split(",")[1]) if totals.exists() else None
    return {
        "case": case, "flows": len(flows), "packets": sum(f["size"] for f in flows) // MTU, "buckets": buckets,
        "resent": {"htsim": htsim_resent, "incast": resent}, "incast_wall_s": wall, "htsim_wall_s": htsim_wall,
    }


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:+.1f}%"


def write_report(out: Path, results: List[Dict[str, Any]]) -> None:
    (out / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    lines = [
        "# incast's NDP beside htsim's",
        "",
        "Made by `python -m incast.crosscheck.htsim_ndp` (the module's docstring gives the network,",
        "the settings and the cases; docs/ndp.md the rules). htsim's completion times are those of",
        "`htsim_<case>.fct`, from the command in `htsim_<case>.cmd`, htsim 841d9e7.",
        f"Target: mean and p99 FCT per size bucket within {100 * FCT_TARGET:.0f}% of htsim's, or the gap traced.",
        "",
        "| case | size bucket | flows | htsim mean ms | incast mean ms | gap | htsim p99 ms | incast p99 ms | gap |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        for b, s in r["buckets"].items():
            h, i = s["htsim"], s["incast"]
            done = h["finished"] == i["finished"] == h["flows"]
            flows = f"{h['flows']}" + ("" if done else f" (done: htsim {h['finished']}, incast {i['finished']})")
            lines.append(
                f"| {r['case']} | {b} | {flows} | {h['mean_ms']:.3f} | {i['mean_ms']:.3f} | {_pct(s['gap_mean'])} "
                f"| {h['p99_ms']:.3f} | {i['p99_ms']:.3f} | {_pct(s['gap_p99'])} |"
            )
    lines += [
        "",
        "Data packets sent again (after a NACK: each was trimmed once), of all the data packets:",
        "",
        "| case | packets | htsim | incast |",
        "| --- | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(f"| {r['case']} | {r['packets']} | {r['resent']['htsim']} | {r['resent']['incast']} |")
    lines.append("")
    notes = out / "gaps.md"
    if notes.exists():
        lines += ["", notes.read_text()]
    (out / "report.md").write_text("\n".join(lines))


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(DEFAULT_OUT), help="directory of htsim's outputs and the report")
    p.add_argument("--htsim", metavar="PATH", help="htsim's htsim_ndp binary: run it (else read its committed outputs)")
    p.add_argument("--case", action="append", metavar="NAME", help="run only this case (repeatable)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    args = p.parse_args(argv)
    if args.list:
        for c in CASES:
            print(f"{c.name:12} {c.label}")
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = args.case or [c.name for c in CASES]
    unknown = [n for n in names if n not in {c.name for c in CASES}]
    if unknown:
        print(f"--case {unknown[0]!r}: no such case", file=sys.stderr)
        return 2
    try:
        results = [compare(out, name, args.htsim) for name in names]
    except CrosscheckError as e:
        print(f"htsim_ndp: {e}", file=sys.stderr)
        return 1
    if not args.case:
        write_report(out, results)
    for r in results:
        for b, s in r["buckets"].items():
            print(f"{r['case']:12} {b:14} mean {_pct(s['gap_mean'])} p99 {_pct(s['gap_p99'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
