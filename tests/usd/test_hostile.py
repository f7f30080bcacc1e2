"""Hostile USD files: one line naming the file, prim and property, exit status 2, no
traceback, within the budgets; live reload keeps the last good stage. (An arc that does
not resolve is no refusal: tests/usd/test_composition_errors.py.)"""

from __future__ import annotations

import io
import zipfile

import pytest

pytest.importorskip("pxr")

from pxr import Usd, UsdGeom  # noqa: E402

from viewer.cli.main import main  # noqa: E402
from viewer.frames.runner import swap  # noqa: E402
from viewer.io import SceneError, SceneWatcher, load_scene  # noqa: E402
from viewer.io.usd import timeline  # noqa: E402
from viewer.session.session import Session  # noqa: E402

HEADER = '#usda 1.0\n(\n    defaultPrim = "A"\n)\n'


def _poll(session, prepare=None):
    """One redraw's scene swap without a window (`viewer.frames.runner.swap`): the scene
    swapped in, or None; `prepare` stands for the window's GPU set-up of the candidate."""
    swapped = swap(session, prepare or (lambda scene: None))
    return None if swapped is None else swapped.candidate.scene


def _one_line(capsys, argv) -> str:
    assert main([*argv, "--headless", "--frames", "1", "--size", "160x90"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sgview: ") and "Traceback" not in err
    return err


def test_a_layer_that_does_not_parse(tmp_path, capsys):
    path = tmp_path / "bad.usda"
    path.write_text(HEADER + 'def Xform "A" {\n    double3 xformOp:translate = (1, 2\n}\n')
    err = _one_line(capsys, [str(path)])
    assert "bad.usda" in err and "prim /A" in err and "'xformOp:translate'" in err
    assert "parse error" in err and "stage.cpp" not in err


def test_a_missing_reference_is_a_note_and_the_stage_opens(tmp_path, capsys):
    path = tmp_path / "main.usda"
    path.write_text(HEADER + 'def Xform "A" (\n    references = @./gone.usda@\n)\n{\n}\n')
    assert main([str(path), "--headless", "--frames", "1", "--size", "160x90"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "not composed" in line]
    assert len(lines) == 1 and "</A>" in lines[0] and "gone.usda" in lines[0]
    assert "Traceback" not in err and "stage.cpp" not in err


def test_a_cycle_of_references(tmp_path, capsys):
    (tmp_path / "a.usda").write_text(
        HEADER + 'def Xform "A" (\n  references = @./b.usda@\n)\n{\n}\n'
    )
    (tmp_path / "b.usda").write_text(
        '#usda 1.0\n(\n  defaultPrim = "B"\n)\n'
        'def Xform "B" (\n  references = @./a.usda@\n)\n{\n}\n'
    )
    err = _one_line(capsys, [str(tmp_path / "a.usda")])
    assert "Cycle detected" in err and "prim /A" in err


def test_a_usdz_that_is_not_a_zip(tmp_path, capsys):
    path = tmp_path / "x.usdz"
    path.write_bytes(b"PK\x03\x04 not really a zip archive" * 10)
    assert "not one" in _one_line(capsys, [str(path)])


def test_a_usdz_that_expands_beyond_the_budget(tmp_path, capsys):
    path = tmp_path / "big.usdz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("scene.usda", HEADER + " " * (3 * 1024 * 1024))  # deflates to ~3 KB
    assert path.stat().st_size < 64 * 1024
    err = _one_line(capsys, [str(path), "--max-buffer-mb", "1"])
    assert "uncompressed" in err and "--max-buffer-mb 1" in err


def _animated(path, end: float, samples: int = 2) -> None:
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(end)
    xf = UsdGeom.Xform.Define(stage, "/A")
    op = xf.AddRotateYOp()
    for k in range(samples):
        op.Set(float(k), k * end / max(1, samples - 1))
    stage.SetDefaultPrim(xf.GetPrim())
    stage.GetRootLayer().Save()


def test_a_huge_time_range_is_refused_before_baking(tmp_path, capsys):
    path = tmp_path / "long.usda"
    _animated(path, 1e9)
    err = _one_line(capsys, [str(path)])
    assert "prim /A" in err and "frames" in err and "--max-buffer-mb" in err


def test_too_many_time_samples_on_one_property(tmp_path, monkeypatch):
    path = tmp_path / "dense.usda"
    _animated(path, 100, samples=50)
    monkeypatch.setattr(timeline, "MAX_SAMPLES", 20)
    with pytest.raises(SceneError, match=r"prim /A, field 'xformOp:rotateY': 50 time samples"):
        load_scene(path)


def test_a_mesh_with_indices_out_of_range(tmp_path, capsys):
    path = tmp_path / "mesh.usda"
    stage = Usd.Stage.CreateNew(str(path))
    mesh = UsdGeom.Mesh.Define(stage, "/A")
    mesh.CreatePointsAttr([(0, 0, 0), (1, 0, 0), (0, 1, 0)])
    mesh.CreateFaceVertexCountsAttr([3])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 7])
    stage.GetRootLayer().Save()
    err = _one_line(capsys, [str(path)])
    assert "prim /A" in err and "'faceVertexIndices'" in err and "0..2" in err


def test_point_instancer_indices_out_of_range(tmp_path, capsys):
    path = tmp_path / "inst.usda"
    stage = Usd.Stage.CreateNew(str(path))
    inst = UsdGeom.PointInstancer.Define(stage, "/A")
    UsdGeom.Cube.Define(stage, "/A/P")
    inst.CreatePrototypesRel().AddTarget("/A/P")
    inst.CreateProtoIndicesAttr([0, 3])
    inst.CreatePositionsAttr([(0, 0, 0), (1, 0, 0)])
    stage.GetRootLayer().Save()
    err = _one_line(capsys, [str(path)])
    assert "prim /A" in err and "'protoIndices'" in err


def test_live_reload_keeps_the_last_good_stage(tmp_path):
    path = tmp_path / "live.usda"
    _animated(path, 10)
    scene = load_scene(path)
    session = Session(scene, out=io.StringIO(), err=io.StringIO())
    now = [0.0]
    session.files.watcher = SceneWatcher(path, clock=lambda: now[0], seen=scene.source_stamp)
    path.write_text(HEADER + 'def Xform "A" {\n    double3 xformOp:translate = (1,\n}\n')
    now[0] += 5.0
    assert _poll(session) is None  # the change noted
    now[0] += 1.0
    assert _poll(session) is None  # and read, settled: refused
    assert session.scene is scene and "parse error" in session.messages.reload
    _animated(tmp_path / "v2.usda", 20)  # (pxr refuses CreateNew over an open layer)
    path.write_bytes((tmp_path / "v2.usda").read_bytes())
    now[0] += 5.0
    assert _poll(session) is None
    now[0] += 1.0
    fresh = _poll(session)
    assert fresh is session.scene and fresh is not scene and session.messages.reload is None


def test_max_nodes_counts_what_references_bring(tmp_path, capsys):
    from stages import write_composed

    path = write_composed(tmp_path)  # 6 prims of its own, 8 more from references
    err = _one_line(capsys, [path, "--max-nodes", "10"])
    assert "the stage has more than 10 nodes, the limit (--max-nodes 10)" in err


def test_ctrl_s_on_a_usd_scene_writes_the_stage_itself(tmp_path):
    from viewer.session.opening import save_as_suggestion, save_target

    path = tmp_path / "stage.usda"
    _animated(path, 10)
    scene = load_scene(path)
    assert save_target(scene) == path  # its edits, into its layers (tests/usd/test_stage_edits.py)
    assert save_as_suggestion(scene) == str(path)


def _moving_instancer(path, instances: int, end: float) -> None:
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(end)
    inst = UsdGeom.PointInstancer.Define(stage, "/A")
    UsdGeom.Cube.Define(stage, "/A/P")
    inst.CreatePrototypesRel().AddTarget("/A/P")
    inst.CreateProtoIndicesAttr([0] * instances)
    positions = inst.CreatePositionsAttr()
    for code in range(0, int(end) + 1, max(1, int(end) // 40)):
        positions.Set([(k, code, 0) for k in range(instances)], code)
    stage.GetRootLayer().Save()


def test_too_many_instance_samples_are_refused(tmp_path, monkeypatch):
    from viewer.io.usd import instancer

    path = tmp_path / "dense.usda"
    _moving_instancer(path, 2, 100)
    monkeypatch.setattr(instancer, "MAX_SAMPLES", 20)
    with pytest.raises(SceneError, match=r"prim /A, field 'positions': 51 time samples"):
        load_scene(path)


def test_animated_instances_beyond_the_budget_are_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "crowd.usda"
    _moving_instancer(path, 2000, 240)  # 601 keys of 2,000 matrices: 154 MB
    err = _one_line(capsys, [str(path), "--max-buffer-mb", "16"])
    assert "prim /A" in err and "--max-buffer-mb" in err


def test_a_mesh_over_the_data_budget_is_said_to_be_usd_data(tmp_path, capsys):
    """The budget's reason names the format read (it said "the glTF data" for USD too)."""
    path = tmp_path / "big_mesh.usda"
    stage = Usd.Stage.CreateNew(str(path))
    mesh = UsdGeom.Mesh.Define(stage, "/A")
    n = 40_000  # 480 KB of points and 1.4 MB of triangle indices: over 1 MB
    mesh.GetPointsAttr().Set([(float(i), 0.0, 0.0) for i in range(n)])
    mesh.GetFaceVertexCountsAttr().Set([3] * (n // 3))
    mesh.GetFaceVertexIndicesAttr().Set(list(range(3 * (n // 3))))
    stage.SetDefaultPrim(mesh.GetPrim())
    stage.GetRootLayer().Save()
    err = _one_line(capsys, [str(path), "--max-buffer-mb", "1"])
    assert "the USD data of the scene" in err and "glTF" not in err, err
