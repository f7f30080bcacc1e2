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
from viewer.io.toml_sections import NO_ROTATION, NodeSpec, parse_node

from ..content.scene import BUILTIN_MESHES, Look

__all__ = ["parse_nodes"]

PLAIN_KEYS = frozenset(("name", "parent", "position", "rotation", "scale", "mesh", "size", "color"))
_NUMBER_TYPES = frozenset((int, float))  # bool is not one: TOML booleans are refused


def parse_nodes(items: list, display: str, locator: F.Locator, base_dir: Path) -> list[NodeSpec]:
    """`parse_node` of each item of `items`, the plain ones a column at a time."""
    n = len(items)
    plain = np.array([type(t) is dict and PLAIN_KEYS.issuperset(t) for t in items], bool)
    rows = np.flatnonzero(plain).tolist()
    tables = [items[r] for r in rows]
    ok = np.ones(len(rows), dtype=bool)
    names = [t.get("name") for t in tables]
    ok &= np.array([type(x) is str and bool(x.strip()) for x in names], dtype=bool)
    parents = [t.get("parent") for t in tables]
    ok &= np.array([x is None or type(x) is str for x in parents], dtype=bool)
    meshes = [t.get("mesh") for t in tables]
    ok &= np.array(
        [x is None or (type(x) is str and x in BUILTIN_MESHES) for x in meshes], dtype=bool
    )
    colors = _colors([t.get("color") for t in tables], ok)
    position = _column(tables, "position", "position", ok)
    euler = _column(tables, "rotation", "rotation", ok)
    scale = _column(tables, "scale", "scale", ok, collapse=True, nonzero=True)
    size = _column(tables, "size", "size", ok, collapse=True, positive=True)

    specs: list[NodeSpec | None] = [None] * n
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
    for row in range(n):  # the rest, in file order: the first error is the first node's
        if specs[row] is None:
            specs[row] = parse_node(items[row], row, display, locator, base_dir)
    return specs


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
    rng = RANGES[quantity]
    magnitude = np.abs(array)
    good = np.isfinite(array) & (magnitude <= rng.high) & (magnitude >= rng.low)
    if nonzero:
        good &= array != 0.0
    if positive:
        good &= array > 0.0
    ok[rows] &= good.all(axis=1)
    for k, t in zip(rows, tuples, strict=True):
        out[k] = t
    return out


def _colors(values: list, ok: np.ndarray) -> list:
    """Each colour as `F.color` reads a ``#rgb`` or ``#rrggbb`` string (each distinct one
    read once); clears `ok` where it is anything else."""
    known: dict[str, tuple[float, float, float] | None] = {}
    where = F.Where("", None, "node", 0)  # its errors are only caught
    out = []
    for k, v in enumerate(values):
        if v is None:
            out.append(None)
            continue
        if type(v) is not str:
            ok[k] = False
            out.append(None)
            continue
        if v not in known:
            try:
                known[v] = F.color(where, "color", v)
            except SceneError:
                known[v] = None
        if known[v] is None:
            ok[k] = False
        out.append(known[v])
    return out
