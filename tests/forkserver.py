"""Runs `python -m incast ARGS` (or `python -c CODE ARGS`) in a process of its own, without paying
for a new interpreter and its imports each time.

The hostile suite (`test_hostile.py`) runs every case in a process of its own, so that an input
that aborts or hangs the process fails its own test instead of taking the suite down. Started
with `subprocess`, each of its ~1,250 processes spent most of its time starting Python and
importing incast and pyarrow (about 0.1-0.3 s of the ~0.16 s a case took on 2026-11-28, 205 of
pytest's ~560 CPU seconds; docs/notes/test-time.md). This server imports them once; for each
command it forks a child, which sets the command's working directory, environment, argv and
standard streams (stdin from /dev/null, stdout and stderr to files) and runs the command as the
interpreter would (`runpy` for `-m`, `exec` for `-c`), then exits with the command's status. The
child is a whole process as before: an abort or a signal ends it, not the server, and is
reported as `subprocess` reports it (a negative return code); a child that outlives its timeout
is killed and reported as timed out.

What differs from a fresh interpreter, on purpose: modules are imported already (their import
time is not measured; their import-time side effects happened with the server's environment,
and nothing in incast reads the environment at import time). The server must never use
pyarrow's thread pools or start threads itself, so that a fork copies a process with one thread.

Protocol: one JSON object a line on stdin ({"argv", "cwd", "env", "timeout", and "module" or
"code"}), one JSON object a line on stdout ({"returncode", "stdout", "stderr", "timed_out"}).
`ForkServer` below is the client.
"""

from __future__ import annotations

import gc
import io
import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence

PRELOAD = ("incast", "incast.cli", "pyarrow", "pyarrow.parquet", "pyarrow.csv", "pyarrow.compute")
"""What the server imports once, before any fork: what `incast check`, `incast run` and the
hostile suite's API probe import."""


def _exit_status(exc: SystemExit) -> int:
    """The process status `sys.exit(code)` gives, as the interpreter computes it."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _output(fd: int, errors: str, unbuffered: bool, line_buffering: bool) -> io.TextIOWrapper:
    """A standard output stream on `fd` as CPython makes one (`create_stdio`): without a buffer
    under PYTHONUNBUFFERED, else buffered (stderr: flushed at each line)."""
    raw = io.FileIO(fd, "w", closefd=False)
    binary: Any = raw if unbuffered else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        binary, encoding="utf-8", errors=errors, line_buffering=line_buffering, write_through=unbuffered
    )


def _child(request: Mapping[str, Any], out_fd: int, err_fd: int) -> None:
    """In the forked child: becomes the command's process and never returns."""
    status = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        # The server's stdout is the protocol's pipe; the command writes to fresh streams on the
        # files, buffered as a fresh interpreter's are when its output is not a terminal.
        unbuffered = bool(request["env"].get("PYTHONUNBUFFERED"))
        sys.stdin = open(0, closefd=False)
        sys.stdout = _output(1, "strict", unbuffered, line_buffering=False)
        sys.stderr = _output(2, "backslashreplace", unbuffered, line_buffering=True)
        try:
            if "module" in request:
                sys.argv = ["-m", *request["argv"]]
                runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            else:
                sys.argv = ["-c", *request["argv"]]
                exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
            status = 0
        except SystemExit as exc:
            status = _exit_status(exc)
        except KeyboardInterrupt:
            traceback.print_exc()
            status = 130
        except BaseException:  # noqa: BLE001 - the interpreter prints any uncaught exception
            traceback.print_exc()
            status = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        os._exit(status)


def _run_one(request: Mapping[str, Any]) -> Dict[str, Any]:
    """Forks a child for `request`, waits for it (at most its timeout) and collects its output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request, out.fileno(), err.fileno())
        deadline = time.monotonic() + float(request["timeout"])
        timed_out = False
        pause = 0.0005
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                timed_out = True
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.01)
        out.seek(0)
        err.seek(0)
        return {
            "returncode": os.waitstatus_to_exitcode(status),
            "stdout": out.read().decode("utf-8", errors="replace"),
            "stderr": err.read().decode("utf-8", errors="replace"),
            "timed_out": timed_out,
        }


def serve() -> None:
    """The server's loop: a request a line in, a result a line out, until stdin closes."""
    for name in PRELOAD:
        __import__(name)
    gc.freeze()
    # The commands see the path a fresh interpreter would: not this directory, put there only to
    # start the server.
    sys.path.remove(str(Path(__file__).parent))
    protocol = sys.stdout
    print(json.dumps({"ready": True}), file=protocol, flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_run_one(json.loads(line))), file=protocol, flush=True)


def _startup(env: Mapping[str, str]) -> Dict[str, str]:
    """What in an environment decides how an interpreter starts: the variables Python reads then
    (PYTHONPATH, PYTHONHOME, PYTHONWARNINGS, ...). A command whose environment sets them as the
    client's does (the server's own, but for this directory on its path, which it removes before
    any command) may run in a fork; any other runs in a fresh interpreter."""
    return {k: v for k, v in env.items() if k.startswith("PYTHON")}


class ForkServer:
    """The client: a server process started once, and `run`, which answers as `subprocess.run`
    with `capture_output=True, text=True` would."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent), env.get("PYTHONPATH")]))
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "import forkserver; forkserver.serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._startup = _startup(os.environ)
        assert self._proc.stdout is not None
        ready = self._proc.stdout.readline()
        if json.loads(ready or "{}").get("ready") is not True:
            raise RuntimeError(f"the fork server did not start: {ready!r}")

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        timeout: float,
        module: Optional[str] = None,
        code: Optional[str] = None,
    ) -> subprocess.CompletedProcess:
        """`python -m MODULE ARGV` or `python -c CODE ARGV`, in a child of the server; raises
        `subprocess.TimeoutExpired` (with the output so far) past `timeout` seconds."""
        assert (module is None) != (code is None)
        args = [sys.executable, *(["-m", module] if module else ["-c", code or ""]), *argv]
        if _startup(env) != self._startup:
            # The command's environment changes how an interpreter starts (a PYTHONPATH of its
            # own, say): only a fresh one behaves as it asks.
            return subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=timeout,
                                  cwd=cwd, env=env, stdin=subprocess.DEVNULL)
        request: Dict[str, Any] = {"argv": list(argv), "cwd": str(cwd), "env": dict(env), "timeout": timeout}
        if module is not None:
            request["module"] = module
        else:
            request["code"] = code
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server died (status {self._proc.poll()})")
        answer = json.loads(line)
        if answer["timed_out"]:
            raise subprocess.TimeoutExpired(args, timeout, output=answer["stdout"], stderr=answer["stderr"])
        return subprocess.CompletedProcess(args, answer["returncode"], answer["stdout"], answer["stderr"])

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait(timeout=30)
