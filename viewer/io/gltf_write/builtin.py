"""sgview's own meshes in a glTF export: built-in kinds and meshes without a glTF source.

Built-in kinds are written as their triangles, scaled by the look's size (glTF has no
per-node mesh scale that is not inherited), coloured by a material whose base colour
factor is the look's colour (the axes gizmo's painted arms as vertex colours). One glTF
mesh per (mesh kind, size, colour) in use, however many nodes share it.

Colours: sgview draws a mesh without a material (a built-in kind, a mesh read without
one) in display values, so its colour (a TOML hex colour, read as ``#rrggbb / 255``) is
sRGB-encoded; glTF's ``baseColorFactor`` and ``COLOR_0`` are linear, and a glTF viewer
(sgview's glTF pass among them) encodes its linear result to sRGB. Such colours are
written through the sRGB decoding function (IEC 61966-2-1, the glTF specification's
reference), so the file shows the colour the scene showed. A mesh with materials keeps
them: their colours are linear already.

Sides: sgview draws a mesh without a material from both sides, and glTF culls back faces
unless a material says ``doubleSided``: the open ones (`disk`, `rect`, and any mesh
without a material, whose closedness is unknown) are written double-sided, so a flat
shape seen from behind (Saturn's rings from above) is not lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from viewer.content import meshes as mesh_builders
from viewer.content.meshes import MeshData
from viewer.content.scene import Scene
from viewer.io.gltf_write.pack import ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, Packer

__all__ = ["BuiltinMeshes", "srgb_to_linear"]

#: Built-in kinds whose surface is closed: back faces are never seen, so glTF's back-face
#: culling changes nothing. The others (`disk`, `rect`) are written double-sided.
_CLOSED_BUILTINS = frozenset({"cube", "sphere", "cylinder", "cone", "axes"})


def srgb_to_linear(values: ArrayLike) -> NDArray[np.float64]:
    """sRGB-encoded components in [0, 1] to linear ones (IEC 61966-2-1's decoding)."""
    c = np.asarray(values, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


class BuiltinMeshes:
    """Writes looks as meshes and materials into the export's arrays."""

    def __init__(
        self,
        scene: Scene,
        packer: Packer,
        meshes: list[dict[str, Any]],
        materials: list[dict[str, Any]],
    ) -> None:
        self.scene = scene
        self.packer = packer
        self.meshes = meshes
        self.materials = materials
        self._mesh_of: dict[tuple[str, tuple[float, ...], tuple[float, ...]], int | None] = {}
        self._material_of: dict[tuple[tuple[float, ...], bool], int] = {}

    def material(self, linear: Sequence[float], double_sided: bool) -> int:
        """The index of the material of base colour `linear` (linear RGB)."""
        key = (tuple(round(float(c), 9) for c in linear), double_sided)
        if key not in self._material_of:
            self._material_of[key] = len(self.materials)
            entry: dict[str, Any] = {
                "pbrMetallicRoughness": {
                    "baseColorFactor": [*map(float, linear), 1.0],
                    "metallicFactor": 0.0,
                    "roughnessFactor": 1.0,
                }
            }
            if double_sided:
                entry["doubleSided"] = True
            self.materials.append(entry)
        return self._material_of[key]

    def mesh(self, kind: str, size: Sequence[float], color: Sequence[float]) -> int | None:
        """The mesh index for a look; None for a pivot (nothing drawn)."""
        key = (kind, tuple(map(float, size)), tuple(map(float, color)))
        if key not in self._mesh_of:
            self._mesh_of[key] = self._write(kind, size, color)
        return self._mesh_of[key]

    def _write(self, kind: str, size: Sequence[float], color: Sequence[float]) -> int | None:
        data = _geometry(self.scene, kind)
        if data is None:
            return None
        pack = self.packer
        pos = (data.positions.astype(np.float64) * np.asarray(size, np.float64)).astype(np.float32)
        nrm = data.normals.astype(np.float64)
        if kind in mesh_builders.BUILDERS:  # normals under the size scale: the cofactor rule
            nrm = nrm / np.where(np.asarray(size, np.float64) == 0, 1.0, size)
            length = np.linalg.norm(nrm, axis=1, keepdims=True)
            nrm = np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)
        attrs = {
            "POSITION": pack.accessor(pos, ARRAY_BUFFER, bounds=True),
            "NORMAL": pack.accessor(nrm.astype(np.float32), ARRAY_BUFFER),
        }
        surface = self.scene.surfaces.get(kind)
        if surface is None:  # drawn by sgview without a material: see the module doc
            double_sided = kind not in _CLOSED_BUILTINS
        else:
            double_sided = any(part.material.double_sided for part in surface.parts)
        alpha = data.vcolors[:, 3:4].astype(np.float64)
        if (alpha > 0).any():  # painted vertices: the colour they show, white factor
            rgb = (1 - alpha) * np.asarray(color, np.float64) + alpha * data.vcolors[:, :3]
            if surface is None:
                rgb = srgb_to_linear(rgb)
            attrs["COLOR_0"] = pack.accessor(rgb.astype(np.float32), ARRAY_BUFFER)
            material = self.material((1.0, 1.0, 1.0), double_sided)
        else:
            linear = srgb_to_linear(color) if surface is None else np.asarray(color, np.float64)
            material = self.material(linear.tolist(), double_sided)
        indices = pack.accessor(data.indices.astype(np.uint32).reshape(-1), ELEMENT_ARRAY_BUFFER)
        self.meshes.append(
            {
                "name": kind if kind in mesh_builders.BUILDERS else "mesh",
                "primitives": [
                    {"attributes": attrs, "indices": indices, "material": material, "mode": 4}
                ],
            }
        )
        return len(self.meshes) - 1


def _geometry(scene: Scene, kind: str) -> MeshData | None:
    if kind in mesh_builders.BUILDERS:
        return mesh_builders.builtin(kind)
    if kind in scene.mesh_data:
        pos, nrm, idx = scene.mesh_data[kind]
        surface = scene.surfaces.get(kind)
        data = mesh_builders.from_arrays(pos, nrm, idx, surface)
        if surface is not None:  # painted: COLOR_0 times each primitive's base colour
            rgba = surface.vcolors.astype(np.float64)
            for part in surface.parts:
                used = np.unique(data.indices[part.first : part.first + part.count])
                rgba[used, :3] *= part.material.base_color[:3]
            rgba[:, 3] = 1.0
            if len(rgba) and (rgba == rgba[0]).all():  # one colour: the node's own
                rgba[:] = 0.0
            data.vcolors = rgba.astype(np.float32)
        return data
    return None  # "none", or a key without data: a pivot
