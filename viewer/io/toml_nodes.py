"""Checking a file's [[node]] tables column-wise, with `parse_node` as the oracle.

A scene of a million nodes holds a million tables of the same few plain keys. Checked
one by one (`parse_node`), each costs about 100 µs of Python; here the plain ones
(name, parent, a built-in mesh, a ``#rrggbb`` colour, numbers for position, rotation,
scale and size) are checked a column at a time with numpy, against the same ranges.
Any table this does not vouch for (another key, a value of another shape or out of
range) goes through `parse_node`, in file order, so that an error is raised by the same
code, with the same message, for the same first node as before. The result is columns
(`NodeColumns`: names, parents, arrays of positions, rotations and scales, looks), not an
object per node; they hold what `parse_node` returns for each table (tests/io/
test_toml_nodes.py compares them), and a `NodeSpec` is kept only for a node with a glTF
mesh or motions.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

import numpy as np

from viewer.io import _fields as F
from viewer.io.distinct import distinct_rows
from viewer.io.errors import SceneError
from viewer.io.ranges import RANGES
from viewer.io.toml_plain import PlainNodes, spread
from viewer.io.toml_sections import NO_ROTATION, NodeSpec, parse_node

from ..content.scene import BUILTIN_MESHES, Look
from ..scene.math import quat_from_euler_floats

__all__ = ["NodeColumns", "NotVouched", "parse_nodes"]

PLAIN_KEYS = frozenset(("name", "parent", "position", "rotation", "scale", "mesh", "size", "color"))
_NUMBER_TYPES = frozenset((int, float))
_NOT_A_COLOR = object()  # bool is not one: TOML booleans are refused


class NotVouched(Exception):
    """A plain block (toml_plain.py) holds a value these checks refuse: the file is read
    again the usual way, so that `parse_node` names the error."""


@dataclass
class NodeColumns:
    """The checked [[node]] tables a column per field, row = the table's index in the file
    (a million nodes as a few arrays and lists, not a million objects)."""

    names: list[str]
    parents: list[str | None]
    positions: np.ndarray  # (n, 3) float64
    rotations: np.ndarray  # (n, 4) unit quaternions (x, y, z, w)
    scales: np.ndarray  # (n, 3)
    looks: list[Look]
    extras: list[NodeSpec]  # the nodes with a glTF mesh or motions, in file order


def parse_nodes(
    items: list,
    display: str,
    locator: F.Locator,
    base_dir: Path,
    plain: PlainNodes | None = None,
) -> NodeColumns:
    """`parse_node` of each item of `items` as columns, the plain ones checked a column at
    a time. With `plain`, its rows are nodes read from the text (their items are None);
    raises `NotVouched` when one of them fails a check."""
    n = len(items)
    from_text = np.zeros(n, dtype=bool)
    if plain is not None:
        from_text[plain.rows] = True
    other_rows = np.flatnonzero(~from_text).tolist()
    specs: dict[int, NodeSpec] = {}
    rows = [r for r in other_rows if type(items[r]) is dict and PLAIN_KEYS.issuperset(items[r])]
    tables = [items[r] for r in rows]
    ok = np.ones(len(rows), dtype=bool)
    names = [t.get("name") for t in tables]
    ok &= np.array([type(x) is str and x != "" for x in names], dtype=bool)
    parents = [t.get("parent") for t in tables]
    ok &= np.array([x is None or type(x) is str for x in parents], dtype=bool)
    meshes = [t.get("mesh") for t in tables]
    ok &= _meshes_ok(meshes)
    colors = _colors([t.get("color") for t in tables], ok)
    position = _column(tables, "position", "position", ok)
    euler = _column(tables, "rotation", "rotation", ok)
    scale = _column(tables, "scale", "scale", ok, collapse=True, nonzero=True)
    size = _column(tables, "size", "size", ok, collapse=True, positive=True)
    _fill(specs, rows, ok, names, parents, meshes, colors, position, euler, scale, size)
    from_plain = _plain_columns(plain)  # raises NotVouched before any parse_node
    for row in other_rows:  # in file order: the first error is the first node's
        if row not in specs:
            specs[row] = parse_node(items[row], row, display, locator, base_dir)
    return _merged(n, from_plain, [specs[row] for row in other_rows])


def _merged(n: int, plain: NodeColumns, specs: list[NodeSpec]) -> NodeColumns:
    """The columns of all `n` rows: the plain blocks' (`plain`, at the rows the other
    nodes, `specs` in file order, leave free) and the specs' (at ``spec.index``)."""
    if not specs:
        return plain
    at = np.array([spec.index for spec in specs], dtype=np.int64)
    free = np.ones(n, dtype=bool)
    free[at] = False
    rows = np.flatnonzero(free)
    k = len(specs)
    positions, rotations, scales = np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3))
    positions[rows], rotations[rows], scales[rows] = plain.positions, plain.rotations, plain.scales
    positions[at] = np.array([spec.position for spec in specs]).reshape(k, 3)
    rotations[at] = _stacked([spec.rotation for spec in specs]).reshape(k, 4)
    scales[at] = np.array([spec.scale for spec in specs]).reshape(k, 3)
    lists = []
    for column, field in ((plain.names, "name"), (plain.parents, "parent"), (plain.looks, "look")):
        merged = spread(column, rows, n)
        for row, spec in zip(at.tolist(), specs, strict=True):
            merged[row] = getattr(spec, field)
        lists.append(merged)
    extras = [spec for spec in specs if spec.gltf is not None or spec.motions]
    names, parents, looks = lists
    return NodeColumns(names, parents, positions, rotations, scales, looks, extras)


def _stacked(arrays: list[np.ndarray]) -> np.ndarray:
    """``np.array(arrays)``, each distinct array object converted once: most rotations
    are a few shared read-only arrays (`NO_ROTATION`, equal angles)."""
    distinct = dict(zip(map(id, arrays), arrays))
    slot = dict(zip(distinct, range(len(distinct))))
    table = np.array(list(distinct.values()), dtype=np.float64).reshape(-1, 4)
    return table[np.fromiter(map(slot.__getitem__, map(id, arrays)), np.int64, len(arrays))]


def _fill(specs, rows, ok, names, parents, meshes, colors, position, euler, scale, size):
    """A `NodeSpec` for each row of `rows` whose `ok` holds, from the checked columns, in
    `specs` (by row)."""
    quats: dict[bytes, np.ndarray] = {}  # by the angles' bits: -0.0 is not 0.0 here
    for k, row in enumerate(rows):
        if not ok[k]:
            continue
        look = Look() if meshes[k] is None else Look(mesh=meshes[k])
        if size[k] is not None:
            look.size = size[k]
        if colors[k] is not None:
            look.color = colors[k]
        rotation = NO_ROTATION if euler[k] is None else _quaternion(euler[k], quats)
        specs[row] = NodeSpec(
            row,
            names[k],
            parents[k],
            position[k] or (0.0,) * 3,
            rotation,
            scale[k] or (1.0, 1.0, 1.0),
            look,
        )


def _plain_columns(plain: PlainNodes | None) -> NodeColumns:
    """The plain blocks' nodes (one row each), their values checked a column at a time;
    raises `NotVouched` when a value fails a check."""
    if plain is None or not plain.rows.size:
        empty = np.zeros((0, 3))
        return NodeColumns([], [], empty, np.zeros((0, 4)), empty, [], [])
    names = plain.strings["name"]
    ok = _names_ok(names)
    meshes = plain.strings["mesh"]
    ok &= _meshes_ok(meshes)
    colors = _colors(plain.strings["color"], ok)
    numbers, present = plain.numbers, plain.present
    for key, checks in (
        ("position", {}),
        ("rotation", {}),
        ("scale", {"nonzero": True}),
        ("size", {"positive": True}),
    ):
        given = present[key]
        ok[given] &= _in_range(numbers[key][given], key, **checks)
    if not ok.all() or not _all_given(names):  # (_names_ok refused a missing name)
        raise NotVouched
    return NodeColumns(
        names,
        plain.strings["parent"],
        np.where(present["position"][:, None], numbers["position"], 0.0),
        _rotations(numbers["rotation"], present["rotation"]),
        np.where(present["scale"][:, None], numbers["scale"], 1.0),
        _shared_looks(meshes, numbers["size"], present["size"], colors),
        [],
    )


def _all_given(names: list[str | None]) -> TypeGuard[list[str]]:
    return None not in names


def _names_ok(names: list) -> np.ndarray:
    """Where a name is given and not empty (any other text is a name: docs/api.md)."""
    if None in names:
        return np.array([x is not None and x != "" for x in names], dtype=bool)
    return np.fromiter(map(bool, names), dtype=bool, count=len(names))


def _rotations(euler: np.ndarray, given: np.ndarray) -> np.ndarray:
    """Each row's quaternion (`F.quat_from_euler` of its angles; `NO_ROTATION` where none
    is given), (k, 4); each distinct row of angle bits converted once (-0.0 is not 0.0)."""
    codes, firsts = _row_codes(euler, given)
    if not firsts.size:
        return np.tile(NO_ROTATION, (given.size, 1))
    # F.quat_from_euler's own formula (the same float operations), one distinct row each
    quats = np.array(list(map(quat_from_euler_floats, *euler[firsts].T.tolist())))
    table = np.vstack([quats.reshape(-1, 4), NO_ROTATION])  # code -1: no rotation given
    return table[codes]


def _shared_looks(meshes: list, sizes: np.ndarray, sized: np.ndarray, colors: list) -> list:
    """Each row's `Look`, one object for rows that look the same (looks are replaced,
    never changed in place, once a scene is built); `sizes` (k, 3) where `sized` holds."""
    size_codes, firsts = _row_codes(sizes, sized)
    codes = size_codes.tolist()
    keys = list(zip(meshes, codes, colors))
    known = dict.fromkeys(keys)
    size_of = {codes[row]: tuple(sizes[row].tolist()) for row in firsts.tolist()}
    for key in known:
        mesh, code, color = key
        look = known[key] = Look() if mesh is None else Look(mesh=mesh)
        if code >= 0:
            look.size = size_of[code]
        if color is not None:
            look.color = color
    return list(map(known.__getitem__, keys))


def _row_codes(values: np.ndarray, given: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a small integer per row of the (k, 3) `values`, equal for rows of equal bits (-1
    where not `given`); the first row of each)."""
    codes = np.full(given.size, -1, dtype=np.int64)
    rows = np.flatnonzero(given)
    if not rows.size:
        return codes, rows
    first, codes[rows] = distinct_rows(values[rows])
    return codes, rows[first]


def _meshes_ok(meshes: list) -> np.ndarray:
    """Where a mesh is absent or a built-in mesh's name (each distinct one looked at once
    where all can be hashed)."""
    try:
        odd = {
            x for x in set(meshes) if not (x is None or (type(x) is str and x in BUILTIN_MESHES))
        }
    except TypeError:  # a list or a table among them: one by one
        odd = None
    if odd is not None and not odd:
        return np.ones(len(meshes), dtype=bool)
    return np.array(
        [x is None or (type(x) is str and x in BUILTIN_MESHES) for x in meshes], dtype=bool
    )


def _in_range(array: np.ndarray, quantity: str, *, nonzero=False, positive=False) -> np.ndarray:
    """Which rows of the (k, 3) `array` are finite and within `RANGES[quantity]` (and
    non-zero, or positive, where asked)."""
    rng = RANGES[quantity]
    magnitude = np.abs(array)
    good = np.isfinite(array) & (magnitude <= rng.high) & (magnitude >= rng.low)
    if nonzero:
        good &= array != 0.0
    if positive:
        good &= array > 0.0
    return good.all(axis=1)


def _quaternion(euler: tuple[float, float, float], known: dict) -> np.ndarray:
    """`F.quat_from_euler` of `euler`, one read-only array for equal angles."""
    key = struct.pack("3d", *euler)
    q = known.get(key)
    if q is None:
        q = known[key] = np.array(quat_from_euler_floats(*euler))
        q.flags.writeable = False
    return q


def _column(tables, key, quantity, ok, *, collapse=False, nonzero=False, positive=False):
    """Each table's `key` as a tuple of 3 floats (None: absent), as `F.vector` (or, with
    `collapse`, `F.vector_or_number`) gives it; clears `ok` where a value is not 3 finite
    numbers within `RANGES[quantity]` (and non-zero, or positive, where asked)."""
    values = [t.get(key) for t in tables]
    out: list[tuple[float, ...] | None] = [None] * len(values)
    rows = [k for k, v in enumerate(values) if v is not None]
    if not rows:
        return out
    shaped = []
    for k in rows:
        v = values[k]
        if type(v) is list and len(v) == 3 and _NUMBER_TYPES.issuperset(map(type, v)):
            shaped.append(v)
        elif collapse and type(v) in _NUMBER_TYPES:
            shaped.append([v, v, v])
        else:
            ok[k] = False
            shaped.append([0.0, 0.0, 0.0])
    try:
        tuples = [tuple(map(float, v)) for v in shaped]
    except OverflowError:  # an integer too large for a float: parse_node names it
        ok[rows] = False
        return out
    array = np.array(tuples, dtype=np.float64).reshape(len(rows), 3)
    ok[rows] &= _in_range(array, quantity, nonzero=nonzero, positive=positive)
    for k, t in zip(rows, tuples, strict=True):
        out[k] = t
    return out


def _colors(values: list, ok: np.ndarray) -> list:
    """Each colour as `F.color` reads a ``#rgb`` or ``#rrggbb`` string (each distinct one
    read once); clears `ok` where it is anything else."""
    try:
        distinct = set(values)
    except TypeError:  # a list or a table among them: by identity (not a colour anyway)
        values = list(map(_hashable, values))
        distinct = set(values)
    where = F.Where("", None, "node", 0)  # its errors are only caught
    known: dict = {None: None}
    for v in distinct - {None}:
        try:
            known[v] = F.color(where, "color", v) if type(v) is str else _NOT_A_COLOR
        except SceneError:
            known[v] = _NOT_A_COLOR
    out = list(map(known.__getitem__, values))
    if any(c is _NOT_A_COLOR for c in known.values()):
        bad = np.array([c is _NOT_A_COLOR for c in out], dtype=bool)
        ok &= ~bad
        out = [None if c is _NOT_A_COLOR else c for c in out]
    return out


def _hashable(value: object) -> object:
    """`value` as a dict key: a string or None as it is, anything else (a list, a table)
    by its identity, since only strings are colours."""
    return value if value is None or type(value) is str else ("not a string", id(value))
