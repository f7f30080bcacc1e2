"""What the panel shows, computed without ImGui."""

from __future__ import annotations

import numpy as np
from overlay_helpers import touched, tree10

from viewer.overlay import labels
from viewer.overlay.model import (
    Flags,
    TreeRows,
    ancestors,
    cause_text,
    flag_text,
    matrix_rows,
    node_details,
    panel_widths,
    timeline_index,
)
from viewer.render.camera import Camera


def test_tree_rows_know_subtrees_in_pre_order():
    g = tree10()
    rows = TreeRows(g)
    names = [g.name_of(i) for i in rows.ids.tolist()]
    assert names == [
        "Obj1",
        "Obj2",
        "Obj5",
        "Obj8",
        "Obj9",
        "Obj3",
        "Obj6",
        "Obj10",
        "Obj4",
        "Obj7",
    ]
    assert rows.depths.tolist() == [0, 1, 2, 3, 3, 1, 2, 3, 1, 2]
    # Collapsing Obj2 (row 1) skips to Obj3 (row 5); Obj1's subtree is everything.
    assert rows.ends.tolist() == [10, 5, 5, 4, 5, 8, 8, 8, 10, 10]
    assert rows.has_children.tolist() == [
        True,
        True,
        True,
        False,
        False,
        True,
        True,
        False,
        True,
        False,
    ]
    assert rows.open_all


def test_flags_and_cause_of_example_b():
    g = tree10()
    report = touched(g, "Obj2")
    flags = Flags.of_report(report, g.capacity_ids)
    text = {g.name_of(i): flag_text(*flags.of(i)) for i in g.alive_ids().tolist()}
    assert text["Obj2"] == "L W E"
    assert text["Obj5"] == text["Obj8"] == text["Obj9"] == ". W E"
    assert text["Obj1"] == text["Obj3"] == ". . ."
    assert cause_text(report, g["Obj9"].id, 4) == "dirty because of: Obj2"
    assert cause_text(report, g["Obj2"].id, 4) == "dirty because of: Obj2 (its own change)"
    assert cause_text(report, g["Obj3"].id, 4) == "clean in frame 4"
    assert cause_text(None, g["Obj3"].id, 4) == "frame 4: report not kept"
    both = touched(g, "Obj2", "Obj5")  # the nearest changed node is the cause
    assert cause_text(both, g["Obj8"].id, 5) == "dirty because of: Obj5"


def test_ancestors_nearest_first():
    g = tree10()
    assert [g.name_of(i) for i in ancestors(g.parents(), g["Obj9"].id)] == ["Obj5", "Obj2", "Obj1"]
    assert ancestors(g.parents(), g["Obj1"].id) == []


def test_node_details_and_matrices():
    g = tree10()
    g["Obj5"].local_position = (1.0, -2.0, 0.0)
    g.update()
    rows = dict(node_details(g, g["Obj8"].id))
    assert rows["parent"] == "Obj5"
    assert rows["world position"] == "(1.000, -2.000, 0.000)"
    assert rows["world version"] == "2"  # first layout, then this frame
    # Edited and not executed: the stored values, marked stale, and reading them pulls
    # nothing (the flags and the version stay for the frame).
    g["Obj5"].local_position = (3.0, -2.0, 0.0)
    rows = dict(node_details(g, g["Obj8"].id))
    assert rows["world position (stale)"] == "(1.000, -2.000, 0.000)"
    assert rows["world version (stale)"] == "2"
    assert g["Obj8"].dirty == (False, True, True)
    assert g.update().world_updated.size == 3  # Obj5, Obj8, Obj9
    assert matrix_rows(np.eye(4))[0] == "   1.000     0.000     0.000     0.000"


def test_panels_and_timeline_geometry():
    left, right = panel_widths(1280)
    assert 300 <= left <= 360 and 250 <= right <= 320
    assert panel_widths(800) == (220, 200)
    assert panel_widths(640) == (192, 0)  # the right panel folds: the view keeps 70 %
    assert panel_widths(400) == (0, 0)  # both fold to their title bars
    for width in range(120, 2400, 7):  # the 3D view never becomes a strip
        left, right = panel_widths(width)
        assert left + right <= 0.55 * width, width
        assert width >= 760 or left + right <= 0.38 * width, width
        if width < 760:
            assert left <= max(180, 0.31 * width) and right == 0, width
    assert timeline_index(10.0, 10.0, 100.0, 50) == 0
    assert timeline_index(109.9, 10.0, 100.0, 50) == 49
    assert timeline_index(110.0, 10.0, 100.0, 50) is None
    assert timeline_index(50.0, 10.0, 100.0, 0) is None


def test_labels_sit_right_of_the_nodes_and_skip_what_is_behind():
    cam = Camera(target=np.zeros(3), distance=10.0, yaw=0.0, pitch=0.0)
    size = (200, 100)
    vp = cam.view_projection(size)
    right = cam.view_matrix()[0, :3]
    origins = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 20.0], [2.0, 1.0, 0.0]])  # 2nd: behind
    index, xy = labels.place(origins, np.array([1.0, 1.0, 0.5]), vp, size, right)
    assert sorted(index.tolist()) == [0, 2]
    px = cam.project(origins, size)
    for k, (x, y) in zip(index.tolist(), xy.tolist()):
        assert x > px[k, 0] + labels.GAP and abs(y - px[k, 1]) < 1e-6


def test_timeline_bars_are_wide_enough_to_click_and_scroll():
    from viewer.overlay.model import MIN_BAR_WIDTH, timeline_back_to_show, timeline_window

    assert MIN_BAR_WIDTH >= 3
    # A wide panel holds a short timeline whole.
    assert timeline_window(1200.0, 300, 0) == (0, 300, 4.0)
    # A 270 px panel shows the latest 67 of 3000 frames, 4 px each; a click anywhere on a
    # bar's 4 px picks that bar's frame.
    first, stop, slot = timeline_window(270.0, 3000, 0)
    assert (first, stop, slot) == (3000 - 67, 3000, 4.0)
    for bar in (0, 30, 66):
        for dx in (0.1, 1.9, 3.9):
            assert timeline_index(10.0 + bar * slot + dx, 10.0, slot * 67, 67) == bar
    assert timeline_window(270.0, 20, 0) == (0, 20, 4.0)  # few frames yet: all of them
    # Scrolled back 1000 frames; scrolled past the oldest, it stops at the oldest.
    assert timeline_window(270.0, 3000, 1000) == (3000 - 1067, 2000, 4.0)
    assert timeline_window(270.0, 3000, 10**6) == (0, 67, 4.0)
    # Showing entry 500 scrolls it into view, a quarter in from the right end; an entry in
    # view already leaves the scrolling alone.
    back = timeline_back_to_show(270.0, 3000, 500, 0)
    first, stop, _ = timeline_window(270.0, 3000, back)
    assert first <= 500 < stop and stop - 500 == 1 + 67 // 4
    assert timeline_back_to_show(270.0, 3000, 2990, 0) == 0
