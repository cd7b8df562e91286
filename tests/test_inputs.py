"""Inputs read from files and dicts (docs/scenario.md, "Trace paths"; docs/python.md): trace paths
guarded the same way for CSV (read by the engine) and Parquet (read in Python), one parser for
`incast check` and `incast run`, scenario files that are not UTF-8, hostile dicts, and
`run(chunk_events=...)`.

Anything that could hang if a guard broke (a FIFO, /dev/zero, `chunk_events=0`) runs in a
subprocess with a timeout, through the CLI and through the Python API alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import incast
from incast import _core
from incast.scenario import _plain

from conftest import SMALL_TOML, assert_clean_error, small_scenario, write
from conftest import incast as run_cli

TIMEOUT = 60
SECRET = "hunter2-do-not-echo"
STAR = '[topology]\nkind = "star"\nhosts = 4\n'
CSV = "src,dst,size_bytes,start_s\n1,0,1500,0\n2,0,1500,0\n"


def trace_scenario(path: str, run: str = "") -> str:
    return STAR + run + f'[[workload]]\nkind = "trace"\npath = {json.dumps(path)}\n'


def api_error(call: str, cwd: Optional[Path] = None) -> Dict[str, Any]:
    """Runs `call` (Python source using `incast`) in a fresh interpreter, bounded in time, and
    returns the exception it raised as {"type", "path", "message", "text"} ({"type": None} if
    none)."""
    script = textwrap.dedent(
        f"""
        import json, incast
        try:
            {call}
        except Exception as e:
            print(json.dumps({{"type": type(e).__name__, "path": getattr(e, "path", None),
                              "message": getattr(e, "message", None), "text": str(e)}}))
        else:
            print(json.dumps({{"type": None}}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def parquet(path: Path, **columns: List[Any]) -> Path:
    default = {"src": [1, 2], "dst": [0, 0], "size_bytes": [1500, 1500], "start_s": [0.0, 0.0]}
    pq.write_table(pa.table(columns or default), path)
    return path


# --- trace paths ------------------------------------------------------------------------------
# Each case builds, in `tmp`, a scenario directory `tmp/scenario` holding s.toml and returns
# (scenario file, what the one error line must contain). Files "outside" sit in `tmp` itself.

Case = Callable[[Path, str], Tuple[Path, str]]


def _scenario_dir(tmp: Path) -> Path:
    directory = tmp / "scenario"
    directory.mkdir(exist_ok=True)
    return directory


def fifo(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    os.mkfifo(directory / f"t.{ext}")
    return write(directory / "s.toml", trace_scenario(f"t.{ext}")), "is a FIFO (named pipe), not a regular file"


def device(tmp: Path, ext: str) -> Tuple[Path, str]:
    # Named by an absolute path, taken as written; the Parquet reader is chosen by the suffix.
    directory = _scenario_dir(tmp)
    (tmp / f"zero.{ext}").symlink_to("/dev/zero")
    scenario = write(directory / "s.toml", trace_scenario(str(tmp / f"zero.{ext}")))
    return scenario, "is a character device, not a regular file"


def directory_path(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    (directory / f"d.{ext}").mkdir()
    return write(directory / "s.toml", trace_scenario(f"d.{ext}")), "is a directory, not a regular file"


def dot_dot(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    (tmp / f"t.{ext}").write_text(SECRET)
    return write(directory / "s.toml", trace_scenario(f"../t.{ext}")), "leads outside"


def dot_dot_missing(tmp: Path, ext: str) -> Tuple[Path, str]:
    # Whether a file outside exists is not given away.
    directory = _scenario_dir(tmp)
    return write(directory / "s.toml", trace_scenario(f"sub/../../nope.{ext}")), "leads outside"


def symlink_out(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    (tmp / f"secret.{ext}").write_text(SECRET)
    (directory / f"t.{ext}").symlink_to(tmp / f"secret.{ext}")
    return write(directory / "s.toml", trace_scenario(f"t.{ext}")), "leads outside"


def too_large(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    if ext == "csv":
        (directory / "t.csv").write_text(CSV)
    else:
        parquet(directory / "t.parquet")
    run = "[run]\nmax_trace_bytes = 40\n"
    expected = "above the limit of 40 bytes (`run.max_trace_bytes`"
    return write(directory / "s.toml", trace_scenario(f"t.{ext}", run)), expected


def not_a_trace(tmp: Path, ext: str) -> Tuple[Path, str]:
    # A file named by an absolute path is read, but nothing of it is quoted.
    directory = _scenario_dir(tmp)
    (tmp / f"other.{ext}").write_text(f"{SECRET},{SECRET}\n{SECRET}\n")
    scenario = write(directory / "s.toml", trace_scenario(str(tmp / f"other.{ext}")))
    return scenario, "unknown column name" if ext == "csv" else "is not a Parquet file pyarrow can read"


def not_utf8(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    (directory / "t.csv").write_bytes(CSV.encode() + b"1,0,\xff,0\n")
    expected = f"not UTF-8 text: invalid byte 0xFF at offset {len(CSV) + 4}"
    return write(directory / "s.toml", trace_scenario("t.csv")), expected


def text_column(tmp: Path, ext: str) -> Tuple[Path, str]:
    directory = _scenario_dir(tmp)
    parquet(directory / "t.parquet", src=[SECRET], dst=[0], size_bytes=[1500], start_s=[0.0])
    return write(directory / "s.toml", trace_scenario("t.parquet")), "column src holds string, expected numbers"


BOTH = ["csv", "parquet"]
TRACE_CASES = [
    pytest.param(case, ext, id=f"{case.__name__}-{ext}")
    for case, exts in [
        (fifo, BOTH),
        (device, BOTH),
        (directory_path, BOTH),
        (dot_dot, BOTH),
        (dot_dot_missing, BOTH),
        (symlink_out, BOTH),
        (too_large, BOTH),
        (not_a_trace, BOTH),
        (not_utf8, ["csv"]),
        (text_column, ["parquet"]),
    ]
    for ext in exts
]


@pytest.mark.parametrize("case,ext", TRACE_CASES)
def test_bad_trace_paths_through_the_cli(tmp_path: Path, case: Case, ext: str) -> None:
    scenario, needle = case(tmp_path, ext)
    for command in (["check"], ["run", "--out", str(tmp_path / "out")]):
        proc = run_cli(*command, str(scenario), timeout=TIMEOUT)
        assert_clean_error(proc, "`workload[0].path`", needle)
        assert SECRET not in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case,ext", TRACE_CASES)
def test_bad_trace_paths_through_the_api(tmp_path: Path, case: Case, ext: str) -> None:
    scenario, needle = case(tmp_path, ext)
    for call in ("run", "load_scenario", "effective_transport"):
        e = api_error(f"incast.{call}({str(scenario)!r})")
        assert (e["type"], e["path"]) == ("ScenarioError", "workload[0].path"), e
        assert needle in e["message"] and SECRET not in e["text"], e


@pytest.mark.parametrize("ext", BOTH)
def test_relative_trace_paths_of_a_dict_resolve_in_the_working_directory(tmp_path: Path, ext: str) -> None:
    (tmp_path / "sub").mkdir()
    if ext == "csv":
        (tmp_path / "sub" / "t.csv").write_text(CSV)
    else:
        parquet(tmp_path / "sub" / "t.parquet")
    tree = {"topology": {"kind": "star", "hosts": 4}, "workload": [{"kind": "trace", "path": f"sub/t.{ext}"}]}
    assert api_error(f"incast.run({tree!r})", cwd=tmp_path) == {"type": None}
    # The working directory is the boundary: its parent is outside.
    e = api_error(f"incast.run({tree!r})", cwd=tmp_path / "sub")
    assert e["path"] == "workload[0].path" and "No such file" in e["message"], e
    tree["workload"][0]["path"] = f"../sub/t.{ext}"
    e = api_error(f"incast.run({tree!r})", cwd=tmp_path / "sub")
    assert e["path"] == "workload[0].path" and "leads outside" in e["message"], e


@pytest.mark.parametrize("ext", BOTH)
def test_traces_inside_the_directory_and_absolute_paths_are_read(tmp_path: Path, ext: str) -> None:
    directory = _scenario_dir(tmp_path)
    (directory / "data").mkdir()
    if ext == "csv":
        (tmp_path / "t.csv").write_text(CSV)
        (directory / "data" / "t.csv").write_text(CSV)
    else:
        parquet(tmp_path / "t.parquet")
        parquet(directory / "data" / "t.parquet")
    # A symbolic link that stays inside the directory is fine.
    (directory / f"alias.{ext}").symlink_to(Path("data") / f"t.{ext}")
    for path in (f"data/t.{ext}", f"data/../data/t.{ext}", f"alias.{ext}", str(tmp_path / f"t.{ext}")):
        scenario = write(directory / "s.toml", trace_scenario(path))
        assert incast.run(scenario).summary["flows"] == 2, path
    # load_scenario makes a relative path absolute, so the dict runs from anywhere.
    scenario = write(directory / "s.toml", trace_scenario(f"data/t.{ext}"))
    tree = incast.load_scenario(scenario)
    assert tree["workload"][0]["path"] == str(directory.resolve() / "data" / f"t.{ext}")
    assert incast.run(tree).summary["flows"] == 2


def test_max_trace_bytes_must_be_positive(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text(CSV)
    scenario = write(tmp_path / "s.toml", trace_scenario("t.csv", "[run]\nmax_trace_bytes = 0\n"))
    assert_clean_error(run_cli("check", str(scenario), timeout=TIMEOUT), "`run.max_trace_bytes`", "positive")
    exact = write(tmp_path / "s.toml", trace_scenario("t.csv", f"[run]\nmax_trace_bytes = {len(CSV)}\n"))
    assert incast.run(exact).summary["flows"] == 2


# --- one parser -------------------------------------------------------------------------------

SMALL_JSON = json.dumps(small_scenario())
# TOML 1.1: an inline table over several lines with a trailing comma.
TOML_11 = SMALL_TOML.replace(
    'size = { dist = "uniform", min = "2KB", max = "20KB" }',
    'size = {\n  dist = "uniform",\n  min = "2KB",\n  max = "20KB",\n}',
)
ACCEPTED = [
    pytest.param("s.toml", SMALL_TOML.encode(), id="toml"),
    pytest.param("s.toml", b"\xef\xbb\xbf" + SMALL_TOML.encode(), id="toml-bom"),
    pytest.param("s.toml", TOML_11.encode(), id="toml-1.1-inline-table"),
    pytest.param("s.json", SMALL_JSON.encode(), id="json"),
    pytest.param("s.json", b"\xef\xbb\xbf" + SMALL_JSON.encode(), id="json-bom"),
]


@pytest.mark.parametrize("name,content", ACCEPTED)
def test_check_and_run_accept_the_same_files(tmp_path: Path, name: str, content: bytes) -> None:
    scenario = tmp_path / name
    scenario.write_bytes(content)
    check = run_cli("check", str(scenario), timeout=TIMEOUT)
    assert check.returncode == 0 and f"{scenario}: ok" in check.stdout, check.stderr
    done = run_cli("run", str(scenario), "--out", str(tmp_path / "out"), timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    tree = incast.load_scenario(scenario)
    assert tree["workload"][0]["size"] == {"dist": "uniform", "min": "2KB", "max": "20KB"}
    assert incast.run(tree).flows.equals(incast.run(scenario).flows)


REFUSED = [
    pytest.param("s.toml", b"[topology\n", "TOML syntax error at line 1", id="toml-syntax"),
    pytest.param("s.json", b'{"seed": }', "JSON syntax error at line 1", id="json-syntax"),
    pytest.param(
        "s.toml", b"# caf\xe9\n" + SMALL_TOML.encode(), "not UTF-8 text: invalid byte 0xE9 at offset 5", id="latin-1"
    ),
    pytest.param(
        "s.toml", b"\xef\xbb\xbf\xff", "not UTF-8 text: invalid byte 0xFF at offset 3", id="bom-then-bad-byte"
    ),
    pytest.param("s.json", b"\xff\xfe{\x00}\x00", "not UTF-8 text: invalid byte 0xFF at offset 0", id="utf-16"),
]


@pytest.mark.parametrize("name,content,needle", REFUSED)
def test_check_and_run_refuse_the_same_files(tmp_path: Path, name: str, content: bytes, needle: str) -> None:
    scenario = tmp_path / name
    scenario.write_bytes(content)
    lines = set()
    for command in (["check"], ["run", "--out", str(tmp_path / "out")]):
        proc = run_cli(*command, str(scenario), timeout=TIMEOUT)
        assert_clean_error(proc, needle)
        lines.add(proc.stderr)
    assert len(lines) == 1, lines
    for call in ("run", "load_scenario"):
        e = api_error(f"incast.{call}({str(scenario)!r})")
        assert e["type"] == "ScenarioError" and needle in e["message"], e


def test_a_scenario_file_that_is_a_device_is_refused() -> None:
    assert_clean_error(run_cli("check", "/dev/zero", timeout=TIMEOUT), "/dev/zero is a device, not a scenario file")


def test_document_is_the_engines_parse() -> None:
    tree = _core.document(TOML_11, "toml")
    assert tree["workload"][0]["size"]["max"] == "20KB" and tree["seed"] == 7
    assert _core.document('t = 1979-05-27T07:32:00Z\nf = 1.5\nb = true\n') == {
        "t": "1979-05-27T07:32:00Z",
        "f": 1.5,
        "b": True,
    }
    assert _core.document(SMALL_JSON, "json") == small_scenario()
    with pytest.raises(_core.ScenarioError) as err:
        _core.document("a = 1\na = 2\n", "toml")
    assert err.value.path == "" and "TOML syntax error at line 2" in err.value.message
    with pytest.raises(_core.ScenarioError, match=r"`a`: must be a finite number \(found inf\)"):
        _core.document("a = inf\n")
    with pytest.raises(ValueError, match="format must be"):
        _core.document("{}", "yaml")  # type: ignore[arg-type]


# --- dicts --------------------------------------------------------------------------------------


def nested(depth: int) -> Dict[str, Any]:
    tree: Dict[str, Any] = {}
    for _ in range(depth - 1):
        tree = {"x": tree}
    return tree


def test_deep_and_cyclic_dicts_name_the_key() -> None:
    scenario = small_scenario()
    scenario["extra"] = nested(100)
    with pytest.raises(incast.ScenarioError) as err:
        incast.run(scenario)
    assert err.value.path.startswith("extra.x.x") and "nested more than 64 levels" in err.value.message
    loop: Dict[str, Any] = {"kind": "flow-burst"}
    loop["self"] = loop
    scenario = small_scenario()
    scenario["workload"].append(loop)
    with pytest.raises(incast.ScenarioError) as err:
        incast.run(scenario)
    assert err.value.path == "workload[1].self" and "contains itself" in err.value.message
    scenario = small_scenario()
    hosts: List[Any] = [1, 2]
    hosts.append(hosts)
    scenario["workload"][0]["worker_hosts"] = hosts
    with pytest.raises(incast.ScenarioError) as err:
        incast.run(scenario)
    assert err.value.path == "workload[0].worker_hosts[2]"
    # A value shared by two keys is not a cycle.
    size = {"dist": "fixed", "value": "2KB"}
    scenario = small_scenario()
    scenario["workload"] = [dict(scenario["workload"][0], size=size), dict(scenario["workload"][0], size=size)]
    assert incast.run(scenario).summary["flows"] == 12
    # 64 levels is the limit, and is allowed.
    assert _plain(nested(64), "") == nested(64)


def test_values_of_other_types_name_the_key() -> None:
    for value, needle in [(object(), "object"), (b"x", "bytes"), (1j, "complex"), (float("nan"), "finite")]:
        scenario = small_scenario()
        scenario["workload"][0]["senders"] = value
        with pytest.raises(incast.ScenarioError) as err:
            incast.run(scenario)
        assert err.value.path == "workload[0].senders" and needle in err.value.message
    scenario = small_scenario()
    scenario["topology"][3] = 1
    with pytest.raises(incast.ScenarioError, match="keys must be strings") as err:
        incast.run(scenario)
    assert err.value.path == "topology"


def test_numpy_values_are_their_python_values() -> None:
    np = pytest.importorskip("numpy")
    plain = _plain(
        {"i": np.int64(3), "f": np.float64(0.5), "b": np.bool_(True), "s": np.str_("x"), "a": np.array([1, 2])}, ""
    )
    assert plain == {"i": 3, "f": 0.5, "b": True, "s": "x", "a": [1, 2]}
    assert [type(v) for v in plain.values()] == [int, float, bool, str, list]
    assert [type(v) for v in plain["a"]] == [int, int]
    scenario = small_scenario()
    scenario["topology"]["hosts"] = np.int32(4)
    scenario["topology"]["kind"] = np.str_("star")
    scenario["workload"][0]["worker_hosts"] = np.array([1, 2, 3], dtype=np.uint16)
    scenario["workload"][0]["senders"] = np.int64(3)
    scenario["run"] = {"stop_after_finite_flows": np.bool_(False)}
    scenario["d2tcp"] = {"d_cap": np.float32(2.0)}
    assert incast.run(scenario).flows.equals(incast.run(small_scenario()).flows)
    scenario = small_scenario()
    scenario["workload"][0]["worker_hosts"] = np.array([[1, 2], [3, 4]])
    with pytest.raises(incast.ScenarioError, match="2-dimensional array") as err:
        incast.run(scenario)
    assert err.value.path == "workload[0].worker_hosts"
    scenario["workload"][0]["worker_hosts"] = [1, np.float64("nan")]
    with pytest.raises(incast.ScenarioError, match="finite") as err:
        incast.run(scenario)
    assert err.value.path == "workload[0].worker_hosts[1]"


# --- run(chunk_events=...) -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "'100'", "True", "None", "2**64"])
def test_chunk_events_must_be_a_positive_integer(value: str) -> None:
    e = api_error(f"incast.run({small_scenario()!r}, chunk_events={value})")
    assert e["type"] == "ValueError" and "chunk_events" in e["text"], e


def test_chunk_events_may_be_one() -> None:
    assert incast.run(small_scenario(), chunk_events=1).flows.equals(incast.run(small_scenario()).flows)
