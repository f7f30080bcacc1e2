"""The full stored state of a graph's core, for tests that check a reader changed nothing."""

from __future__ import annotations

import numpy as np

from viewer.scene import SceneGraph
from viewer.scene.names import NameIndex


def core_state(g: SceneGraph) -> dict:
    """Every stored array, list, dict and counter of the graph's storage, as bytes or
    plain values (the memoryviews over the arrays and the kernel set are left out, and of
    the dirty roots' buffer only the recorded ones count)."""
    s = g._store
    out = {}
    for cls in type(s).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name.endswith(("_v", "_b")) or name == "kernels" or not hasattr(s, name):
                continue
            value = getattr(s, name)
            if name == "roots":  # a buffer: what lies past its count is uninitialised
                value = value[: s.n_roots]
            if isinstance(value, np.ndarray):
                out[name] = (value.dtype.str, value.shape, value.tobytes())
            elif isinstance(value, dict):
                out[name] = sorted(value.items())
            elif isinstance(value, NameIndex):  # names by id, in id order
                out[name] = [(key, value[key]) for key in value]
            else:
                out[name] = list(value) if isinstance(value, list) else value
    return out
