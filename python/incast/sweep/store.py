"""The results directory of a sweep: one Parquet file per point and table, named by the point's
cache key, each written under a temporary name and renamed into place (docs/sweeps.md).

```
DIR/sweep.json            manifest: the sweep, its id, its columns and every point
DIR/sweep.toml            the sweep file as written (when the sweep came from a file)
DIR/flows/KEY.parquet     the point's flows, with columns point, the varied keys and seed
DIR/summary/KEY.parquet   one row: point, the varied keys, seed and the run's counters
DIR/queues/KEY.parquet    queue samples, for scenarios that ask for them (same added columns)
DIR/throughput/KEY.parquet  per-flow throughput samples, likewise
```

Every file carries, in its Parquet key-value metadata, the key of the point it belongs to and its
table; the summary file also lists the row count of each of the point's other tables. A point is
done only when its summary file and every table it lists verify (`Store.verify`): footer
readable, columns as written, the point's own key inside, row counts as listed. Only footers
are read, so checking a large sweep costs a few small reads per point. Summary is renamed last,
so a point killed midway has no summary and is simply not done. Files whose names start with "."
(temporary files, the lock) are skipped by `pyarrow.dataset`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from incast.api import RunResult, flows_schema
from incast.durable import staged_files
from incast.sweep.spec import Point, Sweep, SweepError, column_value

if TYPE_CHECKING:
    import pyarrow as pa

MANIFEST = "sweep.json"
SWEEP_COPY = "sweep.toml"
LOCK = ".incast-sweep.lock"
TABLES = ("flows", "summary", "queues", "throughput")
MANIFEST_FORMAT = 1

POINT_KEY = b"incast.point"
"""Parquet key-value metadata of every point file: the key of the point it holds."""
TABLE_KEY = b"incast.table"
"""Parquet key-value metadata of every point file: flows, summary, queues or throughput."""
ROWS_KEY = b"incast.rows"
"""Parquet key-value metadata of a summary file: JSON {table: rows} of the point's other files."""

# Summary values that are floats even when a run has none (app_throughput without deadlines).
_FLOAT_SUMMARY = ("sim_time_s", "wall_time_s", "app_throughput")


class Store:
    """`DIR` opened for one sweep: checks that it holds no other sweep's results and locks it
    against a second `incast sweep` writing into it at the same time."""

    def __init__(self, out: Path, sweep: Sweep):
        self.out = out
        self.sweep = sweep
        self._lock: Optional[int] = None

    def __enter__(self) -> "Store":
        self.open()
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def check(self) -> None:
        """Refuses a DIR that is not a directory or holds something other than this sweep's
        results; writes nothing."""
        if self.out.exists() and not self.out.is_dir():
            raise SweepError("out", "exists and is not a directory")
        self._check_manifest()

    def open(self) -> None:
        """Creates DIR and its manifest, or checks that DIR already belongs to this sweep."""
        out = self.out
        self.check()
        try:
            out.mkdir(parents=True, exist_ok=True)
            self._lock = _lock(out / LOCK)
            # Checked again under the lock: another sweep may have started in between.
            self._check_manifest()
            if not (out / MANIFEST).exists():
                self._write_manifest()
            for table in TABLES[:2]:
                (out / table).mkdir(exist_ok=True)
        except OSError as e:
            self.close()
            raise SweepError("out", f"{e.strerror or e}: {e.filename}" if e.filename else str(e)) from None
        except BaseException:
            self.close()
            raise
        for directory in [out] + [out / table for table in TABLES]:
            if directory.is_dir():
                for stale in directory.glob(".*.tmp"):
                    # Left by a process killed while writing; nobody else writes here (we hold the lock).
                    stale.unlink()

    def close(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _check_manifest(self) -> None:
        path = self.out / MANIFEST
        if not path.exists():
            if self.out.is_dir() and any(not p.name.startswith(".") for p in self.out.iterdir()):
                raise SweepError("out", f"is not empty and holds no {MANIFEST}: not a sweep's directory")
            return
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            theirs = manifest["id"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SweepError(
                "out", f"{MANIFEST} is unreadable ({e}); move the directory aside to start anew"
            ) from None
        if theirs != self.sweep.id:
            ours = {p.key for p in self.sweep.points}
            their_points = {p.get("point") for p in manifest.get("points", []) if isinstance(p, dict)}
            version = manifest.get("incast")
            made_by = f" made by incast {version}" if version != self.sweep.version else ""
            raise SweepError(
                "out",
                f"holds the results of another sweep{made_by} ({len(their_points)} points, "
                f"{len(ours & their_points)} of them in this one of {len(ours)}): choose another "
                "directory, or delete this one to start over",
            )

    def _write_manifest(self) -> None:
        sweep = self.sweep
        manifest = {
            "format": MANIFEST_FORMAT,
            "id": sweep.id,
            "incast": sweep.version,
            "sweep": sweep.definition(),
            "columns": sweep.columns,
            "points": [{"point": p.key, "seed": p.seed, "params": p.params} for p in sweep.points],
        }
        files = {MANIFEST: json.dumps(manifest, indent=1) + "\n"}
        if sweep.text is not None:
            files[SWEEP_COPY] = sweep.text
        with staged_files() as stage:
            for name, text in files.items():
                stage(self.out / name).write_text(text, encoding="utf-8")

    def done(self, point: Point) -> bool:
        """Whether the point's results are all in place and verify."""
        return self.verify(point) is None

    def verify(self, point: Point) -> Optional[str]:
        """None if the point is done; else why not: "missing" when it has no summary (it never
        finished), or what is wrong with one of its files (damaged). Reads footers only, and
        only once per process for files that have not changed since (`_VERIFIED`)."""
        summary = self._path("summary", point)
        identity = _identity({table: self._path(table, point) for table in TABLES})
        if identity is not None and _VERIFIED.get(str(summary)) == identity:
            return None
        reason = self._verify(point)
        if reason is None and identity is not None:
            _VERIFIED[str(summary)] = identity
        return reason

    def _verify(self, point: Point) -> Optional[str]:
        summary = self._path("summary", point)
        if not os.path.lexists(summary):
            return MISSING
        try:
            rows = json.loads(self._check_file(summary, point, "summary", 1)[ROWS_KEY])
            if not isinstance(rows, dict) or set(rows) - set(TABLES) or "flows" not in rows:
                raise _Damaged(f"{_shown(summary)}: its table list is not one this version writes")
        except _Damaged as e:
            return str(e)
        except (KeyError, ValueError):
            return f"{_shown(summary)}: no table list inside (written by an earlier incast)"
        for table in TABLES[:1] + TABLES[2:]:
            path = self._path(table, point)
            if table not in rows:
                if os.path.lexists(path):
                    return f"{_shown(path)}: not listed by the point's summary"
                continue
            try:
                self._check_file(path, point, table, rows[table])
            except _Damaged as e:
                return str(e)
        return None

    def _check_file(self, path: Path, point: Point, table: str, rows: Any) -> Dict[bytes, bytes]:
        """The file's key-value metadata, after checking its footer, its columns, the point and
        table it says it holds and its row count; raises `_Damaged` saying what is wrong."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        shown = _shown(path)
        try:
            with pq.ParquetFile(path) as f:
                meta, schema = f.metadata, f.schema_arrow
        except FileNotFoundError:
            raise _Damaged(f"{shown}: missing") from None
        except (OSError, ValueError, pa.ArrowException) as e:
            raise _Damaged(f"{shown}: not a readable Parquet file ({_first_line(e)})") from None
        kv = meta.metadata or {}
        if POINT_KEY not in kv:
            raise _Damaged(f"{shown}: no point key inside (written by an earlier incast)")
        if kv[POINT_KEY] != point.key.encode() or kv.get(TABLE_KEY) != table.encode():
            theirs = kv[POINT_KEY].decode(errors="replace")
            what = kv.get(TABLE_KEY, b"?").decode(errors="replace")
            raise _Damaged(f"{shown}: holds the {what} of point {theirs}")
        if meta.num_rows != rows:
            raise _Damaged(f"{shown}: {meta.num_rows} rows where {rows} were written")
        expected = self._front_schema()
        if table == "flows":
            expected = pa.schema(list(expected) + list(flows_schema()))
        names = [(f.name, f.type) for f in schema]
        wanted = [(f.name, f.type) for f in expected]
        if names[: len(wanted)] != wanted or (table == "flows" and len(names) != len(wanted)):
            raise _Damaged(f"{shown}: columns differ from those this sweep writes")
        return kv

    def survey(self) -> Tuple[List[Point], Dict[str, str]]:
        """The points to run, and why each of the damaged ones is (point key: reason). Every file
        of a point to run is removed, so that until it is written again the datasets hold no part
        of it. Call with the directory open (locked)."""
        todo: List[Point] = []
        damaged: Dict[str, str] = {}
        for point in self.sweep.points:
            reason = self.verify(point)
            if reason is None:
                continue
            todo.append(point)
            if reason != MISSING:
                damaged[point.key] = reason
            for table in TABLES:
                path = self._path(table, point)
                if os.path.lexists(path):
                    path.unlink()
        return todo, damaged

    def _path(self, table: str, point: Point) -> Path:
        return self.out / table / f"{point.key}.parquet"

    def write(self, point: Point, result: RunResult) -> None:
        """Writes the point's tables under temporary names, then renames them, summary last.
        Raises `SweepError` (key "out") if they cannot be written (a full disk...), leaving no
        part of this point behind and every other point as it was."""
        import pyarrow.parquet as pq

        tables = {"flows": result.flows}
        if result.queues.num_rows:
            tables["queues"] = result.queues
        if result.throughput is not None:
            tables["throughput"] = result.throughput
        rows = {name: table.num_rows for name, table in tables.items()}
        tables["summary"] = summary_table(result.summary)
        try:
            with staged_files() as stage:
                for name, table in tables.items():
                    directory = self.out / name
                    directory.mkdir(exist_ok=True)
                    labels = {POINT_KEY: point.key.encode(), TABLE_KEY: name.encode()}
                    if name == "summary":
                        labels[ROWS_KEY] = json.dumps(rows, sort_keys=True).encode()
                    labelled = self._with_params(point, table).replace_schema_metadata(labels)
                    # pyarrow takes a list of columns here ("bool or list"); its stubs say bool.
                    pq.write_table(labelled, stage(self._path(name, point)),
                                   use_dictionary=_text_columns(labelled))  # type: ignore[arg-type]
        except OSError as e:
            raise SweepError("out", f"cannot write point {point.key}: {_os_error(e)}") from None
        # Written whole just now: the reproductions that read this sweep next need not read its
        # footers back to know it (2,437 points in the quick reproductions, two files each).
        identity = _identity({table: self._path(table, point) for table in TABLES})
        if identity is not None:
            _VERIFIED[str(self._path("summary", point))] = identity

    def _front_schema(self) -> "pa.Schema":
        """The columns in front of every table: point, each varied key and seed."""
        import pyarrow as pa

        # Sweep.columns's kinds; "json" columns hold text.
        types: Dict[str, pa.DataType] = {
            "bool": pa.bool_(), "int64": pa.int64(), "float64": pa.float64(), "string": pa.string(), "json": pa.string()
        }
        fields: List[Tuple[str, pa.DataType]] = [("point", pa.string())]
        fields += [(key, types[kind]) for key, kind in self.sweep.columns.items()]
        fields.append(("seed", pa.uint64()))
        return pa.schema(fields)

    def _with_params(self, point: Point, table: "pa.Table") -> "pa.Table":
        """`table` with the columns point, each varied key and seed in front."""
        import pyarrow as pa

        rows = table.num_rows
        values = [point.key] + [column_value(point.params[key], kind) for key, kind in self.sweep.columns.items()]
        values.append(point.seed)
        schema = self._front_schema()
        front = pa.table(
            [pa.repeat(pa.scalar(value, field.type), rows) for value, field in zip(values, schema)], schema=schema
        )
        return pa.Table.from_arrays(
            front.columns + table.columns, names=front.column_names + table.column_names
        )


def _text_columns(table: "pa.Table") -> List[str]:
    """The columns worth dictionary-encoding in a point's file: its text (the point's key and its
    varied keys, constant in the file; protocol names). Parquet's default encodes every column
    so, and numbers (times, sizes, rates) rarely repeat: on a 10,630-flow OLDI point, text only
    took 3.7 ms to write against 7.2 ms, and the file is 6% smaller."""
    import pyarrow as pa

    return [f.name for f in table.schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]


def summary_table(summary: Mapping[str, Any]) -> "pa.Table":
    """A run's summary as one row, each counter with the same type in every point."""
    import pyarrow as pa

    columns: Dict[str, pa.Array[Any]] = {}
    for name, value in summary.items():
        if name in _FLOAT_SUMMARY or isinstance(value, float) or value is None:
            columns[name] = pa.array([value], pa.float64())
        elif isinstance(value, bool):
            columns[name] = pa.array([value], pa.bool_())
        elif isinstance(value, int):
            columns[name] = pa.array([value], pa.int64())
        elif isinstance(value, str):
            columns[name] = pa.array([value], pa.string())
        else:
            columns[name] = pa.array([json.dumps(value, sort_keys=True)], pa.string())
    return pa.table(columns)


MISSING = "missing"
"""`Store.verify` of a point that never finished: no summary file."""

# Points that verified in this process, or that it wrote, by summary path, with the identity of
# each of their files when they did (inode, size, modification time): a file rewritten since has
# another, and is read again. Reproductions ask for the same cached sweep many times in one
# process (D3's flow bursts: 2,400 points, each verified twice per call), and reading every
# footer each time cost as much as the statistics drawn from the flows.
_VERIFIED: Dict[str, Tuple[Tuple[str, int, int, int], ...]] = {}


def _identity(paths: Dict[str, Path]) -> Optional[Tuple[Tuple[str, int, int, int], ...]]:
    """(table, inode, size, mtime) of each existing file of a point; None without a summary."""
    out = []
    for table, path in paths.items():
        try:
            st = os.stat(path)
        except FileNotFoundError:
            if table == "summary":
                return None
            continue
        out.append((table, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


class _Damaged(Exception):
    """A point file that fails verification; the message says which and why."""


def _shown(path: Path) -> str:
    """`flows/KEY.parquet`: a point file named as the user finds it under DIR."""
    return f"{path.parent.name}/{path.name}"


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def _os_error(e: OSError) -> str:
    """An OSError as its errno text (pyarrow's carry it only in the message)."""
    return e.strerror or _first_line(e)


def _lock(path: Path) -> int:
    """An exclusive lock on `path`, held until the returned descriptor is closed (or the process
    dies). Without fcntl (Windows) there is no lock."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Unix
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SweepError("out", "another incast sweep is writing into it") from None
    return fd
