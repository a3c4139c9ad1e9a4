"""Progress of long runs: a bar on a terminal, a log line every few percent otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Report the fraction done of a job; quiet when ``enabled`` is False."""

    def __init__(
        self, label: str, enabled: bool = True, stream: TextIO | None = None, log_step: float = 0.05
    ):
        self.label, self.enabled = label, enabled
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.log_step = log_step
        self.start = time.monotonic()
        self._next_log = log_step

    def update(self, fraction: float, detail: str = "") -> None:
        """Show that ``fraction`` of the work is done."""
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        eta = f"~{elapsed * (1 - fraction) / fraction:.0f}s left" if fraction > 0 else "? left"
        if self.tty:
            width = 30
            fill = int(round(width * fraction))
            bar = "#" * fill + "-" * (width - fill)
            self.stream.write(
                f"\r{self.label} [{bar}] {100 * fraction:5.1f}% {detail} "
                f"{elapsed:.0f}s elapsed, {eta}\x1b[K"
            )
            self.stream.flush()
        elif fraction >= self._next_log or fraction >= 1.0:
            self.stream.write(
                f"{self.label}: {100 * fraction:.0f}% ({detail}), {elapsed:.1f} s elapsed\n"
            )
            self.stream.flush()
            while self._next_log <= fraction:
                self._next_log += self.log_step

    def message(self, text: str) -> None:
        """Print a line without breaking the bar."""
        if not self.enabled:
            return
        prefix = "\n" if self.tty else ""
        self.stream.write(f"{prefix}{self.label}: {text}\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
