"""`incast bench`: the speed and memory benchmarks, each scenario of a benchmark directory run a
few times in a child process of its own (incast.bench), one row of medians each, then each
benchmark's cost per event against the reference benchmark's; `--json` also writes them out."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from incast.cli.common import MAX_THREADS, CliError, positive_int

if TYPE_CHECKING:
    from incast.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """`incast bench`."""
    p = sub.add_parser("bench", help="speed and memory benchmarks (scenarios in benches/)")
    p.add_argument(
        "--repeat", type=positive_int, default=3, metavar="N", help="runs per benchmark; the median is shown"
    )
    p.add_argument(
        "--dir", metavar="DIR", help="directory of benchmark scenarios (default: the repository's benches/)"
    )
    p.add_argument("--only", metavar="NAME", action="append", help="run only this benchmark (repeatable)")
    p.add_argument("--json", metavar="FILE", help="also write the measurements as JSON")
    p.add_argument(
        "--threads",
        type=_thread_counts,
        metavar="N[,M...]",
        help="run each benchmark on each of these numbers of threads ([run] threads), the counts in turn in each "
        "of --repeat rounds; with 1 among them, prints each count's speed-up over 1 thread",
    )
    p.add_argument(
        "--extrapolate-to",
        type=_sim_seconds,
        metavar="TIME",
        help="also print each benchmark's wall time scaled to TIME of simulated time (\"5s\": the Parsimon study)",
    )
    p.set_defaults(handler=_cmd_bench)


def _thread_counts(text: str) -> list[int]:
    """`--threads`: comma-separated positive counts, as "1,2,4"."""
    counts = []
    for part in text.split(","):
        try:
            n = int(part)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_THREADS:
            raise argparse.ArgumentTypeError(
                f"{text!r}: give numbers of threads between 1 and {MAX_THREADS}, like 1,2,4"
            )
        counts.append(n)
    return counts


def _sim_seconds(text: str) -> float:
    """`--extrapolate-to`: simulated time as "5s", "200ms" or seconds."""
    for suffix, scale in (("ms", 1e-3), ("s", 1.0), ("", 1.0)):
        if text.endswith(suffix):
            try:
                value = float(text[: len(text) - len(suffix)]) * scale
            except ValueError:
                break
            if value > 0 and value != float("inf"):
                return value
            break
    raise argparse.ArgumentTypeError(f"{text!r}: give a positive simulated time, like 5s or 200ms")


def _cmd_bench(args: argparse.Namespace) -> int:
    from incast import bench

    directory = bench.find_bench_dir(args.dir)
    if directory is None:
        raise CliError(
            "--dir: no benchmark directory found "
            "(looked for benches/ beside the package and in the current directory)"
        )
    names = bench.discover(directory)
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            raise CliError(f"--only: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(names)}")
        names = [n for n in names if n in args.only]
    if not names:
        raise CliError(f"--dir: no *.toml benchmark scenarios in {str(directory)!r}")
    print(bench.HEADER, flush=True)
    results = []
    for name in names:
        try:
            if args.threads:
                # The counts in turn, round by round, so that each round's runs are seconds
                # apart (`bench.measure_interleaved`).
                measured = bench.measure_interleaved(directory / f"{name}.toml", args.repeat, args.threads)
            else:
                measured = [bench.measure(directory / f"{name}.toml", repeat=args.repeat)]
        except bench.BenchError as e:
            raise CliError(f"benchmark {name}: {e}") from None
        for result in measured:
            results.append(result)
            print(bench.format_row(result), flush=True)
    for line in bench.compare_to_reference(results) + bench.speedups(results):
        print(line)
    if args.extrapolate_to is not None:
        for line in bench.extrapolate(results, args.extrapolate_to):
            print(line)
    if args.json:
        bench.write_json(results, Path(args.json))
    return 0
