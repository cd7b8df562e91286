"""The generated blocks of docs/results-d2tcp.md on D2TCP's deadline imminence d: the slides'
deadline-aware scheduling figure (`d2tcp-scheduling`, `incast.reproduce.d2tcp.scheduling`) and
D2TCP under each reading of d that public implementations make (`d2tcp-sensitivity`,
`incast.reproduce.d2tcp.sensitivity`), from their reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

from incast.protocols import label, labels
from incast.reproduce.d2tcp.sensitivity import PANELS, VARIANTS
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.cells import number
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.errors import DocsError
from incast.reproduce.rendering.seeds import per_seed, seed_means
from incast.reproduce.verdict import Estimate

if TYPE_CHECKING:
    import pyarrow as pa

Renderer = Callable[[Reproductions], str]

SCHEDULING, SENSITIVITY = "d2tcp-scheduling", "d2tcp-sensitivity"


# --- The scheduling figure ----------------------------------------------------------------------


def scheduling_shares(r: Reproductions) -> str:
    """Each flow's mean throughput while all four are active and its completion time, under DCTCP
    and D2TCP, with the number of seeds in which it met its deadline."""
    m = seed_means(r.table(SCHEDULING, "shares"), ["mean_gbps", "finish_ms", "met_deadline"],
                   ignore=["sender", "from_ms", "to_ms"])
    rows = []
    for flow in m.levels("flow"):
        deadline = next(k[m.keys.index("deadline_ms")] for k in m.cells if k[m.keys.index("flow")] == flow)
        setting = {"flow": flow, "deadline_ms": deadline}
        cells_of = [number(m.of(value, protocol=protocol, **setting), spec)
                    for value, spec in (("mean_gbps", "{:.2f}"), ("finish_ms", "{:.1f}"))
                    for protocol in ("dctcp", "d2tcp")]
        met = [m.of("met_deadline", protocol=protocol, **setting) for protocol in ("dctcp", "d2tcp")]
        rows.append([f"Flow-{flow} ({deadline:.1f} ms)", *cells_of,
                     *(f"{sum(e.values or (e.mean,)):.0f} of {e.seeds}" for e in met)])
    return cells.table(["flow (deadline)", "DCTCP, Gbps", "D2TCP, Gbps", "DCTCP done, ms", "D2TCP done, ms",
                        "DCTCP met, seeds", "D2TCP met, seeds"], rows)


def _relative_shares(r: Reproductions) -> Dict[Tuple[str, int], Estimate]:
    """Each flow's share over the four flows' mean in its own run, per (protocol, flow), over the
    seeds."""
    def relative(rows: "pa.Table") -> Dict[Tuple[str, int], Optional[float]]:
        out: Dict[Tuple[str, int], Optional[float]] = {}
        for protocol in ("dctcp", "d2tcp"):
            mine = [x for x in rows.to_pylist() if x["protocol"] == protocol]
            mean = sum(x["mean_gbps"] for x in mine) / len(mine)
            out.update({(protocol, x["flow"]): x["mean_gbps"] / mean for x in mine})
        return out

    return per_seed(r.table(SCHEDULING, "shares"), relative)


def scheduling_spread(r: Reproductions) -> str:
    """Inline: how far each protocol's flows lie from their mean share, averaged over the seeds."""
    rel = _relative_shares(r)

    def spread(protocol: str) -> str:
        mine = sorted((f, e) for (p, f), e in rel.items() if p == protocol)
        return cells.span([e.mean for _, e in mine], "{:.2f}")

    lows = [e.low for (p, _), e in rel.items() if p == "dctcp"]
    highs = [e.high for (p, _), e in rel.items() if p == "dctcp"]
    seeds = next(iter(rel.values())).seeds
    return (f"DCTCP's four shares average {spread('dctcp')} of their mean over {seeds} seeds (every flow's 95% "
            f"interval within {min(lows):.2f}-{max(highs):.2f}), D2TCP's {spread('d2tcp')}")


def scheduling_within_seed(r: Reproductions) -> str:
    """Inline: DCTCP's largest departure of a flow from the mean share within one seed, over the
    seeds."""
    def largest(rows: "pa.Table") -> Dict[str, Optional[float]]:
        mine = [x["mean_gbps"] for x in rows.to_pylist() if x["protocol"] == "dctcp"]
        mean = sum(mine) / len(mine)
        return {"dctcp": 100 * max(abs(x / mean - 1) for x in mine)}

    return number(per_seed(r.table(SCHEDULING, "shares"), largest)["dctcp"], "{:.0f}", unit="%")


# --- The readings of d ------------------------------------------------------------------------


def _sensitivity(r: Reproductions) -> "pa.Table":
    return r.table(SENSITIVITY, "sensitivity")


def _labels() -> Dict[str, str]:
    return {**labels(["dctcp"]), **{v.name: f"{label('d2tcp')}, {v.label}" for v in VARIANTS}}


def sensitivity_table(r: Reproductions) -> str:
    """Missed deadlines (%) of DCTCP and of D2TCP under each reading, per panel."""
    m = seed_means(_sensitivity(r), ["missed", "fewer_than_dctcp"])
    panels = [p for p in PANELS if p.name in m.levels("panel")]
    labels = _labels()
    names = [n for n in labels if n in m.levels("variant")]
    rows = [[labels[n], *(number(m.of("missed", panel=p.name, variant=n), "{:.2f}", zero="0") for p in panels)]
            for n in names]
    rows.append(["paper (DCTCP, D2TCP)", *(f"{p.paper_dctcp:g}, {p.paper_d2tcp:g}" for p in panels)])
    return cells.table(["missed deadlines, %, fan-in 40", *(p.label for p in panels)], rows)


def _reductions(r: Reproductions, panel: str) -> Dict[str, Estimate]:
    """D2TCP's reduction of DCTCP's missed deadlines (%) per reading at `panel`, over the seeds."""
    def cut(rows: "pa.Table") -> Dict[str, Optional[float]]:
        at = {x["variant"]: x["missed"] for x in rows.to_pylist() if x["panel"] == panel}
        if "dctcp" not in at:
            raise DocsError(f"no DCTCP row in panel {panel!r}")
        return {v: 100 * (1 - x / at["dctcp"]) if at["dctcp"] else None for v, x in at.items() if v != "dctcp"}

    return per_seed(_sensitivity(r), cut)


def _extremes(r: Reproductions, panel: str) -> List[str]:
    """The readings with the smallest and the largest reduction at `panel`, each with it."""
    cut = _reductions(r, panel)
    if not cut:
        raise DocsError(f"DCTCP missed nothing at panel {panel!r}: no reduction to quote")
    labels = {v.name: v.label for v in VARIANTS}
    ranked = sorted(cut, key=lambda v: cut[v].mean)
    shown = [number(cut[v], "{:+.0f}", unit="%") for v in (ranked[0], ranked[-1])]

    def readings(end: str) -> str:
        # Every reading whose reduction reads the same as the extreme's, ours first.
        tied = [v for v in VARIANTS if v.name in cut and f"{cut[v.name].mean:+.0f}" == f"{cut[end].mean:+.0f}"]
        return labels[tied[0].name] + (f" and {len(tied) - 1} other readings" if len(tied) > 1 else "")

    return [f"{text} ({readings(end)})" for text, end in zip(shown, (ranked[0], ranked[-1]))]


def _sensitivity_extremes(panel: str) -> Renderer:
    def render(r: Reproductions) -> str:
        least, most = _extremes(r, panel)
        return f"from {least} to {most}"

    render.__doc__ = (f"Inline: the smallest and the largest reduction of DCTCP's missed deadlines over the readings "
                      f"at {panel}.")
    return render


RENDERERS: Dict[str, Renderer] = {
    "d2tcp-scheduling-shares": scheduling_shares,
    "d2tcp-scheduling-spread": scheduling_spread,
    "d2tcp-scheduling-within-seed": scheduling_within_seed,
    "d2tcp-sensitivity-table": sensitivity_table,
    **{f"d2tcp-sensitivity-{p.name}-extremes": _sensitivity_extremes(p.name)
       for p in PANELS if p.name in ("fig7", "fig10-ns3", "fig10-ns3-nodelack", "fig10-perport")},
}
