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
resting on noise is visible as such. The interval is Student's t over the seeds, cut to the range
the quantity can take (`within`: a share stays in [0, 100]%; see `Estimate.of`).

Words that quote measured numbers (an explanation, a premise, the `ours` of a condition) are a
`Text`: the numbers it quotes (its facts) and a function that writes the words from them. Over
seeds it is written once more from the mean of each fact, so that an explanation quotes the same
statistic as the verdict beside it.

A reproduction runs once per seed (`core.Reproduction.seeds`); each run states its claims with the
builders below on that seed's numbers, and `over_seeds` joins the runs' claims into one: each
number becomes an `Estimate` over the seeds and the rule is applied again to its mean. Every
builder records how it was called (`Claim.recipe`) so that the join can call it again, and every
claim keeps the numbers its verdict used, one value per seed (`Claim.numbers`), for the tests that
pin them and the results docs that quote them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from incast.stats import half_width

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
                          "those, not for our noise (the confidence interval beside our number shows that)")
"""A number printed in the paper's text ("achieves 481 Mbps")."""
READ_OFF_FIGURE = Tolerance(1.5, "a value read off a plotted curve, whose axes resolve about one significant digit")
"""A value read off a figure's curve."""
ROUGH = Tolerance(2.0, "the paper states it as a rough magnitude ('about', 'roughly', 'an order of')")
"""A number the paper gives as a rough magnitude."""

Range = Tuple[float, float]
"""The values a quantity can take, [low, high]: its confidence interval never leaves them."""
PERCENT = (0.0, 100.0)
"""A share in percent (missed deadlines, application throughput)."""
FRACTION = (0.0, 1.0)
"""A share as a fraction."""
NON_NEGATIVE = (0.0, math.inf)
"""A count, a rate, a completion time, a ratio of two of them."""


@dataclass(frozen=True)
class Estimate:
    """A number measured once per seed: the mean, and the 95% confidence interval of the mean
    (Student's t over the seeds, cut to the quantity's range; no interval from a single seed)."""

    mean: float
    low: float
    high: float
    seeds: int
    values: Tuple[float, ...] = field(default=(), compare=False)
    """The values it was computed from, one per seed (empty when it was written down directly)."""

    @classmethod
    def of(cls, values: Sequence[float], within: Optional[Range] = None) -> "Estimate":
        """The estimate from one value per seed. `within` is the range the quantity can take
        (`PERCENT` for a share in percent): the interval is Student's t cut to it.

        Why cut, rather than another interval: the seeds are the independent replicates (the
        flows of one run are not: a burst's flows miss together), so the interval is over the
        seeds' values, and with three to five of them Student's t is the standard choice. Its
        interval is symmetric and may reach past a bound (a share of 0.4% from seeds 0, 0 and
        1.2 gives -1.3 to 2.1%). The true mean lies inside the range, so wherever the t
        interval covers it, the cut interval does too: cutting keeps the 95% coverage and only
        drops values the quantity cannot take. A t interval on the logit scale would also stay
        inside, but cannot take a seed at exactly 0 or 100% (every seed of many of our claims:
        nothing missed), and Wilson's or Clopper-Pearson's intervals treat flows as independent
        trials, which they are not."""
        n = len(values)
        if n == 0:
            raise ValueError("an estimate needs at least one value")
        mean = math.fsum(values) / n
        kept = tuple(float(v) for v in values)
        if within is not None:
            low, high = within
            outside = [v for v in kept if not low <= v <= high]
            if outside:
                raise ValueError(f"{outside[0]:g} lies outside the range [{low:g}, {high:g}] of its quantity")
            # fsum of values inside the range may round a hair past it.
            mean = min(max(mean, low), high)
        if n == 1:
            return cls(mean, mean, mean, 1, kept)
        half = half_width(values)
        lo, hi = mean - half, mean + half
        if within is not None:
            lo, hi = max(lo, within[0]), min(hi, within[1])
        return cls(mean, lo, hi, n, kept)

    def cut(self, within: Range) -> "Estimate":
        """The same estimate with its interval cut to `within` (see `of`)."""
        return replace(self, low=max(self.low, within[0]), high=min(self.high, within[1]))

    def __format__(self, spec: str) -> str:
        """The mean, formatted: what a `Text` quotes of a fact over seeds."""
        return format(self.mean, spec)

    def __float__(self) -> float:
        return self.mean

    def format(self, fmt: str = "{:.3g}", unit: str = "") -> str:
        """`4.2 (95% CI 3.9 to 4.5, 5 seeds)`, or the mean alone from one seed."""
        if self.seeds == 1:
            return f"{fmt.format(self.mean)}{unit} (1 seed)"
        return (f"{fmt.format(self.mean)}{unit} (95% CI {fmt.format(self.low)} to {fmt.format(self.high)}{unit}, "
                f"{self.seeds} seeds)")


Number = Union[float, Estimate]
"""A measured number: one value, or an estimate over seeds."""


def _mean(x: Number) -> float:
    return x.mean if isinstance(x, Estimate) else float(x)


def _bounds(x: Number) -> "tuple[float, float]":
    return (x.low, x.high) if isinstance(x, Estimate) else (float(x), float(x))


def _format(x: Number, fmt: str, unit: str) -> str:
    return x.format(fmt, unit) if isinstance(x, Estimate) else f"{fmt.format(float(x))}{unit}"


def _values(x: Number) -> List[float]:
    """The per-seed values behind `x`: one for a single value."""
    if isinstance(x, Estimate):
        return list(x.values) if x.values else [x.mean]
    return [float(x)]


@dataclass(frozen=True)
class Text:
    """Words that quote measured numbers: `facts`, each a number measured on one seed's runs,
    and `write`, which writes the words from them. The claim builders take a `Text` wherever
    they take an explanation, a premise, or the `ours` of a condition; `over_seeds` writes it
    again from the mean of each fact over the seeds, so that the words quote the statistic the
    verdict used. `write` must depend on the facts alone (and on constants): a text that quotes
    a number not among its facts would quote one seed's, and `over_seeds` refuses it."""

    write: Callable[[Mapping[str, float]], str]
    facts: Mapping[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.write(self.facts)


Words = Union[str, Text]
"""Plain words, or words that quote measured numbers."""


def _said(words: Words) -> str:
    return str(words)


def _joined_text(texts: Sequence[Words]) -> Words:
    """The first of the same text from several seeds, written from the mean of each fact over
    the seeds that have it. Refuses a text that quotes more than its facts."""
    first = texts[0]
    if not isinstance(first, Text):
        return first
    facts: Dict[str, List[float]] = {}
    for t in texts:
        if not isinstance(t, Text):
            raise ValueError(f"a text quotes measured numbers in one seed and not in another: {first}")
        if first.write(t.facts) != t.write(t.facts):
            raise ValueError(f"a text quotes numbers that are not among its facts (it differs between seeds "
                             f"on the same facts): {t}")
        for k, v in t.facts.items():
            facts.setdefault(k, []).append(float(v))
    return Text(first.write, {k: math.fsum(vs) / len(vs) for k, vs in facts.items()})


@dataclass(frozen=True)
class Recipe:
    """How a claim was built: the builder and the arguments it was called with, so that
    `over_seeds` can call it again on the estimates over seeds."""

    build: Callable[..., "Claim"]
    arguments: Mapping[str, Any]


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
    numbers: Dict[str, List[float]] = field(default_factory=dict)
    """Each number the verdict used, by name, one value per seed ("ours" for a claim about one
    number; the scheme's name in an ordering; "holds", 1 or 0, for a condition)."""
    recipe: Optional[Recipe] = field(default=None, repr=False, compare=False)
    """How it was built (not written to reports)."""

    def report(self) -> Dict[str, Any]:
        """The claim as report.json holds it: every field but the recipe."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "recipe"}
        out["numbers"] = {k: list(v) for k, v in self.numbers.items()}
        return out


def _claim(claim: str, paper: str, ours: Words, ok: bool, rule: str, why: Words, *, exercised: bool,
           premise: Words, tolerance: Optional[Tolerance] = None, straddles: bool = False) -> Claim:
    if not exercised:
        if not _said(premise):
            raise ValueError(f"a claim not exercised must say which premise did not occur: {claim!r}")
        return Claim(claim, paper, _said(ours), NOT_EXERCISED, rule, _said(premise),
                     tolerance.reason if tolerance else "", False)
    return Claim(claim, paper, _said(ours), MATCHES if ok else DEVIATES, rule, "" if ok else _said(why),
                 tolerance.reason if tolerance else "", straddles)


def _inside(ours: Number, within: Optional[Range]) -> None:
    """Refuses a measured number outside the range its claim says it can take (a fraction given
    where a percentage is meant)."""
    if within is not None and not within[0] <= _mean(ours) <= within[1]:
        raise ValueError(f"{_mean(ours):g} lies outside the range [{within[0]:g}, {within[1]:g}] of its quantity")


def _straddles(low: float, high: float, ours: Number) -> bool:
    """Whether the interval of `ours` reaches across an edge of [low, high]: part of it inside,
    part outside. A single value has no interval and never straddles."""
    a, b = _bounds(ours)
    return (a < low <= b) or (a <= high < b)


def ratio_claim(claim: str, paper: float, ours: Number, unit: str = "", *, tolerance: Tolerance, why: Words = "",
                exercised: bool = True, premise: Words = "", fmt: str = "{:.3g}",
                within: Optional[Range] = None) -> Claim:
    """A claim about a magnitude: matches when ours is within `tolerance.factor` of the paper's
    number either way (both positive). `within`: the range ours can take (its interval over
    seeds stays inside; `PERCENT` for a share)."""
    recipe = Recipe(ratio_claim, dict(locals()))
    _inside(ours, within)
    low, high = paper / tolerance.factor, paper * tolerance.factor
    mean = _mean(ours)
    ok = paper > 0 and mean > 0 and low <= mean <= high
    rule = (f"ours within a factor of {tolerance.factor:g} of the paper's ({fmt.format(low)}{unit} to "
            f"{fmt.format(high)}{unit})")
    straddles = _straddles(low, high, ours)
    return _recorded(_claim(claim, f"{paper:g}{unit}", _format(ours, fmt, unit), ok, rule, why, exercised=exercised,
                            premise=premise, tolerance=tolerance, straddles=straddles), recipe, {"ours": ours})


def range_claim(claim: str, low: float, high: float, ours: Number, unit: str = "", *, why: Words = "",
                exercised: bool = True, premise: Words = "", fmt: str = "{:.3g}",
                tolerance: Optional[Tolerance] = None, within: Optional[Range] = None) -> Claim:
    """A claim of a range ("3-5x", "between 20 and 30 senders"): matches when ours lies in
    [low, high], both ends checked; a `tolerance` (with its reason) widens both ends by its factor."""
    recipe = Recipe(range_claim, dict(locals()))
    _inside(ours, within)
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
    return _recorded(_claim(claim, f"{low:g}-{high:g}{unit}", _format(ours, fmt, unit), ok, rule, why,
                            exercised=exercised, premise=premise, tolerance=tolerance, straddles=straddles),
                     recipe, {"ours": ours})


def bound_claim(claim: str, paper: str, ours: Number, *, at_most: Optional[float] = None,
                at_least: Optional[float] = None, unit: str = "", why: Words = "", exercised: bool = True,
                premise: Words = "", fmt: str = "{:.3g}", within: Optional[Range] = None) -> Claim:
    """A claim the paper makes one-sided itself ("under 7%", "at least 99%"): matches when ours
    is at most `at_most` / at least `at_least`. Use it only where the paper's words are a bound;
    a number the paper reports is a `ratio_claim` or `range_claim`, both sides checked."""
    recipe = Recipe(bound_claim, dict(locals()))
    _inside(ours, within)
    if (at_most is None) == (at_least is None):
        raise ValueError("give exactly one of at_most and at_least")
    mean = _mean(ours)
    a, b = _bounds(ours)
    if at_most is not None:
        ok, rule, straddles = mean <= at_most, f"ours <= {fmt.format(at_most)}{unit}", a <= at_most < b
    else:
        assert at_least is not None
        ok, rule, straddles = mean >= at_least, f"ours >= {fmt.format(at_least)}{unit}", a < at_least <= b
    return _recorded(_claim(claim, paper, _format(ours, fmt, unit), ok, rule, why, exercised=exercised,
                            premise=premise, straddles=straddles), recipe, {"ours": ours})


def _overlap(x: Number, y: Number) -> bool:
    """Whether the intervals of two estimates overlap (two single values never do: their order
    is what it is)."""
    if not (isinstance(x, Estimate) or isinstance(y, Estimate)):
        return False
    (ax, bx), (ay, by) = _bounds(x), _bounds(y)
    return bx >= ay and by >= ax


def order_claim(claim: str, paper: str, values: Mapping[str, Number], order: Sequence[str], fmt: str = "{:.3g}",
                why: Words = "", *, exercised: bool = True, premise: Words = "",
                within: Optional[Range] = None) -> Claim:
    """A claim that schemes rank in `order` (strictly increasing values): matches when our means
    do; straddles when two neighbours' intervals overlap (the order could be noise)."""
    recipe = Recipe(order_claim, dict(locals()))
    for v in values.values():
        _inside(v, within)
    ours = ", ".join(f"{name} {_format(values[name], fmt, '')}" for name in order)
    ok = all(_mean(values[a]) < _mean(values[b]) for a, b in zip(order, order[1:]))
    straddles = any(_overlap(values[a], values[b]) for a, b in zip(order, order[1:]))
    return _recorded(_claim(claim, paper, ours, ok, "strictly increasing in the order " + " < ".join(order), why,
                            exercised=exercised, premise=premise, straddles=straddles), recipe,
                     {name: values[name] for name in order})


def condition_claim(claim: str, paper: str, ours: Words, ok: bool, rule: str, why: Words = "", *,
                    exercised: bool = True, premise: Words = "", straddles: bool = False,
                    values: Optional[Mapping[str, Optional[Number]]] = None) -> Claim:
    """A claim checked by a condition stated in `rule` (for what the shapes above cannot say).
    `values` names the numbers the condition was computed from, kept with the claim so that
    tests can pin them (None: not measured, left out). Over seeds, it matches when it holds in
    more than half of them and straddles when they disagree."""
    recipe = Recipe(condition_claim, dict(locals()))
    return _recorded(_claim(claim, paper, ours, ok, rule, why, exercised=exercised, premise=premise,
                            straddles=straddles), recipe,
                     {"holds": 1.0 if ok else 0.0, **{k: v for k, v in (values or {}).items() if v is not None}})


def every(claim: str, paper: str, parts: Mapping[object, Claim], why: Words = "", tolerance: str = "") -> Claim:
    """A claim the paper makes for every setting at once ("for all scenarios"), from each
    setting's own claim under one rule: a match only when every exercised setting matches. It
    straddles when the noise could flip it: a match with any setting straddling, a deviation with
    every deviating setting straddling. Not exercised when no setting was. `tolerance` gives the
    reason for the slack of the parts' rule, when the parts do not carry one."""
    recipe = Recipe(every, dict(locals()))
    if not parts:
        raise ValueError(f"a claim for every setting needs at least one: {claim!r}")
    exercised = {k: c for k, c in parts.items() if c.verdict != NOT_EXERCISED}
    first = next(iter(parts.values()))
    ours = ", ".join(f"{k}: {c.ours}" for k, c in parts.items())
    numbers = {f"{key}" if name == "ours" else f"{key}: {name}": values
               for key, part in parts.items() for name, values in part.numbers.items()}
    if not exercised:
        # The rule keeps the reason for its slack, exercised or not.
        return replace(_claim(claim, paper, ours, False, "each: " + first.rule, why, exercised=False,
                              premise="; ".join(dict.fromkeys(c.why for c in parts.values())), tolerance=None),
                       tolerance=tolerance or first.tolerance, numbers=numbers, recipe=recipe)
    ok = all(c.verdict == MATCHES for c in exercised.values())
    straddles = (any(c.straddles for c in exercised.values()) if ok else
                 all(c.straddles for c in exercised.values() if c.verdict != MATCHES))
    rule = "each: " + first.rule
    if len(exercised) < len(parts):
        rule += f" ({len(parts) - len(exercised)} of {len(parts)} settings not exercised)"
    return Claim(claim, paper, ours, MATCHES if ok else DEVIATES, rule, "" if ok else _said(why),
                 tolerance or first.tolerance, straddles, numbers, recipe)


def _recorded(claim: Claim, recipe: Recipe, numbers: Mapping[str, Number]) -> Claim:
    return replace(claim, numbers={k: _values(v) for k, v in numbers.items()}, recipe=recipe)


def over_seeds(per_seed: Sequence[Claim]) -> Claim:
    """One claim from the same claim made on each seed's runs: its numbers become estimates
    over the seeds and its builder is called again on them, so the verdict is the rule applied
    to the means, with `straddles` when an interval crosses the rule's edge.

    A claim's premise may occur in some seeds and not in others: the claim counts as exercised
    when it occurred in at least half of them, and its numbers are then estimated over those
    seeds alone (`ours` says how many). The claim's words are the first seed's; a `Text` (an
    explanation, a premise, a condition's `ours`) is written from the mean of each of its facts
    over the seeds the verdict used."""
    if not per_seed:
        raise ValueError("over_seeds needs the claim of at least one seed")
    first = per_seed[0]
    recipe = first.recipe
    if recipe is None or any(c.recipe is None or c.recipe.build is not recipe.build for c in per_seed):
        raise ValueError(f"the claim {first.claim!r} is not built by the same rule in every seed")
    if len(per_seed) == 1:
        return first
    if recipe.build is every:
        keys = list(recipe.arguments["parts"])
        if any(list(_arguments(c)["parts"]) != keys for c in per_seed):
            raise ValueError(f"the claim {first.claim!r} has different settings in different seeds")
        parts = {k: over_seeds([_arguments(c)["parts"][k] for c in per_seed]) for k in keys}
        return every(**{**recipe.arguments, "parts": parts,
                        "why": _joined_text([_arguments(c)["why"] for c in per_seed])})
    n = len(per_seed)
    exercised = [c for c in per_seed if c.verdict != NOT_EXERCISED]
    if 2 * len(exercised) < n:
        premise = _said(_joined_text([_arguments(c)["premise"] for c in per_seed if c.verdict == NOT_EXERCISED]))
        arguments = {**_joined(recipe, per_seed), "exercised": False,
                     "premise": f"{premise} (in {n - len(exercised)} of {n} seeds)"}
        return recipe.build(**arguments)
    arguments = {**_joined(recipe, exercised), "exercised": True}
    if recipe.build is condition_claim:
        holds = sum(c.verdict == MATCHES for c in exercised)
        arguments.update(ok=2 * holds > len(exercised), straddles=0 < holds < len(exercised),
                         ours=f"{_said(arguments['ours'])}; holds in {holds} of {len(exercised)} seeds")
    claim = recipe.build(**arguments)
    if recipe.build is condition_claim:
        claim = replace(claim, numbers={**claim.numbers,
                                        "holds": [1.0 if c.verdict == MATCHES else 0.0 for c in exercised]})
    if len(exercised) < n:
        claim = replace(claim, ours=f"{claim.ours}; premise met in {len(exercised)} of {n} seeds")
    return claim


def _arguments(claim: Claim) -> Mapping[str, Any]:
    assert claim.recipe is not None
    return claim.recipe.arguments


def _joined(recipe: Recipe, claims: Sequence[Claim]) -> Dict[str, Any]:
    """The first claim's arguments with each number replaced by its estimate over `claims`, and
    each `Text` written from the means of its facts."""
    arguments = dict(recipe.arguments)
    for name in ("why", "premise", "ours"):
        if isinstance(arguments.get(name), Text):
            arguments[name] = _joined_text([_arguments(c)[name] for c in claims])
    within = arguments.get("within")
    if recipe.build is order_claim:
        arguments["values"] = {k: Estimate.of([_mean(_arguments(c)["values"][k]) for c in claims], within)
                               for k in recipe.arguments["values"]}
    elif recipe.build is condition_claim:
        joined: Dict[str, Estimate] = {}
        for k in recipe.arguments["values"] or {}:
            found = [_mean(v) for c in claims if (v := (_arguments(c)["values"] or {}).get(k)) is not None]
            if found:
                joined[k] = Estimate.of(found)
        arguments["values"] = joined
    else:
        arguments["ours"] = Estimate.of([_mean(_arguments(c)["ours"]) for c in claims], within)
    return arguments


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
