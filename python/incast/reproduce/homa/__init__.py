"""Homa ("Homa: A Receiver-Driven Low-Latency Transport Protocol Using Network Priorities",
Montazeri, Li, Alizadeh and Ousterhout, SIGCOMM 2018), a receiver-driven successor of the line
(issue 40), reproduced on the authors' network and configuration (`settings`):

- `slowdown`: the 99th-percentile slowdown of messages against their size, W1-W5 at 80% load
  (Figure 12), against pFabric, NDP, DCTCP and TCP;
- `docs`: the generated blocks of docs/results-line.md drawn from it.
"""

from __future__ import annotations

from typing import Tuple

from incast.reproduce.core import Reproduction
from incast.reproduce.homa import slowdown

REPRODUCTIONS: Tuple[Reproduction, ...] = (*slowdown.REPRODUCTIONS,)
"""Homa's reproductions."""
