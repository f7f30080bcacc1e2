"""Animated PointInstancers play as the stage's other time samples do: at frame N every
instance of every prototype stands where pxr's own
``PointInstancer.ComputeInstanceTransformsAtTime`` puts it at that frame's time code
(positions, orientations, scales, prototype indices and invisibleIds sampled, held or
linear), and the instancer's node is recorded as changed exactly when its instances
moved (tests/render/test_geometry.py: the renderer rewrites them then). Stages built in
code."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pxr")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Gf, Usd, UsdGeom, Vt  # noqa: E402
from stages import root_matrix, scene_of, usd_world  # noqa: E402
from test_time import _code  # noqa: E402

from viewer.animation import apply_animation  # noqa: E402


def _instancer_stage(
    rng, samples: list[float], per_second: float, held: bool, counts: list[int], hide: bool
) -> Usd.Stage:
    """An instancer of two prototypes (a cube below a turned root, a sphere) whose
    positions, orientations, scales and prototype indices are sampled at `samples`
    (`counts[k]` instances at sample k), itself turned by an op."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    stage.SetStartTimeCode(samples[0])
    stage.SetEndTimeCode(samples[-1])
    stage.SetTimeCodesPerSecond(per_second)
    if held:
        stage.SetInterpolationType(Usd.InterpolationTypeHeld)
    inst = UsdGeom.PointInstancer.Define(stage, "/World/Scatter")
    inst.AddTranslateOp().Set((1, 2, 3))
    inst.AddRotateYOp().Set(25)
    box = UsdGeom.Xform.Define(stage, "/World/Scatter/Protos/Box")
    box.AddRotateZOp().Set(40)
    cube = UsdGeom.Cube.Define(stage, "/World/Scatter/Protos/Box/Geo")
    cube.AddTranslateOp().Set((0, 0.5, 0))
    UsdGeom.Sphere.Define(stage, "/World/Scatter/Protos/Ball")
    inst.CreatePrototypesRel().SetTargets(
        ["/World/Scatter/Protos/Box", "/World/Scatter/Protos/Ball"]
    )
    ids, pos, ori, scl = (
        inst.CreateProtoIndicesAttr(),
        inst.CreatePositionsAttr(),
        inst.CreateOrientationsAttr(),
        inst.CreateScalesAttr(),
    )
    for code, n in zip(samples, counts, strict=True):
        q = rng.normal(size=(n, 4))
        q /= np.linalg.norm(q, axis=1)[:, None]
        ids.Set(Vt.IntArray(rng.integers(0, 2, n).tolist()), code)
        pos.Set(Vt.Vec3fArray([Gf.Vec3f(*p) for p in rng.uniform(-5, 5, (n, 3))]), code)
        ori.Set(Vt.QuathArray([Gf.Quath(*v) for v in q.tolist()]), code)
        scl.Set(Vt.Vec3fArray([Gf.Vec3f(*s) for s in rng.uniform(0.2, 2, (n, 3))]), code)
    if hide:
        inst.CreateInvisibleIdsAttr().Set(Vt.Int64Array([0]), samples[-1])
    return stage


def _usd_instances(stage, code: float) -> dict[str, np.ndarray]:
    """USD's world matrix of every instance of each gprim, column vectors, under sgview's
    root node: the instancer's world @ instance transform @ the gprim below its root."""
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Scatter"))
    ids = np.asarray(inst.GetProtoIndicesAttr().Get(code), dtype=np.int64)
    local = np.array(inst.ComputeInstanceTransformsAtTime(code, code)).reshape(-1, 4, 4)
    mask = np.asarray(inst.ComputeMaskAtTime(code), dtype=bool)
    if len(mask):  # empty: every instance shown
        if len(local) == len(ids) != mask.sum():  # pxr leaves one lone hidden instance
            local = local[mask]
        ids = ids[mask]
    local = local.transpose(0, 2, 1)
    world = usd_world(stage, "/World/Scatter", code)
    cache = UsdGeom.XformCache(code)
    out = {}
    for k, (proto, gprim) in enumerate((("Box", "Box/Geo"), ("Ball", "Ball"))):
        root = stage.GetPrimAtPath(f"/World/Scatter/Protos/{proto}")
        prim = stage.GetPrimAtPath(f"/World/Scatter/Protos/{gprim}")
        rel = np.array(cache.ComputeRelativeTransform(prim, root)[0]).T
        out[str(prim.GetPath())] = world @ local[ids == k] @ rel
    return out


def _sgview_instances(scene) -> dict[str, np.ndarray]:
    """sgview's world matrix of every drawn instance of each gprim (unused rows left out)."""
    world = scene.graph.world_matrices()
    root = root_matrix(scene)
    out = {}
    for item in scene.geometry.instanced:
        used = item.locals[item.locals[:, 3, 3] != 0]
        out[item.mesh.rsplit("#", 1)[1]] = np.linalg.solve(root, world[item.node]) @ used
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**31),
    st.lists(st.integers(1, 30), min_size=2, max_size=4, unique=True),
    st.sampled_from([24.0, 30.0, 60.0]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_every_frame_shows_the_instances_usd_computes(seed, gaps, per_second, held, vary, hide):
    rng = np.random.default_rng(seed)
    samples = np.cumsum([-3.0, *sorted(gaps)]).tolist()
    counts = [int(rng.integers(1, 12)) if vary else 6 for _ in samples]
    stage = _instancer_stage(rng, samples, per_second, held, counts, hide)
    scene = scene_of(stage)
    frames = int(60 * (samples[-1] - samples[0]) / per_second) + 2
    for frame in sorted({0, 1, frames // 3, frames // 2, frames - 1, frames, 2 * frames}):
        apply_animation(scene, frame * (1 / 60))
        scene.graph.update()
        code = _code(stage, frame)
        got, want = _sgview_instances(scene), _usd_instances(stage, code)
        assert set(got) <= set(want)
        for gprim, matrices in want.items():
            drawn = got.get(gprim, np.zeros((0, 4, 4)))  # no item: never an instance
            assert drawn.shape == matrices.shape, (gprim, code)
            scale = max(1.0, float(np.abs(matrices).max(initial=0.0)))
            err = float(np.abs(drawn - matrices).max(initial=0.0))
            assert err <= 1e-9 * scale, f"{gprim} at {code}: off by {err:.3g}"


def test_the_instancer_glows_on_the_frames_its_instances_move():
    rng = np.random.default_rng(3)
    stage = _instancer_stage(rng, [0.0, 24.0, 48.0], 24.0, True, [5, 5, 5], False)
    scene = scene_of(stage)
    node = next(i for i, p in scene.node_paths.items() if p == "/World/Scatter")
    scene.geometry.take_changed()
    changed = []
    for frame in range(1, 130):
        apply_animation(scene, frame * (1 / 60))
        scene.graph.update()
        if node in scene.geometry.take_changed():
            changed.append(frame)
    # held samples at codes 24 and 48 (t = 1 s, 2 s): the instances jump there only,
    # and back to the first sample when the loop starts again (frame 120)
    assert changed == [60, 120]


def test_a_still_instancer_has_no_channel():
    rng = np.random.default_rng(4)
    stage = _instancer_stage(rng, [0.0], 24.0, False, [4], False)
    stage.SetEndTimeCode(48)
    move = UsdGeom.Xform(stage.GetPrimAtPath("/World/Scatter")).GetOrderedXformOps()[0]
    move.Set((0, 0, 0), 0)
    move.Set((0, 0, 9), 24)
    scene = scene_of(stage)
    paths = {c.path for clip in scene.animation.clips for c in clip.channels}
    assert "instances" not in paths and "translation" in paths


def test_rows_a_frame_does_not_use_are_not_picked_or_framed():
    """Where a prototype's instance count changes, its items keep the most rows any key
    needs; the rows a frame leaves unused (zero matrices) are no boxes to pick or frame."""
    from viewer.render.scene_bounds import SceneBounds

    rng = np.random.default_rng(9)
    stage = _instancer_stage(rng, [0.0, 12.0, 24.0], 24.0, True, [8, 2, 8], False)
    scene = scene_of(stage)
    apply_animation(scene, 0.75)  # code 18, held at the second sample: 2 instances
    scene.graph.update()
    rows = sum(len(item.locals) for item in scene.geometry.instanced)
    used = sum(int((item.locals[:, 3, 3] != 0).sum()) for item in scene.geometry.instanced)
    assert used == 2 < rows
    ids, worlds, lo, hi = SceneBounds(scene).node_boxes()
    node = next(i for i, p in scene.node_paths.items() if p == "/World/Scatter")
    assert int((ids == node).sum()) == used  # the instancer itself draws no box of its own
    assert np.isfinite(worlds).all() and (np.abs(worlds[ids == node][:, 3, 3]) > 0).all()


def test_the_log_names_the_instancer_whose_instances_moved(tmp_path, capsys):
    """`--log`: a frame whose instances moved (no matrix of the node did) says so."""
    from viewer.cli.main import main

    rng = np.random.default_rng(11)
    stage = _instancer_stage(rng, [0.0, 48.0], 24.0, False, [3, 3], False)
    path = tmp_path / "scatter.usda"
    stage.GetRootLayer().Export(str(path))
    assert main([str(path), "--headless", "--frames", "4", "--log", "--size", "64x64"]) == 0
    out = capsys.readouterr().out
    # linear samples: the instances move on every frame, the instancer's node does not
    said = "~Instances    : Scatter~"
    assert out.splitlines() == [x for f in (1, 2, 3, 4) for x in (f"# frame {f}", said)]
