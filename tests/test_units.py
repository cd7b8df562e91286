"""`incast.units`: quantities in the largest decimal unit they reach."""

from __future__ import annotations

import pytest

from incast.units import bytes_, rate, seconds


@pytest.mark.parametrize(("n", "text"), [
    (0, "0 B"), (512, "512 B"), (999.5, "999.5 B"), (1000, "1 KB"), (100_000, "100 KB"), (1.5e6, "1.5 MB"),
    (10_000_000, "10 MB"), (2e9, "2 GB"), (2.5e12, "2500 GB"),
])
def test_bytes(n: float, text: str) -> None:
    assert bytes_(n) == text


@pytest.mark.parametrize(("bps", "text"), [
    (500, "500 bps"), (1000, "1 Kbps"), (60e6, "60 Mbps"), (1_000_000_000, "1 Gbps"), (40_000_000_000, "40 Gbps"),
    (1.6e12, "1.6 Tbps"),
])
def test_rate(bps: float, text: str) -> None:
    assert rate(bps) == text


@pytest.mark.parametrize(("s", "text"), [
    (0, "0 ns"), (5e-7, "500 ns"), (20_000 / 1e9, "20 us"), (1.5e-3, "1.5 ms"), (2, "2 s"), (90, "90 s"),
])
def test_seconds(s: float, text: str) -> None:
    assert seconds(s) == text


def test_the_number_takes_a_format_spec() -> None:
    assert rate(1_234_567, ".4g") == "1.235 Mbps"
    assert bytes_(123_456, ".1f") == "123.5 KB"
    assert seconds(0.25, ".0f") == "250 ms"
