"""`AttachedSession`: the viewer's session when it shows connected programs
(``sgview listen``), the one place the attach package meets the session and the app.

It is a `Session` whose scene is the mirror (`mirror.py`) of the program on show, so the
window, the renderer and the overlay work unchanged: the app's per-redraw scene check
(`poll_files`) switches to a program's mirror when one connects or the user picks
another, and `advance` applies the program's next frame and hands on the report the
program sent. Every connected program's frames are applied to its own mirror as they
come, shown or not. The scene is read-only here (the editing room's `read_only`): edits
would part it from the program; no file opens in its place.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from viewer.errors import floats_raise
from viewer.scene.report import FrameReport
from viewer.session.session import Frame, Session
from viewer.text import brief, printable

from .mirror import Mirror
from .server import Listener, Program

__all__ = ["AttachedSession"]

#: Seconds one wait for a frame lasts before the loop looks again (Ctrl+C stays live).
WAIT_SLICE = 0.25
#: Frames of programs not on show applied per redraw, at most (the rest wait their turn).
HIDDEN_FRAMES_PER_REDRAW = 64
READ_ONLY = "read-only: this is a connected program's scene"
NO_FILES = "listening for programs: open a file in another sgview"


class AttachedSession(Session):
    """A session showing the programs a `Listener` accepted (see the module notes).

    ``wait``: each `advance` waits for the program's next frame (headless runs, where
    ``--frames N`` then counts frames received)."""

    def __init__(self, scene, *, listener: Listener, wait: bool = False, **options) -> None:
        super().__init__(scene, **options)
        self.editing.read_only = READ_ONLY
        self.listener = listener
        self.wait = wait
        self.mirrors: dict[Program, Mirror] = {}
        self.shown: Program | None = None
        self._wanted: Program | None = None
        #: Before anything is shown: each program's first frame, applied, for the log.
        self._first: dict[Program, FrameReport] = {}
        self._ready: FrameReport | None = None  # the shown program's first frame, once
        self._stepping = False

    # -- the programs ---------------------------------------------------------------------
    def programs(self) -> list[tuple[str, bool]]:
        """The panel's rows: each program's label and counts, and whether it is shown."""
        rows = []
        for program in self.listener.programs:
            state = "" if program.connected else ", left"
            # Two lines: the counts stay in sight beside a long name in a narrow panel.
            text = (f"{program.label}\n    {program.frames_received} frames, "
                    f"{program.frames_merged} merged{state}")  # fmt: skip
            mirror = self.mirrors.get(program)
            if mirror is not None and mirror.mismatches:
                text += f", {mirror.mismatches} world matrices differ from parent x local"
            rows.append((text, program is self.shown))
        return rows

    def notes(self) -> list[str]:
        """The last lines about programs refused or disconnected (the panel shows them)."""
        return list(self.listener.notes)

    def show_program(self, index: int) -> None:
        """Show the ``index``-th program of `programs` from the next redraw."""
        if 0 <= index < len(self.listener.programs):
            self._wanted = self.listener.programs[index]

    def _apply(self, program: Program, frame) -> FrameReport | None:
        mirror = self.mirrors.get(program)
        if mirror is None:
            mirror = self.mirrors[program] = Mirror(printable(program.name, 60))
        try:
            with floats_raise():
                return mirror.apply(frame)
        except Exception as exc:  # checked, and still not applicable (an overflow, say)
            self.listener.bad_frame(program, f"frame {frame.frame} cannot be shown ({brief(exc)})")
            return None

    def _drain_hidden(self) -> None:
        """Apply the frames of the programs not on show; before any is shown, only each
        one's first frame, kept so the first program shown shows (and logs) it."""
        for program in list(self.listener.programs):
            if program is self.shown or program in self._first:
                continue
            if not program.connected and not program.pending():  # left: its mirror goes
                self.listener.forget(program)
                self.mirrors.pop(program, None)
                continue
            for _ in range(HIDDEN_FRAMES_PER_REDRAW if self.shown else 1):
                frame = program.take()
                report = None if frame is None else self._apply(program, frame)
                if report is None:
                    break
                if self.shown is None:
                    self._first[program] = report

    def _target(self) -> Program | None:
        wanted, self._wanted = self._wanted, None
        if wanted is not None and wanted in self.mirrors:
            return wanted
        if self.shown is not None and (self.shown.connected or self.shown.pending()):
            return self.shown
        live = [p for p in self.listener.programs if p in self.mirrors and p.connected]
        return live[0] if live else self.shown

    # -- the session's hooks --------------------------------------------------------------
    def poll_files(self, prepare: Callable | None = None):
        """Once per redraw: apply the hidden programs' frames, and switch the scene to
        the program to show (waiting for the first one in a headless run). A file asked
        for (dropped, picked) is not opened: the panel says so."""
        if self.files.withdraw_request() is not None:
            self.messages.open = NO_FILES
        while True:
            self._drain_hidden()
            target = self._target()
            if target is not None or not self.wait:
                break
            self.listener.wait_program(WAIT_SLICE)
            time.sleep(0.01)
        if target is None or target is self.shown:
            return None
        scene = self.mirrors[target].scene
        if prepare is not None:
            prepare(scene)
        self.replace_scene(scene)
        self.shown, self.frame = target, 0
        self._ready = self._first.get(target)
        self._first.clear()
        return scene

    def advance(self, dt: float) -> Frame | None:
        """The shown program's next frame, applied to its mirror (None: none came)."""
        program = self.shown
        if program is None or (self.paused and not self._stepping):
            return None
        self._stepping = False
        start = time.perf_counter()
        report, self._ready = self._ready, None
        if report is None:
            frame = program.take()
            while frame is None and self.wait and (program.connected or program.pending()):
                frame = program.take(WAIT_SLICE)
            report = None if frame is None else self._apply(program, frame)
        if report is None:
            return None
        self.frame += 1
        self.last_report = report
        if self.log:
            lines = report.log_lines()
            if lines:
                self.messages.log([f"# frame {report.frame}", *lines])
        return Frame(report.frame, report, dt, 1000.0 * (time.perf_counter() - start))

    def request_step(self, still: bool = False) -> None:
        """While paused: show the program's next frame (its frames wait meanwhile)."""
        self._stepping = self.paused

    def restart(self) -> FrameReport:
        """A program cannot be sent back to its start: nothing happens."""
        return self.graph.update()

    def touch_selected(self) -> None:
        """Touches would mark the mirror's nodes, which only the program recomputes."""
        self.messages.edit = READ_ONLY
