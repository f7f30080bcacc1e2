"""Names keep off the selected node's gizmo: the gizmo is drawn after the names, so its
handles and rings would cross a name written under them (a newcomer could not read
Obj3's name in chain5 with Obj3 selected). The selected node's name goes just outside the
gizmo; other names take one of their own places clear of it where one is free, and keep
their old place only where none is."""

from __future__ import annotations

from pathlib import Path

import app_driver
import numpy as np
import pytest
from overlay_helpers import chain5

import viewer.gizmo as gizmo
from viewer.embed.api import scene_for
from viewer.io import load_scene
from viewer.overlay import edit_panel
from viewer.overlay import overlay as overlay_module
from viewer.overlay.labels import RANK_OTHER, RANK_SELECTED, declutter

H = 13.0


def _inside(box, rect) -> bool:
    """Whether the name box (left, top, right, bottom) overlaps rect (l, r, t, b)."""
    left, top, right, bottom = box
    return left < rect[1] and rect[0] < right and top < rect[3] and rect[2] < bottom


def _filled(rect):
    """An outline (points, reach) covering the whole rectangle (l, r, t, b)."""
    x, y = np.meshgrid(
        np.arange(rect[0], rect[1] + 1.0, 2.0), np.arange(rect[2], rect[3] + 1.0, 2.0)
    )
    points = np.stack([x.ravel(), y.ravel()], axis=1)
    return points, np.ones(len(points))


def _circle(centre, radius):
    a = np.linspace(0.0, 2.0 * np.pi, 400, endpoint=False)
    points = np.asarray(centre) + radius * np.stack([np.cos(a), np.sin(a)], axis=1)
    return points, np.full(len(points), 2.0)


def test_the_selected_name_goes_just_outside_the_gizmo():
    origins = np.array([[200.0, 100.0]])
    xy = np.array([[215.0, 100.0]])  # right of a 15 px node: under the gizmo
    rect = (140.0, 260.0, 40.0, 160.0)
    keep, anchors = declutter(xy, np.array([40.0]), H, np.array([RANK_SELECTED]), origins)
    assert keep.tolist() == [0] and anchors[0].tolist() == [215.0, 100.0]
    keep, anchors = declutter(
        xy, np.array([40.0]), H, np.array([RANK_SELECTED]), origins,
        keep_off=_filled(rect), area=(640.0, 360.0),
    )  # fmt: skip
    assert keep.tolist() == [0]
    x, y = anchors[0]
    assert x > rect[1] and y == 100.0  # right of the gizmo, on the node's line


def test_the_places_outside_stay_in_the_window():
    """Near the window's right edge the name goes to the gizmo's other side."""
    origins = np.array([[580.0, 100.0]])
    xy = np.array([[595.0, 100.0]])
    rect = (520.0, 640.0, 40.0, 160.0)
    keep, anchors = declutter(
        xy, np.array([40.0]), H, np.array([RANK_SELECTED]), origins,
        keep_off=_filled(rect), area=(640.0, 360.0),
    )  # fmt: skip
    assert keep.tolist() == [0]
    assert anchors[0][0] + 40.0 <= rect[0]


def test_another_name_takes_a_free_place_and_keeps_its_old_one_where_none_is():
    origins = np.array([[300.0, 100.0]])
    xy = np.array([[310.0, 100.0]])  # its right place lies in the gizmo's rectangle
    rect = (250.0, 400.0, 50.0, 150.0)
    keep, anchors = declutter(
        xy, np.array([30.0]), H, np.array([RANK_OTHER]), origins,
        keep_off=_filled((305.0, 400.0, 50.0, 150.0)),
    )  # fmt: skip
    assert keep.tolist() == [0] and anchors[0][0] + 30.0 <= 305.0  # its left place
    # The gizmo covers every place it has: the name stays, where it was.
    keep, anchors = declutter(
        xy, np.array([30.0]), H, np.array([RANK_OTHER]), origins, keep_off=_filled(rect)
    )
    assert keep.tolist() == [0] and anchors[0].tolist() == [310.0, 100.0]


def test_only_the_lines_count_not_their_bounding_rectangle():
    """A name in a ring's empty corner keeps its place; one the ring passes through moves."""
    ring = _circle((200.0, 200.0), 80.0)
    origins = np.array([[120.0, 120.0], [270.0, 200.0]])
    xy = np.array([[128.0, 120.0], [280.0, 200.0]])  # inside the rectangle; the first off the ring
    keep, anchors = declutter(
        xy, np.array([20.0, 20.0]), H, np.array([RANK_OTHER, RANK_OTHER]), origins,
        keep_off=ring,
    )  # fmt: skip
    assert keep.tolist() == [0, 1]
    assert anchors[0].tolist() == [128.0, 120.0]  # the corner: the ring is not there
    assert anchors[1].tolist() != [280.0, 200.0]  # the ring runs through x = 280


SCENES = Path(__file__).resolve().parents[2] / "scenes"


@pytest.mark.parametrize("size", [(640, 360), (1280, 720)])
@pytest.mark.parametrize(
    ("scene", "name"), [("chain5", "Obj3"), ("tree10", "Obj6"), ("solar_system", "Moon")]
)
def test_in_the_window_no_name_lies_under_the_gizmo(drive, monkeypatch, size, scene, name):
    """The bundled scenes' names, as drawn, against the lines of the gizmo as drawn (the
    handles the edit section drew): no handle or ring passes through the selected node's
    name, nor through the name of another node outside the gizmo."""
    monkeypatch.setattr(app_driver, "SIZE", size)
    d = drive(load_scene(SCENES / f"{scene}.toml"), still=True)
    d.frame(2)
    session = d.app.session
    session.select(session.graph[name].id)
    d.frame(2)
    overlay = d.app.overlay
    drawn = overlay.panel.scene.edit.gizmo_drawn
    assert drawn is not None
    lines = _gizmo_lines(drawn)
    names = [n for n, _ in overlay.names_drawn]
    assert name in names  # the selected node keeps its name
    rect = gizmo.extent(drawn, scale=False)
    graph = session.graph
    crossed = [
        n
        for n, box in zip(names, overlay.name_boxes, strict=True)
        if _crosses(lines, box)
        and (n == name or not _inside_rect(d.app.camera, graph[n], size, rect))
    ]
    assert crossed == []


def _inside_rect(camera, node, size, rect) -> bool:
    """A node drawn inside the gizmo's rectangle: every place beside it may be under the
    gizmo (the Moon's gizmo holds the Earth); its name is then written over the lines."""
    x, y = camera.project(node.world_position, size)[0, :2]
    return rect[0] < x < rect[1] and rect[2] < y < rect[3]


def _gizmo_lines(h) -> np.ndarray:
    """Points along what the gizmo draws: each handle from its gap to its tip, each ring
    (its drawn polygon, closed), densely."""
    t = np.linspace(0.0, 1.0, 50)[:, None]
    parts = [h.origin + (gizmo.GAP + (1 - gizmo.GAP) * t) * (tip - h.origin) for tip in h.tips]
    for ring in gizmo.rings(h):
        closed = np.vstack([ring, ring[:1]])
        for a, b in zip(closed[:-1], closed[1:], strict=True):
            parts.append(a + t * (b - a))
    return np.vstack(parts)


def _crosses(points: np.ndarray, box) -> bool:
    left, top, right, bottom = box
    x, y = points[:, 0], points[:, 1]
    return bool(((x > left) & (x < right) & (y > top) & (y < bottom)).any())


def test_a_name_with_no_place_clear_of_the_gizmo_is_written_over_it(drive, monkeypatch):
    """Where neighbours crowd the gizmo (a chain drawn close together), a name keeps its
    place under the gizmo's rectangle rather than vanish, and the names are drawn after the
    gizmo, so its lines never cross one: the background draw list holds the gizmo's
    commands first, the names' text last."""
    monkeypatch.setattr(app_driver, "SIZE", (640, 360))
    order: list[str] = []

    def recorded(what, draw):
        def call(*args, **kwargs):
            order.append(what)
            return draw(*args, **kwargs)

        return call

    monkeypatch.setattr(edit_panel, "draw_gizmo", recorded("gizmo", edit_panel.draw_gizmo))
    monkeypatch.setattr(overlay_module, "draw_names", recorded("names", overlay_module.draw_names))
    d = drive(scene_for(chain5()), still=True)
    d.frame(2)
    session = d.app.session
    session.select(session.graph["Obj3"].id)
    d.frame(2)
    overlay = d.app.overlay
    rect = gizmo.extent(overlay.panel.scene.edit.gizmo_drawn, scale=False)
    names = [n for n, _ in overlay.names_drawn]
    assert set(names) == {f"Obj{k}" for k in range(1, 6)}
    assert any(_inside(box, rect) for box in overlay.name_boxes)  # crowded indeed
    assert order[-2:] == ["gizmo", "names"]
