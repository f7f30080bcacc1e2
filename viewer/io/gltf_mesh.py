"""glTF meshes: triangle primitives merged into one position/normal/index set per mesh.

Only mode-4 (triangles) primitives are drawn; the others are skipped. Normals missing from
the file are computed (area-weighted). Arrays keep the 4-byte types of the file, so a
merged mesh holds about as many bytes as the accessors it came from, and the scene's data
budget bounds the load's memory.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..materials import MeshPart, MeshSurface
from ._fields import is_number
from .errors import describe
from .gltf_data import GltfFile
from .gltf_material import read_material, vertex_data
from .gltf_skin import vertex_weights

__all__ = ["DEFAULT_COLOR", "read_mesh"]

DEFAULT_COLOR = (0.8, 0.8, 0.8)
_INDEX_TYPES = (5121, 5123, 5125)
_FLOAT = (5126,)

MeshArrays = tuple[np.ndarray, np.ndarray, np.ndarray]


class MeshParts(NamedTuple):
    """A merged mesh: its arrays (None: no triangles), the base colour of its first
    primitive's material (None: no triangles), the skinning attributes (joints, weights)
    or None, and its `MeshSurface` (materials, colours, coordinates; None: no
    triangles)."""

    arrays: MeshArrays | None
    color: tuple | None
    skin: tuple | None
    surface: MeshSurface | None


def read_mesh(gltf: GltfFile, index: int, textures: dict | None = None) -> MeshParts:
    """Mesh `index` merged (see `MeshParts`); `textures` caches the file's decoded
    materials and textures."""
    textures = {} if textures is None else textures
    here = f"mesh {index}"
    mesh = gltf.obj(gltf.array("meshes")[index], here)
    prims = mesh.get("primitives")
    if not isinstance(prims, list):
        raise gltf.error(here, f"primitives must be an array, got {describe(prims)}")
    all_p, all_n, all_i, all_w, all_c, all_uv, all_uv1 = [], [], [], [], [], [], []
    parts: list[MeshPart] = []
    color = None
    offset = first = 0
    for k, prim in enumerate(prims):
        phere = f"{here} primitive {k}"
        prim = gltf.obj(prim, phere)
        mode = prim.get("mode")
        if mode is not None and mode != 4:
            continue  # points, lines, strips and fans are not drawn
        attrs = gltf.obj(prim.get("attributes"), f"{phere} attributes")
        if attrs.get("POSITION") is None:
            raise gltf.error(phere, "a triangle primitive needs a POSITION attribute")
        pos = gltf.accessor(attrs["POSITION"], f"{phere} POSITION", ("VEC3",), _FLOAT)
        if not np.all(np.isfinite(pos)):
            raise gltf.error(phere, "POSITION holds NaN or infinite values")
        n = pos.shape[0]
        if prim.get("indices") is not None:
            idx = gltf.accessor(prim["indices"], f"{phere} indices", ("SCALAR",), _INDEX_TYPES)
            idx = idx.reshape(-1).astype(np.uint32)
            if idx.size and (idx.max() >= n):
                raise gltf.error(phere, f"an index is {int(idx.max())}, there are {n} vertices")
        else:
            idx = np.arange(n, dtype=np.uint32)
        if idx.size % 3:
            raise gltf.error(phere, f"triangles need a multiple of 3 indices, got {idx.size}")
        if attrs.get("NORMAL") is not None:
            nrm = gltf.accessor(attrs["NORMAL"], f"{phere} NORMAL", ("VEC3",), _FLOAT)
            if nrm.shape[0] != n:
                raise gltf.error(phere, f"NORMAL has {nrm.shape[0]} items, POSITION has {n}")
            if not np.all(np.isfinite(nrm)):
                raise gltf.error(phere, "NORMAL holds NaN or infinite values")
        else:  # in float64, one primitive at a time; kept as float32 like the rest
            nrm = _vertex_normals(pos.astype(np.float64), idx.astype(np.int64))
            nrm = nrm.astype(np.float32)
        material = read_material(gltf, prim.get("material"), phere, textures)
        if color is None:
            color = material_color(gltf, prim.get("material"), phere) or DEFAULT_COLOR
        vcol, uv0, uv1 = vertex_data(gltf, attrs, n, phere)
        for slot, ref in material.textures().items():
            if (uv0, uv1)[ref.texcoord] is None:
                raise gltf.error(phere, f"its material's {slot} texture needs "
                                 f"TEXCOORD_{ref.texcoord}, which it lacks")  # fmt: skip
        all_c.append(vcol if vcol is not None else np.ones((n, 4), np.float32))
        all_uv.append(uv0 if uv0 is not None else np.zeros((n, 2), np.float32))
        all_uv1.append(uv1)
        center = tuple(float(c) for c in (pos.min(axis=0) + pos.max(axis=0)) / 2.0) if n else (
            0.0, 0.0, 0.0)  # fmt: skip
        parts.append(MeshPart(first, int(idx.size), material, center))
        first += int(idx.size)
        if offset + n > 2**32:
            raise gltf.error(here, "too many vertices")
        all_p.append(pos)
        all_n.append(nrm)
        all_i.append(idx + np.uint32(offset))
        all_w.append(vertex_weights(gltf, attrs, n, phere))
        offset += n
    if not all_p:
        return MeshParts(None, None, None, None)
    arrays = (np.concatenate(all_p), np.concatenate(all_n), np.concatenate(all_i))
    uvs1 = None
    if any(uv is not None for uv in all_uv1):
        uvs1 = np.concatenate([
            uv if uv is not None else np.zeros((len(p), 2), np.float32)
            for uv, p in zip(all_uv1, all_p, strict=True)
        ])  # fmt: skip
    surface = MeshSurface(np.concatenate(all_c), np.concatenate(all_uv), uvs1, tuple(parts))
    skinned = None
    if any(w is not None for w in all_w):  # a primitive without weights follows joint 0
        rigid = np.array([[1.0, 0.0, 0.0, 0.0]], np.float32)
        parts = [
            w if w is not None else (np.zeros((len(p), 4), np.uint16), np.repeat(rigid, len(p), 0))
            for w, p in zip(all_w, all_p, strict=True)
        ]
        skinned = (np.concatenate([j for j, _ in parts]), np.concatenate([w for _, w in parts]))
    return MeshParts(arrays, color or DEFAULT_COLOR, skinned, surface)


def material_color(gltf: GltfFile, index: object, where: str) -> tuple | None:
    """The RGB of a material's ``baseColorFactor``, clamped to [0, 1]; None if it has none."""
    if index is None:
        return None
    index, material = gltf.item(index, "materials", where)
    pbr = material.get("pbrMetallicRoughness")
    factor = pbr.get("baseColorFactor") if isinstance(pbr, dict) else None
    if (
        isinstance(factor, list)
        and len(factor) >= 3
        and all(is_number(c) and math.isfinite(c) for c in factor[:3])
    ):
        return tuple(min(1.0, max(0.0, float(c))) for c in factor[:3])
    return None


def _vertex_normals(pos: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals; vertices on no (or only degenerate) faces get +Z."""
    normals = np.zeros_like(pos)
    if idx.size:
        tri = idx.reshape(-1, 3)
        a, b, c = pos[tri[:, 0]], pos[tri[:, 1]], pos[tri[:, 2]]
        face = np.cross(b - a, c - a)
        for k in range(3):
            np.add.at(normals, tri[:, k], face)
    length = np.linalg.norm(normals, axis=1)
    good = length > 1e-20
    normals[good] /= length[good, None]
    normals[~good] = (0.0, 0.0, 1.0)
    return normals
