"""`distinct_rows` (viewer/io/distinct.py) against a dict of the rows' bits, and the
writer that formats each distinct row once against the writer that formats every row."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import distinct, generate_scene
from viewer.io import save as S

POOL = [0.0, -0.0, 1.0, 0.5, 1e-300, 5e-324, 1e300, -2.5, float("nan"), -float("nan")]
values = st.one_of(st.sampled_from(POOL), st.floats(allow_nan=False))


@st.composite
def arrays(draw):
    """(k, w) floats with many repeated rows (drawn from a few made rows)."""
    width = draw(st.integers(1, 4))
    made = draw(st.lists(st.lists(values, min_size=width, max_size=width), min_size=1,
                         max_size=5))  # fmt: skip
    rows = draw(st.lists(st.sampled_from(made), min_size=0, max_size=40))
    return np.array(rows, dtype=np.float64).reshape(len(rows), width)


def _by_bits(array: np.ndarray) -> tuple[list[int], list[int]]:
    """The oracle: each row's bits as a tuple, numbered in order of first appearance."""
    seen: dict[tuple, int] = {}
    which = [seen.setdefault(tuple(r), len(seen)) for r in array.view(np.uint64).tolist()]
    firsts = [which.index(j) for j in range(len(seen))]
    return firsts, which


def _check(array: np.ndarray) -> None:
    first, which = distinct.distinct_rows(array)
    firsts, oracle = _by_bits(array)
    assert sorted(first.tolist()) == firsts  # the first row of each, once each
    # the same grouping: rows share an index exactly when their bits are equal
    assert len(set(zip(which.tolist(), oracle, strict=True))) == len(firsts)
    assert (array.view(np.uint64) == array[first[which]].view(np.uint64)).all()


@settings(max_examples=300, deadline=None)
@given(arrays())
def test_distinct_rows_group_rows_by_their_bits(array):
    _check(array)


@settings(max_examples=100, deadline=None)
@given(arrays())
def test_a_hash_collision_is_told_apart_by_the_bits(array):
    original = distinct._MIX
    distinct._MIX = (0, 0, 0, 0)  # every row hashes alike: the bit-for-bit path decides
    try:
        _check(array)
    finally:
        distinct._MIX = original


def test_the_writer_formats_each_distinct_row_once_to_the_same_text(monkeypatch):
    """A chain (its offsets and turns repeat) and a random tree (they do not): the text
    is the text of the writer that formats every row."""
    for spec in ("chain:500", "random:300", "balanced:200"):
        scene = generate_scene(spec)
        fast = S.scene_to_toml(scene)
        with monkeypatch.context() as m:
            m.setattr(S, "distinct_rows", lambda v: (np.arange(len(v)), np.arange(len(v))))
            assert S.scene_to_toml(scene) == fast, spec
