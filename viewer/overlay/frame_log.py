"""The Frames panel's Log section: the kept frames' log lines in a box that follows the
frame on show (its "follow" toggle, on by default). Live, the newest lines fill the box
to its bottom; a frame picked on the timeline has its ``# frame`` line at the top (with
the frames after it below). Scrolling the box by hand lets go of it. Where no ``# frame``
line is seen, a row pinned at the box's top names the frame whose lines it shows.

ImGui applies a scroll asked for inside a window (set_scroll_y, set_scroll_here_y) at the
next frame, clamped to the content drawn at the frame before. The log's content changes
between frames (a new frame's lines below, old frames' lines going at the top once their
reports are dropped), so such a scroll would show the log one frame late and, while old
frames go, past its end: an empty box in a real window (headless runs lay each frame out
twice, which hides it). So the box's content height and scroll are given to ImGui
before the box begins (set_next_window_content_size, set_next_window_scroll): both are
this frame's, applied in this frame."""

from __future__ import annotations

from imgui_bundle import imgui

from .replay import Replay, line_of_node
from .widgets import COLORS, ItemRect, checkbox, cut_to_width, u32, vec4

#: The log's text by frame: (frame, its ``# frame`` line and log lines), oldest first.
Blocks = list[tuple[int, list[str]]]

FOLLOW_TIP = (
    "keep the frame on show in view: the newest frame while live,\n"
    "the picked frame at the top (scrolling up by hand lets go;\n"
    "scrolling back to the end, live or ] take it back)"
)
#: Panels narrower than this (pixels) get the shorter label.
NARROW_PX = 240
#: Lines the log box shows at least (below, the panel scrolls instead).
LOG_MIN_LINES = 6


class FrameLog:
    """Draws the Log section inside the Frames panel's window."""

    def __init__(self) -> None:
        self.colors = COLORS
        self.reset()

    def reset(self) -> None:
        #: The log keeps the frame on show in view (see the module notes).
        self.follow = True
        #: Lines of the log a person sees at the last frame: [first, stop) of `lines`.
        self.view: tuple[int, int] = (0, 0)
        self.lines: list[str] = []
        #: The log box's (top, bottom) on screen at the last frame.
        self.box: tuple[float, float] | None = None
        #: The part of the box seen at the last frame, (top, bottom) on screen: the box's
        #: clip rectangle, cut by the panel's when the panel scrolls.
        self.seen: tuple[float, float] | None = None
        #: The rows drawn at the last frame: line index -> (top, bottom) of its item
        #: rectangle on screen, as ImGui placed it.
        self.drawn: dict[int, tuple[float, float]] = {}
        #: The log lines [first, stop) of the node the replay lit last (None: no replay).
        self.highlight: tuple[int, int] | None = None
        #: The box's text as drawn at the last frame: (frame, lines) blocks, each
        #: ``# frame N`` and that frame's log lines (tests compare it with the report).
        self.blocks: Blocks = []
        self.follow_rect: ItemRect | None = None  # the follow toggle's (min, max) on screen
        #: The frame the row pinned at the box's top names (None: no such row drawn) and
        #: that row's (top, bottom) on screen.
        self.pinned_header: int | None = None
        self.pinned_rect: tuple[float, float] | None = None
        self._bar_below = 0.0  # the box's horizontal scrollbar height at the last frame
        self._was_seen = False  # whether a part of the box was seen at the last frame

    def draw(
        self,
        blocks: Blocks,
        pinned: int | None,
        shown_frame: int | None,
        replay: Replay,
        quiet: str,
    ) -> None:
        """The section: `blocks` as `FrameRecords.log` gives them, `pinned` the frame
        picked on the timeline (None: live), `quiet` what an empty log says."""
        if not imgui.collapsing_header("Log", imgui.TreeNodeFlags_.default_open):
            return
        # Its own line inside the section: on the header, a click folded the section.
        narrow = imgui.get_content_region_avail().x < NARROW_PX
        label = "follow" if narrow else "follow the frame on show"
        _, self.follow = checkbox(label, self.follow)
        self.follow_rect = (imgui.get_item_rect_min(), imgui.get_item_rect_max())
        if imgui.is_item_hovered():
            imgui.set_tooltip(FOLLOW_TIP)
        self.blocks = blocks
        lines: list[str] = []
        starts: dict[int, int] = {}
        for frame, block in blocks:
            starts[frame] = len(lines)
            lines.extend(block)
        self.lines = lines
        self.highlight = self._highlight(replay, starts)
        line_h = imgui.get_text_line_height_with_spacing()
        avail = imgui.get_content_region_avail()
        room = max(avail.y, LOG_MIN_LINES * line_h)
        corner = imgui.get_cursor_screen_pos()
        top = corner.y
        # a short window's panel cuts the box (the panel scrolls): lines go where it is seen
        seen_bottom = min(top + room, imgui.get_window_draw_list().get_clip_rect_max().y)
        self._let_go(corner, imgui.ImVec2(corner.x + avail.x, top + room))
        # the lines' height, and the box's part below what is seen: its end can be scrolled up
        hidden = max(0.0, top + room - self._bar_below - seen_bottom)
        content = len(lines) * line_h - imgui.get_style().item_spacing.y + hidden
        if self.follow:
            at = self._scroll_to(
                starts, pinned, content if lines else 0.0, room, top, seen_bottom, line_h
            )
            imgui.set_next_window_scroll(imgui.ImVec2(-1.0, at))
        if lines:
            imgui.set_next_window_content_size(imgui.ImVec2(0.0, content))
        imgui.begin_child(
            "log",
            imgui.ImVec2(0.0, room),
            imgui.ChildFlags_.borders,
            imgui.WindowFlags_.horizontal_scrollbar,
        )
        io = imgui.get_io()
        if io.mouse_wheel < 0.0 and imgui.get_scroll_y() >= imgui.get_scroll_max_y() - 1.0:
            self.follow = imgui.is_window_hovered() or self.follow  # down to the end: on
        self._bar_below = imgui.get_style().scrollbar_size if imgui.get_scroll_max_x() else 0.0
        self._lines(lines, starts, replay, shown_frame, pinned, line_h)
        if not lines:  # wrapped: at a narrow panel the sentence is read whole
            imgui.push_style_color(
                imgui.Col_.text, imgui.get_style_color_vec4(imgui.Col_.text_disabled)
            )
            imgui.text_wrapped(quiet)
            imgui.pop_style_color()
        draw = imgui.get_window_draw_list()
        seen = (float(draw.get_clip_rect_min().y), float(draw.get_clip_rect_max().y))
        self.seen = seen
        self._was_seen = seen[1] > seen[0]
        seen_top = self._pin_header(starts, line_h, seen)
        imgui.end_child()
        self.box = (top, top + room)
        inside = [k for k, (y0, y1) in self.drawn.items() if y0 >= seen_top and y1 <= seen[1]]
        self.view = (min(inside), max(inside) + 1) if inside else (0, 0)

    def _pin_header(
        self, starts: dict[int, int], line_h: float, seen: tuple[float, float]
    ) -> float:
        """Where no ``# frame`` line is among the rows seen (a frame longer than the box,
        scrolled to its end: live, the newest frame's last lines), a row pinned at the
        box's top names the frame those lines are of, over the row there (a box cut so
        shows no header, yet its lines must say which frame they are of; where a header
        is seen, the lines above it are the frame before). `seen`: the part of
        the box seen, (top, bottom). Returns where the rows seen now begin on screen."""
        self.pinned_header = self.pinned_rect = None
        top, bottom = seen
        whole = sorted(k for k, (y0, y1) in self.drawn.items() if y0 >= top - 0.5 and y1 <= bottom)
        lit = self.highlight or (0, 0)
        named = any(self.lines[k].startswith("#") for k in whole)
        if len(whole) < 3 or named or lit[0] <= whole[0] < lit[1]:
            return top  # a header in view, or too few rows to give one up, or lit
        frame = max((f for f, at in starts.items() if at <= whole[0]), key=lambda f: starts[f])
        low = self.drawn[whole[0]][0] + line_h  # the partly seen row above it, and it
        draw, style = imgui.get_window_draw_list(), imgui.get_style()
        left = imgui.get_window_pos().x
        right = left + imgui.get_window_size().x - style.scrollbar_size
        draw.add_rect_filled(
            imgui.ImVec2(left, top),
            imgui.ImVec2(right, low),
            imgui.get_color_u32(imgui.Col_.window_bg),
        )
        draw.add_line(imgui.ImVec2(left, low), imgui.ImVec2(right, low), u32(self.colors.off))
        x = left + style.window_padding.x
        text = cut_to_width(f"# frame {frame} (continued)", right - x)
        middle = 0.5 * (top + low - imgui.get_text_line_height())
        draw.add_text(imgui.ImVec2(x, middle), u32(self.colors.dim), text)
        self.pinned_header, self.pinned_rect = frame, (top, low)
        return low

    def _let_go(self, low: imgui.ImVec2, high: imgui.ImVec2) -> None:
        """The wheel up, or a press, over the box: the user reads back, the log stays
        where they put it (known before the box begins, where its scroll is set)."""
        io = imgui.get_io()
        over = imgui.is_window_hovered(imgui.HoveredFlags_.child_windows)
        reading = io.mouse_wheel > 0.0 or io.mouse_down[0]
        if over and reading and imgui.is_mouse_hovering_rect(low, high):
            self.follow = False

    def _scroll_to(
        self,
        starts: dict[int, int],
        pinned: int | None,
        content: float,
        room: float,
        top: float,
        seen_bottom: float,
        line_h: float,
    ) -> float:
        """The box's scroll for this frame (its `content` that high): live, its end (the
        newest line at the bottom of the part seen); a picked frame's ``# frame`` line at
        the top, or the end where the lines after it are fewer than the box holds."""
        style = imgui.get_style()
        pad = float(style.window_padding.y)
        # ImGui clamps a scroll past the end to the end (its horizontal scrollbar counted),
        # except in a box wholly out of sight at the frame before: there, the scrollbar is
        # taken as it was then
        bar = float(style.scrollbar_size) if self._was_seen else self._bar_below
        end = max(0.0, content + 2.0 * pad - (room - bar))
        if pinned is None or pinned not in starts:
            return end
        top_line = starts[pinned]
        if self.highlight is not None:  # the lit node's lines mid-box
            rows_seen = max(1, int((seen_bottom - top - pad) // line_h))
            mid = sum(self.highlight) // 2  # (its world line, when one row is seen)
            top_line = max(top_line, mid - rows_seen // 2)
        return min(top_line * line_h, end)

    def _lines(
        self,
        lines: list[str],
        starts: dict[int, int],
        replay: Replay,
        shown_frame: int | None,
        pinned: int | None,
        line_h: float,
    ) -> None:
        """The rows in view (ImGui's clipper skips the others), each noted in `drawn`."""
        c = self.colors
        lit, unlit = self.highlight or (0, 0), self._unlit(replay, starts)
        self.drawn = {}
        clipper = imgui.ListClipper()
        clipper.begin(len(lines), line_h)
        while clipper.step():
            for k in range(clipper.display_start, clipper.display_end):
                text = lines[k]
                if lit[0] <= k < lit[1]:  # the node the replay lit last
                    p = imgui.get_cursor_screen_pos()
                    far = imgui.ImVec2(p.x + imgui.get_content_region_avail().x, p.y + line_h)
                    imgui.get_window_draw_list().add_rect_filled(
                        p, far, u32((1.0, 0.9, 0.45, 0.25))
                    )
                    color = c.note
                elif unlit[0] <= k < unlit[1]:  # not lit yet
                    color = c.off
                elif text.startswith("#"):
                    picked = pinned is not None and text == f"# frame {shown_frame}"
                    color = c.note if picked else c.dim
                elif text.startswith(("*", "~")):
                    color = c.local
                elif text.startswith("="):
                    color = c.world
                else:
                    color = c.dim
                imgui.text_colored(vec4(color), text)
                self.drawn[k] = (imgui.get_item_rect_min().y, imgui.get_item_rect_max().y)
        clipper.end()

    def _highlight(self, replay: Replay, starts: dict[int, int]) -> tuple[int, int] | None:
        frame = replay.frame
        if not replay.active or frame is None or frame not in starts:
            return None
        block = next(b for f, b in self.blocks if f == frame)
        span = line_of_node(block, replay.lit - 1)
        return None if span is None else (starts[frame] + span[0], starts[frame] + span[1])

    def _unlit(self, replay: Replay, starts: dict[int, int]) -> tuple[int, int]:
        """The replayed frame's lines of the nodes not lit yet."""
        frame = replay.frame
        if self.highlight is None or frame is None:
            return (0, 0)
        end = starts[frame] + len(next(b for f, b in self.blocks if f == frame))
        return self.highlight[1], end

    def block_of(self, frame: int) -> list[str] | None:
        """The log lines the box shows for `frame` (without its ``# frame`` line)."""
        for f, block in self.blocks:
            if f == frame:
                return block[1:]
        return None
