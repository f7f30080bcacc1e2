"""Argument checks shared by the collision functions: shapes, signs, finiteness.

Every public function converts its inputs here first, so a bad call fails at once with a
message that names the argument, says what was expected and shows what came in.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

#: How far from length 1 a vector given as a unit axis may be.
UNIT_TOL = 1e-6


def _fmt(shape: tuple[int | str, ...]) -> str:
    inner = ", ".join(str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def as_float(value: ArrayLike, name: str) -> np.ndarray:
    """`value` as a float64 array, which must be finite everywhere."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {value!r}")
    return arr


def shaped(value: ArrayLike, shape: tuple[int | str, ...], name: str) -> np.ndarray:
    """`value` as a finite float64 array of `shape`; a str entry ("N") matches any length."""
    arr = as_float(value, name)
    ok = arr.ndim == len(shape) and all(
        isinstance(want, str) or got == want for got, want in zip(arr.shape, shape)
    )
    if not ok:
        raise ValueError(f"{name} must have shape {_fmt(shape)}, got shape {arr.shape!r}")
    return arr


def points(value: ArrayLike, dim: int, name: str) -> np.ndarray:
    """One vector `(dim,)` or a stack `(N, dim)`, finite."""
    arr = as_float(value, name)
    if arr.ndim not in (1, 2) or arr.shape[-1] != dim:
        raise ValueError(f"{name} must have shape ({dim},) or (N, {dim}), got shape {arr.shape!r}")
    return arr


def per_item(value: ArrayLike, tail: tuple[int, ...], count: int, name: str) -> np.ndarray:
    """One value shared by all `count` items (shape `tail`) or one per item (`(count, *tail)`).

    Returns the array broadcast to `(count, *tail)` (a read-only view when shared).
    """
    arr = as_float(value, name)
    if arr.shape == tail:
        return np.broadcast_to(arr, (count, *tail))
    if arr.shape == (count, *tail):
        return arr
    raise ValueError(
        f"{name} must have shape {_fmt(tail)} (shared) or {_fmt((count, *tail))} (one per "
        f"item), got shape {arr.shape!r}"
    )


def non_negative(arr: np.ndarray, name: str) -> np.ndarray:
    """`arr` unchanged, after checking that no entry is negative."""
    if (arr < 0.0).any():
        raise ValueError(f"{name} must be >= 0, got {arr!r}")
    return arr


def unit_length(arr: np.ndarray, name: str, axis: int = -1) -> np.ndarray:
    """`arr` unchanged, after checking its vectors along `axis` have length 1."""
    lengths = np.sqrt(np.sum(arr * arr, axis=axis))
    if (np.abs(lengths - 1.0) > UNIT_TOL).any():
        raise ValueError(
            f"{name} must have unit length (within {UNIT_TOL}), got length {lengths!r}; "
            "normalise it, or take it from rect_axes / box_axes"
        )
    return arr


def matrix(value: ArrayLike, sizes: tuple[int, ...], name: str) -> np.ndarray:
    """A square matrix of one of `sizes`, or a stack `(N, k, k)` of them."""
    arr = as_float(value, name)
    if arr.ndim not in (2, 3) or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] not in sizes:
        wanted = " or ".join(f"({k}, {k})" for k in sizes)
        raise ValueError(f"{name} must have shape {wanted}, or (N, k, k), got shape {arr.shape!r}")
    return arr
