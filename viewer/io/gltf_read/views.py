"""glTF cameras and KHR_lights_punctual lights: what the file's nodes look through and
are lit by (the renderer's `--camera` and lights; render/file_view.py, render/lights.py).

A camera is perspective (``yfov``, ``znear``, optional ``zfar``; the aspect ratio is
the window's, as the specification allows) or orthographic (``xmag``, ``ymag``,
``znear``, ``zfar``: the view keeps ``ymag`` and the window's aspect). A light is
directional, point or spot, with colour, intensity, optional range and the spot's cone
angles. Values are checked as the specification bounds them; each camera or light is
recorded once per node that names it, with the node's row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TypeGuard

from viewer.content.scene import FileCamera, FileLight
from viewer.io.errors import describe
from viewer.io.gltf_read.data import GltfFile, is_int, whole

__all__ = ["read_views"]

_LIGHT_KINDS = ("directional", "point", "spot")


def read_views(
    gltf: GltfFile,
    nodes: list,
    order: list[int],
    names: list[str],
    rows: Iterable[int] | None = None,
):
    """(cameras, lights) of the imported nodes, each on its row (`order[row]` is the
    glTF node index, `names[row]` its name); `rows`: the only rows, in order, that can
    have one (default: every row)."""
    cameras: list[FileCamera] = []
    lights: list[FileLight] = []
    light_defs = _light_list(gltf)
    for row in range(len(order)) if rows is None else rows:
        i = order[row]
        node = nodes[i]
        if node.get("camera") is not None:
            c, cam = gltf.item(node["camera"], "cameras", f"node {i}")
            cameras.append(_camera(gltf, cam, f"camera {c}", row, names[row]))
        ext = node.get("extensions")
        if isinstance(ext, dict) and isinstance(ext.get("KHR_lights_punctual"), dict):
            index = whole(ext["KHR_lights_punctual"].get("light"))  # 1.0 is the index 1
            where = f"node {i} KHR_lights_punctual"
            if not (is_int(index) and 0 <= index < len(light_defs)):
                span = f"0..{len(light_defs) - 1}" if light_defs else "the file has none"
                raise gltf.error(
                    where, f"light must be an index into its lights ({span}), got {describe(index)}"
                )
            lights.append(_light(gltf, light_defs[index], f"light {index}", row))
    return cameras, lights


def _camera(gltf: GltfFile, cam: dict, where: str, row: int, node_name: str) -> FileCamera:
    kind = cam.get("type")
    name = cam.get("name")
    name = name if isinstance(name, str) and name else node_name
    if kind == "perspective":
        p = gltf.obj(cam.get("perspective"), f"{where} perspective")
        yfov = _positive(gltf, p, "yfov", where, None)
        if yfov >= math.pi:
            raise gltf.error(where, f"yfov must be below pi, got {yfov!r}")
        znear = _positive(gltf, p, "znear", where, None)
        zfar = _positive(gltf, p, "zfar", where, math.inf)
        if zfar <= znear:
            raise gltf.error(where, "zfar must be greater than znear")
        return FileCamera(row, name, "perspective", yfov, znear, None if math.isinf(zfar) else zfar)
    if kind == "orthographic":
        o = gltf.obj(cam.get("orthographic"), f"{where} orthographic")
        ymag = _number(gltf, o, "ymag", where)
        _number(gltf, o, "xmag", where)
        znear = _number(gltf, o, "znear", where)
        zfar = _positive(gltf, o, "zfar", where, None)
        if ymag == 0.0 or znear < 0.0 or zfar <= znear:
            raise gltf.error(
                where, "an orthographic camera needs ymag != 0, znear >= 0 and zfar > znear"
            )
        return FileCamera(row, name, "orthographic", znear=znear, zfar=zfar, ymag=abs(ymag))
    raise gltf.error(where, f"type must be perspective or orthographic, got {describe(kind)}")


def _light_list(gltf: GltfFile) -> list:
    ext = gltf.doc.get("extensions")
    if not isinstance(ext, dict) or not isinstance(ext.get("KHR_lights_punctual"), dict):
        return []
    found = ext["KHR_lights_punctual"].get("lights", [])
    if not isinstance(found, list):
        raise gltf.error("KHR_lights_punctual", f"lights must be an array, got {describe(found)}")
    return found


def _light(gltf: GltfFile, light: object, where: str, row: int) -> FileLight:
    light = gltf.obj(light, where)
    kind = light.get("type")
    if kind not in _LIGHT_KINDS:
        raise gltf.error(where, f"type must be directional, point or spot, got {describe(kind)}")
    color = light.get("color", [1.0, 1.0, 1.0])
    if not (
        isinstance(color, list)
        and len(color) == 3
        and all(_finite(c) and 0.0 <= c <= 1.0 for c in color)
    ):
        raise gltf.error(where, f"color must be 3 numbers in [0, 1], got {describe(color)}")
    intensity = light.get("intensity", 1.0)
    if not (_finite(intensity) and intensity >= 0.0):
        raise gltf.error(where, f"intensity must be 0 or more, got {describe(intensity)}")
    rng = None
    if light.get("range") is not None and kind != "directional":
        rng = _positive(gltf, light, "range", where, None)
    inner, outer = 0.0, math.pi / 4.0
    if kind == "spot":
        spot = gltf.obj(light.get("spot"), f"{where} spot")
        inner, outer = spot.get("innerConeAngle", 0.0), spot.get("outerConeAngle", math.pi / 4)
        if not (_finite(inner) and _finite(outer) and 0.0 <= inner < outer <= math.pi / 2):
            raise gltf.error(where, "spot cone angles must satisfy 0 <= inner < outer <= pi/2")
    rgb = (float(color[0]), float(color[1]), float(color[2]))
    return FileLight(row, kind, rgb, float(intensity), rng, float(inner), float(outer))


def _finite(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number(gltf: GltfFile, obj: dict, name: str, where: str) -> float:
    value = obj.get(name)
    if not _finite(value):
        raise gltf.error(where, f"{name} must be a finite number, got {describe(value)}")
    return float(value)


def _positive(gltf: GltfFile, obj: dict, name: str, where: str, default) -> float:
    """`obj[name]`, a finite number > 0; `default` when absent (None: required)."""
    if obj.get(name) is None and default is not None:
        return default
    value = _number(gltf, obj, name, where)
    if value <= 0.0:
        raise gltf.error(where, f"{name} must be greater than 0, got {value!r}")
    return value
