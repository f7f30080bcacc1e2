"""Opening USD files: .usda, .usdc and .usdz, composition (references, payloads, variants,
instanceable prims, inactive and guide prims), PointInstancers as GPU instances, the
command line's --dump-world by prim path, and the one line without usd-core."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from pxr import Usd, UsdUtils  # noqa: E402
from stages import assert_matches_usd, usd_world, write_composed  # noqa: E402

from viewer.cli.main import main  # noqa: E402
from viewer.io import load_scene  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _as(path: str, suffix: str, folder: Path) -> str:
    """The composed stage saved as .usda (itself), .usdc (flattened) or .usdz (packaged)."""
    if suffix == ".usda":
        return path
    out = str(folder / f"main{suffix}")
    if suffix == ".usdc":
        assert Usd.Stage.Open(path).Export(out)
    else:
        assert UsdUtils.CreateNewUsdzPackage(path, out)
    return out


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usdz"])
def test_composed_stage_opens_with_usd_world_matrices(tmp_path, suffix):
    path = _as(write_composed(tmp_path), suffix, tmp_path)
    scene = load_scene(path)
    scene.graph.update()
    stage = Usd.Stage.Open(path)
    paths = set(scene.node_paths.values())
    assert {
        "/World/RefA/Geo",
        "/World/Pay/Geo",
        "/World/Var",
        "/World/Inst1/Geo",
        "/World/Inst2/Geo",
        "/World/Scatter",
    } <= paths
    assert not {"/World/Off", "/World/Guide", "/World/Scatter/Protos/Ball"} & paths
    assert assert_matches_usd(scene, stage, 0.0) == len(paths) - 1  # all but the root "/"
    by_path = {p: i for i, p in scene.node_paths.items()}
    var_world = scene.graph.world_matrices()[by_path["/World/Var"]]
    assert np.isclose(np.linalg.norm(var_world[:3, 0]), 2.0 * 0.01)  # "big", in metres
    looks = {p: scene.looks[by_path[p]].mesh for p in ("/World/Inst1/Geo", "/World/Inst2/Geo")}
    assert looks["/World/Inst1/Geo"] == looks["/World/Inst2/Geo"]  # one mesh for instances
    (scatter,) = scene.geometry.instanced
    assert scatter.node == by_path["/World/Scatter"] and len(scatter.locals) == 50


def test_point_instances_sit_where_usd_puts_them(tmp_path):
    path = write_composed(tmp_path, instances=12)
    scene = load_scene(path)
    scene.graph.update()
    stage = Usd.Stage.Open(path)
    (item,) = scene.geometry.instanced
    world = scene.graph.world_matrices()[item.node] @ item.locals
    from pxr import UsdGeom

    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Scatter"))
    local = np.array(inst.ComputeInstanceTransformsAtTime(0, 0)).transpose(0, 2, 1)
    root = scene.graph.world_matrices()[next(i for i, p in scene.node_paths.items() if p == "/")]
    want = root @ usd_world(stage, "/World/Scatter", 0.0) @ local
    assert np.allclose(world, want, rtol=0, atol=1e-12)


def test_command_line_dumps_world_by_prim_path(tmp_path, capsys):
    path = write_composed(tmp_path)
    out = tmp_path / "world.json"
    assert (
        main([path, "--headless", "--frames", "1", "--size", "160x90", "--dump-world", str(out)])
        == 0
    )
    dumped = json.loads(out.read_text())
    stage = Usd.Stage.Open(path)
    root = np.array(dumped["/"])
    for key in ("/World/RefA/Geo", "/World/Inst2/Geo", "/World/Scatter"):
        want = root @ usd_world(stage, key, 0.0)
        assert np.allclose(np.array(dumped[key]), want, rtol=0, atol=1e-12)
    err = capsys.readouterr().err
    assert "Z up, 0.01 m per unit" in err


def test_without_usd_core_one_line_says_how_to_install(tmp_path):
    path = write_composed(tmp_path)
    hide = "import sys; sys.modules['pxr'] = None; from viewer.cli.main import main; "
    run = subprocess.run(
        [sys.executable, "-c", hide + f"sys.exit(main([{path!r}]))"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "pip install 'sgview[usd]'" in run.stderr
    assert path in run.stderr


def test_instances_of_several_prototypes_with_nested_gprims(tmp_path):
    from pxr import UsdGeom

    path = str(tmp_path / "protos.usda")
    stage = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    inst = UsdGeom.PointInstancer.Define(stage, "/Scatter")
    inst.AddRotateXOp().Set(20)
    chair = UsdGeom.Xform.Define(stage, "/Scatter/Protos/Chair")
    chair.AddTranslateOp().Set((0, 0.5, 0))
    chair.AddRotateYOp().Set(30)
    for k, x in enumerate((-0.3, 0.3)):
        leg = UsdGeom.Cube.Define(stage, f"/Scatter/Protos/Chair/Legs/Leg{k}")
        leg.AddTranslateOp().Set((x, -0.25, 0))
        leg.AddScaleOp().Set((0.1, 0.5, 0.1))
    UsdGeom.Sphere.Define(stage, "/Scatter/Protos/Ball").AddTranslateOp().Set((0, 2, 0))
    inst.CreatePrototypesRel().SetTargets(["/Scatter/Protos/Chair", "/Scatter/Protos/Ball"])
    ids = [0, 1, 1, 0, 1]
    positions = [(k * 2.0, 0, -k) for k in range(5)]
    inst.CreateProtoIndicesAttr(ids)
    inst.CreatePositionsAttr(positions)
    stage.GetRootLayer().Save()
    scene = load_scene(path)
    scene.graph.update()
    node = next(i for i, p in scene.node_paths.items() if p == "/Scatter")
    world = scene.graph.world_matrices()[node]
    items = {item.mesh.rsplit("#", 1)[1]: item for item in scene.geometry.instanced}
    assert set(items) == {
        "/Scatter/Protos/Chair/Legs/Leg0",
        "/Scatter/Protos/Chair/Legs/Leg1",
        "/Scatter/Protos/Ball",
    }
    inst_world = usd_world(stage, "/Scatter", 0.0)
    for gprim, item in items.items():
        proto = 1 if gprim.endswith("Ball") else 0
        where = [positions[k] for k, p in enumerate(ids) if p == proto]
        got = world @ item.locals
        for k, pos in enumerate(where):
            move = np.eye(4)
            move[:3, 3] = pos
            want = inst_world @ move @ np.linalg.inv(inst_world) @ usd_world(stage, gprim, 0.0)
            assert np.allclose(got[k], want, rtol=0, atol=1e-12)
