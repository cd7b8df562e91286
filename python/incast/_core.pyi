"""Type stubs of the native module `incast._core` (crates/incast-py/src/lib.rs).

Private: use the `incast` package. tests/test_stub.py checks these names against the module.
"""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, TypedDict, Union, final

# The summary's keys are public (RunResult.summary), so they are declared once, in the package.
from incast.api import Summary

__all__ = ["ResourceError", "ScenarioError", "Simulation", "check", "columns", "document", "protocols", "read_trace",
           "version"]

_PathLike = Union[str, "os.PathLike[str]"]

class ScenarioError(ValueError):
    """A scenario that cannot be simulated; `str()` is "`path`: message"."""

    path: str
    """The offending key, e.g. `workload[0].size.min`; "" for the whole document."""
    message: str
    """What is wrong with it."""

class ResourceError(MemoryError):
    """A run that needed more memory than it could get, or more rows or flows than `[run]`
    allows once running; `str()` is "`path`: message", or the message when no key is to blame."""

    path: str
    """The key that drove the demand, e.g. `output.queue_sample_interval`; "" if none."""
    message: str
    """What ran out."""

class _ProgressDict(TypedDict):
    sim_time_s: float
    end_time_s: Optional[float]
    events: int
    flows_completed: int
    flows_total: int

class _PartitionDict(TypedDict):
    """How a run across threads would cut the network (crates/incast-sim/src/partition.rs)."""
    parts: int
    lookahead_s: Optional[float]
    cut_links: int
    largest_part_ports: int

# Column dicts: "rows" (int) plus one `bytes` per column holding its values in native byte order;
# a nullable column `c` also has "c.valid", an Arrow validity bitmap. Flows, ports, traces,
# throughput and offers hold the columns `columns(table)` declares: u8, u32, u64 and f64 values as they are,
# bools bit-packed, strings as u32 codes with the distinct strings in "c.names" (list of str).
# Queues: port (u32 codes, "port.names"), then the columns `columns("queues")` declares (host, time_s,
# queue_bytes and what the transports' port processors sample, such as D3's d3_flows; the nullable
# ones +valid).
_ColumnsDict = Dict[str, Union[int, bytes, List[str]]]

_Table = Literal["flows", "ports", "traces", "throughput", "offers", "queues"]
_ColumnType = Literal["u8", "u32", "u64", "f64", "bool", "str"]

class _CaptureDict(TypedDict):
    pcap: bytes
    packets: int
    missed: int

class _ResultsDict(TypedDict):
    flows: _ColumnsDict
    summary: Summary
    queues: _ColumnsDict
    throughput: Optional[_ColumnsDict]
    ports: _ColumnsDict
    capture: Optional[_CaptureDict]
    traces: Optional[_ColumnsDict]
    offers: Optional[_ColumnsDict]
    offers_missed: int

@final
class Simulation:
    """A simulation in progress. Safe to share between threads; `step` releases the GIL."""

    def __new__(
        cls,
        text: str,
        format: Literal["toml", "json"] = "toml",
        base_dir: Optional[_PathLike] = None,
        seed: Optional[int] = None,
        threads: Optional[str] = None,
    ) -> Simulation:
        """Parses a scenario and builds its network; raises ScenarioError naming the bad key, or
        ResourceError if memory runs out. `seed` and `threads` (a count or "auto") override the
        scenario's `seed` and `[run] threads`; ValueError for a `threads` out of range."""
    def threads(self) -> Optional[int]:
        """Threads the run uses (`[run] threads`, at most one per part of the network), or None
        for the one event loop over the whole network (no `[run] threads`, or one part)."""
    def step(self, max_events: int) -> bool:
        """Processes at most `max_events` events without the GIL; True once the run is over.
        Raises ResourceError if memory runs out or the run reaches `run.max_samples`."""
    def trace_flows(self, ids: Sequence[int]) -> None:
        """Traces flows `ids` too, as `[output] trace_flows` would; only before the first
        `step`. Raises ValueError naming an id the run does not have, or once it has started."""
    def progress(self) -> _ProgressDict:
        """Where the run is."""
    def partition(self) -> _PartitionDict:
        """How a run across threads would cut the network: its parts (each switch with the hosts
        it serves; never a link without delay), the least delay between two (how far one part
        may run ahead), the links cut, and the egress ports of the largest part (`[run] threads`
        runs the parts on that many threads)."""
    def take_flows(self) -> _ColumnsDict:
        """The flow rows of the flows that have left the run since the last call (the layout of
        `finish()["flows"]`), in the order they left it; `finish` returns only the rows not
        taken, and its summary counts every flow."""
    def warnings(self) -> List[Tuple[str, str]]:
        """The scenario's warnings (docs/scenario.md, "Warnings"), each once, as (key, message)
        pairs: what `check` returns under "warnings"."""
    def finish(self) -> _ResultsDict:
        """Ends the run and returns its results as columns (the flow rows not taken by
        `take_flows`, in flow id order); the object cannot be used again. Raises ResourceError if
        memory runs out."""

def check(
    text: str, format: Literal["toml", "json"] = "toml", base_dir: Optional[_PathLike] = None
) -> Dict[str, Any]:
    """Parses a scenario without building it; raises ScenarioError naming the bad key. Returns
    the sections in effect: `transport`, each protocol section its flows read (`d2tcp`, `tcppr`,
    `d3`, `pfabric`, `pdq`), `topology`, Poisson `arrivals`, and `check`, the blocks `incast
    check` prints as [heading, keys or None]; `threads` when `[run] threads` is set (the threads
    the run would use, and `parts`, `lookahead_s`, `cut_links` and `largest_part_ports` as
    `Simulation.partition()` gives them); and `warnings`, the scenario's warnings as [key,
    message] pairs (docs/scenario.md, "Warnings")."""

def columns(table: _Table) -> List[Tuple[str, _ColumnType, bool, str]]:
    """The columns the engine declares for a results table, in order, each as (name, type,
    nullable, doc); the one definition of that table's schema (crates/incast-sim/src/results)."""

def document(text: str, format: Literal["toml", "json"] = "toml") -> Any:
    """The engine's parse of a scenario document, before any schema check, as plain Python objects
    (a dict for a table; TOML datetimes as their text); raises ScenarioError on a syntax error."""

class _ProtocolDict(TypedDict):
    name: str
    names: List[str]
    label: str
    transport: str
    sections: List[str]
    keeps_connections: bool
    reacts_to_ecn: bool

def protocols() -> List[_ProtocolDict]:
    """The protocols incast runs, in the registry's order, each with its name, every name a
    scenario accepts, its label, the transport that runs it, the sections that transport reads,
    whether its connections may carry one message after another (`connections = "persistent"`)
    and whether its senders react to ECN marks."""

DEFAULT_MAX_TRACE_BYTES: int
"""`[run] max_trace_bytes` when the scenario does not set it (the limit `read_trace` applies
when given None)."""

def read_trace(written: str, base_dir: Optional[_PathLike] = None, max_bytes: Optional[int] = None) -> bytes:
    """The bytes of a trace file by the engine's rules (inside the directory, a regular file, at
    most `max_bytes`, the default `run.max_trace_bytes` when None); raises ScenarioError."""

def version() -> str:
    """The engine's version."""
