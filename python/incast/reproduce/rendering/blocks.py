"""Generated blocks in markdown: the text between `<!-- generated: NAME -->` and
`<!-- end generated -->`, which the renderer registered as NAME writes and nothing else edits.

A block whose start marker ends its line is a display block (a table, a paragraph): its text sits
on the lines between the markers, indented as the start marker is (so that a table can sit in a
list item). Any other block is inline, part of a sentence: its text sits between the markers on
one line. Everything outside the markers is left as it is, byte for byte.

An inline block may not open a line: a line that starts with `<!--` (after any indentation)
starts an HTML block in CommonMark, and the rest of that line would be shown as raw HTML rather
than as markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Collection, List, Tuple

from incast.reproduce.rendering.errors import DocsError

START = re.compile(r"<!--\s*generated:\s*(.*?)\s*-->")
END = re.compile(r"<!--\s*end generated\s*-->")


@dataclass(frozen=True)
class Block:
    """One generated block of a text."""

    name: str
    """The renderer that writes it."""
    line: int
    """The line of its start marker (1-based), for messages."""
    start: int
    """Offset of its text (just after the start marker)."""
    end: int
    """Offset just past its text (where the end marker begins)."""
    display: bool
    """A display block (its text on lines of its own) rather than an inline one."""
    indent: str = ""
    """The indentation of the start marker's line, which a display block's lines take."""


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def blocks(text: str, known: Collection[str]) -> List[Block]:
    """Every block of `text`, in order. Raises `DocsError` for a marker that names no renderer
    of `known`, a block without its end, an end without its start, and an inline block that
    opens a line."""
    found: List[Block] = []
    pos = 0
    while True:
        start, end = START.search(text, pos), END.search(text, pos)
        if start is None:
            if end is not None:
                raise DocsError(f"line {_line(text, end.start())}: an end marker without a block before it")
            return found
        if end is not None and end.start() < start.start():
            raise DocsError(f"line {_line(text, end.start())}: an end marker without a block before it")
        name, line = start.group(1), _line(text, start.start())
        if name not in known:
            raise DocsError(f"line {line}: block {name!r}: no renderer of that name")
        following = START.search(text, start.end())
        if end is None or (following is not None and following.start() < end.start()):
            raise DocsError(f"line {line}: block {name!r} has no end marker before the next block or the end of "
                            "the file")
        display = text.startswith("\n", start.end())
        before = text[text.rfind("\n", 0, start.start()) + 1:start.start()]
        if not display and not before.strip():
            raise DocsError(f"line {line}: inline block {name!r} opens a line (markdown would show that line as "
                            "raw HTML); move it into the sentence or make it a display block")
        found.append(Block(name, line, start.end(), end.start(), display, before if not before.strip() else ""))
        pos = end.end()


def fill(block: Block, rendered: str) -> str:
    """The text of `block` for a renderer's output: on lines of its own for a display block,
    on one line for an inline one."""
    body = rendered.strip("\n") if block.display else rendered.strip()
    if block.display:
        lines = [block.indent + line if line.strip() else "" for line in body.split("\n")]
        return "\n" + "\n".join(lines) + "\n" + block.indent
    if "\n" in body:
        raise DocsError(f"line {block.line}: inline block {block.name!r}: its renderer wrote several lines")
    return body


def regenerate(text: str, known: Collection[str], render: Callable[[Block], str]) -> Tuple[str, List[Block]]:
    """`text` with every block's text replaced by `render(block)` (passed through `fill`), and the
    blocks whose text changed."""
    parts: List[str] = []
    changed: List[Block] = []
    pos = 0
    for block in blocks(text, known):
        new = fill(block, render(block))
        if new != text[block.start:block.end]:
            changed.append(block)
        parts += [text[pos:block.start], new]
        pos = block.end
    parts.append(text[pos:])
    return "".join(parts), changed
