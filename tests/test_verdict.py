"""The verdict rules of the reproductions, at and around each edge (python/incast/reproduce/verdict.py)."""

from __future__ import annotations

import math

import pytest

from incast.reproduce.verdict import (
    DEVIATES,
    FRACTION,
    MATCHES,
    NON_NEGATIVE,
    NOT_EXERCISED,
    PERCENT,
    Claim,
    Estimate,
    Text,
    Tolerance,
    bound_claim,
    condition_claim,
    every,
    order_claim,
    over_seeds,
    range_claim,
    ratio_claim,
)

T2 = Tolerance(2.0, "test")


@pytest.mark.parametrize(
    ("ours", "verdict"),
    [(1.0, MATCHES), (0.999, DEVIATES), (4.0, MATCHES), (4.001, DEVIATES), (2.0, MATCHES), (0.0, DEVIATES),
     (-2.0, DEVIATES)],
)
def test_ratio_edges_are_inclusive_on_both_sides(ours: float, verdict: str) -> None:
    assert ratio_claim("x", 2.0, ours, tolerance=T2).verdict == verdict


def test_ratio_of_a_zero_paper_number_never_matches() -> None:
    assert ratio_claim("x", 0.0, 0.0, tolerance=T2).verdict == DEVIATES


def test_ratio_states_its_tolerance_and_reason() -> None:
    c = ratio_claim("x", 2.0, 3.0, " Mbps", tolerance=Tolerance(1.5, "read off a figure"))
    assert c.verdict == MATCHES
    assert c.rule == "ours within a factor of 1.5 of the paper's (1.33 Mbps to 3 Mbps)"
    assert c.tolerance == "read off a figure"
    assert (c.paper, c.ours) == ("2 Mbps", "3 Mbps")


@pytest.mark.parametrize(
    ("ours", "verdict"), [(3.0, MATCHES), (2.999, DEVIATES), (5.0, MATCHES), (5.001, DEVIATES), (5.6, DEVIATES)]
)
def test_a_range_is_checked_on_both_sides(ours: float, verdict: str) -> None:
    assert range_claim("3-5x", 3.0, 5.0, ours, "x").verdict == verdict


def test_a_range_tolerance_widens_both_ends_and_says_so() -> None:
    c = range_claim("3-5x", 3.0, 5.0, 5.4, "x", tolerance=Tolerance(1.1, "figure"))
    assert c.verdict == MATCHES and "widened by a factor of 1.1" in c.rule and c.tolerance == "figure"
    # 3 / 1.1 = 2.727...
    assert range_claim("3-5x", 3.0, 5.0, 2.73, "x", tolerance=Tolerance(1.1, "figure")).verdict == MATCHES
    assert range_claim("3-5x", 3.0, 5.0, 2.72, "x", tolerance=Tolerance(1.1, "figure")).verdict == DEVIATES
    with pytest.raises(ValueError):
        range_claim("x", 5.0, 3.0, 4.0)


@pytest.mark.parametrize(
    ("ours", "at_most", "at_least", "verdict"),
    [(7.0, 7.0, None, MATCHES), (7.01, 7.0, None, DEVIATES), (99.0, None, 99.0, MATCHES),
     (98.99, None, 99.0, DEVIATES)],
)
def test_bounds_are_inclusive(ours: float, at_most: "float | None", at_least: "float | None", verdict: str) -> None:
    assert bound_claim("x", "p", ours, at_most=at_most, at_least=at_least).verdict == verdict


def test_a_bound_takes_exactly_one_side() -> None:
    with pytest.raises(ValueError):
        bound_claim("x", "p", 1.0)
    with pytest.raises(ValueError):
        bound_claim("x", "p", 1.0, at_most=2.0, at_least=0.0)


def test_a_claim_whose_premise_did_not_occur_is_not_exercised_whatever_its_number() -> None:
    # "D2TCP misses under 7%" with nothing missed: 0% satisfies the bound but proves nothing.
    c = bound_claim("D2TCP under 7%", "< 7%", 0.0, at_most=7.0, exercised=False, premise="nothing missed")
    assert (c.verdict, c.why) == (NOT_EXERCISED, "nothing missed")
    c = ratio_claim("x", 2.0, 100.0, tolerance=T2, why="w", exercised=False, premise="p")
    assert c.verdict == NOT_EXERCISED and not c.straddles
    with pytest.raises(ValueError, match="premise"):
        condition_claim("x", "p", "o", True, "r", exercised=False)


def test_the_why_of_a_match_is_dropped() -> None:
    assert ratio_claim("x", 2.0, 2.0, tolerance=T2, why="because").why == ""
    assert ratio_claim("x", 2.0, 9.0, tolerance=T2, why="because").why == "because"


def test_order_is_strict() -> None:
    assert order_claim("x", "a<b", {"a": 1.0, "b": 2.0}, ["a", "b"]).verdict == MATCHES
    assert order_claim("x", "a<b", {"a": 2.0, "b": 2.0}, ["a", "b"]).verdict == DEVIATES
    assert order_claim("x", "a<b<c", {"a": 1.0, "b": 3.0, "c": 2.0}, ["a", "b", "c"]).verdict == DEVIATES


def test_an_estimate_has_a_students_t_interval() -> None:
    e = Estimate.of([1.0, 2.0, 3.0])
    half = 4.303 * math.sqrt(1.0 / 3)
    assert e.mean == 2.0 and e.seeds == 3
    assert e.low == pytest.approx(2.0 - half) and e.high == pytest.approx(2.0 + half)
    assert Estimate.of([5.0]) == Estimate(5.0, 5.0, 5.0, 1)
    assert Estimate.of([2.0] * 40).low == 2.0  # no spread, no width, beyond the t table too
    assert Estimate.of([1.0, 3.0]).format("{:.2f}", "%") == "2.00% (95% CI -10.71 to 14.71%, 2 seeds)"
    assert f"{Estimate.of([1.0, 2.0, 3.0]):.1f}" == "2.0" and float(Estimate.of([1.0, 3.0])) == 2.0
    with pytest.raises(ValueError):
        Estimate.of([])


# --- the interval of a quantity with a range: Student's t, cut to the range ---------------------


def test_a_share_interval_stays_inside_0_to_100_percent_at_the_low_edge() -> None:
    # The case of issue 23: 0.4% from three seeds, which Student's t alone puts at -1.3 to 2.1%.
    values = [0.0, 0.0, 1.2]
    half = 4.303 * math.sqrt(0.48 / 3)
    plain = Estimate.of(values)
    assert plain.low == pytest.approx(0.4 - half) and plain.low < 0
    share = Estimate.of(values, PERCENT)
    assert (share.mean, share.low) == (pytest.approx(0.4), 0.0)
    assert share.high == pytest.approx(0.4 + half) == plain.high  # the other side is untouched
    assert share.format("{:.1f}", "%") == "0.4% (95% CI 0.0 to 2.1%, 3 seeds)"


def test_a_share_interval_stays_inside_at_the_high_edge_and_in_fractions() -> None:
    e = Estimate.of([100.0, 100.0, 97.0], PERCENT)
    assert e.high == 100.0 and e.low == pytest.approx(99.0 - 4.303 * math.sqrt(3.0 / 3))
    f = Estimate.of([1.0, 0.99, 0.995], FRACTION)
    assert f.high == 1.0 and f.low < f.mean < f.high
    # A share all of whose seeds sit on the edge has no width: nothing missed, three times.
    assert Estimate.of([0.0, 0.0, 0.0], PERCENT) == Estimate(0.0, 0.0, 0.0, 3)


def test_an_interval_inside_its_range_is_plain_students_t() -> None:
    assert Estimate.of([40.0, 50.0, 60.0], PERCENT) == Estimate.of([40.0, 50.0, 60.0])
    assert Estimate.of([10.0, 11.0, 12.0], NON_NEGATIVE).low == pytest.approx(11.0 - 4.303 * math.sqrt(1 / 3))
    assert Estimate.of([0.0, 1.0, 5.0], NON_NEGATIVE).low == 0.0


def test_a_value_outside_its_range_is_refused() -> None:
    with pytest.raises(ValueError, match="outside the range"):
        Estimate.of([50.0, 101.0, 80.0], PERCENT)
    with pytest.raises(ValueError, match="outside the range"):
        Estimate.of([-0.1], PERCENT)
    # A fraction handed to a claim about a percentage passes (0.5 is a percentage too), but a
    # percentage handed to a claim about a fraction does not.
    with pytest.raises(ValueError, match="outside the range"):
        bound_claim("x", "p", 50.0, at_most=0.5, within=FRACTION)


def test_claims_over_seeds_keep_a_share_inside_its_range() -> None:
    runs = [bound_claim("missed", "< 7%", v, at_most=7.0, unit="%", within=PERCENT) for v in (0.0, 0.0, 1.2)]
    joined = over_seeds(runs)
    assert joined.ours == "0.4% (95% CI 0 to 2.12%, 3 seeds)" and not joined.straddles
    orders = [order_claim("o", "a < b", {"a": a, "b": b}, ["a", "b"], within=PERCENT)
              for a, b in ((0.0, 50.0), (0.0, 60.0), (0.3, 55.0))]
    assert "95% CI 0 to" in over_seeds(orders).ours


# --- words that quote numbers: written again from the means over seeds --------------------------


def _why(facts: "dict[str, float]") -> str:
    return f"D3 misses {facts['missed']:.1f}% over {facts['late']:.0f} late flows"


def test_a_text_is_written_from_its_facts() -> None:
    c = ratio_claim("x", 2.0, 9.0, tolerance=T2, why=Text(_why, {"missed": 5.0, "late": 84}))
    assert c.why == "D3 misses 5.0% over 84 late flows"
    c = ratio_claim("x", 2.0, 9.0, tolerance=T2, exercised=False, premise=Text(lambda f: f"{f['n']:g} ran", {"n": 0}))
    assert c.why == "0 ran"


def test_an_explanation_over_seeds_quotes_the_means_of_its_facts() -> None:
    runs = [ratio_claim("x", 2.0, v, tolerance=T2, why=Text(_why, {"missed": m, "late": n}))
            for v, m, n in ((9.0, 5.0, 84), (8.0, 6.0, 60), (10.0, 7.0, 57))]
    joined = over_seeds(runs)
    assert joined.verdict == DEVIATES and joined.why == "D3 misses 6.0% over 67 late flows"


def test_a_condition_over_seeds_shows_the_means_of_its_text() -> None:
    def run(x: float) -> Claim:
        return condition_claim("c", "p", Text(lambda f: f"x = {f['x']:.1f}", {"x": x}), x > 1, "x above 1",
                               values={"x": x})

    assert over_seeds([run(1.0), run(2.0), run(3.0)]).ours == "x = 2.0; holds in 2 of 3 seeds"


def test_a_premise_over_seeds_quotes_the_means_of_the_seeds_without_it() -> None:
    def run(v: float, ran: bool, top: float) -> Claim:
        return bound_claim("x", "< 7%", v, at_most=7.0, exercised=ran,
                           premise=Text(lambda f: f"DCTCP missed at most {f['top']:.2f}%", {"top": top}))

    joined = over_seeds([run(1.0, True, 9.0), run(0.0, False, 0.1), run(0.0, False, 0.3)])
    assert joined.why == "DCTCP missed at most 0.20% (in 2 of 3 seeds)"


def test_a_text_that_quotes_more_than_its_facts_is_refused() -> None:
    def run(late: int) -> Claim:
        # `late` reaches the words without being a fact: over seeds it would be one seed's.
        return ratio_claim("x", 2.0, 9.0, tolerance=T2, why=Text(lambda f: f"{late} late flows", {}))

    with pytest.raises(ValueError, match="not among its facts"):
        over_seeds([run(84), run(60), run(57)])


def test_an_interval_across_the_edge_straddles_and_the_mean_decides() -> None:
    # Mean 4.0 inside [1, 4] (paper 2, factor 2); the interval reaches past 4.
    inside = Estimate(4.0, 3.5, 4.5, 5)
    c = ratio_claim("x", 2.0, inside, tolerance=T2)
    assert (c.verdict, c.straddles) == (MATCHES, True)
    outside = Estimate(4.2, 3.9, 4.5, 5)
    c = ratio_claim("x", 2.0, outside, tolerance=T2)
    assert (c.verdict, c.straddles) == (DEVIATES, True)
    clear = Estimate(3.0, 2.9, 3.1, 5)
    assert not ratio_claim("x", 2.0, clear, tolerance=T2).straddles
    assert "95% CI" in ratio_claim("x", 2.0, clear, tolerance=T2).ours
    assert bound_claim("x", "p", Estimate(6.9, 6.5, 7.3, 5), at_most=7.0).straddles
    assert range_claim("x", 3.0, 5.0, Estimate(3.1, 2.9, 3.3, 5)).straddles


def test_overlapping_neighbours_make_an_order_straddle() -> None:
    apart = {"a": Estimate(1.0, 0.9, 1.1, 5), "b": Estimate(2.0, 1.9, 2.1, 5)}
    assert not order_claim("x", "a<b", apart, ["a", "b"]).straddles
    close = {"a": Estimate(1.0, 0.5, 1.95, 5), "b": Estimate(2.0, 1.9, 2.1, 5)}
    c = order_claim("x", "a<b", close, ["a", "b"])
    assert (c.verdict, c.straddles) == (MATCHES, True)


def test_a_tolerance_needs_a_reason_and_a_factor_of_at_least_one() -> None:
    with pytest.raises(ValueError):
        Tolerance(1.5, " ")
    with pytest.raises(ValueError):
        Tolerance(0.9, "r")


def test_every_setting_must_match_and_settings_not_exercised_are_left_out() -> None:
    a = ratio_claim("a", 2.0, 2.0, tolerance=T2)
    b = ratio_claim("b", 2.0, 9.0, tolerance=T2, why="b is off")
    idle = ratio_claim("c", 2.0, 0.0, tolerance=T2, exercised=False, premise="nothing ran")
    assert every("x", "p", {1: a, 2: a}).verdict == MATCHES
    c = every("x", "p", {1: a, 2: b}, why="one setting is off")
    assert (c.verdict, c.why, c.ours) == (DEVIATES, "one setting is off", "1: 2, 2: 9")
    c = every("x", "p", {1: a, 2: idle})
    assert c.verdict == MATCHES and c.rule.endswith("(1 of 2 settings not exercised)")
    c = every("x", "p", {1: idle, 2: idle})
    assert (c.verdict, c.why) == (NOT_EXERCISED, "nothing ran")
    # Its rule still allows a factor, and says why, as the test of every report asks.
    assert "within a factor" in c.rule and c.tolerance == T2.reason
    with pytest.raises(ValueError):
        every("x", "p", {})


def test_every_straddles_when_the_noise_could_flip_it() -> None:
    edge = ratio_claim("a", 2.0, Estimate(4.0, 3.5, 4.5, 5), tolerance=T2)  # matches, straddles
    clear = ratio_claim("b", 2.0, 2.0, tolerance=T2)
    off_edge = ratio_claim("c", 2.0, Estimate(4.2, 3.9, 4.5, 5), tolerance=T2)  # deviates, straddles
    off = ratio_claim("d", 2.0, 9.0, tolerance=T2)
    assert every("x", "p", {1: edge, 2: clear}).straddles
    assert every("x", "p", {1: off_edge, 2: clear}).straddles
    assert not every("x", "p", {1: off_edge, 2: off}).straddles


# --- joining one claim's runs over seeds -------------------------------------------------------


def test_over_seeds_applies_the_rule_to_the_mean_and_keeps_every_value() -> None:
    runs = [ratio_claim("x", 2.0, v, tolerance=T2) for v in (3.0, 4.5, 4.2)]  # one seed (4.5) deviates
    joined = over_seeds(runs)
    assert joined.verdict == MATCHES and joined.numbers == {"ours": [3.0, 4.5, 4.2]}
    assert joined.straddles  # the mean 3.9 matches, but the interval reaches past 4
    assert "95% CI" in joined.ours and "3 seeds" in joined.ours
    assert over_seeds([ratio_claim("x", 2.0, v, tolerance=T2) for v in (4.4, 4.5, 4.6)]).verdict == DEVIATES


def test_over_seeds_of_one_seed_is_that_seed() -> None:
    c = ratio_claim("x", 2.0, 3.0, tolerance=T2)
    assert over_seeds([c]) is c


def test_a_premise_met_in_fewer_than_half_the_seeds_leaves_the_claim_not_exercised() -> None:
    def run(v: float, ran: bool) -> Claim:
        return bound_claim("x", "< 7%", v, at_most=7.0, exercised=ran, premise="nothing missed")

    joined = over_seeds([run(1.0, True), run(0.0, False), run(0.0, False)])
    assert joined.verdict == NOT_EXERCISED and joined.why == "nothing missed (in 2 of 3 seeds)"
    # Met in two of three: judged on those two alone, and the claim says so.
    joined = over_seeds([run(1.0, True), run(9.0, False), run(3.0, True)])
    assert joined.verdict == MATCHES and joined.numbers == {"ours": [1.0, 3.0]}
    assert joined.ours.endswith("premise met in 2 of 3 seeds")


def test_a_condition_over_seeds_holds_by_majority_and_straddles_when_seeds_disagree() -> None:
    def run(ok: bool, x: float) -> Claim:
        return condition_claim("c", "p", f"x={x}", ok, "x rises", values={"x": x})

    joined = over_seeds([run(True, 1.0), run(False, 2.0), run(True, 3.0)])
    assert (joined.verdict, joined.straddles) == (MATCHES, True)
    assert joined.numbers == {"holds": [1.0, 0.0, 1.0], "x": [1.0, 2.0, 3.0]}
    assert joined.ours == "x=1.0; holds in 2 of 3 seeds"
    joined = over_seeds([run(False, 1.0), run(False, 2.0), run(True, 3.0)])
    assert (joined.verdict, joined.straddles) == (DEVIATES, True)
    unanimous = over_seeds([run(True, 1.0), run(True, 1.0)])
    assert (unanimous.verdict, unanimous.straddles) == (MATCHES, False)


def test_an_order_over_seeds_ranks_the_means_and_straddles_on_overlap() -> None:
    def run(a: float, b: float) -> Claim:
        return order_claim("o", "a < b", {"a": a, "b": b}, ["a", "b"])

    joined = over_seeds([run(1.0, 2.0), run(2.5, 1.5), run(1.2, 2.1)])
    assert joined.verdict == MATCHES and joined.straddles
    assert joined.numbers == {"a": [1.0, 2.5, 1.2], "b": [2.0, 1.5, 2.1]}


def test_every_over_seeds_joins_each_setting_on_its_own() -> None:
    def run(x: float, y: float) -> Claim:
        return every("e", "p", {2: ratio_claim("", 2.0, x, tolerance=T2), 5: ratio_claim("", 2.0, y, tolerance=T2)},
                     tolerance="why this slack")

    joined = over_seeds([run(3.0, 9.0), run(3.2, 1.1), run(3.1, 1.2)])
    assert joined.numbers == {"2": [3.0, 3.2, 3.1], "5": [9.0, 1.1, 1.2]}
    assert joined.verdict == MATCHES and joined.straddles and joined.tolerance == "why this slack"


def test_over_seeds_refuses_claims_built_differently() -> None:
    with pytest.raises(ValueError, match="same rule"):
        over_seeds([ratio_claim("x", 2.0, 3.0, tolerance=T2), bound_claim("x", "p", 3.0, at_most=4.0)])
    with pytest.raises(ValueError, match="at least one"):
        over_seeds([])


def test_a_report_holds_the_numbers_but_not_the_recipe() -> None:
    report = ratio_claim("x", 2.0, Estimate.of([3.0, 3.5]), tolerance=T2).report()
    assert report["numbers"] == {"ours": [3.0, 3.5]} and "recipe" not in report
