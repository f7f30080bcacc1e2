"""The naive reference the core is checked against: written independently of viewer.scene.

A local matrix is built as three explicit products T @ R @ S with R from Rodrigues'
formula (not the quaternion-to-matrix formula the core uses), and a world matrix is the
plain product of local matrices along the root path. Slow on purpose.
"""

from __future__ import annotations

import numpy as np


def rotation_from_quaternion(q) -> np.ndarray:
    """3x3 rotation through axis and angle (Rodrigues)."""
    x, y, z, w = np.asarray(q, dtype=float) / np.linalg.norm(q)
    s = np.sqrt(x * x + y * y + z * z)
    if s < 1e-15:
        return np.eye(3)
    angle = 2.0 * np.arctan2(s, w)
    k = np.array([x, y, z]) / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) * np.cos(angle) + np.sin(angle) * kx + (1 - np.cos(angle)) * np.outer(k, k)


def rotation_from_euler(deg) -> np.ndarray:
    """R = Rz · Ry · Rx, degrees."""
    rx, ry, rz = np.radians(np.asarray(deg, dtype=float))
    cx, sx, cy, sy, cz, sz = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry), np.cos(rz), np.sin(rz)
    mx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    my = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    mz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return mz @ my @ mx


def local_matrix(position, quaternion, scale) -> np.ndarray:
    """T @ R @ S as three products."""
    t = np.eye(4)
    t[:3, 3] = position
    r = np.eye(4)
    r[:3, :3] = rotation_from_quaternion(quaternion)
    s = np.diag([*np.asarray(scale, dtype=float), 1.0])
    return t @ r @ s


def world_matrix(path_locals) -> np.ndarray:
    """local_1 · local_2 · … · local_k for a root-first path."""
    m = np.eye(4)
    for local in path_locals:
        m = m @ local
    return m


def rel_error(a, b) -> float:
    """max |a - b| relative to the size of b (at least 1)."""
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(1.0, np.max(np.abs(b))))


def rotation_about_axis(axis, degrees) -> np.ndarray:
    """3x3 rotation by ``degrees`` about ``axis`` (Rodrigues, straight from axis and angle)."""
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    a = np.radians(degrees)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * (kx @ kx)


def local_shear(parent_world, world) -> float:
    """How far from TRS the local matrix is that keeps ``world`` under ``parent_world``:
    the largest cosine between two of its axes (0 when position, rotation and scale can
    express it), through an explicit inverse."""
    a = (np.linalg.inv(parent_world) @ world)[:3, :3]
    n = np.linalg.norm(a, axis=0)
    if (n < 1e-12).any():
        return 0.0
    u = a / n
    g = u.T @ u
    return float(max(abs(g[0, 1]), abs(g[0, 2]), abs(g[1, 2])))
