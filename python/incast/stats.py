"""The statistics the package reports of a sample, each with one definition: quantiles (of flow
completion times, slowdowns, queue lengths, latencies) and the 95% confidence interval of a mean
over seeds. Every module that reports one calls this module rather than computing it by hand,
so that a number's definition is written down once, here.

Quantiles have two definitions, both of the sorted values x[0] <= ... <= x[n-1]:

- `LINEAR` (the default): interpolation between the two values around position q (n - 1),
  Hyndman and Fan's definition 7 ("Sample quantiles in statistical packages", The American
  Statistician 50(4), 1996), the default of numpy, R and `pyarrow.compute.quantile`. It is the
  one to use for a new number. The median of 1, 2, 3, 4 is 2.5.
- `INDEX`: the sorted value at index floor(q n), the last for q = 1, with no interpolation: the
  smallest value with more than a fraction q of the values at or below it. It differs from the
  textbook nearest rank (Hyndman and Fan's definition 1, the value at rank ceil(q n)) only where
  q n is a whole number, where it takes the next value up: the median of 1, 2, 3, 4 is 3.
  Numbers already published were computed with it, and keep it: the D3 reproductions'
  completion-time percentiles (Table 1, Figures 14 and 15), late flows' 95th-percentile
  overshoot (Figure 11) and queue median and 99th percentile (Figure 16), also in
  `incast.reproduce.d3.checks`; D2TCP's latency percentiles (Figure 12); the crosscheck
  report's median ratio of processor times. Their committed reports (docs/reproductions/,
  docs/crosscheck/) and the pins of the quick runs (tests/reproduce_pins.json) hold these
  numbers, and `LINEAR` would move them: nine pinned values of D3's Figures 11 and 14 and
  D2TCP's Figure 12 (within their seeds' noise), and the 95th-percentile overshoot of D3's late
  flows that docs/results-d3.md computes from the committed Figure 11 table (37.7% by `INDEX`,
  36.9% by `LINEAR`).

Why not `pyarrow.compute.quantile(..., interpolation="linear")`, the same definition as
`LINEAR`: it rounds the interpolation differently, and on random data one result in eight
differs from the numbers already published (the crosscheck report, the pFabric slowdowns) in
its last bit; and it has no `INDEX`.
"""

from __future__ import annotations

import math
from typing import Iterable, List, Literal, Sequence, cast

Method = Literal["linear", "index"]
"""A quantile's definition: `LINEAR` or `INDEX` (the module docstring)."""
LINEAR: Method = "linear"
INDEX: Method = "index"


def quantiles(values: Iterable[float], qs: Sequence[float], method: Method = LINEAR, *,
              presorted: bool = False) -> List[float]:
    """The `qs`-quantiles (each in [0, 1]) of `values`, by `method` (the module docstring);
    sorts once for all of them. `presorted`: `values` are already in ascending order and
    indexable (a list, a numpy array sorted by `numpy.sort`), and are used as they are, not
    copied: millions of messages need not become Python floats. Raises ValueError on no
    values, a q outside [0, 1] or an unknown method."""
    ordered = cast(Sequence[float], values) if presorted else sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("a quantile needs at least one value")
    if method not in (LINEAR, INDEX):
        raise ValueError(f"method: {LINEAR!r} or {INDEX!r}, got {method!r}")
    out = []
    for q in qs:
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"a quantile's q lies in [0, 1], got {q!r}")
        if method == INDEX:
            out.append(ordered[min(n - 1, int(q * n))])
            continue
        position = q * (n - 1)
        lo = math.floor(position)
        fraction = position - lo
        # At a whole position the value itself (an int stays an int, an infinite neighbour
        # cannot make it NaN); between two, a + f (b - a).
        out.append(ordered[lo] if fraction == 0 else ordered[lo] + (ordered[lo + 1] - ordered[lo]) * fraction)
    return out


def quantile(values: Iterable[float], q: float, method: Method = LINEAR) -> float:
    """The q-quantile (q in [0, 1]) of `values`, by `method` (the module docstring)."""
    return quantiles(values, [q], method)[0]


# The 97.5% quantiles of Student's t (two-sided 95%) for 1..30 degrees of freedom, as tables of
# the t distribution print them; beyond 30, the normal's 1.960.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def half_width(values: Sequence[float]) -> float:
    """The half-width of the 95% confidence interval of the mean of `values` (Student's t with
    n - 1 degrees of freedom and the sample standard deviation; at least two values). The
    reproductions' intervals over seeds (`incast.reproduce.verdict.Estimate`, whose docstring
    says why Student's t) and the pins' tolerances (`incast.reproduce.pins`) are this."""
    n = len(values)
    if n < 2:
        raise ValueError("an interval needs at least two values")
    mean = math.fsum(values) / n
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.960
    return t * math.sqrt(variance / n)
