"""A file opened while the motion is stopped (S) waits at its start: issue 34's newcomer
trial opened a .glb with Ctrl+O, the panel said the clip waited at 0.00, and S then
started it at 17.7 s, the scene clock the old scene had reached. An opened scene starts
at frame 0 and scene time 0, its motions and clips with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from gltf_rig import write_rig

from viewer.io import load_scene

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("motion_on_at_open", [False, True])
def test_an_opened_clip_starts_at_zero_whatever_the_old_clock(drive, tmp_path, motion_on_at_open):
    d = drive(load_scene(REPO / "scenes" / "tree10.toml"))
    d.frame(90)  # the old scene's clock: 1.5 s
    session = d.app.session
    assert session.time == pytest.approx(1.5)
    if not motion_on_at_open:
        session.toggle_motion()  # S: stopped
    d.window.files_dropped_event_func(10, 10, [str(write_rig(tmp_path))])
    d.frame(3)
    player = session.animation
    assert session.scene.source.name == "rig.glb" and player is not None
    if not motion_on_at_open:
        assert player.time == 0.0  # waits at its start, as the panel says
        session.toggle_motion()  # S: runs
        d.frame(1)
        assert player.time == pytest.approx(1 / 60)  # from its start, one frame on
    else:
        assert player.time == pytest.approx(3 / 60)  # from its start, three frames on
    assert session.time == pytest.approx(player.time)
