"""The notebook widget's input: jupyter_rfb's event dicts reach the app's own handlers
(the window's code path): click to select, the key table, orbit, pan, zoom, the panels,
resize. Driven in Python, no browser (tests/notebook/test_browser.py has the browser)."""

from __future__ import annotations

import numpy as np
import pytest
from widget_helpers import (
    DrawRequests,
    click,
    drag,
    glow_red_share,
    key,
    make,
    pointer,
    screen_of,
)

pytestmark = pytest.mark.usefixtures("egl", "rfb")


@pytest.fixture(scope="module")
def widget(egl, rfb):
    w = make()
    yield w
    w.close()


def test_a_click_on_a_node_selects_it_and_empty_space_clears(widget):
    x, y = screen_of(widget, "Obj4")
    click(widget, x, y)
    assert widget.session.selected == widget.session.graph["Obj4"].id
    widget.get_frame()
    assert "Obj4" in widget.title  # the page's title names the selection, as the window's
    click(widget, widget.image.shape[1] - 3, widget.image.shape[0] - 3)
    assert widget.session.selected is None


def test_t_touches_the_selected_node_and_it_glows(widget):
    graph = widget.session.graph
    widget.session.select(graph["Obj2"].id)
    key(widget, "t")
    widget.get_frame()
    report = widget.session.last_report
    assert report.local_updated.tolist() == [graph["Obj2"].id]
    assert sorted(report.world_updated.tolist()) == sorted([graph["Obj2"].id, graph["Obj5"].id])
    ids, strengths = widget.app.renderer.glow.glowing()
    glowing = dict(zip(ids.tolist(), strengths.tolist()))
    assert glowing[graph["Obj2"].id] < 0 < glowing[graph["Obj5"].id]  # red own, orange followed
    assert glow_red_share(widget.image, *screen_of(widget, "Obj2")) > 0.5  # shown red
    assert glow_red_share(widget.image, *screen_of(widget, "Obj4")) == 0


def test_space_pauses_and_period_steps_one_frame(widget):
    paused = widget.session.paused
    key(widget, " ")
    assert widget.session.paused is not paused
    if not widget.session.paused:
        key(widget, " ")
    frame = widget.session.frame
    widget.get_frame()
    assert widget.session.frame == frame  # paused: no simulated frame
    key(widget, ".")
    widget.get_frame()
    assert widget.session.frame == frame + 1
    key(widget, " ")
    assert not widget.session.paused


def test_held_movement_key_moves_the_selection_until_released(widget):
    node = widget.session.graph["Obj3"]
    widget.session.select(node.id)
    x0 = node.local_position[0]
    widget.handle_event({"type": "key_down", "key": "l", "modifiers": ()})
    for _ in range(3):
        widget.get_frame()
    widget.handle_event({"type": "key_up", "key": "l", "modifiers": ()})
    moved = node.local_position[0] - x0
    assert moved == pytest.approx(0.15)  # 0.05 per frame, three frames
    widget.get_frame()
    widget.get_frame()
    assert node.local_position[0] - x0 == pytest.approx(moved)  # released: it stays


def test_shift_r_turns_the_other_way(widget):
    widget.session.select(widget.session.graph["Obj3"].id)
    widget.handle_event({"type": "key_down", "key": "R", "modifiers": ("Shift",)})
    assert widget.session.editing.reverse_turn
    widget.handle_event({"type": "key_up", "key": "R", "modifiers": ("Shift",)})
    widget.handle_event({"type": "key_down", "key": "r", "modifiers": ()})
    assert not widget.session.editing.reverse_turn
    widget.handle_event({"type": "key_up", "key": "r", "modifiers": ()})


def test_view_keys_reach_the_renderer_and_overlay(widget):
    view, overlay = widget.app.settings, widget.app.overlay
    grid, links, names, panels = (
        view.show_grid,
        view.show_links,
        overlay.show_names,
        overlay.visible,
    )
    for name in ("g", "b", "n", "Tab"):
        key(widget, name)
    assert (view.show_grid, view.show_links) == (not grid, not links)
    assert (overlay.show_names, overlay.visible) == (not names, not panels)
    for name in ("g", "b", "n", "Tab"):
        key(widget, name)
    key(widget, "?")
    assert overlay.show_help
    key(widget, "F1")
    assert not overlay.show_help


def test_escape_does_not_close_the_view(widget):
    key(widget, "Escape")
    assert not widget._window.is_closing  # noqa: SLF001 - the window is the widget's own
    assert widget.get_frame() is not None


def test_left_drag_orbits_and_a_drag_is_no_click(widget):
    widget.session.select(None)  # a selected node's gizmo would take the drag
    camera = widget.app.camera
    yaw, pitch, selected = camera.yaw, camera.pitch, widget.session.selected
    x, y = screen_of(widget, "Obj3")
    drag(widget, (x, y), (x + 60, y + 20))
    assert camera.yaw != yaw and camera.pitch != pitch
    assert widget.session.selected == selected  # a drag selects nothing
    key(widget, "Home")
    assert (camera.yaw, camera.pitch) == pytest.approx((yaw, pitch))


@pytest.mark.parametrize("how", ["right", "shift"])
def test_right_drag_or_shift_drag_pans(widget, how):
    widget.session.select(None)  # a selected node's gizmo would take the drag
    camera = widget.app.camera
    target, yaw = camera.target.copy(), camera.yaw
    button, modifiers = (2, ()) if how == "right" else (1, ("Shift",))
    drag(widget, (400, 200), (440, 230), button=button, modifiers=modifiers)
    assert not np.allclose(camera.target, target)
    assert camera.yaw == yaw
    key(widget, "Home")


def test_wheel_zooms_one_step_per_notch(widget):
    camera = widget.app.camera
    distance = camera.distance
    widget.handle_event(
        {"type": "wheel", "x": 400, "y": 200, "dx": 0, "dy": -100, "modifiers": (), "buttons": ()}
    )
    assert camera.distance == pytest.approx(distance * 0.9)  # up: closer, as the window
    widget.handle_event(
        {"type": "wheel", "x": 400, "y": 200, "dx": 0, "dy": 100, "modifiers": (), "buttons": ()}
    )
    assert camera.distance == pytest.approx(distance)


def test_a_click_on_a_panel_button_is_the_panels(egl, rfb):
    """ImGui gets the pointer: the panel's Pause button pauses, and the click behind it
    selects nothing (the button sits below the scene line, at y 71 at 640x360)."""
    w = make()
    try:
        w.get_frame()
        w.handle_event(pointer("pointer_move", 30, 71, 0, ()))
        w.get_frame()
        w.handle_event(pointer("pointer_down", 30, 71, 1, (1,)))
        w.get_frame()
        w.handle_event(pointer("pointer_up", 30, 71, 1, ()))
        w.get_frame()
        assert w.session.paused
        assert w.session.selected is None
    finally:
        w.close()


def test_resize_resizes_the_frame_and_picking_follows(egl, rfb):
    w = make(size=(640, 360))
    try:
        w.handle_event({"type": "resize", "width": 500, "height": 420, "ratio": 1.0})
        image = w.get_frame()
        assert image.shape == (420, 500, 3)
        x, y = screen_of(w, "Obj3")
        click(w, x, y)
        assert w.session.selected == w.session.graph["Obj3"].id
    finally:
        w.close()


def test_a_cell_s_change_shows_after_the_cell(egl, rfb):
    """The graph changed outside the view (a cell) is the next frame's change."""
    w = make()
    try:
        requests = DrawRequests(w)
        graph = w.session.graph
        graph["Obj4"].local_position = (5, -3, 0)
        from viewer.embed.widget import _redraw_live_widgets  # what the kernel's hook runs

        _redraw_live_widgets()
        assert requests.take() == 1
        w.get_frame()
        assert w.session.last_report.local_updated.tolist() == [graph["Obj4"].id]
    finally:
        w.close()


@pytest.mark.parametrize("command", ["Control", "Meta"])
def test_ctrl_z_undoes_and_ctrl_shift_z_redoes_a_held_key_move(egl, rfb, command):
    """The editing keys arrive with their modifiers (a Mac's Cmd counts as Ctrl)."""
    w = make()
    try:
        node = w.session.graph["Obj3"]
        w.session.select(node.id)
        x0 = node.local_position.copy()
        w.handle_event({"type": "key_down", "key": "l", "modifiers": ()})
        for _ in range(3):
            w.get_frame()
        w.handle_event({"type": "key_up", "key": "l", "modifiers": ()})
        w.get_frame()
        assert node.local_position - x0 == pytest.approx([0.15, 0, 0])
        key(w, "z", (command,))
        w.get_frame()
        assert node.local_position == pytest.approx(x0)
        key(w, "Z", (command, "Shift"))
        w.get_frame()
        assert node.local_position - x0 == pytest.approx([0.15, 0, 0])
    finally:
        w.close()


def test_f_frames_the_scene_and_o_switches_the_projection(widget):
    camera = widget.app.camera
    key(widget, "f")
    framed = camera.distance
    widget.handle_event({"type": "wheel", "x": 400, "y": 200, "dx": 0, "dy": -300,
                         "modifiers": (), "buttons": ()})  # fmt: skip
    assert camera.distance < framed
    key(widget, "f")
    assert camera.distance == pytest.approx(framed)
    projection = camera.projection
    key(widget, "o")
    assert camera.projection != projection
    key(widget, "o")
    assert camera.projection == projection
