"""The gizmo on the selected node: pure maths on a view-projection matrix, no GL.

Two modes (E switches). **Move and turn**: three handles move the node along an axis,
three squares move it in a plane (`axes.py`), three rings turn it about an axis
(`rings.py`). **Scale**: three box-tipped handles scale it along an axis and a centre
square scales it uniformly (`scale.py`). The axes are the world's or the node's own (X
switches; scale says where world axes cannot be exact). A drag is an object with
`apply(node, x, y, snap)`, which goes through one of the core's setters
(`world_position`, `world_rotation`, `local_scale`), so what it dirties glows; the
window's input (viewer/window/input.py) hands each drag to the editing room
(viewer/session/edits.py), which makes it one undo step; the overlay draws the handles
(viewer/overlay/gizmo_view.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from viewer.scene import Node

from .axes import (
    COLORS,
    GAP,
    HANDLE_MAX_SHARE,
    HANDLE_MIN_PX,
    HANDLE_MIN_SHARE,
    HANDLE_REACH,
    HIT_PX,
    PLANE_NAMES,
    PLANES,
    SNAP,
    TIP_LIT_PX,
    TIP_PX,
    AxisDrag,
    Handles,
    PlaneDrag,
    handle_px,
    handles,
    hit,
    hit_plane,
    plane_squares,
    project,
)
from .rings import (
    RING,
    RING_POINTS,
    SNAP_DEGREES,
    Outline,
    RingDrag,
    extent,
    hit_ring,
    outline,
    rings,
)
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
    "CENTRE_PX",
    "COLORS",
    "GAP",
    "HANDLE_MAX_SHARE",
    "HANDLE_MIN_PX",
    "HANDLE_MIN_SHARE",
    "HANDLE_REACH",
    "HIT_PX",
    "MIN_FACTOR",
    "PLANES",
    "PLANE_NAMES",
    "RING",
    "RING_POINTS",
    "SNAP",
    "SNAP_DEGREES",
    "SNAP_FACTOR",
    "TIP_LIT_PX",
    "TIP_PX",
    "AxisDrag",
    "Grab",
    "Handles",
    "NodeShapes",
    "Outline",
    "PlaneDrag",
    "RingDrag",
    "ScaleDrag",
    "ScaleHandles",
    "extent",
    "grab",
    "handle_px",
    "handles",
    "node_radius",
    "hit",
    "pick",
    "hit_centre",
    "hit_plane",
    "hit_ring",
    "outline",
    "own_axes_along_world",
    "plane_squares",
    "project",
    "rings",
    "scale_handles",
]


class NodeShapes(Protocol):
    """The scene's shapes as drawn (`viewer.render.scene_bounds.SceneBounds`)."""

    def label_spheres(
        self, ids: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...


def node_radius(shapes: NodeShapes, node_id: int) -> float:
    """The radius of node `node_id`'s bounding sphere as drawn (world units), which sizes
    its gizmo (`handle_px`): the view and the press both ask here."""
    return float(shapes.label_spheres(np.array([node_id], dtype=np.int64))[1][0])


@dataclass(frozen=True)
class Grab:
    """What a press grabbed: the drag, and what it does in words (``{}`` stands for the
    node's name: the undo step's label)."""

    drag: AxisDrag | PlaneDrag | RingDrag | ScaleDrag
    what: str

    def label(self, name: str) -> str:
        return self.what.format(name)


def pick(h: Handles, scale: bool, x: float, y: float) -> tuple[str, int | None] | None:
    """The part of the gizmo under (x, y): ("axis", k), ("plane", k), ("ring", k) or
    ("centre", None) in scale mode; None when it misses. Handles come first, then the
    planes (or the centre square), then the rings: what a press grabs and what the view
    highlights under the mouse."""
    axis = hit(h, x, y)
    if axis is not None:
        return "axis", axis
    if scale:
        return ("centre", None) if hit_centre(h, x, y) else None
    plane = hit_plane(h, x, y)
    if plane is not None:
        return "plane", plane
    axis = hit_ring(h, x, y)
    return None if axis is None else ("ring", axis)


def grab(
    node: Node,
    view_proj: np.ndarray,
    size,
    radius: float,
    local: bool,
    scale: bool,
    x: float,
    y: float,
) -> Grab | None:
    """The drag a press at (x, y) starts on the gizmo of ``node`` (drawn ``radius`` wide:
    `node_radius`), or None when it misses every part (`pick`). ``scale`` picks the scale
    mode; ``local`` the node's own axes."""
    world = node.world_matrix
    if scale:
        sh = scale_handles(world, view_proj, size, local, radius)
        if sh is None:
            return None
        picked = pick(sh.handles, True, x, y)
        if picked is None:
            return None
        k = picked[1]
        drag = ScaleDrag.begin(sh, k, node.local_scale, x, y)
        if k is None:
            return Grab(drag, "scale {} uniformly")
        names = "xyz" if sh.along_world else ("own x", "own y", "own z")
        return Grab(drag, f"scale {{}} along {names[k]}")
    h = handles(world, view_proj, size, local, radius)
    if h is None:
        return None
    picked = pick(h, False, x, y)
    if picked is None:
        return None
    kind, k = picked
    if k is None:  # ("centre", None): the scale mode's part only
        return None
    if kind == "axis":
        return Grab(AxisDrag.begin(h, k, world, x, y), f"move {{}} along {'xyz'[k]}")
    if kind == "plane":
        return Grab(PlaneDrag.begin(h, k, world, x, y), f"move {{}} in {PLANE_NAMES[k]}")
    rotation = node.world_rotation
    return Grab(RingDrag.begin(h, k, rotation, x, y), f"turn {{}} about {'xyz'[k]}")
