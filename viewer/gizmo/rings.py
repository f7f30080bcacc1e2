"""The rotate rings: one per axis, around the node, in the plane across that axis.

A ring (`rings`, `hit_ring`, `RingDrag`) turns the node about its axis through its
centre by the mouse's angle around the node (snapped to `SNAP_DEGREES`), through the
core's `world_rotation` setter. Pure maths on the move handles' projection, no GL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.scene.math import quat_from_axis_angle, quat_multiply

from .axes import CENTRE_PX, GAP, TIP_LIT_PX, Handles, hit_px, plane_squares

#: Radius of a ring, as a fraction of a handle's length; points drawn per ring.
RING = 0.7
RING_POINTS = 48
#: Half the width of a ring's or a square's line where it is drawn thickest (under the
#: mouse), and of a handle's, pixels.
LINE_PX, HANDLE_LINE_PX = 2.0, 2.5
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


#: Points along what the gizmo draws, [n, 2] pixels, and how far each reaches, [n] pixels.
Outline = tuple[np.ndarray, np.ndarray]
#: Spacing of the points `outline` puts along a line, pixels (a name is 13 or more high).
OUTLINE_STEP_PX = 3.0


def _along(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Points from `a` to `b` (both ends) at most `OUTLINE_STEP_PX` apart."""
    n = max(int(np.ceil(np.linalg.norm(b - a) / OUTLINE_STEP_PX)), 1)
    t = np.linspace(0.0, 1.0, n + 1)[:, None]
    return np.asarray(a + t * (b - a), dtype=np.float64)


def _closed(corners: np.ndarray) -> list[np.ndarray]:
    return [_along(a, b) for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True)]


def outline(h: Handles, scale: bool) -> Outline:
    """What the gizmo draws on screen as points a few pixels apart, each with the distance
    its stroke reaches: the handles (their lines and tips, `TIP_LIT_PX`), in scale mode the
    centre square, else the plane squares (edges and inside) and the rings (`LINE_PX`).
    Names keep off it (viewer/overlay/labels.py)."""
    parts: list[tuple[np.ndarray, float]] = [(h.tips, TIP_LIT_PX)]
    for tip in h.tips:
        parts.append((_along(h.origin + GAP * (tip - h.origin), tip), HANDLE_LINE_PX))
    if scale:
        c = CENTRE_PX
        square = h.origin + np.array([[-c, -c], [c, -c], [c, c], [-c, c]])
        parts += [(edge, LINE_PX) for edge in _closed(square)]
        parts.append((h.origin[None, :], CENTRE_PX))
    else:
        for square in plane_squares(h):
            if square is not None:
                parts += [(edge, LINE_PX) for edge in _closed(square)]
                middle = _along(0.5 * (square[0] + square[1]), 0.5 * (square[2] + square[3]))
                parts.append((middle, LINE_PX))
        for ring in rings(h):
            parts += [(edge, LINE_PX) for edge in _closed(ring)]
    points = np.vstack([pts for pts, _ in parts])
    reach = np.concatenate([np.full(len(pts), pad) for pts, pad in parts])
    return points, reach


def extent(h: Handles, scale: bool) -> tuple[float, float, float, float]:
    """The rectangle the gizmo covers on screen, (left, right, top, bottom) pixels: its
    `outline` with each stroke's reach."""
    points, reach = outline(h, scale)
    low = (points - reach[:, None]).min(axis=0)
    high = (points + reach[:, None]).max(axis=0)
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
