"""Comparing two loaded scenes field by field, for the export round-trip tests.

`canonical(scene)` turns everything a loader put into a `Scene` into plain, comparable
values: every dataclass field, dict, list and array (arrays by dtype, shape and bytes), with
the things that name a file rather than describe the scene left out (paths, the source
kept for export, load notes naming the file) and mesh keys ("<file>#<mesh index>")
replaced by their order of first appearance. It walks the fields generically, so a field
a loader gains later is compared without a change here.
`world_matrices(scene, times)` plays the scene (its first animation and its motions) and
returns every node's world matrix at each time.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from viewer.animation.player import apply_animation
from viewer.content.motion import apply_motions

_SKIP_FIELDS = {"source", "source_stamp", "path", "notes", "title", "includes"}
_MESH_KEY = re.compile(r"^.+#\d+$")


class _Keys:
    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def name(self, key: str) -> str:
        return self.seen.setdefault(key, f"mesh{len(self.seen)}")


def _canon(value, keys: _Keys):
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value)
        return ("array", arr.dtype.str, arr.shape, arr.tobytes())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple(
            (f.name, _canon(getattr(value, f.name), keys))
            for f in dataclasses.fields(value) if f.name not in _SKIP_FIELDS))  # fmt: skip
    if isinstance(value, dict):
        items = [(_canon(k, keys), _canon(v, keys)) for k, v in value.items()]
        return ("dict", tuple(sorted(items, key=repr)))
    if isinstance(value, (list, tuple)):
        return tuple(_canon(v, keys) for v in value)
    if isinstance(value, str) and _MESH_KEY.match(value):
        return ("meshkey", keys.name(value))
    if isinstance(value, Path):
        return ("path",)
    if hasattr(value, "__dict__") and not callable(value):  # e.g. the animation player
        return (type(value).__name__, tuple(
            (k, _canon(v, keys)) for k, v in sorted(vars(value).items())
            if k not in _SKIP_FIELDS and not k.startswith("_")))  # fmt: skip
    return value


def canonical(scene) -> dict:
    """The scene's loaded content as comparable values, by field (see the module doc)."""
    keys = _Keys()
    hierarchy = [(n.name, n.parent.name if n.parent else None) for n in scene.graph]
    out = {"hierarchy": hierarchy}
    # mesh keys get their names in node order, so both scenes number them alike
    for node in scene.graph:
        look = scene.looks.get(node.id)
        if look is not None:
            keys.name(look.mesh)
    if scene.skinning is not None:
        for m in scene.skinning.meshes:
            keys.name(m.mesh)
    for f in dataclasses.fields(scene):
        if f.name in _SKIP_FIELDS or f.name == "graph":
            continue
        value = getattr(scene, f.name)
        if f.name == "mesh_data" or f.name == "surfaces":  # keyed by mesh key: by name
            value = {keys.name(k): v for k, v in value.items() if k in keys.seen}
        out[f.name] = _canon(value, keys)
    return out


def content(value):
    """One value (a surface, a skin...) as comparable data, see `canonical`."""
    return _canon(value, _Keys())


def surfaces_by_node(scene) -> dict[str, object]:
    """{node name: its mesh's surface as comparable data} for nodes drawn with a mesh
    read from a glTF file (not sgview's built-in kinds)."""
    out = {}
    for node in scene.graph:
        look = scene.looks.get(node.id)
        if look is not None and _MESH_KEY.match(look.mesh) and look.mesh in scene.surfaces:
            out[node.name] = content(scene.surfaces[look.mesh])
    return out


def assert_same_content(a, b) -> None:
    """Every loaded field of scene `b` equals `a`'s (see `canonical`)."""
    ca, cb = canonical(a), canonical(b)
    for name in ca:
        assert ca[name] == cb.get(name), f"scene field {name!r} differs"
    assert set(ca) == set(cb)


def world_matrices(scene, times) -> list[np.ndarray]:
    """[len(times)] arrays (nodes, 4, 4) of world matrices, nodes in pre-order."""
    out = []
    for t in times:
        apply_animation(scene, float(t))
        apply_motions(scene, float(t))
        out.append(np.array([n.world_matrix for n in scene.graph]))
    return out
