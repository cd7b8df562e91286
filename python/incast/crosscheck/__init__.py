"""incast beside ns-3 on the same flows: `incast crosscheck` (issue 10).

Each case is one network (a 1 Gbps star, or a two-tier fabric), one protocol (NewReno or
DCTCP) and a list of flows generated once from a seed: rounds of partition-aggregate bursts, in
which every sender answers one receiver with a response of 2-50 KB (D3 Section 6.1.1), each
with an exponential deadline. incast runs them with the `ns3` stack and ns-3.44 runs them
through its Python bindings (`ns3_side.py`, `ns3_model.cpp`), with the same start times, link
rates and delays, queues, ECN threshold and TCP settings:

- 1 Gbps host links of 20 us; 85-packet drop-tail queues at every switch port (ns-3: an 84-packet
  queue disc in front of a one-packet device queue, the same waiting room);
- DCTCP marking at K = 20 packets (ns-3: RED with MinTh = MaxTh = 20, QW = 1);
- MSS 1448 with timestamps (1500 B packets), IW 10, min RTO 10 ms, every segment acknowledged,
  SACK, limited transmit and PRR on (ns-3's defaults), a three-way handshake per flow.

Four cases run the D2TCP paper's own fabric (Section 4.2.1, Figure 8; issue 24): 25 racks of 40
hosts under one fabric switch (40 Gbps uplinks), 101-packet queues (ns-3: 100 in the disc, 1 in
the device), and five OLDI applications of five trees of 20 leaves each, each leaf answering its
parent with its application's message (2 to 18 KB) and deadline (20 to 45 ms, the medium
variance) whenever the tree is queried: every 10 ms, or at Poisson times 10 ms apart on average,
under DCTCP and NewReno.

The report compares flow completion times (mean, median, 90th and 99th percentiles and a
histogram), deadlines met, drops, ECN marks (counted alike: `marks`), timeouts and
retransmissions, and per-flow agreement, against the targets of issues 10 and 24 (FCT and marks
within 10%, drops within 15%). ns-3 is an optional dependency (`pip install 'incast[crosscheck]'`);
nothing here runs in the default test suite.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

from incast import units
from incast.crosscheck.targets import VARIANTS, relative
from incast.stats import quantile, quantiles

LINK_DELAY_NS = 20_000
LINK_BPS = 1_000_000_000
FABRIC_BPS = 10_000_000_000
QUEUE_PACKETS = 85
ECN_K = 20
MSS = 1448
INITIAL_WINDOW = 10
MIN_RTO_NS = 10_000_000
ROUND_GAP_NS = 50_000_000
SIZE_RANGE = (2_000, 50_000)
DEADLINE_MEAN_NS = 20_000_000
DEADLINE_FLOOR_NS = 3_000_000
SEED = 1


# The D2TCP paper's fabric and OLDI workload (Section 4.2.1), queried at a fixed period.
OLDI_RACKS = 25
OLDI_HOSTS_PER_RACK = 40
OLDI_FABRIC_BPS = 40_000_000_000
OLDI_QUEUE_PACKETS = 101
OLDI_TREES_PER_APP = 5
OLDI_FAN_IN = 20
OLDI_MESSAGE_SIZES = (2_000, 6_000, 10_000, 14_000, 18_000)
OLDI_DEADLINES_NS = (20_000_000, 30_000_000, 35_000_000, 40_000_000, 45_000_000)
OLDI_QUERY_GAP_NS = 10_000_000


@dataclass(frozen=True)
class Case:
    """One network, protocol and workload."""

    name: str
    protocol: str
    """incast's protocol name: `tcp` (NewReno) or `dctcp`."""
    senders: int
    topology: str = "star"
    racks: int = 1
    hosts_per_rack: int = 0
    workload: str = "burst"
    """`burst`: every sender answers host 0 each round; `oldi`: the D2TCP paper's OLDI trees
    queried every `OLDI_QUERY_GAP_NS`; `oldi-poisson`: queried at Poisson times that far apart
    on average."""
    fabric_bps: int = FABRIC_BPS
    queue_packets: int = QUEUE_PACKETS

    @property
    def label(self) -> str:
        """What the case runs, in a few words (`incast crosscheck --list`)."""
        if self.workload == "burst":
            return f"{self.senders} senders"
        when = "every 10 ms" if self.workload == "oldi" else "at Poisson times"
        return f"{self.racks} x {self.hosts_per_rack} hosts, OLDI trees queried {when}"

    @property
    def hosts(self) -> int:
        return self.senders + 1 if self.topology == "star" else self.racks * self.hosts_per_rack

    def sender_hosts(self) -> List[int]:
        """Senders: hosts 1..N on the star; on the two-tier fabric, the hosts of the other
        racks (the receiver, host 0, is in rack 0), so every response crosses the fabric."""
        if self.topology == "star":
            return list(range(1, self.senders + 1))
        return list(range(self.hosts_per_rack, self.hosts_per_rack + self.senders))


CASES: List[Case] = [
    *[Case(f"newreno-star-{n}", "tcp", n) for n in (10, 20, 40)],
    *[Case(f"dctcp-star-{n}", "dctcp", n) for n in (10, 20, 40)],
    Case("newreno-two-tier-30", "tcp", 30, "two-tier", racks=4, hosts_per_rack=10),
    Case("dctcp-two-tier-30", "dctcp", 30, "two-tier", racks=4, hosts_per_rack=10),
    *[Case(f"{name}-d2tcp-fabric-{queries}", protocol, OLDI_FAN_IN * OLDI_TREES_PER_APP * len(OLDI_MESSAGE_SIZES),
           "two-tier", racks=OLDI_RACKS, hosts_per_rack=OLDI_HOSTS_PER_RACK, workload=workload,
           fabric_bps=OLDI_FABRIC_BPS, queue_packets=OLDI_QUEUE_PACKETS)
      for queries, workload in (("10ms", "oldi"), ("poisson", "oldi-poisson"))
      for name, protocol in (("newreno", "tcp"), ("dctcp", "dctcp"))],
]


def flows_for(case: Case, rounds: int, seed: int = SEED) -> List[Dict[str, int]]:
    """The case's flows: `rounds` bursts 50 ms apart, every sender answering host 0, or with the
    OLDI workload `rounds` queries of every tree (`oldi_flows`)."""
    if case.workload.startswith("oldi"):
        return oldi_flows(case, rounds, seed)
    rnd = random.Random(f"{seed}:{case.name}")
    flows = []
    for r in range(rounds):
        for src in case.sender_hosts():
            size = rnd.randint(*SIZE_RANGE)
            deadline = max(DEADLINE_FLOOR_NS, round(rnd.expovariate(1 / DEADLINE_MEAN_NS)))
            flows.append({"src": src, "dst": 0, "size": size, "start_ns": r * ROUND_GAP_NS, "deadline_ns": deadline})
    return flows


def oldi_flows(case: Case, rounds: int, seed: int = SEED) -> List[Dict[str, int]]:
    """The OLDI workload of D2TCP Section 4.2.1 for `rounds` x `OLDI_QUERY_GAP_NS`: five
    applications of five trees, each a parent and `OLDI_FAN_IN` leaves on distinct hosts drawn at
    random from the whole fabric (most messages cross it). At each query of a tree all its leaves
    answer the parent at once with their application's message, each with a deadline of the
    application's base times U[1, 1.5] (the paper's medium variance, Section 4.2.2). Queries
    come every `OLDI_QUERY_GAP_NS` (`oldi`: all trees at once), or (`oldi-poisson`) at each tree's
    own Poisson times with that mean gap, as incast's `oldi` workload draws them; the paper does
    not say which. The flows depend on the seed and the workload only, so NewReno and DCTCP
    answer the same ones."""
    rnd = random.Random(f"{seed}:{case.workload}")
    hosts = list(range(case.hosts))
    rnd.shuffle(hosts)
    trees = []
    for app in range(len(OLDI_MESSAGE_SIZES)):
        for _ in range(OLDI_TREES_PER_APP):
            nodes, hosts = hosts[:OLDI_FAN_IN + 1], hosts[OLDI_FAN_IN + 1:]
            trees.append((app, nodes[0], nodes[1:]))
    end = rounds * OLDI_QUERY_GAP_NS
    queries: List[Tuple[int, int]] = []  # (time, tree)
    for i in range(len(trees)):
        if case.workload == "oldi":
            queries += [(r * OLDI_QUERY_GAP_NS, i) for r in range(rounds)]
            continue
        t = round(rnd.expovariate(1 / OLDI_QUERY_GAP_NS))
        while t < end:
            queries.append((t, i))
            t += round(rnd.expovariate(1 / OLDI_QUERY_GAP_NS))
    flows = []
    for t, i in sorted(queries):
        app, parent, leaves = trees[i]
        for leaf in leaves:
            deadline = round(OLDI_DEADLINES_NS[app] * rnd.uniform(1.0, 1.5))
            flows.append({"src": leaf, "dst": parent, "size": OLDI_MESSAGE_SIZES[app], "start_ns": t,
                          "deadline_ns": deadline})
    return flows


def incast_scenario(case: Case, flows: Sequence[Dict[str, int]],
                    transport: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The incast scenario of a case: the `ns3` stack with the crosscheck's settings, and
    `transport` keys on top (a variant)."""
    if case.topology == "star":
        topology: Dict[str, Any] = {"kind": "star", "hosts": case.hosts}
    else:
        topology = {"kind": "two-tier", "racks": case.racks, "hosts_per_rack": case.hosts_per_rack,
                    "fabric_rate": f"{case.fabric_bps}bps"}
    topology.update({"link_rate": f"{LINK_BPS}bps", "link_delay": f"{LINK_DELAY_NS}ns"})
    queue = f"{case.queue_packets}pkts"
    return {
        "seed": SEED,
        "topology": topology,
        "switch": {"buffer": queue, "core_buffer": queue,
                   "ecn_threshold": ECN_K if case.protocol == "dctcp" else "off"},
        "transport": {"stack": "ns3", "protocol": case.protocol, "mss": MSS, "initial_window": INITIAL_WINDOW,
                      "min_rto": f"{MIN_RTO_NS}ns", "delayed_ack": False, **(transport or {})},
        "workload": [{"kind": "flows", "flows": [
            {"src": f["src"], "dst": f["dst"], "size_bytes": f["size"], "start": f"{f['start_ns']}ns",
             "deadline": f"{f['deadline_ns']}ns"} for f in flows]}],
    }


def ns3_setup(case: Case, flows: Sequence[Dict[str, int]]) -> Dict[str, Any]:
    """The fields of `ns3_model.cpp`'s `Setup` for a case."""
    last_start = max(f["start_ns"] for f in flows)
    return {
        "topology": case.topology, "hosts": case.hosts, "racks": case.racks, "hosts_per_rack": case.hosts_per_rack,
        "link_bps": LINK_BPS, "fabric_bps": case.fabric_bps, "link_delay_ns": LINK_DELAY_NS,
        "queue_packets": case.queue_packets, "ecn_k": ECN_K if case.protocol == "dctcp" else -1,
        "tcp": "ns3::TcpDctcp" if case.protocol == "dctcp" else "ns3::TcpNewReno",
        "mss": MSS, "initial_cwnd": INITIAL_WINDOW, "delack_count": 1, "min_rto_ns": MIN_RTO_NS, "sack": True,
        "stop_ns": last_start + 10_000_000_000,
    }


class CrosscheckError(Exception):
    """ns-3 is missing or failed."""


def run_ns3(cases: Sequence[Case], flows: Dict[str, List[Dict[str, int]]],
            trace_flow: Optional[int] = None) -> Dict[str, Dict[str, Any]]:
    """Runs the cases in one ns-3 child process; results by case name. With `trace_flow`, the
    results carry ns-3's log of that flow's sender (`"trace"`)."""
    try:
        import ns3  # noqa: F401
    except ImportError:
        raise CrosscheckError(
            "the crosscheck needs ns-3's Python bindings: pip install 'incast[crosscheck]' (ns3 3.44)") from None
    traced = -1 if trace_flow is None else trace_flow
    payload: List[Dict[str, Any]] = [{"name": c.name, "ns3": {**ns3_setup(c, flows[c.name]), "trace_flow": traced},
                                      "flows": flows[c.name]} for c in cases]
    with tempfile.TemporaryDirectory(prefix="incast-crosscheck-") as tmp:
        cases_path, out_path = Path(tmp) / "cases.json", Path(tmp) / "out.json"
        cases_path.write_text(json.dumps(payload))
        # ns-3's loader scans the working directory for builds; run it in the empty temp dir.
        proc = subprocess.run([sys.executable, "-m", "incast.crosscheck.ns3_side", str(cases_path), str(out_path)],
                              cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
            raise CrosscheckError(f"ns-3 failed (exit {proc.returncode}):\n{tail}")
        results = {r["name"]: r for r in json.loads(out_path.read_text())}
        if trace_flow is not None:
            prefix = "ns3f " if trace_flow == ALL_FLOWS else "ns3 "
            for r in results.values():
                r["trace"] = [line for line in proc.stdout.splitlines() if line.startswith(prefix)]
        return results


def run_incast(case: Case, flows: Sequence[Dict[str, int]],
               transport: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The case in incast: per-flow results in the order of `flows`, and the run's counters."""
    import incast

    t0, c0 = time.perf_counter(), time.process_time()
    result = incast.run(incast_scenario(case, flows, transport))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    table = result.flows
    by_key = {}
    for src, start, finish, rexmit, timeouts in zip(
            table["src"].to_pylist(), cast(List[float], table["start_s"].to_pylist()), table["finish_s"].to_pylist(),
            table["retransmitted_bytes"].to_pylist(), table["timeouts"].to_pylist()):
        by_key[(src, round(start * 1e9))] = (finish, rexmit, timeouts)
    finish_s, retransmitted, flow_timeouts = [], [], []
    for f in flows:
        finish, rexmit, timeouts = by_key[(f["src"], f["start_ns"])]
        finish_s.append(-1.0 if finish is None else finish)
        retransmitted.append(rexmit)
        flow_timeouts.append(timeouts)
    s = result.summary
    marks = {"first_data": s["ecn_marked"], "first_control": s["ecn_marked_control"], "remarks": s["ecn_remarked"],
             "marked_then_dropped": s["ecn_marked_dropped"]}
    ports = {p["port"]: {"first_data": p["ecn_marks"], "first_control": p["ecn_marks_control"],
                         "remarks": p["ecn_remarks"], "marked_then_dropped": p["ecn_marks_dropped"],
                         "drops": p["drops"]}
             for p in result.ports.to_pylist() if p["role"] != "host"}
    return {"name": case.name, "wall_s": wall, "cpu_s": cpu, "finish_s": finish_s, "retransmitted": retransmitted,
            "timeouts": flow_timeouts, "drops": s["packets_dropped"], "marks": marks, "ports": ports}


#: The marks of a run by what became of the packet, as both simulators count them (incast's
#: port counters; ns-3's RED "Mark" trace, split in `ns3_model.cpp`): first marks on queued data
#: (`marks`, the figure the targets judge), on queued SYNs and ACKs, marks on packets an earlier
#: queue had marked (RED counts them again; incast marks a packet once), and marks on packets the
#: full queue then dropped (RED marks before it tries the queue; incast drops unmarked). Together
#: they are every mark ns-3 counts.
MARK_KINDS = ("first_data", "first_control", "remarks", "marked_then_dropped")


def summarize(flows: Sequence[Dict[str, int]], finish_s: Sequence[float], timeouts: Sequence[int],
              retransmitted: Sequence[int], drops: int, marks: Dict[str, int]) -> Dict[str, Any]:
    """The numbers a case is judged on, for one simulator; `marks` by `MARK_KINDS`."""
    fct = [(fin - f["start_ns"] / 1e9) for f, fin in zip(flows, finish_s) if fin >= 0]
    met = sum(1 for f, fin in zip(flows, finish_s) if fin >= 0 and fin - f["start_ns"] / 1e9 <= f["deadline_ns"] / 1e9)
    # Linear quantiles (`incast.stats.LINEAR`), the same for both simulators.
    p50, p90, p99 = quantiles(fct, (0.5, 0.9, 0.99)) if fct else [math.nan] * 3
    return {
        "flows": len(flows), "completed": len(fct),
        "fct_mean_ms": 1e3 * statistics.fmean(fct) if fct else math.nan,
        "fct_p50_ms": 1e3 * p50, "fct_p90_ms": 1e3 * p90, "fct_p99_ms": 1e3 * p99,
        "deadlines_met": met / len(flows), "drops": drops, "marks": marks["first_data"],
        "marks_all": sum(marks[k] for k in MARK_KINDS), "mark_kinds": {k: marks[k] for k in MARK_KINDS},
        "timeouts": sum(timeouts), "retransmitted_segments": sum(retransmitted) / MSS,
        # Flows that saw 0, 1, 2 and 3 or more retransmission timeouts.
        "flows_by_timeouts": [sum(1 for t in timeouts if min(t, 3) == k) for k in range(4)],
    }


def agreement(flows: Sequence[Dict[str, int]], a: Sequence[float], b: Sequence[float]) -> Dict[str, float]:
    """Per-flow agreement of incast (`a`) with ns-3 (`b`): relative FCT differences of flows
    both completed, and how often both agree on meeting the deadline."""
    rel, pairs, same = [], [], 0
    for f, fa, fb in zip(flows, a, b):
        start, due = f["start_ns"] / 1e9, f["deadline_ns"] / 1e9
        same += int((fa >= 0 and fa - start <= due) == (fb >= 0 and fb - start <= due))
        if fa >= 0 and fb >= 0:
            x, y = fa - start, fb - start
            rel.append(abs(x - y) / y)
            pairs.append((x, y))
    corr = statistics.correlation([p[0] for p in pairs], [p[1] for p in pairs]) if len(pairs) > 2 else math.nan
    return {"median_abs_rel_diff": quantile(rel, 0.5) if rel else math.nan,
            "within_10pct": sum(r <= 0.1 for r in rel) / max(len(rel), 1),
            "fct_correlation": corr, "deadline_agreement": same / len(flows)}


def _fcts(flows: Sequence[Dict[str, int]], finish_s: Sequence[float]) -> List[float]:
    return [round((fin - f["start_ns"] / 1e9) * 1e3, 4) if fin >= 0 else -1.0 for f, fin in zip(flows, finish_s)]




def port_groups(ports: Dict[str, Dict[str, int]]) -> Dict[str, Dict[str, int]]:
    """Per-port marks and drops summed over groups of ports alike: the downlinks to hosts
    (`switch->h*`, `tor*->h*`), the ToRs' uplinks (`tor*->fabric`) and the fabric's downlinks
    (`fabric->tor*`)."""
    groups: Dict[str, Dict[str, int]] = {}
    for name, counts in ports.items():
        node, peer = name.split("->")
        group = "to hosts" if peer.startswith("h") else ("ToR uplinks" if peer == "fabric" else "fabric downlinks")
        into = groups.setdefault(group, {k: 0 for k in counts})
        for k, v in counts.items():
            into[k] += v
    return groups


def _ns3_summary(flows: Sequence[Dict[str, int]], r: Dict[str, Any]) -> Dict[str, Any]:
    """ns-3's numbers, marks split as incast counts them (`MARK_KINDS`)."""
    marks = {k: sum(p[k] for p in r["ports"].values()) for k in MARK_KINDS}
    s = summarize(flows, r["finish_s"], r["timeouts"], r["retransmitted"], r["drops_data"] + r["drops_other"], marks)
    if s["marks_all"] != r["marks_data"] + r["marks_other"]:
        raise CrosscheckError(f"ns-3's marks split into {s['mark_kinds']} do not add up to the "
                              f"{r['marks_data'] + r['marks_other']} RED counted")
    return s


def run_crosscheck(out: Path, *, quick: bool = False, only: Optional[Sequence[str]] = None,
                   log: Callable[[str], None] = print) -> Dict[str, Any]:
    """Runs the cases in both simulators and writes `report.md` and `results.json` into `out`."""
    rounds = 10 if quick else 50
    cases = [c for c in CASES if not only or c.name in only]
    if not cases:
        raise CrosscheckError(f"no case named {', '.join(only or [])}; cases: {', '.join(c.name for c in CASES)}")
    flows = {c.name: flows_for(c, rounds) for c in cases}
    log(f"ns-3: {len(cases)} cases, {sum(len(f) for f in flows.values())} flows ...")
    t0 = time.perf_counter()
    ns3 = run_ns3(cases, flows)
    log(f"ns-3 done in {time.perf_counter() - t0:.0f} s")
    # One untimed run first, so that the first case's time does not include loading pyarrow and
    # the extension module's first use (ns-3's times likewise leave out loading its libraries).
    run_incast(cases[0], flows[cases[0].name])

    results = []
    for case in cases:
        fl = flows[case.name]
        theirs = ns3[case.name]
        reference = _ns3_summary(fl, theirs)
        mine = run_incast(case, fl)
        row: Dict[str, Any] = {
            "case": asdict(case),
            "incast": summarize(fl, mine["finish_s"], mine["timeouts"], mine["retransmitted"], mine["drops"],
                                mine["marks"]),
            "ns3": reference,
            "ns3_detail": {k: theirs[k] for k in ("drops_data", "drops_other", "marks_data", "marks_other",
                                                  "device_drops", "cwr_from_loss", "cwr_from_recovery")},
            # Marks and drops by switch port groups (`port_groups`), both simulators.
            "ports": {"ns3": port_groups(theirs["ports"]), "incast": port_groups(mine["ports"])},
            "agreement": agreement(fl, mine["finish_s"], theirs["finish_s"]),
            "wall_s": {"incast": mine["wall_s"], "ns3": theirs["wall_s"]},
            "cpu_s": {"incast": mine["cpu_s"], "ns3": theirs["cpu_s"]},
            "variants": {},
            # Per-flow completion times in ms (-1: not completed), in the order of the flows.
            "incast_fct_ms": _fcts(fl, mine["finish_s"]),
            "ns3_fct_ms": _fcts(fl, theirs["finish_s"]),
        }
        if case.protocol == "dctcp":
            for label, keys in VARIANTS.items():
                v = run_incast(case, fl, keys)
                row["variants"][label] = summarize(fl, v["finish_s"], v["timeouts"], v["retransmitted"], v["drops"],
                                                   v["marks"])
        results.append(row)
        i, n = row["incast"], reference
        log(f"{case.name:28} FCT mean {relative(i['fct_mean_ms'], n['fct_mean_ms']):+.0%} "
            f"p50 {relative(i['fct_p50_ms'], n['fct_p50_ms']):+.0%} "
            f"p90 {relative(i['fct_p90_ms'], n['fct_p90_ms']):+.0%} "
            f"p99 {relative(i['fct_p99_ms'], n['fct_p99_ms']):+.0%} "
            f"met {100 * (i['deadlines_met'] - n['deadlines_met']):+.1f} pts "
            f"drops {relative(i['drops'], n['drops']):+.0%} "
            f"marks {relative(i['marks'], n['marks']):+.0%} RTOs {i['timeouts']} vs {n['timeouts']}")
    doc = {"rounds": rounds, "quick": quick, "settings": settings(), "results": results,
           "wall_s": time.perf_counter() - t0}
    out.mkdir(parents=True, exist_ok=True)
    save_results(out, doc)
    from incast.crosscheck.report import write_report

    write_report(out, doc)
    return doc


#: The per-flow completion times of each result, kept apart from `results.json` (in `fct.parquet`)
#: since the D2TCP fabric's cases have some 25,000 flows each.
FCT_COLUMNS = ("ns3_fct_ms", "incast_fct_ms")


def save_results(out: Path, doc: Dict[str, Any]) -> None:
    """Writes `doc` as `results.json`, its per-flow completion times as `fct.parquet` (columns
    `case`, `flow`, `ns3_fct_ms`, `incast_fct_ms`; -1 for a flow that did not complete)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows: Dict[str, List[Any]] = {"case": [], "flow": [], **{c: [] for c in FCT_COLUMNS}}
    for r in doc["results"]:
        n = len(r[FCT_COLUMNS[0]])
        rows["case"] += [r["case"]["name"]] * n
        rows["flow"] += list(range(n))
        for c in FCT_COLUMNS:
            rows[c] += r[c]
    pq.write_table(pa.table(rows), out / "fct.parquet", compression="zstd")
    slim = {**doc, "results": [{k: v for k, v in r.items() if k not in FCT_COLUMNS} for r in doc["results"]]}
    (out / "results.json").write_text(json.dumps(slim, indent=1, sort_keys=True) + "\n")


def load_results(out: Path) -> Dict[str, Any]:
    """The crosscheck document `save_results` wrote into `out`, per-flow times included, e.g. to
    write the report again without running anything."""
    import pyarrow.parquet as pq

    doc: Dict[str, Any] = json.loads((out / "results.json").read_text())
    table = pq.read_table(out / "fct.parquet").to_pydict()
    for r in doc["results"]:
        idx = [i for i, name in enumerate(table["case"]) if name == r["case"]["name"]]
        for c in FCT_COLUMNS:
            r[c] = [table[c][i] for i in idx]
    return doc


def trace_flow(out: Path, name: str, flow: int, *, quick: bool = False) -> List[Path]:
    """Runs one case and writes ns-3's log of flow `flow`'s sender (segments sent, ACKs with
    their SACK blocks, cwnd and congestion state, in segments of `MSS` from the first data
    byte) and both simulators' result for that flow, to follow a flow they treat differently."""
    case = next((c for c in CASES if c.name == name), None)
    if case is None:
        raise CrosscheckError(f"no case named {name}")
    fl = flows_for(case, 10 if quick else 50)
    if not 0 <= flow < len(fl):
        raise CrosscheckError(f"flow {flow} does not exist: {name} has flows 0 to {len(fl) - 1}")
    theirs = run_ns3([case], {name: fl}, trace_flow=flow)[name]
    mine = run_incast(case, fl)
    out.mkdir(parents=True, exist_ok=True)
    log = out / f"trace-{name}-{flow}.ns3.txt"
    log.write_text("\n".join(theirs["trace"]) + "\n")
    f = fl[flow]
    summary = out / f"trace-{name}-{flow}.json"
    summary.write_text(json.dumps({
        "flow": f,
        "ns3": {"fct_ms": (theirs["finish_s"][flow] - f["start_ns"] / 1e9) * 1e3, "timeouts": theirs["timeouts"][flow],
                "retransmitted_bytes": theirs["retransmitted"][flow]},
        "incast": {"fct_ms": (mine["finish_s"][flow] - f["start_ns"] / 1e9) * 1e3, "timeouts": mine["timeouts"][flow],
                   "retransmitted_bytes": mine["retransmitted"][flow]},
    }, indent=1) + "\n")
    return [log, summary]


#: `run_ns3`'s `trace_flow` for every flow's sender.
ALL_FLOWS = -2


def sender_traces(out: Path, name: str, *, quick: bool = False) -> Path:
    """Runs one case in ns-3 and writes every flow's sender log (segments sent, ACKs received
    with their SACK blocks and ECN-Echo, congestion states) in the form incast's replay test
    reads (`crates/incast-proto/src/tcp/tests/ns3_replay.rs`): for each flow a line
    `flow <index> <size> <protocol> <start_ns>`, then its log. Replaying ns-3's ACKs into
    incast's `ns3` stack shows, flow by flow, the first segment the two senders would send
    differently."""
    case = next((c for c in CASES if c.name == name), None)
    if case is None:
        raise CrosscheckError(f"no case named {name}")
    fl = flows_for(case, 10 if quick else 50)
    lines = run_ns3([case], {name: fl}, trace_flow=ALL_FLOWS)[name]["trace"]
    by_flow: Dict[int, List[str]] = {}
    for line in lines:
        _, flow, rest = line.split(" ", 2)
        by_flow.setdefault(int(flow), []).append(f"ns3 {rest}")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"sender-traces-{name}.txt"
    with path.open("w") as f:
        for i in sorted(by_flow):
            f.write(f"flow {i} {fl[i]['size']} {case.protocol} {fl[i]['start_ns']}\n")
            f.write("\n".join(by_flow[i]) + "\n")
    return path


def settings() -> Dict[str, Any]:
    """The shared settings, for the report."""
    return {"link": f"{units.rate(LINK_BPS)}, {units.seconds(LINK_DELAY_NS / 1e9)}", "fabric": units.rate(FABRIC_BPS),
            "oldi": {"racks": OLDI_RACKS, "hosts_per_rack": OLDI_HOSTS_PER_RACK,
                     "fabric": units.rate(OLDI_FABRIC_BPS),
                     "queue_packets": OLDI_QUEUE_PACKETS, "trees_per_app": OLDI_TREES_PER_APP, "fan_in": OLDI_FAN_IN,
                     "message_sizes": list(OLDI_MESSAGE_SIZES), "deadlines_ms": [d / 1e6 for d in OLDI_DEADLINES_NS],
                     "query_gap_ms": OLDI_QUERY_GAP_NS / 1e6},
            "queue_packets": QUEUE_PACKETS, "ecn_k_packets": ECN_K, "mss": MSS, "initial_window": INITIAL_WINDOW,
            "min_rto_ms": MIN_RTO_NS / 1e6, "round_gap_ms": ROUND_GAP_NS / 1e6, "sizes": list(SIZE_RANGE),
            "deadline_mean_ms": DEADLINE_MEAN_NS / 1e6, "deadline_floor_ms": DEADLINE_FLOOR_NS / 1e6, "seed": SEED,
            "ns3_version": _ns3_version()}


def _ns3_version() -> str:
    try:
        from importlib.metadata import version

        return version("ns3")
    except Exception:  # noqa: BLE001 (only a label)
        return "unknown"


__all__ = ["CASES", "Case", "CrosscheckError", "run_crosscheck", "flows_for", "incast_scenario", "sender_traces",
           "trace_flow"]
