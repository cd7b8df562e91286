"""D2TCP ("Deadline-Aware Datacenter TCP", Vamanan, Hasan and Vijaykumar, SIGCOMM 2012):

- `testbed`: Section 4.1's 10 Gbps testbed (Figure 7); `scheduling`: the talk's four-flow
  throughput plot on the same testbed.
- `oldi`: Section 4.2's 1000-host OLDI workload (Figures 9 to 17, Tables 1 to 3) under our reading
  of the paper and under the defaults of its simulator, ns-3 of 2012; its settings are what the
  deadline-aware line (`incast.experiments.line`) runs on. `messages` counts a sweep's messages as
  these reproductions judge them.
- `load`, `sensitivity`, `advantage`: not in the paper; load and DCTCP's initial alpha, the readings
  of d that public implementations disagree on, and where D2TCP beats DCTCP.
- `docs`, `docs_readings`: the generated tables of docs/results-d2tcp.md.
"""

from __future__ import annotations

from typing import Tuple

from incast.reproduce.core import Reproduction
from incast.reproduce.d2tcp import advantage, load, oldi, scheduling, sensitivity, testbed

REPRODUCTIONS: Tuple[Reproduction, ...] = (*testbed.REPRODUCTIONS, *scheduling.REPRODUCTIONS, *oldi.REPRODUCTIONS,
                                           *load.REPRODUCTIONS, *sensitivity.REPRODUCTIONS,
                                           *oldi.NS3_REPRODUCTIONS, *advantage.REPRODUCTIONS)
"""D2TCP's reproductions in paper and figure order, the ns-3 of 2012 ones after ours."""
