"""The crosscheck report: a markdown table per measure, incast against ns-3, with the targets."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

from incast.crosscheck import COUNT_TARGET, FCT_TARGET, relative


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else ("inf" if math.isinf(x) else f"{100 * x:+.0f}%")


def _mark(x: float, target: float) -> str:
    return "yes" if abs(x) <= target else "**no**"


def write_report(out: Path, doc: Dict[str, Any]) -> None:
    lines: List[str] = ["# incast against ns-3", ""]
    s = doc["settings"]
    lines += [f"ns-3 {s['ns3_version']}; {doc['rounds']} bursts per case; links {s['link']}; "
              f"{s['queue_packets']}-packet queues; K = {s['ecn_k_packets']} packets (DCTCP); MSS {s['mss']} B; "
              f"IW {s['initial_window']}; min RTO {s['min_rto_ms']:g} ms.", ""]
    lines += ["| case | FCT mean | p50 | p99 | within 10% | deadlines met (pts) | drops | marks | within 15% | RTOs incast / ns-3 |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in doc["results"]:
        i, n = r["incast"], r["ns3"]
        fct = [relative(i[k], n[k]) for k in ("fct_mean_ms", "fct_p50_ms", "fct_p99_ms")]
        counts = [relative(i["drops"], n["drops"]), relative(i["marks"], n["marks"]) if n["marks"] or i["marks"] else 0.0]
        lines.append(
            f"| {r['case']['name']} | {_pct(fct[0])} | {_pct(fct[1])} | {_pct(fct[2])} | "
            f"{'yes' if all(abs(x) <= FCT_TARGET for x in fct) else '**no**'} | "
            f"{100 * (i['deadlines_met'] - n['deadlines_met']):+.1f} | {_pct(counts[0])} | {_pct(counts[1])} | "
            f"{'yes' if all(abs(x) <= COUNT_TARGET for x in counts) else '**no**'} | {i['timeouts']} / {n['timeouts']} |")
    lines += ["", "## Absolute values", "",
              "| case | sim | completed | FCT mean ms | p50 ms | p99 ms | met | drops | marks | RTOs | resent segments |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in doc["results"]:
        for sim in ("ns3", "incast"):
            v = r[sim]
            lines.append(f"| {r['case']['name']} | {sim} | {v['completed']}/{v['flows']} | {v['fct_mean_ms']:.3f} | "
                         f"{v['fct_p50_ms']:.3f} | {v['fct_p99_ms']:.3f} | {100 * v['deadlines_met']:.1f}% | {v['drops']} | "
                         f"{v['marks']} | {v['timeouts']} | {v['retransmitted_segments']:.0f} |")
    lines += ["", "## Per-flow agreement", "",
              "| case | median abs. FCT difference | flows within 10% | FCT correlation | same deadline outcome |",
              "| --- | --- | --- | --- | --- |"]
    for r in doc["results"]:
        a = r["agreement"]
        lines.append(f"| {r['case']['name']} | {100 * a['median_abs_rel_diff']:.1f}% | {100 * a['within_10pct']:.0f}% | "
                     f"{a['fct_correlation']:.2f} | {100 * a['deadline_agreement']:.1f}% |")
    (out / "report.md").write_text("\n".join(lines) + "\n")
