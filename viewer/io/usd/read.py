"""A USD stage as a model the shared builder adds to a scene (viewer/io/_build.py).

The model is the one glTF files become (`GltfModel`: names, parents, local values, looks,
meshes, clips, instancing), plus each node's key and inspector rows: the prim path (what
``--dump-world`` keys the node by), its type and ``xformOpOrder``, and how its local
matrix is held (xforms.py). The stage's up axis and meters per unit become one root
node, ``stage``, when they are not Y and 1: it turns the stage Y-up and scales it to
metres, and the panel's note says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pxr import Usd, UsdGeom

from viewer.animation.clip import Channel, Clip
from viewer.content.scene import Look
from viewer.io.gltf_read.scene import GltfModel
from viewer.io.limits import Budget, Limits
from viewer.io.usd.instancer import instanced_nodes
from viewer.io.usd.looks import display_color, mesh_surface
from viewer.io.usd.shapes import SHAPES, mesh_arrays, shape_arrays
from viewer.io.usd.stage import open_stage
from viewer.io.usd.timeline import bake, timeline_of
from viewer.io.usd.traverse import walk_prims
from viewer.io.usd.xforms import column_matrices, op_stack_text, split_shear, split_trs
from viewer.scene.math import quat_from_axis_angle

__all__ = ["UsdModel", "model_of_stage", "read_usd"]

#: The clip of a stage's time-sampled transforms.
CLIP_NAME = "timeSamples"
#: How a node holds its prim's local matrix (the inspector's "matrix" row).
_TRS = "position, rotation, scale (exact)"
_SHEARED = "sheared: exact as the [shear] node above times this node's rotation"
_OUTER = "position, U and Σ of the prim's M = T·U·Σ·Vᵀ (Vᵀ: the prim's node)"


@dataclass
class UsdModel(GltfModel):
    """A `GltfModel` with, per row, its key (a prim path; ``PATH[shear]`` for the outer
    node of a sheared prim, ``/`` for the stage's root node) and its inspector rows."""

    keys: list[str] = field(default_factory=list)
    details: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    #: The row of each prim path (its own node, the inner one of a sheared prim).
    row_of: dict[str, int] = field(default_factory=dict)


def read_usd(path: Path, display: str, limits: Limits) -> UsdModel:
    """Open the USD file `path` within `limits` (see stage.py) and read it."""
    return model_of_stage(open_stage(path, display, limits), path, display, limits)


def _stage_root(stage: Usd.Stage) -> tuple[np.ndarray | None, str]:
    """The root rotation quaternion and uniform scale, or None when identity; the line
    that says so."""
    up = UsdGeom.GetStageUpAxis(stage)
    meters = UsdGeom.GetStageMetersPerUnit(stage)
    what = f"{up} up, {meters:g} m per unit"
    if up == UsdGeom.Tokens.y and meters == 1.0:
        return None, f"{what}: no root transform"
    turn = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), -90.0 if up == "Z" else 0.0)
    root = np.concatenate([turn, [meters]])
    return root, f"{what}: the root node 'stage' turns it Y up and scales it to metres"


class _Builder:
    """Collects the model's rows one prim at a time (see `model_of_stage`)."""

    def __init__(self, model: UsdModel) -> None:
        self.m = model
        self.pos: list = []
        self.rot: list = []
        self.scl: list = []
        self.parents: list[int] = []

    def add(self, name, key, parent, t, q, s, details) -> int:
        m = self.m
        m.names.append(name)
        m.keys.append(key)
        m.details.append(details)
        self.parents.append(parent)
        self.pos.append(t)
        self.rot.append(q)
        self.scl.append(s)
        return len(m.names) - 1

    def finish(self) -> None:
        m = self.m
        m.parents = np.asarray(self.parents, dtype=np.int64)
        m.positions = np.asarray(self.pos, dtype=np.float64).reshape(-1, 3)
        m.rotations = np.asarray(self.rot, dtype=np.float64).reshape(-1, 4)
        m.scales = np.asarray(self.scl, dtype=np.float64).reshape(-1, 3)
        m.looks = [None] * len(m.names)


def model_of_stage(stage: Usd.Stage, path: Path, display: str, limits: Limits) -> UsdModel:
    """The model of an open stage (a file's, or a user's own)."""
    budget = Budget(limits)
    prims = walk_prims(stage, display, limits)
    timeline = timeline_of(stage, display)
    time = Usd.TimeCode(timeline.start)
    cache = UsdGeom.XformCache(time)
    local = column_matrices([cache.GetLocalTransformation(p)[0] for p in prims.prims])
    animated, times, frames = bake(prims.prims, timeline, display, limits)
    t, q, s, exact = split_trs(local)
    frame_split = [split_trs(frames[:, j]) for j in range(len(animated))]
    for j, i in enumerate(animated):
        exact[i] &= bool(frame_split[j][3].all())
    shear = split_shear(local[~exact]) if (~exact).any() else None
    shear_at = {int(i): k for k, i in enumerate(np.flatnonzero(~exact))}
    model = UsdModel(path=path, title=path.stem)
    b = _Builder(model)
    root, root_line = _stage_root(stage)
    top = -1
    if root is not None:
        top = b.add("stage", "/", -1, np.zeros(3), root[:4], np.full(3, root[4]),
                    (("stage", root_line),))  # fmt: skip
    model.notes.append(f"{display}: {root_line}; {timeline.describe()}")
    new_row = np.empty(len(prims), dtype=np.int64)
    outer_of: dict[int, int] = {}
    for i, prim in enumerate(prims.prims):
        parent = prims.parents[i]
        parent = top if parent < 0 else int(new_row[parent])
        path_text = prims.paths[i]
        stack = op_stack_text(UsdGeom.Xformable(prim))
        rows = [("prim", path_text), ("type", str(prim.GetTypeName()) or "(untyped)"),
                ("xformOpOrder", stack), ("stage", root_line)]  # fmt: skip
        if prims.resets[i]:
            rows.append(("parent", "!resetXformStack!: hangs from the stage, not its parent"))
        if i in shear_at:
            k = shear_at[i]
            outer_rows = (("shear of", path_text), ("holds", _OUTER))
            outer = b.add(prim.GetName() + "[shear]", path_text + "[shear]", parent,
                          shear[0][k], shear[1][k], shear[2][k], outer_rows)  # fmt: skip
            outer_of[i] = outer
            new_row[i] = b.add(prims.names[i], path_text, outer, np.zeros(3), shear[3][k],
                               np.ones(3), (*rows, ("matrix", _SHEARED)))  # fmt: skip
        else:
            new_row[i] = b.add(prims.names[i], path_text, parent, t[i], q[i], s[i],
                               (*rows, ("matrix", _TRS)))  # fmt: skip
        model.row_of[path_text] = int(new_row[i])
    b.finish()
    _clip(model, animated, times, frames, frame_split, new_row, outer_of)
    _geometry(model, prims.prims, new_row, time, display, budget)
    for purpose, count in sorted(prims.skipped.items()):
        model.notes.append(f"{display}: {count:,} prims of purpose {purpose!r} are not shown")
    return model


def _clip(model, animated, times, frames, frame_split, new_row, outer_of) -> None:
    channels = []
    for j, i in enumerate(animated):
        if i in outer_of:
            t, u, sigma, vt = split_shear(frames[:, j])
            outer = outer_of[i]
            channels += [Channel(outer, "translation", "LINEAR", times, t),
                         Channel(outer, "rotation", "LINEAR", times, u),
                         Channel(outer, "scale", "LINEAR", times, sigma),
                         Channel(int(new_row[i]), "rotation", "LINEAR", times, vt)]  # fmt: skip
            continue
        t, q, s, _ = frame_split[j]
        row = int(new_row[i])
        channels += [Channel(row, "translation", "LINEAR", times, t),
                     Channel(row, "rotation", "LINEAR", times, q),
                     Channel(row, "scale", "LINEAR", times, s)]  # fmt: skip
    if channels:
        model.clips.append(Clip(CLIP_NAME, tuple(channels)))


def _geometry(model: UsdModel, prims: list, new_row, time, display: str, budget) -> None:
    """Looks and meshes of the gprims, instances of the PointInstancers."""
    resolved = str(model.path.resolve()) if model.path.exists() else str(model.path)
    notes: set[str] = set()
    drawn: dict[str, tuple[str, tuple] | None] = {}

    def mesh_of(prim):
        source = prim.GetPrimInPrototype() if prim.IsInstanceProxy() else prim
        key = f"{resolved}#{source.GetPath()}"
        if key not in drawn:
            drawn[key] = _read_gprim(model, source, key, time, display, budget, notes)
        return drawn[key]

    for i, prim in enumerate(prims):
        row = int(new_row[i])
        if prim.IsA(UsdGeom.PointInstancer):
            model.geometry.instanced += instanced_nodes(prim, row, time, mesh_of, display,
                                                        budget, notes)  # fmt: skip
        elif prim.IsA(UsdGeom.Gprim):
            got = mesh_of(prim)
            if got is not None:
                model.looks[row] = Look(mesh=got[0], size=(1.0, 1.0, 1.0), color=got[1])
    model.notes += [f"{display}: {note}" for note in sorted(notes)]


def _read_gprim(model, prim, key, time, display, budget, notes):
    """Read a gprim's mesh into the model once; (mesh key, colour), or None."""
    kind = str(prim.GetTypeName())
    faces = None
    if kind == "Mesh":
        got = mesh_arrays(prim, time, display, budget)
        if got is None:
            return None
        pos, nrm, idx, faces = got
    elif kind in SHAPES:
        (pos, nrm, idx), _ = shape_arrays(prim, time)
    else:
        notes.add(f"{kind} prims are not drawn")
        return None
    color, vcolors = display_color(prim, time, len(pos))
    if faces is None:
        faces = np.arange(len(idx) // 3)
    idx, surface = mesh_surface(prim, idx, faces, pos, vcolors, notes)
    model.mesh_data[key] = (pos, nrm, idx)
    if surface is not None:
        model.surfaces[key] = surface
        color = tuple(float(c) for c in surface.parts[0].material.base_color[:3]) if (
            vcolors is None and surface.parts) else color  # fmt: skip
    return key, color
