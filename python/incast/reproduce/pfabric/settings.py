"""pFabric's Section 5 experiment, the field's standard one, as pFabric (Alizadeh et al., SIGCOMM
2013, Section 5) and most datacenter transport papers since run it: Poisson arrivals between random hosts of a 144-host
leaf-spine (9 racks of 16 hosts, 4 spines, 10 Gbps hosts, 40 Gbps uplinks, so not
oversubscribed), flow sizes from the web-search (DCTCP, SIGCOMM 2010) or data-mining (VL2,
SIGCOMM 2009) distribution, at a load from 0.2 to 0.8 of every host's link; reported as FCT
slowdown by size: the mean and 99th percentile of flows up to 100 KB and the mean of flows over
10 MB, the three statistics pFabric plots per workload.

`incast experiment leaf-spine` (`incast.experiments.leaf_spine`) runs it at the loads below and
`incast reproduce pfabric-web-search pfabric-data-mining` (`incast.reproduce.pfabric.evaluation`) at
every load from 0.1 to 0.8.

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

from typing import Any, Dict, Sequence, Tuple

from incast.protocols import labels

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
