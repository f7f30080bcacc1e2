"""Panels on top: the gizmo, the names and the glow are drawn under every ImGui window,
so the help window (and any panel) hides them; outside the window the gizmo still
shows (the test could fail both ways)."""

from __future__ import annotations

import numpy as np
from app_driver import SIZE
from overlay_helpers import tree10

import viewer.gizmo as gizmo
from viewer.embed.api import scene_for
from viewer.overlay import help_window


def gizmo_pixels(img: np.ndarray) -> np.ndarray:
    """Mask of pixels in one of the gizmo's axis colours (a shade within 2 %)."""
    px = img.astype(np.float64)
    mask = np.zeros(img.shape[:2], dtype=bool)
    for rgb in gizmo.COLORS:
        target = np.asarray(rgb) * 255.0
        cos = (px @ target) / (np.linalg.norm(px, axis=2) * np.linalg.norm(target) + 1e-9)
        bright = np.linalg.norm(px, axis=2) > 0.6 * np.linalg.norm(target)
        mask |= (cos > 0.995) & bright
    return mask


def test_the_help_window_covers_the_gizmo(drive):
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    session.select(session.graph["Obj1"].id)
    d.app.camera.distance *= 0.25  # the gizmo big: its rings reach under the help window
    x, y, w, h = (int(v) for v in help_window.rect(*SIZE))
    # The node just above the window's bottom edge: the gizmo straddles it, so part of it
    # lies outside the window, clear of the side panels (the text of the panels has the
    # gizmo's colours too: the check must see gizmo, not letters).
    node_y = d.app.camera.project([session.graph["Obj1"].world_position], SIZE)[0][1]
    d.app.camera.pan(0.0, (y + h - 12) - node_y, SIZE[1])
    plain = d.frame()
    inside = np.zeros(plain.shape[:2], dtype=bool)
    inside[y : y + h, x : x + w] = True
    assert gizmo_pixels(plain)[inside].sum() > 200  # the gizmo is there to be covered
    d.app.overlay.show_help = True
    shown = d.frame()
    assert gizmo_pixels(shown)[inside].sum() == 0
    below = np.zeros_like(inside)
    below[y + h :, x + w // 4 : x + 3 * w // 4] = True  # under the window, between the panels
    assert gizmo_pixels(plain)[below].sum() > 0
    assert gizmo_pixels(shown)[below].sum() > 0  # around the window it still shows


def test_the_help_window_is_opaque_like_the_panels(drive):
    """Trial 3: the panels' text showed through the help window (drawn at 97 %). Opaque,
    its inside is the same whatever lies behind it: the panels or the bare view."""
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    d.app.overlay.show_help = True
    x, y, w, h = (int(v) for v in help_window.rect(*SIZE))
    inside = (slice(y + 3, y + h - 3), slice(x + 3, x + w - 3))
    over_panels = d.frame(2)[inside]
    d.press("TAB")  # the panels hidden: the view behind changes, the window must not
    over_view = d.frame(2)[inside]
    assert d.app.overlay.show_help and not d.app.overlay.visible
    assert np.abs(over_panels.astype(int) - over_view.astype(int)).max() == 0
