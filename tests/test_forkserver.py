"""The fork server answers as `subprocess.run` would for the processes the hostile suite starts:
exit status, a signal's death, a timeout, the command's own working directory, environment,
argv and streams (tests/forkserver.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from forkserver import ForkServer

REPO = Path(__file__).resolve().parents[1]


def bare(**extra: str) -> dict[str, str]:
    """An environment with nothing but how this interpreter started (so the command may run in a
    fork) and `extra`."""
    return {**{k: v for k, v in os.environ.items() if k.startswith("PYTHON")}, **extra}


@pytest.fixture(scope="module")
def server() -> Iterator[ForkServer]:
    s = ForkServer()
    yield s
    s.close()


def test_a_command_gets_its_cwd_env_argv_and_an_empty_stdin(server: ForkServer, tmp_path: Path) -> None:
    code = (
        "import os, sys; "
        "print(os.getcwd(), os.environ.get('ONLY'), os.environ.get('HOME'), sys.argv[1:], repr(sys.stdin.read()))"
    )
    proc = server.run(["a", "b c"], cwd=tmp_path, env=bare(ONLY="1"), timeout=30, code=code)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == f"{tmp_path} 1 None ['a', 'b c'] ''\n"


def test_exit_statuses_and_streams_are_the_interpreters(server: ForkServer, tmp_path: Path) -> None:
    cases = {
        "import sys; sys.exit(3)": (3, ""),
        "import sys; sys.exit('bye')": (1, "bye\n"),
        "raise ValueError('boom')": (1, "ValueError: boom\n"),
        "import sys; print('out'); print('err', file=sys.stderr)": (0, "err\n"),
    }
    for code, (status, stderr_end) in cases.items():
        proc = server.run([], cwd=tmp_path, env=bare(), timeout=30, code=code)
        assert proc.returncode == status, (code, proc)
        assert proc.stderr.endswith(stderr_end), (code, proc.stderr)
    assert "Traceback" in server.run([], cwd=tmp_path, env=bare(), timeout=30, code="1/0").stderr


def test_an_abort_kills_the_child_not_the_server(server: ForkServer, tmp_path: Path) -> None:
    proc = server.run([], cwd=tmp_path, env=bare(), timeout=30, code="import os; os.abort()")
    assert proc.returncode == -6
    again = server.run([], cwd=tmp_path, env=bare(), timeout=30, code="print('still here')")
    assert again.returncode == 0 and again.stdout == "still here\n"


def test_a_child_past_its_timeout_is_killed_and_reported(server: ForkServer, tmp_path: Path) -> None:
    code = "import time; print('started', flush=True); time.sleep(60)"
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        server.run([], cwd=tmp_path, env=bare(), timeout=0.3, code=code)
    assert raised.value.stdout == "started\n"


def test_the_incast_command_runs_as_python_dash_m(server: ForkServer) -> None:
    ok = server.run(["check", "examples/d3-flow-burst.toml"], cwd=REPO, env=bare(), timeout=30, module="incast")
    assert ok.returncode == 0 and ok.stdout.startswith("examples/d3-flow-burst.toml: ok"), ok
    bad = server.run(["check", "no-such.toml"], cwd=REPO, env=bare(), timeout=30, module="incast")
    assert bad.returncode == 2 and bad.stderr.startswith("incast: error: ") and bad.stdout == "", bad


def test_an_environment_that_changes_how_python_starts_gets_a_fresh_one(server: ForkServer, tmp_path: Path) -> None:
    (tmp_path / "only_on_its_path.py").write_text("WHERE = 'found'\n")
    code = "import only_on_its_path; print(only_on_its_path.WHERE)"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = server.run([], cwd=REPO, env=env, timeout=60, code=code)
    assert proc.returncode == 0 and proc.stdout == "found\n", proc
