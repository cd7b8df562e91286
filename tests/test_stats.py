"""`incast.stats`: each quantile definition on small literal inputs worked by hand, their edge
cases and errors, and the confidence half-width over seeds."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest

from incast.stats import INDEX, LINEAR, half_width, quantile, quantiles

FOUR = [4.0, 1.0, 3.0, 2.0]  # sorted: 1, 2, 3, 4


@pytest.mark.parametrize(("q", "expected"), [
    (0.5, 2.5),     # position 1.5: halfway between 2 and 3
    (0.25, 1.75),   # position 0.75
    (0.875, 3.625),  # position 2.625
    (0.0, 1.0),
    (1.0, 4.0),
])
def test_linear_interpolates_between_the_values_around_q_times_n_minus_one(q: float, expected: float) -> None:
    assert quantile(FOUR, q) == expected
    assert quantile(FOUR, q, LINEAR) == expected


@pytest.mark.parametrize(("q", "expected"), [
    (0.5, 3.0),   # index floor(2.0) = 2: the upper of the two middle values
    (0.25, 2.0),  # index 1: q n is whole, so the next value up (nearest rank would give 1)
    (0.3, 2.0),   # index floor(1.2) = 1, as nearest rank (ceil(1.2) = 2nd)
    (0.74, 3.0),  # index floor(2.96) = 2
    (0.0, 1.0),
    (1.0, 4.0),   # index 4 is past the end: the last
])
def test_index_takes_the_sorted_value_at_floor_q_times_n(q: float, expected: float) -> None:
    assert quantile(FOUR, q, INDEX) == expected


def test_index_is_what_the_reproductions_computed_by_hand() -> None:
    """The expression the D3 and D2TCP reproductions wrote out before `incast.stats`."""
    rng = random.Random(7)
    for _ in range(200):
        values = sorted(rng.expovariate(1.0) for _ in range(rng.randint(1, 50)))
        for q in (0.01, 0.05, 0.5, 0.9, 0.95, 0.99):
            assert quantile(values, q, INDEX) == values[min(len(values) - 1, int(q * len(values)))]


def test_linear_agrees_with_the_standard_library() -> None:
    rng = random.Random(3)
    for _ in range(100):
        values = [rng.uniform(0, 10) for _ in range(rng.randint(2, 40))]
        # statistics' "inclusive" method is the same definition: n - 1 intervals between n values.
        cuts = statistics.quantiles(values, n=100, method="inclusive")
        for k in (1, 50, 90, 99):
            assert quantile(values, k / 100) == pytest.approx(cuts[k - 1], rel=1e-12)


@pytest.mark.parametrize("method", [LINEAR, INDEX])
def test_one_value_is_every_quantile(method: str) -> None:
    for q in (0.0, 0.3, 0.5, 0.99, 1.0):
        assert quantile([7.5], q, method) == 7.5  # type: ignore[arg-type]


def test_a_whole_position_gives_the_value_itself() -> None:
    # An int stays an int, and an infinite neighbour does not turn it into NaN.
    assert quantile([3, 1, 2], 0.5) == 2 and isinstance(quantile([3, 1, 2], 0.5), int)
    assert quantile([1.0, math.inf], 0.0) == 1.0


def test_quantiles_sorts_once_for_several() -> None:
    assert quantiles(FOUR, (0.25, 0.5, 1.0)) == [1.75, 2.5, 4.0]
    assert quantiles(FOUR, (0.25, 0.5, 1.0), INDEX) == [2.0, 3.0, 4.0]
    assert quantiles((x for x in FOUR), [0.5]) == [2.5]  # any iterable
    assert quantiles(FOUR, ()) == []


def test_presorted_values_are_taken_as_they_are() -> None:
    ordered = np.sort(np.array(FOUR))
    assert quantiles(ordered, (0.5, 0.99), INDEX, presorted=True) == [3.0, 4.0]
    assert quantiles(ordered, (0.5,), presorted=True) == [2.5]


@pytest.mark.parametrize("method", [LINEAR, INDEX])
def test_no_values_is_an_error(method: str) -> None:
    with pytest.raises(ValueError, match="at least one value"):
        quantile([], 0.5, method)  # type: ignore[arg-type]


@pytest.mark.parametrize("q", [-0.01, 1.01, math.nan])
def test_q_outside_zero_to_one_is_an_error(q: float) -> None:
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        quantile(FOUR, q)


def test_an_unknown_method_is_an_error() -> None:
    with pytest.raises(ValueError, match="method"):
        quantile(FOUR, 0.5, "nearest")  # type: ignore[arg-type]


def test_half_width_is_students_t_over_the_standard_error() -> None:
    # Mean 2, sample variance 1, two degrees of freedom: t = 4.303.
    assert half_width([1.0, 2.0, 3.0]) == pytest.approx(4.303 * math.sqrt(1 / 3))
    # One degree of freedom: t = 12.706; variance 2.
    assert half_width([0.0, 2.0]) == pytest.approx(12.706 * math.sqrt(2 / 2))
    # Beyond 30 degrees of freedom, the normal's 1.96: forty values of 0 and 2, variance 40/39.
    assert half_width([0.0, 2.0] * 20) == pytest.approx(1.96 * math.sqrt(40 / 39 / 40))
    assert half_width([5.0, 5.0, 5.0]) == 0.0


def test_half_width_needs_two_values() -> None:
    with pytest.raises(ValueError, match="at least two values"):
        half_width([1.0])
