"""How the generated blocks write numbers and tables: a number measured over several seeds is
its mean with its 95% confidence interval in parentheses, `18 (15-21)`, so that a reader sees
how far it can be trusted; from one seed, or from seeds that all gave the same number to the
precision shown, it is the number alone, as the papers print theirs. A tally of verdicts counts
them over a set of reports (`tally_of`)."""

from __future__ import annotations

from typing import Any, Iterable, List, Mapping, Optional, Sequence

from incast.reproduce.verdict import FRACTION, Estimate, Range, Tally


def number(e: Optional[Estimate], spec: str = "{:.1f}", *, scale: float = 1.0, unit: str = "",
           zero: Optional[str] = None) -> str:
    """`e` scaled by `scale` in `spec`, then `unit`; with its interval when it comes from several
    seeds and they differ to the precision shown. An empty cell for no estimate; `zero`, when
    given, for an estimate that is exactly 0 in every seed (so that "nothing at all" reads apart
    from "0.00" rounded down)."""
    if e is None:
        return ""
    if zero is not None and e.low == e.high == 0:
        return zero
    text = spec.format(scale * e.mean) + unit
    low, high = (_unsigned_zero(spec.format(scale * x)) for x in (e.low, e.high))
    if e.seeds > 1 and low != high:
        signed = any(b.startswith(("-", "+")) for b in (low, high))
        text += f" ({low} to {high})" if signed else f" ({low}-{high})"
    return text


def _unsigned_zero(text: str) -> str:
    """`-0.00` as `0.00`: a bound that rounds to zero has no sign worth printing."""
    return text[1:] if text.startswith("-") and not any(c in "123456789" for c in text) else text


def percent(e: Optional[Estimate], digits: int = 1, zero: Optional[str] = None, *,
            within: Optional[Range] = FRACTION) -> str:
    """A fraction as a percentage, `95.5%`, its interval kept inside the range the quantity can
    take (`verdict.Estimate.of` says why): by default a share, in [0, 1]; `NON_NEGATIVE` for a
    ratio that may pass 100% (an overshoot), None for one that may be negative too."""
    cut = e.cut(within) if e is not None and within is not None else e
    return number(cut, f"{{:.{digits}f}}", scale=100, unit="%", zero=zero)


def span(values: Iterable[float], spec: str = "{:.1f}", unit: str = "") -> str:
    """The range of `values` (means, without intervals), `1.2-6.6`, or one number when they
    agree to the precision shown."""
    shown = sorted(values)
    low, high = spec.format(shown[0]), spec.format(shown[-1])
    return f"{low}{unit}" if low == high else f"{low}-{high}{unit}"


def listing(items: Sequence[str]) -> str:
    """`a, b and c`."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def tally_of(reports: List[Mapping[str, Any]], what: str = "reproductions") -> str:
    """The verdicts over every claim of `reports`, and how many `what` they are."""
    claims = [c for rep in reports for c in rep.get("claims", ())]
    return f"{Tally.of(claims)}, over the {len(reports)} {what}"
