"""`incast report DIR`: every reproduction found under DIR on one self-contained HTML page.

The page needs no server and no network: figures are inlined as data URIs, the style sheet is in
the page. It is built from each reproduction's `report.json` (not from the markdown), so that it
shows exactly the claims, numbers and verdicts the reproduction computed.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

from incast.reproduce.core import MATCHES

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; margin: 0.8rem 0; }
th, td { border: 1px solid #ddd; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
.matches { color: #176f2c; font-weight: 600; } .deviates { color: #a33; font-weight: 600; }
.why { color: #555; font-size: 0.85rem; }
img { max-width: 100%; border: 1px solid #eee; }
code { background: #f4f4f4; padding: 0 0.2rem; }
.meta { color: #666; font-size: 0.85rem; }
"""


def find_reports(root: Path) -> List[Tuple[Path, Dict[str, Any]]]:
    """(directory, report) of every reproduction under `root`, in ID order."""
    found = []
    for path in sorted(root.glob("*/report.json")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"{path}: unreadable report ({e})") from None
        found.append((path.parent, report))
    return found


def render(root: Path) -> str:
    """The HTML page for every reproduction under `root`."""
    reports = find_reports(root)
    if not reports:
        raise ValueError(f"{str(root)!r} holds no reproduction (no */report.json); run `incast reproduce` first")
    total = sum(len(r["claims"]) for _, r in reports)
    matched = sum(c["verdict"] == MATCHES for _, r in reports for c in r["claims"])
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>incast reproductions</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>incast: the D3 and D2TCP papers reproduced</h1>",
        f"<p class='meta'>{len(reports)} reproductions, {matched} of {total} claims match the paper by their "
        "stated rule. Each section: the figure, the setting, and every claim with the paper's number, ours and "
        "the verdict.</p>",
        "<table><tr><th>reproduction</th><th>claims matching</th><th>run</th></tr>",
    ]
    for _, r in reports:
        ok = sum(c["verdict"] == MATCHES for c in r["claims"])
        mode = "quick" if r["quick"] else "full"
        parts.append(f"<tr><td><a href='#{_esc(r['id'])}'>{_esc(r['paper'])} {_esc(r['title'])}</a></td>"
                     f"<td>{ok} / {len(r['claims'])}</td><td>{mode}, {r['wall_s']} s</td></tr>")
    parts.append("</table>")
    for directory, r in reports:
        parts.append(_section(directory, r))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _section(directory: Path, r: Dict[str, Any]) -> str:
    out = [f"<h2 id='{_esc(r['id'])}'>{_esc(r['paper'])} {_esc(r['title'])}</h2>",
           f"<p class='meta'><code>incast reproduce {_esc(r['id'])}</code>, "
           f"{'quick (reduced)' if r['quick'] else 'full'} run, {r['wall_s']} s.</p>"]
    figure = directory / "figure.png"
    if figure.exists():
        data = base64.b64encode(figure.read_bytes()).decode("ascii")
        out.append(f"<img alt='{_esc(r['title'])}' src='data:image/png;base64,{data}'>")
    if r.get("notes"):
        out.append(f"<p>{_inline(r['notes'])}</p>")
    out.append("<table><tr><th>claim (paper)</th><th>paper</th><th>ours</th><th>verdict</th><th>rule</th></tr>")
    for c in r["claims"]:
        why = f"<div class='why'>{_inline(c['why'])}</div>" if c.get("why") else ""
        out.append(f"<tr><td>{_esc(c['claim'])}</td><td>{_esc(c['paper'])}</td><td>{_esc(c['ours'])}</td>"
                   f"<td class='{_esc(c['verdict'])}'>{_esc(c['verdict'])}{why}</td><td>{_esc(c['rule'])}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _inline(text: str) -> str:
    """Escapes `text` and turns `code` spans into <code>: all the markdown the notes use."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(text))


def write_report(root: Path) -> Path:
    """Writes `root/report.html` (atomically) and returns its path."""
    from incast.api import staged_files

    page = render(root)
    target = root / "report.html"
    with staged_files() as stage:
        stage(target).write_text(page, encoding="utf-8")
    return target
