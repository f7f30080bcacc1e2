"""Editing through the window's input path with events in the orders a person makes
them, not only a test's tidy one: Ctrl+Z in the middle of a gizmo drag, a movement key
let go in the middle of one. Whatever the order, every change the user sees is in the
undo history: undo then redo gives back exactly what was on show."""

from __future__ import annotations

from pathlib import Path

import app_driver
import example_graphs
import numpy as np
from moderngl_window.context.base import KeyModifiers
from overlay_helpers import tree10

import viewer.gizmo as gizmo
from viewer.embed.api import scene_for
from viewer.io.loader import load_scene
from viewer.scene import SceneGraph
from viewer.session.commands import AddChild, Delete, Duplicate, SetField

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def key(d, name: str, down: bool, ctrl: bool = False) -> None:
    keys = d.window.keys
    mods = KeyModifiers()
    mods.ctrl = ctrl
    action = keys.ACTION_PRESS if down else keys.ACTION_RELEASE
    d.app.on_key_event(getattr(keys, name), action, mods)


class AxisDragger:
    """A drag along the x handle of ``node``'s gizmo, one step at a time."""

    def __init__(self, d, node, pixels: float = 80.0, steps: int = 8) -> None:
        self.d, self.steps = d, steps
        size = tuple(d.app.wnd.size)
        radius = gizmo.node_radius(d.app.bounds, node.id)
        view_proj = d.app.camera.view_projection(size)
        h = gizmo.handles(node.world_matrix, view_proj, size, False, radius)
        self.start = h.origin + 0.8 * (h.tips[0] - h.origin)
        unit = (h.tips[0] - h.origin) / np.linalg.norm(h.tips[0] - h.origin)
        self.end = self.start + unit * pixels
        self.k = 0

    def press(self) -> None:
        x, y = (int(v) for v in self.start)
        self.d.app.on_mouse_position_event(x, y, 0, 0)
        self.d.app.on_mouse_press_event(x, y, 1)

    def move(self, n: int) -> None:
        for _ in range(n):
            self.k += 1
            p = self.start + (self.end - self.start) * self.k / self.steps
            self.d.app.on_mouse_drag_event(int(p[0]), int(p[1]), 0, 0)
            self.d.frame()

    def release(self) -> None:
        self.d.app.on_mouse_release_event(int(self.end[0]), int(self.end[1]), 1)
        self.d.frame()


def setup(drive):
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    node = session.graph["Obj5"]
    session.select(node.id)
    d.frame()
    return d, session, node


def assert_undo_redo_gives_back(d, session, node) -> None:
    shown = node.local_position.copy()
    assert session.editing.history.done, "the drag left no undo step"
    session.editing.undo()
    d.frame()
    session.editing.redo()
    d.frame()
    np.testing.assert_array_equal(node.local_position, shown)


def test_ctrl_z_in_the_middle_of_a_gizmo_drag_leaves_the_rest_of_it_undoable(drive):
    d, session, node = setup(drive)
    before = node.local_position.copy()
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(3)
    key(d, "Z", True, ctrl=True)  # undo while the button is still down
    key(d, "Z", False, ctrl=True)
    np.testing.assert_array_equal(node.local_position, before)
    drag.move(5)  # the drag goes on: the node follows the mouse again
    drag.release()
    assert not np.array_equal(node.local_position, before)
    assert_undo_redo_gives_back(d, session, node)
    session.editing.undo()
    np.testing.assert_array_equal(node.local_position, before)


def test_a_movement_key_let_go_in_the_middle_of_a_gizmo_drag_leaves_it_undoable(drive):
    d, session, node = setup(drive)
    before = node.local_position.copy()
    key(d, "H", True)  # held first: its step is open when the drag starts
    d.frame(2)
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(3)
    key(d, "H", False)  # let go while the drag goes on
    d.frame()
    drag.move(5)
    drag.release()
    assert_undo_redo_gives_back(d, session, node)
    while session.editing.history.done:
        session.editing.undo()
    np.testing.assert_array_equal(node.local_position, before)


def centre(rect):
    (x0, y0), (x1, y1) = rect
    return (x0 + x1) / 2, (y0 + y1) / 2


def test_numbers_typed_for_one_node_are_not_committed_to_the_row_clicked_next(drive, monkeypatch):
    """Typing into a node's field, then clicking another node's row in the tree: the
    click ends the typing (a commit) and selects that row in the same frame; the typed
    numbers belong to the node they were typed for, not to the new selection."""
    monkeypatch.setattr(app_driver, "SIZE", (800, 1000))  # the tree and the fields in view
    d, session, typed_for = setup(drive)
    g = session.graph
    other = g["Obj2"]
    edit = d.app.overlay.panel.scene.edit
    edit.open_next = True
    d.frame(3)
    before = {n.name: n.local_position.copy() for n in g}
    x0 = edit.field_rects["local_position"][0]
    d.click(x0.x + 6, x0.y + 6)  # into the first number's text
    for char in "3":
        d.app.on_unicode_char_entered(char)
        d.frame()
    assert d.app.overlay.wants_keyboard  # the field has the keyboard
    d.click(*centre(d.app.overlay.panel.scene.tree.row_rects[other.id]))
    assert session.selected == other.id
    np.testing.assert_array_equal(other.local_position, before["Obj2"])
    assert not np.array_equal(typed_for.local_position, before["Obj5"])
    assert before["Obj5"][1:].tolist() == [0.0, 0.0]  # what the step's name shows
    assert session.editing.history.labels()[0] == ["move Obj5 to (3, 0, 0)"]


def test_ctrl_z_while_a_tree_row_is_dragged_takes_that_node_away_and_the_drop_does_nothing(
    drive,
):
    """The dragged row's node is removed by an undo (of its adding) while the button is
    still down: the drop that follows edits nothing and the viewer goes on."""
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    g = session.graph
    added = session.editing.run(AddChild(g["Obj2"].id))  # selected: its row is shown
    d.frame(3)
    tree = d.app.overlay.panel.scene.tree
    start, end = centre(tree.row_rects[added]), centre(tree.row_rects[g["Obj3"].id])
    app = d.app
    app.on_mouse_position_event(int(start[0]), int(start[1]), 0, 0)
    d.frame()
    app.on_mouse_press_event(int(start[0]), int(start[1]), 1)
    d.frame()
    for k in range(1, 7):
        x = start[0] + (end[0] - start[0]) * k / 6
        y = start[1] + (end[1] - start[1]) * k / 6
        app.on_mouse_drag_event(int(x), int(y), 0, 0)
        app.on_mouse_position_event(int(x), int(y), 0, 0)
        d.frame()
        if k == 3:
            key(d, "Z", True, ctrl=True)
            key(d, "Z", False, ctrl=True)
    assert added not in set(g.alive_ids().tolist())
    before = [g.parents().tolist(), g.alive_ids().tolist()]
    app.on_mouse_release_event(int(end[0]), int(end[1]), 1)
    d.frame(2)
    assert [g.parents().tolist(), g.alive_ids().tolist()] == before
    assert "no longer in the scene" in session.messages.edit


def test_ctrl_z_that_takes_away_the_node_being_dragged_by_its_gizmo(drive):
    """The node on the gizmo was just added; Ctrl+Z in the middle of its drag removes it:
    the rest of the drag moves nothing and the viewer goes on."""
    d, session, _ = setup(drive)
    g = session.graph
    added = g.node(session.editing.run(AddChild(g["Obj5"].id)))
    d.frame()
    drag = AxisDragger(d, added)
    drag.press()
    drag.move(3)
    assert session.editing.history.recording  # the gizmo has it
    key(d, "Z", True, ctrl=True)  # undoes the drag so far
    key(d, "Z", True, ctrl=True)  # and the adding: the node is gone
    assert not added.alive
    drag.move(5)
    drag.release()
    assert not added.alive and session.selected is None


def test_a_reload_in_the_middle_of_a_gizmo_drag_leaves_the_new_scene_alone(drive):
    d, session, node = setup(drive)
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(3)
    d.reload(scene_for(tree10()))  # what a live reload does
    new = session.graph
    before = new.local_values()[0].copy()
    drag.move(5)
    drag.release()
    np.testing.assert_array_equal(new.local_values()[0], before)
    assert session.editing.history.labels() == ([], [])


def test_an_undo_while_paused_shows_and_glows_at_once(drive):
    d, session, node = setup(drive)
    key(d, "SPACE", True)  # pause
    key(d, "SPACE", False)
    assert session.paused
    before = node.local_position.copy()
    session.editing.run(SetField(node.id, "local_position", (0.5, 0.25, 0.0)))
    d.frame()
    key(d, "Z", True, ctrl=True)
    key(d, "Z", False, ctrl=True)
    d.frame()
    np.testing.assert_array_equal(node.local_position, before)
    assert node.id in session.last_report.local_updated.tolist()
    np.testing.assert_array_equal(node.world_matrix, d.app.renderer.graph.world_matrices()[node.id])
    assert d.app.renderer.glow.kinds(np.array([node.id]))[0] == -1  # red: its own change


def test_format_characters_in_names_are_shown_as_they_are(drive):
    """Names come from files: a name full of printf directives is text, in the tree, the
    inspector's history and the message line."""
    g0 = tree10()
    weird = "%s%n%x%s%%d\u202e"
    g0.add(weird, g0["Obj2"])
    d = drive(scene_for(g0), still=True)
    d.frame(2)
    session = d.app.session
    node = session.graph[weird]
    session.select(node.id)
    session.editing.run(SetField(node.id, "local_position", (0.5, 0.0, 0.0)))
    session.editing.run(Duplicate(node.id))
    d.app.overlay.panel.scene.edit.open_next = True
    d.frame(3)
    assert any(name.startswith("%s%n%x") for name, _ in d.app.overlay.panel.scene.tree.tree_drawn)


def test_another_button_pressed_during_a_gizmo_drag_leaves_it_one_closed_step(drive):
    """The right button pressed and let go while the left drags the gizmo: the drag goes
    on, and the left button's release still closes its undo step."""
    d, session, node = setup(drive)
    before = node.local_position.copy()
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(2)
    x, y = (int(v) for v in drag.start)
    d.app.on_mouse_press_event(x, y, 2)  # right button down too
    drag.move(2)
    d.app.on_mouse_release_event(x, y, 2)
    drag.move(2)
    shown = node.local_position.copy()
    drag.release()
    assert not session.editing.history.recording  # the step is closed
    np.testing.assert_array_equal(node.local_position, shown)
    assert session.editing.history.labels()[0] == ["move Obj5 along x"]
    assert_undo_redo_gives_back(d, session, node)
    session.editing.undo()
    np.testing.assert_array_equal(node.local_position, before)


def test_a_gizmo_drag_whose_release_was_lost_closes_at_the_next_press(drive):
    """The window never got the button's release (it went up outside, the focus went
    away): the next left press closes that drag's undo step and starts afresh."""
    d, session, node = setup(drive)
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(4)  # no release
    far = drag.start + np.array([0.0, 150.0])
    d.app.on_mouse_press_event(int(far[0]), int(far[1]), 1)
    assert not session.editing.history.recording
    assert session.editing.history.labels()[0] == ["move Obj5 along x"]
    d.app.on_mouse_release_event(int(far[0]), int(far[1]), 1)
    d.frame()
    assert session.editing.history.labels()[0] == ["move Obj5 along x"]


def test_a_movement_key_let_go_while_a_field_has_the_keyboard_stops_the_move(drive, monkeypatch):
    """H held, then a click into an inspector field (which takes the keyboard), then H
    let go: the release must still reach the held keys, or the node moves on for ever."""
    monkeypatch.setattr(app_driver, "SIZE", (800, 1000))
    d, session, node = setup(drive)
    edit = d.app.overlay.panel.scene.edit
    edit.open_next = True
    d.frame(3)
    key(d, "H", True)
    d.frame(2)
    x0 = edit.field_rects["local_scale"][0]
    d.click(x0.x + 6, x0.y + 6)
    assert d.app.overlay.wants_keyboard
    key(d, "H", False)
    d.frame()
    still = node.local_position.copy()
    d.frame(3)
    np.testing.assert_array_equal(node.local_position, still)
    assert not session.editing.history.recording  # the hold's step is closed


def test_edits_while_paused_show_without_the_scene_clock_moving_on(drive):
    """Paused with the motion on: a gizmo drag, an undo and a redo each show (and glow)
    at once, but the scene's time stands still: the moving nodes stay where they are.
    The Step key still moves the clock one frame on."""
    d = drive(load_scene(SCENES / "solar_system.toml"), still=False)
    d.frame(2)
    session = d.app.session
    graph = session.graph
    node = graph.node(0)
    session.select(node.id)
    key(d, "SPACE", True)
    key(d, "SPACE", False)
    d.frame()
    time, worlds = session.time, graph.world_matrices().copy()
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(8)
    assert d.app.renderer.glow.kinds(np.array([node.id]))[0] == -1  # shown, red
    drag.release()
    for name in ("Z", "Z"):
        key(d, name, True, ctrl=True)
        key(d, name, False, ctrl=True)
        d.frame()
    assert session.time == time
    np.testing.assert_array_equal(graph.world_matrices(), worlds)  # undone, nothing moved on
    key(d, "PERIOD", True)
    key(d, "PERIOD", False)
    d.frame()
    assert session.time > time


def test_a_release_or_drag_with_no_press_before_it_is_ignored(drive):
    """The window can get a button's release (or a drag) whose press it never saw: the
    second click of a double-click that closed the Ctrl+O dialog over it, a window that
    opened under a held button."""
    d = drive(scene_for(tree10()), still=True)
    d.frame()
    d.app.on_mouse_drag_event(300, 200, 5, 0)
    d.app.on_mouse_release_event(300, 200, 1)
    d.frame()
    assert d.app.session.selected is None


def test_a_key_hold_let_go_while_paused_is_its_own_step(drive):
    """H held, Space, H let go: no frame runs while paused, yet the hold's undo step ends
    with the key (it stayed open and swallowed the next drag, with Undo greyed out)."""
    d, session, node = setup(drive)
    key(d, "H", True)
    d.frame(3)
    key(d, "SPACE", True)
    key(d, "SPACE", False)
    key(d, "H", False)
    d.frame()
    assert not session.editing.history.recording
    assert session.editing.history.labels()[0] == ["move Obj5"]
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(4)
    drag.release()
    assert session.editing.history.labels()[0] == ["move Obj5", "move Obj5 along x"]


def test_a_row_dragged_when_the_scene_is_replaced_edits_nothing_in_the_new_one(drive):
    """A live reload (or an opened file) while a tree row is dragged: the dragged id was
    the old scene's; dropped on the new scene's rows it names some other node there."""
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    g = session.graph
    session.select(g["Obj8"].id)  # its row is shown
    d.frame(3)
    tree = d.app.overlay.panel.scene.tree
    start, end = centre(tree.row_rects[g["Obj8"].id]), centre(tree.row_rects[g["Obj3"].id])
    app = d.app
    app.on_mouse_position_event(int(start[0]), int(start[1]), 0, 0)
    d.frame()
    app.on_mouse_press_event(int(start[0]), int(start[1]), 1)
    d.frame()
    for k in range(1, 7):
        x = start[0] + (end[0] - start[0]) * k / 6
        y = start[1] + (end[1] - start[1]) * k / 6
        app.on_mouse_drag_event(int(x), int(y), 0, 0)
        app.on_mouse_position_event(int(x), int(y), 0, 0)
        d.frame()
        if k == 3:
            other = SceneGraph()  # the file saved meanwhile: other nodes, same ids
            root = other.add("Root")
            for j in range(1, 10):
                other.add(f"N{j}", root if j < 5 else other[f"N{j - 4}"])
            other.update()
            d.reload(scene_for(other))  # what a live reload does
    new = session.graph
    before = new.parents().tolist()
    app.on_mouse_release_event(int(end[0]), int(end[1]), 1)
    d.frame(2)
    assert new.parents().tolist() == before
    assert session.editing.history.labels() == ([], [])
    assert "replaced" in d.app.overlay.panel.scene.tree.drop_refused


def test_a_deleted_node_brought_back_by_undo_can_be_picked_and_touched(drive):
    d = drive(scene_for(example_graphs.tree10(offset=(1.5, 0.0, 0.0))), still=True)
    d.frame(2)
    session = d.app.session
    node = session.graph["Obj9"]
    x, y = d.app.camera.project(node.world_position, tuple(d.app.wnd.size))[0, :2]
    d.click(x, y)
    picked = session.selected  # what a click there picks (siblings share the spot)
    assert picked is not None
    session.editing.run(Delete(picked))
    d.frame()
    assert session.selected is None  # the selection went with it
    key(d, "Z", True, ctrl=True)
    key(d, "Z", False, ctrl=True)
    d.frame(2)
    d.click(x, y)
    assert session.selected == picked
    key(d, "T", True)
    key(d, "T", False)
    d.frame()
    assert picked in session.last_report.local_updated.tolist()
    assert d.app.renderer.glow.kinds(np.array([picked]))[0] == -1


def test_a_movement_key_tapped_while_paused_moves_the_selection_at_once(drive):
    """Paused, a K tapped and let go moves the node selected then, at once (README: an
    edit while paused shows at once); a later step does not move whatever node is
    selected by then (the newcomer's re-trial saw Obj2 move at the step after a tap on
    Obj4)."""
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    session = d.app.session
    session.toggle_pause()
    d.frame()
    obj4, obj2 = session.graph["Obj4"], session.graph["Obj2"]
    start4, start2 = obj4.local_position.copy(), obj2.local_position.copy()
    session.select(obj4.id)
    key(d, "K", True)
    key(d, "K", False)
    d.frame()
    assert not np.array_equal(obj4.local_position, start4)  # moved at once
    moved4 = obj4.local_position.copy()
    session.select(obj2.id)
    session.request_step()  # "." : one step
    d.frame(2)
    np.testing.assert_array_equal(obj2.local_position, start2)
    np.testing.assert_array_equal(obj4.local_position, moved4)


def test_a_movement_key_tapped_with_nothing_selected_moves_nothing_later(drive):
    """Paused with nothing selected, K tapped and let go moves nothing; a node selected
    afterwards is not moved by the step that follows (the third trial saw Obj3 move at
    the '.' after a K tapped before it was selected). Running, the same."""
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    session = d.app.session
    obj3 = session.graph["Obj3"]
    start = obj3.local_position.copy()
    for paused in (True, False):
        if paused != session.paused:
            session.toggle_pause()
        d.frame()
        session.select(None)
        key(d, "K", True)
        key(d, "K", False)
        d.frame()
        session.select(obj3.id)
        if paused:
            session.request_step()  # "."
        d.frame(3)
        np.testing.assert_array_equal(obj3.local_position, start)


def test_the_edit_line_names_a_gizmo_drag_and_a_key_hold_once_done(drive):
    """The Edit section's line names the last edit: after a drag it still named the edit
    before it (the second newcomer trial); a key hold too, as every command does."""
    d, session, node = setup(drive)
    session.editing.run(SetField(node.id, "local_scale", (1.0, 1.0, 2.0)))
    assert session.messages.edit == "scale Obj5 to (1, 1, 2)"
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(4)
    drag.release()
    done = session.editing.history.done[-1].label
    assert done.startswith("move Obj5") and session.messages.edit == done
    key(d, "K", True)
    d.frame(2)
    key(d, "K", False)
    d.frame()
    assert session.messages.edit == session.editing.history.done[-1].label == "move Obj5"
    assert len(session.editing.history.done) == 3


def test_the_edit_line_names_the_step_in_progress_while_it_goes_on(drive):
    """During a key hold or a drag the line named the edit before it until the step
    ended (the fourth newcomer trial held K and read a stale outcome): it names the step
    in progress (the Edit section draws that line), then the step once done."""
    d, session, node = setup(drive)
    session.editing.run(SetField(node.id, "local_scale", (1.0, 1.0, 2.0)))
    key(d, "K", True)
    for _ in range(3):
        d.frame()
        assert session.messages.edit == "move Obj5 (keys held: one step when let go)"
    key(d, "K", False)
    d.frame()
    assert session.messages.edit == "move Obj5" == session.editing.history.done[-1].label
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(4)
    label = session.editing.history.open_label
    assert label.startswith("move Obj5") and label != "move Obj5"
    assert session.messages.edit == f"{label} (dragging: one step at the release)"
    drag.release()
    assert session.messages.edit == session.editing.history.done[-1].label == label


def test_a_drag_back_to_where_it_began_says_it_changed_nothing(drive):
    """The in-progress line never outlives its step: a drag that ends where it began
    records no step, and the line says so instead of naming a drag still going on."""
    d, session, node = setup(drive)
    start = node.local_position.copy()
    drag = AxisDragger(d, node)
    drag.press()
    drag.move(3)
    assert session.messages.edit.endswith("(dragging: one step at the release)")
    x, y = (int(v) for v in drag.start)
    d.app.on_mouse_drag_event(x, y, 0, 0)  # back to the press
    d.frame()
    d.app.on_mouse_release_event(x, y, 1)
    d.frame()
    np.testing.assert_array_equal(node.local_position, start)
    assert not session.editing.history.done
    assert session.messages.edit.endswith(": nothing changed"), session.messages.edit
