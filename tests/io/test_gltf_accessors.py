"""glTF accessors as the specification lays them out, built in code (no glTF library):

- every vertex attribute kind the importer reads (POSITION, NORMAL, TEXCOORD_0, COLOR_0
  as VEC3 and VEC4, JOINTS_0, WEIGHTS_0), in each component type the specification
  allows, interleaved in one bufferView with a ``byteStride`` wider than a vertex (the
  gap holds junk bytes), at a non-zero view and accessor offset;
- normalized integers, for every accessor that may be normalized (COLOR_0, TEXCOORD_n,
  WEIGHTS_0, rotation outputs of animations): the specification's section 3.11 maps an
  unsigned ``c`` of n bits to ``c / (2^n - 1)`` and a signed one to
  ``max(c / (2^(n-1) - 1), -1)``. The expected values below are written from that rule
  alone, as exact fractions of the stored integers.
"""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from viewer.io.gltf_read.data import GltfFile
from viewer.io.gltf_read.scene import read_gltf

BYTE, UBYTE, SHORT, USHORT, UINT, FLOAT = 5120, 5121, 5122, 5123, 5125, 5126
DTYPES = {BYTE: "<i1", UBYTE: "<u1", SHORT: "<i2", USHORT: "<u2", UINT: "<u4", FLOAT: "<f4"}
#: The specification's divisor for a normalized integer type (3.11, "Animation" and
#: "Accessor data types"): the largest value of the type, 2^n - 1 or 2^(n-1) - 1.
SPEC_DIVISOR = {UBYTE: 255.0, USHORT: 65535.0, BYTE: 127.0, SHORT: 32767.0}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
JUNK = 0xA5  # the bytes between one vertex's attributes and the next vertex


def spec_value(c, ctype):
    """The float a stored component means (the specification's equations, not the code's)."""
    c = np.asarray(c, dtype=np.float64)
    if ctype == FLOAT:
        return c
    if ctype in (UBYTE, USHORT):
        return c / SPEC_DIVISOR[ctype]
    return np.maximum(c / SPEC_DIVISOR[ctype], -1.0)


def stored(rng, ctype, n, width):
    """(n, width) values of `ctype` covering its whole range: 0, the largest value (and
    for signed types the smallest, which clamps to -1) and random ones between."""
    dt = np.dtype(DTYPES[ctype])
    if dt.kind == "f":
        return rng.uniform(0.0, 1.0, size=(n, width)).astype(dt)
    info = np.iinfo(dt)
    out = rng.integers(info.min, info.max, size=(n, width), endpoint=True).astype(dt)
    out.flat[0], out.flat[1] = info.max, 0
    if info.min < 0:
        out.flat[2] = info.min
    return out


class Buffer:
    """One buffer, its views and accessors."""

    def __init__(self) -> None:
        self.data = bytearray(b"\x11" * 8)  # so that no view starts at byte 0
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def _align(self) -> None:
        while len(self.data) % 4:
            self.data.append(0)

    def accessor(self, view: int, offset: int, ctype: int, kind: str, count: int,
                 normalized: bool) -> int:  # fmt: skip
        acc = {"bufferView": view, "byteOffset": offset, "componentType": ctype,
               "count": count, "type": kind}  # fmt: skip
        if normalized:
            acc["normalized"] = True
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def tight(self, array: np.ndarray, ctype: int, kind: str, normalized=False) -> int:
        self._align()
        raw = np.ascontiguousarray(array).tobytes()
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)})
        self.data += raw
        count = array.shape[0]
        return self.accessor(len(self.views) - 1, 0, ctype, kind, count, normalized)

    def interleaved(self, columns: list[tuple[np.ndarray, int, str, bool]]) -> list[int]:
        """One view holding every column per vertex, each at a 4-byte aligned offset
        (as the specification asks of vertex attributes), then 8 junk bytes."""
        n = columns[0][0].shape[0]
        offsets, at = [], 4  # the first attribute starts 4 bytes into each vertex
        for array, _ctype, _kind, _norm in columns:
            offsets.append(at)
            at += (array.dtype.itemsize * array.shape[1] + 3) // 4 * 4
        stride = at + 8
        assert stride % 4 == 0 and stride <= 252
        block = bytearray([JUNK]) * (stride * n)
        for (array, *_), off in zip(columns, offsets, strict=True):
            for v in range(n):
                row = np.ascontiguousarray(array[v]).tobytes()
                block[v * stride + off : v * stride + off + len(row)] = row
        self._align()
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(block),
                           "byteStride": stride, "target": 34962})  # fmt: skip
        self.data += block
        view = len(self.views) - 1
        return [self.accessor(view, off, ctype, kind, n, norm)
                for (_a, ctype, kind, norm), off in zip(columns, offsets, strict=True)]  # fmt: skip


def png_uri() -> str:
    out = io.BytesIO()
    Image.new("RGB", (2, 2), (200, 100, 50)).save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


#: One case per row: the component types of TEXCOORD_0, COLOR_0 (and its width),
#: JOINTS_0 and WEIGHTS_0; together every type the specification allows for each.
ATTRIBUTE_CASES = [
    (FLOAT, FLOAT, "VEC3", UBYTE, FLOAT),
    (UBYTE, UBYTE, "VEC4", USHORT, UBYTE),
    (USHORT, USHORT, "VEC3", UBYTE, USHORT),
    (FLOAT, UBYTE, "VEC3", USHORT, USHORT),
    (USHORT, FLOAT, "VEC4", UBYTE, UBYTE),
    (UBYTE, USHORT, "VEC4", UBYTE, FLOAT),
]
N = 6  # vertices: two triangles


def attribute_file(tmp_path, case, seed=0):
    """A .gltf with one skinned, textured, vertex-coloured mesh whose attributes are all
    interleaved in one view; returns (path, the stored arrays by attribute)."""
    uv_t, col_t, col_kind, jnt_t, wgt_t = case
    rng = np.random.default_rng(seed)
    arrays = {
        "POSITION": (rng.uniform(-2, 2, (N, 3)).astype(np.float32), FLOAT, "VEC3"),
        "NORMAL": (rng.uniform(-1, 1, (N, 3)).astype(np.float32), FLOAT, "VEC3"),
        "TEXCOORD_0": (stored(rng, uv_t, N, 2), uv_t, "VEC2"),
        "COLOR_0": (stored(rng, col_t, N, WIDTH[col_kind]), col_t, col_kind),
        "JOINTS_0": (rng.integers(0, 2, (N, 4)).astype(DTYPES[jnt_t]), jnt_t, "VEC4"),
        "WEIGHTS_0": (stored(rng, wgt_t, N, 4), wgt_t, "VEC4"),
    }
    w = arrays["WEIGHTS_0"][0]
    w[:, 0] = np.where(w.sum(axis=1) == 0, 1, w[:, 0])  # no vertex without weight
    buf = Buffer()
    columns = [(a, t, k, t not in (FLOAT,) and name != "JOINTS_0")
               for name, (a, t, k) in arrays.items()]  # fmt: skip
    ids = dict(zip(arrays, buf.interleaved(columns), strict=True))
    indices = buf.tight(np.arange(N, dtype=np.uint16), USHORT, "SCALAR")
    ibm = buf.tight(np.tile(np.eye(4, dtype=np.float32), (2, 1, 1)).reshape(2, 16), FLOAT, "MAT4")
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "Body", "mesh": 0, "skin": 0}, {"name": "Bone", "children": [2]},
                  {"name": "Tip"}],  # fmt: skip
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "meshes": [{"primitives": [{"attributes": ids, "indices": indices, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1],
                                                "baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"uri": png_uri()}],
        "buffers": [{"byteLength": len(buf.data),
                     "uri": "data:application/octet-stream;base64,"
                            + base64.b64encode(bytes(buf.data)).decode()}],
        "bufferViews": buf.views,
        "accessors": buf.accessors,
    }  # fmt: skip
    path = tmp_path / "interleaved.gltf"
    path.write_text(json.dumps(doc), encoding="utf-8")
    expected = {name: spec_value(a, t) for name, (a, t, _k) in arrays.items()}
    expected["JOINTS_0"] = arrays["JOINTS_0"][0].astype(np.int64)  # indices: never normalized
    return path, expected


def _opened(path):
    gltf = GltfFile(path, path.name)
    gltf.open()
    return gltf


@pytest.mark.parametrize("case", ATTRIBUTE_CASES)
def test_interleaved_attributes_are_read_through_their_stride(tmp_path, case):
    """What the importer makes of each attribute is what the file stores at each
    vertex's stride, never the junk between vertices."""
    path, expected = attribute_file(tmp_path, case)
    model = read_gltf(path)
    (key,) = model.mesh_data
    positions, normals, _indices = model.mesh_data[key]
    np.testing.assert_array_equal(positions, expected["POSITION"])
    np.testing.assert_array_equal(normals, expected["NORMAL"])
    surface = model.surfaces[key]
    np.testing.assert_allclose(surface.uvs, expected["TEXCOORD_0"], rtol=0, atol=1e-7)
    np.testing.assert_allclose(surface.vcolors[:, :3], expected["COLOR_0"][:, :3], rtol=0,
                               atol=1e-7)  # fmt: skip
    joints, weights = model.skinning.attributes[key]
    np.testing.assert_array_equal(joints, expected["JOINTS_0"])
    w = expected["WEIGHTS_0"]
    np.testing.assert_allclose(weights, w / w.sum(axis=1, keepdims=True), rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", ATTRIBUTE_CASES)
def test_each_interleaved_accessor_reads_the_spec_values(tmp_path, case):
    """The data layer on its own: every attribute's accessor gives the specification's
    floats (normalized integers divided by 2^n - 1; WEIGHTS_0 too, which the importer
    renormalises afterwards and so cannot show a wrong divisor)."""
    path, expected = attribute_file(tmp_path, case)
    gltf = _opened(path)
    attrs = gltf.doc["meshes"][0]["primitives"][0]["attributes"]
    for name, index in attrs.items():
        if name == "JOINTS_0":
            got = gltf.accessor(index, name, ("VEC4",), (UBYTE, USHORT))
        else:
            kind = gltf.doc["accessors"][index]["type"]
            got = gltf.floats(index, name, (kind,))
        np.testing.assert_allclose(got, expected[name], rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("ctype", [UBYTE, USHORT, BYTE, SHORT])
@pytest.mark.parametrize("kind", ["SCALAR", "VEC2", "VEC3", "VEC4"])
def test_normalized_integers_divide_by_the_largest_value(tmp_path, ctype, kind):
    """Every normalized integer type, every width: ``c / (2^n - 1)`` (unsigned) and
    ``max(c / (2^(n-1) - 1), -1)`` (signed), whatever the layout (tight here)."""
    values = stored(np.random.default_rng(ctype), ctype, 5, WIDTH[kind])
    buf = Buffer()
    index = buf.tight(values, ctype, kind, normalized=True)
    doc = {"asset": {"version": "2.0"}, "bufferViews": buf.views, "accessors": buf.accessors,
           "buffers": [{"byteLength": len(buf.data), "uri": "data:application/octet-stream;"
                        "base64," + base64.b64encode(bytes(buf.data)).decode()}]}  # fmt: skip
    path = tmp_path / "n.gltf"
    path.write_text(json.dumps(doc), encoding="utf-8")
    got = _opened(path).floats(index, "values", (kind,))
    info = np.iinfo(values.dtype)
    assert got.flat[0] == 1.0 and got.flat[1] == 0.0  # the largest value is exactly 1
    if info.min < 0:
        assert got.flat[2] == -1.0  # the smallest clamps to -1
    np.testing.assert_allclose(got, spec_value(values, ctype), rtol=0, atol=1e-15)


@pytest.mark.parametrize("ctype", [BYTE, UBYTE, SHORT, USHORT])
def test_normalized_rotation_outputs_of_animations(tmp_path, ctype):
    """A rotation sampler's output may be any normalized integer type (3.11): the clip's
    key values are the specification's floats, and sampling at a key gives that key's
    rotation (normalised)."""
    dt = np.dtype(DTYPES[ctype])
    top = np.iinfo(dt).max
    keys = np.array([[0, 0, 0, top], [top, 0, 0, 0], [0, top // 3, 0, top // 2]], dtype=dt)
    if np.iinfo(dt).min < 0:
        keys[1] = [np.iinfo(dt).min, 0, 0, 0]  # -1 after the clamp: 180 degrees about x
    buf = Buffer()
    times = buf.tight(np.array([0.0, 0.5, 1.0], np.float32), FLOAT, "SCALAR")
    output = buf.tight(keys, ctype, "VEC4", normalized=True)
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Spinner"}],
        "animations": [{"name": "Turn", "samplers": [
            {"input": times, "output": output, "interpolation": "STEP"}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}],
        "bufferViews": buf.views, "accessors": buf.accessors,
        "buffers": [{"byteLength": len(buf.data), "uri": "data:application/octet-stream;"
                     "base64," + base64.b64encode(bytes(buf.data)).decode()}],
    }  # fmt: skip
    path = tmp_path / "turn.gltf"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (channel,) = read_gltf(path).clips[0].channels
    expected = spec_value(keys, ctype)
    np.testing.assert_allclose(channel.values, expected, rtol=0, atol=1e-15)
    for t, key in zip((0.0, 0.5, 1.0), expected, strict=True):
        np.testing.assert_allclose(channel.at(t), key / np.linalg.norm(key), rtol=0, atol=1e-12)
