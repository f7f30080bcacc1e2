"""Edits of a stage saved as USD opinions (viewer/io/usd/edits.py), held against pxr: after a
save the stage, opened again by pxr, gives sgview's world matrices through
UsdGeom.XformCache to 1e-12 relative; referenced files stay byte-identical, the prims no
edit touched keep their specs, and an edit layer changes the root layer by its subLayers
entry only. What USD cannot say is refused in one line naming the node, nothing written."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Gf, Sdf, Usd, UsdGeom  # noqa: E402
from stages import write_composed  # noqa: E402

from viewer.cli.main import main  # noqa: E402
from viewer.content.scene import Look  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.io.bundled import scene_dir  # noqa: E402
from viewer.io.errors import SceneError  # noqa: E402
from viewer.io.limits import DEFAULT_LIMITS  # noqa: E402
from viewer.io.usd.edits import save_edits  # noqa: E402
from viewer.scene.errors import HierarchyError  # noqa: E402
from viewer.session.session import Session  # noqa: E402

REL = 1e-12


def _by_path(scene) -> dict[str, int]:
    return {key: node for node, key in scene.node_paths.items()}


def _assert_worlds(scene, path) -> int:
    """Every live prim node's world matrix is pxr's (under the stage's root node)."""
    graph = scene.graph
    graph.update()
    world = graph.world_matrices()
    keys = _by_path(scene)
    root = world[keys["/"]] if "/" in keys else np.eye(4)
    stage = Usd.Stage.Open(str(path))
    cache = UsdGeom.XformCache()
    count = 0
    for node, key in scene.node_paths.items():
        if key == "/" or key.endswith("[shear]") or not graph.peek.is_alive(node):
            continue
        prim = stage.GetPrimAtPath(key)
        assert prim and prim.IsActive(), key
        want = world[node]
        got = root @ np.array(cache.GetLocalToWorldTransform(prim)).T
        err = float(np.abs(got - want).max())
        assert err <= REL * max(1.0, float(np.abs(want).max())), f"{key}: off by {err:.3g}"
        count += 1
    return count


def _spec_text(layer: Sdf.Layer, path: str) -> dict:
    """A prim spec's own fields and properties (not its children), comparable."""
    spec = layer.GetPrimAtPath(path)
    fields = {key: str(spec.GetInfo(key)) for key in spec.ListInfoKeys() if key != "primChildren"}
    for prop in spec.properties:
        fields[prop.name] = {key: str(prop.GetInfo(key)) for key in prop.ListInfoKeys()}
    return fields


def _prim_specs(layer: Sdf.Layer) -> list[str]:
    paths: list[str] = []
    layer.Traverse(
        Sdf.Path.absoluteRootPath, lambda p: paths.append(str(p)) if p.IsPrimPath() else None
    )
    return paths


def _edit(scene) -> int:
    """Move /World/RefA, turn the referenced /World/RefA/Geo, remove /World/Var, add a cube
    under /World/Pay; returns the added node."""
    graph = scene.graph
    keys = _by_path(scene)
    graph.node(keys["/World/RefA"]).local_position = (5.0, -1.0, 2.5)
    graph.node(keys["/World/RefA/Geo"]).local_euler = (10.0, 20.0, 30.0)
    graph.remove(graph.node(keys["/World/Var"]))
    added = graph.add("new cube", graph.node(keys["/World/Pay"]), position=(1.0, 2.0, 3.0))
    scene.looks[added.id] = Look(mesh="cube", color=(0.2, 0.4, 0.6))
    return added.id


def test_edits_go_into_the_root_layer(tmp_path):
    main_path = write_composed(tmp_path)
    part = (tmp_path / "part.usda").read_bytes()
    before = Sdf.Layer.OpenAsAnonymous(main_path)
    scene = load_scene(main_path)
    added = _edit(scene)
    assert save_edits(scene, DEFAULT_LIMITS) == []
    assert (tmp_path / "part.usda").read_bytes() == part  # the referenced file untouched
    assert scene.node_paths[added] == "/World/Pay/new_cube"
    assert _assert_worlds(scene, main_path) >= 10
    stage = Usd.Stage.Open(main_path)
    assert not stage.GetPrimAtPath("/World/Var").IsActive()
    new = stage.GetPrimAtPath("/World/Pay/new_cube")
    assert new.GetTypeName() == "Xform" and new.GetDisplayName() == "new cube"
    assert stage.GetPrimAtPath("/World/Pay/new_cube/mesh").GetTypeName() == "Cube"
    after = Sdf.Layer.OpenAsAnonymous(main_path)
    touched = ("/World/RefA", "/World/Var", "/World/Pay")  # and the prims below them
    untouched = [
        p for p in _prim_specs(before) if not any(p == t or p.startswith(t + "/") for t in touched)
    ]
    assert "/World/Scatter" in untouched and "/World/Inst1" in untouched
    for path in untouched:
        assert _spec_text(after, path) == _spec_text(before, path), path
    # sgview reads the saved stage as it shows it
    again = load_scene(main_path)
    assert _assert_worlds(again, main_path) >= 10


def test_a_second_save_writes_nothing_more(tmp_path):
    main_path = write_composed(tmp_path)
    scene = load_scene(main_path)
    _edit(scene)
    save_edits(scene, DEFAULT_LIMITS)
    saved = Path(main_path).read_bytes()
    save_edits(scene, DEFAULT_LIMITS)  # the added node is its prim now: not added again
    assert Path(main_path).read_bytes() == saved


def test_edits_go_into_an_edit_layer(tmp_path):
    main_path = write_composed(tmp_path)
    part = (tmp_path / "part.usda").read_bytes()
    before = Sdf.Layer.OpenAsAnonymous(main_path).ExportToString()
    scene = load_scene(main_path)
    keys = _by_path(scene)
    graph = scene.graph
    graph.node(keys["/World/RefA/Geo"]).local_scale = (2.0, 0.5, 1.5)  # defined in part.usda
    graph.node(keys["/World/Pay/Geo"]).local_position = (0.0, 0.0, 7.0)  # a payload's prim
    graph.remove(graph.node(keys["/World/Var"]))
    graph.add("Extra", graph.node(keys["/World"]), position=(0.5, 0.0, 0.0))
    edits = tmp_path / "layers" / "edits.usda"
    edits.parent.mkdir()
    save_edits(scene, DEFAULT_LIMITS, edits)
    assert (tmp_path / "part.usda").read_bytes() == part
    root = Sdf.Layer.OpenAsAnonymous(main_path)
    assert list(root.subLayerPaths) == ["./layers/edits.usda"]
    root.subLayerPaths = []
    assert root.ExportToString() == before  # the root layer: the subLayers entry only
    layer = Sdf.Layer.OpenAsAnonymous(str(edits))
    assert layer.GetPrimAtPath("/World/RefA/Geo").specifier == Sdf.SpecifierOver
    assert layer.GetPrimAtPath("/World/Var").GetInfo("active") is False
    assert layer.GetPrimAtPath("/World/Extra").specifier == Sdf.SpecifierDef
    assert _assert_worlds(scene, main_path) >= 10
    # a later edit goes into the same layer, still the strongest sublayer, once
    graph.node(keys["/World/RefA/Geo"]).local_scale = (1.0, 1.0, 3.0)
    save_edits(scene, DEFAULT_LIMITS, edits)
    assert list(Sdf.Layer.OpenAsAnonymous(main_path).subLayerPaths) == ["./layers/edits.usda"]
    assert _assert_worlds(scene, main_path) >= 10


def test_an_edit_the_root_layer_overrides_is_refused(tmp_path):
    main_path = write_composed(tmp_path)
    saved = Path(main_path).read_bytes()
    scene = load_scene(main_path)
    scene.graph.node(_by_path(scene)["/World/RefA"]).local_position = (9.0, 9.0, 9.0)
    edits = tmp_path / "edits.usda"
    with pytest.raises(SceneError, match="root layer's own opinions are stronger") as err:
        save_edits(scene, DEFAULT_LIMITS, edits)
    assert "/World/RefA" in str(err.value) and "\n" not in str(err.value)
    assert Path(main_path).read_bytes() == saved and not edits.exists()
    save_edits(scene, DEFAULT_LIMITS)  # into the root layer it goes
    assert _assert_worlds(scene, main_path) >= 10


def _stack(path, build) -> UsdGeom.Xform:
    stage = Usd.Stage.CreateNew(str(path))
    xf = UsdGeom.Xform.Define(stage, "/N")
    build(xf)
    stage.SetDefaultPrim(xf.GetPrim())
    stage.Save()
    return xf


def _op_names(path) -> list[str]:
    stage = Usd.Stage.Open(str(path))
    prim = stage.GetPrimAtPath("/N")
    return [op.GetOpName() for op in UsdGeom.Xformable(prim).GetOrderedXformOps()]


def _orient_stack(xf):
    xf.AddTranslateOp().Set((1, 2, 3))
    xf.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(0.5, 0.5, 0.5, 0.5))
    xf.AddScaleOp(UsdGeom.XformOp.PrecisionDouble).Set((1, 2, 3))


def _translate_only(xf):
    xf.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set((1, 2, 3))


def _matrix(xf):
    xf.AddTransformOp().Set(Gf.Matrix4d(2.0).SetTranslateOnly((1, 2, 3)))


def _pivot(xf):
    xf.AddTranslateOp(opSuffix="pivot").Set((1, 0, 0))
    xf.AddRotateZOp().Set(30)
    xf.AddTranslateOp(opSuffix="pivot", isInverseOp=True)


@pytest.mark.parametrize(
    ("build", "edit", "kept"),
    [
        (_orient_stack, {"local_position": (4.0, 5.0, 6.0)}, True),
        (_orient_stack, {"local_euler": (10.0, 0.0, 70.0)}, True),
        (_translate_only, {"local_position": (-4.0, 0.25, 6.0)}, True),
        (_translate_only, {"local_euler": (0.0, 0.0, 30.0)}, False),  # no rotation op
        (_matrix, {"local_euler": (15.0, 25.0, 35.0)}, True),
        (_pivot, {"local_position": (0.0, 1.0, 0.0)}, False),  # an inverted op: a new stack
    ],
)
def test_the_prims_own_stack_is_kept_where_it_holds_the_value(tmp_path, build, edit, kept):
    path = tmp_path / "n.usda"
    _stack(path, build)
    old = _op_names(path)
    scene = load_scene(path)
    node = scene.graph.node(_by_path(scene)["/N"])
    for name, value in edit.items():
        setattr(node, name, value)
    save_edits(scene, DEFAULT_LIMITS)
    _assert_worlds(scene, path)
    assert (_op_names(path) == old) is kept, _op_names(path)


def test_a_time_sampled_prim_keeps_its_samples(tmp_path):
    path = tmp_path / "t.usda"

    def animated(xf):
        op = xf.AddTranslateOp()
        op.Set((0, 0, 0), 0)
        op.Set((10, 0, 0), 24)

    _stack(path, animated)
    stage = Usd.Stage.Open(str(path))
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(24)
    stage.Save()
    saved = path.read_bytes()
    scene = load_scene(path)
    scene.graph.node(_by_path(scene)["/N"]).local_position = (3.0, 3.0, 3.0)
    notes = save_edits(scene, DEFAULT_LIMITS)
    assert notes == [
        "/N: its transform is time-sampled; the samples are kept and the edit is not written"
    ]
    assert path.read_bytes() == saved


@pytest.mark.parametrize("edit_layer", [None, "edits.usda"])
def test_a_reparent_is_a_new_prim_referencing_the_old(tmp_path, edit_layer):
    main_path = write_composed(tmp_path)
    part = (tmp_path / "part.usda").read_bytes()
    scene = load_scene(main_path)
    keys = _by_path(scene)
    graph = scene.graph
    var = graph.node(keys["/World/Var"])  # its scale comes from a variant
    var.set_parent(graph.node(keys["/World/RefA/Geo"]), keep_world=True)
    geo = graph.node(keys["/World/Pay/Geo"])  # a payload's prim, kept where it is in the world
    geo.set_parent(graph.node(keys["/World/RefA"]), keep_world=False)
    graph.add("Under", geo, position=(0.0, 0.0, 1.0))
    save_edits(scene, DEFAULT_LIMITS, None if edit_layer is None else tmp_path / edit_layer)
    assert (tmp_path / "part.usda").read_bytes() == part
    assert scene.node_paths[var.id] == "/World/RefA/Geo/Var"
    assert scene.node_paths[geo.id] == "/World/RefA/Geo_1"  # part.usda's Geo is there
    assert _assert_worlds(scene, main_path) >= 10
    stage = Usd.Stage.Open(main_path)
    assert not stage.GetPrimAtPath("/World/Var").IsActive()
    assert not stage.GetPrimAtPath("/World/Pay/Geo").IsActive()
    assert stage.GetPrimAtPath("/World/RefA/Geo_1").GetTypeName() == "Cube"
    assert stage.GetPrimAtPath("/World/RefA/Geo_1/Under").IsActive()
    again = load_scene(main_path)
    assert _assert_worlds(again, main_path) >= 10
    saved = Path(main_path).read_bytes()
    save_edits(scene, DEFAULT_LIMITS, None if edit_layer is None else tmp_path / edit_layer)
    assert Path(main_path).read_bytes() == saved  # nothing more to write


def test_a_reparent_usd_cannot_say_is_refused_naming_the_node(tmp_path):
    path = tmp_path / "r.usda"
    stage = Usd.Stage.CreateNew(str(path))
    world = UsdGeom.Xform.Define(stage, "/World")
    UsdGeom.Xform.Define(stage, "/World/A")
    loose = UsdGeom.Xform.Define(stage, "/World/Loose")
    loose.SetResetXformStack(True)
    loose.AddTranslateOp().Set((5.0, 0.0, 0.0))
    stage.SetDefaultPrim(world.GetPrim())
    stage.Save()
    saved = path.read_bytes()
    scene = load_scene(path)
    keys = _by_path(scene)
    graph = scene.graph
    graph.node(keys["/World/Loose"]).set_parent(graph.node(keys["/World/A"]))
    with pytest.raises(SceneError, match="resetXformStack") as err:
        save_edits(scene, DEFAULT_LIMITS)
    assert "Loose" in str(err.value) and "\n" not in str(err.value)
    assert path.read_bytes() == saved


def test_an_edit_of_the_stage_root_node_is_refused(tmp_path):
    main_path = write_composed(tmp_path)
    scene = load_scene(main_path)
    scene.graph.node(_by_path(scene)["/"]).local_position = (0.0, 1.0, 0.0)
    with pytest.raises(SceneError, match="root node"):
        save_edits(scene, DEFAULT_LIMITS)


def test_ctrl_s_on_a_stage_saves_its_edits_and_is_no_reload(tmp_path):
    main_path = write_composed(tmp_path)
    scene = load_scene(main_path)
    edits = tmp_path / "edits.usda"
    session = Session(scene, edit_layer=edits)
    keys = _by_path(scene)
    scene.graph.node(keys["/World/RefA/Geo"]).local_position = (0.0, 2.0, 0.0)
    assert session.save() is True, session.messages.edit
    assert session.messages.edit.startswith("saved ")
    assert edits.exists()
    _assert_worlds(scene, main_path)
    for _ in range(3):  # the watcher looks at the file: sgview's own save is no change
        time.sleep(0.3)
        assert session.files.take(time=0.0, motion_on=False) is None


def test_the_command_line_refuses_edit_layer_with_save(tmp_path, capsys):
    main_path = write_composed(tmp_path)
    code = main([main_path, "--save", str(tmp_path / "x.usda"), "--edit-layer", "e.usda"])
    assert code == 2
    assert "--edit-layer goes with" in capsys.readouterr().err


OPS = ("translate", "orient", "rotateXYZ", "rotateZ", "scale", "transform")


@st.composite
def stages(draw):
    """A random hierarchy of Xforms, each with a random op stack (the kinds in order)."""
    n = draw(st.integers(1, 10))
    prims = []
    for k in range(n):
        parent = draw(st.integers(-1, k - 1))
        ops = draw(st.lists(st.sampled_from(OPS), max_size=3, unique=True))
        prims.append((parent, sorted(ops, key=OPS.index)))
    edits = draw(
        st.lists(
            st.tuples(
                st.integers(0, n - 1),
                st.tuples(*[st.floats(-20, 20)] * 3),
                st.tuples(*[st.floats(-180, 180)] * 3),
                st.tuples(*[st.floats(0.2, 3)] * 3),
            ),
            max_size=4,
        )
    )
    moves = draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans()), max_size=3)
    )
    return prims, edits, moves


@settings(max_examples=25, deadline=None)
@given(stages())
def test_random_stages_edited_and_saved_give_sgviews_worlds(tmp_path_factory, drawn):
    prims, edits, moves = drawn
    path = tmp_path_factory.mktemp("e") / "r.usda"
    stage = Usd.Stage.CreateNew(str(path))
    paths: list[str] = []
    for k, (parent, ops) in enumerate(prims):
        at = f"/P{k}" if parent < 0 else f"{paths[parent]}/P{k}"
        paths.append(at)
        xf = UsdGeom.Xform.Define(stage, at)
        for op in ops:
            if op == "translate":
                xf.AddTranslateOp().Set((k, 1.0, -2.0))
            elif op == "orient":
                xf.AddOrientOp().Set(Gf.Quatf(0.8, 0.6, 0.0, 0.0))
            elif op == "rotateXYZ":
                xf.AddRotateXYZOp().Set((10.0 * k, 5.0, -30.0))
            elif op == "rotateZ":
                xf.AddRotateZOp().Set(12.5)
            elif op == "scale":
                xf.AddScaleOp().Set((1.0, 2.0, 0.5))
            else:
                xf.AddTransformOp().Set(Gf.Matrix4d(1.0).SetTranslateOnly((0, k, 0)))
    stage.Save()
    scene = load_scene(path)
    keys = _by_path(scene)
    for k, t, euler, s in edits:
        node = keys.get(paths[k])
        if node is None:
            continue
        n = scene.graph.node(node)
        n.local_position, n.local_euler, n.local_scale = t, euler, s
    for k, target, keep in moves:  # a re-parent: a new prim that references the old one
        node, under = scene.graph.node(keys[paths[k]]), scene.graph.node(keys[paths[target]])
        try:
            node.set_parent(under, keep_world=keep)
        except (HierarchyError, ValueError):  # into its own subtree, or shear: not done
            continue
    save_edits(scene, DEFAULT_LIMITS)
    _assert_worlds(scene, path)
    _assert_worlds(load_scene(path), path)


def test_a_sheared_prim_and_a_reset_stack_are_written_exactly(tmp_path):
    path = tmp_path / "s.usda"
    stage = Usd.Stage.CreateNew(str(path))
    world = UsdGeom.Xform.Define(stage, "/World")
    world.AddTranslateOp().Set((1.0, 2.0, 3.0))
    bent = UsdGeom.Xform.Define(stage, "/World/Bent")  # scale between two turns: shear
    bent.AddRotateZOp().Set(30.0)
    bent.AddScaleOp().Set((1.0, 3.0, 1.0))
    bent.AddRotateZOp(opSuffix="after").Set(45.0)
    UsdGeom.Xform.Define(stage, "/World/Bent/Tip").AddTranslateOp().Set((0.0, 1.0, 0.0))
    loose = UsdGeom.Xform.Define(stage, "/World/Loose")
    loose.SetResetXformStack(True)
    loose.AddTranslateOp().Set((5.0, 0.0, 0.0))
    stage.SetDefaultPrim(world.GetPrim())
    stage.Save()
    scene = load_scene(path)
    keys = _by_path(scene)
    assert "/World/Bent[shear]" in keys
    graph = scene.graph
    graph.node(keys["/World/Bent[shear]"]).local_position = (0.0, -2.0, 0.5)
    graph.node(keys["/World/Bent"]).local_euler = (0.0, 10.0, 0.0)
    graph.node(keys["/World/Loose"]).local_scale = (2.0, 2.0, 2.0)
    save_edits(scene, DEFAULT_LIMITS)
    assert _assert_worlds(scene, path) == 4
    saved = Usd.Stage.Open(str(path))
    assert UsdGeom.Xformable(saved.GetPrimAtPath("/World/Loose")).GetResetXformStack()
    _assert_worlds(load_scene(path), path)


def test_edit_layer_flag_needs_a_stage():
    from argparse import Namespace

    from viewer.cli.main import UsageError, _edit_layer

    scene = load_scene(scene_dir() / "chain5.toml")
    with pytest.raises(UsageError, match="no OpenUSD stage"):
        _edit_layer(Namespace(edit_layer=Path("e.usda")), scene)
    assert _edit_layer(Namespace(edit_layer=None), scene) is None


def test_a_layer_with_unsaved_changes_in_this_process_is_not_reloaded(tmp_path):
    main_path = write_composed(tmp_path)
    scene = load_scene(main_path)
    scene.graph.node(_by_path(scene)["/World/RefA"]).local_position = (0.0, 0.0, 1.0)
    own = Usd.Stage.Open(main_path)  # a program's own stage of the same file, edited
    UsdGeom.Xform.Define(own, "/World/Mine")
    with pytest.raises(SceneError, match="not yet saved in this process"):
        save_edits(scene, DEFAULT_LIMITS)
    assert own.GetPrimAtPath("/World/Mine")  # its change is still there


@pytest.mark.parametrize("edit", ["move", "remove", "add"])
def test_an_edit_inside_an_instance_is_refused(tmp_path, edit):
    main_path = write_composed(tmp_path)
    saved = Path(main_path).read_bytes()
    scene = load_scene(main_path)
    graph = scene.graph
    inside = graph.node(_by_path(scene)["/World/Inst1/Geo"])  # an instance proxy's node
    if edit == "move":
        inside.local_position = (0.0, 3.0, 0.0)
    elif edit == "remove":
        graph.remove(inside)
    else:
        graph.add("Extra", inside)
    with pytest.raises(SceneError, match="inside the instance /World/Inst1") as err:
        save_edits(scene, DEFAULT_LIMITS)
    assert "\n" not in str(err.value)
    assert Path(main_path).read_bytes() == saved


def test_a_child_moved_out_of_a_moved_prim(tmp_path):
    path = tmp_path / "n.usda"
    stage = Usd.Stage.CreateNew(str(path))
    world = UsdGeom.Xform.Define(stage, "/W")
    for at, move in (("/W/A", (1, 0, 0)), ("/W/A/B", (0, 2, 0)), ("/W/X", (0, 0, 3))):
        UsdGeom.Xform.Define(stage, at).AddTranslateOp().Set(move)
    UsdGeom.Xform.Define(stage, "/W/Y").AddRotateZOp().Set(90.0)
    stage.SetDefaultPrim(world.GetPrim())
    stage.Save()
    scene = load_scene(path)
    keys = _by_path(scene)
    graph = scene.graph
    graph.node(keys["/W/A"]).set_parent(graph.node(keys["/W/X"]))
    graph.node(keys["/W/A/B"]).set_parent(graph.node(keys["/W/Y"]))
    save_edits(scene, DEFAULT_LIMITS)
    assert scene.node_paths[keys["/W/A"]] == "/W/X/A"
    assert scene.node_paths[keys["/W/A/B"]] == "/W/Y/B"
    saved = Usd.Stage.Open(str(path))
    assert not saved.GetPrimAtPath("/W/X/A/B").IsActive()  # no copy left where A went
    assert _assert_worlds(scene, path) == 5
    assert _assert_worlds(load_scene(path), path) == 5


def test_moves_into_and_out_of_a_moved_subtree(tmp_path):
    path = tmp_path / "m.usda"
    stage = Usd.Stage.CreateNew(str(path))
    world = UsdGeom.Xform.Define(stage, "/W")
    for k, at in enumerate(["/W/P0", "/W/P2", "/W/P0/P3", "/W/P0/P3/P6", "/W/P7"]):
        xf = UsdGeom.Xform.Define(stage, at)
        xf.AddTranslateOp().Set((k, 1.0, -2.0))
        xf.AddRotateXYZOp().Set((10.0 * k, 5.0, -30.0))
    stage.SetDefaultPrim(world.GetPrim())
    stage.Save()
    scene = load_scene(path)
    keys = _by_path(scene)
    graph = scene.graph
    for node, under, keep in (
        ("P0/P3", "P2", False),
        ("P0/P3/P6", "P0", True),
        ("P7", "P0/P3", True),
    ):
        graph.node(keys[f"/W/{node}"]).set_parent(graph.node(keys[f"/W/{under}"]), keep_world=keep)
    save_edits(scene, DEFAULT_LIMITS)
    assert scene.node_paths[keys["/W/P7"]] == "/W/P2/P3/P7"
    assert _assert_worlds(scene, path) == 6
    assert _assert_worlds(load_scene(path), path) == 6


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_moves_under_a_default_prim(tmp_path_factory, rng):
    path = tmp_path_factory.mktemp("m") / "r.usda"
    stage = Usd.Stage.CreateNew(str(path))
    world = UsdGeom.Xform.Define(stage, "/W")
    stage.SetDefaultPrim(world.GetPrim())
    paths: list[str] = []
    for k in range(8):
        parent = rng.randint(-1, k - 1)
        paths.append(f"/W/P{k}" if parent < 0 else f"{paths[parent]}/P{k}")
        xf = UsdGeom.Xform.Define(stage, paths[-1])
        if rng.random() < 0.7:
            xf.AddTranslateOp().Set((k, 1.0, -2.0))
        if rng.random() < 0.5:
            xf.AddRotateXYZOp().Set((10.0 * k, 5.0, -30.0))
        if rng.random() < 0.3:
            xf.AddScaleOp().Set((2.0, 2.0, 2.0))
    stage.Save()
    scene = load_scene(path)
    keys = _by_path(scene)
    graph = scene.graph
    for _ in range(3):
        node, under = graph.node(keys[rng.choice(paths)]), graph.node(keys[rng.choice(paths)])
        try:
            node.set_parent(under, keep_world=rng.random() < 0.5)
        except (HierarchyError, ValueError):  # into its own subtree: not done
            continue
    save_edits(scene, DEFAULT_LIMITS)
    assert _assert_worlds(scene, path) == 9
    assert _assert_worlds(load_scene(path), path) == 9
