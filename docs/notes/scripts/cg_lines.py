"""Instructions by source line and by source file from a cachegrind output file, inlined code
attributed to the line it was written on (cachegrind's `fl=`/line records follow the debug
information's innermost inlined frame, where `cg_annotate`'s function totals follow symbols,
which fat LTO merges into a few large functions).

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=cg.out <binary> <args>
    python docs/notes/scripts/cg_lines.py cg.out [--top 40] [--files 25]

Used for docs/notes/star-profile.md.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--files", type=int, default=25)
    args = ap.parse_args()
    by_line: collections.Counter[tuple[str, int]] = collections.Counter()
    file = ""
    for raw in Path(args.out).read_text().splitlines():
        if raw.startswith("fl="):
            file = raw[3:]
        elif raw[:1].isdigit():
            line, ir = raw.split()[:2]
            by_line[(file, int(line))] += int(ir)
    total = sum(by_line.values())
    by_file: collections.Counter[str] = collections.Counter()
    for (f, _), ir in by_line.items():
        by_file[f] += ir
    print(f"total {total:,} instructions")
    print("\nby file:")
    for f, ir in by_file.most_common(args.files):
        print(f"{100 * ir / total:6.2f}% {ir:>14,} {f}")
    print("\nby line:")
    for (f, line), ir in by_line.most_common(args.top):
        text = ""
        try:
            text = Path(f).read_text().splitlines()[line - 1].strip()[:90]
        except (OSError, IndexError, UnicodeDecodeError):
            pass
        print(f"{100 * ir / total:6.2f}% {ir:>13,} {Path(f).name}:{line}  {text}")


if __name__ == "__main__":
    main()
