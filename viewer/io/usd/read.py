"""A USD stage as a model the shared builder adds to a scene (viewer/io/_build.py).

The model is the one glTF files become (`GltfModel`: names, parents, local values, looks,
meshes, clips, instancing), plus each node's key: its prim path (what ``--dump-world``
keys the node by; inspect.py reads the inspector's rows from the stage by it). A prim is
one node, or two when its matrix is sheared (xforms.py). The stage's up axis and meters
per unit become one root node, ``stage``, when they are not Y and 1: it turns the stage
Y-up and scales it to metres, and the note printed at start says so. Time-sampled
transforms and instances play as one clip (timeline.py, instancer.py), and so do a
mesh's time-sampled points, as morph targets (`moving_points`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pxr import Gf, Usd, UsdGeom

from viewer.animation.clip import Channel, Clip
from viewer.content.geometry import MorphedNode, MorphTargets
from viewer.content.scene import Look
from viewer.io.errors import ErrorPlace, SceneError
from viewer.io.gltf_read.scene import GltfModel
from viewer.io.limits import Budget, Limits
from viewer.io.usd.cameras import camera_of
from viewer.io.usd.instancer import instanced_nodes
from viewer.io.usd.looks import display_color, materials_of, mesh_surface
from viewer.io.usd.shapes import SHAPES, MeshRead, mesh_arrays, shape_arrays
from viewer.io.usd.stage import composition_notes, open_stage
from viewer.io.usd.textures import TextureReader
from viewer.io.usd.timeline import bake, timeline_of
from viewer.io.usd.traverse import Visibility, walk_prims
from viewer.io.usd.xforms import column_matrices, projective, split_shear, split_trs
from viewer.scene.math import quat_from_axis_angle

__all__ = [
    "CLIP_NAME",
    "UsdModel",
    "mesh_prefix",
    "model_of_stage",
    "prim_channels",
    "read_gprim",
    "read_usd",
]

#: The clip of a stage's time-sampled transforms.
CLIP_NAME = "timeSamples"
#: The most time samples of a mesh's points played (each one a morph target).
MAX_POINT_SAMPLES = 1024


@dataclass
class UsdModel(GltfModel):
    """A `GltfModel` with, per row, its key (a prim path; ``PATH[shear]`` for the outer
    node of a sheared prim, ``/`` for the stage's root node), and the stage with the
    line about its up axis and units (for the inspector, inspect.py)."""

    keys: list[str] = field(default_factory=list)
    stage: object = None
    root_line: str = ""


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


def _assemble(
    model: UsdModel,
    prims,
    trs: tuple[np.ndarray, np.ndarray, np.ndarray],
    shear: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None,
    sheared: np.ndarray,
    root: np.ndarray | None,
) -> np.ndarray:
    """Fill the model's rows in pre-order (the root node, then each prim, a sheared
    prim's outer node just before it), in bulk; returns each prim's row."""
    n = len(prims)
    offset = 0 if root is None else 1
    new_row = offset + np.arange(n) + np.cumsum(sheared)
    total = offset + n + int(sheared.sum())
    up = np.asarray(prims.parents, dtype=np.int64)
    parent = np.where(up < 0, -1 if root is None else 0, new_row[np.maximum(up, 0)])
    parents = np.full(total, -1, np.int64)
    pos = np.zeros((total, 3))
    rot = np.tile([0.0, 0.0, 0.0, 1.0], (total, 1))
    scl = np.ones((total, 3))
    plain = ~sheared
    rows = new_row[plain]
    t, q, s = trs
    parents[rows], pos[rows], rot[rows], scl[rows] = parent[plain], t[plain], q[plain], s[plain]
    if shear is not None:
        inner = new_row[sheared]
        outer = inner - 1
        parents[outer], pos[outer], rot[outer], scl[outer] = parent[sheared], *shear[:3]
        parents[inner], rot[inner] = outer, shear[3]
    names, keys = ([], []) if root is None else (["stage"], ["/"])
    if root is not None:
        rot[0], scl[0] = root[:4], root[4]
    for name, key, cut in zip(prims.names, prims.paths, sheared.tolist(), strict=True):
        if cut:
            names.append(name + "[shear]")
            keys.append(key + "[shear]")
        names.append(name)
        keys.append(key)
    model.names, model.keys, model.parents = names, keys, parents
    model.positions, model.rotations, model.scales = pos, rot, scl
    model.looks = [None] * total
    return new_row


def model_of_stage(stage: Usd.Stage, path: Path, display: str, limits: Limits) -> UsdModel:
    """The model of an open stage (a file's, or a user's own)."""
    budget = Budget(limits, format="USD")
    timeline = timeline_of(stage, display)
    time = Usd.TimeCode(timeline.start)
    prims = walk_prims(stage, display, limits, UsdGeom.XformCache(time))
    local = column_matrices(prims.locals)
    animated, times, frames = bake(prims.prims, timeline, display, limits)
    t, q, s, exact = split_trs(local)
    frame_split = [split_trs(frames[:, j]) for j in range(len(animated))]
    for j, i in enumerate(animated):
        exact[i] &= bool(frame_split[j][3].all())
    root, root_line = _stage_root(stage)
    model = UsdModel(path=path, title=path.stem, stage=stage, root_line=root_line)
    model.notes.append(f"{display}: {root_line}; {timeline.describe()}")
    model.notes += [f"{display}: {note}" for note in composition_notes(stage)]
    _projective_notes(model, prims.paths, local, animated, frames, display)
    sheared = ~exact
    shear = split_shear(local[sheared]) if sheared.any() else None
    new_row = _assemble(model, prims, (t, q, s), shear, sheared, root)
    outer_of = {int(i): int(new_row[i]) - 1 for i in np.flatnonzero(sheared)}
    played = _geometry(model, prims, new_row, timeline, display, budget)
    notes: set[str] = set()
    meters = UsdGeom.GetStageMetersPerUnit(stage)
    found = (camera_of(prims.prims[i], int(new_row[i]), time, meters, notes) for i in prims.cameras)
    model.cameras = [cam for cam in found if cam is not None]
    model.notes += [f"{display}: {note}" for note in sorted(notes)]
    _clip(model, animated, times, frames, frame_split, new_row, outer_of, played)
    for purpose, count in sorted(prims.skipped.items()):
        model.notes.append(f"{display}: {count:,} prims of purpose {purpose!r} are not shown")
    return model


def _projective_notes(model, paths, local, animated, frames, display: str) -> None:
    """One note per prim whose matrix, at the start or on any baked frame, has projective
    terms (a last row other than 0, 0, 0, 1 in column vectors): its node holds the affine
    part, as the core's nodes hold position, rotation and scale only."""
    bent = projective(local)
    for j, i in enumerate(animated):
        bent[i] |= bool(projective(frames[:, j]).any())
    for i in np.flatnonzero(bent).tolist():
        terms = ", ".join(f"{v:g}" for v in local[i, 3].tolist())
        model.notes.append(
            f"{display}: {paths[i]}: the projective terms of its matrix (last column "
            f"{terms} in USD's rows) are not shown; its node holds the rest"
        )


def _clip(model, animated, times, frames, frame_split, new_row, outer_of, played) -> None:
    """The baked frames as one clip: each animated prim's channels (`prim_channels`),
    and the `played` instance channels of the animated PointInstancers."""
    channels = list(played)
    for j, i in enumerate(animated):
        channels += prim_channels(
            times,
            frames[:, j],
            int(new_row[i]),
            outer_of.get(i),
            None if i in outer_of else frame_split[j],
        )
    if channels:
        model.clips.append(Clip(CLIP_NAME, tuple(channels)))


def prim_channels(
    times: np.ndarray, frames: np.ndarray, node: int, outer: int | None, split=None
) -> list[Channel]:
    """The channels that play one prim's baked local matrices `frames` (F, 4, 4) at key
    `times`: translation, rotation and scale of its `node` (`split`: `split_trs` of the
    frames, when known), or, sheared, those of its `outer` node and its own node's
    rotation."""
    if outer is not None:
        t, u, sigma, vt = split_shear(frames)
        return [
            Channel(outer, "translation", "LINEAR", times, t),
            Channel(outer, "rotation", "LINEAR", times, u),
            Channel(outer, "scale", "LINEAR", times, sigma),
            Channel(node, "rotation", "LINEAR", times, vt),
        ]
    t, q, s, _ = split_trs(frames) if split is None else split
    return [
        Channel(node, "translation", "LINEAR", times, t),
        Channel(node, "rotation", "LINEAR", times, q),
        Channel(node, "scale", "LINEAR", times, s),
    ]


def _geometry(model: UsdModel, prims, new_row, timeline, display: str, budget) -> list:
    """Looks and meshes of the gprims, instances of the PointInstancers; returns the
    instance channels of those whose instances move."""
    time = Usd.TimeCode(timeline.start)
    played: list = []
    resolved = mesh_prefix(model.path)
    notes: set[str] = set()
    drawn: dict[str, tuple[str, tuple] | None] = {}
    folder = model.path.parent if model.path.exists() else None
    textures = TextureReader(folder, display, budget)

    def mesh_of(prim):
        source = prim.GetPrimInPrototype() if prim.IsInstanceProxy() else prim
        key = f"{resolved}#{source.GetPath()}"
        if key not in drawn:
            drawn[key] = read_gprim(model, source, key, time, display, budget, notes, textures)
        return drawn[key]

    visibility = Visibility(time)
    hidden = 0
    for i in prims.drawn:
        prim, row = prims.prims[i], int(new_row[i])
        if visibility.hidden(prim):  # its node stays: only what it draws is left out
            hidden += 1
            continue
        if prim.IsA(UsdGeom.PointInstancer):
            items, channels = instanced_nodes(prim, row, time, mesh_of, display, budget, timeline)
            model.geometry.instanced += items
            played += channels
        elif prim.IsA(UsdGeom.Gprim):
            got = mesh_of(prim)
            if got is not None:
                model.looks[row] = Look(mesh=got[0], size=(1.0, 1.0, 1.0), color=got[1])
                if prim.GetTypeName() == "Mesh":
                    played += moving_points(model, prim, row, got[0], timeline, display, budget)
    if hidden:
        notes.add(f"{hidden:,} invisible prims are not drawn (their nodes are kept)")
    model.notes += [f"{display}: {note}" for note in sorted(notes)]
    return played


def moving_points(model, prim, row: int, key: str, timeline, display: str, budget) -> list:
    """A Mesh whose ``points`` are time-sampled over the stage's range plays them: its
    points at each time code sampled in the range (and at its start and end) become its
    mesh's morph targets (displacements from the points at the start, which the mesh
    holds), and the node one ``"weights"`` channel that puts target k at full weight at
    sample k's clip time, linear between: USD's linear interpolation of the points, exact
    at every sample. Returns that channel in a list (empty when the points do not move,
    or when a sample has another number of points than the mesh's vertices: a note)."""
    if not timeline.animated:
        return []
    attr = UsdGeom.Mesh(prim).GetPointsAttr()
    if not attr.ValueMightBeTimeVarying():
        return []
    where: ErrorPlace = {"file": display, "section": f"prim {prim.GetPath()}"}
    inside = attr.GetTimeSamplesInInterval(Gf.Interval(timeline.start, timeline.end))
    codes = sorted({timeline.start, timeline.end, *inside})
    if len(codes) > MAX_POINT_SAMPLES:
        model.notes.append(
            f"{display}: {prim.GetPath()}: {len(codes):,} time samples of its points, over "
            f"the {MAX_POINT_SAMPLES:,} played: shown at the start"
        )
        return []
    base = np.asarray(model.mesh_data[key][0], dtype=np.float32)
    reason = budget.charge_data(base.nbytes * len(codes) + 8 * len(codes) ** 2)
    if reason is not None:
        raise SceneError(reason, **where, field="points")
    frames = np.empty((len(codes), *base.shape), dtype=np.float32)
    for k, code in enumerate(codes):
        points = np.asarray(attr.Get(code) or [], dtype=np.float32).reshape(-1, 3)
        if points.shape != base.shape:
            model.notes.append(
                f"{display}: {prim.GetPath()}: its points at time code {code:g} are not one "
                "per vertex of the mesh drawn: shown at the start"
            )
            return []
        if not np.isfinite(points).all():
            raise SceneError("expected finite numbers", **where, field="points")
        frames[k] = points
    count = len(codes)
    model.geometry.targets.setdefault(key, MorphTargets(frames - base, None, np.zeros(count)))
    model.geometry.morphed.append(MorphedNode(row, key))
    model.geometry.weights[row] = np.zeros(count)
    times = (np.asarray(codes) - timeline.start) / timeline.per_second
    return [Channel(row, "weights", "LINEAR", times, np.eye(count))]


def mesh_prefix(path: Path) -> str:
    """What the mesh keys of the stage read from `path` start with (``PREFIX#/prim``)."""
    return str(path.resolve()) if path.exists() else str(path)


def read_gprim(model, prim, key, time, display, budget, notes, textures):
    """Read a gprim's mesh into `model` (anything with ``mesh_data`` and ``surfaces``,
    a model or a live stage's scene) under `key`; (mesh key, colour), or None."""
    kind = str(prim.GetTypeName())
    if kind == "Mesh":
        mesh = mesh_arrays(prim, time, display, budget)
        if mesh is None:
            return None
    elif kind in SHAPES:
        (pos, nrm, idx), _ = shape_arrays(prim, time)
        mesh = MeshRead(pos, nrm, idx, np.arange(len(idx) // 3), idx, np.arange(len(pos)))
    else:
        notes.add(f"{kind} prims are not drawn")
        return None
    own, subsets, varname = materials_of(prim, notes, textures)
    color, vcolors = display_color(prim, time, len(mesh.points))
    uvs = None
    if varname and kind == "Mesh":
        mesh, uvs, vcolors = _coordinates(prim, mesh, varname, time, vcolors, notes)
    idx, surface = mesh_surface(mesh.indices, mesh.faces, mesh.points, vcolors, uvs, own, subsets)
    model.mesh_data[key] = (mesh.points, mesh.normals, idx)
    if surface is not None:
        model.surfaces[key] = surface
        if vcolors is None and surface.parts:
            base = surface.parts[0].material.base_color
            color = (float(base[0]), float(base[1]), float(base[2]))
    return key, color


def _coordinates(prim, mesh, varname: str, time, vcolors, notes):
    """(the mesh, its texture coordinates (n, 2) float32 with v = 1 - t, its vertex
    colours), the mesh taken per face-vertex when the coordinates are face-varying."""
    primvar = UsdGeom.PrimvarsAPI(prim).GetPrimvar(varname)
    values = primvar.ComputeFlattened(time) if primvar else None
    st = np.asarray(values if values is not None else [], dtype=np.float32).reshape(-1, 2)
    if (
        primvar
        and primvar.GetInterpolation() == "faceVarying"
        and len(st) == len(mesh.face_vertices)
    ):
        fv = mesh.face_vertices
        mesh = mesh.per_corner()
        vcolors = None if vcolors is None else vcolors[fv]
    elif len(st) != len(mesh.points) or not np.isfinite(st).all():
        notes.add(
            f"{prim.GetPath()}: texture coordinates {varname!r} not read (expected "
            "one finite pair per point or per face-vertex)"
        )
        return mesh, None, vcolors
    uvs = np.stack([st[:, 0], 1.0 - st[:, 1]], axis=1).astype(np.float32)
    return mesh, uvs, vcolors
