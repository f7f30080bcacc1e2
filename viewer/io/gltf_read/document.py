"""What the glTF readers of single features (sparse accessors, compressed data) need of
the data layer: JSON number rules and the reader's interface as a Protocol, so that they
can be called from `data.py` without importing it back."""

from __future__ import annotations

from typing import Any, Protocol, TypeGuard

import numpy as np

from viewer.io.errors import SceneError
from viewer.io.limits import Budget

__all__ = ["GltfReader", "is_int", "whole"]


def is_int(value: object) -> TypeGuard[int]:
    """Whether `value` is a JSON integer (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def whole(value: object) -> object:
    """`value` as an int when it is a whole number written as a float (``1.0``: JSON does
    not tell it from ``1``, so neither may a reader), else unchanged; `is_int` after it
    accepts both."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


class GltfReader(Protocol):
    """The checked access of `gltf_data.GltfFile` that feature readers use."""

    budget: Budget
    decoded: Any

    def error(self, where: str, message: str) -> SceneError: ...

    def obj(self, value: object, where: str) -> dict: ...

    def item(self, index: object, kind: str, where: str) -> tuple[int, dict]: ...

    def index_into(self, index: object, kind: str, where: str) -> int: ...

    def from_view(
        self, acc: dict, here: str, count: int, width: int, dtype: np.dtype[Any]
    ) -> np.ndarray: ...

    def view_bytes(
        self, view_index: int, view: dict, vhere: str
    ) -> tuple[bytes | memoryview, int, int, object]: ...
