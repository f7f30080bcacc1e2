"""The panel's Animation section on the code-built skinned rig (tests/gltf_rig.py): its
controls pick, pause and scrub the clip, the frame after a scrub flags exactly the
animated joints as local, and while a clip plays the overlay's red nodes are exactly the
nodes with the local flag."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # gltf_rig
from gltf_rig import BEND_CHANNELS, WAVE_CHANNELS, write_rig  # noqa: E402

from viewer.io import load_scene  # noqa: E402

BEND_JOINTS = {name for name, *_ in BEND_CHANNELS}
WAVE_JOINTS = {name for name, *_ in WAVE_CHANNELS}


@pytest.fixture
def rig(tmp_path):
    return load_scene(write_rig(tmp_path))


def local_names(d) -> set[str]:
    g = d.app.session.graph
    report = d.app.session.last_report
    return {g.name_of(int(i)) for i in report.local_updated}


def red_names(d) -> set[str]:
    """The nodes glowing red (negative glow) in the renderer."""
    ids, values = d.app.renderer.glow.glowing()
    g = d.app.session.graph
    return {g.name_of(int(i)) for i in ids[values < 0]}


def centre(rect) -> tuple[float, float]:
    x0, y0, x1, y1 = rect
    return 0.5 * (x0 + x1), 0.5 * (y0 + y1)


def test_the_section_shows_only_for_scenes_with_animations(drive, rig):
    from viewer.io import default_scene

    d = drive(default_scene())
    d.frame(2)
    assert d.app.session.animation is None
    assert d.app.overlay.panel.scene.animation.rects == {}
    d = drive(rig)
    d.frame(2)
    assert d.app.session.animation.names == ["Bend", "Wave"]
    assert {"clip", "play", "time"} <= set(d.app.overlay.panel.scene.animation.rects)


def test_clicking_pause_pick_and_scrub(drive, rig):
    d = drive(rig)
    d.app.settings.glow_fade = 0.0  # a glow lasts one frame: red = this frame's local
    d.frame(3)
    player = d.app.session.animation
    section = d.app.overlay.panel.scene.animation
    assert player.playing and player.current.name == "Bend"
    assert local_names(d) and local_names(d) <= BEND_JOINTS

    d.click(*centre(section.rects["play"]))  # Pause
    assert not player.playing
    paused_at = player.time
    d.frame(5)
    assert player.time == paused_at and local_names(d) == set()

    # Scrub while paused: the pose at the clicked time reaches the graph in one frame.
    x0, y0, x1, y1 = section.rects["time"]
    d.click(x0 + 0.8 * (x1 - x0), 0.5 * (y0 + y1))
    assert not player.playing
    assert 0.6 * player.current.duration < player.time < 0.95 * player.current.duration
    assert local_names(d) == BEND_JOINTS  # from frame 3's pose every channel moved
    d.frame(3)
    assert local_names(d) == set()

    # Open the list and pick "Wave": it starts from 0 and plays.
    d.click(*centre(section.rects["clip"]))
    d.frame()
    assert "clip 2" in section.rects
    d.click(*centre(section.rects["clip 2"]))
    assert player.current.name == "Wave" and player.playing
    assert local_names(d) <= WAVE_JOINTS

    # Scrub through the session action the slider calls: the step's new key shows.
    d.app.session.toggle_animation()
    d.app.session.scrub_animation(0.3)  # STEP: 45 degrees from 0.25 on
    d.frame()
    assert local_names(d) == WAVE_JOINTS == red_names(d)

    # "none": the animation stops, nothing is flagged any more.
    d.app.session.pick_animation(None)
    d.frame(2)
    assert player.current is None and local_names(d) == set()


def test_scrub_shows_while_the_session_is_paused_and_while_motion_is_stopped(drive, rig):
    d = drive(rig)
    d.frame(2)
    session = d.app.session
    session.toggle_pause()
    frame = session.frame
    session.scrub_animation(1.0)
    d.frame()
    assert session.frame == frame + 1 and local_names(d) == BEND_JOINTS
    d.frame(3)
    assert session.frame == frame + 1
    session.toggle_pause()
    session.toggle_motion()  # S: the clip waits ...
    d.frame(2)
    assert local_names(d) == set()
    session.scrub_animation(0.2)  # ... but a scrub still shows
    d.frame()
    assert local_names(d) == BEND_JOINTS
    d.frame()
    assert local_names(d) == set() and session.animation.playing


def test_while_a_clip_plays_the_red_nodes_are_the_local_flags(drive, rig):
    d = drive(rig)
    d.app.settings.glow_fade = 0.0
    seen = set()
    for _ in range(80):  # more than the clip's 1.25 s: through the loop
        d.frame()
        local = local_names(d)
        assert red_names(d) == local
        assert local <= BEND_JOINTS
        seen |= local
    assert seen == BEND_JOINTS
    g = d.app.session.graph
    ids, values = d.app.renderer.glow.glowing()
    orange = {g.name_of(int(i)) for i in ids[values > 0]}
    assert "Rig" not in orange and not orange & local_names(d)


def test_the_panel_shows_the_clip_time(drive, rig):
    d = drive(rig)
    d.frame(30)
    player = d.app.session.animation
    assert player.clip_time == pytest.approx(np.fmod(30 / 60, player.current.duration))
