"""Small drawing helpers the overlay's panels share: colours, buttons that explain
themselves, one-line messages and key/value tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from imgui_bundle import imgui

from viewer.palette import GLOW_LOCAL, GLOW_WORLD
from viewer.text import one_line

#: An RGBA colour, each part in [0, 1].
Color = tuple[float, float, float, float]
#: An item's rectangle on screen as ImGui gives it: (min, max) corners.
ItemRect = tuple[imgui.ImVec2, imgui.ImVec2]


@dataclass(frozen=True)
class Colors:
    """The panels' colours; the flag colours are the glow's (viewer.palette)."""

    local: Color = (*GLOW_LOCAL, 1.0)
    world: Color = (*GLOW_WORLD, 1.0)
    executed: Color = (0.62, 0.78, 1.0, 1.0)
    off: Color = (0.42, 0.44, 0.50, 1.0)
    text: Color = (0.92, 0.93, 0.96, 1.0)
    dim: Color = (0.62, 0.64, 0.70, 1.0)
    note: Color = (1.0, 0.9, 0.45, 1.0)
    clip: Color = (0.55, 0.85, 0.55, 1.0)  # a clip change's mark on the timeline
    pending: Color = (0.80, 0.66, 1.0, 1.0)  # flags set and not yet executed
    stale: Color = (0.90, 0.20, 0.75, 1.0)  # a program's world left behind (as in the view)


COLORS = Colors()
#: The edge of a checkbox's square: unticked, ImGui's dark square on the dark panel is
#: hard to see; the edge shows it, nothing else changes.
CHECKBOX_EDGE = (0.56, 0.61, 0.72, 1.0)
#: Widest share of a wrapped table's room its label column takes.
LABEL_SHARE = 0.35


def vec4(c: Color) -> imgui.ImVec4:
    return imgui.ImVec4(*c)


def u32(c: Color) -> int:
    return int(imgui.get_color_u32(imgui.ImVec4(*c)))


def checkbox(label: str, value: bool) -> tuple[bool, bool]:
    """`imgui.checkbox` with its square's edge drawn (`CHECKBOX_EDGE`): (clicked, value)."""
    imgui.push_style_var(imgui.StyleVar_.frame_border_size, 1.0)
    imgui.push_style_color(imgui.Col_.border, vec4(CHECKBOX_EDGE))
    try:
        clicked, value = imgui.checkbox(label, value)
        return bool(clicked), bool(value)
    finally:
        imgui.pop_style_color()
        imgui.pop_style_var()


#: Every button drawn through `button` since a check set it to a list: (label, tooltip).
#: None (the rule): nothing is kept.
buttons_seen: list[tuple[str, str]] | None = None


def button(label: str, tip: str, *, small: bool = False, enabled: bool = True) -> bool:
    """A button (`small`: ImGui's small one) with its tooltip `tip`, shown on hover also
    while it is disabled (`enabled` False: drawn greyed, never clicked), so that what a
    button does can be read before it is pressed. Whether it was clicked."""
    imgui.begin_disabled(not enabled)
    clicked = imgui.small_button(label) if small else imgui.button(label)
    imgui.end_disabled()
    if imgui.is_item_hovered(imgui.HoveredFlags_.allow_when_disabled):
        imgui.set_tooltip(tip)
    if buttons_seen is not None:
        buttons_seen.append((label, tip))
    return bool(clicked) and enabled


def input_doubles(label: str, values: list[float], fmt: str) -> tuple[bool, list[float]]:
    """A row of number fields in float64, laid out as ImGui's input_float3 / 4 lays out
    its own (one group: the item queries after it speak of the whole row), so that a
    typed value is kept exactly: float32 fields would save a typed -0.15 as
    -0.15000000596046448. (changed, values)."""
    n = len(values)
    spacing = imgui.get_style().item_inner_spacing.x
    width = imgui.calc_item_width()
    each = max(1.0, (width - spacing * (n - 1)) / n)
    changed, out = False, list(values)
    imgui.begin_group()
    imgui.push_id(label)
    for i in range(n):
        if i:
            imgui.same_line(0.0, spacing)
        # the last field takes what rounding left, so the row is as wide as asked
        imgui.set_next_item_width(each if i < n - 1 else width - (each + spacing) * (n - 1))
        edited, out[i] = imgui.input_double(f"##{i}", float(values[i]), 0.0, 0.0, fmt)
        changed = changed or edited
    imgui.pop_id()
    shown = label.split("##", 1)[0]
    if shown:
        imgui.same_line(0.0, spacing)
        imgui.text(shown)
    imgui.end_group()
    return changed, out


def key_value_table(
    table_id: str,
    rows: Iterable[tuple[str, str]],
    *,
    key_color: Color = COLORS.dim,
    wrap: bool = False,
    tips: dict[str, str] | None = None,
    label_share: float = LABEL_SHARE,
) -> None:
    """Two columns: a dimmed label, then its value (both wrapped when `wrap`); `tips`:
    a tooltip by label, shown over the label and its value.

    Wrapped text needs a column whose width does not come from its content: a column
    that fits its content measures wrapped text at the width it had, which starts at
    nothing, so the text wraps after every letter and the column stays one letter wide.
    So with `wrap` the label column gets a set width (its longest label, at most
    `label_share` of the room) and the value column stretches over the rest.
    """
    rows = list(rows)
    if not imgui.begin_table(table_id, 2, imgui.TableFlags_.sizing_fixed_fit):
        return
    if wrap:
        widest = max((imgui.calc_text_size(label).x for label, _ in rows), default=0.0)
        room = imgui.get_content_region_avail().x
        label_width = min(widest, label_share * room)
        imgui.table_setup_column("label", imgui.TableColumnFlags_.width_fixed, label_width)
        imgui.table_setup_column("value", imgui.TableColumnFlags_.width_stretch)
    for label, value in rows:
        imgui.table_next_row()
        tip = tips.get(label) if tips else None
        imgui.table_next_column()
        if wrap:
            imgui.push_style_color(imgui.Col_.text, vec4(key_color))
            imgui.text_wrapped(label)
            imgui.pop_style_color()
        else:
            imgui.text_colored(vec4(key_color), label)
        _tip(tip)
        imgui.table_next_column()
        if wrap:
            imgui.text_wrapped(value)
        else:
            imgui.text(value)
        _tip(tip)
    imgui.end_table()


class Flow:
    """Items side by side while they fit the room, then on the next line: call `place`
    with an item's width just before drawing it."""

    def __init__(self) -> None:
        self.room = imgui.get_content_region_avail().x
        self.used: float | None = None

    def place(self, width: float) -> None:
        gap = imgui.get_style().item_spacing.x
        if self.used is not None and self.used + gap + width <= self.room:
            imgui.same_line()
            self.used += gap + width
        else:
            self.used = width

    @staticmethod
    def button_width(label: str) -> float:
        text = imgui.calc_text_size(label.split("##")[0]).x
        return float(text + 2 * imgui.get_style().frame_padding.x)

    @staticmethod
    def check_width(label: str) -> float:
        """A checkbox's or radio button's width: its box and its label."""
        style = imgui.get_style()
        box = imgui.get_frame_height() + style.item_inner_spacing.x
        return float(box + imgui.calc_text_size(label).x)


def cut_to_width(text: str, room: float) -> str:
    """`text` as it fits in `room` pixels: whole, or its longest head with "..." after."""
    if imgui.calc_text_size(text).x <= room:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if imgui.calc_text_size(text[:mid] + "...").x <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "..."


def message_line(text: str | None, color: Color) -> ItemRect | None:
    """A message on exactly one line: cut with "..." to the room, the whole text in a
    tooltip. A message that wrapped onto two to five lines pushed the fields and rows
    below it down, so that the click meant for a field landed beside it and the digits
    typed next went to the scene's shortcuts; the callers show another one-line text in
    its place when there is none. Returns the line's (min, max) on screen (None: no
    text, nothing drawn)."""
    if not text:
        return None
    return fitted_line([one_line(text)], color)  # a line break would make it two


def fitted_line(texts: Sequence[str], color: Color, room: float | None = None) -> ItemRect:
    """Exactly one line: the first of `texts` (the longest first) that fits `room` pixels
    (None: the room left on the line), else the last cut with "..."; the first, whole, in
    a tooltip where a shorter one shows. A mode's line that wrapped onto two to five lines
    pushed the tree's rows down under the pointer as it came and went. Returns the line's
    (min, max) on screen."""
    room = imgui.get_content_region_avail().x if room is None else room
    shown = next((t for t in texts if imgui.calc_text_size(t).x <= room), None)
    if shown is None:
        shown = cut_to_width(texts[-1], room)
    imgui.text_colored(vec4(color), shown)
    if shown != texts[0] and imgui.is_item_hovered():
        imgui.begin_tooltip()
        imgui.push_text_wrap_pos(36.0 * imgui.get_font_size())
        imgui.text_unformatted(texts[0])
        imgui.pop_text_wrap_pos()
        imgui.end_tooltip()
    return imgui.get_item_rect_min(), imgui.get_item_rect_max()


def blank_line() -> None:
    """A line with nothing on it, as high as a line of text: the place a mode's line
    keeps while the mode is off, so that what is below it stays where it is."""
    imgui.dummy(imgui.ImVec2(1.0, imgui.get_text_line_height()))


def _tip(text: str | None) -> None:
    """The item just drawn explains itself on hover."""
    if text and imgui.is_item_hovered():
        imgui.set_tooltip(text)
