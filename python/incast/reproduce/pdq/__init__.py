"""PDQ ("Finishing Flows Quickly with Preemptive Scheduling", Hong, Caesar and Godfrey,
SIGCOMM 2012), a successor of D3:

- `query_aggregation`: its query-aggregation experiments with and without deadlines, against
  TCP, RCP and D3, on D3's testbed (with D3's settings, `incast.reproduce.d3.settings`).
- `docs`: the generated tables of docs/results-line.md drawn from them.
"""

from __future__ import annotations

from typing import Tuple

from incast.reproduce.core import Reproduction
from incast.reproduce.pdq import query_aggregation

REPRODUCTIONS: Tuple[Reproduction, ...] = query_aggregation.REPRODUCTIONS
"""PDQ's reproductions."""
