"""The generated blocks that compare D3's variants: the committed reproductions run D3 as the
paper prints it, and `docs/reproductions/variants/<name>/` holds the same D3 reproductions run
under another D3 (`incast reproduce ... --d3 KEY=VALUE`, recorded in each report's `"d3"`). Each
block sets the verdicts of the same claims side by side, so that a reader sees which of incast's
departures from the paper move which verdict.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple

from incast.reproduce.core import verdict_text
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.errors import DocsError
from incast.reproduce.verdict import Tally

Renderer = Callable[[Reproductions], str]

VARIANTS: Tuple[Tuple[str, str], ...] = (
    ("repaired", "repaired"),
    ("incast-2026-11-24", "incast's D3 until 2026-11-26"),
)
"""The committed variant runs, by directory under `variants/`, with the column heading each gets."""


def _variant(r: Reproductions, name: str) -> Reproductions:
    root = r.root / "variants" / name
    if not root.is_dir():
        raise DocsError(f"no variant run {name!r}: {root} is not a directory (docs/reproduce.md, 'Under another D3')")
    return Reproductions(root)


def _settings(report: Mapping[str, Any]) -> str:
    d3 = report.get("d3") or {}
    if not d3:
        raise DocsError(f"the variant report of {report.get('id')} records no [d3] settings")
    return ", ".join(f"`{k} = {v!r}`".replace("'", '"') if isinstance(v, str) else f"`{k} = {str(v).lower()}`"
                     for k, v in d3.items())


def _short(claim: str, head: int = 10, tail: int = 10) -> str:
    """A long claim's opening and closing words (where the setting it is judged at is named)."""
    parts = claim.replace("|", "/").split()
    if len(parts) <= head + tail:
        return " ".join(parts)
    return " ".join(parts[:head]) + " ... " + " ".join(parts[-tail:])


def variant_settings(r: Reproductions) -> str:
    """A list: each committed variant and the `[d3]` keys its runs set."""
    lines = []
    for name, label in VARIANTS:
        v = _variant(r, name)
        ids = v.ids()
        if not ids:
            raise DocsError(f"the variant run {name!r} has no reports")
        lines.append(f"- **{label}** (`docs/reproductions/variants/{name}/`, {len(ids)} reproductions): "
                     + _settings(v.report(ids[0])))
    return "\n".join(lines)


def variant_tallies(r: Reproductions) -> str:
    """A table: per reproduction run under every variant, its tally as printed and under each."""
    variants = [(label, _variant(r, name)) for name, label in VARIANTS]
    ids = sorted(set.intersection(*(set(v.ids()) for _, v in variants)))
    head = ["reproduction", "D3 as printed", *(label for label, _ in variants)]
    rows = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    totals: Dict[str, List[Mapping[str, Any]]] = {h: [] for h in head[1:]}
    for rid in ids:
        cells = [rid]
        for heading, reports in (("D3 as printed", r), *variants):
            claims = reports.report(rid).get("claims", [])
            totals[heading] += claims
            t = Tally.of(claims)
            cells.append(f"{t.matches} of {t.total} match")
        rows.append("| " + " | ".join(cells) + " |")
    rows.append("| all | " + " | ".join(
        f"{Tally.of(totals[h]).matches} of {Tally.of(totals[h]).total} match" for h in head[1:]) + " |")
    return "\n".join(rows)


def variant_verdicts(r: Reproductions) -> str:
    """A table: every claim whose verdict differs between D3 as printed and some variant, with
    its verdict under each (the claims of the same reproduction are matched in order)."""
    variants = [(label, _variant(r, name)) for name, label in VARIANTS]
    ids = sorted(set.intersection(*(set(v.ids()) for _, v in variants)))
    head = ["reproduction", "claim", "D3 as printed", *(label for label, _ in variants)]
    rows = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for rid in ids:
        mine: Sequence[Mapping[str, Any]] = r.report(rid).get("claims", [])
        theirs = [v.report(rid).get("claims", []) for _, v in variants]
        for k, c in enumerate(theirs):
            if len(c) != len(mine) or any(a["claim"] != b["claim"] for a, b in zip(c, mine)):
                raise DocsError(f"{rid}: the variant {variants[k][0]!r} states other claims than the main run")
        for i, claim in enumerate(mine):
            verdicts = [claim["verdict"], *(c[i]["verdict"] for c in theirs)]
            if len(set(verdicts)) > 1:
                cells = [rid, _short(claim["claim"]), f"{verdict_text(claim)}: {claim['ours']}",
                         *(f"{verdict_text(c[i])}: {c[i]['ours']}" for c in theirs)]
                rows.append("| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |")
    if len(rows) == 2:
        return "No claim's verdict differs between the variants."
    return "\n".join(rows)


RENDERERS: Dict[str, Renderer] = {
    "d3-variant-settings": variant_settings,
    "d3-variant-tallies": variant_tallies,
    "d3-variant-verdicts": variant_verdicts,
}
