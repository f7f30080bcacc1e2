"""The gizmo: three axis handles and three rotate rings on the selected node.

Pure maths on a view-projection matrix, no GL: where the handles are on screen
(`handles`), which one a click hits (`hit`), and where a drag puts the node
(`AxisDrag`): the mouse's travel along the handle's screen direction becomes a world
distance along that axis, so the node moves along that axis only. The axes are the
world's or the node's own (its world matrix's columns, normalised); a snap rounds the
distance to `SNAP`. The window (viewer/app_input.py) turns the drag into the core's
`world_position` setter, one undo step per drag, and the overlay draws the handles.
A ring (`rings`, `hit_ring`, `RingDrag`) turns the node about its axis through its
centre by the mouse's angle around the node (snapped to `SNAP_DEGREES`), through the
`world_rotation` setter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.scene.math import quat_from_axis_angle, quat_multiply

#: Length of a handle on screen, pixels.
HANDLE_PX = 90.0
#: The part of a handle next to the node that is not drawn (and not grabbed), as a
#: fraction of its length: the node's own centre stays in sight.
GAP = 0.2
#: A press this close to a handle (pixels) grabs it.
HIT_PX = 8.0
#: World distance a snapped drag moves by.
SNAP = 0.25
#: The handles' colours (x, y, z): the world axes' tripod colours.
COLORS = ((0.93, 0.35, 0.55), (0.45, 0.85, 0.35), (0.35, 0.55, 0.95))


def _project(view_proj: np.ndarray, points: np.ndarray, size) -> np.ndarray:
    """Window pixel (x, y) of world points [n, 3] (top-left origin)."""
    clip = np.hstack([points, np.ones((len(points), 1))]) @ view_proj.T
    w = np.where(np.abs(clip[:, 3:4]) < 1e-12, 1e-12, clip[:, 3:4])
    ndc = clip[:, :2] / w
    return np.stack([(ndc[:, 0] + 1) * 0.5 * size[0], (1 - ndc[:, 1]) * 0.5 * size[1]], axis=1)


@dataclass(frozen=True)
class Handles:
    """The gizmo on screen: its origin and tips (pixels), axes (world, unit), length."""

    origin: np.ndarray  # (2,)
    tips: np.ndarray  # (3, 2)
    axes: np.ndarray  # (3, 3): row k is axis k in world space
    length: float  # world length of a handle


def handles(world: np.ndarray, view_proj: np.ndarray, size, local: bool) -> Handles | None:
    """The handles of a node at ``world``; None when it is behind the camera or its
    axes are degenerate."""
    origin = np.asarray(world, dtype=np.float64)[:3, 3]
    axes = np.eye(3)
    if local:
        cols = np.asarray(world, dtype=np.float64)[:3, :3].T.copy()
        norms = np.linalg.norm(cols, axis=1)
        if (norms < 1e-12).any():
            return None
        axes = cols / norms[:, None]
    clip_w = np.append(origin, 1.0) @ view_proj[3]
    if clip_w <= 1e-9:
        return None
    unit = _project(view_proj, np.vstack([origin, origin + np.eye(3)]), size)
    px_per_unit = float(np.linalg.norm(unit[1:] - unit[0], axis=1).max())
    if not px_per_unit > 1e-9:
        return None
    length = HANDLE_PX / px_per_unit
    pts = _project(view_proj, np.vstack([origin, origin + axes * length]), size)
    return Handles(pts[0], pts[1:], axes, length)


def hit(h: Handles, x: float, y: float) -> int | None:
    """The axis (0, 1, 2) whose handle passes within `HIT_PX` of (x, y), nearest first."""
    p = np.array([x, y])
    best, best_d = None, HIT_PX
    for k in range(3):
        a, b = h.origin + GAP * (h.tips[k] - h.origin), h.tips[k]
        ab = b - a
        t = 0.0 if not ab @ ab > 0 else float(np.clip((p - a) @ ab / (ab @ ab), 0.0, 1.0))
        d = float(np.linalg.norm(p - (a + t * ab)))
        if d <= best_d:
            best, best_d = k, d
    return best


@dataclass
class AxisDrag:
    """One drag of one handle: where the node was, and how the mouse maps to distance."""

    axis: int
    start_position: np.ndarray  # the node's world position when the drag began
    start_mouse: np.ndarray  # (x, y)
    screen: np.ndarray  # the handle's screen vector (tip - origin)
    direction: np.ndarray  # the axis, world space, unit
    length: float  # world length of the handle

    @classmethod
    def begin(cls, h: Handles, axis: int, world: np.ndarray, x: float, y: float) -> AxisDrag:
        return cls(axis, np.asarray(world, dtype=np.float64)[:3, 3].copy(), np.array([x, y]),
                   h.tips[axis] - h.origin, h.axes[axis].copy(), h.length)  # fmt: skip

    def distance(self, x: float, y: float, snap: bool = False) -> float:
        """World distance along the axis for the mouse at (x, y)."""
        s = self.screen
        along = float((np.array([x, y]) - self.start_mouse) @ s / max(float(s @ s), 1e-9))
        t = along * self.length
        return round(t / SNAP) * SNAP if snap else t

    def position(self, x: float, y: float, snap: bool = False) -> np.ndarray:
        """The node's new world position for the mouse at (x, y)."""
        return self.start_position + self.direction * self.distance(x, y, snap)


# -- the rotate rings -------------------------------------------------------------------
#: Radius of a ring, as a fraction of a handle's length; points drawn per ring.
RING = 0.7
RING_POINTS = 48
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


def hit_ring(h: Handles, x: float, y: float) -> int | None:
    """The ring (axis 0, 1, 2) passing within `HIT_PX` of (x, y), nearest first."""
    p = np.array([x, y])
    best, best_d = None, HIT_PX
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
        return cls(axis, h.axes[axis].copy(), np.asarray(rotation, dtype=np.float64).copy(),
                   h.origin.copy(), float(np.arctan2(-d[1], d[0])), sign)  # fmt: skip

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
