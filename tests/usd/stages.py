"""Stages built in code for the USD tests, and the oracle: pxr's own XformCache.

`world_by_path(scene)` reads sgview's world matrices by prim path; `usd_world(stage,
path, code)` is USD's, transposed to column vectors and put under the stage's root node
(the up axis and metres per unit), which is what sgview must show.
"""

from __future__ import annotations

import numpy as np
from pxr import Gf, Usd, UsdGeom

from viewer.io.limits import DEFAULT_LIMITS
from viewer.io.usd.scene import scene_of_stage

PRECISIONS = {
    "double": UsdGeom.XformOp.PrecisionDouble,
    "float": UsdGeom.XformOp.PrecisionFloat,
    "half": UsdGeom.XformOp.PrecisionHalf,
}
VEC = {"double": Gf.Vec3d, "float": Gf.Vec3f, "half": Gf.Vec3h}
QUAT = {"double": Gf.Quatd, "float": Gf.Quatf, "half": Gf.Quath}
ROTATE_XYZ = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def add_op(xf: UsdGeom.Xformable, kind: str, precision: str, value, suffix: str, invert=False):
    """One op of `kind` on `xf` (invert: the `!invert!` twin of an existing op)."""
    prec = PRECISIONS[precision]
    if kind == "transform":
        op = xf.AddTransformOp(opSuffix=suffix, isInverseOp=invert)
        if not invert:
            op.Set(Gf.Matrix4d(*np.asarray(value, dtype=float).reshape(-1).tolist()))
        return op
    if kind == "orient":
        op = xf.AddOrientOp(precision=prec, opSuffix=suffix, isInverseOp=invert)
        if not invert:
            w, x, y, z = value
            op.Set(QUAT[precision](w, x, y, z))
        return op
    adders = {
        "translate": xf.AddTranslateOp,
        "scale": xf.AddScaleOp,
        "rotateX": xf.AddRotateXOp,
        "rotateY": xf.AddRotateYOp,
        "rotateZ": xf.AddRotateZOp,
    }
    for order in ROTATE_XYZ:
        adders["rotate" + order] = getattr(xf, f"AddRotate{order}Op")
    op = adders[kind](precision=prec, opSuffix=suffix, isInverseOp=invert)
    if not invert:
        op.Set(VEC[precision](*value) if np.ndim(value) else float(value))
    return op


def scene_of(stage: Usd.Stage):
    """sgview's scene of `stage`, one frame run (its world matrices current)."""
    scene = scene_of_stage(stage, "test.usda", DEFAULT_LIMITS)
    scene.graph.update()
    return scene


def world_by_path(scene) -> dict[str, np.ndarray]:
    world = scene.graph.world_matrices()
    return {path: world[i] for i, path in scene.node_paths.items()}


def root_matrix(scene) -> np.ndarray:
    """The stage root node's world matrix (identity when there is none)."""
    return world_by_path(scene).get("/", np.eye(4))


def usd_world(stage: Usd.Stage, path: str, code: float) -> np.ndarray:
    """USD's local-to-world matrix of `path` at time `code`, as a column-vector matrix."""
    prim = stage.GetPrimAtPath(path)
    return np.array(UsdGeom.XformCache(code).GetLocalToWorldTransform(prim)).T


def assert_matches_usd(scene, stage: Usd.Stage, code: float, rel: float = 1e-9) -> int:
    """Every prim node's world matrix equals USD's (under the root) to `rel` relative;
    returns how many were compared."""
    root = root_matrix(scene)
    count = 0
    for path, got in world_by_path(scene).items():
        if path == "/" or path.endswith("[shear]"):
            continue
        want = root @ usd_world(stage, path, code)
        scale = max(1.0, float(np.abs(want).max()))
        err = float(np.abs(got - want).max())
        assert err <= rel * scale, f"{path} at {code}: off by {err:.3g}\n{got}\n{want}"
        count += 1
    return count


def write_part(folder) -> str:
    """part.usda: /Part (translated) with a coloured Cube /Part/Geo; default prim Part."""
    path = str(folder / "part.usda")
    stage = Usd.Stage.CreateNew(path)
    part = UsdGeom.Xform.Define(stage, "/Part")
    part.AddTranslateOp().Set((0, 1, 0))
    geo = UsdGeom.Cube.Define(stage, "/Part/Geo")
    geo.AddRotateYOp().Set(30)
    geo.CreateDisplayColorAttr([(0.8, 0.2, 0.1)])
    stage.SetDefaultPrim(part.GetPrim())
    stage.GetRootLayer().Save()
    return path


def write_composed(folder, instances: int = 50) -> str:
    """main.usda: references, a payload, a variant selection, instanceable prims, an
    inactive prim, a guide prim and a PointInstancer; every prim built with pxr."""
    write_part(folder)
    path = str(folder / "main.usda")
    stage = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageUpAxis(stage, "Z")
    UsdGeom.SetStageMetersPerUnit(stage, 0.01)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    ref = UsdGeom.Xform.Define(stage, "/World/RefA")
    ref.GetPrim().GetReferences().AddReference("./part.usda")
    ref.AddTranslateOp(opSuffix="placed").Set((3, 0, 0))
    pay = UsdGeom.Xform.Define(stage, "/World/Pay")
    pay.GetPrim().GetPayloads().AddPayload("./part.usda")
    var = UsdGeom.Xform.Define(stage, "/World/Var")
    sizes = var.GetPrim().GetVariantSets().AddVariantSet("size")
    for name, factor in (("small", 0.5), ("big", 2.0)):
        sizes.AddVariant(name)
        sizes.SetVariantSelection(name)
        with sizes.GetVariantEditContext():
            UsdGeom.Xformable(var.GetPrim()).AddScaleOp().Set((factor,) * 3)
    sizes.SetVariantSelection("big")
    for k in (1, 2):
        inst = UsdGeom.Xform.Define(stage, f"/World/Inst{k}")
        inst.GetPrim().GetReferences().AddReference("./part.usda")
        inst.GetPrim().SetInstanceable(True)
        inst.AddTranslateOp(opSuffix="placed").Set((0, 4 * k, 0))
    off = UsdGeom.Cube.Define(stage, "/World/Off")
    off.GetPrim().SetActive(False)
    guide = UsdGeom.Cube.Define(stage, "/World/Guide")
    guide.CreatePurposeAttr(UsdGeom.Tokens.guide)
    scatter = UsdGeom.PointInstancer.Define(stage, "/World/Scatter")
    scatter.AddRotateZOp().Set(15)
    UsdGeom.Sphere.Define(stage, "/World/Scatter/Protos/Ball").CreateRadiusAttr(0.2)
    scatter.CreatePrototypesRel().AddTarget("/World/Scatter/Protos/Ball")
    scatter.CreateProtoIndicesAttr([0] * instances)
    scatter.CreatePositionsAttr([(k % 10, k // 10, 0) for k in range(instances)])
    stage.GetRootLayer().Save()
    return path
