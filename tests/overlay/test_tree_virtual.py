"""The tree panel at scale (issue 31, item 4): ImGui's list clipper lays out only the rows
in the table's view, so a frame costs the rows on screen, not the nodes; which rows show
(open rows' children, closed rows' subtrees left out) is checked against a walk of the
pre-order on random hierarchies."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import generate_scene
from viewer.overlay.model import TreeRows
from viewer.overlay.tree_view import visible_rows
from viewer.scene.graph import SceneGraph

#: More rows than the 800x400 test window's table can show at once (about ten).
IN_VIEW = 40


def walked(tree: TreeRows, open_ids: set[int]) -> list[int]:
    """The oracle: walk the pre-order, jumping past the subtree of each closed row."""
    out, r = [], 0
    while r < len(tree):
        out.append(r)
        shut = tree.has_children[r] and int(tree.ids[r]) not in open_ids
        r = int(tree.ends[r]) if shut else r + 1
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_rows_shown_are_the_open_rows_walk(data):
    n = data.draw(st.integers(1, 60))
    parents = [data.draw(st.integers(-1, k - 1)) for k in range(n)]  # roots too
    g = SceneGraph()
    ids = [g.add(f"N{k}", parent=None if p < 0 else g[f"N{p}"]).id for k, p in enumerate(parents)]
    tree = TreeRows(g)
    open_ids = {i for i in ids if data.draw(st.booleans())}
    opened = np.isin(tree.ids, list(open_ids))
    assert visible_rows(tree, opened).tolist() == walked(tree, open_ids)


def test_a_chain_of_a_hundred_thousand_draws_only_the_rows_in_view(drive):
    d = drive(generate_scene("chain:100000"), still=True)
    g, tree = d.app.session.graph, d.app.overlay.panel.scene.tree
    deepest = g["Obj100000"]
    d.app.session.select(deepest.id)  # opens the 99,999 rows above it and scrolls there
    d.frame(3)
    assert len(tree.visible()) == 100000  # every row shows ...
    assert deepest.id in tree.row_rects  # ... the last one can be reached ...
    assert 0 < len(tree.tree_drawn) <= IN_VIEW  # ... and a frame draws those in view
    (x0, y0), (x1, y1) = tree.row_rects[g["Obj99998"].id]
    d.click((x0 + x1) / 2, (y0 + y1) / 2)  # a row in view still selects
    assert d.app.session.selected == g["Obj99998"].id


def test_a_balanced_hundred_thousand_opened_wide_draws_only_the_rows_in_view(drive):
    d = drive(generate_scene("balanced:100000"), still=True)
    g, tree = d.app.session.graph, d.app.overlay.panel.scene.tree
    d.frame()
    assert [name for name, _ in tree.tree_drawn][:2] == ["Obj1", "Obj2"]  # the root opens
    for k in range(1, 74):  # the rows of depths 0, 1 and 2 opened: 585 rows show
        tree.set_open(g[f"Obj{k}"].id, True)
    for name in ("Obj100000", "Obj50000"):  # and two deep paths, by selecting in the view
        d.app.session.select(g[name].id)
        d.frame(2)
        assert g[name].id in tree.row_rects
        assert 0 < len(tree.tree_drawn) <= IN_VIEW
    assert len(tree.visible()) > 585
    tree.set_open(g["Obj1"].id, False)  # the root closed: its subtree goes
    d.frame()
    assert [name for name, _ in tree.tree_drawn] == ["Obj1"]
