"""Carrying a loaded glTF file's objects into an export, as read (see gltf_read/source.py).

`carry(out, packer, source, nodes, notes)` appends the source's accessors, buffer views
(their bytes re-packed into the new buffer), meshes, materials, textures, images (their
original bytes, placed by the writer), samplers, cameras, skins, animations, lights and
material variants to `out`, with every index moved (remap.py), and returns the
`Shift` the exporter uses for the source's nodes. What cannot be carried (a channel or a
skin joint aimed at a node that is not in the scene, an unreadable image or buffer) is
counted in `notes`, one entry per kind, never dropped silently.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import TypeGuard

import numpy as np

from viewer.io.gltf_read.document import whole
from viewer.io.gltf_read.source import GltfSource
from viewer.io.gltf_write.pack import Packer
from viewer.io.gltf_write.remap import (
    Shift,
    remap_accessor,
    remap_animation,
    remap_material,
    remap_mesh,
    remap_skin,
    remap_texture,
)

__all__ = ["Output", "carry"]

_MESHOPT = "EXT_meshopt_compression"


class Output:
    """The export's top-level arrays, root extensions and image bytes, being filled."""

    ARRAYS = (
        "accessors",
        "bufferViews",
        "meshes",
        "materials",
        "textures",
        "images",
        "samplers",
        "skins",
        "cameras",
        "animations",
    )

    def __init__(self) -> None:
        self.arrays: dict[str, list] = {name: [] for name in self.ARRAYS}
        self.lights: list = []
        self.variants: list = []
        self.root_extensions: dict = {}
        self.required: set[str] = set()
        self.image_data: list[tuple[bytes, str]] = []  # per image: (bytes, MIME type)
        self.skins_of: list[dict[int, int]] = []  # per carried source: skin -> written skin
        self.copyright: list[str] = []
        self.declared: set[str] = set()  # the sources' extensionsUsed

    def base(self) -> dict[str, int]:
        base = {name: len(items) for name, items in self.arrays.items()}
        base["lights"], base["variants"] = len(self.lights), len(self.variants)
        return base


def _natural(value: object) -> TypeGuard[int]:
    """Whether `value` is a JSON integer of 0 or more (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _objects(doc: dict, name: str, notes: Counter) -> list:
    """The top-level array `name`, entries that are not JSON objects written as empty
    ones (so later indices stay put); each problem counted in `notes`."""
    value = doc.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        notes["file-level field(s) that should be arrays and are not (left out)"] += 1
        return []
    bad = sum(not isinstance(item, dict) for item in value)
    if bad:
        notes["entr(ies) that are not JSON objects (written empty)"] += bad
    return [item if isinstance(item, dict) else {} for item in value]


def _array(doc: dict, name: str) -> list:
    value = doc.get(name)
    return value if isinstance(value, list) else []


def carry(
    out: Output, packer: Packer, src: GltfSource, nodes: dict[int, int], notes: Counter
) -> Shift:
    """Append `src`'s objects to `out` (see the module docstring). `nodes` maps the
    source's node indices to written ones."""
    doc = src.doc
    sh = Shift(out.base(), nodes=dict(nodes))
    outside = len(_array(doc, "nodes")) - len(nodes)
    if outside > 0:
        notes["node(s) outside the scene sgview loaded (another glTF scene: left out)"] += outside
    if len(_array(doc, "scenes")) > 1:
        notes["glTF scene(s) other than the one shown (left out)"] += len(doc["scenes"]) - 1
    _views(packer, src, sh, notes)
    arrays = out.arrays
    first = len(arrays["accessors"])
    arrays["accessors"] += [remap_accessor(a, sh) for a in _objects(doc, "accessors", notes)]
    for i in _needing_bounds(doc):
        _add_bounds(arrays["accessors"][first + i], src, doc["accessors"][i], notes)
    arrays["meshes"] += [remap_mesh(m, sh) for m in _objects(doc, "meshes", notes)]
    arrays["materials"] += [remap_material(m, sh) for m in _objects(doc, "materials", notes)]
    _images(out, src, sh, notes)
    arrays["textures"] += [remap_texture(t, sh) for t in _objects(doc, "textures", notes)]
    arrays["samplers"] += copy.deepcopy(_objects(doc, "samplers", notes))
    arrays["cameras"] += copy.deepcopy(_objects(doc, "cameras", notes))
    skins: dict[int, int] = {}
    for i, skin in enumerate(_objects(doc, "skins", notes)):
        moved = remap_skin(skin, sh)
        if moved is None:
            notes["skin(s) with a joint outside the saved scene (left out)"] += 1
            continue
        skins[i] = len(arrays["skins"])
        arrays["skins"].append(moved)
    out.skins_of.append(skins)
    for anim in _objects(doc, "animations", notes):
        moved, dropped = remap_animation(anim, sh)
        if dropped:
            notes["animation channel(s) aimed at nodes outside the saved scene (left out)"] += (
                dropped
            )
        if moved is not None:
            arrays["animations"].append(moved)
        else:
            notes["animation(s) with no channel left (left out)"] += 1
    _root_extensions(out, doc, notes)
    for key, into in (("extensionsUsed", out.declared), ("extensionsRequired", out.required)):
        names = doc.get(key)
        if isinstance(names, list):
            into.update(n for n in names if isinstance(n, str))
    asset = doc.get("asset")
    if isinstance(asset, dict) and isinstance(asset.get("copyright"), str):
        out.copyright.append(asset["copyright"])
    return sh


def _views(packer: Packer, src: GltfSource, sh: Shift, notes: Counter) -> None:
    """Re-pack the source's buffer views; views that only hold images are left to the
    image writer."""
    doc = src.doc
    images_only = {im.get("bufferView") for im in _array(doc, "images") if isinstance(im, dict)}
    for acc in _array(doc, "accessors"):
        if isinstance(acc, dict):
            images_only.discard(acc.get("bufferView"))
            sparse = acc.get("sparse")
            if isinstance(sparse, dict):
                for part in ("indices", "values"):
                    if isinstance(sparse.get(part), dict):
                        images_only.discard(sparse[part].get("bufferView"))
    for mesh in _array(doc, "meshes"):
        for prim in mesh.get("primitives", []) if isinstance(mesh, dict) else []:
            draco = (
                (prim.get("extensions") or {}).get("KHR_draco_mesh_compression")
                if isinstance(prim, dict)
                else None
            )
            if isinstance(draco, dict):
                images_only.discard(draco.get("bufferView"))
    for j, view in enumerate(_array(doc, "bufferViews")):
        if j in images_only or not isinstance(view, dict):
            continue
        new = _view(packer, src, j, view)
        if new is None:
            notes["buffer view(s) whose bytes could not be read (left out)"] += 1
            continue
        if packer.views[new]["buffer"] == 1 and not packer.meshopt:
            notes["buffer view(s) of a buffer without data (written without data)"] += 1
        sh.views[j] = new


def _needing_bounds(doc: dict) -> set[int]:
    """The accessors glTF requires ``min`` and ``max`` of: POSITION attributes (morph
    targets' too) and animation inputs."""
    need = set()
    for mesh in _array(doc, "meshes"):
        for prim in mesh.get("primitives", []) if isinstance(mesh, dict) else []:
            if isinstance(prim, dict):
                for table in [prim.get("attributes"), *(prim.get("targets") or [])]:
                    if isinstance(table, dict) and _natural(table.get("POSITION")):
                        need.add(table["POSITION"])
    for anim in _array(doc, "animations"):
        for sampler in anim.get("samplers", []) if isinstance(anim, dict) else []:
            if isinstance(sampler, dict) and _natural(sampler.get("input")):
                need.add(sampler["input"])
    count = len(_array(doc, "accessors"))
    return {i for i in need if i < count}


_DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


def _add_bounds(acc: dict, src: GltfSource, read: dict, notes: Counter) -> None:
    """Fill in a required ``min``/``max`` the source left out, from the accessor's data."""
    if not isinstance(read, dict) or ("min" in read and "max" in read):
        return
    values = _elements(src, read)
    if values is None:
        notes["accessor(s) without the min/max glTF requires, and data to compute them from"] += 1
        return
    if values.shape[0] == 0:
        return
    integer = values.dtype.kind in "iu"
    kind = int if integer else float
    acc["min"] = [kind(v) for v in values.min(axis=0)]
    acc["max"] = [kind(v) for v in values.max(axis=0)]


def _elements(src: GltfSource, acc: dict):
    """A plain (not sparse) accessor's elements as stored, or None."""

    ctype, kind, count = acc.get("componentType"), acc.get("type"), acc.get("count")
    view_index = acc.get("bufferView")
    if (
        ctype not in _DTYPES
        or kind not in _WIDTHS
        or not (_natural(count) and _natural(view_index))
    ):
        return None
    if acc.get("sparse") is not None:
        return None
    views = _array(src.doc, "bufferViews")
    if view_index >= len(views) or not isinstance(views[view_index], dict):
        return None
    view = views[view_index]
    data: bytes | memoryview | None = src.views.get(view_index)
    if data is None:
        data = _slice(src, view.get("buffer"), view.get("byteOffset", 0), view.get("byteLength"))
    dtype = np.dtype(_DTYPES[ctype])
    width = _WIDTHS[kind]
    offset = acc.get("byteOffset", 0)
    stride = view.get("byteStride") or width * dtype.itemsize
    if data is None or not (_natural(offset) and _natural(stride)):
        return None
    if count and offset + stride * (count - 1) + width * dtype.itemsize > len(data):
        return None
    return np.ndarray(
        (count, width), dtype, buffer=data, offset=offset, strides=(stride, dtype.itemsize)
    )


def _slice(
    src: GltfSource, buffer: object, offset: object, length: object
) -> bytes | memoryview | None:
    if not (_natural(buffer) and _natural(offset) and _natural(length)):
        return None
    if buffer >= len(src.buffers):
        return None
    data = src.buffers[buffer]
    if data is None or offset + length > len(data):
        return None
    return data[offset : offset + length]


def _view(packer: Packer, src: GltfSource, j: int, view: dict) -> int | None:
    more = {
        k: copy.deepcopy(v)
        for k, v in view.items()
        if k not in ("buffer", "byteOffset", "byteLength")
    }
    meshopt = (view.get("extensions") or {}).get(_MESHOPT)
    if j in src.views:  # decoded by the loader: written plain
        if isinstance(more.get("extensions"), dict):
            more["extensions"].pop(_MESHOPT, None)
            if not more["extensions"]:
                del more["extensions"]
        return packer.view(src.views[j], **more)
    length = whole(view.get("byteLength"))  # 1.0 is 1 (JSON does not tell them apart)
    data = _slice(src, view.get("buffer"), view.get("byteOffset", 0), length)
    if data is not None:
        return packer.view(data, **more)
    if not _natural(length):
        return None
    if isinstance(meshopt, dict):  # the data lies compressed in the extension
        packed = _slice(
            src, meshopt.get("buffer"), meshopt.get("byteOffset", 0), meshopt.get("byteLength")
        )
        if packed is None:
            return None
        ext = more["extensions"][_MESHOPT]
        ext["buffer"], ext["byteOffset"] = 0, packer.place(packed)
        packer.meshopt = True
    elif view.get("buffer") not in src.dataless:
        return None
    entry = {"buffer": 1, "byteOffset": packer.void(length), "byteLength": length}
    entry.update(more)
    packer.views.append(entry)
    return len(packer.views) - 1


def _images(out: Output, src: GltfSource, sh: Shift, notes: Counter) -> None:
    for i, image in enumerate(_array(src.doc, "images")):
        data = src.images[i] if i < len(src.images) else None
        if data is None or not isinstance(image, dict):
            notes["image(s) whose bytes could not be read (left out)"] += 1
            continue
        sh.images[i] = len(out.arrays["images"])
        out.arrays["images"].append(
            {
                k: copy.deepcopy(v)
                for k, v in image.items()
                if k not in ("uri", "bufferView", "mimeType")
            }
        )
        out.image_data.append(data)


def _root_extensions(out: Output, doc: dict, notes: Counter) -> None:
    ext = doc.get("extensions")
    if not isinstance(ext, dict):
        return
    for name, value in ext.items():
        if name == "KHR_lights_punctual" and isinstance(value, dict):
            out.lights += copy.deepcopy(_array(value, "lights"))
        elif name == "KHR_materials_variants" and isinstance(value, dict):
            out.variants += copy.deepcopy(_array(value, "variants"))
        elif name not in out.root_extensions:
            out.root_extensions[name] = copy.deepcopy(value)
        else:
            notes[f"file-level {name} extension data of a second file (left out)"] += 1
