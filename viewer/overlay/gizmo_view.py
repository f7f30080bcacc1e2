"""Draws the selected node's gizmo (viewer/gizmo) over the view with ImGui's background
draw list: over the 3D picture, under every ImGui window (the panels, the help window and
popups are never covered).

Move and turn: the axis handles with round tips, the plane squares (each tinted with
the colour of the axis across it) and the rings. Scale: box-tipped handles and the
centre square, with "own axes" beside the node where world axes could not be exact.
The part under the mouse (`viewer.gizmo.pick`, what a press would grab) is drawn
brighter and thicker. The positions come from the same pure functions the window's
mouse path uses, on the world matrix as watched through ``graph.peek`` (drawing
recomputes nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from imgui_bundle import imgui
from numpy.typing import NDArray

import viewer.gizmo as gizmo
from viewer.session.edits import Editing
from viewer.session.source import SceneOnShow

from .host import OverlayCamera

#: The gizmo's part under the mouse, as `viewer.gizmo.pick` names it (None: none).
Hot = tuple[str, int | None] | None


def _u32(rgb: Sequence[float], alpha: float = 1.0) -> int:
    return int(imgui.get_color_u32(imgui.ImVec4(*rgb, alpha)))


def _v(p: NDArray[np.float64]) -> imgui.ImVec2:
    return imgui.ImVec2(float(p[0]), float(p[1]))


def shown_handles(
    host: SceneOnShow,
    editing: Editing,
    size: tuple[int, int],
    camera: OverlayCamera,
    shapes: gizmo.NodeShapes,
) -> gizmo.Handles | gizmo.ScaleHandles | None:
    """The handles of the host's selected node's gizmo as they are drawn (`editing`: the
    host's editing room, `size`: the window's, `shapes`: the scene's as drawn, which size
    the gizmo to the node): the scale mode's or the move and turn mode's; None when no
    gizmo shows."""
    selected, controls = host.selected, host.controls
    if selected is None or (controls is not None and controls.collision_mode is not None):
        return None
    peek = host.graph.peek
    if not peek.is_alive(selected):
        return None
    world, _ = peek.world_matrix(selected)  # watched, not pulled
    view_proj = camera.view_projection(size)
    radius = gizmo.node_radius(shapes, selected)  # as the press's grab sizes it
    if editing.gizmo_scale:
        return gizmo.scale_handles(world, view_proj, size, editing.gizmo_local, radius)
    return gizmo.handles(world, view_proj, size, editing.gizmo_local, radius)


def shown_outline(
    host: SceneOnShow,
    editing: Editing,
    size: tuple[int, int],
    camera: OverlayCamera,
    shapes: gizmo.NodeShapes,
) -> gizmo.Outline | None:
    """What the gizmo draws, as `viewer.gizmo.outline` points in the window; None: none."""
    shown = shown_handles(host, editing, size, camera, shapes)
    if shown is None:
        return None
    if isinstance(shown, gizmo.ScaleHandles):
        return gizmo.outline(shown.handles, scale=True)
    return gizmo.outline(shown, scale=False)


def draw_gizmo(
    host: SceneOnShow,
    editing: Editing,
    size: tuple[int, int],
    camera: OverlayCamera,
    shapes: gizmo.NodeShapes,
) -> gizmo.Handles | None:
    """Draw the gizmo of the host's selected node (as `shown_handles`) over the view;
    the handles drawn (None: none)."""
    shown = shown_handles(host, editing, size, camera, shapes)
    if shown is None:
        return None
    draw = imgui.get_background_draw_list()  # under the panels and the help
    mouse = imgui.get_mouse_pos()
    if isinstance(shown, gizmo.ScaleHandles):
        _scale(draw, shown, gizmo.pick(shown.handles, True, mouse.x, mouse.y))
        return shown.handles
    h = shown
    hot = gizmo.pick(h, False, mouse.x, mouse.y)
    _axes(draw, h, tip_box=False, hot=hot)
    for k, square in enumerate(gizmo.plane_squares(h)):
        if square is not None:
            lit = hot == ("plane", k)
            across = gizmo.COLORS[3 - sum(gizmo.PLANES[k])]  # the axis not in the plane
            points = [_v(p) for p in square]
            draw.add_convex_poly_filled(points, _u32(across, 0.7 if lit else 0.35))
            draw.add_polyline(points, _u32(across), imgui.ImDrawFlags_.closed, 3.0 if lit else 1.5)
    for k, (ring, rgb) in enumerate(zip(gizmo.rings(h), gizmo.COLORS, strict=True)):
        lit = hot == ("ring", k)
        points = [_v(p) for p in ring]
        color = _u32(rgb, 1.0 if lit else 0.75)
        draw.add_polyline(points, color, imgui.ImDrawFlags_.closed, 3.5 if lit else 2.0)
    return h


def _axes(draw: imgui.ImDrawList, h: gizmo.Handles, tip_box: bool, hot: Hot) -> None:
    for k, (tip, rgb) in enumerate(zip(h.tips, gizmo.COLORS, strict=True)):
        lit = hot == ("axis", k)
        color = _u32(_brighter(rgb) if lit else rgb)
        start = h.origin + gizmo.GAP * (tip - h.origin)  # the node shows
        draw.add_line(_v(start), _v(tip), color, 5.0 if lit else 3.0)
        r = gizmo.TIP_LIT_PX if lit else gizmo.TIP_PX
        if tip_box:
            draw.add_rect_filled(_v(tip - r), _v(tip + r), color)
        else:
            draw.add_circle_filled(_v(tip), r, color)


def _brighter(rgb: Sequence[float]) -> tuple[float, ...]:
    return tuple(min(1.0, 0.5 * c + 0.5) for c in rgb)


def _scale(draw: imgui.ImDrawList, sh: gizmo.ScaleHandles, hot: Hot) -> None:
    h = sh.handles
    _axes(draw, h, tip_box=True, hot=hot)
    c = np.full(2, gizmo.CENTRE_PX)
    white = _u32((0.95, 0.95, 0.95))
    fill = 0.7 if hot == ("centre", None) else 0.35
    draw.add_rect_filled(_v(h.origin - c), _v(h.origin + c), _u32((0.95, 0.95, 0.95), fill))
    draw.add_rect(_v(h.origin - c), _v(h.origin + c), white, 0.0, 0, 2.0)
    if not sh.along_world:
        draw.add_text(_v(h.origin + np.array([10.0, 8.0])), white, "own axes")
