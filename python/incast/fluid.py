"""The ideal allocators of D3 Section 3 (Figure 5) as an exact, event-driven fluid model.

One link of capacity C bytes/s and a set of flows, each with an arrival time, a size and a
deadline (relative to its arrival). No packets, no RTTs, no losses: bandwidth is a fluid that an
allocator divides among the flows present, and a flow finishes when it has received its size.
Three allocators, as the paper describes them:

- **fair share**: the link "allocated evenly amongst all current flows" (processor sharing), the
  best case for deadline-agnostic protocols (TCP, DCTCP, RCP);
- **EDF**: "the flow with the earliest deadline receives all the bandwidth until it finishes";
  a flow past its deadline keeps its (earliest) deadline, so under overload EDF keeps serving
  flows that will miss anyway, the congestive collapse the paper points at (Figure 5(c));
- **rate reservation**: "flows, in the order of their arrival, reserve the rate needed to meet
  their deadline", size / deadline, if that much capacity remains unreserved; a flow that cannot
  reserve is refused and sends nothing (a reservation system admits or rejects), and an admitted
  flow holds its rate until it finishes, exactly at its deadline.

Each allocator is exact: rates are piecewise constant between events (arrivals and
completions), and every completion time is computed, not stepped. With n flows each runs in
O(n log n) (fair share through virtual time, EDF with a heap of deadlines).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Tuple

ALLOCATORS = ("fair-share", "edf", "reservation")


@dataclass(frozen=True)
class FluidFlow:
    """One flow of the model: arrival time (s), size (bytes), deadline relative to arrival (s).

    A long-lived background flow has an infinite size and an infinite deadline: it takes its
    share under fair sharing, waits behind every deadline under EDF, and reserves nothing."""

    arrival_s: float
    size_bytes: float
    deadline_s: float


def fair_share(flows: Sequence[FluidFlow], capacity: float) -> List[float]:
    """Completion times under processor sharing: every flow present gets C / n.

    Virtual time V advances at C / n(t) while n(t) > 0 flows are present; a flow arriving at
    virtual time V_a finishes when V reaches V_a + size, whatever happens meanwhile, so a heap
    keyed by that finishing virtual time gives every completion exactly."""
    _check(flows, capacity)
    order = sorted(range(len(flows)), key=lambda i: flows[i].arrival_s)
    finish = [math.nan] * len(flows)
    active: List[Tuple[float, int]] = []  # (virtual finish, index)
    now = virtual = 0.0
    next_arrival = 0
    while next_arrival < len(order) or active:
        arrival_at = flows[order[next_arrival]].arrival_s if next_arrival < len(order) else math.inf
        if active:
            # Real time at which the first active flow would finish if nothing arrived first.
            v_done, i = active[0]
            done_at = now + (v_done - virtual) * len(active) / capacity
        else:
            done_at = math.inf
        if done_at <= arrival_at or next_arrival == len(order):
            heapq.heappop(active)
            if math.isinf(v_done):
                finish[i] = math.inf  # a background flow: it never ends
                continue
            virtual, now = v_done, done_at
            finish[i] = now
        else:
            if active:
                virtual += (arrival_at - now) * capacity / len(active)
            now = arrival_at
            i = order[next_arrival]
            next_arrival += 1
            heapq.heappush(active, (virtual + flows[i].size_bytes, i))
    return finish


def edf(flows: Sequence[FluidFlow], capacity: float) -> List[float]:
    """Completion times under preemptive earliest-deadline-first: the present flow with the
    earliest absolute deadline gets the whole link (ties: earlier arrival, then index)."""
    _check(flows, capacity)
    order = sorted(range(len(flows)), key=lambda i: flows[i].arrival_s)
    finish = [math.nan] * len(flows)
    remaining = [f.size_bytes for f in flows]
    ready: List[Tuple[float, float, int]] = []  # (absolute deadline, arrival, index)
    now = 0.0
    next_arrival = 0
    while next_arrival < len(order) or ready:
        arrival_at = flows[order[next_arrival]].arrival_s if next_arrival < len(order) else math.inf
        if not ready:
            now = arrival_at
        else:
            _, _, i = ready[0]
            done_at = now + remaining[i] / capacity
            if done_at <= arrival_at:
                heapq.heappop(ready)
                now = done_at
                remaining[i] = 0.0
                finish[i] = now
                continue
            remaining[i] -= (arrival_at - now) * capacity
            now = arrival_at
        i = order[next_arrival]
        next_arrival += 1
        f = flows[i]
        heapq.heappush(ready, (f.arrival_s + f.deadline_s, f.arrival_s, i))
    return finish


def reservation(flows: Sequence[FluidFlow], capacity: float) -> List[float]:
    """Completion times under rate reservation; a refused flow never completes (NaN).

    In arrival order, a flow reserves size / deadline if the unreserved capacity covers it, and
    then finishes exactly at its deadline, when its reservation is released."""
    _check(flows, capacity)
    order = sorted(range(len(flows)), key=lambda i: flows[i].arrival_s)
    finish = [math.nan] * len(flows)
    releases: List[Tuple[float, float]] = []  # (release time, rate)
    reserved = 0.0
    for i in order:
        f = flows[i]
        if math.isinf(f.deadline_s):
            continue  # no deadline: nothing to reserve; it lives on what is left over
        while releases and releases[0][0] <= f.arrival_s:
            reserved -= heapq.heappop(releases)[1]
        rate = f.size_bytes / f.deadline_s
        # A relative tolerance, so that reservations that exactly fill the link are admitted
        # despite floating-point rounding of the running sum.
        if reserved + rate <= capacity * (1 + 1e-12):
            reserved += rate
            finish[i] = f.arrival_s + f.deadline_s
            heapq.heappush(releases, (finish[i], rate))
    return finish


_BY_NAME: Dict[str, Callable[[Sequence[FluidFlow], float], List[float]]] = {
    "fair-share": fair_share,
    "edf": edf,
    "reservation": reservation,
}


def completion_times(allocator: str, flows: Sequence[FluidFlow], capacity: float) -> List[float]:
    """Completion times under the named allocator (one of `ALLOCATORS`); NaN: never completes."""
    try:
        return _BY_NAME[allocator](flows, capacity)
    except KeyError:
        raise ValueError(f"allocator: expected one of {', '.join(ALLOCATORS)}, not {allocator!r}") from None


def deadlines_met(flows: Sequence[FluidFlow], finish: Sequence[float], slack_s: float = 0.0) -> int:
    """How many flows finished by their deadline, after adding `slack_s` to each completion time
    (for comparing with a packet protocol that pays fixed round trips on top)."""
    # A tolerance of a picosecond absorbs floating-point rounding in flows that finish exactly at
    # their deadline (every admitted reservation does).
    return sum(
        1
        for f, t in zip(flows, finish)
        if not math.isnan(t) and t + slack_s <= f.arrival_s + f.deadline_s + 1e-12
    )


def _check(flows: Sequence[FluidFlow], capacity: float) -> None:
    if not capacity > 0:
        raise ValueError(f"capacity: must be > 0, not {capacity!r}")
    for k, f in enumerate(flows):
        if not f.size_bytes > 0:
            raise ValueError(f"flows[{k}].size_bytes: must be > 0, not {f.size_bytes!r}")
        if not f.deadline_s > 0:
            raise ValueError(f"flows[{k}].deadline_s: must be > 0, not {f.deadline_s!r}")
        if not f.arrival_s >= 0:
            raise ValueError(f"flows[{k}].arrival_s: must be >= 0, not {f.arrival_s!r}")

