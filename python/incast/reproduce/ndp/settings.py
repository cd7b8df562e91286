"""The network and hosts of NDP's two headline experiments (Handley et al., SIGCOMM 2017), as the
authors' own simulator runs them: htsim (Broadcom/csg-htsim @841d9e7), whose
`sim/EXAMPLES/incast_shortflows` and `sim/EXAMPLES/permutation` READMEs say they are "essentially
the NDP curve" of the paper's Figures 16 and 14. The paper's text is not in this repository
(docs/ndp.md); where a setting comes from is named beside it.

- Network: a 10 Gbps fat tree (htsim's `FatTreeTopology`, 1 us per link: `RTT = 1`, "per link
  delay in us", of the examples' `main_*_permutation.cpp`). The examples run 432 hosts, k = 12;
  so does the full run here. The quick run takes k = 8 (128 hosts).
- NDP: `[ndp]`'s defaults, which are the examples' settings (9000 B packets, 8-packet queues, a
  first window of 23, PULLs at 99% of the link; docs/ndp.md), and packets sprayed over every
  path in a new random order every cycle (`-strat perm` of both examples, `SCATTER_PERMUTE`;
  `load_balancing = "spray-permute"`).
- TCP and DCTCP: as htsim's `TcpSrc` and the DCTCP example run them where incast has the key:
  9000 B segments (htsim's packet size is global, `Packet::data_packet_size`), switch queues of
  100 packets (the permutation example's `-q 100` for DCTCP: "Increasing above 100 does not
  further improve performance"), ECN marking above 15 packets for DCTCP (`FatTreeTopology`'s
  `ECNQueue(..., memFromPkt(15))`), a 250 ms floor on the RTO (`tcp.cpp` line 183: `if (_rto <
  timeFromSec(0.25))`), every segment ACKed (htsim's `TcpSink` has no delayed ACK), no handshake
  (htsim's flows start sending at once), per-flow ECMP (htsim's TCP and DCTCP take one path per
  flow: "it only uses a single path for each flow, routed using a random path using ECMP"). The
  rest is incast's `linux` stack (initial window 10, SACK); htsim's first RTO, 3 s
  (`tcp.cpp` line 43), is taken as the 250 ms floor instead, which can only shorten TCP's
  worst case. Host NICs are incast's default (a 1 ms backlog) for both TCP variants.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from incast.protocols import labels

if TYPE_CHECKING:
    from incast.reproduce.core import Context

PROTOCOLS = ("ndp", "dctcp", "tcp")
LABELS = labels(PROTOCOLS)

LINK_RATE = "10Gbps"
LINK_BPS = 10e9
LINK_DELAY = "1us"
K, QUICK_K = 12, 8
"""Fat-tree arity: 432 hosts as in the examples (`-nodes 432`), 128 in a quick run."""
MTU = 9000
"""Payload of a full packet for every protocol (htsim `Packet::data_packet_size`)."""
TCP_BUFFER = "100pkts"
DCTCP_K = "15pkts"
MIN_RTO = "250ms"

PROTOCOL_KEY = "transport.protocol"
TCP_PROTOCOLS = ("dctcp", "tcp")
TCP_AXIS: Dict[str, List[Any]] = {PROTOCOL_KEY: list(TCP_PROTOCOLS)}
"""The TCP variants, varied over one sweep; NDP runs a sweep of its own, whose scenario has no
TCP keys (NDP reads none of them)."""


def hosts(k: int) -> int:
    """The hosts of a k-ary fat tree."""
    return k ** 3 // 4


def scenario(k: int, protocol: str, workload: Dict[str, Any]) -> Dict[str, Any]:
    """The scenario every point runs: the fat tree, and NDP with `[ndp]`'s defaults sprayed over
    every path, or a TCP variant (`protocol` "tcp" names both: the sweep sets which) on one ECMP
    path per flow with the TCP keys of the module docstring; then `workload`."""
    topology = {"kind": "fat-tree", "k": k, "link_rate": LINK_RATE, "link_delay": LINK_DELAY}
    if protocol == "ndp":
        return {"topology": topology, "switch": {"load_balancing": "spray-permute"}, "transport": {"protocol": "ndp"},
                "workload": [workload]}
    return {
        "topology": topology,
        "switch": {"buffer": TCP_BUFFER, "ecn_threshold": DCTCP_K, "load_balancing": "ecmp"},
        "transport": {"stack": "linux", "protocol": "dctcp", "mss": MTU, "min_rto": MIN_RTO,
                      "initial_rto": MIN_RTO, "handshake": False, "delayed_ack": False},
        "workload": [workload],
    }


def derangement(n: int, seed: int, salt: str) -> List[int]:
    """A random permutation of range(n) with no fixed point, from `seed`: each host's partner."""
    rnd = random.Random(f"{salt}:{seed}")
    while True:
        dst = list(range(n))
        rnd.shuffle(dst)
        if all(s != d for s, d in enumerate(dst)):
            return dst


def shuffled_senders(n_hosts: int, receiver: int, seed: int) -> List[int]:
    """Every host but `receiver`, in a random order from `seed`: an incast of N senders takes
    the first N, so that which racks and pods they sit in varies with the seed (htsim's
    `incast_shortflows` draws its senders at random too)."""
    rnd = random.Random(f"ndp-incast:{seed}")
    others = [h for h in range(n_hosts) if h != receiver]
    rnd.shuffle(others)
    return others


def ideal_incast_s(senders: int, size_bytes: int) -> float:
    """The completion time of the last of `senders` flows of `size_bytes` each into one 10 Gbps
    link, the ideal the paper's incast is measured against: N x size / link rate (payload only;
    the first packet's trip across the network, a few microseconds, left out)."""
    return senders * size_bytes * 8 / LINK_BPS


def wire_share() -> float:
    """The share of a full NDP packet that is payload: 9000 / 9064. A link full of NDP packets
    delivers at most this share of its rate as payload."""
    return MTU / (MTU + 64)


def sweep_protocols(ctx: "Context", name: str, k: int, workload: Dict[str, Any], run: Dict[str, Any],
                    columns: Sequence[str], grid: Optional[Mapping[str, Sequence[Any]]] = None,
                    ) -> Tuple[List[Dict[str, Any]], Dict[Tuple[Any, ...], Dict[str, Any]]]:
    """Runs `workload` under every protocol (NDP's sweep and the TCP variants' sweep, each over
    `grid`): the flows' `columns` with their `protocol` and the grid's keys, and each point's
    summary by (protocol, *grid values)."""
    grid = dict(grid or {})
    flows: List[Dict[str, Any]] = []
    summaries: Dict[Tuple[Any, ...], Dict[str, Any]] = {}
    for sweep, protocols in (("ndp", ("ndp",)), ("tcp", TCP_PROTOCOLS)):
        tree = {**scenario(k, sweep, workload), "run": dict(run)}
        result = ctx.sweep(f"{name}-{sweep}", tree, grid=grid or None,
                           zips=[TCP_AXIS] if sweep == "tcp" else ())
        varied = [*grid, *([PROTOCOL_KEY] if sweep == "tcp" else [])]
        for f in result.flows().select([*varied, *columns]).to_pylist():
            f["protocol"] = f.pop(PROTOCOL_KEY, protocols[0])
            flows.append(f)
        for s in result.summary().to_pylist():
            protocol = s.get(PROTOCOL_KEY, protocols[0])
            summaries[(protocol, *(s[key] for key in grid))] = s
    return flows, summaries
