"""Names are data (docs/api.md, "Names"): any non-empty Python string names a node, and
`add`, `add_many`, `rename`, lookups and snapshots keep it exactly, controls, bidi
overrides, code points this Python does not know and lone surrogates included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from viewer.scene.graph import SceneGraph

#: Any text, surrogates included (st.text() leaves them out by default).
ANY_TEXT = st.text(st.characters(exclude_categories=()), min_size=1)
ODD = ["Robot \U0001fae8", "no\xa0break", "bad\x1b[31mname", "bidi\u202e", "x\ud800", "\u2028"]


@given(st.lists(ANY_TEXT, min_size=1, max_size=6, unique=True), ANY_TEXT)
def test_any_name_is_kept_exactly_through_add_rename_and_restore(names, new):
    g = SceneGraph()
    nodes = [g.add(name, None if k == 0 else names[0]) for k, name in enumerate(names)]
    assert [n.name for n in nodes] == names
    assert all(g[name].id == n.id for name, n in zip(names, nodes, strict=True))
    snapshot = g.snapshot()
    if new not in names:
        g.rename(nodes[-1], new)
        assert g.name_of(nodes[-1].id) == new and g[new].id == nodes[-1].id
    g.restore(snapshot)
    assert [g.name_of(n.id) for n in nodes] == names
    g.update()


def test_the_issue_names_are_accepted_by_add_many():
    g = SceneGraph()
    g.add_many(ODD, [-1] * len(ODD))
    assert [n.name for n in g] == ODD
