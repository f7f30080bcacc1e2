"""PointInstancers as GPU instances (the path glTF's EXT_mesh_gpu_instancing takes).

The instancer prim is a node; each gprim of each prototype becomes one `InstancedNode`
on it, with one matrix per instance of that prototype: USD's instance transform
(``ComputeInstanceTransformsAtTime``, which applies positions, orientations, scales,
the prototype root's own transform, ``invisibleIds`` and the mask) times the gprim's
transform below its prototype root. Instance k is drawn at ``world(instancer) @
locals[k]``, so moving the instancer re-poses all its instances, which glow with it.

Animated instance data (time-sampled positions, orientations, scales, velocities,
prototype indices, ``invisibleIds`` or prototype roots) plays as the stage's other time
samples do: pxr computes every instance's transform at each key's time code (timeline.py),
one call a key, and the instancer node gets one ``"instances"`` channel holding every
instance matrix of its items at each key (`Geometry.set_instances` writes them). Where
the number of instances of a prototype varies, its items hold the most any key has, the
rows a key does not use zero (nothing drawn), and the keys step rather than blend
(each a nanosecond early, `STEP_EARLY`).
"""

from __future__ import annotations

import numpy as np
from pxr import Usd, UsdGeom

from viewer.animation.clip import Channel
from viewer.content.geometry import InstancedNode
from viewer.io.errors import ErrorPlace, SceneError
from viewer.io.limits import Budget
from viewer.io.usd.timeline import MAX_SAMPLES, Timeline
from viewer.io.usd.xforms import column_matrices

__all__ = ["INSTANCE_ATTRIBUTES", "instanced_nodes"]

#: How much earlier (seconds) a stepped key starts than the frame it is keyed at: a later
#: loop's frame time lands an ulp beside its key (timeline.py), and stepping from an ulp
#: short of a key would show the key before it.
STEP_EARLY = 1e-9
#: The instancer's attributes whose samples move instances.
INSTANCE_ATTRIBUTES = (
    "positions",
    "orientations",
    "orientationsf",
    "scales",
    "velocities",
    "angularVelocities",
    "accelerations",
    "protoIndices",
    "invisibleIds",
)


def _gprims(root) -> list:
    predicate = Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)
    return [p for p in Usd.PrimRange(root, predicate) if p.IsA(UsdGeom.Gprim)]


def _varies(inst, prototypes: list, where: ErrorPlace) -> bool:
    """Whether the instance transforms may change over time (each attribute's samples
    within `MAX_SAMPLES`)."""
    prim = inst.GetPrim()
    varies = False
    for name in INSTANCE_ATTRIBUTES:
        attr = prim.GetAttribute(name)
        count = attr.GetNumTimeSamples() if attr else 0
        if count > MAX_SAMPLES:
            raise SceneError(
                f"{count:,} time samples, over the limit of {MAX_SAMPLES:,}", **where, field=name
            )
        varies = varies or (attr and attr.ValueMightBeTimeVarying())
    if varies:
        return True
    return any(
        UsdGeom.Xformable(p).TransformMightBeTimeVarying()
        for p in prototypes
        if p and p.IsA(UsdGeom.Xformable)
    )


def _instances_at(
    inst, code, count: int, where: ErrorPlace, budget: Budget
) -> tuple[np.ndarray, np.ndarray]:
    """(prototype index of each drawn instance (n,), its matrix (n, 4, 4), column vectors)
    at time code `code`, checked against `count` prototypes and charged to `budget`."""
    proto_ids = np.asarray(inst.GetProtoIndicesAttr().Get(code) or [], dtype=np.int64)
    reason = budget.charge_data(128 * len(proto_ids))
    if reason is not None:
        raise SceneError(reason, **where, field="protoIndices")
    if len(proto_ids) and (proto_ids.min() < 0 or proto_ids.max() >= count):
        raise SceneError(
            f"expected prototype indices in 0..{count - 1}", **where, field="protoIndices"
        )
    matrices = inst.ComputeInstanceTransformsAtTime(code, code)
    mask = inst.ComputeMaskAtTime(code)
    kept = np.asarray(mask, dtype=bool) if len(mask) else np.ones(len(proto_ids), bool)
    ids = proto_ids[kept] if len(kept) == len(proto_ids) else proto_ids
    if matrices is not None and len(matrices) == len(proto_ids) != len(ids):
        matrices = np.asarray(matrices)[kept]  # pxr leaves a lone hidden instance unmasked
    if matrices is None or len(matrices) != len(ids):
        raise SceneError(
            "its instance data does not agree (protoIndices, positions, "
            "orientations, scales: one value per instance)",
            **where,
            field="protoIndices",
        )
    return ids, column_matrices(matrices) if len(matrices) else np.zeros((0, 4, 4))


def instanced_nodes(
    prim, row: int, time, mesh_of, display: str, budget, timeline: Timeline | None = None
) -> tuple[list[InstancedNode], list]:
    """(the instanced nodes of the PointInstancer `prim` on model row `row`, its
    ``"instances"`` channel in a list, empty when it does not move over `timeline`).
    `mesh_of(p)` gives a gprim's (mesh key, colour) or None when it draws nothing."""
    inst = UsdGeom.PointInstancer(prim)
    where: ErrorPlace = {"file": display, "section": f"prim {prim.GetPath()}"}
    stage = prim.GetStage()
    targets = inst.GetPrototypesRel().GetTargets()
    protos = [stage.GetPrimAtPath(target) for target in targets]
    moving = timeline is not None and timeline.animated and _varies(inst, protos, where)
    over = timeline if moving else None  # the timeline the instances move over
    animated = over is not None
    times = over.key_times() if over is not None else np.zeros(1)
    codes = [Usd.TimeCode(over.key_code(t)) for t in times] if over is not None else [time]
    keys = [_instances_at(inst, code, len(targets), where, budget) for code in codes]
    # the rows each prototype needs: the most instances of it at any key
    rows = [max(int((ids == k).sum()) for ids, _ in keys) for k in range(len(targets))]
    steady = all(len(ids) == len(keys[0][0]) and np.array_equal(ids, keys[0][0]) for ids, _ in keys)
    cache = UsdGeom.XformCache(time)
    out, frames = [], []
    for k, proto in enumerate(protos):
        if not rows[k] or not proto:
            continue
        for gprim in _gprims(proto):
            drawn = mesh_of(gprim)
            if drawn is None:
                continue
            rel = None
            if gprim != proto:  # the gprim's place below its prototype's root
                rel = column_matrices(cache.ComputeRelativeTransform(gprim, proto)[0])[0]
            per_key = [local if len(targets) == 1 else local[ids == k] for ids, local in keys]
            per_key = [m if rel is None else m @ rel for m in per_key]
            if not animated:
                out.append(InstancedNode(row, drawn[0], drawn[1], per_key[0]))
                continue
            reason = budget.charge_data(128 * len(keys) * rows[k])
            if reason is not None:
                raise SceneError(reason, **where, field="positions")
            placed = np.zeros((len(keys), rows[k], 4, 4))
            for f, chosen in enumerate(per_key):
                placed[f, : len(chosen)] = chosen
            out.append(InstancedNode(row, drawn[0], drawn[1], placed[0].copy()))
            frames.append(placed.reshape(len(keys), -1))
    if not animated or not frames:
        return out, []
    values = np.concatenate(frames, axis=1)
    if steady:
        return out, [Channel(row, "instances", "LINEAR", times, values)]
    early = np.where(np.arange(len(times)) > 0, times - STEP_EARLY, times)
    return out, [Channel(row, "instances", "STEP", early, values)]
