"""`save_scene`: write a `Scene` back in the native TOML format.

Loading the written file gives the same world matrices. What is written:

- every node in pre-order (so a parent is always above its children), with its current
  local values, except that a channel driven by a motion is written at the motion's rest
  value: the file describes the scene at t = 0, and the motion replays from there;
- rotations as Euler degrees when they convert back exactly, otherwise as quaternions;
- looks, motions, scripted events and the camera;
- glTF imports as the include they came from (``mesh = "model.glb"`` on the host node, or
  an ``[[include]]`` table), not as individual nodes: changes made to imported nodes after
  loading are not saved. The loader only includes files in the scene file's folder or
  below, so a model outside the new file's folder makes the save fail (SceneError)
  rather than write a file that cannot be loaded.

Numbers are written with Python's shortest round-trip repr, so nothing is lost.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from viewer.io import _fields as F
from viewer.io.errors import SceneError
from viewer.io.paths import inside, write_whole
from viewer.io.savable import savable_reason

from ..content.motion_kinds import KINDS
from ..content.scene import BUILTIN_MESHES, CameraSpec, Look, Scene

__all__ = ["save_scene", "scene_to_toml"]


def save_scene(scene: Scene, path: str | Path) -> None:
    """Write `scene` to `path` in the native format (atomically: a temporary file is
    written next to it, then renamed). Raises SceneError when the file cannot be written,
    or when the scene holds what the loader would refuse (viewer/io/savable.py)."""
    path = Path(path)
    refused = savable_reason(scene)  # what the loader would refuse is not written
    if refused is not None:
        node, field, reason = refused
        raise SceneError(f"not saved: {reason}", file=str(path), node=node, field=field)
    try:
        text = scene_to_toml(scene, base_dir=path.parent)
    except SceneError as exc:
        if exc.file is not None:
            raise
        raise SceneError(exc.reason, file=str(path), node=exc.node, section=exc.section) from None
    write_whole(path, text.encode("utf-8"))


def scene_to_toml(scene: Scene, base_dir: str | Path = ".") -> str:
    """The native-format text of `scene`; glTF paths are written relative to `base_dir`."""
    graph = scene.graph
    base_dir = Path(base_dir)
    out = ["# Written by sgview (viewer.io.save_scene).", "", "[scene]"]
    out.append(f"title = {_str(scene.title)}")
    out.extend(_camera(scene.camera))
    out.extend(_collision(scene))

    imported: set[int] = set()
    hosted: dict[int | None, list] = {}
    for inc in scene.includes:
        imported.update(int(i) for i in np.asarray(inc.ids).tolist())
        hosted.setdefault(inc.parent, []).append(inc)

    rest = _rest_values(scene)
    motion_text = _motion_text(scene)
    names = {}
    for node in graph:
        names[node.id] = node.name
        if node.id in imported:
            continue
        out.append("")
        out.append("[[node]]")
        out.append(f"name = {_str(node.name)}")
        parent = node.parent
        if parent is not None:
            out.append(f"parent = {_str(parent.name)}")
        position = rest.get((node.id, "position"), node.local_position)
        rotation = rest.get((node.id, "rotation"), node.local_rotation)
        scale = rest.get((node.id, "scale"), node.local_scale)
        if np.any(np.asarray(position) != 0.0):
            out.append(f"position = {_vec(position)}")
        out.extend(_rotation(rotation))
        if np.any(np.asarray(scale) != 1.0):
            out.append(f"scale = {_vec_or_num(scale)}")
        includes = hosted.get(node.id, [])
        look = scene.looks.get(node.id)
        if len(includes) == 1 and (look is None or look.mesh == "none"):
            out.append(f"mesh = {_str(_relative(includes.pop().path, base_dir))}")
            hosted[node.id] = []
        else:
            out.extend(_look(look))
        if node.id in motion_text:
            out.append(f"motion = {{ {', '.join(motion_text[node.id])} }}")

    for parent, includes in hosted.items():
        for inc in includes:
            out.append("")
            out.append("[[include]]")
            out.append(f"file = {_str(_relative(inc.path, base_dir))}")
            if parent is not None:
                out.append(f"parent = {_str(names.get(parent, graph.node(parent).name))}")

    for event in scene.events:
        out.append("")
        out.append("[[event]]")
        out.append(f"frame = {int(event.frame)}")
        if event.touch:
            out.append(f"touch = {_str(event.node)}")
            continue
        parts = [f"node = {_str(event.node)}"]
        if event.position is not None:
            parts.append(f"position = {_vec(event.position)}")
        if event.euler is not None:
            parts.append(f"rotation = {_vec(event.euler)}")
        if event.quaternion is not None:
            parts.append(f"quaternion = {_vec(event.quaternion)}")
        if event.scale is not None:
            parts.append(f"scale = {_vec_or_num(event.scale)}")
        out.append(f"set = {{ {', '.join(parts)} }}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- pieces
def _camera(camera: CameraSpec) -> list[str]:
    default = CameraSpec()
    lines = []
    if camera.position is not None:
        lines.append(f"position = {_vec(camera.position)}")
    if camera.target is not None:
        lines.append(f"target = {_vec(camera.target)}")
    if camera.projection != default.projection:
        lines.append(f"projection = {_str(camera.projection)}")
    if camera.projection == "orthographic" or camera.height != default.height:
        lines.append(f"height = {_num(camera.height)}")
    if camera.fov != default.fov:
        lines.append(f"fov = {_num(camera.fov)}")
    return ["", "[camera]", *lines] if lines else []


def _collision(scene: Scene) -> list[str]:
    spec = scene.collision
    if spec is None:
        return []
    lines = ["", "[collision]", f"disk = {_str(spec.disk)}", f"rect = {_str(spec.rect)}"]
    if spec.revolve is not None:
        lines.append(f"revolve = {_str(spec.revolve)}")
    return lines


def _rotation(q) -> list[str]:
    q = np.asarray(q, dtype=np.float64)
    if np.array_equal(q, [0.0, 0.0, 0.0, 1.0]):
        return []
    euler = F.quat_to_euler(q).tolist()
    for candidate in ([round(a, 9) for a in euler], list(euler)):
        back = F.quat_from_euler(candidate)
        if min(np.abs(back - q).max(), np.abs(back + q).max()) < 1e-13:
            if not any(candidate):
                return []
            return [f"rotation = {_vec(candidate)}"]
    return [f"quaternion = {_vec(q)}"]


def _look(look: Look | None) -> list[str]:
    if look is None:
        return ['mesh = "none"']
    lines = []
    if look.mesh in BUILTIN_MESHES:
        lines.append(f"mesh = {_str(look.mesh)}")
    else:
        lines.append(f"# mesh {look.mesh!r} has no name in the native format")
        lines.append('mesh = "none"')
    if tuple(look.size) != (1.0, 1.0, 1.0):
        lines.append(f"size = {_vec_or_num(look.size)}")
    lines.append(f"color = {_color(look.color)}")
    return lines


def _rest_values(scene: Scene) -> dict[tuple[int, str], np.ndarray]:
    rest = {}
    for m in scene.motions:
        for row, node_id in enumerate(m.ids.tolist()):
            rest[(node_id, m.channel)] = m.rest[row]
    return rest


def _motion_text(scene: Scene) -> dict[int, list[str]]:
    """Each node's motions as TOML inline tables, in the table's kind order. A parameter
    is written unless it is optional and at its default (``KINDS``)."""
    text: dict[int, list[str]] = {}
    for m in scene.motions:
        kind = KINDS[m.kind]
        for row, node_id in enumerate(m.ids.tolist()):
            params = []
            for param in kind.params:
                value = getattr(m, param.name)[row]
                if param.required or not np.array_equal(value, param.default):
                    params.append(
                        f"{param.name} = {_vec(value) if param.width > 1 else _num(value)}"
                    )
            text.setdefault(node_id, []).append(f"{m.kind} = {{ {', '.join(params)} }}")
    order = {name: k for k, name in enumerate(KINDS)}
    for items in text.values():
        items.sort(key=lambda s: order[s.split(" ", 1)[0]])
    return text


def _relative(path: Path, base_dir: Path) -> str:
    """`path` relative to `base_dir`, which must contain it (the loader refuses the rest)."""
    path = Path(path)
    folder = base_dir.resolve()
    if not inside(path, folder):
        raise SceneError(
            f"the glTF file {str(path)!r} lies outside {str(folder)!r}, and a scene may only "
            "include files in its own folder or below; save the scene in a folder that holds "
            "the model",
            section="include",
        )
    return os.path.relpath(path.resolve(), folder).replace(os.sep, "/")


# ---------------------------------------------------------------------------- TOML values
def _num(x) -> str:
    x = float(x)
    if not math.isfinite(x):
        raise SceneError(f"cannot save a non-finite number ({x!r})")
    if x == 0.0:
        return "0"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _vec(values) -> str:
    return "[" + ", ".join(_num(v) for v in np.asarray(values, dtype=np.float64).ravel()) + "]"


def _vec_or_num(values) -> str:
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size and np.all(values == values[0]):
        return _num(values[0])
    return _vec(values)


def _color(rgb) -> str:
    rgb = [float(c) for c in rgb]
    levels = [round(c * 255.0) for c in rgb]
    if all(0 <= v <= 255 and v / 255.0 == c for v, c in zip(levels, rgb, strict=True)):
        return '"#' + "".join(f"{v:02x}" for v in levels) + '"'
    return _vec(rgb)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _str(text: str) -> str:
    """A TOML basic string."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be written as UTF-8
            out.append("\ufffd")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
