"""The overlay's two seams: what it reads from the session and from the renderer.

The overlay shows a session (`viewer.session.session.Session`) drawn by a renderer; it knows them
only through these protocols, so it can be tested with small stand-ins and never reaches
into the app. Actions it may ask for are the session's own (the same a key press asks).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from viewer.scene.graph import SceneGraph


class OverlayHost(Protocol):
    """What the overlay reads from the session on show, and the actions it may ask for."""

    @property
    def graph(self) -> SceneGraph: ...
    @property
    def frame(self) -> int: ...
    @property
    def paused(self) -> bool: ...
    @property
    def motion_on(self) -> bool: ...
    @property
    def selected(self) -> int | None: ...
    @property
    def reload_error(self) -> str | None: ...
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
    def open_error(self) -> str | None:
        """Why the last file dropped on the window did not open (one line), or None."""

    @property
    def editor(self):
        """The user's edits (`viewer.session.edits.Editor`): read its `message` and its history's
        labels; edit through `edit`, `undo` and `redo` below."""

    gizmo_local: bool  # the gizmo's axes: the node's own (True) or the world's
    gizmo_scale: bool  # the gizmo's mode: scale (True) or move and turn

    def selected_node(self): ...  # the selected `Node`, or None
    def select(self, node_id: int | None) -> None: ...
    def edit(self, action: str, *args): ...
    @property
    def recent(self):
        """`viewer.session.opening.RecentFiles`: ``paths``, newest first."""

    def request_open(self, path) -> None: ...

    save_suggestion: str  # the path the "save as" field offers

    def save(self, path=None) -> bool: ...
    def undo(self) -> None: ...
    def redo(self) -> None: ...
    def toggle_pause(self) -> None: ...
    def request_step(self) -> None: ...
    def touch_selected(self) -> None: ...
    def toggle_motion(self) -> None: ...
    def pick_animation(self, choice: int | str | None) -> None: ...
    def toggle_animation(self) -> None: ...
    def scrub_animation(self, time: float) -> None: ...


class GlowState(Protocol):
    """The renderer's glow (`viewer.render.glow.Glow`), as the overlay reads it."""

    fade: float  # seconds from full strength to none (the panel's slider sets it)

    def kinds(self, ids: np.ndarray) -> np.ndarray:
        """Per node of `ids`: -1 glowing red (own change), +1 orange (followed), 0 not."""

    def kind_of(self, node_id: int) -> int: ...

    frames: int  # frames recorded so far
    frame_of: np.ndarray  # by id: the frame (as `frames` counted) of its last recomputation
    still: bool  # a picked frame (or a replay's part of one) is on show

    def glowing(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, signed strengths) of the nodes glowing now (the tree's fading rows)."""


class OverlayCanvas(Protocol):
    """What the overlay needs from the renderer: the glow's view settings and state, label
    spheres out, view toggles. The renderer owns the glow and writes the GPU; the overlay
    only sets how it shows."""

    show_grid: bool
    show_links: bool
    show_quiet: bool  # names and lines of nodes whose subtree draws nothing
    glow_style: str  # "fill", "rim" or "heat" (the overlay sets it)
    glow_on: bool  # glow in the view at all (the overlay sets it)

    @property
    def glow(self) -> GlowState: ...

    def show_still(self, report, parents: np.ndarray) -> int:
        """Show a frame picked on the timeline at full strength (None: live again);
        returns bytes written."""

    def bounding_spheres(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World-space centres (n, 3) and radii (n,) of the nodes as drawn."""

    def speaks(self, ids: np.ndarray) -> np.ndarray:
        """Which of `ids` are named (not the nodes whose subtree draws nothing)."""


class OverlayCamera(Protocol):
    """The camera, for placing names on screen."""

    def view_matrix(self) -> np.ndarray: ...
    def view_projection(self, size: tuple[int, int]) -> np.ndarray: ...
