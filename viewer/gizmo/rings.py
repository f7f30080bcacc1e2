"""The rotate rings: one per axis, around the node, in the plane across that axis.

A ring (`rings`, `hit_ring`, `RingDrag`) turns the node about its axis through its
centre by the mouse's angle around the node (snapped to `SNAP_DEGREES`), through the
core's `world_rotation` setter. Pure maths on the move handles' projection, no GL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.scene.math import quat_from_axis_angle, quat_multiply

from .axes import CENTRE_PX, TIP_LIT_PX, Handles, hit_px

#: Radius of a ring, as a fraction of a handle's length; points drawn per ring.
RING = 0.7
RING_POINTS = 48
#: Half the width of a ring's line where it is drawn thickest (under the mouse), pixels.
LINE_PX = 2.0
#: Degrees a snapped turn moves by.
SNAP_DEGREES = 15.0


def rings(h: Handles) -> np.ndarray:
    """The three rotate rings on screen, ``(3, RING_POINTS, 2)`` pixels: ring k lies in
    the plane across axis k, around the node, `RING` handle lengths wide. Made from the
    handles' own projection (the tips give the screen image of each axis), so a ring is
    the ellipse the circle projects to, to first order."""
    out = np.empty((3, RING_POINTS, 2))
    a = np.linspace(0.0, 2.0 * np.pi, RING_POINTS, endpoint=False)
    for k in range(3):
        u, v = h.tips[(k + 1) % 3] - h.origin, h.tips[(k + 2) % 3] - h.origin
        out[k] = h.origin + RING * (np.cos(a)[:, None] * u + np.sin(a)[:, None] * v)
    return out


def extent(h: Handles, scale: bool) -> tuple[float, float, float, float]:
    """The rectangle the gizmo covers on screen, (left, right, top, bottom) pixels: its
    handles with their tips (`TIP_LIT_PX`, the larger dot or box), in scale mode the
    centre square, else the rings (`LINE_PX` wide at most). Names keep off it
    (viewer/overlay/labels.py)."""
    boxes = [(h.tips, TIP_LIT_PX)]
    if scale:
        boxes.append((h.origin[None, :], CENTRE_PX))
    else:
        boxes.append((rings(h).reshape(-1, 2), LINE_PX))
    low = np.min([pts.min(axis=0) - pad for pts, pad in boxes], axis=0)
    high = np.max([pts.max(axis=0) + pad for pts, pad in boxes], axis=0)
    return float(low[0]), float(high[0]), float(low[1]), float(high[1])


def hit_ring(h: Handles, x: float, y: float) -> int | None:
    """The ring (axis 0, 1, 2) passing within `hit_px` of (x, y), nearest first."""
    p = np.array([x, y])
    best, best_d = None, hit_px(h)
    for k, ring in enumerate(rings(h)):
        a, b = ring, np.roll(ring, -1, axis=0)
        ab = b - a
        t = np.clip(((p - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-12), 0.0, 1.0)
        d = float(np.linalg.norm(a + t[:, None] * ab - p, axis=1).min())
        if d <= best_d:
            best, best_d = k, d
    return best


@dataclass
class RingDrag:
    """One drag of one ring: the turn follows the mouse's angle around the node."""

    axis: int
    direction: np.ndarray  # the axis, world space, unit
    start_rotation: np.ndarray  # the node's world rotation (x, y, z, w) when it began
    centre: np.ndarray  # the node on screen
    start_angle: float
    sign: float  # +1 when the ring is seen turning counter-clockwise on screen

    @classmethod
    def begin(cls, h: Handles, axis: int, rotation, x: float, y: float) -> RingDrag:
        u, v = h.tips[(axis + 1) % 3] - h.origin, h.tips[(axis + 2) % 3] - h.origin
        # Screen y points down: u x v < 0 means the ring runs counter-clockwise as seen.
        sign = -1.0 if u[0] * v[1] - u[1] * v[0] > 0 else 1.0
        d = np.array([x, y]) - h.origin
        return cls(
            axis,
            h.axes[axis].copy(),
            np.asarray(rotation, dtype=np.float64).copy(),
            h.origin.copy(),
            float(np.arctan2(-d[1], d[0])),
            sign,
        )

    def degrees(self, x: float, y: float, snap: bool = False) -> float:
        """The turn, degrees about the axis, for the mouse at (x, y)."""
        d = np.array([x, y]) - self.centre
        turn = np.degrees(float(np.arctan2(-d[1], d[0])) - self.start_angle)
        turn = (turn + 180.0) % 360.0 - 180.0
        turn *= self.sign
        return round(turn / SNAP_DEGREES) * SNAP_DEGREES if snap else turn

    def rotation(self, x: float, y: float, snap: bool = False) -> np.ndarray:
        """The node's new world rotation: the start one turned about the axis."""
        turn = quat_from_axis_angle(self.direction, self.degrees(x, y, snap))
        q = quat_multiply(turn, self.start_rotation)
        return q / np.linalg.norm(q)

    def apply(self, node, x: float, y: float, snap: bool = False) -> None:
        """Turn ``node`` (a scene Node) so, through its `world_rotation` setter."""
        node.world_rotation = self.rotation(x, y, snap)
