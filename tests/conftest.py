"""Shared helpers: a small valid scenario, and running the CLI as a user would."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import pytest
from forkserver import ForkServer

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True, scope="session")
def _trace_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Parquet traces converted to CSV go to a directory of this test session, never the user's
    cache (`incast.scenario.trace_cache_dir`); the CLI's child processes inherit it."""
    previous = os.environ.get("INCAST_CACHE_DIR")
    os.environ["INCAST_CACHE_DIR"] = str(tmp_path_factory.mktemp("incast-cache"))
    yield
    if previous is None:
        del os.environ["INCAST_CACHE_DIR"]
    else:
        os.environ["INCAST_CACHE_DIR"] = previous

# Four hosts on one switch; three workers answer host 0 twice. Runs in milliseconds.
SMALL_TOML = """\
seed = 7

[topology]
kind = "star"
hosts = 4

[switch]
buffer = "64KB"

[transport]
protocol = "dctcp"
min_rto = "10ms"

[[workload]]
kind = "flow-burst"
aggregator = 0
senders = 3
size = { dist = "uniform", min = "2KB", max = "20KB" }
deadline = { dist = "exponential", mean = "20ms" }
rounds = 2
"""


def small_scenario(seed: int = 7) -> dict:
    """SMALL_TOML as a dict."""
    return {
        "seed": seed,
        "topology": {"kind": "star", "hosts": 4},
        "switch": {"buffer": "64KB"},
        "transport": {"protocol": "dctcp", "min_rto": "10ms"},
        "workload": [
            {
                "kind": "flow-burst",
                "aggregator": 0,
                "senders": 3,
                "size": {"dist": "uniform", "min": "2KB", "max": "20KB"},
                "deadline": {"dist": "exponential", "mean": "20ms"},
                "rounds": 2,
            }
        ],
    }


_FORKS: list[ForkServer] = []
"""This test process's fork server, started on first use (`fork_server`) and closed at the end of
the session (`_close_fork_server`)."""


@pytest.fixture(autouse=True, scope="session")
def _close_fork_server() -> Iterator[None]:
    yield
    while _FORKS:
        _FORKS.pop().close()


def fork_server() -> ForkServer:
    """This test process's fork server (`forkserver.py`), started on first use."""
    if not _FORKS:
        _FORKS.append(ForkServer())
    return _FORKS[0]


def incast(
    *args: str, timeout: float = 300, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Runs `python -m incast ARGS` (in environment `env`, default this one's; in directory `cwd`,
    default this one) in a process of its own and captures its output. The process is forked
    from one that imported incast already (`forkserver.py`): a command's output, status and
    failures are its own, without an interpreter's start each time."""
    return fork_server().run(
        args, cwd=cwd or Path.cwd(), env=os.environ if env is None else env, timeout=timeout, module="incast"
    )


def assert_clean_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit status 2, one `incast: error:` line naming every needle, no traceback or panic."""
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert "Traceback" not in output and "panicked" not in output, output
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("incast: error: "), output
    for needle in needles:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML)
    return path


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def listing(directory: Path) -> Sequence[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """Python's own SIGINT handler for the test, as in an interactive session, and so also in the
    CLI processes it starts: a test runner started in the background by a shell script inherits
    SIGINT ignored, and so would they."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
