"""`incast sweep`: runs every point of a parameter sweep file into a results directory, skipping
the points already there (docs/sweeps.md); `run_points` also runs `incast experiment`'s sweeps."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from incast.cli.common import (
    EXIT_FAILED,
    CliError,
    add_jobs_option,
    check_out_dir,
    deadline_lines,
    print_warnings,
    slowdown_lines,
    warnings_as_lines,
)

if TYPE_CHECKING:
    from incast.cli.common import Subparsers
    from incast.sweep import Sweep, SweepResult


def add_parsers(sub: Subparsers) -> None:
    """`incast sweep`."""
    p = sub.add_parser("sweep", help="run every point of a parameter sweep, skipping those already done")
    p.add_argument("sweep", metavar="SWEEP", help="sweep file (.toml; docs/sweeps.md)")
    p.add_argument(
        "--out", required=True, metavar="DIR", help="results directory (a Parquet dataset; reruns resume)"
    )
    add_jobs_option(p, "points run at a time, or workers of --scheduler local")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the points on this Dask scheduler (tcp://host:8786), or 'local' for a LocalCluster",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar, print nothing on success")
    p.add_argument("--progress", action="store_true", help="show the progress bar even without a terminal")
    p.add_argument("--slowdown", action="store_true",
                   help="also print the FCT slowdown by flow size for each combination of the varied keys, "
                        "seeds pooled (pFabric's buckets: docs/python.md, 'Slowdown')")
    p.add_argument("--deadlines", action="store_true",
                   help="also print the deadlines met and missed (application throughput) for each combination of "
                        "the varied keys and each protocol, seeds pooled (docs/python.md, 'Deadlines')")
    p.set_defaults(handler=_cmd_sweep)


def _cmd_sweep(args: argparse.Namespace) -> int:
    from incast.sweep import SweepError, load_sweep

    started = time.monotonic()
    try:
        sweep = load_sweep(args.sweep)
    except OSError as e:
        raise CliError(f"cannot read sweep {args.sweep!r}: {e.strerror or e}") from None
    except SweepError as e:
        raise CliError(f"{args.sweep}: {e}") from None
    out = check_out_dir(args.out)
    # What the points' scenarios will do that their files may not mean: once each, with how many
    # points it applies to, before anything runs (the runs do not repeat them).
    print_warnings(args.sweep, sweep.warnings, points=len(sweep.points))
    result = run_points(sweep, out, args, args.sweep)
    if result is None:
        return EXIT_FAILED
    if result.stalled:
        print(f"incast: warning: {stalled_points(result)}", file=sys.stderr)
    if not args.quiet:
        print(
            f"{len(sweep.points)} points: {sweep_counts(result)}, "
            f"{time.monotonic() - started:.1f} s -> {out}/ (flows/, summary/)"
        )
        if args.slowdown:
            print(slowdown_lines(result.slowdown()))
        if args.deadlines:
            print(deadline_lines(result.deadlines()))
    return 0


def run_points(sweep: "Sweep", out: Path, args: argparse.Namespace, source: str) -> Optional["SweepResult"]:
    """Runs `sweep` into `out` as `incast sweep` does (`--jobs`, `--scheduler`, `--quiet`,
    `--progress`); on failed points prints each and what was kept, and returns None. `source`
    names the sweep in errors."""
    from incast.sweep import PointError, SweepError, run_sweep

    show = not args.quiet and (args.progress or sys.stderr.isatty())
    try:
        with warnings_as_lines(source):
            return run_sweep(sweep, out, jobs=args.jobs, scheduler=args.scheduler, progress=show)
    except SweepError as e:
        if e.key in ("out", "scheduler"):
            raise CliError(f"--{e.key} {getattr(args, e.key)!r}: {e.message}") from None
        raise CliError(f"{source}: {e}") from None
    except PointError as e:
        for failure in e.failures:
            print(f"incast: error: {failure}", file=sys.stderr)
        r = e.result
        print(
            f"incast: error: {r.failed} of {len(sweep.points)} points failed; {sweep_counts(r)}, "
            f"kept in {out}/; rerun to retry the failed ones",
            file=sys.stderr,
        )
        if r.stalled:
            print(f"incast: warning: {stalled_points(r)}", file=sys.stderr)
        return None


def stalled_points(r: "SweepResult") -> str:
    """How many of the points a sweep call ran stalled, and where to read why."""
    return (
        f"{r.stalled} of the {r.ran} points run stalled ([run] stall_after): kept, with status \"stalled\" and "
        "stall_reason in their summary rows"
    )


def sweep_counts(r: "SweepResult") -> str:
    """`5 run (2 damaged points recomputed), 3 already done`: what a sweep call did."""
    run = r.ran - r.failed
    damaged = f" ({r.damaged} damaged point{'s' if r.damaged != 1 else ''} recomputed)" if r.damaged else ""
    return f"{run} run{damaged}, {r.cached} already done"
