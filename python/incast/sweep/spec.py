"""Sweep files: a base scenario, parameters varied over a grid or in lock-step, and seeds, expanded
into points that the engine checks before anything runs (docs/sweeps.md).

Nothing here runs a simulation or writes a file; `incast.sweep.run_sweep` does both.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from incast import __version__, _core
from incast.api import flows_schema
from incast.scenario import ScenarioWarning, _plain, format_of, read_scenario_text, scenario_warnings, source_of


def build_version() -> str:
    """The version a cached point is keyed by: the package version and a digest of the engine
    binary, so that rebuilding the engine from changed sources (without a version bump, as during
    development) invalidates the cache instead of silently reusing results of the old code."""
    global _BUILD_VERSION
    if _BUILD_VERSION is None:
        digest = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:12]
        _BUILD_VERSION = f"{__version__}+{digest}"
    return _BUILD_VERSION


_BUILD_VERSION: Optional[str] = None

ColumnType = Literal["bool", "int64", "float64", "string", "json"]
"""The Arrow type of a varied key's column, by name (`json`: stored as text)."""

CACHE_FORMAT = 1
"""Bumped whenever what a point's file holds changes, so that older results are not reused."""

SECTIONS = ("grid", "zip")
_SEED_LIMIT = 1 << 64
_INT64 = 1 << 63


class SweepError(ValueError):
    """A sweep that cannot run: `key` names what is wrong (`vary.grid."workload.0.senders"`,
    `seeds[1]`, `scenario`; `out` and `scheduler` for the `run_sweep` arguments of those names),
    `message` says why; `str(err)` is "key: message"."""

    def __init__(self, key: str, message: str):
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message


@dataclass(frozen=True)
class Point:
    """One run of a sweep."""

    key: str
    """The cache key: a hash of the resolved scenario, the seed and the incast version."""
    seed: int
    params: Dict[str, Any]
    """Value of each varied key (dotted, normalized: `workload.0.senders`), in sweep order."""
    scenario: Dict[str, Any] = field(repr=False)
    """The scenario to run: the base with `params` substituted, `seed` set and trace paths absolute."""
    threads: int = 1
    """Threads its run uses: its `[run] threads`, at most one per part of its network (as `incast
    check` says); 1 without `[run] threads` or on a network of one part."""

    def describe(self) -> str:
        """`transport.protocol = "d3", workload.0.senders = 8, seed = 2`, for messages."""
        parts = [f"{k} = {canonical_json(v)}" for k, v in self.params.items()]
        return ", ".join(parts + [f"seed = {self.seed}"])


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: every point expanded, substituted and accepted by the scenario checker."""

    base: Dict[str, Any] = field(repr=False)
    """The base scenario tree, as written (trace paths relative to `base_dir`)."""
    base_dir: Path
    """Directory that relative trace paths of the base scenario resolve against."""
    grid: Dict[str, List[Any]]
    zip: List[Dict[str, List[Any]]]
    """The lock-step groups: `[vary.zip]` is one, `[[vary.zip]]` one per table."""
    seeds: List[int]
    columns: Dict[str, ColumnType]
    """Arrow type of each varied key's column: bool, int64, float64 or string (`json` for
    mixed types and tables, stored as text: strings as written, other values as JSON)."""
    points: List[Point] = field(repr=False)
    version: str
    source: Optional[Path] = None
    """The sweep file, if the sweep came from one."""
    text: Optional[str] = field(default=None, repr=False)
    """The sweep file's text, copied beside the results."""
    warnings: Tuple[Tuple[ScenarioWarning, int], ...] = ()
    """Each distinct warning of the points' scenarios (docs/scenario.md, "Warnings"), in the order
    the points first give it, with how many points give it (seeds counted). `incast sweep` prints
    them; the points' runs do not issue them again."""

    @property
    def id(self) -> str:
        """A hash of every point's key: two sweeps with the same id compute the same results."""
        return _sha256("\n".join(sorted(p.key for p in self.points)))[:32]

    def definition(self) -> Dict[str, Any]:
        """The sweep as a JSON-able tree, for the manifest."""
        return {
            "scenario": self.base,
            "seeds": self.seeds,
            "vary": {
                **({"grid": self.grid} if self.grid else {}),
                **({"zip": self.zip} if self.zip else {}),
            },
        }


def load_sweep(path: Union[str, "os.PathLike[str]"]) -> Sweep:
    """Reads a sweep file (TOML), expands and checks every point.

    Raises `SweepError` naming the key at fault, OSError if the sweep file cannot be read.
    """
    path = Path(path)
    # The engine's TOML reader, so that a sweep file reads as a scenario file does.
    try:
        text = read_scenario_text(path)
        tree = _core.document(text, "toml")
    except _core.ScenarioError as e:
        raise SweepError("", str(e)) from None
    if not isinstance(tree, dict):
        raise SweepError("", "a sweep file is a TOML table")
    return sweep_from_dict(tree, base_dir=path.resolve().parent, source=path, text=text)


def sweep_from_dict(
    tree: Mapping[str, Any],
    *,
    base_dir: Union[str, "os.PathLike[str]", None] = None,
    source: Optional[Path] = None,
    text: Optional[str] = None,
    version: Optional[str] = None,
) -> Sweep:
    """A sweep from the tree a sweep file holds; `scenario` may also be a dict here. A scenario
    path and inline trace paths resolve against `base_dir` (default: the working directory)."""
    if not isinstance(tree, Mapping):
        raise SweepError("", f"a sweep is a table, not {_kind(tree)}")
    for key in tree:
        if key not in ("scenario", "seeds", "vary"):
            raise SweepError(str(key), "unknown key; a sweep has scenario, seeds and vary")
    here = Path(base_dir) if base_dir is not None else Path.cwd()
    base, scenario_dir, shown = _base_scenario(tree.get("scenario"), here)
    try:
        base = _plain(base, "")
    except ValueError as e:
        raise SweepError("scenario", str(e)) from None
    seeds = _seeds(tree.get("seeds"))
    grid, zipped, names = _vary(tree.get("vary"))
    columns = {key: _column_type(values) for key, values in _varied(grid, zipped).items()}
    sweep = Sweep(
        base=base,
        base_dir=scenario_dir,
        grid=grid,
        zip=zipped,
        seeds=seeds,
        columns=columns,
        points=[],
        version=build_version() if version is None else version,
        source=source,
        text=text,
    )
    warned: Dict[ScenarioWarning, int] = {}
    points = list(_expand(sweep, names, shown, warned))
    return dataclasses.replace(sweep, points=points, warnings=tuple(warned.items()))


def _varied(grid: Dict[str, List[Any]], zipped: List[Dict[str, List[Any]]]) -> Dict[str, List[Any]]:
    out = dict(grid)
    for group in zipped:
        out.update(group)
    return out


def _base_scenario(value: Any, here: Path) -> Tuple[Dict[str, Any], Path, str]:
    """The base tree, the directory its trace paths resolve against, and how to name it."""
    if value is None:
        raise SweepError(
            "scenario", 'missing: name a scenario file (scenario = "base.toml") or give a [scenario] table'
        )
    if isinstance(value, Mapping):
        return dict(value), here, "scenario"
    if not isinstance(value, (str, os.PathLike)):
        raise SweepError("scenario", f"must be a file name or a table, not {_kind(value)}")
    path = Path(value)
    path = here / path
    try:
        tree = _core.document(read_scenario_text(path), format_of(path))
    except OSError as e:
        raise SweepError("scenario", f"cannot read {os.fspath(value)!r}: {e.strerror or e}") from None
    except _core.ScenarioError as e:
        raise SweepError("scenario", f"{os.fspath(value)}: {e}") from None
    if not isinstance(tree, dict):
        raise SweepError("scenario", f"{os.fspath(value)}: a scenario is a table")
    return tree, path.resolve().parent, os.fspath(value)


def _seeds(value: Any) -> List[int]:
    if value is None:
        raise SweepError("seeds", "missing: give a count (seeds = 3 runs seeds 1, 2, 3) or a list of seeds")
    if _is_int(value):
        if value < 1:
            raise SweepError("seeds", f"a count must be at least 1, not {value}")
        return list(range(1, value + 1))
    if not isinstance(value, list):
        raise SweepError("seeds", f"must be a count or a list of seeds, not {_kind(value)}")
    if not value:
        raise SweepError("seeds", "is empty: give at least one seed")
    seen = set()
    for i, seed in enumerate(value):
        if not _is_int(seed):
            raise SweepError(f"seeds[{i}]", f"a seed is an integer, not {_kind(seed)}")
        if not 0 <= seed < _SEED_LIMIT:
            raise SweepError(f"seeds[{i}]", f"must be in [0, 2**64), not {seed}")
        if seed in seen:
            raise SweepError(f"seeds[{i}]", f"seed {seed} is listed twice")
        seen.add(seed)
    return list(value)


def _vary(value: Any) -> Tuple[Dict[str, List[Any]], List[Dict[str, List[Any]]], Dict[str, str]]:
    """The grid table and the zip groups, keys normalized, checked for shape and overlaps, and
    how to name each key in messages (`vary.grid."transport.protocol"`)."""
    if value is None:
        return {}, [], {}
    if not isinstance(value, Mapping):
        raise SweepError("vary", f"must be a table with grid and/or zip, not {_kind(value)}")
    for name in value:
        if name not in SECTIONS:
            raise SweepError(
                f"vary.{name}", "unknown key; vary has grid (every combination) and zip (lock-step)"
            )
    zips = value.get("zip", [])
    # One [vary.zip] table is one group; [[vary.zip]] gives several, each its own axis.
    groups = [("vary.zip", zips)] if isinstance(zips, Mapping) else None
    if groups is None:
        if not isinstance(zips, list):
            raise SweepError("vary.zip", f'must be a table of "dotted.key" = [values], not {_kind(zips)}')
        groups = [(f"vary.zip[{i}]", group) for i, group in enumerate(zips)]
    names: Dict[str, str] = {}
    sections = []
    for prefix, table in [("vary.grid", value.get("grid", {}))] + groups:
        if not isinstance(table, Mapping):
            raise SweepError(prefix, f'must be a table of "dotted.key" = [values], not {_kind(table)}')
        section: Dict[str, List[Any]] = {}
        for written, values in _leaves(table, ""):
            shown = f'{prefix}."{written}"'
            key = normalize_key(written, shown)
            if key in names:
                raise SweepError(shown, f"the same key as {names[key]}")
            _check_values(shown, values, unique=prefix == "vary.grid")
            names[key] = shown
            section[key] = values
        sections.append((prefix, section))
    for (a, shown_a), (b, shown_b) in itertools.combinations(names.items(), 2):
        if b.startswith(a + ".") or a.startswith(b + "."):
            raise SweepError(shown_b, f"overlaps {shown_a}: vary a key or the table holding it, not both")
    for prefix, group in sections[1:]:
        _check_lock_step(prefix, group, names)
    return sections[0][1], [group for _, group in sections[1:] if group], names


def _check_lock_step(prefix: str, group: Dict[str, List[Any]], names: Dict[str, str]) -> None:
    if not group:
        return
    first = next(iter(group))
    for key, values in group.items():
        if len(values) != len(group[first]):
            raise SweepError(
                names[key],
                f"has {_count(len(values), 'value')} but {names[first]} has {len(group[first])}: "
                "zip lists go in lock-step and need the same length",
            )
    rows = [canonical_json(row) for row in zip(*group.values())]
    for j, row in enumerate(rows):
        if row in rows[:j]:
            raise SweepError(prefix, f"entries {rows.index(row) + 1} and {j + 1} are the same point")


def _leaves(table: Mapping[str, Any], prefix: str) -> Iterator[Tuple[str, Any]]:
    """`("transport.protocol", [...])` for `"transport.protocol" = [...]` and for the same written
    as a bare dotted key, which TOML reads as nested tables."""
    for key, value in table.items():
        written = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping) and value:
            yield from _leaves(value, written)
        else:
            yield written, value


def normalize_key(written: str, shown: str = "") -> str:
    """`workload[0].senders` and `workload.0.senders` both become `workload.0.senders`."""
    key = re.sub(r"\[(\d+)\]", r".\1", written)
    if any(segment == "" for segment in key.split(".")):
        raise SweepError(shown or written, "an empty key segment (two dots, or a dot at an end)")
    if key == "seed":
        raise SweepError(shown or written, "the seed is set by `seeds`, not varied")
    if key in RESERVED_COLUMNS or key in _flow_columns():
        raise SweepError(
            shown or written, f"names a column of the results ({key}); vary the keys inside it instead"
        )
    return key


RESERVED_COLUMNS = ("point", "seed")
"""Columns every result file has besides the varied keys."""


@functools.cache
def _flow_columns() -> Tuple[str, ...]:
    return tuple(flows_schema().names)


def _check_values(shown: str, values: Any, unique: bool) -> None:
    if not isinstance(values, list):
        raise SweepError(shown, f"must be a list of values, not {_kind(values)}")
    if not values:
        raise SweepError(shown, "is empty: give at least one value")
    written: List[str] = []
    for i, value in enumerate(values):
        try:
            _plain(value, "")
        except ValueError as e:
            raise SweepError(f"{shown}[{i}]", getattr(e, "message", str(e))) from None
        text = canonical_json(value)
        if unique and text in written:
            raise SweepError(shown, f"value {text} is listed twice")
        written.append(text)


def _column_type(values: Sequence[Any]) -> ColumnType:
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(_is_int(v) and -_INT64 <= v < _INT64 for v in values):
        return "int64"
    if all(_is_int(v) or isinstance(v, float) for v in values):
        return "float64"
    if all(isinstance(v, str) for v in values):
        return "string"
    return "json"


def column_value(value: Any, column_type: str) -> Any:
    """What a value looks like in its column (`json` columns hold text)."""
    if column_type == "json":
        return value if isinstance(value, str) else canonical_json(value)
    if column_type == "float64":
        return float(value)
    return value


def _expand(sweep: Sweep, names: Dict[str, str], shown: str, warned: Dict[ScenarioWarning, int]) -> Iterator[Point]:
    """Every point, in order: every combination of the grid keys (in file order) and the zip
    groups' entries, the later varying faster, and the seeds fastest. Each distinct scenario is
    checked by the engine once; its warnings count into `warned`, once per point (seed)."""
    axes: List[List[List[Tuple[str, Any]]]] = [[[(k, v)] for v in values] for k, values in sweep.grid.items()]
    axes.extend([list(zip(group, row)) for row in zip(*group.values())] for group in sweep.zip)
    digests: Dict[Path, str] = {}
    for combination in itertools.product(*axes):
        params = dict(pair for pairs in combination for pair in pairs)
        tree = sweep.base
        for key, value in params.items():
            tree = _substitute(tree, key.split("."), value, names[key])
        runnable = _absolute_traces(tree, sweep.base_dir)
        checked = _check(runnable, params, names, sweep, shown)
        for w in dict.fromkeys(checked.warnings):
            warned[w] = warned.get(w, 0) + len(sweep.seeds)
        inputs = _trace_digests(tree, sweep.base_dir, digests)
        for seed in sweep.seeds:
            key = point_key(tree, seed, version=sweep.version, inputs=inputs)
            scenario = {**runnable, "seed": seed}
            yield Point(key=key, seed=seed, params=dict(params), scenario=scenario, threads=checked.threads)


def _substitute(node: Any, segments: List[str], value: Any, shown: str, done: str = "") -> Any:
    """A copy of `node` with the value at `segments` replaced, sharing every untouched subtree."""
    head, rest = segments[0], segments[1:]
    here = f"{done}.{head}" if done else head
    if isinstance(node, list):
        if not head.isdigit():
            raise SweepError(shown, f"{done} is a list: {head!r} is not an index")
        if int(head) >= len(node):
            raise SweepError(shown, f"{done} has {_count(len(node), 'entry', 'entries')}, no index {head}")
        copy = list(node)
        copy[int(head)] = _substitute(node[int(head)], rest, value, shown, here) if rest else value
        return copy
    if isinstance(node, dict):
        table = dict(node)
        # A missing table is created: the scenario checker rejects it if it is not a known key.
        table[head] = _substitute(node.get(head, {}), rest, value, shown, here) if rest else value
        return table
    raise SweepError(shown, f"{done} is {_kind(node)}, not a table or list")


def _absolute_traces(tree: Dict[str, Any], base_dir: Path) -> Dict[str, Any]:
    """The tree with relative trace paths made absolute, so it runs the same in any directory."""
    workloads = tree.get("workload")
    if not isinstance(workloads, list):
        return tree
    fixed = []
    for w in workloads:
        if isinstance(w, dict) and isinstance(w.get("path"), str) and not Path(w["path"]).is_absolute():
            w = {**w, "path": str(base_dir / w["path"])}
        fixed.append(w)
    return {**tree, "workload": fixed}


def _trace_digests(tree: Dict[str, Any], base_dir: Path, cache: Dict[Path, str]) -> Dict[str, str]:
    """`workload[i].path` -> hash of the trace file's bytes, so a changed trace is a new point."""
    out = {}
    for i, w in enumerate(_absolute_traces(tree, base_dir).get("workload") or []):
        if isinstance(w, dict) and isinstance(w.get("path"), str):
            path = Path(w["path"])
            if path not in cache:
                digest = hashlib.sha256()
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        digest.update(block)
                cache[path] = digest.hexdigest()
            out[f"workload[{i}].path"] = cache[path]
    return out


@dataclass(frozen=True)
class Checked:
    """What the scenario checker says of a scenario it accepts."""

    warnings: List[ScenarioWarning]
    threads: int
    """Threads a run of it uses (`Point.threads`)."""


def _check(tree: Dict[str, Any], params: Dict[str, Any], names: Dict[str, str], sweep: Sweep, shown: str) -> Checked:
    """Runs the scenario checker (as `incast check` does); names the varied key at fault."""
    checked = _checked(tree)
    if isinstance(checked, ValueError):
        raise _blame(checked, params, names, sweep, shown)
    return checked


def scenario_problem(tree: Dict[str, Any]) -> Optional[ValueError]:
    """What the scenario checker says about `tree`, None if it accepts it."""
    checked = _checked(tree)
    return checked if isinstance(checked, ValueError) else None


def _checked(tree: Dict[str, Any]) -> Union[ValueError, Checked]:
    """The scenario checker's error about `tree`, or what it says of the scenario it accepts."""
    try:
        source = source_of(tree)
    except _core.ScenarioError as e:
        return e
    try:
        sections = _core.check(source.text, source.format, source.base_dir)
    except _core.ScenarioError as e:
        return source.explain(e)
    threads = sections.get("threads") or {}
    return Checked(scenario_warnings(sections["warnings"]), int(threads.get("used", 1)))


def _blame(err: Any, params: Dict[str, Any], names: Dict[str, str], sweep: Sweep, shown: str) -> SweepError:
    at = normalize_path(getattr(err, "path", ""))
    # The key whose value the error is about, else the key inside the table the error is about.
    for inside in (True, False):
        for key in params:
            if at and ((at == key or at.startswith(key + ".")) if inside else key.startswith(at + ".")):
                return SweepError(
                    names[key], f"{canonical_json(params[key])} gives an invalid scenario: {err}"
                )
    where = "" if shown == "scenario" else f"{shown}: "
    base_err = scenario_problem(_absolute_traces(sweep.base, sweep.base_dir)) if params else err
    if base_err is not None and str(base_err) == str(err):
        return SweepError("scenario", f"{where}{err}")
    described = ", ".join(f"{k} = {canonical_json(v)}" for k, v in params.items())
    return SweepError("vary", f"the point {described} gives an invalid scenario: {err}")


def normalize_path(engine_path: str) -> str:
    """An engine error path (`workload[0].size.min`) as a dotted key (`workload.0.size.min`)."""
    return re.sub(r"\[(\d+)\]", r".\1", engine_path)


def point_key(
    scenario: Mapping[str, Any],
    seed: int,
    *,
    version: Optional[str] = None,
    inputs: Optional[Mapping[str, str]] = None,
) -> str:
    """The cache key of running `scenario` (a tree, trace paths as written) with `seed` on incast
    `version` (default: this one). `inputs` maps trace keys to hashes of the files' bytes.
    128 bits of SHA-256 as 32 hex digits."""
    document = {
        "cache_format": CACHE_FORMAT,
        "incast": build_version() if version is None else version,
        "scenario": {**scenario, "seed": seed},
        "inputs": dict(inputs or {}),
    }
    return _sha256(canonical_json(document))[:32]


def canonical_json(value: Any) -> str:
    """One text per value: sorted keys, no spaces; ints and floats stay distinct (1 vs 1.0)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _count(n: int, one: str, many: Optional[str] = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return "a float" if math.isfinite(value) else f"{value}"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return type(value).__name__
