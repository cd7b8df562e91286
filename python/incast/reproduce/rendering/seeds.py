"""A reproduction's tables over seeds: each table holds one set of rows per seed, told apart by a
`seed` column (a table without one holds a single seed), and a doc shows the mean over seeds of
each number with its 95% confidence interval (`incast.reproduce.verdict.Estimate`).

Two shapes:

- `seed_means`: a table of measured values per setting, one row per setting and seed; the mean
  of each value per setting, grouped by every column that is neither `seed`, a value, nor
  ignored (a count that varies with the seed, such as the number of flows drawn).
- `per_seed`: a statistic that a table's rows give only together (the senders supported over a
  curve, a percentile of late flows, a ratio of two schemes' counts): computed on each seed's rows
  alone, then taken over the seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple, TypeVar

from incast.reproduce.rendering.errors import DocsError
from incast.reproduce.verdict import Estimate

if TYPE_CHECKING:
    import pyarrow as pa

SEED = "seed"
"""The column that tells a table's seeds apart."""

K = TypeVar("K", bound=Hashable)


def seed_tables(table: "pa.Table") -> Dict[Optional[int], "pa.Table"]:
    """The rows of each seed, without the `seed` column, in seed order; `{None: table}` for a
    table without one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if SEED not in table.column_names:
        return {None: table}
    seeds: List[int] = []
    for s in table[SEED].to_pylist():
        if s is None:
            raise DocsError("a row without a seed")
        seeds.append(int(s))
    rest = table.select([c for c in table.column_names if c != SEED])
    return {s: rest.filter(pc.equal(table[SEED], pa.scalar(s))) for s in sorted(set(seeds))}


def estimate(values: Sequence[Optional[float]]) -> Optional[Estimate]:
    """The estimate from one value per seed, leaving out seeds without a value (None when no
    seed has one)."""
    present = [float(v) for v in values if v is not None]
    return Estimate.of(present) if present else None


def per_seed(table: "pa.Table", statistic: Callable[["pa.Table"], Mapping[K, Optional[float]]]) -> Dict[K, Estimate]:
    """`statistic` of each seed's rows, per key, as an estimate over the seeds that gave the key
    a value."""
    values: Dict[K, List[Optional[float]]] = {}
    for rows in seed_tables(table).values():
        for key, value in statistic(rows).items():
            values.setdefault(key, []).append(value)
    out: Dict[K, Estimate] = {}
    for key, vs in values.items():
        e = estimate(vs)
        if e is not None:
            out[key] = e
    return out


@dataclass(frozen=True)
class SeedMeans:
    """The values of a table per setting, each an estimate over the seeds."""

    keys: Tuple[str, ...]
    """The columns that name a setting, in the table's order."""
    cells: Mapping[Tuple[Any, ...], Mapping[str, Optional[Estimate]]]
    """Per setting (the values of `keys`), per value column: the estimate, None if no seed has one."""

    def maybe(self, value: str, **setting: Any) -> Optional[Estimate]:
        """The estimate of `value` at the setting given by every key column, None if no seed has one."""
        if set(setting) != set(self.keys):
            raise DocsError(f"a setting names the columns {', '.join(self.keys)}, not {', '.join(setting)}")
        key = tuple(setting[k] for k in self.keys)
        if key not in self.cells:
            raise DocsError(f"no row with {', '.join(f'{k} = {v!r}' for k, v in setting.items())}")
        if value not in self.cells[key]:
            raise DocsError(f"no value column {value!r}")
        return self.cells[key][value]

    def of(self, value: str, **setting: Any) -> Estimate:
        """The estimate of `value` at a setting that has one."""
        e = self.maybe(value, **setting)
        if e is None:
            raise DocsError(f"{value!r} is empty at {', '.join(f'{k} = {v!r}' for k, v in setting.items())}")
        return e

    def levels(self, key: str) -> List[Any]:
        """The values key column `key` takes, sorted."""
        i = self.keys.index(key)
        return sorted({k[i] for k in self.cells})


def seed_means(table: "pa.Table", values: Sequence[str], *, ignore: Sequence[str] = ()) -> SeedMeans:
    """The mean over seeds of each of `values`, per setting: grouped by every column but `seed`,
    `values` and `ignore`. Each setting must have at most one row per seed, or the grouping has
    missed a column that varies (which should then be a value or ignored)."""
    columns = table.column_names
    missing = [c for c in (*values, *ignore) if c not in columns]
    if missing:
        raise DocsError(f"no column {', '.join(map(repr, missing))} (the table has {', '.join(columns)})")
    keys = tuple(c for c in columns if c != SEED and c not in values and c not in ignore)
    per: Dict[Tuple[Any, ...], Dict[str, List[Optional[float]]]] = {}
    seen = set()
    for seed, rows in seed_tables(table).items():
        for row in rows.to_pylist():
            key = tuple(row[k] for k in keys)
            if (key, seed) in seen:
                raise DocsError(f"two rows of seed {seed} at {dict(zip(keys, key))}: a column that varies is "
                                "missing from the values")
            seen.add((key, seed))
            cell = per.setdefault(key, {v: [] for v in values})
            for v in values:
                cell[v].append(row[v])
    return SeedMeans(keys, {k: {v: estimate(vs) for v, vs in cell.items()} for k, cell in per.items()})
