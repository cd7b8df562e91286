"""D3 ("Better Never than Late: Meeting Deadlines in Datacenter Networks", Wilson et al.,
SIGCOMM 2011), and RCPdc, the fair-share protocol it is measured against:

- `settings`: what every D3 experiment shares (the testbed's stack, the deadline floor and why).
- `microbenchmarks`: Section 3's Figure 5 and Section 6.1.1's flow bursts (Figures 9 to 13), with
  Figure 16 and Section 6.2's multiple bottlenecks on the same testbed; `ideal_allocators` holds
  Figure 5's fair-share, EDF and rate-reservation mix.
- `benchmark`: Section 6.1.2's benchmark traffic and 6.1.3's flow quenching (Table 1, Figures 14
  and 15).
- `rcpdc_ps`, `sustained`: not figures of the paper; RCPdc against processor sharing, and both
  schemes over seconds of load.
- `checks`: quick checks of the headline numbers (`python -m incast.reproduce.d3.checks`).
- `docs`, `docs_variants`: the generated tables of docs/results-d3.md.
"""

from __future__ import annotations

from typing import Tuple

from incast.reproduce.core import Reproduction
from incast.reproduce.d3 import benchmark, microbenchmarks, rcpdc_ps, sustained

REPRODUCTIONS: Tuple[Reproduction, ...] = (*microbenchmarks.REPRODUCTIONS, *benchmark.REPRODUCTIONS,
                                           *rcpdc_ps.REPRODUCTIONS, *sustained.REPRODUCTIONS)
"""D3's reproductions in paper and figure order."""
