"""Numbers a program sets while the viewer runs (issue 36): an ``on_frame`` callback that
moves a node out of range (1e300 away, or scaled past what can be drawn along a chain)
ends the run with one line naming the node and the value, before anything is drawn from
it (the last good frame stays on show), never a numpy error from the renderer.

Generated at the session (no GL): chains of random depth and scales, a random node moved
or scaled out of range at a random frame; then once through ``viewer.show`` headless.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import viewer
from viewer.content.scene import Scene
from viewer.scene.graph import SceneGraph
from viewer.session.session import FrameError, Session
from viewer.text import MAX_MESSAGE


def _chain(depth: int, scales: list[float]) -> SceneGraph:
    g = SceneGraph()
    parent = None
    for k in range(depth):
        parent = g.add(f"N{k}", parent, position=(1.0, 0.0, 0.0), scale=(scales[k],) * 3)
    return g


@settings(max_examples=40, deadline=None)
@given(
    depth=st.integers(1, 5),
    scales=st.lists(st.floats(0.5, 2.0), min_size=5, max_size=5),
    victim=st.integers(0, 4),
    bad_frame=st.integers(1, 4),
    how=st.sampled_from(["position", "scale", "two scales"]),
    size=st.floats(4e13, 1e308),  # beyond 1e12 in world space, whatever the scales above
)
def test_an_out_of_range_value_from_on_frame_ends_in_one_line(
    depth, scales, victim, bad_frame, how, size
):
    victim %= depth
    g = _chain(depth, scales)
    name = f"N{victim}"

    def on_frame(graph, frame, t):
        node = graph[name]
        if frame < bad_frame:
            node.local_position = (1.0 + frame, 0.0, 0.0)  # in range: fine
        elif how == "position":
            node.local_position = (size, 0.0, 0.0)
        else:  # each factor is finite: their product is not drawable (or overflows)
            node.local_scale = (min(size, 1e300),) * 3
            if how == "two scales":
                graph[f"N{depth - 1}"].local_scale = (1e300,) * 3

    session = Session(Scene(graph=g))
    session.frame_callbacks.append(on_frame)
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        for _ in range(1, bad_frame):
            session.step(1 / 60)
        good = session.last_report
        with pytest.raises(FrameError) as info:
            session.step(1 / 60)
    line = str(info.value)
    assert "\n" not in line and len(line) <= MAX_MESSAGE and line.isprintable(), line
    assert f"frame {bad_frame}" in line and "out of range" in line
    named = [f"'N{k}'" for k in range(victim, depth)]  # the node moved, or one below it
    assert any(n in line for n in named), line
    assert session.last_report is good  # nothing of the bad frame was handed on


def test_show_ends_in_one_line_not_a_numpy_error(egl):
    g = _chain(3, [1.0] * 3)

    def on_frame(graph, frame, t):
        if frame == 2:
            graph["N1"].local_position = (1e300, 0.0, 0.0)

    with pytest.raises(FrameError, match=r"frame 2: .*'N1'.*1e\+300"):
        viewer.show(g, on_frame=on_frame, headless=True, frames=4, size=(64, 48))
