"""glTF node values read in bulk: ``translation``, ``rotation``, ``scale`` and ``matrix``.

Why a module of its own: the node tree (scene.py) collects, in one cheap pass over the
JSON, only the values a node gives; these functions then check their types and numbers
for all nodes at once (a 100,000-node file is a few numpy calls, not 100,000 checks),
and split a ``matrix`` into TRS, refusing shear and projective rows. Each error names
the glTF node, its name and the field.
"""

from __future__ import annotations

import math
from itertools import chain
from operator import not_

import numpy as np

from viewer.io.errors import SceneError, describe
from viewer.io.gltf_read.data import GltfFile
from viewer.io.gltf_read.node_table import TRS_DEFAULTS, NodeTable
from viewer.scene.math import decompose, trs_matrix


def number_error(
    gltf: GltfFile, i: int, name: str, field_name: str, width: int, value: object
) -> SceneError:
    """The error for node ``i``'s ``field_name`` that is not ``width`` numbers."""
    got = str(len(value)) if type(value) is list and _numbers(value) else describe(value)
    return gltf.error(
        f"glTF node {i}", f"expected {width} numbers, got {got}", node=name, field=field_name
    )


def bulk_values(
    gltf: GltfFile,
    k: int,
    rows: list[int],
    values: list,
    default: tuple,
    order: list[int],
    names: list[str],
    field_name: str,
) -> np.ndarray:
    """A (k, width) float64 array of `default` with the given rows set from `values`
    (lists whose length is checked): their types checked in one pass over all of them,
    then their values; the first bad row is named."""
    arr = np.tile(np.asarray(default, dtype=np.float64), (k, 1))
    if not rows:
        return arr
    width = len(default)
    flat = list(chain.from_iterable(values))
    if not set(map(type, flat)) <= {int, float}:
        j = next(j for j, v in enumerate(values) if not _numbers(v))
        row = rows[j]
        raise number_error(gltf, order[row], names[row], field_name, width, values[j])
    try:
        got = np.fromiter(flat, dtype=np.float64, count=len(flat))
    except OverflowError:  # an integer beyond float range
        got = np.array([_to_float(c) for c in flat])
    got = got.reshape(len(rows), width)
    finite = np.isfinite(got).all(axis=1)
    if not finite.all():
        row = rows[int(np.flatnonzero(~finite)[0])]
        raise gltf.error(
            f"glTF node {order[row]}", "expected finite numbers", node=names[row], field=field_name
        )
    arr[np.asarray(rows, dtype=np.int64)] = got
    return arr


def table_values(gltf: GltfFile, table: NodeTable, rows: np.ndarray, order: list[int]):
    """What the importer's pass over node objects gives, from a `NodeTable` (whose values
    are checked already): the imported nodes' names and (k, width) TRS arrays by row, the
    (row, node, name, matrix) of those with a ``matrix`` and the rows with a mesh
    (`_mesh_rows`), each in row order. Per field, not per node."""
    by_row = np.asarray(order, dtype=np.int64)
    in_file_order = by_row.size == len(table) and bool((by_row == np.arange(by_row.size)).all())
    names = list(table.names) if in_file_order else list(map(table.names.__getitem__, order))
    if not all(names):  # a node without a name, or with an empty one
        for row in np.flatnonzero(np.fromiter(map(not_, names), bool, len(names))).tolist():
            names[row] = f"node{order[row]}"
    values = []
    for f, default in TRS_DEFAULTS.items():
        arr = np.tile(np.asarray(default, dtype=np.float64), (len(order), 1))
        nodes, got = table.trs[f]
        at = rows[nodes]
        kept = at >= 0
        arr[at[kept]] = got[kept]
        values.append(arr)
    objects = table.objects
    matrices = []
    for row in np.sort(rows[table.others][rows[table.others] >= 0]).tolist():
        i = order[row]
        if objects[i].get("matrix") is not None:
            matrices.append((row, i, names[row], objects[i]["matrix"]))
    return names, values, matrices, _mesh_rows(gltf, table, by_row)


def _mesh_rows(gltf: GltfFile, table: NodeTable, by_row: np.ndarray) -> tuple[list, tuple | None]:
    """The (row, node, mesh, skin, object) of the rows with a mesh that the importer's
    loop (`scene._ModelReader._meshes`) must see, in row order, and the (rows, meshes) of the
    others: nodes without other fields whose mesh such a node drew before them, to
    which the loop would only give that node's look (its first branch), so it gives them
    that in bulk. None: the loop sees every row, as where a mesh may have morph targets
    (each node drawing it then gets its own morphed copy)."""
    mesh = table.mesh[by_row]
    with_mesh = np.flatnonzero(mesh >= 0)
    nodes, meshes = by_row[with_mesh], mesh[with_mesh]
    plain = np.flatnonzero(~np.isin(nodes, table.others))
    again = np.ones(plain.size, bool)
    again[np.unique(meshes[plain], return_index=True)[1]] = False  # the first ones go first
    bulk = plain[again]
    if not _unmorphed(gltf, np.unique(meshes[bulk]).tolist()):
        bulk = bulk[:0]
    loop = np.setdiff1d(np.arange(nodes.size), bulk, assume_unique=True)
    looped = nodes[loop].tolist()
    objects = list(map(table.objects.__getitem__, looped))
    skins = [None] * len(objects)  # only a node with other fields can have a skin
    for j in np.flatnonzero(np.isin(nodes[loop], table.others)).tolist():
        skins[j] = objects[j].get("skin")
    mesh_rows = list(
        zip(with_mesh[loop].tolist(), looped, meshes[loop].tolist(), skins, objects, strict=True)
    )
    return mesh_rows, (with_mesh[bulk].tolist(), meshes[bulk].tolist()) if bulk.size else None


def _unmorphed(gltf: GltfFile, mesh_indices: list[int]) -> bool:
    """Whether none of these meshes can have morph targets (no primitive gives any)."""
    meshes = gltf.array("meshes")
    for m in mesh_indices:
        mesh = meshes[m] if 0 <= m < len(meshes) else None
        prims = mesh.get("primitives") if isinstance(mesh, dict) else None
        if not isinstance(prims, list) or not all(
            isinstance(p, dict) and p.get("targets") is None for p in prims
        ):
            return False
    return True


def matrix_trs(gltf: GltfFile, matrix: object, i: int, name: str):
    """Node ``i``'s ``matrix`` (column-major) as translation, unit quaternion, scale."""
    where = f"glTF node {i}"
    if type(matrix) is not list or len(matrix) != 16 or not _numbers(matrix):
        raise number_error(gltf, i, name, "matrix", 16, matrix)
    m = np.array([_to_float(c) for c in matrix]).reshape(4, 4).T  # column-major
    if not np.all(np.isfinite(m)):
        raise gltf.error(where, "expected finite numbers", node=name, field="matrix")
    return _decompose(m, lambda why: gltf.error(where, why, node=name, field="matrix"))


def _numbers(values: list) -> bool:
    for c in values:
        kind = type(c)
        if kind is not float and kind is not int:
            return False
    return True


def _to_float(value: float | int) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _decompose(m: np.ndarray, error) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split an affine matrix into translation, unit quaternion and scale; refuse shear
    and projective rows, which TRS cannot hold."""
    if not np.allclose(m[3], [0.0, 0.0, 0.0, 1.0], atol=1e-9):
        raise error("the last row must be 0, 0, 0, 1")
    t, q, s = decompose(m)
    if not np.allclose(trs_matrix(t, q, s), m, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(m).max())):
        raise error("it has shear, which TRS cannot represent")
    return t, q, s
