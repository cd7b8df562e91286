"""Blocks about the committed run as a whole: when and how it ran and how long it took (from
`run.json`), each reproduction's own wall time, cold or warm (`core.wall_time`), and the tally of
verdicts over every claim (`verdict.Tally`). The README and docs/reproductions/README.md quote them.

A timing is only ever quoted with its label: the whole run's wall time is the one `run.json`
records, labelled cold or warm as it says; a sum of the reproductions' own times is called that.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple, Union

from incast.reproduce import REPRODUCTIONS
from incast.reproduce.core import wall_time
from incast.reproduce.rendering import cells
from incast.reproduce.rendering.committed import RUN_FILE, Reproductions
from incast.reproduce.rendering.errors import DocsError
from incast.reproduce.verdict import Tally


def duration(seconds: float) -> str:
    """`5 min 35 s`, or `42 s` under a minute."""
    s = int(round(seconds))
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"


_RUN_KEYS: Tuple[Tuple[str, Union[type, Tuple[type, ...]]], ...] = (
    ("command", str), ("wall_s", (int, float)), ("date", str))
"""What every run `run.json` records has, and of what type."""


def _check_keys(record: object, keys: Sequence[Tuple[str, Union[type, Tuple[type, ...]]]],
                label: Callable[[str], str], r: Reproductions) -> None:
    """A `DocsError` naming the first of `keys` that `record` lacks or holds with another type."""
    for key, kind in keys:
        value = record.get(key) if isinstance(record, dict) else None
        if not isinstance(value, kind):
            raise DocsError(f"{r.root / RUN_FILE}: {label(key)} is missing or not a "
                            f"{getattr(kind, '__name__', 'number')}")


def _run_record(r: Reproductions) -> Mapping[str, Any]:
    run = r.run()
    if run is None:
        raise DocsError(f"no {RUN_FILE} in {r.root}: the run's total wall time and date are recorded only there")
    _check_keys(run, _RUN_KEYS, repr, r)
    return run


def _temperature(run: Mapping[str, Any]) -> str:
    cold = run.get("cold")
    if cold is True:
        return "cold"
    if cold is False:
        return "warm"
    return "not recorded as cold or warm"


def _mode(r: Reproductions) -> str:
    quick = [rep["id"] for rep in r.reports() if rep.get("quick")]
    if not quick:
        return "full"
    return "reduced (--quick)" if len(quick) == len(r.ids()) else f"partly reduced (--quick: {', '.join(quick)})"


def run_stamp(r: Reproductions) -> str:
    """Inline: which run the docs quote, with its wall time labelled."""
    run = _run_record(r)
    return (f"the {_mode(r)} run of {run['date']} (`{run['command']}`: {duration(run['wall_s'])} of wall time, "
            f"{_temperature(run)})")


def run_time(r: Reproductions) -> str:
    """Inline: the whole run's wall time, labelled."""
    run = _run_record(r)
    return f"{duration(run['wall_s'])} for the committed run of {run['date']}, {_temperature(run)}"


def _separate_runs(r: Reproductions) -> List[Mapping[str, Any]]:
    """The runs `run.json` records beside the main one (`separately`): reproductions run on their
    own, each with its command, IDs, wall time, date and temperature."""
    runs = _run_record(r).get("separately", [])
    if not isinstance(runs, list):
        raise DocsError(f"{r.root / RUN_FILE}: 'separately' is not a list of runs")
    for i, run in enumerate(runs):
        def label(key: str, i: int = i) -> str:
            return f"separately[{i}].{key}"

        _check_keys(run, (("ids", list), *_RUN_KEYS), label, r)
    return runs


def separate_run_time(r: Reproductions) -> str:
    """Inline: the wall time of each run of reproductions made apart from the main run, labelled."""
    runs = _separate_runs(r)
    if not runs:
        return "no reproduction ran apart from it"
    return "; ".join(f"{', '.join(run['ids'])} ran apart from it (`{run['command']}`: {duration(run['wall_s'])} on "
                     f"{run['date']}, {_temperature(run)})" for run in runs)


def tally(r: Reproductions) -> str:
    """Inline: the verdicts over every claim of every report."""
    return cells.tally_of(r.reports())


def paper_tally(paper: str) -> Callable[[Reproductions], str]:
    """Inline: the verdicts over every claim of one paper's reproductions."""
    def render(r: Reproductions) -> str:
        return cells.tally_of([rep for rep in r.reports() if rep.get("paper") == paper], f"{paper} reproductions")

    return render


def _ordered(r: Reproductions) -> List[str]:
    present = set(r.ids())
    return [rid for rid in REPRODUCTIONS if rid in present] + sorted(present - set(REPRODUCTIONS))


def wall_times(r: Reproductions) -> str:
    """Display: each reproduction's wall time as its report gives it, and their sum."""
    rows = [[f"[{rid}]({rid}/report.md)", r.report(rid)["title"], wall_time(r.report(rid))] for rid in _ordered(r)]
    total = math.fsum(r.report(rid)["wall_s"] for rid in _ordered(r))
    warm = sum(bool(r.report(rid).get("simulations", {}).get("cached")) for rid in _ordered(r))
    rows.append(["all", "sum of the reproductions' own wall times", f"{total:.1f} s ({warm} of {len(rows)} "
                 "reproductions warm: they took simulations another one had run)"])
    return cells.table(["reproduction", "title", "wall time"], rows)


def _wall_time_of(rid: str) -> Callable[[Reproductions], str]:
    def render(r: Reproductions) -> str:
        return wall_time(r.report(rid))

    render.__doc__ = f"Inline: the wall time of {rid}, cold or warm, as its report gives it."
    return render


def _verdicts_of(rid: str) -> Callable[[Reproductions], str]:
    def render(r: Reproductions) -> str:
        return str(Tally.of(r.report(rid).get("claims", ())))

    render.__doc__ = f"Inline: the tally of the verdicts of {rid}'s claims."
    return render


RENDERERS: Dict[str, Callable[[Reproductions], str]] = {
    "run-stamp": run_stamp,
    "run-time": run_time,
    "claim-tally": tally,
    "claim-tally-d3": paper_tally("D3"),
    "claim-tally-d2tcp": paper_tally("D2TCP"),
    "claim-tally-pdq": paper_tally("PDQ"),
    "claim-tally-pfabric": paper_tally("pFabric"),
    "claim-tally-ndp": paper_tally("NDP"),
    "claim-tally-homa": paper_tally("Homa"),
    "separate-run-time": separate_run_time,
    "wall-times": wall_times,
    **{f"wall-time-{rid}": _wall_time_of(rid) for rid in REPRODUCTIONS},
    **{f"verdicts-{rid}": _verdicts_of(rid) for rid in REPRODUCTIONS},
}
