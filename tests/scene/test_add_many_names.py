"""``SceneGraph.add_many`` checks a batch's names in bulk (one dict of them, handed to the
store as its name index): it must refuse and accept exactly what a name-by-name check does,
with the same error for the same first bad name, and leave the graph as it was when it
refuses. The reference below is that name-by-name check, in the order the batch gives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from viewer.scene import HierarchyError, SceneGraph

# Few letters, so that duplicates (within the batch and with the graph) and "" are common.
name = st.one_of(
    st.text(alphabet="ab", max_size=2),
    st.sampled_from([None, 3, b"a", 1.5]),
)
batch = st.lists(name, max_size=8)


def _reference(existing: set[str], names: list) -> tuple[type, str] | None:
    """The error a batch of `names` gets, checked one name at a time; None: accepted."""
    for nm in names:
        try:
            hash(nm)
        except TypeError:
            return TypeError, ""
    seen: set = set()
    for nm in names:
        if nm in seen or nm in existing:
            return HierarchyError, f"duplicate node name {nm!r}"
        seen.add(nm)
    for nm in names:
        if not isinstance(nm, str) or not nm:
            return ValueError, f"node names must be non-empty strings, got {nm!r}"
    return None


@given(st.lists(st.text(alphabet="ab", min_size=1, max_size=2), unique=True, max_size=4), batch)
def test_add_many_names_match_a_name_by_name_check(before, names):
    g = SceneGraph()
    if before:
        g.add_many(before, [-1] * len(before))
    expected = _reference(set(before), names)
    if expected is not None:
        kind, message = expected
        with pytest.raises(kind) as raised:
            g.add_many(names, [-1] * len(names))
        if kind is not TypeError:
            assert str(raised.value) == message
        assert len(g) == len(before)  # refused: nothing added, no name taken
        assert [g.name_of(i) for i in range(len(before))] == before
        for nm in before:
            assert g.node(nm).id == before.index(nm)
        return
    ids = g.add_many(names, [-1] * len(names))
    assert ids.tolist() == list(range(len(before), len(before) + len(names)))
    for i, nm in enumerate(before + names):
        assert g.node(nm).id == i and g.name_of(i) == nm


def test_unhashable_name_is_refused_as_before():
    g = SceneGraph()
    with pytest.raises(TypeError):
        g.add_many(["a", ["b"]], [-1, -1])
    assert len(g) == 0
