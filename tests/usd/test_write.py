"""Writing USD (viewer/io/usd/write.py), held against pxr: each written stage, opened by
pxr, gives sgview's world matrices through UsdGeom.XformCache to 1e-12 relative, with the
prim paths, display names, up axis and metres per unit the docs promise; opened again by
sgview it gives the same worlds."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Sdf, Usd, UsdGeom  # noqa: E402

from viewer.cli.main import main  # noqa: E402
from viewer.content.motion import apply_motions  # noqa: E402
from viewer.content.scene import Look, Scene  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.io.bundled import scene_dir  # noqa: E402
from viewer.io.gltf_write.builtin import srgb_to_linear  # noqa: E402
from viewer.io.usd.write import save_usd  # noqa: E402
from viewer.scene.graph import SceneGraph  # noqa: E402
from viewer.session.opening import save_as  # noqa: E402

REL = 1e-12
BUNDLED = sorted(p.name for p in scene_dir().glob("*.toml"))
#: A scene whose motions loop over minutes: 60 samples a second make it slow to write,
#: so it is written in one format here.
LONG = {"solar_system.toml": ".usdc"}
GPRIMS = ("Cube", "Sphere", "Mesh")
ORIENT_STACK = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]
MATRIX_STACK = ["xformOp:translate", "xformOp:transform:rotation", "xformOp:scale"]
#: An animated rotation that passes near none: a constant quarter turn before the samples.
OFFSET_STACK = ["xformOp:translate", "xformOp:orient:offset", "xformOp:orient", "xformOp:scale"]


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    scale = max(1.0, float(np.abs(want).max()))
    err = float(np.abs(got - want).max())
    assert err <= REL * scale, f"{what}: off by {err:.3g}\n{got}\n{want}"


def _node_prims(stage: Usd.Stage) -> list[Usd.Prim]:
    """The Xform prims in pre-order, as the writer defines them (sgview's node order)."""
    return [p for p in stage.Traverse() if p.GetTypeName() == "Xform"]


def _stage_root(scene: Scene) -> int | None:
    return next((i for i, p in scene.node_paths.items() if p == "/"), None)


def _check(scene: Scene, out) -> Usd.Stage:
    """`out` (written from `scene`) against pxr's XformCache and sgview's own reading."""
    scene.graph.update()
    world = scene.graph.world_matrices()
    root = _stage_root(scene)
    under = np.eye(4) if root is None else world[root]
    ids = [i for i in scene.graph.alive_ids().tolist() if i != root]
    stage = Usd.Stage.Open(str(out))
    prims = _node_prims(stage)
    assert len(prims) == len(ids)
    cache = UsdGeom.XformCache()
    back = load_scene(out)
    back.graph.update()
    back_world = back.graph.world_matrices()
    back_by_path = {p: back_world[i] for i, p in back.node_paths.items()}
    names = scene.graph.peek.names_of(ids)
    for prim, node, name in zip(prims, ids, names, strict=True):
        path = str(prim.GetPath())
        usd = under @ np.array(cache.GetLocalToWorldTransform(prim)).T
        _close(usd, world[node], f"pxr {path}")
        _close(back_by_path[path], world[node], f"sgview {path}")
        assert Sdf.Path.IsValidIdentifier(prim.GetName())
        if prim.GetName() != name:
            assert prim.GetDisplayName() == name
        kept = scene.node_paths.get(node)
        if kept is not None and kept != "/":
            assert path == kept
        ops = [op.GetOpName() for op in UsdGeom.Xformable(prim).GetOrderedXformOps()]
        assert ops in (ORIENT_STACK, MATRIX_STACK, OFFSET_STACK), ops
    return stage


@pytest.mark.parametrize(
    ("name", "suffix"),
    [
        (name, suffix)
        for name in BUNDLED
        for suffix in (".usda", ".usdc", ".usdz")
        if LONG.get(name, suffix) == suffix
    ],
)
def test_bundled_scenes_write_their_worlds(tmp_path, name, suffix):
    scene = load_scene(scene_dir() / name)
    apply_motions(scene, 0.0)  # the pose of time 0, which sgview reads the samples back at
    out = tmp_path / f"out{suffix}"
    notes = save_usd(scene, out)
    stage = _check(scene, out)
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    if scene.motions:  # written as time samples (tests/usd/test_write_time.py)
        assert stage.HasAuthoredTimeCodeRange()
        assert not any("animation" in n for n in notes), notes
    assert len(notes) == len(set(notes))


def test_a_usdz_is_a_package(tmp_path):
    out = tmp_path / "out.usdz"
    save_usd(load_scene(scene_dir() / "chain5.toml"), out)
    assert out.read_bytes()[:2] == b"PK"
    assert [p.name for p in tmp_path.iterdir()] == ["out.usdz"]  # no temporary left


def test_built_in_meshes_are_gprims_with_linear_display_colour(tmp_path):
    graph = SceneGraph()
    ids = [graph.add(k).id for k in ("cube", "sphere", "cone", "axes", "rect")]
    colour = (0.8, 0.2, 0.05)
    looks = {
        i: Look(mesh=k, size=(1.0, 2.0, 0.5), color=colour)
        for i, k in zip(ids, graph.peek.names_of(ids), strict=True)
    }
    scene = Scene(graph=graph, looks=looks)
    out = tmp_path / "meshes.usda"
    save_usd(scene, out)
    stage = Usd.Stage.Open(str(out))
    want = srgb_to_linear(colour)
    types = {}
    for prim in stage.Traverse():
        if prim.GetTypeName() not in GPRIMS:
            continue
        types[str(prim.GetParent().GetName())] = prim.GetTypeName()
        gprim = UsdGeom.Gprim(prim)
        shown = np.array(gprim.GetDisplayColorAttr().Get(), np.float64)
        if prim.GetParent().GetName() != "axes":  # the axes' painted arms: vertex colours
            np.testing.assert_allclose(shown[0], want, rtol=1e-7)
        scale = UsdGeom.Xformable(prim).GetOrderedXformOps()[0].Get()
        assert tuple(scale) == (1.0, 2.0, 0.5)
    assert types == {
        "cube": "Cube",
        "sphere": "Sphere",
        "cone": "Mesh",
        "axes": "Mesh",
        "rect": "Mesh",
    }
    assert UsdGeom.Cube(stage.GetPrimAtPath("/cube/mesh")).GetSizeAttr().Get() == 1.0
    assert UsdGeom.Sphere(stage.GetPrimAtPath("/sphere/mesh")).GetRadiusAttr().Get() == 0.5


unit = st.floats(-1, 1, allow_nan=False)
coord = st.floats(-50, 50, allow_nan=False)
factor = st.floats(0.1, 4.0).flatmap(lambda v: st.sampled_from([v, -v]))
odd_names = st.sampled_from(["a", "a b", "a-b", "1st", "", "ü", "mesh", "x.y", "Node"])


@st.composite
def hierarchies(draw):
    n = draw(st.integers(1, 14))
    nodes = []
    for k in range(n):
        parent = draw(st.integers(-1, k - 1))
        q = np.array([draw(unit) for _ in range(4)])
        if np.linalg.norm(q) < 0.1:
            q = np.array([0.0, 0.0, 0.0, 1.0])
        nodes.append(
            (
                draw(odd_names),
                parent,
                [draw(coord) for _ in range(3)],
                (q / np.linalg.norm(q)).tolist(),
                [draw(factor) for _ in range(3)],
                draw(st.sampled_from(["none", "cube", "sphere", "disk"])),
            )
        )
    return nodes


@settings(max_examples=30, deadline=None)
@given(hierarchies(), st.sampled_from([".usda", ".usdc"]))
def test_random_hierarchies_write_their_worlds(tmp_path_factory, nodes, suffix):
    graph = SceneGraph()
    made = []
    looks = {}
    for k, (name, parent, t, q, s, mesh) in enumerate(nodes):
        node = graph.add(
            f"{name}{k}" if k % 3 else f"{name}#{k}",
            None if parent < 0 else made[parent],
            position=t,
            rotation=q,
            scale=s,
        )
        made.append(node)
        if mesh != "none":
            looks[node.id] = Look(mesh=mesh)
    scene = Scene(graph=graph, looks=looks)
    out = tmp_path_factory.mktemp("w") / f"random{suffix}"
    save_usd(scene, out)
    _check(scene, out)


@pytest.mark.parametrize(
    ("quaternion", "stack"),
    [
        ((0.0, 0.0, 1.9999999996e-05, 0.9999999998), MATRIX_STACK),  # pxr's acos loses it
        ((0.0, 0.0, 1.0, 0.0), ORIENT_STACK),  # a half turn pxr gives exactly
        ((0.5, 0.5, 0.5, 0.5), ORIENT_STACK),
    ],
)
def test_orient_where_pxr_evaluates_it_exactly(tmp_path, quaternion, stack):
    graph = SceneGraph()
    graph.add("n", position=(1.0, 2.0, 3.0), rotation=quaternion, scale=(2.0, -1.0, 0.5))
    out = tmp_path / "n.usda"
    save_usd(Scene(graph=graph), out)
    stage = _check(Scene(graph=graph), out)
    ops = UsdGeom.Xformable(stage.GetPrimAtPath("/n")).GetOrderedXformOps()
    assert [op.GetOpName() for op in ops] == stack


def _z_up_stage(path) -> None:
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 0.01)
    world = UsdGeom.Xform.Define(stage, "/World")
    world.AddRotateXYZOp().Set((10.0, 20.0, 30.0))
    arm = UsdGeom.Xform.Define(stage, "/World/Arm")
    arm.AddTranslateOp().Set((1.0, 2.0, 3.0))
    arm.AddScaleOp().Set((2.0, 1.0, 0.5))
    UsdGeom.Cube.Define(stage, "/World/Arm/Box")
    stage.SetDefaultPrim(world.GetPrim())
    stage.Save()


@pytest.mark.parametrize("suffix", [".usda", ".usdc"])
def test_a_usd_source_keeps_its_paths_up_axis_and_units(tmp_path, suffix):
    source = tmp_path / "source.usda"
    _z_up_stage(source)
    scene = load_scene(source)
    out = tmp_path / f"again{suffix}"
    notes = save_usd(scene, out)
    assert not any("prim paths" in n or "mesh of its own" in n for n in notes), notes
    stage = _check(scene, out)
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    assert UsdGeom.GetStageMetersPerUnit(stage) == 0.01
    assert stage.GetPrimAtPath("/World/Arm").IsValid()
    original = Usd.Stage.Open(str(source))
    for path in ("/World", "/World/Arm"):
        a = UsdGeom.XformCache().GetLocalToWorldTransform(original.GetPrimAtPath(path))
        b = UsdGeom.XformCache().GetLocalToWorldTransform(stage.GetPrimAtPath(path))
        _close(np.array(b), np.array(a), path)


def test_save_as_writes_usd(tmp_path):
    scene = load_scene(scene_dir() / "robot_arm.toml")
    out = tmp_path / "arm.usdc"
    notes = save_as(scene, out)
    assert not any("animation" in n for n in notes), notes
    assert Usd.Stage.Open(str(out)) is not None


def test_the_command_line_saves_usda(tmp_path, capsys):
    out = tmp_path / "x.usda"
    assert main([str(scene_dir() / "chain5.toml"), "--save", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("sgview: saved ") and f"(5 nodes) to {out}\n" in captured.out
    assert captured.err == "sgview: note: scripted events are not carried to USD\n"
    assert Usd.Stage.Open(str(out)) is not None
