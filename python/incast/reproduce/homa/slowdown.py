"""Homa's headline figure (Montazeri et al., SIGCOMM 2018, Figure 12): the 99th-percentile
slowdown of messages against their size, for the workloads W1-W5 at 80% network load on the
144-host leaf-spine, Homa against pFabric and NDP (the authors' comparisons) and DCTCP and TCP
(issue 40's; the figure has none). Settings and where each comes from: `settings`.

Slowdown is a message's completion time over its completion time alone on the idle network
(incast's `slowdown`, each transport's own packets: the paper's "best possible"). Messages are
gathered into five size buckets per workload, each about a fifth of the messages
(`settings.buckets`: the authors' own size ranges, in order), and each bucket's 99th percentile
is compared: between transports, and with the authors' numbers for the same ranges.

The claims are the abstract's (arXiv 1803.09615; the paper's body is not in this repository):

    "In simulations, Homa's latency is roughly equal to pFabric and significantly better than
    pHost, PIAS, and NDP for almost all message sizes and workloads."

read bucket by bucket, each workload a claim of its own; and what the authors report, the data
behind Figure 12 (`settings`): each transport's 99th percentile per size range, which bounds
the 99th percentile of a bucket of those ranges from below and above (a mixture's quantile lies
between its parts'). pHost and PIAS are not in incast. The abstract's last claim ("Homa can also
sustain higher network loads than pFabric, pHost, or PIAS") needs loads above 80% and is not
judged here.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from incast.reproduce.core import Context, Outcome, Reproduction, table
from incast.reproduce.figures import POINTS, Panel, Plot, Series
from incast.reproduce.homa import settings
from incast.reproduce.homa.settings import LABELS, PROTOCOLS, WORKLOADS, Bucket
from incast.reproduce.verdict import (
    NON_NEGATIVE,
    PRINTED,
    ROUGH,
    Claim,
    Text,
    every,
    order_claim,
    range_claim,
    ratio_claim,
)
from incast.stats import quantile

ROUGHLY = ("Homa's abstract: \"In simulations, Homa's latency is roughly equal to pFabric [...] for almost all "
           "message sizes and workloads\"")
BETTER = ("Homa's abstract: \"In simulations, Homa's latency is [...] significantly better than pHost, PIAS, and NDP "
          "for almost all message sizes and workloads\"")
AUTHORS = "the authors' simulation results behind Figure 12, `original-raw-data-from-paper.txt` (settings)"
MIN_MESSAGES = 20
"""A bucket's 99th percentile needs at least this many measured messages in a seed (fewer: the
claim on it is not exercised in that seed; only the quick run has so few)."""


def _percentiles(ctx: Context, workloads: Sequence[str]) -> List[Dict[str, Any]]:
    """One row per (protocol, workload, bucket) of this seed: measured messages, unfinished
    ones, the mean and 99th percentile of the slowdown."""
    arrivals = settings.QUICK_ARRIVALS_MS if ctx.quick else settings.ARRIVALS_MS
    cuts = {w: settings.buckets(w) for w in workloads}
    rows: List[Dict[str, Any]] = []
    for p in PROTOCOLS:
        result = ctx.sweep(f"homa-slowdown-{p}", settings.scenario(p),
                           zips=[settings.workload_zip(p, workloads, arrivals)])
        flows = result.flows().select([settings.SIZE_KEY, "size_bytes", "slowdown", "measured"]).to_pydict()
        values: Dict[Tuple[str, int], List[float]] = {}
        unfinished: Dict[Tuple[str, int], int] = {}
        for size, n, s, measured in zip(flows[settings.SIZE_KEY], flows["size_bytes"], flows["slowdown"],
                                        flows["measured"]):
            if not measured:
                continue
            w = settings.workload_of(size)
            key = (w, _bucket_of(cuts[w], n))
            if s is None:
                unfinished[key] = unfinished.get(key, 0) + 1
            else:
                values.setdefault(key, []).append(s)
        for w in workloads:
            for i, b in enumerate(cuts[w]):
                v = values.get((w, i), [])
                rows.append({"protocol": p, "workload": w, "bucket_index": i, "bucket": b.label,
                             "high_bytes": b.high, "messages": len(v), "unfinished": unfinished.get((w, i), 0),
                             "mean": math.fsum(v) / len(v) if v else None,
                             "p99": quantile(v, 0.99) if len(v) >= MIN_MESSAGES else None})
    return rows


def _bucket_of(cuts: Sequence[Bucket], size: int) -> int:
    """The bucket of a message of `size` bytes (sizes above the last bound go in the last)."""
    for i, b in enumerate(cuts):
        if size <= b.high:
            return i
    return len(cuts) - 1


def _p99(rows: Sequence[Mapping[str, Any]], protocol: str, workload: str, bucket: int) -> Optional[float]:
    for r in rows:
        if (r["protocol"], r["workload"], r["bucket_index"]) == (protocol, workload, bucket):
            return r["p99"]  # type: ignore[no-any-return]
    raise KeyError((protocol, workload, bucket))


def _roughly_pfabric(rows: Sequence[Mapping[str, Any]], w: str, cuts: Sequence[Bucket]) -> Claim:
    parts: Dict[object, Claim] = {}
    for i, b in enumerate(cuts):
        homa, pfabric = _p99(rows, "homa", w, i), _p99(rows, "pfabric", w, i)
        ok = homa is not None and pfabric is not None
        parts[b.label] = ratio_claim(
            "", 1.0, homa / pfabric if homa is not None and pfabric else 0.0, tolerance=ROUGH, within=NON_NEGATIVE,
            fmt="{:.2f}", exercised=ok, premise=f"fewer than {MIN_MESSAGES} measured messages in the bucket")
    return every(f"{w}: Homa's 99th-percentile slowdown is roughly equal to pFabric's in every size bucket "
                 f"(Homa's over pFabric's, 'roughly' read as a rough magnitude; {ROUGHLY})", "Homa / pFabric ~ 1",
                 parts, why=_gap_text(rows, w, cuts, "pfabric"))


def _better_than_ndp(rows: Sequence[Mapping[str, Any]], w: str, cuts: Sequence[Bucket]) -> Claim:
    parts: Dict[object, Claim] = {}
    for i, b in enumerate(cuts):
        homa, ndp = _p99(rows, "homa", w, i), _p99(rows, "ndp", w, i)
        ok = homa is not None and ndp is not None
        parts[b.label] = order_claim(
            "", "Homa below NDP", {"Homa": homa if ok and homa else 0.0, "NDP": ndp if ok and ndp else 0.0},
            ["Homa", "NDP"], fmt="{:.2f}", within=NON_NEGATIVE, exercised=ok,
            premise=f"fewer than {MIN_MESSAGES} measured messages in the bucket")
    where = " (the authors ran NDP on W5 only)" if w not in settings.NDP_P99 else ""
    return every(f"{w}: Homa's 99th-percentile slowdown is below NDP's in every size bucket{where} ({BETTER})",
                 "Homa below NDP", parts, why=_gap_text(rows, w, cuts, "ndp"))


def _gap_text(rows: Sequence[Mapping[str, Any]], w: str, cuts: Sequence[Bucket], other: str) -> Text:
    """Words naming each bucket's two 99th percentiles, Homa's and `other`'s."""
    facts: Dict[str, float] = {}
    for i in range(len(cuts)):
        for p in ("homa", other):
            v = _p99(rows, p, w, i)
            if v is not None:
                facts[f"{p}{i}"] = v
    labels = [b.label for b in cuts]
    name = LABELS[other]

    def write(f: Mapping[str, float]) -> str:
        cells = [f"{labels[i]} Homa {f[f'homa{i}']:.2f}, {name} {f[f'{other}{i}']:.2f}" for i in range(len(labels))
                 if f"homa{i}" in f and f"{other}{i}" in f]
        return "99th percentiles by bucket: " + "; ".join(cells)

    return Text(write, facts)


def _authors(rows: Sequence[Mapping[str, Any]], protocol: str, w: str, cuts: Sequence[Bucket],
             brackets: Sequence[Tuple[float, float]]) -> Claim:
    """`protocol`'s 99th percentile of each bucket between the authors' lowest and highest of its
    ranges, widened by `PRINTED`."""
    parts: Dict[object, Claim] = {}
    for i, (b, (low, high)) in enumerate(zip(cuts, brackets)):
        ours = _p99(rows, protocol, w, i)
        parts[b.label] = range_claim(
            "", low, high, ours if ours is not None else 0.0, tolerance=PRINTED, within=NON_NEGATIVE, fmt="{:.2f}",
            exercised=ours is not None, premise=f"fewer than {MIN_MESSAGES} measured messages in the bucket")
    return every(f"{w}: {LABELS[protocol]}'s 99th-percentile slowdown in each size bucket is what the authors "
                 f"report for its size ranges, between the lowest and highest of theirs ({AUTHORS}, 80% load)",
                 "the authors' range", parts, why=_authors_why(rows, protocol, w, cuts, brackets))


def _authors_why(rows: Sequence[Mapping[str, Any]], protocol: str, w: str, cuts: Sequence[Bucket],
                 brackets: Sequence[Tuple[float, float]]) -> Text:
    """Where `protocol`'s 99th percentiles leave the authors' ranges, and what is known of why
    (docs/homa.md, the cross-check; settings)."""
    facts = {f"p{i}": v for i in range(len(cuts)) if (v := _p99(rows, protocol, w, i)) is not None}
    labels = [b.label for b in cuts]
    if protocol == "homa":
        cause = ("the cross-check's long runs (docs/crosscheck/homa/) name the likely causes of such gaps: the "
                 "authors' configuration gives a message's unscheduled packets the level of the bytes it has left and "
                 "sends its last RTTbytes at an unscheduled level, where incast follows the paper's Section 3.4; "
                 "and these runs are shorter than a steady state (settings)")
    elif protocol == "pfabric":
        cause = ("incast's pFabric runs its own simulator's settings (36 KiB ports, initial window 12, a 45 us "
                 "timeout, docs/pfabric.md); the authors' data gives of their pFabric only its 10,000 B first window")
    else:
        cause = ("cause not traced: incast's NDP runs htsim's rules (docs/ndp.md, cross-checked against htsim on "
                 "web-search flows on a leaf-spine) with 1,500 B packets, 8-packet queues and a 10,052 B first window; "
                 "the authors ran htsim on their network with settings their data does not give beyond a 10,000 B "
                 "first window (queue sizes, pull rate, return-to-sender, priorities of their own are candidates)")

    def write(f: Mapping[str, float]) -> str:
        outside = [f"{labels[i]} {f[f'p{i}']:.2f} (theirs {lo:.2f}-{hi:.2f})"
                   for i, (lo, hi) in enumerate(brackets) if f"p{i}" in f
                   and not lo / PRINTED.factor <= f[f"p{i}"] <= hi * PRINTED.factor]
        return (f"{LABELS[protocol]}'s 99th percentile leaves the authors' range in " + "; ".join(outside)
                + f": {cause}") if outside else cause

    return Text(write, facts)


def _figure(rows: Sequence[Mapping[str, Any]], workloads: Sequence[str], cuts: Mapping[str, Sequence[Bucket]],
            quick: bool) -> Plot:
    panels = []
    for w in workloads:
        series = [Series(LABELS[p], {b.high: v for i, b in enumerate(cuts[w]) if (v := _p99(rows, p, w, i))
                                     is not None}, within=NON_NEGATIVE) for p in PROTOCOLS]
        # The authors' Homa: the lowest and highest 99th percentile of each bucket's ranges.
        series += [Series(f"authors' Homa, {end} of the bucket's ranges",
                          {b.high: (min if end == "lowest" else max)(b.homa_p99) for b in cuts[w]},
                          kind=POINTS, paper=True) for end in ("lowest", "highest")]
        panels.append(Panel(f"{w} ({settings.NAMES[w]})", "message size, bucket's largest (bytes)",
                            "99th-percentile slowdown", series=series, xscale="log", yscale="log"))
    title = ("Homa Figure 12: 99th-percentile slowdown by message size at 80% load"
             + (" (quick: few messages)" if quick else ""))
    return Plot(title, panels, columns=3, panel_size=(5.2, 4.0))


def slowdown(ctx: Context) -> Outcome:
    workloads = list(WORKLOADS)
    rows = _percentiles(ctx, workloads)
    cuts = {w: settings.buckets(w) for w in workloads}
    claims: List[Claim] = []
    for w in workloads:
        claims.append(_roughly_pfabric(rows, w, cuts[w]))
    for w in workloads:
        claims.append(_better_than_ndp(rows, w, cuts[w]))
    for w in workloads:
        homa_brackets = [(min(b.homa_p99), max(b.homa_p99)) for b in cuts[w]]
        claims.append(_authors(rows, "homa", w, cuts[w], homa_brackets))
    for w in workloads:
        claims.append(_authors(rows, "pfabric", w, cuts[w], settings.PFABRIC_P99[w]))
    for w, brackets in settings.NDP_P99.items():
        claims.append(_authors(rows, "ndp", w, cuts[w], brackets))
    arrivals = settings.QUICK_ARRIVALS_MS if ctx.quick else settings.ARRIVALS_MS
    notes = (
        "The Homa paper's network (144 hosts, 9 racks of 16 under 4 spines, 10/40 Gbps, the authors' delays on "
        "incast's links), Poisson messages between random hosts at 80% of the host links counted on the wire "
        "(every transport the same messages), arrivals for "
        + ", ".join(f"{w} {arrivals[w]:g} ms" for w in workloads)
        + "; the messages of the first tenth are the warm-up and those of the last 40% are run but not counted, "
        "and every run lasts until its last message is delivered. Homa runs the authors' configuration (8 levels, "
        "9,328 B unscheduled, their unscheduled levels per workload), pFabric its simulator's settings, NDP htsim's "
        "rules with 1,500 B packets and a 10 KB first window, DCTCP and TCP pFabric's TCP settings (one ECMP path "
        "per flow); the settings module cites each. Each workload's messages fall in five buckets of about a fifth "
        "of them each, the authors' own size ranges in order; a bucket's 99th percentile needs "
        f"{MIN_MESSAGES} measured messages in a seed. The claims are the abstract's, read bucket by bucket, and "
        "the authors' own numbers (their Homa, pFabric and, for W5, NDP rows): a bucket's 99th percentile lies "
        "between the lowest and highest of its ranges'. The paper's figure has no DCTCP or TCP: they are drawn, "
        "and tabled, with no claim.")
    return Outcome(claims=claims, tables={"slowdown": table(rows)}, figure=_figure(rows, workloads, cuts, ctx.quick),
                   notes=notes)


REPRODUCTIONS = (
    Reproduction("homa-slowdown", "Homa", "Figure 12: 99th-percentile slowdown by message size, W1-W5 at 80% load, "
                 "against pFabric, NDP, DCTCP and TCP", slowdown, seeds=3),
)
