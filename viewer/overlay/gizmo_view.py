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

import numpy as np
from imgui_bundle import imgui

import viewer.gizmo as gizmo


def _u32(rgb, alpha: float = 1.0) -> int:
    return imgui.get_color_u32(imgui.ImVec4(*rgb, alpha))


def _v(p) -> imgui.ImVec2:
    return imgui.ImVec2(float(p[0]), float(p[1]))


def draw_gizmo(host, wnd, camera) -> gizmo.Handles | None:
    """Draw the gizmo of the host's selected node; the handles drawn (None: none)."""
    if host.selected is None or getattr(host, "collision_mode", None) is not None:
        return None
    peek = host.graph.peek
    if not peek.is_alive(host.selected):
        return None
    world, _ = peek.world_matrix(host.selected)  # watched, not pulled
    size = tuple(wnd.size)
    view_proj = camera.view_projection(size)
    draw = imgui.get_background_draw_list()  # under the panels and the help
    mouse = imgui.get_mouse_pos()
    if host.editing.gizmo_scale:
        sh = gizmo.scale_handles(world, view_proj, size, host.editing.gizmo_local)
        if sh is None:
            return None
        _scale(draw, sh, gizmo.pick(sh.handles, True, mouse.x, mouse.y))
        return sh.handles
    h = gizmo.handles(world, view_proj, size, host.editing.gizmo_local)
    if h is None:
        return None
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
        draw.add_polyline(points, _u32(rgb, 1.0 if lit else 0.75), imgui.ImDrawFlags_.closed,
                          3.5 if lit else 2.0)  # fmt: skip
    return h


def _axes(draw, h: gizmo.Handles, tip_box: bool, hot) -> None:
    for k, (tip, rgb) in enumerate(zip(h.tips, gizmo.COLORS, strict=True)):
        lit = hot == ("axis", k)
        color = _u32(_brighter(rgb) if lit else rgb)
        start = h.origin + gizmo.GAP * (tip - h.origin)  # the node shows
        draw.add_line(_v(start), _v(tip), color, 5.0 if lit else 3.0)
        r = 6.5 if lit else 5.0
        if tip_box:
            draw.add_rect_filled(_v(tip - r), _v(tip + r), color)
        else:
            draw.add_circle_filled(_v(tip), r, color)


def _brighter(rgb) -> tuple:
    return tuple(min(1.0, 0.5 * c + 0.5) for c in rgb)


def _scale(draw, sh: gizmo.ScaleHandles, hot) -> None:
    h = sh.handles
    _axes(draw, h, tip_box=True, hot=hot)
    c = np.full(2, gizmo.CENTRE_PX)
    white = _u32((0.95, 0.95, 0.95))
    fill = 0.7 if hot == ("centre", None) else 0.35
    draw.add_rect_filled(_v(h.origin - c), _v(h.origin + c), _u32((0.95, 0.95, 0.95), fill))
    draw.add_rect(_v(h.origin - c), _v(h.origin + c), white, 0.0, 0, 2.0)
    if not sh.along_world:
        draw.add_text(_v(h.origin + np.array([10.0, 8.0])), white, "own axes")
