"""The committed results of a full run, as the docs read them: each reproduction's `report.json`
and the Parquet tables it names (`docs/reproductions/<id>/`), and the optional `run.json` beside
them that records the run as a whole (its command, its total wall time, its date, whether it
was cold), which no single report can know.

Everything is read once and kept: one generation reads each table once however many blocks
draw on it. Anything missing is a `DocsError` naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from incast.reproduce.rendering.errors import DocsError

if TYPE_CHECKING:
    import pyarrow as pa

RUN_FILE = "run.json"
"""The record of the whole run, beside the reproductions' directories (docs/reproduce.md)."""


class Reproductions:
    """The reports and tables under one directory (`docs/reproductions`)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._reports: Dict[str, Mapping[str, Any]] = {}
        self._tables: Dict[Tuple[str, str], "pa.Table"] = {}

    def report(self, rid: str) -> Mapping[str, Any]:
        """The report of reproduction `rid`, as `write_outcome` wrote it."""
        if rid not in self._reports:
            path = self.root / rid / "report.json"
            self._reports[rid] = _json(path, f"no report of {rid}")
        return self._reports[rid]

    def ids(self) -> List[str]:
        """Every reproduction with a report here, sorted."""
        return sorted(p.parent.name for p in self.root.glob("*/report.json"))

    def reports(self) -> List[Mapping[str, Any]]:
        """Every report here, sorted by ID."""
        return [self.report(rid) for rid in self.ids()]

    def table(self, rid: str, name: str) -> "pa.Table":
        """Table `name` of reproduction `rid` (one of the report's `tables`)."""
        key = (rid, name)
        if key not in self._tables:
            import pyarrow.parquet as pq

            if name not in self.report(rid).get("tables", ()):
                raise DocsError(f"the report of {rid} names no table {name!r}")
            path = self.root / rid / f"{name}.parquet"
            try:
                self._tables[key] = pq.read_table(path)
            except (OSError, ValueError) as e:
                raise DocsError(f"table {name!r} of {rid}: cannot read {path}: {e}") from None
        return self._tables[key]

    def claim(self, rid: str, *words: str) -> Mapping[str, Any]:
        """The one claim of reproduction `rid` whose text contains every one of `words`."""
        found: List[Mapping[str, Any]] = [c for c in self.report(rid).get("claims", ())
                                          if all(w in c["claim"] for w in words)]
        if len(found) != 1:
            raise DocsError(f"the report of {rid} has {len(found)} claims with {' ... '.join(words)!r}, not one")
        return found[0]

    def run(self) -> Optional[Mapping[str, Any]]:
        """The record of the whole run (`run.json`), or None when there is none."""
        path = self.root / RUN_FILE
        return _json(path, "unreadable run record") if path.exists() else None


def _json(path: Path, what: str) -> Mapping[str, Any]:
    try:
        value = json.loads(path.read_text())
    except FileNotFoundError:
        raise DocsError(f"{what}: {path} is missing") from None
    except (OSError, ValueError) as e:
        raise DocsError(f"{what}: cannot read {path}: {e}") from None
    if not isinstance(value, dict):
        raise DocsError(f"{what}: {path} does not hold a JSON object")
    return value
