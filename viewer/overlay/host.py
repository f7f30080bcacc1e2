"""The overlay's two seams: what it reads from the session and from the renderer.

The overlay shows a session (`viewer.session.session.Session`) drawn by a renderer; it knows
them only through these protocols, so it can be tested with small stand-ins and never reaches
into the app. Actions it may ask for are the session's own (the same a key press asks).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from viewer.scene.graph import SceneGraph


class OverlayHost(Protocol):
    """What the overlay reads from the session on show, and the actions it may ask for:
    the session's clock and animation actions, and its two rooms (editing and files)."""

    @property
    def graph(self) -> SceneGraph: ...
    @property
    def scene(self): ...  # viewer.content.scene.Scene: what "save as" offers is its file
    @property
    def frame(self) -> int: ...
    @property
    def paused(self) -> bool: ...
    @property
    def motion_on(self) -> bool: ...
    @property
    def has_motion(self) -> bool:
        """Whether anything moves with scene time (motions, a clip): what S stops."""

    @property
    def selected(self) -> int | None: ...
    @property
    def collision_mode(self) -> str | None:
        """The collision demo's motion mode; None when the scene is not the demo."""

    @property
    def collision_reading(self): ...  # viewer.collision.demo.Reading or None
    @property
    def animation(self):
        """The scene's `viewer.animation.AnimationPlayer` (its clips, which one, playing or
        not, clip time); None when the scene has no animation. Read only: change it
        through the actions below."""

    @property
    def messages(self):
        """`viewer.session.messages.Messages`: the panel's lines (`edit`, `open`, `reload`)."""

    @property
    def editing(self):
        """`viewer.session.edits.Editing`: the selection, the gizmo's modes, the history's
        labels; edits go through its `run` (a `viewer.session.commands` command), `undo`
        and `redo`, each one undo step."""

    @property
    def files(self):
        """`viewer.session.opening.SceneFiles`: `recent.paths`, `request_open`,
        `save_suggestion`."""

    def file_rows(self, node_id: int) -> tuple[tuple[str, str], ...]:
        """(label, value) rows the scene's file gives about a node (a USD prim's path, op
        stack and how its matrix is held; empty for other formats)."""

    def select(self, node_id: int | None) -> None: ...
    def save(self, path=None) -> bool: ...
    def toggle_pause(self) -> None: ...
    def request_step(self) -> None: ...
    def touch_selected(self) -> None: ...
    def toggle_motion(self) -> None: ...
    def pick_animation(self, choice: int | str | None) -> None: ...
    def toggle_animation(self) -> None: ...
    def scrub_animation(self, time: float) -> None: ...


class GlowState(Protocol):
    """The renderer's glow (`viewer.render.glow.Glow`), as the overlay reads it."""

    def kinds(self, ids: np.ndarray) -> np.ndarray:
        """Per node of `ids`: -1 glowing red (own change), +1 orange (followed), 0 not."""

    def kind_of(self, node_id: int) -> int: ...

    frames: int  # frames recorded so far
    frame_of: np.ndarray  # by id: the frame (as `frames` counted) of its last recomputation
    still: bool  # a picked frame (or a replay's part of one) is on show

    def glowing(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, signed strengths) of the nodes glowing now (the tree's fading rows)."""


class LabelShapes(Protocol):
    """The scene's shapes (`viewer.render.scene_bounds.SceneBounds`), for placing names."""

    def label_spheres(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World-space centres (n, 3) and radii (n,) of the nodes as drawn."""


class OverlayCanvas(Protocol):
    """What the overlay needs from the renderer: the glow's state, the shapes names are
    placed around, which nodes are named. The renderer owns the glow and writes the GPU;
    how it shows is the app's view settings, which the overlay changes."""

    @property
    def glow(self) -> GlowState: ...
    @property
    def bounds(self) -> LabelShapes: ...
    @property
    def version(self) -> int:
        """Changes whenever what is drawn moved (an upload, a rebuild)."""

    def show_still(self, report, parents: np.ndarray) -> int:
        """Show a frame picked on the timeline at full strength (None: live again);
        returns bytes written."""

    def speaks(self, ids: np.ndarray, everyone: bool = False) -> np.ndarray:
        """Which of `ids` are named (not the nodes whose subtree draws nothing;
        `everyone`: all)."""


class OverlayCamera(Protocol):
    """The camera, for placing names on screen."""

    def view_matrix(self) -> np.ndarray: ...
    def view_projection(self, size: tuple[int, int]) -> np.ndarray: ...
