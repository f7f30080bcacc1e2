"""Visibility: a prim that is invisible, or below one (USD inherits it), draws nothing,
while its node stays (its transform still carries its children); a hidden
PointInstancer draws no instances. The oracle is pxr's own
``UsdGeom.Imageable.ComputeVisibility`` at the stage's start time code, on random trees
built in code."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402
from stages import assert_matches_usd, scene_of  # noqa: E402

KINDS = ("Xform", "Scope", "Cube", "Sphere")


def _drawn_paths(scene) -> set[str]:
    looks = {n for n, look in scene.looks.items() if look is not None and look.mesh != "none"}
    return {p for n, p in scene.node_paths.items() if n in looks}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from(KINDS), st.booleans(), st.booleans()),
        min_size=1,
        max_size=14,
    ),
    st.integers(-5, 5),
)
def test_what_is_drawn_is_what_pxr_computes_visible(spec, start):
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetStartTimeCode(start)
    stage.SetEndTimeCode(start)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    paths = ["/World"]
    for k, (parent, kind, hide, sampled) in enumerate(spec):
        path = f"{paths[parent % len(paths)]}/{kind}{k}"
        prim = stage.DefinePrim(path, kind)
        if kind != "Scope":
            UsdGeom.Xformable(prim).AddTranslateOp().Set((k * 0.5, 0, 0))
        if hide:
            vis = UsdGeom.Imageable(prim).CreateVisibilityAttr()
            if sampled:  # invisible at the start code, visible after it
                vis.Set(UsdGeom.Tokens.invisible, start)
                vis.Set(UsdGeom.Tokens.inherited, start + 1)
            else:
                vis.Set(UsdGeom.Tokens.invisible)
        paths.append(path)
    scene = scene_of(stage)
    visible = {
        str(p.GetPath())
        for p in stage.Traverse()
        if p.IsA(UsdGeom.Gprim)
        and UsdGeom.Imageable(p).ComputeVisibility(start) != UsdGeom.Tokens.invisible
    }
    assert _drawn_paths(scene) == visible
    assert_matches_usd(scene, stage, float(start))  # every prim is still a node


def test_a_hidden_instancer_draws_no_instances_and_a_note_says_so():
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    for name, hide in (("Shown", False), ("Hidden", True)):
        inst = UsdGeom.PointInstancer.Define(stage, f"/{name}")
        UsdGeom.Cube.Define(stage, f"/{name}/Protos/Box")
        inst.CreatePrototypesRel().SetTargets([f"/{name}/Protos/Box"])
        inst.CreateProtoIndicesAttr([0, 0])
        inst.CreatePositionsAttr([(0, 0, 0), (2, 0, 0)])
        if hide:
            inst.CreateVisibilityAttr().Set(UsdGeom.Tokens.invisible)
    scene = scene_of(stage)
    nodes = {p: n for n, p in scene.node_paths.items()}
    assert {item.node for item in scene.geometry.instanced} == {nodes["/Shown"]}
    assert "/Hidden" in nodes
    from pathlib import Path

    from viewer.io.limits import DEFAULT_LIMITS
    from viewer.io.usd.read import model_of_stage

    notes = model_of_stage(stage, Path("s.usda"), "s.usda", DEFAULT_LIMITS).notes
    assert any("1 invisible prims are not drawn" in n for n in notes)
    assert np.allclose(scene.graph.world_matrices()[nodes["/Hidden"]], np.eye(4))
