"""Compressed glTF geometry, decoded with the libraries made for it (as three.js does):
KHR_draco_mesh_compression with DracoPy (Google's Draco decoder) and
EXT_meshopt_compression with meshoptimizer (the meshoptimizer codec).

- Draco: a primitive's extension names a buffer view holding a Draco stream and, for each
  attribute, the Draco attribute's unique id. The decoded attributes and the triangle
  indices are handed to the accessor layer (`GltfReader.decoded`, by accessor index), so the
  rest of the import reads them like any accessor, with the same checks.
- meshopt: a buffer view's extension names the compressed bytes, the element count and
  size, the mode (ATTRIBUTES, TRIANGLES, INDICES) and an optional filter; the view is
  decoded whole into the bytes its accessors then read (`GltfReader.view_bytes`).

Both are untrusted input: sizes are checked against the scene's data budget before
decoding, and any decoder failure is one `SceneError` naming the view or primitive.
"""

from __future__ import annotations

import numpy as np

from viewer.io.gltf_read.document import GltfReader, is_int, whole
from viewer.text import brief

__all__ = ["decode_draco", "meshopt_view"]

_MODES = ("ATTRIBUTES", "TRIANGLES", "INDICES")
_FILTERS = ("NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL")
_FILTER_STRIDES = {"OCTAHEDRAL": (4, 8), "QUATERNION": (8,)}


def meshopt_view(gltf: GltfReader, ext: object, where: str) -> bytes:
    """The decoded bytes of a buffer view compressed with EXT_meshopt_compression."""
    import meshoptimizer

    where = f"{where} EXT_meshopt_compression"
    ext = gltf.obj(ext, where)
    count, size = whole(ext.get("count")), whole(ext.get("byteStride"))
    mode, kind = ext.get("mode"), ext.get("filter", "NONE")
    if mode not in _MODES or kind not in _FILTERS:
        raise gltf.error(
            where,
            f"expected mode {'/'.join(_MODES)} and filter "
            f"{'/'.join(_FILTERS)}, got {mode!r} and {kind!r}",
        )
    if not (is_int(count) and count >= 0 and is_int(size) and 0 < size <= 256):
        raise gltf.error(
            where,
            f"count and byteStride must be whole numbers (byteStride "
            f"1..256), got {count!r} and {size!r}",
        )
    if mode != "ATTRIBUTES" and size not in (2, 4) or mode == "ATTRIBUTES" and size % 4:
        raise gltf.error(where, f"byteStride {size} does not fit mode {mode}")
    if size not in _FILTER_STRIDES.get(kind, (size,)) or kind != "NONE" and mode != "ATTRIBUTES":
        raise gltf.error(where, f"filter {kind} does not fit mode {mode}, byteStride {size}")
    reason = gltf.budget.charge_data(count * size)
    if reason is not None:
        raise gltf.error(where, reason)
    view = {
        "buffer": ext.get("buffer"),
        "byteOffset": ext.get("byteOffset"),
        "byteLength": ext.get("byteLength"),
    }
    data, offset, length, _stride = gltf.view_bytes(-1, view, where)
    source = bytes(data[offset : offset + length])
    try:
        # Each call gets an output of count * 4 bytes or more: the package's own
        # allocation (its `dtype` argument would size the output by count alone)
        if mode == "ATTRIBUTES":
            out = meshoptimizer.decode_vertex_buffer(count, size, source)
            out = _unfilter(meshoptimizer, kind, _bytes_of(out), count, size)
        elif mode == "TRIANGLES":
            out = meshoptimizer.decode_index_buffer(count, size, source)
        else:
            out = meshoptimizer.decode_index_sequence(count, size, source)
    except (ValueError, RuntimeError) as exc:
        raise gltf.error(where, f"the compressed data does not decode ({brief(exc)})") from None
    raw = _bytes_of(out)[: count * size].tobytes()  # indices: packed at `size` bytes each
    if len(raw) != count * size:
        raise gltf.error(where, f"decoded {len(raw)} bytes, expected {count * size}")
    return raw


def _bytes_of(arr: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(arr).view(np.uint8).reshape(-1)


def _unfilter(meshoptimizer, kind: str, raw: np.ndarray, count: int, size: int) -> np.ndarray:
    """The filter's inverse applied to decoded vertex bytes (EXT_meshopt_compression),
    in place on a copy of all count * size bytes."""
    if kind == "NONE":
        return raw
    fn = {
        "OCTAHEDRAL": meshoptimizer.decode_filter_oct,
        "QUATERNION": meshoptimizer.decode_filter_quat,
        "EXPONENTIAL": meshoptimizer.decode_filter_exp,
    }[kind]
    return _bytes_of(fn(raw.copy(), count, size))


def decode_draco(gltf: GltfReader, prim: dict, ext: object, where: str) -> None:
    """Decode a primitive's KHR_draco_mesh_compression stream into `gltf.decoded`: each
    attribute's accessor and the indices accessor get the decoded arrays."""
    import DracoPy

    where = f"{where} KHR_draco_mesh_compression"
    ext = gltf.obj(ext, where)
    view_index, view = gltf.item(ext.get("bufferView"), "bufferViews", where)
    data, offset, length, _stride = gltf.view_bytes(view_index, view, f"bufferView {view_index}")
    reason = gltf.budget.charge_data(_declared_bytes(gltf, prim, where))
    if reason is not None:  # before decoding: what the accessors say it will hold
        raise gltf.error(where, reason)
    try:
        mesh = DracoPy.decode(bytes(data[offset : offset + length]))
    except Exception as exc:  # the decoder raises its own types on bad streams
        raise gltf.error(where, f"the Draco data does not decode ({brief(exc)})") from None
    ids = gltf.obj(ext.get("attributes"), f"{where} attributes")
    attrs = gltf.obj(prim.get("attributes"), f"{where} attributes")
    for name, uid in ids.items():
        acc = attrs.get(name)
        if acc is None:
            continue  # an attribute the primitive does not use
        acc = gltf.index_into(acc, "accessors", f"{where} {name}")
        found = mesh.get_attribute_by_unique_id(whole(uid)) if is_int(whole(uid)) else None
        if found is None:
            raise gltf.error(where, f"the Draco data has no attribute {uid!r} for {name}")
        values = np.asarray(found["data"])
        gltf.decoded[acc] = values.reshape(len(values), -1)
    faces = getattr(mesh, "faces", None)
    if prim.get("indices") is not None and faces is not None:
        acc = gltf.index_into(prim["indices"], "accessors", f"{where} indices")
        gltf.decoded[acc] = np.asarray(faces).reshape(-1, 1)


def _declared_bytes(gltf: GltfReader, prim: dict, where: str) -> int:
    """What the primitive's accessors declare they hold (count x 16 bytes, the widest
    element a vertex attribute or index can have): charged before a stream is decoded."""
    attrs = gltf.obj(prim.get("attributes"), f"{where} attributes")
    total = 0
    for index in [*attrs.values(), prim.get("indices")]:
        if index is None:
            continue
        _i, acc = gltf.item(index, "accessors", where)
        count = whole(acc.get("count"))
        total += 16 * count if is_int(count) and count > 0 else 0
    return total
