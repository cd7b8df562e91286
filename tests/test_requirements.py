"""tools/requirements.py lists what pyproject.toml asks for, which the Makefile installs while
the extension compiles: the same list `maturin develop --extras dev` would install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    from pip._vendor import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "requirements.py"


def test_the_list_is_pyprojects_dependencies_and_the_extras_named() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    out = subprocess.run([sys.executable, str(TOOL), "--extra", "dev"], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == project["dependencies"] + project["optional-dependencies"]["dev"]


def test_an_extra_pyproject_lacks_is_an_error_naming_it() -> None:
    out = subprocess.run([sys.executable, str(TOOL), "--extra", "nosuch"], capture_output=True, text=True)
    assert out.returncode != 0 and "nosuch" in out.stderr and "Traceback" not in out.stderr
