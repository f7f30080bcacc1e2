"""The slow replay (V) in the notebook widget: paused, the widget keeps asking for frames
while the replay runs (a paused view otherwise asks for none), the nodes light one by one,
and it stops asking once the replay is over."""

from __future__ import annotations

import time

import numpy as np
from widget_helpers import DrawRequests, key, make


def test_v_in_the_widget_replays_the_frame_while_paused(egl, rfb):
    w = make()
    try:
        for _ in range(3):
            w.get_frame()
        w.session.select(w.session.graph["Obj2"].id)
        key(w, "t")
        w.get_frame()
        key(w, " ")  # paused, the touch's frame on show
        w.get_frame()
        requests = DrawRequests(w)
        w.app.overlay.replay.speed = 4.0  # below one node a frame
        key(w, "v")
        assert w.app.overlay.replay.active
        ids = np.asarray(w.session.graph.peek.alive_ids())
        counts = [int((w.app.renderer.glow.kinds(ids) != 0).sum())]
        deadline = time.monotonic() + 20.0
        while requests.take():
            assert time.monotonic() < deadline, "the widget never stopped asking"
            w.get_frame()
            counts.append(int((w.app.renderer.glow.kinds(ids) != 0).sum()))
        assert not w.app.overlay.replay.active
        rising = [n for k, n in enumerate(counts) if k == 0 or n != counts[k - 1]]
        assert rising[:2] == [1, 2] and max(counts) == 2  # Obj2, then Obj5
    finally:
        w.close()
