"""USD cameras become the scene's cameras (as a glTF file's): the vertical field of view
from focal length and vertical aperture (the pinhole formula, written out here), the
clipping range and an orthographic camera's height in metres (the stage's units times
metres per unit), each on its prim's node; a camera sgview cannot use is noted."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pxr")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Gf, Usd, UsdGeom  # noqa: E402
from stages import assert_matches_usd, scene_of  # noqa: E402


def _stage(meters: float) -> Usd.Stage:
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, meters)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    rig = UsdGeom.Xform.Define(stage, "/Rig")
    rig.AddTranslateOp().Set((0, -5, 2))
    rig.AddRotateXOp().Set(70)
    return stage


@settings(max_examples=30, deadline=None)
@given(
    st.floats(5, 300),
    st.floats(2, 60),
    st.floats(0.01, 10),
    st.floats(2, 1e5),
    st.sampled_from([1.0, 0.01, 0.3048]),
)
def test_a_perspective_camera_sees_what_its_lens_says(focal, aperture, near, depth, meters):
    stage = _stage(meters)
    cam = UsdGeom.Camera.Define(stage, "/Rig/Shot")
    cam.AddTranslateOp().Set((0, 0, 3))
    cam.CreateFocalLengthAttr(focal)
    cam.CreateVerticalApertureAttr(aperture)
    cam.CreateClippingRangeAttr(Gf.Vec2f(near, near + depth))
    scene = scene_of(stage)
    (got,) = scene.cameras
    assert scene.node_paths[got.node] == "/Rig/Shot"
    assert got.projection == "perspective" and got.name == "Shot"
    want = 2.0 * math.atan(aperture / (2.0 * focal))
    assert got.yfov == pytest.approx(want, rel=1e-6)
    near32, far32 = float(Gf.Vec2f(near, near + depth)[0]), float(Gf.Vec2f(near, near + depth)[1])
    assert got.znear == pytest.approx(near32 * meters, rel=1e-12)
    assert got.zfar == pytest.approx(far32 * meters, rel=1e-12)
    assert_matches_usd(scene, stage, 0.0)  # the camera's node stands where USD puts it


def test_an_orthographic_camera_and_one_that_cannot_be_used():
    stage = _stage(0.01)
    ortho = UsdGeom.Camera.Define(stage, "/Rig/Plan")
    ortho.CreateProjectionAttr(UsdGeom.Tokens.orthographic)
    ortho.CreateVerticalApertureAttr(500.0)  # tenths of a unit: 50 units, 0.5 m tall
    ortho.CreateClippingRangeAttr(Gf.Vec2f(0, 1000))
    broken = UsdGeom.Camera.Define(stage, "/Rig/Broken")
    broken.CreateClippingRangeAttr(Gf.Vec2f(5, 1))  # far before near
    from pathlib import Path

    from viewer.io.limits import DEFAULT_LIMITS
    from viewer.io.usd.read import model_of_stage

    model = model_of_stage(stage, Path("s.usda"), "s.usda", DEFAULT_LIMITS)
    (plan,) = model.cameras
    assert plan.projection == "orthographic" and plan.name == "Plan"
    assert plan.ymag == pytest.approx(0.25) and plan.znear == 0.0
    assert plan.zfar == pytest.approx(10.0)
    assert any("/Rig/Broken: camera not used" in note for note in model.notes)
