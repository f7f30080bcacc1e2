"""``SceneGraph.add`` checks its values in plain Python, as the per-node setters do, and
accepts and refuses exactly what the numpy path (``validate.spatial``, ``vector``,
``unit_quaternion``) accepts and refuses, with the same messages.

The reference here is that numpy path, called directly on each generated value; values
are drawn from every kind a caller might hand over: tuples, lists and arrays of plain or
odd numbers (huge ints, bools, strings, complex, numpy scalars, NaN, inf), wrong lengths,
scalars, nested sequences and None inside.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from viewer.scene import SceneGraph, validate
from viewer.scene.math import quat_from_euler

item = st.one_of(
    st.floats(-1e6, 1e6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**6), 10**6),
    st.integers(10**300, 10**320),
    st.booleans(),
    st.sampled_from(["1.5", "x", "", None, 1j, 1 + 0j, b"2", np.float32(2.5), np.int64(7)]),
    st.floats(-10, 10).map(np.float64),
    st.lists(st.floats(-1, 1), max_size=2),
)
sequence = st.lists(item, min_size=0, max_size=5)
value = st.one_of(
    sequence.map(tuple),
    sequence,
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=5).map(np.array),
    st.lists(st.integers(-5, 5), min_size=1, max_size=5).map(np.array),
    st.lists(st.booleans(), min_size=2, max_size=4).map(np.array),
    st.sampled_from([np.ones((3, 1)), np.zeros((1, 4)), np.array(2.0), np.array([1j, 0, 0])]),
    item,
    st.sampled_from(["abc", {"x": 1}, range(3), (x for x in (1.0, 2.0, 3.0))]),
).filter(lambda v: v is not None)  # None means "not given"


def reference(kind: str, v: object) -> tuple:
    """What ``add`` stored for ``v`` before its fast path: the numpy checks."""
    if kind == "position":
        return tuple(validate.spatial(v, 0.0, "A", "position").tolist())
    if kind == "scale":
        return tuple(validate.spatial(v, 1.0, "A", "scale").tolist())
    if kind == "euler":
        return tuple(quat_from_euler(validate.vector(v, 3, "A", "euler")).tolist())
    return tuple(validate.unit_quaternion(v, "A", "rotation").tolist())


def outcome(call) -> tuple:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no numpy warning may escape either path
            return ("ok", call())
    except Exception as error:  # noqa: BLE001 - the kind and words are what is compared
        return ("error", type(error), re.sub(r" at 0x[0-9a-f]+", "", str(error)))


def stored(g: SceneGraph, kind: str) -> tuple:
    pos, rot, scl = (a[0] for a in g.local_values())
    return tuple((pos if kind == "position" else scl if kind == "scale" else rot).tolist())


@pytest.mark.parametrize("kind", ["position", "scale", "euler", "rotation"])
@given(v=value)
def test_add_accepts_and_refuses_as_the_numpy_path(kind, v):
    if hasattr(v, "__next__"):  # a generator is used up by one call: give each its own
        v = (x for x in (1.0, 2.0, 3.0))
        w = (x for x in (1.0, 2.0, 3.0))
    else:
        w = v
    want = outcome(lambda: reference(kind, w))
    g = SceneGraph()
    got = outcome(lambda: stored(g, kind) if g.add("A", **{kind: v}) else None)
    assert got[0] == want[0], (v, got, want)
    if want[0] == "error":
        assert got[1:] == want[1:]
        assert len(g) == 0  # a refused node is not added
    elif kind == "rotation":  # the setters' arithmetic: equal to rounding
        np.testing.assert_allclose(got[1], want[1], rtol=0, atol=4e-16)
    else:
        assert got[1] == want[1]


@given(
    position=st.tuples(*[st.floats(-1e3, 1e3) | st.integers(-9, 9)] * 3),
    scale=st.floats(0.1, 10) | st.tuples(st.floats(0.1, 10), st.floats(0.1, 10)),
    euler=st.lists(st.floats(-360, 360), min_size=3, max_size=3),
)
def test_plain_values_never_reach_numpy(position, scale, euler):
    """Tuples and lists of plain numbers are checked without a numpy conversion and
    without a warnings filter (the per-call cost that made ``add`` 80 us a node)."""

    def refused(*args, **kwargs):
        raise AssertionError("add took the numpy path for plain numbers")

    g = SceneGraph()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validate, "_real", refused)
        patch.setattr(warnings, "catch_warnings", refused)
        root = g.add("R", position=position, scale=scale)
        g.add("C", root, euler=euler, scale=scale)
        g.add("D", "C", rotation=(0.0, 0.0, 0.6, 0.8), position=list(position))
    assert len(g) == 3


def test_add_then_frame_matches_add_many():
    """A tree built node by node has the same links, order and matrices as the same
    tree built in one batch (the per-node append leaves what the batch append leaves)."""
    rng = np.random.default_rng(5)
    n = 300
    parents = np.array([-1] + [int(rng.integers(-1, i)) for i in range(1, n)])
    pos, scl = rng.normal(size=(n, 3)), rng.uniform(0.5, 2, size=(n, 3))
    one, bulk = SceneGraph(), SceneGraph()
    for i in range(n):
        p = None if parents[i] < 0 else f"N{parents[i]}"
        one.add(f"N{i}", p, position=tuple(pos[i]), scale=scl[i].tolist())
    bulk.add_many([f"N{i}" for i in range(n)], parents, positions=pos, scales=scl)
    r1, r2 = one.update(), bulk.update()
    np.testing.assert_array_equal(r1.world_updated, r2.world_updated)
    np.testing.assert_array_equal(one.alive_ids(), bulk.alive_ids())
    np.testing.assert_array_equal(one.world_matrices(), bulk.world_matrices())
