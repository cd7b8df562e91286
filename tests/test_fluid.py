"""The fluid model of D3 Section 3's ideal allocators, against hand computation and brute force."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from incast.fluid import FluidFlow, completion_times, deadlines_met, edf, fair_share, reservation

INF = math.inf


def test_fair_share_simultaneous_flows_by_hand() -> None:
    # Sizes 3, 1, 2 at rate 1: all three share until t = 3 (one byte each), two until t = 5,
    # the last alone until t = 6.
    flows = [FluidFlow(0, 3, 10), FluidFlow(0, 1, 10), FluidFlow(0, 2, 10)]
    assert fair_share(flows, 1.0) == [6.0, 3.0, 5.0]


def test_fair_share_staggered_arrival_by_hand() -> None:
    # A (4 B) alone from 0 to 2 gets 2 B; then A and B (1 B) share: B done at 4, A has 1 B left
    # at 4 and finishes alone at 5.
    flows = [FluidFlow(0, 4, 10), FluidFlow(2, 1, 10)]
    assert fair_share(flows, 1.0) == [5.0, 4.0]


def test_fair_share_background_flow_takes_its_share_and_never_ends() -> None:
    flows = [FluidFlow(0, 2, 10), FluidFlow(0, INF, INF)]
    finish = fair_share(flows, 1.0)
    assert finish[0] == 4.0 and math.isinf(finish[1])


def test_edf_serves_earliest_deadline_first_and_preempts() -> None:
    # A (deadline 10) runs alone from 0; B arrives at 1 with deadline 1 + 2 = 3 and preempts:
    # B done at 2, A resumes with 2 B left and finishes at 4.
    flows = [FluidFlow(0, 3, 10), FluidFlow(1, 1, 2)]
    assert edf(flows, 1.0) == [4.0, 2.0]


def test_edf_keeps_serving_a_hopeless_flow() -> None:
    # The earliest deadline cannot be met, yet takes the link first and makes the other miss too.
    flows = [FluidFlow(0, 5, 1), FluidFlow(0, 1, 5.5)]
    finish = edf(flows, 1.0)
    assert finish == [5.0, 6.0]
    assert deadlines_met(flows, finish) == 0


def test_edf_is_optimal_for_simultaneous_flows() -> None:
    # If some order meets every deadline, EDF meets every deadline (brute force on small sets).
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        n = rng.randint(1, 5)
        flows = [FluidFlow(0, rng.uniform(1, 5), rng.uniform(1, 15)) for _ in range(n)]
        feasible = False
        for order in itertools.permutations(range(n)):
            t, ok = 0.0, True
            for i in order:
                t += flows[i].size_bytes
                ok &= t <= flows[i].deadline_s + 1e-12
            feasible |= ok
        if feasible:
            checked += 1
            assert deadlines_met(flows, edf(flows, 1.0)) == n
    assert checked > 50


def test_reservation_admits_in_arrival_order_while_capacity_lasts() -> None:
    # Rates 0.5, 0.4, 0.2: the third does not fit (1.1 > 1) and is refused; the fourth arrives
    # after the first released its 0.5 at t = 2 and fits.
    flows = [FluidFlow(0, 1, 2), FluidFlow(0.5, 2, 5), FluidFlow(1, 0.4, 2), FluidFlow(2, 0.2, 1)]
    finish = reservation(flows, 1.0)
    assert finish[0] == 2.0 and finish[1] == 5.5 and finish[3] == 3.0
    assert math.isnan(finish[2])
    assert deadlines_met(flows, finish) == 3


def test_reservation_admits_an_exactly_full_link() -> None:
    flows = [FluidFlow(0, 0.1, 1)] * 10
    assert deadlines_met(flows, reservation(flows, 1.0)) == 10


def test_every_allocator_completes_everything_it_admits_and_conserves_work() -> None:
    # Work conservation for the work-conserving allocators: with simultaneous arrivals the last
    # completion is the total size over the capacity.
    rng = random.Random(3)
    flows = [FluidFlow(0, rng.uniform(1, 10), rng.uniform(1, 30)) for _ in range(40)]
    total = sum(f.size_bytes for f in flows)
    for name in ("fair-share", "edf"):
        finish = completion_times(name, flows, 2.0)
        assert max(finish) == pytest.approx(total / 2.0)


def test_slack_delays_completion() -> None:
    flows = [FluidFlow(0, 1, 1.5)]
    finish = fair_share(flows, 1.0)
    assert deadlines_met(flows, finish) == 1
    assert deadlines_met(flows, finish, slack_s=1.0) == 0


@pytest.mark.parametrize(
    "flows, capacity, message",
    [
        ([FluidFlow(0, 1, 1)], 0.0, "capacity"),
        ([FluidFlow(0, -1, 1)], 1.0, "flows[0].size_bytes"),
        ([FluidFlow(0, 1, 1), FluidFlow(0, 1, 0)], 1.0, "flows[1].deadline_s"),
        ([FluidFlow(-1, 1, 1)], 1.0, "flows[0].arrival_s"),
    ],
)
def test_bad_input_names_the_field(flows, capacity, message) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        fair_share(flows, capacity)


def test_unknown_allocator_is_named() -> None:
    with pytest.raises(ValueError, match="allocator"):
        completion_times("wfq", [FluidFlow(0, 1, 1)], 1.0)


def test_figure5_deadline_aware_allocators_support_more_flows_than_fair_share() -> None:
    from incast.reproduce.d3 import ideal_allocators as fig5

    curves = {a: {n: fig5.application_throughput(a, n, 0.030, trials=20) for n in (2, 10, 30)}
              for a in ("fair-share", "edf", "reservation")}
    for a in curves:
        assert curves[a][2] == 1.0  # one or two flows always fit (the 3 ms floor)
    assert curves["fair-share"][30] < curves["reservation"][30] <= 1.0
    assert curves["fair-share"][30] < curves["edf"][30] <= 1.0
    assert fig5.flows_supported({1: 1.0, 2: 1.0, 3: 0.99, 4: 1.0}) == 2
