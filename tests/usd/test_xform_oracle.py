"""World matrices of USD prims equal pxr's UsdGeom.XformCache to 1e-9 relative: every op
type and precision, all six rotateXYZ orders, orient, transform, `!invert!` twins, pivots,
`!resetXformStack!`, non-Xformable prims in between, over random op stacks."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pxr import Usd, UsdGeom  # noqa: E402
from stages import ROTATE_XYZ, add_op, assert_matches_usd, scene_of, world_by_path  # noqa: E402

KINDS = ("translate", "scale", "rotateX", "rotateY", "rotateZ", "orient", "transform") + tuple(
    "rotate" + o for o in ROTATE_XYZ
)
coord = st.floats(-10, 10, allow_nan=False)
angle = st.floats(-360, 360, allow_nan=False)
factor = st.floats(0.2, 3.0).flatmap(lambda v: st.sampled_from([v, -v]))


def _value(kind: str):
    if kind == "translate":
        return st.tuples(coord, coord, coord)
    if kind == "scale":
        return st.tuples(factor, factor, factor)
    if kind in ("rotateX", "rotateY", "rotateZ"):
        return angle
    if kind == "orient":
        return st.tuples(*[st.floats(-1, 1)] * 4).filter(lambda q: np.linalg.norm(q) > 0.2)
    if kind == "transform":
        return (
            st.lists(st.floats(-2, 2), min_size=9, max_size=9)
            .map(_affine)
            .filter(lambda m: m is not None)
        )
    return st.tuples(angle, angle, angle)


def _affine(values) -> np.ndarray | None:
    """A row-vector affine matrix (USD's layout) with a well-conditioned 3x3 part."""
    a = np.asarray(values).reshape(3, 3) + 2 * np.eye(3)
    if abs(np.linalg.det(a)) < 0.2 or np.linalg.cond(a) > 50:
        return None
    m = np.eye(4)
    m[:3, :3] = a
    m[3, :3] = [1.5, -2.0, 0.5]
    return m


@st.composite
def op_stack(draw):
    """[(kind, precision, value, invert)]: ops, some pivot pairs and inverted twins."""
    ops = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(KINDS))
        precision = (
            "double" if kind == "transform" else draw(st.sampled_from(["double", "float", "half"]))
        )
        ops.append((kind, precision, draw(_value(kind)), False))
    if draw(st.booleans()):  # a pivot: translate by p, the ops, translate by -p (!invert!)
        p = draw(st.tuples(coord, coord, coord))
        ops = [("translate:pivot", "float", p, False), *ops, ("translate:pivot", "float", p, True)]
    if ops and draw(st.booleans()):  # the inverse twin of one of the ops
        k = draw(st.integers(0, len(ops) - 1))
        if not ops[k][0].endswith(":pivot") and not ops[k][3]:
            ops.append((ops[k][0], ops[k][1], None, k))
    return ops


def _author(xf: UsdGeom.Xformable, ops) -> None:
    order = []
    for j, (kind, precision, value, invert) in enumerate(ops):
        if kind == "translate:pivot":
            op = add_op(xf, "translate", precision, value, "pivot", invert=bool(invert))
        elif invert is not False:  # the twin of op `invert`
            op = add_op(xf, kind, precision, None, f"op{invert}", invert=True)
        else:
            op = add_op(xf, kind, precision, value, f"op{j}")
        order.append(op)
    xf.SetXformOpOrder(order, xf.GetResetXformStack())


@st.composite
def prim_tree(draw):
    """[(parent index or -1, type, reset, ops)] in pre-order."""
    prims = []
    for i in range(draw(st.integers(1, 7))):
        parent = draw(st.integers(-1, i - 1))
        kind = draw(st.sampled_from(["Xform", "Xform", "Cube", "Scope"]))
        reset = kind != "Scope" and draw(st.integers(0, 5)) == 0
        prims.append((parent, kind, reset, draw(op_stack()) if kind != "Scope" else []))
    return prims


def _build(tree) -> Usd.Stage:
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    paths = []
    for i, (parent, kind, reset, ops) in enumerate(tree):
        path = f"{paths[parent] if parent >= 0 else ''}/P{i}"
        paths.append(path)
        prim = stage.DefinePrim(path, kind)
        if kind != "Scope":
            xf = UsdGeom.Xformable(prim)
            xf.SetResetXformStack(reset)
            _author(xf, ops)
    return stage


@given(prim_tree(), st.sampled_from(["Y", "Z"]), st.sampled_from([1.0, 0.01, 2.5]))
def test_random_stacks_match_xform_cache(tree, up, meters):
    stage = _build(tree)
    UsdGeom.SetStageUpAxis(stage, up)
    UsdGeom.SetStageMetersPerUnit(stage, meters)
    scene = scene_of(stage)
    xformable = sum(kind != "Scope" for _, kind, _, _ in tree)
    assert assert_matches_usd(scene, stage, 0.0) == xformable


@pytest.mark.parametrize(
    ("kind", "precision"),
    [
        (k, p)
        for k in KINDS
        for p in ("double", "float", "half")
        if k != "transform" or p == "double"
    ],
)
def test_each_op_type_and_precision(kind, precision):
    values = {
        "translate": (1.5, -2, 3),
        "scale": (2, 0.5, -1.5),
        "orient": (0.9, 0.1, -0.3, 0.2),
        "transform": _affine([0.3, 0.1, 0, 0.2, -0.5, 0.1, 0, 0.4, 0.3]),
    }
    value = values.get(kind, 37.0 if kind in ("rotateX", "rotateY", "rotateZ") else (20, -65, 110))
    stage = _build(
        [
            (-1, "Xform", False, [("translate", "double", (1, 2, 3), False)]),
            (0, "Xform", False, [(kind, precision, value, False)]),
            (1, "Xform", False, [(kind, precision, value, False), (kind, precision, None, 0)]),
        ]
    )
    scene = scene_of(stage)
    assert assert_matches_usd(scene, stage, 0.0) == 3
    worlds = world_by_path(scene)  # an op and its !invert! twin cancel out
    assert np.allclose(worlds["/P0/P1/P2"], worlds["/P0/P1"], atol=1e-9)


def test_shear_keeps_exact_matrix_in_two_nodes():
    stage = _build(
        [
            (
                -1,
                "Xform",
                False,
                [
                    ("rotateZ", "double", 30.0, False),
                    ("scale", "double", (3, 1, 1), False),
                    ("rotateZ", "double", 40.0, False),
                ],
            ),
            (0, "Cube", False, [("translate", "double", (1, 0, 0), False)]),
        ]
    )
    scene = scene_of(stage)
    paths = set(scene.node_paths.values())
    assert "/P0[shear]" in paths and "/P0" in paths
    assert assert_matches_usd(scene, stage, 0.0) == 2
    node = next(i for i, p in scene.node_paths.items() if p == "/P0")
    rows = dict(scene.describe_node(node))
    assert rows["xformOpOrder"] == "xformOp:rotateZ:op0, xformOp:scale:op1, xformOp:rotateZ:op2"
    assert "sheared" in rows["matrix"]
    assert rows["op 2"] == "scale:op1 (3, 1, 1)" and rows["op 3"] == "rotateZ:op2 40"


def test_reset_xform_stack_ignores_ancestors_and_non_xformable_pass_through():
    stage = _build(
        [
            (-1, "Xform", False, [("translate", "double", (5, 0, 0), False)]),
            (0, "Scope", False, []),
            (1, "Xform", False, [("rotateY", "double", 90.0, False)]),
            (2, "Xform", True, [("translate", "double", (0, 1, 0), False)]),
        ]
    )
    scene = scene_of(stage)
    assert assert_matches_usd(scene, stage, 0.0) == 3
    assert "/P0/P1" not in scene.node_paths.values()  # a Scope is no node
    assert np.allclose(world_by_path(scene)["/P0/P1/P2/P3"][:3, 3], [0, 1, 0])
