"""The log follows on every frame, not a frame late (issue 34's fourth newcomer trial: in
a real window, with follow ticked, the live log was empty for 30 frames after the
motion stopped, then showed only the newest frame's last 2 lines at its top).

ImGui applies a scroll asked for inside a window at the next frame, against the content
drawn at the frame before; once the motion stops, the old frames' reports go one a frame
and the log loses a frame's lines at its top each frame, so the box showed the log's end
as it was at the frame before: past the end. Headless runs lay each frame out twice
(`Overlay.draw`), which hid it; here each frame is laid out once, as in a window.

The log box is drawn alone in a bare ImGui context (no GL needed), over random sequences
of frames (lines added, old frames' lines dropped, the window's height and the section
above the log changing), and every frame is checked from ImGui's own item rectangles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from imgui_bundle import imgui

from viewer.overlay.frame_log import FrameLog
from viewer.overlay.replay import Replay

WIDTH = 300.0


class BareLog:
    """A FrameLog in a window of its own, each frame laid out once."""

    def __init__(self) -> None:
        self.ctx = imgui.create_context()
        io = imgui.get_io()
        io.display_size = imgui.ImVec2(800.0, 1000.0)
        io.fonts.build()
        io.set_ini_filename("")
        self.log = FrameLog()
        self.replay = Replay()
        self._first = True

    def frame(self, blocks, height: float, above: int = 0, pinned: int | None = None,
              wheel: float = 0.0, mouse=(-1.0, -1.0)) -> None:  # fmt: skip
        io = imgui.get_io()
        io.delta_time = 1.0 / 60.0
        io.add_mouse_pos_event(*mouse)
        if wheel:
            io.add_mouse_wheel_event(0.0, wheel)
        for _ in range(2 if self._first else 1):  # as `Overlay.draw`: the first one twice
            imgui.new_frame()
            imgui.set_next_window_pos(imgui.ImVec2(0.0, 0.0))
            imgui.set_next_window_size(imgui.ImVec2(WIDTH, height))
            imgui.begin("Frames", None, imgui.WindowFlags_.no_saved_settings)
            for k in range(above):  # a section above the log, of some height
                imgui.text(f"counter {k}")
            self.log.draw(blocks, pinned, pinned, self.replay, "nothing")
            imgui.end()
            imgui.render()
        self._first = False

    def close(self) -> None:
        imgui.destroy_context(self.ctx)


@pytest.fixture
def bare():
    b = BareLog()
    yield b
    b.close()


def block(frame: int, size: int) -> tuple[int, list[str]]:
    return frame, [f"# frame {frame}"] + [f"=Update World : Obj{i}=" for i in range(size)]


def rows(log: FrameLog) -> list[int]:
    """The lines seen, from the item rectangles ImGui gave them: wholly inside the
    part of the box seen."""
    top, bottom = log.seen
    return sorted(k for k, (y0, y1) in log.drawn.items() if y0 >= top and y1 <= bottom)


def line_h() -> float:
    return imgui.get_text_line_height_with_spacing()


def check_live(log: FrameLog) -> None:
    """The newest frame in view: its lines fill the box to its bottom, its `# frame`
    line seen too where the frame's lines fit."""
    if not log.lines:
        assert not log.drawn
        return
    pad = imgui.get_style().window_padding.y
    if log.seen[1] - log.box[0] < line_h() + 2 * pad:
        return  # the window's edge leaves no row of the box seen (the panel scrolls)
    seen = rows(log)
    n = len(log.lines)
    header = n - len(log.blocks[-1][1])
    assert seen, "nothing of the log seen"
    assert seen == list(range(seen[0], seen[-1] + 1))  # no gap
    assert seen[-1] == n - 1, (seen, n)  # the newest line seen
    gap = log.seen[1] - log.drawn[n - 1][1]
    if seen[0] > 0:  # lines above: the box is filled to its bottom, no blank row below
        assert gap < line_h() + pad, gap
    if n - header <= len(seen):  # it fits: the frame's header is seen
        assert header in seen, (header, seen)


def check_picked(log: FrameLog, header: int) -> None:
    """A picked frame: its `# frame` line at the top, or, where the lines after it are
    fewer than the box holds, seen and the log's end at the bottom."""
    seen = rows(log)
    assert header in seen, (header, seen)
    assert seen[0] == header or seen[-1] == len(log.lines) - 1, (header, seen)


sizes = st.lists(st.integers(0, 30), min_size=1, max_size=4)  # new frames' lines


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            sizes,
            st.integers(0, 5),
            st.sampled_from([200.0, 360.0, 720.0, 1000.0]),
            st.integers(0, 12),
        ),
        min_size=2,
        max_size=25,
    )
)
def test_live_the_newest_frame_is_in_view_on_every_frame(steps):
    """Each step: new frames (their line counts, 0: a frame that changed nothing), old
    frames dropped at the top, the window's height, the lines above the log."""
    b = BareLog()
    try:
        blocks: list[tuple[int, list[str]]] = []
        frame = 0
        for new, dropped, height, above in steps:
            for size in new:
                frame += 1
                if size:
                    blocks.append(block(frame, size))
            del blocks[:dropped]
            b.frame(list(blocks), height, above)
            check_live(b.log)
    finally:
        b.close()


def test_the_motion_stops_and_old_frames_go_one_a_frame(bare):
    """The trial's case: a long log, then no new lines while the oldest frames' lines go
    one frame a frame (their reports dropped): the box never runs past the log's end."""
    blocks = [block(f, 8) for f in range(1, 300)]
    bare.frame(list(blocks), 720.0, above=20)
    while blocks:
        del blocks[:1]
        bare.frame(list(blocks), 720.0, above=20)
        check_live(bare.log)
        if blocks:
            assert len(rows(bare.log)) >= min(len(bare.log.lines), 10)


def test_a_short_window_cuts_the_box_and_the_newest_lines_go_where_it_is_seen(bare):
    """The panel scrolls when its window is shorter than the box needs: the box's part
    below the window's edge is not seen, the newest lines are above it."""
    blocks = [block(f, 5) for f in range(1, 60)]
    for f in range(60, 90):
        blocks.append(block(f, 3 + f % 7))
        del blocks[: f % 3]
        bare.frame(list(blocks), 150.0, above=2)
        top, bottom = bare.log.box
        assert bare.log.seen[1] < bottom - 2 * line_h()  # cut
        check_live(bare.log)


def test_a_picked_frame_is_at_the_top_on_the_frame_it_is_picked(bare):
    blocks = [block(f, 2 + f % 5) for f in range(1, 120)]
    bare.frame(list(blocks), 720.0)
    for pinned in (30, 31, 80, 2, 118, 119):
        bare.frame(list(blocks), 720.0, pinned=pinned)
        header = bare.log.lines.index(f"# frame {pinned}")
        check_picked(bare.log, header)
        if len(bare.log.lines) - header > 20:
            assert rows(bare.log)[0] == header


def test_a_wide_line_s_scrollbar_hides_no_newest_line(bare):
    """A line wider than the box brings its horizontal scrollbar: the newest line stays
    above it."""
    blocks = [block(f, 6) for f in range(1, 50)]
    for f in range(50, 70):
        blocks.append((f, [f"# frame {f}", "=Update World : " + "W" * (f % 3) * 40 + "="]))
        bare.frame(list(blocks), 720.0)
        check_live(bare.log)


def test_the_wheel_up_lets_go_and_the_log_stays_where_it_was_put(bare):
    blocks = [block(f, 6) for f in range(1, 80)]
    bare.frame(list(blocks), 720.0)
    top, bottom = bare.log.box
    at = (WIDTH / 2, (top + bottom) / 2)
    bare.frame(list(blocks), 720.0, mouse=at)
    bare.frame(list(blocks), 720.0, mouse=at, wheel=2.0)
    bare.frame(list(blocks), 720.0, mouse=at)
    assert not bare.log.follow
    held = bare.log.view
    assert held[1] < len(bare.log.lines)  # scrolled up: the end not seen
    for f in range(80, 90):
        blocks.append(block(f, 6))
        bare.frame(list(blocks), 720.0, mouse=at)
        assert bare.log.view == held
