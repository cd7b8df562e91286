"""pFabric ("pFabric: Minimal Near-Optimal Datacenter Transport", Alizadeh et al., SIGCOMM 2013),
a successor of D3 and D2TCP:

- `settings`: its Section 5 experiment (the 144-host leaf-spine, web-search and data-mining
  traffic at a load) and where each setting comes from; `incast experiment leaf-spine`
  (`incast.experiments.leaf_spine`) runs it.
- `evaluation`: its headline experiment at every load, reproduced against its abstract.
- `docs`: the generated tables of docs/results-line.md drawn from it.
"""

from __future__ import annotations

from typing import Tuple

from incast.reproduce.core import Reproduction
from incast.reproduce.pfabric import evaluation

REPRODUCTIONS: Tuple[Reproduction, ...] = evaluation.REPRODUCTIONS
"""pFabric's reproductions."""
