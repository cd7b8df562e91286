"""What the crosscheck holds incast to against ns-3, shared by the runner (`incast.crosscheck`)
and its report (`incast.crosscheck.report`): the targets, the variants of incast run beside the
reference, and how a gap is measured."""

from __future__ import annotations

import math
from typing import Any, Dict

#: The largest relative gaps the crosscheck accepts: flow completion times, ECN marks and drops.
FCT_TARGET = 0.10
MARKS_TARGET = 0.10
DROPS_TARGET = 0.15


def relative(ours: float, ref: float) -> float:
    """(ours - ref) / ref; 0 when both are 0, infinite when only ref is."""
    if ref == 0:
        return 0.0 if ours == 0 else math.inf
    return (ours - ref) / ref


#: incast beside ns-3 with one of ns-3's choices undone, to measure what it costs on DCTCP: loss
#: recovery during ECN reductions, as Linux does (`recovery_in_cwr`), the ECN cut floored at
#: two segments (Linux's `dctcp_ssthresh`), as issue 24 patched ns-3, which ends the stall of a
#: sub-segment window after a timeout, and the RFCs' bookkeeping instead of ns-3's
#: (`ns3_bookkeeping = false`, docs/crosscheck/marks-gap.md).
VARIANTS: Dict[str, Dict[str, Any]] = {
    "recovery in CWR (Linux)": {"recovery_in_cwr": True},
    "ECN cut floored at 2 segments": {"ecn_cut_floor": 2},
    "RFC bookkeeping": {"ns3_bookkeeping": False},
}
