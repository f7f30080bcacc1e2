"""Index bookkeeping for the glTF export: one loaded file's objects moved into the new file.

A written file concatenates the objects of several sources (each glTF file a scene
includes, after sgview's own meshes), so every index a copied object holds moves by the
number of objects of its kind written before it, and node indices follow the live graph.
The places a glTF 2.0 object holds an index are listed by the specification; these
functions know them for the core schema and the ratified extensions that hold indices
(KHR_lights_punctual, KHR_materials_* texture infos, KHR_materials_variants,
KHR_texture_basisu / EXT_texture_webp / EXT_texture_avif, KHR_draco_mesh_compression,
EXT_mesh_gpu_instancing, KHR_animation_pointer). Objects are deep-copied: the source
stays as read.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import TypeGuard

__all__ = [
    "Shift",
    "remap_accessor",
    "remap_animation",
    "remap_material",
    "remap_mesh",
    "remap_node",
    "remap_skin",
    "remap_texture",
]


@dataclass
class Shift:
    """Where one source's objects land: `base[kind]` is added to an index of that kind;
    `nodes`, `images` and `views` map source indices to new ones (absent: not written)."""

    base: dict[str, int]
    nodes: dict[int, int] = field(default_factory=dict)
    images: dict[int, int] = field(default_factory=dict)
    views: dict[int, int] = field(default_factory=dict)

    def move(self, obj: dict, key: str, kind: str) -> None:
        """Shift ``obj[key]`` (an index of `kind`) in place; drop it when not written."""
        value = obj.get(key)
        if not _is_index(value):
            return
        if kind == "nodes" or kind == "images" or kind == "bufferViews":
            table = {"nodes": self.nodes, "images": self.images, "bufferViews": self.views}
            new = table[kind].get(value)
            if new is None:
                del obj[key]
            else:
                obj[key] = new
        else:
            obj[key] = value + self.base[kind]


def _is_index(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _ext(obj: dict, name: str) -> dict | None:
    ext = obj.get("extensions")
    if isinstance(ext, dict) and isinstance(ext.get(name), dict):
        return ext[name]
    return None


def remap_accessor(acc: dict, sh: Shift) -> dict:
    out = copy.deepcopy(acc)
    sh.move(out, "bufferView", "bufferViews")
    sparse = out.get("sparse")
    if isinstance(sparse, dict):
        for part in ("indices", "values"):
            if isinstance(sparse.get(part), dict):
                sh.move(sparse[part], "bufferView", "bufferViews")
    return out


def _texture_infos(value: object, sh: Shift) -> None:
    """Every texture info below `value`: a key ending in "Texture" holding ``index``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("Texture") and isinstance(item, dict):
                sh.move(item, "index", "textures")
            _texture_infos(item, sh)
    elif isinstance(value, list):
        for item in value:
            _texture_infos(item, sh)


def remap_material(mat: dict, sh: Shift) -> dict:
    out = copy.deepcopy(mat)
    _texture_infos(out, sh)
    return out


def remap_mesh(mesh: dict, sh: Shift) -> dict:
    out = copy.deepcopy(mesh)
    for prim in out.get("primitives", []):
        if not isinstance(prim, dict):
            continue
        for table in [prim.get("attributes"), *(prim.get("targets") or [])]:
            if isinstance(table, dict):
                for name in list(table):
                    sh.move(table, name, "accessors")
        sh.move(prim, "indices", "accessors")
        sh.move(prim, "material", "materials")
        draco = _ext(prim, "KHR_draco_mesh_compression")
        if draco is not None:
            sh.move(draco, "bufferView", "bufferViews")
        variants = _ext(prim, "KHR_materials_variants")
        for mapping in (variants or {}).get("mappings", []):
            if isinstance(mapping, dict):
                sh.move(mapping, "material", "materials")
                ids = mapping.get("variants")
                if isinstance(ids, list):
                    mapping["variants"] = [
                        v + sh.base["variants"] if _is_index(v) else v for v in ids
                    ]
    return out


def remap_texture(tex: dict, sh: Shift) -> dict:
    """The texture with its sampler and images moved. An extension whose image is not
    written (KHR_texture_basisu, EXT_texture_webp...) goes with it: its ``source`` is
    required, and the core ``source``, where there is one, still shows the texture."""
    out = copy.deepcopy(tex)
    sh.move(out, "sampler", "samplers")
    sh.move(out, "source", "images")
    extensions = out.get("extensions")
    if isinstance(extensions, dict):
        for name, ext in list(extensions.items()):
            if isinstance(ext, dict) and "source" in ext:
                sh.move(ext, "source", "images")
                if "source" not in ext:
                    del extensions[name]
        if not extensions:
            del out["extensions"]
    return out


def remap_skin(skin: dict, sh: Shift) -> dict | None:
    """The skin with its joints moved; None when a joint is not written."""
    out = copy.deepcopy(skin)
    joints = out.get("joints")
    if not isinstance(joints, list) or any(sh.nodes.get(j) is None for j in joints):
        return None
    out["joints"] = [sh.nodes[j] for j in joints]
    sh.move(out, "inverseBindMatrices", "accessors")
    sh.move(out, "skeleton", "nodes")
    return out


_NODE_FIELDS = ("name", "translation", "rotation", "scale", "matrix", "children")


def remap_node(node: dict, sh: Shift, skins: dict[int, int]) -> dict:
    """A node's references (mesh, skin, camera, weights, extensions, extras) moved; its
    name, transform and children are the exporter's to write. `skins` maps source skin
    indices to written ones."""
    out = {k: copy.deepcopy(v) for k, v in node.items() if k not in _NODE_FIELDS}
    if not out:
        return out
    sh.move(out, "mesh", "meshes")
    sh.move(out, "camera", "cameras")
    if _is_index(out.get("skin")):
        new = skins.get(out["skin"])
        if new is None:
            del out["skin"]
        else:
            out["skin"] = new
    light = _ext(out, "KHR_lights_punctual")
    if light is not None:
        sh.move(light, "light", "lights")
    inst = _ext(out, "EXT_mesh_gpu_instancing")
    if inst is not None and isinstance(inst.get("attributes"), dict):
        for name in list(inst["attributes"]):
            sh.move(inst["attributes"], name, "accessors")
    return out


_POINTER = re.compile(
    r"^/(nodes|meshes|materials|cameras|extensions/KHR_lights_punctual/lights)"
    r"/(\d+)(/.*)?$"
)
_POINTER_KIND = {
    "meshes": "meshes",
    "materials": "materials",
    "cameras": "cameras",
    "extensions/KHR_lights_punctual/lights": "lights",
}


def _pointer(text: str, sh: Shift) -> str | None:
    match = _POINTER.match(text)
    if match is None:
        return None
    kind, index, rest = match.group(1), int(match.group(2)), match.group(3) or ""
    if kind == "nodes":
        new = sh.nodes.get(index)
        if new is None:
            return None
    else:
        new = index + sh.base[_POINTER_KIND[kind]]
    return f"/{kind}/{new}{rest}"


def remap_animation(anim: dict, sh: Shift) -> tuple[dict | None, int]:
    """The animation with its channels' nodes and samplers' accessors moved, and how
    many channels were left out (aimed at a node that is not written). None when no
    channel is left."""
    out = copy.deepcopy(anim)
    samplers = out.get("samplers") or []
    kept, dropped = [], 0
    for ch in out.get("channels") or []:
        target = ch.get("target") if isinstance(ch, dict) else None
        if not isinstance(target, dict):
            dropped += 1
            continue
        pointer = _ext(target, "KHR_animation_pointer")
        if pointer is not None:
            moved = _pointer(str(pointer.get("pointer", "")), sh)
            if moved is None:
                dropped += 1
                continue
            pointer["pointer"] = moved
        elif target.get("node") is not None:
            if sh.nodes.get(target["node"]) is None:
                dropped += 1
                continue
            target["node"] = sh.nodes[target["node"]]
        s = ch.get("sampler")
        if not _is_index(s) or s >= len(samplers):
            dropped += 1
            continue
        kept.append(ch)
    if not kept:
        return None, dropped
    used = sorted({ch["sampler"] for ch in kept})  # the samplers in their order as read
    new_index = {s: k for k, s in enumerate(used)}
    for ch in kept:
        ch["sampler"] = new_index[ch["sampler"]]
    out["channels"] = kept
    out["samplers"] = [samplers[s] for s in used]
    for sampler in out["samplers"]:
        sh.move(sampler, "input", "accessors")
        sh.move(sampler, "output", "accessors")
    return out, dropped
