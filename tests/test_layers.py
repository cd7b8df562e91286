"""tools/check_layers.py: import circles fail, layered code passes, tests and type-only imports don't count.

Each test writes a small repository (a Rust crate under crates/, a Python package under python/)
into tmp_path and runs the checker on it with --root, as `make lint` runs it on this one.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Mapping

REPO = Path(__file__).resolve().parents[1]
CHECKER = REPO / "tools" / "check_layers.py"

# Layered: network imports flow, both import ids; transport re-exports its child registry (a facade)
# and registry takes a shared type from it (allowed). What would be circles hides in test code,
# comments, strings and `if TYPE_CHECKING:`, none of which count.
LAYERED = {
    "crates/demo/src/lib.rs": """
        mod flow;
        mod ids;
        mod network;
        mod transport;
        pub use flow::Flow;  // crate::network::Net would be a circle, but this is a comment
        pub const NAME: &str = "crate::network::Net";
        #[cfg(test)]
        mod tests;
    """,
    "crates/demo/src/tests.rs": "use crate::network::Net;\nuse crate::flow::Flow;\n",
    "crates/demo/src/ids.rs": "pub struct FlowId(pub u32);\n",
    "crates/demo/src/flow.rs": """
        use crate::ids::FlowId;
        pub struct Flow { pub id: FlowId }
        #[cfg(test)]
        fn only_in_tests() -> crate::network::Net { crate::network::Net }
        #[cfg(test)]
        mod tests {
            use super::super::network::Net;
        }
    """,
    "crates/demo/src/network.rs": "use crate::{flow::Flow, ids::FlowId};\npub struct Net;\n",
    "crates/demo/src/transport/mod.rs": """
        mod registry;
        pub(crate) use registry::Header;
        pub(crate) struct Shared;
    """,
    "crates/demo/src/transport/registry.rs": "use super::Shared;\npub(crate) struct Header(Shared);\n",
    "python/incast/__init__.py": "from incast.api import run\n",
    "python/incast/api.py": "from . import scenario\n\n\ndef run() -> None:\n    from incast.experiments import line\n",
    "python/incast/scenario.py": "",
    "python/incast/experiments/__init__.py": "",
    "python/incast/experiments/line.py": "from incast.reproduce.core import Context\n",
    "python/incast/reproduce/__init__.py": "",
    "python/incast/reproduce/core.py": """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from incast.experiments import line

Context = object
""",
}

# Circles: flow and network import each other (network already imports flow), and so do the Python
# subpackages experiments and reproduce (one import deferred into a function).
CIRCLES = {
    **LAYERED,
    "crates/demo/src/flow.rs": "use crate::ids::FlowId;\npub struct Flow { net: crate::network::Net }\n",
    "python/incast/reproduce/core.py": """
Context = object


def figure() -> None:
    from ..experiments import line
""",
}


def check(tmp_path: Path, files: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """Writes `files` under tmp_path and runs the checker on them."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return subprocess.run(
        [sys.executable, str(CHECKER), "--root", str(tmp_path)], capture_output=True, text=True, timeout=60
    )


def test_layered_code_passes(tmp_path: Path) -> None:
    done = check(tmp_path, LAYERED)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no import circles" in done.stdout
    # The facade: transport re-exports registry, which imports transport's shared type.
    assert "transport re-exports transport::registry, which imports it (parent/child, allowed)" in done.stdout


def test_sibling_modules_and_subpackages_importing_each_other_fail(tmp_path: Path) -> None:
    done = check(tmp_path, CIRCLES)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "demo, at the crate root (siblings): flow -> network -> flow" in out
    # Each edge with the import behind it.
    assert "flow -> network: crates/demo/src/flow.rs:2" in out
    assert "network -> flow: crates/demo/src/network.rs:1" in out
    assert "incast.experiments -> incast.reproduce" in out and "incast.reproduce -> incast.experiments" in out
    assert "python/incast/reproduce/core.py:5  from ..experiments import line  (deferred)" in out
    assert "check_layers: 3 import circles" in out  # Rust siblings, Python modules, and subpackages


def test_a_parent_whose_own_code_uses_a_child_that_uses_it_fails(tmp_path: Path) -> None:
    parent = "mod registry;\npub(crate) use registry::Header;\npub(crate) struct Shared;\nfn f(h: Header) {}\n"
    done = check(tmp_path, {**LAYERED, "crates/demo/src/transport/mod.rs": parent})
    assert done.returncode == 1, done.stdout + done.stderr
    ring = "transport (parent) -> transport::registry -> transport (parent)"
    assert f"demo, in transport (parent/child): {ring}" in done.stdout


def test_the_checker_runs_on_this_repository() -> None:
    done = subprocess.run([sys.executable, str(CHECKER)], capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout.splitlines()[-1].startswith("check_layers: ")


def test_nested_subpackages_importing_each_other_fail(tmp_path: Path) -> None:
    # Inside incast.reproduce, a paper's docs module uses the docs orchestrator's helper while the
    # orchestrator gathers the paper's renderers: no two modules form a circle, the two
    # subpackages do.
    nested = {
        **LAYERED,
        "python/incast/reproduce/d3/__init__.py": "",
        "python/incast/reproduce/d3/docs.py": "from incast.reproduce.docs.summary import tally\n",
        "python/incast/reproduce/docs/__init__.py": "from incast.reproduce.d3 import docs\n",
        "python/incast/reproduce/docs/summary.py": "tally = 0\n",
    }
    done = check(tmp_path, nested)
    assert done.returncode == 1, done.stdout + done.stderr
    ring = "incast.reproduce.d3 -> incast.reproduce.docs -> incast.reproduce.d3"
    assert f"python incast.reproduce, subpackages: {ring}" in done.stdout
    assert "check_layers: 1 import circle " in done.stdout
