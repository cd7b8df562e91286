"""What several `incast` commands share: the user error and the exit statuses, the argument
types and the `--jobs` option more than one command takes, the `--out` check, the scenario
warnings' lines `incast check`, `run` and `sweep` print, and the slowdown table that `incast run
--slowdown` and `incast sweep --slowdown` print."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, Optional, Sequence

if TYPE_CHECKING:
    import pyarrow as pa

    # What `build_parser` hands each command group's `add_parsers`.
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 70


class CliError(Exception):
    """A user error: reported as one line, exit status 2."""


def print_warnings(scenario: str, found: Iterable[Any], points: Optional[int] = None) -> None:
    """Each of the scenario's warnings (`incast.ScenarioWarning`s, or (warning, points) pairs with
    `points`, the sweep's number of points) as one `incast: warning:` line on stderr, once, as an
    error would name the file and key."""
    shown = set()
    for item in found:
        w, n = item if points is not None else (item, None)
        if str(w) in shown:
            continue
        shown.add(str(w))
        count = "" if n is None else f" ({n} of {points} points)"
        print(f"incast: warning: {scenario}: {w}{count}", file=sys.stderr, flush=True)


def _int_at_least(text: str, least: int, what: str) -> int:
    """An integer >= `least` from `text`, else an argparse error saying it must be `what`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
    return value


#: The most threads `--threads` takes: `[run] threads`' bound (the engine's `MAX_THREADS`).
MAX_THREADS = 1024


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _int_at_least(text, 1, "a positive integer")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _int_at_least(text, 0, "a non-negative integer")


def add_jobs_option(p: argparse.ArgumentParser, what: str) -> None:
    """`--jobs N`, one per CPU by default; `what` says what runs N at a time."""
    p.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help=f"{what} (default: one per CPU)")


def one_line(e: BaseException) -> str:
    """An exception's message on one line."""
    return " ".join(str(e).split())


def os_error(e: OSError) -> str:
    """An OSError's errno text (pyarrow's carry it only in their message)."""
    return e.strerror or one_line(e) or type(e).__name__


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


def slowdown_lines(buckets: "pa.Table") -> str:
    """`incast run --slowdown` and `incast sweep --slowdown`: one line per row of
    `incast.slowdown.by_size`, led by its group columns (a sweep's varied keys) when it has any."""
    names = buckets.column_names

    def num(v: Optional[float]) -> str:
        return "-" if v is None else f"{v:.2f}"

    return _grouped_lines(
        buckets, names[:names.index("bucket")],
        f"{'flow size':>16} {'flows':>7} {'unfinished':>10} {'mean':>8} {'p50':>8} {'p99':>8}  slowdown",
        lambda r: f"{r['bucket']:>16} {r['flows']:>7,} {r['unfinished']:>10,} {num(r['mean']):>8} "
                  f"{num(r['p50']):>8} {num(r['p99']):>8}")


def _grouped_lines(table: "pa.Table", groups: Sequence[str], header: str,
                   cells: Callable[[Dict[str, Any]], str]) -> str:
    """One line per row of `table`, led by its `groups` columns, each as wide as its name or its
    widest value so that rows line up; `header` and `cells` give the rest of the heading and
    of each row."""
    rows = table.to_pylist()
    widths = [max([len(name)] + [len(str(r[name])) for r in rows]) for name in groups]
    lead = "".join(f"{name:<{w}}  " for name, w in zip(groups, widths))
    lines = [f"{lead}{header}"]
    for r in rows:
        lines.append("".join(f"{str(r[name]):<{w}}  " for name, w in zip(groups, widths)) + cells(r))
    return "\n".join(lines)


def deadline_lines(table: "pa.Table") -> str:
    """`incast sweep --deadlines`: one line per row of `incast.deadlines.by_group`, led by its
    group columns (a sweep's varied keys and the protocol)."""
    names = table.column_names
    groups = names[:names.index("deadline_flows")]

    def share(v: Optional[float]) -> str:
        return "-" if v is None else f"{100 * v:.2f}%"

    return _grouped_lines(
        table, groups, f"{'judged':>9} {'met':>9} {'missed':>9} {'unknown':>8} {'app thpt':>9} {'% missed':>8}",
        lambda r: f"{r['deadline_flows']:>9,} {r['met']:>9,} {r['missed']:>9,} {r['unknown']:>8,} "
                  f"{share(r['app_throughput']):>9} {share(r['missed_share']):>8}")


@contextlib.contextmanager
def warnings_as_lines(scenario: str) -> Iterator[None]:
    """While it lasts, the `incast.ScenarioWarning`s `incast.run` and `incast.run_sweep` issue
    print as `print_warnings` lines, each once, as they are issued (before the runs start); other
    warnings as Python prints them."""
    from incast import ScenarioWarning

    with warnings.catch_warnings():
        warnings.simplefilter("always", ScenarioWarning)
        show = warnings.showwarning

        def show_line(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                      line: Optional[str] = None) -> None:
            if isinstance(message, ScenarioWarning):
                print_warnings(scenario, [message])
            else:
                show(message, category, filename, lineno, file, line)

        warnings.showwarning = show_line
        yield
