"""Small plots of one run: a port's queue over time (`queue`) and a flow's window over time
(`window`), from `RunResult.queues` and `RunResult.traces`. Each draws on the matplotlib `Axes`
given, or on a new figure's, and returns it, so that plots compose:

    import incast, incast.plots
    result = incast.run("examples/d2tcp-fan-in.toml")
    ax = incast.plots.window(result, flow_id=0)
    ax.figure.savefig("window.png")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

if TYPE_CHECKING:
    from incast.api import RunResult


def _axes(ax: Optional[Any]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(7, 3.5))
    return ax


def _pick(column: List[Any], value: Any) -> List[int]:
    return [i for i, v in enumerate(column) if v == value]


def queue(result: "RunResult", port: Optional[str] = None, *, ax: Optional[Any] = None) -> Any:
    """Queued bytes over time at `port` (a name from `result.queues`, e.g. "switch->h0"), or at
    every sampled port when `port` is None. Needs `[output] queue_sample_interval` with
    `queue_sample_hosts` or `queue_sample_ports`; raises ValueError naming what is missing."""
    q = result.queues
    if q.num_rows == 0:
        raise ValueError("the run sampled no queue: set [output] queue_sample_interval and queue_sample_ports "
                         "(or queue_sample_hosts)")
    ports: List[Any] = q["port"].to_pylist()
    names = list(dict.fromkeys(ports)) if port is None else [port]
    if port is not None and port not in ports:
        raise ValueError(f"port {port!r} was not sampled; sampled: {', '.join(dict.fromkeys(ports))}")
    ax = _axes(ax)
    times: List[Any] = q["time_s"].to_pylist()
    sizes: List[Any] = q["queue_bytes"].to_pylist()
    for name in names:
        rows = _pick(ports, name)
        ax.step([1e3 * times[i] for i in rows], [sizes[i] / 1e3 for i in rows], where="post", label=name)
    ax.set(xlabel="time (ms)", ylabel="queue (KB)")
    if len(names) > 1 or port is None:
        ax.legend(fontsize=7)
    return ax


def window(result: "RunResult", flow_id: int, *, ax: Optional[Any] = None) -> Any:
    """A traced flow's congestion window (TCP family) or sending rate (D3, RCPdc) over time,
    with DCTCP's alpha on a second axis when the flow has one. Needs the flow traced
    (`[output] trace_flows` or `trace_workloads`); raises ValueError naming what is missing."""
    t = result.traces
    if t is None:
        raise ValueError("the run traced no flow: set [output] trace_flows = [id, ...] (or trace_workloads)")
    flows: List[Any] = t["flow_id"].to_pylist()
    rows = _pick(flows, flow_id)
    if not rows:
        traced = sorted(set(flows))
        raise ValueError(f"flow {flow_id} was not traced; traced: {', '.join(map(str, traced)) or 'none'}")
    ax = _axes(ax)
    times = [1e3 * t["time_s"][i].as_py() for i in rows]
    cwnd = [t["cwnd_bytes"][i].as_py() for i in rows]
    if cwnd[0] is not None:
        ax.step(times, [c / 1e3 for c in cwnd], where="post", label="cwnd")
        ax.set(ylabel="window (KB)")
    else:
        rate = [t["d3_rate_bytes_per_s"][i].as_py() for i in rows]
        ax.step(times, [8e-6 * r for r in rate], where="post", label="rate")
        ax.set(ylabel="sending rate (Mbps)")
    ax.set(xlabel="time (ms)", title=f"flow {flow_id}")
    alpha = [t["alpha"][i].as_py() for i in rows]
    if alpha[0] is not None:
        twin = ax.twinx()
        twin.step(times, alpha, where="post", color="C1", label="alpha")
        twin.set(ylabel="alpha", ylim=(0, 1.05))
    return ax
