"""What-if evaluation: the world matrices a graph would have with some local values
replaced, computed by the core's own kernel and leaving the graph as it is.

The camera frames an animated scene over a few poses of its clip (`viewer.render.
pose_bounds`), and such questions must not edit the graph: its flags, its frame report
and its log would tell of changes nobody made. `worlds_with` copies the graph's local
values (its public read-outs), puts the overrides in their place, and runs the same
`recompute` loop as ``update()`` (``T · R · S`` of ``trs.py``, world = parent's world ·
local, docs/semantics.md) over every live node in pre-order on scratch arrays. So there
is one evaluator: the oracle and property tests that check the core check this too.
"""

from __future__ import annotations

import numpy as np

from .flags import NEW
from .kernel_set import current

__all__ = ["worlds_with"]

Override = tuple[np.ndarray, np.ndarray]  # (node ids [k], values [k, 3] or [k, 4])


def worlds_with(
    graph,
    *,
    positions: Override | None = None,
    rotations: Override | None = None,
    scales: Override | None = None,
) -> np.ndarray:
    """World matrices ``[N, 4, 4]`` (row ``i`` = node id ``i``, as ``world_matrices()``)
    that `graph` would have with the given local values in place of its own.

    Each override is ``(ids, values)``: positions ``[k, 3]``, quaternions ``(x, y, z, w)``
    ``[k, 4]`` (normalised here, as the setters do) or scales ``[k, 3]``. Rows of removed
    ids are the identity. The graph, its flags and its next report are left untouched.
    """
    pos, rot, scl = (np.array(v, dtype=np.float64) for v in graph.local_values())
    for field, override in ((pos, positions), (rot, rotations), (scl, scales)):
        if override is not None:
            ids, values = override
            field[np.asarray(ids, dtype=np.int64)] = values
    if rotations is not None:
        ids = np.asarray(rotations[0], dtype=np.int64)
        norm = np.linalg.norm(rot[ids], axis=1, keepdims=True)
        rot[ids] /= np.maximum(norm, 1e-300)
    order = np.ascontiguousarray(graph.alive_ids(), dtype=np.int64)
    parents = np.ascontiguousarray(graph.parents(), dtype=np.int64)
    n = parents.shape[0]
    world = np.zeros((n, 16))
    world[:, [0, 5, 10, 15]] = 1.0  # identity; row 3 stays (0, 0, 0, 1) for every node
    flags = np.full(n, NEW, dtype=np.uint8)  # everything to do, as for a new node
    version = np.zeros(n, dtype=np.int64)
    starts = np.zeros(1, dtype=np.int64)
    ends = np.full(1, order.shape[0], dtype=np.int64)
    current().recompute(starts, ends, False, order, parents, flags, pos, rot, scl, world, version)
    return world.reshape(n, 4, 4)
