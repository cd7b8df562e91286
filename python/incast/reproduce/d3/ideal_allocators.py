"""D3 Section 3, Figure 5: application throughput of the ideal fair-share, EDF and rate-reservation
allocators on one 1 Gbps link as the number of concurrent flows grows.

Run with `python -m incast.reproduce.d3.ideal_allocators`. The model is `incast.fluid` (exact,
no packets). The flows, "chosen to be consistent with typical datacenters [5]" (the DCTCP
measurements, which the paper cites for sizes and for "the fraction of short and long flows"):

- `n` deadline flows, all arriving together (a burst of concurrent flows), of uniform
  [2 KB, 50 KB]: the response sizes D3 itself uses for its workers (Section 6.1.1), DCTCP's
  query and short-message traffic;
- two long background flows without deadlines, present throughout: the 75th percentile of
  long-flow multiplexing in [5], as D3 Section 6.1.2 uses it;
- deadlines exponential with mean 20, 30 or 40 ms (tight, moderate, lax) and the 3 ms floor of
  the packet experiments (`d3_checks.DEADLINE_FLOOR`, derived in `docs/results-d3.md`), so that
  Figure 5 and Figures 9-10 speak of the same flows. Without a floor no allocator meets every
  deadline even for one flow: 2% of deadlines of mean 20 ms fall below the 0.4 ms a 50 KB flow
  needs on an empty link.
"""

from __future__ import annotations

import random
from typing import Dict, List, Sequence

from incast.fluid import ALLOCATORS, FluidFlow, completion_times, deadlines_met
from incast.reproduce.d3.settings import DEADLINE_FLOOR_S

LINK_BYTES_PER_S = 125e6
DEADLINE_MEANS_MS = (20, 30, 40)
SIZE_MIN, SIZE_MAX = 2_000, 50_000
BACKGROUND_FLOWS = 2
# Every count up to 60, where the 100% points are decided, then coarser out to overload.
FLOW_COUNTS = tuple(range(1, 61)) + tuple(range(70, 160, 10))
# The counts printed in the summary table.
SHOWN_COUNTS = (5, 10, 20, 30, 40, 60, 80, 100, 150)


def draw_flows(n: int, deadline_mean_s: float, rng: random.Random,
               background: int = BACKGROUND_FLOWS) -> List[FluidFlow]:
    """`n` deadline flows and `background` long flows, all present from time 0."""
    flows = [
        FluidFlow(0.0, rng.randint(SIZE_MIN, SIZE_MAX), max(rng.expovariate(1 / deadline_mean_s), DEADLINE_FLOOR_S))
        for _ in range(n)
    ]
    return flows + [FluidFlow(0.0, float("inf"), float("inf"))] * background


def application_throughput(allocator: str, n: int, deadline_mean_s: float, trials: int = 200,
                           seed: int = 1) -> float:
    """Share of the deadline flows that meet their deadline, over `trials` independent draws
    (the same draws for every allocator, so the comparison is paired)."""
    rng = random.Random(f"{seed}/{n}/{deadline_mean_s}")
    met = total = 0
    for _ in range(trials):
        flows = draw_flows(n, deadline_mean_s, rng)
        deadline_flows = flows[:n]
        finish = completion_times(allocator, flows, LINK_BYTES_PER_S)[:n]
        met += deadlines_met(deadline_flows, finish)
        total += n
    return met / total


def figure5(flow_counts: Sequence[int] = FLOW_COUNTS, trials: int = 200,
            seed: int = 1) -> Dict[str, Dict[int, Dict[int, float]]]:
    """{allocator: {deadline mean ms: {n: application throughput}}}; `seed` picks the draws.
    The same as `application_throughput` for each allocator, but every allocator runs on each
    draw as it is made (the draws are the same for all three, and drawing was most of the work)."""
    out: Dict[str, Dict[int, Dict[int, float]]] = {a: {m: {} for m in DEADLINE_MEANS_MS} for a in ALLOCATORS}
    for mean in DEADLINE_MEANS_MS:
        for n in flow_counts:
            rng = random.Random(f"{seed}/{n}/{mean / 1e3}")  # application_throughput's draws
            met = dict.fromkeys(ALLOCATORS, 0)
            for _ in range(trials):
                flows = draw_flows(n, mean / 1e3, rng)
                for allocator in ALLOCATORS:
                    met[allocator] += deadlines_met(flows[:n], completion_times(allocator, flows, LINK_BYTES_PER_S)[:n])
            for allocator in ALLOCATORS:
                out[allocator][mean][n] = met[allocator] / (n * trials)
    return out


def flows_supported(curve: Dict[int, float]) -> int:
    """The largest flow count up to which every point meets every deadline (100%)."""
    supported = 0
    for n in sorted(curve):
        if curve[n] < 1.0:
            break
        supported = n
    return supported


def main() -> None:
    result = figure5()
    print("D3 Figure 5, ideal allocators on one 1 Gbps link (fluid model, 200 draws per point).")
    print("Paper: deadline-aware allocators support 3-5x as many flows as fair share at 100%.")
    for allocator, by_mean in result.items():
        for mean, curve in by_mean.items():
            cells = " ".join(f"{n}:{curve[n]:.1%}" for n in SHOWN_COUNTS if n in curve)
            print(f"  {allocator:11} {mean} ms  supported {flows_supported(curve):3}  {cells}")
    for mean in DEADLINE_MEANS_MS:
        fair = max(flows_supported(result["fair-share"][mean]), 1)
        ratios = ", ".join(f"{a} {flows_supported(result[a][mean]) / fair:.1f}x" for a in ("edf", "reservation"))
        print(f"  {mean} ms: against fair share at 100%: {ratios}")


if __name__ == "__main__":
    main()
