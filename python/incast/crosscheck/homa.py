"""Homa in incast beside its authors' own simulation results (issue 40; docs/crosscheck/homa/).

The reference is the table of per-size message slowdowns behind the Homa paper's Figure 12
(Montazeri et al., SIGCOMM 2018), from the authors' OMNeT++ simulator (PlatformLab/HomaSimulation):
for W1-W5 at 50% and 80% network load, the mean, median and 99th percentile slowdown of the
messages of each size range. It ships as `inputs/homa-paper-reproduction/original-raw-data-from-
paper.txt` in the ns-3 port's repository (serhatarslan-hub/HomaL4Protocol-ns-3 @3cac711); its Homa
rows, verbatim, are committed beside the report (`REFERENCE`), and `--reference` reads another copy.

incast runs the paper's setting (its Section 5.1 and HomaSimulation's `omnetpp.ini` and
`homaTransportConfig.ini`): 144 hosts in 9 racks of 16 under 4 spines, 10 Gbps host links and
40 Gbps fabric links, packets sprayed over the spines, the simulator's fixed delays (1.5 us in
the hosts, 0.25 us in each switch: 2.25 us between racks, as its `idealMsgEndToEndDelay` counts
them) spread over the links (562.5 ns each; within a rack 1.75 us in the simulator, 1.125 us in
incast), 8 priority levels, 9,328 B unscheduled,
the authors' division of the levels per workload; Poisson messages from every host to others
chosen uniformly, with the network load counted on the wire as the paper counts it. Each message
is binned by the reference's size ranges (the smallest range bound at or above its size), and the
two simulators' slowdowns compared per bin.

    python -m incast.crosscheck.homa [--reference PATH] [--out DIR] [--cases W5-0.5,...]
        [--arrivals W1=2ms,W5=40ms]
    python -m incast.crosscheck.homa --rewrite [--out DIR]   (the report again from results.json)

Each case's arrivals last `ARRIVALS` (or `--arrivals`); the messages that arrive in its first
tenth are the warm-up and those of its last 40% are run but not measured, so that every measured
message has the load behind it until it is delivered.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from incast.stats import quantile

#: The repository's root, and the reference's committed Homa rows.
ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "docs" / "crosscheck" / "homa" / "original-raw-data-from-paper.homa.txt"
#: The sha256 of the whole original file (every transport's rows), from which `REFERENCE` keeps the
#: header and the lines whose first field is `Homa`.
ORIGINAL_SHA256 = "70b3d66e68a74710445c56a202bede5c30b454f762757919e99d7bfdffc7a087"

#: The paper's workloads: incast's named sizes, the reference's names, and the authors'
#: unscheduled levels (8 - `adaptiveSchedPrioLevels` in `homaTransportConfig.ini`).
WORKLOADS: Dict[str, Tuple[str, str, int]] = {
    "W1": ("homa-w1", "FACEBOOK_KEY_VALUE", 7),
    "W2": ("homa-w2", "GOOGLE_SEARCH_RPC", 5),
    "W3": ("homa-w3", "GOOGLE_ALL_RPC", 4),
    "W4": ("homa-w4", "FACEBOOK_HADOOP_ALL", 1),
    "W5": ("homa-w5", "DCTCP", 1),
}

LOADS = (0.5, 0.8)

#: HomaSimulation's unscheduled bytes: `defaultReqBytes` 1442 + `defaultUnschedBytes` 7886.
UNSCHEDULED_BYTES = 9328
#: Bytes of a full DATA packet's message, and the headers incast counts per DATA packet and per
#: control packet (docs/homa.md).
PAYLOAD, DATA_HEADER, CONTROL = 1442, 58, 46

#: A bin's 99th percentile is judged when incast has at least this many of its messages (with
#: fewer it is nearly their maximum).
MIN_SAMPLES = 200
#: Means are judged over groups of neighbouring bins, each about this share of the messages
#: (percent): a group's mean is the messages' mean, exactly, from its bins' means and shares.
GROUP_SHARE = 10.0


@dataclass
class Bin:
    """One size range of one case: the reference's slowdowns and incast's."""

    bound: int
    share: float
    """The reference's share of messages in the range, percent."""
    ref_mean: float
    ref_p99: float
    samples: int = 0
    mean: Optional[float] = None
    p99: Optional[float] = None

    def gap(self, ours: Optional[float], ref: float) -> Optional[float]:
        return None if ours is None or self.samples < MIN_SAMPLES else (ours - ref) / ref


@dataclass
class Case:
    """One workload at one load: arrivals for `arrivals_s`, the messages that arrive in
    [`warmup_s`, `measured_s`) measured, so that each has a steady load behind it while it runs
    (the run goes on until every message is delivered)."""

    workload: str
    load: float
    arrivals_s: float
    warmup_s: float
    measured_s: float
    message_load: float = 0.0
    messages: int = 0
    unfinished: int = 0
    events: int = 0
    wall_s: float = 0.0
    bins: List[Bin] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.workload}-{self.load}"


def parse_reference(text: str) -> Dict[Tuple[str, float], List[Bin]]:
    """The reference table's Homa rows, by (reference workload name, load): for each size range,
    its share of messages and its mean and 99th percentile slowdown (each on a row of its own)."""
    rows: Dict[Tuple[str, float, int], Dict[str, float]] = {}
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) < 10 or f[0] != "Homa":
            continue
        key = (f[2], float(f[1]), int(f[3]))
        row = rows.setdefault(key, {"share": float(f[4])})
        if f[7] != "NA":
            row["mean"] = float(f[7])
        if f[9] != "NA":
            row["p99"] = float(f[9])
    out: Dict[Tuple[str, float], List[Bin]] = {}
    for (name, load, bound), r in sorted(rows.items()):
        if "mean" in r and "p99" in r:
            out.setdefault((name, load), []).append(Bin(bound, r["share"], r["mean"], r["p99"]))
    return out


def wire_bytes(size: int) -> int:
    """Bytes incast puts on the wire for a message of `size`: its DATA packets with their
    headers, and a GRANT per scheduled packet."""
    packets = max(1, math.ceil(min(size, UNSCHEDULED_BYTES) / PAYLOAD))
    scheduled = max(0, size - UNSCHEDULED_BYTES)
    packets += math.ceil(scheduled / PAYLOAD)
    return size + packets * DATA_HEADER + math.ceil(scheduled / PAYLOAD) * CONTROL


def message_load(network_load: float, sizes: Sequence[Tuple[int, float]]) -> float:
    """The scenario `load` (message bytes) whose bytes on the wire are `network_load` of the
    links, for messages of `sizes` ((size, probability) pairs): the paper's loads count the
    wire (HomaSimulation's configurations scale each by its workload's factor, 0.657 for W1 to
    0.898 for W5, with Ethernet's framing, which incast does not count)."""
    payload = sum(s * p for s, p in sizes)
    wire = sum(wire_bytes(s) * p for s, p in sizes)
    return network_load * payload / wire


def sizes_of(points: Sequence[Tuple[int, float]]) -> List[Tuple[int, float]]:
    """(size, probability) pairs of a step CDF's points as incast reads them."""
    out, below = [], 0.0
    for size, p in points:
        if p > below:
            out.append((int(size), p - below))
            below = p
    return out


def scenario(case: Case) -> Dict[str, Any]:
    """The scenario of `case`: the paper's network, its workload at its load."""
    named, _, unscheduled = WORKLOADS[case.workload]
    stop = case.arrivals_s
    return {
        "seed": 1,
        "topology": {
            "kind": "leaf-spine",
            "racks": 9,
            "hosts_per_rack": 16,
            "spines": 4,
            "link_rate": "10Gbps",
            "fabric_rate": "40Gbps",
            # HomaSimulation: 1.5 us in the hosts (two turnarounds of 0.5 us and the NIC's 0.5 us
            # think time) and 0.25 us in each switch, none on the wires: 2.25 us between racks,
            # over incast's 4 links.
            "link_delay": "562.5ns",
        },
        "switch": {"priority_classes": 8, "buffer": "10MB", "load_balancing": "spray"},
        "transport": {"protocol": "homa"},
        "homa": {"unscheduled_bytes": f"{UNSCHEDULED_BYTES}B", "unscheduled_priorities": unscheduled},
        "workload": [{"kind": "poisson", "load": case.message_load, "size": named, "stop": f"{stop}s"}],
        "run": {"warmup": f"{case.warmup_s}s", "measure_until": f"{case.measured_s}s", "horizon": "30s"},
    }


def bin_of(bounds: Sequence[int], size: int) -> int:
    """The index of the smallest bound at or above `size` (the last for larger sizes)."""
    lo, hi = 0, len(bounds) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if size <= bounds[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def run_case(case: Case, reference: List[Bin]) -> Case:
    """Runs `case` and fills its bins with incast's slowdowns."""
    import incast

    _, points = named_points(WORKLOADS[case.workload][0])
    case.message_load = message_load(case.load, sizes_of(points))
    bounds = [b.bound for b in reference]
    slowdowns: List[List[float]] = [[] for _ in bounds]
    unfinished = 0

    def take(table: Any) -> None:
        nonlocal unfinished
        cols = table.select(["size_bytes", "start_s", "finish_s", "ideal_fct_s", "measured"]).to_pydict()
        for size, start, finish, ideal, measured in zip(
            cols["size_bytes"], cols["start_s"], cols["finish_s"], cols["ideal_fct_s"], cols["measured"]
        ):
            if not measured:
                continue
            if finish is None:
                unfinished += 1
                continue
            slowdowns[bin_of(bounds, size)].append((finish - start) / ideal)

    began = time.monotonic()
    result = incast.run(scenario(case), on_flows=take)
    case.wall_s = time.monotonic() - began
    case.events = int(result.summary["events"])
    case.unfinished = unfinished
    case.messages = sum(len(s) for s in slowdowns)
    for b, s in zip(reference, slowdowns):
        case.bins.append(Bin(b.bound, b.share, b.ref_mean, b.ref_p99, len(s),
                             sum(s) / len(s) if s else None, quantile(s, 0.99) if s else None))
    return case


def named_points(name: str) -> Tuple[str, List[Tuple[int, float]]]:
    """A shipped distribution's points as incast reads them: sizes in bytes, a step CDF, W1's
    Pareto tail discretized as HomaSimulation's `WorkloadEstimator` does (and incast's
    `traffic::named_distribution`)."""
    root = ROOT / "crates" / "incast-scenario" / "data" / "sizes"
    unit = PAYLOAD if name == "homa-w5" else 1
    points: List[Tuple[int, float]] = []
    for line in (root / f"{name}.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            size, p = line.split()[:2]
            points.append((int(size) * unit, float(p)))
    if name == "homa-w1":
        offset, p0 = points[-1]
        k, sigma, last, steps = 0.348238, 214.476, 0.999, 1000
        increment = (last - p0) / steps
        prob = p0 + increment
        while prob <= last:
            size = round(offset + (((1 - p0) / (1 - prob)) ** k - 1) * sigma / k)
            if points[-1][0] == size:
                points[-1] = (size, prob)
            else:
                points.append((size, prob))
            prob += increment
        points[-1] = (points[-1][0], 1.0)
    return name, points


@dataclass
class Group:
    """Neighbouring bins of one case: the mean slowdown of their messages, the reference's and
    incast's."""

    low: int
    high: int
    share: float
    ref_mean: float
    mean: Optional[float]
    samples: int

    @property
    def gap(self) -> Optional[float]:
        return None if self.mean is None else (self.mean - self.ref_mean) / self.ref_mean


def groups(case: Case) -> List[Group]:
    """The case's bins in groups of about `GROUP_SHARE` percent of the messages each, by size.
    The reference's mean of a group weighs its bins' means by their shares of messages; incast's
    weighs them by its own counts (the same messages, drawn)."""
    out: List[Group] = []
    current: List[Bin] = []
    low = 0
    for b in case.bins:
        current.append(b)
        if sum(c.share for c in current) >= GROUP_SHARE or b is case.bins[-1]:
            share = sum(c.share for c in current)
            ref = sum(c.share * c.ref_mean for c in current) / share if share else 0.0
            n = sum(c.samples for c in current)
            mean = sum(c.samples * (c.mean or 0.0) for c in current) / n if n else None
            out.append(Group(low + 1, b.bound, share, ref, mean, n))
            low, current = b.bound, []
    return [g for g in out if g.share > 0]


def summarize(case: Case) -> Dict[str, Any]:
    """How many bins meet the 10% target, for the mean and the 99th percentile."""
    judged = [b for b in case.bins if b.samples >= MIN_SAMPLES]
    p99_gaps = [g for g in (b.gap(b.p99, b.ref_p99) for b in judged) if g is not None]
    bin_mean_gaps = [g for g in (b.gap(b.mean, b.ref_mean) for b in judged) if g is not None]
    mean_gaps = [g.gap for g in groups(case) if g.gap is not None]

    def within(gaps: List[float]) -> str:
        return f"{sum(abs(g) <= 0.1 for g in gaps)} of {len(gaps)}"

    total = sum(b.share for b in case.bins) or 1.0
    n = sum(b.samples for b in case.bins) or 1
    return {
        "bins": len(case.bins),
        "judged": len(judged),
        "mean_within_10": within(mean_gaps),
        "bin_mean_within_10": within(bin_mean_gaps),
        "p99_within_10": within(p99_gaps),
        # Over all messages: the mean slowdown.
        "mean_all_ref": sum(b.share * b.ref_mean for b in case.bins) / total,
        "mean_all_incast": sum(b.samples * (b.mean or 0.0) for b in case.bins) / n,
    }


def report(cases: List[Case], command: str) -> str:
    """The report's markdown."""
    lines = [
        "# Homa in incast beside its authors' simulator",
        "",
        f"Generated by `{command}` (`incast.crosscheck.homa`; docs/homa.md). The reference: the per-size "
        "slowdowns behind the Homa paper's Figure 12, from the authors' OMNeT++ simulator (the ns-3 port's "
        "`inputs/homa-paper-reproduction/original-raw-data-from-paper.txt` at 3cac711, sha256 "
        f"{ORIGINAL_SHA256[:16]}...; its Homa rows, verbatim, are `{REFERENCE.name}` here). Slowdown: a message's "
        "completion time over its ideal on the idle network. A bin is a size range of the reference "
        f"(the messages of sizes up to its bound, above the previous one); bins with fewer than {MIN_SAMPLES} of "
        "incast's messages are not judged. Why the two differ: docs/homa.md, \"Cross-check\".",
        "",
        "| case | arrivals (measured) | message load | messages | unfinished | groups' mean within 10% | "
        "bins' mean within 10% | bins' p99 within 10% | mean slowdown, reference / incast | events | wall |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in cases:
        s = summarize(c)
        lines.append(
            f"| {c.name} | {c.arrivals_s * 1e3:g} ms ({c.warmup_s * 1e3:g}-{c.measured_s * 1e3:g}) | "
            f"{c.message_load:.3f} | {c.messages} | {c.unfinished} | "
            f"{s['mean_within_10']} | {s['bin_mean_within_10']} | {s['p99_within_10']} | "
            f"{s['mean_all_ref']:.2f} / {s['mean_all_incast']:.2f} | {c.events} | {c.wall_s:.0f} s |"
        )
    def pct(g: Optional[float]) -> str:
        return "-" if g is None else f"{g:+.0%}"

    for c in cases:
        lines += ["", f"## {c.name}", "", "Mean slowdown by size, groups of about 10% of the messages:", "",
                  "| sizes (B) | share | mean ref | mean incast | gap | messages |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for g in groups(c):
            mean = "-" if g.mean is None else f"{g.mean:.2f}"
            lines.append(
                f"| {g.low}-{g.high} | {g.share:.1f}% | {g.ref_mean:.2f} | {mean} | {pct(g.gap)} | {g.samples} |"
            )
        lines += ["", f"Mean and 99th percentile by size range, ranges with at least {MIN_SAMPLES} of incast's "
                  "messages:", "",
                  "| size up to (B) | share | mean ref | mean incast | gap | p99 ref | p99 incast | gap | messages |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for b in c.bins:
            if b.samples < MIN_SAMPLES or b.p99 is None or b.mean is None:
                continue
            lines.append(
                f"| {b.bound} | {b.share:.2f}% | {b.ref_mean:.2f} | {b.mean:.2f} | {pct(b.gap(b.mean, b.ref_mean))} | "
                f"{b.ref_p99:.2f} | {b.p99:.2f} | {pct(b.gap(b.p99, b.ref_p99))} | {b.samples} |"
            )
    return "\n".join(lines) + "\n"


def figure(cases: List[Case], path: Path) -> None:
    """Mean and 99th percentile slowdown by size, the reference's and incast's, one panel a case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 5, figsize=(20, 7), squeeze=False)
    for ax, c in zip(axes.flat, cases):
        bins = [b for b in c.bins if b.samples > 0]
        x = [b.bound for b in bins]
        ax.plot(x, [b.ref_mean for b in bins], "k-", label="authors' mean")
        ax.plot(x, [b.ref_p99 for b in bins], "k--", label="authors' p99")
        ax.plot(x, [b.mean for b in bins], "C0-", label="incast mean")
        ax.plot(x, [b.p99 for b in bins], "C0--", label="incast p99")
        ax.set_xscale("log")
        ax.set_title(c.name)
        ax.set_xlabel("message size (B)")
        ax.set_ylabel("slowdown")
    axes.flat[0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def seconds(text: str) -> float:
    """A time with its unit (`40ms`, `1s`, `500us`) in seconds."""
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise ValueError(f"{text!r}: a time needs its unit (us, ms or s)")


def save(cases: List[Case], command: str, out: Path) -> None:
    """The report, its data (`results.json`: the command and every case's bins) and its figure."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(report(cases, command))
    data = {"command": command, "cases": [asdict(c) for c in cases]}
    (out / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    if len(cases) > 1:
        figure(cases, out / "slowdown.png")


def load(out: Path) -> Tuple[List[Case], str]:
    """The cases and the command of a committed `results.json`."""
    data = json.loads((out / "results.json").read_text())
    cases = []
    for c in data["cases"]:
        bins = [Bin(**b) for b in c.pop("bins")]
        cases.append(Case(**c, bins=bins))
    return cases, str(data["command"])


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default=str(REFERENCE), help="original-raw-data-from-paper.txt "
                        "(default: its Homa rows committed beside the report)")
    parser.add_argument("--out", default="docs/crosscheck/homa", help="directory of the report")
    parser.add_argument("--cases", default="", help="comma-separated, e.g. W5-0.5 (default: all ten)")
    parser.add_argument("--arrivals", default="", help="per-case arrivals window, e.g. W1=2ms,W5=40ms")
    parser.add_argument("--rewrite", action="store_true", help="write the report again from results.json")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.rewrite:
        cases, command = load(out)
        save(cases, command, out)
        return 0
    reference = parse_reference(Path(args.reference).read_text())
    windows = dict(ARRIVALS)
    for item in filter(None, args.arrivals.split(",")):
        name, value = item.split("=")
        windows[name] = seconds(value)
    wanted = [c for c in args.cases.split(",") if c]
    cases = []
    for w in WORKLOADS:
        for load_ in LOADS:
            case = Case(w, load_, windows[w], windows[w] / 10, windows[w] * 0.6)
            if wanted and case.name not in wanted:
                continue
            began = time.monotonic()
            run_case(case, reference[(WORKLOADS[w][1], load_)])
            took = time.monotonic() - began
            print(f"{case.name}: {case.messages} messages, {took:.0f} s", file=sys.stderr, flush=True)
            cases.append(case)
    save(cases, "python -m incast.crosscheck.homa " + " ".join(argv), out)
    return 0


#: Arrivals per case, seconds: long enough for a few hundred thousand messages of the small
#: workloads, and for W4's and W5's large messages to come hundreds of times and finish, at 80%
#: load, while the load is still on (the last 40% of the arrivals are not measured).
ARRIVALS = {"W1": 0.005, "W2": 0.008, "W3": 0.04, "W4": 0.4, "W5": 1.0}

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
