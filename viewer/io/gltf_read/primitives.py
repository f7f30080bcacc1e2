"""glTF primitives beyond the plain triangle list: every primitive mode turned into
triangle, line-segment and point indices (glTF 3.7.2.1, written out as the spec does),
and morph targets (glTF 3.7.2.2): each primitive's POSITION and NORMAL deltas, merged per
mesh like its vertices, with the mesh's default weights. mesh.py calls these once
per primitive and once per mesh.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from viewer.content.geometry import MorphTargets
from viewer.io._fields import is_number
from viewer.io.errors import describe
from viewer.io.gltf_read.data import GltfFile

__all__ = ["MAX_TARGETS", "TRIANGLES", "by_mode", "merge_targets", "morph_deltas", "morph_weights"]

#: Primitive modes (glTF 3.7.2.1).
POINTS, LINES, LINE_LOOP, LINE_STRIP, TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN = range(7)
#: Morph targets per mesh the renderer draws (the morph pass's weight array).
MAX_TARGETS = 64


def by_mode(gltf: GltfFile, mode: int, idx: np.ndarray, where: str):
    """(triangle, line segment, point) vertex indices of a primitive of `mode`."""
    none = np.zeros(0, np.uint32)
    k = idx.size
    if mode == TRIANGLES:
        if k % 3:
            raise gltf.error(where, f"triangles need a multiple of 3 indices, got {k}")
        return idx, none, none
    # strips and fans are written into their one uint32 array: no index arrays (int64,
    # twice the triangles' size each) are made on the way
    m = max(k - 2, 0)
    if mode == TRIANGLE_STRIP:  # triangle i: v_i, v_{i+1+i%2}, v_{i+2-i%2}
        tri = np.empty((m, 3), np.uint32)
        tri[:, 0] = idx[:m]
        tri[0::2, 1], tri[1::2, 2] = idx[1 : m + 1 : 2], idx[2 : m + 1 : 2]
        tri[0::2, 2], tri[1::2, 1] = idx[2 : m + 2 : 2], idx[3 : m + 2 : 2]
        return tri.reshape(-1), none, none
    if mode == TRIANGLE_FAN:  # triangle i: v_{i+1}, v_{i+2}, v_0
        tri = np.empty((m, 3), np.uint32)
        tri[:, 0], tri[:, 1], tri[:, 2] = idx[1 : m + 1], idx[2 : m + 2], idx[0] if k else 0
        return tri.reshape(-1), none, none
    if mode == LINES:
        return none, idx[: k // 2 * 2], none
    if mode == LINE_STRIP:
        return none, np.stack([idx[:-1], idx[1:]], axis=1).reshape(-1), none
    if mode == LINE_LOOP:
        if k < 2:
            return none, none, none
        return none, np.stack([idx, np.roll(idx, -1)], axis=1).reshape(-1), none
    return none, none, idx  # POINTS


def morph_deltas(gltf: GltfFile, prim: dict, n: int, where: str):
    """A primitive's morph target deltas: ([T] of (n, 3) float32 positions, [T] of
    normals), None (zeros) where a target leaves an attribute out."""
    targets = prim.get("targets")
    if targets is None:
        return [], []
    if not isinstance(targets, list):
        raise gltf.error(where, f"targets must be an array, got {describe(targets)}")
    if len(targets) > MAX_TARGETS:
        raise gltf.error(where, f"{len(targets)} morph targets; up to {MAX_TARGETS} are drawn")
    positions, normals = [], []
    for t, target in enumerate(targets):
        there = f"{where} target {t}"
        target = gltf.obj(target, there)
        got: list[NDArray[np.float32] | None] = []
        for name in ("POSITION", "NORMAL"):
            if target.get(name) is None:
                got.append(None)
                continue
            d = gltf.floats(target[name], f"{there} {name}", ("VEC3",), integers=True, single=True)
            if d.shape[0] != n or not np.all(np.isfinite(d)):
                raise gltf.error(there, f"{name} must hold {n} finite deltas (one per vertex)")
            got.append(d)
        positions.append(got[0])
        normals.append(got[1])
    return positions, normals


def merge_targets(gltf: GltfFile, mesh: dict, all_p: list, all_dp: list, all_dn: list, where: str):
    """The mesh's `MorphTargets`: every primitive's deltas stacked per target (`all_p`:
    the primitives' positions, for their sizes)."""
    count = len(all_dp[0])
    sizes = [len(p) for p in all_p]
    pos = _stacked(all_dp, sizes, count)
    nrm = (
        _stacked(all_dn, sizes, count) if any(d is not None for dn in all_dn for d in dn) else None
    )
    defaults = morph_weights(gltf, mesh.get("weights"), count, where) if "weights" in mesh else None
    return MorphTargets(pos, nrm, np.zeros(count) if defaults is None else defaults)


def _stacked(deltas: list, sizes: list[int], count: int) -> NDArray[np.float32]:
    """[count, vertices, 3] float32: each primitive's deltas (its `count` arrays, None
    for zeros) written in place, without the per-target and per-mesh copies that
    concatenating then stacking would make."""
    out = np.zeros((count, sum(sizes), 3), np.float32)
    at = 0
    for prim, size in zip(deltas, sizes, strict=True):
        for t in range(count):
            if prim[t] is not None:
                out[t, at : at + size] = prim[t]
        at += size
    return out


def morph_weights(gltf: GltfFile, value: object, count: int, where: str) -> np.ndarray:
    """A ``weights`` array of `count` finite numbers (a mesh's or a node's)."""
    if (
        not isinstance(value, list)
        or len(value) != count
        or not all(is_number(w) and math.isfinite(w) for w in value)
    ):
        raise gltf.error(
            where,
            f"weights must be {count} finite numbers (one per morph target), got {describe(value)}",
        )
    return np.asarray(value, dtype=np.float64)
