"""`ProgramSource`: the frame source of ``sgview listen``, the one place the attach package
meets the runner.

Its scene is the mirror (`mirror.py`) of the program on show, so the runner, the renderer
and the overlay show it as they show a scene file: `poll` offers a program's mirror when one
connects or the user picks another, and `advance` applies every frame the program sent
since the last redraw, in turn, and hands on the newest with the reports the program sent
folded into one (`fold`): the picture keeps up with a program faster than the redraws,
while the mirror and ``--log`` see each frame. Every connected program's frames are applied
to its own mirror as they come, shown or not.

It offers what a watched program allows and nothing else (`viewer.session.source`): the
selection, pause and step, and the choice among programs (`programs`). It has no editing
room, no touches or restart and no files: an edit would part the mirror from the program,
which alone recomputes its graph. The panel's edit line says so from the start.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TextIO

import numpy as np

from viewer.content.scene import Scene
from viewer.errors import SgviewError, floats_raise, interrupted
from viewer.keys.references import carry_names
from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.session.edits import Editing
from viewer.session.frame import Frame, window_title
from viewer.session.messages import Messages
from viewer.session.source import Candidate, FileActions, ProgramChooser, SceneControls
from viewer.spans import joined
from viewer.text import brief, printable

from .mirror import REASON_SHOWN, Mirror
from .protocol import ProgramFrame
from .server import Listener, Program

__all__ = ["READ_ONLY", "ProgramLeft", "ProgramSource", "fold"]

#: Seconds one wait for a frame lasts before the loop looks again (Ctrl+C stays live).
WAIT_SLICE = 0.25
#: Frames of programs not on show applied per redraw, at most (the rest wait their turn).
HIDDEN_FRAMES_PER_REDRAW = 64
READ_ONLY = "read-only: this is a connected program's scene"


class ProgramLeft(SgviewError):
    """A headless run's only program left without sending a frame: nothing to show, and
    nothing else will come (the run ends with this line and exit status 1)."""


class ProgramSource:
    """The programs a `Listener` accepted, one of them on show (see the module notes).

    ``wait``: `poll` waits for the first program and each `advance` for the shown
    program's next frame, and the run `ended` once that program left (`ProgramLeft` when
    the only program left without a frame) (headless runs);
    ``limit``: the most program frames taken (a headless ``--frames N``; None: no limit);
    ``log``: print each frame taken's update log (`out`, `err`: the streams, default
    sys.stdout / sys.stderr when printing)."""

    def __init__(
        self,
        scene: Scene,
        *,
        listener: Listener,
        wait: bool = False,
        limit: int | None = None,
        log: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self._scene = scene
        self.listener = listener
        self.wait = wait
        self.limit = limit
        self.log = log
        self._messages = Messages(out, err)
        self._messages.edit = READ_ONLY
        self.mirrors: dict[Program, Mirror] = {}
        self.shown: Program | None = None
        self._wanted: Program | None = None
        self._offered: Program | None = None
        #: Programs whose mirror could not be shown (its GPU state failed): never offered again.
        self._refused: set[Program] = set()
        #: Before anything is shown: each program's first frame, applied, for the log.
        self._first: dict[Program, FrameReport] = {}
        self._ready: FrameReport | None = None  # the shown program's first frame, once
        #: The program's own number of the frame on show (0: none yet), as its counters say.
        self._frame = 0
        #: Program frames taken, of every program shown: what `limit` bounds.
        self._frames_taken = 0
        #: Per program: frames taken and shown folded into a newer one in the same redraw.
        self._folded: dict[Program, int] = {}
        self._said_left: Program | None = None
        #: The last program that left before sending a frame (a headless run with no
        #: other program ends on it).
        self._left_unseen: Program | None = None
        self._paused = False
        self._stepping = False
        self._selected: int | None = None
        self.last_report: FrameReport | None = None

    # -- what every frame source tells -----------------------------------------------------
    @property
    def scene(self) -> Scene:
        return self._scene

    @property
    def graph(self) -> SceneGraph:
        return self._scene.graph

    @property
    def messages(self) -> Messages:
        return self._messages

    @property
    def frame(self) -> int:
        """The program's own number of the frame on show (0 before its first): the panel's
        frame line then agrees with the counters, however many frames a redraw folded."""
        return self._frame

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def selected(self) -> int | None:
        """The selected node, while the program keeps it (a removed node is unselected)."""
        if self._selected is not None and not self.graph.peek.is_alive(self._selected):
            self._selected = None
        return self._selected

    @property
    def title(self) -> str:
        selected = self.selected
        name = None if selected is None else self.graph.name_of(selected)
        return window_title(self._scene.title, name)

    def select(self, node_id: int | None) -> None:
        self._selected = None if node_id is None else int(node_id)

    def toggle_pause(self) -> None:
        """Pause the view: the program's frames wait (applied in turn once it resumes)."""
        self._paused = not self._paused
        self._stepping = False

    def request_step(self) -> None:
        """While paused: show the program's next frame alone (its frames wait meanwhile)."""
        self._stepping = self._paused

    def file_rows(self, node_id: int) -> tuple[tuple[str, str], ...]:
        """A stale or held node's rows (its world as the program holds it is the
        inspector's world matrix): by how much it is off (and, held, why), and parent x
        local beside it."""
        mirror = self.mirrors.get(self.shown) if self.shown is not None else None
        found = None if mirror is None else mirror.staleness(node_id)
        if mirror is None or found is None:
            return ()
        off, expected = found
        why = mirror.held_reason(node_id)
        if why is None:
            rows = [("stale", f"world differs from parent x local by {off:.6g}")]
        else:
            shown = printable(why, REASON_SHOWN)
            rows = [("held", f"{shown}: world differs from parent x local by {off:.6g}")]
        rows += [(f"parent x local {k}", _row(expected[k])) for k in range(4)]
        return tuple(rows)

    # -- capabilities: only the choice among programs --------------------------------------
    @property
    def editing(self) -> Editing | None:
        return None

    @property
    def controls(self) -> SceneControls | None:
        return None

    @property
    def file_actions(self) -> FileActions | None:
        return None

    @property
    def programs(self) -> ProgramChooser:
        return self

    def program_rows(self) -> list[tuple[str, bool]]:
        """The panel's rows: each program's label and counts, and whether it is shown."""
        rows = []
        for program in self.listener.programs:
            state = "" if program.connected else ", left"
            # Two lines: the counts stay in sight beside a long name in a narrow panel.
            text = (
                f"{program.label}\n    {program.frames_received} frames, "
                f"{program.frames_merged} merged{state}"
            )
            folded = self._folded.get(program, 0)
            if folded:
                text += f", {folded} folded"
            mirror = self.mirrors.get(program)
            if mirror is not None and mirror.stale_count:
                text += f", {mirror.stale_count} stale"
            if mirror is not None and mirror.held_count:
                text += f", {mirror.held_count} held"
            rows.append((text, program is self.shown))
        return rows

    def program_notes(self) -> list[str]:
        """The last lines about programs refused or disconnected (the panel shows them)."""
        return list(self.listener.notes)

    def show_program(self, index: int) -> None:
        """Show the ``index``-th program of `program_rows` from the next poll."""
        if 0 <= index < len(self.listener.programs):
            self._wanted = self.listener.programs[index]

    # -- the swap --------------------------------------------------------------------------
    def poll(self) -> Candidate | None:
        """Once per redraw: apply the hidden programs' frames, and offer the mirror of the
        program to show when it is not the one shown (waiting for the first program in a
        headless run)."""
        while True:
            self._drain_hidden()
            target = self._target()
            if target is not None or not self.wait:
                break
            left = self._left_unseen
            if left is not None and self.shown is None and not self.listener.programs:
                raise ProgramLeft(f"{printable(left.name, 60)} left after 0 frames")
            self.listener.wait_program(WAIT_SLICE)
            time.sleep(0.01)
        if target is None or target is self.shown:
            return None
        self._offered = target
        return Candidate(self.mirrors[target].scene, target.label, fresh=True)

    def _taken(self, candidate: Candidate) -> Program:
        program, self._offered = self._offered, None
        if program is None or self.mirrors[program].scene is not candidate.scene:
            raise ValueError("a candidate is committed or rejected once, after its poll")
        return program

    def commit(self, candidate: Candidate) -> None:
        """Show the offered program from its first frame not yet shown; the selection
        follows the node's name into it."""
        program = self._taken(candidate)
        selected = self.selected
        name = None if selected is None else self.graph.name_of(selected)
        _, node_id, notes = carry_names(candidate.scene, {}, name)
        self._scene, self._selected = candidate.scene, node_id
        for note in notes:
            self._messages.warn(f"note: {note}")
        self.shown, self._frame = program, 0
        self.mirrors[program].repaint()  # the renderer was built from the scene's looks
        self._ready = self._first.get(program)
        self._first.clear()

    def reject(self, candidate: Candidate, error: Exception) -> None:
        """The program's scene could not be given its GPU state: one line, and it is not
        offered again (the scene on show stays)."""
        program = self._taken(candidate)
        self._refused.add(program)
        self._messages.warn(f"cannot show {printable(candidate.origin)} ({brief(error)})")

    def _apply(self, program: Program, frame: ProgramFrame) -> FrameReport | None:
        mirror = self.mirrors.get(program)
        if mirror is None:
            mirror = self.mirrors[program] = Mirror(printable(program.name, 60))
        try:
            with floats_raise():
                return mirror.apply(frame)
        except Exception as exc:  # checked, and still not applicable (an overflow, say)
            if interrupted(exc):
                raise
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
                if program not in self.mirrors:
                    self._left_unseen = program
                self.mirrors.pop(program, None)
                self._refused.discard(program)
                self._folded.pop(program, None)
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
        if wanted is not None and wanted in self.mirrors and wanted not in self._refused:
            return wanted
        if self.shown is not None and (self.shown.connected or self.shown.pending()):
            return self.shown
        # A program that left keeps its turn while it has frames to show (it may leave
        # before the first poll: a headless run still shows and logs them).
        live = [
            p
            for p in self.listener.programs
            if p in self.mirrors
            and p not in self._refused
            and (p.connected or p.pending() or p in self._first)
        ]
        return live[0] if live else self.shown

    # -- the frames ------------------------------------------------------------------------
    @property
    def ended(self) -> bool:
        """A headless run has nothing more to show: the frame limit is taken, or the program
        on show left with all its frames shown and no other program is connected (a window
        stays open on a program that left)."""
        if not self.wait:
            return False
        if self.limit is not None and self._frames_taken >= self.limit:
            return True
        program = self.shown
        if program is None or not self._gone(program):
            return False
        return not any(p is not program and p.connected for p in self.listener.programs)

    def _gone(self, program: Program) -> bool:
        """The program left and every frame it sent was taken."""
        return not program.connected and not program.pending() and self._ready is None

    def advance(self, dt: float) -> Frame | None:
        """Every frame of the shown program that came since the last redraw, each applied to
        its mirror (and logged) in turn, handed on as one frame: the newest, its report
        folded over those it stands for (None: none came). A headless run waits for one."""
        program = self.shown
        if program is None or (self._paused and not self._stepping):
            return None
        single, self._stepping = self._stepping, False  # a step shows one frame
        start = time.perf_counter()
        reports: list[FrameReport] = []
        ready, self._ready = self._ready, None
        if ready is not None:
            self._taken_one(ready)
            reports.append(ready)
        while self._room() and not (single and reports):
            frame = program.take()
            while frame is None and not reports and self.wait and not self._gone(program):
                frame = program.take(WAIT_SLICE)
            report = None if frame is None else self._apply(program, frame)
            if report is None:
                break
            self._taken_one(report)
            reports.append(report)
        self._say_left(program)
        if not reports:
            return None
        self._frame = reports[-1].frame
        if len(reports) > 1:
            self._folded[program] = self._folded.get(program, 0) + len(reports) - 1
        report = reports[0] if len(reports) == 1 else fold(reports, self.graph)
        self.last_report = report
        received = tuple(reports) if len(reports) > 1 else ()
        recolor = self.mirrors[program].repaint()  # stale nodes in their colour
        ms = 1000.0 * (time.perf_counter() - start)
        return Frame(report.frame, report, dt, ms, recolor=recolor, received=received)

    def _room(self) -> bool:
        """Whether this run takes another frame (a headless run's frame limit)."""
        return self.limit is None or self._frames_taken < self.limit

    def _taken_one(self, report: FrameReport) -> None:
        """One program frame taken: counted and, with ``log``, logged under its number."""
        self._frames_taken += 1
        if self.log:
            lines = report.log_lines()
            if lines:
                self._messages.log([f"# frame {report.frame}", *lines])

    def _say_left(self, program: Program) -> None:
        """Once, in a headless run: the line saying the program on show left."""
        if self.wait and program is not self._said_left and self._gone(program):
            self._said_left = program
            self._messages.warn(
                f"{printable(program.name, 60)} left after {program.frames_received} frames"
            )


def _row(values: np.ndarray) -> str:
    return "  ".join(f"{float(v):.6g}" for v in values)


def fold(reports: list[FrameReport], graph: SceneGraph) -> FrameReport:
    """The reports of consecutive frames of one mirror as one, for the newest (the last),
    ``graph`` being that mirror's graph after it: a node recomputed in any of them counts as
    recomputed, with the latest cause (a node removed since is left out; a cause removed
    since becomes the node itself), in the graph's pre-order; counters add up (as the
    publisher's `Backlog` merges frames)."""
    newest = reports[-1]
    order = graph.alive_ids()
    ids = [order, *(r.local_updated for r in reports), *(r.world_updated for r in reports)]
    size = max(graph.capacity_ids, *(int(a.max(initial=-1)) + 1 for a in ids))
    local = np.zeros(size, dtype=bool)
    world = np.zeros(size, dtype=bool)
    cause = np.zeros(size, dtype=np.int64)
    for r in reports:
        local[r.local_updated] = True
        world[r.world_updated] = True
        cause[r.world_updated] = r.cause
    alive = np.zeros(size, dtype=bool)
    alive[order] = True
    world_ids = order[world[order]]
    causes = cause[world_ids]
    causes = np.where(alive[causes], causes, world_ids)
    structure = any(r.structure_changed for r in reports)
    if structure:  # the slots moved: upload every node
        starts = np.array([0] if order.size else [], dtype=np.int64)
        ends = np.array([order.size] if order.size else [], dtype=np.int64)
    else:
        starts, ends = joined(
            np.concatenate([r.starts for r in reports]), np.concatenate([r.ends for r in reports])
        )
    return replace(
        newest,
        local_updated=order[local[order]],
        world_updated=world_ids,
        cause=causes,
        executed=world_ids,
        suppressed=sum(r.suppressed for r in reports),
        products=sum(r.products for r in reports),
        naive_products=sum(r.naive_products for r in reports),
        structure_changed=structure,
        starts=starts,
        ends=ends,
    )
