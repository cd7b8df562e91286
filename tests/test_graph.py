"""`kind = "graph"`: a network from a file. A graph written in the order the leaf-spine builder
adds nodes and links is the same network, so it must run bit for bit as `kind = "leaf-spine"`;
a malformed graph is refused with the file, the line and the problem, exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

import incast

from conftest import incast as incast_cli


def leaf_spine_graph(racks: int, per_rack: int, spines: int, host_rate: str, fabric_rate: str, delay: str) -> str:
    """The leaf-spine builder's network as a graph file, node for node and link for link in its
    order: the spines, then each leaf with its uplinks and its hosts."""
    lines = ["# leaf-spine as incast builds it", "switch " + " ".join(f"spine{s}" for s in range(spines))]
    host = 0
    for r in range(racks):
        lines.append(f"switch leaf{r}")
        lines += [f"link leaf{r} spine{s} {fabric_rate} {delay}" for s in range(spines)]
        for _ in range(per_rack):
            lines += [f"host h{host}", f"link h{host} leaf{r} {host_rate} {delay}"]
            host += 1
    return "\n".join(lines) + "\n"


def scenario(topology: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "seed": 7,
        "topology": topology,
        "switch": {"buffer": "100pkts", "ecn_threshold": 20},
        "transport": {"protocol": "dctcp"},
        "workload": [{"kind": "poisson", "load": 0.6, "size": "hadoop", "stop": "4ms"}],
        "run": {"duration": "8ms"},
    }


def test_a_graph_of_the_leaf_spine_runs_as_the_leaf_spine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ls.graph").write_text(leaf_spine_graph(3, 4, 2, "10Gbps", "20Gbps", "500ns"))
    monkeypatch.chdir(tmp_path)
    built = incast.run(scenario({"kind": "leaf-spine", "racks": 3, "hosts_per_rack": 4, "spines": 2,
                                 "link_rate": "10Gbps", "fabric_rate": "20Gbps", "link_delay": "500ns"}))
    read = incast.run(scenario({"kind": "graph", "file": "ls.graph"}))
    assert built.flows.num_rows > 20
    assert read.flows.equals(built.flows)
    # Every column of the ports table but `role`: a graph's switches have no role but "switch".
    same = [c for c in built.ports.column_names if c != "role"]
    assert read.ports.select(same).equals(built.ports.select(same))
    assert set(read.ports["role"].to_pylist()) == {"host", "switch"}
    assert read.ports["port"][0].as_py() == "leaf0->spine0"


@pytest.mark.parametrize("graph, message", [
    ("switch s t\nhost a b\nlink a s 1Gbps 1us\nlink b t 1Gbps 1us\n",
     'net.graph:2: host "b" is not connected to host "a"'),
    ("switch s\nhost a b\nlink a s 1Gbps 1us\nlink b s 1Gbps 1us\nlink s b 1Gbps 1us\n",
     'net.graph:5: a second link between "b" and "s" (the first is on line 4)'),
    ("switch s\nhost a b\nlink a s 0bps 1us\nlink b s 1Gbps 1us\n", "net.graph:3: rate: must be greater than 0 bps"),
    ("switch s t\nhost a b\nlink a s 1Gbps 1us\nlink a t 1Gbps 1us\nlink b s 1Gbps 1us\n",
     'net.graph:4: host "a" already has a link (line 3)'),
])
def test_a_bad_graph_names_file_and_line_and_exits_2(tmp_path: Path, graph: str, message: str) -> None:
    (tmp_path / "net.graph").write_text(graph)
    (tmp_path / "s.toml").write_text('[topology]\nkind = "graph"\nfile = "net.graph"\n'
                                      '[[workload]]\nkind = "flow-burst"\naggregator = 0\nworker_hosts = [1]\n')
    out = tmp_path / "out"
    proc = incast_cli("run", str(tmp_path / "s.toml"), "--out", str(out))
    assert proc.returncode == 2
    assert f"`topology.file`: {message}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()
