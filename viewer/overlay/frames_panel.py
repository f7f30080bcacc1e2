"""The right panel, "Frames": the timeline of the session's frames (a click shows that
frame's report everywhere; the wheel scrolls; marks show touches, edits, reloads and clip
changes, and `[` / `]` jump to them), the frame's counters, the running totals of the
method against the naive one with their plot, and the frame log (docs/semantics.md).

The log (frame_log.py) follows what is on show; going back to live (`]` past the last
event, "live", "back to live") takes the timeline and the log back to the newest frame
together."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from imgui_bundle import imgui, implot
from numpy.typing import NDArray

from viewer.text import printable

from .frame_log import NARROW_PX, FrameLog
from .model import (
    MIN_BAR_WIDTH,
    quiet_log_text,
    timeline_back_to_show,
    timeline_index,
    timeline_span,
    timeline_window,
)
from .overlay_state import OverlayState
from .replay import SPEED_RANGE
from .stats import COUNTER_TIPS, counter_rows, totals_definition, totals_rows
from .timeline_records import EVENT_BITS, EVENT_KINDS, Entry
from .widgets import (
    COLORS,
    Color,
    Flow,
    ItemRect,
    button,
    fitted_line,
    key_value_table,
    u32,
    vec4,
)

TIMELINE_HEIGHT = 54.0
#: Height of the event marks along the timeline's top.
MARK_HEIGHT = 5.0
PLOT_HEIGHT = 110.0
#: Pixels between the timeline's tooltip and the timeline (or the panel's edge).
TIP_GAP = 4.0
LOG_LINES = 4000
#: Share of a narrow panel the counters' labels keep (their numbers are short).
NUMBERS_LABEL_SHARE = 0.62
#: Window heights below which the Totals section starts folded (the log keeps its room).
TOTALS_OPEN_FROM = 900


def place_tip_above(text: str, top: float) -> None:
    """The next tooltip (`text`) above the timeline whose top is at `top`: at the mouse,
    it would cover the buttons below the timeline (`|<`, `< event`, `event >`, `live`,
    the ones reached for next). Where the window's top leaves no room above, it goes
    to the left of the panel, over the view."""
    style = imgui.get_style()
    w = imgui.calc_text_size(text).x + 2.0 * style.window_padding.x
    h = imgui.calc_text_size(text).y + 2.0 * style.window_padding.y
    if top - TIP_GAP - h >= 0.0:
        screen_w = imgui.get_io().display_size.x
        x = min(max(imgui.get_mouse_pos().x - 0.5 * w, 0.0), max(screen_w - w, 0.0))
        imgui.set_next_window_pos(imgui.ImVec2(x, top - TIP_GAP), pivot=imgui.ImVec2(0.0, 1.0))
    else:
        left = imgui.get_window_pos().x - TIP_GAP
        imgui.set_next_window_pos(imgui.ImVec2(left, top), pivot=imgui.ImVec2(1.0, 0.0))


class FramesPanel:
    """Draws the right panel's sections (inside its ImGui window)."""

    def __init__(self, overlay: OverlayState) -> None:
        self.ov = overlay
        self.colors = COLORS
        c = self.colors
        self._mark_colors: dict[str, Color] = {
            "touch": c.local,
            "edit": c.note,
            "reload": c.executed,
            "clip": c.clip,
        }
        self.reset()

    def reset(self) -> None:
        #: Frames between the timeline's right end and the latest at the last draw (0: at
        #: the latest).
        self.back = 0
        #: The frame at the timeline's right end while it is scrolled back or shows a
        #: picked frame: it holds still on those frames while new ones come (None: it
        #: ends at the latest frame and follows it).
        self.end_frame: int | None = None
        self._followed: int | None = None
        self.timeline_first: int | None = None
        self.timeline_slot = MIN_BAR_WIDTH
        self.buttons_rect: ItemRect | None = None
        #: The Log section (it follows the frame on show: frame_log.py).
        self.log = FrameLog()
        self._live_shown = True  # whether the last draw showed the latest frame
        #: (frame, why the replay button found nothing to replay in it): said while that
        #: frame is on show (None: nothing to say).
        self.replay_note: tuple[int, str] | None = None
        #: The replay's line under the timeline (its progress, or why there was none) on
        #: screen as last drawn (None: the timeline's span shows).
        self.replay_line: ItemRect | None = None
        #: The timeline's (x, y, width, height) on screen at the last frame.
        self.timeline_rect: tuple[float, float, float, float] | None = None
        #: The line under the totals that defines them, as drawn last (None: not drawn).
        self.totals_note: str | None = None

    def draw(self, entry: Entry | None) -> None:
        self._timeline()
        self._replay_row()
        self._counters(entry)
        self._method()
        self._log()

    def _timeline(self) -> None:
        c, ov = self.colors, self.ov
        records = ov.timeline
        rec = records.records()
        frames, local, world, events = rec["frame"], rec["local"], rec["world"], rec["events"]
        imgui.push_style_color(imgui.Col_.text, vec4(c.dim))
        imgui.text_wrapped("timeline (click a frame, wheel scrolls)")
        imgui.pop_style_color()
        avail = float(imgui.get_content_region_avail().x)
        origin = imgui.get_cursor_screen_pos()
        imgui.invisible_button("timeline", imgui.ImVec2(max(avail, 1.0), TIMELINE_HEIGHT))
        hovered, clicked = imgui.is_item_hovered(), imgui.is_item_clicked()
        if hovered:  # the wheel scrolls the timeline, not the panel under it too
            imgui.set_item_key_owner(imgui.Key.mouse_wheel_y)
        first, stop, slot = self._scroll(frames, avail, hovered)
        #: What the timeline shows: (x, y, width, height), its first frame, pixels a frame.
        self.timeline_rect = (origin.x, origin.y, avail, TIMELINE_HEIGHT)
        self.timeline_first = int(frames[first]) if stop > first else None
        self.timeline_slot = slot
        draw = imgui.get_window_draw_list()
        x0, y0 = origin.x, origin.y
        y1 = y0 + TIMELINE_HEIGHT
        draw.add_rect_filled(origin, imgui.ImVec2(x0 + avail, y1), u32((0.0, 0.0, 0.0, 0.45)))
        frames, local = frames[first:stop], local[first:stop]
        world, events = world[first:stop], events[first:stop]
        n = len(frames)
        top = float(max(int(world.max()) if n else 1, 1))
        world_col, local_col = u32(c.world), u32(c.local)
        bar = slot - 1.0 if slot > 2.0 else slot  # a pixel between wide bars
        room = TIMELINE_HEIGHT - MARK_HEIGHT - 2.0
        for i in np.flatnonzero(world).tolist():
            xa = x0 + i * slot
            xb = xa + bar
            h = max(1.0, room * world[i] / top)
            draw.add_rect_filled(imgui.ImVec2(xa, y1 - h), imgui.ImVec2(xb, y1), world_col)
            if local[i]:
                hl = max(1.0, room * local[i] / top)
                draw.add_rect_filled(imgui.ImVec2(xa, y1 - hl), imgui.ImVec2(xb, y1), local_col)
        for i in np.flatnonzero(events).tolist():  # a mark above the bar, by kind
            kind = next(k for k in EVENT_KINDS if int(events[i]) & EVENT_BITS[k])
            xa = x0 + i * slot
            draw.add_rect_filled(
                imgui.ImVec2(xa, y0 + 1.0),
                imgui.ImVec2(xa + bar, y0 + 1.0 + MARK_HEIGHT),
                u32(self._mark_colors[kind]),
            )
        shown = ov.shown_entry
        if shown is not None and n and frames[0] <= shown.frame <= frames[-1]:
            i = int(np.searchsorted(frames, shown.frame))
            xa = x0 + i * slot
            draw.add_rect(
                imgui.ImVec2(xa - 1.0, y0),
                imgui.ImVec2(xa + slot, y1),
                u32(c.note if ov.pinned is not None else c.text),
            )
        if hovered and n:
            under = timeline_index(imgui.get_mouse_pos().x, x0, slot * n, n)
            if under is not None:
                frame = int(frames[under])
                notes = "".join(f"\n{kind}: {what}" for kind, what in records.notes(frame))
                tip = f"frame {frame}: {local[under]} local, {world[under]} world{notes}"
                place_tip_above(tip, y0)
                imgui.set_tooltip(tip)
                if clicked:
                    ov.pin(frame)
        self._span_line(timeline_span(frames, records))
        flow = Flow()  # side by side where they fit
        first_button = imgui.get_cursor_screen_pos()
        buttons: tuple[tuple[str, str, Callable[[], int | None]], ...] = (
            ("|<", "scroll the timeline to the oldest frame kept", self._scroll_to_oldest),
            (
                "< event",
                "[: show the frame of the event (touch, edit, reload, clip change)\n"
                "before the one shown",
                lambda: ov.jump_to_event(-1),
            ),
            (
                "event >",
                "]: show the frame of the next event after the one shown; after the\n"
                "last, back to live",
                lambda: ov.jump_to_event(1),
            ),
            ("live", "show the newest frame, the timeline and the log following it", self._live),
        )
        for label, tip, action in buttons:
            flow.place(Flow.button_width(label))
            if button(label, tip, small=True):
                action()
        #: The row of buttons below the timeline: (min, max) on screen.
        self.buttons_rect = (first_button, imgui.get_item_rect_max())

    def _scroll(
        self, frames: NDArray[np.int64], avail: float, hovered: bool
    ) -> tuple[int, int, float]:
        """The timeline's window on the kept `frames` (see `timeline_window`). Scrolled
        back, or showing a picked frame, it stays on the same frame numbers while new
        frames come (at 5-20 frames a second the bar under the pointer would slide away),
        until the wheel, `live`, or those frames no longer kept (then: the oldest kept)."""
        ov, count = self.ov, len(frames)
        end_frame = self.end_frame
        held, back = end_frame is not None, 0
        if end_frame is not None:  # frames after its right end (before the oldest: the oldest)
            back = count - int(np.searchsorted(frames, end_frame, side="right"))
        wheel = round(imgui.get_io().mouse_wheel) if hovered else 0
        if wheel:
            back = max(0, back + int(wheel) * max(1, int(avail // MIN_BAR_WIDTH) // 4))
            held = back > 0  # scrolled to the latest: it follows again
        if ov.pinned is None and not self._live_shown:  # back to live: all of it
            back, held, self.log.follow = 0, False, True
        self._live_shown = ov.pinned is None
        pinned = ov.pinned
        pinned_at = ov.timeline.index_of(pinned) if pinned is not None else None
        if pinned_at is not None and pinned_at != self._followed:  # picked: its lines in view
            self.log.follow = True
            back = timeline_back_to_show(avail, count, pinned_at, back)
        self._followed = pinned_at
        first, stop, slot = timeline_window(avail, count, back)
        self.back = count - stop
        held = stop > 0 and (held or pinned_at is not None)
        self.end_frame = int(frames[stop - 1]) if held else None  # held on what it shows
        return first, stop, slot

    def _replay_row(self) -> None:
        """The button that replays the frame on show slowly (V) and its speed (where
        the replay is: `_span_line`)."""
        ov = self.ov
        replay = ov.replay
        narrow = imgui.get_content_region_avail().x < NARROW_PX
        label = "replay slowly (V)" if narrow else "replay this frame slowly (V)"
        tip = (
            "light the frame's recomputed nodes one by one, in the order\n"
            "update() ran them (pre-order), each with its log lines"
        )
        if button("stop replay (V)" if replay.active else label, tip, small=True):
            was_running = replay.active
            started, entry = ov.replay_shown(), ov.shown_entry
            quiet = entry is not None and not (was_running or started)
            self.replay_note = None
            if quiet and entry is not None:
                self.replay_note = (entry.frame, f"frame {entry.frame}: nothing to replay")
        imgui.set_next_item_width(-1.0)  # the whole width: its own line
        changed, speed = imgui.drag_float(
            "##speed", replay.speed, 0.05, *SPEED_RANGE, "replay speed %.1f nodes/s"
        )
        if changed:  # a typed value too
            replay.speed = min(max(float(speed), SPEED_RANGE[0]), SPEED_RANGE[1])
        if imgui.is_item_hovered():
            imgui.set_tooltip("drag to change, or double-click and type")

    def _span_line(self, span: str) -> None:
        """The line under the timeline: the frames it shows; while a slow replay runs,
        where it is, and after V found nothing to replay, why (in its place: the row of
        buttons below, the replay's row and the log stay where they are as a replay
        starts, goes from node to node and ends)."""
        ov, c = self.ov, self.colors
        replay = ov.replay
        current = replay.current
        if replay.active and current is not None:
            name = printable(ov.host.graph.peek.name_of(current), 40)
            progress = f"node {replay.lit} of {replay.order.size}"
            self.replay_line = fitted_line(
                [
                    f"replay of frame {replay.frame}: {progress}, {name}",
                    f"frame {replay.frame}: {progress}, {name}",
                    f"frame {replay.frame}: {progress}",
                    progress,
                ],
                c.note,
            )
        elif self.replay_note is not None and self.replay_note[0] == self._shown_frame():
            self.replay_line = fitted_line([self.replay_note[1]], c.dim)
        else:
            self.replay_line = None
            fitted_line([span], c.dim)

    def _shown_frame(self) -> int | None:
        entry = self.ov.shown_entry
        return None if entry is None else entry.frame

    def _scroll_to_oldest(self) -> None:
        self.end_frame = -1  # before every kept frame: its window starts at the oldest

    def _live(self) -> None:
        self.ov.pin(None)  # which also brings the timeline and the log back to live

    def back_to_live(self) -> None:
        """Live asked for (`live`, `]` past the last event): the timeline's right end at
        the latest frame and the log following it, also when already live."""
        self.back, self.end_frame, self.log.follow = 0, None, True

    def _counters(self, entry: Entry | None) -> None:
        c, ov = self.colors, self.ov
        if not imgui.collapsing_header("Counters", imgui.TreeNodeFlags_.default_open):
            return
        if entry is None:
            imgui.text_disabled("no frame yet")
            return
        imgui.text_colored(vec4(c.dim), f"frame {entry.frame}")
        narrow = imgui.get_content_region_avail().x < NARROW_PX
        key_value_table(
            "counters",
            counter_rows(entry.stats),
            tips=COUNTER_TIPS,
            wrap=narrow,
            label_share=NUMBERS_LABEL_SHARE,
        )
        if entry.weights:  # a change that moved no matrix
            imgui.text_colored(vec4(c.local), f"weights/instances: {len(entry.weights)} node(s)")
        if ov.deterministic:
            imgui.text_colored(vec4(c.dim), "times: not shown headless")
        else:  # a row each: at 100k nodes one line of three times is wider than the panel
            fps = "paused" if ov.host.paused else f"{ov.timings.fps:.1f}"
            rows = [*ov.timings.rows(), ("frames per second", fps)]
            key_value_table(
                "times", rows, tips=COUNTER_TIPS, wrap=narrow, label_share=NUMBERS_LABEL_SHARE
            )

    def _method(self) -> None:
        """The method, measured: running totals of products done against the naive
        method's, and both over the kept frames."""
        c, ov = self.colors, self.ov
        if ov.wnd.size[1] >= TOTALS_OPEN_FROM:
            imgui.set_next_item_open(True, imgui.Cond_.once)
        if not imgui.collapsing_header("Totals"):
            return
        totals = ov.timeline.totals
        if totals.since is None:
            imgui.text_disabled("no frame counted yet")
        else:
            since = f"since frame {totals.since} ({totals.frames:,} frames)"
            imgui.text_colored(vec4(c.dim), since)
            narrow = imgui.get_content_region_avail().x < NARROW_PX
            key_value_table(
                "totals",
                totals_rows(totals),
                tips=COUNTER_TIPS,
                wrap=narrow,
                label_share=NUMBERS_LABEL_SHARE,
            )
            last = ov.timeline.last
            if last is not None:  # what the two counts count, where they are read
                self.totals_note = totals_definition(last.stats.naive_products)
                imgui.push_style_color(imgui.Col_.text, vec4(c.dim))
                imgui.text_wrapped(self.totals_note)
                imgui.pop_style_color()
        tip = "count the running totals from the next frame on"
        if button("reset totals", tip, small=True):
            ov.reset_totals()
        frames, done, naive = ov.timeline.cumulative()
        if frames.size < 2:
            return
        plot_flags = implot.Flags_.no_title | implot.Flags_.no_menus
        if implot.begin_plot("##method", imgui.ImVec2(-1.0, PLOT_HEIGHT), plot_flags):
            implot.setup_axes("frame", "", 0, implot.AxisFlags_.auto_fit)
            implot.setup_axis(implot.ImAxis_.x1, "frame", implot.AxisFlags_.auto_fit)
            implot.setup_legend(implot.Location_.north_west)
            xs = frames.astype(np.float64)
            implot.set_next_line_style(vec4(c.dim))
            implot.plot_line("naive", xs, naive.astype(np.float64))
            implot.set_next_line_style(vec4(c.executed))
            implot.plot_line("done", xs, done.astype(np.float64))
            implot.end_plot()

    def _log(self) -> None:
        ov = self.ov
        records = ov.timeline
        pinned = ov.pinned
        if pinned is None:
            blocks = records.log(LOG_LINES)
        else:  # the picked frame and some after it, so that it can be at the top
            blocks = records.log(LOG_LINES // 2, until=pinned)
            if not blocks or blocks[-1][0] != pinned:  # no lines of its own: it says why
                blocks.append((pinned, records.own_block(pinned)))
            blocks += records.log_after(pinned, LOG_LINES // 2)
        shown = ov.shown_entry
        shown_frame = shown.frame if shown is not None else None
        self.log.draw(blocks, pinned, shown_frame, ov.replay, quiet_log_text(records))
