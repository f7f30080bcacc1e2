"""The help window (? or F1): every key and mouse input in a readable table over the view,
built from the key table (`viewer.keys.controls`), and the one-line hint that says so at
the start."""

from __future__ import annotations

from imgui_bundle import imgui

from viewer.keys.controls import KEY_HELP, MOUSE_HELP

from .widgets import COLORS, key_value_table, vec4

#: The help window's share of the picture (it never needs more than its table).
WIDTH_SHARE, HEIGHT_SHARE = 0.8, 0.85
MAX_WIDTH = 760.0
HINT = "? or F1: keys and help      Tab: panels"
#: The rows of the help (and of the panel's Keys section): (keys, what they do).
ROWS = KEY_HELP + MOUSE_HELP


def rect(width: float, height: float) -> tuple[float, float, float, float]:
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
    # Opaque, as the panels (the style's window colour): at 97 % their text showed through.
    flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize
    flags |= imgui.WindowFlags_.no_collapse | imgui.WindowFlags_.no_saved_settings
    opened, still_open = imgui.begin("Help   (? or F1 closes)", True, flags)
    if opened:
        imgui.text_colored(vec4(COLORS.dim), "Keys act on the 3D view; panels take the mouse.")
        key_value_table("help keys", ROWS, key_color=COLORS.note, wrap=True)
    imgui.end()
    return bool(still_open)


def draw_hint(width: float, height: float) -> None:
    """The start hint: one line at the bottom middle of the picture, outlined so that it
    reads over any scene."""
    draw_list = imgui.get_foreground_draw_list()
    size = imgui.calc_text_size(HINT)
    x, y = 0.5 * (width - size.x), height - size.y - 12.0
    pad = 6.0
    draw_list.add_rect_filled(
        imgui.ImVec2(x - pad, y - pad), imgui.ImVec2(x + size.x + pad, y + size.y + pad),
        imgui.IM_COL32(10, 12, 16, 210), 4.0,
    )  # fmt: skip
    draw_list.add_text(imgui.ImVec2(x, y), imgui.get_color_u32(vec4(COLORS.note)), HINT)
