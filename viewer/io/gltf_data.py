"""The data layer of the glTF import: the container, URIs, buffers, accessors and meshes.

`GltfFile` reads a ``.gltf`` or ``.glb`` with pygltflib and gives checked access to what
the node importer (gltf_scene.py) needs: typed accessor arrays that are proven to lie
inside their buffer views and buffers, and meshes merged into positions, normals and
indices. Every problem raises `SceneError`.

A URI may only name a file in the glTF file's own folder: absolute paths, ``..``
segments, URI schemes other than ``data:`` and symbolic links leading out of the folder
are refused, whether or not the file is read (images are never read, but are checked).

Sizes are checked against `Limits.max_buffer_bytes` before anything is read or allocated:
the file itself and each external buffer file (by their size on disk), each buffer's
``byteLength`` and data URI, and the total of the accessor data read out of the file.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import stat
import struct
import urllib.parse
import warnings
from pathlib import Path

import numpy as np

from ..text import brief
from ._fields import is_number
from .errors import SceneError, describe
from .limits import DEFAULT_LIMITS, Limits
from .paths import confined

__all__ = ["GltfFile", "brief", "is_int"]

_COMPONENTS = {
    5120: np.dtype("<i1"),
    5121: np.dtype("<u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_INDEX_TYPES = (5121, 5123, 5125)
_DEFAULT_COLOR = (0.8, 0.8, 0.8)
_MAX_COUNT = 1 << 28  # refuse absurd element counts before allocating anything


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class GltfFile:
    """A parsed glTF document with checked access to its data. Call `open()` first."""

    def __init__(self, path: Path, display: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.path = path
        self.display = display
        self.folder = path.parent
        self.limits = limits
        self.gltf = None
        self.buffers: dict[int, bytes] = {}
        self.data_bytes = 0  # accessor data read so far, against limits.max_buffer_bytes

    def error(
        self, where: str | None, reason: str, *, node: str | None = None, field: str | None = None
    ) -> SceneError:
        return SceneError(reason, file=self.display, node=node, field=field, section=where)

    def _check_size(self, need: int, what: str, where: str | None) -> None:
        reason = self.limits.bytes_reason(need, what)
        if reason is not None:
            raise self.error(where, reason)

    def _read_file(self, file: Path, what: str, where: str | None) -> bytes:
        """The bytes of `file`, refusing before reading when it is over the size cap or not
        a regular file (reading a named pipe or a device could block forever)."""
        st = file.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(str(file))
        if not stat.S_ISREG(st.st_mode):
            raise self.error(where, f"{what} is not a regular file")
        self._check_size(st.st_size, what, where)
        return file.read_bytes()

    # ------------------------------------------------------------------ container
    def open(self) -> None:
        import pygltflib

        try:
            data = self._read_file(self.path, "the glTF file", None)
        except FileNotFoundError:
            raise self.error(None, "glTF file not found") from None
        except IsADirectoryError:
            raise self.error(None, "expected a glTF file, got a directory") from None
        except OSError as exc:
            raise self.error(None, f"cannot read the file ({exc.strerror or exc})") from None
        is_glb = data[:4] == b"glTF"
        if self.path.suffix.lower() == ".glb" and not is_glb:
            raise self.error(None, "not a binary glTF file: it does not start with 'glTF'")
        text = None
        if not is_glb:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                line = data.count(b"\n", 0, exc.start) + 1
                raise SceneError(
                    f"the .gltf file is not UTF-8 text ({exc.reason})", file=self.display, line=line
                ) from None
            try:
                doc = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SceneError(
                    f"the .gltf file is not valid JSON: {exc.msg} (column {exc.colno})",
                    file=self.display,
                    line=exc.lineno,
                ) from None
            if not isinstance(doc, dict):
                raise self.error(None, f"expected a JSON object at the top, got {describe(doc)}")
        else:
            doc = _glb_json(data)
        self._check_node_count(doc)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if is_glb:
                    gltf = pygltflib.GLTF2.load_from_bytes(data)
                else:
                    gltf = pygltflib.GLTF2.gltf_from_json(text)
        except RecursionError:
            raise
        except Exception as exc:  # pygltflib's decoding of wrong types or a bad container
            raise self.error(
                None, f"the file does not follow the glTF 2.0 format ({brief(exc)})"
            ) from None
        if gltf is None:
            raise self.error(None, "the .glb file has no JSON chunk")
        if not isinstance(gltf, pygltflib.GLTF2):
            raise self.error(None, "not a glTF document")
        self.gltf = gltf
        version = getattr(gltf.asset, "version", None)
        if not isinstance(version, str) or not version.startswith("2."):
            raise self.error("asset", f"expected glTF version 2.x, got {describe(version)}")
        self._check_uris()

    def _check_node_count(self, doc: object) -> None:
        """Refuse too many nodes before pygltflib decodes them (about 0.2 ms per node)."""
        nodes = doc.get("nodes") if isinstance(doc, dict) else None
        if isinstance(nodes, list) and len(nodes) > self.limits.max_nodes:
            raise self.limits.node_error(len(nodes), self.display, "the glTF file")

    def _list(self, name: str) -> list:
        value = getattr(self.gltf, name, None)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(None, f"'{name}' must be an array, got {describe(value)}")
        return value

    def _index(self, value: object, name: str, where: str) -> int:
        items = self._list(name)
        if not is_int(value) or not 0 <= value < len(items):
            raise self.error(
                where, f"expected an index into '{name}' (0..{len(items) - 1}), got {value!r}"
            )
        return value

    # ------------------------------------------------------------------ URIs and buffers
    def _check_uris(self) -> None:
        for kind in ("buffers", "images"):
            for i, item in enumerate(self._list(kind)):
                uri = getattr(item, "uri", None)
                if uri is None:
                    continue
                where = f"{kind[:-1]} {i}"
                if not isinstance(uri, str):
                    raise self.error(where, f"uri must be a string, got {describe(uri)}")
                if not uri.startswith("data:"):
                    self._local_file(uri, where)

    def _local_file(self, uri: str, where: str) -> Path:
        """The file a relative URI names, refusing anything outside the glTF's folder."""
        path = confined(urllib.parse.unquote(uri), self.folder)
        if path is None:
            raise self.error(
                where,
                f"URI {uri!r} refused: a glTF file may only reference files in its own folder",
            )
        return path

    def _buffer(self, index: int, where: str) -> bytes:
        if index in self.buffers:
            return self.buffers[index]
        buf = self._list("buffers")[index]
        here = f"buffer {index}"
        uri = getattr(buf, "uri", None)
        length = getattr(buf, "byteLength", None)
        if not is_int(length) or length < 0:
            raise self.error(here, f"byteLength must be a non-negative integer, got {length!r}")
        self._check_size(length, "the buffer", here)
        if uri is None:
            blob = self.gltf.binary_blob()
            if index != 0 or blob is None:
                raise self.error(here, "no uri and no binary chunk to read it from")
            data = bytes(blob)
        elif uri.startswith("data:"):
            header, sep, payload = uri.partition(",")
            if not sep or not header.endswith(";base64"):
                raise self.error(here, "a data URI must be base64-encoded ('data:...;base64,')")
            self._check_size(len(payload) // 4 * 3, "the data URI", here)
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                raise self.error(here, "the data URI is not valid base64") from None
        else:
            file = self._local_file(uri, here)
            try:
                data = self._read_file(file, f"the file {uri!r}", here)
            except FileNotFoundError:
                raise self.error(here, f"missing file {uri!r} (next to the glTF file)") from None
            except OSError as exc:
                raise self.error(here, f"cannot read {uri!r} ({exc.strerror or exc})") from None
        if len(data) < length:
            raise self.error(here, f"expected {length} bytes, the data has {len(data)}")
        self.buffers[index] = data
        return data

    def _accessor(
        self, index: object, where: str, types: tuple[str, ...], components
    ) -> np.ndarray:
        """The accessor's elements as a (count, width) array of its component type."""
        index = self._index(index, "accessors", where)
        acc = self._list("accessors")[index]
        here = f"accessor {index}"
        kind = getattr(acc, "type", None)
        if kind not in types:
            raise self.error(here, f"expected type {' or '.join(types)}, got {describe(kind)}")
        ctype = getattr(acc, "componentType", None)
        if ctype not in components:
            raise self.error(here, f"unsupported componentType {ctype!r} for {where}")
        if getattr(acc, "normalized", False) and ctype != 5126:
            raise self.error(here, "normalized integer attributes are not supported")
        if getattr(acc, "sparse", None) is not None:
            raise self.error(here, "sparse accessors are not supported")
        count = getattr(acc, "count", None)
        if not is_int(count) or not 0 <= count <= _MAX_COUNT:
            raise self.error(here, f"count must be an integer in 0..{_MAX_COUNT}, got {count!r}")
        width = _WIDTH[kind]
        dtype = _COMPONENTS[ctype]
        nbytes = count * width * dtype.itemsize
        self._check_size(self.data_bytes + nbytes, "the accessor data of the file", here)
        self.data_bytes += nbytes
        view_index = getattr(acc, "bufferView", None)
        if view_index is None:
            return np.zeros((count, width), dtype=dtype)  # glTF: no view means all zeros
        view_index = self._index(view_index, "bufferViews", here)
        view = self._list("bufferViews")[view_index]
        vhere = f"bufferView {view_index}"
        buffer_index = self._index(getattr(view, "buffer", None), "buffers", vhere)
        data = self._buffer(buffer_index, vhere)
        v_off = getattr(view, "byteOffset", 0) or 0
        v_len = getattr(view, "byteLength", None)
        stride = getattr(view, "byteStride", None)
        a_off = getattr(acc, "byteOffset", 0) or 0
        for name, value in (("byteOffset", v_off), ("byteLength", v_len)):
            if not is_int(value) or value < 0:
                raise self.error(vhere, f"{name} must be a non-negative integer, got {value!r}")
        if not is_int(a_off) or a_off < 0:
            raise self.error(here, f"byteOffset must be a non-negative integer, got {a_off!r}")
        if v_off + v_len > len(data):
            raise self.error(vhere, f"bytes {v_off}..{v_off + v_len} lie outside buffer")
        elem = width * dtype.itemsize
        if stride is None:
            stride = elem
        if not is_int(stride) or not elem <= stride <= 252:
            raise self.error(vhere, f"byteStride must be an integer in {elem}..252, got {stride!r}")
        need = a_off + (stride * (count - 1) + elem if count else 0)
        if need > v_len:
            raise self.error(here, f"needs {need} bytes of its bufferView, which has {v_len}")
        if count == 0:
            return np.zeros((0, width), dtype=dtype)
        arr = np.ndarray(
            (count, width),
            dtype=dtype,
            buffer=data,
            offset=v_off + a_off,
            strides=(stride, dtype.itemsize),
        )
        return arr.copy()

    # ------------------------------------------------------------------ meshes
    def _mesh(self, index: int, key: str, mesh_data: dict) -> tuple[float, float, float] | None:
        """Merge the mesh's triangle primitives into `mesh_data[key]`; return its colour."""
        mesh = self._list("meshes")[index]
        here = f"mesh {index}"
        prims = getattr(mesh, "primitives", None)
        if not isinstance(prims, list):
            raise self.error(here, f"primitives must be an array, got {describe(prims)}")
        all_p, all_n, all_i = [], [], []
        color = None
        offset = 0
        for k, prim in enumerate(prims):
            phere = f"{here} primitive {k}"
            mode = getattr(prim, "mode", 4)
            if mode is None:
                mode = 4
            if mode != 4:
                continue  # points, lines, strips and fans are not drawn
            attrs = getattr(prim, "attributes", None)
            pos_index = getattr(attrs, "POSITION", None)
            if pos_index is None:
                raise self.error(phere, "a triangle primitive needs a POSITION attribute")
            pos = self._accessor(pos_index, f"{phere} POSITION", ("VEC3",), (5126,))
            if not np.all(np.isfinite(pos)):
                raise self.error(phere, "POSITION holds NaN or infinite values")
            n = pos.shape[0]
            if getattr(prim, "indices", None) is not None:
                idx = self._accessor(prim.indices, f"{phere} indices", ("SCALAR",), _INDEX_TYPES)
                idx = idx.reshape(-1).astype(np.uint32)
                if idx.size and (idx.max() >= n):
                    raise self.error(phere, f"an index is {int(idx.max())}, there are {n} vertices")
            else:
                idx = np.arange(n, dtype=np.uint32)
            if idx.size % 3:
                raise self.error(phere, f"triangles need a multiple of 3 indices, got {idx.size}")
            nrm_index = getattr(attrs, "NORMAL", None)
            if nrm_index is not None:
                nrm = self._accessor(nrm_index, f"{phere} NORMAL", ("VEC3",), (5126,))
                if nrm.shape[0] != n:
                    raise self.error(phere, f"NORMAL has {nrm.shape[0]} items, POSITION has {n}")
                if not np.all(np.isfinite(nrm)):
                    raise self.error(phere, "NORMAL holds NaN or infinite values")
            else:  # in float64, one primitive at a time; kept as float32 like the rest
                nrm = _vertex_normals(pos.astype(np.float64), idx.astype(np.int64))
                nrm = nrm.astype(np.float32)
            if color is None:
                color = self._material_color(getattr(prim, "material", None), phere)
            if offset + n > 2**32:
                raise self.error(here, "too many vertices")
            # Kept in the stored 4-byte types, so the merged mesh holds about as many bytes
            # as the accessors it came from (the data cap then bounds the load's memory).
            all_p.append(pos)
            all_n.append(nrm)
            all_i.append(idx + np.uint32(offset))
            offset += n
        if not all_p:
            return None
        mesh_data[key] = (np.concatenate(all_p), np.concatenate(all_n), np.concatenate(all_i))
        return color or _DEFAULT_COLOR

    def _material_color(self, index: object, where: str) -> tuple[float, float, float] | None:
        if index is None:
            return None
        index = self._index(index, "materials", where)
        pbr = getattr(self._list("materials")[index], "pbrMetallicRoughness", None)
        factor = getattr(pbr, "baseColorFactor", None)
        if (
            isinstance(factor, list)
            and len(factor) >= 3
            and all(is_number(c) and math.isfinite(c) for c in factor[:3])
        ):
            return tuple(min(1.0, max(0.0, float(c))) for c in factor[:3])
        return None

    # ------------------------------------------------------------------ nodes


def _glb_json(data: bytes) -> object:
    """The JSON chunk of a .glb, or None when the container is malformed (pygltflib then
    says what is wrong)."""
    try:
        length, kind = struct.unpack_from("<I4s", data, 12)
        if kind != b"JSON" or 20 + length > len(data):
            return None
        return json.loads(data[20 : 20 + length])
    except (struct.error, ValueError, RecursionError):
        return None


def _vertex_normals(pos: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals; vertices on no (or only degenerate) faces get +Z."""
    normals = np.zeros_like(pos)
    if idx.size:
        tri = idx.reshape(-1, 3)
        a, b, c = pos[tri[:, 0]], pos[tri[:, 1]], pos[tri[:, 2]]
        face = np.cross(b - a, c - a)
        for k in range(3):
            np.add.at(normals, tri[:, k], face)
    length = np.linalg.norm(normals, axis=1)
    good = length > 1e-20
    normals[good] /= length[good, None]
    normals[~good] = (0.0, 0.0, 1.0)
    return normals
