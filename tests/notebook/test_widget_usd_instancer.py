"""A live stage's PointInstancers in the widget: an instancer that now draws more
instances, one defined under an existing Xform and one removed are, after the next
frame, drawn, picked and framed as pxr places them (ComputeInstanceTransformsAtTime times
XformCache), and the new instances show on the picture. Driven as the browser would
(widget_helpers.py), no browser."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pxr")

from pxr import Gf, Usd, UsdGeom, Vt  # noqa: E402
from widget_helpers import make  # noqa: E402

pytestmark = pytest.mark.usefixtures("egl", "rfb")

GREEN, BLUE = (0.1, 0.9, 0.1), (0.1, 0.2, 0.95)


def _cube(stage, path: str, size: float, colour) -> None:
    cube = UsdGeom.Cube.Define(stage, path)
    cube.CreateSizeAttr(size)
    cube.CreateDisplayColorAttr([colour])


def _stage(rng) -> Usd.Stage:
    """/World > Group (turned, moved) > Scatter: a PointInstancer of two cube prototypes
    drawing 3 instances at random places within a 6 x 4 box; a grey plate behind them,
    wider than any instance, that the view is framed on."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    group = UsdGeom.Xform.Define(stage, "/World/Group")
    group.AddTranslateOp().Set((0.5, -0.25, 0.0))
    group.AddRotateZOp().Set(float(rng.uniform(-10, 10)))
    scatter = UsdGeom.PointInstancer.Define(stage, "/World/Group/Scatter")
    scatter.AddRotateYOp().Set(float(rng.uniform(-15, 15)))
    _cube(stage, "/World/Group/Scatter/Protos/Small", 0.5, GREEN)
    _cube(stage, "/World/Group/Scatter/Protos/Big", 0.8, GREEN)
    rel = scatter.CreatePrototypesRel()
    rel.AddTarget("/World/Group/Scatter/Protos/Small")
    rel.AddTarget("/World/Group/Scatter/Protos/Big")
    scatter.CreateProtoIndicesAttr([0, 1, 0])
    scatter.CreatePositionsAttr(_positions(rng, 3))
    scatter.CreateOrientationsAttr(_turns(rng, 3))
    frame = UsdGeom.Cube.Define(stage, "/World/Frame")  # the view's extent: a plate behind
    frame.AddTranslateOp().Set((0.0, 0.0, -3.0))
    frame.AddScaleOp().Set((4.5, 3.5, 0.05))
    return stage


def _positions(rng, n: int) -> Vt.Vec3fArray:
    return Vt.Vec3fArray([Gf.Vec3f(float(rng.uniform(-3, 3)), float(rng.uniform(-2, 2)), 0.0)
                          for _ in range(n)])  # fmt: skip


def _turns(rng, n: int) -> Vt.QuathArray:
    out = []
    for _ in range(n):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        out.append(Gf.Quath(float(q[0]), Gf.Vec3h(*(float(v) for v in q[1:]))))
    return Vt.QuathArray(out)


def _usd_instances(stage) -> dict[str, np.ndarray]:
    """Each PointInstancer's instance world matrices (column vectors), as pxr computes
    them, sorted by position."""
    code = Usd.TimeCode(0)
    cache = UsdGeom.XformCache(code)
    out = {}
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.PointInstancer):
            continue
        world = np.array(cache.GetLocalToWorldTransform(prim))
        local = np.array(UsdGeom.PointInstancer(prim).ComputeInstanceTransformsAtTime(code, code))
        out[str(prim.GetPath())] = _sorted(np.transpose(local @ world, (0, 2, 1)))
    return out


def _sorted(mats: np.ndarray) -> np.ndarray:
    mats = np.asarray(mats, np.float64).reshape(-1, 4, 4)
    return mats[np.lexsort(np.round(mats[:, :3, 3].T, 4))]


def _drawn(w) -> dict[str, np.ndarray]:
    """The instance matrices of the renderer's GPU batches (as it uploaded them), by
    their instancer's prim path."""
    paths = w.session.scene.node_paths
    world = w.session.graph.world_matrices()
    out: dict[str, list] = {}
    for batch, mats, _ in w.app.renderer.gpu_instances.placed(world, lambda kind: True):
        assert len(mats) == batch.count
        out.setdefault(paths[int(batch.ids[0])], []).append(mats)
    return {path: _sorted(np.concatenate(parts)) for path, parts in out.items()}


def _picked(w) -> dict[str, np.ndarray]:
    """The picking boxes of GPU instances (the boxes of nodes that have no look)."""
    scene = w.session.scene
    ids, worlds, _, _ = w.app.bounds.node_boxes()
    out = {}
    for node in {item.node for item in scene.geometry.instanced}:
        out[scene.node_paths[node]] = _sorted(worlds[(ids == node)])
    return out


def _matches_pxr(w, stage) -> None:
    want = _usd_instances(stage)
    for got in (_drawn(w), _picked(w)):
        assert sorted(got) == sorted(want)
        for path, mats in want.items():
            assert got[path].shape == mats.shape, path
            np.testing.assert_allclose(got[path], mats, rtol=0, atol=2e-6)
    np.testing.assert_allclose(w.app.bounds.extremes(), _usd_extremes(stage), rtol=0, atol=1e-5)


def _usd_extremes(stage) -> np.ndarray:
    """The lowest and highest corner of every drawn box, from pxr's extents placed by
    XformCache and by ComputeInstanceTransformsAtTime (exact, where BBoxCache's world
    bound of rotated instances is a looser box)."""
    code = Usd.TimeCode(0)
    cache = UsdGeom.XformCache(code)
    placed = []  # (world matrices [n, 4, 4] row vectors, the extent [2, 3])
    walk = iter(Usd.PrimRange(stage.GetPseudoRoot()))
    for prim in walk:
        world = np.array(cache.GetLocalToWorldTransform(prim))
        if prim.IsA(UsdGeom.PointInstancer):
            walk.PruneChildren()
            inst = UsdGeom.PointInstancer(prim)
            protos = inst.GetPrototypesRel().GetTargets()
            local = np.array(inst.ComputeInstanceTransformsAtTime(code, code)).reshape(-1, 4, 4)
            for k, which in enumerate(inst.GetProtoIndicesAttr().Get(code)):
                extent = UsdGeom.Boundable.ComputeExtentFromPlugins(
                    UsdGeom.Boundable(stage.GetPrimAtPath(protos[which])), code)  # fmt: skip
                placed.append((local[k : k + 1] @ world, np.array(extent)))
        elif prim.IsA(UsdGeom.Gprim):
            extent = UsdGeom.Boundable.ComputeExtentFromPlugins(UsdGeom.Boundable(prim), code)
            placed.append((world[None], np.array(extent)))
    corners = []
    for mats, (lo, hi) in placed:
        box = np.array([[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])])  # fmt: skip
        corners.append((box @ mats)[..., :3].reshape(-1, 3))
    points = np.concatenate(corners)
    return np.array([points.min(axis=0), points.max(axis=0)])


def _screen(w, point) -> tuple[int, int]:
    height, width = w.image.shape[:2]
    clip = w.app.camera.view_projection((width, height)) @ np.append(point, 1.0)
    ndc = clip[:3] / clip[3]
    return round((ndc[0] + 1) / 2 * width), round((1 - ndc[1]) / 2 * height)


def _shows(image: np.ndarray, xy, colour) -> bool:
    """Whether the pixels at `xy` are mostly of the cube colour's hue (its dominant
    channel well above the others; lit and glowing alike)."""
    x, y = xy
    patch = image[y - 1 : y + 2, x - 1 : x + 2, :3].astype(int)
    top = int(np.argmax(colour))
    others = [c for c in range(3) if c != top]
    own = patch[..., top]
    return bool(np.mean((own > patch[..., others[0]] + 40) & (own > patch[..., others[1]] + 40))
                > 0.5)  # fmt: skip


def _frame(w, frames: int = 1) -> None:
    for _ in range(frames):
        w.get_frame()


def _new_centres(stage, path: str, before: np.ndarray) -> list[np.ndarray]:
    """World centres of `path`'s instances that were not drawn before (pxr's)."""
    now = _usd_instances(stage)[path]
    old = {tuple(np.round(m[:3, 3], 4)) for m in before}
    return [m[:3, 3] for m in now if tuple(np.round(m[:3, 3], 4)) not in old]


@pytest.mark.parametrize("seed", [1, 2])
def test_an_instancer_that_grows_from_3_to_7_instances_draws_7(seed):
    rng = np.random.default_rng(seed)
    stage = _stage(rng)
    w = make(stage, size=(320, 240), overlay=False)
    try:
        _matches_pxr(w, stage)
        before = _usd_instances(stage)["/World/Group/Scatter"]
        scatter = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Group/Scatter"))
        old = list(scatter.GetPositionsAttr().Get())
        scatter.GetPositionsAttr().Set(Vt.Vec3fArray(old + list(_positions(rng, 4))))
        scatter.GetOrientationsAttr().Set(Vt.QuathArray(
            list(scatter.GetOrientationsAttr().Get()) + list(_turns(rng, 4))))  # fmt: skip
        scatter.GetProtoIndicesAttr().Set([0, 1, 0, 1, 0, 1, 0])
        _frame(w)
        assert len(_drawn(w)["/World/Group/Scatter"]) == 7
        _matches_pxr(w, stage)
        centres = _new_centres(stage, "/World/Group/Scatter", before)
        assert len(centres) == 4
        shown = [_shows(w.image, _screen(w, c), GREEN) for c in centres]
        assert sum(shown) >= 3, shown  # (one may sit behind an older one)
    finally:
        w.close()


@pytest.mark.parametrize("seed", [3, 4])
def test_a_new_instancer_under_an_existing_xform_is_drawn(seed):
    rng = np.random.default_rng(seed)
    stage = _stage(rng)
    w = make(stage, size=(320, 240), overlay=False)
    try:
        more = UsdGeom.PointInstancer.Define(stage, "/World/Group/More")
        more.AddTranslateOp().Set((0.0, 0.0, 2.0))
        _cube(stage, "/World/Group/More/Protos/Tile", 0.6, BLUE)  # a mesh new to the scene
        more.CreatePrototypesRel().AddTarget("/World/Group/More/Protos/Tile")
        more.CreateProtoIndicesAttr([0, 0])
        more.CreatePositionsAttr(_positions(rng, 2))
        _frame(w)
        assert len(_drawn(w)["/World/Group/More"]) == 2
        _matches_pxr(w, stage)
        for centre in _new_centres(stage, "/World/Group/More", np.zeros((0, 4, 4))):
            assert _shows(w.image, _screen(w, centre), BLUE)
    finally:
        w.close()


def test_a_removed_instancer_draws_nothing():
    rng = np.random.default_rng(5)
    stage = _stage(rng)
    w = make(stage, size=(320, 240), overlay=False)
    try:
        centres = [m[:3, 3] for m in _usd_instances(stage)["/World/Group/Scatter"]]
        assert any(_shows(w.image, _screen(w, c), GREEN) for c in centres)
        stage.RemovePrim("/World/Group/Scatter")
        _frame(w)
        assert _drawn(w) == {} and w.session.scene.geometry.instanced == []
        _matches_pxr(w, stage)
        assert not any(_shows(w.image, _screen(w, c), GREEN) for c in centres)
    finally:
        w.close()


def test_a_shape_new_to_the_stage_is_drawn_in_its_colour():
    stage = _stage(np.random.default_rng(6))
    w = make(stage, size=(320, 240), overlay=False)
    try:
        centre = np.array([1.0, -1.0, 2.5])
        _cube(stage, "/World/Marker", 0.7, BLUE)
        UsdGeom.Xformable(stage.GetPrimAtPath("/World/Marker")).AddTranslateOp().Set(
            tuple(centre))  # fmt: skip
        assert not _shows(w.image, _screen(w, centre), BLUE)
        _frame(w)
        assert _shows(w.image, _screen(w, centre), BLUE)
        _matches_pxr(w, stage)  # its box is framed too
    finally:
        w.close()
