"""The binary side of a glTF export: one buffer, its views and the accessors into them."""

from __future__ import annotations

import numpy as np

__all__ = ["ARRAY_BUFFER", "ELEMENT_ARRAY_BUFFER", "Packer"]

ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
_COMPONENT = {
    np.dtype("<f4"): 5126,
    np.dtype("<u4"): 5125,
    np.dtype("<u2"): 5123,
    np.dtype("<u1"): 5121,
}
_TYPE = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}


class Packer:
    """Appends byte ranges to one buffer (each at a 4-byte boundary, which every component
    type's alignment divides) and records a buffer view for each.

    `dataless` counts the bytes of a second buffer without data: carried-over views
    whose bytes the source did not have (a ``.gltf`` buffer without a URI, a meshopt
    fallback buffer) point into it. `meshopt`: it is an EXT_meshopt_compression fallback."""

    def __init__(self, views: list[dict], accessors: list[dict]) -> None:
        self.blob = bytearray()
        self.views = views
        self.accessors = accessors
        self.dataless = 0
        self.meshopt = False

    def void(self, length: int) -> int:
        """Reserve `length` bytes of the data-less buffer; return their offset."""
        self.dataless += -self.dataless % 4
        offset = self.dataless
        self.dataless += length
        return offset

    def place(self, data: bytes | memoryview) -> int:
        """Append `data` at the next 4-byte boundary; return its offset."""
        self.blob += b"\0" * (-len(self.blob) % 4)
        offset = len(self.blob)
        self.blob += data
        return offset

    def view(self, data: bytes | memoryview, target: int | None = None, **more: object) -> int:
        """A new buffer view holding `data`; `more` adds its other fields."""
        entry: dict[str, object] = {
            "buffer": 0,
            "byteOffset": self.place(data),
            "byteLength": len(data),
        }
        if target is not None:
            entry["target"] = target
        entry.update(more)
        self.views.append(entry)
        return len(self.views) - 1

    def accessor(
        self, array: np.ndarray, target: int | None = None, *, bounds: bool = False
    ) -> int:
        """An accessor (and its own view) for a (count, width) or (count,) array."""
        array = np.ascontiguousarray(array)
        if array.dtype.newbyteorder("<") != array.dtype:
            array = array.astype(array.dtype.newbyteorder("<"))
        width = 1 if array.ndim == 1 else array.shape[1]
        acc = {
            "bufferView": self.view(array.tobytes(), target),
            "componentType": _COMPONENT[array.dtype],
            "count": int(array.shape[0]),
            "type": _TYPE[width],
        }
        if bounds and array.shape[0]:
            flat = array.reshape(array.shape[0], width)
            acc["min"] = flat.min(axis=0).astype(float).tolist()
            acc["max"] = flat.max(axis=0).astype(float).tolist()
        self.accessors.append(acc)
        return len(self.accessors) - 1
