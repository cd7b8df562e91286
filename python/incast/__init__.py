"""incast: a packet-level datacenter network simulator with a Rust engine.

    >>> import incast
    >>> result = incast.run("examples/incast.toml", seed=7)
    >>> result.summary["app_throughput"]
    >>> result.flows.to_pandas()

`run` takes a scenario file or a dict of the same shape (docs/scenario.md), steps the engine with
the GIL released and returns a `RunResult` of pyarrow tables. Bad scenarios raise `ScenarioError`
naming the offending key; what a valid scenario will do that its file may not mean is issued as
an `incast.ScenarioWarning` (docs/scenario.md, "Warnings").
"""

from incast._core import ResourceError, ScenarioError
from incast._core import version as _engine_version
from incast.api import Progress, RunResult, effective_transport, load_scenario, run
from incast.scenario import ScenarioWarning

__version__: str = _engine_version()

__all__ = [
    "Progress",
    "ResourceError",
    "RunResult",
    "ScenarioError",
    "ScenarioWarning",
    "__version__",
    "effective_transport",
    "load_scenario",
    "run",
]
