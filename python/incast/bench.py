"""Speed and memory benchmarks: every run in a fresh child process.

Each measurement runs `python -m incast.bench SCENARIO` as a child of its own and reads that
child's resource usage from `os.wait4`, so the peak resident set size is the one run's alone
(`getrusage(RUSAGE_CHILDREN)` would report the largest child so far). The child imports only the
native module and the scenario reader, not pyarrow, and times the engine's steps alone: parsing
and network construction are reported apart. It takes the flow rows after every chunk and drops
them, as a streaming writer would, so that the peak memory is what the engine holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from incast.stats import quantile

HEADER = (
    f"{'benchmark':<28} {'events/s':>10} {'hops/s':>10} {'sim s/wall s':>12} "
    f"{'wall s':>8} {'build s':>8} {'peak RSS':>9} {'events':>10} {'ns/event':>9} {'events/hop':>10}"
)

#: The benchmark every other one's cost per event is compared with, when it runs in the same call:
#: the densest case, a 40-sender incast on one switch, whose working set fits in cache.
REFERENCE = "star_incast_dctcp"


class BenchError(Exception):
    """A benchmark child failed."""


def find_bench_dir(explicit: Optional[str]) -> Optional[Path]:
    """The directory of benchmark scenarios: `explicit`, else the repository's benches/ (beside
    python/, where an editable install lives), else ./benches."""
    if explicit is not None:
        path = Path(explicit)
        return path if path.is_dir() else None
    for candidate in (Path(__file__).resolve().parents[2] / "benches", Path.cwd() / "benches"):
        if candidate.is_dir():
            return candidate
    return None


def discover(directory: Path) -> List[str]:
    """Benchmark names: the stems of the *.toml files in `directory`, sorted."""
    return sorted(p.stem for p in directory.glob("*.toml"))


def measure(scenario: Path, repeat: int, threads: Optional[int] = None) -> Dict[str, Any]:
    """Runs `scenario` `repeat` times, each in a fresh child, on `threads` threads (`[run]
    threads`; the scenario's own if None), and returns the medians."""
    return summarize(scenario, [_run_child(scenario, threads) for _ in range(repeat)])


def measure_interleaved(scenario: Path, repeat: int, thread_counts: Sequence[int]) -> List[Dict[str, Any]]:
    """Runs `scenario` on each of `thread_counts` in turn, `repeat` rounds of one run each (1, 2,
    1, 2, ...), and returns one result per count, as `measure` does. This machine's speed drifts
    by tens of percent within minutes, so a count's runs taken one after the other and the next
    count's after them compare two moments of the machine as much as two counts; in turn, each
    round's runs are seconds apart (`speedups` compares them round by round)."""
    runs: Dict[int, List[Dict[str, Any]]] = {t: [] for t in thread_counts}
    for _ in range(repeat):
        for t in thread_counts:
            runs[t].append(_run_child(scenario, t))
    return [summarize(scenario, runs[t]) for t in thread_counts]


def summarize(scenario: Path, runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The medians of `runs` of `scenario` (and its fastest cost per event), with the runs."""
    repeat = len(runs)

    def med(key: str) -> float:
        return quantile((r[key] for r in runs), 0.5)

    events = runs[0]["events"]
    return {
        "name": scenario.stem,
        "repeat": repeat,
        "ns_per_event": 1e9 / med("events_per_s") if med("events_per_s") > 0 else None,
        "ns_per_event_best": 1e9 / max(r["events_per_s"] for r in runs) if med("events_per_s") > 0 else None,
        "events_per_hop": events / runs[0]["packet_hops"] if runs[0]["packet_hops"] else None,
        "events_per_s": med("events_per_s"),
        "packet_hops_per_s": med("packet_hops_per_s"),
        "sim_s_per_wall_s": med("sim_s_per_wall_s"),
        "wall_s": med("wall_s"),
        "build_s": med("build_s"),
        "cpu_s": med("cpu_s"),
        "peak_rss_bytes": med("peak_rss_bytes"),
        "events": runs[0]["events"],
        "packet_hops": runs[0]["packet_hops"],
        "sim_time_s": runs[0]["sim_time_s"],
        # Threads the run used: its `[run] threads`, at most one per part; `None` for the one
        # event loop over the whole network (no `[run] threads`, or a network of one part).
        "threads": runs[0]["threads"],
        # How a run across threads would cut the network (`Simulation.partition`): the most
        # threads it could use, how far apart its parts are, and the largest part's ports.
        "parts": runs[0]["parts"],
        "lookahead_s": runs[0]["lookahead_s"],
        "largest_part_ports": runs[0]["largest_part_ports"],
        "runs": runs,
    }


def _run_child(scenario: Path, threads: Optional[int]) -> Dict[str, Any]:
    with tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "incast.bench", str(scenario)] + ([] if threads is None else [str(threads)]),
            stdout=subprocess.PIPE,
            stderr=stderr,
            preexec_fn=_limit_memory,
        )
        assert child.stdout is not None
        out = child.stdout.read()
        child.stdout.close()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            stderr.seek(0)
            lines = stderr.read().decode(errors="replace").strip().splitlines()
            raise BenchError(lines[-1] if lines else f"exit status {child.returncode}")
    report = json.loads(out)
    # ru_maxrss is in kilobytes on Linux, bytes on macOS.
    scale = 1 if sys.platform == "darwin" else 1024
    wall = max(report["wall_s"], 1e-9)
    summary = report["summary"]
    return {
        "events": summary["events"],
        "packet_hops": summary["packet_hops"],
        "sim_time_s": summary["sim_time_s"],
        "wall_s": report["wall_s"],
        "build_s": report["build_s"],
        "events_per_s": summary["events"] / wall,
        "packet_hops_per_s": summary["packet_hops"] / wall,
        "sim_s_per_wall_s": summary["sim_time_s"] / wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_bytes": usage.ru_maxrss * scale,
        "parts": report["partition"]["parts"],
        "lookahead_s": report["partition"]["lookahead_s"],
        "largest_part_ports": report["partition"]["largest_part_ports"],
        "threads": report["threads"],
    }


def _limit_memory() -> None:
    """In the child: fail with an allocation error rather than wake the OOM killer, which may
    pick another process of the machine."""
    import resource

    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return
    limit = total * 3 // 4
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def format_row(r: Dict[str, Any]) -> str:
    """One line of the benchmark table."""
    def num(x: Optional[float], spec: str) -> str:
        return "-" if x is None else format(x, spec)

    name = r["name"] if r.get("threads") is None else f"{r['name']} x{r['threads']}"
    return (
        f"{name:<28} {_si(r['events_per_s']):>10} {_si(r['packet_hops_per_s']):>10} "
        f"{r['sim_s_per_wall_s']:>12.4g} {r['wall_s']:>8.3f} {r['build_s']:>8.3f} "
        f"{r['peak_rss_bytes'] / 2**20:>7.1f}MB {_si(r['events']):>10} {num(r['ns_per_event'], '.1f'):>9} "
        f"{num(r['events_per_hop'], '.2f'):>10}"
    )


def compare_to_reference(results: List[Dict[str, Any]]) -> List[str]:
    """Each benchmark's cost per event over `REFERENCE`'s, measured in the same call, set in each
    result as `ns_per_event_vs_reference`; the lines to print, none without the reference.

    The ratio is of the fastest run of each: this machine's speed drifts between runs (the
    40-sender incast, 0.08 s long, has shown medians 30% apart in one hour), and interference
    only ever slows a run, so the fastest runs are the closest to the cost of the work itself."""
    reference = next((r for r in results if r["name"] == REFERENCE and r.get("ns_per_event_best")), None)
    if reference is None:
        return []
    lines = [f"ns per event over {REFERENCE}'s ({reference['ns_per_event_best']:.1f} ns), fastest runs of this call:"]
    for r in results:
        if r.get("ns_per_event_best") is not None:
            r["ns_per_event_vs_reference"] = r["ns_per_event_best"] / reference["ns_per_event_best"]
            lines.append(f"  {r['name']:<28} {r['ns_per_event_vs_reference']:.2f}x")
    return lines


def extrapolate(results: List[Dict[str, Any]], sim_seconds: float) -> List[str]:
    """Each benchmark's wall time scaled to `sim_seconds` of simulated time (wall time per
    simulated second, median runs), set in each result as `extrapolated_wall_s`; the lines to
    print. A window that starts from an empty network runs fewer events per simulated second
    than the steady state, so a short window's figure is a lower bound: compare two windows.
    CPU s is the child's user + system time, and CPU h its extrapolation: on a busy machine they
    move less than the wall time. Parts and lookahead say how a run across threads would cut the
    network (`Simulation.partition`): the most threads it could use, and how far ahead of the
    others each part could run."""
    lines = [
        f"extrapolated to {sim_seconds:g} s of simulated time on this machine (wall s x {sim_seconds:g} / sim s):",
        f"  {'benchmark':<28} {'threads':>7} {'sim s':>8} {'wall s':>9} {'CPU s':>9} {'peak RSS':>9} "
        f"{'wall h':>8} {'CPU h':>8} {'speed-up':>8} {'parts':>6} {'lookahead':>10}",
    ]
    one_thread = {r["name"]: r["wall_s"] for r in results if r.get("threads") == 1}
    for r in results:
        if not r["sim_time_s"]:
            continue
        r["extrapolated_wall_s"] = r["wall_s"] * sim_seconds / r["sim_time_s"]
        cpu = r.get("cpu_s")
        cpu_h = "-" if cpu is None else f"{cpu * sim_seconds / r['sim_time_s'] / 3600:.2f}"
        base = one_thread.get(r["name"])
        speedup = f"{base / r['wall_s']:.2f}" if base and r["wall_s"] else "-"
        lines.append(
            f"  {r['name']:<28} {_threads(r):>7} {r['sim_time_s']:>8.4g} {r['wall_s']:>9.1f} "
            f"{'-' if cpu is None else format(cpu, '.1f'):>9} {r['peak_rss_bytes'] / 2**20:>7.1f}MB "
            f"{r['extrapolated_wall_s'] / 3600:>8.2f} {cpu_h:>8} {speedup:>8} {r.get('parts', '-'):>6} "
            f"{_lookahead(r.get('lookahead_s')):>10}"
        )
    return lines


def speedups(results: List[Dict[str, Any]]) -> List[str]:
    """Each benchmark's speed-up on more threads over its runs on 1 thread of the same call, set
    in each result as `speedup` (not on 1 thread's or the one loop's); the lines to print, none
    without a 1-thread result. Two kinds of figure, as this machine's drift calls for: the
    fastest run's over the fastest run's (interference only ever slows a run, so the fastest
    runs are the closest to the work itself), and the ratio of the two runs of each round
    (`measure_interleaved`: seconds apart), with their median."""
    one = {r["name"]: r for r in results if r.get("threads") == 1}
    lines: List[str] = []
    for r in results:
        base = one.get(r["name"])
        if base is None or r.get("threads") in (None, 1):
            continue
        base_walls = [run["wall_s"] for run in base["runs"]]
        walls = [run["wall_s"] for run in r["runs"]]
        if min(walls) <= 0 or min(base_walls) <= 0:
            continue
        fastest = min(base_walls) / min(walls)
        paired = [b / w for b, w in zip(base_walls, walls)]
        r["speedup"] = {"fastest": fastest, "rounds": paired}
        if not lines:
            lines.append("speed-up over 1 thread (fastest run over fastest run; each round's pair, run in turn):")
        rounds = ", ".join(f"{x:.2f}" for x in paired)
        lines.append(
            f"  {r['name']:<28} x{r['threads']:<3} {fastest:.2f}x ({min(base_walls):.3f} s / {min(walls):.3f} s); "
            f"rounds {rounds} (median {quantile(paired, 0.5):.2f}x)"
        )
    return lines


def _threads(r: Dict[str, Any]) -> str:
    """A run's threads for the tables: "loop" for the one event loop over the whole network."""
    return "loop" if r.get("threads") is None else str(r["threads"])


def _lookahead(seconds: Optional[float]) -> str:
    """A part's lookahead for the table: "-" for a network of one part."""
    return "-" if seconds is None else f"{seconds * 1e6:.3g}us"


def _si(x: float) -> str:
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.2f}{suffix}"
    return f"{x:.0f}"


def write_json(results: List[Dict[str, Any]], path: Path) -> None:
    """Writes the measurements (with every run, for later comparison) as JSON."""
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def _child(argv: Sequence[str]) -> int:
    """The measured process: builds and runs one scenario, prints timings and the summary."""
    from incast.api import CHUNK_EVENTS, simulation

    scenario, *threads = argv
    started = time.perf_counter()
    sim = simulation(scenario, threads=threads[0] if threads else None)
    # The network's cut is a property of the built network: counted with the build, not the run.
    part = dict(sim.partition())
    # None: the one event loop over the whole network; else rounds over its parts.
    threads_used = sim.threads()
    built = time.perf_counter()
    # The flow rows are taken as the run goes and dropped, as `incast run --stream-flows` takes
    # them to write them out: the peak memory is the engine's, following the flows in flight.
    while not sim.step(CHUNK_EVENTS):
        sim.take_flows()
    sim.take_flows()
    raw = sim.finish()
    done = time.perf_counter()
    report = {"build_s": built - started, "wall_s": done - built, "summary": raw["summary"], "partition": part,
              "threads": threads_used}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
