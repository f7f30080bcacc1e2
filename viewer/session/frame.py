"""One simulated frame as the session hands it on, and the error of a frame that failed."""

from __future__ import annotations

from dataclasses import dataclass, field

from viewer.errors import SgviewError
from viewer.scene.report import FrameReport
from viewer.text import printable

__all__ = ["Frame", "FrameError", "Phase", "window_title"]

#: What a frame or a redraw spent its time on: (phase, start, end), `time.perf_counter`
#: seconds.
Phase = tuple[str, float, float]


class FrameError(SgviewError, RuntimeError):
    """A simulated frame failed in one of sgview's own phases (one line: the scene,
    the frame, the phase and the underlying error)."""


def window_title(title: str, selected: str | None = None) -> str:
    """ "sgview — TITLE[ — SELECTED]", with both made safe to show (they come from files)."""
    text = f"sgview — {printable(title)}"
    return text if selected is None else f"{text} — {printable(selected)}"


@dataclass
class Frame:
    """One simulated frame, as the session hands it on to the renderer and the overlay."""

    number: int
    report: FrameReport
    dt: float
    update_ms: float
    #: What the frame spent its time on.
    phases: list[Phase] = field(default_factory=list)
    #: Nodes whose base colour changes with this frame (the collision demo's overlap red).
    recolor: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    #: What the user or the scene's script did in this frame: (kind, what) pairs, kind
    #: "touch", "edit" or "clip" (the overlay's timeline marks them).
    events: list[tuple[str, str]] = field(default_factory=list)
    #: Nodes whose morph weights changed with this frame: a change that moved no matrix,
    #: so the report does not list them (the overlay shows them as "weights").
    weights: frozenset[int] = frozenset()
    #: Where the frame stands for several frames of a connected program (its `report`
    #: folded over theirs): each one's own report, oldest first, the newest last, so that
    #: the timeline keeps every frame received. Empty for a scene's own frames.
    received: tuple[FrameReport, ...] = ()
