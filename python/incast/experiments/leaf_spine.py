"""`incast experiment leaf-spine`: pFabric's Section 5 experiment, the field's standard one
(Poisson arrivals between random hosts of a 144-host leaf-spine, web-search or data-mining flow
sizes, at a load from 0.2 to 0.8), reported as FCT slowdown by size: the mean and 99th
percentile of flows up to 100 KB and the mean of flows over 10 MB, the three statistics pFabric
plots per workload.

Its settings, and the source of each, are `incast.reproduce.pfabric.settings`; this module runs
them as a sweep, reduces the flows to slowdowns, prints, plots and saves them.

pFabric published these curves only as figures, and no public source gives their values: what a
user can compare is direction (DCTCP's short flows well below TCP's; slowdowns rising with load;
the long flows of both close together), not numbers (docs/results-leaf-spine.md)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from incast.reproduce.pfabric.settings import (
    ARRIVALS_MS,
    BUFFER,
    DCTCP_K_PACKETS,
    LABELS,
    LOAD_KEY,
    LOADS,
    MIN_RTO,
    PANELS,
    PROTOCOL_KEY,
    PROTOCOLS,
    SIZE_KEY,
    WARMUP_SHARE,
    WORKLOADS,
    sweep_tree,
)
from incast.slowdown import PFABRIC_EDGES, by_size
from incast.sweep import SweepResult, run_sweep, sweep_from_dict

if TYPE_CHECKING:
    import pyarrow as pa


def run(
    out: Path,
    *,
    seeds: int = 3,
    arrivals_ms: float = ARRIVALS_MS,
    loads: Sequence[float] = LOADS,
    workloads: Sequence[str] = WORKLOADS,
    protocols: Sequence[str] = PROTOCOLS,
    jobs: Optional[int] = None,
    scheduler: Optional[str] = None,
    progress: bool = False,
) -> SweepResult:
    """Runs (or resumes) the sweep into `out/runs`: points already there are not run again."""
    sweep = sweep_from_dict(sweep_tree(seeds, arrivals_ms, loads, workloads, protocols))
    return run_sweep(sweep, out / "runs", jobs=jobs, scheduler=scheduler, progress=progress)


def per_seed(result: SweepResult) -> "pa.Table":
    """Slowdown by pFabric's size buckets for every point and seed of the sweep."""
    return by_size(result.flows(), PFABRIC_EDGES, by=[PROTOCOL_KEY, SIZE_KEY, LOAD_KEY, "seed"])


def summarize(table: "pa.Table") -> List[Dict[str, Any]]:
    """One row per (workload, protocol, load, bucket): the mean over seeds of each statistic,
    with its smallest and largest seed, and the flows counted over all seeds."""
    groups: Dict[Tuple[str, str, float, str], List[Dict[str, Any]]] = {}
    for row in table.to_pylist():
        key = (row[SIZE_KEY], row[PROTOCOL_KEY], row[LOAD_KEY], row["bucket"])
        groups.setdefault(key, []).append(row)
    out = []
    for (size, protocol, load, bucket), rows in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        entry: Dict[str, Any] = {
            "workload": size, "protocol": protocol, "load": load, "bucket": bucket,
            "seeds": len(rows),
            "flows": sum(r["flows"] for r in rows),
            "unfinished": sum(r["unfinished"] for r in rows),
        }
        for stat in ("mean", "p50", "p99"):
            values = [r[stat] for r in rows if r[stat] is not None]
            entry[stat] = math.fsum(values) / len(values) if values else None
            entry[f"{stat}_min"] = min(values) if values else None
            entry[f"{stat}_max"] = max(values) if values else None
        out.append(entry)
    return out


def _order(key: Tuple[str, str, float, str]) -> Tuple[int, int, float, str]:
    """Workloads and protocols in the order of `WORKLOADS` and `PROTOCOLS`, then load."""
    size, protocol, load, bucket = key

    def rank(names: Sequence[str], name: str) -> int:
        return names.index(name) if name in names else len(names)

    return rank(WORKLOADS, size), rank(PROTOCOLS, protocol), load, bucket


def format_rows(rows: List[Dict[str, Any]]) -> str:
    """The summary as a text table: the three statistics pFabric plots, per point."""
    labels = list(dict.fromkeys(r["bucket"] for r in rows))

    def num(v: Optional[float]) -> str:
        return "-" if v is None else f"{v:.2f}"

    lines = [f"{'workload':<12} {'protocol':<8} {'load':>5} {'flows':>8} {'<=100KB mean':>13} "
             f"{'<=100KB p99':>12} {'>10MB mean':>11} {'unfinished':>10}"]
    index = {(r["workload"], r["protocol"], r["load"], r["bucket"]): r for r in rows}
    for w, p, load in dict.fromkeys((r["workload"], r["protocol"], r["load"]) for r in rows):
        cells = [index.get((w, p, load, labels[i])) if i < len(labels) else None for i, _, _ in PANELS]
        stats = [num(c[stat]) if c else "-" for c, (_, stat, _) in zip(cells, PANELS)]
        flows = sum(index[(w, p, load, b)]["flows"] for b in labels if (w, p, load, b) in index)
        left = sum(index[(w, p, load, b)]["unfinished"] for b in labels if (w, p, load, b) in index)
        lines.append(f"{w:<12} {p:<8} {load:>5.2f} {flows:>8,} {stats[0]:>13} {stats[1]:>12} {stats[2]:>11} "
                     f"{left:>10,}")
    return "\n".join(lines)


def plot(rows: List[Dict[str, Any]], *outputs: Tuple[Path, Optional[str]]) -> None:
    """One row of panels per workload, one panel per statistic of `PANELS`, slowdown against
    load, a line per protocol with the range over seeds as error bars, drawn once and saved to
    each (path, format) of `outputs` (format None: from the path's suffix). Protocols differ by
    line style and marker, so the figure reads in greyscale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(r["bucket"] for r in rows))
    workloads = list(dict.fromkeys(r["workload"] for r in rows))  # in `summarize`'s order
    styles = {"pfabric": (":", "^", "0.3"), "pdq": ("-.", "D", "0.2"), "dctcp": ("-", "o", "0.1"),
              "tcp": ("--", "s", "0.45")}
    fig, axes = plt.subplots(len(workloads), len(PANELS), figsize=(4 * len(PANELS), 3.2 * len(workloads)),
                             squeeze=False)
    for i, w in enumerate(workloads):
        for j, (bucket, stat, title) in enumerate(PANELS):
            ax = axes[i][j]
            for protocol in PROTOCOLS:
                points = sorted(
                    (r["load"], r[stat], r[f"{stat}_min"], r[f"{stat}_max"]) for r in rows
                    if r["workload"] == w and r["protocol"] == protocol and bucket < len(labels)
                    and r["bucket"] == labels[bucket] and r[stat] is not None
                )
                if not points:
                    continue
                line, marker, grey = styles.get(protocol, (":", "^", "0.3"))
                x = [p[0] for p in points]
                y = [p[1] for p in points]
                err = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
                face = "white" if protocol == "tcp" else grey
                ax.errorbar(x, y, yerr=err, linestyle=line, marker=marker, color=grey, capsize=3,
                            markerfacecolor=face, label=LABELS.get(protocol, protocol))
            ax.set_title(f"{w}: {title}", fontsize=10)
            ax.set_xlabel("load")
            ax.set_ylabel("FCT slowdown")
            ax.set_ylim(bottom=0)
            ax.grid(True, color="0.85")
            if i == 0 and j == 0:
                ax.legend()
    fig.tight_layout()
    for path, fmt in outputs:
        fig.savefig(path, format=fmt)
    plt.close(fig)


BY_SIZE_COLUMNS = (PROTOCOL_KEY, SIZE_KEY, LOAD_KEY, "size_bytes", "slowdown", "measured")
"""The columns of the sweep's flows `plot_by_size` reads."""


def plot_by_size(flows: "pa.Table", *outputs: Tuple[Path, Optional[str]]) -> None:
    """The median and 99th-percentile slowdown against flow size (`incast.plots.slowdown`), a
    panel per workload and load (rows and columns), a line per protocol with its seeds pooled,
    drawn once and saved to each (path, format) of `outputs`. This is the figure a single load
    asks for: `plot` draws one point per panel then. `flows` needs `BY_SIZE_COLUMNS`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pyarrow.compute as pc

    from incast import plots

    def values(column: str, order: Sequence[Any] = ()) -> List[Any]:
        present = set(flows.column(column).unique().to_pylist())
        return [v for v in order if v in present] + sorted(present - set(order), key=str)

    workloads, loads = values(SIZE_KEY, WORKLOADS), values(LOAD_KEY)
    protocols = values(PROTOCOL_KEY, PROTOCOLS)
    fig, axes = plt.subplots(len(workloads), len(loads), figsize=(4.2 * len(loads), 3.4 * len(workloads)),
                             squeeze=False)
    for i, w in enumerate(workloads):
        for j, load in enumerate(loads):
            ax = axes[i][j]
            here = flows.filter(pc.and_(pc.equal(flows[SIZE_KEY], w), pc.equal(flows[LOAD_KEY], load)))
            runs = {LABELS.get(p, p): here.filter(pc.equal(here[PROTOCOL_KEY], p)) for p in protocols}
            plots.slowdown({label: t for label, t in runs.items() if t.num_rows}, ax=ax)
            ax.set_title(f"{w}, load {load:g}", fontsize=10)
            if (i, j) != (0, 0) and ax.get_legend() is not None:
                ax.get_legend().remove()
    fig.tight_layout()
    for path, fmt in outputs:
        fig.savefig(path, format=fmt)
    plt.close(fig)


def describe(seeds: int, arrivals_ms: float) -> str:
    """The heading printed above the table."""
    return (
        f"pFabric's leaf-spine (144 hosts, 10/40 Gbps); TCP, DCTCP and PDQ: {BUFFER} per port, "
        f"DCTCP K={DCTCP_K_PACKETS}, "
        f"min RTO {MIN_RTO}; pFabric: 36 KiB per port, RTO 45 us; Poisson all-to-all, {arrivals_ms:g} ms of arrivals "
        f"(first {100 * WARMUP_SHARE:g}% warm-up), run until every flow finishes; "
        f"{seeds} seed(s) per point. Slowdown = FCT / FCT alone on the idle network; "
        "mean over seeds."
    )


def save(per_seed_table: "pa.Table", rows: List[Dict[str, Any]], out: Path,
         flows: Optional["pa.Table"] = None) -> List[Path]:
    """Writes the per-seed table, the summary and the figure against load (PNG and PDF) into
    `out`, and with the sweep's `flows` (`BY_SIZE_COLUMNS`) the figure against flow size."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from incast.durable import staged_files

    written = [out / "slowdown-per-seed.parquet", out / "slowdown.parquet", out / "slowdown.png", out / "slowdown.pdf"]
    if flows is not None:
        written += [out / "slowdown-by-size.png", out / "slowdown-by-size.pdf"]
    with staged_files() as stage:
        pq.write_table(per_seed_table, stage(written[0]))
        pq.write_table(pa.Table.from_pylist(rows), stage(written[1]))
        plot(rows, (stage(written[2]), "png"), (stage(written[3]), "pdf"))
        if flows is not None:
            plot_by_size(flows, (stage(written[4]), "png"), (stage(written[5]), "pdf"))
    return written


__all__ = ["ARRIVALS_MS", "BY_SIZE_COLUMNS", "LABELS", "LOADS", "PANELS", "PROTOCOLS", "WORKLOADS", "describe",
           "format_rows", "per_seed", "plot", "plot_by_size", "run", "save", "summarize", "sweep_tree"]
