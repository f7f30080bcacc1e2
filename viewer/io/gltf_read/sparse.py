"""Sparse accessors (glTF 3.6.2.3): an accessor's elements (from its bufferView, or zeros
without one) with some of them replaced, at strictly increasing indices, by values of
their own. Untrusted like the rest: the count, the indices and the values' views are
checked, and their bytes charged to the scene's data budget.
"""

from __future__ import annotations

import numpy as np

from viewer.io.gltf_read.document import GltfReader, is_int, whole

__all__ = ["apply_sparse"]

_INDEX_TYPES = {5121: np.dtype("<u1"), 5123: np.dtype("<u2"), 5125: np.dtype("<u4")}


def apply_sparse(gltf: GltfReader, sparse: object, base: np.ndarray, here: str, width: int, dtype):
    """`base` with the elements a ``sparse`` object lists replaced by its values."""
    where = f"{here} sparse"
    sparse = gltf.obj(sparse, where)
    k = whole(sparse.get("count"))
    if not is_int(k) or not 1 <= k <= len(base):
        raise gltf.error(where, f"count must be in 1..{len(base)}, got {k!r}")
    idx_obj = gltf.obj(sparse.get("indices"), f"{where} indices")
    val_obj = gltf.obj(sparse.get("values"), f"{where} values")
    ictype = whole(idx_obj.get("componentType"))
    if ictype not in _INDEX_TYPES:
        raise gltf.error(
            f"{where} indices", f"componentType must be 5121, 5123 or 5125, got {ictype!r}"
        )
    indices = _part(gltf, idx_obj, k, 1, _INDEX_TYPES[ictype], f"{where} indices")
    values = _part(gltf, val_obj, k, width, dtype, f"{where} values")
    indices = indices.reshape(-1).astype(np.int64)
    if indices.size and (indices.max() >= len(base) or np.any(np.diff(indices) <= 0)):
        raise gltf.error(where, f"indices must increase strictly and stay below {len(base)}")
    out = np.array(base)
    out[indices] = values
    return out


def _part(gltf: GltfReader, obj: dict, k: int, width: int, dtype, where: str) -> np.ndarray:
    """`k` elements of the sparse indices or values object `obj`, from its bufferView."""
    reason = gltf.budget.charge_data(k * width * dtype.itemsize)
    if reason is not None:
        raise gltf.error(where, reason)
    if obj.get("bufferView") is None:
        raise gltf.error(where, "a bufferView is required")
    return gltf.from_view(obj, where, k, width, dtype)
