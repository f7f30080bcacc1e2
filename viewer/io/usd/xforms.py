"""Local matrices as USD computes them, turned into the core's position, rotation, scale.

USD writes row vectors (``p' = p · M``, translation in the last row); sgview uses column
vectors (docs/conventions.md). The conversion happens once, here: every matrix pxr
returns is transposed as it comes in (`column_matrices`), and nothing else in sgview sees
a row-vector matrix.

The op stack itself is never re-implemented: pxr evaluates it (`UsdGeom.XformCache`, every
op type and precision, ``!invert!`` ops, pivots, ``!resetXformStack!``), and this module
only splits the resulting matrix. Most stacks give ``T · R · S`` (pivots and inverted ops
included: a pivot folds into the position), which one node holds to rounding. A stack
whose 3x3 part has shear (a scale between two rotations, a scale after a rotation of a
child) cannot be one position, rotation and scale; its exact matrix is kept as two nodes,
``M = T · U · Σ · Vᵀ`` from the singular value decomposition: an outer node ``T, U, Σ``
named after the prim with ``[shear]`` and the prim's own node turned by ``Vᵀ``, so the
prim's world matrix is still exactly USD's (docs/semantics.md: the core holds TRS only).
A matrix with projective terms (``xformOp:transform`` whose last column, in USD's rows,
is not 0, 0, 0, 1) has no such split: its node holds the rest, and read.py notes it.
"""

from __future__ import annotations

import numpy as np
from pxr import Vt

from viewer.scene.math import trs_matrices

__all__ = [
    "EXACT",
    "column_matrices",
    "op_stack_text",
    "projective",
    "split_shear",
    "split_trs",
]

#: Largest entry-wise difference, relative to the matrix's largest entry, at which a
#: recomposed ``T · R · S`` still counts as the matrix itself.
EXACT = 1e-12


def column_matrices(row_matrices) -> np.ndarray:
    """pxr's row-vector matrices (Gf.Matrix4d, or an (n, 4, 4) array) as sgview's column
    vectors: the one transpose at the boundary."""
    if isinstance(row_matrices, list):  # Gf matrices: one C++ copy, not one per matrix
        row_matrices = Vt.Matrix4dArray(row_matrices) if row_matrices else []
    rows = np.asarray(row_matrices, dtype=np.float64).reshape(-1, 4, 4)
    return np.ascontiguousarray(rows.transpose(0, 2, 1))


def projective(local: np.ndarray) -> np.ndarray:
    """Which column-vector matrices (n, 4, 4) have projective terms: a last row other
    than exactly (0, 0, 0, 1), which no position, rotation and scale can hold (the split
    functions read the top three rows only). Affine op stacks give that row exactly."""
    return (local[:, 3] != np.array([0.0, 0.0, 0.0, 1.0])).any(axis=1)


def quats_of(rot: np.ndarray) -> np.ndarray:
    """Unit quaternions (x, y, z, w) of proper rotation matrices (n, 3, 3), Shepperd's
    method in every branch at once, each row taking its most stable branch."""
    m = rot
    tr = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    diag = np.stack([tr, m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    pick = np.argmax(diag, axis=1)
    q = np.empty((len(m), 4))
    with np.errstate(invalid="ignore", divide="ignore"):
        s = [2.0 * np.sqrt(np.maximum(1.0 + tr, 1e-300))]
        for k in range(3):  # 1 + m_kk - (the other two diagonal entries)
            s.append(2.0 * np.sqrt(np.maximum(1.0 + 2 * m[:, k, k] - tr, 1e-300)))
        cands = [
            np.stack(
                [
                    m[:, 2, 1] - m[:, 1, 2],
                    m[:, 0, 2] - m[:, 2, 0],
                    m[:, 1, 0] - m[:, 0, 1],
                    s[0] * s[0] / 4,
                ],
                axis=1,
            )
            / s[0][:, None],
            np.stack(
                [
                    s[1] * s[1] / 4,
                    m[:, 0, 1] + m[:, 1, 0],
                    m[:, 0, 2] + m[:, 2, 0],
                    m[:, 2, 1] - m[:, 1, 2],
                ],
                axis=1,
            )
            / s[1][:, None],
            np.stack(
                [
                    m[:, 0, 1] + m[:, 1, 0],
                    s[2] * s[2] / 4,
                    m[:, 1, 2] + m[:, 2, 1],
                    m[:, 0, 2] - m[:, 2, 0],
                ],
                axis=1,
            )
            / s[2][:, None],
            np.stack(
                [
                    m[:, 0, 2] + m[:, 2, 0],
                    m[:, 1, 2] + m[:, 2, 1],
                    s[3] * s[3] / 4,
                    m[:, 1, 0] - m[:, 0, 1],
                ],
                axis=1,
            )
            / s[3][:, None],
        ]
    for k in range(4):
        rows = pick == k
        q[rows] = cands[k][rows]
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _residual(a: np.ndarray, q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """How far ``R(q) · diag(s)`` is from `a`, relative to a's largest entry."""
    back = trs_matrices(np.zeros((len(q), 3)), q, s)[:, :3, :3]  # the core's R(q) · diag(s)
    scale = np.maximum(np.abs(a).reshape(len(a), 9).max(axis=1, initial=0.0), 1e-300)
    return np.abs(back - a).reshape(len(a), 9).max(axis=1, initial=0.0) / scale


def split_trs(local: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(positions, quaternions, scales, exact) of column-vector matrices (n, 4, 4): the
    column-length split (a mirror on the x scale); `exact` is False where the recomposed
    ``T · R · S`` misses the matrix by more than `EXACT` (shear, or a zero scale)."""
    a = local[:, :3, :3]
    scale = np.linalg.norm(a, axis=1)
    scale[np.linalg.det(a) < 0, 0] *= -1.0
    ok = (np.abs(scale) > 1e-300).all(axis=1)
    safe = np.where(ok[:, None], scale, 1.0)
    rot = a / safe[:, None, :]
    rot[~ok] = np.eye(3)
    q = quats_of(rot)
    exact = ok & (_residual(a, q, scale) <= EXACT)
    return local[:, :3, 3].copy(), q, scale, exact


def split_shear(local: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``M = T · U · Σ · Vᵀ`` for matrices (n, 4, 4) that TRS cannot hold: (positions,
    outer quaternions U, outer scales Σ, inner quaternions Vᵀ), U and Vᵀ proper
    rotations (a mirror goes into Σ)."""
    a = local[:, :3, :3]
    u, sigma, vt = np.linalg.svd(a)
    sigma = sigma.copy()
    flip_u = np.linalg.det(u) < 0
    u[flip_u, :, 2] *= -1.0
    sigma[flip_u, 2] *= -1.0
    flip_v = np.linalg.det(vt) < 0
    vt[flip_v, 2, :] *= -1.0
    sigma[flip_v, 2] *= -1.0
    return local[:, :3, 3].copy(), quats_of(u), sigma, quats_of(vt)


def op_stack_text(prim, limit: int = 12) -> str:
    """The prim's ``xformOpOrder`` as authored, in one line (``!resetXformStack!`` and
    ``!invert!`` included)."""
    ops = [str(op) for op in prim.GetAttribute("xformOpOrder").Get() or ()]
    if not ops:
        return "(no ops: identity)"
    more = f" ... (+{len(ops) - limit})" if len(ops) > limit else ""
    return ", ".join(ops[:limit]) + more
