"""glTF files built in code for the material, transparency, camera and light tests: a
UV sphere, quads, and the documents that place them (expected pictures follow the glTF
2.0 specification, not sgview's code)."""

from __future__ import annotations

import base64
import io
import json
import math
from pathlib import Path

import numpy as np
from gltf_rig import FLOAT, UINT, _Blob


def sphere(segments: int = 48, rings: int = 24, radius: float = 1.0):
    """Positions, normals, TEXCOORD_0 and uint32 indices of a UV sphere (counter-clockwise
    seen from outside)."""
    theta = np.linspace(0.0, math.pi, rings + 1)
    phi = np.linspace(0.0, 2.0 * math.pi, segments + 1)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    n = np.stack([np.sin(t) * np.cos(p), np.cos(t), -np.sin(t) * np.sin(p)], -1).reshape(-1, 3)
    uv = np.stack([p / (2 * math.pi), t / math.pi], -1).reshape(-1, 2)
    r, s = np.meshgrid(np.arange(rings), np.arange(segments), indexing="ij")
    a = r * (segments + 1) + s
    b = a + segments + 1
    idx = np.stack([a, b, a + 1, a + 1, b, b + 1], -1).reshape(-1)
    return ((n * radius).astype(np.float32), n.astype(np.float32), uv.astype(np.float32),
            idx.astype(np.uint32))  # fmt: skip


def quad(size: float = 2.0, z: float = 0.0):
    """A square in the XY plane centred on the origin, facing +Z: positions, normals,
    TEXCOORD_0 (v = 0 at the top) and indices."""
    h = size / 2.0
    pos = np.array([[-h, -h, z], [h, -h, z], [h, h, z], [-h, h, z]], np.float32)
    nrm = np.tile(np.array([0, 0, 1], np.float32), (4, 1))
    uv = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float32)
    return pos, nrm, uv, np.array([0, 1, 2, 0, 2, 3], np.uint32)


def png_uri(pixels) -> str:
    """A data URI of an RGBA or RGB PNG of `pixels` (h, w, 3 or 4) uint8."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.asarray(pixels, np.uint8)).save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


class Doc:
    """A glTF document being built: meshes, nodes, materials, images, one buffer."""

    def __init__(self) -> None:
        self.blob = _Blob()
        self.doc: dict = {"asset": {"version": "2.0", "generator": "sgview tests"},
                          "scene": 0, "scenes": [{"nodes": []}], "nodes": [], "meshes": [],
                          "materials": []}  # fmt: skip

    def mesh(self, geometry, material: dict | None = None, colors=None, uv1=None) -> int:
        pos, nrm, uv, idx = geometry
        attrs = {"POSITION": self.blob.add(pos, FLOAT, "VEC3"),
                 "NORMAL": self.blob.add(nrm, FLOAT, "VEC3"),
                 "TEXCOORD_0": self.blob.add(uv, FLOAT, "VEC2")}  # fmt: skip
        acc = self.blob.accessors[attrs["POSITION"]]
        acc["min"], acc["max"] = pos.min(0).tolist(), pos.max(0).tolist()
        if colors is not None:
            attrs["COLOR_0"] = self.blob.add(np.asarray(colors, np.float32), FLOAT, "VEC4")
        if uv1 is not None:
            attrs["TEXCOORD_1"] = self.blob.add(np.asarray(uv1, np.float32), FLOAT, "VEC2")
        prim = {"attributes": attrs, "indices": self.blob.add(idx, UINT, "SCALAR")}
        if material is not None:
            self.doc["materials"].append(material)
            prim["material"] = len(self.doc["materials"]) - 1
        self.doc["meshes"].append({"primitives": [prim]})
        return len(self.doc["meshes"]) - 1

    def node(self, name: str, root: bool = True, **fields) -> int:
        self.doc["nodes"].append({"name": name, **fields})
        k = len(self.doc["nodes"]) - 1
        if root:
            self.doc["scenes"][0]["nodes"].append(k)
        return k

    def image(self, pixels, sampler: dict | None = None) -> int:
        """A texture of `pixels`; returns its index."""
        self.doc.setdefault("images", []).append({"uri": png_uri(pixels)})
        tex = {"source": len(self.doc["images"]) - 1}
        if sampler is not None:
            self.doc.setdefault("samplers", []).append(sampler)
            tex["sampler"] = len(self.doc["samplers"]) - 1
        self.doc.setdefault("textures", []).append(tex)
        return len(self.doc["textures"]) - 1

    def write(self, path: Path) -> Path:
        doc = dict(self.doc)
        if not doc["materials"]:
            del doc["materials"]
        doc["accessors"] = self.blob.accessors
        doc["bufferViews"] = self.blob.views
        raw = bytes(self.blob.data)
        doc["buffers"] = [{"byteLength": len(raw),
                           "uri": "data:application/octet-stream;base64,"
                           + base64.b64encode(raw).decode()}]  # fmt: skip
        Path(path).write_text(json.dumps(doc))
        return Path(path)


def spheres_grid(path: Path, base=(0.9, 0.6, 0.2, 1.0)) -> Path:
    """Five columns of roughness 0 .. 1 and two rows: metallic 1 (top), 0 (bottom), as the
    MetalRoughSpheres sample lays them out, 2.5 units apart."""
    d = Doc()
    geometry = sphere()
    for row, metallic in enumerate((1.0, 0.0)):
        for col in range(5):
            material = {"pbrMetallicRoughness": {"baseColorFactor": list(base),
                        "metallicFactor": metallic, "roughnessFactor": col / 4}}  # fmt: skip
            m = d.mesh(geometry, material)
            d.node(f"m{metallic:g}_r{col}", mesh=m,
                   translation=[2.5 * (col - 2), 1.25 - 2.5 * row, 0.0])  # fmt: skip
    return d.write(path)


def showcase(path: Path) -> Path:
    """The materials picture of docs/viewer.md: an alpha-masked leaf, a blended glass
    pane in front of a gold (metal) sphere, a white dielectric sphere, an emissive lamp
    with KHR_materials_emissive_strength, on a grey floor, seen through the file's camera
    "Front" (an empty node and a far lamp node stand aside: framing ignores them)."""
    d = Doc()
    ball = sphere()
    n = 64
    px = np.zeros((n, n, 4), np.uint8)
    yy, xx = np.mgrid[0:n, 0:n] / (n - 1.0) * 2.0 - 1.0  # [-1, 1] across
    leaf = (xx / 0.95) ** 2 + (yy / (0.55 * np.cos(xx * 1.4))) ** 2 < 1.0
    vein = (np.abs(yy) < 0.03) & (xx > -0.95)
    px[..., 0], px[..., 1], px[..., 2] = 60, 170, 40
    px[vein, 0], px[vein, 1], px[vein, 2] = 150, 210, 90
    px[..., 3] = np.where(leaf | vein, 255, 0)
    tex = d.image(px, {"magFilter": 9729, "minFilter": 9729, "wrapS": 33071, "wrapT": 33071})
    masked = {"pbrMetallicRoughness": {"baseColorTexture": {"index": tex}, "metallicFactor": 0},
              "alphaMode": "MASK", "doubleSided": True}  # fmt: skip
    d.node("Leaf", mesh=d.mesh(quad(2.2), masked), translation=[-3.4, 1.0, 0.0],
           rotation=[0.0, 0.2588, 0.0, 0.9659])  # fmt: skip
    glass = {"pbrMetallicRoughness": {"baseColorFactor": [0.55, 0.8, 1.0, 0.3],
             "metallicFactor": 0.0, "roughnessFactor": 0.05},
             "alphaMode": "BLEND", "doubleSided": True}  # fmt: skip
    d.node("Glass", mesh=d.mesh(quad(1.8), glass), translation=[-1.1, 0.95, 1.6])
    gold = {"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.78, 0.34, 1.0],
            "metallicFactor": 1.0, "roughnessFactor": 0.2}}  # fmt: skip
    d.node("Gold", mesh=d.mesh(ball, gold), translation=[-1.1, 1.0, 0.0])
    white = {"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.9, 0.88, 1.0],
             "metallicFactor": 0.0, "roughnessFactor": 0.45}}  # fmt: skip
    d.node("Plaster", mesh=d.mesh(ball, white), translation=[1.2, 1.0, 0.0])
    strength = {"KHR_materials_emissive_strength": {"emissiveStrength": 3.0}}
    lamp = {"pbrMetallicRoughness": {"baseColorFactor": [0.05, 0.05, 0.05, 1.0],
            "metallicFactor": 0.0}, "emissiveFactor": [1.0, 0.35, 0.08],
            "extensions": strength}  # fmt: skip
    d.node("Lamp", mesh=d.mesh(ball, lamp), translation=[3.3, 0.7, 0.0], scale=[0.7] * 3)
    floor = {"pbrMetallicRoughness": {"baseColorFactor": [0.35, 0.36, 0.4, 1.0],
             "metallicFactor": 0.0, "roughnessFactor": 0.7}}  # fmt: skip
    s = math.sqrt(0.5)
    d.node("Floor", mesh=d.mesh(quad(11.0), floor), rotation=[-s, 0.0, 0.0, s])
    d.node("Front", camera=0, translation=[0.0, 2.6, 7.5], rotation=[-0.1218, 0.0, 0.0, 0.9926])
    d.node("Empty", translation=[30.0, 12.0, -40.0])
    d.doc["cameras"] = [{"name": "Front", "type": "perspective",
                         "perspective": {"yfov": 0.75, "znear": 0.1, "zfar": 200.0}}]  # fmt: skip
    return d.write(path)
