"""PointInstancers as GPU instances (the path glTF's EXT_mesh_gpu_instancing takes).

The instancer prim is a node; each gprim of each prototype becomes one `InstancedNode`
on it, with one matrix per instance of that prototype: USD's instance transform
(``ComputeInstanceTransformsAtTime``, which applies positions, orientations, scales,
the prototype root's own transform, ``invisibleIds`` and the mask) times the gprim's
transform below its prototype root. Instance k is drawn at ``world(instancer) @
locals[k]``, so moving the instancer re-poses all its instances, which glow with it.
The instances are read at the stage's start time code (animated instance data is noted).
"""

from __future__ import annotations

import numpy as np
from pxr import Usd, UsdGeom

from viewer.content.geometry import InstancedNode
from viewer.io.errors import SceneError
from viewer.io.usd.xforms import column_matrices

__all__ = ["instanced_nodes"]


def _gprims(root) -> list:
    predicate = Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)
    return [p for p in Usd.PrimRange(root, predicate) if p.IsA(UsdGeom.Gprim)]


def instanced_nodes(prim, row: int, time, mesh_of, display: str, budget,
                    notes: set[str]) -> list[InstancedNode]:  # fmt: skip
    """The instanced nodes of the PointInstancer `prim` on model row `row`. `mesh_of(p)`
    gives a gprim's (mesh key, colour) or None when it draws nothing."""
    inst = UsdGeom.PointInstancer(prim)
    where = {"file": display, "section": f"prim {prim.GetPath()}"}
    proto_ids = np.asarray(inst.GetProtoIndicesAttr().Get(time) or [], dtype=np.int64)
    reason = budget.charge_data(128 * len(proto_ids))
    if reason is not None:
        raise SceneError(reason, **where, field="protoIndices")
    if inst.GetPositionsAttr().GetNumTimeSamples() > 1:
        notes.add(f"{prim.GetPath()}: animated instances are shown at the start time code")
    matrices = inst.ComputeInstanceTransformsAtTime(time, time)
    targets = inst.GetPrototypesRel().GetTargets()
    if len(proto_ids) and (proto_ids.min() < 0 or proto_ids.max() >= len(targets)):
        raise SceneError(f"expected prototype indices in 0..{len(targets) - 1}", **where,
                         field="protoIndices")  # fmt: skip
    kept = np.asarray(inst.ComputeMaskAtTime(time) or [True] * len(proto_ids), dtype=bool)
    ids = proto_ids[kept] if len(kept) == len(proto_ids) else proto_ids
    if matrices is None or len(matrices) != len(ids):
        raise SceneError("its instance data does not agree (protoIndices, positions, "
                         "orientations, scales: one value per instance)", **where,
                         field="protoIndices")  # fmt: skip
    local = column_matrices(matrices) if len(matrices) else np.zeros((0, 4, 4))
    cache = UsdGeom.XformCache(time)
    out = []
    stage = prim.GetStage()
    single = len(targets) == 1  # the common case: no copy of the instances per prototype
    for k, target in enumerate(targets):
        chosen = local if single else local[ids == k]
        proto = stage.GetPrimAtPath(target)
        if not len(chosen) or not proto:
            continue
        for gprim in _gprims(proto):
            drawn = mesh_of(gprim)
            if drawn is None:
                continue
            placed = chosen
            if gprim != proto:  # the gprim's place below its prototype's root
                rel = column_matrices(cache.ComputeRelativeTransform(gprim, proto)[0])[0]
                placed = chosen @ rel
            out.append(InstancedNode(row, drawn[0], drawn[1], placed))
    return out
