"""Quantities as the package prints them for people: a number in the largest decimal unit it
reaches, then a space and the unit ("100 KB", "10 Gbps", "20 us"). Units are decimal (1 KB is
1000 B, 1 Gbps is 10^9 bit/s), as scenario files write them (docs/scenario.md) and as the
papers we reproduce quote link rates and flow sizes. `fmt` is a format spec for the number
("g" by default: "1.5 MB", never "1.500000 MB"; ".4g" for at most four digits).

These are for text read by people (reports, tables, labels). A value written into a scenario
("25us", "10Gbps") follows the scenario syntax instead, without the space."""

from __future__ import annotations

from typing import Sequence, Tuple

_BYTES = (("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0))
_RATES = (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0))
_SECONDS = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))


def _scaled(value: float, units: Sequence[Tuple[str, float]], fmt: str) -> str:
    """`value` in the first of `units` (largest first) it reaches, else in the last."""
    unit, scale = next(((u, s) for u, s in units if value >= s), units[-1])
    return f"{value / scale:{fmt}} {unit}"


def bytes_(n: float, fmt: str = "g") -> str:
    """A size in bytes: `512 B`, `100 KB`, `1.5 MB`, `2 GB`."""
    return _scaled(n, _BYTES, fmt)


def rate(bps: float, fmt: str = "g") -> str:
    """A rate in bits per second: `500 bps`, `60 Mbps`, `10 Gbps`, `1.6 Tbps`."""
    return _scaled(bps, _RATES, fmt)


def seconds(s: float, fmt: str = "g") -> str:
    """A duration in seconds: `500 ns`, `20 us`, `1.5 ms`, `2 s`."""
    return _scaled(s, _SECONDS, fmt)
