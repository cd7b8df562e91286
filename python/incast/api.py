"""The public Python API: `run` a scenario, get a `RunResult` of pyarrow tables."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import signal
import threading
import warnings as _warnings
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Optional,
    Sequence,
    Tuple,
    TypedDict,
    Union,
)

from incast import _core
from incast.durable import replace_dir
from incast.progress import Progress
from incast.scenario import ScenarioLike, ScenarioWarning, check_source, load_scenario, scenario_warnings, source_of
from incast.slowdown import PFABRIC_EDGES, by_size

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Progress", "RunResult", "ScenarioWarning", "Summary", "effective_transport", "load_scenario", "run",
           "CHUNK_EVENTS"]

CHUNK_EVENTS = 1 << 18
"""Events per engine call between progress reports: a few tens of milliseconds of work, so that
Ctrl-C and progress bars react promptly while the per-call overhead stays negligible."""

_U64_END = 1 << 64
"""Integers the engine takes as a u64 (a seed, `chunk_events`) are below this."""


ProgressCallback = Callable[[Progress], None]


class Summary(TypedDict):
    """`RunResult.summary`: a run's counters, as the engine reports them (docs/python.md)."""

    events: int
    sim_time_s: float
    wall_time_s: float
    """The only value that differs between identical runs."""
    flows: int
    flows_measured: int
    """Flows that arrived in the measurement window ([run] warmup to measure_until): all without one."""
    flows_completed: int
    deadline_flows: int
    """Measured flows with a deadline the run could judge: those whose `met_deadline` is not null."""
    deadline_unknown: int
    """Flows with a deadline past the end of the run, unfinished at its end (`met_deadline` null)."""
    app_throughput: Optional[float]
    """Share of `deadline_flows` that met their deadline (D3's metric); None when none was judged."""
    packets_sent: int
    packets_delivered: int
    packets_dropped: int
    packets_in_network: int
    """Still queued when the run stopped."""
    packet_hops: int
    """Link traversals."""
    ecn_marked: int
    """Data packets marked CE on arrival and queued, each once."""
    ecn_marked_dropped: int
    """ECN-capable packets that arrived above a marking threshold and were dropped for lack of room."""
    ecn_marked_control: int
    """SYNs and pure ACKs marked CE and queued (`ect_control_packets`)."""
    ecn_remarked: int
    """Packets queued above a marking threshold that an earlier queue had marked already."""
    max_queue_bytes: int
    timeouts: int
    d3_requests: int
    """Rate requests of D3 deadline flows seen at switch ports."""
    d3_priority_inversions: int
    """Of `d3_requests`, those denied while a later-deadline flow held a grant at the same port."""
    transport: Dict[str, Any]
    """The `[transport]` settings in effect, as `effective_transport` gives them (a JSON tree)."""
    stopped_at_horizon: bool
    """The run reached its simulated-time horizon (`[run] horizon`) before its end and stopped there."""
    status: str
    """How the run ended: "flows-ended" (every finite flow ended), "duration" (it ran to `[run] duration`),
    "horizon" (it reached `[run] horizon` with work left) or "stalled" (the progress watchdog stopped it,
    `[run] stall_after`, or no flow could act again; `stall_reason` says why)."""
    stall_reason: str
    """Why the run stalled, in one line naming the likely keys; "" unless `status` is "stalled"."""
    stall_keys: List[str]
    """The scenario keys most likely behind the stall, most likely first; empty unless stalled."""


@dataclass(frozen=True)
class Capture:
    """A packet capture of the ports `[output] capture_ports` names: a pcap file (nanosecond
    timestamps, Ethernet) that Wireshark and tshark open, with headers synthesized from the
    simulated packets (docs/scenario.md, "Packet capture")."""

    pcap: bytes
    """The file's bytes (`RunResult.save` writes them to capture.pcap)."""
    packets: int
    """Packets in the file."""
    missed: int
    """Packets of the captured ports left out because `capture_max_packets` was reached."""

    def __repr__(self) -> str:
        return f"Capture(packets={self.packets}, missed={self.missed}, bytes={len(self.pcap)})"


@dataclass(frozen=True)
class RunResult:
    """Everything a run produced.

    `flows` has one row per flow (columns in docs/python.md; null where a value does not apply, e.g.
    `finish_s` of a flow that never completed). `summary` holds the run's counters. `queues` is the
    sampled switch-port queue lengths (empty unless `[output]` asks for them) and `throughput` the
    per-flow delivered-bytes samples (None unless asked for). `ports` has one row per egress port,
    hosts' NICs included: its name, the nodes at both ends, and what it sent, dropped, marked and
    queued (columns in docs/python.md). `capture` is the packet capture of `[output] capture_ports`,
    `traces` the traced flows' sender state, a row at each change, and `offers` every packet offered
    to the ports `[output] offer_log_ports` names, with what it found there and what the port did
    (each None unless asked for; `offers_missed` counts the offers past `offer_log_max_rows`).
    `warnings` are the scenario's warnings (`ScenarioWarning`s, docs/scenario.md, "Warnings"),
    which `run` also issued with `warnings.warn`.
    """

    flows: "pa.Table"
    summary: Summary
    queues: "pa.Table"
    throughput: Optional["pa.Table"]
    ports: "pa.Table"
    capture: Optional["Capture"] = None
    traces: Optional["pa.Table"] = None
    offers: Optional["pa.Table"] = None
    offers_missed: int = 0
    warnings: Tuple[ScenarioWarning, ...] = ()

    def slowdown(self, edges: Sequence[float] = PFABRIC_EDGES, *, by: Sequence[str] = ()) -> "pa.Table":
        """The FCT slowdown of this run's flows by size bucket: `incast.slowdown.by_size(self.flows,
        edges, by=by)`, pFabric's buckets by default (docs/python.md, "Slowdown")."""
        return by_size(self.flows, edges, by=by)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"RunResult(flows={self.flows.num_rows}, completed={s.get('flows_completed')}, "
            f"app_throughput={s.get('app_throughput')}, sim_time_s={s.get('sim_time_s')})"
        )

    def save(self, out_dir: Union[str, "os.PathLike[str]"], *,
             flows_file: Optional[Union[str, "os.PathLike[str]"]] = None) -> List[Path]:
        """Writes flows.parquet, ports.parquet, summary.json and, when present, queues.parquet,
        throughput.parquet, traces.parquet, capture.pcap and offers.parquet into `out_dir`,
        returning the paths written. `flows_file`, a Parquet file of the flow table written as the
        run went (`run(on_flows=...)`) on the file system of `out_dir`, is moved in as
        flows.parquet instead of `flows`.

        `out_dir` is replaced as a whole (`incast.durable.replace_dir`): the files are written
        and fsynced in a fresh sibling directory that then takes its place, so a reader, a
        failure (a full disk) or a kill leaves the earlier result or this one, never a mix, and
        no temporary file behind after the next save. Since the directory is replaced, it may
        hold only an earlier result: anything else in it raises `FileExistsError` (an OSError)
        before anything is written.
        """
        import pyarrow.parquet as pq

        payloads: Dict[str, Any] = {"flows.parquet": self.flows, "ports.parquet": self.ports,
                                    "summary.json": self.summary}
        if self.queues.num_rows:
            payloads["queues.parquet"] = self.queues
        if self.throughput is not None:
            payloads["throughput.parquet"] = self.throughput
        if self.traces is not None:
            payloads["traces.parquet"] = self.traces
        if self.capture is not None:
            payloads["capture.pcap"] = self.capture.pcap
        if self.offers is not None:
            payloads["offers.parquet"] = self.offers

        def fill(directory: Path) -> None:
            for name, payload in payloads.items():
                if name == "flows.parquet" and flows_file is not None:
                    os.replace(flows_file, directory / name)
                elif isinstance(payload, bytes):
                    (directory / name).write_bytes(payload)
                elif name.endswith(".json"):
                    (directory / name).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
                else:
                    pq.write_table(payload, directory / name)

        replace_dir(Path(out_dir), fill, owns=is_result_file)
        return [Path(out_dir) / name for name in payloads]


RESULT_FILES = ("flows.parquet", "ports.parquet", "summary.json", "queues.parquet", "throughput.parquet",
                "traces.parquet", "capture.pcap", "offers.parquet")
"""What `RunResult.save` writes; a results directory holds nothing else."""


def is_result_file(name: str) -> bool:
    """Whether `name`, in an `incast run --out` directory, is (part of) a run's result: one of
    `RESULT_FILES`, or a temporary file the per-file staging of incast 0.1 left when killed."""
    return name in RESULT_FILES or (name.startswith(".") and name.endswith(".tmp"))


def effective_transport(scenario: ScenarioLike) -> Dict[str, Any]:
    """The `[transport]` settings a scenario runs with: its TCP stack's defaults (`stack`,
    "linux" unless named) with the keys it sets applied, keyed and written as in a scenario
    file. A run's `summary["transport"]` holds the same. Raises `ScenarioError` naming the bad
    key."""
    return check_source(source_of(scenario))


def simulation(
    scenario: ScenarioLike, *, seed: Optional[int] = None, threads: Union[int, str, None] = None
) -> _core.Simulation:
    """Parses `scenario` and builds its network, ready to `step`. See `run` for the arguments."""
    threads_text = _threads_text(threads)
    if seed is not None:
        if isinstance(seed, bool) or not hasattr(seed, "__index__"):
            raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
        seed = int(seed.__index__())
        if not 0 <= seed < _U64_END:
            raise ValueError(f"seed must be in [0, 2**64), not {seed}")
    source = source_of(scenario)
    try:
        return _core.Simulation(source.text, source.format, source.base_dir, seed, threads_text)
    except _core.ScenarioError as e:
        raise source.explain(e) from None


def _threads_text(threads: Union[int, str, None]) -> Optional[str]:
    """`threads` as the engine takes it: a positive count or "auto" (`[run] threads`)."""
    if threads is None:
        return None
    if isinstance(threads, str):
        text = threads.strip().lower()
        if text == "auto" or text.isdigit():
            return text
    elif not isinstance(threads, bool) and isinstance(threads, int):
        if threads >= 1:
            return str(threads)
    raise ValueError(f'threads must be a positive integer or "auto", not {threads!r}')


def run(
    scenario: ScenarioLike,
    *,
    seed: Optional[int] = None,
    threads: Union[int, str, None] = None,
    progress: Union[bool, ProgressCallback] = False,
    chunk_events: int = CHUNK_EVENTS,
    trace_flows: Sequence[int] = (),
    trace_slowest: int = 0,
    on_flows: Optional[Callable[["pa.Table"], None]] = None,
    warn: bool = True,
) -> RunResult:
    """Runs a scenario to its end.

    `scenario` is a path to a `.toml` (or `.json`) scenario file, or a dict of the same tree
    (docs/scenario.md); a trace workload whose path ends in `.parquet` is read here and handed to
    the engine as explicit flows. `seed` overrides the scenario's seed, `threads` (a count or
    "auto") its `[run] threads`: the network cut into parts run on that many threads, with the
    same results for any count (docs/scenario.md, "[run]"). `progress=True` shows a
    progress bar on stderr once the run has taken a second; a callable is called with a
    `Progress` after every `chunk_events` events and once at the end.

    `trace_flows` traces these flow ids on top of the scenario's `[output] trace_*` keys.
    `trace_slowest=n` also traces the n slowest finite flows (`slowest_flows`), found by running
    the scenario twice: once to find them, once to trace them. The engine is deterministic and
    tracing changes nothing, so the second run's flow table is the first's; the run costs twice
    its time.

    `on_flows` streams the flow table: it is called with each batch of rows (a pyarrow Table of
    `flows_schema()`) as flows leave the run, after every chunk that ended some, and once at the
    end with the rest; the result's `flows` is then empty. Rows come in the order flows ended,
    then those still running or never started at the end in id order. The summary counts every
    flow as without it. A flow leaves the run when it has ended and no packet of it is left in
    the network (a message of a persistent connection, and every flow of a run that samples
    per-flow throughput, stays to the end), so the memory of a long run follows the flows in
    flight rather than all its flows (`incast run --stream-flows`; docs/engine.md).

    What the scenario will do that its file may not mean (docs/scenario.md, "Warnings") is issued
    before the run starts, each warning once, with `warnings.warn` as an `incast.ScenarioWarning`
    (`warn=False` leaves that out, as sweeps do, which report them once for all their points), and
    is in the result's `warnings` either way.

    The engine runs with the GIL released, so runs in several threads proceed in parallel; Ctrl-C
    interrupts within one chunk. Raises `ScenarioError` (a ValueError) naming the offending key,
    ValueError for a `chunk_events` that is not a positive integer or a flow id the run does not
    have, or OSError if the scenario file cannot be read.
    """
    # Checked first: a zero would make the loop below step for ever without advancing.
    if isinstance(chunk_events, bool) or not hasattr(chunk_events, "__index__"):
        raise ValueError(f"chunk_events must be a positive integer, not {type(chunk_events).__name__}")
    chunk_events = int(chunk_events.__index__())
    if not 0 < chunk_events < _U64_END:
        raise ValueError(f"chunk_events must be a positive integer below 2**64, not {chunk_events}")
    if isinstance(trace_slowest, bool) or not hasattr(trace_slowest, "__index__") or int(trace_slowest) < 0:
        raise ValueError(f"trace_slowest must be a non-negative integer, not {trace_slowest!r}")
    if on_flows is not None and not callable(on_flows):
        raise ValueError(f"on_flows must be callable, not {type(on_flows).__name__}")
    traced = [int(i) for i in trace_flows]
    sim = simulation(scenario, seed=seed, threads=threads)
    warned = tuple(scenario_warnings(sim.warnings()))
    if warn:
        for w in warned:
            _warnings.warn(w, stacklevel=2)
    if trace_slowest:
        first = _drive(sim, progress, chunk_events)
        traced += slowest_flows(first.flows, int(trace_slowest))
        sim = simulation(scenario, seed=seed, threads=threads)
    if traced:
        try:
            sim.trace_flows(traced)
        except ValueError as e:
            raise ValueError(f"trace_flows: {e}") from None
    return dataclasses.replace(_drive(sim, progress, chunk_events, on_flows), warnings=warned)


def slowest_flows(flows: "pa.Table", n: int) -> List[int]:
    """The ids of the `n` slowest finite flows of a flow table: those that never finished first
    (in id order), then by completion time (`finish_s - start_s`), longest first. Long-lived flows
    (no size) have no completion time and are left out."""
    rows = flows.select(["flow_id", "size_bytes", "start_s", "finish_s"]).to_pylist()
    finite = [r for r in rows if r["size_bytes"] is not None]
    fct = {r["flow_id"]: math.inf if r["finish_s"] is None else r["finish_s"] - r["start_s"] for r in finite}
    return sorted(fct, key=lambda f: (-fct[f], f))[:n]


def _drive(
    sim: _core.Simulation,
    progress: Union[bool, ProgressCallback],
    chunk_events: int,
    on_flows: Optional[Callable[["pa.Table"], None]] = None,
) -> RunResult:
    """Steps `sim` to its end in chunks of `chunk_events`, reporting to `progress` and handing
    flow rows to `on_flows` as `run` says, and returns its results."""
    from incast.progress import ProgressBar

    bar = ProgressBar(force=True) if progress is True else None
    report: Optional[ProgressCallback] = bar
    if report is None and callable(progress):
        report = progress
    try:
        with _interrupt_between_chunks() as interrupted:
            while not sim.step(chunk_events):
                if on_flows is not None:
                    _hand_flows(sim.take_flows(), on_flows)
                if report is not None:
                    report(Progress(**sim.progress()))
                if interrupted():
                    raise KeyboardInterrupt
            if report is not None:
                report(Progress(**sim.progress()))
    finally:
        if bar is not None:
            bar.close()
    if on_flows is None:
        return _result(sim.finish())
    _hand_flows(sim.take_flows(), on_flows)
    raw = sim.finish()
    _hand_flows(raw["flows"], on_flows)
    result = _result(raw)
    return dataclasses.replace(result, flows=result.flows.slice(0, 0))


def _hand_flows(columns: _core._ColumnsDict, on_flows: Callable[["pa.Table"], None]) -> None:
    """Gives `on_flows` the engine's flow rows `columns` as a table, if there are any."""
    if columns["rows"]:
        on_flows(_declared_table(columns, flows_schema()))


@contextlib.contextmanager
def _interrupt_between_chunks() -> Iterator[Callable[[], bool]]:
    """Turns Ctrl-C during a run into a KeyboardInterrupt raised by the run loop itself.

    Python raises KeyboardInterrupt wherever its code happens to be when the signal is handled;
    inside a destructor or a weakref callback (the progress bar's library has both) it is
    printed as "Exception ignored" and lost, and the run goes on. So while the run loop owns
    SIGINT, the handler only records it, and the loop raises after the chunk. A handler the
    program installed itself, or a run outside the main thread, is left as it is.
    """
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield lambda: False
        return
    hits: List[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: hits.append(signum))
    try:
        yield lambda: bool(hits)
    finally:
        signal.signal(signal.SIGINT, previous)
    if hits:
        # A Ctrl-C that arrived after the loop's last check still interrupts.
        raise KeyboardInterrupt


def _result(raw: _core._ResultsDict) -> RunResult:

    return RunResult(
        flows=_declared_table(raw["flows"], flows_schema()),
        summary=raw["summary"],
        queues=_queues_table(raw["queues"], table_schema("queues")),
        throughput=None
        if raw["throughput"] is None
        else _declared_table(raw["throughput"], table_schema("throughput")),
        ports=_declared_table(raw["ports"], table_schema("ports")),
        capture=None if raw["capture"] is None else Capture(**raw["capture"]),
        traces=None if raw["traces"] is None else _declared_table(raw["traces"], table_schema("traces")),
        offers=None if raw["offers"] is None else _declared_table(raw["offers"], table_schema("offers")),
        offers_missed=raw["offers_missed"],
    )


def _queues_table(columns: _core._ColumnsDict, schema: "pa.Schema") -> "pa.Table":
    """The queue samples with the sampled port's name in front: the engine gives each row the
    index of its series in `port.names`; the columns after `queue_bytes` are those the
    transports' port processors sample (D3's counters), null at other ports."""
    import pyarrow as pa

    table = pa.table({field.name: _array(field.type, columns, field.name) for field in schema})
    return table.add_column(0, "port", _strings(columns, "port"))


def table_schema(table: "_core._Table") -> "pa.Schema":
    """The Arrow schema of a results table ("flows", "ports", "traces", "throughput", "offers" or
    "queues", whose `port` column comes first and is not in it), built
    from the columns the engine declares (`_core.columns`): names, types and nullability are
    written once, in Rust (crates/incast-sim/src/results/columns.rs), where each column's doc
    lives too (`_core.columns` returns it)."""
    import pyarrow as pa

    types = {"u8": pa.uint8(), "u32": pa.uint32(), "u64": pa.uint64(), "f64": pa.float64(), "bool": pa.bool_(),
             "str": pa.string()}
    return pa.schema([pa.field(name, types[type_], nullable=nullable) for name, type_, nullable, _ in
                      _core.columns(table)])


def flows_schema() -> "pa.Schema":
    """The schema of `RunResult.flows`."""
    return table_schema("flows")


def _array(type_: "pa.DataType", columns: _core._ColumnsDict, name: str) -> "pa.Array[Any]":
    """Column `name` of the engine's column dict as an Arrow array over the engine's buffers,
    without copying or per-row objects."""
    import pyarrow as pa

    rows, values, valid = columns["rows"], columns[name], columns.get(f"{name}.valid")
    # The engine's layout (_core.pyi): "rows" an int, a column and its validity bitmap bytes.
    assert isinstance(rows, int) and isinstance(values, bytes) and (valid is None or isinstance(valid, bytes))
    validity = None if valid is None else pa.py_buffer(valid)
    return pa.Array.from_buffers(type_, rows, [validity, pa.py_buffer(values)], null_count=-1)


def _strings(columns: _core._ColumnsDict, name: str) -> "pa.Array[Any]":
    """String column `name`: the engine sends each row's u32 index into `name.names`."""
    import pyarrow as pa

    names = columns[f"{name}.names"]
    assert isinstance(names, list)  # the engine's layout (_core.pyi)
    codes = _array(pa.uint32(), columns, name)
    return pa.DictionaryArray.from_arrays(codes, pa.array(names, pa.string())).dictionary_decode()


def _declared_table(columns: _core._ColumnsDict, schema: "pa.Schema") -> "pa.Table":
    """A table of columns the engine declares (`schema`), over the engine's buffers."""
    import pyarrow as pa

    arrays = [_strings(columns, f.name) if f.type == pa.string() else _array(f.type, columns, f.name) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)
