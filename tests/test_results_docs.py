"""The results docs are generated from the committed reports (python/incast/reproduce/docs/): the
committed docs match the committed reports, blocks are replaced and nothing else, bad markers and
missing data are one-line errors, and every renderer reads tables of one seed and of several."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from incast.reproduce.docs import DEFAULT_FILES, RENDERERS, DocsError, Reproductions, check, generate, main, write
from incast.reproduce.rendering.cells import number, percent
from incast.reproduce.rendering.seeds import per_seed, seed_means, seed_tables
from incast.reproduce.verdict import Estimate

from conftest import REPO

COMMITTED = REPO / "docs" / "reproductions"
DOCS = [REPO / f for f in DEFAULT_FILES]


def copy_run(tmp_path: Path) -> Path:
    """The committed run's reports and tables, without its figures and HTML page."""
    out = tmp_path / "reproductions"
    shutil.copytree(COMMITTED, out, ignore=shutil.ignore_patterns("*.png", "*.html", "*.md"))
    return out


def edit_table(path: Path, column: str, where: Dict[str, Any], value: Any) -> None:
    """Sets `column` to `value` in the rows of the Parquet table at `path` matching `where`."""
    rows = pq.read_table(path).to_pylist()
    hit = 0
    for row in rows:
        if all(row[k] == v for k, v in where.items()):
            row[column] = value
            hit += 1
    assert hit, where
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)


# --- (a) the committed docs are generated from the committed reports ----------------------------


def test_committed_docs_match_the_committed_reports() -> None:
    assert check(DOCS, COMMITTED) == [], "run `make docs` after changing docs/reproductions/"


def test_generating_twice_changes_nothing() -> None:
    r = Reproductions(COMMITTED)
    for path in DOCS:
        once, _ = generate(path.read_text(), r)
        twice, changed = generate(once, r)
        assert twice == once and changed == []


def test_every_renderer_is_used_or_generic() -> None:
    # A renderer no doc names is dead code; the per-reproduction ones are there for any doc.
    used = {name for path in DOCS for name in re.findall(r"<!-- generated: (\S+) -->", path.read_text())}
    unused = {n for n in RENDERERS if n not in used and not n.startswith(("wall-time-", "verdicts-"))}
    assert unused == set()


# --- (b) markers: only the blocks change; bad markers are errors ---------------------------------

FAKE = {"one": lambda r: "1", "table": lambda r: "| a |\n| --- |\n| 1 |\n", "two-lines": lambda r: "a\nb"}


def fake(text: str) -> str:
    new, _ = generate(text, Reproductions(Path("nowhere")), FAKE)
    return new


def test_only_the_text_inside_blocks_changes() -> None:
    text = ("Before <!-- generated: one -->old<!-- end generated --> after.\n\n"
            "<!-- generated: table -->\n| stale |\n<!-- end generated -->\nTail, untouched  \n")
    assert fake(text) == ("Before <!-- generated: one -->1<!-- end generated --> after.\n\n"
                          "<!-- generated: table -->\n| a |\n| --- |\n| 1 |\n<!-- end generated -->\n"
                          "Tail, untouched  \n")


def test_a_display_block_takes_its_markers_indentation() -> None:
    text = "- item:\n\n  <!-- generated: table -->\n  <!-- end generated -->\n"
    assert fake(text) == ("- item:\n\n  <!-- generated: table -->\n  | a |\n  | --- |\n  | 1 |\n"
                          "  <!-- end generated -->\n")


def test_changed_blocks_are_named_and_a_second_pass_changes_nothing() -> None:
    text = "x <!-- generated: one -->0<!-- end generated --> y <!-- generated: one -->1<!-- end generated -->\n"
    new, changed = generate(text, Reproductions(Path("nowhere")), FAKE)
    assert [(b.name, b.line) for b in changed] == [("one", 1)]
    assert generate(new, Reproductions(Path("nowhere")), FAKE) == (new, [])


@pytest.mark.parametrize("text, needle", [
    ("a <!-- generated: nope --><!-- end generated -->", "line 1: block 'nope': no renderer of that name"),
    ("a\n\nb <!-- generated: one -->never ends", "line 3: block 'one' has no end marker"),
    ("a <!-- generated: one -->x <!-- generated: one -->y<!-- end generated -->", "block 'one' has no end marker"),
    ("a <!-- end generated -->", "line 1: an end marker without a block before it"),
    ("a\n<!-- generated: one -->1<!-- end generated -->", "line 2: inline block 'one' opens a line"),
    ("- a\n  <!-- generated: one -->1<!-- end generated -->", "inline block 'one' opens a line"),
    ("a <!-- generated: two-lines --><!-- end generated -->", "its renderer wrote several lines"),
])
def test_bad_markers_are_errors(text: str, needle: str) -> None:
    with pytest.raises(DocsError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        fake(text)


# --- (c) seeds: the mean over seeds per group ------------------------------------------------------


def seeded(rows: List[Dict[str, Any]], seeds: List[int]) -> pa.Table:
    return pa.Table.from_pylist([{**row, "seed": s} for s in seeds for row in rows])


def test_seed_means_groups_by_every_other_column() -> None:
    table = pa.Table.from_pylist([
        {"scheme": "d3", "senders": 10, "seed": 1, "share": 0.90, "flows": 100},
        {"scheme": "d3", "senders": 10, "seed": 2, "share": 0.94, "flows": 103},
        {"scheme": "d3", "senders": 10, "seed": 3, "share": 0.92, "flows": 98},
        {"scheme": "tcp", "senders": 10, "seed": 1, "share": 0.50, "flows": 100},
        {"scheme": "tcp", "senders": 10, "seed": 2, "share": None, "flows": 103},
    ])
    m = seed_means(table, ["share"], ignore=["flows"])
    assert m.keys == ("scheme", "senders")
    d3 = m.of("share", scheme="d3", senders=10)
    assert (d3.seeds, round(d3.mean, 6)) == (3, 0.92) and d3 == Estimate.of([0.90, 0.94, 0.92])
    assert d3.low < 0.92 < d3.high
    # A seed without a value is left out, not counted as zero.
    assert m.of("share", scheme="tcp", senders=10) == Estimate.of([0.50])
    assert m.levels("scheme") == ["d3", "tcp"]


def test_a_table_without_a_seed_column_is_one_seed() -> None:
    m = seed_means(pa.Table.from_pylist([{"scheme": "d3", "share": 0.9}]), ["share"])
    assert m.of("share", scheme="d3") == Estimate(0.9, 0.9, 0.9, 1)
    assert number(m.of("share", scheme="d3"), "{:.2f}") == "0.90"


def test_seed_means_refuses_a_grouping_that_misses_a_varying_column() -> None:
    table = seeded([{"scheme": "d3", "flows": 100, "share": 0.9}, {"scheme": "d3", "flows": 101, "share": 0.8}], [1])
    with pytest.raises(DocsError, match="two rows of seed 1"):
        seed_means(table, ["share", "flows"])
    assert seed_means(table.slice(0, 1), ["share"]).keys == ("scheme", "flows")
    with pytest.raises(DocsError, match="no column 'missing'"):
        seed_means(table, ["missing"])


def test_per_seed_takes_a_statistic_of_each_seeds_rows() -> None:
    table = seeded([{"n": n, "share": 1.0 - 0.01 * n} for n in range(1, 6)], [1, 2])
    table = table.set_column(table.schema.get_field_index("share"), "share",
                             pc.subtract(table["share"], pc.multiply(pc.cast(table["seed"], pa.float64()), 0.001)))
    assert list(seed_tables(table)) == [1, 2] and "seed" not in seed_tables(table)[1].column_names
    worst = per_seed(table, lambda rows: {"min": min(rows["share"].to_pylist())})
    assert worst["min"] == Estimate.of([0.95 - 0.001, 0.95 - 0.002])


def test_numbers_show_their_interval_only_over_several_seeds() -> None:
    assert number(Estimate.of([15.0, 18.0, 21.0]), "{:.0f}") == "18 (11-25)"
    assert number(Estimate.of([18.0]), "{:.0f}") == "18"
    assert number(Estimate.of([0.0, 0.0]), "{:.2f}", zero="0") == "0"
    assert number(Estimate.of([-1.0, 1.0]), "{:.1f}") == "0.0 (-12.7 to 12.7)"
    assert number(None) == ""


def multi_seed_run(tmp_path: Path, seeds: List[int]) -> Path:
    """The committed run's first seed repeated over `seeds`: every table with one set of rows per
    seed (the same rows for each), every report with `seeds` and per-claim `numbers`."""
    out = copy_run(tmp_path)
    for report_path in out.glob("*/report.json"):
        report = json.loads(report_path.read_text())
        for name in report["tables"]:
            path = report_path.parent / f"{name}.parquet"
            table = pq.read_table(path)
            if "seed" in table.column_names:
                table = table.filter(pc.equal(table["seed"], 1)).drop_columns(["seed"])
            pq.write_table(pa.concat_tables([table.append_column("seed", pa.array([s] * table.num_rows, pa.int64()))
                                             for s in seeds]), path)
        report["seeds"] = seeds
        for claim in report["claims"]:
            claim["numbers"] = {"ours": [1.0 for _ in seeds]}
        report_path.write_text(json.dumps(report, indent=1))
    return out


def test_every_renderer_reads_the_multi_seed_format(tmp_path: Path) -> None:
    r = Reproductions(multi_seed_run(tmp_path, [1, 2, 3]))
    committed = Reproductions(COMMITTED)
    for name, render in RENDERERS.items():
        text = render(r)
        assert text.strip(), name
    # Identical seeds: the same numbers, with no interval (none has any width).
    assert "| moderate (30 ms) | 5 | 5 | 5 | 23 | 4.6 | 4.6 |" in \
        RENDERERS["d3-fig9-senders"](r)
    assert RENDERERS["d2tcp-headline"](r) == RENDERERS["d2tcp-headline"](committed)


def test_renderers_show_the_spread_over_seeds(tmp_path: Path) -> None:
    out = multi_seed_run(tmp_path, [1, 2, 3])
    for seed, d3 in ((1, 15), (2, 18), (3, 21)):
        edit_table(out / "d3-fig9" / "figure9.parquet", "supported_99", {"scheme": "d3", "deadline_mean": "30ms",
                                                                        "seed": seed}, d3)
    r = Reproductions(out)
    assert "| moderate (30 ms) | 5 | 5 | 5 | 18 (11-25) | 3.6 (2.11-5.09) | 3.6 (2.11-5.09) |" in \
        RENDERERS["d3-fig9-senders"](r)
    # Figure 11 is a table of flows: its statistics are taken per seed, then over the seeds. Seed 3
    # loses D3's late flows: its missed fraction is 0 and it has no overshoot to contribute.
    flows = out / "d3-fig11" / "figure11.parquet"
    table = pq.read_table(flows)
    d3 = pc.equal(table["scheme"], "d3")
    pq.write_table(table.set_column(table.schema.get_field_index("met_deadline"), "met_deadline",
                                    pc.if_else(pc.and_(d3, pc.equal(table["seed"], 3)), True, table["met_deadline"])),
                   flows)
    committed = pq.read_table(COMMITTED / "d3-fig11" / "figure11.parquet")
    mine = committed.filter(pc.and_(pc.equal(committed["scheme"], "d3"), pc.equal(committed["seed"], 1)))
    missed = 1 - sum(mine["met_deadline"].to_pylist()) / mine.num_rows
    row = next(line for line in RENDERERS["d3-fig11-lateness"](Reproductions(out)).splitlines() if "D3, ours" in line)
    assert row.split(" | ")[1] == percent(Estimate.of([missed, missed, 0.0]))
    one_seed = multi_seed_run(tmp_path / "one", [1])
    one_row = next(line for line in RENDERERS["d3-fig11-lateness"](Reproductions(one_seed)).splitlines()
                   if "D3, ours" in line)
    # The overshoot of the two seeds with late flows: seed 1's, with no interval (it has no width).
    assert row.split(" | ")[2] == one_row.split(" | ")[2] and "(" not in one_row.split(" | ")[2]


# --- (d) a changed report makes the check fail, naming the block --------------------------------


def test_a_changed_number_fails_the_check_naming_the_block(tmp_path: Path) -> None:
    out = copy_run(tmp_path)
    edit_table(out / "d3-fig9" / "figure9.parquet", "supported_99", {"scheme": "d3", "deadline_mean": "30ms"}, 19)
    report = json.loads((out / "d2tcp-load" / "report.json").read_text())
    report["wall_s"] = 12.5
    (out / "d2tcp-load" / "report.json").write_text(json.dumps(report))
    lines = check(DOCS, out)
    assert any("results-d3.md" in line and "'d3-fig9-senders' differs" in line for line in lines)
    assert any("results-d2tcp.md" in line and "'wall-time-d2tcp-load' differs" in line for line in lines)
    assert any("reproductions/README.md" in line and "'wall-times' differs" in line for line in lines)
    assert len(lines) == 3, lines


def test_the_command_checks_and_rewrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_run(tmp_path)
    edit_table(out / "d3-fig16" / "figure16.parquet", "goodput_gbps", {"pacing": "burst", "flows": 2}, 0.5)
    doc = tmp_path / "results-d3.md"
    shutil.copy(REPO / "docs" / "results-d3.md", doc)
    assert main(["--check", "--reproductions", str(out), str(doc)]) == 1
    err = capsys.readouterr().err
    assert "'d3-fig16-long-flows' differs from the reports" in err and "'d3-fig16-goodput'" in err
    before = doc.read_text()
    assert main(["--reproductions", str(out), str(doc)]) == 0
    after = doc.read_text()
    assert "| goodput | 50% | 97% |" in after and after != before
    assert main(["--check", "--reproductions", str(out), str(doc)]) == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


@pytest.mark.parametrize("case, needle", [
    ("unknown", "doc.md: line 1: block 'no-such-block': no renderer of that name"),
    ("unterminated", "doc.md: line 1: block 'claim-tally' has no end marker"),
    ("missing report", "doc.md: line 1: block 'wall-time-d3-fig9': no report of d3-fig9"),
    ("missing run record", "doc.md: line 1: block 'run-stamp': no run.json in"),
    ("bad separate run", "separately[0].command is missing or not a str"),
    ("missing file", "absent.md: cannot read"),
])
def test_errors_are_one_line_with_status_2(tmp_path: Path, case: str, needle: str) -> None:
    out = copy_run(tmp_path)
    doc = tmp_path / "doc.md"
    text = {"unknown": "x <!-- generated: no-such-block --><!-- end generated -->\n",
            "unterminated": "x <!-- generated: claim-tally -->\n",
            "missing report": "x <!-- generated: wall-time-d3-fig9 --><!-- end generated -->\n",
            "missing run record": "x <!-- generated: run-stamp --><!-- end generated -->\n",
            "bad separate run": "x <!-- generated: separate-run-time --><!-- end generated -->\n"}.get(case)
    if text is not None:
        doc.write_text(text)
    if case == "missing report":
        shutil.rmtree(out / "d3-fig9")
    if case == "missing run record":
        (out / "run.json").unlink()
    if case == "bad separate run":
        run = json.loads((out / "run.json").read_text())
        (out / "run.json").write_text(json.dumps({**run, "separately": [{"ids": ["pdq-fct"], "wall_s": "long"}]}))
    target = tmp_path / "absent.md" if case == "missing file" else doc
    done = subprocess.run([sys.executable, "-m", "incast.reproduce.docs", "--check", "--reproductions", str(out),
                           str(target)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert needle in done.stderr
    assert done.stdout == ""


def test_write_rewrites_only_stale_files(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Tally: <!-- generated: claim-tally -->old<!-- end generated -->.\n")
    assert write([doc], COMMITTED) == [f"{doc}: line 1: block 'claim-tally' rewritten"]
    assert "claims match" in doc.read_text()
    stamp = doc.stat().st_mtime_ns
    assert write([doc], COMMITTED) == [] and doc.stat().st_mtime_ns == stamp
