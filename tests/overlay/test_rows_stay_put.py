"""Nothing moves under the mouse: the lines that come with a mode (the pending note, the
"showing frame N" line, a slow replay's progress) keep their places whether or not the
mode is on, so a tree row, and the Frames panel's log below the replay's line, are where
they were when the pointer got there. Through the app's key path in a headless window
(`drive`, tests/overlay/app_driver.py), at two window sizes (the narrow one wrapped the
pending note onto five lines)."""

from __future__ import annotations

import itertools

import app_driver
import pytest
from overlay_helpers import tree10

from viewer.embed.api import scene_for

#: Rows in the tree's first lines: in view without scrolling at every size tested.
ROWS = ("Obj2", "Obj5", "Obj8", "Obj9", "Obj3")


def _rows(d) -> dict[str, tuple[float, float, float]]:
    """Each named row's left edge, top and bottom on screen at the last frame drawn (its
    right end moves in by the panel's scroll bar where the selected node's details make
    the panel taller than the window: a click anywhere on the row selects it)."""
    g, rects = d.app.session.graph, d.app.overlay.panel.scene.tree.row_rects
    out = {}
    for name in ROWS:
        (x0, y0), (_, y1) = rects[g[name].id]
        out[name] = (x0, y0, y1)
    return out


def _log_top(d) -> float | None:
    """Where the Frames panel's log starts (its "follow" checkbox), when that panel is open."""
    rect = d.app.overlay.panel.frames.log.follow_rect
    return None if rect is None else rect[0].y


def _click_row(d, rows, name: str) -> None:
    """A click at the height where `name`'s row was recorded, a third of the way along
    the row (past the arrow that folds it)."""
    x0, y0, y1 = rows[name]
    (_, _), (x1, _) = d.app.overlay.panel.scene.tree.row_rects[d.app.session.graph[name].id]
    d.click(x0 + 0.3 * (x1 - x0), 0.5 * (y0 + y1))


@pytest.mark.parametrize("size", [(800, 400), (1280, 720), (640, 360)])
def test_rows_stay_where_the_pointer_found_them(drive, monkeypatch, size):
    monkeypatch.setattr(app_driver, "SIZE", size)
    d = drive(scene_for(tree10()))
    d.frame(3)
    d.press("SPACE")  # paused: a touch waits for the step
    d.frame(2)
    scene_panel = d.app.overlay.panel.scene
    g = d.app.session.graph
    _click_row(d, _rows(d), "Obj3")
    assert d.app.session.selected == g["Obj3"].id
    # Where the rows are with a node selected: from here on, nothing may move them.
    rows, log_top = _rows(d), _log_top(d)
    assert scene_panel.pending_rect is None and d.app.overlay.pinned is None
    d.press("T")  # Obj3 and its subtree marked: the pending note comes
    d.frame()
    assert scene_panel.pending_rect is not None
    assert _rows(d) == rows and _log_top(d) == log_top

    _click_row(d, rows, "Obj5")  # the next row click, with the note on show
    assert d.app.session.selected == g["Obj5"].id
    assert scene_panel.pending_rect is not None and _rows(d) == rows

    d.press("PERIOD")  # the step executes them: the note goes
    d.frame(2)
    assert scene_panel.pending_rect is None
    assert _rows(d) == rows and _log_top(d) == log_top
    _click_row(d, rows, "Obj8")
    assert d.app.session.selected == g["Obj8"].id

    d.app.overlay.replay.speed = 12.0  # nodes a second: the replay takes a second or so
    d.press("V")  # a slow replay of the step: "showing frame N" and its progress come
    d.frame()
    overlay, frames = d.app.overlay, d.app.overlay.panel.frames
    assert overlay.replay.active and overlay.pinned is not None
    assert scene_panel.showing_line == f"showing frame {overlay.pinned} (timeline)"
    progress: set[int] = set()
    names = itertools.cycle(("Obj9", "Obj2", "Obj5", "Obj3"))
    for frame in range(2000):
        if not overlay.replay.active:
            break
        assert _rows(d) == rows and _log_top(d) == log_top
        if size[0] >= 760:  # the Frames panel is open: the replay's line is drawn
            assert frames.replay_line is not None
            progress.add(overlay.replay.lit)
        if frame % 10 == 0:  # a click while the replay runs lands on its row
            name = next(names)
            _click_row(d, rows, name)
            assert d.app.session.selected == g[name].id
        else:
            d.frame()
    else:
        pytest.fail("the replay did not end")
    d.frame(2)
    assert overlay.pinned is None and scene_panel.showing_line is None
    assert _rows(d) == rows and _log_top(d) == log_top
    if size[0] >= 760:
        assert len(progress) >= 2  # the replay went from node to node meanwhile
    _click_row(d, rows, "Obj2")
    assert d.app.session.selected == g["Obj2"].id
