"""A user's own stage, live: the notices of their pxr edits become local changes (a
changed op) or structural ones (a resync), applied before the frame's update, so the
frame recomputes and glows exactly the prims an edit changed."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402
from stages import assert_matches_usd  # noqa: E402

from viewer.io.usd.live import LiveStage  # noqa: E402


def _stage():
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    arm = UsdGeom.Xform.Define(stage, "/World/Arm")
    move = arm.AddTranslateOp()
    move.Set((1, 0, 0))
    UsdGeom.Cube.Define(stage, "/World/Arm/Hand").AddTranslateOp().Set((0, 2, 0))
    UsdGeom.Sphere.Define(stage, "/World/Ball").AddRotateYOp().Set(10)
    return stage, move


def _ids(live, *paths):
    by_path = {p: n for n, p in live.scene.node_paths.items()}
    return [by_path[p] for p in paths]


def _frame(live, frame=1):
    live.on_frame(live.scene.graph, frame, frame / 60)
    return live.scene.graph.update()


def test_a_changed_op_is_a_local_change_of_that_prim_only():
    stage, move = _stage()
    live = LiveStage(stage)
    live.scene.graph.update()
    arm, hand = _ids(live, "/World/Arm", "/World/Arm/Hand")
    move.Set((4, 0, 0))
    report = _frame(live)
    assert report.local_updated.tolist() == [arm]
    assert report.world_updated.tolist() == [arm, hand]
    assert live.lines == ["usd: /World/Arm: local change (xformOp:translate)"]
    assert_matches_usd(live.scene, stage, 0.0)
    move.Set((4, 0, 0))  # the same value: nothing changes, nothing glows
    assert _frame(live, 2).empty


def test_an_added_op_changes_the_order_and_the_matrix():
    stage, _ = _stage()
    live = LiveStage(stage)
    live.scene.graph.update()
    (ball,) = _ids(live, "/World/Ball")
    UsdGeom.Xformable(stage.GetPrimAtPath("/World/Ball")).AddScaleOp().Set((2, 2, 2))
    report = _frame(live)
    assert ball in report.local_updated.tolist()
    assert dict(live.scene.describe_node(ball))["xformOpOrder"].endswith("xformOp:scale")
    assert_matches_usd(live.scene, stage, 0.0)


def test_added_and_removed_prims_are_structural_changes():
    stage, _ = _stage()
    live = LiveStage(stage)
    graph = live.scene.graph
    graph.update()
    (ball,) = _ids(live, "/World/Ball")
    new = UsdGeom.Xform.Define(stage, "/World/Ball/New")
    new.AddTranslateOp().Set((0, 0, 3))
    report = _frame(live)
    assert "/World/Ball/New" in live.scene.node_paths.values()
    assert any("structural change" in line for line in live.lines)
    (fresh,) = _ids(live, "/World/Ball/New")
    assert fresh in report.world_updated.tolist()
    assert_matches_usd(live.scene, stage, 0.0)
    stage.RemovePrim("/World/Arm")
    _frame(live, 2)
    alive = set(graph.alive_ids().tolist())
    assert not {p for n, p in live.scene.node_paths.items() if n in alive} & {
        "/World/Arm",
        "/World/Arm/Hand",
    }
    assert ball in alive
    assert_matches_usd(live.scene, stage, 0.0)


def test_a_colour_change_is_noted_and_changes_no_transform():
    stage, _ = _stage()
    live = LiveStage(stage)
    live.scene.graph.update()
    UsdGeom.Gprim(stage.GetPrimAtPath("/World/Ball")).CreateDisplayColorAttr([(1, 0, 0)])
    assert _frame(live).empty
    assert "no transform changed" in live.lines[-1]


def test_show_follows_a_stage_headless():
    import viewer

    stage, move = _stage()

    def edit(graph, frame, t):
        move.Set((1 + frame, 0, 0))

    result = viewer.show(stage, on_frame=edit, headless=True, frames=3, size=(160, 90))
    assert result.frames == 3
    assert len(result.report.local_updated) == 1
    assert np.isclose(
        stage.GetPrimAtPath("/World/Arm").GetAttribute("xformOp:translate").Get()[0], 4.0
    )


@given(
    st.integers(2, 8),
    st.lists(st.tuples(st.integers(0, 7), st.floats(-90, 90)), max_size=4),
    st.integers(0, 2**16),
)
def test_random_edits_glow_exactly_the_edited_prims_and_their_subtrees(n, edits, seed):
    rng = np.random.default_rng(seed)
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    paths, ops = [], []
    for i in range(n):
        parent = int(rng.integers(-1, i)) if i else -1
        path = f"{paths[parent] if parent >= 0 else ''}/P{i}"
        xf = UsdGeom.Xform.Define(stage, path)
        xf.AddTranslateOp().Set((float(i), 0, 0))
        ops.append(xf.AddRotateZOp())
        ops[-1].Set(0.0)
        paths.append(path)
    live = LiveStage(stage)
    graph = live.scene.graph
    graph.update()
    node_of = {p: k for k, p in live.scene.node_paths.items()}
    changed = set()
    for index, angle in edits:
        if index < n:
            ops[index].Set(angle)
    for index, _ in edits:
        if index < n and ops[index].Get() != 0.0:
            changed.add(paths[index])
    report = _frame(live)
    assert set(report.local_updated.tolist()) == {node_of[p] for p in changed}
    below = {p for p in paths if any(p == c or p.startswith(c + "/") for c in changed)}
    assert set(report.world_updated.tolist()) == {node_of[p] for p in below}
    assert_matches_usd(live.scene, stage, 0.0)


STEP = st.tuples(
    st.sampled_from(["add", "remove", "move", "deactivate"]), st.integers(0, 50), st.floats(-5, 5)
)


@given(st.lists(STEP, min_size=1, max_size=8))
def test_random_structural_edits_keep_the_nodes_and_matrices_usds(steps):
    stage, _ = _stage()
    live = LiveStage(stage)
    live.scene.graph.update()
    made = 0
    for frame, (action, pick, value) in enumerate(steps, start=1):
        prims = [p for p in stage.Traverse() if p.IsA(UsdGeom.Xformable)]
        if not prims:
            break
        prim = prims[pick % len(prims)]
        if action == "add":
            made += 1
            child = UsdGeom.Xform.Define(stage, prim.GetPath().AppendChild(f"N{made}"))
            child.AddTranslateOp().Set((value, 1, 0))
        elif action == "remove":
            stage.RemovePrim(prim.GetPath())
        elif action == "deactivate":
            prim.SetActive(False)
        else:  # move: set its first op, or give it a scale op after whatever it has
            xf = UsdGeom.Xformable(prim)
            ops = xf.GetOrderedXformOps()
            if ops and ops[0].GetOpType() == UsdGeom.XformOp.TypeTranslate:
                ops[0].Set((value, 0, 0))
            else:
                xf.AddScaleOp(opSuffix=f"s{frame}").Set((2, 2, value or 1.0))
        _frame(live, frame)
        shown = {p for p in live.scene.node_paths.values() if p != "/" and "[" not in p}
        want = {str(p.GetPath()) for p in stage.Traverse() if p.IsA(UsdGeom.Xformable)}
        assert shown == want
        assert_matches_usd(live.scene, stage, 0.0)


# -- time samples edited live ------------------------------------------------------------
def _animated_stage():
    """Arm (translate sampled at 0 and 48, rotateZ still) > Hand (sheared under Arm at
    some times: a scale then a turn), and a still Ball; codes 0..48 at 24 a second."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(48)
    stage.SetTimeCodesPerSecond(24)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    arm = UsdGeom.Xform.Define(stage, "/World/Arm")
    move = arm.AddTranslateOp()
    move.Set((0, 0, 0), 0)
    move.Set((4, 0, 0), 48)
    turn = arm.AddRotateZOp()
    turn.Set(10.0)
    hand = UsdGeom.Cube.Define(stage, "/World/Arm/Hand")
    hand.AddTranslateOp().Set((0, 2, 0))
    ball = UsdGeom.Sphere.Define(stage, "/World/Ball")
    spin = ball.AddRotateYOp()
    spin.Set(10)
    return stage, {"move": move, "turn": turn, "spin": spin}


def _play(live, frames):
    """Run `frames` as the session does (the animation, then the notices, then the
    update); each frame's report."""
    from viewer.animation import apply_animation

    out = []
    for frame in frames:
        apply_animation(live.scene, frame * (1 / 60))
        live.on_frame(live.scene.graph, frame, frame * (1 / 60))
        out.append(live.scene.graph.update())
    return out


def _check_frames(live, stage, frames):
    """Every prim's world matrix equals XformCache's at each frame's time code."""
    from test_time import _code

    for frame in frames:
        _play(live, [frame])
        assert_matches_usd(live.scene, stage, _code(stage, frame))


def test_a_time_sample_set_live_plays_at_every_time():
    stage, ops = _animated_stage()
    live = LiveStage(stage)
    _play(live, [0])
    ops["move"].Set((0, 9, 0), 24)  # a new sample mid-range (frame 60)
    (report,) = _play(live, [1])
    assert "time samples baked again" in live.lines[-1]
    _check_frames(live, stage, [5, 30, 59, 60, 61, 90, 119, 120, 185])


def test_a_still_op_given_samples_starts_playing_and_stops_when_cleared():
    stage, ops = _animated_stage()
    live = LiveStage(stage)
    _play(live, [0])
    (ball,) = _ids(live, "/World/Ball")
    ops["spin"].Set(0.0, 0)
    ops["spin"].Set(90.0, 48)
    _play(live, [1])
    reports = _play(live, [2, 3])
    assert all(ball in r.local_updated.tolist() for r in reports)  # it plays, it glows
    _check_frames(live, stage, [10, 70, 119, 121])
    ops["spin"].GetAttr().Clear()
    ops["spin"].Set(5.0)
    _play(live, [122])
    assert "no longer animated" in live.lines[-1]
    reports = _play(live, [123, 124])
    assert not any(ball in r.local_updated.tolist() for r in reports)
    _check_frames(live, stage, [130, 200])


def test_a_prim_added_with_samples_plays():
    stage, _ = _animated_stage()
    live = LiveStage(stage)
    _play(live, [0])
    new = UsdGeom.Xform.Define(stage, "/World/Ball/Moon")
    orbit = new.AddRotateXYZOp()
    orbit.Set((0, 0, 0), 0)
    orbit.Set((30, 60, 90), 48)
    new.AddTranslateOp().Set((0, 3, 0))
    _play(live, [1])
    assert "/World/Ball/Moon" in live.scene.node_paths.values()
    _check_frames(live, stage, [7, 33, 100, 150])


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["move", "turn", "spin"]), st.integers(-10, 60), st.floats(-50, 50)
        ),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_random_time_sample_edits_match_xformcache_at_several_times(edits, held):
    stage, ops = _animated_stage()
    if held:
        stage.SetInterpolationType(Usd.InterpolationTypeHeld)
    live = LiveStage(stage)
    _play(live, [0])
    for frame, (name, code, value) in enumerate(edits, start=1):
        op = ops[name]
        op.Set((value, 1.0, -value) if name == "move" else value, code)
        _check_frames(live, stage, [frame, frame + 17, frame + 61])


def _instancer_stage():
    stage, ops = _animated_stage()
    inst = UsdGeom.PointInstancer.Define(stage, "/World/Scatter")
    UsdGeom.Cube.Define(stage, "/World/Scatter/Protos/Box")
    inst.CreatePrototypesRel().SetTargets(["/World/Scatter/Protos/Box"])
    inst.CreateProtoIndicesAttr([0, 0, 0])
    inst.CreatePositionsAttr([(0, 0, 0), (2, 0, 0), (4, 0, 0)])
    return stage, inst


def _instances_match(live, stage, inst, code):
    """The instancer's drawn instances are pxr's (ComputeInstanceTransformsAtTime)."""
    node = _ids(live, "/World/Scatter")[0]
    (item,) = [i for i in live.scene.geometry.instanced if i.node == node]
    want = np.array(inst.ComputeInstanceTransformsAtTime(code, code)).transpose(0, 2, 1)
    np.testing.assert_allclose(item.locals, want, rtol=0, atol=1e-12)
    return node


def test_instance_data_edited_live_moves_the_instances_and_plays_its_samples():
    from test_time import _code

    stage, inst = _instancer_stage()
    live = LiveStage(stage)
    _play(live, [0])
    live.scene.geometry.take_changed()
    inst.GetPositionsAttr().Set([(0, 1, 0), (2, 1, 0), (4, 1, 0)])  # a still edit
    _play(live, [1])
    assert "instances changed (positions)" in live.lines[-1]
    node = _instances_match(live, stage, inst, _code(stage, 1))
    assert node in live.scene.geometry.take_changed()  # its own change: it glows
    positions = inst.GetPositionsAttr()
    positions.Set([(0, 0, 0), (2, 0, 0), (4, 0, 0)], 0)  # now sampled: it plays
    positions.Set([(0, 5, 0), (2, 0, 5), (4, -5, 0)], 48)
    _play(live, [2])
    assert "baked again" in live.lines[-1]
    for frame in (3, 40, 61, 119, 150):
        _play(live, [frame])
        _instances_match(live, stage, inst, _code(stage, frame))
    inst.GetProtoIndicesAttr().Set([0, 0])  # fewer instances: drawn as pxr places them
    inst.GetPositionsAttr().Clear()
    inst.GetPositionsAttr().Set([(0, 0, 0), (1, 1, 1)])
    _play(live, [151])
    assert any("it now draws 2 instance matrices" in line for line in live.lines[-2:])
    _instances_match(live, stage, inst, _code(stage, 151))
    assert node in live.scene.geometry.take_changed()  # its own change: it glows
