"""Looking through a camera of a glTF file (`--camera`, the C key).

A glTF camera looks down its node's -Z axis with +Y up, from the node's origin; the
node's scale plays no part (the specification: the camera's transform is its node's
world matrix without scale). Perspective: the vertical field of view `yfov` and `znear`,
`zfar` (infinite: a far plane 100,000 times the near one); the aspect ratio is the
window's. Orthographic: the visible height 2 * `ymag`, the width following the window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from viewer.content.scene import FileCamera

__all__ = ["FAR_OVER_NEAR", "FileView", "view_of"]

#: The far plane of a perspective camera without `zfar`, in units of its near plane.
FAR_OVER_NEAR = 1e5


@dataclass(frozen=True)
class FileView:
    """A file camera placed by its node's world matrix `world` [4, 4]."""

    camera: FileCamera
    world: np.ndarray

    @property
    def rigid(self) -> np.ndarray:
        """The node's world matrix without scale (unit axes; a degenerate axis: the
        world's)."""
        m = np.eye(4)
        axes = np.asarray(self.world, dtype=np.float64)[:3, :3]
        # Gram-Schmidt on Y then Z: up stays up, the view direction stays put
        z = axes[:, 2]
        z = z / np.linalg.norm(z) if np.linalg.norm(z) > 0 else np.array([0.0, 0.0, 1.0])
        y = axes[:, 1] - (axes[:, 1] @ z) * z
        y = y / np.linalg.norm(y) if np.linalg.norm(y) > 1e-12 else _any_normal(z)
        m[:3, 0], m[:3, 1], m[:3, 2] = np.cross(y, z), y, z
        m[:3, 3] = self.world[:3, 3]
        return m

    @property
    def eye(self) -> np.ndarray:
        return np.asarray(self.world[:3, 3], dtype=np.float64)

    @property
    def forward(self) -> np.ndarray:
        return -self.rigid[:3, 2]

    def view_matrix(self) -> np.ndarray:
        """World to camera space (the inverse of the rigid placement)."""
        r = self.rigid
        v = np.eye(4)
        v[:3, :3] = r[:3, :3].T
        v[:3, 3] = -r[:3, :3].T @ r[:3, 3]
        return v

    def half_height(self) -> float:
        """Half the visible height at the near plane (perspective) or of the view."""
        cam = self.camera
        if cam.projection == "orthographic":
            return cam.ymag
        return cam.znear * math.tan(cam.yfov / 2.0)

    def clip_range(self) -> tuple[float, float]:
        cam = self.camera
        far = cam.zfar if cam.zfar is not None else cam.znear * FAR_OVER_NEAR
        return cam.znear, far

    def pixel_size(self, depth: np.ndarray, height: int) -> np.ndarray:
        """World length of a pixel at view depths `depth` [n]."""
        if self.camera.projection == "orthographic":
            return np.full(len(depth), 2.0 * self.camera.ymag / max(height, 1))
        tan = math.tan(self.camera.yfov / 2.0)
        return 2.0 * np.maximum(depth, 1e-6) * tan / max(height, 1)


def _any_normal(z: np.ndarray) -> np.ndarray:
    other = np.array([0.0, 1.0, 0.0]) if abs(z[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    y = other - (other @ z) * z
    return y / np.linalg.norm(y)


def view_of(cameras: list[FileCamera], index: int, world: np.ndarray) -> FileView:
    """The view through camera `index` of `cameras`, its node placed by `world`."""
    cam = cameras[index]
    return FileView(cam, np.asarray(world[cam.node], dtype=np.float64))
