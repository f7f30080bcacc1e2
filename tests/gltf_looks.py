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


def box(width: float, height: float, depth: float):
    """A box standing on the XZ plane (y in [0, height]), centred on the Y axis: four
    vertices per face (flat normals), TEXCOORD_0, counter-clockwise seen from outside."""
    pos, nrm, uv, idx = [], [], [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = np.zeros(3, np.float32)
            n[axis] = sign
            u, v = np.roll(np.eye(3, dtype=np.float32), -axis - 1, 0)[:2] * [[sign], [1.0]]
            corners = [n + a * u + b * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            k = len(pos)
            pos += [c * [width / 2, height / 2, depth / 2] + [0, height / 2, 0] for c in corners]
            nrm += [n] * 4
            uv += [[0, 1], [1, 1], [1, 0], [0, 0]]
            idx += [k, k + 1, k + 2, k, k + 2, k + 3]
    return (np.asarray(pos, np.float32), np.asarray(nrm, np.float32),
            np.asarray(uv, np.float32), np.asarray(idx, np.uint32))  # fmt: skip


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

    def mesh(self, geometry, material: dict | None = None, colors=None, uv1=None,
             targets=(), weights=None) -> int:  # fmt: skip
        """A one-primitive mesh; `targets`: morph targets, each a dict of POSITION and/or
        NORMAL delta arrays; `weights`: the mesh's default morph weights."""
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
        if targets:
            prim["targets"] = [{key: self.vec3(d) for key, d in t.items()} for t in targets]
        if material is not None:
            self.doc["materials"].append(material)
            prim["material"] = len(self.doc["materials"]) - 1
        self.doc["meshes"].append({"primitives": [prim]})
        if weights is not None:
            self.doc["meshes"][-1]["weights"] = list(weights)
        return len(self.doc["meshes"]) - 1

    def vec3(self, values) -> int:
        """An accessor of float VEC3 `values` (morph deltas, instance TRS)."""
        return self.blob.add(np.asarray(values, np.float32), FLOAT, "VEC3")

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


#: Where showcase's front row stands: the morphed block and the instanced studs' node.
BLOCK_AT = (1.6, 0.0, 3.0)
STUDS_AT = (-1.6, 0.0, 3.0)
#: The studs' per-instance TRANSLATION and uniform SCALE (spheres of radius 1 scaled).
STUDS = (((-1.0, 0.22, 0.0), 0.22), ((0.0, 0.3, 0.0), 0.3), ((1.0, 0.38, 0.0), 0.38))


def block_morph(height: float = 0.9, half: float = 0.4):
    """showcase's morphed block: a box `2 half` wide and `height` tall, and its one
    morph target, which moves the top face 0.6 along +X and halves it (a leaning,
    tapered block at weight 1), with the NORMAL deltas of the faces it tilts."""
    pos, nrm, uv, idx = box(2 * half, height, 2 * half)
    top = pos[:, 1] > height / 2
    delta = np.zeros_like(pos)
    delta[top] = np.c_[0.6 - 0.5 * pos[top, 0], np.zeros(top.sum()), -0.5 * pos[top, 2]]
    tri = (pos + delta)[idx].reshape(-1, 3, 3)
    face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])[::2]  # one per face
    face /= np.linalg.norm(face, axis=1, keepdims=True)
    return (pos, nrm, uv, idx), {"POSITION": delta, "NORMAL": np.repeat(face, 4, 0) - nrm}


def _morphed_block(d: Doc) -> None:
    """A violet block whose morph target leans and tapers it, at the mesh's default
    weight 0.5 (halfway)."""
    geometry, target = block_morph()
    violet = {"pbrMetallicRoughness": {"baseColorFactor": [0.62, 0.22, 0.75, 1.0],
              "metallicFactor": 0.0, "roughnessFactor": 0.5}}  # fmt: skip
    mesh = d.mesh(geometry, violet, targets=[target], weights=[0.5])
    d.node("Morphed", mesh=mesh, translation=list(BLOCK_AT))


def _instanced_studs(d: Doc, ball) -> None:
    """One node "Studs" with EXT_mesh_gpu_instancing: three glowing cyan spheres of
    growing size, each resting on the floor where its TRANSLATION and SCALE put it."""
    cyan = {"pbrMetallicRoughness": {"baseColorFactor": [0.02, 0.05, 0.06, 1.0],
            "metallicFactor": 0.0}, "emissiveFactor": [0.1, 0.85, 1.0]}  # fmt: skip
    attrs = {"TRANSLATION": d.vec3([t for t, _ in STUDS]),
             "SCALE": d.vec3([[s] * 3 for _, s in STUDS])}  # fmt: skip
    d.node("Studs", mesh=d.mesh(ball, cyan), translation=list(STUDS_AT),
           extensions={"EXT_mesh_gpu_instancing": {"attributes": attrs}})  # fmt: skip
    d.doc.setdefault("extensionsUsed", []).append("EXT_mesh_gpu_instancing")


def showcase(path: Path) -> Path:
    """The materials picture of docs/viewer.md: an alpha-masked leaf, a blended glass
    pane in front of a gold (metal) sphere, a white dielectric sphere, an emissive lamp
    with KHR_materials_emissive_strength, and in front of them a violet block morphed
    halfway (default weight 0.5) and three instanced glowing studs
    (EXT_mesh_gpu_instancing), on a grey floor, seen through the file's camera "Front"
    (an empty node and a far lamp node stand aside: framing ignores them)."""
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
    _morphed_block(d)
    _instanced_studs(d, ball)
    floor = {"pbrMetallicRoughness": {"baseColorFactor": [0.35, 0.36, 0.4, 1.0],
             "metallicFactor": 0.0, "roughnessFactor": 0.7}}  # fmt: skip
    s = math.sqrt(0.5)
    d.node("Floor", mesh=d.mesh(quad(11.0), floor), rotation=[-s, 0.0, 0.0, s])
    d.node("Front", camera=0, translation=[0.0, 2.6, 7.5], rotation=[-0.1218, 0.0, 0.0, 0.9926])
    d.node("Empty", translation=[30.0, 12.0, -40.0])
    d.doc["cameras"] = [{"name": "Front", "type": "perspective",
                         "perspective": {"yfov": 0.75, "znear": 0.1, "zfar": 200.0}}]  # fmt: skip
    return d.write(path)
