"""glTF skins: joint lists, inverse bind matrices and the vertex joints and weights.

Checked like the rest of the file: a skin's joints are imported nodes (at most
`MAX_JOINTS`), its inverse bind matrices finite and invertible affine
transforms (identity when absent); a skinned
primitive's ``JOINTS_0`` are unsigned bytes or shorts that index the skin's joints and its
``WEIGHTS_0`` are floats or normalized unsigned integers, non-negative. Weights are
normalised to sum to 1 (a vertex whose weights are all zero follows the skin's first
joint), as the specification asks of files.
"""

from __future__ import annotations

import numpy as np

from viewer.animation.skin import Skin
from viewer.io.errors import describe
from viewer.io.gltf_read.data import GltfFile, is_int, whole

__all__ = [
    "MAX_BIND_CONDITION",
    "MAX_JOINTS",
    "check_joint_indices",
    "read_skin",
    "singular_binds",
    "skin_index",
    "vertex_weights",
]

#: Joints per skin; the renderer keeps one row of a float texture per joint.
MAX_JOINTS = 1024
#: An inverse bind matrix whose largest singular value is more than this many times its
#: smallest is refused: its inverse (the joint's bind pose, which the joint markers and
#: the framing use) would be meaningless or blow up.
MAX_BIND_CONDITION = 1e10


def singular_binds(binds: np.ndarray) -> int | None:
    """The index of the first matrix of `binds` (J, 4, 4), finite, that is not an
    invertible affine transform within `MAX_BIND_CONDITION`; None when all are."""
    last_row = np.all(binds[:, 3] == (0.0, 0.0, 0.0, 1.0), axis=1)
    sv = np.linalg.svd(binds[:, :3, :3], compute_uv=False)  # (J, 3), largest first
    ok = last_row & (sv[:, 2] > 0) & (sv[:, 0] <= MAX_BIND_CONDITION * sv[:, 2])
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else None


def read_skin(gltf: GltfFile, index: int, rows: np.ndarray) -> Skin:
    """Skin `index` with its joints as model rows (see `GltfModel.rows`)."""
    where = f"skin {index}"
    skin = gltf.obj(gltf.array("skins")[index], where)
    joints = skin.get("joints")
    if not isinstance(joints, list) or not 1 <= len(joints) <= MAX_JOINTS:
        got = f"{len(joints)} joints" if isinstance(joints, list) else describe(joints)
        raise gltf.error(where, f"joints must be an array of 1..{MAX_JOINTS} nodes, got {got}")
    joint_rows = []
    for j in joints:
        j = gltf.index_into(j, "nodes", f"{where} joints")
        if rows[j] < 0:
            raise gltf.error(where, f"joint node {j} is not in the imported scene")
        joint_rows.append(int(rows[j]))
    n = len(joint_rows)
    if skin.get("inverseBindMatrices") is None:
        binds = np.tile(np.eye(4), (n, 1, 1))
    else:
        flat = gltf.accessor(
            skin["inverseBindMatrices"], f"{where} inverseBindMatrices", ("MAT4",), (5126,)
        )
        if flat.shape[0] < n:
            raise gltf.error(where, f"{flat.shape[0]} inverse bind matrices for {n} joints")
        binds = flat[:n].astype(np.float64).reshape(n, 4, 4).transpose(0, 2, 1)  # columns
        if not np.all(np.isfinite(binds)) or np.abs(binds).max() > 1e9:
            raise gltf.error(where, "inverse bind matrices must be finite and within ±1e9")
        bad = singular_binds(binds)
        if bad is not None:
            raise gltf.error(
                where,
                f"inverse bind matrix {bad} (joint node {joints[bad]}) "
                f"is not invertible (condition number over 1e10, "
                "or its last row is not 0 0 0 1)",
            )
    return Skin(np.asarray(joint_rows, dtype=np.int64), binds)


def vertex_weights(gltf: GltfFile, attrs: dict, n: int, where: str):
    """(joints (n, 4) uint16, weights (n, 4) float32) of a primitive, None if unskinned."""
    if attrs.get("JOINTS_0") is None or attrs.get("WEIGHTS_0") is None:
        return None
    joints = gltf.accessor(attrs["JOINTS_0"], f"{where} JOINTS_0", ("VEC4",), (5121, 5123))
    weights = gltf.floats(attrs["WEIGHTS_0"], f"{where} WEIGHTS_0", ("VEC4",))
    for name, arr in (("JOINTS_0", joints), ("WEIGHTS_0", weights)):
        if arr.shape[0] != n:
            raise gltf.error(where, f"{name} has {arr.shape[0]} items, POSITION has {n}")
    if not np.all(np.isfinite(weights)) or (weights < 0).any():
        raise gltf.error(where, "WEIGHTS_0 must be finite and non-negative")
    total = weights.sum(axis=1, keepdims=True)
    lone = total[:, 0] <= 0
    weights = np.where(total > 0, weights / np.where(total > 0, total, 1.0), 0.0)
    weights[lone, 0] = 1.0
    joints = joints.astype(np.uint16)
    joints[lone, 0] = 0
    return joints, weights.astype(np.float32)


def check_joint_indices(gltf: GltfFile, joints: np.ndarray, skin: Skin, where: str) -> None:
    """Every used joint index (non-zero weight or not) must name one of the skin's joints."""
    if joints.size and int(joints.max()) >= len(skin.joints):
        raise gltf.error(
            where, f"JOINTS_0 names joint {int(joints.max())}, the skin has {len(skin.joints)}"
        )


def skin_index(gltf: GltfFile, value: object, where: str) -> int:
    value = whole(value)
    if not is_int(value):
        raise gltf.error(where, f"skin must be an index, got {describe(value)}")
    return gltf.index_into(value, "skins", where)
