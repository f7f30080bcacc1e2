"""Index arithmetic over runs: many ``arange`` spans joined, without a Python loop.

The renderer scatters the rows of dirty pre-order runs, the name grid gathers its cells'
nodes and the TOML reader gathers byte spans of a file: each asks for every index of
many ``[lo, hi)`` spans in one array, so one function serves them. A connected program's
mirror and the folding of its frames join overlapping spans into disjoint ones (`joined`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["aranges", "joined"]


def aranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(lo[k], hi[k])`` over k (each hi >= lo), in one go.

    `aranges([2, 7], [4, 9])` is `[2, 3, 7, 8]`.
    """
    lengths = hi - lo
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.cumsum(lengths) - lengths  # where each run starts in the output
    return np.repeat(lo - first, lengths) + np.arange(total, dtype=np.int64)


def joined(
    lo: NDArray[np.int64], hi: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The spans ``[lo[k], hi[k])`` as sorted, disjoint ones covering the same indices
    (spans that overlap or touch become one).

    `joined([5, 0, 2], [7, 3, 4])` is `([0, 5], [4, 7])`.
    """
    lo, hi = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
    if lo.size == 0:
        return lo, hi
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)
    new = np.r_[True, lo[1:] > reach[:-1]]
    group = np.cumsum(new) - 1
    out_hi = np.zeros(int(group[-1]) + 1, dtype=np.int64)
    np.maximum.at(out_hi, group, hi)
    return lo[new], out_hi
