"""Reproductions of the D3 and D2TCP papers' figures and tables, and of their successors PDQ,
pFabric, NDP and Homa's headline experiments, each by one command.

    incast reproduce --list
    incast reproduce d3-fig9 --out repro        # full version
    incast reproduce all --out repro --quick    # every one, reduced (what CI runs)
    incast report repro                         # one HTML page over everything in repro/

Each reproduction writes into `DIR/ID/`: its data as Parquet, `figure.png` on the paper's axes,
and `report.md` / `report.json`: the paper's claims as printed, our numbers, and a verdict by a
stated rule. Simulations run as sweeps cached under `DIR/runs/`, so an interrupted reproduction
resumes where it stopped and reproductions sharing runs (D3 Figures 9 and 10) compute them once.
How to add one: docs/reproduce.md.

Three layers, each importing only those below it:

- the framework every reproduction is written with: `core` (the context, a reproduction, running
  it over seeds, writing its report), `verdict` (the rules), `figures`, `pins`, `html` (the
  report page) and `rendering` (what a generator of the results docs' tables is made of);
- one package per paper, `d3`, `d2tcp`, `pdq`, `pfabric`, `ndp`, `homa`: its settings, reproductions and
  docs generators;
- this registry, and `docs`, which gathers the papers' generators and rewrites or checks the docs.

Experiments (`incast.experiments`) run on the papers' settings; nothing here imports one.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from incast.reproduce import d2tcp, d3, homa, ndp, pdq, pfabric
from incast.reproduce.core import Context, Outcome, Reproduction, run_over_seeds, write_outcome
from incast.reproduce.verdict import Claim

REPRODUCTIONS: Dict[str, Reproduction] = {
    r.id: r for r in (*d3.REPRODUCTIONS, *d2tcp.REPRODUCTIONS, *pdq.REPRODUCTIONS, *pfabric.REPRODUCTIONS,
                      *ndp.REPRODUCTIONS, *homa.REPRODUCTIONS)
}
"""Every reproduction by its ID, paper by paper (D3, D2TCP, then their successors PDQ, pFabric, NDP and Homa)."""


def reproduction_ids() -> List[str]:
    """Every reproduction ID, in paper and figure order."""
    return list(REPRODUCTIONS)


def run_reproduction(
    id: str,
    out: Path,
    *,
    quick: bool = False,
    jobs: Optional[int] = None,
    scheduler: Optional[str] = None,
    progress: bool = False,
    d3: Optional[Mapping[str, Any]] = None,
) -> Outcome:
    """Runs reproduction `id` into `out/id` (sweeps cached in `out/runs`) and writes its files.
    `d3` sets `[d3]` keys in every simulation (`Context.d3`)."""
    try:
        reproduction = REPRODUCTIONS[id]
    except KeyError:
        raise ValueError(f"unknown reproduction {id!r}; `incast reproduce --list` names them") from None
    ctx = Context(out=Path(out) / id, runs=Path(out) / "runs", quick=quick, jobs=jobs, scheduler=scheduler,
                  progress=progress, d3=dict(d3 or {}))
    started = time.monotonic()
    outcome = run_over_seeds(reproduction, ctx)
    write_outcome(reproduction, outcome, ctx, time.monotonic() - started, reproduction.seed_list(quick))
    return outcome


__all__ = ["Claim", "Context", "Outcome", "REPRODUCTIONS", "Reproduction", "reproduction_ids", "run_reproduction"]
