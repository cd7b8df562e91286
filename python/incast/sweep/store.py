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

A point is done once its flows and summary files both exist; summary is renamed last. Files
whose names start with "." (temporary files, the lock) are skipped by `pyarrow.dataset`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

from incast.api import RunResult, staged_files
from incast.sweep.spec import Point, Sweep, SweepError, column_value

if TYPE_CHECKING:
    import pyarrow as pa

MANIFEST = "sweep.json"
SWEEP_COPY = "sweep.toml"
LOCK = ".incast-sweep.lock"
TABLES = ("flows", "summary", "queues", "throughput")
MANIFEST_FORMAT = 1

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
        """Whether the point's results are all in place."""
        return all((self.out / table / f"{point.key}.parquet").exists() for table in TABLES[:2])

    def write(self, point: Point, result: RunResult) -> None:
        """Writes the point's tables under temporary names, then renames them, summary last."""
        import pyarrow.parquet as pq

        tables = {"flows": result.flows}
        if result.queues.num_rows:
            tables["queues"] = result.queues
        if result.throughput is not None:
            tables["throughput"] = result.throughput
        tables["summary"] = summary_table(result.summary)
        with staged_files() as stage:
            for name, table in tables.items():
                directory = self.out / name
                directory.mkdir(exist_ok=True)
                pq.write_table(self._with_params(point, table), stage(directory / f"{point.key}.parquet"))

    def _with_params(self, point: Point, table: "pa.Table") -> "pa.Table":
        """`table` with the columns point, each varied key and seed in front."""
        import pyarrow as pa

        rows = table.num_rows
        columns: Dict[str, pa.Array[Any]] = {"point": pa.repeat(pa.scalar(point.key, pa.string()), rows)}
        for key, kind in self.sweep.columns.items():
            arrow_type: pa.DataType = pa.string() if kind == "json" else pa.type_for_alias(kind)
            value = pa.scalar(column_value(point.params[key], kind), arrow_type)
            # pyarrow-stubs types `repeat` per scalar type only; this one's type is known at run time.
            columns[key] = pa.repeat(value, rows)  # type: ignore[call-overload]
        columns["seed"] = pa.repeat(pa.scalar(point.seed, pa.uint64()), rows)
        front = pa.table(columns)
        return pa.Table.from_arrays(
            front.columns + table.columns, names=front.column_names + table.column_names
        )


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
