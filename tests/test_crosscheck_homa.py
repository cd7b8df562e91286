"""The Homa cross-check's harness (`incast.crosscheck.homa`, docs/crosscheck/homa/): reading the
authors' table, binning messages by its size ranges, and the message load of a network load."""

from __future__ import annotations

import pytest

from incast.crosscheck import homa

HEADER = ("TransportType LoadFactor WorkLoad MsgSizeRange SizeCntPercent BytesPercent UnschedBytes MeanStretch "
          "MedianStretch 99PercentStretch\n")
REFERENCE = HEADER + """Homa 0.5 DCTCP 1442 2.4 0.001 9328 1.2 NA NA
Homa 0.5 DCTCP 1442 2.4 0.001 9328 NA 1.1 NA
Homa 0.5 DCTCP 1442 2.4 0.001 9328 NA NA 1.5
Homa 0.5 DCTCP 2884 2.5 0.003 9328 1.3 NA NA
Homa 0.5 DCTCP 2884 2.5 0.003 9328 NA NA 1.9
pFabric 0.5 DCTCP 1442 2.4 0.001 9328 9.0 NA NA
"""


def test_reference_rows_join_into_bins_of_homa_only() -> None:
    bins = homa.parse_reference(REFERENCE)
    assert list(bins) == [("DCTCP", 0.5)]
    got = [(b.bound, b.share, b.ref_mean, b.ref_p99) for b in bins[("DCTCP", 0.5)]]
    assert got == [(1442, 2.4, 1.2, 1.5), (2884, 2.5, 1.3, 1.9)]


def test_a_message_falls_in_the_smallest_range_that_holds_it() -> None:
    bounds = [1, 2, 10, 100]
    assert [homa.bin_of(bounds, s) for s in (1, 2, 3, 10, 11, 100, 5000)] == [0, 1, 2, 2, 3, 3, 3]


def test_message_load_counts_headers_and_grants_on_the_wire() -> None:
    # One full packet: 1442 B of message in 1500 B on the wire.
    assert homa.message_load(0.8, [(1442, 1.0)]) == pytest.approx(0.8 * 1442 / 1500)
    # 20,000 B: 7 unscheduled packets (9,328 B), 8 scheduled (10,672 B), each scheduled one granted.
    wire = 20_000 + 15 * 58 + 8 * 46
    assert homa.wire_bytes(20_000) == wire
    assert homa.message_load(0.5, [(20_000, 1.0)]) == pytest.approx(0.5 * 20_000 / wire)


def test_shipped_points_have_the_engines_means() -> None:
    # The means incast's Rust tests check (crates/incast-scenario/src/traffic.rs).
    def mean(name: str) -> float:
        sizes = homa.sizes_of(homa.named_points(name)[1])
        return sum(s * p for s, p in sizes)

    assert mean("homa-w1") == pytest.approx(182.342, abs=1e-3)
    assert mean("homa-w5") / 1442 == pytest.approx(1744.70, abs=0.01)


def test_committed_reference_is_the_authors_homa_rows_for_w1_to_w5() -> None:
    bins = homa.parse_reference(homa.REFERENCE.read_text())
    for _, name, _ in homa.WORKLOADS.values():
        for load in homa.LOADS:
            assert (name, load) in bins, (name, load)
    # The table's first rows (the ns-3 port's file at 3cac711): W1 at 50% load, messages of 1 B.
    first = bins[("FACEBOOK_KEY_VALUE", 0.5)][0]
    assert (first.bound, first.share, first.ref_mean, first.ref_p99) == (1, 0.58299, 1.15990539466, 1.71072126235)
    # Every range's shares of messages add up to the whole, as the authors' simulator counted them.
    for key, rows in bins.items():
        assert sum(b.share for b in rows) == pytest.approx(100.0, abs=0.05), key


def test_committed_report_is_the_committed_reference_beside_incasts_results() -> None:
    out = homa.REFERENCE.parent
    cases, command = homa.load(out)
    reference = homa.parse_reference(homa.REFERENCE.read_text())
    assert cases, "docs/crosscheck/homa/results.json holds no case"
    for case in cases:
        ref = reference[(homa.WORKLOADS[case.workload][1], case.load)]
        assert [(b.bound, b.share, b.ref_mean, b.ref_p99) for b in case.bins] == [
            (b.bound, b.share, b.ref_mean, b.ref_p99) for b in ref
        ], case.name
        assert case.messages == sum(b.samples for b in case.bins), case.name
        sizes = homa.sizes_of(homa.named_points(homa.WORKLOADS[case.workload][0])[1])
        assert case.message_load == pytest.approx(homa.message_load(case.load, sizes)), case.name
    # The report is these numbers, as the harness writes them.
    assert (out / "report.md").read_text() == homa.report(cases, command)


def test_times_need_their_unit() -> None:
    assert [homa.seconds(t) for t in ("40ms", "1s", "500us")] == [0.04, 1.0, 0.0005]
    with pytest.raises(ValueError):
        homa.seconds("40")
