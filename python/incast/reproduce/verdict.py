"""Verdicts on the papers' claims, by rules that cannot flatter.

Every claim of a reproduction ends in one of three verdicts:

- `matches`: our number satisfies the rule stated beside it;
- `deviates`: it does not (and `why` explains, or says that we do not know);
- `not exercised`: the claim's premise did not occur in our runs (nothing missed a deadline, so
  "D2TCP misses under 7%" says nothing), so the claim was neither confirmed nor refuted.

A paper's range ("3-5x") is checked on both sides. A tolerance around a paper's number is never a
bare factor: each is a `Tolerance` that says why it is that wide (the paper's own precision, or
the spread of our runs across seeds), and the report prints the reason.

A number measured over several seeds is an `Estimate`: its mean decides the verdict, and its 95%
confidence interval is printed beside it; when the interval reaches across the rule's edge (the
verdict would flip within the interval), the claim says so (`straddles`), so that a verdict
resting on noise is visible as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Union

MATCHES = "matches"
DEVIATES = "deviates"
NOT_EXERCISED = "not exercised"
VERDICTS = (MATCHES, DEVIATES, NOT_EXERCISED)
"""Every verdict a claim may have."""


@dataclass(frozen=True)
class Tolerance:
    """How far from the paper's number ours may be and still match: within a factor `factor`
    either way, for the reason `reason` (printed in the report)."""

    factor: float
    reason: str

    def __post_init__(self) -> None:
        if not self.factor >= 1.0:
            raise ValueError(f"a tolerance factor is at least 1, not {self.factor}")
        if not self.reason.strip():
            raise ValueError("a tolerance needs its reason")


PRINTED = Tolerance(1.15, "a number the paper prints to two or three digits, measured on a testbed or simulator "
                          "whose unstated details (host stacks, NICs, timers) we cannot copy; 15% allows for "
                          "those, not for our noise (seed to seed, our D2TCP numbers move by about 1%)")
"""A number printed in the paper's text ("achieves 481 Mbps")."""
READ_OFF_FIGURE = Tolerance(1.5, "a value read off a plotted curve, whose axes resolve about one significant digit")
"""A value read off a figure's curve."""
ROUGH = Tolerance(2.0, "the paper states it as a rough magnitude ('about', 'roughly', 'an order of')")
"""A number the paper gives as a rough magnitude."""

# Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom; beyond 30, the normal's.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


@dataclass(frozen=True)
class Estimate:
    """A number measured once per seed: the mean, and the 95% confidence interval of the mean
    (Student's t over the seeds; no interval from a single seed)."""

    mean: float
    low: float
    high: float
    seeds: int

    @classmethod
    def of(cls, values: Sequence[float]) -> "Estimate":
        """The estimate from one value per seed."""
        n = len(values)
        if n == 0:
            raise ValueError("an estimate needs at least one value")
        mean = math.fsum(values) / n
        if n == 1:
            return cls(mean, mean, mean, 1)
        variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
        t = _T975[n - 2] if n - 1 <= len(_T975) else 1.960
        half = t * math.sqrt(variance / n)
        return cls(mean, mean - half, mean + half, n)

    def format(self, fmt: str = "{:.3g}", unit: str = "") -> str:
        """`4.2 (95% CI 3.9-4.5, 5 seeds)`, or the mean alone from one seed."""
        if self.seeds == 1:
            return f"{fmt.format(self.mean)}{unit} (1 seed)"
        return (f"{fmt.format(self.mean)}{unit} (95% CI {fmt.format(self.low)}-{fmt.format(self.high)}{unit}, "
                f"{self.seeds} seeds)")


Number = Union[float, Estimate]
"""A measured number: one value, or an estimate over seeds."""


def _mean(x: Number) -> float:
    return x.mean if isinstance(x, Estimate) else float(x)


def _bounds(x: Number) -> "tuple[float, float]":
    return (x.low, x.high) if isinstance(x, Estimate) else (float(x), float(x))


def _format(x: Number, fmt: str, unit: str) -> str:
    return x.format(fmt, unit) if isinstance(x, Estimate) else f"{fmt.format(float(x))}{unit}"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, our measurement of it, and whether they agree."""

    claim: str
    """The paper's words, quoted from `../shared/papers/` (or a faithful summary of a figure)."""
    paper: str
    """The paper's number(s)."""
    ours: str
    """Our number(s), formatted, with their confidence interval over seeds where we have one."""
    verdict: str
    """One of `VERDICTS`, from `rule`."""
    rule: str
    """How the verdict was decided, e.g. "ours within a factor of 1.5 of the paper's"."""
    why: str = ""
    """For a deviation, the explanation (or what we know of it); for a claim not exercised, the
    premise that did not occur."""
    tolerance: str = ""
    """Why the rule allows the slack it allows (empty for a rule without slack)."""
    straddles: bool = False
    """The confidence interval of ours reaches across the rule's edge: within the noise of our
    seeds the verdict could be the other one."""


def _claim(claim: str, paper: str, ours: str, ok: bool, rule: str, why: str, *, exercised: bool, premise: str,
           tolerance: Optional[Tolerance] = None, straddles: bool = False) -> Claim:
    if not exercised:
        if not premise:
            raise ValueError(f"a claim not exercised must say which premise did not occur: {claim!r}")
        return Claim(claim, paper, ours, NOT_EXERCISED, rule, premise, tolerance.reason if tolerance else "", False)
    return Claim(claim, paper, ours, MATCHES if ok else DEVIATES, rule, "" if ok else why,
                 tolerance.reason if tolerance else "", straddles)


def _straddles(low: float, high: float, ours: Number) -> bool:
    """Whether the interval of `ours` reaches across an edge of [low, high]: part of it inside,
    part outside. A single value has no interval and never straddles."""
    a, b = _bounds(ours)
    return (a < low <= b) or (a <= high < b)


def ratio_claim(claim: str, paper: float, ours: Number, unit: str = "", *, tolerance: Tolerance, why: str = "",
                exercised: bool = True, premise: str = "", fmt: str = "{:.3g}") -> Claim:
    """A claim about a magnitude: matches when ours is within `tolerance.factor` of the paper's
    number either way (both positive)."""
    low, high = paper / tolerance.factor, paper * tolerance.factor
    mean = _mean(ours)
    ok = paper > 0 and mean > 0 and low <= mean <= high
    rule = (f"ours within a factor of {tolerance.factor:g} of the paper's ({fmt.format(low)}{unit} to "
            f"{fmt.format(high)}{unit})")
    straddles = _straddles(low, high, ours)
    return _claim(claim, f"{paper:g}{unit}", _format(ours, fmt, unit), ok, rule, why, exercised=exercised,
                  premise=premise, tolerance=tolerance, straddles=straddles)


def range_claim(claim: str, low: float, high: float, ours: Number, unit: str = "", *, why: str = "",
                exercised: bool = True, premise: str = "", fmt: str = "{:.3g}",
                tolerance: Optional[Tolerance] = None) -> Claim:
    """A claim of a range ("3-5x", "between 20 and 30 senders"): matches when ours lies in
    [low, high], both ends checked; a `tolerance` (with its reason) widens both ends by its factor."""
    if not low <= high:
        raise ValueError(f"a range needs low <= high, not {low} > {high}")
    factor = tolerance.factor if tolerance else 1.0
    lo, hi = low / factor, high * factor
    mean = _mean(ours)
    ok = lo <= mean <= hi
    rule = f"ours in [{fmt.format(lo)}, {fmt.format(hi)}]{unit}, both ends checked"
    if tolerance:
        rule += f" (the paper's {fmt.format(low)}-{fmt.format(high)} widened by a factor of {factor:g})"
    straddles = _straddles(lo, hi, ours)
    return _claim(claim, f"{low:g}-{high:g}{unit}", _format(ours, fmt, unit), ok, rule, why, exercised=exercised,
                  premise=premise, tolerance=tolerance, straddles=straddles)


def bound_claim(claim: str, paper: str, ours: Number, *, at_most: Optional[float] = None,
                at_least: Optional[float] = None, unit: str = "", why: str = "", exercised: bool = True,
                premise: str = "", fmt: str = "{:.3g}") -> Claim:
    """A claim the paper makes one-sided itself ("under 7%", "at least 99%"): matches when ours
    is at most `at_most` / at least `at_least`. Use it only where the paper's words are a bound;
    a number the paper reports is a `ratio_claim` or `range_claim`, both sides checked."""
    if (at_most is None) == (at_least is None):
        raise ValueError("give exactly one of at_most and at_least")
    mean = _mean(ours)
    a, b = _bounds(ours)
    if at_most is not None:
        ok, rule, straddles = mean <= at_most, f"ours <= {fmt.format(at_most)}{unit}", a <= at_most < b
    else:
        assert at_least is not None
        ok, rule, straddles = mean >= at_least, f"ours >= {fmt.format(at_least)}{unit}", a < at_least <= b
    return _claim(claim, paper, _format(ours, fmt, unit), ok, rule, why, exercised=exercised, premise=premise,
                  straddles=straddles)


def _overlap(x: Number, y: Number) -> bool:
    """Whether the intervals of two estimates overlap (two single values never do: their order
    is what it is)."""
    if not (isinstance(x, Estimate) or isinstance(y, Estimate)):
        return False
    (ax, bx), (ay, by) = _bounds(x), _bounds(y)
    return bx >= ay and by >= ax


def order_claim(claim: str, paper: str, values: Mapping[str, Number], order: Sequence[str], fmt: str = "{:.3g}",
                why: str = "", *, exercised: bool = True, premise: str = "") -> Claim:
    """A claim that schemes rank in `order` (strictly increasing values): matches when our means
    do; straddles when two neighbours' intervals overlap (the order could be noise)."""
    ours = ", ".join(f"{name} {_format(values[name], fmt, '')}" for name in order)
    ok = all(_mean(values[a]) < _mean(values[b]) for a, b in zip(order, order[1:]))
    straddles = any(_overlap(values[a], values[b]) for a, b in zip(order, order[1:]))
    return _claim(claim, paper, ours, ok, "strictly increasing in the order " + " < ".join(order), why,
                  exercised=exercised, premise=premise, straddles=straddles)


def condition_claim(claim: str, paper: str, ours: str, ok: bool, rule: str, why: str = "", *,
                    exercised: bool = True, premise: str = "", straddles: bool = False) -> Claim:
    """A claim checked by a condition stated in `rule` (for what the shapes above cannot say)."""
    return _claim(claim, paper, ours, ok, rule, why, exercised=exercised, premise=premise, straddles=straddles)


def every(claim: str, paper: str, parts: Mapping[object, Claim], why: str = "") -> Claim:
    """A claim the paper makes for every setting at once ("for all scenarios"), from each
    setting's own claim under one rule: a match only when every exercised setting matches. It
    straddles when the noise could flip it: a match with any setting straddling, a deviation with
    every deviating setting straddling. Not exercised when no setting was."""
    if not parts:
        raise ValueError(f"a claim for every setting needs at least one: {claim!r}")
    exercised = {k: c for k, c in parts.items() if c.verdict != NOT_EXERCISED}
    first = next(iter(parts.values()))
    ours = ", ".join(f"{k}: {c.ours}" for k, c in parts.items())
    if not exercised:
        return _claim(claim, paper, ours, False, "each: " + first.rule, why, exercised=False,
                      premise="; ".join(dict.fromkeys(c.why for c in parts.values())), tolerance=None)
    ok = all(c.verdict == MATCHES for c in exercised.values())
    straddles = (any(c.straddles for c in exercised.values()) if ok else
                 all(c.straddles for c in exercised.values() if c.verdict != MATCHES))
    rule = "each: " + first.rule
    if len(exercised) < len(parts):
        rule += f" ({len(parts) - len(exercised)} of {len(parts)} settings not exercised)"
    return Claim(claim, paper, ours, MATCHES if ok else DEVIATES, rule, "" if ok else why, first.tolerance,
                 straddles)


@dataclass(frozen=True)
class Tally:
    """Verdicts counted over a set of claims, as every summary line says them."""

    matches: int
    deviates: int
    not_exercised: int
    straddles: int
    """Of the claims exercised, those whose interval crosses their rule's edge."""

    @classmethod
    def of(cls, verdicts: Sequence[Mapping[str, object]]) -> "Tally":
        """Counts claims given as report.json dicts (`verdict`, optional `straddles`)."""
        def count(v: str) -> int:
            return sum(c["verdict"] == v for c in verdicts)

        straddles = sum(bool(c.get("straddles")) and c["verdict"] != NOT_EXERCISED for c in verdicts)
        return cls(count(MATCHES), count(DEVIATES), count(NOT_EXERCISED), straddles)

    @property
    def total(self) -> int:
        return self.matches + self.deviates + self.not_exercised

    def __str__(self) -> str:
        """`32 of 77 claims match, 40 deviate, 5 not exercised (3 on their rule's edge)`."""
        text = f"{self.matches} of {self.total} claims match, {self.deviates} deviate"
        if self.not_exercised:
            text += f", {self.not_exercised} not exercised"
        if self.straddles:
            text += f" ({self.straddles} within the noise of their rule's edge)"
        return text
