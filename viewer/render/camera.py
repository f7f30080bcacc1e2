"""An orbit camera and the rays for picking, in plain numpy (no GL).

Conventions match the core: column vectors, `p_clip = P @ V @ [x, y, z, 1]`, Y up. The
matrices come from pyrr, turned into that convention by `viewer.scene.math.from_pyrr`.
Pixel coordinates have their origin at the top-left corner of the image, x to the right,
y down, as window mouse events report them; pixel (i, j) covers [i, i+1) x [j, j+1).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from pyrr import matrix44

from viewer.scene.math import from_pyrr, pixel_ray

from .file_view import FileView

PERSPECTIVE = "perspective"
ORTHOGRAPHIC = "orthographic"
#: `frame` leaves this much room around what it frames (2 % of the distance).
FRAME_MARGIN = 1.02
#: The near plane lies at most this share of the distance in front of the eye.
NEAR_SHARE = 0.05
#: `look_at`'s stand-in for the up vector when the view runs along +Y or -Y.
FALLBACK_UP = (0.0, 0.0, -1.0)


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """The view matrix, [4, 4]: world to camera space (camera looks down its -Z)."""
    points = (np.asarray(v, dtype=np.float64).reshape(3) for v in (eye, target, up))
    return _look_at(tuple(float(x) for v in points for x in v)).copy()


@functools.lru_cache(maxsize=8)
def _look_at(numbers: tuple[float, ...]) -> np.ndarray:
    """`look_at` of (eye, target, up) given as 9 numbers, kept for the next calls: a
    frame asks for the same view several times (about 70 us each through pyrr)."""
    eye, target, up = (np.array(numbers[k : k + 3]) for k in (0, 3, 6))
    if np.linalg.norm(np.cross(target - eye, up)) < 1e-9 * np.linalg.norm(target - eye):
        up = np.asarray(FALLBACK_UP)  # looking straight along `up`: no side vector
    return from_pyrr(matrix44.create_look_at(eye, target, up))


def frustum(
    projection: str, half_height: float, aspect: float, near: float, far: float, shift_x: float
) -> np.ndarray:
    """OpenGL projection matrix, [4, 4], whose picture is moved right by `shift_x` of its
    width: an off-centre frustum (or box), the same as translating NDC x by `2 * shift_x`.

    `half_height` is half the visible height at the near plane (perspective) or of the
    whole view (orthographic).
    """
    half_width = half_height * aspect
    left, right = -half_width * (1.0 + 2.0 * shift_x), half_width * (1.0 - 2.0 * shift_x)
    box = (left, right, -half_height, half_height, near, far)
    if projection == ORTHOGRAPHIC:
        return from_pyrr(matrix44.create_orthogonal_projection(*box))
    return from_pyrr(matrix44.create_perspective_projection_from_bounds(*box))


@dataclass
class Camera:
    """Orbit camera: a target point, a distance, and yaw/pitch angles in degrees.

    The eye sits at `target + distance * (cos p sin y, sin p, cos p cos y)`. In the
    orthographic projection the visible height follows the distance
    (`2 * distance * tan(fov / 2)`), so zoom and framing work the same in both.
    """

    target: np.ndarray = field(default_factory=lambda: np.zeros(3))
    distance: float = 10.0
    yaw: float = 30.0
    pitch: float = 25.0
    fov: float = 45.0
    projection: str = PERSPECTIVE
    #: Radius of what must stay inside the depth range (scene plus grid).
    extent: float = 10.0
    #: Fraction of the image width by which the picture's centre moves right: the
    #: overlay's panels cover the sides of the image, and the scene is centred between.
    shift_x: float = 0.0
    #: Width / height of the part of the image the scene is framed in: `frame` fits the
    #: sphere across it too when it is narrower than it is tall.
    frame_aspect: float = 1.0
    _home: tuple | None = field(default=None, repr=False)
    #: Looking through a camera of the file (a `file_view.FileView`), or None: orbiting.
    #: The view, projection, eye and pixel sizes are then that camera's; an orbit, pan,
    #: zoom or F leaves it, orbiting on from where it looked.
    through: FileView | None = None
    _orbit_projection: str = field(default=PERSPECTIVE, repr=False)

    # -- placement ---------------------------------------------------------------------
    def look_through(self, view: FileView | None) -> None:
        """Look through a file camera (`file_view.FileView`); None: back to orbiting, from
        where the file camera stood."""
        if view is None:
            self.leave_view()
            return
        if self.through is None:
            self._orbit_projection = self.projection
        self.through = view
        self.projection = view.camera.projection

    def leave_view(self) -> None:
        """Orbit on from the file camera's place and direction (nothing if orbiting)."""
        view = self.through
        if view is None:
            return
        self.through = None
        self.projection = self._orbit_projection
        eye = view.eye
        self.look_from(eye, eye + view.forward * max(self.distance, 1e-9))

    @property
    def eye(self) -> np.ndarray:
        """Camera position in world space, [3]."""
        if self.through is not None:
            return self.through.eye
        y, p = math.radians(self.yaw), math.radians(self.pitch)
        offset = np.array([math.cos(p) * math.sin(y), math.sin(p), math.cos(p) * math.cos(y)])
        return np.asarray(self.target, dtype=np.float64) + self.distance * offset

    @property
    def forward(self) -> np.ndarray:
        """Unit viewing direction in world space, [3]."""
        if self.through is not None:
            return self.through.forward
        d = np.asarray(self.target, dtype=np.float64) - self.eye
        return d / np.linalg.norm(d)

    @property
    def ortho_height(self) -> float:
        return 2.0 * self.distance * math.tan(math.radians(self.fov) / 2.0)

    def look_from(self, position, target) -> None:
        """Place the eye at `position` looking at `target`."""
        target = np.asarray(target, dtype=np.float64)
        offset = np.asarray(position, dtype=np.float64) - target
        dist = float(np.linalg.norm(offset))
        if dist < 1e-9:
            raise ValueError(f"camera position {position!r} equals its target")
        self.target = target
        self.distance = dist
        self.pitch = math.degrees(math.asin(max(-1.0, min(1.0, offset[1] / dist))))
        self.yaw = math.degrees(math.atan2(offset[0], offset[2]))

    def frame(self, center, radius: float) -> None:
        """Aim at a sphere (`center`, `radius`) so that it fills the framing region (the
        image's height, `frame_aspect` times that wide) with a margin, at any scale."""
        self.leave_view()
        radius = max(float(radius), 1e-12)
        self.target = np.asarray(center, dtype=np.float64).copy()
        half = math.radians(self.fov) / 2.0
        if self.frame_aspect < 1.0:  # narrow: the horizontal field of view binds
            half = math.atan(max(self.frame_aspect, 0.05) * math.tan(half))
        self.distance = FRAME_MARGIN * radius / math.sin(half)
        self.extent = max(self.extent, radius)

    def fit_distance(self, points=None, *, support=None) -> float:
        """The least eye distance, looking from the current direction at the current
        target, at which every world point [n, 3] lies inside the framing region (with
        `frame`'s margin) and in front of the near plane. Instead of `points`, their
        `support`: a function of directions [m, 3] giving the largest d . p over them [m]
        (`SceneBounds.support`, which boxes answer without making their corners)."""
        if support is None:
            pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
            support = lambda d: (pts @ d.T).max(axis=0, initial=-np.inf)  # noqa: E731
        # Camera axes: right, up, and back towards the eye; the depth is distance - back.
        # Every bound is the largest of a few linear functions of a point (back plus or
        # minus a share of right or up): the largest of each over the points is a support.
        right, up, back = self.view_matrix()[:3, :3]
        tan_y = math.tan(math.radians(self.fov) / 2.0)
        tan_x = max(self.frame_aspect, 0.05) * tan_y
        sides = [
            s * FRAME_MARGIN * axis
            for axis, t in ((right, tan_x), (up, tan_y))
            for s in (1.0 / t, -1.0 / t)
        ]
        if self.projection != ORTHOGRAPHIC:
            sides = [back + side for side in sides]
        in_front = back / (1.0 - NEAR_SHARE)  # the near plane lies at most that far out
        directions = np.array([*sides, in_front])
        need = np.asarray(support(directions)) - directions @ self.target
        return float(max(need.max(), 0.0))

    def set_home(self) -> None:
        """Remember the current placement for `reset()` (the Home key)."""
        self._home = (self.target.copy(), self.distance, self.yaw, self.pitch, self.projection)

    def reset(self) -> None:
        self.leave_view()
        if self._home is not None:
            target, self.distance, self.yaw, self.pitch, self.projection = self._home
            self.target = target.copy()

    # -- interaction (pixel deltas as the window reports them) ---------------------------
    def orbit(self, dx: float, dy: float) -> None:
        self.leave_view()
        self.yaw -= 0.35 * dx
        self.pitch = max(-89.0, min(89.0, self.pitch + 0.35 * dy))

    def pan(self, dx: float, dy: float, viewport_height: int) -> None:
        self.leave_view()
        view = self.view_matrix()
        right, up = view[0, :3], view[1, :3]
        per_pixel = self.ortho_height / max(viewport_height, 1)
        self.target = self.target + per_pixel * (-dx * right + dy * up)

    def zoom(self, steps: float) -> None:
        """Positive steps move closer (one wheel notch = 10 %)."""
        self.leave_view()
        self.distance = max(1e-6 * self.extent, self.distance * 0.9 ** float(steps))

    def toggle_projection(self) -> None:
        self.leave_view()
        self.projection = ORTHOGRAPHIC if self.projection == PERSPECTIVE else PERSPECTIVE

    # -- matrices ------------------------------------------------------------------------
    def view_matrix(self) -> np.ndarray:
        if self.through is not None:
            return self.through.view_matrix()
        return look_at(self.eye, self.target)

    def clip_range(self) -> tuple[float, float]:
        far = self.distance + 4.0 * self.extent
        near = max(far * 1e-4, min(NEAR_SHARE * self.distance, 0.1))
        return near, far

    def projection_matrix(self, aspect: float) -> np.ndarray:
        """The projection for an image `aspect` = width / height wide, `shift_x` included."""
        if self.through is not None:
            near, far = self.through.clip_range()
            half = self.through.half_height()
            return frustum(self.projection, half, aspect, near, far, self.shift_x)
        near, far = self.clip_range()
        if self.projection == ORTHOGRAPHIC:
            half_height = self.ortho_height / 2.0
        else:
            half_height = near * math.tan(math.radians(self.fov) / 2.0)
        return frustum(self.projection, half_height, aspect, near, far, self.shift_x)

    def view_projection(self, size: tuple[int, int]) -> np.ndarray:
        """P @ V for an image of `size` = (width, height), [4, 4] float64.

        With `shift_x` the picture moves right by that fraction of its width (`project` and
        `ray` follow it too).
        """
        return self.projection_matrix(size[0] / max(size[1], 1)) @ self.view_matrix()

    def pixel_size(self, points, size: tuple[int, int]) -> np.ndarray:
        """World length one pixel covers at each of the world `points` [n, 3] -> [n]."""
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        if self.through is not None:
            return self.through.pixel_size((pts - self.eye) @ self.forward, size[1])
        if self.projection == ORTHOGRAPHIC:
            return np.full(len(pts), self.ortho_height / max(size[1], 1))
        depth = np.maximum((pts - self.eye) @ self.forward, 1e-6)
        return 2.0 * depth * math.tan(math.radians(self.fov) / 2.0) / max(size[1], 1)

    def project(self, points, size: tuple[int, int]) -> np.ndarray:
        """Pixel coordinates (x, y, depth) of world `points` [n, 3] -> [n, 3].

        x, y are continuous pixel coordinates (top-left origin); depth is NDC z in [-1, 1]
        for points between the clip planes.
        """
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        clip = np.hstack([pts, np.ones((len(pts), 1))]) @ self.view_projection(size).T
        ndc = clip[:, :3] / clip[:, 3:4]
        x = (ndc[:, 0] + 1.0) * 0.5 * size[0]
        y = (1.0 - ndc[:, 1]) * 0.5 * size[1]
        return np.stack([x, y, ndc[:, 2]], axis=1)

    def ray(self, x: float, y: float, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """World-space ray (origin [3], unit direction [3]) through pixel position (x, y)."""
        return pixel_ray(self.view_projection(size), size, x, y)
