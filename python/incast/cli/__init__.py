"""The `incast` command: run a scenario or a sweep, the D3 flow-burst demo, or the benchmarks.

Every user mistake (bad scenario, missing file, unwritable --out or a full disk, bad option) ends
the same way: one line `incast: error: ...` naming the key or option on stderr, exit status 2, no
traceback and no partial output; so does a `[run]` limit reached during the run (an
`incast.ResourceError` naming a key). Memory the run cannot get (a ResourceError naming no key,
any other MemoryError) or an engine panic: one line, status 70. Ctrl-C exits with status 130; sweep points
that fail to run, with status 1 after the other points ran.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, NoReturn, Optional, Sequence, Tuple

if TYPE_CHECKING:
    import pyarrow as pa

    from incast.api import Summary
    from incast.sweep import Sweep, SweepResult

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 70


class CliError(Exception):
    """A user error: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints the usage block first by default)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(message)


def _int_at_least(text: str, least: int, what: str) -> int:
    """An integer >= `least` from `text`, else an argparse error saying it must be `what`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _int_at_least(text, 1, "a positive integer")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _int_at_least(text, 0, "a non-negative integer")


def flow_id(text: str) -> int:
    """argparse type: a flow id, in [0, 2^32)."""
    value = non_negative_int(text)
    if value >= 1 << 32:
        raise argparse.ArgumentTypeError(f"must be below 2**32, not {text!r}")
    return value


def seed_value(text: str) -> int:
    """argparse type: a seed in [0, 2^64)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"must be in [0, 2**64), not {text!r}")
    return value


def int_list(text: str) -> List[int]:
    """argparse type: comma-separated positive integers."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated integers, not {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"must be comma-separated positive integers, not {text!r}")
    return values


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


def add_jobs_option(p: argparse.ArgumentParser, what: str) -> None:
    """`--jobs N`, one per CPU by default; `what` says what runs N at a time."""
    p.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help=f"{what} (default: one per CPU)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `incast` (documented in docs/cli.md)."""
    from incast import __version__

    parser = _Parser(prog="incast", description="Packet-level datacenter network simulator.")
    parser.add_argument("--version", action="version", version=f"incast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="run a scenario file and write its results")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the result files")
    p.add_argument("--seed", type=seed_value, help="override the scenario's seed")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.add_argument("--progress", action="store_true", help="show the progress bar even without a terminal")
    p.add_argument("--trace-flow", type=flow_id, action="append", default=[], metavar="ID",
                   help="also trace this flow's window, alpha or rate into traces.parquet (repeatable)")
    p.add_argument("--trace-slowest", type=non_negative_int, default=0, metavar="N",
                   help="also trace the N slowest flows: runs the scenario twice, once to find them")
    p.add_argument("--slowdown", action="store_true",
                   help="also print the FCT slowdown by flow size (pFabric's buckets: docs/python.md, 'Slowdown')")
    p.add_argument("--stream-flows", action="store_true",
                   help="write flows.parquet as flows end rather than at the end, so that memory follows the flows "
                        "in flight (rows in the order flows ended; docs/cli.md)")

    p = sub.add_parser("check", help="check a scenario file without running it")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")

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

    p = sub.add_parser("experiment", help="the field's experiments: FCT slowdown on pFabric's leaf-spine, the "
                                          "deadline-aware line on D2TCP's OLDI workload")
    p.add_argument("name", choices=["leaf-spine", "line"], metavar="NAME",
                   help="leaf-spine: pFabric, PDQ, DCTCP and TCP, web-search and data-mining, at several loads; "
                        "line: TCP, DCTCP, D2TCP, D3, PDQ and pFabric on D2TCP's OLDI workload against fan-in "
                        "(docs/cli.md)")
    p.add_argument("--out", default="experiment-out", metavar="DIR",
                   help="output directory; DIR/runs/ caches the runs, so a rerun resumes (default: experiment-out)")
    p.add_argument("--seeds", type=positive_int, default=3, metavar="N", help="seeds per point (default: 3)")
    p.add_argument("--loads", type=load_list, metavar="LIST",
                   help="leaf-spine: offered loads, fractions of each host's link (default: 0.2,0.4,0.6,0.8)")
    p.add_argument("--arrivals", type=positive_float, metavar="MS",
                   help="leaf-spine: milliseconds of Poisson arrivals per run, the first 10%% a warm-up (default: 100)")
    p.add_argument("--fan-ins", type=fan_in_list, metavar="LIST",
                   help="line: the OLDI fan-ins (default: 5,10,20,30,40)")
    add_jobs_option(p, "runs at a time, or workers of --scheduler local")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask scheduler (tcp://host:8786), or 'local' for a LocalCluster")
    p.add_argument("--quiet", action="store_true", help="no progress bar, print nothing on success")
    p.add_argument("--progress", action="store_true", help="show the progress bar even without a terminal")

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

    p = sub.add_parser("report", help="gather the reproductions under DIR into DIR/report.html")
    p.add_argument("dir", metavar="DIR", help="the --out directory of incast reproduce")

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

    p = sub.add_parser("bench", help="speed and memory benchmarks (scenarios in benches/)")
    p.add_argument(
        "--repeat", type=positive_int, default=3, metavar="N", help="runs per benchmark; the median is shown"
    )
    p.add_argument(
        "--dir", metavar="DIR", help="directory of benchmark scenarios (default: the repository's benches/)"
    )
    p.add_argument("--only", metavar="NAME", action="append", help="run only this benchmark (repeatable)")
    p.add_argument("--json", metavar="FILE", help="also write the measurements as JSON")
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
            return _fail(_one_line(e))
        # incast.ResourceError says which allocation failed; a bare MemoryError says nothing.
        print(f"incast: error: {_one_line(e) or 'out of memory'}", file=sys.stderr)
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


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def _os_error(e: OSError) -> str:
    """An OSError's errno text (pyarrow's carry it only in their message)."""
    return e.strerror or _one_line(e) or type(e).__name__


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
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "check":
            return _cmd_check(args)
        if args.command == "sweep":
            return _cmd_sweep(args)
        if args.command == "reproduce":
            return _cmd_reproduce(args)
        if args.command == "report":
            return _cmd_report(args)
        if args.command == "demo":
            return _cmd_demo(args)
        if args.command == "experiment":
            return _cmd_experiment(args)
        if args.command == "crosscheck":
            return _cmd_crosscheck(args)
        return _cmd_bench(args)
    except ScenarioError as e:
        where = f"{args.scenario}: " if getattr(args, "scenario", None) else ""
        raise CliError(f"{where}{e}") from None


def check_out_dir(out: str) -> Path:
    """Fails early, before a long run, if results could not be written to `out`.

    Creates nothing: the directory is made only when there are results to put in it.
    """
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise CliError(f"--out {out!r} exists and is not a directory")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise CliError(f"--out {out!r}: {str(existing)!r} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CliError(f"--out {out!r}: {str(existing)!r} is not writable")
    return path


def check_run_out_dir(out: str) -> Path:
    """`check_out_dir` for `incast run`, which replaces DIR as a whole: DIR may hold only an
    earlier run's results."""
    from incast.api import is_result_file
    from incast.durable import check_owned

    path = check_out_dir(out)
    try:
        check_owned(path, is_result_file)
    except OSError as e:
        raise CliError(f"--out {out!r} {_os_error(e)}") from None
    parent = Path(os.path.realpath(path)).parent
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
        # The new result is written beside DIR, then takes its place.
        raise CliError(f"--out {out!r}: {str(parent)!r} is not writable")
    return path


def _read_scenario_error(scenario: str, e: OSError) -> CliError:
    return CliError(f"cannot read scenario {scenario!r}: {e.strerror or e}")


def _cmd_check(args: argparse.Namespace) -> int:
    from incast.scenario import load_checked

    try:
        _, sections = load_checked(args.scenario)
    except OSError as e:
        raise _read_scenario_error(args.scenario, e) from None
    print(f"{args.scenario}: ok")
    # The engine lists the sections in effect under their headings: [transport] (or what a
    # transport whose hosts read none of it says instead), then each protocol's own section.
    for heading, values in sections["check"]:
        if values is None:
            print(heading)
        else:
            _print_section(heading, values)
    if "topology" in sections:
        print(topology_line(sections["topology"]))
    for name, a in sections.get("arrivals", {}).items():
        print(f"{name}: Poisson arrivals at {a['flows_per_s']:,.1f} flows/s from {a['senders']} senders, mean size "
              f"{a['mean_size_bytes']:,.0f} B: a load of {a['load']:.3g} on each sender's link")
    return 0


def _print_section(heading: str, values: Dict[str, Any]) -> None:
    """A section of `incast check`: its heading, then one `key = value` line per key, in
    scenario-file syntax."""
    print(heading)
    for key, value in values.items():
        print(f"  {key} = {toml_value(value)}")


def topology_line(t: Dict[str, Any]) -> str:
    """`incast check`'s line about the network: hosts, the rate of each tier of links and the
    racks' oversubscription."""
    def rate(bps: int) -> str:
        for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
            if bps >= scale:
                return f"{bps / scale:.4g} {unit}"
        return f"{bps} bps"

    tiers = ", ".join(f"{what} {rate(bps)}".strip() for what, bps in t["link_rates_bps"])
    line = f"topology: {t['kind']}, {t['hosts']:,} hosts; links: {tiers}"
    if t.get("oversubscription") is not None:
        line += f"; racks' uplinks oversubscribed {t['oversubscription']:.3g}:1"
    return line


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


def toml_value(value: Any) -> str:
    """A value as a scenario file would write it (TOML)."""
    if value is None:
        return "# not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def _cmd_run(args: argparse.Namespace) -> int:
    from incast import ScenarioError
    from incast.api import run
    from incast.progress import ProgressBar

    out = check_run_out_dir(args.out)
    streamed = _FlowStream(out) if args.stream_flows else None
    bar = None if args.quiet else ProgressBar(force=args.progress)
    try:
        try:
            result = run(args.scenario, seed=args.seed, progress=bar if bar is not None else False,
                         trace_flows=args.trace_flow, trace_slowest=args.trace_slowest,
                         on_flows=None if streamed is None else streamed.write)
        except OSError as e:
            if streamed is not None and streamed.failed is e:
                raise CliError(f"--out {args.out!r}: cannot write results: {_os_error(e)}") from None
            raise _read_scenario_error(args.scenario, e) from None
        except ValueError as e:
            if isinstance(e, ScenarioError):
                raise
            raise CliError(str(e)) from None
        finally:
            if bar is not None:
                bar.close()
        try:
            result.save(out, flows_file=None if streamed is None else streamed.close())
        except OSError as e:
            raise CliError(f"--out {args.out!r}: cannot write results: {_os_error(e)}") from None
    finally:
        if streamed is not None:
            streamed.discard()
    if result.summary["stopped_at_horizon"]:
        print(f"incast: warning: {horizon_warning(result.summary)}", file=sys.stderr)
    if result.capture is not None and result.capture.missed:
        print(f"incast: warning: the capture holds the first {result.capture.packets:,} packets of the ports it "
              f"watched and left out {result.capture.missed:,} more ([output] capture_max_packets)", file=sys.stderr)
    if result.offers is not None and result.offers_missed:
        print(f"incast: warning: the offer log holds the first {result.offers.num_rows:,} offers of the ports it "
              f"watched and left out {result.offers_missed:,} more ([output] offer_log_max_rows)", file=sys.stderr)
    if not args.quiet:
        print(summary_line(result.summary, out))
        if args.slowdown:
            from incast.slowdown import by_size

            flows = result.flows
            if streamed is not None:
                import pyarrow.parquet as pq

                flows = pq.read_table(out / "flows.parquet", columns=["size_bytes", "slowdown", "measured"])
            print(slowdown_lines(by_size(flows)))
    return 0


class _FlowStream:
    """`incast run --stream-flows`: the flow table written to a Parquet file beside the --out
    directory as the run hands over its rows, moved into the directory with the other results
    when the run ends (so DIR still holds the earlier result, or this one whole)."""

    def __init__(self, out: Path) -> None:
        import pyarrow.parquet as pq

        from incast.api import flows_schema
        from incast.durable import stage_file

        self.path: Optional[Path] = stage_file(out.parent, "flows.parquet")
        self.writer: Optional[pq.ParquetWriter] = pq.ParquetWriter(self.path, flows_schema())
        self.failed: Optional[OSError] = None

    def write(self, rows: "pa.Table") -> None:
        assert self.writer is not None
        try:
            self.writer.write_table(rows)
        except OSError as e:
            self.failed = e
            raise

    def close(self) -> Path:
        """Finishes the file and gives its path, for `RunResult.save` to move in."""
        assert self.writer is not None and self.path is not None
        self.writer.close()
        self.writer = None
        return self.path

    def discard(self) -> None:
        """Removes the file if it was not moved in (the run or the save failed)."""
        if self.writer is not None:
            with contextlib.suppress(OSError):
                self.writer.close()
            self.writer = None
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self.path = None


def slowdown_lines(buckets: "pa.Table") -> str:
    """`incast run --slowdown` and `incast sweep --slowdown`: one line per row of
    `incast.slowdown.by_size`, led by its group columns (a sweep's varied keys) when it has any."""
    names = buckets.column_names
    groups = names[:names.index("bucket")]
    rows = buckets.to_pylist()
    # Each group column as wide as its name or its widest value, so that rows line up.
    widths = [max([len(name)] + [len(str(r[name])) for r in rows]) for name in groups]

    def num(v: Optional[float]) -> str:
        return "-" if v is None else f"{v:.2f}"

    lead = "".join(f"{name:<{w}}  " for name, w in zip(groups, widths))
    lines = [f"{lead}{'flow size':>16} {'flows':>7} {'unfinished':>10} {'mean':>8} {'p50':>8} {'p99':>8}  slowdown"]
    for r in rows:
        lead = "".join(f"{str(r[name]):<{w}}  " for name, w in zip(groups, widths))
        lines.append(f"{lead}{r['bucket']:>16} {r['flows']:>7,} {r['unfinished']:>10,} {num(r['mean']):>8} "
                     f"{num(r['p50']):>8} {num(r['p99']):>8}")
    return "\n".join(lines)


def horizon_warning(s: Summary) -> str:
    """What a run stopped at its simulated-time horizon left undone (docs/scenario.md, [run])."""
    flows = s["flows"]
    unfinished = flows - s["flows_completed"]
    return (
        f"the run reached its simulated-time horizon ([run] horizon = {s['sim_time_s']:g} s) "
        f"with {unfinished} of {flows} flows unfinished"
    )


def summary_line(s: Summary, out: Path) -> str:
    """One line saying how the run went and where its results are."""
    parts = [f"{s['flows_completed']}/{s['flows']} flows completed"]
    if s["flows_measured"] != s["flows"]:
        parts.append(f"{s['flows_measured']} in the measurement window")
    if s["app_throughput"] is not None:
        parts.append(
            f"app throughput {100 * s['app_throughput']:.1f}% of {s['deadline_flows']} deadline flows"
        )
    if s["deadline_unknown"]:
        parts.append(f"{s['deadline_unknown']} deadlines past the end of the run")
    parts.append(f"{s['timeouts']} timeouts")
    parts.append(f"{s['packets_dropped']} drops")
    parts.append(f"{s['sim_time_s']:.4g} simulated s, {s['events']:,} events in {s['wall_time_s']:.3g} s")
    return "; ".join(parts) + f" -> {out}/"


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
    result = _run_points(sweep, out, args, args.sweep)
    if result is None:
        return EXIT_FAILED
    if not args.quiet:
        print(
            f"{len(sweep.points)} points: {sweep_counts(result)}, "
            f"{time.monotonic() - started:.1f} s -> {out}/ (flows/, summary/)"
        )
        if args.slowdown:
            print(slowdown_lines(result.slowdown()))
    return 0


def _run_points(sweep: "Sweep", out: Path, args: argparse.Namespace, source: str) -> Optional["SweepResult"]:
    """Runs `sweep` into `out` as `incast sweep` does (`--jobs`, `--scheduler`, `--quiet`,
    `--progress`); on failed points prints each and what was kept, and returns None. `source`
    names the sweep in errors."""
    from incast.sweep import PointError, SweepError, run_sweep

    show = not args.quiet and (args.progress or sys.stderr.isatty())
    try:
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
        return None


def _cmd_experiment(args: argparse.Namespace) -> int:
    started = time.monotonic()
    own = {"leaf-spine": ("loads", "arrivals"), "line": ("fan_ins",)}[args.name]
    for key in ("loads", "arrivals", "fan_ins"):
        if key not in own and getattr(args, key) is not None:
            raise CliError(f"--{key.replace('_', '-')} does not apply to experiment {args.name}")
    out = check_out_dir(args.out)
    if args.name == "line":
        return _experiment_line(args, out, started)
    from incast.experiments import leaf_spine
    from incast.sweep import sweep_from_dict

    loads = args.loads or list(leaf_spine.LOADS)
    arrivals = args.arrivals or leaf_spine.ARRIVALS_MS
    sweep = sweep_from_dict(leaf_spine.sweep_tree(args.seeds, arrivals, loads))
    result = _run_points(sweep, out / "runs", args, f"experiment {args.name}")
    if result is None:
        return EXIT_FAILED
    table = leaf_spine.per_seed(result)
    rows = leaf_spine.summarize(table)
    try:
        written = leaf_spine.save(table, rows, out)
    except OSError as e:
        raise CliError(f"--out {args.out!r}: cannot write results: {_os_error(e)}") from None
    if not args.quiet:
        print(leaf_spine.describe(args.seeds, arrivals))
        print(leaf_spine.format_rows(rows))
        print(f"{len(sweep.points)} runs: {sweep_counts(result)}, {time.monotonic() - started:.1f} s; "
              f"wrote {', '.join(str(p) for p in written)} (runs in {out / 'runs'}/)")
    return 0


def _experiment_line(args: argparse.Namespace, out: Path, started: float) -> int:
    """`incast experiment line`: the line's six protocols on D2TCP's OLDI workload."""
    from incast.experiments import line

    results = []
    names = []
    for name, sweep in line.sweeps(args.seeds, args.fan_ins or list(line.FAN_INS)):
        result = _run_points(sweep, out / "runs" / name, args, f"experiment {args.name} ({name})")
        if result is None:
            return EXIT_FAILED
        results.append(result)
        names.append(name)
    per_seed = line.per_seed(results)
    rows = line.summarize(per_seed)
    try:
        written = line.save(per_seed, rows, out)
    except OSError as e:
        raise CliError(f"--out {args.out!r}: cannot write results: {_os_error(e)}") from None
    if not args.quiet:
        print(line.describe(args.seeds))
        print(line.format_rows(rows))
        counts = "; ".join(f"{name}: {sweep_counts(r)}" for name, r in zip(names, results))
        print(f"{sum(len(r.sweep.points) for r in results)} runs: {counts}, {time.monotonic() - started:.1f} s; "
              f"wrote {', '.join(str(p) for p in written)} (runs in {out / 'runs'}/)")
    return 0


def sweep_counts(r: "SweepResult") -> str:
    """`5 run (2 damaged points recomputed), 3 already done`: what a sweep call did."""
    run = r.ran - r.failed
    damaged = f" ({r.damaged} damaged point{'s' if r.damaged != 1 else ''} recomputed)" if r.damaged else ""
    return f"{run} run{damaged}, {r.cached} already done"


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
            raise CliError(f"--out {args.out!r}: cannot write results: {_os_error(e)}") from None
        if not args.quiet:
            tally = Tally.of([c.report() for c in outcome.claims])
            print(f"{rid}: {tally}, {time.monotonic() - started:.1f} s "
                  f"-> {out / rid}/report.md")
    return 0


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
            results.append(bench.measure(directory / f"{name}.toml", repeat=args.repeat))
        except bench.BenchError as e:
            raise CliError(f"benchmark {name}: {e}") from None
        print(bench.format_row(results[-1]), flush=True)
    for line in bench.compare_to_reference(results):
        print(line)
    if args.json:
        bench.write_json(results, Path(args.json))
    return 0
