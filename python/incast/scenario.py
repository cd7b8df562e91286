"""Scenario sources: a file path or a dict, turned into the text the engine parses.

The engine (Rust) owns the schema, its checks and the parser of scenario files (docs/scenario.md);
this module only does what needs Python: reading dicts, and converting Parquet traces, which the
engine cannot read, into the CSV traces it streams (kept in a cache directory, `trace_cache_dir`).
Where it needs a file's tree it asks the engine for it (`_core.document`), so that it never reads
a file differently.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Literal, Mapping, Optional, Tuple, Union

from incast import _core
from incast._core import ScenarioError

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
"""What `run` accepts: a path to a `.toml` or `.json` scenario file, or a dict of the same tree."""

# Columns of a trace (CSV or Parquet), as docs/scenario.md lists them; deadline_s may be absent.
TRACE_COLUMNS = ("src", "dst", "size_bytes", "start_s")
TRACE_OPTIONAL_COLUMNS = ("deadline_s",)

MAX_SCENARIO_BYTES = 1 << 30
"""The largest scenario file read: far above any hand-written one, and a bound on what a path such
as a pipe that never ends can make the reader hold."""

MAX_DEPTH = 64
"""How deeply a dict passed to `run` may nest; a scenario needs five levels."""


class ScenarioWarning(UserWarning):
    """What a valid scenario will do that its file may not mean (docs/scenario.md, "Warnings"): a
    protocol's section no flow reads, `[transport]` keys no host uses, DCTCP or D2TCP on ports that
    never mark, an RTO floor far above the network's round trip. The run goes ahead.

    `path` names the key it is about (`switch.ecn_threshold`), `message` says what will happen and
    what to set instead; `str()` gives both, as `ScenarioError` does. `incast.run` issues each
    with `warnings.warn` (so the `warnings` module's filters apply: `-W error::incast.ScenarioWarning`
    makes them errors) and lists them in `RunResult.warnings`."""

    def __init__(self, path: str, message: str):
        super().__init__(f"`{path}`: {message}" if path else message)
        self.path = path
        self.message = message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScenarioWarning) and (self.path, self.message) == (other.path, other.message)

    def __hash__(self) -> int:
        return hash((self.path, self.message))

    def __repr__(self) -> str:
        return f"ScenarioWarning({self.path!r}, {self.message!r})"

    def __reduce__(self) -> Tuple[Any, Tuple[str, str]]:
        # Pickled by its fields (a result crossing to a Dask client holds some).
        return (ScenarioWarning, (self.path, self.message))


def scenario_warnings(pairs: Any) -> List[ScenarioWarning]:
    """The engine's warnings (`_core.check(...)["warnings"]`, `Simulation.warnings()`), [key,
    message] pairs, as `ScenarioWarning`s."""
    return [ScenarioWarning(str(path), str(message)) for path, message in pairs]


def scenario_error(path: str, message: str) -> ScenarioError:
    """A `ScenarioError` raised from Python, formatted like the engine's."""
    err = ScenarioError(f"`{path}`: {message}" if path else message)
    err.path = path
    err.message = message
    return err


@dataclass(frozen=True)
class Source:
    """A scenario ready for the engine: its text, format and the directory of relative paths."""

    text: str
    format: Literal["toml", "json"]
    base_dir: Optional[Path]
    parquet_traces: Dict[int, Tuple[str, str]] = field(default_factory=dict)
    """Workloads converted from Parquet: index -> (the trace path as the scenario wrote it, the
    CSV trace the engine reads in its place)."""

    def explain(self, err: ScenarioError) -> ScenarioError:
        """Re-points an engine error about the CSV trace converted from a Parquet trace at the
        Parquet file, by its name as written and its row (the CSV's line 2 is row 1): the user
        never wrote the CSV's path."""
        m = re.fullmatch(r"workload\[(\d+)\]\.path", getattr(err, "path", ""))
        if m is None or int(m[1]) not in self.parquet_traces:
            return err
        written, csv = self.parquet_traces[int(m[1])]
        message = err.message
        at_line = re.match(re.escape(csv) + r" line (\d+), column \d+ (\(\w+\): .*)", message, re.S)
        if at_line is not None:
            message = f"{written} row {int(at_line[1]) - 1} {at_line[2]}"
        return scenario_error(err.path, message.replace(csv, written))


def source_of(scenario: ScenarioLike) -> Source:
    """Turns a path or dict into engine input. Raises OSError for an unreadable file,
    `ScenarioError` for one that is not UTF-8 text."""
    if isinstance(scenario, Mapping):
        tree, converted = _convert_parquet_traces(_plain(scenario, ""), None)
        return Source(json.dumps(tree), "json", None, converted)
    if not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"scenario must be a path or a dict, not {type(scenario).__name__}")
    path = Path(scenario)
    return _file_source(path, read_scenario_text(path))


def _file_source(path: Path, text: str) -> Source:
    """The engine input of the scenario file `path`, whose text is `text`."""
    fmt = format_of(path)
    base_dir = path.resolve().parent
    if ".parquet" in text:
        # A syntax error raised here is the engine's own, as the engine would report it.
        tree = _core.document(text, fmt)
        if isinstance(tree, dict) and _parquet_traces(tree):
            tree, converted = _convert_parquet_traces(tree, base_dir)
            return Source(json.dumps(tree), "json", base_dir, converted)
    return Source(text, fmt, base_dir)


def read_scenario_text(path: Path) -> str:
    """The text of a scenario file, as the engine's `scenario::load` reads it: UTF-8, a leading
    byte-order mark dropped. Raises OSError if it cannot be read (a device is refused unread),
    `ScenarioError` if it is not UTF-8 text or too large."""
    with open(path, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise scenario_error("", f"{path} is a device, not a scenario file")
        data = f.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise scenario_error("", f"{path} holds more than {MAX_SCENARIO_BYTES} bytes, too large for a scenario file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        # The offset counts from the start of the file, byte-order mark included.
        raise scenario_error("", f"not UTF-8 text: invalid byte 0x{data[e.start]:02X} at offset {e.start}") from None
    return text[1:] if text.startswith("\ufeff") else text


def check_sections(source: Source) -> Dict[str, Any]:
    """Checks a scenario in the engine without building it, and returns the sections it runs
    with, in effect: `transport` (its stack's defaults with its keys applied), each protocol
    section its flows read (`d2tcp`, `tcppr`, `d3`, `pfabric`, `pdq`), `topology`, Poisson
    `arrivals`, and `check`, what `incast check` prints: a list of [heading, keys or None];
    `threads` with `[run] threads` (how the run would cut the network, `_core.check`); and
    `warnings`, the scenario's warnings as [key, message] pairs (`scenario_warnings` makes them
    `ScenarioWarning`s). Raises `ScenarioError` naming the bad key."""
    try:
        return dict(_core.check(source.text, source.format, source.base_dir))
    except ScenarioError as e:
        raise source.explain(e) from None


def check_source(source: Source) -> Dict[str, Any]:
    """Checks a scenario as `check_sections` does, and returns the `[transport]` settings it runs
    with."""
    return dict(check_sections(source)["transport"])


def load_scenario(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Reads and checks a scenario file, returning its tree as a dict to edit and pass to `run`.

    Relative trace paths are made absolute, so the dict runs the same from any directory.
    Raises `ScenarioError` naming the bad key, or OSError if the file cannot be read.
    """
    return load_checked(path)[0]


def load_checked(path: Union[str, "os.PathLike[str]"]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """`load_scenario`'s tree, and the sections in effect from the same check (`check_sections`)."""
    path = Path(path)
    text = read_scenario_text(path)
    sections = check_sections(_file_source(path, text))
    tree = _core.document(text, format_of(path))
    base_dir = path.resolve().parent
    for workload in tree.get("workload", []):
        if isinstance(workload, dict) and isinstance(workload.get("path"), str):
            # An absolute path stays as written; a relative one was checked to stay inside.
            if not Path(workload["path"]).is_absolute():
                workload["path"] = str((base_dir / workload["path"]).resolve())
    return tree, sections


def format_of(path: Path) -> Literal["toml", "json"]:
    """A scenario file's format, by its extension (as the engine's `load` decides)."""
    return "json" if path.suffix.lower() == ".json" else "toml"


def _plain(value: Any, path: str, ancestors: Tuple[int, ...] = ()) -> Any:
    """A copy of `value` made only of JSON types; names the key of anything else.

    numpy scalars and 1-d arrays count as the Python values they hold (numpy is recognised without
    being imported: it is not a dependency). `ancestors` are the ids of the dicts and lists that
    hold `value`, so that a cycle or a runaway nesting is an error at its key, not a
    RecursionError.
    """
    value = _unwrap_numpy(value, path)
    if isinstance(value, (Mapping, list, tuple)):
        if id(value) in ancestors:
            raise scenario_error(path, "contains itself (a dict or list that holds itself is not a scenario)")
        if len(ancestors) >= MAX_DEPTH:
            raise scenario_error(path, f"is nested more than {MAX_DEPTH} levels deep")
        inner = ancestors + (id(value),)
        if isinstance(value, Mapping):
            out: Dict[str, Any] = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise scenario_error(path, f"keys must be strings, not {type(key).__name__}")
                key = str(key)
                out[key] = _plain(item, f"{path}.{key}" if path else key, inner)
            return out
        return [_plain(item, f"{path}[{i}]", inner) for i, item in enumerate(value)]
    if value is None:
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, os.PathLike):
        text = os.fspath(value)
        if not isinstance(text, str):
            raise scenario_error(path, "a path must be text, not bytes")
        return text
    if isinstance(value, int) or hasattr(value, "__index__"):
        return int(value.__index__())
    if isinstance(value, float) or hasattr(value, "__float__"):
        number = float(value)
        if not math.isfinite(number):
            raise scenario_error(path, f"{number} is not a finite number")
        return number
    raise scenario_error(path, f"a value of type {type(value).__name__} cannot appear in a scenario")


def _unwrap_numpy(value: Any, path: str) -> Any:
    """A numpy scalar as its Python value (np.bool_ as a bool, np.str_ as a str...), a 1-d numpy
    array as a list; any other value as it is."""
    if not type(value).__module__.startswith("numpy"):
        return value
    ndim = getattr(value, "ndim", None)
    if ndim == 0 and hasattr(value, "item"):
        return value.item()
    if ndim == 1 and hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(ndim, int):
        raise scenario_error(path, f"a {ndim}-dimensional array cannot appear in a scenario (only a 1-d array)")
    return value


def _parquet_traces(tree: Dict[str, Any]) -> Dict[int, str]:
    """Workloads of `tree` that are Parquet traces: index -> path as written."""
    workloads = tree.get("workload")
    if not isinstance(workloads, list):
        return {}
    return {
        i: w["path"]
        for i, w in enumerate(workloads)
        if isinstance(w, dict)
        and str(w.get("kind", "")).lower() == "trace"
        and isinstance(w.get("path"), str)
        and w["path"].lower().endswith(".parquet")
    }


def _convert_parquet_traces(
    tree: Dict[str, Any], base_dir: Optional[Path]
) -> Tuple[Dict[str, Any], Dict[int, Tuple[str, str]]]:
    """Points each `kind = "trace"` workload whose path ends in .parquet at the CSV trace of the
    same rows (`_csv_of_parquet`), which the engine then reads as the run goes, as any CSV trace:
    a run's memory follows the flows in flight, not the rows of the file (issue 41). Returns the
    tree and, per converted workload, (the path as written, the CSV's path).

    The Parquet file is read by the engine's own code for trace files (`_core.read_trace`:
    docs/scenario.md, "Trace paths"), so CSV and Parquet traces follow the same path rules."""
    indices = _parquet_traces(tree)
    if not indices:
        return tree, {}
    max_bytes = _max_trace_bytes(tree)
    tree = dict(tree)
    tree["workload"] = list(tree["workload"])
    converted: Dict[int, Tuple[str, str]] = {}
    largest_csv = 0
    for i in indices:
        workload = dict(tree["workload"][i])
        key = f"workload[{i}].path"
        written = workload["path"]
        try:
            data = _core.read_trace(written, base_dir, max_bytes)
        except ScenarioError as e:
            raise scenario_error(key, e.message) from None
        csv = _csv_of_parquet(written, data, key)
        del data
        largest_csv = max(largest_csv, csv.stat().st_size)
        workload["path"] = str(csv)
        tree["workload"][i] = workload
        converted[i] = (written, str(csv))
    # The CSV of a Parquet trace is larger than the file (numbers as text). The limit the user set
    # for trace files holds against the Parquet file (above); for the engine's read of the CSV,
    # which the user did not write, it is raised to the CSV's size when needed (unless the key
    # holds no valid limit, which the engine then names).
    run_table = tree.get("run")
    written_limit = isinstance(run_table, dict) and "max_trace_bytes" in run_table
    if largest_csv > (max_bytes or _core.DEFAULT_MAX_TRACE_BYTES) and (max_bytes is not None or not written_limit):
        run = dict(run_table) if isinstance(run_table, dict) else {}
        run["max_trace_bytes"] = largest_csv
        tree["run"] = run
    return tree, converted


TRACE_CACHE_VERSION = 1
"""Part of a converted trace's name: bump it when the conversion's output changes."""

PARQUET_BATCH_ROWS = 1 << 16
"""Rows converted at a time: the conversion holds the Parquet file and one batch."""


def trace_cache_dir() -> Path:
    """Where Parquet traces converted to CSV are kept, named by the hash of their bytes: the
    `INCAST_CACHE_DIR` environment variable, else `$XDG_CACHE_HOME/incast`, else
    `~/.cache/incast`; the `traces` directory inside. A file there can be removed at any time
    (it is made again when needed)."""
    root = os.environ.get("INCAST_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "incast"
    )
    return Path(root) / "traces"


def _csv_of_parquet(written: str, data: bytes, key: str) -> Path:
    """The CSV trace of the Parquet trace `data` (read from `written`), made once per content in
    `trace_cache_dir()`: the same columns, numbers written so that they read back as the same
    values (integers as integers, floats in their shortest round-trip form), a null as an empty
    field (a long-lived flow, no deadline), rows in file order. Checks what only the Parquet form
    can get wrong (columns, their types, non-finite numbers) and the start order, naming the row;
    the engine checks the values as it checks any CSV trace. Messages name columns and types,
    never a value read."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    digest = hashlib.sha256(data).hexdigest()[:40]
    target = trace_cache_dir() / f"{digest}-v{TRACE_CACHE_VERSION}.csv"
    if target.is_file():
        return target
    shown = json.dumps(written, ensure_ascii=False)
    unreadable = f"trace {shown} is not a Parquet file pyarrow can read"
    try:
        # Read from a copy that Arrow owns. Over the `bytes` object itself, Arrow's worker threads
        # may drop the last reference to it after reading, which takes the GIL; at interpreter
        # exit that kills the thread inside C++ and aborts the process ("terminate called
        # without an active exception", apache/arrow#34314: 1-2% of `incast check` runs).
        sink = pa.BufferOutputStream()
        sink.write(data)
        file = pq.ParquetFile(pa.BufferReader(sink.getvalue()))
        schema = file.schema_arrow
    except (OSError, pa.ArrowException) as e:
        # pyarrow's message may quote what it found in the file: name the failure only.
        raise scenario_error(key, f"{unreadable} ({type(e).__name__})") from None
    missing = [c for c in TRACE_COLUMNS if c not in schema.names]
    if missing:
        raise scenario_error(
            key,
            f"trace {shown} lacks column(s) {', '.join(missing)}; a trace has columns "
            f"{', '.join(TRACE_COLUMNS + TRACE_OPTIONAL_COLUMNS)}",
        )
    columns = [c for c in TRACE_COLUMNS + TRACE_OPTIONAL_COLUMNS if c in schema.names]
    for name in columns:
        kind = schema.field(name).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_null(kind)):
            raise scenario_error(key, f"trace {shown} column {name} holds {kind}, expected numbers")
        if name in ("src", "dst", "size_bytes") and pa.types.is_floating(kind):
            # As text, 2.0 would read back as the whole number 2: the column is refused, as the
            # engine refuses a host or a size that is not a whole number.
            raise scenario_error(
                key, f"trace {shown} column {name} holds {kind}, expected whole numbers (an integer type)"
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with open(partial, "wb") as out:
            out.write((",".join(columns) + "\n").encode())
            options = pacsv.WriteOptions(include_header=False, quoting_style="none")
            row = 0
            previous: Optional[Tuple[float, int]] = None
            try:
                for batch in file.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=columns):
                    previous = _check_batch(batch, row, previous, shown, key)
                    pacsv.write_csv(batch, out, options)
                    row += batch.num_rows
            except (OSError, pa.ArrowException) as e:
                raise scenario_error(key, f"{unreadable} ({type(e).__name__})") from None
        # Whole or not at all: another process converting the same file renames the same bytes.
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _check_batch(
    batch: Any, first_row: int, previous: Optional[Tuple[float, int]], shown: str, key: str
) -> Optional[Tuple[float, int]]:
    """Refuses a non-finite number (the CSV reader has none) or a start before the row above
    (traces are in start order, as the engine reads a CSV trace while the run goes; a Parquet
    trace is held to the same rule, so that one file in either form means the same), naming the
    rows (1-based, in the file). Returns the last start so far and its row, for the next batch."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in batch.schema.names:
        column = batch.column(name)
        if pa.types.is_floating(column.type):
            bad = pc.and_(pc.invert(pc.is_finite(column)), pc.is_valid(column))
            if pc.any(bad).as_py():
                i = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
                raise scenario_error(key, f"trace {shown} row {first_row + i + 1} ({name}): not a finite number")
    starts = batch.column("start_s").to_numpy(zero_copy_only=False).astype(float)  # a null: NaN
    known = np.flatnonzero(~np.isnan(starts))
    if known.size == 0:
        return previous
    values = starts[known]
    earlier = np.concatenate(([-np.inf if previous is None else previous[0]], values[:-1]))
    backwards = np.flatnonzero(values < earlier)
    if backwards.size:
        b = int(backwards[0])
        row = first_row + int(known[b]) + 1
        above = first_row + int(known[b - 1]) + 1 if b > 0 else previous[1] if previous is not None else 0
        raise scenario_error(
            key,
            f"trace {shown} row {row} (start_s): starts before the flow of row {above}: a trace must be "
            "sorted by start time; sort it with pyarrow, for example "
            "pq.write_table(table.sort_by('start_s'), path) (a stable sort)",
        )
    return float(values[-1]), first_row + int(known[-1]) + 1


def _max_trace_bytes(tree: Dict[str, Any]) -> Optional[int]:
    """`run.max_trace_bytes` of `tree`; None (the engine's default) when unset or invalid (the
    engine then names the invalid key)."""
    run = tree.get("run")
    value = run.get("max_trace_bytes") if isinstance(run, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None

