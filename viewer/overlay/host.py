"""The overlay's seams: what it reads from the renderer and the camera, and the app's view
settings it changes.

The overlay shows a frame source as `viewer.session.source.SceneOnShow` (the file-driven
session, or the live programs of `sgview listen`: what it shows and the actions it offers,
the same a key press asks, with what a source may lack as capabilities that are None where
not offered), drawn by a renderer; it knows them only through these protocols, so it can be
tested with small stand-ins and never reaches into the app.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray


class LitNodes(Protocol):
    """A frame's recomputed nodes as the glow reads them (a `FrameReport`, or the part of
    one a replay has lit so far)."""

    @property
    def world_updated(self) -> NDArray[np.int64]: ...
    @property
    def local_updated(self) -> NDArray[np.int64]: ...


class GlowState(Protocol):
    """The renderer's glow (`viewer.render.glow.Glow`), as the overlay reads it."""

    def kinds(self, ids: NDArray[np.int64]) -> NDArray[np.int8]:
        """Per node of `ids`: -1 glowing red (own change), +1 orange (followed), 0 not."""
        ...

    @property
    def frames(self) -> int:
        """Frames recorded so far."""
        ...

    @property
    def frame_of(self) -> NDArray[np.int64]:
        """By id: the frame (as `frames` counted) of its last recomputation."""
        ...

    @property
    def still(self) -> bool:
        """A picked frame (or a replay's part of one) is on show."""
        ...

    def glowing(self) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """(ids, signed strengths) of the nodes glowing now (the tree's fading rows)."""
        ...


class LabelShapes(Protocol):
    """The scene's shapes (`viewer.render.scene_bounds.SceneBounds`), for placing names."""

    def label_spheres(
        self, ids: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World-space centres (n, 3) and radii (n,) of the nodes as drawn."""
        ...


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
        ...

    def show_still(self, report: LitNodes | None, parents: NDArray[np.int64]) -> int:
        """Show a frame picked on the timeline at full strength (None: live again);
        returns bytes written."""
        ...

    def speaks(self, ids: NDArray[np.int64], everyone: bool = False) -> NDArray[np.bool_]:
        """Which of `ids` are named (not the nodes whose subtree draws nothing;
        `everyone`: all)."""
        ...

    @property
    def variant_names(self) -> list[str]:
        """The glTF files' KHR_materials_variants names (none: empty)."""
        ...

    @property
    def variant(self) -> str | None:
        """The material variant drawn (None: the files' defaults)."""
        ...

    def set_variant(self, name: str | None) -> None:
        """Draw the materials of variant `name` (None: the files' defaults)."""
        ...


class OverlayCamera(Protocol):
    """The camera, for placing names on screen."""

    def view_matrix(self) -> NDArray[np.float64]: ...
    def view_projection(self, size: tuple[int, int]) -> NDArray[np.float64]: ...


class ViewToggles(Protocol):
    """The app's view settings (`viewer.render.frame_view.ViewSettings`) the panel's View
    section and the glow switches change."""

    show_grid: bool
    show_links: bool
    show_quiet: bool
    glow_style: str
    glow_on: bool
    glow_fade: float
