"""Input checks for the core: every message names the node and the field, shows the value.

Checks run before anything is written, which is what lets every setter promise that an
error leaves the graph exactly as it was.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .kernels import all_finite

_MIN_QUAT_NORM = 1e-12


def vector(value: object, n: int, node: str, field: str) -> np.ndarray:
    """``value`` as a float64 array of ``n`` finite numbers, or a ValueError."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"node {node!r}, field {field!r}: expected {n} numbers, got {value!r}"
        ) from None
    if arr.shape != (n,):
        raise ValueError(
            f"node {node!r}, field {field!r}: expected {n} numbers, got shape {arr.shape} "
            f"({value!r})"
        )
    if not np.isfinite(arr).all():
        raise ValueError(
            f"node {node!r}, field {field!r}: expected finite numbers, got {arr.tolist()!r}"
        )
    return arr


# ------------------------------------------------------------------ per-node fast path
_ARRAY = np.ndarray
_isfinite = math.isfinite


def three(
    value: object, names: Sequence[str], i: int, field: str, plane: float | None = None
) -> tuple:
    """``value`` as three finite Python floats, for the per-node setters.

    A tuple, list or 1-D array of three numbers takes the fast path (plain Python,
    written out: a loop, a generator or a numpy call here costs more than the rest of a
    setter); anything else, or anything doubtful, goes through ``vector``, which accepts
    and refuses exactly as the bulk path does and names node ``names[i]`` in its error.
    """
    kind = type(value)
    if kind is _ARRAY:  # any shape: tolist() of a wrong one fails the unpacking below
        value, kind = value.tolist(), list
    if kind is tuple or kind is list:
        try:
            x, y, z = value
            x, y, z = float(x), float(y), float(z)
        except (TypeError, ValueError, OverflowError):
            pass
        else:
            if _isfinite(x + y + z):  # false only for a non-finite part (or an overflow)
                return x, y, z
    if plane is not None:
        return tuple(spatial(value, plane, names[i], field).tolist())
    return tuple(vector(value, 3, names[i], field).tolist())


def spatial(value: object, plane: float, node: str, field: str) -> np.ndarray:
    """Three numbers, or two for 2-D use with ``plane`` as the third (z = 0 for a
    position, 1 for a scale); for a scale (``plane == 1``) one number means all three."""
    number = isinstance(value, int | float | np.integer | np.floating)
    if plane == 1.0 and number and not isinstance(value, bool):
        return vector([value] * 3, 3, node, field)
    pair = isinstance(value, tuple | list) and len(value) == 2
    if pair or (isinstance(value, np.ndarray) and value.shape == (2,)):
        return vector([*value, plane], 3, node, field)
    return vector(value, 3, node, field)


def unit_four(value: object, names: Sequence[str], i: int, field: str) -> tuple:
    """``value`` as a normalised quaternion of four Python floats (see ``three``)."""
    kind = type(value)
    if kind is _ARRAY:
        value, kind = value.tolist(), list
    if kind is tuple or kind is list:
        try:
            x, y, z, w = value
            x, y, z, w = float(x), float(y), float(z), float(w)
        except (TypeError, ValueError, OverflowError):
            pass
        else:
            norm = math.sqrt(x * x + y * y + z * z + w * w)
            if _isfinite(norm) and norm >= _MIN_QUAT_NORM:
                if norm == 1.0:
                    return x, y, z, w
                return x / norm, y / norm, z / norm, w / norm
    return tuple(unit_quaternion(value, names[i], field).tolist())


def unit_quaternion(value: object, node: str, field: str) -> np.ndarray:
    """``value`` as a normalised ``(x, y, z, w)`` quaternion; zero length is an error."""
    q = vector(value, 4, node, field)
    norm = float(np.sqrt(q @ q))
    if norm < _MIN_QUAT_NORM:
        raise ValueError(
            f"node {node!r}, field {field!r}: a rotation quaternion must have non-zero "
            f"length, got {q.tolist()!r}"
        )
    return q / norm


def rows(
    values: object, k: int, n: int, field: str, name_of_row: Callable[[int], str]
) -> np.ndarray:
    """A ``(k, n)`` float64 block of finite numbers for a bulk edit, or a ValueError."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"field {field!r}: expected a ({k}, {n}) array of numbers") from None
    if arr.shape != (k, n):
        raise ValueError(f"field {field!r}: expected shape ({k}, {n}), got {arr.shape}")
    arr = np.ascontiguousarray(arr)
    if all_finite(arr):  # the compiled check; numpy's isfinite().all(axis=1) is 8x slower
        return arr
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"node {name_of_row(row)!r}, field {field!r}: expected finite numbers, "
            f"got {arr[row].tolist()!r}"
        )
    return np.ascontiguousarray(arr)


def unit_quaternion_rows(
    values: object, k: int, field: str, name_of_row: Callable[[int], str]
) -> np.ndarray:
    """A ``(k, 4)`` block of normalised quaternions; any zero-length row is an error."""
    q = rows(values, k, 4, field, name_of_row)
    norms = np.sqrt(np.einsum("ij,ij->i", q, q))
    bad = norms < _MIN_QUAT_NORM
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"node {name_of_row(row)!r}, field {field!r}: a rotation quaternion must have "
            f"non-zero length, got {q[row].tolist()!r}"
        )
    return q / norms[:, None]
