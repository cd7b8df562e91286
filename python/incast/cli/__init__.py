"""The `incast` command: run a scenario or a sweep, the D3 flow-burst demo, or the benchmarks.

Every user mistake (bad scenario, missing file, unwritable --out or a full disk, bad option) ends
the same way: one line `incast: error: ...` naming the key or option on stderr, exit status 2, no
traceback and no partial output; so does a `[run]` limit reached during the run (an
`incast.ResourceError` naming a key). Memory the run cannot get (a ResourceError naming no key,
any other MemoryError) or an engine panic: one line, status 70. Ctrl-C exits with status 130; sweep points
that fail to run, with status 1 after the other points ran.

This module holds the parser, the dispatch and that error handling; each command group is a
module of its own that adds its commands' arguments and runs them: `run` (run, check), `sweep`,
`experiment`, `reproduce` (reproduce, report), `demo`, `crosscheck`, `bench`; `common` holds
what several of them share.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, NoReturn, Optional, Sequence

from incast.cli import bench, crosscheck, demo, experiment, reproduce, run, sweep
from incast.cli.common import (
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    CliError,
    add_jobs_option,
    check_out_dir,
    non_negative_int,
    one_line,
    positive_int,
    slowdown_lines,
)
from incast.cli.demo import int_list
from incast.cli.experiment import fan_in_list, load_list, positive_float
from incast.cli.reproduce import d3_setting
from incast.cli.run import (
    check_run_out_dir,
    flow_id,
    horizon_warning,
    seed_value,
    summary_line,
    toml_value,
    topology_line,
)
from incast.cli.sweep import sweep_counts

# What `incast.cli` offered when it was one module, so that imports of it keep working.
__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "CliError",
    "add_jobs_option",
    "build_parser",
    "check_out_dir",
    "check_run_out_dir",
    "d3_setting",
    "fan_in_list",
    "flow_id",
    "horizon_warning",
    "int_list",
    "load_list",
    "main",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "seed_value",
    "slowdown_lines",
    "summary_line",
    "sweep_counts",
    "toml_value",
    "topology_line",
]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints the usage block first by default)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `incast` (documented in docs/cli.md)."""
    from incast import __version__

    parser = _Parser(prog="incast", description="Packet-level datacenter network simulator.")
    parser.add_argument("--version", action="version", version=f"incast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (run, sweep, experiment, reproduce, demo, crosscheck, bench):
        group.add_parsers(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `incast` console script; returns the exit status."""
    try:
        return _main(argv)
    except CliError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        print("incast: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as e:
        if getattr(e, "path", ""):
            # A `[run]` limit that only the run could see reached (sample rows without a
            # duration, a Poisson draw past `max_flows`): the scenario's to change, like a
            # ScenarioError, and the message names the key and the limit.
            return _fail(one_line(e))
        # incast.ResourceError says which allocation failed; a bare MemoryError says nothing.
        print(f"incast: error: {one_line(e) or 'out of memory'}", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:
        # Output piped into `head`: not an error of ours. Silence the flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        # The engine broke an invariant; Rust has already printed where.
        print(f"incast: internal error: {e} (please report this)", file=sys.stderr)
        return EXIT_INTERNAL


def _fail(message: str) -> int:
    print(f"incast: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _main(argv: Optional[Sequence[str]]) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        raise CliError(
            "choose a command: run, check, sweep, experiment, reproduce, report, demo, crosscheck or bench "
            "(see incast --help)")
    from incast import ScenarioError

    try:
        # Each command group's `add_parsers` sets its commands' handlers.
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except ScenarioError as e:
        where = f"{args.scenario}: " if getattr(args, "scenario", None) else ""
        raise CliError(f"{where}{e}") from None
