"""Compiled loops for the Blender publisher's frame (numba, cached on disk): a frame's
worlds, channel comparisons, locals and causes in one call (`read_frame`). Blender calls
the publisher every 40 ms or so, so each step of a frame starts with cold caches: a
numpy call costs 10 to 30 us there, and one compiled call in place of a few dozen is
what keeps the publisher within Blender's frame (bench/blender_publish.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: Below this a scale column counts as zero (its rotation axis is then left out).
EPS = 1e-12


@njit(cache=True)
def derive_locals(ids, parents, world, pos, rot, scl):
    """Each of ``ids``'s local values: ``inverse(parent world) · world`` (the world itself
    for a root) split into position, unit quaternion (x y z w) and scale, as
    `viewer.scene.math.decompose` splits a ``T · R · S`` matrix (a mirror on the x scale).
    With shear (a held world: IK's stretch) the scale is the column lengths, as there, but
    the quaternion is Shepperd's of the normalised columns where decompose takes the
    nearest rotation, which needs an SVD: numba has no LAPACK without SciPy."""
    local = np.empty((3, 4))
    for k in range(ids.size):
        i = ids[k]
        p = parents[i]
        if p < 0:
            for r in range(3):
                for c in range(4):
                    local[r, c] = world[i, r, c]
        else:
            a = world[p]
            # The parent's 3x3 inverted by its adjugate (rows: cross products of columns).
            inv = np.empty((3, 3))
            inv[0, 0] = a[1, 1] * a[2, 2] - a[2, 1] * a[1, 2]
            inv[0, 1] = a[2, 1] * a[0, 2] - a[0, 1] * a[2, 2]
            inv[0, 2] = a[0, 1] * a[1, 2] - a[1, 1] * a[0, 2]
            inv[1, 0] = a[2, 0] * a[1, 2] - a[1, 0] * a[2, 2]
            inv[1, 1] = a[0, 0] * a[2, 2] - a[2, 0] * a[0, 2]
            inv[1, 2] = a[1, 0] * a[0, 2] - a[0, 0] * a[1, 2]
            inv[2, 0] = a[1, 0] * a[2, 1] - a[2, 0] * a[1, 1]
            inv[2, 1] = a[2, 0] * a[0, 1] - a[0, 0] * a[2, 1]
            inv[2, 2] = a[0, 0] * a[1, 1] - a[1, 0] * a[0, 1]
            det = a[0, 0] * inv[0, 0] + a[0, 1] * inv[1, 0] + a[0, 2] * inv[2, 0]
            for r in range(3):
                for c in range(4):
                    acc = 0.0
                    for j in range(3):
                        value = world[i, j, c] - (a[j, 3] if c == 3 else 0.0)
                        acc += inv[r, j] * value
                    local[r, c] = acc / det
        s0 = np.sqrt(local[0, 0] ** 2 + local[1, 0] ** 2 + local[2, 0] ** 2)
        s1 = np.sqrt(local[0, 1] ** 2 + local[1, 1] ** 2 + local[2, 1] ** 2)
        s2 = np.sqrt(local[0, 2] ** 2 + local[1, 2] ** 2 + local[2, 2] ** 2)
        d = (
            local[0, 0] * (local[1, 1] * local[2, 2] - local[2, 1] * local[1, 2])
            - local[0, 1] * (local[1, 0] * local[2, 2] - local[2, 0] * local[1, 2])
            + local[0, 2] * (local[1, 0] * local[2, 1] - local[2, 0] * local[1, 1])
        )
        if d < 0:
            s0 = -s0
        scale = (s0, s1, s2)
        m = np.empty((3, 3))
        for c in range(3):
            s = scale[c] if abs(scale[c]) > EPS else 1.0
            for r in range(3):
                m[r, c] = local[r, c] / s
        # Shepperd's method: divide by the largest of (trace, m00, m11, m22).
        trace = m[0, 0] + m[1, 1] + m[2, 2]
        if trace >= m[0, 0] and trace >= m[1, 1] and trace >= m[2, 2]:
            t = 2.0 * np.sqrt(max(trace + 1.0, EPS))
            q = ((m[2, 1] - m[1, 2]) / t, (m[0, 2] - m[2, 0]) / t, (m[1, 0] - m[0, 1]) / t, t / 4)
        elif m[0, 0] >= m[1, 1] and m[0, 0] >= m[2, 2]:
            t = 2.0 * np.sqrt(max(1.0 + m[0, 0] - m[1, 1] - m[2, 2], EPS))
            q = (t / 4, (m[0, 1] + m[1, 0]) / t, (m[0, 2] + m[2, 0]) / t, (m[2, 1] - m[1, 2]) / t)
        elif m[1, 1] >= m[2, 2]:
            t = 2.0 * np.sqrt(max(1.0 + m[1, 1] - m[0, 0] - m[2, 2], EPS))
            q = ((m[0, 1] + m[1, 0]) / t, t / 4, (m[1, 2] + m[2, 1]) / t, (m[0, 2] - m[2, 0]) / t)
        else:
            t = 2.0 * np.sqrt(max(1.0 + m[2, 2] - m[0, 0] - m[1, 1], EPS))
            q = ((m[0, 2] + m[2, 0]) / t, (m[1, 2] + m[2, 1]) / t, t / 4, (m[1, 0] - m[0, 1]) / t)
        norm = np.sqrt(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2)
        for c in range(3):
            pos[i, c] = local[c, 3]
            scl[i, c] = scale[c]
        if norm > EPS:
            for c in range(4):
                rot[i, c] = q[c] / norm
        else:
            rot[i, 0] = rot[i, 1] = rot[i, 2] = 0.0
            rot[i, 3] = 1.0


@njit(cache=True)
def frame_causes(
    recomputed, parents, bone, own_changed, driver_start, drivers, constraint_start, constraints
):
    """Per recomputed node (pre-order ids), why: a driver's target recomputed in this frame
    when the driver changed its channels, else itself when its channels changed (a
    keyframe, an edit), else a recomputed constraint target, else its parent's cause (the
    parent recomputed), else itself, or for a bone its armature (whose evaluation posed
    it). Drivers and constraints: each node's targets in ``drivers[driver_start[i]:
    driver_start[i + 1]]`` (the same for constraints)."""
    size = parents.size
    moved = np.zeros(size, dtype=np.bool_)
    cause = np.empty(size, dtype=np.int64)
    for i in recomputed:
        moved[i] = True
    out = np.empty(recomputed.size, dtype=np.int64)
    for k in range(recomputed.size):
        i = recomputed[k]
        found = -1
        if own_changed[i]:
            found = i
            for j in range(driver_start[i], driver_start[i + 1]):
                if moved[drivers[j]]:
                    found = drivers[j]
                    break
        if found < 0:
            for j in range(constraint_start[i], constraint_start[i + 1]):
                if moved[constraints[j]]:
                    found = constraints[j]
                    break
        p = parents[i]
        if found < 0 and p >= 0 and moved[p]:
            found = cause[p]
        if found < 0:
            found = p if bone[i] else i
        cause[i] = found
        out[k] = found
    return out


@njit(cache=True)
def read_frame(
    root, object_ids, object_matrices, armatures, armature_node, bone_start, bone_ids,
    pose, basis, world, parents, slot, last_basis, has_basis, channels,
):  # fmt: skip
    """Store one evaluation's worlds and return the recomputed ids in pre-order (``slot``
    order) with, per id, whether its own channels (``matrix_basis``) differ from the
    last ones stored (``last_basis``, ``has_basis``; only compared and kept with
    ``channels``). Objects: ``object_matrices[k]`` holds the object ``object_ids[k]``'s
    ``matrix_world`` and ``matrix_basis``; its world is ``world[root] @ matrix_world``.
    Bones: for each armature index ``a`` in ``armatures``, the bones
    ``bone_ids[bone_start[a]:bone_start[a + 1]]`` read ``pose`` and ``basis`` (float32
    ``foreach_get`` rows of 16, column by column, at the same rows) and their world is
    ``world[armature_node[a]] @ pose`` (objects first: an armature's own world may move)."""
    count = object_ids.size
    for a in armatures:
        count += bone_start[a + 1] - bone_start[a]
    ids = np.empty(count, dtype=np.int64)
    changed = np.zeros(count, dtype=np.bool_)
    top = world[root]
    n = 0
    for k in range(object_ids.size):
        i = object_ids[k]
        for r in range(4):
            for c in range(4):
                acc = 0.0
                for j in range(4):
                    acc += top[r, j] * object_matrices[k, 0, j, c]
                world[i, r, c] = acc
        if channels:
            same = has_basis[i]
            for r in range(4):
                for c in range(4):
                    value = np.float32(object_matrices[k, 1, r, c])
                    if last_basis[i, 4 * c + r] != value:
                        same = False
                    last_basis[i, 4 * c + r] = value
            has_basis[i] = True
            changed[n] = not same
        ids[n] = i
        n += 1
    for a in armatures:
        above = world[armature_node[a]]
        for row in range(bone_start[a], bone_start[a + 1]):
            i = bone_ids[row]
            base = 16 * row
            for r in range(4):
                for c in range(4):
                    acc = 0.0
                    for j in range(4):
                        acc += above[r, j] * pose[base + 4 * c + j]
                    world[i, r, c] = acc
            if channels:
                same = has_basis[i]
                for e in range(16):
                    if last_basis[i, e] != basis[base + e]:
                        same = False
                    last_basis[i, e] = basis[base + e]
                has_basis[i] = True
                changed[n] = not same
            ids[n] = i
            n += 1
    order = np.argsort(slot[ids])
    return ids[order], changed[order]


@njit(cache=True)
def publish_frame(
    root, object_ids, object_matrices, armatures, armature_node, bone_start, bone_ids,
    pose, basis, world, parents, slot, last_basis, has_basis, bone, pos, rot, scl,
    driver_start, drivers, constraint_start, constraints,
):  # fmt: skip
    """One frame in one call: `read_frame` (with the channels compared), the recomputed
    ids' locals (`derive_locals`) and causes (`frame_causes`); returns the recomputed ids
    in pre-order and their causes."""
    recomputed, changed = read_frame(
        root, object_ids, object_matrices, armatures, armature_node, bone_start, bone_ids,
        pose, basis, world, parents, slot, last_basis, has_basis, True,
    )  # fmt: skip
    derive_locals(recomputed, parents, world, pos, rot, scl)
    own_changed = np.zeros(parents.size, dtype=np.bool_)
    for k in range(recomputed.size):
        own_changed[recomputed[k]] = changed[k]
    cause = frame_causes(
        recomputed, parents, bone, own_changed, driver_start, drivers, constraint_start,
        constraints,
    )  # fmt: skip
    return recomputed, cause
