"""EXT_mesh_gpu_instancing: a node's mesh drawn once per instance.

The extension gives the node TRANSLATION, ROTATION and SCALE accessors (any of them, all
of one count); instance k is drawn at ``world(node) @ T_k @ R_k @ S_k``. Rotations may be
normalized integers (the glTF rule for decoding them applies) and are normalised; values
must be finite. The matrices are computed here once, in the node's space, by the core's
formula (`viewer.scene.math.trs_matrices`); the renderer multiplies them by the node's
world matrix whenever the node is recomputed.
"""

from __future__ import annotations

import numpy as np

from viewer.io.gltf_read.data import GltfFile
from viewer.scene.math import trs_matrices

__all__ = ["MAX_INSTANCES", "instance_matrices"]

#: Instances per node (each is one row of an instance buffer).
MAX_INSTANCES = 1 << 20

_FIELDS = (("TRANSLATION", ("VEC3",)), ("ROTATION", ("VEC4",)), ("SCALE", ("VEC3",)))


def instance_matrices(gltf: GltfFile, node: dict, where: str) -> np.ndarray | None:
    """The (N, 4, 4) instance matrices of a node, None when it is not instanced."""
    ext = node.get("extensions")
    if not isinstance(ext, dict) or ext.get("EXT_mesh_gpu_instancing") is None:
        return None
    where = f"{where} EXT_mesh_gpu_instancing"
    attrs = gltf.obj(
        gltf.obj(ext["EXT_mesh_gpu_instancing"], where).get("attributes"), f"{where} attributes"
    )
    values = {}
    for name, types in _FIELDS:
        if attrs.get(name) is not None:
            arr = gltf.floats(attrs[name], f"{where} {name}", types)
            if not np.all(np.isfinite(arr)) or np.abs(arr).max(initial=0.0) > 1e9:
                raise gltf.error(where, f"{name} must be finite numbers within ±1e9")
            values[name] = arr
    counts = {len(v) for v in values.values()}
    if not values:
        raise gltf.error(where, "expected TRANSLATION, ROTATION or SCALE attributes")
    if len(counts) > 1:
        raise gltf.error(where, f"the attributes have different counts {sorted(counts)}")
    n = counts.pop()
    if n > MAX_INSTANCES:
        raise gltf.error(where, f"{n:,} instances; up to {MAX_INSTANCES:,} are drawn")
    t = values.get("TRANSLATION", np.zeros((n, 3)))
    r = values.get("ROTATION", np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))
    s = values.get("SCALE", np.ones((n, 3)))
    norms = np.linalg.norm(r, axis=1)
    if not np.all(norms > 1e-12):
        raise gltf.error(where, "a ROTATION is the zero quaternion")
    return trs_matrices(t, r / norms[:, None], s)
