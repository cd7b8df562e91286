"""`incast experiment`: the field's experiments, each a set of sweeps run as `incast sweep` runs
them, then summarized: `leaf-spine` (FCT slowdown of pFabric, PDQ, DCTCP and TCP on pFabric's
leaf-spine at several loads) and `line` (eight protocols on D2TCP's OLDI workload against fan-in)."""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, List

from incast.cli.common import EXIT_FAILED, CliError, add_jobs_option, check_out_dir, os_error, positive_int
from incast.cli.sweep import run_points, sweep_counts

if TYPE_CHECKING:
    from incast.cli.common import Subparsers


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text!r}")
    return value


def load_list(text: str) -> List[float]:
    """argparse type: comma-separated loads, each finite and above 0."""
    values = [positive_float(part) for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"must be comma-separated loads such as 0.2,0.5, not {text!r}")
    return values


def fan_in_list(text: str) -> List[int]:
    """argparse type: comma-separated fan-ins, each a whole number from 1 to 1000."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        values = []
    if not values or not all(1 <= v <= 1000 for v in values):
        raise argparse.ArgumentTypeError(f"must be comma-separated fan-ins from 1 to 1000 such as 10,40, not {text!r}")
    return values


def name_list(text: str) -> List[str]:
    """argparse type: comma-separated names, at least one, none repeated."""
    values = [part.strip() for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"must be comma-separated names such as a,b, not {text!r}")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"names {', '.join(repeated)} more than once")
    return values


def add_parsers(sub: Subparsers) -> None:
    """`incast experiment`."""
    p = sub.add_parser("experiment", help="the field's experiments: FCT slowdown on pFabric's leaf-spine, the "
                                          "deadline-aware line on D2TCP's OLDI workload")
    p.add_argument("name", choices=["leaf-spine", "line"], metavar="NAME",
                   help="leaf-spine: pFabric, PDQ, DCTCP and TCP, web-search and data-mining, at several loads; "
                        "line: TCP, DCTCP, D2TCP, D3, PDQ, pFabric, Homa and NDP on D2TCP's OLDI workload against "
                        "fan-in (docs/cli.md)")
    p.add_argument("--out", default="experiment-out", metavar="DIR",
                   help="output directory; DIR/runs/ caches the runs, so a rerun resumes (default: experiment-out)")
    p.add_argument("--seeds", type=positive_int, default=3, metavar="N", help="seeds per point (default: 3)")
    p.add_argument("--loads", type=load_list, metavar="LIST",
                   help="leaf-spine: offered loads, fractions of each host's link (default: 0.2,0.4,0.6,0.8)")
    p.add_argument("--protocols", type=name_list, metavar="LIST",
                   help="leaf-spine: the protocols to run, among pfabric,pdq,dctcp,tcp (default: all four)")
    p.add_argument("--workloads", type=name_list, metavar="LIST",
                   help="leaf-spine: flow-size distributions, named as `size` in scenario files: web-search, "
                        "data-mining, hadoop (default: web-search,data-mining)")
    p.add_argument("--arrivals", type=positive_float, metavar="MS",
                   help="leaf-spine: milliseconds of Poisson arrivals per run, the first 10%% a warm-up (default: 100)")
    p.add_argument("--fan-ins", type=fan_in_list, metavar="LIST",
                   help="line: the OLDI fan-ins (default: 5,10,20,30,40)")
    add_jobs_option(p, "runs at a time, or workers of --scheduler local")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask scheduler (tcp://host:8786), or 'local' for a LocalCluster")
    p.add_argument("--quiet", action="store_true", help="no progress bar, print nothing on success")
    p.add_argument("--progress", action="store_true", help="show the progress bar even without a terminal")
    p.set_defaults(handler=_cmd_experiment)


def _cmd_experiment(args: argparse.Namespace) -> int:
    started = time.monotonic()
    own = {"leaf-spine": ("loads", "arrivals", "protocols", "workloads"), "line": ("fan_ins",)}[args.name]
    for key in ("loads", "arrivals", "protocols", "workloads", "fan_ins"):
        if key not in own and getattr(args, key) is not None:
            raise CliError(f"--{key.replace('_', '-')} does not apply to experiment {args.name}")
    out = check_out_dir(args.out)
    if args.name == "line":
        return _experiment_line(args, out, started)
    from incast.experiments import leaf_spine
    from incast.sweep import SweepError, sweep_from_dict

    loads = args.loads or list(leaf_spine.LOADS)
    arrivals = args.arrivals or leaf_spine.ARRIVALS_MS
    protocols = args.protocols or list(leaf_spine.PROTOCOLS)
    unknown = [p for p in protocols if p not in leaf_spine.PROTOCOLS]
    if unknown:
        raise CliError(f"--protocols: the experiment has no settings for {', '.join(unknown)}; "
                       f"choose among {','.join(leaf_spine.PROTOCOLS)}")
    workloads = args.workloads or list(leaf_spine.WORKLOADS)
    try:
        sweep = sweep_from_dict(leaf_spine.sweep_tree(args.seeds, arrivals, loads, workloads, protocols))
    except SweepError as e:
        # A workload the engine does not ship: the scenario's own error names it.
        raise CliError(f"--workloads: {e}") from None
    result = run_points(sweep, out / "runs", args, f"experiment {args.name}")
    if result is None:
        return EXIT_FAILED
    table = leaf_spine.per_seed(result)
    rows = leaf_spine.summarize(table)
    flows = result.dataset("flows").to_table(columns=list(leaf_spine.BY_SIZE_COLUMNS))
    try:
        written = leaf_spine.save(table, rows, out, flows)
    except OSError as e:
        raise CliError(f"--out {args.out!r}: cannot write results: {os_error(e)}") from None
    if not args.quiet:
        print(leaf_spine.describe(args.seeds, arrivals))
        print(leaf_spine.format_rows(rows))
        print(f"{len(sweep.points)} runs: {sweep_counts(result)}, {time.monotonic() - started:.1f} s; "
              f"wrote {', '.join(str(p) for p in written)} (runs in {out / 'runs'}/)")
    return 0


def _experiment_line(args: argparse.Namespace, out: Path, started: float) -> int:
    """`incast experiment line`: the line's eight protocols on D2TCP's OLDI workload."""
    from incast.experiments import line

    results = []
    names = []
    for name, sweep in line.sweeps(args.seeds, args.fan_ins or list(line.FAN_INS)):
        result = run_points(sweep, out / "runs" / name, args, f"experiment {args.name} ({name})")
        if result is None:
            return EXIT_FAILED
        results.append(result)
        names.append(name)
    per_seed = line.per_seed(results)
    rows = line.summarize(per_seed)
    try:
        written = line.save(per_seed, rows, out)
    except OSError as e:
        raise CliError(f"--out {args.out!r}: cannot write results: {os_error(e)}") from None
    if not args.quiet:
        print(line.describe(args.seeds))
        print(line.format_rows(rows))
        counts = "; ".join(f"{name}: {sweep_counts(r)}" for name, r in zip(names, results))
        print(f"{sum(len(r.sweep.points) for r in results)} runs: {counts}, {time.monotonic() - started:.1f} s; "
              f"wrote {', '.join(str(p) for p in written)} (runs in {out / 'runs'}/)")
    return 0
