"""The results docs, generated from the committed reports so that prose and data cannot drift.

The tables of docs/results-d3.md, docs/results-d2tcp.md and docs/results-line.md (the successors'
reproductions), and the summary figures the README and
docs/reproductions/README.md quote, sit in generated blocks (`rendering.blocks`): each names a renderer,
a function from the committed reproductions (`rendering.committed.Reproductions`: every `report.json`, the
Parquet tables beside it and `run.json`) to markdown. Regenerating rewrites the text inside the
blocks and nothing else; checking tells which blocks the reports no longer match.

    python -m incast.reproduce.docs                      # rewrite the blocks of the default files
    python -m incast.reproduce.docs --check              # exit 1 naming each block that differs
    python -m incast.reproduce.docs --reproductions DIR FILE...

`make docs` runs the first; tests/test_results_docs.py runs the check, so a change to the reports
without the docs (or to a doc's generated text by hand) fails the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from incast.reproduce.d2tcp import docs as d2tcp_docs
from incast.reproduce.d2tcp import docs_readings as d2tcp_readings
from incast.reproduce.d3 import docs as d3_docs
from incast.reproduce.d3 import docs_variants as d3_variants
from incast.reproduce.docs import summary
from incast.reproduce.homa import docs as homa_docs
from incast.reproduce.ndp import docs as ndp_docs
from incast.reproduce.pdq import docs as pdq_docs
from incast.reproduce.pfabric import docs as pfabric_docs
from incast.reproduce.rendering.blocks import Block, regenerate
from incast.reproduce.rendering.committed import Reproductions
from incast.reproduce.rendering.errors import DocsError

Renderer = Callable[[Reproductions], str]

RENDERERS: Dict[str, Renderer] = {**summary.RENDERERS, **d3_docs.RENDERERS, **d2tcp_docs.RENDERERS,
                                  **d2tcp_readings.RENDERERS, **d3_variants.RENDERERS, **pfabric_docs.RENDERERS,
                                  **pdq_docs.RENDERERS, **ndp_docs.RENDERERS, **homa_docs.RENDERERS}
"""Every renderer a block may name."""
DEFAULT_FILES = ("README.md", "docs/results-d3.md", "docs/results-d2tcp.md", "docs/results-line.md",
                 "docs/reproductions/README.md")
"""The docs with generated blocks, from the repository's root."""
DEFAULT_REPRODUCTIONS = "docs/reproductions"
"""The committed full run, from the repository's root."""


def generate(text: str, reproductions: Reproductions,
             renderers: Mapping[str, Renderer] = RENDERERS) -> Tuple[str, List[Block]]:
    """`text` with every block rendered afresh, and the blocks whose text changed."""
    def render(block: Block) -> str:
        try:
            return renderers[block.name](reproductions)
        except DocsError as e:
            raise DocsError(f"line {block.line}: block {block.name!r}: {e}") from None

    return regenerate(text, renderers, render)


def _each(files: Sequence[Path], reproductions: Path, write: bool) -> List[str]:
    r = Reproductions(reproductions)
    out: List[str] = []
    for path in files:
        try:
            text = path.read_text()
        except OSError as e:
            raise DocsError(f"{path}: cannot read: {e.strerror or e}") from None
        try:
            new, changed = generate(text, r)
        except DocsError as e:
            raise DocsError(f"{path}: {e}") from None
        out += [f"{path}: line {b.line}: block {b.name!r} " + ("rewritten" if write else "differs from the reports")
                for b in changed]
        if write and new != text:
            from incast.durable import staged_files

            with staged_files() as stage:
                stage(path).write_text(new)
    return out


def check(files: Sequence[Path], reproductions: Path) -> List[str]:
    """One line per block of `files` whose text differs from what the reports under
    `reproductions` give; none when the docs are in sync. Writes nothing."""
    return _each(files, reproductions, write=False)


def write(files: Sequence[Path], reproductions: Path) -> List[str]:
    """Rewrites the blocks of `files` from the reports under `reproductions` (each file replaced
    at once, by a rename); one line per block rewritten."""
    return _each(files, reproductions, write=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command: 0 when the docs are (now) in sync, 1 when `--check` found blocks that differ,
    2 for a doc or a report that cannot be read, or a block that cannot be made."""
    parser = argparse.ArgumentParser(prog="python -m incast.reproduce.docs",
                                     description="Generate the results docs' tables from the committed reports.")
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE",
                        help=f"markdown files with generated blocks (default: {' '.join(DEFAULT_FILES)})")
    parser.add_argument("--reproductions", type=Path, default=Path(DEFAULT_REPRODUCTIONS), metavar="DIR",
                        help=f"the committed run's reports (default: {DEFAULT_REPRODUCTIONS})")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any block differs")
    args = parser.parse_args(argv)
    files = args.files or [Path(f) for f in DEFAULT_FILES]
    try:
        lines = check(files, args.reproductions) if args.check else write(files, args.reproductions)
    except DocsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for line in lines:
        print(line, file=sys.stderr if args.check else sys.stdout)
    return 1 if args.check and lines else 0


__all__ = ["DEFAULT_FILES", "RENDERERS", "DocsError", "Reproductions", "check", "generate", "main", "write"]
