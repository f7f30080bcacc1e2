"""The gizmo on the selected node: pure maths on a view-projection matrix, no GL.

Two modes (E switches). **Move and turn**: three handles move the node along an axis,
three squares move it in a plane (`axes.py`), three rings turn it about an axis
(`rings.py`). **Scale**: three box-tipped handles scale it along an axis and a centre
square scales it uniformly (`scale.py`). The axes are the world's or the node's own (X
switches; scale says where world axes cannot be exact). A drag is an object with
`apply(node, x, y, snap)`, which goes through one of the core's setters
(`world_position`, `world_rotation`, `local_scale`), so what it dirties glows; the
window (viewer/app_input.py) makes each drag one undo step, the overlay draws the
handles (viewer/overlay/gizmo_view.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .axes import (
    COLORS,
    GAP,
    HANDLE_PX,
    HIT_PX,
    PLANE_NAMES,
    PLANES,
    SNAP,
    AxisDrag,
    Handles,
    PlaneDrag,
    handles,
    hit,
    hit_plane,
    plane_squares,
    project,
)
from .rings import RING, RING_POINTS, SNAP_DEGREES, RingDrag, hit_ring, rings
from .scale import (
    CENTRE_PX,
    MIN_FACTOR,
    SNAP_FACTOR,
    ScaleDrag,
    ScaleHandles,
    hit_centre,
    own_axes_along_world,
    scale_handles,
)

__all__ = [
    "CENTRE_PX", "COLORS", "GAP", "HANDLE_PX", "HIT_PX", "MIN_FACTOR", "PLANES", "PLANE_NAMES",
    "RING", "RING_POINTS", "SNAP", "SNAP_DEGREES", "SNAP_FACTOR", "AxisDrag", "Grab", "Handles",
    "PlaneDrag", "RingDrag", "ScaleDrag", "ScaleHandles", "grab", "handles", "hit",
    "hit_centre", "hit_plane", "hit_ring", "own_axes_along_world", "plane_squares", "project",
    "rings", "scale_handles",
]  # fmt: skip


@dataclass(frozen=True)
class Grab:
    """What a press grabbed: the drag, and what it does in words (``{}`` stands for the
    node's name: the undo step's label)."""

    drag: AxisDrag | PlaneDrag | RingDrag | ScaleDrag
    what: str

    def label(self, name: str) -> str:
        return self.what.format(name)


def grab(node, view_proj: np.ndarray, size, local: bool, scale: bool, x: float, y: float):
    """The drag a press at (x, y) starts on the gizmo of ``node`` (a scene Node), or None
    when it misses every handle. ``scale`` picks the scale mode; ``local`` the node's own
    axes. Handles come first, then planes (or the centre square), then rings."""
    world = node.world_matrix
    if scale:
        sh = scale_handles(world, view_proj, size, local)
        if sh is None:
            return None
        names = "xyz" if sh.along_world else ("own x", "own y", "own z")
        axis = hit(sh.handles, x, y)
        if axis is not None:
            drag = ScaleDrag.begin(sh, axis, node.local_scale, x, y)
            return Grab(drag, f"scale {{}} along {names[axis]}")
        if hit_centre(sh.handles, x, y):
            return Grab(ScaleDrag.begin(sh, None, node.local_scale, x, y), "scale {} uniformly")
        return None
    h = handles(world, view_proj, size, local)
    if h is None:
        return None
    axis = hit(h, x, y)
    if axis is not None:
        return Grab(AxisDrag.begin(h, axis, world, x, y), f"move {{}} along {'xyz'[axis]}")
    plane = hit_plane(h, x, y)
    if plane is not None:
        return Grab(PlaneDrag.begin(h, plane, world, x, y), f"move {{}} in {PLANE_NAMES[plane]}")
    axis = hit_ring(h, x, y)
    if axis is not None:
        return Grab(
            RingDrag.begin(h, axis, node.world_rotation, x, y), f"turn {{}} about {'xyz'[axis]}"
        )
    return None
