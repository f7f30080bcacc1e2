"""A one-line banner at the top of the 3D view, between the panels: a question that waits
for its key (`Messages.question`: the restart's "press 0 again ...").

The left panel's first line says it too, but it scrolls away with the panel (at 1280x720
it is scrolled down to reach the Edit buttons) and hides with Tab: a first `0` would then
show nothing in the window, and a second `0` would lose the edits. The view's top is
seen however the panels are scrolled, folded or hidden. Drawn on ImGui's background
list: over the picture, under every panel and the help window, as the gizmo and the
names are.
"""

from __future__ import annotations

from imgui_bundle import imgui

from .widgets import COLORS, cut_to_width, vec4

#: Pixels between the banner's text and its box's edge, and between the box and what is
#: above it (the window's top, or a folded panel's title bar).
PAD, GAP = 6.0, 6.0


def draw(text: str, left: float, right: float) -> tuple[float, float, float, float]:
    """`text` on one line centred between `left` and `right` (the view's room between
    the panels, in pixels from the window's left edge), cut with "..." where it is wider;
    returns its box (x, y, w, h) on screen."""
    room = max(right - left - 2.0 * (PAD + GAP), 1.0)
    shown = cut_to_width(text, room)
    size = imgui.calc_text_size(shown)
    x = left + 0.5 * (right - left - size.x)
    y = imgui.get_frame_height() + GAP + PAD  # below a folded panel's title bar
    box = (x - PAD, y - PAD, size.x + 2.0 * PAD, size.y + 2.0 * PAD)
    draw_list = imgui.get_background_draw_list()
    corner, far = imgui.ImVec2(box[0], box[1]), imgui.ImVec2(box[0] + box[2], box[1] + box[3])
    draw_list.add_rect_filled(corner, far, imgui.IM_COL32(10, 12, 16, 225), 4.0)
    draw_list.add_rect(corner, far, imgui.get_color_u32(vec4(COLORS.note)), 4.0)
    draw_list.add_text(imgui.ImVec2(x, y), imgui.get_color_u32(vec4(COLORS.note)), shown)
    return box
