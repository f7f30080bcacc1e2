"""The checks on what `viewer.show` and `viewer.render_image` are given.

The embedding API takes Python values where the command line takes a file, and checks
them as the loaders check a file: every parameter's type, the same ranges
(`viewer.io.ranges`: camera points, the orthographic height, sizes), the same camera
rules (field of view strictly between 0 and 180 degrees, position and target apart), and
the graph's whole reach. A refusal is one line naming the parameter, raised before any GL
as an `ArgumentError` (a `ValueError`), or an `UnknownNodeError` (a `KeyError`) for a node
that is not in the graph: removed, from another graph, or a name or id it lacks.
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields

import numpy as np

from viewer.content.scene import BUILTIN_MESHES, CameraSpec, Look
from viewer.errors import SgviewError
from viewer.io.ranges import camera_gap_reason, out_of_range, world_reach_reason
from viewer.keys.script import KeyScript
from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph
from viewer.scene.node import Node
from viewer.text import one_line, printable, quoted

__all__ = [
    "MAX_FRAMES",
    "MAX_PIXELS",
    "ArgumentError",
    "UnknownNodeError",
    "callback",
    "camera_spec",
    "check_reach",
    "clicks",
    "flag",
    "frames",
    "keys",
    "look",
    "meshes_spec",
    "node_id",
    "out_path",
    "size",
    "text",
]

#: Largest picture side, in pixels (what GL drivers offer as their maximum texture size).
MAX_PIXELS = 16384
#: Most frames a run may be asked for (about 200 days at 60 frames a second).
MAX_FRAMES = 10**9
PROJECTIONS = ("perspective", "orthographic")


class ArgumentError(SgviewError, ValueError):
    """An argument of `show` or `render_image` that cannot be used (one line)."""


class UnknownNodeError(SgviewError, KeyError):
    """A node that is not in the graph (one line)."""

    def __str__(self) -> str:  # a KeyError would show its message quoted
        return str(self.args[0]) if self.args else ""


def _what(value: object) -> str:
    if isinstance(value, str):
        return f"the string {quoted(value)}"
    if isinstance(value, bool | int | float):
        return f"{value!r}"
    return f"a {type(value).__name__}"


def _fail(name: str, expected: str, value: object) -> ArgumentError:
    return ArgumentError(one_line(f"{name}: expected {expected}, got {_what(value)}"))


def flag(name: str, value: object) -> bool:
    """True or False (numpy's booleans too)."""
    if value is True or value is False or type(value).__name__ == "bool_":
        return bool(value)
    raise _fail(name, "True or False", value)


def _whole(name: str, value: object, low: int, high: int, what: str) -> int:
    if isinstance(value, bool):
        raise _fail(name, what, value)
    try:
        n = operator.index(value)  # int, numpy integers; not floats, not strings
    except TypeError:
        if isinstance(value, float) and value.is_integer():
            n = int(value)
        else:
            raise _fail(name, what, value) from None
    if not low <= n <= high:
        raise _fail(name, what, value)
    return n


def frames(value: object) -> int | None:
    if value is None:
        return None
    return _whole("frames", value, 1, MAX_FRAMES, f"a whole number of frames, 1 to {MAX_FRAMES:,}")


def size(value: object) -> tuple[int, int]:
    what = f"(width, height) in whole pixels, 1 to {MAX_PIXELS}"
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim == 1 else value
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise _fail("size", what, value)  # a generator or an iterator too: not a size
    if len(value) != 2:
        raise _fail("size", what, value)
    return tuple(_whole("size", v, 1, MAX_PIXELS, what) for v in value)  # type: ignore[return-value]


def text(name: str, value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _fail(name, "a string", value)


def out_path(name: str, value: object):
    """None, or a path given as a string or a path-like object."""
    if value is None or isinstance(value, str | os.PathLike):
        return value
    raise _fail(name, "a file path (a string or a pathlib.Path)", value)


def callback(name: str, value: object) -> Callable | None:
    if value is None or callable(value):
        return value
    raise _fail(name, "a function (graph, frame, t) or None", value)


def keys(value: object) -> str | KeyScript | None:
    if value is None or isinstance(value, str | KeyScript):
        return value
    raise _fail("keys", "a key script string like 'L@1-80,T@90'", value)


def clicks(value: object) -> list[str]:
    what = "a click like '320,180@5' or a list of them"
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise _fail("clicks", what, value)
    return list(value)


def _numbers(name: str, value: object, n: int, quantity: str | None = None) -> tuple:
    """`n` finite real numbers (a list, tuple or array), within `quantity`'s range."""
    what = f"{n} finite numbers"
    if isinstance(value, str | bytes | Mapping):
        raise _fail(name, what, value)
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise _fail(name, what, value) from None
    out = []
    for item in items:
        if (
            isinstance(item, bool)
            or not isinstance(item, int | float)
            and (type(item).__module__ != "numpy" or not hasattr(item, "__float__"))
        ):
            raise _fail(name, what, value)
        try:
            x = float(item)
        except (OverflowError, TypeError, ValueError):
            raise _fail(name, what, value) from None
        if not math.isfinite(x):
            raise ArgumentError(f"{name}: expected {what}, got {x!r}")
        out.append(x)
    if len(out) != n:
        raise ArgumentError(f"{name}: expected {what}, got {len(out)}")
    if quantity is not None:
        reason = out_of_range(quantity, out)
        if reason is not None:
            raise ArgumentError(f"{name}: {reason}")
    return tuple(out)


def camera_spec(value: object) -> CameraSpec:
    """None, a `CameraSpec` or a mapping of its fields; checked as a scene file's
    [camera] table is (docs/scene-format.md)."""
    if value is None:
        return CameraSpec()
    if isinstance(value, CameraSpec):
        given = {f.name: getattr(value, f.name) for f in fields(CameraSpec)}
    elif isinstance(value, Mapping):
        given = dict(value)
    else:
        raise _fail("camera", "a mapping of position, target, fov, projection, height", value)
    names = [f.name for f in fields(CameraSpec)]
    for key in given:
        if key not in names:
            raise ArgumentError(one_line(f"camera: unknown field {key!r}; expected one of "
                                         f"{', '.join(names)}"))  # fmt: skip
    spec = CameraSpec()
    for key in ("position", "target"):
        if given.get(key) is not None:
            setattr(spec, key, _numbers(f"camera {key}", given[key], 3, "camera point"))
    if "fov" in given:
        (spec.fov,) = _numbers("camera fov", [given["fov"]], 1)
        if not 0.0 < spec.fov < 180.0:
            raise ArgumentError(f"camera fov: expected degrees between 0 and 180, got {spec.fov!r}")
    if "projection" in given:
        if given["projection"] not in PROJECTIONS:
            raise _fail("camera projection", "'perspective' or 'orthographic'", given["projection"])
        spec.projection = given["projection"]
    if "height" in given:
        (spec.height,) = _numbers("camera height", [given["height"]], 1, "orthographic height")
        if not spec.height > 0:
            raise ArgumentError(f"camera height: expected a positive height, got {spec.height!r}")
    if spec.position is not None and spec.target is not None:
        reason = camera_gap_reason(spec.position, spec.target)
        if reason is not None:
            raise ArgumentError(f"camera target: {reason}")
    return spec


def look(value: object, where: str) -> Look:
    """A built-in mesh kind or a `Look` of one, with sizes and a colour in range."""
    name = f"meshes[{printable(where, 60)}]"
    kinds = ", ".join(BUILTIN_MESHES)
    if isinstance(value, str) and value in BUILTIN_MESHES:
        return Look(mesh=value)
    if not isinstance(value, Look):
        raise _fail(name, f"a Look or one of {kinds}", value)
    if not isinstance(value.mesh, str) or value.mesh not in BUILTIN_MESHES:
        raise _fail(f"{name}.mesh", f"one of {kinds}", value.mesh)
    sizes = _numbers(f"{name}.size", value.size, 3, "size")
    if any(s <= 0 for s in sizes):
        raise ArgumentError(f"{name}.size: expected positive sizes, got {list(sizes)}")
    color = _numbers(f"{name}.color", value.color, 3)
    if any(not 0.0 <= c <= 1.0 for c in color):
        raise ArgumentError(f"{name}.color: expected components in 0..1, got {list(color)}")
    return Look(mesh=value.mesh, size=sizes, color=color)  # type: ignore[arg-type]


def meshes_spec(value: object):
    """None, a mapping or a function: a generator or a list is refused (it would be
    used up, or it has no keys)."""
    if value is None or isinstance(value, Mapping) or callable(value):
        return value
    raise _fail("meshes", "a mapping {node: kind or Look}, a function node -> kind, or None",
                value)  # fmt: skip


def node_id(graph: SceneGraph, key: object, where: str) -> int:
    """The id of the live node `key` names in `graph`: a `Node` of this graph, a name or
    an id."""
    if isinstance(key, Node):
        try:
            same = graph.node(key.id)
        except (KeyError, HierarchyError):
            same = None
        if same is None or same != key:
            why = "was removed" if same is None and _removed(graph, key) else "is not in it"
            raise UnknownNodeError(one_line(f"{where}: node {quoted(key.name)} {why} "
                                            "(the graph shown)"))  # fmt: skip
        return key.id
    if isinstance(key, str):
        if key not in graph:
            raise UnknownNodeError(one_line(f"{where}: no node named {quoted(key)} in the graph"))
        return graph[key].id
    if isinstance(key, bool) or not isinstance(key, int) and type(key).__module__ != "numpy":
        raise _fail(where, "a Node, a node name or a node id", key)
    try:
        return graph.node(operator.index(key)).id
    except (KeyError, HierarchyError, TypeError):
        raise UnknownNodeError(one_line(f"{where}: no live node with id {key!r}")) from None


def _removed(graph: SceneGraph, node: Node) -> bool:
    """Whether `node` (not live in `graph`) is a removed node of `graph` itself."""
    return graph.owns(node) and not node.alive


def check_reach(scene) -> None:
    """The whole graph stays within the world box the loaders keep files in (positions
    and scales the graph's API accepts can multiply past it along a chain)."""
    found = world_reach_reason(scene)
    if found is not None:
        i, reason = found
        raise ArgumentError(one_line(f"graph: node {quoted(scene.graph.name_of(i))}: {reason}"))
