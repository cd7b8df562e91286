"""The network, transports, workloads and reference numbers of Homa's headline experiment
(Montazeri, Li, Alizadeh, Ousterhout, SIGCOMM 2018, Figure 12: 99th-percentile slowdown against
message size for W1-W5 at 80% network load), each with where it comes from.

The paper's text is not in this repository (docs/homa.md): its claims here are its abstract's
(arXiv 1803.09615, the same in the SIGCOMM version), and what the authors report is the data
behind Figure 12, from their OMNeT++ simulator (PlatformLab/HomaSimulation), as the ns-3 port
ships it (serhatarslan-hub/HomaL4Protocol-ns-3 @3cac711,
`inputs/homa-paper-reproduction/original-raw-data-from-paper.txt`, sha256 70b3d66e68a74710...,
`incast.crosscheck.homa.ORIGINAL_SHA256`). That file holds, per size range, each transport's
share of messages and its mean, median and 99th-percentile slowdown: Homa's rows are committed
beside the Homa cross-check (`incast.crosscheck.homa.REFERENCE`), and this module quotes the
pFabric and NDP numbers it needs (`PFABRIC_P99`, `NDP_P99`, below), as a reproduction quotes a
paper's printed numbers. The authors ran NDP on W5 only (their file has NDP rows for W5 alone).

- **Network** (the paper's Section 5.1, as the cross-check builds it, `incast.crosscheck.homa.scenario`):
  144 hosts in 9 racks of 16 under 4 spines, 10 Gbps host links, 40 Gbps fabric links, the
  authors' simulator's fixed host and switch delays spread over incast's four links (562.5 ns
  each). The same network for every transport.
- **Load** (Section 5.1): 80% of the host links counted on the wire, as the paper counts it;
  every transport gets the same messages: the scenario's `load` is the message load that puts
  80% on the wire with Homa's packets (`incast.crosscheck.homa.message_load`, 0.60 for W1 to
  0.75 for W4 and W5). Poisson arrivals between hosts chosen uniformly.
- **Homa** (docs/homa.md): `[homa]`'s paper model with the authors' configuration, as the
  cross-check runs it: 8 levels (`[switch] priority_classes = 8`), 9,328 B unscheduled, the
  authors' unscheduled levels per workload (7, 5, 4, 1, 1), 10 MB per port (their switches'
  buffers do not overflow), packets sprayed over the spines.
- **pFabric** (docs/pfabric.md): its own ports and hosts with `[pfabric]`'s defaults, the
  settings of pFabric's simulator for this leaf-spine (`incast.reproduce.pfabric.settings`:
  36 KiB per port, initial window 12, 45 us RTO), packets sprayed over the spines (the Homa
  network sprays, as pFabric's own evaluation did).
- **NDP** (docs/ndp.md): trimming ports with 8-packet data queues (`[ndp]`'s default), packets
  of 1,500 B on the wire (`mtu = 1436B` under NDP's 64 B header: the packet size every other
  transport here uses; the authors' NDP rows count W5's sizes in packets of 1,500 B), a first
  window of 7 packets (10,052 B: the authors' NDP and pFabric rows give 10,000 B as their
  unscheduled bytes, one BDP), packets sprayed in a new random order every cycle (htsim's
  `-strat perm`).
- **DCTCP and TCP** (`incast.reproduce.pfabric.settings`, where every value is cited): 225 KB
  per port, DCTCP marking above 65 packets, the `linux` stack with a 2 ms minimum and initial
  RTO, no handshake, every segment ACKed, host NICs like the switches' ports, one ECMP path per
  flow. The paper's Figure 12 has no DCTCP or TCP curve; they run here for context and carry
  no claim.

**How many messages** (issue 40's budget: the whole `homa-slowdown` within about 8 minutes on
two cores). Single runs of each transport and workload were measured first, then a full run
with W3 at 10 ms and W4 at 20 ms of arrivals (2026-11-28, on the two-core machine shared with
other jobs, load average 6-7; its 75 simulations took 308 s of CPU time, 9 min of wall time). Per
run of seed 1: W1, W2 and W3 cost 15-50 us of wall time per message (W1 has 600,000 messages per
millisecond of arrivals, W2 280,000, W3 45,000), NDP up to 70 us; W4 and W5 0.3-0.8 s per
millisecond of arrivals, NDP up to 1.3 s (their cost is in bytes, and a W5 run ends with its
largest messages draining: 28.8 MB alone take 23 ms). NDP costs about twice the others (its
data and PULLs are separate packets; before its host queue found a flow's turn in a set, its
cost grew with the square of the messages a host had received, and W3 did not finish in 4
minutes). Every size bucket (`buckets`, about a fifth of the messages each) needs enough measured messages per seed that
its 99th percentile is not its largest value; the heavy-tailed workloads (W3-W5, most of whose
bytes are in messages of megabytes) also need arrivals long enough for the backlog of large
messages to build. The arrivals chosen (`ARRIVALS_MS`) and the messages measured per seed (the
window between the first tenth and 60%): W1 0.1 ms, 12 round trips of its 8 us network and about
30,000 messages; W2 0.4 ms, 56,000; W3 5 ms, 114,000; W4 15 ms, 7,900 (1,300 in its smallest
bucket); W5 40 ms, 1,070 (170 in its largest bucket, the fewest of any: its 99th percentile is
about its second largest). These are far shorter than the cross-check's 5 ms to 1 s of
arrivals, and the shorter a heavy-tailed run, the fewer large messages are in flight behind the
measured ones: on seed 1, W3 with 4 ms of arrivals instead of 10 ms gave Homa's buckets 99th
percentiles 1-6% lower and TCP's 4-10% lower. The shorter W3
and W4 take a quarter of the CPU time off the run measured above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from incast.protocols import labels

PROTOCOLS = ("homa", "pfabric", "ndp", "dctcp", "tcp")
LABELS = labels(PROTOCOLS)
WORKLOADS = ("W1", "W2", "W3", "W4", "W5")
NAMES = {"W1": "Facebook memcached", "W2": "Google search RPC", "W3": "Google all RPC", "W4": "Facebook Hadoop",
         "W5": "DCTCP web search"}
"""The paper's Figure 1 names of the workloads (docs/scenario.md, "Named distributions")."""
NETWORK_LOAD = 0.8
"""The paper's load of Figure 12, on the wire."""

NETWORK: Dict[str, Any] = {
    "kind": "leaf-spine", "racks": 9, "hosts_per_rack": 16, "spines": 4, "link_rate": "10Gbps",
    "fabric_rate": "40Gbps", "link_delay": "562.5ns",
}
"""The Homa cross-check's network (`incast.crosscheck.homa.scenario`): the authors' delays on incast's links."""

NDP = {"mtu": "1436B", "initial_window": 7}
"""NDP's packets of 1,500 B on the wire and a first window of 10,052 B (module docstring)."""

ARRIVALS_MS: Dict[str, float] = {"W1": 0.1, "W2": 0.4, "W3": 5.0, "W4": 15.0, "W5": 40.0}
"""Arrivals per workload in a full run (module docstring: why these)."""
QUICK_ARRIVALS_MS: Dict[str, float] = {"W1": 0.01, "W2": 0.03, "W3": 0.1, "W4": 0.3, "W5": 0.5}
"""The quick run's: a few hundred to a few thousand messages each, the shape only (W5's few
dozen leave its claims not exercised)."""
WARMUP_SHARE, MEASURED_SHARE = 0.1, 0.6
"""Messages that arrive in the first tenth are the warm-up and those of the last 40% are run but
not measured, so that each measured message has the load behind it until it is delivered (the
cross-check's rule, `incast.crosscheck.homa.Case`)."""
BUCKET_SHARE = 20.0
"""Percent of the messages (by the authors' shares) a size bucket gathers, at least."""

PROTOCOL_KEY = "transport.protocol"
SIZE_KEY = "workload.0.size"
LOAD_KEY = "workload.0.load"


@dataclass(frozen=True)
class Bucket:
    """Neighbouring size ranges of the authors' table, holding about `BUCKET_SHARE` percent of
    a workload's messages: sizes above `low` up to `high` bytes. A message's range is the
    smallest bound at or above its size, so a bucket ends on a range's bound."""

    low: int
    high: int
    share: float
    """Percent of the workload's messages (the authors' counts at 80% load)."""
    bounds: Tuple[int, ...]
    homa_p99: Tuple[float, ...]
    """The authors' Homa 99th percentile of each range of the bucket, at 80% load."""

    @property
    def label(self) -> str:
        return f"({_size(self.low)}, {_size(self.high)}]"


def _size(b: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("KB", 1_000)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b} B"


def buckets(workload: str, reference: Optional[str] = None) -> List[Bucket]:
    """The size buckets of `workload` (W1-W5): the authors' size ranges at 80% load, gathered in
    order until each holds at least `BUCKET_SHARE` percent of the messages (the last takes what
    is left), with the authors' Homa 99th percentile of each range. Read from the committed Homa
    rows (`incast.crosscheck.homa.REFERENCE`) or `reference`, a text of the same form."""
    from incast.crosscheck import homa as crosscheck

    text = reference if reference is not None else crosscheck.REFERENCE.read_text()
    name = crosscheck.WORKLOADS[workload][1]
    ranges = crosscheck.parse_reference(text)[(name, NETWORK_LOAD)]
    out: List[Bucket] = []
    current: List[Any] = []
    low = 0
    for r in ranges:
        current.append(r)
        if sum(c.share for c in current) >= BUCKET_SHARE or r is ranges[-1]:
            out.append(Bucket(low, r.bound, sum(c.share for c in current), tuple(c.bound for c in current),
                              tuple(c.ref_p99 for c in current)))
            low, current = r.bound, []
    return out


# The authors' pFabric and NDP, quoted from the file above: for each bucket of `buckets` (the
# same ranges; 80% load), the lowest and highest 99th-percentile slowdown of its ranges. The
# 99th percentile of a bucket, a mixture of its ranges, lies between the lowest and highest of
# theirs. NDP's ranges are counted in packets of 1,500 B and are matched to W5's ranges by
# their packet counts (W5's sizes are whole packets of 1,442 B, docs/homa.md).
PFABRIC_P99: Mapping[str, Sequence[Tuple[float, float]]] = {
    "W1": ((1.903, 1.999), (1.993, 2.062), (2.047, 2.094), (2.098, 2.559), (2.683, 150.582)),
    "W2": ((1.985, 2.008), (1.934, 1.993), (1.916, 2.045), (2.098, 2.463), (2.619, 57.095)),
    "W3": ((2.041, 2.106), (1.979, 2.037), (1.899, 1.969), (1.765, 1.891), (1.606, 35.906)),
    "W4": ((1.853, 2.059), (1.754, 1.845), (1.572, 1.747), (1.299, 3.034), (2.967, 93.914)),
    "W5": ((1.168, 1.490), (1.328, 2.224), (1.913, 2.106), (2.135, 3.678), (3.707, 56.494)),
}
NDP_P99: Mapping[str, Sequence[Tuple[float, float]]] = {
    "W5": ((10.482, 18.101), (14.482, 17.762), (14.999, 18.158), (15.498, 19.044), (14.511, 16.912)),
}

#: The Homa cross-check's long runs (docs/crosscheck/homa/, one seed, 5 ms to 1 s of arrivals).
CROSSCHECK_RESULTS = "docs/crosscheck/homa/results.json"


def scenario(protocol: str) -> Dict[str, Any]:
    """The scenario every point of `protocol` runs, before its workload is set (`workload_zip`)."""
    from incast.crosscheck import homa as crosscheck
    from incast.reproduce.pfabric import settings as pfabric

    base: Dict[str, Any] = {
        "topology": dict(NETWORK),
        "workload": [{"kind": "poisson", "load": 0.5, "size": "homa-w1", "stop": "1ms"}],
        # No duration: the run ends when the last message does; the horizon bounds a run gone wrong.
        "run": {"warmup": "0.1ms", "measure_until": "0.6ms", "horizon": "100s"},
    }
    if protocol == "homa":
        return {**base, "switch": {"priority_classes": 8, "buffer": "10MB", "load_balancing": "spray"},
                "transport": {"protocol": "homa"},
                "homa": {"unscheduled_bytes": f"{crosscheck.UNSCHEDULED_BYTES}B", "unscheduled_priorities": 7}}
    if protocol == "pfabric":
        return {**base, "switch": {"load_balancing": "spray"}, "transport": {"protocol": "pfabric"}}
    if protocol == "ndp":
        return {**base, "switch": {"load_balancing": "spray-permute"}, "transport": {"protocol": "ndp"},
                "ndp": dict(NDP)}
    if protocol in ("dctcp", "tcp"):
        # The stack named, as every reproduction names its own: incast's default may change.
        return {**base,
                "switch": {"buffer": pfabric.BUFFER, "ecn_threshold": pfabric.DCTCP_K_PACKETS,
                           "host_nic": "like-switch"},
                "transport": {"protocol": protocol, "stack": "linux", "min_rto": pfabric.MIN_RTO,
                              "initial_rto": pfabric.MIN_RTO, "handshake": False, "delayed_ack": False}}
    raise ValueError(f"no setting for protocol {protocol!r}; choose among {', '.join(PROTOCOLS)}")


def message_load(workload: str) -> float:
    """The scenario `load` (message bytes) that puts `NETWORK_LOAD` on the wire with Homa's
    packets, for `workload`'s sizes (`incast.crosscheck.homa.message_load`)."""
    from incast.crosscheck import homa as crosscheck

    named = crosscheck.WORKLOADS[workload][0]
    return crosscheck.message_load(NETWORK_LOAD, crosscheck.sizes_of(crosscheck.named_points(named)[1]))


def workload_zip(protocol: str, workloads: Sequence[str], arrivals_ms: Mapping[str, float]) -> Dict[str, List[Any]]:
    """The keys that vary together from one workload to the next: its sizes, load, arrivals and
    measurement window, and for Homa the authors' unscheduled levels."""
    from incast.crosscheck import homa as crosscheck

    ms = [arrivals_ms[w] for w in workloads]
    z: Dict[str, List[Any]] = {
        SIZE_KEY: [crosscheck.WORKLOADS[w][0] for w in workloads],
        LOAD_KEY: [message_load(w) for w in workloads],
        "workload.0.stop": [f"{m:g}ms" for m in ms],
        "run.warmup": [f"{WARMUP_SHARE * m:g}ms" for m in ms],
        "run.measure_until": [f"{MEASURED_SHARE * m:g}ms" for m in ms],
    }
    if protocol == "homa":
        z["homa.unscheduled_priorities"] = [crosscheck.WORKLOADS[w][2] for w in workloads]
    return z


def workload_of(size: str) -> str:
    """W1-W5 from a named size (`homa-w3`)."""
    return "W" + size.rsplit("w", 1)[1]
