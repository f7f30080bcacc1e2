"""The scale handles: three box-tipped handles along the axes and a centre square.

Scale is a local value, so every scale drag goes through the core's `local_scale`
setter and scales the node about its own origin:

- a handle scales one of the node's own axes by the drag's factor (dragging the tip
  one handle length further out doubles it);
- the centre square scales all three by the same factor (right or up grows; a handle's
  length right doubles it).

With the node's own axes (X) the handles lie along them. With the world's axes a handle
lies along a world axis only where scaling along that world axis is exactly scaling one
own axis: where the node's own axes are the world's, up to order and sign (a turn by
multiples of 90 degrees, no shear above). Anywhere else a world-axis scale would need
shear, which position, rotation and scale cannot hold, so the handles lie along the
node's own axes and `ScaleHandles.along_world` is False (the view says "own axes").
Pure maths, no GL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .axes import CENTRE_PX, Handles, handles

#: A snapped drag scales by a multiple of this factor step.
SNAP_FACTOR = 0.1
#: The smallest factor a drag applies: a scale never reaches zero or flips by dragging.
MIN_FACTOR = 0.01
#: How far a node's unit axis may be from a world axis and still count as along it.
ALIGNED = 1e-9


@dataclass(frozen=True)
class ScaleHandles:
    """The scale handles on screen: the move handles' geometry, the own axis each
    handle scales, and whether they lie along the world's axes."""

    handles: Handles
    own: tuple[int, int, int]  # handle k scales the node's own axis own[k]
    along_world: bool


def own_axes_along_world(world: np.ndarray) -> tuple[int, int, int] | None:
    """For each world axis, the node's own axis that lies along it, when the node's own
    axes are the world's up to order and sign (each row of its normalised 3x3 part has
    one entry of size 1, the others 0); None otherwise."""
    cols = np.asarray(world, dtype=np.float64)[:3, :3]
    norms = np.linalg.norm(cols, axis=0)
    if not (norms > 1e-12).all():
        return None
    unit = np.abs(cols / norms)
    own = tuple(int(j) for j in unit.argmax(axis=1))
    if len(set(own)) < 3:
        return None
    for k, j in enumerate(own):
        others = np.delete(unit[k], j)
        if not (unit[k, j] > 1.0 - ALIGNED and (others < ALIGNED).all()):
            return None
    return own  # type: ignore[return-value]


def scale_handles(
    world: np.ndarray, view_proj: np.ndarray, size, local: bool, radius: float
) -> ScaleHandles | None:
    """The scale handles of a node at ``world`` drawn ``radius`` wide (sized as
    `handles`; see the module notes for which axes); None when it is behind the camera
    or its axes are degenerate."""
    own = None if local else own_axes_along_world(world)
    h = handles(world, view_proj, size, own is None, radius)
    if h is None:
        return None
    return ScaleHandles(h, own or (0, 1, 2), own is not None)


def hit_centre(h: Handles, x: float, y: float) -> bool:
    """Whether (x, y) is on the centre square (uniform scale)."""
    return bool((np.abs(np.array([x, y]) - h.origin) <= CENTRE_PX).all())


@dataclass
class ScaleDrag:
    """One scale drag: a handle's (one own axis) or the centre's (all three)."""

    own: int | None  # the own axis scaled; None: all three (uniform)
    start_scale: np.ndarray  # the node's local scale when the drag began
    start_mouse: np.ndarray  # (x, y)
    screen: np.ndarray  # the handle's screen vector (tip - origin); unused for uniform
    reach_px: float  # a handle's length on screen: the centre's drag that doubles

    @classmethod
    def begin(cls, sh: ScaleHandles, handle: int | None, scale, x: float, y: float) -> ScaleDrag:
        """A drag of handle ``handle`` (None: the centre square) from (x, y)."""
        h = sh.handles
        screen = np.zeros(2) if handle is None else h.tips[handle] - h.origin
        own = None if handle is None else sh.own[handle]
        start = np.asarray(scale, dtype=np.float64).copy()
        return cls(own, start, np.array([x, y]), screen, h.px)

    def factor(self, x: float, y: float, snap: bool = False) -> float:
        """The factor the mouse at (x, y) scales by (at least `MIN_FACTOR`)."""
        d = np.array([x, y]) - self.start_mouse
        if self.own is None:
            travel = float(d[0] - d[1]) / self.reach_px  # right or up grows
        else:
            s = self.screen
            travel = float(d @ s) / max(float(s @ s), 1e-9)
        f = 1.0 + travel
        if snap:
            f = round(f / SNAP_FACTOR) * SNAP_FACTOR
        return max(f, MIN_FACTOR)

    def scale(self, x: float, y: float, snap: bool = False) -> np.ndarray:
        """The node's new local scale for the mouse at (x, y)."""
        out = self.start_scale.copy()
        f = self.factor(x, y, snap)
        if self.own is None:
            out *= f
        else:
            out[self.own] *= f
        return out

    def apply(self, node, x: float, y: float, snap: bool = False) -> None:
        """Scale ``node`` (a scene Node) so, through its `local_scale` setter."""
        node.local_scale = self.scale(x, y, snap)
