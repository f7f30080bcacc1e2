"""What one redraw draws, extracted once before anything draws (no GL).

The app keeps the view settings (`ViewSettings`: toggles and how the glow shows) for as
long as it runs, across scene swaps; once per redraw `FrameViews.extract` reads what the
frame needs from the graph (the matrices as stored, the parents, the marks not yet
executed) into a `FrameView`, and `Renderer.draw(view, camera)` draws that and nothing
else: it keeps no settings of its own and reads nothing from the graph while drawing
(Bevy's extract step; pygfx's ``render(scene, camera)``).

The marks are worked out only when the graph's edition changed since the last extract
(an edit, a frame), so an idle redraw reads no flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from viewer.scene.graph import SceneGraph

from .glow import DEFAULT_FADE

if TYPE_CHECKING:
    import moderngl

    from .scene_bounds import SceneBounds

__all__ = ["GLOW_STYLES", "FrameView", "FrameViews", "PendingMarks", "ViewSettings"]

#: The ways glow can show (`ViewSettings.glow_style`; shaders/instanced.frag): "fill"
#: tints the node, "rim" lights its outline and keeps its colour, "heat" colours every
#: node by its heat in [0, 1] (the overlay's heat view).
GLOW_STYLES = ("fill", "rim", "heat")

_NO_IDS = np.zeros(0, dtype=np.int64)


@dataclass
class ViewSettings:
    """How the picture shows: the user's toggles, kept by the app, handed to each draw."""

    show_grid: bool = True
    show_links: bool = True
    show_axes: bool = True
    #: The joints of skins over their meshes (off without the overlay).
    show_joints: bool = True
    #: Names and lines of the nodes whose subtree draws nothing (`quiet.py`); off by
    #: default, so that a file's cameras and lamps do not stick out of the model.
    show_quiet: bool = False
    #: Plain colours without lighting (pixel tests, the bench baseline).
    unlit: bool = False
    glow_style: str = "fill"
    #: Show the glow at all (the overlay turns it on; off: every node plain).
    glow_on: bool = False
    #: Seconds a glow takes to fade out (the panel's slider).
    glow_fade: float = DEFAULT_FADE

    def bare(self) -> None:
        """The content and nothing else (`--no-overlay`): no grid, lines, axes, joints."""
        self.show_grid = self.show_links = self.show_axes = self.show_joints = False


@dataclass(frozen=True)
class PendingMarks:
    """Nodes marked and not yet executed at graph edition `edition`: `own` changed their
    own values, `followed` follow a change above them (`Glow.set_pending`)."""

    edition: tuple[int, int, int, int]  # `Peek.edition`
    own: np.ndarray = field(default_factory=lambda: _NO_IDS)
    followed: np.ndarray = field(default_factory=lambda: _NO_IDS)

    @property
    def empty(self) -> bool:
        return not (self.own.size or self.followed.size)


@dataclass(frozen=True)
class FrameView:
    """One redraw's input: where to draw, how, and the scene's state to draw."""

    fbo: moderngl.Framebuffer  # the framebuffer drawn into
    size: tuple[int, int]  # its viewport (width, height)
    settings: ViewSettings
    world: np.ndarray  # [N, 4, 4] the world matrices as stored (read-only)
    parents: np.ndarray  # [N] parent id per id
    pending: PendingMarks
    selected: int | None = None
    #: The selected node's outline (world [4, 4], lo [3], hi [3]) or None.
    selection_box: tuple | None = None


class FrameViews:
    """Extracts `FrameView`s from a graph, reusing the marks while its edition stands."""

    def __init__(self) -> None:
        self._marks: tuple[SceneGraph, PendingMarks] | None = None  # (graph, its marks)

    def extract(
        self,
        graph: SceneGraph,
        settings: ViewSettings,
        fbo: moderngl.Framebuffer,
        size: tuple[int, int],
        *,
        selected: int | None = None,
        bounds: SceneBounds | None = None,
    ) -> FrameView:
        """The view of `graph` now; `bounds` (a `SceneBounds`) gives the selection's box."""
        peek = graph.peek
        world = peek.world_matrices()
        box = bounds.selection_box(selected, world) if bounds is not None else None
        return FrameView(
            fbo,
            (size[0], size[1]),
            settings,
            world,
            peek.parents(),
            self._pending(graph),
            selected,
            box,
        )

    def _pending(self, graph: SceneGraph) -> PendingMarks:
        peek = graph.peek
        edition = peek.edition
        cached = self._marks
        if cached is not None and cached[0] is graph and cached[1].edition == edition:
            return cached[1]
        marks = PendingMarks(edition)
        if peek.marked:
            flags = peek.flags()
            own = np.flatnonzero(flags.local)
            followed = np.flatnonzero((flags.world | flags.execute) & ~flags.local)
            marks = PendingMarks(edition, own, followed)
        self._marks = (graph, marks)
        return marks
