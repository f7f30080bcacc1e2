"""Small drawing helpers the overlay's panels share: colours and key/value tables."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from imgui_bundle import imgui

from viewer.palette import GLOW_LOCAL, GLOW_WORLD


@dataclass(frozen=True)
class Colors:
    """The panels' colours; the flag colours are the glow's (viewer.palette)."""

    local: tuple = (*GLOW_LOCAL, 1.0)
    world: tuple = (*GLOW_WORLD, 1.0)
    executed: tuple = (0.62, 0.78, 1.0, 1.0)
    off: tuple = (0.42, 0.44, 0.50, 1.0)
    text: tuple = (0.92, 0.93, 0.96, 1.0)
    dim: tuple = (0.62, 0.64, 0.70, 1.0)
    note: tuple = (1.0, 0.9, 0.45, 1.0)
    clip: tuple = (0.55, 0.85, 0.55, 1.0)  # a clip change's mark on the timeline


COLORS = Colors()


def vec4(c) -> imgui.ImVec4:
    return imgui.ImVec4(*c)


def u32(c) -> int:
    return imgui.get_color_u32(imgui.ImVec4(*c))


def key_value_table(
    table_id: str, rows: Iterable[tuple[str, str]], *, key_color=COLORS.dim, wrap: bool = False
) -> None:
    """Two columns: a dimmed label, then its value (wrapped when `wrap`).

    Wrapped values need a column whose width does not come from its content: a column
    that fits its content measures wrapped text at the width it had, which starts at
    nothing, so the text wraps after every letter and the column stays one letter wide.
    So with `wrap` the value column stretches over the room the label column leaves.
    """
    flags = imgui.TableFlags_.sizing_fixed_fit
    if not imgui.begin_table(table_id, 2, flags):
        return
    if wrap:
        imgui.table_setup_column("key", imgui.TableColumnFlags_.width_fixed)
        imgui.table_setup_column("value", imgui.TableColumnFlags_.width_stretch)
    for label, value in rows:
        imgui.table_next_row()
        imgui.table_next_column()
        imgui.text_colored(vec4(key_color), label)
        imgui.table_next_column()
        if wrap:
            imgui.text_wrapped(value)
        else:
            imgui.text(value)
    imgui.end_table()
