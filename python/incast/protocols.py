"""The protocols incast runs, as the engine's registry lists them (`_core.protocols()`, from
`for_each_transport!` in crates/incast-scenario/src/protocols/mod.rs): their names in scenario
files and result tables, and the labels figures and tables write. Every protocol name and label
in the package comes from here, so a transport added to the registry needs no Python edit.

    >>> from incast.protocols import PROTOCOLS, label, labels
    >>> label("pfabric")
    'pFabric'
    >>> labels(["tcp", "d2tcp"])
    {'tcp': 'TCP', 'd2tcp': 'D2TCP'}
"""

from __future__ import annotations

from typing import Dict, Iterable, Mapping, Tuple

from incast import _core

_TABLE = _core.protocols()

PROTOCOLS: Tuple[str, ...] = tuple(p["name"] for p in _TABLE)
"""Every protocol's canonical name, in the registry's order."""

_LABELS: Dict[str, str] = {p["name"]: p["label"] for p in _TABLE}
_TRANSPORT: Dict[str, str] = {p["name"]: p["transport"] for p in _TABLE}


def label(name: str) -> str:
    """How figures and tables write protocol `name` ("pFabric" for "pfabric"). Raises
    ValueError for a name the registry does not have."""
    try:
        return _LABELS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}: expected one of {', '.join(PROTOCOLS)}") from None


def labels(names: Iterable[str], overrides: Mapping[str, str] = {}) -> Dict[str, str]:
    """`{name: label}` for `names`, in their order; `overrides` relabels some (a reproduction that
    writes RCPdc as the paper's "RCP", or a variant that is not a protocol, such as "tcp-10ms")."""
    return {name: overrides[name] if name in overrides else label(name) for name in names}


def transport(name: str) -> str:
    """The engine's transport that runs protocol `name` ("tcp" for "dctcp")."""
    label(name)
    return _TRANSPORT[name]
