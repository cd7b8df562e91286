"""Where a running simulation is (`Progress`, what a `run(progress=...)` callback receives), and a
progress bar for long runs: silent for short ones, simulated time when the end is known."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import IO, Any, Optional


@dataclass(frozen=True)
class Progress:
    """Where a running simulation is, as passed to a `run(progress=...)` callback."""

    sim_time_s: float
    """Simulated time reached, seconds."""
    end_time_s: Optional[float]
    """Simulated time at which the run stops, if the scenario sets `run.duration`."""
    events: int
    """Events processed so far."""
    flows_completed: int
    """Flows completed so far."""
    flows_total: int
    """Flows in the scenario."""

    @property
    def fraction(self) -> Optional[float]:
        """Share of the run done, by simulated time when the end is known, else by flows."""
        if self.end_time_s:
            return min(1.0, self.sim_time_s / self.end_time_s)
        if self.flows_total:
            return self.flows_completed / self.flows_total
        return None


class ProgressBar:
    """A `run(progress=...)` callback drawing a tqdm bar on `file` (stderr by default).

    Nothing is drawn until the run has taken `delay` seconds, so quick runs stay quiet, and
    nothing at all unless `file` is a terminal or `force` is set. The bar counts simulated seconds
    when the scenario has a duration, completed flows otherwise.
    """

    def __init__(self, *, delay: float = 1.0, force: bool = False, file: Optional[IO[str]] = None):
        self._file = file if file is not None else sys.stderr
        self._enabled = force or _isatty(self._file)
        self._delay = delay
        self._started = time.monotonic()
        self._bar: Any = None
        self._drawn = False
        self._by_time = False

    def __call__(self, p: Progress) -> None:
        if not self._enabled:
            return
        if self._bar is None:
            if time.monotonic() - self._started < self._delay:
                return
            self._open(p)
        if self._by_time:
            self._bar.n = min(p.sim_time_s, self._bar.total)
        else:
            self._bar.n = p.flows_completed
        self._bar.set_postfix_str(f"{p.events / 1e6:.1f} M events", refresh=False)
        self._bar.refresh()

    def _open(self, p: Progress) -> None:
        from tqdm import tqdm

        # Set first: Ctrl-C may land inside tqdm's constructor, after it has drawn.
        self._drawn = True
        self._by_time = bool(p.end_time_s)
        if self._by_time:
            self._bar = tqdm(
                total=p.end_time_s,
                file=self._file,
                unit="sim s",
                bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} simulated s [{elapsed}<{remaining}{postfix}]",
                dynamic_ncols=True,
                leave=False,
            )
        else:
            self._bar = tqdm(
                total=p.flows_total,
                file=self._file,
                unit="flows",
                dynamic_ncols=True,
                leave=False,
            )

    def close(self) -> None:
        """Removes the bar from the terminal."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._drawn and not _isatty(self._file):
            # Without a terminal the bar cannot erase itself; end its line at least.
            self._file.write("\n")
            self._drawn = False


def _isatty(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False
