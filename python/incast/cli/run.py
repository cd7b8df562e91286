"""`incast run`, which runs a scenario file and writes its results to a directory, and `incast
check`, which checks a scenario file without running it and prints the settings in effect."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Optional

from incast import units
from incast.cli.common import (
    MAX_THREADS,
    CliError,
    check_out_dir,
    non_negative_int,
    os_error,
    print_warnings,
    slowdown_lines,
    warnings_as_lines,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from incast.api import Summary
    from incast.cli.common import Subparsers


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


def threads_value(text: str) -> str:
    """argparse type: a number of threads, or "auto" (one per core)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'must be a positive integer or "auto", not {text!r}') from None
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f'must be between 1 and {MAX_THREADS} or "auto", not {text!r}')
    return str(value)


def add_parsers(sub: Subparsers) -> None:
    """`incast run` and `incast check`."""
    p = sub.add_parser("run", help="run a scenario file and write its results")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the result files")
    p.add_argument("--seed", type=seed_value, help="override the scenario's seed")
    p.add_argument("--threads", type=threads_value, metavar="N",
                   help="override the scenario's [run] threads: run the network cut into parts on N threads "
                        "(or \"auto\", one per core); the results are the same for any N (docs/scenario.md)")
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
    p.set_defaults(handler=_cmd_run)

    p = sub.add_parser("check", help="check a scenario file without running it")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
    p.set_defaults(handler=_cmd_check)


def check_run_out_dir(out: str) -> Path:
    """`check_out_dir` for `incast run`, which replaces DIR as a whole: DIR may hold only an
    earlier run's results."""
    from incast.api import is_result_file
    from incast.durable import check_owned

    path = check_out_dir(out)
    try:
        check_owned(path, is_result_file)
    except OSError as e:
        raise CliError(f"--out {out!r} {os_error(e)}") from None
    parent = Path(os.path.realpath(path)).parent
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
        # The new result is written beside DIR, then takes its place.
        raise CliError(f"--out {out!r}: {str(parent)!r} is not writable")
    return path


def _read_scenario_error(scenario: str, e: OSError) -> CliError:
    return CliError(f"cannot read scenario {scenario!r}: {e.strerror or e}")


def _cmd_check(args: argparse.Namespace) -> int:
    from incast.scenario import load_checked, scenario_warnings

    try:
        _, sections = load_checked(args.scenario)
    except OSError as e:
        raise _read_scenario_error(args.scenario, e) from None
    print_warnings(args.scenario, scenario_warnings(sections["warnings"]))
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
    if "threads" in sections:
        print(threads_line(sections["threads"]))
    return 0


def threads_line(t: Dict[str, Any]) -> str:
    """`incast check`'s line about `[run] threads`: the parts the network is cut into, how far
    apart (the rounds' lookahead) and the threads the run would use."""
    if t["parts"] <= 1:
        return "threads: a network of one part runs as the one event loop, on one thread"
    lookahead = units.seconds(t["lookahead_s"], ".4g")
    return (
        f"threads: {t['used']} over {t['parts']:,} parts (each switch with its hosts), "
        f"{t['cut_links']:,} links between parts, the shortest {lookahead}: "
        f"rounds of at most {lookahead} of simulated time"
    )


def _print_section(heading: str, values: Dict[str, Any]) -> None:
    """A section of `incast check`: its heading, then one `key = value` line per key, in
    scenario-file syntax."""
    print(heading)
    for key, value in values.items():
        print(f"  {key} = {toml_value(value)}")


def topology_line(t: Dict[str, Any]) -> str:
    """`incast check`'s line about the network: hosts, the rate of each tier of links and the
    racks' oversubscription."""
    tiers = ", ".join(f"{what} {units.rate(bps, '.4g')}".strip() for what, bps in t["link_rates_bps"])
    line = f"topology: {t['kind']}, {t['hosts']:,} hosts; links: {tiers}"
    if t.get("oversubscription") is not None:
        line += f"; racks' uplinks oversubscribed {t['oversubscription']:.3g}:1"
    return line


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
            with warnings_as_lines(args.scenario):
                result = run(args.scenario, seed=args.seed, threads=args.threads,
                             progress=bar if bar is not None else False,
                             trace_flows=args.trace_flow, trace_slowest=args.trace_slowest,
                             on_flows=None if streamed is None else streamed.write)
        except OSError as e:
            if streamed is not None and streamed.failed is e:
                raise CliError(f"--out {args.out!r}: cannot write results: {os_error(e)}") from None
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
            raise CliError(f"--out {args.out!r}: cannot write results: {os_error(e)}") from None
    finally:
        if streamed is not None:
            streamed.discard()
    if result.summary["stopped_at_horizon"]:
        print(f"incast: warning: {horizon_warning(result.summary)}", file=sys.stderr)
    if result.summary["status"] == "stalled":
        print(f"incast: warning: {stall_warning(result.summary)}", file=sys.stderr)
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


def horizon_warning(s: Summary) -> str:
    """What a run stopped at its simulated-time horizon left undone (docs/scenario.md, [run])."""
    flows = s["flows"]
    unfinished = flows - s["flows_completed"]
    return (
        f"the run reached its simulated-time horizon ([run] horizon = {s['sim_time_s']:g} s) "
        f"with {unfinished} of {flows} flows unfinished"
    )


def stall_warning(s: Summary) -> str:
    """What the progress watchdog saw in a run it stopped (docs/scenario.md, [run] stall_after)."""
    flows = s["flows"]
    unfinished = flows - s["flows_completed"]
    return (
        f"the run stalled at {s['sim_time_s']:g} s with {unfinished} of {flows} flows unfinished: "
        f"{s['stall_reason']}"
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
