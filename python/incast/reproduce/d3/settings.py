"""D3's settings that every D3 experiment shares: the reproductions (`incast.reproduce.d3`), the
quick checks (`incast.reproduce.d3.checks`), PDQ's reproductions run on D3's testbed, and the
flow-burst experiment (`incast.experiments.flow_burst`). Experiments import these; nothing here
imports an experiment.

Deadlines are exponential with the paper's means and a floor of `DEADLINE_FLOOR` (3 ms). The paper
gives no floor, but its metric needs one: on the testbed (propagation RTT about 500 us, D3
Section 6) a response takes 1.3 to 2.5 ms on an idle network, and an exponential deadline of mean
20 ms falls below that for 8-10% of flows, so with no floor no protocol reaches 99% even with one
sender (measured: TCP 90.0%, D3 91.8% at one sender, 400 bursts), while the paper reports 99%
at tens of senders. The floor is the completion time of the largest response (50 KB, 35
segments) for the paper's TCP on an idle testbed: one RTT of handshake and five of slow start
from a window of two segments (2+4+8+16+5), 6 x 500 us = 3 ms, so that every deadline is feasible
for every protocol when the network is idle, the regime the paper's metric starts from ("the
network can satisfy almost all flow deadlines"). `python -m incast.reproduce.d3.checks --figure9 0ms`
prints the paper-literal case.
"""

from __future__ import annotations

# The TCP stack the checks and the D3 reproductions run on, stated so that incast's default
# stack (linux) can change without changing them: the Windows-era stacks of the D3 testbed as
# incast first modelled them (IW 2, no SACK, no delayed ACKs, instant ECN cuts; docs/scenario.md).
STACK = "d3-testbed"
# See the module docstring: the largest response's completion time on the idle testbed. The
# one value every D3 experiment floors its deadlines at, as a scenario time and in seconds.
DEADLINE_FLOOR = "3ms"
DEADLINE_FLOOR_S = 0.003

# The payload rate of a 1 Gbps link with 1460 B of payload per 1500 B on the wire.
PAYLOAD_RATE = 125e6 * 1460 / 1500
# What a fair-share packet protocol pays on top of the fluid ideal: the handshake RTT and D3's
# one-RTT pause of a new flow, on the testbed's ~500 us RTT.
FAIR_SHARE_OVERHEAD_S = 0.001
