"""`save_usd`: write a `Scene` as an OpenUSD stage (.usda, .usdc or .usdz) with pxr.

What is written, at the scene's current pose:

- every node an ``Xform`` prim, nested as the hierarchy. A node read from a USD stage
  keeps its prim path (``Scene.node_paths``) where that path still sits under its
  parent's; any other node is named after its node name, made a valid USD identifier and
  unique among its siblings, the original name kept as the prim's ``displayName`` when
  it had to change;
- its local transform as the op stack ``xformOp:translate``, ``xformOp:orient`` (a
  ``quatd``), ``xformOp:scale``, all doubles: USD composes that order (row vectors, the
  first op outermost) to the transpose of sgview's ``T @ R @ S``, so
  ``UsdGeom.XformCache`` gives sgview's world matrices. Where pxr's evaluation of the
  orient is not exact (a rotation within about 1e-4 of none or of a half turn), the
  rotation goes in as the matrix op ``xformOp:transform:rotation`` instead (`trs_ops`);
- the stage's ``upAxis`` and ``metersPerUnit``: a USD source's own (the root node
  ``stage`` that the reader added to turn it Y up in metres is the stage itself again),
  Y up and metres otherwise (docs/conventions.md);
- each node's mesh as a child prim: a built-in ``cube`` or ``sphere`` as ``UsdGeom.Cube``
  (size 1) / ``UsdGeom.Sphere`` (radius 0.5), which is what the built-in is; every other
  mesh as a ``UsdGeom.Mesh`` of its triangles. The look's size is the gprim's own
  ``xformOp:scale`` (it is not inherited in sgview either), its colour
  ``primvars:displayColor``: linear in USD, so a colour sgview draws in display values (a
  look without a material, read from a TOML ``#rrggbb``) goes through the sRGB decoding
  function, as the glTF writer's (viewer/io/gltf_write/builtin.py);
- the animation (the motions and the clip playing) as time samples on the moving nodes'
  ops, the current pose as their defaults, and the stage's time range and rate
  (samples.py says which times and which samples are left out); a rotation that passes
  near none or a half turn after a constant quarter turn (`_sampled_ops`).

A ``.usdz`` is the ``.usdc`` layer packaged by ``UsdUtils.CreateNewUsdzPackage``. What USD
gets no value for here (other clips, morph weights and instance animation; cameras,
lights, scripted events; a USD source's instancers and materials) is said in the
returned notes, one line each: they are all the notes of the save (the scene's own
``save_notes`` are for the other writers, and those that hold here are among them).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pxr import Gf, Sdf, Usd, UsdGeom, UsdUtils, Vt

from viewer.content import meshes as mesh_builders
from viewer.content.scene import Look, Scene
from viewer.io.errors import SceneError
from viewer.io.gltf_write.builtin import srgb_to_linear
from viewer.io.usd import USD_WRITE_SUFFIXES
from viewer.io.usd.inspect import PrimInspector
from viewer.io.usd.read import CLIP_NAME
from viewer.io.usd.samples import Samples, animation_samples, needed
from viewer.io.usd.scene import PATHS_NOTE, TIME_SAMPLES_NOTE, TOML_MESHES_NOTE
from viewer.io.usd.timeline import timeline_of
from viewer.scene.math import (
    quat_conjugate,
    quat_from_axis_angle,
    quat_multiply,
    trs_matrices,
    trs_matrix,
)

__all__ = ["gprim_of_look", "identifier", "save_usd", "trs_ops", "unique"]

#: Built-in kinds that are exactly a USD implicit shape: (schema, size attribute, value).
_IMPLICIT = {"cube": (UsdGeom.Cube, "size", 1.0), "sphere": (UsdGeom.Sphere, "radius", 0.5)}
#: Built-in kinds that are open surfaces (seen from both sides in sgview).
_OPEN = frozenset({"disk", "rect"})
_Z_UP_TURN = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), -90.0)
_IDENTITY_QUAT = np.array([0.0, 0.0, 0.0, 1.0])
#: How close (relative) pxr's evaluation of a written op stack is to sgview's local.
_EXACT = 1e-15
#: The same for a rotation held by two orient ops (their product's rounding).
_EXACT_OFFSET = 4e-15


def save_usd(scene: Scene, path: str | Path) -> list[str]:
    """Write `scene` to `path` as USD, the suffix choosing the format; returns the notes
    (what USD is not given). Written next to `path` under a temporary name, then renamed.
    SceneError when it cannot be written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in USD_WRITE_SUFFIXES:
        raise SceneError(
            f"not saved: USD is written to {', '.join(USD_WRITE_SUFFIXES)} files", file=str(path)
        )
    stage = Usd.Stage.CreateInMemory()
    notes, path_of = _fill(stage, scene)
    folder = path.parent if str(path.parent) else Path(".")
    layer_suffix = ".usdc" if suffix == ".usdz" else suffix
    try:
        with tempfile.TemporaryDirectory(dir=folder, prefix=".sgview-usd-") as tmp:
            layer = Path(tmp) / ("scene" + layer_suffix)
            if not stage.GetRootLayer().Export(str(layer)):
                raise SceneError("not saved: pxr could not write the layer", file=str(path))
            out = layer
            if suffix == ".usdz":
                out = Path(tmp) / "scene.usdz"
                if not UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(str(layer)), str(out)):
                    raise SceneError("not saved: pxr could not package the .usdz", file=str(path))
            os.replace(out, path)
    except OSError as exc:
        raise SceneError(f"not saved: {exc.strerror or exc}", file=str(path)) from None
    if scene.node_paths:  # a stage's scene: its nodes are now these prims (edits.py)
        scene.node_paths.update((node, str(prim)) for node, prim in path_of.items())
    return notes


def _fill(stage: Usd.Stage, scene: Scene) -> tuple[list[str], dict[int, Sdf.Path]]:
    """Define the scene's prims on `stage`; (the notes, each node's prim path)."""
    graph = scene.graph
    graph.update()
    ids = np.asarray(graph.alive_ids(), dtype=np.int64)  # pre-order: parents first
    id_list = ids.tolist()
    names = graph.peek.names_of(id_list)
    parents = graph.parents()[ids].tolist()
    position, rotation, scale = (a[ids] for a in graph.local_values())
    up, meters, stage_root = _stage_frame(scene, id_list, parents, position, rotation, scale)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z if up == "Z" else UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, meters)
    samples = animation_samples(scene, _stage_timeline(scene))
    sampled: dict[int, int] = {}
    if samples is not None:
        sampled = {node: j for j, node in enumerate(samples.nodes) if node != stage_root}
        stage.SetTimeCodesPerSecond(samples.per_second)
        stage.SetStartTimeCode(samples.start)
        stage.SetEndTimeCode(samples.end)

    path_of: dict[int, Sdf.Path] = {}
    if stage_root is not None:
        path_of[stage_root] = Sdf.Path.absoluteRootPath
    taken: dict[Sdf.Path, set[str]] = {}
    for row, (node, name, parent) in enumerate(zip(id_list, names, parents, strict=True)):
        if node == stage_root:
            continue
        above = path_of.get(parent, Sdf.Path.absoluteRootPath)
        used = taken.setdefault(above, set())
        prim_name = _prim_name(scene.node_paths.get(node), above, name, used)
        used.add(prim_name)
        prim_path = above.AppendChild(prim_name)
        path_of[node] = prim_path
        xform = UsdGeom.Xform.Define(stage, prim_path)
        if prim_name != name:
            xform.GetPrim().SetDisplayName(name)
        j = sampled.get(node)
        if j is None:
            trs_ops(xform, position[row], rotation[row], scale[row])
        else:
            assert samples is not None
            now = np.s_[row : row + 1]
            _sampled_ops(
                xform,
                samples.codes,
                np.concatenate([position[now], samples.positions[:, j]]),
                np.concatenate([rotation[now], samples.rotations[:, j]]),
                np.concatenate([scale[now], samples.scales[:, j]]),
            )
    for node in id_list:  # the gprims after the nodes, so their names avoid the children's
        if node == stage_root or node not in scene.looks:
            continue
        look = scene.look(node)
        above = path_of[node]
        used = taken.setdefault(above, set())
        gprim_name = unique("mesh", used)
        used.add(gprim_name)
        gprim_of_look(stage, scene, above.AppendChild(gprim_name), look)
    roots = [p for n, p in path_of.items() if n != stage_root and p.IsRootPrimPath()]
    if len(roots) == 1:  # a stage's default prim is what a reference to it brings in
        stage.SetDefaultPrim(stage.GetPrimAtPath(roots[0]))
    return _notes(scene, samples), path_of


def _stage_frame(
    scene, id_list, parents, position, rotation, scale
) -> tuple[str, float, int | None]:
    """The stage's up axis and metres per unit, and the node that stands for the stage
    itself (a USD source's root node ``stage``, path "/"), or None."""
    for row, node in enumerate(id_list):
        if scene.node_paths.get(node) != "/" or parents[row] >= 0:
            continue
        s = scale[row]
        if position[row].any() or not (s[0] == s[1] == s[2]) or not s[0] > 0:
            return "Y", 1.0, None
        if np.array_equal(rotation[row], _Z_UP_TURN):
            return "Z", float(s[0]), node
        if np.array_equal(rotation[row], _IDENTITY_QUAT):
            return "Y", float(s[0]), node
        return "Y", 1.0, None
    return "Y", 1.0, None


def _prim_name(source: str | None, above: Sdf.Path, name: str, used: set[str]) -> str:
    """The prim's name: the source's own where its path still sits under `above` and is
    free, else `name` made a valid identifier, unique among `used`."""
    if source is not None and Sdf.Path.IsValidPathString(source):
        kept = Sdf.Path(source)
        if kept.IsPrimPath() and kept.GetParentPath() == above and kept.name not in used:
            return kept.name
    return unique(identifier(name), used)


def identifier(name: str) -> str:
    """`name` as a USD identifier: letters, digits and underscores, not starting with a
    digit."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    return text


def unique(name: str, used: set[str]) -> str:
    if name not in used:
        return name
    k = 1
    while f"{name}_{k}" in used:
        k += 1
    return f"{name}_{k}"


def trs_ops(
    xform: UsdGeom.Xformable,
    t: NDArray[np.float64],
    q: NDArray[np.float64],
    s: NDArray[np.float64],
    suffix: str = "",
) -> None:
    """The op stack translate, orient, scale (doubles, the op names ending in `suffix`
    when given) for sgview's local ``T @ R @ S`` on a prim with no ops yet (a
    ``!resetXformStack!`` kept); `q` is (x, y, z, w). pxr evaluates ``orient`` through
    an axis and angle (``acos`` of the real part), which loses digits for a rotation
    close to none or to a half turn: where pxr's local matrix is not sgview's to 1e-15,
    the rotation is written as the matrix op ``xformOp:transform:rotation`` (between the
    same translate and scale)."""
    double = UsdGeom.XformOp.PrecisionDouble
    local = trs_matrix(t, q, s)
    translate = Gf.Vec3d(*map(float, t))
    scale = Gf.Vec3d(*map(float, s))
    xform.AddTranslateOp(double, suffix).Set(translate)
    orient = xform.AddOrientOp(double, suffix)
    orient.Set(Gf.Quatd(float(q[3]), float(q[0]), float(q[1]), float(q[2])))
    xform.AddScaleOp(double, suffix).Set(scale)
    got = np.array(xform.GetLocalTransformation()).T
    if np.abs(got - local).max() <= _EXACT * max(1.0, float(np.abs(local).max())):
        return
    reset = xform.GetResetXformStack()
    xform.ClearXformOpOrder()
    xform.SetResetXformStack(reset)
    xform.GetPrim().RemoveProperty(orient.GetName())
    rotation = np.eye(4)
    rotation[:3, :3] = trs_matrix(np.zeros(3), q, np.ones(3))[:3, :3]
    xform.AddTranslateOp(double, suffix).Set(translate)
    name = f"{suffix}:rotation" if suffix else "rotation"
    xform.AddTransformOp(double, name).Set(Gf.Matrix4d(rotation.T.tolist()))
    xform.AddScaleOp(double, suffix).Set(scale)


def gprim_of_look(stage: Usd.Stage, scene: Scene, at: Sdf.Path, look: Look) -> None:
    """The look's mesh at `at` (nothing for a pivot or a mesh without data)."""
    kind = look.mesh
    surface = scene.surfaces.get(kind)
    color = np.asarray(look.color, np.float64)
    linear = srgb_to_linear(color) if surface is None else color
    size = tuple(float(v) for v in look.size)
    if kind in _IMPLICIT:
        schema, attr, value = _IMPLICIT[kind]
        gprim = schema.Define(stage, at)
        gprim.GetPrim().GetAttribute(attr).Set(value)
        _extent(gprim, value)
        gprim.CreateDisplayColorAttr(Vt.Vec3fArray([Gf.Vec3f(*map(float, linear))]))
    else:
        data = _mesh_data(scene, kind)
        if data is None:
            return
        positions, normals, indices, vcolors = data
        mesh = UsdGeom.Mesh.Define(stage, at)
        points = Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(positions, np.float32))
        mesh.CreatePointsAttr(points)
        mesh.CreateExtentAttr(UsdGeom.Mesh.ComputeExtent(points))
        flat = np.ascontiguousarray(indices.reshape(-1), np.int32)
        mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(flat.size // 3, 3, np.int32)))
        mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(flat))
        mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
        if len(normals) == len(positions):
            mesh.CreateNormalsAttr(
                Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(normals, np.float32))
            )
            mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
        if kind in _OPEN or (surface is None and kind not in mesh_builders.BUILDERS):
            mesh.CreateDoubleSidedAttr(True)
        alpha = vcolors[:, 3:4].astype(np.float64) if len(vcolors) else np.zeros((0, 1))
        if len(alpha) and (alpha > 0).any():  # painted vertices: the colours they show
            rgb = (1 - alpha) * color + alpha * vcolors[:, :3]
            if surface is None:
                rgb = srgb_to_linear(rgb)
            colors = Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(rgb, np.float32))
            primvar = mesh.CreateDisplayColorPrimvar(UsdGeom.Tokens.vertex)
            primvar.Set(colors)
        else:
            mesh.CreateDisplayColorAttr(Vt.Vec3fArray([Gf.Vec3f(*map(float, linear))]))
        gprim = mesh
    if size != (1.0, 1.0, 1.0):
        gprim.AddScaleOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*size))


def _extent(gprim: UsdGeom.Gprim, value: float) -> None:
    half = value / 2.0 if isinstance(gprim, UsdGeom.Cube) else value
    gprim.CreateExtentAttr(
        Vt.Vec3fArray([Gf.Vec3f(-half, -half, -half), Gf.Vec3f(half, half, half)])
    )


def _mesh_data(
    scene: Scene, kind: str
) -> (
    tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.uint32], NDArray[np.float32]] | None
):
    """Positions, normals, triangle indices and painted vertex colours of mesh `kind`."""
    if kind in mesh_builders.BUILDERS:
        d = mesh_builders.builtin(kind)
        return d.positions, d.normals, d.indices, d.vcolors
    if kind in scene.mesh_data:
        pos, nrm, idx = scene.mesh_data[kind]
        empty = np.zeros((0, 4), np.float32)
        return (
            np.asarray(pos, np.float32),
            np.asarray(nrm, np.float32),
            np.asarray(idx, np.uint32),
            empty,
        )
    return None  # "none", or a key without data: a pivot


def _stage_timeline(scene: Scene):
    """The `Timeline` of the stage a USD scene was read from (its clip of time samples
    is keyed on it), or None."""
    inspector = scene.describe_node
    player = scene.animation
    clip = None if player is None else player.current
    if not isinstance(inspector, PrimInspector) or clip is None or clip.name != CLIP_NAME:
        return None
    return timeline_of(inspector.stage, "stage")


def _sampled_ops(
    xform: UsdGeom.Xformable,
    codes: NDArray[np.float64],
    t: NDArray[np.float64],
    q: NDArray[np.float64],
    s: NDArray[np.float64],
) -> None:
    """The op stack of `trs_ops` with time samples at `codes` (rows 1 on of `t`, `q`,
    `s`) for the values that vary, and row 0, the pose now, as every op's default (what
    a query at the default time shows). An animated rotation passes near none or a half
    turn, where pxr's orient loses digits (`trs_ops`): then a constant quarter turn
    ``xformOp:orient:offset`` goes before the sampled orient, which holds the rest of the
    rotation (``q = offset · q'``, away from those places; slerp of ``q'`` is slerp of
    ``q`` turned); only where no offset of `_OFFSETS` makes every sample exact is the
    rotation a sampled matrix op (exact at the samples, not between them)."""
    double = UsdGeom.XformOp.PrecisionDouble
    translate = xform.AddTranslateOp(double)
    offset: NDArray[np.float64] | None = None
    held: NDArray[np.float64] | None = q
    for candidate in (None, *_OFFSETS):
        held = q if candidate is None else quat_multiply(quat_conjugate(candidate), q)
        if _orients_exact(held, q, s, candidate):
            offset = candidate
            break
    else:
        held = None
    if offset is not None:
        x, y, z, w = map(float, offset)
        xform.AddOrientOp(double, "offset").Set(Gf.Quatd(w, x, y, z))
    if held is not None:
        rotate = xform.AddOrientOp(double)
        rotations: list = [_quatd(v) for v in held]
        between = "slerp"
    else:
        rotate = xform.AddTransformOp(double, "rotation")
        columns = trs_matrices(np.zeros_like(t), q, np.ones_like(s))
        rotations = [Gf.Matrix4d(m.T.tolist()) for m in columns]
        between, held = "all", q
    scale = xform.AddScaleOp(double)
    with Sdf.ChangeBlock():  # the attributes exist: only values change in the block
        _set_samples(translate, codes, t, [Gf.Vec3d(*map(float, v)) for v in t])
        _set_samples(rotate, codes, held, rotations, between)
        _set_samples(scale, codes, s, [Gf.Vec3d(*map(float, v)) for v in s])


#: Constant rotations (x, y, z, w) tried before a sampled orient: quarter turns.
_OFFSETS = tuple(
    quat_from_axis_angle(np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis), 90.0)
    for axis in ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (1.0, 1.0, 1.0))
)


def _quatd(v: NDArray[np.float64]) -> Gf.Quatd:
    return Gf.Quatd(float(v[3]), float(v[0]), float(v[1]), float(v[2]))


def _orients_exact(
    held: NDArray[np.float64],
    q: NDArray[np.float64],
    s: NDArray[np.float64],
    offset: NDArray[np.float64] | None = None,
) -> bool:
    """Whether pxr's ``orient`` ops (`offset`, then `held`), times the scale, give
    sgview's ``R(q) · S`` to 1e-15 relative at every row. pxr evaluates an orient op as
    ``Gf.Matrix4d(1).SetRotate(Gf.Rotation(quat))`` (the same bits: that is what this
    reproduces without a stage); with an offset, to `_EXACT_OFFSET`."""
    made = [Gf.Matrix4d(1.0).SetRotate(Gf.Rotation(_quatd(v))) for v in held]
    rows = np.asarray(Vt.Matrix4dArray(made))  # one C++ copy, not one per matrix
    rotation = rows[:, :3, :3].transpose(0, 2, 1)
    if offset is not None:
        turn = np.array(Gf.Matrix4d(1.0).SetRotate(Gf.Rotation(_quatd(offset))))[:3, :3].T
        rotation = turn @ rotation
    got = rotation * s[:, None, :]
    want = trs_matrices(np.zeros((len(q), 3)), q, s)[:, :3, :3]
    size = np.maximum(1.0, np.abs(want).reshape(len(q), -1).max(axis=1))
    within = _EXACT if offset is None else _EXACT_OFFSET  # two matrices multiplied: 4 ulp
    return bool((np.abs(got - want).reshape(len(q), -1).max(axis=1) <= within * size).all())


def _set_samples(
    op: UsdGeom.XformOp, codes, values: NDArray[np.float64], made: list, between: str = "lerp"
) -> None:
    """Row 0 of `made` as the op's default; the others as time samples at `codes`
    where `values` (rows 1 on) vary, those USD interpolates back (`between`: "lerp",
    "slerp"; "all": every one kept) left out (`samples.needed`)."""
    op.Set(made[0])
    if (values[1:] == values[1]).all():
        if not np.array_equal(values[1], values[0]):
            op.GetAttr().Set(made[1], Usd.TimeCode(codes[0]))  # one sample: every time
        return
    keep = np.arange(len(codes))
    if between != "all":
        keep = needed(codes, values[1:], between == "slerp")
    attr = op.GetAttr()
    for k in keep.tolist():
        attr.Set(made[k + 1], Usd.TimeCode(float(codes[k])))


def _notes(scene: Scene, samples: Samples | None) -> list[str]:
    """What USD is not given, one line per kind: the scene's own save notes (a USD
    source's) but those this writer does carry."""
    notes = []
    if samples is not None:
        notes += samples.notes
    elif scene.motions or scene.animation is not None:
        notes.append("animation is not carried: the scene is written as it stands now")
    if scene.cameras or scene.lights:
        notes.append("cameras and lights are not carried to USD")
    if scene.events:
        notes.append("scripted events are not carried to USD")
    time_samples = TIME_SAMPLES_NOTE.split("(")[0]
    kept = [
        n
        for n in scene.save_notes
        if n not in (PATHS_NOTE, TOML_MESHES_NOTE) and not n.startswith(time_samples)
    ]
    if scene.surfaces and not scene.node_paths:
        notes.append("materials are not carried to USD: meshes keep their shape and colour")
    return notes + kept
