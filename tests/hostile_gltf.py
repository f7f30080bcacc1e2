"""Small hostile glTF files built in code (no glTF library): the broken-in-a-new-way
cases of issue 26 (singular inverse bind matrices, animations whose values explode
along a chain, skinned vertices far out), each a self-contained .gltf document.

`chain_document` is the one builder: a chain of ``depth`` nodes ``N0 > N1 > ...`` whose
last node draws a triangle, optionally skinned to every node of the chain, optionally
animated. Every knob takes the hostile value directly, so a test states its case.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

FLOAT, UBYTE, USHORT = 5126, 5121, 5123


class _Blob:
    """One binary buffer with its bufferViews and accessors."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, array: np.ndarray, component: int, kind: str) -> int:
        raw = np.ascontiguousarray(array).tobytes()
        self.data += b"\0" * (-len(self.data) % 4)
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)})
        self.data += raw
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}[kind]
        self.accessors.append({"bufferView": len(self.views) - 1, "componentType": component,
                               "count": int(array.size // width), "type": kind})  # fmt: skip
        return len(self.accessors) - 1


def chain_document(
    depth: int = 3,
    *,
    scale: float = 1.0,
    vertex: tuple[float, float, float] = (1.0, 0.0, 0.0),
    skin: bool = False,
    inverse_bind: np.ndarray | None = None,
    animated_scale: float | None = None,
    animated_translation: float | None = None,
    interpolation: str = "LINEAR",
    title: str | None = None,
) -> dict:
    """A .gltf document (embedded buffer) of a chain of `depth` nodes.

    `scale`: every node's static scale. `vertex`: one corner of the drawn triangle.
    `skin`: the triangle is skinned to the chain's nodes, with `inverse_bind` (4x4, row
    major) as every joint's inverse bind matrix (identity when None). `animated_scale` /
    `animated_translation`: a clip "Grow" that takes every node's scale (or x translation)
    from 1 (0) at t=0 to this value at t=1. `title`: the scene's name (the window title).
    """
    blob = _Blob()
    nodes = [{"name": f"N{k}", "scale": [scale] * 3} for k in range(depth)]
    for k in range(depth - 1):
        nodes[k]["children"] = [k + 1]
    tri = np.array([vertex, (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)], np.float32)
    attrs = {"POSITION": blob.add(tri, FLOAT, "VEC3")}
    if skin:
        attrs["JOINTS_0"] = blob.add(np.array([[depth - 1, 0, 0, 0]] * 3, np.uint8), UBYTE, "VEC4")
        attrs["WEIGHTS_0"] = blob.add(np.array([[1, 0, 0, 0]] * 3, np.float32), FLOAT, "VEC4")
    prim = {"attributes": attrs, "indices": blob.add(np.array([0, 1, 2], np.uint16), USHORT,
                                                      "SCALAR")}  # fmt: skip
    nodes[-1]["mesh"] = 0
    doc: dict = {
        "asset": {"version": "2.0", "generator": "sgview hostile tests"},
        "scene": 0,
        "scenes": [{"nodes": [0]} if title is None else {"nodes": [0], "name": title}],
        "nodes": nodes,
        "meshes": [{"primitives": [prim]}],
    }
    if skin:
        ibm = np.eye(4) if inverse_bind is None else np.asarray(inverse_bind, dtype=np.float64)
        binds = np.stack([ibm.T] * depth).astype(np.float32)  # glTF stores columns
        doc["skins"] = [{"joints": list(range(depth)),
                         "inverseBindMatrices": blob.add(binds, FLOAT, "MAT4")}]  # fmt: skip
        nodes[-1]["skin"] = 0
    grow = [("scale", animated_scale, [1.0, 1.0, 1.0]),
            ("translation", animated_translation, [0.0, 0.0, 0.0])]  # fmt: skip
    samplers, channels = [], []
    for path, value, start in grow:
        if value is None:
            continue
        times = np.array([0.0, 1.0], np.float32)
        end = [value] * 3 if path == "scale" else [value, 0.0, 0.0]
        if interpolation == "CUBICSPLINE":
            zero = [0.0] * 3
            keys = np.array([zero, start, zero, zero, end, zero], np.float32)
        else:
            keys = np.array([start, end], np.float32)
        samplers.append({"input": blob.add(times, FLOAT, "SCALAR"),
                         "output": blob.add(keys, FLOAT, "VEC3"),
                         "interpolation": interpolation})  # fmt: skip
        for k in range(depth):
            channels.append({"sampler": len(samplers) - 1, "target": {"node": k, "path": path}})
    if samplers:
        doc["animations"] = [{"name": "Grow", "samplers": samplers, "channels": channels}]
    doc["accessors"] = blob.accessors
    doc["bufferViews"] = blob.views
    raw = bytes(blob.data)
    doc["buffers"] = [{"byteLength": len(raw), "uri": "data:application/octet-stream;base64,"
                       + base64.b64encode(raw).decode()}]  # fmt: skip
    return doc


def write_chain(folder: Path, name: str = "chain.gltf", **options) -> Path:
    """`chain_document(**options)` written as ``folder/name`` in one step, as an editor
    saves (a viewer watching the file never reads it half written: under load it once
    counted a truncated read as a third failed reload); returns the path."""
    path = Path(folder) / name
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(chain_document(**options)))
    part.replace(path)
    return path


#: Inverse bind matrices that no joint can have: singular, nearly singular, huge.
SINGULAR_BINDS = {
    "zero": np.zeros((4, 4)),
    "rank 3": np.diag([1.0, 1.0, 0.0, 1.0]),
    "nearly singular": np.diag([1.0, 1.0, 1e-12, 1.0]),
    "bottom row": np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], float),
    "rank 2 shear": np.array([[1, 2, 0, 0], [2, 4, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], float),
}
