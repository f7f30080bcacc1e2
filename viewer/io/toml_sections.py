"""Checking the tables of a native scene file: [camera], each [[node]], each [[event]].

Each function takes the parsed TOML value as it came (any type) and returns checked,
typed data, or raises `SceneError` naming the file, line, node and field (see
toml_scene.py for the file as a whole and docs/scene-format.md for the format).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from viewer.io import _fields as F
from viewer.io.errors import describe
from viewer.io.paths import confined
from viewer.io.ranges import camera_gap_reason, out_of_range

from ..content.motion_kinds import CHANNELS, KINDS, Param
from ..content.scene import BUILTIN_MESHES, CameraSpec, CollisionSpec, Event, Look

__all__ = ["NO_ROTATION", "NodeSpec", "parse_camera", "parse_event", "parse_node", "gltf_path"]

CAMERA_KEYS = ("position", "target", "fov", "projection", "height")
COLLISION_KEYS = ("disk", "rect", "revolve")
NODE_KEYS = (
    "name",
    "parent",
    "position",
    "rotation",
    "quaternion",
    "scale",
    "mesh",
    "size",
    "color",
    "motion",
)
EVENT_KEYS = ("frame", "touch", "set")
SET_KEYS = ("node", "position", "rotation", "quaternion", "scale")
GLTF_SUFFIXES = (".gltf", ".glb")
NO_ROTATION = np.array([0.0, 0.0, 0.0, 1.0])
NO_ROTATION.flags.writeable = False


@dataclass(slots=True)
class NodeSpec:
    """One checked [[node]] table, before the graph is built."""

    index: int  # position among the [[node]] tables
    name: str
    parent: str | None
    position: tuple[float, float, float]
    rotation: np.ndarray  # unit quaternion (x, y, z, w)
    scale: tuple[float, float, float]
    look: Look
    gltf: Path | None = None  # mesh = "model.glb", resolved
    motions: list[tuple[str, dict]] = field(default_factory=list)


def parse_camera(doc: dict, display: str, locator: F.Locator) -> CameraSpec:
    """The [camera] table; absent fields keep the defaults (the viewer frames the scene)."""
    camera = CameraSpec()
    if "camera" not in doc:
        return camera
    where = F.Where(display, locator, section="camera", label="[camera]")
    table = F.table(where, None, doc["camera"])
    F.check_keys(where, table, CAMERA_KEYS)
    if "position" in table:
        camera.position = in_range(
            where, "position", F.vector(where, "position", table["position"], 3), "camera point"
        )
    if "target" in table:
        camera.target = in_range(
            where, "target", F.vector(where, "target", table["target"], 3), "camera point"
        )
    if "fov" in table:
        camera.fov = F.number(where, "fov", table["fov"])
        if not 0.0 < camera.fov < 180.0:
            raise where.error("fov", f"expected degrees between 0 and 180, got {camera.fov!r}")
    if "projection" in table:
        proj = F.string(where, "projection", table["projection"])
        if proj not in ("perspective", "orthographic"):
            raise where.error(
                "projection", f"expected 'perspective' or 'orthographic', got {proj!r}"
            )
        camera.projection = proj
    if "height" in table:
        camera.height = F.positive(where, "height", table["height"])
        in_range(where, "height", (camera.height,), "orthographic height")
    if camera.position is not None and camera.target is not None:
        reason = camera_gap_reason(camera.position, camera.target)
        if reason is not None:
            raise where.error("target", reason)
    return camera


def parse_collision(doc: dict, display: str, locator: F.Locator, names: set[str]):
    """The [collision] table: which nodes are the demo's disk, rectangle and pivot."""
    if "collision" not in doc:
        return None
    where = F.Where(display, locator, section="collision", label="[collision]")
    table = F.table(where, None, doc["collision"])
    F.check_keys(where, table, COLLISION_KEYS)
    found = {}
    for key in COLLISION_KEYS:
        if key not in table:
            if key == "revolve":
                continue
            raise where.error(key, "missing: name the node that plays this part")
        found[key] = F.string(where, key, table[key], what="a node name")
        if found[key] not in names:
            raise where.error(key, f"unknown node {found[key]!r}")
    return CollisionSpec(**found)


def parse_node(item: object, i: int, display: str, locator: F.Locator, base_dir: Path) -> NodeSpec:
    """The index-th [[node]] table; parent names are resolved later (toml_scene.py)."""
    where = F.Where(display, locator, "node", i, label=f"node {i + 1}")
    table = F.table(where, None, item)
    if "name" not in table:
        raise where.error("name", "every node needs a name")
    name = F.string(where, "name", table["name"])
    if not name:
        raise where.error("name", "expected a non-empty name")
    where.node = name
    F.check_keys(where, table, NODE_KEYS)

    parent = None
    if "parent" in table:
        parent = F.string(where, "parent", table["parent"], what="a node name")
    position = (0.0,) * 3
    if "position" in table:
        position = in_range(
            where, "position", F.vector(where, "position", table["position"], 3), "position"
        )
    if "rotation" in table and "quaternion" in table:
        raise where.error("quaternion", "give rotation (Euler degrees) or quaternion, not both")
    rotation = NO_ROTATION  # shared: a large file of plain nodes holds one, not one each
    if "rotation" in table:
        euler = F.vector(where, "rotation", table["rotation"], 3)
        rotation = F.quat_from_euler(in_range(where, "rotation", euler, "rotation"))
    elif "quaternion" in table:
        rotation = np.array(F.unit_quaternion(where, "quaternion", table["quaternion"]))
    scale = (1.0, 1.0, 1.0)
    if "scale" in table:
        scale = F.vector_or_number(where, "scale", table["scale"])
        if any(s == 0.0 for s in scale):
            raise where.error("scale", f"expected non-zero scale factors, got {list(scale)}")
        in_range(where, "scale", scale, "scale")

    look = Look()
    gltf = None
    if "mesh" in table:
        mesh = F.string(where, "mesh", table["mesh"], what="a mesh name or a glTF path")
        if mesh.lower().endswith(GLTF_SUFFIXES):
            gltf = gltf_path(where, "mesh", mesh, base_dir)
            look = Look(mesh="none")
        elif mesh in BUILTIN_MESHES:
            look = Look(mesh=mesh)
        else:
            raise where.error(
                "mesh",
                f"unknown mesh {mesh!r}; expected one of {', '.join(BUILTIN_MESHES)}, "
                "or a path to a .gltf or .glb file",
            )
    if "size" in table:
        look.size = F.vector_or_number(where, "size", table["size"])
        if any(not s > 0 for s in look.size):
            raise where.error("size", f"expected positive sizes, got {list(look.size)}")
        in_range(where, "size", look.size, "size")
    if "color" in table:
        look.color = F.color(where, "color", table["color"])

    motions = []
    if "motion" in table:
        motion = F.table(where, "motion", table["motion"])
        F.check_keys(where, motion, tuple(KINDS), prefix=("motion",))
        channels: dict[str, str] = {}
        for kind, params in motion.items():
            other = channels.get(CHANNELS[kind])
            if other is not None:
                raise where.error(
                    ["motion", kind],
                    f"{other} and {kind} both drive the {CHANNELS[kind]}; keep one",
                )
            channels[CHANNELS[kind]] = kind
            motions.append((kind, motion_params(where, kind, params)))
    return NodeSpec(i, name, parent, position, rotation, scale, look, gltf, motions)


def motion_params(where: F.Where, kind: str, value: object) -> dict:
    """The parameters of one motion kind, checked as the table ``KINDS`` says; a
    parameter left out takes the table's default (a required one is an error)."""
    spec = KINDS[kind]
    table = F.table(where, ["motion", kind], value)
    F.check_keys(where, table, spec.names, prefix=("motion", kind))
    out: dict = {}
    for param in spec.params:
        field = ["motion", kind, param.name]
        if param.name in table:
            out[param.name] = _motion_value(where, field, param, table[param.name])
            if param.width == 1:  # every number has a documented range (ranges.py)
                quantity = f"{kind} amplitude" if param.name == "amplitude" else param.name
                in_range(where, field, (out[param.name],), quantity)
        elif param.required:
            raise where.error(field, f"{kind} needs '{param.name}'")
        else:
            out[param.name] = param.default
    return out


def _motion_value(where: F.Where, field: list[str], param: Param, value: object):
    """One motion parameter: a finite number or vector, then the table's extra check."""
    if param.width > 1:
        vec = F.vector(where, field, value, param.width)
        if param.check == "nonzero" and not any(vec):
            raise where.error(field, f"expected a non-zero {param.name}, got [0, 0, 0]")
        return vec
    if param.check == "positive":
        return F.positive(where, field, value, what=f"a positive number of {param.meaning}")
    return F.number(where, field, value)  # its range is checked by the caller (ranges.py)


def gltf_path(where: F.Where, field: str, value: object, base_dir: Path) -> Path:
    """A .gltf/.glb path relative to the scene file's folder, which must exist.

    The file must lie in that folder or below it: an absolute path, a ``..`` segment or a
    symbolic link leading out of the folder is refused before anything is read.
    """
    text = F.string(where, field, value, what="a path to a .gltf or .glb file")
    if not text.lower().endswith(GLTF_SUFFIXES):
        raise where.error(field, f"expected a path to a .gltf or .glb file, got {text!r}")
    if "\0" in text:
        raise where.error(field, "the path contains a NUL character")
    path = confined(text, base_dir)
    if path is None:
        raise where.error(
            field,
            f"path {text!r} refused: a scene may only include files in its own folder or below",
        )
    try:
        exists = path.is_file()
    except (OSError, ValueError):
        exists = False
    if not exists:
        raise where.error(field, f"missing glTF file {text!r} (looked for {path})")
    return path


def parse_event(item: object, i: int, display: str, locator: F.Locator, graph) -> Event:
    """The index-th [[event]] table; the node it names must be in `graph` already."""
    where = F.Where(display, locator, "event", i, label=f"event {i + 1}")
    table = F.table(where, None, item)
    F.check_keys(where, table, EVENT_KEYS)
    if "frame" not in table:
        raise where.error("frame", "every event needs a frame number (1 is the first frame)")
    frame = table["frame"]
    if not isinstance(frame, int) or isinstance(frame, bool) or not 1 <= frame < 2**62:
        raise where.error("frame", f"expected a whole number of at least 1, got {describe(frame)}")
    if ("touch" in table) == ("set" in table):
        raise where.error("touch", "an event needs either touch or set (exactly one)")
    if "touch" in table:
        name = F.string(where, "touch", table["touch"], what="a node name")
        if name not in graph:
            raise where.error("touch", f"unknown node {name!r}")
        return Event(frame=frame, node=name, touch=True)
    values = F.table(where, "set", table["set"])
    F.check_keys(where, values, SET_KEYS, prefix=("set",))
    if "node" not in values:
        raise where.error(["set", "node"], "set needs the node to change")
    name = F.string(where, ["set", "node"], values["node"], what="a node name")
    if name not in graph:
        raise where.error(["set", "node"], f"unknown node {name!r}")
    if "rotation" in values and "quaternion" in values:
        raise where.error(["set", "quaternion"], "give rotation or quaternion, not both")
    event = Event(frame=frame, node=name)
    if "position" in values:
        event.position = F.vector(where, ["set", "position"], values["position"], 3)
        in_range(where, ["set", "position"], event.position, "position")
    if "rotation" in values:
        event.euler = F.vector(where, ["set", "rotation"], values["rotation"], 3)
        in_range(where, ["set", "rotation"], event.euler, "rotation")
    if "quaternion" in values:
        event.quaternion = F.unit_quaternion(where, ["set", "quaternion"], values["quaternion"])
    if "scale" in values:
        event.scale = F.vector_or_number(where, ["set", "scale"], values["scale"])
        if any(s == 0.0 for s in event.scale):
            raise where.error(["set", "scale"], "expected non-zero scale factors")
        in_range(where, ["set", "scale"], event.scale, "scale")
    if all(v is None for v in (event.position, event.euler, event.quaternion, event.scale)):
        raise where.error("set", "set needs at least one of position, rotation, quaternion, scale")
    return event


def in_range(where: F.Where, field, values: tuple[float, ...], quantity: str):
    """`values` unchanged when each lies in the documented range of `quantity` (ranges.py)."""
    reason = out_of_range(quantity, values)
    if reason is not None:
        raise where.error(field, reason)
    return values
