"""glTF files built in code for the geometry features: morph targets, every primitive
mode, sparse and quantized accessors, GPU instancing, Draco and meshopt compression.

Plain JSON and one base64 buffer (no glTF library), so a test can say exactly what the
file holds; expected values in the tests come from the glTF specification.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

FLOAT, BYTE, UBYTE, SHORT, USHORT, UINT = 5126, 5120, 5121, 5122, 5123, 5125
_CTYPE = {np.float32: FLOAT, np.int8: BYTE, np.uint8: UBYTE, np.int16: SHORT,
          np.uint16: USHORT, np.uint32: UINT}  # fmt: skip
_TYPE = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}

#: A unit quad in the XY plane, corners (0, 0)..(1, 1), two triangles, facing +Z.
QUAD = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
QUAD_INDICES = np.array([0, 1, 2, 0, 2, 3], np.uint16)


class Doc:
    """A glTF document under construction with one embedded buffer."""

    def __init__(self) -> None:
        self.blob = b""
        self.doc: dict = {"asset": {"version": "2.0"}, "accessors": [], "bufferViews": [],
                          "buffers": []}  # fmt: skip

    def view(self, raw: bytes, **extra) -> int:
        self.blob += b"\0" * (-len(self.blob) % 4)
        self.doc["bufferViews"].append(
            {"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(raw), **extra}
        )
        self.blob += raw
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, arr, *, normalized: bool = False, view: bool = True, **extra) -> int:
        """An accessor holding `arr` ((count,) or (count, width)); `view=False`: no
        bufferView (only its count and type)."""
        arr = np.asarray(arr)
        width = 1 if arr.ndim == 1 else arr.shape[1]
        acc = {"componentType": _CTYPE[arr.dtype.type], "count": len(arr),
               "type": _TYPE[width], **extra}  # fmt: skip
        if normalized:
            acc["normalized"] = True
        if view:
            acc["bufferView"] = self.view(np.ascontiguousarray(arr).tobytes())
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def add(self, key: str, item: dict) -> int:
        self.doc.setdefault(key, []).append(item)
        return len(self.doc[key]) - 1

    def write(self, path: Path) -> Path:
        self.doc["buffers"] = [{
            "byteLength": len(self.blob),
            "uri": "data:application/octet-stream;base64," + base64.b64encode(self.blob).decode(),
        }]  # fmt: skip
        path.write_text(json.dumps(self.doc))
        return path


def red_material(doc: Doc, rgb=(1.0, 0.0, 0.0)) -> int:
    return doc.add("materials", {"pbrMetallicRoughness": {"baseColorFactor": [*rgb, 1.0]}})


def morph_quad(path: Path, *, delta=(2.0, 0.0, 0.0), weights=None, node_weights=None,
               channel=None, bone=None) -> Path:  # fmt: skip
    """A red unit quad with one morph target moving every vertex by `delta`; `channel`:
    (interpolation, times, values) of a ``weights`` animation; `bone`: the quad is also
    skinned, wholly, to a joint node "Bone" at translation `bone`."""
    doc = Doc()
    pos = doc.accessor(QUAD)
    idx = doc.accessor(QUAD_INDICES)
    target = doc.accessor(np.tile(np.asarray(delta, np.float32), (4, 1)))
    attrs = {"POSITION": pos}
    if bone is not None:
        attrs["JOINTS_0"] = doc.accessor(np.zeros((4, 4), np.uint8))
        attrs["WEIGHTS_0"] = doc.accessor(np.tile(np.float32([1, 0, 0, 0]), (4, 1)))
    mesh = {
        "primitives": [
            {
                "attributes": attrs,
                "indices": idx,
                "targets": [{"POSITION": target}],
                "material": red_material(doc),
            }
        ]
    }
    if weights is not None:
        mesh["weights"] = list(weights)
    doc.add("meshes", mesh)
    node = {"name": "Morph", "mesh": 0}
    if node_weights is not None:
        node["weights"] = list(node_weights)
    doc.add("nodes", node)
    if bone is not None:
        node["skin"] = doc.add("skins", {"joints": [1]})
        doc.add("nodes", {"name": "Bone", "translation": list(bone)})
    if channel is not None:
        interpolation, times, values = channel
        t = doc.accessor(np.asarray(times, np.float32))
        v = doc.accessor(np.asarray(values, np.float32).reshape(-1))
        doc.add("animations", {
            "samplers": [{"input": t, "output": v, "interpolation": interpolation}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
        })  # fmt: skip
    return doc.write(path)


def mode_mesh(path: Path, mode: int, positions, indices=None, *, rgb=(1.0, 0.0, 0.0)) -> Path:
    """One node with one primitive of `mode` (glTF 3.7.2.1)."""
    doc = Doc()
    prim = {"attributes": {"POSITION": doc.accessor(np.asarray(positions, np.float32))},
            "mode": mode, "material": red_material(doc, rgb)}  # fmt: skip
    if indices is not None:
        prim["indices"] = doc.accessor(np.asarray(indices, np.uint16))
    doc.add("meshes", {"primitives": [prim]})
    doc.add("nodes", {"name": "Shape", "mesh": 0})
    return doc.write(path)


def instanced_quads(path: Path, translations, *, scale=1.0, node_translation=(0, 0, 0)) -> Path:
    """A node with EXT_mesh_gpu_instancing: one red unit quad per translation."""
    doc = Doc()
    pos = doc.accessor((QUAD - [0.5, 0.5, 0.0]).astype(np.float32))
    idx = doc.accessor(QUAD_INDICES)
    doc.add("meshes", {"primitives": [{"attributes": {"POSITION": pos}, "indices": idx,
                                       "material": red_material(doc)}]})  # fmt: skip
    t = np.asarray(translations, np.float32)
    attrs = {"TRANSLATION": doc.accessor(t),
             "SCALE": doc.accessor(np.full((len(t), 3), scale, np.float32))}  # fmt: skip
    doc.add(
        "nodes",
        {
            "name": "Crowd",
            "mesh": 0,
            "translation": list(node_translation),
            "extensions": {"EXT_mesh_gpu_instancing": {"attributes": attrs}},
        },
    )
    doc.doc["extensionsUsed"] = ["EXT_mesh_gpu_instancing"]
    return doc.write(path)
