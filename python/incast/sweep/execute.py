"""Running a sweep's unfinished points: in threads of this process (the engine releases the GIL),
or as tasks on a Dask distributed cluster. Either way results are written here, by one process,
so the cluster's workers need incast but not the results directory."""

from __future__ import annotations

import contextlib
import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from incast import ScenarioError, __version__, api
from incast.api import Progress, RunResult
from incast.sweep.spec import Point, Sweep, SweepError, build_version, load_sweep
from incast.sweep.store import Store

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as ds

LOCAL_CLUSTER = "local"
"""`scheduler=` value that starts a Dask LocalCluster of `jobs` worker processes."""

DASK_HINT = "pip install 'incast[dask]' (or dask[distributed])"


class PointError(RuntimeError):
    """A point failed while running (its worker died too often, a trace file was unreadable on
    the worker...). Points finished before it are kept; rerunning the sweep retries it."""

    def __init__(self, point: Point, cause: str):
        super().__init__(f"point {point.key} ({point.describe()}) failed: {cause}")
        self.point = point


@dataclass(frozen=True)
class SweepProgress:
    """Where a running sweep is, as passed to a `run_sweep(progress=...)` callback."""

    total: int
    """Points in the sweep."""
    cached: int
    """Points already in the results directory when this call started (not run again)."""
    done: int
    """Points run by this call so far."""
    point: Optional[Point]
    """The point that just finished; None in the first call, made before any point runs."""


@dataclass(frozen=True)
class SweepResult:
    """What `run_sweep` did, and where its results are."""

    out: Path
    sweep: Sweep
    ran: int
    """Points computed by this call."""
    cached: int
    """Points found already done in `out`."""

    def dataset(self, table: str = "flows") -> "ds.Dataset":
        """The Parquet dataset of one table: flows, summary, queues or throughput."""
        import pyarrow.dataset as ds

        return ds.dataset(self.out / table, format="parquet")

    def flows(self) -> "pa.Table":
        """Every point's flows, with columns point, the varied keys and seed in front."""
        return self.dataset("flows").to_table()

    def summary(self) -> "pa.Table":
        """One row per point: point, the varied keys, seed and the run's counters."""
        return self.dataset("summary").to_table()


SweepProgressCallback = Callable[[SweepProgress], None]


def run_sweep(
    sweep: Union[str, "os.PathLike[str]", Sweep],
    out: Union[str, "os.PathLike[str]"],
    *,
    jobs: Optional[int] = None,
    scheduler: Optional[str] = None,
    progress: Union[bool, SweepProgressCallback] = False,
) -> SweepResult:
    """Runs every point of `sweep` (a sweep file or a `Sweep`) not already done in `out`.

    `jobs` points run at a time in threads (default: one per CPU). `scheduler` runs them on a
    Dask cluster instead: the address of its scheduler (`tcp://host:8786`), or `"local"` for a
    LocalCluster of `jobs` worker processes; needs `incast[dask]`. `progress=True` draws a bar
    on stderr; a callable is called with a `SweepProgress` before the first point and after
    each one.

    Raises `SweepError` for a bad sweep, a results directory holding another sweep, or a
    scheduler that cannot be used; `PointError` when a point fails to run. Either way, every
    point finished before is kept and a rerun skips it.
    """
    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    if jobs is None:
        jobs = os.cpu_count() or 1
    if jobs < 1:
        raise SweepError("jobs", f"must be at least 1, not {jobs}")
    store = Store(Path(out), sweep)
    # Everything that can be refused is, before anything is written: another sweep's directory,
    # Dask missing, a scheduler out of reach.
    store.check()
    distributed = _import_distributed() if scheduler is not None else None
    work = any(not store.done(p) for p in sweep.points)
    with _connect(distributed, scheduler, jobs) if work else contextlib.nullcontext() as client, store:
        todo = [p for p in sweep.points if not store.done(p)]
        cached = len(sweep.points) - len(todo)
        report = _Reporter(len(sweep.points), cached, progress)
        try:
            report(None)
            if client is None:
                _run_threads(todo, store, jobs, report)
            else:
                _run_dask(distributed, client, todo, store, report)
        finally:
            report.close()
    return SweepResult(out=Path(out), sweep=sweep, ran=len(todo), cached=cached)


class _Reporter:
    """Counts finished points, drives the bar and the caller's callback."""

    def __init__(self, total: int, cached: int, progress: Union[bool, SweepProgressCallback]):
        self.total, self.cached, self.done = total, cached, 0
        self._callback = progress if callable(progress) else None
        self._bar: Any = None
        if progress is True:
            import sys

            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                initial=cached,
                unit="point",
                desc="sweep",
                file=sys.stderr,
                dynamic_ncols=True,
                leave=False,
            )

    def __call__(self, point: Optional[Point]) -> None:
        if point is not None:
            self.done += 1
            if self._bar is not None:
                self._bar.update(1)
        if self._callback is not None:
            self._callback(SweepProgress(self.total, self.cached, self.done, point))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            if not _isatty(self._bar.fp):
                # Without a terminal the bar cannot erase itself; end its line at least.
                self._bar.fp.write("\n")
            self._bar = None


def _isatty(file: Any) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):
        return False


class _Cancelled(Exception):
    pass


def _run_threads(todo: List[Point], store: Store, jobs: int, report: _Reporter) -> None:
    """`jobs` points at a time in threads; Ctrl-C or a failure stops every run within one engine
    chunk, and a point that did not finish leaves no file."""
    stop = threading.Event()

    def check_stop(_: Progress) -> None:
        if stop.is_set():
            raise _Cancelled

    def one(point: Point) -> Point:
        try:
            result = api.run(point.scenario, progress=check_stop)
        except OSError as e:
            raise PointError(point, f"{e.strerror or e}: {e.filename}" if e.filename else str(e)) from None
        except ScenarioError as e:
            # Checked before the sweep started: a trace file changed or vanished since.
            raise PointError(point, str(e)) from None
        store.write(point, result)
        return point

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        pending = {pool.submit(one, p) for p in todo}
        while pending:
            # A timeout keeps the main thread waking up, so that Ctrl-C is seen promptly.
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                report(future.result())
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_point(scenario: Dict[str, Any]) -> Tuple[str, RunResult]:
    """One point as a Dask task: runs in the worker, returns its incast version and results."""
    return build_version(), api.run(scenario)


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise SweepError("scheduler", f"running on Dask needs dask.distributed: {DASK_HINT}") from None
    return distributed


@contextlib.contextmanager
def _connect(distributed: Any, scheduler: Optional[str], jobs: int) -> Iterator[Any]:
    """A client of the cluster at `scheduler`, or of a LocalCluster of `jobs` processes; None
    without a scheduler."""
    if distributed is None:
        yield None
        return
    with contextlib.ExitStack() as stack:
        try:
            if scheduler == LOCAL_CLUSTER:
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
                    )
                )
                client = stack.enter_context(distributed.Client(cluster))
            else:
                client = stack.enter_context(distributed.Client(scheduler))
        except (OSError, TimeoutError, ValueError) as e:
            raise SweepError("scheduler", f"cannot connect: {e}") from None
        yield client


def _run_dask(distributed: Any, client: Any, todo: List[Point], store: Store, report: _Reporter) -> None:
    """Each point one task on the cluster; results come back here to be written. A task whose
    worker dies is rerun elsewhere by the scheduler (up to `distributed.scheduler.allowed-failures`
    times)."""
    futures: Dict[Any, Point] = {}
    try:
        for point in todo:
            futures[client.submit(run_point, point.scenario, key=f"incast-point-{point.key}")] = point
        for future in distributed.as_completed(list(futures)):
            point = futures.pop(future)
            try:
                version, result = future.result()
            except ImportError as e:
                raise SweepError(
                    "scheduler",
                    f"a worker cannot import incast ({e}): install incast {__version__} on every worker",
                ) from None
            except distributed.KilledWorker as e:
                raise PointError(point, f"its worker died too often ({e})") from None
            except (OSError, ScenarioError) as e:
                raise PointError(point, f"on a worker: {e}") from None
            if version != build_version():
                raise SweepError(
                    "scheduler",
                    f"a worker runs incast {version} and this process {build_version()}: "
                    "install the same version on every worker",
                )
            future.release()
            store.write(point, result)
            report(point)
    finally:
        if futures:
            client.cancel(list(futures))
