"""Pins on the numbers of the quick reproductions, so that no change moves a result unnoticed.

Every claim of a reproduction keeps the numbers its verdict used, one value per seed
(`Claim.numbers`). A pin file records, for each number of each claim of a quick run, the mean
over its seeds and a tolerance derived from their spread: the half-width of the 95% confidence
interval of that mean (Student's t). A later quick run of the same code gives exactly the same
numbers (simulations are deterministic); a change to the engine, a protocol or a reproduction
that moves a mean by more than its seed noise is a change in results, and the test that checks
the pins fails, naming the number, its old and new mean and the tolerance. If the change is
intended, `make pins` records the new numbers and the commit says why they moved.

A number that does not vary across seeds (a deterministic throughput, a condition that holds on
every seed) has no spread and so no tolerance beyond float rounding: any move is a change.

    python -m incast.reproduce.pins write DIR PINS   # pin the quick run in DIR
    python -m incast.reproduce.pins check DIR PINS   # exit 1 naming every number that moved
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from incast.stats import half_width

RELATIVE_FLOOR = 1e-9
"""The tolerance of a number without spread, relative to its size: float rounding only."""


def tolerance(values: Sequence[float]) -> float:
    """How far the mean of `values` may move: its 95% confidence half-width over the seeds, at
    least the rounding floor."""
    mean = math.fsum(values) / len(values)
    spread = half_width(values) if len(values) >= 2 else 0.0
    return max(spread, RELATIVE_FLOOR * max(1.0, abs(mean)))


def pins_of(reports: Path) -> Dict[str, Any]:
    """The pins of every reproduction reported under `reports` (one `ID/report.json` each)."""
    pinned: Dict[str, Any] = {}
    for path in sorted(reports.glob("*/report.json")):
        report = json.loads(path.read_text())
        pinned[report["id"]] = {
            "quick": report["quick"],
            "seeds": report.get("seeds"),
            "claims": [
                {"claim": c["claim"],
                 "numbers": {name: {"mean": math.fsum(values) / len(values), "tolerance": tolerance(values),
                                    "values": values}
                             for name, values in c.get("numbers", {}).items() if values}}
                for c in report["claims"]
            ],
        }
    return pinned


def moved(reports: Path, pins: Mapping[str, Any]) -> List[str]:
    """Every pinned number of the runs under `reports` that moved beyond its tolerance, and every
    reproduction, claim or number that appeared or went away, one line each (empty: none)."""
    now = pins_of(reports)
    problems: List[str] = []
    for rid in sorted(set(pins) | set(now)):
        if rid not in now:
            problems.append(f"{rid}: pinned but not in {reports}")
            continue
        if rid not in pins:
            problems.append(f"{rid}: not pinned (run `make pins`)")
            continue
        old, new = pins[rid]["claims"], now[rid]["claims"]
        if len(old) != len(new):
            problems.append(f"{rid}: {len(new)} claims, {len(old)} pinned")
            continue
        for i, (was, is_) in enumerate(zip(old, new)):
            where = f"{rid} claim {i + 1} ({_short(is_['claim'])})"
            for name in sorted(set(was["numbers"]) | set(is_["numbers"])):
                before, after = was["numbers"].get(name), is_["numbers"].get(name)
                if before is None or after is None:
                    problems.append(f"{where}: number '{name}' " + ("appeared" if before is None else "went away"))
                elif not abs(after["mean"] - before["mean"]) <= before["tolerance"]:
                    problems.append(f"{where}: '{name}' is {after['mean']:.6g}, pinned at {before['mean']:.6g} "
                                    f"+- {before['tolerance']:.3g} (95% interval of the pinned seeds "
                                    f"{_values(before['values'])})")
    return problems


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _values(values: Sequence[float]) -> str:
    return ", ".join(f"{v:.4g}" for v in values)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m incast.reproduce.pins", description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("write", "check"))
    parser.add_argument("reports", type=Path, help="the --out directory of `incast reproduce all --quick`")
    parser.add_argument("pins", type=Path, help="the pin file (tests/reproduce_pins.json)")
    args = parser.parse_args(argv)
    if not any(args.reports.glob("*/report.json")):
        print(f"error: no reproduction reports under {args.reports}", file=sys.stderr)
        return 2
    if args.action == "write":
        pinned = pins_of(args.reports)
        if not all(p["quick"] for p in pinned.values()):
            print("error: pins are taken from quick runs (incast reproduce all --quick)", file=sys.stderr)
            return 2
        tmp = args.pins.with_name(args.pins.name + ".tmp")
        tmp.write_text(json.dumps(pinned, indent=1, sort_keys=True) + "\n")
        tmp.replace(args.pins)
        print(f"pinned {sum(len(c['numbers']) for p in pinned.values() for c in p['claims'])} numbers of "
              f"{len(pinned)} reproductions into {args.pins}")
        return 0
    problems = moved(args.reports, json.loads(args.pins.read_text()))
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
