"""`FrameRunner`: each redraw's stages in a fixed, named order, for every way of showing.

A window, a headless run, `viewer.show`, the notebook widget and ``sgview listen`` all
drive one runner: it takes frames from a frame source (`viewer.session.source`) and hands
them to a screen (the window app, `viewer.window.app.SgviewApp`), which owns the GPU state,
the camera and the overlay. The runner holds no GL; each redraw runs, in order:

1. ``swap``: the source's candidate scene, if any, is given its GPU state by the screen and
   then committed (or rejected with the error: the scene on show stays); the screen shows
   it from this redraw on. Calls only go down: the source never calls the screen.
2. ``script``: the screen plays the scripted input of this redraw (`--keys`, `--click`).
3. ``advance``: the source's next frame, or None (paused, or no program frame came).
4. ``upload``: for a frame, the screen uploads what its report says changed.
5. ``report``: the overlay takes the frame's report (glow, timeline, counters).
6. ``draw``: the screen draws the picture (skipped where nobody sees it: a headless frame
   before the last one, not recorded).
7. ``capture``: the screen keeps what was asked of the picture; the trace and the progress
   line record the redraw, and a run with a frame limit ends at its last redraw (or once
   the source ended: a headless ``sgview listen`` whose program left).
"""

from __future__ import annotations

import time as clock
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from viewer.content.scene import Scene
from viewer.errors import floats_raise, interrupted
from viewer.progress import Progress
from viewer.session.frame import Frame, Phase
from viewer.session.source import Candidate, FrameSource
from viewer.trace import TraceWriter

__all__ = ["FrameRunner", "Phase", "Screen", "Swapped", "swap"]


#: The GPU state the screen builds for one scene (the window app's: a `Renderer`).
G = TypeVar("G")


class Screen(Protocol[G]):
    """The window side of each redraw (the app): GPU state, scripted input, the picture."""

    def build(self, scene: Scene) -> G:
        """The GPU state of a candidate scene, not yet shown (an error rejects the scene)."""
        ...

    def use(self, built: G, candidate: Candidate) -> None:
        """Show the committed candidate with the GPU state `build` made for it."""
        ...

    def play_script(self, redraw: int) -> None: ...
    def upload(self, frame: Frame) -> int:
        """Upload what the frame changed; every byte written to the GPU."""
        ...

    def report(self, frame: Frame, upload_ms: float, sync_bytes: int) -> None:
        """Hand the frame's report to the overlay."""
        ...

    def draw(self, frame_time: float, seen: bool) -> list[Phase]:
        """Draw the picture (`seen` False: only what must go on without it); its phases."""
        ...

    def capture_frame(self, frame: Frame | None) -> None:
        """Keep what was asked of the picture just drawn (recordings, screenshots)."""
        ...

    def wants_picture(self) -> bool:
        """Whether this redraw's picture is kept although it is not the last one."""
        ...


@dataclass(frozen=True)
class Swapped(Generic[G]):
    """A candidate scene that was committed, with the GPU state built for it."""

    candidate: Candidate
    built: G


def swap(source: FrameSource, build: Callable[[Scene], G]) -> Swapped[G] | None:
    """The two-phase scene swap: the source's candidate, its GPU state (`build`, with
    numpy raising), then the commit; None when there was no candidate or it was rejected
    (the source says why; the scene on show stays)."""
    candidate = source.poll()
    if candidate is None:
        return None
    try:
        with floats_raise():
            built = build(candidate.scene)
    except Exception as exc:
        if interrupted(exc):
            raise
        source.reject(candidate, exc)
        return None
    source.commit(candidate)
    return Swapped(candidate, built)


class FrameRunner(Generic[G]):
    """Runs the stages of each redraw (see the module notes) for one source and screen.

    `frames`: end after this many redraws (None: until the window closes); `fixed`: the
    clock is the headless fixed step (then only the last redraw's picture, and those
    `Screen.wants_picture` asks for, are drawn); `trace`: where to record each redraw."""

    def __init__(
        self,
        source: FrameSource,
        screen: Screen[G],
        *,
        frames: int | None = None,
        fixed: bool = False,
        trace: TraceWriter | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.source = source
        self.screen = screen
        self.frames = frames
        self.fixed = fixed
        self.trace = trace
        self.progress = progress
        #: Redraws so far: the frame count of scripts and of `frames`.
        self.redraws = 0

    @property
    def done(self) -> bool:
        """The frame limit is reached, or the source ended (`FrameSource.ended`): the run
        ends after this redraw."""
        return (self.frames is not None and self.redraws >= self.frames) or self.source.ended

    def seen(self) -> bool:
        """Whether the current redraw's picture is shown or kept (see `FrameRunner`)."""
        if not self.fixed or self.frames is None:
            return True
        return self.done or self.screen.wants_picture()

    def redraw(self, frame_time: float) -> Frame | None:
        """One redraw's stages; returns the frame simulated in it (None: none)."""
        start = clock.perf_counter()
        swapped = swap(self.source, self.screen.build)
        if swapped is not None:
            self.screen.use(swapped.built, swapped.candidate)
        self.redraws += 1
        self.screen.play_script(self.redraws)
        frame = self.source.advance(frame_time)
        phases: list[Phase] = []
        sync_bytes = 0
        if frame is not None:
            t0 = clock.perf_counter()
            sync_bytes = self.screen.upload(frame)
            upload_ms = 1000.0 * (clock.perf_counter() - t0)
            self.screen.report(frame, upload_ms, sync_bytes)
            phases.append(("upload", t0, clock.perf_counter()))
        phases += self.screen.draw(frame_time, self.seen())
        self.screen.capture_frame(frame)
        if self.progress is not None:
            self.progress.tick(self.redraws)
        if self.trace is not None:
            self._trace(start, frame, phases, sync_bytes)
        return frame

    def _trace(
        self, start: float, frame: Frame | None, phases: Sequence[Phase], sync_bytes: int
    ) -> None:
        assert self.trace is not None
        self.trace.redraw(
            self.redraws,
            start,
            clock.perf_counter(),
            (frame.phases if frame is not None else []) + list(phases),
            frame=None if frame is None else frame.number,
            report=None if frame is None else frame.report,
            bytes_uploaded=sync_bytes,
        )

    def finish(self) -> None:
        """After the last redraw: the progress line and the trace are closed."""
        if self.progress is not None:
            self.progress.close()
        if self.trace is not None:
            self.trace.close()
