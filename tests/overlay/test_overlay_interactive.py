"""The overlay driven frame by frame in a headless window: pause and step, the glow while
paused, selecting in the tree and in the view, the timeline, held keys, Tab and N.

`drive` (tests/overlay/conftest.py) builds the app as `viewer.window.runner.run` does and calls its
frame function itself, so a test can act between frames (the real keys are driven under Xvfb in
tests/test_window_xvfb.py).
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest
from app_driver import SIZE

from viewer.io import default_scene, generate_scene, load_scene

REPO = Path(__file__).resolve().parents[2]


def is_red(rgb) -> bool:
    return rgb[0] > 170 and rgb[1] < 90


def tree10():
    scene = load_scene(REPO / "scenes" / "tree10.toml")
    scene.events = []
    return scene


def test_pause_freezes_the_picture_and_period_steps_exactly_one_frame(drive):
    d = drive(default_scene())  # gentle motion: every frame changes the picture
    d.frame(3)
    d.app.session.toggle_pause()
    frame = d.app.session.frame
    a, b = d.frame(), d.frame(5)
    assert d.app.session.frame == frame and np.array_equal(a, b)
    d.app.session.request_step()
    c = d.frame()
    assert d.app.session.frame == frame + 1 and not np.array_equal(b, c)
    assert np.array_equal(c, d.frame(3)) and d.app.session.frame == frame + 1
    d.app.session.toggle_pause()
    d.frame(2)
    assert d.app.session.frame == frame + 3


def test_glow_stays_while_paused_and_fades_when_running(drive):
    d = drive(tree10(), still=True)
    d.frame()
    g = d.app.session.graph
    d.app.session.select(g["Obj3"].id)
    d.app.session.touch_selected()
    assert is_red(d.pixel(d.frame(), "Obj3"))
    d.app.session.toggle_pause()
    assert is_red(d.pixel(d.frame(40), "Obj3"))
    d.app.session.toggle_pause()
    assert not is_red(d.pixel(d.frame(31), "Obj3"))
    assert d.app.renderer.glow.glowing()[0].size == 0


def test_the_fade_time_is_adjustable(drive):
    d = drive(tree10(), still=True, touches={1: ["Obj4"]})
    d.app.settings.glow_fade = 2.0
    d.frame(61)
    assert d.app.renderer.glow.signed([d.app.session.graph["Obj4"].id]) == pytest.approx(
        [-0.5], abs=1e-4
    )


def test_selecting_in_the_view_opens_the_tree_and_a_row_click_selects(drive):
    d = drive(generate_scene("balanced:100"), still=True)
    d.frame(2)
    g = d.app.session.graph
    panel = d.app.overlay.panel
    deep = g["Obj77"]  # depth 3: its row is hidden while its ancestors are collapsed
    assert deep.id not in panel.scene.tree.row_rects
    d.app.session.select(deep.id)
    d.frame(3)  # opened, then scrolled to it
    assert deep.id in panel.scene.tree.row_rects

    other = deep.parent  # a row in view now
    (x0, y0), (x1, y1) = panel.scene.tree.row_rects[other.id]
    d.click((x0 + x1) / 2, (y0 + y1) / 2)
    assert d.app.session.selected == other.id
    assert other.name in d.app.wnd.title


def test_a_click_in_the_view_selects_and_a_click_on_the_panel_does_not(drive):
    d = drive(tree10(), still=True)
    d.frame()
    g = d.app.session.graph
    x, y = d.app.camera.project(g["Obj7"].world_position, SIZE)[0, :2]
    d.click(x, y)
    assert d.app.session.selected == g["Obj7"].id
    d.click(5, SIZE[1] - 5)  # on the left panel, below its contents: not a 3D click
    assert d.app.session.selected == g["Obj7"].id


def test_timeline_click_shows_that_frames_report_everywhere(drive):
    d = drive(tree10(), still=True, touches={1: ["Obj2"], 2: ["Obj4"]})
    d.frame(40)  # both glows have faded
    ov = d.app.overlay
    x, y, w, h = ov.panel.frames.timeline_rect
    slot = ov.panel.frames.timeline_slot
    d.click(x + 0.5 * slot, y + h / 2)  # the first bar: frame 1
    assert ov.pinned == 1 and ov.shown_entry.frame == 1
    img = d.frame()
    assert is_red(d.pixel(img, "Obj2")) and not is_red(d.pixel(img, "Obj4"))
    assert dict(ov.panel.scene.tree.tree_drawn)["Obj2"] == "L W E"
    assert dict(ov.panel.scene.tree.tree_drawn)["Obj4"] == ". . ."
    ov.pin(None)  # back to live: nothing glows any more
    img = d.frame()
    assert not is_red(d.pixel(img, "Obj2"))
    assert dict(ov.panel.scene.tree.tree_drawn)["Obj2"] == ". . ."


def test_held_keys_move_and_turn_the_selected_node(drive):
    d = drive(tree10(), still=True)
    d.frame()
    node = d.app.session.graph["Obj4"]
    start = node.local_position.copy()
    d.app.session.select(node.id)
    d.app.session.editing.held.press("right")
    d.frame(3)
    d.app.session.editing.held.release("right")
    d.frame(2)
    np.testing.assert_allclose(node.local_position - start, [0.15, 0.0, 0.0], atol=1e-12)
    d.app.session.editing.held.press("up")
    d.app.session.editing.held.release("up")  # a tap between two frames still moves one step
    d.frame()
    np.testing.assert_allclose(node.local_position - start, [0.15, 0.05, 0.0], atol=1e-12)
    d.app.session.editing.held.press("turn")
    img = d.frame(2)
    d.app.session.editing.held.release("turn")
    assert node.local_euler[2] == pytest.approx(2.0)
    assert is_red(d.pixel(img, "Obj4"))  # its own value changed


def test_tab_hides_the_panels_and_n_the_names(drive):
    d = drive(tree10(), still=True)
    shown = d.frame()
    ov = d.app.overlay
    assert d.app.camera.shift_x != 0.0
    ov.visible = False
    hidden = d.frame()
    assert d.app.camera.shift_x == 0.0
    assert not np.array_equal(shown[:, :100], hidden[:, :100])
    ov.show_names = False
    no_names = d.frame()
    assert not np.array_equal(hidden, no_names)  # only the names differ


def test_a_reloaded_scene_keeps_the_counters_and_marks_the_reload(drive):
    d = drive(tree10(), still=True, touches={1: ["Obj2"]})
    d.frame(3)
    assert len(d.app.overlay.timeline) == 3
    d.reload(load_scene(REPO / "scenes" / "chain5.toml"))
    d.frame()
    ov = d.app.overlay
    # The old frames' counters, totals and marks stay; their reports (ids of the old
    # scene) and the glow go; the first frame of the new scene is marked as a reload.
    assert len(ov.timeline) == 4 and d.app.renderer.glow.glowing()[0].size == 0
    assert [e.report is None for e in ov.timeline] == [True, True, True, False]
    assert ov.timeline.event_frames().tolist() == [1, 4]
    assert [k for k, _ in ov.timeline.notes(4)] == ["reload"]
    assert ov.timeline.totals.frames == 4
    assert {n for n, _ in ov.panel.scene.tree.tree_drawn} == {f"Obj{k}" for k in range(1, 6)}


def test_bytes_uploaded_counts_the_glow_and_a_still_frame_uploads_nothing(drive, monkeypatch):
    """The counter is every byte a frame writes to the GPU, the glow's stamps included; a
    frame that recomputes nothing writes nothing while the glow fades (the shader fades
    it), and the overlay never writes a GPU buffer."""
    import moderngl

    d = drive(tree10(), still=True, touches={1: ["Obj2"]})
    writers: list[str] = []
    real_write = moderngl.Buffer.write

    def spy(self, data, offset=0):
        writers.append(inspect.stack()[1].filename)
        return real_write(self, data, offset=offset)

    monkeypatch.setattr(moderngl.Buffer, "write", spy)
    d.frame()
    first_writers, writers[:] = list(writers), []
    d.frame(5)
    first, later = d.app.overlay.timeline[0].stats, d.app.overlay.timeline[1].stats
    # Frame 1: four recomputed nodes, 64 bytes of matrix, 8 of stamp, 12 of line end and
    # 4 of line stamp each.
    assert first.bytes_uploaded == 4 * (64 + 8 + 12 + 4)
    assert any(f.endswith("instances.py") for f in first_writers)
    assert (later.bytes_uploaded, later.world) == (0, 0)
    g = d.app.session.graph
    assert 0 < -d.app.renderer.glow.signed([g["Obj2"].id])[0] < 1  # still fading
    scene_writers = {Path(f).name for f in writers if "viewer" in Path(f).parts}
    assert scene_writers == set(), scene_writers  # lit lines and nodes fade on the GPU
    assert not any("overlay" in Path(f).parts for f in first_writers + writers)
