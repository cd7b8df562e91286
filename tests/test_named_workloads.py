"""The field's workloads by name and at a load: `size = "web-search"` and `load` on Poisson
arrivals, through the CLI and the Python API (the arithmetic and the sampled means are tested in
the Rust crates: incast-scenario's tests.rs and incast-sim's workload.rs)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc

import incast

from conftest import assert_clean_error, write
from conftest import incast as run_cli

STAR = '[topology]\nkind = "star"\nhosts = 16\nlink_rate = "10Gbps"\n'


def test_check_prints_the_rate_a_load_becomes(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", STAR + '[[workload]]\nkind = "poisson"\nload = 0.5\nsize = "web-search"\n'
                 'stop = "100ms"\n')
    proc = run_cli("check", str(path))
    assert proc.returncode == 0, proc.stderr
    # 0.5 x 16 x 10 Gbps / (8 x 1,711,250 B), the same line docs/scenario.md shows.
    assert ("workload[0]: Poisson arrivals at 5,843.7 flows/s from 16 senders, mean size 1,711,250 B: a load of 0.5 "
            "on each sender's link") in proc.stdout


def test_check_prints_the_load_a_rate_offers(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", STAR + '[[workload]]\nkind = "poisson"\nrate = 1000.0\nsize = "20KB"\n'
                 'stop = "100ms"\n')
    proc = run_cli("check", str(path))
    assert proc.returncode == 0, proc.stderr
    # 1000 x 20,000 B x 8 / (16 x 10 Gbps) = 0.001.
    assert "1,000.0 flows/s from 16 senders, mean size 20,000 B: a load of 0.001 on each sender's link" in proc.stdout


def test_an_unknown_distribution_lists_the_names(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", STAR + '[[workload]]\nkind = "poisson"\nload = 0.5\nsize = "websearch"\n'
                 'stop = "100ms"\n')
    assert_clean_error(run_cli("check", str(path)), "workload[0].size", "web-search, data-mining, hadoop")


def test_named_sizes_run_from_python() -> None:
    """Data mining through the API: half its flows are exactly one 1460 B packet."""
    scenario = {
        "topology": {"kind": "star", "hosts": 16, "link_rate": "10Gbps"},
        "workload": [{"kind": "poisson", "load": 0.3, "size": "data-mining", "stop": "200ms"}],
        "run": {"duration": "200ms"},
    }
    flows = incast.run(scenario, seed=2).flows
    sizes = flows["size_bytes"]
    one_packet = pc.sum(pc.equal(sizes, 1460)).as_py()
    assert flows.num_rows > 100
    # About 160 arrivals (0.3 x 16 x 10 Gbps / (8 x 7,470,236 B) = 803 per second), half of one packet.
    assert 0.35 < one_packet / flows.num_rows < 0.65, (one_packet, flows.num_rows)
    assert pc.min(sizes).as_py() >= 1460 and pc.max(sizes).as_py() <= 666_667 * 1460


def test_a_permutation_keeps_each_sender_on_one_partner() -> None:
    scenario = {
        "topology": {"kind": "leaf-spine", "racks": 2, "hosts_per_rack": 4},
        "workload": [{"kind": "poisson", "load": 0.2, "pattern": "permutation", "size": "20KB", "stop": "5ms"}],
    }
    flows = incast.run(scenario, seed=3).flows.to_pylist()
    partner: dict[int, int] = {}
    for f in flows:
        assert partner.setdefault(f["src"], f["dst"]) == f["dst"] != f["src"]
    assert sorted(partner) == sorted(partner.values()) == list(range(8))
