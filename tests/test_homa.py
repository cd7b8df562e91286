"""Homa from the command line (docs/homa.md): bad `[homa]` input is one line naming the key
(exit 2), and a `[homa]` section no flow reads is warned, as every protocol's section is."""

from __future__ import annotations

from pathlib import Path

from conftest import incast as incast_cli
from conftest import write

STAR = '[topology]\nkind = "star"\nhosts = 5\nlink_rate = "10Gbps"\nlink_delay = "1us"\n'
SWITCH = "[switch]\npriority_classes = 8\n"
BURST = '[[workload]]\nkind = "flow-burst"\nsenders = 4\nsize = "20KB"\n'
HOMA = '[transport]\nprotocol = "homa"\n'


def test_bad_homa_input_is_one_line_naming_the_key(tmp_path: Path) -> None:
    cases = {
        # 1500 B at 10 Gbps take 1.2 us: a shorter timer would fire before a packet could arrive.
        "homa.resend_timeout": STAR + SWITCH + HOMA + '[homa]\nresend_timeout = "1us"\n' + BURST,
        "homa.priorities": STAR + "[switch]\npriority_classes = 4\n" + HOMA + BURST,
        "homa.overcommitment": STAR + SWITCH + HOMA + "[homa]\novercommitment = 0\n" + BURST,
        "workload[1].protocol": STAR + SWITCH + HOMA + BURST + BURST + 'protocol = "dctcp"\n',
    }
    for key, text in cases.items():
        proc = incast_cli("check", str(write(tmp_path / "s.toml", text)))
        assert proc.returncode == 2, (key, proc.stdout)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert f"`{key}`" in proc.stderr, proc.stderr


def test_a_resend_timeout_of_one_packets_time_is_accepted(tmp_path: Path) -> None:
    text = STAR + SWITCH + HOMA + '[homa]\nresend_timeout = "1200ns"\n' + BURST
    proc = incast_cli("check", str(write(tmp_path / "s.toml", text)))
    assert proc.returncode == 0, proc.stderr


def test_a_homa_section_without_homa_flows_is_warned_not_refused(tmp_path: Path) -> None:
    text = STAR + SWITCH + "[homa]\novercommitment = 2\n" + BURST
    proc = incast_cli("check", str(write(tmp_path / "s.toml", text)))
    assert proc.returncode == 0, proc.stderr
    assert "`homa`: is set, but no flow runs Homa" in proc.stderr, proc.stderr
