"""The gizmo is sized to the selected node, within limits: a handle is `HANDLE_REACH`
times the node's drawn radius on screen, kept between shares of the view's height
(never under `HANDLE_MIN_PX`), one function for drawing and picking (`handle_px`)."""

from __future__ import annotations

import numpy as np
import pytest

import viewer.gizmo as gizmo
from viewer.render.camera import Camera


def test_a_handle_follows_the_node_within_the_limits():
    h = 360.0
    low, high = gizmo.HANDLE_MIN_SHARE * h, gizmo.HANDLE_MAX_SHARE * h
    assert gizmo.handle_px(26.0, h) == pytest.approx(gizmo.HANDLE_REACH * 26.0)
    assert gizmo.handle_px(0.0, h) == pytest.approx(max(low, gizmo.HANDLE_MIN_PX))
    assert gizmo.handle_px(1e4, h) == pytest.approx(high)
    # a taller view: the limits grow with it
    assert gizmo.handle_px(1e4, 2 * h) == pytest.approx(2 * high)
    assert gizmo.handle_px(0.0, 100.0) == gizmo.HANDLE_MIN_PX  # grabbable in a tiny view


@pytest.mark.parametrize("radius", [0.0, 0.05, 0.3, 50.0])
def test_handles_and_the_press_use_the_same_size(radius):
    """The handles' pixels are `handle_px` of the node's radius as projected, the
    scale handles' the same, and a press near a handle's tip hits it."""
    size = (640, 360)
    camera = Camera()
    view_proj = camera.view_projection(size)
    world = np.eye(4)
    h = gizmo.handles(world, view_proj, size, False, radius)
    assert h is not None
    unit = gizmo.project(view_proj, np.vstack([np.zeros(3), np.eye(3)]), size)
    px_per_unit = float(np.linalg.norm(unit[1:] - unit[0], axis=1).max())
    assert h.px == pytest.approx(gizmo.handle_px(radius * px_per_unit, size[1]))
    tip = h.origin + 0.9 * (h.tips[0] - h.origin)
    assert gizmo.hit(h, *tip) == 0
    sh = gizmo.scale_handles(world, view_proj, size, False, radius)
    assert sh is not None and sh.handles.px == h.px
