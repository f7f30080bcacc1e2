"""The frame source: what the frame runner (`viewer.frames.runner`) drives, and what a
source may offer besides frames. No window, no GL.

Two sources hand frames to the one runner: the file-driven `Session` (a scene file, the
bundled scenes, a graph given to `viewer.show`) and the live-program source
(`viewer.attach.program_source.ProgramSource`, for `sgview listen`). Both give the runner
the same three steps: `poll` hands back a candidate scene to show next (a file opened, a
file saved again, another program picked) or None; the runner builds the candidate's GPU
state and then `commit`s it (or `reject`s it with the error, and the scene on show stays);
`advance(dt)` hands back the next frame, or None; `ended` says when there will be none.

What a source can do besides (edit its graph, touch and restart it, open and save files,
choose among programs) is a capability: a typed property that is None where the source does
not offer it. The input and the overlay ask for a capability through that property, never by
probing the object, and a source never offers a capability only to refuse it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypedDict

from viewer.animation import AnimationPlayer
from viewer.collision.demo import Reading
from viewer.content.scene import Scene
from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.session.edits import Editing
from viewer.session.frame import Frame
from viewer.session.messages import Messages

__all__ = [
    "Candidate",
    "ErrState",
    "FrameCallback",
    "FileActions",
    "FrameSource",
    "ProgramChooser",
    "SceneControls",
    "SceneOnShow",
]


#: The user's code run in each simulated frame before the update (``viewer.show``'s
#: ``on_frame``): called with the graph, the frame number and the scene time in seconds.
FrameCallback = Callable[[SceneGraph, int, float], None]


#: What numpy does on a floating-point error, per kind (`np.geterr`, `np.errstate`).
ErrAction = Literal["ignore", "warn", "raise", "call", "print", "log"]


class ErrState(TypedDict):
    """numpy's floating-point error settings, as `np.geterr` hands them back: the
    ``on_frame`` callbacks run under the caller's."""

    divide: ErrAction
    over: ErrAction
    under: ErrAction
    invalid: ErrAction


@dataclass(frozen=True)
class Candidate:
    """A scene a source offers to show next, checked as far as the source can check it.

    `origin`: what it came from, as said in a refusal (a file's path, a program's name);
    `fresh`: its frames count from 0 (an opened file, a program shown for the first time)
    rather than going on (a reloaded file keeps the clock)."""

    scene: Scene
    origin: str
    fresh: bool


class SceneControls(Protocol):
    """A scene that sgview runs itself: its clock and motion, touches, restart, the
    glTF clip, the collision demo and the held movement keys."""

    @property
    def motion_on(self) -> bool: ...
    @property
    def has_motion(self) -> bool:
        """Whether anything moves with scene time (motions, a clip): what S stops."""
        ...

    @property
    def animation(self) -> AnimationPlayer | None:
        """The scene's glTF animation player; None when it has no animation. Read only:
        change it through the actions below."""
        ...

    @property
    def collision_mode(self) -> str | None:
        """The collision demo's motion mode; None when the scene is not the demo."""
        ...

    @property
    def collision_reading(self) -> Reading | None: ...

    @property
    def hold_edits(self) -> bool:
        """Whether an edit while paused waits, marked, for the next step (W)."""
        ...

    def toggle_motion(self) -> None: ...
    def toggle_hold_edits(self) -> None: ...
    def touch_selected(self) -> None: ...
    def restart(self) -> FrameReport: ...
    def press_move_key(self, action: str, reverse: bool = False) -> None: ...
    def release_move_key(self, action: str) -> None: ...
    def switch_collision_mode(self) -> None: ...
    def pick_animation(self, choice: int | str | None) -> None: ...
    def toggle_animation(self) -> None: ...
    def scrub_animation(self, time: float) -> None: ...


class FileActions(Protocol):
    """A scene that came from (or can go to) a file: open another, save, the recent ones."""

    @property
    def recent_paths(self) -> Sequence[Path]:
        """Files opened lately, newest first."""
        ...

    def request_open(self, path: str | Path) -> None:
        """Offer ``path`` as the next candidate (dropped, picked in a dialog or the list)."""
        ...

    def recent_folder(self) -> str: ...
    def save_suggestion(self) -> str:
        """The path the panel's "save as" field offers."""
        ...

    def save(self, path: str | Path | None = None) -> bool:
        """Write the scene to ``path`` or to its own file; the outcome is the edit line."""
        ...


class ProgramChooser(Protocol):
    """Connected programs, one of them on show (`sgview listen`)."""

    def program_rows(self) -> list[tuple[str, bool]]:
        """Each program's label and counts, and whether it is the one shown."""
        ...

    def program_notes(self) -> list[str]:
        """The last lines about programs refused or disconnected."""
        ...

    def show_program(self, index: int) -> None:
        """Show the ``index``-th program of `program_rows` from the next poll."""
        ...


class SceneOnShow(Protocol):
    """What a frame source shows and lets the user act on: the scene, its graph and title,
    the message channel, the frame count, the selection, pause and step, what the scene's
    file says of a node, and the capabilities it offers (None where it offers none). The
    overlay reads a source as this, and never polls or advances it."""

    @property
    def scene(self) -> Scene: ...
    @property
    def graph(self) -> SceneGraph: ...
    @property
    def title(self) -> str: ...
    @property
    def messages(self) -> Messages:
        """The panel's lines (`edit`, `open`, `reload`, `refused`, `question`)."""
        ...

    @property
    def frame(self) -> int: ...
    @property
    def paused(self) -> bool: ...
    @property
    def selected(self) -> int | None: ...

    def select(self, node_id: int | None) -> None: ...
    def toggle_pause(self) -> None: ...
    def request_step(self) -> None: ...
    def file_rows(self, node_id: int) -> tuple[tuple[str, str], ...]:
        """(label, value) rows the scene's file gives about a node (a USD prim's path, op
        stack and how its matrix is held; empty for other formats)."""
        ...

    # -- capabilities: None where the source does not offer them ------------------------
    @property
    def editing(self) -> Editing | None:
        """The selection's edits, the gizmo's modes, the undo steps: edits go through its
        `run` (a `viewer.session.commands` command), `undo` and `redo`, one step each."""
        ...

    @property
    def controls(self) -> SceneControls | None:
        """Motion, touches, restart, the glTF clip, held keys and the collision demo."""
        ...

    @property
    def file_actions(self) -> FileActions | None:
        """Save as, the recent files, opening another."""
        ...

    @property
    def programs(self) -> ProgramChooser | None:
        """The connected programs (`sgview listen`), one of them on show."""
        ...


class FrameSource(SceneOnShow, Protocol):
    """What the runner drives (see the module notes): a scene on show (`SceneOnShow`) and
    the swap and frames that come from it."""

    def poll(self) -> Candidate | None: ...
    def commit(self, candidate: Candidate) -> None: ...
    def reject(self, candidate: Candidate, error: Exception) -> None:
        """The candidate's GPU state could not be built: say why; the scene on show stays."""
        ...

    def advance(self, dt: float) -> Frame | None: ...
    @property
    def ended(self) -> bool:
        """The source has nothing more to show, so a run with an end ends after this
        redraw: a headless ``sgview listen`` whose program left (a scene never ends)."""
        ...
