"""Hostile input (issue 12): malformed, impossible and resource-bomb scenarios, traces and dicts.

Each case is one concept: an input, what `incast check` and `incast run` must answer (exit 2 for
the scenario's fault, naming its key in one `incast: error:` line; exit 0 where the input is
legitimately accepted, with nothing on stderr, or with one `incast: warning:` line naming the key
where it runs but does something its file may not mean (issue 39), or where the run stops at its
simulated-time horizon or as stalled by the progress watchdog, with a warning) and what the Python
API must do with the same input (`incast.ScenarioError` whose `.path` is that key, never another
exception; an `incast.ScenarioWarning` at that key, issued and in `RunResult.warnings`, and none
for the other accepted inputs). The cases are data, in one table per group below; trace files,
FIFOs, symlinks and Parquet files are laid out by `lay_out` next to the scenario.

Every case runs in a process of its own with a timeout, the Python API included: an input that
hangs or aborts the process (the failures issue 12 is about) then fails its own test instead of
taking the whole suite down. The processes are forked from one that imported incast already
(`forkserver.py`, `conftest.fork_server`), which spares each case the start of an interpreter.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pytest

from conftest import fork_server

TESTS = Path(__file__).resolve().parent
HOSTILE = TESTS / "hostile"
TIMEOUT_S = 30
"""Wall-time bound of every subprocess. Each legitimate case runs in well under a second; one
that reaches this bound hangs."""

DEFAULT_HORIZON_S = 86400.0
CANARY = "CANARY-0b5e55ed-do-not-echo"
"""Planted in files outside the scenario's directory, in a trace's content and in the
environment of every subprocess: no error message may ever show it."""
FORBIDDEN = ("Traceback", "panicked", "memory allocation", "RUST_BACKTRACE", "core dumped", CANARY)
"""Text that must never appear in any output: a Python traceback, a Rust panic or abort, or the
content of a file the scenario named."""

# ---------------------------------------------------------------------------------------------
# Building scenario text.

Keys = Mapping[str, Optional[str]]
"""A TOML table as `key -> TOML literal text`; None removes a key the default table has."""

STAR: Keys = {"kind": '"star"', "hosts": "4"}
BURST: Keys = {"kind": '"flow-burst"', "senders": "3", "size": '"2KB"'}
TWO_TIER: Keys = {"kind": '"two-tier"', "hosts": None, "racks": "2", "hosts_per_rack": "2"}
TWO_TIER_40: Keys = {"kind": '"two-tier"', "hosts": None, "racks": "4", "hosts_per_rack": "10"}


def _table(header: str, keys: Keys) -> str:
    return header + "\n" + "".join(f"{k} = {v}\n" for k, v in keys.items() if v is not None)


def toml(
    *, seed: Optional[str] = None, topology: Optional[Keys] = None, workloads: Sequence[Keys] = (BURST,), **tables: Keys
) -> str:
    """A scenario: the 4-host star (keys of `topology` changed, added or removed) carrying
    `workloads` (default: 3 senders of 2 KB to host 0), plus the given `[table]`s."""
    text = "" if seed is None else f"seed = {seed}\n"
    text += _table("[topology]", {**STAR, **(topology or {})})
    for name, keys in tables.items():
        text += _table(f"[{name}]", keys)
    for workload in workloads:
        text += _table("[[workload]]", workload)
    return text


def burst(**keys: Optional[str]) -> Keys:
    """The default flow-burst workload with keys changed, added or removed."""
    return {**BURST, **keys}


def flows(*entries: str, **keys: str) -> Keys:
    """A `kind = "flows"` workload of the given inline tables."""
    return {"kind": '"flows"', "flows": "[" + ", ".join(entries) + "]", **keys}


def poisson(**keys: Optional[str]) -> Keys:
    return {"kind": '"poisson"', "rate": "100.0", "stop": '"10ms"', **keys}


def oldi(**keys: Optional[str]) -> Keys:
    return {"kind": '"oldi"', "fan_in": "5", "utilization": "0.1", **keys}


def trace(path: str) -> Keys:
    """A trace workload reading `path` (written as a TOML string; JSON escapes are TOML's)."""
    return {"kind": '"trace"', "path": json.dumps(path)}


def with_trace(path: str, **tables: Keys) -> str:
    return toml(workloads=[trace(path)], **tables)


def doc_json(**extra: Any) -> str:
    """The default scenario as JSON, with top-level keys added or replaced."""
    tree = {
        "topology": {"kind": "star", "hosts": 4},
        "workload": [{"kind": "flow-burst", "senders": 3, "size": "2KB"}],
        **extra,
    }
    return json.dumps(tree)


VALID_TRACE = "src,dst,size_bytes,start_s\n1,0,2000,0.0\n2,0,2000,0.0\n"
VALID_TOML = toml()

# ---------------------------------------------------------------------------------------------
# Files laid out beside a scenario.


@dataclass(frozen=True)
class Fifo:
    """A named pipe (nothing ever writes to it: opening it for reading blocks for ever)."""


@dataclass(frozen=True)
class Directory:
    """A directory where a file is expected."""


@dataclass(frozen=True)
class Symlink:
    """A symbolic link; `@OUT@` in the target is the directory outside the scenario's."""

    target: str


@dataclass(frozen=True)
class Parquet:
    """A Parquet file of these columns (lists of values, types inferred by pyarrow)."""

    columns: Mapping[str, Sequence[Any]]


VALID_PARQUET = Parquet({"src": [1, 2], "dst": [0, 0], "size_bytes": [2000, 2000], "start_s": [0.0, 0.0]})

FileContent = Union[str, bytes, Fifo, Directory, Symlink, Parquet]

# ---------------------------------------------------------------------------------------------
# Cases.


@dataclass(frozen=True)
class Under:
    """A key path at or below `prefix` (`prefix`, `prefix.x`, `prefix[3]`, ...): where a check
    cuts an over-deep or cyclic tree depends on how it counts, but it must be inside this key."""

    prefix: str

    def matches(self, path: str) -> bool:
        return path == self.prefix or path.startswith((self.prefix + ".", self.prefix + "["))


KeySpec = Union[str, Tuple[str, ...], Under]
"""The key an error must name: one path; any of several (where two keys are both at fault and
either is an honest answer); or a subtree. `""` is the whole document (syntax, encoding)."""


def key_matches(spec: KeySpec, path: str) -> bool:
    if isinstance(spec, Under):
        return spec.matches(path)
    if isinstance(spec, tuple):
        return path in spec
    return path == spec


@dataclass(frozen=True)
class Case:
    name: str
    scenario: Union[str, bytes, Directory]
    """The scenario file's content (text is written as UTF-8)."""
    expect: str
    """`error`: exit 2 naming `key`; `ok`: runs to completion, warning of nothing; `warn`: runs to
    completion with one warning, at `key`; `horizon`: runs and stops at its simulated-time horizon
    (exit 0, a warning); `error-or-horizon`: either, consistently; `stalled`: runs and the progress
    watchdog stops it (exit 0, a warning naming `key`, issue 39)."""
    key: Optional[KeySpec] = None
    suffix: str = ".toml"
    files: Tuple[Tuple[str, FileContent], ...] = ()
    """Files laid out in the scenario's directory; `@DIR@` in the scenario text is that
    directory and `@OUT@` a sibling directory outside it, holding `secret.csv` (the canary),
    `flows.csv` and `flows.parquet` (valid traces)."""
    needle: str = ""
    """Further text the error (or warning) line must hold (for errors of the whole document: what
    and where)."""
    unknown_key: bool = False
    """The case is about a key the schema does not have; otherwise an `unknown key` error means
    the case tests nothing (a typo, or a key not implemented yet)."""
    horizon_s: float = DEFAULT_HORIZON_S
    api_error: str = "ScenarioError"
    """The exception the Python API raises: ScenarioError, or OSError for a scenario file that
    cannot be read at all (docs/python.md)."""
    needs: str = ""
    """A path the platform must have (`/dev/zero`, `/proc/self/environ`), or `mkfifo`."""


def error(name: str, scenario: Union[str, bytes, Directory], key: KeySpec, **kw: Any) -> Case:
    return Case(name, scenario, "error", key, **kw)


def stalled(name: str, scenario: str, key: str, **kw: Any) -> Case:
    """A valid run that never moves: stopped as stalled, `key` among the likely keys."""
    return Case(name, scenario, "stalled", key, **kw)


def ok(name: str, scenario: Union[str, bytes], **kw: Any) -> Case:
    return Case(name, scenario, "ok", **kw)


def warn(name: str, scenario: Union[str, bytes], key: str, needle: str = "", **kw: Any) -> Case:
    """A case that runs to completion with one warning, at `key`, holding `needle`."""
    return Case(name, scenario, "warn", key, needle=needle, **kw)


def files(**named: FileContent) -> Tuple[Tuple[str, FileContent], ...]:
    """Files by name; `__` in a keyword stands for `.` (`t__csv` is t.csv)."""
    return tuple((name.replace("__", "."), content) for name, content in named.items())


def ecn(threshold: str) -> Keys:
    """`[switch]` with `ecn_threshold` set to `threshold` (TOML text)."""
    return {"ecn_threshold": threshold}


def csv_rows(*rows: str) -> Tuple[Tuple[str, FileContent], ...]:
    """t.csv: the trace header and these rows."""
    return files(t__csv="src,dst,size_bytes,start_s\n" + "".join(row + "\n" for row in rows))


TYPES = [
    error("hosts-string", toml(topology={"hosts": '"four"'}), "topology.hosts"),
    error("hosts-float", toml(topology={"hosts": "4.0"}), "topology.hosts"),
    error("hosts-bool", toml(topology={"hosts": "true"}), "topology.hosts"),
    error("hosts-array", toml(topology={"hosts": "[4]"}), "topology.hosts"),
    error("hosts-table", toml(topology={"hosts": "{ n = 4 }"}), "topology.hosts"),
    error("kind-integer", toml(topology={"kind": "5"}), "topology.kind"),
    error("topology-string", 'topology = "star"\n' + _table("[[workload]]", BURST), "topology"),
    error("workload-table-not-array", _table("[topology]", STAR) + _table("[workload]", BURST), "workload"),
    error("workload-entry-integer", "workload = [1]\n" + _table("[topology]", STAR), "workload[0]"),
    error("seed-string", toml(seed='"1"'), "seed"),
    error("seed-float", toml(seed="1.5"), "seed"),
    error("senders-string", toml(workloads=[burst(senders='"3"')]), "workload[0].senders"),
    error("senders-float", toml(workloads=[burst(senders="3.5")]), "workload[0].senders"),
    error("size-integer", toml(workloads=[burst(size="2000")]), "workload[0].size"),
    error("size-bool", toml(workloads=[burst(size="true")]), "workload[0].size"),
    error("deadline-number", toml(workloads=[burst(deadline="20")]), "workload[0].deadline"),
    error("worker-hosts-string", toml(workloads=[burst(worker_hosts='"1,2"')]), "workload[0].worker_hosts"),
    error("worker-hosts-mixed", toml(workloads=[burst(worker_hosts='[1, "2"]')]), "workload[0].worker_hosts[1]"),
    error("sack-string", toml(transport={"sack": '"true"'}), "transport.sack"),
    error("sack-integer", toml(transport={"sack": "1"}), "transport.sack"),
    error("buffer-integer", toml(switch={"buffer": "100000"}), "switch.buffer"),
    error("duration-number", toml(run={"duration": "1"}), "run.duration"),
    error("horizon-number", toml(run={"horizon": "86400"}), "run.horizon"),
    error("max-flows-string", toml(run={"max_flows": '"10"'}), "run.max_flows"),
    error("max-flows-float", toml(run={"max_flows": "1e6"}), "run.max_flows"),
    error("max-trace-bytes-string", toml(run={"max_trace_bytes": '"1GiB"'}), "run.max_trace_bytes"),
    error(
        "queue-sample-hosts-integer",
        toml(output={"queue_sample_interval": '"1ms"', "queue_sample_hosts": "0"}),
        "output.queue_sample_hosts",
    ),
    error("flow-entry-string", toml(workloads=[flows('"1->0"')]), "workload[0].flows[0]"),
    error("d3-alpha-string", toml(d3={"alpha": '"0.1"'}), "d3.alpha"),
    error("priority-float", toml(workloads=[burst(priority="0.5")]), "workload[0].priority"),
    error(
        "stop-after-finite-flows-string", toml(run={"stop_after_finite_flows": '"yes"'}), "run.stop_after_finite_flows"
    ),
]

UNITS = [
    error("size-lowercase-kb", toml(workloads=[burst(size='"2kb"')]), "workload[0].size"),
    error("size-kilobits", toml(workloads=[burst(size='"2Kb"')]), "workload[0].size"),
    error("size-unit-only", toml(workloads=[burst(size='"KB"')]), "workload[0].size"),
    error("size-number-only", toml(workloads=[burst(size='"2000"')]), "workload[0].size"),
    error("size-empty", toml(workloads=[burst(size='""')]), "workload[0].size"),
    error("size-fractional-bytes", toml(workloads=[burst(size='"1.5B"')]), "workload[0].size"),
    error("size-hex", toml(workloads=[burst(size='"0x10KB"')]), "workload[0].size"),
    error("size-nan", toml(workloads=[burst(size='"NaNKB"')]), "workload[0].size"),
    error("size-infinite", toml(workloads=[burst(size='"infKB"')]), "workload[0].size"),
    error("size-exponent-overflow", toml(workloads=[burst(size='"1e400KB"')]), "workload[0].size"),
    error("size-above-u64", toml(workloads=[burst(size='"18446744073709551616B"')]), "workload[0].size"),
    error("size-trailing-junk", toml(workloads=[burst(size='"2KB2"')]), "workload[0].size"),
    error("size-fullwidth-digit", toml(workloads=[burst(size='"\uff12KB"')]), "workload[0].size"),
    ok("size-space-before-unit", toml(workloads=[burst(size='"2 KB"')])),
    ok("size-exponent", toml(workloads=[burst(size='"2e3B"')])),
    error("time-hours", toml(workloads=[burst(start='"1h"')]), "workload[0].start"),
    error("time-negative", toml(workloads=[burst(start='"-1ms"')]), "workload[0].start"),
    error("time-1e30s", toml(workloads=[burst(start='"1e30s"')]), "workload[0].start"),
    error("time-nan", toml(topology={"link_delay": '"nans"'}), "topology.link_delay"),
    ok("time-micro-sign", toml(topology={"link_delay": '"20\u00b5s"'})),
    error("rate-per-second-slash", toml(topology={"link_rate": '"1Gb/s"'}), "topology.link_rate"),
    error("rate-rounds-to-zero", toml(topology={"link_rate": '"0.4bps"'}), "topology.link_rate"),
    error("rate-negative", toml(topology={"link_rate": '"-1Gbps"'}), "topology.link_rate"),
    ok("rate-lowercase", toml(topology={"link_rate": '"1gbps"'})),
    error("rto-rounds-to-zero", toml(transport={"min_rto": '"0.4ps"'}), "transport.min_rto"),
    error("horizon-without-unit", toml(run={"horizon": '"86400"'}), "run.horizon"),
    error("horizon-days", toml(run={"horizon": '"1d"'}), "run.horizon"),
    error("buffer-kilobits", toml(switch={"buffer": '"100Kb"'}), "switch.buffer"),
]

RANGES = [
    error("hosts-zero", toml(topology={"hosts": "0"}), "topology.hosts"),
    error("hosts-negative", toml(topology={"hosts": "-1"}), "topology.hosts"),
    error("hosts-above-2-pow-20", toml(topology={"hosts": "1048577"}), "topology.hosts"),
    error("hosts-i64-max", toml(topology={"hosts": "9223372036854775807"}), "topology.hosts"),
    error("fat-tree-k-zero", toml(topology={"kind": '"fat-tree"', "hosts": None, "k": "0"}), "topology.k"),
    error("fat-tree-k-162", toml(topology={"kind": '"fat-tree"', "hosts": None, "k": "162"}), "topology.k"),
    error("two-tier-zero-racks", toml(topology={**TWO_TIER, "racks": "0"}), "topology.racks"),
    error(
        "two-tier-two-million-hosts",
        toml(topology={**TWO_TIER, "racks": "2000", "hosts_per_rack": "1000"}),
        ("topology", "topology.racks", "topology.hosts_per_rack"),
    ),
    error("mss-9001", toml(transport={"mss": "9001"}), "transport.mss"),
    error("initial-window-zero", toml(transport={"initial_window": "0"}), "transport.initial_window"),
    error("dctcp-g-above-one", toml(transport={"dctcp_g": "1.5"}), "transport.dctcp_g"),
    error("dctcp-initial-alpha-two", toml(transport={"dctcp_initial_alpha": "2.0"}), "transport.dctcp_initial_alpha"),
    error("dt-alpha-nan", toml(switch={"shared_buffer": '"4MB"', "dt_alpha": "nan"}), "switch.dt_alpha"),
    error("dt-alpha-inf", toml(switch={"shared_buffer": '"4MB"', "dt_alpha": "inf"}), "switch.dt_alpha"),
    error("ecn-threshold-negative", toml(switch={"ecn_threshold": "-1"}), "switch.ecn_threshold"),
    error("priority-classes-zero", toml(switch={"priority_classes": "0"}), "switch.priority_classes"),
    error("senders-zero", toml(workloads=[burst(senders="0")]), "workload[0].senders"),
    # Senders reuse the workers, so their count is bounded by flows (`run.max_flows`), not hosts.
    error("senders-above-max-flows", toml(workloads=[burst(senders="10000001")]), "workload[0].senders"),
    error("rounds-zero", toml(workloads=[burst(rounds="0")]), "workload[0].rounds"),
    error("rounds-above-u32", toml(workloads=[burst(rounds="4294967296")]), "workload[0].rounds"),
    error("query-rate-zero", toml(workloads=[burst(query_rate="0.0")]), "workload[0].query_rate"),
    error("query-rate-negative", toml(workloads=[burst(query_rate="-5.0")]), "workload[0].query_rate"),
    error("query-rate-nan", toml(workloads=[burst(query_rate="nan")]), "workload[0].query_rate"),
    error("query-rate-inf", toml(workloads=[burst(query_rate="inf")]), "workload[0].query_rate"),
    error("query-rate-string", toml(workloads=[burst(query_rate='"10/s"')]), "workload[0].query_rate"),
    error("query-interval-zero", toml(workloads=[burst(query_interval='"0ms"')]), "workload[0].query_interval"),
    error("query-interval-negative", toml(workloads=[burst(query_interval='"-80ms"')]), "workload[0].query_interval"),
    error("query-interval-number", toml(workloads=[burst(query_interval="80")]), "workload[0].query_interval"),
    error("poisson-rate-zero", toml(workloads=[poisson(rate="0.0")]), "workload[0].rate"),
    error("poisson-rate-negative", toml(workloads=[poisson(rate="-5.0")]), "workload[0].rate"),
    error("poisson-rate-nan", toml(workloads=[poisson(rate="nan")]), "workload[0].rate"),
    error("poisson-rate-inf", toml(workloads=[poisson(rate="inf")]), "workload[0].rate"),
    error(
        "cdf-probability-above-one",
        toml(workloads=[burst(size='{ dist = "cdf", points = [["1KB", 0.5], ["9KB", 1.5]] }')]),
        "workload[0].size.points[1][1]",
    ),
    error(
        "cdf-sizes-falling",
        toml(workloads=[burst(size='{ dist = "cdf", points = [["9KB", 0.5], ["1KB", 1.0]] }')]),
        "workload[0].size.points[1][0]",
    ),
    error("cdf-no-points", toml(workloads=[burst(size='{ dist = "cdf", points = [] }')]), "workload[0].size.points"),
    error(
        "deadline-min-above-max",
        toml(workloads=[burst(deadline='{ dist = "uniform", min = "30ms", max = "10ms" }')]),
        "workload[0].deadline.min",
    ),
    error("seed-above-u64-json", doc_json(seed=18446744073709551616), "seed", suffix=".json"),
    ok("seed-u64-max-json", doc_json(seed=18446744073709551615), suffix=".json"),
    error("seed-above-i64-toml", toml(seed="99999999999999999999"), "seed"),
]

TOPOLOGY = [
    error("aggregator-is-host-count", toml(workloads=[burst(aggregator="4")]), "workload[0].aggregator"),
    error("aggregator-negative", toml(workloads=[burst(aggregator="-1")]), "workload[0].aggregator"),
    error("workers-only-aggregator", toml(workloads=[burst(worker_hosts="[0]")]), "workload[0].worker_hosts[0]"),
    error("worker-out-of-range", toml(workloads=[burst(worker_hosts="[1, 99]")]), "workload[0].worker_hosts[1]"),
    error("flow-to-itself", toml(workloads=[flows('{ src = 1, dst = 1, size = "1KB" }')]), "workload[0].flows[0].dst"),
    error(
        "flow-host-above-u32",
        toml(workloads=[flows('{ src = 1, dst = 4294967296, size = "1KB" }')]),
        "workload[0].flows[0].dst",
    ),
    error(
        "long-pair-out-of-range",
        toml(workloads=[{"kind": '"long-flows"', "pairs": "[[1, 9]]"}], run={"duration": '"10ms"'}),
        "workload[0].pairs[0][1]",
    ),
    error("poisson-one-host", toml(workloads=[poisson(hosts="[1]")]), "workload[0].hosts"),
    error(
        "poisson-no-receiver",
        toml(workloads=[poisson(hosts="[1, 2]", destinations="[1]")]),
        "workload[0].destinations",
    ),
    error(
        "queue-sample-host-out-of-range",
        toml(output={"queue_sample_interval": '"1ms"', "queue_sample_hosts": "[99]"}),
        "output.queue_sample_hosts[0]",
    ),
    error("d3-testbed-with-hosts", toml(topology={"kind": '"d3-testbed"', "hosts": "14"}), "topology.hosts"),
    error("fabric-rate-on-star", toml(topology={"fabric_rate": '"10Gbps"'}), "topology.fabric_rate"),
    error("link-delay-above-horizon", toml(topology={"link_delay": '"90000s"'}), "topology.link_delay"),
    error(
        "link-too-slow-for-horizon",
        toml(topology={"link_rate": '"1bps"'}, run={"horizon": '"1000s"'}),
        "topology.link_rate",
    ),
    error(
        "fabric-too-slow-for-horizon",
        toml(topology={**TWO_TIER, "fabric_rate": '"1bps"'}, run={"horizon": '"1000s"'}),
        "topology.fabric_rate",
    ),
    # Issue 12: "link_rate = 1bps reports every flow completed at 18446744 s". A full packet
    # serializes in 12 000 s, within the default horizon, so the run may go on; 60 KB of
    # responses need about 500 000 s, so if it runs it must stop at the horizon.
    Case(
        "link-rate-1bps",
        toml(topology={"link_rate": '"1bps"'}, workloads=[burst(size='"20KB"')]),
        "error-or-horizon",
        "topology.link_rate",
    ),
]

WORKLOAD = [
    error("unknown-kind", toml(workloads=[{"kind": '"incast"'}]), "workload[0].kind"),
    error("key-of-other-kind", toml(workloads=[burst(rate="100.0")]), "workload[0].rate", unknown_key=True),
    error("flows-empty", toml(workloads=[flows()]), "workload[0].flows"),
    error(
        "flow-size-and-size-bytes",
        toml(workloads=[flows('{ src = 1, dst = 0, size = "1KB", size_bytes = 1000 }')]),
        ("workload[0].flows[0].size", "workload[0].flows[0].size_bytes"),
    ),
    error(
        "flow-size-bytes-zero",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 0 }")]),
        "workload[0].flows[0].size_bytes",
    ),
    error(
        "flow-size-bytes-negative",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = -1 }")]),
        "workload[0].flows[0].size_bytes",
    ),
    error(
        "flow-start-negative",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, start_s = -1.0 }")]),
        "workload[0].flows[0].start_s",
    ),
    error(
        "flow-start-nan",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, start_s = nan }")]),
        "workload[0].flows[0].start_s",
    ),
    # Issue 12: a flow starting at 18446744.0 s (2^64 ps) made the engine spin.
    error(
        "flow-start-18446744s",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, start_s = 18446744.0 }")]),
        "workload[0].flows[0].start_s",
    ),
    error(
        "flow-start-at-horizon",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, start_s = 86400.0 }")]),
        "workload[0].flows[0].start_s",
    ),
    error(
        "flow-start-past-set-horizon",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, start_s = 2.0 }")], run={"horizon": '"1s"'}),
        "workload[0].flows[0].start_s",
    ),
    error(
        "flow-start-string-past-horizon",
        toml(workloads=[flows('{ src = 1, dst = 0, size_bytes = 1000, start = "100000s" }')]),
        "workload[0].flows[0].start",
    ),
    error("burst-start-past-horizon", toml(workloads=[burst(start='"100000s"')]), "workload[0].start"),
    error("long-lived-flow-without-duration", toml(workloads=[flows("{ src = 1, dst = 0 }")]), "run.duration"),
    error(
        "deadline-on-long-lived-flow",
        toml(workloads=[flows('{ src = 1, dst = 0, deadline = "10ms" }')], run={"duration": '"10ms"'}),
        "workload[0].flows[0].deadline",
    ),
    error(
        "flow-deadline-zero",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, deadline_s = 0.0 }")]),
        "workload[0].flows[0].deadline_s",
    ),
    error(
        "round-gap-and-query-rate",
        toml(workloads=[burst(round_gap='"1ms"', query_rate="10.0")]),
        "workload[0].query_rate",
        needle="give at most one of round_gap, query_rate and query_interval",
    ),
    error(
        "round-gap-and-query-interval",
        toml(workloads=[burst(round_gap='"1ms"', query_interval='"80ms"')]),
        "workload[0].query_interval",
    ),
    error(
        "query-rate-and-query-interval",
        toml(workloads=[burst(query_rate="10.0", query_interval='"80ms"')]),
        "workload[0].query_interval",
    ),
    error("query-interval-on-poisson", toml(workloads=[poisson(query_interval='"1ms"')]), "workload[0].query_interval"),
    ok("open-loop-poisson-rounds", toml(workloads=[burst(rounds="5", query_rate="1000.0")])),
    ok("open-loop-periodic-rounds", toml(workloads=[burst(rounds="5", query_interval='"80ms"')])),
    error("poisson-without-stop", toml(workloads=[poisson(stop=None)]), "workload[0].stop"),
    error(
        "oldi-fan-in-zero",
        toml(topology=TWO_TIER_40, workloads=[oldi(fan_in="0")], run={"duration": '"100ms"'}),
        "workload[0].fan_in",
    ),
    error("protocol-unknown", toml(workloads=[burst(protocol='"quic"')]), "workload[0].protocol"),
]

TRANSPORT = [
    # Issue 12: a receive window of 1 B silently ran as one segment.
    error("receive-window-1B", toml(transport={"receive_window": '"1B"'}), "transport.receive_window"),
    error("receive-window-zero", toml(transport={"receive_window": '"0B"'}), "transport.receive_window"),
    error("receive-window-below-mss", toml(transport={"receive_window": '"1447B"'}), "transport.receive_window"),
    error(
        "receive-window-below-ns3-mss",
        toml(transport={"stack": '"ns3"', "receive_window": '"535B"'}),
        "transport.receive_window",
    ),
    ok("receive-window-one-mss", toml(transport={"receive_window": '"1448B"'})),
    error("min-rto-zero", toml(transport={"min_rto": '"0s"'}), "transport.min_rto"),
    error("max-rto-1e6s", toml(transport={"max_rto": '"1e6s"'}), "transport.max_rto"),
    error(
        "max-rto-above-set-horizon",
        toml(transport={"max_rto": '"2000s"'}, run={"horizon": '"1000s"'}),
        "transport.max_rto",
    ),
    error("initial-rto-above-horizon", toml(transport={"initial_rto": '"100000s"'}), "transport.initial_rto"),
    error(
        "delayed-ack-timeout-zero",
        toml(transport={"delayed_ack": '{ segments = 2, timeout = "0s" }'}),
        "transport.delayed_ack.timeout",
    ),
    error(
        "delayed-ack-timeout-above-horizon",
        toml(transport={"delayed_ack": '{ segments = 2, timeout = "100000s" }'}),
        "transport.delayed_ack.timeout",
    ),
    error("clock-granularity-zero", toml(transport={"clock_granularity": '"0s"'}), "transport.clock_granularity"),
    error(
        "clock-granularity-above-horizon",
        toml(transport={"clock_granularity": '"100000s"'}),
        "transport.clock_granularity",
    ),
    error("initial-ssthresh-zero", toml(transport={"initial_ssthresh": '"0B"'}), "transport.initial_ssthresh"),
    error("dupack-threshold-zero", toml(transport={"dupack_threshold": "0"}), "transport.dupack_threshold"),
]

SWITCH = [
    # Issue 12: a buffer smaller than one packet passed `check` and `run` never ended.
    error("buffer-100B", toml(switch={"buffer": '"100B"'}), "switch.buffer"),
    # Issue 12's second hang; both keys are at fault under the default horizon (1e6 s > 86400 s).
    error(
        "buffer-100B-max-rto-1e6s",
        toml(switch={"buffer": '"100B"'}, transport={"max_rto": '"1e6s"'}),
        ("switch.buffer", "transport.max_rto"),
    ),
    error(
        "buffer-100B-max-rto-1e6s-long-horizon",
        toml(switch={"buffer": '"100B"'}, transport={"max_rto": '"1e6s"'}, run={"horizon": '"10000000s"'}),
        "switch.buffer",
    ),
    error("buffer-one-byte-short", toml(switch={"buffer": '"1499B"'}), "switch.buffer"),
    ok("buffer-one-packet", toml(switch={"buffer": '"1500B"'})),
    error(
        "buffer-below-d3-testbed-packet",
        toml(transport={"stack": '"d3-testbed"'}, switch={"buffer": '"1499B"'}),
        "switch.buffer",
    ),
    error("buffer-below-jumbo-packet", toml(transport={"mss": "9000"}, switch={"buffer": '"9KB"'}), "switch.buffer"),
    error("buffer-zero-packets", toml(switch={"buffer": '"0pkts"'}), "switch.buffer"),
    error("shared-buffer-100B", toml(switch={"shared_buffer": '"100B"'}), "switch.shared_buffer"),
    error("core-buffer-100B", toml(topology=TWO_TIER, switch={"core_buffer": '"100B"'}), "switch.core_buffer"),
    error(
        "core-shared-buffer-1KB",
        toml(topology=TWO_TIER, switch={"core_shared_buffer": '"1KB"'}),
        "switch.core_shared_buffer",
    ),
]

PROTOCOL_SECTIONS = [
    error("d3-control-interval-above-horizon", toml(d3={"control_interval": '"100000s"'}), "d3.control_interval"),
    error("d3-alpha-nan", toml(d3={"alpha": "nan"}), "d3.alpha"),
    error("d3-beta-negative", toml(d3={"beta": "-1.0"}), "d3.beta"),
    error("d3-base-rate-number", toml(d3={"base_rate": "5"}), "d3.base_rate"),
    error("d3-base-grant-integer", toml(d3={"base_grant": "1"}), "d3.base_grant"),
    error("d3-capacity-max-nan", toml(d3={"capacity_max": "nan"}), "d3.capacity_max"),
    error("d3-capacity-min-inf", toml(d3={"capacity_min": "inf"}), "d3.capacity_min"),
    error("d3-controller-integer", toml(d3={"controller": "1"}), "d3.controller"),
    error("d2tcp-d-cap-inf", toml(d2tcp={"d_cap": "inf"}), "d2tcp.d_cap"),
    error("d2tcp-g-above-one", toml(d2tcp={"g": "1.5"}), "d2tcp.g"),
    error("d2tcp-initial-alpha-negative", toml(d2tcp={"initial_alpha": "-0.1"}), "d2tcp.initial_alpha"),
    error("tcppr-no-thresholds", toml(tcppr={"thresholds": "[]"}), "tcppr.thresholds"),
    error(
        "tcppr-eight-thresholds",
        toml(tcppr={"thresholds": "[" + ", ".join(f'"{i}ms"' for i in range(1, 9)) + "]"}),
        "tcppr.thresholds",
    ),
    # Issue 41: a threshold per link rate. The two-tier network here has 1 Gbps host links and
    # 2 Gbps ToR uplinks; every rate needs an entry.
    error(
        "ecn-table-missing-a-rate",
        toml(topology=TWO_TIER, switch=ecn('{ "1Gbps" = "30KB" }')),
        "switch.ecn_threshold",
        needle="has no entry for 2Gbps, the rate of the switch ports of the tor-fabric links",
    ),
    ok("ecn-table-every-rate", toml(topology=TWO_TIER, switch=ecn('{ "1Gbps" = "30KB", "2000Mbps" = 40 }'))),
    ok("ecn-scaled", toml(topology=TWO_TIER, switch=ecn('"scaled"'))),
    error("ecn-scaled-typo", toml(switch=ecn('"scale"')), "switch.ecn_threshold"),
    error("ecn-table-empty", toml(switch=ecn("{}")), "switch.ecn_threshold"),
    error("ecn-table-key-not-a-rate", toml(switch=ecn('{ "fast" = 20 }')), "switch.ecn_threshold"),
    error("ecn-table-key-huge-rate", toml(switch=ecn('{ "1e30Gbps" = 20 }')), "switch.ecn_threshold"),
    error("ecn-table-same-rate-twice", toml(switch=ecn('{ "1Gbps" = 2, "1000Mbps" = 3 }')), "switch.ecn_threshold"),
    error("ecn-table-nested", toml(switch=ecn('{ "1Gbps" = { "1Gbps" = 2 } }')), Under("switch.ecn_threshold")),
    error("ecn-table-negative-entry", toml(switch=ecn('{ "1Gbps" = -2 }')), Under("switch.ecn_threshold")),
    error("ecn-table-list-entry", toml(switch=ecn('{ "1Gbps" = [2] }')), Under("switch.ecn_threshold")),
]

D3 = {"protocol": '"d3"'}
PFABRIC = {"protocol": '"pfabric"'}
HOMA = {"protocol": '"homa"'}

# Issue 39, "never hang or mislead": settings the docs allowed made runs that never end and never
# said why. Timers faster than a packet and capacities that grant nothing are refused with the
# bound; what still cannot move is stopped by the progress watchdog ([run] stall_after).
D3_STARVED = {"capacity_min": "0.01", "capacity_max": "0.01"}
WATCHDOG = [
    # 40 M timer events per 20 us simulated.
    error("pfabric-rto-1ps", toml(transport=PFABRIC, pfabric={"rto": '"1ps"'}), "pfabric.rto", needle="12us"),
    error("pfabric-rto-just-below-a-packet", toml(transport=PFABRIC, pfabric={"rto": '"11999ns"'}), "pfabric.rto"),
    # At the bound the timer fires many times per round trip (500 us here) and the flows still
    # finish: nothing to stop.
    ok("pfabric-rto-at-one-packet", toml(transport=PFABRIC, pfabric={"rto": '"12us"'})),
    # pFabric's own 45 us is shorter than a packet at 100 Mbps (120 us).
    error(
        "pfabric-default-rto-at-100mbps",
        toml(topology={"link_rate": '"100Mbps"'}, transport=PFABRIC),
        "pfabric.rto",
    ),
    error("d3-control-interval-1ps", toml(transport=D3, d3={"control_interval": '"1ps"'}), "d3.control_interval"),
    # A cap below one unit of the header's field (1 MB/s at 1 Gbps): only the base grant.
    error(
        "d3-capacity-below-one-unit",
        toml(transport=D3, d3={"capacity_min": "0.0", "capacity_max": "0.001"}),
        "d3.capacity_max",
        needle="give at least 0.008",
    ),
    error("d3-base-rate-above-every-grant", toml(transport=D3, d3={"base_rate": '"3Gbps"'}), "d3.base_rate"),
    # Threads on a network of two switches: a closed loop's next round starts where the last
    # response ends, in every part at once; with a gap below the links' delay between parts it
    # could start inside a round already run (check refuses it as the run does).
    error(
        "threads-closed-loop-gap-below-lookahead",
        toml(topology=TWO_TIER, run={"threads": "2"}, workloads=(burst(rounds="3"),)),
        "workload[0].round_gap",
        needle="at least the least delay of a link between parts",
    ),
    ok(
        "threads-closed-loop-gap-of-the-lookahead",
        toml(topology=TWO_TIER, run={"threads": "2"}, workloads=(burst(rounds="3", round_gap='"20us"'),)),
    ),
    warn(
        "threads-closed-loop-on-a-star",
        toml(run={"threads": "2"}, workloads=(burst(rounds="3"),)),
        "run.threads",
        "one part",
    ),
    # Links without delay join switches into one part: the run is the one loop, and says so.
    warn(
        "threads-fat-tree-without-delays",
        toml(topology={"kind": '"fat-tree"', "hosts": None, "k": "4", "link_delay": '"0s"'}, run={"threads": "2"}),
        "run.threads",
        "links without delay join this network's 20 switches into one part",
    ),
    # Without ACKs a Homa receiver tells its sender of delivery with no packet, which cannot
    # cross between parts: refused naming `homa.ack`; with them, the run goes on threads.
    error(
        "threads-homa-without-acks",
        toml(topology=TWO_TIER, run={"threads": "2"}, transport=HOMA, switch={"priority_classes": "8"}),
        "homa.ack",
        needle="Homa flows without ACKs",
    ),
    ok(
        "threads-homa-with-acks",
        toml(
            topology=TWO_TIER,
            run={"threads": "2"},
            transport=HOMA,
            switch={"priority_classes": "8"},
            homa={"ack": "true"},
        ),
    ),
    # 1.25 units: one flow alone could be granted one, three share less than one each, so every
    # grant truncates to the base grant and no flow ever sends a byte (the default horizon was
    # hours of wall time of it).
    stalled(
        "d3-capacity-three-flows-below-a-unit-each",
        toml(transport=D3, d3=D3_STARVED),
        "d3.capacity_max",
    ),
    stalled(
        "d3-capacity-stalled-sooner",
        toml(transport=D3, d3=D3_STARVED, run={"stall_after": '"100ms"'}),
        "d3.capacity_max",
    ),
    Case(
        "d3-capacity-stalled-watchdog-off",
        toml(transport=D3, d3=D3_STARVED, run={"stall_after": '"off"', "horizon": '"20s"'}),
        "horizon",
        horizon_s=20.0,
    ),
    # An idle gap is no stall: nothing runs for 30 s, three times the watchdog's span.
    ok(
        "flows-30s-apart",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 20000, start_s = 0.0 }",
                              "{ src = 2, dst = 0, size_bytes = 20000, start_s = 30.0 }")]),
    ),
    ok("open-loop-rounds-20s-apart", toml(workloads=[burst(rounds="3", query_interval='"20s"')])),
    ok("stall-after-off", toml(run={"stall_after": '"off"'})),
    ok("stall-after-auto", toml(run={"stall_after": '"auto"'})),
    error("stall-after-zero", toml(run={"stall_after": '"0s"'}), "run.stall_after"),
    error("stall-after-past-horizon", toml(run={"stall_after": '"2s"', "horizon": '"1s"'}), "run.stall_after"),
    error("stall-after-word", toml(run={"stall_after": '"never"'}), "run.stall_after"),
    error("stall-after-number", toml(run={"stall_after": "10"}), "run.stall_after"),
]

OUTPUT = [
    # Issue 12: 10^12 queue samples on a 1 s run aborted the process.
    error(
        "queue-sample-interval-1ps",
        toml(output={"queue_sample_interval": '"1ps"', "queue_sample_hosts": "[0]"}, run={"duration": '"1s"'}),
        "output.queue_sample_interval",
    ),
    # Issue 12: throughput samples every ns. Without a duration nothing predicts the run's length:
    # this burst lasts some 100 us (3 x 10^5 rows), so it runs; a longer one stops with a
    # ResourceError at `run.max_samples` rows (tests/test_limits.py).
    ok("flow-throughput-interval-1ns", toml(output={"flow_throughput_interval": '"1ns"'})),
    error(
        "flow-throughput-interval-1ns-1s-run",
        toml(output={"flow_throughput_interval": '"1ns"'}, run={"duration": '"1s"'}),
        "output.flow_throughput_interval",
    ),
    error(
        "queue-sample-interval-zero",
        toml(output={"queue_sample_interval": '"0s"', "queue_sample_hosts": "[0]"}),
        "output.queue_sample_interval",
    ),
    error(
        "queue-sample-interval-above-horizon",
        toml(output={"queue_sample_interval": '"100000s"', "queue_sample_hosts": "[0]"}),
        "output.queue_sample_interval",
    ),
    error(
        "flow-throughput-interval-zero",
        toml(output={"flow_throughput_interval": '"0s"'}),
        "output.flow_throughput_interval",
    ),
    error(
        "queue-sample-hosts-empty",
        toml(output={"queue_sample_interval": '"1ms"', "queue_sample_hosts": "[]"}),
        "output.queue_sample_hosts",
    ),
    error(
        "queue-samples-above-lowered-limit",
        toml(
            output={"queue_sample_interval": '"1ms"', "queue_sample_hosts": "[0]"},
            run={"duration": '"1s"', "max_samples": "100"},
        ),
        "output.queue_sample_interval",
    ),
    ok(
        "queue-samples-within-lowered-limit",
        toml(
            output={"queue_sample_interval": '"1ms"', "queue_sample_hosts": "[0]"},
            run={"duration": '"10ms"', "max_samples": "1000"},
        ),
    ),
]

RUN_LIMITS = [
    # Issue 12: 10^18 Poisson arrivals per second aborted the process.
    error("poisson-rate-1e18", toml(workloads=[poisson(rate="1e18", stop='"1s"')]), "workload[0].rate"),
    error("poisson-rate-1e8-for-1s", toml(workloads=[poisson(rate="1e8", stop='"1s"')]), "workload[0].rate"),
    error(
        "poisson-above-lowered-limit",
        toml(workloads=[poisson(rate="100000.0", stop='"1s"')], run={"max_flows": "1000"}),
        "workload[0].rate",
    ),
    ok(
        "poisson-within-lowered-limit",
        toml(workloads=[poisson(rate="1000.0", stop='"10ms"')], run={"max_flows": "100"}),
    ),
    # Issue 12: a million hosts x a million senders aborted the process. With the default limits
    # that is 10^6 flows (allowed), so the limit is lowered, and raised by rounds.
    error(
        "million-hosts-million-senders",
        toml(topology={"hosts": "1000000"}, workloads=[burst(senders="1000000")], run={"max_flows": "100000"}),
        "workload[0].senders",
    ),
    error(
        "million-hosts-million-senders-ten-rounds",
        toml(topology={"hosts": "1048576"}, workloads=[burst(senders="1048576", rounds="10")]),
        ("workload[0].senders", "workload[0].rounds"),
    ),
    error(
        "rounds-u32-max",
        toml(workloads=[burst(rounds="4294967295")]),
        ("workload[0].rounds", "workload[0].senders"),
    ),
    error(
        "explicit-flows-above-lowered-limit",
        toml(
            workloads=[flows(*["{ src = 1, dst = 0, size_bytes = 1000 }"] * 3)],
            run={"max_flows": "2"},
        ),
        "workload[0].flows",
    ),
    error(
        "oldi-query-rate-1e15",
        toml(topology=TWO_TIER_40, workloads=[oldi(utilization=None, query_rate="1e15")], run={"duration": '"1s"'}),
        "workload[0].query_rate",
    ),
    error("hosts-above-lowered-limit", toml(topology={"hosts": "100"}, run={"max_hosts": "50"}), "topology.hosts"),
    error(
        "fat-tree-above-lowered-limit",
        toml(topology={"kind": '"fat-tree"', "hosts": None, "k": "20"}, run={"max_hosts": "1000"}),
        "topology.k",
    ),
    error("max-flows-zero", toml(run={"max_flows": "0"}), "run.max_flows"),
    error("max-flows-negative", toml(run={"max_flows": "-1"}), "run.max_flows"),
    error("max-hosts-zero", toml(run={"max_hosts": "0"}), "run.max_hosts"),
    error("max-samples-zero", toml(run={"max_samples": "0"}), "run.max_samples"),
    error("max-trace-bytes-zero", toml(run={"max_trace_bytes": "0"}), "run.max_trace_bytes"),
    error(
        "trace-rows-above-lowered-limit",
        with_trace("flows.csv", run={"max_flows": "1"}),
        "workload[0].path",
        files=files(flows__csv=VALID_TRACE),
    ),
]

# Issue 39: graphs deeper than the engine counts, and networks whose memory passes
# `run.max_network_bytes` (estimated before the run; nothing here is built that large).
GRAPH: Keys = {"kind": '"graph"', "hosts": None, "file": '"net.graph"'}
ONE_FLOW = flows('{ src = 0, dst = 1, size = "10KB" }')
FAT_TREE_160: Keys = {"kind": '"fat-tree"', "hosts": None, "k": "160"}
MILLION_SPINES: Keys = {"kind": '"leaf-spine"', "hosts": None, "racks": "2", "hosts_per_rack": "2", "spines": "1000000"}


def chain(switches: int, host_every: int = 0) -> str:
    """A graph file: a line of `switches` switches, hosts a and b on the first, and one more
    host on every `host_every`-th switch (none when 0)."""
    names = [f"s{i}" for i in range(switches)]
    lines = ["switch " + " ".join(names), "host a b", "link a s0 1Gbps 1us", "link b s0 1Gbps 1us"]
    lines += [f"link s{i} s{i + 1} 1Gbps 1us" for i in range(switches - 1)]
    for i in range(host_every, switches, host_every or switches):
        lines += [f"host x{i}", f"link x{i} s{i} 1Gbps 1us"]
    return "\n".join(lines) + "\n"


NETWORK = [
    # Issue 39: tiers were a u8 that saturated and queued the switch again (2 GB, then an abort).
    error(
        "graph-switch-299-hops-above-a-host",
        toml(topology=GRAPH, workloads=[ONE_FLOW]),
        "topology.file",
        files=files(net__graph=chain(300)),
        needle='switch "s299" is 299 hops from the nearest switch with a host; at most 254 are supported',
    ),
    ok(
        "graph-switch-254-hops-above-a-host",
        toml(topology=GRAPH, workloads=[ONE_FLOW]),
        files=files(net__graph=chain(255)),
    ),
    # Routing distances and route lengths are 16-bit: a line of 70 000 switches wrapped them (16 GB
    # and no end). Hosts every 100 switches keep the tiers low; the reach from host 0 is the bound.
    error(
        "graph-switch-1100-hops-from-host-0",
        toml(topology=GRAPH, workloads=[ONE_FLOW]),
        "topology.file",
        files=files(net__graph=chain(1101, host_every=100)),
        needle='switch "s1100" is 1100 hops from host "a"\'s switch; at most 1023 are supported',
    ),
    # A route across 1000 switches (1001 ports) runs.
    ok(
        "graph-route-across-1000-switches",
        toml(topology=GRAPH, workloads=[flows('{ src = 0, dst = 10, size = "10KB" }')]),
        files=files(net__graph=chain(1001, host_every=100)),
    ),
    # Issue 39: k = 160 needed 4.1 GB with no estimate. A flow from every host needs a routing
    # table per edge switch besides: about 5.3 GB, above the default 4 GiB.
    error(
        "fat-tree-k160-every-host-sending",
        toml(topology=FAT_TREE_160, workloads=[burst(senders="1023999")]),
        "topology.k",
        needle="above the limit of 4294967296 bytes (`run.max_network_bytes`; raise it to run anyway)",
    ),
    error(
        "fat-tree-k160-above-lowered-network-limit",
        toml(topology=FAT_TREE_160, run={"max_network_bytes": "1000000000"}),
        "topology.k",
        needle="the network needs about 4.3 GB (6144000 ports",
    ),
    # Issue 39: a million spines were accepted with no estimate (2.5 GB).
    error(
        "leaf-spine-million-spines-four-racks",
        toml(topology={**MILLION_SPINES, "racks": "4"}),
        "topology.spines",
        needle="(8000016 ports, 1000004 switches and 8 hosts",
    ),
    error(
        "leaf-spine-million-spines-above-lowered-limit",
        toml(topology=MILLION_SPINES, workloads=[ONE_FLOW], run={"max_network_bytes": "2000000000"}),
        "topology.spines",
    ),
    error(
        "star-above-lowered-network-limit",
        toml(topology={"hosts": "1000"}, run={"max_network_bytes": "1000000"}),
        "topology.hosts",
    ),
    error(
        "two-tier-above-lowered-network-limit",
        toml(topology={**TWO_TIER, "racks": "2000"}, run={"max_network_bytes": "10000000"}),
        "topology.racks",
    ),
    error(
        "graph-above-lowered-network-limit",
        toml(topology=GRAPH, workloads=[ONE_FLOW], run={"max_network_bytes": "1000"}),
        "topology.file",
        files=files(net__graph=chain(3)),
    ),
    # Routes and events of 10^8 flows (7.2 GB) on four hosts: the workload's key is named.
    error(
        "flows-routes-above-network-limit",
        toml(workloads=[poisson(rate="1e8", stop='"1s"')], run={"max_flows": "200000000"}),
        "workload[0].rate",
        needle="routes and events of 100000000 flows",
    ),
    ok("within-raised-network-limit", toml(run={"max_network_bytes": "100000000000"})),
    error("max-network-bytes-zero", toml(run={"max_network_bytes": "0"}), "run.max_network_bytes"),
    error("max-network-bytes-negative", toml(run={"max_network_bytes": "-1"}), "run.max_network_bytes"),
    error("max-network-bytes-string", toml(run={"max_network_bytes": '"4GiB"'}), "run.max_network_bytes"),
]

HORIZON = [
    error("horizon-zero", toml(run={"horizon": '"0s"'}), "run.horizon"),
    error("horizon-negative", toml(run={"horizon": '"-1s"'}), "run.horizon"),
    error("horizon-above-1e7s", toml(run={"horizon": '"10000001s"'}), "run.horizon"),
    error("horizon-1e30s", toml(run={"horizon": '"1e30s"'}), "run.horizon"),
    error("duration-above-set-horizon", toml(run={"horizon": '"1s"', "duration": '"2s"'}), "run.duration"),
    error("duration-above-default-horizon", toml(run={"duration": '"100000s"'}), "run.duration"),
    ok("horizon-at-its-maximum", toml(run={"horizon": '"10000000s"'})),
    # 3 MB through a 1 Mbps link takes 24 s, far past a 1 s horizon.
    Case(
        "burst-stops-at-horizon",
        toml(topology={"link_rate": '"1Mbps"'}, workloads=[burst(size='"1MB"')], run={"horizon": '"1s"'}),
        "horizon",
        horizon_s=1.0,
    ),
    Case(
        "late-flow-stops-at-horizon",
        toml(
            topology={"link_rate": '"1Mbps"'},
            workloads=[flows("{ src = 1, dst = 0, size_bytes = 10000000, start_s = 0.5 }")],
            run={"horizon": '"1s"'},
        ),
        "horizon",
        horizon_s=1.0,
    ),
    # Open-loop rounds whose (expected) last start is at or past the horizon could never run.
    error(
        "periodic-last-round-at-horizon",
        toml(workloads=[burst(rounds="11", query_interval='"100ms"')], run={"horizon": '"1s"'}),
        "workload[0].query_interval",
        needle="starts at or after the run's horizon (1 s >= run.horizon = 1 s)",
    ),
    error(
        "poisson-rounds-expected-past-horizon",
        toml(workloads=[burst(rounds="20", query_rate="10.0")], run={"horizon": '"1s"'}),
        "workload[0].query_rate",
    ),
    error("query-rate-1e-300", toml(workloads=[burst(query_rate="1e-300")]), "workload[0].query_rate"),
    error(
        "query-interval-1e7s-rounds",
        toml(workloads=[burst(rounds="4000", query_interval='"1e7s"')]),
        "workload[0].query_interval",
    ),
    # Expected at 0.8 s, but this seed draws the second round at 1.13 s: it is planned and left
    # unstarted, and the run says so.
    Case(
        "poisson-round-drawn-past-horizon",
        toml(seed="1", workloads=[burst(rounds="2", query_rate="2.5")], run={"horizon": '"1s"'}),
        "horizon",
        horizon_s=1.0,
    ),
    # A small flow starting a second before the default horizon finishes within it.
    ok(
        "flow-starting-just-before-horizon",
        toml(workloads=[flows("{ src = 1, dst = 0, size_bytes = 1000, start_s = 86399.0 }")]),
    ),
]

TRACES = [
    ok("valid-csv", with_trace("flows.csv"), files=files(flows__csv=VALID_TRACE)),
    error(
        "csv-missing-column",
        with_trace("t.csv"),
        "workload[0].path",
        files=files(t__csv="src,dst,start_s\n1,0,0.0\n"),
    ),
    error("csv-text-host", with_trace("t.csv"), "workload[0].path", files=csv_rows("a,0,1000,0.0")),
    error(
        "csv-negative-size",
        with_trace("t.csv"),
        "workload[0].path",
        files=csv_rows("1,0,-1000,0.0"),
    ),
    error("csv-nan-start", with_trace("t.csv"), "workload[0].path", files=csv_rows("1,0,1000,nan")),
    error(
        "csv-start-18446744s",
        with_trace("t.csv"),
        "workload[0].path",
        files=csv_rows("1,0,1000,18446744.0"),
    ),
    error(
        "csv-start-at-horizon",
        with_trace("t.csv"),
        "workload[0].path",
        files=csv_rows("1,0,1000,86400.0"),
    ),
    error("csv-empty-file", with_trace("t.csv"), "workload[0].path", files=files(t__csv="")),
    error("csv-header-only", with_trace("t.csv"), "workload[0].path", files=csv_rows()),
    error(
        "csv-not-utf8",
        with_trace("t.csv"),
        "workload[0].path",
        files=files(t__csv=b"src,dst,size_bytes,start_s\n1,0,1000,0.0\xff\n"),
    ),
    error(
        "csv-nul-byte",
        with_trace("t.csv"),
        "workload[0].path",
        files=files(t__csv=b"src,dst,size_bytes,start_s\n1,0,10\x0000,0.0\n"),
    ),
    # A file that is not a trace (here a password-file line): its content must not be shown.
    error(
        "csv-foreign-content",
        with_trace("t.csv"),
        "workload[0].path",
        files=files(t__csv=f"root:x:0:0:{CANARY}:/root:/bin/bash\n"),
    ),
    error("csv-one-huge-line", with_trace("t.csv"), "workload[0].path", files=files(t__csv=CANARY * 40000)),
    error(
        "csv-quoted-fields",
        with_trace("t.csv"),
        "workload[0].path",
        files=files(t__csv='src,dst,size_bytes,start_s\n"1","0","1000","0.0"\n'),
    ),
    error(
        "csv-unknown-column",
        with_trace("t.csv"),
        "workload[0].path",
        files=files(t__csv="src,dst,size_bytes,start_s,prio\n1,0,1000,0.0,3\n"),
    ),
    # Issue 41: the run reads a trace as it goes, so its rows must come in start order.
    error(
        "csv-unsorted",
        with_trace("t.csv"),
        "workload[0].path",
        files=csv_rows("1,0,1000,0.002", "2,0,1000,0.001"),
        needle="t.csv line 3, column 4 (start_s): starts before the flow of line 2",
    ),
    ok("csv-equal-starts", with_trace("t.csv"), files=csv_rows("1,0,1000,0.001", "2,0,1000,1e-3")),
]

PATHS = [
    # Issue 12: /dev/zero was read (4 GB), a FIFO blocked for ever.
    error("dev-zero", with_trace("/dev/zero"), "workload[0].path", needs="/dev/zero"),
    error("fifo", with_trace("t.csv"), "workload[0].path", files=files(t__csv=Fifo()), needs="mkfifo"),
    error("directory", with_trace("t.csv"), "workload[0].path", files=files(t__csv=Directory())),
    # Issue 12: a path outside the scenario's directory was read and its first line echoed.
    error("parent-relative", with_trace("../outside/secret.csv"), "workload[0].path"),
    error("parent-relative-valid-trace", with_trace("../outside/flows.csv"), "workload[0].path"),
    error(
        "symlink-out-of-directory",
        with_trace("link.csv"),
        "workload[0].path",
        files=files(link__csv=Symlink("@OUT@/flows.csv")),
    ),
    error(
        "symlink-to-dev-zero",
        with_trace("zero.csv"),
        "workload[0].path",
        files=files(zero__csv=Symlink("/dev/zero")),
        needs="/dev/zero",
    ),
    error("dev-stdin", with_trace("/dev/stdin"), "workload[0].path", needs="/dev/stdin"),
    error("proc-environ", with_trace("/proc/self/environ"), "workload[0].path", needs="/proc/self/environ"),
    ok("dot-dot-back-inside", with_trace("sub/../flows.csv"), files=files(sub=Directory(), flows__csv=VALID_TRACE)),
    ok("absolute-path-outside", with_trace("@OUT@/flows.csv")),
    # Issue 12: an oversize trace with a small limit.
    error(
        "oversize",
        with_trace("flows.csv", run={"max_trace_bytes": "32"}),
        "workload[0].path",
        files=files(flows__csv=VALID_TRACE),
    ),
    ok(
        "size-at-limit",
        with_trace("flows.csv", run={"max_trace_bytes": str(len(VALID_TRACE))}),
        files=files(flows__csv=VALID_TRACE),
    ),
    error("empty-string", with_trace(""), "workload[0].path"),
    error("nul-character", with_trace("flows\u0000.csv"), "workload[0].path", files=files(flows__csv=VALID_TRACE)),
    error("name-too-long", with_trace("a" * 5000 + ".csv"), "workload[0].path"),
    error("integer", toml(workloads=[{"kind": '"trace"', "path": "5"}]), "workload[0].path"),
]

PARQUET = [
    ok("valid", with_trace("flows.parquet"), files=files(flows__parquet=VALID_PARQUET)),
    error(
        "oversize",
        with_trace("flows.parquet", run={"max_trace_bytes": "64"}),
        "workload[0].path",
        files=files(flows__parquet=VALID_PARQUET),
    ),
    error("fifo", with_trace("t.parquet"), "workload[0].path", files=files(t__parquet=Fifo()), needs="mkfifo"),
    error("directory", with_trace("t.parquet"), "workload[0].path", files=files(t__parquet=Directory())),
    error("parent-relative", with_trace("../outside/flows.parquet"), "workload[0].path"),
    error(
        "symlink-to-dev-zero",
        with_trace("zero.parquet"),
        "workload[0].path",
        files=files(zero__parquet=Symlink("/dev/zero")),
        needs="/dev/zero",
    ),
    error(
        "not-parquet",
        with_trace("t.parquet"),
        "workload[0].path",
        files=files(t__parquet=b"PAR1" + CANARY.encode() + b"PAR1"),
    ),
    error(
        "start-18446744s",
        with_trace("t.parquet"),
        "workload[0].path",
        files=files(t__parquet=Parquet({"src": [1], "dst": [0], "size_bytes": [1000], "start_s": [18446744.0]})),
    ),
    error(
        "nan-start",
        with_trace("t.parquet"),
        "workload[0].path",
        files=files(t__parquet=Parquet({"src": [1], "dst": [0], "size_bytes": [1000], "start_s": [math.nan]})),
    ),
    error(
        "string-columns",
        with_trace("t.parquet"),
        "workload[0].path",
        files=files(t__parquet=Parquet({"src": ["1"], "dst": ["0"], "size_bytes": ["1000"], "start_s": ["0"]})),
    ),
    error(
        "unsorted",
        with_trace("t.parquet"),
        "workload[0].path",
        files=files(t__parquet=Parquet({"src": [1, 2], "dst": [0, 0], "size_bytes": [9, 9], "start_s": [0.5, 0.25]})),
        needle="row 2 (start_s): starts before the flow of row 1",
    ),
    error(
        "no-rows",
        with_trace("t.parquet"),
        "workload[0].path",
        files=files(t__parquet=Parquet({"src": [], "dst": [], "size_bytes": [], "start_s": []})),
    ),
]


# Issue 39, "never abort, hang or mislead": what the docs refuse is refused wherever a protocol is
# named; sections and keys no flow reads, ECN transports on ports that never mark and Linux's RTOs
# on a 10 Gbps fabric are warned; valid input is accepted and errors name the key the file wrote.
GRAPH_NAMES = (
    "switch rack_1.tor:a\nhost h_0 h.1 h:2\n"
    "link h_0 rack_1.tor:a 1Gbps 1us\nlink h.1 rack_1.tor:a 1Gbps 1us\nlink h:2 rack_1.tor:a 1Gbps 1us\n"
)
GRAPH: Keys = {"kind": '"graph"', "hosts": None, "file": '"g.graph"'}
FAT_TREE_10G: Keys = {"kind": '"fat-tree"', "hosts": None, "link_rate": '"10Gbps"'}
ECN_OFF: Keys = {"ecn_threshold": '"off"'}

RULES = [
    # A protocol's refused keys, wherever the protocol is named (PDQ with `sack = true` on a
    # workload ran); beside flows that use them they are accepted.
    error(
        "pdq-workload-with-sack",
        toml(transport={"sack": "true"}, workloads=[burst(protocol='"pdq"')]),
        "transport.sack",
        needle="every flow runs pdq (workload[0].protocol)",
    ),
    error(
        "rcpdc-workload-with-prr",
        toml(transport={"prr": "true"}, workloads=[burst(protocol='"rcpdc"')]),
        "transport.prr",
    ),
    error(
        "d3-workload-with-partial-ack-retransmit",
        toml(transport={"partial_ack_retransmit": "true"}, workloads=[burst(protocol='"d3"')]),
        "transport.partial_ack_retransmit",
    ),
    error("pdq-transport-with-sack", toml(transport={"protocol": '"pdq"', "sack": "true"}), "transport.sack"),
    ok("d3-workload-beside-tcp-with-sack", toml(transport={"sack": "true"}, workloads=[BURST, burst(protocol='"d3"')])),
    # A section no flow reads is warned, every protocol's alike (`[d3]` was silently ignored,
    # `[pdq]` and `[pfabric]` refused).
    warn("d2tcp-section-without-d2tcp-flows", toml(d2tcp={"d_cap": "3.0"}), "d2tcp", "no flow runs D2TCP"),
    warn("tcppr-section-without-tcppr-flows", toml(tcppr={"thresholds": '["5ms"]'}), "tcppr", "no flow runs TCPpr"),
    warn("d3-section-without-d3-flows", toml(d3={"alpha": "0.2"}), "d3", "no flow runs D3 or RCPdc"),
    warn("pdq-section-without-pdq-flows", toml(pdq={"flow_list": "8"}), "pdq", "no flow runs PDQ"),
    warn("pfabric-section-without-pfabric-flows", toml(pfabric={"rto": '"50us"'}), "pfabric", "no flow runs pFabric"),
    # TCP keys with pFabric: `check` said they were unused, `run` nothing.
    warn(
        "pfabric-transport-with-tcp-keys",
        toml(transport={"protocol": '"pfabric"', "sack": "true", "min_rto": '"10ms"'}),
        "transport",
        "sets sack and min_rto, which no flow reads: every flow runs pFabric",
    ),
    warn(
        "pfabric-workload-with-tcp-keys",
        toml(transport={"stack": '"ns3"'}, workloads=[burst(protocol='"pfabric"')]),
        "transport",
        "sets stack, which no flow reads",
    ),
    ok("pfabric-without-tcp-keys", toml(transport={"protocol": '"pfabric"'})),
    # Persistent connections: pFabric keeps them (documented), D3, RCPdc and PDQ do not.
    ok(
        "persistent-pfabric-oldi",
        toml(
            topology=TWO_TIER_40,
            transport={"protocol": '"pfabric"'},
            workloads=[oldi(connections='"persistent"', stop='"5ms"')],
            run={"duration": '"50ms"'},
        ),
    ),
    error(
        "persistent-pdq-oldi",
        toml(
            topology=TWO_TIER_40,
            workloads=[oldi(connections='"persistent"', protocol='"pdq"')],
            run={"duration": '"50ms"'},
        ),
        "workload[0].connections",
        needle="needs a protocol that keeps its connections",
    ),
    # Port patterns take every character a graph node name may have.
    ok(
        "graph-names-in-port-patterns",
        toml(
            topology=GRAPH,
            output={
                "queue_sample_interval": '"1ms"',
                "queue_sample_ports": '["rack_1.tor:a->h_0", "h:?->*"]',
                "capture_ports": '["*->h.1"]',
                "offer_log_ports": '["rack_1.tor:a->*"]',
            },
        ),
        files=files(g__graph=GRAPH_NAMES),
    ),
    error(
        "port-pattern-with-a-slash",
        toml(output={"capture_ports": '["switch->h/0"]'}),
        "output.capture_ports[0]",
        needle="which no port name has",
    ),
    error(
        "port-pattern-of-a-name-no-port-has",
        toml(output={"offer_log_ports": '["switch->h_0"]'}),
        "output.offer_log_ports[0]",
        needle="matches no port",
    ),
    # A graph file opening with a byte-order mark reads as a scenario file does.
    ok("graph-with-bom", toml(topology=GRAPH), files=files(g__graph=b"\xef\xbb\xbf" + GRAPH_NAMES.encode())),
    error(
        "graph-latin1",
        toml(topology=GRAPH),
        "topology.file",
        needle="not UTF-8 text: invalid byte 0xE9",
        files=files(g__graph=GRAPH_NAMES.encode() + b"# caf\xe9\n"),
    ),
    # Errors name the key the file wrote: `oversubscription`, not `fabric_rate`.
    error(
        "oversubscription-1e12",
        toml(topology={**TWO_TIER, "oversubscription": "1e12"}),
        "topology.oversubscription",
        needle="must be at most 4e9 here (found 1000000000000)",
    ),
    error(
        "oversubscription-too-slow-for-horizon",
        toml(topology={**TWO_TIER, "oversubscription": "1e8"}, run={"horizon": '"100s"'}),
        "topology.oversubscription",
    ),
    # DCTCP and D2TCP on ports that never mark run as loss-based TCP.
    warn(
        "dctcp-with-ecn-off",
        toml(switch=ECN_OFF, transport={"protocol": '"dctcp"'}),
        "switch.ecn_threshold",
        "the DCTCP flows (transport.protocol) never see a mark",
    ),
    warn(
        "d2tcp-workload-with-ecn-off",
        toml(switch=ECN_OFF, workloads=[burst(protocol='"d2tcp"')]),
        "switch.ecn_threshold",
        "the D2TCP flows (workload[0].protocol)",
    ),
    ok("tcp-with-ecn-off", toml(switch=ECN_OFF)),
    # Linux's RTOs on a 10 Gbps fat tree of 10 us links (a base RTT of 127.2 us).
    warn(
        "linux-rtos-on-a-10g-fat-tree",
        toml(topology=FAT_TREE_10G),
        "transport.min_rto",
        'is 1572 times this network\'s base RTT, 127us',
    ),
    warn(
        "linux-initial-rto-on-a-10g-fat-tree",
        toml(topology=FAT_TREE_10G, transport={"min_rto": '"1ms"'}),
        "transport.initial_rto",
        '1s (the "linux" stack\'s) is 7861 times',
    ),
    ok(
        "tuned-rtos-on-a-10g-fat-tree",
        toml(topology=FAT_TREE_10G, transport={"min_rto": '"1ms"', "initial_rto": '"1ms"'}),
    ),
    ok("linux-rtos-on-a-1g-fat-tree", toml(topology={**FAT_TREE_10G, "link_rate": '"1Gbps"'})),
]


def _deep(opening: str, closing: str, depth: int) -> str:
    return opening * depth + closing * depth


STAR_WORKLOAD_TAIL = _table("[[workload]]", BURST)
TOML_11 = '[topology]\nkind = "star"\nhosts = 4\n[[workload]]\nkind = "flow-burst"\nsenders = 3\n'

ENCODINGS = [
    # Issue 12: a non-UTF-8 scenario gave a UnicodeDecodeError traceback.
    error("latin1-comment", b"# caf\xe9\n" + VALID_TOML.encode(), "", needle="UTF-8"),
    error("latin1-json", doc_json().encode().replace(b'"star"', b'"st\xe4r"'), "", needle="UTF-8", suffix=".json"),
    error("utf16", "\ufeff".encode("utf-16-le") + VALID_TOML.encode("utf-16-le"), "", needle="UTF-8"),
    error("overlong-encoding", VALID_TOML.encode() + b"# \xc0\xaf\n", "", needle="UTF-8"),
    error("encoded-surrogate", VALID_TOML.encode() + b"# \xed\xa0\x80\n", "", needle="UTF-8"),
    error("truncated-at-end", VALID_TOML.encode() + b"# \xe2\x82", "", needle="UTF-8"),
    # Issue 12: `check` refused a UTF-8 BOM that `run` accepted; both accept it.
    ok("bom-toml", b"\xef\xbb\xbf" + VALID_TOML.encode()),
    ok("bom-json", b"\xef\xbb\xbf" + doc_json().encode(), suffix=".json"),
    # The reader drops one BOM as the encoding's mark and the TOML parser skips a BOM of its own:
    # harmless, and `check` and `run` agree.
    ok("bom-twice", b"\xef\xbb\xbf\xef\xbb\xbf" + VALID_TOML.encode()),
    # Issue 12: `check` refused TOML 1.1 that `run` accepted (two parsers); they agree now.
    ok(
        "toml-1.1-multiline-inline-table",
        TOML_11 + 'size = {\n  dist = "uniform",\n  min = "2KB",\n  max = "3KB",\n}\n',
    ),
    ok("toml-1.1-hex-escape", TOML_11.replace('"flow-burst"', '"flow\\x2dburst"')),
    ok("crlf-line-ends", VALID_TOML.replace("\n", "\r\n")),
    error("nul-byte", VALID_TOML.replace('"star"', '"star"\x00'), "", needle="line 2"),
    error("empty-file", "", "topology"),
    error("comments-only", "# nothing\n\n# here\n", "topology"),
    error("utf8-key", toml(topology={'"h\u00f4sts"': "4"}), "topology.h\u00f4sts", unknown_key=True),
    error("bidi-override-in-name", toml(topology={"kind": '"star\u202e"'}), "topology.kind"),
    error("json-top-level-array", "[1, 2]", "", suffix=".json", needle="line 1"),
    error("json-trailing-garbage", doc_json() + " x", "", suffix=".json", needle="line 1"),
    error("json-nan", doc_json()[:-1] + ', "seed": NaN}', "", suffix=".json", needle="line 1"),
    error(
        "json-number-out-of-range",
        doc_json().replace('"hosts": 4', '"hosts": 1e400'),
        ("", "topology.hosts"),
        suffix=".json",
    ),
    error("toml-deep-arrays", toml(topology={"hosts": _deep("[", "]", 100000)}), ("", "topology.hosts")),
    error("toml-deep-inline-tables", toml(topology={"hosts": _deep("{a=", "}", 100000)}), ("", "topology.hosts")),
    error("toml-deep-dotted-header", "[" + ".".join(["a"] * 20000) + "]\n" + VALID_TOML, "", needle="TOML"),
    error(
        "json-deep-arrays",
        doc_json(topology={"kind": "star", "hosts": "@DEEP@"}).replace('"@DEEP@"', _deep("[", "]", 100000)),
        ("", "topology.hosts"),
        suffix=".json",
    ),
    error("scenario-is-a-directory", Directory(), "", needle="cannot read", api_error="OSError"),
]

GROUPS: Dict[str, List[Case]] = {
    "types": TYPES,
    "units": UNITS,
    "ranges": RANGES,
    "topology": TOPOLOGY,
    "workload": WORKLOAD,
    "transport": TRANSPORT,
    "switch": SWITCH,
    "d3-d2tcp-tcppr": PROTOCOL_SECTIONS,
    "output": OUTPUT,
    "run-limits": RUN_LIMITS,
    "network": NETWORK,
    "horizon": HORIZON,
    "watchdog": WATCHDOG,
    "traces": TRACES,
    "paths": PATHS,
    "parquet": PARQUET,
    "encodings": ENCODINGS,
    "rules": RULES,
}
CASES = [(f"{group}-{case.name}", case) for group, cases in GROUPS.items() for case in cases]

# ---------------------------------------------------------------------------------------------
# Dicts for `incast.run(dict)`, built in the probe process (a cyclic or numpy tree has no text
# form). JSON-able ones also go through the CLI as .json files.


def small_tree(**changes: Any) -> Dict[str, Any]:
    """The default scenario as a dict, with top-level keys added or replaced."""
    return {
        "topology": {"kind": "star", "hosts": 4},
        "workload": [{"kind": "flow-burst", "senders": 3, "size": "2KB"}],
        **changes,
    }


def _nested_dicts(depth: int) -> Any:
    """{"a": {"a": ... 4 ...}}, `depth` dicts deep."""
    value: Any = 4
    for _ in range(depth):
        value = {"a": value}
    return value


def _nested_lists(depth: int) -> Any:
    """[[...[1]...]], `depth` lists deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


OUTSIDE_TRACE = Path("@OUT@/flows.csv")
"""A trace path given as a Path object (accepted as its string), outside the working directory."""


def _cyclic_workload() -> Dict[str, Any]:
    tree = small_tree()
    tree["workload"][0]["self"] = tree["workload"][0]
    return tree


def _cyclic_list() -> Dict[str, Any]:
    hosts: List[Any] = [1]
    hosts.append(hosts)
    return small_tree(workload=[{"kind": "flow-burst", "worker_hosts": hosts}])


def _np() -> Any:
    import numpy

    return numpy


@dataclass(frozen=True)
class DictCase:
    name: str
    build: Callable[[], Dict[str, Any]]
    key: Optional[KeySpec]
    """None: the dict runs."""
    unknown_key: bool = False


def _topology(**keys: Any) -> Dict[str, Any]:
    return small_tree(topology={"kind": "star", "hosts": 4, **keys})


def _burst(**keys: Any) -> Dict[str, Any]:
    return small_tree(workload=[{"kind": "flow-burst", "senders": 3, "size": "2KB", **keys}])


def _poisson(**keys: Any) -> Dict[str, Any]:
    return small_tree(workload=[{"kind": "poisson", "rate": 100.0, "stop": "10ms", **keys}])


DICTS = [
    DictCase("deep-dict-100", lambda: _topology(hosts=_nested_dicts(100)), Under("topology.hosts")),
    DictCase("deep-dict-10000", lambda: _topology(hosts=_nested_dicts(10000)), Under("topology.hosts")),
    DictCase("deep-list-100", lambda: _burst(worker_hosts=_nested_lists(100)), Under("workload[0].worker_hosts")),
    DictCase("deep-list-100000", lambda: _burst(worker_hosts=_nested_lists(100000)), Under("workload[0].worker_hosts")),
    DictCase("cyclic-dict", _cyclic_workload, Under("workload[0].self")),
    DictCase("cyclic-list", _cyclic_list, Under("workload[0].worker_hosts")),
    DictCase("numpy-integers", lambda: small_tree(
        seed=_np().uint64(7),
        topology={"kind": "star", "hosts": _np().int64(4)},
        workload=[{"kind": "flow-burst", "senders": _np().int32(3), "size": "2KB"}],
    ), None),
    DictCase("numpy-float", lambda: _poisson(rate=_np().float64(100.0)), None),
    DictCase("numpy-bool", lambda: small_tree(transport={"sack": _np().bool_(False)}), None),
    DictCase("numpy-1d-array", lambda: _burst(worker_hosts=_np().array([1, 2, 3])), None),
    DictCase("numpy-string", lambda: _topology(kind=_np().str_("star")), None),
    DictCase("numpy-nan", lambda: _poisson(rate=_np().float64("nan")), "workload[0].rate"),
    DictCase("numpy-datetime", lambda: _burst(start=_np().datetime64("2020-01-01")), "workload[0].start"),
    DictCase("tuple-list", lambda: _burst(worker_hosts=(1, 2, 3)), None),
    DictCase("pathlike-trace-path", lambda: small_tree(workload=[{"kind": "trace", "path": OUTSIDE_TRACE}]), None),
    DictCase("bytes-value", lambda: _topology(kind=b"star"), "topology.kind"),
    DictCase("set-value", lambda: _burst(worker_hosts={1, 2}), "workload[0].worker_hosts"),
    DictCase("complex-value", lambda: _poisson(rate=1 + 2j), "workload[0].rate"),
    DictCase("object-value", lambda: small_tree(seed=object()), "seed"),
    DictCase("non-string-key", lambda: small_tree(topology={"kind": "star", "hosts": 4, (1, 2): "x"}), "topology"),
    DictCase("integer-2-pow-70", lambda: _topology(hosts=2**70), "topology.hosts"),
    DictCase("bool-for-integer", lambda: _topology(hosts=True), "topology.hosts"),
    DictCase("float-inf", lambda: _poisson(rate=math.inf), "workload[0].rate"),
    DictCase("query-rate-nan", lambda: _burst(query_rate=math.nan), "workload[0].query_rate"),
    DictCase("numpy-query-rate", lambda: _burst(rounds=3, query_rate=_np().float64(100.0)), None),
    DictCase("none-for-required", lambda: _topology(kind=None), "topology.kind"),
    DictCase("unknown-nested-key", lambda: _topology(colour="red"), "topology.colour", unknown_key=True),
    DictCase("poisson-rate-1e18", lambda: _poisson(rate=1e18, stop="1s"), "workload[0].rate"),
    DictCase("buffer-100B", lambda: small_tree(switch={"buffer": "100B"}), "switch.buffer"),
    DictCase("receive-window-1B", lambda: small_tree(transport={"receive_window": "1B"}), "transport.receive_window"),
    # Issue 39: a protocol's refused keys wherever the protocol is named, in a dict too.
    DictCase("pdq-workload-with-sack", lambda: small_tree(
        transport={"sack": True}, workload=[{"kind": "flow-burst", "protocol": "pdq"}]), "transport.sack"),
    DictCase("oversubscription-1e12", lambda: small_tree(
        topology={"kind": "two-tier", "racks": 2, "hosts_per_rack": 2, "oversubscription": 1e12}),
        "topology.oversubscription"),
]
DICTS_BY_NAME = {case.name: case for case in DICTS}

# ---------------------------------------------------------------------------------------------
# Running a case.


def platform_has(need: str) -> bool:
    if need == "mkfifo":
        return hasattr(os, "mkfifo")
    return not need or os.path.exists(need)


def lay_out(case: Case, root: Path) -> Path:
    """Writes the case's scenario and files under `root/scenario/`, and the files outside it under
    `root/outside/`; returns the scenario's path."""
    if not platform_has(case.needs):
        pytest.skip(f"this platform has no {case.needs}")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text(f"root:x:0:0:{CANARY}:/root:/bin/bash\n")
    (outside / "flows.csv").write_text(VALID_TRACE)
    _write(outside / "flows.parquet", VALID_PARQUET, outside)
    here = root / "scenario"
    here.mkdir()
    for name, content in case.files:
        _write(here / name, content, outside)
    path = here / f"scenario{case.suffix}"
    if isinstance(case.scenario, Directory):
        path.mkdir()
    else:
        _write(path, _substitute(case.scenario, here, outside), outside)
    return path


def _substitute(text: Union[str, bytes], here: Path, outside: Path) -> Union[str, bytes]:
    if isinstance(text, bytes):
        return text
    return text.replace("@DIR@", str(here)).replace("@OUT@", str(outside))


def _write(path: Path, content: FileContent, outside: Path) -> None:
    if isinstance(content, Fifo):
        os.mkfifo(path)
    elif isinstance(content, Directory):
        path.mkdir()
    elif isinstance(content, Symlink):
        path.symlink_to(content.target.replace("@OUT@", str(outside)))
    elif isinstance(content, Parquet):
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table(dict(content.columns)), path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def hostile_env() -> Dict[str, str]:
    """This environment plus the canary, so a trace path at /proc/self/environ would show it."""
    return {**os.environ, "INCAST_HOSTILE_CANARY": CANARY}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`python -m incast ARGS` in a process of its own, bounded in time, stdin closed (a path
    such as /dev/stdin must not wait for a terminal)."""
    try:
        return fork_server().run(args, cwd=cwd, env=hostile_env(), timeout=TIMEOUT_S, module="incast")
    except subprocess.TimeoutExpired:
        pytest.fail(f"`incast {' '.join(args)}` did not finish within {TIMEOUT_S} s")


def assert_no_leak(text: str) -> None:
    for forbidden in FORBIDDEN:
        assert forbidden not in text, f"{forbidden!r} in output:\n{text[:3000]}"


def assert_cli_error(
    proc: subprocess.CompletedProcess, scenario: Path, key: KeySpec, case_needle: str, unknown_key: bool
) -> None:
    """Exit 2 and one `incast: error: SCENARIO: `key`: message` line naming `key` (no key at all
    for an error of the whole document)."""
    output = proc.stdout + proc.stderr
    assert_no_leak(output)
    assert proc.returncode == 2, f"exit {proc.returncode}, expected 2:\n{output[:3000]}"
    assert proc.stdout == "", output[:3000]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr:\n{output[:3000]}"
    line = lines[0]
    assert line.startswith("incast: error: "), line
    message = line[len("incast: error: "):]
    if message.startswith(f"{scenario}: "):
        message = message[len(f"{scenario}: "):]
    named = re.match(r"`([^`]*)`: ", message)
    path = named[1] if named else ""
    assert key_matches(key, path), f"expected the key {key!r}, the line names {path!r}:\n{line}"
    if case_needle:
        assert case_needle in line, f"{case_needle!r} not in {line!r}"
    if not unknown_key:
        assert "unknown key" not in line, f"rejected for an unknown key, so the case tests nothing:\n{line}"


def read_run_output(out: Path) -> Tuple[Dict[str, Any], List[Optional[float]]]:
    import pyarrow.parquet as pq

    summary = json.loads((out / "summary.json").read_text())
    finish = pq.read_table(out / "flows.parquet", columns=["finish_s"]).column("finish_s").to_pylist()
    return summary, finish


def assert_run_ok(summary: Mapping[str, Any], finish: Sequence[Optional[float]], horizon_s: float) -> None:
    """A run that ended on its own: every flow finished, not stopped at the horizon or stalled
    (a scenario with a `duration` ends there, its flows done before it)."""
    assert summary["flows_completed"] == summary["flows"], summary
    assert all(f is not None and f <= horizon_s for f in finish), finish
    assert summary.get("stopped_at_horizon") is False, summary
    assert summary.get("status") in ("flows-ended", "duration"), summary


def assert_run_at_horizon(summary: Mapping[str, Any], finish: Sequence[Optional[float]], horizon_s: float) -> None:
    """A run stopped at its horizon: flagged, no time beyond it, some flow left unfinished."""
    assert summary.get("stopped_at_horizon") is True, summary
    assert summary.get("status") == "horizon", summary
    assert summary["sim_time_s"] <= horizon_s, summary
    assert all(f is None or f <= horizon_s for f in finish), [f for f in finish if f is not None and f > horizon_s]
    assert any(f is None for f in finish), "stopped at the horizon with every flow finished"


def assert_run_stalled(summary: Mapping[str, Any], finish: Sequence[Optional[float]], key: KeySpec) -> None:
    """A run the progress watchdog stopped: flagged, with why and `key` among the likely keys,
    some flow left unfinished."""
    assert summary.get("status") == "stalled" and summary.get("stopped_at_horizon") is False, summary
    assert isinstance(key, str) and key in summary["stall_keys"], summary
    assert key in summary["stall_reason"] and "run.stall_after" in summary["stall_reason"], summary
    assert any(f is None for f in finish), "stalled with every flow finished"


HORIZON_WARNING = "incast: warning: the run reached its simulated-time horizon ([run] horizon = "
STALL_WARNING = "incast: warning: the run stalled at "


def warning_lines(stderr: str, scenario: Path, case: Case) -> List[str]:
    """The scenario warning lines on stderr: none, except for a `warn` case one, naming its key
    (as an error line would: file, then key) and holding its needle."""
    lines = [line for line in stderr.strip().splitlines() if not line.startswith(HORIZON_WARNING)]
    if case.expect != "warn":
        assert lines == [], f"expected no warning:\n{stderr[:3000]}"
        return lines
    assert isinstance(case.key, str)
    assert len(lines) == 1, f"expected one warning line:\n{stderr[:3000]}"
    assert lines[0].startswith(f"incast: warning: {scenario}: `{case.key}`: "), lines[0]
    assert case.needle in lines[0], f"{case.needle!r} not in {lines[0]!r}"
    return lines


@pytest.fixture
def laid_out(request: pytest.FixtureRequest, tmp_path: Path) -> Tuple[Case, Path]:
    case: Case = request.param
    return case, lay_out(case, tmp_path)


@pytest.mark.parametrize("laid_out", [c for _, c in CASES], ids=[i for i, _ in CASES], indirect=True)
def test_cli_check(laid_out: Tuple[Case, Path]) -> None:
    case, scenario = laid_out
    proc = cli("check", str(scenario), cwd=scenario.parent)
    output = proc.stdout + proc.stderr
    if case.expect == "error" or (case.expect == "error-or-horizon" and proc.returncode != 0):
        assert case.key is not None
        assert_cli_error(proc, scenario, case.key, case.needle, case.unknown_key)
        return
    assert_no_leak(output)
    assert proc.returncode == 0, f"exit {proc.returncode}, expected 0:\n{output[:3000]}"
    assert proc.stdout.splitlines()[0] == f"{scenario}: ok", output[:3000]
    warning_lines(proc.stderr, scenario, case)


@pytest.mark.parametrize("laid_out", [c for _, c in CASES], ids=[i for i, _ in CASES], indirect=True)
def test_cli_run(laid_out: Tuple[Case, Path]) -> None:
    case, scenario = laid_out
    out = scenario.parent.parent / "out"
    proc = cli("run", str(scenario), "--out", str(out), cwd=scenario.parent)
    output = proc.stdout + proc.stderr
    if case.expect == "error" or (case.expect == "error-or-horizon" and proc.returncode != 0):
        assert case.key is not None
        assert_cli_error(proc, scenario, case.key, case.needle, case.unknown_key)
        assert not out.exists(), "a failed run created its output directory"
        if case.expect == "error-or-horizon":
            # Refused by `run`, so `check` must refuse it too.
            check = cli("check", str(scenario), cwd=scenario.parent)
            assert_cli_error(check, scenario, case.key, "", case.unknown_key)
        return
    assert_no_leak(output)
    assert proc.returncode == 0, f"exit {proc.returncode}, expected 0:\n{output[:3000]}"
    summary, finish = read_run_output(out)
    if case.expect in ("ok", "warn"):
        warned = warning_lines(proc.stderr, scenario, case)
        assert_run_ok(summary, finish, case.horizon_s)
        if warned:
            # `check` says the same, in the same words.
            check = cli("check", str(scenario), cwd=scenario.parent)
            assert warning_lines(check.stderr, scenario, case) == warned
    elif case.expect == "stalled":
        assert case.key is not None
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(STALL_WARNING) and str(case.key) in lines[0], proc.stderr
        assert_run_stalled(summary, finish, case.key)
    else:
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(HORIZON_WARNING), proc.stderr
        assert_run_at_horizon(summary, finish, case.horizon_s)
        if case.expect == "error-or-horizon":
            # Run by `run`, so `check` must accept it too.
            assert cli("check", str(scenario), cwd=scenario.parent).returncode == 0


# The Python API, in a subprocess: each step prints one JSON line as soon as it is done, so a step
# that hangs or aborts still leaves the earlier ones' outcomes.
PROBE = r"""
import json, math, sys
sys.path.insert(0, sys.argv[1])
import incast

def outcome(step, call):
    try:
        value = call()
    except BaseException as e:
        record = {"step": step, "raised": type(e).__name__, "kinds": [c.__name__ for c in type(e).__mro__],
                  "path": getattr(e, "path", None), "message": str(e)[:4000]}
    else:
        record = {"step": step, "raised": None, **value}
    print(json.dumps(record), flush=True)

def ran(call):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    finish = result.flows.column("finish_s").to_pylist()
    s = result.summary
    keys = ("stopped_at_horizon", "status", "stall_reason", "stall_keys", "sim_time_s", "flows", "flows_completed")
    return {"summary": {k: s.get(k) for k in keys},
            "finish": finish, "warnings": [w.path for w in result.warnings],
            "issued": [getattr(w.message, "path", w.category.__name__) for w in caught]}

mode, arg = sys.argv[2], sys.argv[3]
if mode == "file":
    outcome("load_scenario", lambda: (incast.load_scenario(arg), {})[1])
    outcome("run", lambda: ran(lambda: incast.run(arg)))
elif mode == "dict":
    import test_hostile
    build = lambda: test_hostile.resolve_placeholders(test_hostile.DICTS_BY_NAME[arg].build(), sys.argv[4])
    outcome("effective_transport", lambda: (incast.effective_transport(build()), {})[1])
    outcome("run", lambda: ran(lambda: incast.run(build())))
else:
    from conftest import small_scenario
    outcome("run", lambda: ran(lambda: incast.run(small_scenario(), chunk_events=json.loads(arg))))
"""


def probe(*args: str, cwd: Path) -> List[Dict[str, Any]]:
    """Runs PROBE with `args`; the outcome of each step, in order."""
    try:
        proc = fork_server().run([str(TESTS), *args], cwd=cwd, env=hostile_env(), timeout=TIMEOUT_S, code=PROBE)
    except subprocess.TimeoutExpired as e:
        done = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"the Python API did not finish within {TIMEOUT_S} s; finished steps: {done!r}")
    assert_no_leak(proc.stdout + proc.stderr)
    steps = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0, f"the Python process died (status {proc.returncode}):\n{proc.stderr[-3000:]}"
    return steps


def resolve_placeholders(tree: Any, outside: str) -> Any:
    """`@OUT@` in the trace paths of a dict case's tree (in place), written as str or Path."""
    workloads = tree.get("workload") if isinstance(tree, dict) else None
    for workload in workloads if isinstance(workloads, list) else []:
        path = workload.get("path") if isinstance(workload, dict) else None
        if isinstance(path, (str, Path)):
            workload["path"] = type(path)(str(path).replace("@OUT@", outside))
    return tree


def assert_api_error(step: Mapping[str, Any], key: KeySpec, unknown_key: bool, expected: str = "ScenarioError") -> None:
    assert step["raised"] is not None, f"{step['step']} accepted the input; expected {expected} naming {key!r}"
    assert expected in step["kinds"], f"{step['step']} raised {step['raised']}: {step['message']}"
    if expected != "ScenarioError":
        return
    assert step["raised"] == "ScenarioError", step
    assert "\n" not in step["message"].strip(), step["message"]
    assert key_matches(key, step["path"]), f"{step['step']}: .path {step['path']!r}, not {key!r}: {step['message']}"
    if not unknown_key:
        assert "unknown key" not in step["message"], f"rejected for an unknown key: {step['message']}"


def assert_api_ran(step: Mapping[str, Any], expect: str, horizon_s: float, key: Optional[KeySpec] = None) -> None:
    """A run that ended as `expect` says, having issued (`warnings.warn`) and listed
    (`RunResult.warnings`) the warning at `key` for a `warn` case, and none otherwise (a stall,
    like the horizon, is in the summary, not a warning)."""
    assert step["raised"] is None, f"{step['step']} raised {step['raised']}: {step['message']}"
    if expect in ("ok", "warn"):
        assert_run_ok(step["summary"], step["finish"], horizon_s)
    elif expect == "stalled":
        assert key is not None
        assert_run_stalled(step["summary"], step["finish"], key)
    else:
        assert_run_at_horizon(step["summary"], step["finish"], horizon_s)
    warned = [key] if expect == "warn" else []
    assert step["warnings"] == warned, step["warnings"]
    assert step["issued"] == warned, step["issued"]


@pytest.mark.parametrize("laid_out", [c for _, c in CASES], ids=[i for i, _ in CASES], indirect=True)
def test_python_api(laid_out: Tuple[Case, Path]) -> None:
    case, scenario = laid_out
    steps = probe("file", str(scenario), cwd=scenario.parent)
    assert [s["step"] for s in steps] == ["load_scenario", "run"], steps
    load, run = steps
    if case.expect == "error" or (case.expect == "error-or-horizon" and load["raised"] is not None):
        assert case.key is not None
        assert_api_error(load, case.key, case.unknown_key, case.api_error)
        assert_api_error(run, case.key, case.unknown_key, case.api_error)
        return
    assert load["raised"] is None, f"load_scenario raised {load['raised']}: {load['message']}"
    expect = case.expect if case.expect in ("ok", "warn", "stalled") else "horizon"
    assert_api_ran(run, expect, case.horizon_s, case.key)


@pytest.mark.parametrize("case", DICTS, ids=[c.name for c in DICTS])
def test_python_api_dict(case: DictCase, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "flows.csv").write_text(VALID_TRACE)
    steps = probe("dict", case.name, str(outside), cwd=tmp_path)
    assert [s["step"] for s in steps] == ["effective_transport", "run"], steps
    for step in steps:
        if case.key is None:
            assert step["raised"] is None, f"{step['step']} raised {step['raised']}: {step['message']}"
        else:
            assert_api_error(step, case.key, case.unknown_key)
    if case.key is None:
        assert_api_ran(steps[1], "ok", DEFAULT_HORIZON_S)


def _json_text(case: DictCase, outside: Path) -> Optional[str]:
    """The dict case as JSON text, if it has one (no cycles, numpy or other Python objects)."""
    try:
        tree = case.build()
    except ImportError:
        return None
    try:
        return json.dumps(resolve_placeholders(tree, str(outside)), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


JSON_DICTS = [c for c in DICTS if _json_text(c, Path("/nowhere")) is not None]


@pytest.mark.parametrize("case", JSON_DICTS, ids=[c.name for c in JSON_DICTS])
def test_cli_check_dict_as_json(case: DictCase, tmp_path: Path) -> None:
    """The dicts that have a JSON form say the same through `incast check`."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "flows.csv").write_text(VALID_TRACE)
    text = _json_text(case, outside)
    assert text is not None
    scenario = tmp_path / "scenario.json"
    scenario.write_text(text)
    proc = cli("check", str(scenario), cwd=tmp_path)
    if case.key is None:
        assert_no_leak(proc.stdout + proc.stderr)
        assert proc.returncode == 0, proc.stderr
    else:
        assert_cli_error(proc, scenario, case.key, "", case.unknown_key)


# Issue 39: a network the estimate admits but the process's address space cannot hold. Each
# case is a scenario and an address-space cap (`ulimit -v`, set in the child before it starts):
# `incast run` must exit 70 with one line, never abort with "memory allocation ... failed".
# The caps leave the interpreter and its libraries room (about 1 GB of address space) and fail
# the network's tables, which take some GB.
K160_ROOMY = toml(topology=FAT_TREE_160, workloads=[ONE_FLOW], run={"max_network_bytes": "8000000000"})
OUT_OF_ADDRESS_SPACE = [
    # Fails building the ports (their queue tables), and at 3 GiB taking their rows of results.
    ("fat-tree-k160-2gib", K160_ROOMY, 2 << 30),
    ("fat-tree-k160-3gib", K160_ROOMY, 3 << 30),
    ("leaf-spine-million-spines-2gib", toml(topology=MILLION_SPINES, workloads=[ONE_FLOW]), 2 << 30),
]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="address-space limits as Linux applies them")
@pytest.mark.parametrize(
    ("scenario", "cap"), [c[1:] for c in OUT_OF_ADDRESS_SPACE], ids=[c[0] for c in OUT_OF_ADDRESS_SPACE]
)
def test_cli_run_out_of_address_space(scenario: str, cap: int, tmp_path: Path) -> None:
    import resource

    path = tmp_path / "scenario.toml"
    path.write_text(scenario)
    out = tmp_path / "out"
    # The estimate admits it: `check` builds nothing and says ok.
    assert cli("check", str(path), cwd=tmp_path).returncode == 0
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "incast", "run", str(path), "--out", str(out), "--quiet"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=120,
            cwd=tmp_path,
            env=hostile_env(),
            stdin=subprocess.DEVNULL,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)),
        )
    except subprocess.TimeoutExpired:
        pytest.fail("`incast run` under an address-space cap did not finish within 120 s")
    output = proc.stdout + proc.stderr
    assert_no_leak(output)
    assert proc.returncode == 70, f"exit {proc.returncode}, expected 70:\n{output[-3000:]}"
    # The scenario's own warnings (Linux's RTOs on 10 Gbps links) come first; then one error.
    lines = [line for line in proc.stderr.strip().splitlines() if not line.startswith("incast: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("incast: error: "), output[-3000:]
    assert "out of memory" in lines[0], lines[0]
    assert not out.exists(), "a failed run created its output directory"


@pytest.mark.parametrize("chunk_events", [0, -1, 2.5, "1000"], ids=["zero", "negative", "float", "string"])
def test_chunk_events_must_be_a_positive_integer(chunk_events: Any, tmp_path: Path) -> None:
    """Issue 12: `chunk_events=0` looped for ever. Refused before running, naming the argument."""
    (step,) = probe("chunk", json.dumps(chunk_events), cwd=tmp_path)
    assert step["raised"] == "ValueError", step
    assert "chunk_events" in step["message"], step["message"]


def test_suite_is_big_enough() -> None:
    """Issue 12 asks for at least 150 hand-made hostile inputs."""
    assert len(CASES) + len(DICTS) >= 150
    assert len({i for i, _ in CASES}) == len(CASES), "two cases share an id"
