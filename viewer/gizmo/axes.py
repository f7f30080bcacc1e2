"""The move handles: three along the axes, three small squares for the planes.

Pure maths on a view-projection matrix, no GL: where the handles are on screen
(`handles`), which one a press hits (`hit`, `hit_plane`), and where a drag puts the
node. Both drags keep the grabbed point under the cursor, as Blender's and three.js's
gizmos do, perspective included: `AxisDrag` moves the node along its axis to the point of
that line nearest the mouse's ray; `PlaneDrag` moves it within its plane to where the
mouse's ray meets that plane (where the ray misses, the node stays at its last place).
The axes are the
world's or the node's own (its world matrix's columns, normalised); a snap rounds each
distance to `SNAP`. Both move the node through the core's `world_position` setter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.scene.math import pixel_ray

#: Length of a handle on screen (`handle_px`): this many times the node's drawn radius
#: on screen (its rings then clear a compact node's outline), kept between
#: `HANDLE_MIN_SHARE` and `HANDLE_MAX_SHARE` of the view's height (a small node's gizmo
#: stays big enough to grab, a near one's never fills a small window) and never under
#: `HANDLE_MIN_PX` (grabbable in any window).
HANDLE_REACH = 2.0
HANDLE_MIN_SHARE, HANDLE_MAX_SHARE = 0.08, 0.16
HANDLE_MIN_PX = 48.0
#: The part of a handle next to the node that is not drawn (and not grabbed), as a
#: fraction of its length: the node's own centre stays in sight.
GAP = 0.2
#: A press this close to a handle (pixels) grabs it; on a small gizmo, at most this
#: share of a handle's length (a plane's square stays clear of its two handles).
HIT_PX = 8.0
HIT_SHARE = HIT_PX / 90.0
#: Half the side of the square around the node's centre, pixels: a press there grabs no
#: handle (a handle seen end-on passes there), and in scale mode it is the centre square
#: (uniform scale).
CENTRE_PX = 7.0
#: Radius of a handle's round tip (or half the side of its box), pixels; under the mouse.
TIP_PX, TIP_LIT_PX = 5.0, 6.5
#: World distance a snapped drag moves by.
SNAP = 0.25
#: The handles' colours (x, y, z): the world axes' tripod colours.
COLORS = ((0.93, 0.35, 0.55), (0.45, 0.85, 0.35), (0.35, 0.55, 0.95))


def handle_px(radius_px: float, height: float) -> float:
    """The length of a handle on screen, pixels, for a node drawn `radius_px` pixels
    wide (its bounding sphere's radius on screen) in a view `height` pixels high: the one
    place the gizmo's size is decided, for drawing and picking alike."""
    low = max(HANDLE_MIN_PX, HANDLE_MIN_SHARE * height)
    high = max(low, HANDLE_MAX_SHARE * height)
    return min(max(HANDLE_REACH * radius_px, low), high)


def hit_px(h: Handles) -> float:
    """How near a press must come to a handle or a ring to grab it, pixels."""
    return min(HIT_PX, HIT_SHARE * h.px)


def project(view_proj: np.ndarray, points: np.ndarray, size) -> np.ndarray:
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
    px: float  # its length on screen, pixels (`handle_px`)
    view_proj: np.ndarray  # (4, 4): the camera they were placed with
    size: tuple[float, float]  # the window they were placed in, pixels


def handles(
    world: np.ndarray, view_proj: np.ndarray, size, local: bool, radius: float
) -> Handles | None:
    """The handles of a node at ``world`` drawn ``radius`` world units wide (its bounding
    sphere; 0 for a node that draws nothing), sized by `handle_px`; None when it is behind
    the camera or its axes are degenerate."""
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
    unit = project(view_proj, np.vstack([origin, origin + np.eye(3)]), size)
    px_per_unit = float(np.linalg.norm(unit[1:] - unit[0], axis=1).max())
    if not px_per_unit > 1e-9:
        return None
    px = handle_px(radius * px_per_unit, float(size[1]))
    length = px / px_per_unit
    pts = project(view_proj, np.vstack([origin, origin + axes * length]), size)
    return Handles(
        pts[0],
        pts[1:],
        axes,
        length,
        px,
        np.asarray(view_proj, dtype=np.float64),
        (float(size[0]), float(size[1])),
    )


def _along_line(h: Handles, point: np.ndarray, direction: np.ndarray, x: float, y: float):
    """The parameter t of the point ``point + t * direction`` nearest the mouse's ray at
    (x, y); None when the line runs (nearly) along the ray."""
    origin, ray = pixel_ray(h.view_proj, h.size, x, y)
    b = float(direction @ ray)
    denominator = 1.0 - b * b
    if denominator < 1e-9:
        return None
    w = point - origin
    return float((b * (ray @ w) - direction @ w) / denominator)


def _on_plane(h: Handles, point: np.ndarray, normal: np.ndarray, x: float, y: float):
    """Where the mouse's ray at (x, y) meets the plane through ``point`` with
    ``normal``; None when it runs along the plane or meets it behind the camera."""
    origin, ray = pixel_ray(h.view_proj, h.size, x, y)
    facing = float(ray @ normal)
    if abs(facing) < 1e-9:
        return None
    t = float((point - origin) @ normal) / facing
    return origin + t * ray if t > 0 else None


def hit(h: Handles, x: float, y: float) -> int | None:
    """The axis (0, 1, 2) whose handle passes within `hit_px` of (x, y), nearest first;
    None around the centre (`CENTRE_PX`)."""
    p = np.array([x, y])
    if (np.abs(p - h.origin) <= CENTRE_PX).all():
        return None
    best, best_d = None, hit_px(h)
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
    handles: Handles  # the gizmo as the drag began (its camera and window)
    direction: np.ndarray  # the axis, world space, unit
    grabbed: float  # where on the axis line the press was (its parameter)
    last: float = 0.0  # the last distance the mouse gave (kept where the ray is useless)

    @classmethod
    def begin(cls, h: Handles, axis: int, world: np.ndarray, x: float, y: float) -> AxisDrag:
        start = np.asarray(world, dtype=np.float64)[:3, 3].copy()
        direction = h.axes[axis].copy()
        grabbed = _along_line(h, start, direction, x, y)
        return cls(axis, start, h, direction, 0.0 if grabbed is None else grabbed)

    def distance(self, x: float, y: float, snap: bool = False) -> float:
        """World distance along the axis that keeps the grabbed point under (x, y)."""
        t = _along_line(self.handles, self.start_position, self.direction, x, y)
        if t is not None:
            self.last = t - self.grabbed
        return round(self.last / SNAP) * SNAP if snap else self.last

    def position(self, x: float, y: float, snap: bool = False) -> np.ndarray:
        """The node's new world position for the mouse at (x, y)."""
        return self.start_position + self.direction * self.distance(x, y, snap)

    def apply(self, node, x: float, y: float, snap: bool = False) -> None:
        """Move ``node`` (a scene Node) there, through its `world_position` setter."""
        node.world_position = self.position(x, y, snap)


# -- the plane squares ------------------------------------------------------------------
#: The planes' axis pairs (xy, yz, zx) and names.
PLANES = ((0, 1), (1, 2), (2, 0))
PLANE_NAMES = ("xy", "yz", "zx")
#: A plane's square spans this part of both handles' lengths: off the handles (grabbed
#: apart from them) and inside the rings.
PLANE_NEAR, PLANE_FAR = 0.22, 0.4
#: A plane seen this nearly edge-on (sine of the angle between its handles on screen)
#: shows no square: a drag in it would be ill-defined.
PLANE_MIN_SINE = 0.2


def _plane_basis(h: Handles, k: int) -> np.ndarray | None:
    """The screen vectors of plane ``k``'s two handles as columns (2, 2); None when the
    plane is seen nearly edge-on."""
    i, j = PLANES[k]
    basis = np.stack([h.tips[i] - h.origin, h.tips[j] - h.origin], axis=1)
    norms = np.linalg.norm(basis, axis=0)
    if not (norms > 1e-9).all():
        return None
    if abs(np.linalg.det(basis)) / (norms[0] * norms[1]) < PLANE_MIN_SINE:
        return None
    return basis


def plane_squares(h: Handles) -> list[np.ndarray | None]:
    """Each plane's square on screen: its four corners (4, 2) pixels, or None when the
    plane is seen nearly edge-on (then it is neither drawn nor grabbed)."""
    out: list[np.ndarray | None] = []
    corners = np.array(
        [
            [PLANE_NEAR, PLANE_NEAR],
            [PLANE_FAR, PLANE_NEAR],
            [PLANE_FAR, PLANE_FAR],
            [PLANE_NEAR, PLANE_FAR],
        ]
    )
    for k in range(3):
        basis = _plane_basis(h, k)
        out.append(None if basis is None else h.origin + corners @ basis.T)
    return out


def hit_plane(h: Handles, x: float, y: float) -> int | None:
    """The plane (0: xy, 1: yz, 2: zx) whose square contains (x, y); of overlapping
    squares, the one whose centre is nearest."""
    p = np.array([x, y]) - h.origin
    best, best_d = None, np.inf
    for k in range(3):
        basis = _plane_basis(h, k)
        if basis is None:
            continue
        a, b = np.linalg.solve(basis, p)
        if PLANE_NEAR <= a <= PLANE_FAR and PLANE_NEAR <= b <= PLANE_FAR:
            d = abs(a - 0.5 * (PLANE_NEAR + PLANE_FAR)) + abs(b - 0.5 * (PLANE_NEAR + PLANE_FAR))
            if d < best_d:
                best, best_d = k, d
    return best


@dataclass
class PlaneDrag:
    """One drag of one plane square: the mouse's travel in the two handles' screen
    directions becomes world distances along their two axes."""

    plane: int
    start_position: np.ndarray  # the node's world position when the drag began
    handles: Handles  # the gizmo as the drag began (its camera and window)
    directions: np.ndarray  # (2, 3): the two axes, world space, unit
    grabbed: np.ndarray  # where the press met the plane (world)
    last: np.ndarray  # the last distances the mouse gave (kept where the ray misses)

    @classmethod
    def begin(cls, h: Handles, plane: int, world: np.ndarray, x: float, y: float) -> PlaneDrag:
        if _plane_basis(h, plane) is None:
            raise ValueError("that plane is seen edge-on")
        start = np.asarray(world, dtype=np.float64)[:3, 3].copy()
        directions = h.axes[list(PLANES[plane])].copy()
        grabbed = _on_plane(h, start, np.cross(*directions), x, y)
        return cls(plane, start, h, directions, start if grabbed is None else grabbed, np.zeros(2))

    def distances(self, x: float, y: float, snap: bool = False) -> np.ndarray:
        """World distances along the plane's two axes that keep the grabbed point under
        (x, y). The own axes may be oblique (a sheared parent): solved, not projected."""
        hit = _on_plane(self.handles, self.start_position, np.cross(*self.directions), x, y)
        if hit is not None:
            d = self.directions
            self.last = np.linalg.lstsq(d.T, hit - self.grabbed, rcond=None)[0]
        return np.round(self.last / SNAP) * SNAP if snap else self.last.copy()

    def position(self, x: float, y: float, snap: bool = False) -> np.ndarray:
        """The node's new world position: the start one moved within the plane."""
        return self.start_position + self.distances(x, y, snap) @ self.directions

    def apply(self, node, x: float, y: float, snap: bool = False) -> None:
        """Move ``node`` there, through its `world_position` setter."""
        node.world_position = self.position(x, y, snap)
