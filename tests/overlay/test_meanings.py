"""Say what things mean (issue 34, item 7): the tree's flags fade with the glow (a row
recomputed a few frames ago shows its letters fading and how many frames ago); the start
hint stays until the first input."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from viewer.io.loader import load_scene
from viewer.session.commands import Reparent, SetField

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def test_a_row_recomputed_frames_ago_fades_with_its_glow_and_says_how_long_ago(drive):
    d = drive(load_scene(SCENES / "tree10.toml"), still=True, touches={2: ["Obj2"]})
    d.run(2)
    d.frame()  # frame 3: nothing recomputed, Obj2's subtree still glows from frame 2
    tree = d.app.overlay.panel.scene.tree
    rows = dict(tree.tree_drawn)
    assert rows["Obj2"] == ". . ."  # this frame's flags: clean
    assert tree.fading_drawn == {"Obj2": 1, "Obj5": 1, "Obj8": 1, "Obj9": 1}
    d.frame(3)
    assert set(tree.fading_drawn.values()) == {4}
    d.frame(40)  # the glow has faded (0.5 s): the rows too
    assert tree.fading_drawn == {}


def test_the_start_hint_stays_until_the_first_input(drive):
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    ov = d.app.overlay
    ov.show_hint, ov.deterministic = True, False  # as in a window (headless: no hint)
    for _ in range(3):
        d.app.draw(20.0)  # a minute of drawing, in three long frames
    assert ov.show_hint
    d.app.on_mouse_press_event(10, 300, 1)
    d.app.on_mouse_release_event(10, 300, 1)
    d.frame()
    assert not ov.show_hint


def test_every_counter_and_flag_column_explains_itself_on_hover(drive, monkeypatch):
    """Every counter label and the tree's L / W / E headers have a tooltip, seen by
    moving the mouse down the panels (ImGui's own hover test decides)."""
    import app_driver
    from imgui_bundle import imgui

    from viewer.overlay.model import FLAG_TIPS, panel_widths
    from viewer.overlay.stats import COUNTER_TIPS, FrameStats, counter_rows, totals_rows

    labels = [label for label, _ in counter_rows(FrameStats(frame=1))]
    labels += [label for label, _ in totals_rows(type("T", (), {"saved": 0, "saving": 0.0,
               "products": 0, "naive_products": 0})())]  # fmt: skip
    assert set(labels) <= set(COUNTER_TIPS)
    monkeypatch.setattr(app_driver, "SIZE", (1280, 1000))  # Totals open too
    d = drive(load_scene(SCENES / "tree10.toml"), still=True, touches={2: ["Obj2"]})
    d.run(2)
    d.frame()
    shown: set[str] = set()
    real = imgui.set_tooltip
    monkeypatch.setattr(imgui, "set_tooltip", lambda text: (shown.add(text), real(text)))
    width, height = app_driver.SIZE
    left, right = panel_widths(width)
    tree = d.app.overlay.panel.scene.tree
    top = min(r[0].y for r in tree.row_rects.values()) - 10  # the header row
    for x in (left - 20, left - 40, left - 60):  # the flag columns' headers
        d.app.on_mouse_position_event(int(x), int(top), 0, 0)
        d.frame()
    for y in range(120, 600, 6):
        d.app.on_mouse_position_event(width - right + 30, y, 0, 0)
        d.frame()
    assert {FLAG_TIPS[k] for k in "LWE"} <= shown
    assert {COUNTER_TIPS[label] for label in labels} <= shown


def test_restart_while_paused_shows_frame_zero_as_at_launch(drive):
    """0 while paused (issue 34's newcomer trial): the view's glow and the tree's rows
    agree (nothing recomputed yet at frame 0: no glow, no fading row, as at launch),
    and the scene runs again with its motion on, as it did at launch."""
    from viewer.io.generate import default_scene

    d = drive(default_scene())
    session, ov = d.app.session, d.app.overlay
    glow = d.app.renderer.glow
    d.run(20)
    d.press("S")  # the motion stopped, then paused: what a user does before a touch
    d.run(2)
    d.press("SPACE")
    d.frame()
    d.press("NUMBER_0")
    d.frame()  # frame 1 of the run again: it runs, as at launch
    assert session.frame == 1 and not session.paused and session.motion_on
    tree = ov.panel.scene.tree
    glowing = {session.graph.node(i).name for i in glow.glowing()[0].tolist()}
    shown = {name for name, flags in tree.tree_drawn if flags != ". . ."}
    assert glowing == shown | set(tree.fading_drawn)
    # frame 1's work alone, as at launch: the three movers and what hangs below Obj3
    assert glowing == {"Obj3", "Obj6", "Obj10", "Obj7", "Obj9"} and not tree.fading_drawn
    assert dict(tree.tree_drawn)["Obj3"] == "L W E"


def test_restart_keeps_a_still_launch_still_and_shows_no_glow_at_frame_zero(drive):
    """Launched --still, the motion turned on with S, paused, then 0: frame 0 again with
    the motion off as at launch; what the restart put back is no frame's work, so
    nothing glows and the tree shows no row recomputed (they agreed neither way before)."""
    from viewer.io.generate import default_scene

    d = drive(default_scene(), still=True)
    session, glow = d.app.session, d.app.renderer.glow
    d.press("S")
    d.run(10)
    d.press("SPACE")
    d.frame()
    d.press("NUMBER_0")
    assert not session.paused and not session.motion_on
    d.frame()
    tree = d.app.overlay.panel.scene.tree
    assert glow.glowing()[0].size == 0
    assert all(flags == ". . ." for _, flags in tree.tree_drawn) and not tree.fading_drawn


def test_the_panel_names_the_scene_so_the_default_and_tree10_are_told_apart(drive):
    """Issue 34's newcomer trial took tree10 (still, scripted touches) for the
    default scene (the same tree, moving): the panel's first line names the scene on
    show, and the two names say which moves."""
    from viewer.io.generate import default_scene

    lines = {}
    for name, scene in (("default", default_scene()),
                        ("tree10", load_scene(SCENES / "tree10.toml"))):  # fmt: skip
        d = drive(scene)
        d.frame()
        lines[name] = d.app.overlay.panel.scene.scene_line
    assert lines["default"].startswith("scene: Ten-node tree with motion")
    assert "default scene" in lines["default"]
    assert lines["tree10"].startswith("scene: Ten-node tree, no motion")


def test_restart_starts_the_undo_history_empty(drive):
    """After 0, undo never brings back an edit of the run before (the second newcomer
    trial's history still listed its held K after two restarts, and Ctrl+Z put that
    move back over the restarted pose): the history starts empty, as docs/viewer.md says."""
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    session = d.app.session
    g = session.graph
    d.run(3)
    start = g["Obj2"].local_position.copy()
    session.editing.run(SetField(g["Obj2"].id, "local_position", (1.0, 2.0, 3.0)))
    session.editing.run(Reparent(g["Obj8"].id, g["Obj3"].id))  # a re-parent stays
    session.select(g["Obj2"].id)
    d.frame()
    assert len(session.editing.history.done) == 2
    d.press("NUMBER_0")  # over edits, the first 0 asks (test_restart_asks.py)
    d.press("NUMBER_0")
    d.frame()
    editing = session.editing
    assert editing.history.labels() == ([], []) and session.messages.edit is None
    np.testing.assert_array_equal(g["Obj2"].local_position, start)  # the first pose
    assert not editing.undo() and session.messages.edit == "nothing to undo"
    d.frame()
    np.testing.assert_array_equal(g["Obj2"].local_position, start)
    assert g["Obj8"].parent == g["Obj3"] and session.selected == g["Obj2"].id
