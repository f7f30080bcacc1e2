"""Index arithmetic over runs: many ``arange`` spans joined, without a Python loop.

The renderer scatters the rows of dirty pre-order runs, the name grid gathers its cells'
nodes and the TOML reader gathers byte spans of a file: each asks for every index of
many ``[lo, hi)`` spans in one array, so one function serves them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["aranges"]


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
