"""The same model as .usda and as .glb gives the same world matrices: every bundled scene
saved as .glb and re-authored as .usda with pxr; a USD stage saved as .glb through the
glTF writer (with one note per kind of thing it cannot carry)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from pxr import Gf, Tf, Usd, UsdGeom  # noqa: E402
from stages import write_composed  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.io.gltf_write.export import save_gltf  # noqa: E402

SCENES = sorted((Path(__file__).resolve().parents[2] / "scenes").glob("*.toml"))


def _worlds(scene) -> tuple[list[str], np.ndarray]:
    """Names and world matrices in pre-order, after one update."""
    graph = scene.graph
    graph.update()
    ids = [node.id for node in graph]
    return [graph.name_of(i) for i in ids], graph.world_matrices()[ids]


def _author_usda(scene, path: Path) -> None:
    """Every node of `scene` as an Xform prim with translate, orient and scale ops (the
    core's T · R · S), under the same parents, in the same order."""
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, "Y")
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    graph = scene.graph
    pos, rot, scl = graph.local_values()
    prim_of: dict[int, str] = {}
    taken: set[str] = set()
    for node in graph:
        parent = node.parent
        base = prim_of[parent.id] if parent is not None else ""
        name = Tf.MakeValidIdentifier(node.name)
        while f"{base}/{name}" in taken:
            name += "_"
        prim_of[node.id] = f"{base}/{name}"
        taken.add(prim_of[node.id])
        xf = UsdGeom.Xform.Define(stage, prim_of[node.id])
        i = node.id
        xf.AddTranslateOp().Set(Gf.Vec3d(*pos[i]))
        x, y, z, w = rot[i]
        xf.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(w, x, y, z))
        xf.AddScaleOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*scl[i]))
    stage.GetRootLayer().Save()


@pytest.mark.parametrize("toml", SCENES, ids=[p.stem for p in SCENES])
def test_bundled_scene_as_glb_and_as_usda(tmp_path, toml):
    glb = tmp_path / f"{toml.stem}.glb"
    save_gltf(load_scene(toml), glb)
    from_glb = load_scene(glb)
    usda = tmp_path / f"{toml.stem}.usda"
    _author_usda(from_glb, usda)
    names, want = _worlds(from_glb)
    got_names, got = _worlds(load_scene(usda))
    assert len(got_names) == len(names) > 0
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(got - want).max() <= 1e-12 * scale


def test_usd_stage_saved_as_glb_keeps_its_world_matrices(tmp_path):
    path = write_composed(tmp_path)
    scene = load_scene(path)
    names, want = _worlds(scene)
    notes = save_gltf(scene, tmp_path / "out.glb") + scene.save_notes
    got_names, got = _worlds(load_scene(tmp_path / "out.glb"))
    assert got_names == names
    assert np.abs(got - want).max() <= 1e-12 * max(1.0, float(np.abs(want).max()))
    assert any("PointInstancer instances (50)" in n for n in notes)
    assert len(notes) == len(set(notes))  # one line per kind
