"""Digests of everything a run returns, for every example and benchmark scenario: to show that a
change meant to leave results alone (a refactoring, a faster engine) left every value as it was.

    python benches/digests.py [--skip-large] [NAME ...] > FILE

For each scenario of examples/ and benches/ (or those named), it runs the scenario once through
the Python API and prints one line: the name, the events, and a SHA-256 of each table (flows,
ports, the summary without its wall time, traces, queue samples, throughput, offers, the
capture's bytes). Run it on two builds and compare the outputs with `diff`: any bit of any value
that moved shows. The tests pin the flows and event counts of the examples (tests/test_examples.py);
this covers the rest of what a run returns, and the benchmark scenarios, whose runs take
minutes in all (`--skip-large` leaves out the two biggest fat trees and the million-flow star).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import incast

REPO = Path(__file__).resolve().parent.parent
LARGE = {"fat_tree_k16_web_search_dctcp", "fat_tree_k32_web_search_dctcp", "star_flows_1m_dctcp"}
# Columns renamed since a build one may compare with: digested under their new names.
RENAMED = {"d3_rate_bytes_per_s": "rate_bytes_per_s"}
# Summary keys added since a build one may compare with: left out of the summary's digest (a run
# that stalls shows in its events and tables anyway).
ADDED = {"status", "stall_reason", "stall_keys"}


def table_digest(table: Any) -> str:
    """Every value of an Arrow table, column by column, floats by their shortest exact form."""
    if table is None:
        return "-"
    text = json.dumps({RENAMED.get(name, name): table[name].to_pylist() for name in table.column_names}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digests(path: Path) -> Dict[str, Any]:
    result = incast.run(str(path))
    summary = {k: v for k, v in result.summary.items() if k != "wall_time_s" and k not in ADDED}
    capture = result.capture.pcap if result.capture is not None else b""
    return {
        "events": summary["events"],
        "flows": table_digest(result.flows),
        "ports": table_digest(result.ports),
        "summary": hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()[:16],
        "traces": table_digest(result.traces),
        "queues": table_digest(result.queues),
        "throughput": table_digest(result.throughput),
        "offers": table_digest(result.offers),
        "capture": hashlib.sha256(capture).hexdigest()[:16],
    }


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="scenario names (file stems); default: every one")
    parser.add_argument("--skip-large", action="store_true", help="leave out the largest benchmark scenarios")
    args = parser.parse_args(argv)
    paths = sorted((REPO / "examples").glob("*.toml")) + sorted((REPO / "benches").glob("*.toml"))
    for path in paths:
        if (args.names and path.stem not in args.names) or (args.skip_large and path.stem in LARGE):
            continue
        d = digests(path)
        print(f"{path.parent.name}/{path.stem}", " ".join(f"{k}={v}" for k, v in d.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
