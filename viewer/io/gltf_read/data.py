"""The data layer of the glTF import: the container, URIs, buffers and accessors.

`GltfFile` reads a ``.gltf`` or ``.glb`` straight into the parsed JSON (plain dicts and
lists: no per-object decoding library, which made a 100,000-node file take over half a
minute) and gives checked access to what the importers need: JSON items of the right
type, and typed accessor arrays that are proven to lie inside their buffer views and
buffers. Every problem raises `SceneError`.

A URI may only name a file in the glTF file's own folder: absolute paths, ``..``
segments and symbolic links leading out of the folder are refused whether or not the file
is read; a network URI (``http:`` and the like) is never read, and refused only when
something reads it (an unused buffer may name one in a valid file).

Sizes are checked before anything is read, parsed or allocated: the file itself and each
external buffer file (by their size on disk) and each buffer's ``byteLength`` and data
URI against `Limits.max_buffer_bytes`; the JSON text and its estimated parsed size, and
the accessor data read out, against the scene's `Budget` (shared by all its glTF files).
"""

from __future__ import annotations

import contextlib
import re
import stat
import urllib.parse
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from viewer.io.errors import SceneError, describe
from viewer.io.gltf_read.compression import meshopt_view
from viewer.io.gltf_read.container import GLB_JSON_AT, data_uri_bytes, glb_chunks, parse_json
from viewer.io.gltf_read.document import is_int, whole
from viewer.io.gltf_read.node_table import NodeTable, fast_parse
from viewer.io.gltf_read.sparse import apply_sparse
from viewer.io.limits import DEFAULT_LIMITS, Budget, Limits
from viewer.io.paths import confined
from viewer.text import brief, quoted

__all__ = ["DataUnavailable", "GltfFile", "brief", "constant_row", "is_int", "whole"]

_COMPONENTS: dict[int, np.dtype[Any]] = {
    5120: np.dtype("<i1"),
    5121: np.dtype("<u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_MAX_COUNT = 1 << 28  # refuse absurd element counts before allocating anything
#: A URI with a scheme other than file: and data: (http:, https:...): never read, and only
#: refused when something reads it (an unused buffer may name one: the file is valid).
_NETWORK = re.compile(r"^(?!file:)[A-Za-z][A-Za-z0-9+.-]*:")


class DataUnavailable(SceneError):
    """A buffer the file declares but gives no bytes for (no ``uri`` in a ``.gltf``, no
    binary chunk): what reads it is left out with a note, the rest of the file loads."""


class GltfFile:
    """A parsed glTF document with checked access to its data. Call `open()` first."""

    def __init__(
        self,
        path: Path,
        display: str,
        limits: Limits = DEFAULT_LIMITS,
        budget: Budget | None = None,
    ) -> None:
        self.path = path
        self.display = display
        self.folder = path.parent
        self.limits = limits
        self.budget = Budget(limits) if budget is None else budget
        self.doc: dict = {}
        #: The nodes read column-wise (None: the file took the checked parse, its nodes are
        #: dicts in `doc`).
        self.node_table: NodeTable | None = None
        self.json_text: bytes | memoryview = b""  # the document's text, kept by the source
        self.json_offset = 0  # where it starts in the file
        self.bin: memoryview | None = None  # the .glb's BIN chunk
        self.is_glb = False
        self.buffers: dict[int, bytes | memoryview] = {}
        #: Accessor data a decompressor produced (KHR_draco_mesh_compression), by index.
        self.decoded: dict[int, np.ndarray] = {}
        #: Buffer views decoded from EXT_meshopt_compression, by index.
        self.unpacked: dict[int, bytes] = {}
        #: One-line notes on what was ignored (the reader adds them to the model's).
        self.notes: list[str] = []
        #: The buffers without a ``uri`` (in a .glb, after buffer 0: the BIN chunk is
        #: buffer 0's alone), and those something tried to read without data.
        self.uriless: list[int] = []
        self.unavailable: set[int] = set()
        #: Inside `first_rows`: accessors give their first row, uncharged.
        self._first_row = False

    def error(
        self, where: str | None, reason: str, *, node: str | None = None, field: str | None = None
    ) -> SceneError:
        return SceneError(reason, file=self.display, node=node, field=field, section=where)

    @property
    def no_data_reason(self) -> str:
        """Why a buffer without a ``uri`` has no bytes here (what a note says)."""
        return _NO_DATA_IN_GLB if self.is_glb else _NO_DATA

    def note(self, where: str, text: str) -> None:
        """Record, once, a one-line note that something in the file was ignored."""
        note = f"{self.display}: {where}: {text}"
        if note not in self.notes:
            self.notes.append(note)

    def check_size(self, need: int, what: str, where: str | None) -> None:
        """Refuse `need` bytes of `what` over the size cap, before reading them."""
        reason = self.limits.bytes_reason(need, what)
        if reason is not None:
            raise self.error(where, reason)

    def charge_read(self, nbytes: int, where: str | None) -> None:
        """Count bytes about to be materialised (each reuse too, see limits.py)."""
        reason = self.budget.charge_read(nbytes)
        if reason is not None:
            raise self.error(where, reason)

    def read_file(self, file: Path, what: str, where: str | None) -> bytes:
        """The bytes of `file`, refusing before reading when it is over the size cap or not
        a regular file (reading a named pipe or a device could block forever)."""
        st = file.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(str(file))
        if not stat.S_ISREG(st.st_mode):
            raise self.error(where, f"{what} is not a regular file")
        self.check_size(st.st_size, what, where)
        self.charge_read(st.st_size, where)
        return file.read_bytes()

    # ------------------------------------------------------------------ container
    def open(self) -> None:
        try:
            data = self.read_file(self.path, "the glTF file", None)
        except FileNotFoundError:
            raise self.error(None, "glTF file not found") from None
        except IsADirectoryError:
            raise self.error(None, "expected a glTF file, got a directory") from None
        except OSError as exc:
            raise self.error(None, f"cannot read the file ({exc.strerror or exc})") from None
        is_glb = self.is_glb = data[:4] == b"glTF"
        if self.path.suffix.lower() == ".glb" and not is_glb:
            raise self.error(None, "not a binary glTF file: it does not start with 'glTF'")
        if is_glb:
            chunk, self.bin = glb_chunks(memoryview(data), self.error)
        self.json_text = chunk if is_glb else data
        self.json_offset = GLB_JSON_AT if is_glb else 0
        reason = self.budget.charge_json(self.json_text)
        if reason is not None:
            raise self.error(None, reason)
        fast = fast_parse(self.json_text)  # None: not certainly valid, parse it with checks
        if fast is None:
            what = "the JSON chunk" if is_glb else "the .gltf file"
            text = bytes(self.json_text)  # (a byte's place is counted in the file)
            self.doc = parse_json(text, what, self.display, start=self.json_offset)
        else:
            self.doc, self.node_table = fast
        version = self.obj(self.doc.get("asset"), "asset").get("version")
        if not isinstance(version, str) or not version.startswith("2."):
            raise self.error("asset", f"expected glTF version 2.x, got {describe(version)}")
        self._check_uris()

    # ------------------------------------------------------------------ JSON access
    def obj(self, value: object, where: str) -> dict:
        """`value` as a JSON object; a missing one (None) is empty."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(where, f"expected a JSON object, got {describe(value)}")
        return value

    def array(self, name: str) -> list:
        value = self.doc.get(name)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(None, f"'{name}' must be an array, got {describe(value)}")
        return value

    def index_into(self, value: object, name: str, where: str) -> int:
        items = self.array(name)
        value = whole(value)
        if not is_int(value) or not 0 <= value < len(items):
            span = f"0..{len(items) - 1}" if items else f"the file has no '{name}'"
            raise self.error(where, f"expected an index into '{name}' ({span}), got {value!r}")
        return value

    def item(self, value: object, name: str, where: str) -> tuple[int, dict]:
        """The index `value` into the top-level array `name` and the object it names."""
        index = self.index_into(value, name, where)
        return index, self.obj(self.array(name)[index], f"{name[:-1]} {index}")

    def non_negative(self, value: object, name: str, where: str) -> int:
        """The JSON number `value` of the field `name` as a non-negative int (a whole float
        counts), else an error naming `where`."""
        value = whole(value)
        if not is_int(value) or value < 0:
            raise self.error(where, f"{name} must be a non-negative integer, got {value!r}")
        return value

    # ------------------------------------------------------------------ URIs and buffers
    def _check_uris(self) -> None:
        for kind in ("buffers", "images"):
            for i, item in enumerate(self.array(kind)):
                where = f"{kind[:-1]} {i}"
                uri = self.obj(item, where).get("uri")
                if uri is None:
                    chunk = self.is_glb and i == 0  # glTF 4.4.3.3: buffer 0's alone
                    if kind == "buffers" and not chunk and not _fallback(item):
                        self.uriless.append(i)  # no data in the file: noted if unread
                    continue
                if not isinstance(uri, str):
                    raise self.error(where, f"uri must be a string, got {describe(uri)}")
                if not uri.startswith("data:") and not _NETWORK.match(uri):
                    self.local_file(uri, where)  # refused even unread: it reaches out

    def local_file(self, uri: str, where: str) -> Path:
        """The file a relative URI names, refusing anything outside the glTF's folder."""
        path = confined(urllib.parse.unquote(uri), self.folder)
        if path is None:
            raise self.error(
                where,
                f"URI {quoted(uri, 80)} refused: a glTF file may only reference files in its own "
                "folder",
            )
        return path

    def buffer(self, index: int) -> bytes | memoryview:
        """The bytes of buffer `index` (read once, checked against the limits)."""
        return self.buffer_bytes(self.index_into(index, "buffers", "buffers"))

    def buffer_bytes(self, index: int) -> bytes | memoryview:
        """The bytes of buffer `index` (a checked index); an error names the buffer."""
        if index in self.buffers:
            return self.buffers[index]
        here = f"buffer {index}"
        buf = self.obj(self.array("buffers")[index], here)
        uri = buf.get("uri")
        length = self.non_negative(buf.get("byteLength"), "byteLength", here)
        self.check_size(length, "the buffer", here)
        if uri is None:
            if self.is_glb and index == 0 and self.bin is None:
                raise self.error(here, "no uri and no binary chunk to read it from")
            if index != 0 or self.bin is None:  # the data comes from elsewhere (a .gltf,
                # or a .glb's later buffer without a uri: the spec gives it no bytes)
                self.unavailable.add(index)
                raise DataUnavailable(self.no_data_reason, file=self.display, section=here)
            data: bytes | memoryview = self.bin
        elif uri.startswith("data:"):
            data = data_uri_bytes(self, uri, here)
        else:
            file = self.local_file(uri, here)
            shown = uri if len(uri) <= 80 else uri[:77] + "..."
            try:
                data = self.read_file(file, f"the file {shown!r}", here)
            except FileNotFoundError:
                raise self.error(here, f"missing file {shown!r} (next to the glTF file)") from None
            except OSError as exc:
                raise self.error(here, f"cannot read {shown!r} ({exc.strerror or exc})") from None
        if len(data) < length:
            raise self.error(here, f"expected {length} bytes, the data has {len(data)}")
        self.buffers[index] = data
        return data

    def accessor(
        self,
        index: object,
        where: str,
        types: tuple[str, ...],
        components: Collection[int],
        *,
        normalized: bool = False,
    ) -> np.ndarray:
        """The accessor's elements as a read-only (count, width) array of its component
        type, a view of the buffer where it can be.

        `normalized`: whether integer accessors flagged ``normalized`` are accepted (the
        caller then scales them); otherwise they are refused. An accessor without a
        ``bufferView`` is zeros, a ``sparse`` one has its listed elements replaced (glTF
        3.6.2.3); one a decompressor filled (`decoded`) is that data.
        """
        index, acc = self.item(index, "accessors", where)
        here = f"accessor {index}"
        kind = acc.get("type")
        if kind not in types:
            raise self.error(here, f"expected type {' or '.join(types)}, got {describe(kind)}")
        ctype = whole(acc.get("componentType"))
        if not is_int(ctype) or ctype not in components:
            raise self.error(here, f"unsupported componentType {ctype!r} for {where}")
        if acc.get("normalized") and ctype != 5126 and not normalized:
            raise self.error(here, "normalized integer attributes are not supported here")
        count = whole(acc.get("count"))
        if not is_int(count) or not 0 <= count <= _MAX_COUNT:
            raise self.error(here, f"count must be an integer in 0..{_MAX_COUNT}, got {count!r}")
        width = _WIDTH[kind]
        dtype = _COMPONENTS[ctype]
        if index in self.decoded:  # charged to the budget before it was decoded
            return self._decoded(index, count, width, dtype, here)[: 1 if self._first_row else None]
        nbytes = count * width * dtype.itemsize
        reason = None if self._first_row else self.budget.charge_data(nbytes)
        if reason is not None:
            raise self.error(here, reason)
        if acc.get("bufferView") is None:  # glTF: no view means all zeros, a constant:
            # one row stands for every element (a read-only view, never expanded here)
            arr = np.broadcast_to(np.zeros((1, width), dtype=dtype), (count, width))
        else:
            arr = self.from_view(acc, here, count, width, dtype)
        sparse = acc.get("sparse")
        if sparse is not None:
            arr = apply_sparse(self, sparse, arr, here, width, dtype)
        arr.flags.writeable = False
        return arr[:1] if self._first_row else arr

    @contextlib.contextmanager
    def first_rows(self) -> Iterator[None]:
        """Within the block, every accessor read gives its first row only, and is not
        charged again: for what keeps one row of accessors already read and charged whole
        (a POINTS primitive at one place, `mesh.py`)."""
        self._first_row = True
        try:
            yield
        finally:
            self._first_row = False

    def from_view(
        self, acc: dict, here: str, count: int, width: int, dtype: np.dtype[Any]
    ) -> np.ndarray:
        """`count` elements of `width` components read where ``acc``'s bufferView and
        byteOffset say, checked to lie inside the view (a read-only view of the buffer)."""
        view_index, view = self.item(acc.get("bufferView"), "bufferViews", here)
        vhere = f"bufferView {view_index}"
        data, v_off, v_len, stride = self.view_bytes(view_index, view, vhere)
        a_off = self.non_negative(_default(acc.get("byteOffset"), 0), "byteOffset", here)
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
        return np.ndarray(
            (count, width),
            dtype=dtype,
            buffer=data,
            offset=v_off + a_off,
            strides=(stride, dtype.itemsize),
        )

    def view_bytes(
        self, view_index: int, view: dict, vhere: str
    ) -> tuple[bytes | memoryview, int, int, object]:
        """(data, byteOffset, byteLength, byteStride or None) of a checked buffer view;
        a view compressed with EXT_meshopt_compression is decoded first."""
        ext = view.get("extensions")
        if isinstance(ext, dict) and ext.get("EXT_meshopt_compression") is not None:
            if view_index not in self.unpacked:
                self.unpacked[view_index] = meshopt_view(
                    self, ext["EXT_meshopt_compression"], vhere
                )
            unpacked = self.unpacked[view_index]
            stride = whole(self.obj(ext["EXT_meshopt_compression"], vhere).get("byteStride"))
            return unpacked, 0, len(unpacked), stride
        buffer_index = self.index_into(view.get("buffer"), "buffers", vhere)
        data = self.buffer_bytes(buffer_index)
        v_off = self.non_negative(_default(view.get("byteOffset"), 0), "byteOffset", vhere)
        v_len = self.non_negative(view.get("byteLength"), "byteLength", vhere)
        if v_off + v_len > len(data):
            raise self.error(vhere, f"bytes {v_off}..{v_off + v_len} lie outside buffer")
        return data, v_off, v_len, whole(view.get("byteStride"))

    def _decoded(
        self, index: int, count: int, width: int, dtype: np.dtype[Any], here: str
    ) -> np.ndarray:
        arr = self.decoded[index]
        if arr.shape != (count, width):
            raise self.error(
                here,
                f"the compressed data has {arr.shape[0]} x {arr.shape[1]} values, the accessor "
                f"says {count} x {width}",
            )
        arr = np.ascontiguousarray(arr, dtype=dtype)
        arr.flags.writeable = False
        return arr

    def floats(
        self,
        index: object,
        where: str,
        types: tuple[str, ...],
        *,
        integers: bool = False,
        single: bool = False,
    ) -> np.ndarray:
        """A float accessor, or a normalized integer one scaled to [0, 1] / [-1, 1]
        (the glTF rules), as float64 (`single`: float32, the float64 values rounded, made
        without a float64 copy where none is needed). `integers`: plain (not normalized)
        integers are accepted too, as their values (KHR_mesh_quantization's positions and
        coordinates). Zeros without data stay one row (`constant_row`)."""
        arr = self.accessor(index, where, types, tuple(_COMPONENTS), normalized=True)
        one = constant_row(arr)
        if one is not None:  # zeros without data: converted once, still one row
            return np.broadcast_to(self._as_floats(one, index, where, integers, single), arr.shape)
        return self._as_floats(arr, index, where, integers, single)

    def _as_floats(
        self, arr: np.ndarray, index: object, where: str, integers: bool, single: bool
    ) -> np.ndarray:
        """`floats` of the accessor `index` read as `arr`."""
        out = np.float32 if single else np.float64
        if arr.dtype.kind == "f":  # float32 in glTF: exact in either
            with np.errstate(invalid="ignore"):  # a signalling NaN: NaN, which callers refuse
                return arr.astype(out)
        _i, acc = self.item(index, "accessors", where)
        if not acc.get("normalized"):
            if integers and arr.dtype.itemsize < 4:  # 8 and 16 bits: exact in either
                return arr.astype(out)
            raise self.error(where, "an integer accessor here must be normalized")
        top = float(np.iinfo(arr.dtype).max)
        return np.maximum(arr.astype(np.float64) / top, -1.0).astype(out, copy=False)


def constant_row(arr: np.ndarray) -> np.ndarray | None:
    """The one row [1, width] that every row of `arr` [n, width] is, when `arr` is a
    broadcast constant (an accessor of zeros, `GltfFile.accessor`), else None."""
    if arr.ndim == 2 and arr.shape[0] > 1 and arr.strides[0] == 0:
        return arr[:1]
    return None


_NO_DATA = "no uri and no binary chunk to read it from"
_NO_DATA_IN_GLB = "no uri, and a .glb's binary chunk is buffer 0's alone"


def _fallback(buffer: dict) -> bool:
    """Whether a buffer is an EXT_meshopt_compression fallback (its data is elsewhere)."""
    ext = buffer.get("extensions")
    return isinstance(ext, dict) and ext.get("EXT_meshopt_compression") is not None


def _default(value: object, default: object) -> object:
    return default if value is None else value
