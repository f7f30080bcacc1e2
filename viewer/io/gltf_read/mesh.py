"""glTF meshes: all primitives merged into one vertex set per mesh, with triangle, line
and point indices.

Every primitive mode is read (glTF 3.7.2.1): TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN
become triangles (strips alternate their winding, fans turn around their first vertex, as
the spec writes them out); LINES, LINE_LOOP and LINE_STRIP become line segments; POINTS
points. Positions and normals may be quantized integers (KHR_mesh_quantization) and any
accessor sparse; a Draco-compressed primitive is decoded first (compression.py).
Morph targets (POSITION and NORMAL deltas) are merged like the vertices. Normals missing
from the file are computed (area-weighted). A primitive of lines or triangles whose
vertices all lie at one point (an accessor of zeros, say) and that no morph target or
skin can spread draws nothing: it is checked like the others, and nothing of it is
kept; nor is a primitive of POINTS all at one place beyond its first point (they draw as
one). Arrays keep the 4-byte types of the file, so a merged mesh holds about as many
bytes as the accessors it came from. What each primitive will keep (its arrays, the
defaults the file leaves out, its indices after strips and fans are written out, and
the renderer's copy) is charged to the scene's kept budget before it is made
(`kept_bytes`, `viewer.io.limits`), so the load's memory is bounded by the caps.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from viewer.content.geometry import MorphTargets
from viewer.io._fields import is_number
from viewer.io.errors import describe
from viewer.io.gltf_read.compression import decode_draco
from viewer.io.gltf_read.data import GltfFile, constant_row, whole
from viewer.io.gltf_read.material import read_material, vertex_data
from viewer.io.gltf_read.material_ext import file_variants, read_variants
from viewer.io.gltf_read.primitives import (
    LINE_LOOP,
    LINE_STRIP,
    LINES,
    POINTS,
    TRIANGLE_FAN,
    TRIANGLE_STRIP,
    TRIANGLES,
    by_mode,
    merge_targets,
    morph_deltas,
)
from viewer.io.gltf_read.skin import vertex_weights
from viewer.io.limits import GPU_VERTEX_BYTES
from viewer.materials import MeshPart, MeshSurface

__all__ = ["DEFAULT_COLOR", "read_mesh"]

DEFAULT_COLOR = (0.8, 0.8, 0.8)
_INDEX_TYPES = (5121, 5123, 5125)

MeshArrays = tuple[np.ndarray, np.ndarray, np.ndarray]


class MeshParts(NamedTuple):
    """A merged mesh: its arrays (None: nothing to draw), the base colour of its first
    primitive's material (None: nothing to draw), the skinning attributes (joints,
    weights) or None, its `MeshSurface` (materials, colours, coordinates, one part per
    primitive; None: nothing to draw), its line and point indices (None: none) and its
    morph targets (None: none)."""

    arrays: MeshArrays | None
    color: tuple | None
    skin: tuple | None
    surface: MeshSurface | None
    lines: np.ndarray | None = None
    points: np.ndarray | None = None
    targets: MorphTargets | None = None


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
    all_l, all_pt, all_dp, all_dn = [], [], [], []
    found: list[tuple] = []  # per primitive: (mode, index count, material, centre, variants)
    color = None
    offset = 0
    n_targets = None
    for k, prim in enumerate(prims):
        phere = f"{here} primitive {k}"
        prim = gltf.obj(prim, phere)
        mode = whole(prim.get("mode", TRIANGLES))
        if not isinstance(mode, int) or mode not in range(7):
            raise gltf.error(phere, f"mode must be 0..6, got {describe(mode)}")
        ext = gltf.obj(prim.get("extensions"), f"{phere} extensions")
        if ext.get("KHR_draco_mesh_compression") is not None:
            decode_draco(gltf, prim, ext["KHR_draco_mesh_compression"], phere)
        attrs = gltf.obj(prim.get("attributes"), f"{phere} attributes")
        if not attrs:  # glTF 5.24: required, one attribute at least; a client skips it
            gltf.note(phere, "it has no attributes (glTF needs one at least): not drawn")
        if attrs.get("POSITION") is None:
            continue  # glTF: a primitive without positions draws nothing
        pos = gltf.floats(
            attrs["POSITION"], f"{phere} POSITION", ("VEC3",), integers=True, single=True
        )
        one = constant_row(pos)  # zeros without data: one row, never expanded
        if not np.all(np.isfinite(pos if one is None else one)):
            raise gltf.error(phere, "POSITION holds NaN or infinite values")
        n = pos.shape[0]
        if _unseen(prim, attrs, mode, pos):
            _check_unseen(gltf, prim, attrs, mode, n, phere)
            read_material(gltf, prim.get("material"), phere, textures)
            continue
        first_row = mode == POINTS and n > 1 and _one_place(prim, attrs, pos)
        if first_row:  # drawn as its first point: of every attribute, row 0 is kept
            _check_unseen(gltf, prim, attrs, mode, n, phere)
            pos, n = pos[:1], 1
            prim = {key: value for key, value in prim.items() if key != "indices"}
        if prim.get("indices") is not None:
            idx = gltf.accessor(prim["indices"], f"{phere} indices", ("SCALAR",), _INDEX_TYPES)
            _charge_kept(gltf, prim, attrs, mode, n, idx.size, phere)
            idx = idx.reshape(-1).astype(np.uint32, copy=False)
            if idx.size and (idx.max() >= n):
                raise gltf.error(phere, f"an index is {int(idx.max())}, there are {n} vertices")
        else:
            _charge_kept(gltf, prim, attrs, mode, n, n, phere)
            idx = np.arange(n, dtype=np.uint32)
        tri, seg, pts = by_mode(gltf, mode, idx, phere)
        if attrs.get("NORMAL") is not None:
            with gltf.first_rows() if first_row else contextlib.nullcontext():
                nrm = gltf.floats(attrs["NORMAL"], f"{phere} NORMAL", ("VEC3",), single=True)
            if nrm.shape[0] != n:
                raise gltf.error(phere, f"NORMAL has {nrm.shape[0]} items, POSITION has {n}")
            if not np.all(np.isfinite(nrm)):
                raise gltf.error(phere, "NORMAL holds NaN or infinite values")
        elif not tri.size:  # lines and points: nothing to light, +Z as for a lone vertex
            nrm = np.zeros((n, 3), np.float32)
            nrm[:, 2] = 1.0
        else:  # in float64, one primitive at a time; kept as float32 like the rest
            nrm = _vertex_normals(pos, tri).astype(np.float32)
        deltas = morph_deltas(gltf, prim, n, phere)
        if n_targets is None:
            n_targets = len(deltas[0])
        elif len(deltas[0]) != n_targets:
            raise gltf.error(
                phere, f"{len(deltas[0])} morph targets, the mesh's first primitive has {n_targets}"
            )
        material = read_material(gltf, prim.get("material"), phere, textures)
        variants = read_variants(
            gltf, prim, phere, lambda m, at: read_material(gltf, m, at, textures)
        )
        if color is None:
            color = material_color(gltf, prim.get("material"), phere) or DEFAULT_COLOR
        with gltf.first_rows() if first_row else contextlib.nullcontext():
            vcol, uv0, uv1 = vertex_data(gltf, attrs, n, phere)
        for slot, ref in material.textures().items():
            if (uv0, uv1)[ref.texcoord] is None:
                raise gltf.error(
                    phere,
                    f"its material's {slot} texture needs TEXCOORD_{ref.texcoord}, which it lacks",
                )
        all_c.append(vcol if vcol is not None else np.ones((n, 4), np.float32))
        all_uv.append(uv0 if uv0 is not None else np.zeros((n, 2), np.float32))
        all_uv1.append(uv1)
        center = (
            tuple(float(c) for c in (pos.min(axis=0) + pos.max(axis=0)) / 2.0)
            if n
            else (0.0, 0.0, 0.0)
        )
        # lines and points have no surface to light without normals: drawn in their
        # material's colours unlit, as reference viewers draw them
        bare = material if attrs.get("NORMAL") is not None else replace(material, unlit=True)
        for part_mode, ids in ((TRIANGLES, tri), (LINES, seg), (POINTS, pts)):
            if ids.size:  # counted in the mode's own indices (after strips, loops, fans)
                found.append(
                    (
                        part_mode,
                        int(ids.size),
                        bare if part_mode != TRIANGLES else material,
                        center,
                        variants,
                    )
                )
        if offset + n > 2**32:
            raise gltf.error(here, "too many vertices")
        all_p.append(pos)
        all_n.append(nrm)
        all_i.append(tri + np.uint32(offset))
        all_l.append(seg + np.uint32(offset))
        all_pt.append(pts + np.uint32(offset))
        all_dp.append(deltas[0])
        all_dn.append(deltas[1])
        all_w.append(vertex_weights(gltf, attrs, n, phere))
        offset += n
    if not all_p:
        return MeshParts(None, None, None, None)
    arrays = (_joined(all_p), _joined(all_n), _joined(all_i))
    _charge_defaults(gltf, here, [len(p) for p in all_p], all_uv1, all_w, all_dn)
    uvs1 = None
    if any(uv is not None for uv in all_uv1):
        uvs1 = _joined(
            [
                uv if uv is not None else np.zeros((len(p), 2), np.float32)
                for uv, p in zip(all_uv1, all_p, strict=True)
            ]
        )
    surface = MeshSurface(_joined(all_c), _joined(all_uv), uvs1, _parts(found), file_variants(gltf))
    skinned = None
    if any(w is not None for w in all_w):  # a primitive without weights follows joint 0
        rigid = np.array([[1.0, 0.0, 0.0, 0.0]], np.float32)
        parts = [
            w if w is not None else (np.zeros((len(p), 4), np.uint16), np.repeat(rigid, len(p), 0))
            for w, p in zip(all_w, all_p, strict=True)
        ]
        skinned = (_joined([j for j, _ in parts]), _joined([w for _, w in parts]))
    lines, points = _joined(all_l), _joined(all_pt)
    targets = merge_targets(gltf, mesh, all_p, all_dp, all_dn, here) if n_targets else None
    return MeshParts(
        arrays,
        color or DEFAULT_COLOR,
        skinned,
        surface,
        lines if lines.size else None,
        points if points.size else None,
        targets,
    )


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The primitives' arrays one after the other; a mesh of one primitive (the big
    meshes, mostly) keeps its array itself, not a second copy of it."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _unseen(prim: dict, attrs: dict, mode: int, pos: np.ndarray) -> bool:
    """Whether a primitive draws nothing at all: lines or triangles whose vertices all lie
    at one point (`_one_place`: a mesh of zeros, say), so its triangles have no area and
    its lines no length. Points still show (as one: `GltfFile.first_rows`)."""
    return mode != POINTS and len(pos) > 0 and _one_place(prim, attrs, pos)


def _one_place(prim: dict, attrs: dict, pos: np.ndarray) -> bool:
    """Whether a primitive's vertices all lie at one place and nothing (no morph target,
    no skin) can move them apart."""
    if prim.get("targets") is not None or attrs.get("JOINTS_0") is not None:
        return False
    if constant_row(pos) is not None:
        return True
    return bool(np.all(pos.min(axis=0) == pos.max(axis=0)))


def _charge_kept(
    gltf: GltfFile, prim: dict, attrs: dict, mode: int, n: int, k: int, where: str
) -> None:
    """Charge what a primitive of `n` vertices and `k` indices will keep, before it is
    made (`kept_bytes`); refused in one line naming it."""
    need = kept_bytes(prim, attrs, mode, n, k)
    reason = gltf.budget.charge_kept(need)
    if reason is not None:
        raise gltf.error(
            where,
            f"{n:,} vertices and {k:,} indices keep {need:,} bytes with their GPU copy; {reason}",
        )


def kept_bytes(prim: dict, attrs: dict, mode: int, n: int, k: int) -> int:
    """Bytes a primitive of `n` vertices and `k` indices of `mode` keeps once loaded and
    uploaded: positions and normals (float32 x 3 each, computed normals too), colours
    (float32 x 4, white when the file has none), coordinates (float32 x 2, zeros without
    TEXCOORD_0), TEXCOORD_1, joints (uint16 x 4) and weights (float32 x 4), each morph
    target's deltas (float32 x 3, positions always, normals when given), the renderer's
    vertex (`GPU_VERTEX_BYTES`), and 4 + 4 bytes (the loader's, the renderer's) for each
    index after strips, loops and fans are written out (`by_mode`)."""
    per_vertex = 12 + 12 + 16 + 8 + GPU_VERTEX_BYTES
    if attrs.get("TEXCOORD_1") is not None:
        per_vertex += 8
    if attrs.get("JOINTS_0") is not None and attrs.get("WEIGHTS_0") is not None:
        per_vertex += 8 + 16
    targets = prim.get("targets")
    if isinstance(targets, list):  # normal deltas for every target when one has them
        normals = any(isinstance(t, dict) and t.get("NORMAL") is not None for t in targets)
        per_vertex += 12 * len(targets) * (1 + normals)
    return n * per_vertex + 8 * _written_out(mode, k)


def _charge_defaults(
    gltf: GltfFile, where: str, sizes: list[int], uv1: list, skins: list, normals: list
) -> None:
    """Charge what a mesh of several primitives keeps for those that lack what another
    has (`kept_bytes` counts a primitive's own): TEXCOORD_1 zeros, rigid joints and
    weights, morph normal deltas of zeros. `sizes`: the primitives' vertices; the rest,
    per primitive, what it has (None: nothing)."""
    need = 0
    if any(uv is not None for uv in uv1):
        need += 8 * sum(n for n, uv in zip(sizes, uv1, strict=True) if uv is None)
    if any(w is not None for w in skins):
        need += 24 * sum(n for n, w in zip(sizes, skins, strict=True) if w is None)
    if any(d is not None for dn in normals for d in dn):
        bare = [n for n, dn in zip(sizes, normals, strict=True) if all(d is None for d in dn)]
        need += 12 * len(normals[0]) * sum(bare)
    reason = gltf.budget.charge_kept(need) if need else None
    if reason is not None:
        raise gltf.error(where, f"its primitives' defaults keep {need:,} bytes; {reason}")


def _written_out(mode: int, k: int) -> int:
    """Indices `by_mode` makes of `k` indices of `mode`."""
    if mode in (TRIANGLE_STRIP, TRIANGLE_FAN):
        return 3 * max(k - 2, 0)
    if mode == LINE_STRIP:
        return 2 * max(k - 1, 0)
    if mode == LINE_LOOP:
        return 2 * k if k >= 2 else 0
    if mode == LINES:
        return k // 2 * 2
    return k


def _check_unseen(gltf: GltfFile, prim: dict, attrs: dict, mode: int, n: int, where: str) -> None:
    """The checks a drawn primitive's indices and attributes get (their counts, their
    values), for one that draws nothing: nothing of it is kept or made, so it costs
    its checks and no memory however many vertices it claims."""
    if prim.get("indices") is not None:
        idx = gltf.accessor(prim["indices"], f"{where} indices", ("SCALAR",), _INDEX_TYPES)
        if idx.size and int(idx.max()) >= n:
            raise gltf.error(where, f"an index is {int(idx.max())}, there are {n} vertices")
        k = idx.size
    else:
        k = n
    if mode == TRIANGLES and k % 3:
        raise gltf.error(where, f"triangles need a multiple of 3 indices, got {k}")
    for name, types, integers in _CHECKED:
        if attrs.get(name) is None:
            continue
        arr = gltf.floats(attrs[name], f"{where} {name}", types, integers=integers)
        if arr.shape[0] != n:
            raise gltf.error(where, f"{name} has {arr.shape[0]} items, POSITION has {n}")
        one = constant_row(arr)
        if not np.all(np.isfinite(arr if one is None else one)):
            raise gltf.error(where, f"{name} holds NaN or infinite values")


#: The attributes `_check_unseen` checks: (name, accessor types, plain integers allowed).
_CHECKED = (
    ("NORMAL", ("VEC3",), False),
    ("COLOR_0", ("VEC3", "VEC4"), False),
    ("TEXCOORD_0", ("VEC2",), True),
    ("TEXCOORD_1", ("VEC2",), True),
)


def _parts(found: list[tuple]) -> tuple[MeshPart, ...]:
    """The primitives' parts, each at its place in the mesh's one index buffer: all
    triangles first, then all line segments, then all points (`GpuMesh`)."""
    start = {}
    total = 0
    for part_mode in (TRIANGLES, LINES, POINTS):
        start[part_mode] = total
        total += sum(count for m, count, *_ in found if m == part_mode)
    parts = []
    for part_mode, count, material, center, variants in found:
        parts.append(MeshPart(start[part_mode], count, material, center, part_mode, variants))
        start[part_mode] += count
    return tuple(parts)


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
    """Area-weighted vertex normals in float64 of float32 positions `pos` [n, 3];
    vertices on no (or only degenerate) faces get +Z. The faces' corners are gathered
    `_FACE_BLOCK` triangles at a time, so the temporaries stay small whatever the mesh."""
    normals = np.zeros(pos.shape, np.float64)
    if idx.size:
        tri = idx.reshape(-1, 3)
        face = np.empty((len(tri), 3), np.float64)
        for at in range(0, len(tri), _FACE_BLOCK):
            block = tri[at : at + _FACE_BLOCK]
            a, b, c = (pos[block[:, k]].astype(np.float64) for k in range(3))
            face[at : at + len(block)] = np.cross(b - a, c - a)
        for k in range(3):
            np.add.at(normals, tri[:, k], face)
    length = np.linalg.norm(normals, axis=1)
    good = length > 1e-20
    normals[good] /= length[good, None]
    normals[~good] = (0.0, 0.0, 1.0)
    return normals


#: Triangles whose corners `_vertex_normals` gathers at a time.
_FACE_BLOCK = 1 << 16
