"""Recordings for slides: the frame of a touch is in the GIF although a GIF keeps every
second frame; every file written is named at the end; a long run's progress shows on a
terminal only."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from needs import need_gl
from PIL import Image, ImageSequence

from viewer.cli.main import main
from viewer.progress import Progress

TREE10 = str(Path(__file__).resolve().parents[1] / "scenes" / "tree10.toml")
SIZE = ["--size", "800x450"]  # wide enough for open panels: the flags and counters show


def _shot(tmp_path, frames: int) -> np.ndarray:
    path = tmp_path / f"frame{frames}.png"
    assert main([TREE10, "--headless", "--frames", str(frames), *SIZE, "--screenshot",
                 str(path)]) == 0  # fmt: skip
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)


def test_a_64_frame_gif_of_tree10_holds_the_touch_frame(tmp_path, capsys):
    need_gl().release()
    # tree10.toml touches Obj2 at frame 60, an even frame: the GIF's every second frame
    # (1, 3, 5, ...) would skip it, and with it the flags and counters of the touch.
    touch, before, after = (_shot(tmp_path, n) for n in (60, 59, 61))
    gif = tmp_path / "slides.gif"
    capsys.readouterr()
    assert main([TREE10, "--headless", "--frames", "64", *SIZE, "--record", str(gif)]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == f"sgview: recording saved: {gif}"
    frames = [np.asarray(f.convert("RGB"), dtype=np.float64) for f in ImageSequence.Iterator(
        Image.open(gif))]  # fmt: skip

    def unlike(a, b) -> int:  # panel pixels that differ clearly (beyond the GIF's palette)
        a, b = (np.concatenate([x[:, :215], x[:, -195:]], axis=1) for x in (a, b))
        return int((np.abs(a - b).sum(axis=2) > 60).sum())

    # The neighbours are unlike the touch frame (its flags and counters in the panels) ...
    apart = min(unlike(before, touch), unlike(after, touch))
    assert apart > 200
    # ... and the GIF holds the touch frame itself.
    assert min(unlike(f, touch) for f in frames) < 0.2 * apart
    assert len(frames) == 32  # the timing is as before: 32 frames of 1/30 s


def test_screenshot_and_dump_world_name_their_files_on_stderr(tmp_path, capsys):
    need_gl().release()
    shot, dump = tmp_path / "a.png", tmp_path / "w.json"
    assert main([TREE10, "--headless", *SIZE, "--screenshot", str(shot), "--dump-world",
                 str(dump)]) == 0  # fmt: skip
    # On stderr: stdout stays the --log a teacher compares with the textbook.
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"sgview: screenshot saved: {shot}",
        f"sgview: world matrices saved: {dump}",
    ]


class _Terminal(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_progress_shows_on_a_terminal_after_a_second_and_clears(tty):
    now = [0.0]
    stream = _Terminal(tty)
    progress = Progress(400, stream, clock=lambda: now[0])
    progress.tick(10)  # a short run says nothing
    assert stream.getvalue() == ""
    now[0] = 1.5
    progress.tick(100)
    now[0] = 1.6
    progress.tick(110)  # too soon after the last line
    now[0] = 2.0
    progress.tick(200)
    progress.close()
    if tty:
        assert stream.getvalue() == (
            "\rsgview: frame 100 of 400 (25 %)\rsgview: frame 200 of 400 (50 %)\r\x1b[K"
        )
    else:
        assert stream.getvalue() == ""
