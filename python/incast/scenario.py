"""Scenario sources: a file path or a dict, turned into the text the engine parses.

The engine (Rust) owns the schema and its checks (docs/scenario.md); this module only does what
needs Python: reading dicts, and converting Parquet traces, which the engine cannot read, into an
inline `kind = "flows"` workload of plain numbers.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Literal, Mapping, Optional, Tuple, Union

from incast._core import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
"""What `run` accepts: a path to a `.toml` or `.json` scenario file, or a dict of the same tree."""

# Columns of a trace (CSV or Parquet), as docs/scenario.md lists them; deadline_s may be absent.
TRACE_COLUMNS = ("src", "dst", "size_bytes", "start_s")
TRACE_OPTIONAL_COLUMNS = ("deadline_s",)


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
    parquet_traces: Dict[int, str] = field(default_factory=dict)
    """Workloads converted from Parquet: index -> the trace path as the scenario wrote it."""

    def explain(self, err: ScenarioError) -> ScenarioError:
        """Re-points an engine error about a flow converted from a Parquet trace at the trace's
        `path` key, naming the row, the way the engine reports CSV traces."""
        m = re.fullmatch(r"workload\[(\d+)\]\.flows\[(\d+)\]\.(\w+)", getattr(err, "path", ""))
        if m is None or int(m[1]) not in self.parquet_traces:
            return err
        shown = self.parquet_traces[int(m[1])]
        return scenario_error(
            f"workload[{m[1]}].path", f"{shown} row {int(m[2]) + 1} ({m[3]}): {err.message}"
        )


def source_of(scenario: ScenarioLike) -> Source:
    """Turns a path or dict into engine input. Raises OSError for an unreadable file."""
    if isinstance(scenario, Mapping):
        tree = _plain(scenario, "")
        return Source(json.dumps(_convert_parquet_traces(tree, None)), "json", None, _parquet_traces(tree))
    if not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"scenario must be a path or a dict, not {type(scenario).__name__}")
    path = Path(scenario)
    text = path.read_text(encoding="utf-8")
    fmt = format_of(path)
    base_dir = path.resolve().parent
    if ".parquet" in text:
        tree = _parse(text, fmt)
        # A document Python cannot parse goes to the engine as is, for its precise syntax error.
        traces = _parquet_traces(tree) if tree is not None else {}
        if tree is not None and traces:
            return Source(json.dumps(_convert_parquet_traces(tree, base_dir)), "json", base_dir, traces)
    return Source(text, fmt, base_dir)


def check_source(source: Source) -> Dict[str, Any]:
    """Checks a scenario in the engine without building it, and returns the `[transport]`
    settings it runs with (its stack's defaults with its keys applied). Raises `ScenarioError`
    naming the bad key."""
    from incast import _core

    try:
        return dict(_core.check(source.text, source.format, source.base_dir))
    except ScenarioError as e:
        raise source.explain(e) from None


def load_scenario(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Reads and checks a scenario file, returning its tree as a dict to edit and pass to `run`.

    Relative trace paths are made absolute, so the dict runs the same from any directory.
    Raises `ScenarioError` naming the bad key, or OSError if the file cannot be read.
    """
    return load_checked(path)[0]


def load_checked(path: Union[str, "os.PathLike[str]"]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """`load_scenario`'s tree, and the `[transport]` settings in effect from the same check."""
    path = Path(path)
    transport = check_source(source_of(path))
    text = path.read_text(encoding="utf-8")
    fmt = format_of(path)
    tree = _parse(text, fmt)
    if tree is None:
        # The engine reads TOML 1.1; tomllib reads TOML 1.0 (no newlines in inline tables...).
        raise scenario_error("", f"{path}: Python's TOML reader cannot parse this file (TOML 1.1 syntax?)")
    for workload in tree.get("workload", []):
        if isinstance(workload, dict) and isinstance(workload.get("path"), str):
            workload["path"] = str((path.resolve().parent / workload["path"]).resolve())
    return tree, transport


def format_of(path: Path) -> Literal["toml", "json"]:
    """A scenario file's format, by its extension (as the engine's `load` decides)."""
    return "json" if path.suffix.lower() == ".json" else "toml"


def _parse(text: str, fmt: str) -> Optional[Dict[str, Any]]:
    try:
        tree = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except ValueError:
        return None
    return tree if isinstance(tree, dict) else None


def _plain(value: Any, path: str) -> Any:
    """A copy of `value` made only of JSON types; names the key of anything else."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise scenario_error(path, f"keys must be strings, not {type(key).__name__}")
            out[key] = _plain(item, f"{path}.{key}" if path else key)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "__index__"):  # int, numpy integers
        return int(value.__index__())
    if isinstance(value, float) or hasattr(value, "__float__"):
        number = float(value)
        if not math.isfinite(number):
            raise scenario_error(path, f"{number} is not a finite number")
        return number
    raise scenario_error(path, f"a value of type {type(value).__name__} cannot appear in a scenario")


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


def _convert_parquet_traces(tree: Dict[str, Any], base_dir: Optional[Path]) -> Dict[str, Any]:
    """Replaces each `kind = "trace"` workload whose path ends in .parquet by `kind = "flows"`."""
    indices = _parquet_traces(tree)
    if not indices:
        return tree
    tree = dict(tree)
    tree["workload"] = list(tree["workload"])
    for i in indices:
        workload = dict(tree["workload"][i])
        key = f"workload[{i}].path"
        path = Path(workload.pop("path"))
        if not path.is_absolute():
            path = (base_dir or Path.cwd()) / path
        workload["kind"] = "flows"
        workload["flows"] = _read_parquet_trace(path, key)
        tree["workload"][i] = workload
    return tree


def _read_parquet_trace(path: Path, key: str) -> List[Dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except FileNotFoundError:
        raise scenario_error(key, f"trace file {str(path)!r} does not exist") from None
    except (OSError, pa.ArrowException) as e:
        raise scenario_error(key, f"cannot read Parquet trace {str(path)!r}: {e}") from None
    missing = [c for c in TRACE_COLUMNS if c not in table.column_names]
    if missing:
        raise scenario_error(
            key,
            f"trace {str(path)!r} lacks column(s) {', '.join(missing)}; a trace has columns "
            f"{', '.join(TRACE_COLUMNS + TRACE_OPTIONAL_COLUMNS)}",
        )
    columns = [c for c in TRACE_COLUMNS + TRACE_OPTIONAL_COLUMNS if c in table.column_names]
    rows = table.select(columns).to_pylist()
    # A null (no deadline, or a long-lived flow) is sent as an absent key, as in a CSV trace.
    return [{k: v for k, v in row.items() if v is not None} for row in rows]
