"""The slow replay's lit log lines are on screen in a short window: at getting-started's
--size 960x540 the Frames panel cuts its log box (the panel scrolls), and the lines lit
after the first node were below the window's edge (issue 34's newcomer trial). The log
scrolls within the part of its box that is seen, live and in a replay."""

from __future__ import annotations

from pathlib import Path

import app_driver

from viewer.io.loader import load_scene

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def _rows_on_screen(frames, height: int) -> range:
    """The log's rows a person sees (in part, at least their top): from the rectangles
    ImGui gave the rows drawn, those that begin inside the box's part seen, above the
    window's edge."""
    top, bottom = frames.log.seen
    bottom = min(bottom, height)
    seen = sorted(k for k, (y0, y1) in frames.log.drawn.items() if top <= y0 < bottom)
    return range(seen[0], seen[-1] + 1) if seen else range(0)


def test_each_lit_node_s_lines_are_on_screen_at_960x540(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (960, 540))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True, touches={2: ["Obj1"]})
    d.run(3)
    d.press("SPACE")
    d.frame(2)
    frames = d.app.overlay.panel.frames
    latest = len(frames.log.lines) - 1
    assert latest in _rows_on_screen(frames, 540), frames.log.view  # live: the newest seen
    d.app.overlay.replay.speed = 30.0  # a node each two drawn frames: the log scrolls to
    d.press("V")  # the lit node's lines in the first, they are seen in the second
    seen_lit: dict[str, bool] = {}
    for _ in range(24):  # ten nodes, then the hold on the last
        d.frame()
        first, stop = frames.log.highlight
        rows = _rows_on_screen(frames, 540)
        whole = stop - 1 in rows and (first in rows or len(rows) < stop - first)
        node = frames.log.lines[stop - 1]  # its world line (all it fits, in one row)
        seen_lit[node] = seen_lit.get(node, False) or whole
    assert len(seen_lit) == 10 and all(seen_lit.values()), seen_lit
