"""Prints the requirements pyproject.toml lists for the project (and its extras named with
`--extra`), one a line, for `pip install -r`: the Makefile installs them while the extension
compiles, rather than after, as `maturin develop` alone would (Makefile, `$(VENV)/.deps`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, List

try:
    import tomllib
except ImportError:  # Python < 3.11: pip's own copy of the same parser
    from pip._vendor import tomli as tomllib  # type: ignore[no-redef]

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def requirements(project: Any, extras: List[str]) -> List[str]:
    """The project's dependencies, then those of each extra in `extras`."""
    listed = list(project.get("dependencies", []))
    optional = project.get("optional-dependencies", {})
    for extra in extras:
        if extra not in optional:
            raise SystemExit(f"requirements.py: pyproject.toml has no extra {extra!r} (it has {sorted(optional)})")
        listed += optional[extra]
    return listed


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--extra", action="append", default=[], help="an optional-dependencies group to add")
    args = parser.parse_args(argv)
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    print("\n".join(requirements(project, args.extra)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
