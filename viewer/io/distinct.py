"""Equal rows of a float array, found by their bits.

A large scene repeats its values (a chain's offset and turn from node to node, a shared
rotation, a size per colour); finding the distinct rows first lets a reader check and
convert, and a writer format, each of them once.
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct_rows"]

#: Odd 64-bit multipliers that spread each column's bits over the hash (16 columns).
_MIX = (
    0x9E3779B97F4A7C15,
    0xC2B2AE3D27D4EB4F,
    0x165667B19E3779F9,
    0xD6E8FEB86659FD93,
    *(((0x9E3779B97F4A7C15 * (2 * i + 9)) | 1) & 0xFFFFFFFFFFFFFFFF for i in range(12)),
)


def distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each distinct row of bits of the (k, w) float or uint64 `values`,
    w at most 16; each row's index into those): one 64-bit hash a row, sorted, and
    collisions checked bit for bit (-0.0 and 0.0 are distinct here; so are NaNs of
    other bits)."""
    values = np.ascontiguousarray(values)
    if values.dtype != np.uint64:
        values = values.astype(np.float64, copy=False)
    bits = values.view(np.uint64)  # (k, w)
    mixed = np.zeros(len(bits), dtype=np.uint64)
    for column, factor in zip(bits.T, _MIX, strict=False):  # (a 17th column: unhashed)
        mixed ^= column * np.uint64(factor)
        mixed ^= mixed >> np.uint64(29)
    _, first, which = np.unique(mixed, return_index=True, return_inverse=True)
    which = which.ravel()
    if not (bits == bits[first[which]]).all():  # two rows with one hash: by the bits
        seen: dict[tuple, int] = {}
        which = np.array([seen.setdefault(key, len(seen)) for key in map(tuple, bits.tolist())])
        first = np.unique(which, return_index=True)[1]
    return first, which
