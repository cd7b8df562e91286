"""NDP from Python and the command line (docs/ndp.md): a run that trims instead of dropping, the
`[ndp]` section as `incast check` shows it, bad input as one line naming the key (exit 2), and the
crosscheck against htsim's committed outputs (docs/crosscheck/ndp)."""

from __future__ import annotations

import json
from pathlib import Path

import incast
from incast.crosscheck import htsim_ndp
from incast.crosscheck.targets import FCT_TARGET

from conftest import incast as incast_cli
from conftest import write

REPO = Path(__file__).resolve().parent.parent

STAR = '[topology]\nkind = "star"\nhosts = 5\nlink_rate = "10Gbps"\nlink_delay = "1us"\n'
BURST = '[[workload]]\nkind = "flow-burst"\nsenders = 4\nsize = "450KB"\n'


def test_ndp_incast_trims_and_every_flow_finishes(tmp_path: Path) -> None:
    text = STAR + '[transport]\nprotocol = "ndp"\n' + BURST + '[output]\noffer_log_ports = ["switch->h0"]\n'
    result = incast.run(str(write(tmp_path / "s.toml", text)))
    flows = result.flows.to_pylist()
    assert len(flows) == 4 and all(f["finish_s"] is not None and f["delivered_bytes"] == 450_000 for f in flows)
    outcomes = result.offers["outcome"].to_pylist()
    trimmed = outcomes.count("queued-trimming")
    # Four first windows of 23 packets into a port that holds seven whole ones.
    assert trimmed > 30 and "dropped" not in outcomes
    # Each trimmed packet is sent again once, 9000 B of payload.
    assert sum(f["retransmitted_bytes"] for f in flows) == 9000 * trimmed
    assert result.summary["packets_dropped"] == 0


def test_check_shows_ndp_keys_in_effect(tmp_path: Path) -> None:
    scenario = write(tmp_path / "s.toml", STAR + '[transport]\nprotocol = "ndp"\n[ndp]\nqueue = 15\n' + BURST)
    proc = incast_cli("check", str(scenario))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[ndp] in effect")) + 1
    keys = ['  mtu = "9000B"', "  queue = 15", "  initial_window = 23", "  pull_rate = 0.99", '  rto = "10ms"',
            "  return_to_sender = true"]
    assert lines[start:start + 6] == keys


def test_bad_ndp_input_is_one_line_naming_the_key(tmp_path: Path) -> None:
    cases = {
        "ndp.queue": STAR + '[transport]\nprotocol = "ndp"\n[ndp]\nqueue = 0\n' + BURST,
        "ndp.return_to_sender": STAR + '[transport]\nprotocol = "ndp"\n[ndp]\nreturn_to_sender = "yes"\n' + BURST,
        "workload[1].protocol": STAR + '[transport]\nprotocol = "ndp"\n' + BURST + BURST + 'protocol = "dctcp"\n',
    }
    for key, text in cases.items():
        proc = incast_cli("check", str(write(tmp_path / "s.toml", text)))
        assert proc.returncode == 2, (key, proc.stdout)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert f"`{key}`" in proc.stderr, proc.stderr


def test_ndp_section_without_ndp_flows_is_warned(tmp_path: Path) -> None:
    """As every protocol's section no flow reads (docs/scenario.md, "Warnings"): checked, run, warned."""
    for keys in ("queue = 8\n", "return_to_sender = false\n"):
        proc = incast_cli("check", str(write(tmp_path / "s.toml", STAR + "[ndp]\n" + keys + BURST)))
        assert proc.returncode == 0, proc.stderr
        lines = [line for line in proc.stderr.splitlines() if "`ndp`" in line]
        assert len(lines) == 1 and lines[0].startswith("incast: warning:"), proc.stderr
        assert "no flow runs NDP" in lines[0], proc.stderr


def test_ndp_returns_headers_a_full_header_queue_has_no_room_for(tmp_path: Path) -> None:
    """40 first windows of 1064 B packets overflow the receiver port's 250 headers: with
    return-to-sender (the default) the headers go back and nothing is dropped; without it they are
    dropped and the timeout resends them."""
    burst = '[[workload]]\nkind = "flow-burst"\nsenders = 40\nsize = "50KB"\n'
    star = STAR.replace("hosts = 5", "hosts = 41")
    runs = {}
    for rts in ("true", "false"):
        text = (star + '[transport]\nprotocol = "ndp"\n[ndp]\nmtu = "1000B"\nreturn_to_sender = ' + rts + "\n"
                + burst + '[output]\noffer_log_ports = ["switch->h0"]\n')
        runs[rts] = incast.run(str(write(tmp_path / f"{rts}.toml", text)))
    outcomes = runs["true"].offers["outcome"].to_pylist()
    assert outcomes.count("returned") + outcomes.count("queued-returning") > 100
    assert runs["true"].summary["packets_dropped"] == 0
    assert all(f["timeouts"] == 0 for f in runs["true"].flows.to_pylist())
    assert runs["false"].summary["packets_dropped"] > 100
    for r in runs.values():
        s = r.summary
        assert s["packets_sent"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_network"]
        assert all(f["delivered_bytes"] == 50_000 for f in r.flows.to_pylist())


def test_crosscheck_incast_case_meets_its_target_against_htsims_committed_times(tmp_path: Path) -> None:
    out = REPO / "docs" / "crosscheck" / "ndp"
    result = htsim_ndp.compare(out, "incast", None)
    committed = {r["case"]: r for r in json.loads((out / "results.json").read_text())}["incast"]
    for bucket, gaps in result["buckets"].items():
        assert abs(gaps["gap_mean"]) <= FCT_TARGET and abs(gaps["gap_p99"]) <= FCT_TARGET, (bucket, gaps)
        assert gaps["incast"] == committed["buckets"][bucket]["incast"], "the committed report is this incast's"
    assert result["resent"] == committed["resent"]
