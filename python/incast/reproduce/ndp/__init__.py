"""NDP ("Re-architecting datacenter networks and stacks for low latency and high performance",
Handley, Raiciu, Agache, Voinescu, Moore, Antichi and Wójcik, SIGCOMM 2017), a receiver-driven
successor of the line (issue 40), reproduced on the settings of the authors' own simulator
(htsim's examples, `settings`):

- `incast`: completion time of the last of N senders against N (Figure 16), against DCTCP and TCP;
- `permutation`: each flow's throughput under a permutation on a fat tree (Figure 14);
- `docs`: the generated blocks of docs/results-line.md drawn from them.
"""

from __future__ import annotations

from typing import Tuple

from incast.reproduce.core import Reproduction
from incast.reproduce.ndp import incast, permutation

REPRODUCTIONS: Tuple[Reproduction, ...] = (*incast.REPRODUCTIONS, *permutation.REPRODUCTIONS)
"""NDP's reproductions."""
