"""A live stage's PointInstancers under random edit sequences: instancers added under
existing Xforms, grown or shrunk, removed alone or with their parent, their parents
moved. After each frame the scene's GPU-instanced items, and the picking boxes a
`SceneBounds` refreshed as the renderer refreshes it gives them, are pxr's instances
(ComputeInstanceTransformsAtTime times XformCache): no more, no fewer, at the same
world matrices. The drawing side is tests/notebook/test_widget_usd_instancer.py."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402

from viewer.io.usd.live import LiveStage  # noqa: E402
from viewer.render.scene_bounds import SceneBounds  # noqa: E402

PARENTS = 3


def _stage():
    """/World > X0, X1, X2 (Xforms, moved); /World/X0/PI0: a PointInstancer of 2."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    for p in range(PARENTS):
        xf = UsdGeom.Xform.Define(stage, f"/World/X{p}")
        xf.AddTranslateOp().Set((3.0 * p, 0.0, 0.0))
        xf.AddRotateYOp().Set(20.0 * p)
    _instancer(stage, "/World/X0/PI0", np.random.default_rng(0), 2)
    return stage


def _instancer(stage, path: str, rng, n: int) -> None:
    inst = UsdGeom.PointInstancer.Define(stage, path)
    inst.AddScaleOp().Set((1.0, float(rng.uniform(0.5, 2)), 1.0))
    UsdGeom.Cube.Define(stage, f"{path}/Protos/A").CreateSizeAttr(float(rng.uniform(0.2, 1)))
    UsdGeom.Sphere.Define(stage, f"{path}/Protos/B").AddTranslateOp().Set((0.0, 0.5, 0.0))
    inst.CreatePrototypesRel().SetTargets([f"{path}/Protos/A", f"{path}/Protos/B"])
    _resize(inst, rng, n)


def _resize(inst, rng, n: int) -> None:
    inst.GetProtoIndicesAttr().Set([int(k) for k in rng.integers(0, 2, n)])
    inst.GetPositionsAttr().Set([tuple(float(v) for v in p) for p in rng.uniform(-2, 2, (n, 3))])


def _instancers(stage) -> list[str]:
    return sorted(str(p.GetPath()) for p in stage.Traverse() if p.IsA(UsdGeom.PointInstancer))


def _sorted(mats) -> np.ndarray:
    mats = np.asarray(mats, np.float64).reshape(-1, 4, 4)
    return mats[np.lexsort(np.round(mats[:, :3, 3].T, 6))]


def _check(live, stage, bounds: SceneBounds) -> None:
    scene = live.scene
    world = scene.graph.world_matrices()
    code = Usd.TimeCode(0)
    cache = UsdGeom.XformCache(code)
    want = {}
    for path in _instancers(stage):
        prim = stage.GetPrimAtPath(path)
        local = np.array(UsdGeom.PointInstancer(prim).ComputeInstanceTransformsAtTime(code, code))
        row = local.reshape(-1, 4, 4) @ np.array(cache.GetLocalToWorldTransform(prim))
        want[path] = _sorted(np.transpose(row, (0, 2, 1)))
    alive = set(scene.graph.alive_ids().tolist())
    got: dict[str, list] = {}
    for item in scene.geometry.instanced:
        assert item.node in alive, f"instances of a removed node {item.node}"
        got.setdefault(scene.node_paths[item.node], []).append(world[item.node] @ item.locals)
    bounds.refresh()  # what the renderer does when it rebuilds
    ids, boxes, _, _ = bounds.node_boxes(world)
    for path, mats in want.items():
        if not len(mats):
            assert path not in got
            continue
        node = next(n for n, p in scene.node_paths.items() if p == path and n in alive)
        np.testing.assert_allclose(_sorted(np.concatenate(got[path])), mats, rtol=0, atol=1e-9)
        np.testing.assert_allclose(_sorted(boxes[ids == node]), mats, rtol=0, atol=1e-9)
    assert set(got) <= set(want)


EDITS = st.one_of(
    st.tuples(st.just("add"), st.integers(0, PARENTS - 1), st.integers(0, 5)),
    st.tuples(st.just("resize"), st.integers(0, 7), st.integers(0, 7)),
    st.tuples(st.just("remove"), st.integers(0, 7)),
    st.tuples(st.just("remove parent"), st.integers(0, PARENTS - 1)),
    st.tuples(st.just("move parent"), st.integers(0, PARENTS - 1), st.floats(-5, 5)),
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(EDITS, min_size=1, max_size=3), min_size=1, max_size=5), st.integers(0, 2**16)
)
def test_random_instancer_edits_leave_pxr_s_instances_drawn_and_picked(frames, seed):
    rng = np.random.default_rng(seed)
    stage = _stage()
    live = LiveStage(stage)
    live.scene.graph.update()
    bounds = SceneBounds(live.scene)
    made = 1
    for frame, edits in enumerate(frames, start=1):
        for edit in edits:
            kind, which = edit[0], edit[1]
            have = _instancers(stage)
            parent = f"/World/X{which % PARENTS}"
            if kind == "add" and stage.GetPrimAtPath(parent):
                _instancer(stage, f"{parent}/PI{made}", rng, edit[2])
                made += 1
            elif kind == "resize" and have:
                _resize(
                    UsdGeom.PointInstancer(stage.GetPrimAtPath(have[which % len(have)])),
                    rng,
                    edit[2],
                )
            elif kind == "remove" and have:
                stage.RemovePrim(have[which % len(have)])
            elif kind == "remove parent":
                stage.RemovePrim(parent)
            elif kind == "move parent" and stage.GetPrimAtPath(parent):
                prim = stage.GetPrimAtPath(parent)
                prim.GetAttribute("xformOp:translate").Set((edit[2], 0.0, 1.0))
        live.on_frame(live.scene.graph, frame, frame / 60)
        live.scene.graph.update()
        _check(live, stage, bounds)
