"""A mesh whose points are time-sampled plays them (viewer/io/usd/read.py `moving_points`):
its morph targets at the weights its clip gives at each sampled time, and at each frame
time, are the points pxr gives at that time code (the stage's own linear interpolation
between samples), to float32 rounding."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.io.limits import DEFAULT_LIMITS  # noqa: E402
from viewer.io.usd.read import read_usd  # noqa: E402


def _wave(path, codes=(0, 6, 18, 24), flat_at=None) -> None:
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(24)
    stage.SetTimeCodesPerSecond(24)
    mesh = UsdGeom.Mesh.Define(stage, "/Sheet")
    grid = np.array([(x, 0.0, z) for z in range(4) for x in range(4)], dtype=np.float64)
    faces = [
        [z * 4 + x, z * 4 + x + 1, z * 4 + x + 5, z * 4 + x + 4] for z in range(3) for x in range(3)
    ]
    mesh.CreateFaceVertexCountsAttr([4] * len(faces))
    mesh.CreateFaceVertexIndicesAttr([i for f in faces for i in f])
    points = mesh.CreatePointsAttr()
    for k, code in enumerate(codes):
        lifted = grid.copy()
        lifted[:, 1] = np.sin(grid[:, 0] + k) * (k + 1)
        count = 15 if code == flat_at else 16
        points.Set([tuple(p) for p in lifted[:count]], code)
    mesh.AddTranslateOp().Set((1.0, 0.0, 0.0))
    stage.SetDefaultPrim(mesh.GetPrim())
    stage.Save()


def _points_at(scene, node: int, t: float) -> np.ndarray:
    geometry = scene.geometry
    mesh = scene.looks[node].mesh
    clip = scene.animation.current
    weights = clip.weights(t)[node]
    targets = geometry.targets[mesh]
    base = np.asarray(scene.mesh_data[mesh][0], dtype=np.float64)
    return base + np.tensordot(weights, targets.positions.astype(np.float64), axes=1)


def test_time_sampled_points_play_as_pxr_interpolates_them(tmp_path):
    path = tmp_path / "wave.usda"
    _wave(path)
    scene = load_scene(path)
    node = next(i for i, p in scene.node_paths.items() if p == "/Sheet")
    assert [m.node for m in scene.geometry.morphed] == [node]
    stage = Usd.Stage.Open(str(path))
    attr = UsdGeom.Mesh(stage.GetPrimAtPath("/Sheet")).GetPointsAttr()
    for frame in range(0, 60, 7):  # frame N at N/60 s: time code N * 24/60
        t = frame / 60
        want = np.asarray(attr.Get(t * 24), dtype=np.float64)
        got = _points_at(scene, node, t)
        assert np.abs(got - want).max() < 1e-5, frame
    assert np.abs(_points_at(scene, node, 0.75) - np.asarray(attr.Get(18))).max() < 1e-5


def test_points_that_change_in_number_are_shown_at_the_start(tmp_path):
    path = tmp_path / "odd.usda"
    _wave(path, flat_at=18)
    model = read_usd(path, "odd.usda", DEFAULT_LIMITS)
    assert not model.geometry.morphed
    assert any("/Sheet: its points at time code 18" in note for note in model.notes), model.notes
