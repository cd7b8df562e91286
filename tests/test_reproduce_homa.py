"""`homa-slowdown`'s buckets and the authors' numbers it quotes: each bucket is the authors' own
size ranges, about a fifth of the messages, and every quoted range has a bucket to go with it."""

from __future__ import annotations

import pytest

from incast.crosscheck import homa as crosscheck
from incast.reproduce.homa import settings, slowdown


@pytest.mark.parametrize("workload", settings.WORKLOADS)
def test_buckets_gather_the_authors_ranges_a_fifth_of_the_messages_each(workload: str) -> None:
    cuts = settings.buckets(workload)
    ranges = crosscheck.parse_reference(crosscheck.REFERENCE.read_text())[
        (crosscheck.WORKLOADS[workload][1], settings.NETWORK_LOAD)]
    # Every range in exactly one bucket, in order, each bucket ending on a range's bound.
    assert [b for c in cuts for b in c.bounds] == [r.bound for r in ranges]
    assert all(c.low == (cuts[i - 1].high if i else 0) and c.high == c.bounds[-1] for i, c in enumerate(cuts))
    assert all(c.share >= settings.BUCKET_SHARE for c in cuts[:-1]) and 0 < cuts[-1].share
    assert sum(c.share for c in cuts) == pytest.approx(100.0, abs=0.1)
    # The quoted pFabric (and NDP) ranges: one per bucket, lowest first.
    for quoted in (settings.PFABRIC_P99[workload], settings.NDP_P99.get(workload, [(1.0, 1.0)] * len(cuts))):
        assert len(quoted) == len(cuts) and all(0 < lo <= hi for lo, hi in quoted)


def test_a_message_goes_to_the_first_bucket_that_holds_its_size() -> None:
    cuts = settings.buckets("W4")
    assert [slowdown._bucket_of(cuts, s) for s in (1, cuts[0].high, cuts[0].high + 1, cuts[-1].high,
                                                    10 * cuts[-1].high)] == [0, 0, 1, len(cuts) - 1, len(cuts) - 1]


def test_every_transport_gets_the_same_messages_and_homa_the_authors_levels() -> None:
    z = {p: settings.workload_zip(p, settings.WORKLOADS, settings.ARRIVALS_MS) for p in settings.PROTOCOLS}
    shared = {k: v for k, v in z["tcp"].items()}
    assert all({k: v for k, v in z[p].items() if not k.startswith("homa.")} == shared for p in settings.PROTOCOLS)
    assert z["homa"]["homa.unscheduled_priorities"] == [7, 5, 4, 1, 1]
    # 80% of the links on the wire is less in message bytes: more headers per byte for small messages.
    loads = shared[settings.LOAD_KEY]
    assert all(0.6 < x < settings.NETWORK_LOAD for x in loads) and loads[0] < loads[-1]
    with pytest.raises(ValueError, match="no setting for protocol 'pdq'"):
        settings.scenario("pdq")
