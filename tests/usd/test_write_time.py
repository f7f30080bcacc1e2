"""Animation written as USD time samples (viewer/io/usd/samples.py, write.py), held against
pxr: at every written time code, UsdGeom.XformCache of the saved stage gives the world
matrix sgview shows at that scene time (its motions and its clip run by sgview's own frame
functions) to 1e-9 relative, and so does it at every frame's time code between them
(samples USD interpolates back are left out); the stage's time range and rate say how the
codes map to sgview's clock, and sgview plays the saved file back on its own clock."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402

from viewer.animation.clip import Channel, Clip  # noqa: E402
from viewer.animation.player import AnimationPlayer  # noqa: E402
from viewer.content.motion import apply_motions  # noqa: E402
from viewer.content.scene import Scene  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.io.bundled import scene_dir  # noqa: E402
from viewer.io.usd.write import save_usd  # noqa: E402
from viewer.scene.graph import SceneGraph  # noqa: E402
from viewer.scene.math import quat_from_axis_angle  # noqa: E402

REL = 1e-9


def _pose_at(scene: Scene, t: float) -> np.ndarray:
    """sgview's world matrices at scene time `t`, as its frame loop poses them: the
    motions, then the playing clip's pose (by id)."""
    graph = scene.graph
    apply_motions(scene, t)
    player = scene.animation
    if player is not None and player.current is not None:
        for path, (ids, values) in player.current.pose(t).items():
            key = {"translation": "positions", "rotation": "rotations", "scale": "scales"}[path]
            graph.set_locals(ids, skip_removed=True, **{key: values})
    graph.update()
    return np.array(graph.world_matrices())


def _prims_by_node(scene: Scene, out) -> tuple[Usd.Stage, dict[int, Usd.Prim]]:
    """The saved stage and each node's prim (the writer defines them in node order)."""
    stage = Usd.Stage.Open(str(out))
    prims = [p for p in stage.Traverse() if p.GetTypeName() == "Xform"]
    ids = [i for i in scene.graph.alive_ids().tolist() if scene.node_paths.get(i) != "/"]
    assert len(prims) == len(ids)
    return stage, dict(zip(ids, prims, strict=True))


def _check_samples(scene: Scene, out, every: int = 1) -> int:
    """Check the written time codes and every frame's, 60 a second (every `every`-th of
    them); how many codes are written."""
    stage, prim_of = _prims_by_node(scene, out)
    start, per_second = stage.GetStartTimeCode(), stage.GetTimeCodesPerSecond()
    assert stage.HasAuthoredTimeCodeRange() and stage.GetEndTimeCode() > start
    codes = sorted(
        {
            code
            for prim in prim_of.values()
            for op in UsdGeom.Xformable(prim).GetOrderedXformOps()
            for code in op.GetTimeSamples()
        }
    )
    assert codes, "no time samples written"
    end = stage.GetEndTimeCode()
    frames = start + np.arange(int((end - start) / per_second * 60) + 1) / 60 * per_second
    root = next((i for i, p in scene.node_paths.items() if p == "/"), None)
    # the written codes and every frame's (where USD interpolates between samples kept)
    for code in sorted({*codes, *frames.tolist()})[::every]:
        world = _pose_at(scene, (code - start) / per_second)
        under = np.eye(4) if root is None else world[root]
        cache = UsdGeom.XformCache(code)
        for node, prim in prim_of.items():
            want = world[node]
            got = under @ np.array(cache.GetLocalToWorldTransform(prim)).T
            err = float(np.abs(got - want).max())
            assert err <= REL * max(1.0, float(np.abs(want).max())), (code, str(prim.GetPath()))
    return len(codes)


@pytest.mark.parametrize(("name", "every"), [("robot_arm.toml", 1), ("solar_system.toml", 37)])
def test_a_scene_with_motions_writes_its_samples(tmp_path, name, every):
    scene = load_scene(scene_dir() / name)
    assert scene.motions
    out = tmp_path / "moving.usdc"
    notes = save_usd(scene, out)
    assert not any("animation is not carried" in n for n in notes), notes
    stage = Usd.Stage.Open(str(out))
    assert stage.GetTimeCodesPerSecond() == 60.0 and stage.GetStartTimeCode() == 0.0
    assert _check_samples(scene, out, every) > 60
    spinning = UsdGeom.Xformable(
        stage.GetPrimAtPath("/SolarSystem/Sun" if every > 1 else "/Base/Turret")
    )
    ops = {op.GetOpName(): op.GetNumTimeSamples() for op in spinning.GetOrderedXformOps()}
    assert "xformOp:transform:rotation" not in ops, ops


def _clip_scene(interpolation: str) -> Scene:
    graph = SceneGraph()
    arm = graph.add("arm", position=(1.0, 0.0, 0.0))
    hand = graph.add("hand", arm, position=(0.0, 2.0, 0.0), scale=(0.5, 0.5, 0.5))
    times = np.array([0.0, 0.5, 1.25, 2.0])
    angles = np.array([0.0, 90.0, 200.0, 350.0])
    quats = np.array([quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), a) for a in angles])
    moves = np.array([[0, 2, 0], [1, 2, 0], [1, 3, 1], [0, 2, 0.5]], dtype=np.float64)
    if interpolation == "CUBICSPLINE":
        quats = np.stack([np.zeros_like(quats), quats, np.zeros_like(quats)], axis=1)
        moves = np.stack([np.ones_like(moves), moves, -np.ones_like(moves)], axis=1)
    clip = Clip(
        "wave",
        (
            Channel(arm.id, "rotation", interpolation, times, quats),
            Channel(hand.id, "translation", interpolation, times, moves),
        ),
    )
    return Scene(graph=graph, animation=AnimationPlayer([clip]))


@pytest.mark.parametrize("interpolation", ["LINEAR", "STEP", "CUBICSPLINE"])
def test_a_clip_writes_its_samples(tmp_path, interpolation):
    scene = _clip_scene(interpolation)
    out = tmp_path / "clip.usda"
    save_usd(scene, out)
    count = _check_samples(scene, out)
    if interpolation == "LINEAR":
        assert count == 4  # the key times
        stage = Usd.Stage.Open(str(out))
        cache = UsdGeom.XformCache(0.8 * 60)  # between keys USD's slerp is sgview's
        prim = stage.GetPrimAtPath("/arm")
        want = _pose_at(scene, 0.8)[0]
        got = np.array(cache.GetLocalToWorldTransform(prim)).T
        assert np.abs(got - want).max() < 1e-9
    elif interpolation == "STEP":  # 60 a second over 2 s, the held stretches' ends only
        assert count < 20
    else:
        assert count <= 121


def _usd_animated(path) -> None:
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetStartTimeCode(10)
    stage.SetEndTimeCode(34)
    stage.SetTimeCodesPerSecond(24)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    world = UsdGeom.Xform.Define(stage, "/World")
    arm = UsdGeom.Xform.Define(stage, "/World/Arm")
    turn = arm.AddRotateXYZOp()
    for code, angle in ((10, 0.0), (22, 90.0), (34, 180.0)):
        turn.Set((angle / 3, 0.0, angle), code)
    arm.AddTranslateOp().Set((1.0, 0.0, 0.0))
    UsdGeom.Xform.Define(stage, "/World/Arm/Hand").AddTranslateOp().Set((0.0, 2.0, 0.0))
    stage.SetDefaultPrim(world.GetPrim())
    stage.Save()


def test_a_stage_with_time_samples_keeps_its_time_codes(tmp_path):
    source = tmp_path / "source.usda"
    _usd_animated(source)
    scene = load_scene(source)
    out = tmp_path / "again.usda"
    notes = save_usd(scene, out)
    assert not any("not carried" in n or "not written" in n for n in notes), notes
    stage = Usd.Stage.Open(str(out))
    assert stage.GetStartTimeCode() == 10.0 and stage.GetEndTimeCode() == 34.0
    assert stage.GetTimeCodesPerSecond() == 24.0
    assert _check_samples(scene, out) >= 60
    original = Usd.Stage.Open(str(source))
    # the source's samples, kept (at the loop's end sgview shows its start: it loops)
    for code in (10.0, 16.0, 22.0):
        a = UsdGeom.XformCache(code).GetLocalToWorldTransform(original.GetPrimAtPath("/World/Arm"))
        b = UsdGeom.XformCache(code).GetLocalToWorldTransform(stage.GetPrimAtPath("/World/Arm"))
        assert np.abs(np.array(a) - np.array(b)).max() < 1e-9
    back = load_scene(out)  # sgview plays the saved stage as it played the source
    paths = {p: i for i, p in scene.node_paths.items()}
    back_paths = {p: i for i, p in back.node_paths.items()}
    for t in (0.1, 0.5, 0.9):
        want = _pose_at(scene, t)
        got = _pose_at(back, t)
        for path in ("/World/Arm", "/World/Arm/Hand"):
            assert np.abs(got[back_paths[path]] - want[paths[path]]).max() < 1e-9
