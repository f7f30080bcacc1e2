"""Input checks for the core: every message names the node and the field, shows the value.

Checks run before anything is written, which is what lets every setter promise that an
error leaves the graph exactly as it was.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from typing import Protocol

import numpy as np

from ..text import printable, quoted
from .kernel_set import current

_MIN_QUAT_NORM = 1e-12


def _brief(value: object) -> str:
    """A value quoted in a message: its repr, on one line and at most 80 characters."""
    if isinstance(value, list | tuple) and len(value) > 8:
        value = list(value[:8])  # no need to repr a million items to cut them
    return printable(repr(value), 80)


def _real(value: object) -> np.ndarray:
    """``value`` as float64; complex numbers are refused rather than silently truncated."""
    if isinstance(value, np.ndarray | list | tuple | complex):
        raw = np.asarray(value)
        if raw.dtype.kind == "c":
            raise TypeError("complex numbers")
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        try:
            return np.asarray(value, dtype=np.float64)
        except np.exceptions.ComplexWarning:
            raise TypeError("complex numbers") from None


def ids(value: object, what: str) -> np.ndarray:
    """A 1-D array of node ids as int64; an unsigned id too large for int64 is refused
    rather than wrapped round to a negative one (2**64 - 1 would become -1, "a root")."""
    arr = np.asarray(value)
    if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise ValueError(f"{what}: expected a 1-D integer array, got {arr!r}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{what}: id {int(arr.max())} is out of range")
    return arr.astype(np.int64, copy=False)


def vector(value: object, n: int, node: str, field: str) -> np.ndarray:
    """``value`` as a float64 array of ``n`` finite real numbers, or a ValueError."""
    try:
        arr = _real(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"node {quoted(node)}, field {field!r}: expected {n} numbers, got {_brief(value)}"
        ) from None
    if arr.shape != (n,):
        raise ValueError(
            f"node {quoted(node)}, field {field!r}: expected {n} numbers, got shape {arr.shape} "
            f"({_brief(value)})"
        )
    if not np.isfinite(arr).all():
        raise ValueError(
            f"node {quoted(node)}, field {field!r}: expected finite numbers, "
            f"got {_brief(arr.tolist())}"
        )
    return arr


# ------------------------------------------------------------------ per-node fast path
_ARRAY = np.ndarray
_isfinite = math.isfinite


class NameLookup(Protocol):
    """Where the per-node checks find the name of node ``i`` for an error: a graph's
    ``NodeNames``, or a one-name tuple."""

    def __getitem__(self, i: int, /) -> str: ...


def three(
    value: object, names: NameLookup, i: int, field: str, plane: float | None = None
) -> tuple:
    """``value`` as three finite Python floats, for the per-node setters.

    A tuple, list or 1-D array of three numbers takes the fast path (plain Python,
    written out: a loop, a generator or a numpy call here costs more than the rest of a
    setter); anything else, or anything doubtful, goes through ``vector``, which accepts
    and refuses exactly as the bulk path does and names node ``names[i]`` in its error.
    """
    if type(value) is _ARRAY:  # any shape: tolist() of a wrong one fails the unpacking below
        value = value.tolist()
    if type(value) is tuple or type(value) is list:
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
    if (isinstance(value, tuple | list) and len(value) == 2) or (
        isinstance(value, np.ndarray) and value.shape == (2,)
    ):
        return vector([*value, plane], 3, node, field)
    return vector(value, 3, node, field)


#: Element types ``add`` converts in plain Python; anything else takes the checked path.
_PLAIN = frozenset((float, int, np.float64))


def _plain_floats(value: object) -> list | tuple | None:
    """The items of a tuple, list or 1-D array when each is a plain int or float, else
    None (then the caller takes the numpy path, which decides and words the error)."""
    if type(value) is _ARRAY:
        if value.ndim != 1:
            return None
        value = value.tolist()
    if type(value) is not tuple and type(value) is not list:
        return None
    for item in value:
        if type(item) not in _PLAIN:
            return None
    return value


def spatial_floats(value: object, plane: float, node: str, field: str) -> tuple:
    """``spatial`` as three Python floats, for ``SceneGraph.add``: plain ints and floats
    in a tuple, list or 1-D array (or one number, for a scale) are converted in plain
    Python; anything else goes through ``spatial``, so what is accepted, what is refused
    and every message stay those of the numpy path."""
    if type(value) is tuple and len(value) == 3:  # the common case, first and shortest
        x, y, z = value
        if type(x) is float and type(y) is float and type(z) is float and _isfinite(x + y + z):
            return value
    items = _plain_floats(value)
    if items is None and plane == 1.0 and type(value) in _PLAIN:
        items = (value, value, value)
    if items is not None and 2 <= len(items) <= 3:
        try:
            x, y = float(items[0]), float(items[1])
            z = float(items[2]) if len(items) == 3 else plane
        except OverflowError:  # an int past float's range: the numpy path words it
            pass
        else:
            if _isfinite(x + y + z):
                return x, y, z
    return tuple(spatial(value, plane, node, field).tolist())


def euler_floats(value: object, node: str, field: str) -> tuple:
    """Three finite Euler angles as Python floats (``spatial_floats``'s rules, no 2-D)."""
    items = _plain_floats(value)
    if items is not None and len(items) == 3:
        try:
            x, y, z = float(items[0]), float(items[1]), float(items[2])
        except OverflowError:
            pass
        else:
            if _isfinite(x + y + z):
                return x, y, z
    return tuple(vector(value, 3, node, field).tolist())


def unit_floats(value: object, node: str, field: str) -> tuple:
    """A normalised quaternion as four Python floats (``spatial_floats``'s rules; the
    arithmetic of the per-node setter, ``unit_four``)."""
    items = _plain_floats(value)
    if items is not None and len(items) == 4:
        return unit_four(items, (node,), 0, field)
    return tuple(unit_quaternion(value, node, field).tolist())


def unit_four(value: object, names: NameLookup, i: int, field: str) -> tuple:
    """``value`` as a normalised quaternion of four Python floats (see ``three``)."""
    if type(value) is _ARRAY:
        value = value.tolist()
    if type(value) is tuple or type(value) is list:
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
    big = float(np.abs(q).max())
    if big > 1.0:  # scaled first, so 1e300 components cannot overflow the norm to inf
        q = q / big
    norm = float(np.sqrt(q @ q))
    if norm < _MIN_QUAT_NORM:
        raise ValueError(
            f"node {quoted(node)}, field {field!r}: a rotation quaternion must have non-zero "
            f"length, got {q.tolist()!r}"
        )
    return q / norm


def rows(
    values: object, k: int, n: int, field: str, name_of_row: Callable[[int], str]
) -> np.ndarray:
    """A ``(k, n)`` float64 block of finite numbers for a bulk edit, or a ValueError."""
    try:
        arr = _real(values)
    except (TypeError, ValueError):
        raise ValueError(f"field {field!r}: expected a ({k}, {n}) array of numbers") from None
    if arr.shape != (k, n):
        raise ValueError(f"field {field!r}: expected shape ({k}, {n}), got {arr.shape}")
    arr = np.ascontiguousarray(arr)
    if current().all_finite(arr):  # compiled: numpy's isfinite().all(axis=1) is 8x slower
        return arr
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"node {quoted(name_of_row(row))}, field {field!r}: expected finite numbers, "
            f"got {arr[row].tolist()!r}"
        )
    return np.ascontiguousarray(arr)


def unit_quaternion_rows(
    values: object, k: int, field: str, name_of_row: Callable[[int], str]
) -> np.ndarray:
    """A ``(k, 4)`` block of normalised quaternions; any zero-length row is an error."""
    q = rows(values, k, 4, field, name_of_row)
    big = np.abs(q).max(axis=1, initial=0.0)
    if (big > 1.0).any():  # scaled first, so huge components cannot overflow the norms
        q = q / np.maximum(big, 1.0)[:, None]
    norms = np.sqrt(np.einsum("ij,ij->i", q, q))
    bad = norms < _MIN_QUAT_NORM
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"node {quoted(name_of_row(row))}, field {field!r}: a rotation quaternion must have "
            f"non-zero length, got {q[row].tolist()!r}"
        )
    return q / norms[:, None]


def node_names(names: Iterable[str]) -> None:
    """Every one of `names` a non-empty string, or ValueError naming the first that is
    not (one C-level pass when all are: a million names in a batch)."""
    try:
        named = all(map(str.__len__, names))  # (TypeError: one is no string)
    except TypeError:
        named = False
    if not named:
        for nm in names:
            if not isinstance(nm, str) or not nm:
                raise ValueError(f"node names must be non-empty strings, got {nm!r}")
