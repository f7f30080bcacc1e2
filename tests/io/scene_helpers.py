"""Helpers for the scene-file tests: paths, a matrix oracle, glTF documents built with pygltflib."""

from __future__ import annotations

import base64
import math
import struct
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from oracle import local_matrix

from viewer.io import SceneError, load_scene

REPO = Path(__file__).resolve().parents[2]
SCENES = REPO / "scenes"
SCENE_FILES = sorted(SCENES.glob("*.toml"))


# ------------------------------------------------------- sRGB (IEC 61966-2-1, test oracle)
def srgb_decoded(rgb) -> np.ndarray:
    """sRGB-encoded components in [0, 1] to linear ones, written out from the standard's
    formula (the glTF specification's reference), not taken from the code under test."""
    return np.array([c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb])


def srgb_encoded(rgb) -> np.ndarray:
    """Linear components in [0, 1] to sRGB-encoded ones (the standard's inverse)."""
    return np.array([12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055 for c in rgb])


# ------------------------------------------------------------------ matrices (test oracle)
def trs_matrix(t=(0, 0, 0), q=(0, 0, 0, 1), s=(1, 1, 1)) -> np.ndarray:
    """The oracle's T · R · S with identity defaults (tests/oracle.py, not the core's)."""
    return local_matrix(t, q, s)


def quat_axis_angle(axis, degrees) -> tuple[float, float, float, float]:
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    half = math.radians(degrees) / 2
    return (*(axis * math.sin(half)), math.cos(half))


# ------------------------------------------------------------------ glTF building
CUBE_POSITIONS = np.array(
    [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], dtype=np.float32
)
CUBE_INDICES = np.array(
    [
        0,
        1,
        2,
        1,
        3,
        2,  # x = -0.5
        4,
        6,
        5,
        5,
        6,
        7,  # x = +0.5
        0,
        4,
        1,
        1,
        4,
        5,  # y = -0.5
        2,
        3,
        6,
        3,
        7,
        6,  # y = +0.5
        0,
        2,
        4,
        2,
        6,
        4,  # z = -0.5
        1,
        5,
        3,
        3,
        5,
        7,  # z = +0.5
    ],
    dtype=np.uint16,
)  # fmt: skip  (counter-clockwise seen from outside, as glTF wants)

#: The hierarchy every built file holds: (name, parent index, node fields).
MODEL_NODES = [
    ("Body", None, {"translation": [1.0, 2.0, 3.0], "scale": [2.0, 2.0, 2.0]}),
    ("Arm", 0, {"matrix": None}),  # filled with ARM_MATRIX below
    ("Hand", 1, {"rotation": list(quat_axis_angle((0, 0, 1), 30)), "mesh": 0}),
    ("Light", None, {"translation": [0.0, 5.0, 0.0]}),
]
ARM_MATRIX = trs_matrix((0.5, 0.0, 0.0), quat_axis_angle((0, 1, 0), 90), (1.0, 3.0, 1.0))


def expected_worlds() -> dict[str, np.ndarray]:
    body = trs_matrix((1, 2, 3), s=(2, 2, 2))
    arm = body @ ARM_MATRIX
    hand = arm @ trs_matrix(q=quat_axis_angle((0, 0, 1), 30))
    return {"Body": body, "Arm": arm, "Hand": hand, "Light": trs_matrix((0, 5, 0))}


def build_gltf(normals: bool = True, color=(0.9, 0.2, 0.1, 1.0)) -> tuple[pygltflib.GLTF2, bytes]:
    """A document with MODEL_NODES and one cube mesh, and the bytes of its one buffer."""
    blob = b""
    views: list[pygltflib.BufferView] = []
    accessors: list[pygltflib.Accessor] = []

    def add(data: np.ndarray, component: int, kind: str, target=None, **bounds) -> int:
        """`data` appended to the buffer as one view and one accessor: the accessor's index."""
        nonlocal blob
        views.append(pygltflib.BufferView(buffer=0, byteOffset=len(blob), byteLength=data.nbytes,
                                          target=target))  # fmt: skip
        accessors.append(pygltflib.Accessor(bufferView=len(views) - 1, componentType=component,
                                            count=len(data), type=kind, **bounds))  # fmt: skip
        blob += data.tobytes()
        return len(accessors) - 1

    attributes = pygltflib.Attributes(
        POSITION=add(CUBE_POSITIONS, pygltflib.FLOAT, pygltflib.VEC3, target=34962,
                     max=CUBE_POSITIONS.max(axis=0).tolist(),
                     min=CUBE_POSITIONS.min(axis=0).tolist())
    )  # fmt: skip
    if normals:
        nrm = CUBE_POSITIONS / np.linalg.norm(CUBE_POSITIONS, axis=1, keepdims=True)
        attributes.NORMAL = add(nrm.astype(np.float32), pygltflib.FLOAT, pygltflib.VEC3)
    add(CUBE_INDICES, pygltflib.UNSIGNED_SHORT, pygltflib.SCALAR)
    blob += b"\0" * (-len(blob) % 4)
    nodes = []
    for name, _parent, fields in MODEL_NODES:
        fields = dict(fields)
        if "matrix" in fields:
            fields["matrix"] = ARM_MATRIX.T.reshape(-1).tolist()  # column-major
        nodes.append(pygltflib.Node(name=name, **fields))
    for k, (_name, parent, _fields) in enumerate(MODEL_NODES):
        if parent is not None:
            nodes[parent].children.append(k)
    roots = [k for k, (_n, parent, _f) in enumerate(MODEL_NODES) if parent is None]
    gltf = pygltflib.GLTF2(
        scene=0,
        scenes=[pygltflib.Scene(name="Model", nodes=roots)],
        nodes=nodes,
        meshes=[
            pygltflib.Mesh(
                name="Cube",
                primitives=[
                    pygltflib.Primitive(
                        attributes=attributes, indices=len(accessors) - 1, material=0
                    )
                ],
            )
        ],
        materials=[
            pygltflib.Material(
                pbrMetallicRoughness=pygltflib.PbrMetallicRoughness(baseColorFactor=list(color))
            )
        ],
        accessors=accessors,
        bufferViews=views,
        buffers=[pygltflib.Buffer(byteLength=len(blob))],
    )
    return gltf, blob


def data_uri(blob: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(blob).decode("ascii")


def glb_bytes(json_text: str, blob: bytes = b"") -> bytes:
    """A .glb container around arbitrary JSON text (for malformed-file tests)."""
    js = json_text.encode("utf-8")
    js += b" " * (-len(js) % 4)
    out = struct.pack("<I", len(js)) + b"JSON" + js
    if blob:
        blob += b"\0" * (-len(blob) % 4)
        out += struct.pack("<I", len(blob)) + b"BIN\0" + blob
    return b"glTF" + struct.pack("<II", 2, 12 + len(out)) + out


def write_gltf(folder: Path, form: str, name: str | None = None, **options) -> Path:
    """Write the test model into `folder`; form is "data" (.gltf with a data URI), "bin"
    (.gltf with an external .bin) or "glb". Returns the file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    gltf, blob = build_gltf(**options)
    if form == "data":
        path = folder / (name or "model.gltf")
        gltf.buffers[0].uri = data_uri(blob)
        path.write_text(gltf.gltf_to_json(), encoding="utf-8")
    elif form == "bin":
        path = folder / (name or "model.gltf")
        bin_name = path.stem + ".bin"
        (folder / bin_name).write_bytes(blob)
        gltf.buffers[0].uri = bin_name
        path.write_text(gltf.gltf_to_json(), encoding="utf-8")
    elif form == "glb":
        path = folder / (name or "model.glb")
        gltf.set_binary_blob(blob)
        path.write_bytes(b"".join(gltf.save_to_bytes()))
    else:
        raise ValueError(form)
    return path


def load_error(path: Path) -> str:
    """The message of the `SceneError` that loading `path` must raise, checked to be one
    line that starts with the file's path."""
    with pytest.raises(SceneError) as err:
        load_scene(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    return message
