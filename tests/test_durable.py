"""`incast.durable`: staged files get the permissions a plain `open` would give."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import List

import pytest

from incast import durable
from incast.durable import staged_files


def test_staged_files_take_the_process_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        with staged_files() as stage:
            stage(tmp_path / "a.txt").write_text("a")
        assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o640
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(old)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_umask_is_read_without_setting_another(monkeypatch: pytest.MonkeyPatch) -> None:
    # Setting a mask to read the old one would apply it, for that moment, to the files the
    # sweep's other threads create.
    mask = os.umask(0o022)
    os.umask(mask)
    calls: List[int] = []
    real = os.umask
    monkeypatch.setattr(os, "umask", lambda new: calls.append(new) or real(new))
    assert durable._umask() == mask and calls == []
