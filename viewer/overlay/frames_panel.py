"""The right panel, "Frames": the timeline of recent frames (a click shows that frame's
report everywhere), the frame's counters, and the frame log (docs/semantics.md)."""

from __future__ import annotations

import numpy as np
from imgui_bundle import imgui

from .model import timeline_index, timeline_layout
from .stats import counter_rows
from .widgets import COLORS, key_value_table, u32, vec4

TIMELINE_HEIGHT = 54.0
LOG_LINES = 4000


class FramesPanel:
    """Draws the right panel's sections (inside its ImGui window)."""

    def __init__(self, overlay) -> None:
        self.ov = overlay
        self.colors = COLORS
        self.reset()

    def reset(self) -> None:
        self._log_end = None  # (frame, lines) of the log's last block at the last draw
        self._log_scroll_to: int | None = None
        #: The log widget's text as drawn at the last frame: (frame, lines) blocks, each
        #: ``# frame N`` and that frame's log lines (tests compare it with the report).
        self.log_blocks: list[tuple[int, list[str]]] = []
        #: The timeline's (x, y, width, height) on screen at the last frame.
        self.timeline_rect: tuple[float, float, float, float] | None = None

    def draw(self, entry) -> None:
        self._timeline()
        self._counters(entry)
        self._log()

    def _timeline(self) -> None:
        c, ov = self.colors, self.ov
        history = ov.history
        frames, local, world = history.counts()
        imgui.text_colored(vec4(c.dim), "timeline (click a frame)")
        avail = imgui.get_content_region_avail().x
        origin = imgui.get_cursor_screen_pos()
        imgui.invisible_button("timeline", imgui.ImVec2(max(avail, 1.0), TIMELINE_HEIGHT))
        self.timeline_rect = (origin.x, origin.y, avail, TIMELINE_HEIGHT)
        hovered, clicked = imgui.is_item_hovered(), imgui.is_item_clicked()
        draw = imgui.get_window_draw_list()
        x0, y0 = origin.x, origin.y
        y1 = y0 + TIMELINE_HEIGHT
        draw.add_rect_filled(origin, imgui.ImVec2(x0 + avail, y1), u32((0.0, 0.0, 0.0, 0.45)))
        first, slot = timeline_layout(avail, history.capacity, len(frames))
        frames, local, world = frames[first:], local[first:], world[first:]
        n = len(frames)
        top = float(max(int(world.max()) if n else 1, 1))
        world_col, local_col = u32(c.world), u32(c.local)
        bar = slot - 1.0 if slot > 2.0 else slot  # a pixel between wide bars
        for i in np.flatnonzero(world).tolist():
            xa = x0 + i * slot
            xb = xa + bar
            h = max(1.0, (TIMELINE_HEIGHT - 2.0) * world[i] / top)
            draw.add_rect_filled(imgui.ImVec2(xa, y1 - h), imgui.ImVec2(xb, y1), world_col)
            if local[i]:
                hl = max(1.0, (TIMELINE_HEIGHT - 2.0) * local[i] / top)
                draw.add_rect_filled(imgui.ImVec2(xa, y1 - hl), imgui.ImVec2(xb, y1), local_col)
        shown = ov.shown_entry
        if shown is not None and n and shown.frame >= frames[0]:
            i = int(np.searchsorted(frames, shown.frame))
            xa = x0 + i * slot
            draw.add_rect(
                imgui.ImVec2(xa - 1.0, y0), imgui.ImVec2(xa + slot, y1),
                u32(c.note if ov.pinned is not None else c.text),
            )  # fmt: skip
        if hovered and n:
            i = timeline_index(imgui.get_mouse_pos().x, x0, slot * n, n)
            if i is not None:
                imgui.set_tooltip(f"frame {frames[i]}: {local[i]} local, {world[i]} world")
                if clicked:
                    ov.pin(int(frames[i]))
        span = f"frames {frames[0]} to {frames[-1]}" if n else "no frames yet"
        imgui.text_colored(vec4(c.dim), span)

    def _counters(self, entry) -> None:
        c, ov = self.colors, self.ov
        if not imgui.collapsing_header("Counters", imgui.TreeNodeFlags_.default_open):
            return
        if entry is None:
            imgui.text_disabled("no frame yet")
            return
        imgui.text_colored(vec4(c.dim), f"frame {entry.frame}")
        key_value_table("counters", counter_rows(entry.stats))
        if entry.weights:  # a change that moved no matrix
            imgui.text_colored(vec4(c.local), f"weights: {len(entry.weights)} node(s)")
        if ov.deterministic:
            imgui.text_colored(vec4(c.dim), "times: not shown headless")
        else:
            imgui.text(ov.timings.row())
            fps = "paused" if ov.host.paused else f"{ov.timings.fps:.1f}"
            imgui.text(f"frames per second: {fps}")

    def _log(self) -> None:
        c, ov = self.colors, self.ov
        if not imgui.collapsing_header("Log", imgui.TreeNodeFlags_.default_open):
            return
        blocks = ov.history.log(LOG_LINES)
        self.log_blocks = blocks
        lines: list[str] = []
        starts: dict[int, int] = {}
        for frame, block in blocks:
            starts[frame] = len(lines)
            lines.extend(block)
        end = (blocks[-1][0], len(lines)) if blocks else None
        new_content = end != self._log_end
        self._log_end = end
        shown = ov.shown_entry
        shown_frame = shown.frame if shown is not None else None
        child_flags = imgui.ChildFlags_.borders
        line_h = imgui.get_text_line_height_with_spacing()
        room = max(imgui.get_content_region_avail().y, 8 * line_h)
        imgui.begin_child("log", imgui.ImVec2(0.0, room), child_flags,
                          imgui.WindowFlags_.horizontal_scrollbar)  # fmt: skip
        at_bottom = imgui.get_scroll_y() >= imgui.get_scroll_max_y() - 1.0
        clipper = imgui.ListClipper()
        clipper.begin(len(lines), line_h)
        while clipper.step():
            for k in range(clipper.display_start, clipper.display_end):
                text = lines[k]
                if text.startswith("#"):
                    pinned = shown_frame is not None and text == f"# frame {shown_frame}"
                    color = c.note if pinned and ov.pinned is not None else c.dim
                elif text.startswith(("*", "~")):
                    color = c.local
                elif text.startswith("="):
                    color = c.world
                else:
                    color = c.dim
                imgui.text_colored(vec4(color), text)
        clipper.end()
        if not lines:
            imgui.text_disabled("no frame has recomputed anything yet")
        if ov.pinned is not None and self._log_scroll_to != ov.pinned:
            self._log_scroll_to = ov.pinned
            if ov.pinned in starts:
                imgui.set_scroll_y(starts[ov.pinned] * line_h)
        elif ov.pinned is None:
            self._log_scroll_to = None
            if new_content and at_bottom:
                imgui.set_scroll_here_y(1.0)
        imgui.end_child()

    def block_of(self, frame: int) -> list[str] | None:
        """The log lines the panel shows for `frame` (without its ``# frame`` line)."""
        for f, block in self.log_blocks:
            if f == frame:
                return block[1:]
        return None
