"""What every reproduction shares: the context it runs in (output directory, quick or full, where
its sweeps run) and how its results and their verdicts (the rules: `verdict`) are written.

A reproduction is a function from a `Context` to an `Outcome`. It runs its simulations as sweeps
(`Context.sweep`), so that every point is cached: rerunning a reproduction, or a second one over
the same points (Figures 9 and 10 of D3 share theirs), computes nothing twice. It then returns
its data as Arrow tables, describes its figure (`figures.Plot`: drawn once, from the mean over
seeds), and states each of the paper's claims beside our number with a verdict computed by a
stated rule, never typed in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from incast.reproduce import figures
from incast.reproduce.figures import Panel, Plot, Series

# The claim, its verdicts and the rules that decide them: `verdict`.
from incast.reproduce.verdict import DEVIATES, NOT_EXERCISED, Claim, Range, Tally, over_seeds

if TYPE_CHECKING:
    import pyarrow as pa

    from incast.sweep import Sweep, SweepResult


def size_bytes(size: str) -> int:
    """A size the reproductions write, `"100KB"` or `"1MB"` (powers of 1000, as in scenario
    files), in bytes."""
    return int(size[:-2]) * {"KB": 1000, "MB": 1_000_000}[size[-2:]]


def varied_value(value: Any) -> Any:
    """A list or table a sweep varied, as the flow table stores it (JSON text), back as a value."""
    import json

    return json.loads(value) if isinstance(value, str) else value


def table(rows: List[Dict[str, Any]]) -> "pa.Table":
    """An Arrow table from rows of a figure's data."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows)


# The x values of one figure's curves: sender counts, or rates and loads.
_X = TypeVar("_X", int, float)


def line_plot(curves: Mapping[str, Mapping[_X, float]], *, xlabel: str, ylabel: str, title: str,
              percent: bool = True, ylim: Optional[Tuple[float, float]] = None,
              within: Optional[Range] = None) -> Plot:
    """One panel of labelled lines, `curves[label][x] = y` (y in [0, 1] drawn as % when
    `percent`, and then kept in [0, 100]): the shape of most of the papers' figures."""
    scale = 100.0 if percent else 1.0
    bounds = (0.0, 100.0) if percent else within
    return Plot(title, [Panel("", xlabel, ylabel, ylim=ylim, series=[
        Series(label, {x: scale * curve[x] for x in sorted(curve)}, within=bounds)
        for label, curve in curves.items()])],
        panel_size=(7.0, 4.0))


@dataclass
class Outcome:
    """What a reproduction produced."""

    claims: List[Claim]
    tables: Dict[str, "pa.Table"]
    """Written as `<name>.parquet`."""
    figure: Plot
    """Drawn as `figure.png` (`figures.draw`), from the mean over seeds."""
    notes: str = ""
    """Setting and caveats, markdown, shown above the claims."""


@dataclass(frozen=True)
class Reproduction:
    """One figure or table of a paper."""

    id: str
    """`d3-fig9`, `d2tcp-table3`: what `incast reproduce ID` takes."""
    paper: str
    """`D3` or `D2TCP`."""
    title: str
    """What is reproduced, e.g. "Figure 9: senders supported at 99% application throughput"."""
    run: Callable[["Context"], Outcome] = field(repr=False)
    seeds: int = 5
    """How many seeds a full run takes: the reproduction runs once per seed (1, 2, ...) and its
    claims are joined over them (`run_over_seeds`). 0 for a reproduction that names the seeds of
    its sweeps itself and estimates over them on its own."""
    quick_seeds: int = 3
    """The same for a quick run: enough for the spread the tests' tolerances come from."""

    def seed_list(self, quick: bool) -> List[int]:
        """The seeds a run of this reproduction takes (empty: it picks its own)."""
        return list(range(1, 1 + (self.quick_seeds if quick else self.seeds)))


@dataclass
class Context:
    """Where and how a reproduction runs."""

    out: Path
    """The reproduction's own directory (`DIR/ID`)."""
    runs: Path
    """Where sweeps keep their points, shared by all reproductions under `DIR` (`DIR/runs`)."""
    quick: bool = False
    """A reduced version (fewer seeds and points) meant for CI."""
    jobs: Optional[int] = None
    scheduler: Optional[str] = None
    progress: bool = False
    seed: Optional[int] = None
    """The seed of this run of the reproduction: every sweep that names no seeds of its own runs
    this one (`run_over_seeds` sets it)."""
    simulations_run: int = 0
    """Simulations this reproduction ran, over all its sweeps."""
    simulations_cached: int = 0
    """Simulations it took from the cache (run before, by it or by another reproduction): a wall
    time is a cold one only when this is 0."""
    d3: Mapping[str, Any] = field(default_factory=dict)
    """`[d3]` keys set in every simulation of the reproduction, over its own (`incast reproduce
    --d3 variant=repaired`): the same figure under another D3. A key the reproduction varies itself
    is an error (`d3_overridden`)."""

    def sweep(self, name: str, scenario: Mapping[str, Any], *, grid: Optional[Mapping[str, Sequence[Any]]] = None,
              zips: Sequence[Mapping[str, Sequence[Any]]] = (),
              seeds: Union[int, Sequence[int], None] = None) -> "SweepResult":
        """Runs a sweep over `scenario`: every combination of the `grid` values, times each
        group of `zips` (keys of one group vary in lock-step), times the seeds (by default the
        context's seed, or seed 1). Every point is
        cached under `runs/<name>-<sweep id>`, so two reproductions asking for the same sweep
        share it and a rerun after an interrupt only computes what is missing."""
        from incast.sweep import run_sweep, sweep_from_dict

        if seeds is None:
            seeds = [self.seed] if self.seed is not None else 1
        scenario = d3_overridden(scenario, self.d3, [*(grid or {}), *(k for group in zips for k in group)])
        vary: Dict[str, Any] = {}
        if grid:
            vary["grid"] = {k: list(v) for k, v in grid.items()}
        if zips:
            vary["zip"] = [{k: list(v) for k, v in group.items()} for group in zips]
        tree: Dict[str, Any] = {"scenario": dict(scenario), "seeds": seeds if isinstance(seeds, int) else list(seeds)}
        if vary:
            tree["vary"] = vary
        # Expanding and checking every point of a large sweep takes seconds; reproductions that
        # share a sweep ask for it once per seed each.
        key = json.dumps(tree, sort_keys=True)
        sweep = _SWEEPS.get(key)
        if sweep is None:
            sweep = _SWEEPS.setdefault(key, sweep_from_dict(tree))
        result = run_sweep(sweep, self.runs / f"{name}-{sweep.id[:12]}", jobs=self.jobs, scheduler=self.scheduler,
                           progress=self.progress)
        self.simulations_run += result.ran
        self.simulations_cached += result.cached
        return result


def d3_overridden(scenario: Mapping[str, Any], d3: Mapping[str, Any], varied: Sequence[str]) -> Mapping[str, Any]:
    """`scenario` with the `d3` keys set in its `[d3]` table; a `SweepError` naming the key when
    the sweep varies it itself (the reproduction compares its values: an override would be
    silently undone at every point)."""
    from incast.sweep import SweepError

    if not d3:
        return scenario
    for key in d3:
        if f"d3.{key}" in varied:
            raise SweepError(f"--d3 {key}", "this reproduction varies d3." + key + " itself; it cannot be set")
    return {**scenario, "d3": {**scenario.get("d3", {}), **d3}}


_SWEEPS: Dict[str, "Sweep"] = {}
"""Sweeps already expanded and checked in this process, by their tree."""


def run_over_seeds(reproduction: Reproduction, ctx: Context) -> Outcome:
    """Runs `reproduction` once per seed of its `seed_list` and joins the runs: each claim over
    the seeds (`verdict.over_seeds`: estimates with 95% intervals, the rule applied to their
    means), each table as every seed's rows with a `seed` column, the figure as the mean over
    seeds with its intervals (`figures.join`)."""
    seeds = reproduction.seed_list(ctx.quick)
    if not seeds:
        return reproduction.run(ctx)
    outcomes: List[Outcome] = []
    try:
        for seed in seeds:
            ctx.seed = seed
            outcomes.append(reproduction.run(ctx))
    finally:
        ctx.seed = None
    return join_outcomes(outcomes, seeds)


def join_outcomes(outcomes: Sequence[Outcome], seeds: Sequence[int]) -> Outcome:
    """One outcome from the same reproduction's outcome on each of `seeds` (see `run_over_seeds`)."""
    import pyarrow as pa

    first = outcomes[0]
    if len(outcomes) == 1:
        return first
    for seed, o in zip(seeds[1:], outcomes[1:]):
        if len(o.claims) != len(first.claims) or set(o.tables) != set(first.tables):
            raise ValueError(f"seed {seed} stated {len(o.claims)} claims and tables {sorted(o.tables)}, seed "
                             f"{seeds[0]} {len(first.claims)} and {sorted(first.tables)}: a reproduction must "
                             "state the same claims on every seed")
    claims = [over_seeds([o.claims[i] for o in outcomes]) for i in range(len(first.claims))]
    tables = {}
    for name in first.tables:
        parts = []
        for seed, o in zip(seeds, outcomes):
            t = o.tables[name]
            if "seed" not in t.column_names:
                t = t.add_column(0, "seed", pa.array([seed] * t.num_rows, pa.int64()))
            parts.append(t)
        tables[name] = pa.concat_tables(parts, promote_options="default")
    shown = f"seeds {seeds[0]}-{seeds[-1]}" if list(seeds) == list(range(seeds[0], seeds[-1] + 1)) else \
        "seeds " + ", ".join(map(str, seeds))
    notes = (first.notes.rstrip() + "\n\n" if first.notes else "") + (
        f"Every run was made on {shown}: each number a verdict uses is the mean over the seeds, with its 95% "
        "confidence interval (Student's t, cut to the range the quantity can take: a share stays within 0-100%), "
        "and the verdict is the rule applied to the mean. The numbers quoted in explanations are means over the "
        "seeds too, and the figure draws the means with their intervals; the tables hold every seed's rows "
        "(column `seed`).")
    return Outcome(claims=claims, tables=tables, figure=figures.join([o.figure for o in outcomes], len(seeds)),
                   notes=notes)


def write_outcome(reproduction: Reproduction, outcome: Outcome, ctx: Context, wall_s: float,
                  seeds: Optional[Sequence[int]] = None) -> None:
    """Writes `<table>.parquet`, `figure.png`, `report.json` and `report.md` into `ctx.out`, all or
    nothing: an interrupted write leaves the previous report whole."""
    import matplotlib.pyplot as plt
    import pyarrow.parquet as pq

    from incast.durable import staged_files

    figure = figures.draw(outcome.figure)
    ctx.out.mkdir(parents=True, exist_ok=True)
    report = {
        "id": reproduction.id,
        "paper": reproduction.paper,
        "title": reproduction.title,
        "quick": ctx.quick,
        "wall_s": round(wall_s, 1),
        "simulations": {"run": ctx.simulations_run, "cached": ctx.simulations_cached},
        "seeds": list(seeds) if seeds else None,
        "d3": dict(ctx.d3),
        "notes": outcome.notes,
        "claims": [c.report() for c in outcome.claims],
        "tables": sorted(outcome.tables),
    }
    with staged_files() as stage:
        for name, table in outcome.tables.items():
            pq.write_table(table, stage(ctx.out / f"{name}.parquet"))
        figure.savefig(stage(ctx.out / "figure.png"), dpi=110, format="png")
        stage(ctx.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
        stage(ctx.out / "report.md").write_text(markdown(report))
    plt.close(figure)  # pyplot keeps every figure alive until closed


def markdown(report: Mapping[str, Any]) -> str:
    """The report of one reproduction as markdown."""
    mode = run_mode(report)
    d3 = report.get("d3") or {}
    options = "".join(f" --d3 {k}={_option_value(v)}" for k, v in d3.items())
    lines = [
        f"# {report['paper']} {report['title']}",
        "",
        f"`incast reproduce {report['id']}{options}`: {mode}, {wall_time(report)}.",
        "",
        "![figure](figure.png)",
        "",
    ]
    if d3:
        lines += ["Every D3 and RCPdc simulation of this run had " + ", ".join(
            f"`{k} = {_option_value(v)}`" for k, v in d3.items()) + " in its `[d3]` table (docs/scenario.md, "
            "`[d3]`), over the reproduction's own settings.", ""]
    if report["notes"]:
        lines += [report["notes"].strip(), ""]
    lines += [f"{Tally.of(report['claims'])}.", ""]
    lines += ["| claim (paper) | paper | ours | verdict | rule |", "| --- | --- | --- | --- | --- |"]
    for c in report["claims"]:
        lines.append(f"| {_cell(c['claim'])} | {_cell(c['paper'])} | {_cell(c['ours'])} | **{verdict_text(c)}** | "
                     f"{_cell(rule_text(c))} |")
    for verdict, heading, missing in ((DEVIATES, "Deviations", "not explained yet."),
                                      (NOT_EXERCISED, "Not exercised", "premise not stated.")):
        claims = [c for c in report["claims"] if c["verdict"] == verdict]
        if claims:
            lines += ["", f"## {heading}", ""]
            lines += [f"- *{c['claim']}*: {c['why'] or missing}" for c in claims]
    lines += ["", "Data: " + ", ".join(f"`{t}.parquet`" for t in report["tables"]) + "."]
    return "\n".join(lines) + "\n"


def _option_value(value: Any) -> str:
    """A `[d3]` value as `--d3 key=value` writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def run_mode(report: Mapping[str, Any]) -> str:
    """`full run over 5 seeds`, `quick (reduced) run over 3 seeds`."""
    mode = "quick (reduced) run" if report["quick"] else "full run"
    seeds = report.get("seeds")
    if isinstance(seeds, list) and seeds:
        mode += f" over {len(seeds)} seed{'s' if len(seeds) > 1 else ''}"
    return mode


def wall_time(report: Mapping[str, Any]) -> str:
    """`12.3 s of wall time, cold (40 simulations run)`: a time is labelled cold only when the
    reproduction ran every simulation it used; a warm one says how many came from the cache.
    Reports written before the count was kept say nothing of it."""
    text = f"{report['wall_s']} s of wall time"
    sims = report.get("simulations")
    if not isinstance(sims, Mapping):
        return text
    run, cached = sims.get("run", 0), sims.get("cached", 0)
    if not run and not cached:
        return f"{text} (no packet-level simulation)"
    if cached:
        return f"{text}, warm ({run} simulations run, {cached} taken from the cache)"
    return f"{text}, cold ({run} simulations run)"


def verdict_text(claim: Mapping[str, Any]) -> str:
    """The verdict as shown: with a warning when our interval crosses the rule's edge."""
    if claim.get("straddles") and claim["verdict"] != NOT_EXERCISED:
        return f"{claim['verdict']} (within the noise of the edge)"
    return str(claim["verdict"])


def rule_text(claim: Mapping[str, Any]) -> str:
    """The rule as shown: with the reason for its tolerance, when it has one."""
    if claim.get("tolerance"):
        return f"{claim['rule']}; tolerance: {claim['tolerance']}"
    return str(claim["rule"])


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
