"""The one channel from the session to the user: the panel's lines and the terminal.

Every room says things through it, the same way: a line for the panel under a topic (the
last edit's outcome, why the last file did not open, why the last reload failed), and one
for stdout or stderr, ``sgview: ...``. One channel, so that the panel reads each topic's
line in one place whichever room set it, a refusal repeated at every mouse move reaches
stderr once, and tests swap the streams in one place. Lines are made safe to show by
their makers (`viewer.text.one_line`, `printable`).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Messages"]


class Messages:
    """The panel's lines by topic, and the streams the terminal lines go to."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out, self._err = out, err
        #: The last edit's outcome or refusal (also saves), one line; None: nothing to say.
        self.edit: str | None = None
        #: Why the last file dropped or picked did not open (the scene on show stayed).
        self.open: str | None = None
        #: Why the last save of the scene file did not load, shown until a good save.
        self.reload: str | None = None
        #: The last edit refused (a re-parent that would make a cycle, a typed value that
        #: is no number), shown in the status line until the next edit is done.
        self.refused: str | None = None
        #: A question waiting for its key (topic, line, until when on `clock`).
        self._question: tuple[str, str, float] | None = None
        self.clock = time.monotonic  # seconds; tests set their own

    def ask(self, topic: str, line: str, seconds: float) -> None:
        """A question for the status line (and stderr) that waits `seconds` for its
        answer: `asked(topic)` until then."""
        self._question = (topic, line, self.clock() + seconds)
        self.warn(line)

    def asked(self, topic: str) -> bool:
        """Whether the question on `topic` still waits."""
        return (
            self._question is not None and self._question[0] == topic and self.question is not None
        )

    @property
    def question(self) -> str | None:
        """The line of the question that waits; None once answered or timed out."""
        if self._question is None or self.clock() >= self._question[2]:
            return None
        return self._question[1]

    def answered(self) -> None:
        """The question (if any) is answered, or another key went: it waits no more."""
        self._question = None

    def tell(self, text: str) -> None:
        """``sgview: text`` on stdout (the streams are read when printing: tests swap them)."""
        print(f"sgview: {text}", file=self._out or sys.stdout, flush=True)

    def warn(self, text: str) -> None:
        """``sgview: text`` on stderr."""
        print(f"sgview: {text}", file=self._err or sys.stderr, flush=True)

    def failed(self, topic: str, line: str, doing: str) -> None:
        """A file that did not open or reload: the panel's line for `topic` ("open" or
        "reload"), and on stderr what sgview does about it (`doing`) with the line."""
        setattr(self, topic, line)
        self.warn(f"{doing}: {line}")

    def refuse(self, line: str) -> None:
        """An edit refused: the edit line and the status line say why, and stderr once
        (a drag refused at every mouse move says it once, not per move)."""
        self.edit = line
        if line != self.refused:
            self.warn(f"refused: {line}")
        self.refused = line

    def edited(self, line: str | None) -> None:
        """The last edit's outcome (None: nothing to say); a refusal shown before ends."""
        self.edit, self.refused = line, None

    def log(self, lines: list[str]) -> None:
        """``--log`` lines, as they are, on stdout."""
        (self._out or sys.stdout).write("\n".join(lines) + "\n")  # one write: long runs
