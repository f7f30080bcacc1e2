"""What `viewer.show`, `viewer.widget` and `viewer.render_image` are given, and the checks
on it.

`ShowOptions` holds their options in one typed object; each function takes it as
``options=`` and its own keywords besides, which override the object's fields.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, SupportsIndex, TypedDict, cast

import numpy as np
from numpy.typing import NDArray

from viewer.content.scene import BUILTIN_MESHES, CameraSpec, Look, Scene
from viewer.errors import SgviewError
from viewer.io.ranges import camera_gap_reason, out_of_range, world_reach_reason
from viewer.keys.script import KeyScript
from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph
from viewer.scene.node import Node
from viewer.session.source import FrameCallback
from viewer.text import one_line, printable, quoted

__all__ = [
    "MAX_FRAMES",
    "MAX_PIXELS",
    "RENDER_TAKES",
    "SHOW_TAKES",
    "WIDGET_TAKES",
    "ArgumentError",
    "CameraArg",
    "ClickArg",
    "FrameCallback",
    "MeshSpec",
    "PathArg",
    "RenderKeywords",
    "ShowKeywords",
    "ShowOptions",
    "SizeArg",
    "UnknownNodeError",
    "WidgetKeywords",
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
    "options_for",
    "out_path",
    "size",
    "text",
]

#: Largest picture side, in pixels (what GL drivers offer as their maximum texture size).
MAX_PIXELS = 16384
#: Most frames a run may be asked for (about 200 days at 60 frames a second).
MAX_FRAMES = 10**9
PROJECTIONS = ("perspective", "orthographic")

#: A node as `meshes` names it: the `Node` itself, its name or its id.
NodeKey = Node | str | int | np.integer[Any]
#: How a node is drawn: a built-in mesh kind (`BUILTIN_MESHES`) or a `Look`.
LookSpec = str | Look
#: `meshes`: node -> look (a mapping's key type is invariant, hence one per kind of key),
#: a function node -> look, or None (unit cubes).
MeshSpec = (
    Mapping[Node, LookSpec]
    | Mapping[str, LookSpec]
    | Mapping[int, LookSpec]
    | Mapping[NodeKey, LookSpec]
    | Callable[[Node], LookSpec | None]
    | None
)
#: A camera field's value in a `camera` mapping: a point, a number or a projection name.
CameraValue = Sequence[float] | NDArray[np.floating[Any]] | float | str | None
#: `camera`: a `CameraSpec` or a mapping of its fields.
CameraArg = CameraSpec | Mapping[str, CameraValue]
#: `size`: (width, height) in pixels.
SizeArg = tuple[int, int] | Sequence[int] | NDArray[np.integer[Any]]
#: An output file: a string or a path-like object.
PathArg = str | os.PathLike[str]
#: `clicks`: one click like ``"320,180@5"`` or several.
ClickArg = str | Sequence[str]


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


def flag(name: str, value: bool | np.bool_) -> bool:
    """True or False (numpy's booleans too)."""
    if value is True or value is False or type(value).__name__ == "bool_":
        return bool(value)
    raise _fail(name, "True or False", value)


def _whole(name: str, value: object, low: int, high: int, what: str) -> int:
    if isinstance(value, bool):
        raise _fail(name, what, value)
    try:
        if not isinstance(value, SupportsIndex):  # what operator.index refuses
            raise TypeError
        n = operator.index(value)  # int, numpy integers; not floats, not strings
    except TypeError:
        if isinstance(value, float) and value.is_integer():
            n = int(value)
        else:
            raise _fail(name, what, value) from None
    if not low <= n <= high:
        raise _fail(name, what, value)
    return n


def frames(value: int | None) -> int | None:
    if value is None:
        return None
    return _whole("frames", value, 1, MAX_FRAMES, f"a whole number of frames, 1 to {MAX_FRAMES:,}")


def size(value: SizeArg | None) -> tuple[int, int]:
    what = f"(width, height) in whole pixels, 1 to {MAX_PIXELS}"
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim == 1 else value
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise _fail("size", what, value)  # a generator or an iterator too: not a size
    if len(value) != 2:
        raise _fail("size", what, value)
    width, height = (_whole("size", v, 1, MAX_PIXELS, what) for v in value)
    return width, height


def text(name: str, value: str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _fail(name, "a string", value)


def out_path(name: str, value: PathArg | None) -> PathArg | None:
    """None, or a path given as a string or a path-like object."""
    if value is None or isinstance(value, str | os.PathLike):
        return value
    raise _fail(name, "a file path (a string or a pathlib.Path)", value)


def callback(name: str, value: FrameCallback | None) -> FrameCallback | None:
    if value is None or callable(value):
        return value
    raise _fail(name, "a function (graph, frame, t) or None", value)


def keys(value: str | KeyScript | None) -> str | KeyScript | None:
    if value is None or isinstance(value, str | KeyScript):
        return value
    raise _fail("keys", "a key script string like 'L@1-80,T@90'", value)


def clicks(value: ClickArg | None) -> list[str]:
    what = "a click like '320,180@5' or a list of them"
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise _fail("clicks", what, value)
    return list(value)


def _numbers(name: str, value: object, n: int, quantity: str | None = None) -> tuple[float, ...]:
    """`n` finite real numbers (a list, tuple or array), within `quantity`'s range."""
    what = f"{n} finite numbers"
    if isinstance(value, str | bytes | Mapping):
        raise _fail(name, what, value)
    try:
        items = list(cast("Iterable[object]", value))  # list() refuses what is not iterable
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


def _three(name: str, value: object, quantity: str | None = None) -> tuple[float, float, float]:
    x, y, z = _numbers(name, value, 3, quantity)
    return x, y, z


def camera_spec(value: CameraArg | None) -> CameraSpec:
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
            raise ArgumentError(
                one_line(f"camera: unknown field {key!r}; expected one of {', '.join(names)}")
            )
    spec = CameraSpec()
    for key in ("position", "target"):
        if given.get(key) is not None:
            setattr(spec, key, _three(f"camera {key}", given[key], "camera point"))
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


def look(value: LookSpec | None, where: str) -> Look:
    """A built-in mesh kind or a `Look` of one, with sizes and a colour in range."""
    name = f"meshes[{printable(where, 60)}]"
    kinds = ", ".join(BUILTIN_MESHES)
    if isinstance(value, str) and value in BUILTIN_MESHES:
        return Look(mesh=value)
    if not isinstance(value, Look):
        raise _fail(name, f"a Look or one of {kinds}", value)
    if not isinstance(value.mesh, str) or value.mesh not in BUILTIN_MESHES:
        raise _fail(f"{name}.mesh", f"one of {kinds}", value.mesh)
    sizes = _three(f"{name}.size", value.size, "size")
    if any(s <= 0 for s in sizes):
        raise ArgumentError(f"{name}.size: expected positive sizes, got {list(sizes)}")
    color = _three(f"{name}.color", value.color)
    if any(not 0.0 <= c <= 1.0 for c in color):
        raise ArgumentError(f"{name}.color: expected components in 0..1, got {list(color)}")
    return Look(mesh=value.mesh, size=sizes, color=color)


def meshes_spec(value: MeshSpec) -> MeshSpec:
    """None, a mapping or a function: a generator or a list is refused (it would be
    used up, or it has no keys)."""
    if value is None or isinstance(value, Mapping) or callable(value):
        return value
    raise _fail("meshes", "a mapping {node: kind or Look}, a function node -> kind, or None", value)


def node_id(graph: SceneGraph, key: NodeKey, where: str) -> int:
    """The id of the live node `key` names in `graph`: a `Node` of this graph, a name or
    an id."""
    if isinstance(key, Node):
        try:
            same = graph.node(key.id)
        except (KeyError, HierarchyError):
            same = None
        if same is None or same != key:
            why = "was removed" if same is None and _removed(graph, key) else "is not in it"
            raise UnknownNodeError(
                one_line(f"{where}: node {quoted(key.name)} {why} (the graph shown)")
            )
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


def check_reach(scene: Scene) -> None:
    """The whole graph stays within the world box the loaders keep files in (positions
    and scales the graph's API accepts can multiply past it along a chain)."""
    found = world_reach_reason(scene)
    if found is not None:
        i, reason = found
        raise ArgumentError(one_line(f"graph: node {quoted(scene.graph.name_of(i))}: {reason}"))


@dataclass(frozen=True)
class ShowOptions:
    """The options of `viewer.show`, `viewer.widget` and `viewer.render_image` in one
    object: ``viewer.show(graph, options=ShowOptions(...))``. A keyword given to the
    function besides overrides the field of that name. Each function takes the fields its
    keywords name (`SHOW_TAKES`, `WIDGET_TAKES`, `RENDER_TAKES`) and refuses an object
    that sets another one. The fields are checked as the keywords are, when the function
    runs."""

    #: Called once per simulated frame before ``graph.update()`` (see `viewer.show`).
    on_frame: FrameCallback | None = None
    #: How nodes are drawn (see `viewer.embed.api.scene_for`); None: unit cubes.
    meshes: MeshSpec = None
    #: Render with no window and return after `frames` frames (default 1).
    headless: bool = False
    #: Stop after this many frames drawn (a window: None runs until it is closed).
    frames: int | None = None
    #: (width, height) in pixels. None: the function's own default (`show`: 1280x720 in a
    #: window, 640x360 in a notebook; `widget` and `render_image`: 640x360).
    size: SizeArg | None = None
    #: Files written as the command's ``--screenshot``, ``--record`` and ``--trace``.
    screenshot: PathArg | None = None
    record: PathArg | None = None
    trace: PathArg | None = None
    #: False: no overlay at all (``--no-overlay``): the model alone, without glow.
    overlay: bool = True
    #: False: the overlay without its panels (``--no-panels``); Tab shows them.
    panels: bool = True
    #: Print each frame's update log (``--log``).
    log: bool = False
    #: The window's title (None: "your graph").
    title: str | None = None
    #: Scripted input, as ``--keys`` and ``--click`` (see `viewer.keys.script`).
    keys: str | KeyScript | None = None
    clicks: ClickArg | None = None
    #: Name of a node selected at the start.
    select: str | None = None
    #: A `CameraSpec` or a mapping of its fields; None frames the whole graph.
    camera: CameraArg | None = None
    #: `show` only: None chooses the notebook widget inside a Jupyter kernel, True the
    #: widget, False the window.
    widget: bool | None = None
    #: `widget` only: how the overlay shows the frames' work: "fill", "rim" or "heat".
    glow: str = "fill"


class RenderKeywords(TypedDict, total=False):
    """The keywords of `viewer.render_image` (`ShowOptions`' fields of those names)."""

    size: SizeArg
    meshes: MeshSpec
    overlay: bool
    panels: bool
    camera: CameraArg | None


class _LiveKeywords(TypedDict, total=False):
    on_frame: FrameCallback | None
    meshes: MeshSpec
    overlay: bool
    panels: bool
    log: bool
    title: str | None
    select: str | None
    camera: CameraArg | None


class WidgetKeywords(_LiveKeywords, total=False):
    """The keywords of `viewer.widget`."""

    size: SizeArg
    glow: str


class ShowKeywords(_LiveKeywords, total=False):
    """The keywords of `viewer.show`."""

    size: SizeArg | None
    headless: bool
    frames: int | None
    screenshot: PathArg | None
    record: PathArg | None
    trace: PathArg | None
    keys: str | KeyScript | None
    clicks: ClickArg | None
    widget: bool | None


#: The `ShowOptions` fields each function takes.
SHOW_TAKES = ShowKeywords.__optional_keys__
WIDGET_TAKES = WidgetKeywords.__optional_keys__
RENDER_TAKES = RenderKeywords.__optional_keys__


def _is_default(value: object, default: object) -> bool:
    # identity for None and the flags; "fill" may be an equal string made elsewhere
    return value is default or isinstance(value, str) and value == default


def options_for(
    function: str,
    options: ShowOptions | None,
    given: ShowKeywords | WidgetKeywords | RenderKeywords,
    takes: frozenset[str],
) -> ShowOptions:
    """`options` (None: the defaults) with the keywords `given` to `function` in place of
    their fields. A keyword `function` does not take is a `TypeError`, as Python makes
    it; an `options` that sets a field `function` does not take, an `ArgumentError`."""
    for key in given:
        if key not in takes:
            raise TypeError(f"{function}() got an unexpected keyword argument {key!r}")
    if options is None:
        options = ShowOptions()
    elif not isinstance(options, ShowOptions):
        raise _fail("options", "a ShowOptions", options)
    unused = [
        f.name
        for f in fields(ShowOptions)
        if f.name not in takes and not _is_default(getattr(options, f.name), f.default)
    ]
    if unused:
        raise ArgumentError(f"options: {function} does not take {', '.join(unused)}")
    return replace(options, **given)
