"""`save_edits`: write the edits made to a USD stage's scene back as opinions in one layer.

Ctrl+S on a scene read from a stage never flattens it. The stage is opened again from
disk (stage.py) and read as at load (read.py); what differs between that reading and the
scene on show, node by node (keyed by prim path, ``Scene.node_paths``), is authored in
one layer, the edit target:

- by default the stage's root layer (``Usd.Stage.Save`` with the root layer as edit
  target): a prim defined in a referenced or payloaded file gets an ``over`` there;
- with ``--edit-layer FILE``, FILE: a layer of ``over``s stacked as the strongest
  sublayer of the root layer (created when missing), so the root layer gets only that
  ``subLayers`` entry and no referenced file is ever written.

What is written:

- a node whose local values changed: its prim's op values, at the default time. The
  prim's own op stack is kept where it can hold the new value exactly (a translate,
  rotation and scale in that order, any of them left out where the value is the
  identity's, or a single matrix op; pxr's evaluation of the set values within 1e-15 of
  sgview's local); else a new stack ``translate``, ``orient`` (or the rotation as a matrix
  op), ``scale`` in doubles (``xformOpOrder`` set, a ``!resetXformStack!`` kept), with op
  names that no attribute of the prim holds yet. A sheared prim (two nodes) gets its one
  matrix. So ``UsdGeom.XformCache`` gives the scene's world matrices again;
- a removed node: its prim deactivated (``active = false``);
- an added node (a duplicate, a new empty child): a new ``def Xform`` under its parent's
  prim, named after the node (a valid identifier, unique among the prim's children),
  with its transform as above and its mesh as a child gprim (write.py's, with its
  display colour; a stage mesh goes as its triangles);
- a node moved to another parent (no opinion moves a prim): a new ``def`` under the new
  parent's prim, with an internal reference to the old prim (which brings its composed
  opinions, its type, properties, arcs and descendants, a referenced asset's included),
  ``active = true`` (the old prim's deactivation comes through the reference too) and its
  new transform; the old prim deactivated. Its descendants' edits go to their new places.

Not written, and the save refused in one line naming the node, because USD has no
opinion that says it: a move of a sheared prim, of a time-sampled one (its samples would
follow it), of a ``!resetXformStack!`` one (it would not follow its new parent), or to a
root or under a node added since; a removed prim's descendant that stays (a
``!resetXformStack!`` prim's node hangs from the stage, but deactivating its ancestor
removes it); an edit of the stage's root node ``stage`` (the up axis and units); a node
added under a ``[shear]`` node, or outside the stage's default prim; an edit, removal or
added child of a prim inside an instance (its prototype is shared: USD takes no opinion
there). A prim whose transform is time-sampled keeps its samples: an edit of it (which
the samples override on the next frame in sgview too) is noted, not written. Sibling
order and node names are not written (names follow the prims). A ``.usdz`` package is
not written in place, nor a root layer with changes not yet saved in this process (a
live stage: reading it again would drop them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pxr import Gf, Sdf, Tf, Usd, UsdGeom

from viewer.content.scene import Scene
from viewer.io.errors import SceneError
from viewer.io.limits import Limits
from viewer.io.usd.read import UsdModel, model_of_stage
from viewer.io.usd.stage import open_stage
from viewer.io.usd.write import gprim_of_look, identifier, trs_ops, unique
from viewer.scene.graph import SceneGraph
from viewer.scene.math import trs_matrix
from viewer.text import brief, printable

__all__ = ["save_edits"]

#: How close (relative) pxr's evaluation of a kept op stack must be to the new local.
_EXACT = 1e-15
_TRANSFORM_CHANNELS = ("translation", "rotation", "scale")
_TRS_OPS = ("translate", "orient", "scale")
_Vec = NDArray[np.float64]
_TRS = tuple[_Vec, _Vec, _Vec]
_ROTATE3 = {
    UsdGeom.XformOp.TypeRotateXYZ: "XYZ",
    UsdGeom.XformOp.TypeRotateXZY: "XZY",
    UsdGeom.XformOp.TypeRotateYXZ: "YXZ",
    UsdGeom.XformOp.TypeRotateYZX: "YZX",
    UsdGeom.XformOp.TypeRotateZXY: "ZXY",
    UsdGeom.XformOp.TypeRotateZYX: "ZYX",
}
_ROTATE1 = {
    UsdGeom.XformOp.TypeRotateX: 0,
    UsdGeom.XformOp.TypeRotateY: 1,
    UsdGeom.XformOp.TypeRotateZ: 2,
}
_AXES = {"X": Gf.Vec3d(1, 0, 0), "Y": Gf.Vec3d(0, 1, 0), "Z": Gf.Vec3d(0, 0, 1)}


@dataclass
class _Plan:
    """What one save authors: prim path -> the new local (column vectors) and, where the
    node holds one, its (t, q, s); prims to deactivate; nodes to define (in pre-order)."""

    changed: dict[str, tuple[_Vec, _TRS | None]] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    #: Moved prims: (the path their opinions are at, the prim deactivated (there, or
    #: where an ancestor's move took it), the new def referencing the first).
    moved: list[tuple[str, str, str]] = field(default_factory=list)
    #: Each kept node's prim path after the save, where it changes (moved prims' subtrees).
    renamed: dict[int, str] = field(default_factory=dict)
    added: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def save_edits(scene: Scene, limits: Limits, edit_layer: str | Path | None = None) -> list[str]:
    """Write the edits of `scene` (read from a USD stage, ``scene.source``) into its root
    layer, or into `edit_layer` stacked as the strongest sublayer (module notes); returns
    the notes. SceneError, one line, when the edits cannot be said in USD or written;
    then nothing is written."""
    source = Path(str(scene.source))
    display = str(source)
    if source.suffix.lower() == ".usdz":
        raise SceneError(
            "not saved: a .usdz package is not written in place; save as a new file",
            file=display,
        )
    held = Sdf.Layer.Find(str(source))
    if held and held.dirty:  # reading it again from disk would drop those changes
        raise SceneError(
            "not saved: its root layer has changes not yet saved in this process (a stage "
            "of your own code, live): save them with pxr first",
            file=display,
        )
    stage = open_stage(source, display, limits)  # from disk again: what the edits are against
    root = stage.GetRootLayer()
    layer = root
    try:
        if edit_layer is not None:
            layer = _stack_edit_layer(stage, Path(edit_layer), display)
        stage.SetEditTarget(Usd.EditTarget(layer))
        model = model_of_stage(stage, source, display, limits)
        plan = _plan(scene, model, stage, display)
        try:
            made = _author(stage, scene, plan)
        except Tf.ErrorException as exc:  # what pxr refuses to author: one line
            raise SceneError(
                f"not saved: pxr refused the edit ({brief(exc)})", file=display
            ) from None
        _check_composed(stage, plan, display, edit_layer is not None)
        for dirty in {root, layer}:
            if (dirty.dirty or not Path(dirty.realPath).exists()) and not dirty.Save():
                raise SceneError(
                    f"not saved: pxr could not write {printable(dirty.realPath, None)}",
                    file=display,
                )
    except BaseException:
        for touched in {root, layer}:
            if touched.dirty:
                touched.Reload(force=True)  # nothing half-authored stays in pxr's registry
        raise
    scene.node_paths.update(made)
    return plan.notes


def _stack_edit_layer(stage: Usd.Stage, path: Path, display: str) -> Sdf.Layer:
    """The layer at `path` (created when missing) as the root layer's strongest sublayer."""
    root = stage.GetRootLayer()
    if path.suffix.lower() not in (".usda", ".usdc", ".usd"):
        raise SceneError("not saved: an edit layer is a .usda, .usdc or .usd file", file=str(path))
    wanted = str(path.resolve())
    if wanted == str(Path(root.realPath).resolve()):
        raise SceneError("not saved: the edit layer is the stage's root layer", file=str(path))
    if path.exists():
        layer = Sdf.Layer.FindOrOpen(wanted)
    else:  # written at the save, not before: a refused save leaves no file
        layer = Sdf.Layer.New(Sdf.FileFormat.FindByExtension(path.suffix[1:]), wanted)
    if layer is None:
        raise SceneError("not saved: pxr cannot open it as a layer", file=str(path))
    entries = list(root.subLayerPaths)
    folder = Path(root.realPath).parent
    found = [k for k, entry in enumerate(entries) if str((folder / entry).resolve()) == wanted]
    if found != [0]:
        for k in reversed(found):
            del entries[k]
        try:  # "./" anchors it to the root layer (a bare name is a search path)
            entry = os.path.relpath(wanted, folder).replace(os.sep, "/")
            entry = entry if entry.startswith("../") else "./" + entry
        except ValueError:  # another drive
            entry = wanted
        entries.insert(0, entry)
        root.subLayerPaths = entries
    used = {str(Path(lay.realPath).resolve()) for lay in stage.GetUsedLayers() if lay.realPath}
    if wanted not in used:
        raise SceneError(
            f"not saved: the stage does not compose the edit layer ({display})", file=str(path)
        )
    return layer


def _normalised(model: UsdModel) -> tuple[NDArray[np.float64], ...]:
    """The model's local values as the scene's graph holds them after load (the graph
    normalises quaternions), so an unedited node compares equal to the bit."""
    graph = SceneGraph()
    graph.add_many(
        None,
        model.parents,
        positions=model.positions,
        rotations=model.rotations,
        scales=model.scales,
    )
    pos, rot, scl = graph.local_values()
    return np.array(pos), np.array(rot), np.array(scl)


def _node_name(scene: Scene, node: int) -> str:
    return printable(scene.graph.name_of(node))


def _plan(scene: Scene, model: UsdModel, stage: Usd.Stage, display: str) -> _Plan:
    graph = scene.graph
    graph.update()
    plan = _Plan()
    ids = graph.alive_ids().tolist()
    alive = set(ids)
    parents = graph.parents()
    pos, rot, scl = graph.local_values()
    row_of = {key: row for row, key in enumerate(model.keys)}
    mpos, mrot, mscl = _normalised(model)
    animated = {
        ch.node for clip in model.clips for ch in clip.channels if ch.path in _TRANSFORM_CHANNELS
    }
    key_of = {n: k for n, k in scene.node_paths.items() if n in alive and k in row_of}

    def same(node: int, row: int) -> bool:
        return (
            np.array_equal(pos[node], mpos[row])
            and np.array_equal(rot[node], mrot[row])
            and np.array_equal(scl[node], mscl[row])
        )

    def refuse(node: int, why: str) -> SceneError:
        return SceneError(f"not saved: {why}", file=display, node=_node_name(scene, node))

    remap: dict[str, str] = {}  # a moved prim's path -> its new path
    new_of: dict[int, str] = {}  # each kept node's key after the save
    taken: dict[str, set[str]] = {}  # prim path -> its children's names, new ones included
    for node in ids:
        key = key_of.get(node)
        if key is None:
            plan.added.append(node)
            continue
        row = row_of[key]
        up = int(parents[node])
        want_up = int(model.parents[row])
        here = _remapped(key, remap)
        up_path = None if up < 0 else new_of.get(up)
        want_path = None if want_up < 0 else _remapped(model.keys[want_up], remap)
        if (up < 0) != (want_up < 0) or (up >= 0 and up_path != want_path):
            here = _move(stage, plan, key, here, up_path, row_of, animated, taken, refuse, node)
            remap[key] = here
        new_of[node] = here
        if here != key:
            plan.renamed[node] = here
        if key == "/":
            if not same(node, row):
                raise refuse(node, "the stage's root node (its up axis and units) was edited")
            continue
        if same(node, row) and (
            not key.endswith("[shear]") or _inner_same(key, key_of, row_of, same)
        ):
            continue
        prim_path = _remapped(key.removesuffix("[shear]"), remap)
        if here in remap.values():
            pass  # a moved prim's ops are written at its new place whatever they hold
        elif row in animated or row_of.get(key.removesuffix("[shear]")) in animated:
            plan.notes.append(
                f"{prim_path}: its transform is time-sampled; the samples are kept and "
                "the edit is not written"
            )
            continue
        local = trs_matrix(pos[node], rot[node], scl[node])
        trs: _TRS | None = (pos[node].copy(), rot[node].copy(), scl[node].copy())
        orig = key.removesuffix("[shear]")
        if key.endswith("[shear]") or orig + "[shear]" in row_of:
            outer = next((n for n, k in key_of.items() if k == orig + "[shear]"), None)
            inner = next((n for n, k in key_of.items() if k == orig), None)
            if outer is None or inner is None:
                continue  # one of the two was removed: the prim's removal below says it
            local = trs_matrix(pos[outer], rot[outer], scl[outer]) @ trs_matrix(
                pos[inner], rot[inner], scl[inner]
            )
            trs = None
        plan.changed[prim_path] = (local, trs)
    kept = set(key_of.values())
    gone = sorted(  # the prims of removed nodes (prims sgview has no node for stay as they are)
        {
            key
            for node, key in scene.node_paths.items()
            if node not in alive
            and key in row_of
            and key not in kept
            and not key.endswith("[shear]")  # its prim's own node goes with it (a child)
        }
        - {"/"}
    )
    for path in [_remapped(p, remap) for p in gone]:
        if any(path.startswith(top + "/") for top in plan.removed):
            continue
        plan.removed.append(path)
        plan.changed.pop(path, None)
    for node, key in key_of.items():
        prim_path = new_of.get(node, key).removesuffix("[shear]")
        top = next((t for t in plan.removed if prim_path.startswith(t + "/")), None)
        if top is not None:
            raise refuse(
                node,
                f"it stays while its ancestor prim {top} was removed; deactivating that "
                f"prim would remove {prim_path} too",
            )
    _check_added(scene, plan, key_of, stage, display)
    for path in [*plan.changed, *plan.removed, *(old for old, _, _ in plan.moved)]:
        _check_not_instanced(stage, path, "an edit of", display)
    for _, _, new in plan.moved:
        _check_not_instanced(stage, str(Sdf.Path(new).GetParentPath()), "a move under", display)
    return plan


def _check_not_instanced(stage: Usd.Stage, path: str, what: str, display: str) -> None:
    """Refuse an edit at a prim inside an instance: USD takes no opinion there (its
    prototype is shared by every instance); only the instanceable prim can change."""
    prim = stage.GetPrimAtPath(path)
    if not prim or not prim.IsInstanceProxy():
        return
    above = prim
    while above and not above.IsInstance():
        above = above.GetParent()
    raise SceneError(
        f"not saved: {what} {path} cannot be written: it is inside the instance "
        f"{above.GetPath()}, whose prototype every instance shares (make that prim not "
        "instanceable to edit inside it)",
        file=display,
    )


def _remapped(key: str, remap: dict[str, str]) -> str:
    """`key` where the prims moved so far put it: its longest moved prefix replaced."""
    best = ""
    for old in remap:
        if (key == old or key.startswith(old + "/") or key == old + "[shear]") and len(old) > len(
            best
        ):
            best = old
    return remap[best] + key[len(best) :] if best else key


def _move(
    stage, plan: _Plan, key: str, here: str, up_path, row_of, animated, taken, refuse, node
) -> str:
    """Plan the move of the prim of `key` (its node now hangs from the prim at
    `up_path`, None: a root or a node added since) as a new def under that prim that
    references the old prim (its composed opinions, ancestral arcs included) and the old
    prim deactivated; returns its new path. Refused where that would not be the scene."""
    why = None
    prim = stage.GetPrimAtPath(key.removesuffix("[shear]"))
    if key == "/" or key.endswith("[shear]") or key + "[shear]" in row_of:
        why = "a sheared prim or the stage's root node cannot be moved"
    elif up_path is None:
        why = "it now hangs from a root or from a node added since, where no prim is"
    elif up_path.endswith("[shear]"):
        why = "it now hangs from a [shear] node, which is no prim of its own"
    elif row_of[key] in animated:
        why = "its transform is time-sampled, and its samples would follow it"
    elif UsdGeom.Xformable(prim).GetResetXformStack():
        why = "its op stack starts with !resetXformStack!: it would not follow its new parent"
    elif up_path == "/" and stage.GetDefaultPrim():
        why = f"it would be outside the stage's default prim {stage.GetDefaultPrim().GetPath()}"
    if why is not None:
        raise refuse(node, f"it was moved to another parent and cannot be written ({why})")
    above = Sdf.Path.absoluteRootPath if up_path == "/" else Sdf.Path(up_path)
    used = taken.get(str(above))
    if used is None:
        holder = stage.GetPrimAtPath(above) if above != Sdf.Path.absoluteRootPath else None
        used = taken[str(above)] = set((holder or stage.GetPseudoRoot()).GetAllChildrenNames())
    name = unique(Sdf.Path(key).name, used)
    used.add(name)
    new = str(above.AppendChild(name))
    plan.moved.append((key, here, new))
    return new


def _inner_same(key: str, key_of, row_of, same) -> bool:
    """Whether a sheared prim's own node (below its ``[shear]`` node) is unedited too."""
    inner = key.removesuffix("[shear]")
    node = next((n for n, k in key_of.items() if k == inner), None)
    return node is None or same(node, row_of[inner])


def _check_added(scene: Scene, plan: _Plan, key_of, stage: Usd.Stage, display: str) -> None:
    """Refuse added nodes USD cannot place as the scene does."""
    parents = scene.graph.parents()
    added = set(plan.added)
    default = stage.GetDefaultPrim()
    has_root = "/" in key_of.values()
    for node in plan.added:
        up = int(parents[node])
        if up in added:
            continue
        where = "/" if up < 0 else key_of.get(up)
        why = None
        if where is None:
            why = "it hangs from a node that is no prim"
        elif where.endswith("[shear]"):
            why = "it hangs from a [shear] node, which is no prim of its own"
        elif up < 0 and has_root:
            why = "it is a root outside the stage's up-axis node 'stage'"
        elif where == "/" and default:
            why = f"it would be outside the stage's default prim {default.GetPath()}"
        if why is None and where is not None:
            _check_not_instanced(stage, where, "a node added under", display)
        if why is not None:
            raise SceneError(
                f"not saved: the added node cannot be written ({why})",
                file=display,
                node=_node_name(scene, node),
            )


def _author(stage: Usd.Stage, scene: Scene, plan: _Plan) -> dict[int, str]:
    """Author the plan at the stage's edit target; returns the added nodes' prim paths."""
    scratch = Usd.Stage.CreateInMemory()
    for old, there, new in plan.moved:  # in pre-order, before the edits at new places
        prim = stage.DefinePrim(new)
        prim.GetReferences().AddInternalReference(old)
        prim.SetActive(True)  # the old prim is deactivated, and that comes through too
        stage.GetPrimAtPath(there).SetActive(False)
    for path, (local, trs) in plan.changed.items():
        _set_local(UsdGeom.Xformable(stage.GetPrimAtPath(path)), local, trs, scratch)
    for path in plan.removed:
        stage.GetPrimAtPath(path).SetActive(False)
    made: dict[int, str] = dict(plan.renamed)
    if not plan.added:
        return made
    graph = scene.graph
    parents = graph.parents()
    pos, rot, scl = graph.local_values()
    taken: dict[str, set[str]] = {}
    for node in plan.added:
        up = int(parents[node])
        above = Sdf.Path((made.get(up) or scene.node_paths.get(up, "/")) if up >= 0 else "/")
        if str(above) == "/" or str(above).endswith("]"):
            above = Sdf.Path.absoluteRootPath
        used = taken.get(str(above))
        if used is None:
            holder = stage.GetPrimAtPath(above) if above != Sdf.Path.absoluteRootPath else None
            names = (holder or stage.GetPseudoRoot()).GetAllChildrenNames()
            used = taken[str(above)] = set(names)
        name = graph.name_of(node)
        prim_name = unique(identifier(name), used)
        used.add(prim_name)
        at = above.AppendChild(prim_name)
        xform = UsdGeom.Xform.Define(stage, at)
        if prim_name != name:
            xform.GetPrim().SetDisplayName(name)
        trs_ops(xform, pos[node], rot[node], scl[node])
        if node in scene.looks:
            gprim_name = unique("mesh", set())
            gprim_of_look(stage, scene, at.AppendChild(gprim_name), scene.look(node))
        made[node] = str(at)
    return made


def _check_composed(stage: Usd.Stage, plan: _Plan, display: str, sublayer: bool) -> None:
    """Refuse the save where the composed stage does not show what was authored: an edit
    layer is a sublayer, and the root layer's own opinions (its ops, ``xformOpOrder``,
    ``active``) are stronger than any sublayer's."""
    where = (
        "the root layer's own opinions are stronger than the edit layer (a sublayer); "
        "save without --edit-layer to write the edits into the root layer"
        if sublayer
        else "pxr composes another value than the one written"
    )
    cache = UsdGeom.XformCache(Usd.TimeCode(stage.GetStartTimeCode()))
    for path, (local, _) in plan.changed.items():
        got = np.array(cache.GetLocalTransformation(stage.GetPrimAtPath(path))[0]).T
        if np.abs(got - local).max() > 4 * _EXACT * max(1.0, float(np.abs(local).max())):
            raise SceneError(f"not saved: the edit of {path} does not show: {where}", file=display)
    for _, there, new in plan.moved:
        old = stage.GetPrimAtPath(there)  # invalid once an ancestor is inactive: not shown
        if not stage.GetPrimAtPath(new).IsActive() or (old and old.IsActive()):
            raise SceneError(f"not saved: the move to {new} does not show: {where}", file=display)
    for path in plan.removed:
        if stage.GetPrimAtPath(path).IsActive():
            raise SceneError(
                f"not saved: the removal of {path} does not show: {where}", file=display
            )


def _set_local(xform: UsdGeom.Xformable, local: _Vec, trs: _TRS | None, scratch: Usd.Stage) -> None:
    """Author `local` (column vectors) on the prim: its own op stack's values where that
    stack holds it exactly, else a new stack (module notes)."""
    ops = xform.GetOrderedXformOps()
    reset = xform.GetResetXformStack()
    values = _fit(ops, local, trs)
    if values is not None and _evaluates_to(scratch, ops, values, reset, local):
        for op, value in zip(ops, values, strict=True):
            op.Set(value)
        return
    prim = xform.GetPrim()
    suffix = _free_suffix(prim)
    xform.ClearXformOpOrder()
    if reset:
        xform.SetResetXformStack(True)
    if trs is not None:
        trs_ops(xform, trs[0], trs[1], trs[2], suffix=suffix)
        return
    op = xform.AddTransformOp(opSuffix=suffix or "")
    op.Set(Gf.Matrix4d(local.T.tolist()))


def _free_suffix(prim: Usd.Prim) -> str:
    """An op suffix under which no translate, orient, scale or transform attribute exists
    on the prim ("" when the plain names are free): a new stack must not take over an
    attribute of another type, or one whose time samples would win over its value."""
    names = set(prim.GetPropertyNames())

    def free(suffix: str) -> bool:
        tail = f":{suffix}" if suffix else ""
        made = {f"xformOp:{kind}{tail}" for kind in (*_TRS_OPS, "transform")}
        return names.isdisjoint(made | {f"xformOp:transform{tail}:rotation"})

    if free(""):
        return ""
    k = 1
    while not free(f"edit{k}"):
        k += 1
    return f"edit{k}"


def _fit(ops, local: _Vec, trs: _TRS | None) -> list | None:
    """Values for `ops` (in order) that give `local`, or None when their kinds cannot
    (see the module notes); exactness is checked by the caller."""
    if not ops or any(op.IsInverseOp() or op.GetNumTimeSamples() for op in ops):
        return None
    kinds = [op.GetOpType() for op in ops]
    if kinds == [UsdGeom.XformOp.TypeTransform]:
        return [Gf.Matrix4d(local.T.tolist())]
    if trs is None:
        return None
    t, q, s = trs
    values: list = []
    stage_of = 0  # 0: translate may come, 1: rotation, 2: scale, 3: nothing more
    done = {"t": False, "r": False, "s": False}
    for op, kind in zip(ops, kinds, strict=True):
        vec = _vec_type(op)
        if kind == UsdGeom.XformOp.TypeTranslate and stage_of <= 0:
            values.append(vec(*map(float, t)))
            done["t"], stage_of = True, 1
        elif kind == UsdGeom.XformOp.TypeOrient and stage_of <= 1:
            quat = Gf.Quatd if op.GetPrecision() == UsdGeom.XformOp.PrecisionDouble else Gf.Quatf
            if op.GetPrecision() == UsdGeom.XformOp.PrecisionHalf:
                quat = Gf.Quath
            values.append(quat(float(q[3]), float(q[0]), float(q[1]), float(q[2])))
            done["r"], stage_of = True, 2
        elif kind in _ROTATE3 and stage_of <= 1:
            values.append(vec(*_euler(q, _ROTATE3[kind])))
            done["r"], stage_of = True, 2
        elif kind in _ROTATE1 and stage_of <= 1:
            values.append(float(_euler(q, "XYZ")[_ROTATE1[kind]]))
            done["r"], stage_of = True, 2
        elif kind == UsdGeom.XformOp.TypeScale and stage_of <= 2:
            values.append(vec(*map(float, s)))
            done["s"], stage_of = True, 3
        else:
            return None
    if not done["t"] and np.any(t != 0):
        return None
    if not done["r"] and not np.array_equal(np.abs(q), [0.0, 0.0, 0.0, 1.0]):
        return None
    if not done["s"] and np.any(s != 1):
        return None
    return values


def _vec_type(op):
    precision = op.GetPrecision()
    if precision == UsdGeom.XformOp.PrecisionDouble:
        return Gf.Vec3d
    return Gf.Vec3f if precision == UsdGeom.XformOp.PrecisionFloat else Gf.Vec3h


def _euler(q: NDArray[np.float64], order: str) -> tuple[float, float, float]:
    """Angles in degrees, as an op ``rotate<order>`` takes them (x, y, z), for the
    rotation `q` (x, y, z, w): pxr's own decomposition about the order's axes (the first
    axis turns first)."""
    rotation = Gf.Rotation(Gf.Quatd(float(q[3]), float(q[0]), float(q[1]), float(q[2])))
    angles = rotation.Decompose(*(_AXES[a] for a in order))
    by_axis = dict(zip(order, angles, strict=True))
    return float(by_axis["X"]), float(by_axis["Y"]), float(by_axis["Z"])


def _evaluates_to(scratch: Usd.Stage, ops, values, reset: bool, local) -> bool:
    """Whether ops of these kinds, names and precisions holding `values` give `local`
    as pxr evaluates them (on a scratch prim: nothing is authored on the stage)."""
    path = Sdf.Path("/fit")
    scratch.RemovePrim(path)
    probe = UsdGeom.Xform.Define(scratch, path)
    for op, value in zip(ops, values, strict=True):
        made = probe.AddXformOp(op.GetOpType(), op.GetPrecision(), _suffix(op))
        made.Set(value)
    got = np.array(probe.GetLocalTransformation()).T
    return bool(np.abs(got - local).max() <= _EXACT * max(1.0, float(np.abs(local).max())))


def _suffix(op) -> str:
    parts = op.GetOpName().split(":")
    return ":".join(parts[2:])
