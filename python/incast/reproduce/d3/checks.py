"""Quick checks of D3's headline numbers (D3 Sections 6.1.1 and 6.2) against this simulator.

Run with `python -m incast.reproduce.d3.checks`. Each check prints the paper's number as printed
and ours, on the paper's settings as far as the text gives them (d3-testbed or a single switch,
1 Gbps, 128 KB router buffers, exponential deadlines). These are checks, not the full
reproductions (those sweep 200 runs per point; see the reproduction harness): a few seeds,
seconds of wall time, except `--figure9`.

Deadlines are floored at `settings.DEADLINE_FLOOR` (3 ms; `incast.reproduce.d3.settings` says why).
"""

from __future__ import annotations

import random
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Tuple, cast

from incast.api import run
from incast.fluid import FluidFlow, deadlines_met, fair_share
from incast.reproduce.d3.settings import DEADLINE_FLOOR, DEADLINE_FLOOR_S, FAIR_SHARE_OVERHEAD_S, PAYLOAD_RATE, STACK
from incast.stats import INDEX, quantile, quantiles

# D3 Section 6.2: "the first three flows achieved an average network throughput of 302 Mbps each,
# while the average throughput for the last flow was 595 Mbps".
PAPER_MULTI_BOTTLENECK_MBPS = (302, 302, 302, 595)


def multi_bottleneck(duration_s: float = 0.3) -> List[float]:
    """Flows 1->3, 2->3, 4->3 and 4->5 of D3 Figure 8 (our hosts 0->2, 1->2, 3->2, 3->4), Mbps."""
    result = run(
        {
            "topology": {"kind": "d3-testbed"},
            "transport": {"stack": STACK, "protocol": "d3"},
            "workload": [{"kind": "long-flows", "pairs": [[0, 2], [1, 2], [3, 2], [3, 4]]}],
            "run": {"duration": f"{duration_s}s"},
        }
    )
    delivered = cast(List[int], result.flows["delivered_bytes"].to_pylist())  # a column without nulls
    return [b * 8 / duration_s / 1e6 for b in delivered]


def long_flows(flows: int, duration_s: float = 0.2) -> Dict[str, float]:
    """D3 Figure 16: `flows` long flows into one host; utilization and queue statistics."""
    result = run(
        {
            "topology": {"kind": "star", "hosts": flows + 1},
            "transport": {"stack": STACK, "protocol": "d3"},
            "workload": [{"kind": "long-flows", "pairs": [[i, 0] for i in range(1, flows + 1)]}],
            "run": {"duration": f"{duration_s}s"},
            "output": {"queue_sample_interval": "100us", "queue_sample_hosts": [0]},
        }
    )
    # Columns without nulls.
    delivered = sum(cast(List[int], result.flows["delivered_bytes"].to_pylist()))
    queue = cast(List[int], result.queues["queue_bytes"].to_pylist())
    median, p99 = quantiles(queue, (0.5, 0.99), INDEX)  # as incast.reproduce.d3.microbenchmarks.figure16
    return {
        "goodput_gbps": delivered * 8 / duration_s / 1e9,
        "queue_mean_kb": statistics.fmean(queue) / 1e3,
        "queue_median_kb": median / 1e3,
        "queue_p99_kb": p99 / 1e3,
    }


def burst_lateness(protocol: str, seeds: int = 5, deadline_min: str = DEADLINE_FLOOR) -> Dict[str, float]:
    """D3 Section 6.1.1 with moderate deadlines and 14-30 senders: missed deadlines and, of the
    late flows, how far past the deadline they finish (as a fraction of the deadline)."""
    missed = total = 0
    overshoot: List[float] = []
    for senders in range(14, 31, 4):
        for seed in range(1, seeds + 1):
            flows = run(
                {
                    "seed": seed,
                    "topology": {"kind": "d3-testbed"},
                    "transport": {"stack": STACK, "protocol": protocol},
                    # A host of rack 0 aggregates; workers on the other two hosts of its rack.
                    "workload": [
                        {
                            "kind": "flow-burst",
                            "aggregator": 0,
                            "worker_hosts": [1, 2],
                            "senders": senders,
                            "deadline": {"dist": "exponential", "mean": "30ms", "min": deadline_min},
                            "rounds": 5,
                        }
                    ],
                }
            ).flows.to_pylist()
            for f in flows:
                if f["met_deadline"] is None:
                    continue  # unknown: the run ended before its deadline
                total += 1
                if not f["met_deadline"]:
                    missed += 1
                    allowed = f["deadline_s"] - f["start_s"]
                    if f["finish_s"] is not None and allowed > 0:
                        overshoot.append((f["finish_s"] - f["deadline_s"]) / allowed)
    return {
        "missed": missed / total,
        "p95_overshoot": quantile(overshoot, 0.95, INDEX) if overshoot else 0.0,
        "mean_overshoot": statistics.fmean(overshoot) if overshoot else 0.0,
    }


# D3 Table 1: flow arrival rate supported at >99% application throughput.
PAPER_TABLE_1_FLOWS_PER_S = {"tcp": 100, "tcp-10ms": 1100, "rcpdc": 1300, "d3": 2000}


def benchmark_traffic(protocol: str, rate_per_s: float, min_rto: str = "300ms", seed: int = 1,
                      arrivals_s: float = 1.0, quench: bool = False,
                      deadline_min_s: float = DEADLINE_FLOOR_S) -> Dict[str, Any]:
    """D3 Section 6.1.2 on one rack of the testbed: Poisson responses of [2 KB, 50 KB] with moderate
    deadlines from hosts 1 and 2 to aggregator 0, and one long flow from each of them to it."""
    rng = random.Random(seed)
    flows: List[Dict[str, Any]] = []
    t = rng.expovariate(rate_per_s)
    while t < arrivals_s:
        flows.append({"src": rng.choice([1, 2]), "dst": 0, "size_bytes": rng.randint(2000, 50000),
                      "start_s": t, "deadline_s": max(rng.expovariate(1 / 0.030), deadline_min_s)})
        t += rng.expovariate(rate_per_s)
    duration = arrivals_s + 0.5
    result = run(
        {
            "seed": seed,
            "topology": {"kind": "d3-testbed"},
            "switch": {"buffer": "100KB" if protocol == "tcp" else "128KB"},
            "transport": {"stack": STACK, "protocol": protocol, "min_rto": min_rto, "handshake": True},
            "d3": {"quench": quench},
            "workload": [{"kind": "flows", "flows": flows}, {"kind": "long-flows", "pairs": [[1, 0], [2, 0]]}],
            "run": {"duration": f"{duration}s"},
        }
    )
    long_mbps = [
        f["delivered_bytes"] * 8 / duration / 1e6 for f in result.flows.to_pylist() if f["size_bytes"] is None
    ]
    quenched = sum(cast(List[bool], result.flows["quenched"].to_pylist()))  # a column without nulls
    return {"app_throughput": result.summary["app_throughput"], "long_flow_mbps": long_mbps, "quenched": quenched}


def burst_flows(protocol: str, senders: int, seed: int, deadline_mean: str = "30ms",
                deadline_min: str = DEADLINE_FLOOR) -> List[Dict[str, Any]]:
    """One flow burst of D3 Section 6.1.1 on the testbed: `senders` workers on hosts 1 and 2
    answer aggregator 0 at once; returns the flow table as rows."""
    return run(
        {
            "seed": seed,
            "topology": {"kind": "d3-testbed"},
            "switch": {
                "buffer": "128KB" if protocol in ("d3", "rcpdc") else "100KB",
                "priority_classes": 3 if protocol == "tcppr" else 1,
            },
            "transport": {"stack": STACK, "protocol": protocol, "handshake": True},
            "workload": [
                {
                    "kind": "flow-burst",
                    "aggregator": 0,
                    "worker_hosts": [1, 2],
                    "senders": senders,
                    "deadline": {"dist": "exponential", "mean": deadline_mean, "min": deadline_min},
                }
            ],
        }
    ).flows.to_pylist()


def application_throughput(protocol: str, senders: int, deadline_mean: str = "30ms",
                           deadline_min: str = DEADLINE_FLOOR, runs: int = 200, threads: int = 2) -> float:
    """D3 Figure 10: the share of deadlines met over `runs` bursts of `senders` senders."""

    def burst(seed: int) -> Tuple[int, int]:
        flows = burst_flows(protocol, senders, seed, deadline_mean, deadline_min)
        met = [f["met_deadline"] for f in flows if f["met_deadline"] is not None]  # null: not judged
        return sum(met), len(met)

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(burst, range(1, runs + 1)))
    return sum(m for m, _ in results) / sum(t for _, t in results)


def fair_share_reference(senders: int, deadline_min: str = DEADLINE_FLOOR, runs: int = 200) -> Tuple[float, float]:
    """RCPdc against ideal fair sharing on the same bursts: (RCPdc's application throughput,
    processor sharing's with `FAIR_SHARE_OVERHEAD_S` added to every completion time)."""
    met = ideal = total = 0
    for seed in range(1, runs + 1):
        # The flows the run could judge, for both: a burst runs until every flow is done, so all.
        flows = burst_flows("rcpdc", senders, seed, deadline_min=deadline_min)
        flows = [f for f in flows if f["met_deadline"] is not None]
        fluid = [FluidFlow(0.0, f["size_bytes"], f["deadline_s"] - f["start_s"]) for f in flows]
        total += len(flows)
        met += sum(f["met_deadline"] for f in flows)
        ideal += deadlines_met(fluid, fair_share(fluid, PAYLOAD_RATE), slack_s=FAIR_SHARE_OVERHEAD_S)
    return met / total, ideal / total


def senders_supported(protocol: str, deadline_mean: str, deadline_min: str = DEADLINE_FLOOR, runs: int = 200,
                      max_senders: int = 40, threads: int = 2) -> Tuple[int, int]:
    """D3 Figure 9 (and the 95% figures of Section 6.1.1): the largest n such that every sender
    count up to n keeps application throughput >= 99% (and >= 95%) over `runs` single bursts on
    the testbed. Runs release the GIL, so `threads` share the cores."""
    supported = {0.99: 0, 0.95: 0}
    for senders in range(1, max_senders + 1):
        share = application_throughput(protocol, senders, deadline_mean, deadline_min, runs, threads)
        for level in supported:
            if share >= level and supported[level] == senders - 1:
                supported[level] = senders
        if all(v < senders for v in supported.values()):
            break
    return supported[0.99], supported[0.95]


def main() -> None:
    got = multi_bottleneck()
    print("D3 Section 6.2, multi-bottleneck (Mbps): paper", PAPER_MULTI_BOTTLENECK_MBPS,
          "ours", [round(x) for x in got])
    print("D3 Figure 16, long flows: paper ~0.95 Gbps, queue mean 4-6 KB, median 1.5 KB, p99 16.5-48 KB")
    for n in (2, 5, 10, 20):
        r = long_flows(n)
        print(f"  {n:2} flows: goodput {r['goodput_gbps']:.3f} Gbps, queue mean {r['queue_mean_kb']:.1f} KB, "
              f"median {r['queue_median_kb']:.1f} KB, p99 {r['queue_p99_kb']:.1f} KB")
    paper: Dict[str, Any] = {"rcpdc": (0.081, 0.75, 0.30), "d3": (0.01, 0.277, 0.09)}
    print("D3 Section 6.1.1, moderate deadlines, 14-30 senders: missed, p95 / mean overshoot of late flows")
    for protocol in ("rcpdc", "d3"):
        r = burst_lateness(protocol)
        m, p95, mean = paper[protocol]
        print(f"  {protocol:5}: paper {m:.1%} / {p95:.0%} / {mean:.0%}; ours {r['missed']:.1%} / "
              f"{r['p95_overshoot']:.0%} / {r['mean_overshoot']:.0%}")
    print("D3 Table 1, benchmark traffic: paper's flows/s at >99% application throughput",
          PAPER_TABLE_1_FLOWS_PER_S, "; ours, application throughput at each rate:")
    for label, protocol, rto in (("tcp", "tcp", "300ms"), ("tcp-10ms", "tcp", "10ms"), ("rcpdc", "rcpdc", "300ms"),
                                 ("d3", "d3", "300ms")):
        cells = []
        for rate in (100, 500, 1000, 2000, 3000):
            r = benchmark_traffic(protocol, rate, rto)
            cells.append(f"{rate}/s {r['app_throughput']:.1%}")
        print(f"  {label:8}: " + ", ".join(cells))
    print("D3 Figure 15, quenching past collapse (paper: collapse beyond 2500 flows/s, quenching declines smoothly):")
    for rate in (3000, 4000, 5000, 6000):
        plain, quenched = benchmark_traffic("d3", rate), benchmark_traffic("d3", rate, quench=True)
        print(f"  {rate}/s: without {plain['app_throughput']:.1%}, with quenching {quenched['app_throughput']:.1%}"
              f" ({quenched['quenched']} flows quenched)")


def figure9(deadline_min: str) -> None:
    """Prints D3 Figure 9's numbers for the three deadline settings, Figure 10's at 10-40
    senders, and RCPdc beside ideal fair sharing (about a minute on two cores)."""
    print(f"D3 Figure 9 / Section 6.1.1 (deadline floor {deadline_min}): senders supported at >=99% / >=95%;"
          " paper at 95%, moderate: D3 36, RCPdc 22, TCPpr 10, TCP 8")
    for mean in ("20ms", "30ms", "40ms"):
        cells = [f"{p} {senders_supported(p, mean, deadline_min)}" for p in ("tcp", "tcppr", "rcpdc", "d3")]
        print(f"  mean {mean}: " + ", ".join(cells))
    print("D3 Figure 10, moderate deadlines: application throughput at 10 / 20 / 30 / 40 senders")
    for p in ("tcp", "tcppr", "rcpdc", "d3"):
        cells = [f"{application_throughput(p, n, deadline_min=deadline_min):.1%}" for n in (10, 20, 30, 40)]
        print(f"  {p:5}: " + " / ".join(cells))
    print("RCPdc against ideal processor sharing (+1 ms) on the same bursts, moderate deadlines:")
    for n in (10, 20, 30):
        rcpdc, ideal = fair_share_reference(n, deadline_min)
        print(f"  {n} senders: RCPdc {rcpdc:.1%}, ideal fair share {ideal:.1%}")


if __name__ == "__main__":
    if "--figure9" in sys.argv:
        at = sys.argv.index("--figure9") + 1
        figure9(sys.argv[at] if len(sys.argv) > at else DEADLINE_FLOOR)
    else:
        main()
