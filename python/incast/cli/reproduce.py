"""`incast reproduce`, which reproduces figures and tables of the D3 and D2TCP papers and checks
their claims (docs/reproduce.md), and `incast report`, which gathers the reproductions of a
directory into one HTML page."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Tuple

from incast.cli.common import EXIT_FAILED, CliError, add_jobs_option, check_out_dir, os_error

if TYPE_CHECKING:
    from incast.cli.common import Subparsers


def d3_setting(text: str) -> Tuple[str, Any]:
    """`--d3 KEY=VALUE`: the key and its value, typed as a scenario file would write it (true and
    false, numbers, otherwise the text); the engine checks both when the sweep is built."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. variant=repaired)")
    raw = value.strip()
    typed: Any
    if raw in ("true", "false"):
        typed = raw == "true"
    else:
        try:
            typed = float(raw) if any(c in raw for c in ".eE") else int(raw)
        except ValueError:
            typed = raw
    return key.strip(), typed


def add_parsers(sub: Subparsers) -> None:
    """`incast reproduce` and `incast report`."""
    p = sub.add_parser("reproduce", help="reproduce figures and tables of the D3 and D2TCP papers")
    p.add_argument("ids", nargs="*", metavar="ID", help="reproductions to run, or 'all' (see --list)")
    p.add_argument("--list", action="store_true", help="list the reproductions and exit")
    p.add_argument("--out", metavar="DIR", help="output directory: DIR/ID/ per reproduction, DIR/runs/ the cache")
    p.add_argument("--quick", action="store_true", help="reduced version (fewer seeds and points), as CI runs it")
    add_jobs_option(p, "simulations run at a time")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the simulations on this Dask scheduler, or 'local'")
    p.add_argument("--d3", action="append", type=d3_setting, default=[], metavar="KEY=VALUE",
                   help="set a [d3] key in every simulation, e.g. variant=repaired (repeatable; docs/reproduce.md)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, print nothing on success")
    p.set_defaults(handler=_cmd_reproduce)

    p = sub.add_parser("report", help="gather the reproductions under DIR into DIR/report.html")
    p.add_argument("dir", metavar="DIR", help="the --out directory of incast reproduce")
    p.set_defaults(handler=_cmd_report)


def _cmd_reproduce(args: argparse.Namespace) -> int:

    from incast.reproduce import REPRODUCTIONS, run_reproduction
    from incast.reproduce.verdict import Tally
    from incast.sweep import PointError, SweepError

    if args.list:
        for r in REPRODUCTIONS.values():
            print(f"{r.id:24} {r.paper} {r.title}")
        return 0
    if not args.ids:
        raise CliError("name reproductions to run (or 'all'); --list shows them")
    ids = list(REPRODUCTIONS) if args.ids == ["all"] else args.ids
    unknown = [i for i in ids if i not in REPRODUCTIONS]
    if unknown:
        raise CliError(f"unknown reproduction {unknown[0]!r}; `incast reproduce --list` names them")
    if args.out is None:
        raise CliError("--out DIR is required to run reproductions")
    out = check_out_dir(args.out)
    show = not args.quiet and sys.stderr.isatty()
    for rid in ids:
        started = time.monotonic()
        try:
            outcome = run_reproduction(rid, out, quick=args.quick, jobs=args.jobs, scheduler=args.scheduler,
                                       progress=show, d3=dict(args.d3))
        except SweepError as e:
            if e.key in ("out", "scheduler"):
                raise CliError(f"--{e.key} {getattr(args, e.key)!r}: {e.message}") from None
            raise CliError(f"{rid}: {e}") from None
        except PointError as e:
            print(f"incast: error: {rid}: {e}; finished runs are kept, rerun to resume", file=sys.stderr)
            return EXIT_FAILED
        except OSError as e:
            raise _os_failure(args.out, out, rid, e) from None
        if not args.quiet:
            tally = Tally.of([c.report() for c in outcome.claims])
            print(f"{rid}: {tally}, {time.monotonic() - started:.1f} s "
                  f"-> {out / rid}/report.md")
    return 0


def _os_failure(given: str, out: Path, rid: str, e: OSError) -> CliError:
    """The error for an OSError of reproduction `rid`: a file outside `out` is named as the one
    that could not be opened (a data file the reproduction reads, such as the Homa cross-check's
    committed reference rows, which a copy of the package without its repository lacks); any
    other is a failure to write the results to `out` (`given`, as the command line wrote it)."""
    name = e.filename
    if name is not None and not Path(os.fsdecode(name)).resolve().is_relative_to(out.resolve()):
        return CliError(f"{rid}: cannot open {os.fsdecode(name)!r}: {os_error(e)}")
    return CliError(f"--out {given!r}: cannot write results: {os_error(e)}")


def _cmd_report(args: argparse.Namespace) -> int:
    from incast.reproduce.html import write_report

    root = Path(args.dir)
    if not root.is_dir():
        raise CliError(f"{args.dir!r} is not a directory")
    try:
        path = write_report(root)
    except ValueError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"{args.dir!r}: cannot write report.html: {e.strerror or e}") from None
    print(f"wrote {path}")
    return 0
