"""How glTF meshes are coloured beyond one colour per node: vertex colours and a base
colour texture (no GL here; the renderer uploads them, see render/textures.py).

`Scene.mesh_data` keeps (positions, normals, indices) per mesh; a mesh with more than a
flat colour also has a `MeshSurface` under the same key, in `Scene.surfaces`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["REPEAT", "MIRRORED_REPEAT", "CLAMP_TO_EDGE", "MeshSurface", "TextureImage"]

#: glTF (OpenGL) wrap modes.
CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT = 33071, 33648, 10497


@dataclass(frozen=True)
class TextureImage:
    """An RGBA image (h, w, 4) uint8, top row first, with its sampler's settings.

    `wrap` is (s, t), each a glTF wrap mode; `nearest` (magnification without smoothing)
    and `mipmaps` (minification through mipmaps) follow the sampler's filters.
    """

    pixels: np.ndarray
    wrap: tuple[int, int] = (REPEAT, REPEAT)
    nearest: bool = False
    mipmaps: bool = True


@dataclass(frozen=True)
class MeshSurface:
    """Per-vertex colour (n, 4) float32 (rgb multiplied by the material's base colour
    factor, alpha 1: it replaces the node's colour), texture coordinates (n, 2) float32
    or None, and the base colour texture or None."""

    vcolors: np.ndarray
    uvs: np.ndarray | None = None
    texture: TextureImage | None = None
