"""Parameter sweeps: a base scenario, keys varied over a grid or in lock-step, and seeds; every
point run once, locally in threads or on a Dask cluster, and cached in a Parquet dataset by a hash
of its scenario, seed and the incast version (docs/sweeps.md).

    >>> from incast.sweep import run_sweep
    >>> result = run_sweep("examples/sweeps/flow-burst.toml", "sweep-out")
    >>> result.summary()                  # pyarrow.Table, one row per point
    >>> result.dataset("flows")           # pyarrow.dataset over sweep-out/flows/

`spec` reads and expands sweep files, `store` owns the results directory, `execute` runs points.
Importing this package does not import Dask.
"""

from incast.sweep.execute import (
    LOCAL_CLUSTER,
    PointError,
    PointFailure,
    SweepProgress,
    SweepResult,
    run_point,
    run_sweep,
)
from incast.sweep.spec import Point, Sweep, SweepError, load_sweep, point_key, sweep_from_dict

__all__ = [
    "LOCAL_CLUSTER",
    "Point",
    "PointError",
    "PointFailure",
    "Sweep",
    "SweepError",
    "SweepProgress",
    "SweepResult",
    "load_sweep",
    "point_key",
    "run_point",
    "run_sweep",
    "sweep_from_dict",
]
