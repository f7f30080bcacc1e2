"""A stage opens as `Usd.Stage.Open` composes it: each composition error (an unresolved
asset, a missing sublayer, a look file no plugin reads, a prim path no layer holds) is one
note naming what was asked for, the stage holds what composes (world matrices equal to
pxr's XformCache); projective terms of a matrix are noted once per prim, shown without."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pxr")

from pxr import Gf, Usd, UsdGeom  # noqa: E402
from stages import assert_matches_usd, root_matrix, scene_of, usd_world, write_part  # noqa: E402

from viewer.cli.main import main  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.io.limits import DEFAULT_LIMITS  # noqa: E402
from viewer.io.usd.read import model_of_stage  # noqa: E402
from viewer.io.usd.stage import composition_notes  # noqa: E402

#: What each composition error of `_broken_stage` names, once.
ASKED_FOR = ("gone.usda", "missing_sub.usda", "look.mtlx", "/World/NoSuchPrim")

MAIN = """#usda 1.0
(
    defaultPrim = "World"
    subLayers = [@./missing_sub.usda@, @./extra.usda@]
)
def Xform "World"
{
    double3 xformOp:translate = (1, 2, 3)
    uniform token[] xformOpOrder = ["xformOp:translate"]

    def Xform "Part" (
        references = @./part.usda@
    )
    {
    }

    def Xform "Gone" (
        references = @./gone.usda@
    )
    {
        double3 xformOp:translate = (0, 5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]

        def Cube "Kept"
        {
            float xformOp:rotateZ = 45
            uniform token[] xformOpOrder = ["xformOp:rotateZ"]
        }
    }

    def Xform "Look" (
        references = @./look.mtlx@
    )
    {
        double3 xformOp:scale = (2, 2, 2)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }

    def Xform "Nowhere" (
        references = </World/NoSuchPrim>
    )
    {
    }
}
"""

EXTRA = """#usda 1.0
over "World"
{
    def Xform "FromSub"
    {
        float xformOp:rotateY = 30
        uniform token[] xformOpOrder = ["xformOp:rotateY"]
    }
}
"""


def _broken_stage(folder: Path) -> Path:
    """main.usda: an unresolved reference, a missing sublayer, a MaterialX look (which
    usd-core reads no more than any unknown format) and a reference to a prim path that
    does not exist, beside a reference and a sublayer that resolve."""
    write_part(folder)
    (folder / "extra.usda").write_text(EXTRA)
    (folder / "look.mtlx").write_text(
        '<?xml version="1.0"?>\n<materialx version="1.38">\n</materialx>\n'
    )
    path = folder / "main.usda"
    path.write_text(MAIN)
    return path


def _composition_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if "not composed:" in line]


def test_a_stage_with_composition_errors_opens_as_usd_composes_it(tmp_path):
    path = _broken_stage(tmp_path)
    scene = load_scene(path)
    scene.graph.update()
    stage = Usd.Stage.Open(str(path))
    paths = set(scene.node_paths.values())
    for prim in ("/World/Part", "/World/Part/Geo", "/World/FromSub", "/World/Gone/Kept"):
        assert prim in paths
    assert {str(p.GetPath()) for p in stage.Traverse() if p.IsA(UsdGeom.Xformable)} <= paths
    assert assert_matches_usd(scene, stage, 0.0) == 8
    notes = _composition_lines(scene.animation.notes)
    assert len(notes) == len(ASKED_FOR)
    for asked in ASKED_FOR:  # each error listed once, naming what was asked for
        assert sum(asked in note for note in notes) == 1, (asked, notes)
    assert any("/World/Gone" in note and "gone.usda" in note for note in notes)
    assert any("/World/Look" in note and "look.mtlx" in note for note in notes)
    assert all("\n" not in note and "pxrInternal" not in note for note in notes)
    assert all("SDF_FORMAT_ARGS" not in note for note in notes)


def test_the_command_line_opens_it_and_says_each_error_once(tmp_path, capsys):
    path = _broken_stage(tmp_path)
    out = tmp_path / "world.json"
    argv = [str(path), "--headless", "--frames", "1", "--size", "160x90", "--dump-world"]
    assert main([*argv, str(out)]) == 0
    err = capsys.readouterr().err
    lines = _composition_lines(err.splitlines())
    assert len(lines) == len(ASKED_FOR) and "Traceback" not in err
    for asked in ASKED_FOR:
        assert sum(asked in line for line in lines) == 1, (asked, lines)
    assert all(line.startswith("sgview: note: ") for line in lines)
    dumped = json.loads(out.read_text())
    stage = Usd.Stage.Open(str(path))
    root = np.array(dumped.get("/", np.eye(4).tolist()))
    for key in ("/World/Part/Geo", "/World/FromSub", "/World/Gone/Kept", "/World/Look"):
        want = root @ usd_world(stage, key, 0.0)
        assert np.allclose(np.array(dumped[key]), want, rtol=0, atol=1e-12)


def test_one_arc_reached_through_many_references_is_one_line(tmp_path):
    (tmp_path / "piece.usda").write_text(
        '#usda 1.0\n(\n    defaultPrim = "Piece"\n)\n'
        'def Xform "Piece"\n{\n    def Scope "Materials" (\n'
        "        references = @./piece_mat.mtlx@\n    )\n    {\n    }\n}\n"
    )
    (tmp_path / "piece_mat.mtlx").write_text('<?xml version="1.0"?>\n<materialx/>\n')
    stage = Usd.Stage.CreateNew(str(tmp_path / "board.usda"))
    for name in ("A", "B", "C"):
        prim = UsdGeom.Xform.Define(stage, f"/Board/{name}").GetPrim()
        prim.GetReferences().AddReference("./piece.usda")
    stage.GetRootLayer().Save()
    assert len(stage.GetCompositionErrors()) == 3
    notes = composition_notes(stage)
    assert len(notes) == 1
    assert "/Board/A/Materials (and 2 more prims)" in notes[0]
    assert "@piece_mat.mtlx@" in notes[0]


def test_a_stage_of_ones_own_notes_its_errors_too(tmp_path):
    stage = Usd.Stage.CreateInMemory()
    prim = UsdGeom.Xform.Define(stage, "/World/Ref").GetPrim()
    prim.GetReferences().AddReference(str(tmp_path / "nowhere.usda"))
    model = model_of_stage(stage, Path("s.usda"), "s.usda", DEFAULT_LIMITS)
    notes = _composition_lines(model.notes)
    assert len(notes) == 1 and "nowhere.usda" in notes[0] and "/World/Ref" in notes[0]


def test_a_file_that_is_not_usd_is_still_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "notes.usda"
    path.write_text("these are not the layers you are looking for\n")
    assert main([str(path), "--headless", "--frames", "1", "--size", "160x90"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sgview: ") and "notes.usda" in err


def _projective_stage() -> Usd.Stage:
    """/World/Bent carries usd-wg's weird_matrix_transform (4, 8, 12 in its last column)
    with a translated child; /World/Fine an affine matrix."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.Xform.Define(stage, "/World")
    bent = UsdGeom.Xform.Define(stage, "/World/Bent")
    bent.AddTransformOp().Set(Gf.Matrix4d(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1))
    UsdGeom.Xform.Define(stage, "/World/Bent/Child").AddTranslateOp().Set((1, 0, 0))
    fine = UsdGeom.Xform.Define(stage, "/World/Fine")
    fine.AddTransformOp().Set(Gf.Matrix4d(2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1))
    return stage


def test_projective_terms_are_noted_once_per_prim_and_shown_without(tmp_path):
    stage = _projective_stage()
    notes = model_of_stage(stage, Path("s.usda"), "s.usda", DEFAULT_LIMITS).notes
    projective = [note for note in notes if "projective" in note]
    assert len(projective) == 1
    assert "/World/Bent:" in projective[0] and "4, 8, 12" in projective[0]
    scene = scene_of(stage)
    root = root_matrix(scene)
    world = {path: m for path, m in zip(*_paths_worlds(scene), strict=True)}
    for path in ("/World/Bent", "/World/Bent/Child", "/World/Fine"):
        want = root @ usd_world(stage, path, 0.0)
        want[3] = (0.0, 0.0, 0.0, 1.0)  # USD's matrix without its projective terms
        assert np.allclose(world[path], want, rtol=0, atol=1e-12), path


def test_animated_projective_terms_are_noted_once(tmp_path):
    stage = Usd.Stage.CreateInMemory()
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(10)
    op = UsdGeom.Xform.Define(stage, "/Moving").AddTransformOp()
    op.Set(Gf.Matrix4d(1.0), 0)
    op.Set(Gf.Matrix4d(1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1), 10)
    notes = model_of_stage(stage, Path("s.usda"), "s.usda", DEFAULT_LIMITS).notes
    projective = [note for note in notes if "projective" in note]
    assert len(projective) == 1 and "/Moving:" in projective[0]


def _paths_worlds(scene):
    world = scene.graph.world_matrices()
    ids = list(scene.node_paths)
    return [scene.node_paths[i] for i in ids], [world[i] for i in ids]
