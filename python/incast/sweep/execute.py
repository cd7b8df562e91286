"""Running a sweep's unfinished points: in threads of this process (the engine releases the GIL),
or as tasks on a Dask distributed cluster. Either way results are written here, by one process,
so the cluster's workers need incast but not the results directory."""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from incast import ScenarioError, ScenarioWarning, __version__, api, deadlines
from incast.api import Progress, RunResult
from incast.slowdown import PFABRIC_EDGES, by_size
from incast.sweep.spec import Point, Sweep, SweepError, build_version, load_sweep
from incast.sweep.store import Store

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as ds

LOCAL_CLUSTER = "local"
"""`scheduler=` value that starts a Dask LocalCluster of `jobs` worker processes."""

DASK_HINT = "pip install 'incast[dask]' (or dask[distributed])"


@dataclass(frozen=True)
class PointFailure:
    """One point that raised while running, and why."""

    point: Point
    cause: str
    """One line: the error's message (a ScenarioError for a trace changed since the checks, a
    ResourceError for memory the run could not get, a worker that died too often...)."""

    def __str__(self) -> str:
        return f"point {self.point.key} ({self.point.describe()}) failed: {self.cause}"


class PointError(RuntimeError):
    """Some points failed while running. Every other point was run and kept; rerunning the sweep
    retries the failed ones. `failures` lists them in sweep order, `point` is the first, `result`
    says what the sweep did otherwise."""

    def __init__(self, failures: Sequence[PointFailure], result: "SweepResult"):
        super().__init__("; ".join(str(f) for f in failures))
        self.failures = list(failures)
        self.point = failures[0].point
        self.result = result


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
    """The point that just finished (or failed); None in the first call, made before any point
    runs."""
    failed: int = 0
    """Points of this call that raised so far (not counted in `done`)."""


@dataclass(frozen=True)
class SweepResult:
    """What `run_sweep` did, and where its results are."""

    out: Path
    sweep: Sweep
    ran: int
    """Points computed by this call."""
    cached: int
    """Points found already done (and verified) in `out`."""
    damaged: int = 0
    """Of `ran`, points whose files in `out` failed verification (unreadable, another point's,
    rows missing) and were computed again."""
    failed: int = 0
    """Of `ran`, points that raised; `run_sweep` raises `PointError` naming them."""
    stalled: int = 0
    """Of `ran`, points whose run stalled (summary `status` "stalled", `[run] stall_after`): results
    like any other, kept and not run again; their summary rows say why (`stall_reason`)."""

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

    def slowdown(self, by: Optional[Sequence[str]] = None, edges: Sequence[float] = PFABRIC_EDGES) -> "pa.Table":
        """FCT slowdown by flow size (`incast.slowdown.by_size`) for each combination of the
        varied keys, every seed of it pooled: one row per combination and size bucket, the
        varied keys in front. `by` groups on other columns instead; add "seed" to the varied
        keys to see each seed apart. Reads only the columns it needs, so a large sweep's flows
        are never loaded whole."""
        dataset = self.dataset("flows")
        names = dataset.schema.names
        by = list(self.sweep.columns) if by is None else list(by)
        unknown = [name for name in by if name not in names]
        if unknown:
            raise ValueError(f"by: no column {', '.join(map(repr, unknown))} in the sweep's flows; "
                             f"it varies {', '.join(self.sweep.columns) or 'nothing'} over seeds")
        wanted = {*by, "size_bytes", "slowdown", "measured"}
        flows = dataset.to_table(columns=[name for name in names if name in wanted])
        return by_size(flows, edges, by=by)

    def deadlines(self, by: Optional[Sequence[str]] = None) -> "pa.Table":
        """Deadlines met and missed (`incast.deadlines.by_group`: application throughput and the
        share missed, over the flows each run could judge) for each combination of the varied
        keys and each protocol the flows ran (a workload may set its own), every seed of it
        pooled. `by` groups on other columns instead; add "seed" to see each seed apart. Reads
        only the columns it needs."""
        dataset = self.dataset("flows")
        names = dataset.schema.names
        by = [*self.sweep.columns, "protocol"] if by is None else list(by)
        unknown = [name for name in by if name not in names]
        if unknown:
            raise ValueError(f"by: no column {', '.join(map(repr, unknown))} in the sweep's flows; "
                             f"it varies {', '.join(self.sweep.columns) or 'nothing'} over seeds")
        wanted = {*by, *deadlines.NEEDED}
        return deadlines.by_group(dataset.to_table(columns=[name for name in names if name in wanted]), by)


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

    A point counts as done only if its files verify (`Store.verify`); one that does not is
    computed again. A point that raises (a trace file changed, a `ResourceError`...) fails alone:
    the others still run, and `PointError` names every failed point at the end. `SweepError`
    is raised for a bad sweep, a results directory holding another sweep or that cannot be
    written (key "out": a full disk...), or a scheduler that cannot be used. Whatever happens,
    every point finished is kept and a rerun skips it.
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
        todo, damaged = store.survey()
        if client is None or scheduler == "local":
            crowded = threads_crowded(todo, jobs, _cores())
            if crowded is not None:
                warnings.warn(crowded, stacklevel=2)
        cached = len(sweep.points) - len(todo)
        report = _Reporter(len(sweep.points), cached, progress)
        try:
            report(None)
            if client is None:
                failures = _run_threads(todo, store, jobs, report)
            else:
                failures = _run_dask(distributed, client, todo, store, report)
        finally:
            report.close()
    result = SweepResult(
        out=Path(out),
        sweep=sweep,
        ran=len(todo),
        cached=cached,
        damaged=len(damaged),
        failed=len(failures),
        stalled=report.stalled,
    )
    if failures:
        order = {p.key: i for i, p in enumerate(sweep.points)}
        raise PointError(sorted(failures, key=lambda f: order[f.point.key]), result)
    return result


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def threads_crowded(todo: Sequence[Point], jobs: int, cores: int) -> Optional[ScenarioWarning]:
    """A warning when `jobs` of the points `todo` at a time, on the threads their runs use
    (`Point.threads`), would want more threads than this machine's `cores`, else None. A run on
    threads waits every round for all of its threads, so runs whose threads share cores wait on
    each other's turns: two 2-thread runs of the k = 8 fat tree at once on 2 cores took 4.7-6.7 s,
    one alone 1.3 s (docs/sweeps.md)."""
    widest = max((p.threads for p in todo), default=1)
    at_once = min(jobs, len(todo))
    if widest <= 1 or at_once * widest <= cores:
        return None
    return ScenarioWarning(
        "run.threads",
        f"{at_once} points at a time (jobs), each on up to {widest} threads, want {at_once * widest} threads on "
        f"{cores} cores: a run on threads waits every round for all of its threads, so side by side such runs "
        f"take several times as long as one alone; run the points one at a time (jobs = 1, `--jobs 1`), or "
        f"without `run.threads` (docs/sweeps.md)",
    )


class _Reporter:
    """Counts finished points, drives the bar and the caller's callback."""

    def __init__(self, total: int, cached: int, progress: Union[bool, SweepProgressCallback]):
        self.total, self.cached, self.done, self.failed, self.stalled = total, cached, 0, 0, 0
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

    def __call__(self, point: Optional[Point], failed: bool = False, stalled: bool = False) -> None:
        if point is not None:
            if failed:
                self.failed += 1
            else:
                self.done += 1
                self.stalled += stalled
            if self._bar is not None:
                self._bar.update(1)
        if self._callback is not None:
            self._callback(SweepProgress(self.total, self.cached, self.done, point, self.failed))

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


def failure_cause(e: BaseException) -> str:
    """A point's exception as one line: what the user can act on, without a traceback."""
    if isinstance(e, OSError):
        text = e.strerror or str(e)
        return f"{text}: {e.filename}" if e.filename else text
    if isinstance(e, ScenarioError):
        # Checked before the sweep started: a trace file changed or vanished since.
        return _one_line(str(e))
    if isinstance(e, MemoryError):
        # incast.ResourceError (a MemoryError) says which allocation; a bare one says nothing.
        return f"out of memory: {_one_line(str(e))}" if str(e) else "out of memory"
    if type(e).__name__ == "PanicException":
        return f"internal error in the engine: {_one_line(str(e))} (please report this)"
    return f"{type(e).__name__}: {_one_line(str(e))}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _run_threads(todo: List[Point], store: Store, jobs: int, report: _Reporter) -> List[PointFailure]:
    """`jobs` points at a time in threads. A point that raises fails alone; Ctrl-C or a results
    directory that cannot be written stops every run within one engine chunk, and a point that
    did not finish leaves no file."""
    stop = threading.Event()
    failures: List[PointFailure] = []

    def check_stop(_: Progress) -> None:
        if stop.is_set():
            raise _Cancelled

    def one(point: Point) -> Tuple[Optional[PointFailure], bool]:
        """The point's failure, if it raised, and whether its run stalled."""
        try:
            result = api.run(point.scenario, progress=check_stop, warn=False)
        except (_Cancelled, KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001 - the engine's PanicException is a BaseException
            if not isinstance(e, Exception) and type(e).__name__ != "PanicException":
                raise
            return PointFailure(point, failure_cause(e)), False
        store.write(point, result)
        return None, result.summary["status"] == "stalled"

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        pending = {pool.submit(one, p): p for p in todo}
        while pending:
            # A timeout keeps the main thread waking up, so that Ctrl-C is seen promptly.
            finished, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                point = pending.pop(future)
                failure, stalled = future.result()
                if failure is not None:
                    failures.append(failure)
                report(point, failed=failure is not None, stalled=stalled)
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return failures


def run_point(scenario: Dict[str, Any]) -> Tuple[str, RunResult]:
    """One point as a Dask task: runs in the worker, returns its incast version and results."""
    return build_version(), api.run(scenario, warn=False)


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


def _run_dask(
    distributed: Any, client: Any, todo: List[Point], store: Store, report: _Reporter
) -> List[PointFailure]:
    """Each point one task on the cluster; results come back here to be written. A task whose
    worker dies is rerun elsewhere by the scheduler (up to `distributed.scheduler.allowed-failures`
    times), then fails that point alone, as does a task that raises."""
    futures: Dict[Any, Point] = {}
    failures: List[PointFailure] = []
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
                failures.append(PointFailure(point, f"its worker died too often ({_one_line(str(e))})"))
                report(point, failed=True)
                continue
            except Exception as e:
                failures.append(PointFailure(point, f"on a worker: {failure_cause(e)}"))
                report(point, failed=True)
                continue
            if version != build_version():
                raise SweepError(
                    "scheduler",
                    f"a worker runs incast {version} and this process {build_version()}: "
                    "install the same version on every worker",
                )
            future.release()
            store.write(point, result)
            report(point, stalled=result.summary["status"] == "stalled")
    finally:
        if futures:
            client.cancel(list(futures))
    return failures
