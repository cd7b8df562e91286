"""`incast report DIR`: every reproduction found under DIR on one self-contained HTML page.

The page needs no server and no network: figures are inlined as data URIs, the style sheet is in
the page. It is built from each reproduction's `report.json` (not from the markdown), so that it
shows exactly the claims, numbers and verdicts the reproduction computed.

DIR may come from someone else, so nothing in it is trusted: every value is HTML-escaped, each
report.json is checked key by key (`ReportError` names the file and the key), and report.json and
figure.png are read only if they are regular files inside DIR (a symlink out of DIR, a FIFO or a
device is refused, not followed).
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import stat
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Tuple

from incast.reproduce.core import rule_text, run_mode, verdict_text, wall_time
from incast.reproduce.verdict import VERDICTS, Tally

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; margin: 0.8rem 0; }
th, td { border: 1px solid #ddd; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
.matches { color: #176f2c; font-weight: 600; } .deviates { color: #a33; font-weight: 600; }
.not-exercised { color: #666; font-weight: 600; }
.why { color: #555; font-size: 0.85rem; }
img { max-width: 100%; border: 1px solid #eee; }
code { background: #f4f4f4; padding: 0 0.2rem; }
.meta { color: #666; font-size: 0.85rem; }
"""


MAX_FILE_BYTES = 64 << 20
"""Largest report.json or figure.png read: far above what a reproduction writes."""


class ReportError(ValueError):
    """A reproduction directory the report cannot be built from; the message names the file
    and, for a malformed report.json, the key."""


def find_reports(root: Path) -> List[Tuple[Path, Dict[str, Any]]]:
    """(directory, report) of every reproduction under `root`, in ID order, each report checked."""
    found = []
    for path in sorted(root.glob("*/report.json")):
        data = read_inside(root, path)
        try:
            report = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ReportError(f"{path}: not JSON ({e})") from None
        check_report(path, report)
        found.append((path.parent, report))
    return found


def read_inside(root: Path, path: Path) -> bytes:
    """The bytes of `path`, a regular file inside `root` once symlinks are resolved; ReportError
    otherwise, checked before opening (opening a FIFO would block)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        raise ReportError(f"{path}: leads out of {str(root)!r} (a symlink?); only files inside it are read")
    try:
        info = os.stat(real)
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ReportError(f"{path}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ReportError(f"{path}: {info.st_size} bytes, larger than any reproduction writes")
    try:
        with open(real, "rb") as f:
            return f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None


# Keys of report.json the page shows, with their types (core.write_outcome writes them).
_REPORT_KEYS = {"id": str, "paper": str, "title": str, "quick": bool, "wall_s": (int, float), "claims": list}
_CLAIM_KEYS = {"claim": str, "paper": str, "ours": str, "verdict": str, "rule": str}


def check_report(path: Path, report: Any) -> None:
    """Raises ReportError naming `path` and the first key of `report` that is missing or of the
    wrong type."""

    def fail(key: str, problem: str) -> NoReturn:
        raise ReportError(f"{path}: `{key}`: {problem}")

    def check(tree: Dict[str, Any], keys: Dict[str, Any], where: str) -> None:
        for key, kind in keys.items():
            if key not in tree:
                fail(f"{where}{key}", "missing")
            value = tree[key]
            if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
                fail(f"{where}{key}", f"must be {_kind_name(kind)}, not {_kind_name(type(value))}")

    if not isinstance(report, dict):
        raise ReportError(f"{path}: must hold a JSON object, not {_kind_name(type(report))}")
    check(report, _REPORT_KEYS, "")
    sims = report.get("simulations")
    if sims is not None:
        if not isinstance(sims, dict):
            fail("simulations", f"must be an object, not {_kind_name(type(sims))}")
        for key in ("run", "cached"):
            if not isinstance(sims.get(key), int) or isinstance(sims.get(key), bool):
                fail(f"simulations.{key}", f"must be a number, not {_kind_name(type(sims.get(key)))}")
    if report.get("notes") is not None and not isinstance(report["notes"], str):
        fail("notes", f"must be a string, not {_kind_name(type(report['notes']))}")
    for i, claim in enumerate(report["claims"]):
        if not isinstance(claim, dict):
            fail(f"claims[{i}]", f"must be an object, not {_kind_name(type(claim))}")
        check(claim, _CLAIM_KEYS, f"claims[{i}].")
        if claim["verdict"] not in VERDICTS:
            fail(f"claims[{i}].verdict", f"must be one of {', '.join(map(repr, VERDICTS))}, "
                                         f"not {claim['verdict'][:40]!r}")
        for key, kind in (("why", str), ("tolerance", str), ("straddles", bool)):
            if claim.get(key) is not None and not isinstance(claim[key], kind):
                fail(f"claims[{i}].{key}", f"must be {_kind_name(kind)}, not {_kind_name(type(claim[key]))}")


def _kind_name(kind: Any) -> str:
    names: Dict[Any, str] = {str: "a string", bool: "true or false", int: "a number", float: "a number",
                             list: "a list", dict: "an object", type(None): "null"}
    if isinstance(kind, tuple):
        kind = kind[0]
    return names.get(kind, str(kind.__name__))


def render(root: Path) -> str:
    """The HTML page for every reproduction under `root`."""
    reports = find_reports(root)
    if not reports:
        raise ReportError(f"{str(root)!r} holds no reproduction (no */report.json); run `incast reproduce` first")
    tally = Tally.of([c for _, r in reports for c in r["claims"]])
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>incast reproductions</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>incast: the D3 and D2TCP papers reproduced</h1>",
        f"<p class='meta'>{len(reports)} reproductions: {_esc(tally)}, each by its stated rule. A claim is "
        "<em>not exercised</em> when its premise did not occur in our runs. Each section: the figure, the "
        "setting, and every claim with the paper's number, ours and the verdict.</p>",
        "<table><tr><th>reproduction</th><th>claims</th><th>run</th></tr>",
    ]
    for _, r in reports:
        mode = run_mode(r)
        parts.append(f"<tr><td><a href='#{_esc(r['id'])}'>{_esc(r['paper'])} {_esc(r['title'])}</a></td>"
                     f"<td>{_esc(Tally.of(r['claims']))}</td><td>{_esc(mode)}, {_esc(wall_time(r))}</td></tr>")
    parts.append("</table>")
    for directory, r in reports:
        parts.append(_section(root, directory, r))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _section(root: Path, directory: Path, r: Dict[str, Any]) -> str:
    out = [f"<h2 id='{_esc(r['id'])}'>{_esc(r['paper'])} {_esc(r['title'])}</h2>",
           f"<p class='meta'><code>incast reproduce {_esc(r['id'])}</code>, "
           f"{_esc(run_mode(r))}, {_esc(wall_time(r))}.</p>"]
    figure = directory / "figure.png"
    if os.path.lexists(figure):
        data = base64.b64encode(read_inside(root, figure)).decode("ascii")
        out.append(f"<img alt='{_esc(r['title'])}' src='data:image/png;base64,{data}'>")
    if r.get("notes"):
        out.append(f"<p>{_inline(r['notes'])}</p>")
    out.append("<table><tr><th>claim (paper)</th><th>paper</th><th>ours</th><th>verdict</th><th>rule</th></tr>")
    for c in r["claims"]:
        why = f"<div class='why'>{_inline(c['why'])}</div>" if c.get("why") else ""
        css = "-".join(str(c["verdict"]).split())
        out.append(f"<tr><td>{_esc(c['claim'])}</td><td>{_esc(c['paper'])}</td><td>{_esc(c['ours'])}</td>"
                   f"<td class='{_esc(css)}'>{_esc(verdict_text(c))}{why}</td><td>{_esc(rule_text(c))}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _inline(text: str) -> str:
    """Escapes `text` and turns `code` spans into <code>: all the markdown the notes use."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(text))


def write_report(root: Path) -> Path:
    """Writes `root/report.html` (atomically) and returns its path."""
    from incast.durable import staged_files

    page = render(root)
    target = root / "report.html"
    with staged_files() as stage:
        stage(target).write_text(page, encoding="utf-8")
    return target
