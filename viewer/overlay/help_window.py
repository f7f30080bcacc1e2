"""The help window (? or F1): every key and mouse input in a readable table over the view,
built from the key table (`viewer.keys.controls`), and the one-line hint that says so at
the start."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from imgui_bundle import imgui

from viewer.keys.controls import KEY_HELP, MOUSE_HELP

from .widgets import COLORS, key_value_table, vec4

#: The help window's share of the picture (it never needs more than its table).
WIDTH_SHARE, HEIGHT_SHARE = 0.8, 0.85
MAX_WIDTH = 760.0
HINT = "? or F1: keys and help      Tab: panels"
#: The rows of the help (and of the panel's Keys section): (keys, what they do).
ROWS = KEY_HELP + MOUSE_HELP
#: A window's rectangle on screen: (x, y, width, height) in pixels.
Rect = tuple[float, float, float, float]


def rect(width: float, height: float) -> Rect:
    """Where the help window lies in a picture of that size: (x, y, w, h), centred."""
    w = min(MAX_WIDTH, WIDTH_SHARE * width)
    h = HEIGHT_SHARE * height
    return 0.5 * (width - w), 0.5 * (height - h), w, h


def draw(width: float, height: float) -> bool:
    """The help window, centred; returns False once the user closed it (its x button)."""
    x, y, w, h = rect(width, height)
    imgui.set_next_window_pos(imgui.ImVec2(x, y))
    imgui.set_next_window_size(imgui.ImVec2(w, h))
    imgui.set_next_window_focus()
    # Opaque, as the panels (the style's window colour): at 97 % their text shows through.
    flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize
    flags |= imgui.WindowFlags_.no_collapse | imgui.WindowFlags_.no_saved_settings
    opened, still_open = imgui.begin("Help   (? or F1 closes)", True, flags)
    if opened:
        imgui.text_colored(vec4(COLORS.dim), "Keys act on the 3D view; panels take the mouse.")
        key_value_table("help keys", ROWS, key_color=COLORS.note, wrap=True)
    imgui.end()
    return bool(still_open)


def free_span(
    width: float, top: float, bottom: float, panels: Iterable[Rect]
) -> tuple[float, float]:
    """The stretch of the rows `top`..`bottom` between the panels (x, y, w, h) that
    reach into those rows: a panel left of the middle of what is left bounds it on the
    left, one right of it on the right (a folded panel's title bar bounds nothing
    below it)."""
    left, right = 0.0, float(width)
    for x, y, w, h in panels:
        if y >= bottom or y + h <= top or x >= right or x + w <= left:
            continue
        if x + 0.5 * w < 0.5 * (left + right):
            left = max(left, x + w)
        else:
            right = min(right, x)
    return left, max(left, right)


def draw_hint(width: float, height: float, panels: Sequence[Rect] = ()) -> Rect:
    """The start hint at the bottom of the 3D view, centred between the `panels` (x, y,
    w, h) and clear of them (at 640x360 the picture's middle lies under the left panel);
    on two lines where one does not fit. Outlined so that it
    reads over any scene; returns its box (x, y, w, h)."""
    pad, margin = 6.0, 12.0
    lines = [HINT]
    size = imgui.calc_text_size(HINT)
    left, right = free_span(width, height - margin - size.y - 2 * pad, height, panels)
    if size.x + 2 * pad > right - left:
        lines = [part.strip() for part in HINT.split("  ") if part.strip()]
    sizes = [imgui.calc_text_size(line) for line in lines]
    text_w, line_h = max(s.x for s in sizes), imgui.get_text_line_height_with_spacing()
    text_h = line_h * (len(lines) - 1) + sizes[-1].y
    y = height - margin - text_h
    if len(lines) > 1:
        left, right = free_span(width, y - pad, height, panels)
    x = max(left + pad, 0.5 * (left + right - text_w))
    draw_list = imgui.get_foreground_draw_list()
    draw_list.add_rect_filled(
        imgui.ImVec2(x - pad, y - pad),
        imgui.ImVec2(x + text_w + pad, y + text_h + pad),
        imgui.IM_COL32(10, 12, 16, 210),
        4.0,
    )
    color = imgui.get_color_u32(vec4(COLORS.note))
    for k, (line, line_size) in enumerate(zip(lines, sizes, strict=True)):
        line_x = x + 0.5 * (text_w - line_size.x)
        draw_list.add_text(imgui.ImVec2(line_x, y + k * line_h), color, line)
    return x - pad, y - pad, text_w + 2 * pad, text_h + 2 * pad
