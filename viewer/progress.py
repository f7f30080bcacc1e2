"""Progress of a long headless run on a terminal: one line on stderr, rewritten in place.

Only when stderr is a terminal (a log file or a pipe gets nothing), and only once the run
has taken `AFTER` seconds (short runs stay silent); the line goes when the run ends.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: Seconds before the first line, and between two updates.
AFTER = 1.0
EVERY = 0.25


class Progress:
    """``sgview: frame K of N (P %)`` for a run of `total` frames (see the module notes)."""

    def __init__(self, total: int, stream: TextIO | None = None, clock=time.monotonic):
        self.total = max(int(total), 1)
        self.stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._start = clock()
        self._next = self._start + AFTER
        self._shown = False
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())

    def tick(self, done: int) -> None:
        """`done` frames of `total` are done."""
        if not self.enabled or self._clock() < self._next:
            return
        self._next = self._clock() + EVERY
        self._shown = True
        percent = 100.0 * min(done, self.total) / self.total
        self.stream.write(f"\rsgview: frame {done:,} of {self.total:,} ({percent:.0f} %)")
        self.stream.flush()

    def close(self) -> None:
        """The run is over: clear the line (the terminal is as before)."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
