"""Clicks shorter than a frame, as a quick hand on a slow machine or a script (xdotool)
makes them: a press and its release between two frames still click a panel's row, and a
move onto a panel with a press in the same frame is the panel's, never the 3D view's
(which would clear the selection)."""

from __future__ import annotations

from overlay_helpers import tree10

from viewer.embed.api import scene_for


def row_centre(d, name: str) -> tuple[float, float]:
    tree = d.app.overlay.panel.scene.tree
    top, bottom = tree.row_rects[d.app.session.graph[name].id]
    return 0.5 * (top.x + bottom.x), 0.5 * (top.y + bottom.y)


def test_a_click_within_one_frame_selects_the_tree_row(drive):
    d = drive(scene_for(tree10()), still=True)
    d.frame(3)
    x, y = row_centre(d, "Obj6")
    app = d.app
    app.on_mouse_position_event(int(x), int(y), 0, 0)
    app.on_mouse_press_event(int(x), int(y), 1)
    app.on_mouse_release_event(int(x), int(y), 1)  # no frame in between
    d.frame(3)
    assert d.app.session.selected == d.app.session.graph["Obj6"].id


def test_a_move_onto_a_panel_and_a_press_in_one_frame_stay_out_of_the_view(drive):
    d = drive(scene_for(tree10()), still=True)
    d.frame(3)
    session = d.app.session
    session.select(session.graph["Obj2"].id)
    d.frame()
    app = d.app
    app.on_mouse_position_event(400, 380, 0, 0)  # over the view (between the panels)
    d.frame()
    assert not app.overlay.wants_mouse  # ImGui last saw the pointer over the view
    x, y = row_centre(d, "Obj2")
    x += 40.0  # the row's empty part, right of the name: clicking it keeps Obj2
    app.on_mouse_position_event(int(x), int(y), 0, 0)
    app.on_mouse_press_event(int(x), int(y), 1)  # ImGui has not drawn a frame since
    assert app.input.view_press is None  # the panel's press: the view does not take it
    app.on_mouse_release_event(int(x), int(y), 1)
    d.frame(2)
    assert session.selected == session.graph["Obj2"].id
