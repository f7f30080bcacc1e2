"""A glTF file built in code that holds one of each thing the export must carry over.

Textured materials (a PNG in a buffer view, a JPEG in a data URI) with samplers and
KHR_texture_transform, the three alpha modes, emissive strength, normal and occlusion
textures; a primitive with TANGENT, TEXCOORD_0/1 and COLOR_0; morph targets with default
weights; EXT_mesh_gpu_instancing; perspective and orthographic cameras; a punctual light;
a node given as a matrix; extras everywhere; animations: STEP, LINEAR and CUBICSPLINE
channels, and a morph-weights channel. Written from the glTF 2.0 specification's schema,
with no glTF library.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
from gltf_rig import glb
from PIL import Image

FLOAT, USHORT = 5126, 5123


def _image(fmt: str, color) -> bytes:
    img = Image.new("RGB", (4, 4), color)
    img.putpixel((1, 2), (10, 200, 30))
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


PNG = _image("PNG", (200, 40, 90))
JPEG = _image("JPEG", (30, 60, 220))


class _Blob:
    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def view(self, raw: bytes, **more) -> int:
        self.data += b"\0" * (-len(self.data) % 4)
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw),
                           **more})  # fmt: skip
        self.data += raw
        return len(self.views) - 1

    def add(self, array, kind: str, ctype: int = FLOAT, bounds: bool = False, **more) -> int:
        array = np.ascontiguousarray(array, dtype=np.float32 if ctype == FLOAT else np.uint16)
        width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[kind]
        acc = {"bufferView": self.view(array.tobytes()), "componentType": ctype,
               "count": array.size // width, "type": kind, **more}  # fmt: skip
        if bounds:
            flat = array.reshape(-1, width)
            acc["min"], acc["max"] = flat.min(0).tolist(), flat.max(0).tolist()
        self.accessors.append(acc)
        return len(self.accessors) - 1


def feature_document(variant: int = 0) -> tuple[dict, bytes]:
    """(JSON, binary buffer) of the feature file; `variant` changes its numbers, images
    and settings, so that files merged into one export differ in every kind of object."""
    b = _Blob()
    v = float(variant)
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], np.float32)
    nrm = np.tile([0.0, 0.0, 1.0], (4, 1))
    tan = np.tile([1.0, 0.0, 0.0, 1.0], (4, 1))
    uv = pos[:, :2]
    color = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 0.5]], np.float32)
    idx = np.array([0, 1, 2, 2, 1, 3], np.uint16)
    attrs = {"POSITION": b.add(pos, "VEC3", bounds=True), "NORMAL": b.add(nrm, "VEC3"),
             "TANGENT": b.add(tan, "VEC4"), "TEXCOORD_0": b.add(uv, "VEC2"),
             "TEXCOORD_1": b.add(uv * 2, "VEC2"), "COLOR_0": b.add(color, "VEC4")}  # fmt: skip
    indices = b.add(idx, "SCALAR", USHORT)
    delta = np.array([[0, 0, 0.5], [0, 0, 0], [0, 0, 0], [0, 0, -0.5]], np.float32)
    target = {"POSITION": b.add(delta, "VEC3", bounds=True)}
    instances = b.add([[0, 0, v], [2, 0, 0], [4, 0, 1]], "VEC3")
    t_step = b.add([0.0, 0.5, 1.0], "SCALAR", bounds=True)
    v_step = b.add([[0, 0, 0], [0, 1, 0], [0, 2, 0]], "VEC3")
    t_cubic = b.add([0.0, 1.0, 2.5], "SCALAR", bounds=True)
    q = [[0, 0, 0, 1], [0, 0.7071068, 0, 0.7071068], [0, 1, 0, 0]]
    tangents = [[0, 0.3, 0, 0], [0, -0.2, 0.1, 0]]
    v_cubic = b.add([tangents[0], q[0], tangents[1], tangents[1], q[1], tangents[0],
                     tangents[0], q[2], tangents[1]], "VEC4")  # fmt: skip
    t_lin = b.add([0.0, 2.0 + v], "SCALAR", bounds=True)
    v_lin = b.add([[1, 1, 1], [2, 0.5, 1]], "VEC3")
    v_weights = b.add([0.0, 1.0], "SCALAR")
    png_view = b.view(PNG if not variant else _image("PNG", (variant, 40, 90)))
    jpeg = JPEG if not variant else _image("JPEG", (30, variant, 220))
    doc = {
        "asset": {"version": "2.0", "generator": "sgview tests", "copyright": "test data"},
        "extensionsUsed": [
            "KHR_texture_transform",
            "KHR_materials_emissive_strength",
            "EXT_mesh_gpu_instancing",
            "KHR_lights_punctual",
        ],  # fmt: skip
        "extensions": {
            "KHR_lights_punctual": {
                "lights": [
                    {
                        "type": "spot",
                        "color": [1, 0.9, 0.8],
                        "intensity": 3.5 + v,
                        "name": "spot",
                        "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.6},
                    }
                ]
            }
        },  # fmt: skip
        "scene": 0,
        "scenes": [{"name": "features", "nodes": [0]}],
        "nodes": [
            {"name": "Root", "children": [1, 2, 3, 4, 5, 6], "extras": {"tag": "root"}},
            {
                "name": "Instanced",
                "mesh": 0,
                "translation": [1, 2, 3],
                "extensions": {
                    "EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": instances}}
                },
            },
            {"name": "Morph", "mesh": 1, "weights": [0.25], "scale": [2, 2, 2]},
            {"name": "Camera", "camera": 0, "translation": [0, 1, 5]},
            {
                "name": "Ortho",
                "camera": 1,
                "matrix": [1, 0, 0, 0, 0, 0.8, 0.6, 0, 0, -0.6, 0.8, 0, 4, 5, 6, 1],
            },
            {
                "name": "Light",
                "rotation": [0, 0.3826834, 0, 0.9238795],
                "extensions": {"KHR_lights_punctual": {"light": 0}},
            },
            {"name": "Spinner", "mesh": 0, "scale": [1, 1, 1]},
        ],  # fmt: skip
        "meshes": [
            {
                "name": "quad",
                "primitives": [
                    {"attributes": attrs, "indices": indices, "material": 0, "mode": 4},
                    {"attributes": attrs, "indices": indices, "material": 1, "extras": {"part": 2}},
                ],
            },
            {
                "name": "morph",
                "weights": [0.5],
                "extras": {"targetNames": ["bulge"]},
                "primitives": [
                    {
                        "attributes": {
                            "POSITION": attrs["POSITION"],
                            "TEXCOORD_0": attrs["TEXCOORD_0"],
                        },
                        "indices": indices,
                        "material": 2,
                        "targets": [target],
                    }
                ],
            },
        ],  # fmt: skip
        "materials": [
            {
                "name": "opaque",
                "doubleSided": True,
                "emissiveFactor": [0.1, 0.2, 0.3],
                "pbrMetallicRoughness": {
                    "baseColorTexture": {
                        "index": 0,
                        "extensions": {
                            "KHR_texture_transform": {
                                "offset": [0.5, 0],
                                "scale": [2, 2],
                                "rotation": 0.3,
                            }
                        },
                    },
                    "metallicFactor": 0.2 + v / 100,
                    "roughnessFactor": 0.7,
                },
                "normalTexture": {"index": 1, "scale": 0.5, "texCoord": 1},
            },
            {
                "name": "mask",
                "alphaMode": "MASK",
                "alphaCutoff": 0.3,
                "emissiveFactor": [1, 1, 1],
                "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 2.0}},
                "pbrMetallicRoughness": {
                    "baseColorFactor": [0.2, 0.4, 0.6, 0.8],
                    "baseColorTexture": {"index": 1},
                },
            },
            {
                "name": "blend",
                "alphaMode": "BLEND",
                "extras": {"note": "see-through"},
                "occlusionTexture": {"index": 0, "strength": 0.5},
            },
        ],  # fmt: skip
        "textures": [{"sampler": 0, "source": 0, "name": "png"}, {"source": 1}],
        "samplers": [
            {"magFilter": 9728, "minFilter": 9986 + variant % 2, "wrapS": 33071, "wrapT": 33648}
        ],
        "images": [
            {"bufferView": png_view, "mimeType": "image/png", "name": "pink"},
            {"uri": "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()},
        ],
        "cameras": [
            {
                "type": "perspective",
                "name": "persp",
                "perspective": {
                    "yfov": 0.8 + v / 100,
                    "znear": 0.1,
                    "zfar": 100,
                    "aspectRatio": 1.5,
                },
            },
            {
                "type": "orthographic",
                "orthographic": {"xmag": 2, "ymag": 1.5, "znear": 0.01, "zfar": 50},
            },
        ],  # fmt: skip
        "animations": [
            {
                "name": "Moves",
                "channels": [
                    {"sampler": 0, "target": {"node": 3, "path": "translation"}},
                    {"sampler": 1, "target": {"node": 6, "path": "rotation"}},
                    {"sampler": 2, "target": {"node": 6, "path": "scale"}},
                ],
                "samplers": [
                    {"input": t_step, "output": v_step, "interpolation": "STEP"},
                    {"input": t_cubic, "output": v_cubic, "interpolation": "CUBICSPLINE"},
                    {"input": t_lin, "output": v_lin},
                ],
            },
            {
                "name": "Bulge",
                "channels": [{"sampler": 0, "target": {"node": 2, "path": "weights"}}],
                "samplers": [{"input": t_lin, "output": v_weights}],
            },
        ],  # fmt: skip
    }
    doc["accessors"], doc["bufferViews"] = b.accessors, b.views
    doc["buffers"] = [{"byteLength": len(b.data)}]
    return doc, bytes(b.data)


def write_features(folder: Path, name: str = "features.glb", variant: int = 0) -> Path:
    """The feature file as ``.glb`` or ``.gltf`` (buffer beside it as <stem>.bin)."""
    doc, blob = feature_document(variant)
    path = Path(folder) / name
    if name.endswith(".glb"):
        path.write_bytes(glb(doc, blob))
    else:
        doc["buffers"][0]["uri"] = Path(name).stem + ".bin"
        (Path(folder) / (Path(name).stem + ".bin")).write_bytes(blob)
        path.write_text(json.dumps(doc))
    return path
