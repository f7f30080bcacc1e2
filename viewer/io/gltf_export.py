"""`save_gltf`: write a scene as glTF 2.0 (``.glb``, or ``.gltf`` with an embedded buffer).

What is written: every node in pre-order with its name, parent links and current local
translation, rotation and scale; the graph's roots as the one scene. Each drawn node gets
a mesh with real geometry: built-in kinds are written as their triangles, scaled by the
look's size (glTF has no per-node mesh scale that is not inherited), coloured by a
material whose base colour factor is the look's colour (the axes gizmo's painted arms as
vertex colours); glTF meshes as they were imported (positions, normals, indices, vertex
colours). One glTF mesh per (mesh kind, size, colour) in use, however many nodes share it.

Not written: motions, scripted events, the camera, animations, skins and textures (the
native format keeps the first three: ``--save OUT.toml``), glTF lines, points, morph
targets (triangles in their base shape) and GPU instances.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

import numpy as np

from ..content import meshes as mesh_builders
from ..content.scene import Scene
from .paths import write_whole

__all__ = ["GLTF_SUFFIXES", "gltf_document", "save_gltf"]

GLTF_SUFFIXES = (".gltf", ".glb")
_FLOAT, _UINT = 5126, 5125
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963


def save_gltf(scene: Scene, path: str | Path) -> None:
    """Write `scene` to `path` (``.glb`` or ``.gltf``), atomically. Raises SceneError when
    the file cannot be written."""
    path = Path(path)
    doc, blob = gltf_document(scene)
    if path.suffix.lower() == ".glb":
        data = glb_bytes(doc, blob)
    else:
        doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(
            blob
        ).decode("ascii")
        data = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    write_whole(path, data)


def glb_bytes(doc: dict, blob: bytes) -> bytes:
    """A binary glTF container: the JSON chunk (padded with spaces), the BIN chunk (zeros)."""
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    blob = blob + b"\0" * (-len(blob) % 4)
    chunks = struct.pack("<I4s", len(text), b"JSON") + text
    if blob:
        chunks += struct.pack("<I4s", len(blob), b"BIN\0") + blob
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


class _Writer:
    """Accumulates the binary buffer, its views and accessors, meshes and materials."""

    def __init__(self) -> None:
        self.blob = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []
        self.meshes: list[dict] = []
        self.materials: list[dict] = []
        self._mesh_of: dict[tuple, int] = {}
        self._material_of: dict[tuple, int] = {}

    def accessor(self, array: np.ndarray, kind: str, target: int, bounds: bool = False) -> int:
        while len(self.blob) % 4:
            self.blob.append(0)
        raw = np.ascontiguousarray(array).tobytes()
        self.views.append({"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(raw),
                           "target": target})  # fmt: skip
        self.blob += raw
        ctype = _UINT if array.dtype == np.uint32 else _FLOAT
        acc = {"bufferView": len(self.views) - 1, "componentType": ctype,
               "count": int(array.shape[0]), "type": kind}  # fmt: skip
        if bounds:
            acc["min"] = array.min(axis=0).astype(float).tolist()
            acc["max"] = array.max(axis=0).astype(float).tolist()
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def material(self, color) -> int:
        key = tuple(round(float(c), 9) for c in color)
        if key not in self._material_of:
            self._material_of[key] = len(self.materials)
            self.materials.append({"pbrMetallicRoughness": {
                "baseColorFactor": [*map(float, color), 1.0],
                "metallicFactor": 0.0, "roughnessFactor": 1.0}})  # fmt: skip
        return self._material_of[key]

    def mesh(self, scene: Scene, kind: str, size, color) -> int | None:
        key = (kind, tuple(map(float, size)), tuple(map(float, color)))
        if key in self._mesh_of:
            return self._mesh_of[key]
        data = _geometry(scene, kind)
        if data is None:
            return None
        pos = (data.positions.astype(np.float64) * np.asarray(size, np.float64)).astype(np.float32)
        nrm = data.normals.astype(np.float64)
        if kind in mesh_builders.BUILDERS:  # normals under the size scale: the cofactor rule
            nrm = nrm / np.where(np.asarray(size, np.float64) == 0, 1.0, size)
            length = np.linalg.norm(nrm, axis=1, keepdims=True)
            nrm = np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)
        attrs = {
            "POSITION": self.accessor(pos, "VEC3", _ARRAY_BUFFER, bounds=True),
            "NORMAL": self.accessor(nrm.astype(np.float32), "VEC3", _ARRAY_BUFFER),
        }
        alpha = data.vcolors[:, 3:4].astype(np.float64)
        if (alpha > 0).any():  # painted vertices: the colour they show, white factor
            rgb = (1 - alpha) * np.asarray(color, np.float64) + alpha * data.vcolors[:, :3]
            attrs["COLOR_0"] = self.accessor(rgb.astype(np.float32), "VEC3", _ARRAY_BUFFER)
            material = self.material((1.0, 1.0, 1.0))
        else:
            material = self.material(color)
        indices = self.accessor(data.indices.astype(np.uint32), "SCALAR", _ELEMENT_ARRAY_BUFFER)
        self.meshes.append({"name": kind if kind in mesh_builders.BUILDERS else "mesh",
                            "primitives": [{"attributes": attrs, "indices": indices,
                                            "material": material, "mode": 4}]})  # fmt: skip
        self._mesh_of[key] = len(self.meshes) - 1
        return self._mesh_of[key]


def _geometry(scene: Scene, kind: str):
    if kind in mesh_builders.BUILDERS:
        return mesh_builders.builtin(kind)
    if kind in scene.mesh_data:
        pos, nrm, idx = scene.mesh_data[kind]
        surface = scene.surfaces.get(kind)
        data = mesh_builders.from_arrays(pos, nrm, idx, surface)
        if surface is not None:  # painted: COLOR_0 times each primitive's base colour
            rgba = surface.vcolors.astype(np.float64)
            for part in surface.parts:
                used = np.unique(data.indices[part.first : part.first + part.count])
                rgba[used, :3] *= part.material.base_color[:3]
            rgba[:, 3] = 1.0
            if len(rgba) and (rgba == rgba[0]).all():  # one colour: the node's own
                rgba[:] = 0.0
            data.vcolors = rgba.astype(np.float32)
        return data
    return None  # "none", or a key without data: a pivot


def gltf_document(scene: Scene) -> tuple[dict, bytes]:
    """The glTF JSON (without the buffer's URI) and the binary buffer of `scene`."""
    graph = scene.graph
    writer = _Writer()
    ids = [node.id for node in graph]  # pre-order
    index_of = {node_id: k for k, node_id in enumerate(ids)}
    nodes: list[dict] = []
    roots: list[int] = []
    for node in graph:
        entry: dict = {"name": node.name}
        t = np.asarray(node.local_position, dtype=float)
        q = np.asarray(node.local_rotation, dtype=float)
        s = np.asarray(node.local_scale, dtype=float)
        if t.any():
            entry["translation"] = t.tolist()
        if not np.array_equal(q, [0.0, 0.0, 0.0, 1.0]):
            entry["rotation"] = q.tolist()
        if not np.array_equal(s, [1.0, 1.0, 1.0]):
            entry["scale"] = s.tolist()
        look = scene.look(node.id)
        mesh = writer.mesh(scene, look.mesh, look.size, look.color)
        if mesh is not None:
            entry["mesh"] = mesh
        nodes.append(entry)
        parent = node.parent
        if parent is None:
            roots.append(index_of[node.id])
        else:
            nodes[index_of[parent.id]].setdefault("children", []).append(index_of[node.id])
    doc = {
        "asset": {"version": "2.0", "generator": "sgview"},
        "scene": 0,
        "scenes": [{"name": scene.title, "nodes": roots}],
        "nodes": nodes,
    }
    if writer.meshes:
        doc["meshes"] = writer.meshes
        doc["materials"] = writer.materials
        doc["accessors"] = writer.accessors
        doc["bufferViews"] = writer.views
        doc["buffers"] = [{"byteLength": len(writer.blob)}]
    return doc, bytes(writer.blob)
