"""Time samples play as the scene's animation: frame N (t = N/60 s) shows time code
startTimeCode + t * timeCodesPerSecond, looping over [start, end], exactly as pxr's
XformCache evaluates it (held and linear interpolation); an unauthored range shows the
start time code on every frame."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pxr")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402
from stages import assert_matches_usd, scene_of  # noqa: E402

from viewer.animation import apply_animation  # noqa: E402


def _animated_stage(start, end, per_second, held=False, samples=((0, 0), (24, 90))) -> Usd.Stage:
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetStartTimeCode(start)
    stage.SetEndTimeCode(end)
    stage.SetTimeCodesPerSecond(per_second)
    if held:
        stage.SetInterpolationType(Usd.InterpolationTypeHeld)
    arm = UsdGeom.Xform.Define(stage, "/Arm")
    move = arm.AddTranslateOp()
    turn = arm.AddRotateXYZOp()
    for code, value in samples:
        move.Set((value / 30, 0, 1), code)
        turn.Set((value, value / 2, -value), code)
    hand = UsdGeom.Cube.Define(stage, "/Arm/Hand")
    hand.AddTranslateOp().Set((2, 0, 0))
    hand.AddScaleOp().Set((1, 2, 1))
    hand.AddRotateZOp().Set(30)  # shear under the parent's turn: two nodes, still exact
    return stage


def _code(stage, frame: int) -> float:
    """Frame N's time code: start + t * per_second, t = N * (1/60) (the session's clock)
    looped over the range; where the frames' places in the loop repeat after P frames,
    frame N repeats frame N mod P exactly (fmod alone would land an ulp beside it, the
    other side of a held jump on a frame)."""
    start, end = stage.GetStartTimeCode(), stage.GetEndTimeCode()
    per_second = stage.GetTimeCodesPerSecond()
    if not stage.HasAuthoredTimeCodeRange() or end <= start:
        return start
    span = (end - start) / per_second
    for loops in range(1, 9):  # the frames' places in the loop repeat after `period`
        period = span * 60 * loops
        if abs(period - round(period)) < 1e-9:
            frame %= round(period)
            break
    return start + math.fmod(frame * (1 / 60), span) * per_second


@given(
    st.integers(-50, 50),
    st.integers(1, 90),
    st.sampled_from([24.0, 30.0, 60.0, 12.5]),
    st.booleans(),
)
def test_frames_show_the_time_code_usd_evaluates(start, length, per_second, held):
    samples = ((start, 0), (start + length / 3, 45), (start + length, 90))
    stage = _animated_stage(start, start + length, per_second, held, samples)
    scene = scene_of(stage)
    frames = int(10 * 60 * length / per_second) + 2  # ten loops: the frames repeat
    for frame in list(range(0, frames, max(1, frames // 60))) + [frames]:
        apply_animation(scene, frame * (1 / 60))
        scene.graph.update()
        assert_matches_usd(scene, stage, _code(stage, frame))


def test_held_segments_change_nothing():
    stage = _animated_stage(0, 48, 24, held=True, samples=((0, 0), (24, 90)))
    scene = scene_of(stage)
    changed = []
    for frame in range(1, 100):
        apply_animation(scene, frame * (1 / 60))
        changed.append(len(scene.graph.update().local_updated))
    # the value jumps at code 24 (t = 1 s, frame 60) and back at the loop (frame 120)
    assert [f + 1 for f, n in enumerate(changed) if n] == [60]


def test_unauthored_range_shows_the_start_code_on_every_frame():
    stage = _animated_stage(0, 0, 24, samples=((5, 10), (20, 80)))
    stage.GetRootLayer().ClearStartTimeCode()
    stage.GetRootLayer().ClearEndTimeCode()
    scene = scene_of(stage)
    assert scene.animation is None or not scene.animation.clips
    assert_matches_usd(scene, stage, stage.GetStartTimeCode())
