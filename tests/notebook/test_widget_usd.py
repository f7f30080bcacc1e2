"""`viewer.widget(stage)`: the notebook widget follows a user's own ``pxr.Usd.Stage``.
A cell's pxr edit is the next frame's change of exactly that prim (it glows red on the
picture), its subtree follows, every matrix is XformCache's, and the stage's time samples
play in the widget as its animation. Driven in Python as the browser would
(widget_helpers.py), no browser."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pxr")

from pxr import Usd, UsdGeom  # noqa: E402
from widget_helpers import DrawRequests, glow_red_share, make, screen_of  # noqa: E402

pytestmark = pytest.mark.usefixtures("egl", "rfb")


def _stage(animated: bool = False) -> tuple[Usd.Stage, UsdGeom.XformOp]:
    """/World/Arm (a cube, moved by `move`) > Hand (a cube), and a Ball beside them."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    arm = UsdGeom.Cube.Define(stage, "/World/Arm")
    move = arm.AddTranslateOp()
    move.Set((-2, 0, 0))
    if animated:
        stage.SetStartTimeCode(0)
        stage.SetEndTimeCode(24)
        stage.SetTimeCodesPerSecond(24)
        move.Set((-2, 0, 0), 0)
        move.Set((-2, 3, 0), 24)
    hand = UsdGeom.Cube.Define(stage, "/World/Arm/Hand")
    hand.AddTranslateOp().Set((0, -3, 0))
    hand.AddScaleOp().Set((0.5, 0.5, 0.5))
    UsdGeom.Sphere.Define(stage, "/World/Ball").AddTranslateOp().Set((3, 0, 0))
    return stage, move


def _matches_usd(widget, stage: Usd.Stage, code: float) -> None:
    """Every prim's node stands where XformCache puts the prim (no root node: Y up, m)."""
    world = widget.session.graph.world_matrices()
    cache = UsdGeom.XformCache(code)
    for node, path in widget.session.scene.node_paths.items():
        want = np.array(cache.GetLocalToWorldTransform(stage.GetPrimAtPath(path))).T
        np.testing.assert_allclose(world[node], want, rtol=0, atol=1e-12)


def test_a_cell_s_pxr_edit_is_the_next_frame_s_change_of_that_prim():
    from viewer.embed.widget import _redraw_live_widgets  # what the kernel's hook runs

    stage, move = _stage()
    w = make(stage, log=True)
    try:
        graph = w.session.graph
        paths = set(w.session.scene.node_paths.values())
        assert {"/World/Arm", "/World/Arm/Hand", "/World/Ball"} <= paths
        requests = DrawRequests(w)
        move.Set((-2, 1.5, 0))  # the cell's edit
        _redraw_live_widgets()
        assert requests.take() == 1
        w.get_frame()
        report = w.session.last_report
        assert report.local_updated.tolist() == [graph["Arm"].id]
        assert sorted(report.world_updated.tolist()) == sorted([graph["Arm"].id,
                                                                graph["Hand"].id])  # fmt: skip
        _matches_usd(w, stage, 0.0)
        x, y = screen_of(w, "Arm")
        assert glow_red_share(w.image, x, y) > 0.5  # the edited prim glows red
        x, y = screen_of(w, "Ball")
        assert glow_red_share(w.image, x, y) == 0.0  # the others do not
    finally:
        w.close()


def test_a_stage_s_time_samples_play_in_the_widget():
    stage, _ = _stage(animated=True)
    w = make(stage)
    try:
        arm = w.session.graph["Arm"].id
        for _ in range(12):
            w.get_frame()
        assert arm in w.session.last_report.local_updated.tolist()
        # the widget's clock is the kernel's real time: the code of its time now, 24 a
        # second over the 1 s loop (the samples are linear: between keys too, exact)
        code = (w.session.time % 1.0) * 24
        _matches_usd(w, stage, code)
    finally:
        w.close()
