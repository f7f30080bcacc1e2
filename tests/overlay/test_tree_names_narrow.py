"""Every tree row shows a readable start of its name (issue 34, the second newcomer
trial: at the notebook's 640x360 the third-level rows of tree10 read only "..."): the
indent per level shrinks, and deep rows line up, so that the deepest row keeps room for
a few characters of its name; the whole name is in the row's tooltip."""

from __future__ import annotations

import app_driver
from hypothesis import given
from hypothesis import strategies as st
from imgui_bundle import imgui
from overlay_helpers import tree10

from viewer.embed.api import scene_for
from viewer.overlay.tree_view import LEAST_INDENT, NAME_START_CHARS, row_indent


@given(
    depth=st.integers(0, 200),
    extra=st.integers(0, 200),
    column=st.floats(0.0, 2000.0),
    name_room=st.floats(1.0, 200.0),
    normal=st.floats(LEAST_INDENT, 40.0),
)
def test_row_indent_keeps_room_for_the_name(depth, extra, column, name_room, normal):
    deepest = depth + extra
    pad = row_indent(depth, deepest, column, name_room, normal)
    assert 0.0 <= pad <= depth * normal + 1e-9
    assert column - pad >= min(column, name_room) - 1e-9  # room left for the name
    if deepest * normal <= column - name_room:  # it fits: ImGui's own indent
        assert pad == depth * normal
    deeper = row_indent(min(depth + 1, deepest), deepest, column, name_room, normal)
    assert deeper >= pad  # a deeper row is never left of a shallower one


def test_deep_rows_show_the_start_of_their_names_at_640(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (640, 360))
    graph = tree10()
    parent = "Obj8"  # already at the third level
    for level in range(8):  # and deeper, with long names
        parent = graph.add(f"joint_level_{level}_with_a_long_name", parent).name
    d = drive(scene_for(graph), still=True)
    monkeypatch.setattr("viewer.overlay.panel.panels_folded", lambda width: (False, False))
    d.frame(3)
    shown: dict[str, str] = {}
    tree_node = imgui.tree_node_ex

    def spy(label, *args, **kwargs):
        text, node_id = label.split("##")
        shown[graph.name_of(int(node_id))] = text
        return tree_node(label, *args, **kwargs)

    monkeypatch.setattr(imgui, "tree_node_ex", spy)
    d.frame()
    assert len(shown) == len(graph)  # every row drew
    for name, text in shown.items():
        start = text.removesuffix("...")
        assert name.startswith(start), (name, text)
        assert len(start) >= min(len(name), NAME_START_CHARS - 1), (name, text)
    assert shown["Obj8"] == "Obj8" and shown["Obj10"] == "Obj10"  # tree10's 3rd level
