"""A small skinned, animated glTF model built in code: a three-bone bending cylinder.

Written as plain JSON plus one binary buffer (no glTF library), so tests can also break
it on purpose. Nodes: ``Rig`` (root) > ``Bone0`` > ``Bone1`` > ``Bone2``, and ``Skin``
(a child of ``Rig``: a cylinder mesh skinned to the three bones). Animations:

- ``Bend``: every interpolation mode on some channel (see ``BEND_CHANNELS``);
- ``Wave``: one STEP rotation channel;
- optionally a ``weights`` channel (``weights_channel=True``) on a mesh without morph
  targets, to check it is skipped with a note.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from pathlib import Path

import numpy as np

FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125
BONE_LENGTH = 1.0
RINGS = 13  # rings of the cylinder, from y = 0 to y = 3
SIDES = 12
RADIUS = 0.25


def axis_quat(axis, degrees) -> list[float]:
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    half = math.radians(degrees) / 2
    return [*(axis * math.sin(half)).tolist(), math.cos(half)]


#: (node name, path, interpolation, key times, values per key; CUBICSPLINE: (in, value, out))
BEND_CHANNELS = [
    ("Bone0", "rotation", "LINEAR", [0.0, 0.5, 1.25],
     [axis_quat((0, 0, 1), 0), axis_quat((0, 0, 1), 40), axis_quat((1, 0, 1), -170)]),
    ("Bone1", "rotation", "CUBICSPLINE", [0.1, 0.6, 1.0],
     [([0, 0, 0, 0], axis_quat((0, 0, 1), 10), [0.0, 0.0, 0.3, 0.0]),
      ([0.1, 0.0, -0.2, 0.0], axis_quat((0, 0, 1), 60), [0.0, 0.2, 0.1, 0.0]),
      ([0.0, 0.0, 0.1, 0.0], axis_quat((1, 0, 0), 30), [0, 0, 0, 0])]),
    ("Bone2", "translation", "STEP", [0.0, 0.3, 0.9],
     [[0.0, 1.0, 0.0], [0.2, 1.0, 0.0], [0.0, 1.3, -0.1]]),
    ("Bone1", "scale", "LINEAR", [0.2, 1.1], [[1.0, 1.0, 1.0], [1.5, 0.8, 1.2]]),
    ("Bone0", "translation", "CUBICSPLINE", [0.0, 0.7],
     [([0, 0, 0], [0.0, 0.0, 0.0], [1.0, 0.5, 0.0]),
      ([0.5, -1.0, 0.0], [0.4, 0.2, 0.0], [0, 0, 0])]),
]  # fmt: skip
WAVE_CHANNELS = [
    ("Bone2", "rotation", "STEP", [0.0, 0.25, 0.5],
     [axis_quat((0, 1, 0), 0), axis_quat((0, 1, 0), 45), axis_quat((0, 1, 0), 90)]),
]  # fmt: skip
NODE_NAMES = ["Rig", "Bone0", "Bone1", "Bone2", "Skin"]


class _Blob:
    """One binary buffer with its bufferViews and accessors."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, array: np.ndarray, ctype: int, kind: str, normalized: bool = False) -> int:
        while len(self.data) % 4:
            self.data.append(0)
        raw = np.ascontiguousarray(array).tobytes()
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)})
        self.data += raw
        width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[kind]
        acc = {"bufferView": len(self.views) - 1, "componentType": ctype,
               "count": int(np.asarray(array).size // width), "type": kind}  # fmt: skip
        if normalized:
            acc["normalized"] = True
        self.accessors.append(acc)
        return len(self.accessors) - 1


def cylinder(joint_dtype=np.uint8, weight_mode: str = "float"):
    """Positions, normals, indices, joints and weights of the skinned cylinder.

    Each ring at height y is weighted between the bones around it (bone k spans
    y in [k, k + 1]); `weight_mode` "float", "u8" or "u16" (normalized integers).
    """
    pos, nrm, joints, weights = [], [], [], []
    for r in range(RINGS):
        y = 3.0 * r / (RINGS - 1)
        k = min(int(y), 2)
        f = y - k  # 0 at the bone's root, 1 at its tip
        w_next = 0.6 * f if k < 2 else 0.0
        for s in range(SIDES):
            a = 2 * math.pi * s / SIDES
            pos.append([RADIUS * math.cos(a), y - 1.5, RADIUS * math.sin(a)])  # bind pose
            nrm.append([math.cos(a), 0.0, math.sin(a)])
            joints.append([k, min(k + 1, 2), 0, 0])
            weights.append([1.0 - w_next, w_next, 0.0, 0.0])
    idx = []
    for r in range(RINGS - 1):
        for s in range(SIDES):
            a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
            c, d = a + SIDES, b + SIDES
            idx += [a, c, b, b, c, d]
    weights = np.array(weights)
    if weight_mode == "u8":
        weights = np.round(weights * 255).astype(np.uint8)
    elif weight_mode == "u16":
        weights = np.round(weights * 65535).astype(np.uint16)
    else:
        weights = weights.astype(np.float32)
    return (np.array(pos, np.float32), np.array(nrm, np.float32), np.array(idx, np.uint16),
            np.array(joints, joint_dtype), weights)  # fmt: skip


def _sampler_arrays(interpolation, times, values):
    t = np.array(times, np.float32)
    if interpolation == "CUBICSPLINE":
        v = np.array([list(a) + list(b) + list(c) for a, b, c in values], np.float32)
        v = v.reshape(len(times) * 3, -1)
    else:
        v = np.array(values, np.float32)
    return t, v


def rig_document(*, joints=np.uint8, weights="float", skin=True, weights_channel=False,
                 color=None, vertex_colors=False, skin_offset=(5.0, 5.0, 5.0)):  # fmt: skip
    """(glTF JSON dict, buffer bytes) of the rig; the buffer is not yet referenced by a URI."""
    blob = _Blob()
    nodes = [
        {"name": "Rig", "children": [1, 4], "translation": [0.0, -1.5, 0.0]},
        {"name": "Bone0", "children": [2]},
        {"name": "Bone1", "children": [3], "translation": [0.0, BONE_LENGTH, 0.0]},
        {"name": "Bone2", "translation": [0.0, BONE_LENGTH, 0.0]},
        {"name": "Skin", "mesh": 0, "translation": list(skin_offset)},  # ignored when skinned
    ]
    pos, nrm, idx, jnt, wgt = cylinder(joints, weights)
    attrs = {
        "POSITION": blob.add(pos, FLOAT, "VEC3"),
        "NORMAL": blob.add(nrm, FLOAT, "VEC3"),
    }
    prim = {"attributes": attrs, "indices": blob.add(idx, USHORT, "SCALAR")}
    if vertex_colors:  # a gradient from teal at the base to gold at the tip
        f = ((pos[:, 1:2] + 1.5) / 3.0).astype(np.float32)
        rgb = (1 - f) * np.array([0.1, 0.6, 0.7], np.float32) + f * np.array(
            [0.95, 0.8, 0.2], np.float32
        )
        attrs["COLOR_0"] = blob.add(rgb.astype(np.float32), FLOAT, "VEC3")
    if skin:
        attrs["JOINTS_0"] = blob.add(jnt, UBYTE if joints == np.uint8 else USHORT, "VEC4")
        wtype = {"float": FLOAT, "u8": UBYTE, "u16": USHORT}[weights]
        attrs["WEIGHTS_0"] = blob.add(wgt, wtype, "VEC4", normalized=weights != "float")
        nodes[4]["skin"] = 0
    doc = {
        "asset": {"version": "2.0", "generator": "sgview tests"},
        "scene": 0,
        "scenes": [{"name": "Rig scene", "nodes": [0]}],
        "nodes": nodes,
        "meshes": [{"primitives": [prim]}],
    }
    if color is not None:
        doc["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": color or [1, 1, 1, 1]}}]
        prim["material"] = 0
    if skin:
        # bind pose: bone k's world matrix is a translation by (0, k - 1.5, 0)
        ibm = np.stack([np.eye(4) for _ in range(3)])
        for k in range(3):
            ibm[k, 1, 3] = -(k * BONE_LENGTH - 1.5)
        ibm_acc = blob.add(ibm.transpose(0, 2, 1).astype(np.float32), FLOAT, "MAT4")
        doc["skins"] = [{"joints": [1, 2, 3], "inverseBindMatrices": ibm_acc, "skeleton": 1}]
    animations = []
    for name, channels in (("Bend", BEND_CHANNELS), ("Wave", WAVE_CHANNELS)):
        samplers, chans = [], []
        for node_name, path, interpolation, times, values in channels:
            t, v = _sampler_arrays(interpolation, times, values)
            kind = {3: "VEC3", 4: "VEC4"}[v.shape[1]]
            samplers.append({"input": blob.add(t, FLOAT, "SCALAR"),
                             "output": blob.add(v, FLOAT, kind),
                             "interpolation": interpolation})  # fmt: skip
            target = {"node": NODE_NAMES.index(node_name), "path": path}
            chans.append({"sampler": len(samplers) - 1, "target": target})
        animations.append({"name": name, "samplers": samplers, "channels": chans})
    if weights_channel:
        t = blob.add(np.array([0.0, 1.0], np.float32), FLOAT, "SCALAR")
        w = blob.add(np.array([0.0, 1.0], np.float32), FLOAT, "SCALAR")
        animations[0]["samplers"].append({"input": t, "output": w})
        animations[0]["channels"].append(
            {
                "sampler": len(animations[0]["samplers"]) - 1,
                "target": {"node": 4, "path": "weights"},
            }
        )
    doc["animations"] = animations
    doc["accessors"] = blob.accessors
    doc["bufferViews"] = blob.views
    doc["buffers"] = [{"byteLength": len(blob.data)}]
    return doc, bytes(blob.data)


def glb(doc: dict, blob: bytes) -> bytes:
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    body = (
        struct.pack("<I4s", len(text), b"JSON")
        + text
        + struct.pack("<I4s", len(blob), b"BIN\0")
        + blob
    )
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def data_uri(raw: bytes) -> str:
    """`raw` as a base64 data URI, for a buffer embedded in a .gltf file."""
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def embedded_rig_document(**options) -> dict:
    """The rig's JSON with its one buffer embedded (a self-contained .gltf document)."""
    doc, blob = rig_document(**options)
    doc["buffers"][0]["uri"] = data_uri(blob)
    return doc


def write_rig(folder: Path, name: str = "rig.glb", change=None, **options) -> Path:
    """Write the rig as .glb or .gltf (embedded buffer) into `folder`; returns the path.

    `change`, if given, is called with the JSON document just before it is written (to
    break the file on purpose)."""
    if name.endswith(".glb"):
        doc, blob = rig_document(**options)
    else:
        doc, blob = embedded_rig_document(**options), None
    if change is not None:
        change(doc)
    path = Path(folder) / name
    if blob is None:
        path.write_text(json.dumps(doc))
    else:
        path.write_bytes(glb(doc, blob))
    return path
