"""The notebook widget draws only when the picture can change: after an event or a cell,
then while the scene moves or a glow fades; never on its own when still or paused."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from widget_helpers import DrawRequests, key, make, screen_of

from viewer.embed.redraw_policy import needs_next_frame, simulation_moves
from viewer.keys.controls import HeldKeys


@dataclass
class FakeSession:
    paused: bool = False
    motion_on: bool = True
    editing: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(held=HeldKeys()))
    frame_callbacks: list = field(default_factory=list)
    motions: list = field(default_factory=list)
    collision: object = None
    animation: object = None

    @property
    def scene(self):
        return SimpleNamespace(motions=self.motions, collision=self.collision)


def test_a_still_scene_needs_no_frame():
    assert not needs_next_frame(FakeSession(), glowing=False)


@pytest.mark.parametrize(
    "change",
    [
        {"motions": ["spin"]},
        {"collision": object()},
        {"animation": SimpleNamespace(playing=True)},
        {"frame_callbacks": [lambda g, f, t: None]},
    ],
)
def test_what_moves_the_scene_keeps_it_drawing_unless_paused(change):
    assert simulation_moves(FakeSession(**change))
    assert not needs_next_frame(FakeSession(paused=True, **change), glowing=False)


def test_stopped_motion_and_a_paused_clip_do_not_draw():
    assert not simulation_moves(FakeSession(motions=["spin"], motion_on=False))
    assert not simulation_moves(FakeSession(animation=SimpleNamespace(playing=False)))
    # the user's callback runs even with the motion stopped (S stops the clock only)
    assert simulation_moves(FakeSession(motion_on=False, frame_callbacks=[print]))


def test_a_held_key_draws_while_held():
    session = FakeSession()
    session.editing.held.press("left")
    assert needs_next_frame(session, glowing=False)
    session.editing.held.release("left")
    session.editing.held.take()
    assert not needs_next_frame(session, glowing=False)


def test_a_glow_draws_while_it_fades_but_not_while_paused():
    assert needs_next_frame(FakeSession(), glowing=True)
    assert not needs_next_frame(FakeSession(paused=True), glowing=True)


# -- the widget itself -------------------------------------------------------------------


@pytest.fixture
def widget(egl, rfb):
    w = make()
    for _ in range(3):  # the first frames' layout glow fades out
        w.get_frame()
    yield w
    w.close()


def _run_until_still(widget, requests, asked: int = 0, limit: float = 5.0) -> int:
    """Draw each frame the widget asks for (as jupyter_rfb would; `asked`: requests
    already taken); returns the frames drawn."""
    frames, deadline = 0, time.monotonic() + limit
    while asked or requests.take():
        asked = 0
        assert time.monotonic() < deadline, "the widget never stopped asking for frames"
        widget.get_frame()
        frames += 1
    return frames


def test_still_widget_asks_for_nothing_and_an_event_asks_once(widget):
    requests = DrawRequests(widget)
    _run_until_still(widget, requests)
    widget.get_frame()
    assert requests.take() == 0  # nothing moves: no next frame
    widget.handle_event({"type": "pointer_move", "x": 400, "y": 200, "button": 0,
                         "buttons": (), "modifiers": ()})  # fmt: skip
    assert requests.take() == 1  # the panels may show a hover
    widget.handle_event({"type": "double_click", "x": 1, "y": 1, "button": 1, "buttons": ()})
    assert requests.take() == 0  # not an event sgview takes


def test_a_touch_draws_until_its_glow_faded_then_stops(widget):
    requests = DrawRequests(widget)
    _run_until_still(widget, requests)
    widget.session.select(widget.session.graph["Obj3"].id)
    key(widget, "t")
    assert requests.take() >= 1
    widget.get_frame()
    assert requests.take() == 1  # glowing: asks for the next frame
    frames = _run_until_still(widget, requests, asked=1)
    assert frames >= 2  # the fade takes a while (0.5 s), then it stops
    assert widget.app.renderer.glow.glowing()[0].size == 0  # stopped once faded


def test_paused_glow_stays_and_asks_for_nothing(widget):
    requests = DrawRequests(widget)
    widget.session.select(widget.session.graph["Obj3"].id)
    key(widget, "t")
    widget.get_frame()
    key(widget, " ")  # pause with the glow at full strength
    requests.take()
    widget.get_frame()
    assert requests.take() == 0
    assert widget.app.renderer.glow.glowing()[0].size > 0


def test_on_frame_callback_keeps_the_view_drawing(egl, rfb):
    from widget_helpers import tree

    calls = []
    w = make(tree(), on_frame=lambda g, frame, t: calls.append(frame))
    try:
        requests = DrawRequests(w)
        w.get_frame()
        assert requests.take() == 1 and calls
        key(w, " ")
        requests.take()
        w.get_frame()
        assert requests.take() == 0  # paused: the callback is not called, nothing moves
    finally:
        w.close()


def test_a_failing_on_frame_pauses_the_view_and_raises(egl, rfb):
    from widget_helpers import tree

    def boom(graph, frame, t):
        if frame >= 2:
            raise ValueError("my callback broke")

    w = make(tree(), on_frame=boom)
    try:
        with pytest.raises(ValueError, match="my callback broke"):
            w.get_frame()
        assert w.session.paused  # the last good picture stays; no failure per frame
        assert w.get_frame() is not None
        assert screen_of(w, "Obj1")
    finally:
        w.close()


def test_a_scene_file_with_motion_keeps_drawing_until_stopped(egl, rfb):
    """A loaded scene (not only a graph) shows in a view; its motion moves every frame,
    S stops it and the view goes still once the glow faded."""
    import viewer
    from viewer.io.loader import load_scene

    scene = load_scene(Path(__file__).parents[2] / "scenes" / "solar_system.toml")
    w = viewer.widget(scene)
    try:
        requests = DrawRequests(w)
        w.get_frame()
        assert requests.take() == 1
        world = w.session.graph.world_matrices().copy()
        w.get_frame()
        assert not np.array_equal(world, w.session.graph.world_matrices())  # it moved
        key(w, "s")
        requests.take()
        assert _run_until_still(w, requests, asked=1) >= 1
    finally:
        w.close()


def test_after_an_idle_spell_the_clock_steps_at_most_max_frame_time(widget):
    """The scene (and a glow's fade) goes on where it stopped: an idle view does not
    jump ahead, and a slow one shows each glow in several frames."""
    from viewer.embed.widget import MAX_FRAME_TIME

    glow = widget.app.renderer.glow
    before = glow.now
    time.sleep(0.3)
    widget.get_frame()
    assert 0 < glow.now - before <= MAX_FRAME_TIME + 1e-9
