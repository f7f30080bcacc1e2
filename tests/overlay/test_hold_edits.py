"""Values that wait: with hold edits on (W, or the Edit section's checkbox) and the scene
paused, an edit writes the node's local value and leaves it and its subtree marked,
pending, with no frame run; `.` executes it, and that frame's report updates exactly the
node and its subtree. Undo works on a held edit; with hold edits off an edit while paused
shows at once, as it always did. Driven through the app's key path in a headless window
(`drive`, tests/overlay/app_driver.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from viewer.io import load_scene
from viewer.keys.controls import MOVE_STEP
from viewer.overlay.edit_panel import HOLD_LABEL

REPO = Path(__file__).resolve().parents[2]
SUBTREE = ("Obj2", "Obj5", "Obj8", "Obj9")  # Obj2 and its subtree in tree10


def tree10():
    scene = load_scene(REPO / "scenes" / "tree10.toml")
    scene.events = []
    return scene


def paused_on_obj2(d, hold: bool):
    d.frame(3)
    d.press("SPACE")
    session = d.app.session
    session.select(session.graph["Obj2"].id)
    if hold:
        d.press("W")
    d.frame()
    return session, session.graph


def ids(g, names) -> list[int]:
    return sorted(g[name].id for name in names)


def test_a_held_move_waits_marked_until_the_step(drive):
    d = drive(tree10(), still=True)
    session, g = paused_on_obj2(d, hold=True)
    assert session.hold_edits
    obj2 = g["Obj2"].id
    before = g.peek.local_values(obj2)[0].copy()
    world_before = g.peek.world_matrix(obj2)[0]
    frame, report = session.frame, session.last_report
    d.press("K")
    d.frame(2)
    assert session.frame == frame and session.last_report is report  # nothing executed
    np.testing.assert_allclose(g.peek.local_values(obj2)[0], before + (0.0, MOVE_STEP, 0.0))
    assert g.peek.flags().pending.tolist() == ids(g, SUBTREE)
    world, stale = g.peek.world_matrix(obj2)
    assert stale
    np.testing.assert_array_equal(world, world_before)  # the world waits for the update
    panel = d.app.overlay.panel
    assert panel._flags.pending  # the panel's "pending: N nodes"
    tree = dict(panel.scene.tree.tree_drawn)
    assert tree["Obj2"] == "L W E" and tree["Obj3"] == ". . ."

    d.press("PERIOD")
    d.frame()
    assert session.frame == frame + 1
    executed = session.last_report
    assert executed.local_updated.tolist() == [obj2]
    assert sorted(executed.world_updated.tolist()) == ids(g, SUBTREE)
    assert not g.peek.marked and g.peek.flags().pending.size == 0
    np.testing.assert_allclose(g.peek.world_matrix(obj2)[0][1, 3], world_before[1, 3] + MOVE_STEP)


def test_undo_of_a_held_edit_restores_it_and_waits_too(drive):
    d = drive(tree10(), still=True)
    session, g = paused_on_obj2(d, hold=True)
    obj2 = g["Obj2"].id
    before = g.peek.local_values(obj2)[0].copy()
    frame = session.frame
    d.press("K")
    d.frame()
    assert session.editing.history.labels()[0]  # one undo step for the held move
    session.editing.undo()
    d.frame()
    assert session.frame == frame
    np.testing.assert_allclose(g.peek.local_values(obj2)[0], before)
    d.press("PERIOD")
    d.frame()
    assert session.frame == frame + 1
    np.testing.assert_allclose(g.peek.local_values(obj2)[0], before)
    assert not g.peek.marked


def test_a_held_typed_value_waits_and_running_edits_apply_at_the_next_frame(drive):
    from viewer.session.commands import SetField

    d = drive(tree10(), still=True)
    session, g = paused_on_obj2(d, hold=True)
    obj2 = g["Obj2"].id
    frame = session.frame
    session.editing.run(SetField(obj2, "local_position", (0.5, 1.5, 0.0)))
    d.frame(2)
    assert session.frame == frame
    np.testing.assert_allclose(g.peek.local_values(obj2)[0], (0.5, 1.5, 0.0))
    assert g.peek.flags().pending.tolist() == ids(g, SUBTREE)
    d.press("SPACE")  # the resume executes it
    d.frame()
    assert session.frame == frame + 1
    assert sorted(session.last_report.world_updated.tolist()) == ids(g, SUBTREE)
    session.editing.run(SetField(obj2, "local_position", (0.0, 1.0, 0.0)))  # running
    d.frame()
    assert session.frame == frame + 2 and not g.peek.marked


def test_without_hold_an_edit_while_paused_shows_at_once(drive):
    d = drive(tree10(), still=True)
    session, g = paused_on_obj2(d, hold=False)
    assert not session.hold_edits
    frame = session.frame
    d.press("K")
    d.frame()
    assert session.frame == frame + 1 and not g.peek.marked
    assert session.last_report.local_updated.tolist() == [g["Obj2"].id]


def test_the_edit_section_has_the_switch_and_w_flips_it(edit_open, monkeypatch):
    from viewer.overlay import edit_panel

    d, session, _node, edit = edit_open((1280, 720))
    drawn: list[tuple[str, bool]] = []
    real = edit_panel.checkbox

    def recorded(label: str, value: bool) -> tuple[bool, bool]:
        drawn.append((label, value))
        if label == HOLD_LABEL and click:  # a click on the box
            click.pop()
            return True, not value
        return real(label, value)

    click: list[bool] = []
    monkeypatch.setattr(edit_panel, "checkbox", recorded)
    d.frame()
    assert edit.drawn and (HOLD_LABEL, False) in drawn and not session.hold_edits
    assert "pending" in edit_panel.HOLD_TIP and "(.)" in edit_panel.HOLD_TIP
    click.append(True)
    d.frame()
    assert session.hold_edits
    drawn.clear()
    d.frame()
    assert (HOLD_LABEL, True) in drawn  # the box shows the switch ticked
    d.press("W")
    assert not session.hold_edits


def test_the_lesson_s_picture_is_made_by_the_script_and_the_page_s_command():
    import importlib.util

    docs = REPO / "docs"
    spec = importlib.util.spec_from_file_location("make_images", docs / "make_images.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    name, argv = script.HOLD_SHOT
    page = (docs / "getting-started.md").read_text(encoding="utf-8")
    assert f"](images/{name})" in page and (docs / "images" / name).exists()
    command = " ".join(arg if "@" not in arg else f"'{arg}'" for arg in argv)
    assert f"sgview {command} --screenshot docs/images/{name}" in page


def test_a_held_gizmo_drag_waits_marked_until_the_step(drive):
    from test_gizmo import drag_handle

    d = drive(tree10(), still=True)
    d.frame(3)
    d.press("SPACE")
    session = d.app.session
    g = session.graph
    node = g["Obj5"]
    session.select(node.id)
    d.press("W")
    d.frame()
    before = g.peek.local_values(node.id)[0].copy()
    frame = session.frame
    drag_handle(d, node, 0, 60.0)
    assert session.frame == frame
    moved = g.peek.local_values(node.id)[0]
    assert moved[0] != before[0] and moved[1:].tolist() == before[1:].tolist()
    subtree = ids(g, ("Obj5", "Obj8", "Obj9"))
    assert g.peek.flags().pending.tolist() == subtree
    assert session.editing.history.labels()[0] == ["move Obj5 along x"]
    d.press("PERIOD")
    d.frame()
    assert session.frame == frame + 1
    assert session.last_report.local_updated.tolist() == [node.id]
    assert sorted(session.last_report.world_updated.tolist()) == subtree
