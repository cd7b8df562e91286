"""`incast demo`: the D3 paper's flow-burst microbenchmark, TCP against DCTCP as the senders
grow; prints a table and writes a plot and the per-run data."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, List

from incast.cli.common import CliError, add_jobs_option, check_out_dir, positive_int

if TYPE_CHECKING:
    from incast.cli.common import Subparsers


def int_list(text: str) -> List[int]:
    """argparse type: comma-separated positive integers."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated integers, not {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"must be comma-separated positive integers, not {text!r}")
    return values


def add_parsers(sub: Subparsers) -> None:
    """`incast demo`."""
    p = sub.add_parser("demo", help="D3 flow-burst microbenchmark: TCP vs DCTCP as senders grow")
    p.add_argument("--out", default="demo-out", metavar="DIR", help="output directory (default: demo-out)")
    p.add_argument("--seeds", type=positive_int, default=5, metavar="N", help="seeds per point (default: 5)")
    p.add_argument(
        "--rounds", type=positive_int, default=20, metavar="N", help="bursts per run (default: 20)"
    )
    p.add_argument(
        "--senders",
        type=int_list,
        default=[5, 10, 20, 30, 40],
        metavar="LIST",
        help="sender counts (default: 5,10,20,30,40)",
    )
    add_jobs_option(p, "simulations run in parallel")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(handler=_cmd_demo)


def _cmd_demo(args: argparse.Namespace) -> int:
    from incast.experiments import flow_burst

    out = check_out_dir(args.out)
    started = time.monotonic()
    table = flow_burst.sweep(
        senders=args.senders,
        seeds=args.seeds,
        rounds=args.rounds,
        jobs=args.jobs,
        progress=not args.quiet,
    )
    rows = flow_burst.summarize(table, args.senders, args.seeds, args.rounds)
    try:
        flow_burst.save(table, rows, out)
    except OSError as e:
        raise CliError(f"--out {args.out!r}: cannot write results: {e.strerror or e}") from None
    if not args.quiet:
        print(flow_burst.describe(args.seeds, args.rounds))
        print(flow_burst.format_rows(rows))
        print(f"{time.monotonic() - started:.1f} s; wrote {out / 'demo.png'} and {out / 'demo.parquet'}")
    return 0
