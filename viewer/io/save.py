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
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from viewer.io.bundled import file_title
from viewer.io.distinct import distinct_rows
from viewer.io.errors import SceneError
from viewer.io.paths import inside, write_whole
from viewer.io.savable import savable_reason
from viewer.io.usd import USD_WRITE_SUFFIXES, missing_reason
from viewer.scene.math import quats_from_eulers, quats_to_eulers

from ..content.motion_kinds import KINDS
from ..content.scene import BUILTIN_MESHES, CameraSpec, Look, Scene

__all__ = ["SAVE_SUFFIXES", "save_scene", "save_target_reason", "scene_to_toml"]

#: The file suffixes sgview has a writer for: this module's TOML and the glTF writers'.
SAVE_SUFFIXES = (".toml", ".gltf", ".glb")


def save_target_reason(path: str | Path) -> str | None:
    """Why no writer may write `path`, or None: the suffix names the format written, so
    a name with any other suffix is refused rather than given one format under another's
    name. OpenUSD's (viewer/io/usd/write.py) are written where usd-core is installed."""
    suffix = Path(path).suffix.lower()
    if suffix in SAVE_SUFFIXES:
        return None
    usd_missing = missing_reason()
    if suffix in USD_WRITE_SUFFIXES:
        return None if usd_missing is None else f"cannot save as {suffix}: {usd_missing}"
    what = suffix or "a name without a suffix"
    written = SAVE_SUFFIXES if usd_missing is not None else SAVE_SUFFIXES + USD_WRITE_SUFFIXES
    return f"cannot save as {what}: sgview writes {', '.join(written)}"


def save_scene(scene: Scene, path: str | Path) -> None:
    """Write `scene` to `path` in the native format (atomically: a temporary file is
    written next to it, then renamed). Raises SceneError when the file cannot be written,
    or when the scene holds what the loader would refuse (viewer/io/savable.py)."""
    path = Path(path)
    if path.suffix.lower() != ".toml":  # TOML text under another format's name: never
        reason = save_target_reason(path) or "the native format is written to .toml files"
        raise SceneError(f"not saved: {reason}", file=str(path))
    names = scene.graph.peek.names_of(scene.graph.alive_ids())  # (once)
    refused = savable_reason(scene, names)  # what the loader would refuse is not written
    if refused is not None:
        node, field, reason = refused
        raise SceneError(f"not saved: {reason}", file=str(path), node=node, field=field)
    try:
        text = scene_to_toml(scene, base_dir=path.parent, names=names)
    except SceneError as exc:
        if exc.file is not None:
            raise
        raise SceneError(exc.reason, file=str(path), node=exc.node, section=exc.section) from None
    write_whole(path, text.encode("utf-8"))


def scene_to_toml(scene: Scene, base_dir: str | Path = ".", names: list[str] | None = None) -> str:
    """The native-format text of `scene`; glTF paths are written relative to `base_dir`.
    `names`: the live nodes' names in pre-order, where the caller has them."""
    graph = scene.graph
    base_dir = Path(base_dir)
    out = ["# Written by sgview (viewer.io.save_scene).", "", "[scene]"]
    out.append(f"title = {_str(file_title(scene.title))}")
    out.extend(_camera(scene.camera))
    out.extend(_collision(scene))

    imported: set[int] = set()
    hosted: dict[int | None, list] = {}
    for inc in scene.includes:
        imported.update(int(i) for i in np.asarray(inc.ids).tolist())
        hosted.setdefault(inc.parent, []).append(inc)

    motion_text = _motion_text(scene)
    ids = np.asarray(graph.alive_ids(), dtype=np.int64)  # pre-order: parents first
    id_list = ids.tolist()
    if names is None:
        names = graph.peek.names_of(id_list)
    name_of = dict(zip(id_list, names, strict=True))
    quoted = _quoted(list(name_of.values()))  # by row
    row_of = np.full(graph.capacity_ids + 1, -1, dtype=np.int64)  # id -1 -> row -1
    row_of[ids] = np.arange(ids.size)
    parent_rows = row_of[graph.parents()[ids]].tolist()
    position, rotation, scale = _rest_locals(scene, ids)
    # each node's block a column at a time: one string per node and per part
    columns = [
        [f"\n[[node]]\nname = {q}" for q in quoted],
        ["" if p < 0 else f"\nparent = {quoted[p]}" for p in parent_rows],
        _once_each(
            position, lambda v: _column(_row_texts(v, v.any(axis=1)), "position = ", len(v))
        ),
        _once_each(rotation, lambda v: _column(_rotations(v), "", len(v))),
        _once_each(
            scale,
            lambda v: _column(
                _row_texts(v, (v != 1.0).any(axis=1), collapse=True), "scale = ", len(v)
            ),
        ),
        _look_column(scene, id_list, row_of, imported, hosted, base_dir),
        [
            f"\nmotion = {{ {', '.join(motion_text[i])} }}" if i in motion_text else ""
            for i in id_list
        ],
    ]
    blocks: Iterable[str] = map("".join, zip(*columns, strict=True))
    if imported:
        keep = [i not in imported for i in id_list]
        blocks = (b for b, k in zip(blocks, keep, strict=True) if k)
    out.extend(blocks)

    for parent, includes in hosted.items():
        for inc in includes:
            out.append("")
            out.append("[[include]]")
            out.append(f"file = {_str(_relative(inc.path, base_dir))}")
            if parent is not None:
                out.append(f"parent = {_str(name_of.get(parent, graph.node(parent).name))}")

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


def _once_each(values: np.ndarray, texts: Callable[[np.ndarray], list[str]]) -> list[str]:
    """``texts(values)``, one string per row, made once for each distinct row where at
    most half the rows are distinct (a large scene repeats its offsets and turns)."""
    if len(values) < 2:
        return texts(values)
    first, which = distinct_rows(values)
    if first.size * 2 > len(values):
        return texts(values)
    return np.array(texts(values[first]), dtype=object)[which].tolist()


def _column(texts: dict[int, str], prefix: str, n: int) -> list[str]:
    """`n` strings: ``"\\n" + prefix + text`` at the rows of `texts`, empty elsewhere."""
    out = [""] * n
    for row, text in texts.items():
        out[row] = f"\n{prefix}{text}"
    return out


def _look_column(
    scene: Scene,
    id_list: list[int],
    row_of: np.ndarray,
    imported: set[int],
    hosted: dict,
    base_dir: Path,
) -> list[str]:
    """Each node's look lines (or its glTF ``mesh``), each Look object and each distinct
    look formatted once; a host's single include is taken out of `hosted` (it is written
    as the mesh). (An imported node's block is not written.)"""
    looks = scene.looks
    objects = list(map(looks.get, id_list))
    codes = list(map(id, objects))
    by_value: dict[object, str] = {}
    by_object: dict[int, str] = {}
    for code, look in dict(zip(codes, objects)).items():
        key = None if look is None else (look.mesh, tuple(look.size), tuple(look.color))
        if key not in by_value:
            by_value[key] = "".join("\n" + line for line in _look(look))
        by_object[code] = by_value[key]
    out = list(map(by_object.__getitem__, codes))
    for node_id, includes in hosted.items():
        row = -1 if node_id is None or node_id in imported else int(row_of[node_id])
        look = looks.get(node_id)
        if row >= 0 and len(includes) == 1 and (look is None or look.mesh == "none"):
            out[row] = f"\nmesh = {_str(_relative(includes.pop().path, base_dir))}"
    return out


def _rest_locals(scene: Scene, ids: np.ndarray) -> tuple[np.ndarray, ...]:
    """The (k, 3), (k, 4), (k, 3) local values of the nodes `ids` to write: the current
    ones, but a channel a motion drives at the motion's rest value."""
    position, rotation, scale = (a[ids] for a in scene.graph.local_values())
    arrays = {"position": position, "rotation": rotation, "scale": scale}
    row_of = np.full(scene.graph.capacity_ids, -1, dtype=np.int64)
    row_of[ids] = np.arange(ids.size)
    for m in scene.motions:
        rows = row_of[np.asarray(m.ids, dtype=np.int64)]
        keep = rows >= 0
        arrays[m.channel][rows[keep]] = np.asarray(m.rest)[keep]
    return position, rotation, scale


def _row_texts(values: np.ndarray, mask: ArrayLike, collapse: bool = False) -> dict[int, str]:
    """The TOML array of each row of `values` where `mask` holds, by row index (as `_vec`;
    `collapse`: a row of equal numbers as one number, as `_vec_or_num`)."""
    where = np.flatnonzero(mask)
    return dict(zip(where.tolist(), _vec_rows(values[where], collapse), strict=True))


def _rotations(q: np.ndarray) -> dict[int, str]:
    """The rotation line of each row of quaternions `q` (k, 4) that is not the identity:
    Euler degrees (rounded to 9 places when that still converts back within 1e-13, as
    the loader converts them), else the quaternion itself. All rows at once."""
    q = np.asarray(q, dtype=np.float64)
    todo = np.flatnonzero(~(q == [0.0, 0.0, 0.0, 1.0]).all(axis=1))
    out: dict[int, str] = {}
    if todo.size == 0:
        return out
    quats = q[todo]
    euler = quats_to_eulers(quats)
    done = np.zeros(todo.size, dtype=bool)
    for candidate in (np.round(euler, 9), euler):
        back = quats_from_eulers(candidate)
        err = np.minimum(np.abs(back - quats).max(axis=1), np.abs(back + quats).max(axis=1))
        take = ~done & (err < 1e-13)
        rows = np.flatnonzero(take & candidate.any(axis=1))
        texts = _vec_rows(candidate[rows])
        out.update(zip(todo[rows].tolist(), [f"rotation = {t}" for t in texts], strict=True))
        done |= take
    rows = np.flatnonzero(~done)
    texts = _vec_rows(quats[rows])
    out.update(zip(todo[rows].tolist(), [f"quaternion = {t}" for t in texts], strict=True))
    return out


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
                if param.default is None or not np.array_equal(value, param.default):
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


def _num_texts(values: np.ndarray) -> list[str]:
    """`_num` of each number of `values` (flattened), all at once."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    finite = np.isfinite(flat)
    if not finite.all():
        _num(flat[~finite][0])  # raises its SceneError
    # each distinct value formatted once (equal floats have the same text: 0.0 and -0.0
    # are both written "0"), then handed out to its places
    values, places = np.unique(flat, return_inverse=True)
    texts = list(map(repr, values.tolist()))
    whole = np.flatnonzero((values == np.trunc(values)) & (np.abs(values) < 1e15))
    for i, text in zip(whole.tolist(), map(str, values[whole].astype(np.int64).tolist())):
        texts[i] = text
    return np.array(texts, dtype=object)[places.ravel()].tolist()


def _vec_rows(rows: np.ndarray, collapse: bool = False) -> list[str]:
    """`_vec` of each row of the (k, w) array `rows` (`collapse`: `_vec_or_num`)."""
    k, width = rows.shape
    texts = _num_texts(rows)
    pattern = "[" + ", ".join(["{}"] * width) + "]"  # one format for the whole column
    columns = [texts[j::width] for j in range(width)]
    out = list(map(pattern.format, *columns)) if width else ["[]"] * k
    if collapse and width:
        for row in np.flatnonzero((rows == rows[:, :1]).all(axis=1)).tolist():
            out[row] = texts[row * width]
    return out


def _vec(values) -> str:
    if type(values) is not list:
        values = np.asarray(values, dtype=np.float64).ravel().tolist()
    return "[" + ", ".join(map(_num, values)) + "]"


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


def _quoted(texts: list[str]) -> list[str]:
    """`_str` of each text; all at once when none has anything to escape."""
    whole = "".join(texts)
    if whole.isprintable() and '"' not in whole and "\\" not in whole:
        return list(map('"{}"'.format, texts))
    return list(map(_str, texts))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _str(text: str) -> str:
    """A TOML basic string."""
    text = str(text)
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'  # nothing to escape: what the loop below would give
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
