"""Checking a file's [[node]] tables column-wise, with `parse_node` as the oracle.

A scene of a million nodes holds a million tables of the same few plain keys. Checked
one by one (`parse_node`), each costs about 100 µs of Python; here the plain ones
(name, parent, a built-in mesh, a ``#rrggbb`` colour, numbers for position, rotation,
scale and size) are checked a column at a time with numpy, against the same ranges.
Any table this does not vouch for (another key, a value of another shape or out of
range) goes through `parse_node`, in file order, so that an error is raised by the same
code, with the same message, for the same first node as before; the specs of vouched
tables equal what `parse_node` returns (tests/io/test_toml_nodes.py compares them).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from viewer.io import _fields as F
from viewer.io.errors import SceneError
from viewer.io.ranges import RANGES
from viewer.io.toml_plain import PlainNodes
from viewer.io.toml_sections import NO_ROTATION, NodeSpec, parse_node

from ..content.scene import BUILTIN_MESHES, Look
from ..scene.math import quat_from_euler_floats

__all__ = ["NotVouched", "parse_nodes"]

PLAIN_KEYS = frozenset(("name", "parent", "position", "rotation", "scale", "mesh", "size", "color"))
_NUMBER_TYPES = frozenset((int, float))
_NOT_A_COLOR = object()  # bool is not one: TOML booleans are refused


class NotVouched(Exception):
    """A plain block (toml_plain.py) holds a value these checks refuse: the file is read
    again the usual way, so that `parse_node` names the error."""


def parse_nodes(
    items: list,
    display: str,
    locator: F.Locator,
    base_dir: Path,
    plain: PlainNodes | None = None,
) -> list[NodeSpec]:
    """`parse_node` of each item of `items`, the plain ones a column at a time. With
    `plain`, its rows are nodes read from the text (their items are None); raises
    `NotVouched` when one of them fails a check."""
    n = len(items)
    specs: list[NodeSpec | None] = [None] * n
    plain_rows = np.array([type(t) is dict and PLAIN_KEYS.issuperset(t) for t in items], bool)
    rows = np.flatnonzero(plain_rows).tolist()
    tables = [items[r] for r in rows]
    ok = np.ones(len(rows), dtype=bool)
    names = [t.get("name") for t in tables]
    ok &= np.array([type(x) is str and bool(x.strip()) for x in names], dtype=bool)
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
    if plain is not None:
        _fill_plain(specs, plain)
    for row in range(n):  # the rest, in file order: the first error is the first node's
        if specs[row] is None:
            specs[row] = parse_node(items[row], row, display, locator, base_dir)
    return specs


def _fill(specs, rows, ok, names, parents, meshes, colors, position, euler, scale, size):
    """A `NodeSpec` at each row of `rows` whose `ok` holds, from the checked columns."""
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
            row, names[k], parents[k], position[k] or (0.0,) * 3, rotation,
            scale[k] or (1.0, 1.0, 1.0), look,
        )  # fmt: skip


def _fill_plain(specs: list, plain: PlainNodes) -> None:
    """`_fill` for the plain blocks, their numbers checked and handed out a column at a
    time (raises `NotVouched` when a value fails a check)."""
    ok = np.array([x is not None and bool(x.strip()) for x in plain.strings["name"]], bool)
    meshes = plain.strings["mesh"]
    ok &= _meshes_ok(meshes)
    colors = _colors(plain.strings["color"], ok)
    columns = {}
    for key, quantity, checks in (
        ("position", "position", {}), ("rotation", "rotation", {}),
        ("scale", "scale", {"nonzero": True}), ("size", "size", {"positive": True}),
    ):  # fmt: skip
        given = plain.present[key]
        ok[given] &= _in_range(plain.numbers[key][given], quantity, **checks)
        columns[key] = given
    if not ok.all():
        raise NotVouched
    numbers = plain.numbers
    position = np.where(columns["position"][:, None], numbers["position"], 0.0)
    scale = np.where(columns["scale"][:, None], numbers["scale"], 1.0)
    sizes: list = list(map(tuple, numbers["size"].tolist()))
    for row in np.flatnonzero(~columns["size"]).tolist():
        sizes[row] = None
    looks = _shared_looks(meshes, sizes, colors)
    specs_rows = map(NodeSpec, plain.rows.tolist(), plain.strings["name"],
                     plain.strings["parent"], map(tuple, position.tolist()),
                     _rotations(numbers["rotation"], columns["rotation"]),
                     map(tuple, scale.tolist()), looks)  # fmt: skip
    for spec in specs_rows:
        specs[spec.index] = spec


def _rotations(euler: np.ndarray, given: np.ndarray) -> list[np.ndarray]:
    """Each row's quaternion (`F.quat_from_euler` of its angles; `NO_ROTATION` where none
    is given), one read-only array for angles of the same bits (-0.0 is not 0.0 here)."""
    rows = np.flatnonzero(given)
    if not rows.size:
        return [NO_ROTATION] * given.size
    angles = euler[rows]
    bits = angles.view(np.uint64)
    mixed = bits[:, 0] ^ (bits[:, 1] * np.uint64(0x9E3779B97F4A7C15))
    mixed ^= bits[:, 2] * np.uint64(0xC2B2AE3D27D4EB4F)
    _, first, which = np.unique(mixed, return_index=True, return_inverse=True)
    if not (bits == bits[first[which]]).all():  # two angles with one hash: by the bits
        keys = list(map(tuple, bits.tolist()))
        seen: dict[tuple, int] = {}
        which = np.array([seen.setdefault(key, len(seen)) for key in keys])
        first = np.unique(which, return_index=True)[1]
    # F.quat_from_euler's own formula (the same float operations), one distinct row each
    quats = np.array(list(map(quat_from_euler_floats, *angles[first].T.tolist())))
    quats.flags.writeable = False  # and so each row of it
    table = [NO_ROTATION, *quats.reshape(-1, 4)]  # slot 0: no rotation given
    slot = np.zeros(given.size, dtype=np.int64)
    slot[rows] = which.ravel() + 1
    return list(map(table.__getitem__, slot.tolist()))


def _shared_looks(meshes: list, sizes: list, colors: list) -> list[Look]:
    """Each row's `Look`, one object for rows that look the same (looks are replaced,
    never changed in place, once a scene is built)."""
    keys = list(zip(meshes, sizes, colors))
    known = dict.fromkeys(keys)
    for key in known:
        mesh, size, color = key
        look = known[key] = Look() if mesh is None else Look(mesh=mesh)
        if size is not None:
            look.size = size
        if color is not None:
            look.color = color
    return list(map(known.__getitem__, keys))


def _meshes_ok(meshes: list) -> np.ndarray:
    """Where a mesh is absent or a built-in mesh's name."""
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
        q = known[key] = F.quat_from_euler(euler)
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
