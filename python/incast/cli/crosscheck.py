"""`incast crosscheck`: runs the same flows in incast and in ns-3 and writes a report comparing
them (needs ns-3's Python bindings, the `crosscheck` extra)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from incast.cli.common import CliError, check_out_dir

if TYPE_CHECKING:
    from incast.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """`incast crosscheck`."""
    p = sub.add_parser("crosscheck", help="run the same flows in incast and in ns-3 and compare (needs ns-3)")
    p.add_argument("--out", default="docs/crosscheck", metavar="DIR",
                   help="directory for report.md, results.json and fct.parquet (default: docs/crosscheck)")
    p.add_argument("--quick", action="store_true", help="10 bursts per case instead of 50")
    p.add_argument("--case", action="append", metavar="NAME", help="run only this case (repeatable; see --list)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--trace-flow", type=int, metavar="N",
                   help="with one --case: write ns-3's log of flow N's sender and both results for it to DIR")
    p.add_argument("--sender-traces", action="store_true",
                   help="with one --case: write every flow's ns-3 sender log to DIR, for incast's replay test")
    p.set_defaults(handler=_cmd_crosscheck)


def _cmd_crosscheck(args: argparse.Namespace) -> int:
    from incast.crosscheck import CASES, CrosscheckError, run_crosscheck, sender_traces, trace_flow

    if args.list:
        for c in CASES:
            print(f"{c.name:30} {c.protocol:6} {c.topology:9} {c.label}")
        return 0
    names = {c.name for c in CASES}
    unknown = [n for n in args.case or [] if n not in names]
    if unknown:
        raise CliError(f"--case {unknown[0]!r}: no such case; cases: {', '.join(sorted(names))}")
    out = check_out_dir(args.out)
    try:
        if args.trace_flow is not None or args.sender_traces:
            option = "--trace-flow" if args.trace_flow is not None else "--sender-traces"
            if args.trace_flow is not None and args.sender_traces:
                raise CliError("--trace-flow and --sender-traces: choose one")
            if len(args.case or []) != 1:
                raise CliError(f"{option} needs exactly one --case")
            if args.sender_traces:
                print(sender_traces(out, args.case[0], quick=args.quick))
                return 0
            for path in trace_flow(out, args.case[0], args.trace_flow, quick=args.quick):
                print(path)
            return 0
        run_crosscheck(out, quick=args.quick, only=args.case)
    except CrosscheckError as e:
        raise CliError(str(e)) from None
    print(f"report: {out / 'report.md'}")
    return 0
