"""GPU frustum culling and level of detail (viewer/render/culling.py): the planes against
clip space, fewer instances drawn with the same picture, the fallback's picture, and a
touched (or marked) node seen at every level of detail."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import draw, light

from viewer.content.scene import Look, Scene
from viewer.palette import GLOW_LOCAL
from viewer.render import Camera, Renderer
from viewer.render import culling as culling_module
from viewer.render.camera import ORTHOGRAPHIC, frustum, look_at
from viewer.render.culling import CULL_MIN_ROWS, frustum_planes
from viewer.render.frame_view import ViewSettings
from viewer.scene import SceneGraph

SIZE = (160, 120)
SIDE = 16  # a SIDE x SIDE grid of cubes, one batch above CULL_MIN_ROWS


def grid_scene(kinds=("cube",)) -> Scene:
    """SIDE x SIDE nodes 2 apart in the XZ plane under one root, mesh kinds in turn, each
    its own colour (so a wrong instance shows)."""
    g = SceneGraph()
    root = g.add("root")
    looks = {}
    rng = np.random.default_rng(7)
    for k in range(SIDE * SIDE):
        i, j = divmod(k, SIDE)
        node = g.add(f"n{k}", parent=root, position=(2.0 * i, 0.0, 2.0 * j))
        color = tuple(float(c) for c in rng.uniform(0.2, 0.9, 3))
        looks[node.id] = Look(mesh=kinds[k % len(kinds)], size=(1.0, 1.0, 1.0), color=color)
    g.update()
    return Scene(graph=g, title="grid", looks=looks)


def picture(renderer, target, camera, settings=None, enabled=True) -> np.ndarray:
    renderer.culler.enabled = enabled
    draw(renderer, target.fbo, camera, target.size, settings or ViewSettings(unlit=True))
    return target.read().copy()


def close_camera() -> Camera:
    """Close above the grid, looking down at a few cubes: most are out of view."""
    camera = Camera()
    camera.look_from((6.0, 5.0, 3.0), (6.0, 0.0, 6.0))
    camera.extent = 2.0 * SIDE
    return camera


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-4.0, 4.0), st.floats(-4.0, 4.0), st.floats(-4.0, 4.0),
    st.floats(0.5, 3.0), st.booleans(),
    st.lists(st.floats(-30.0, 30.0), min_size=3, max_size=3),
)  # fmt: skip
def test_the_planes_hold_exactly_the_points_clip_space_holds(ex, ey, ez, half, ortho, point):
    """Oracle: a point is inside the view volume iff -w <= x, y, z <= w in clip space."""
    eye = np.array([ex, ey, ez + 10.0])
    view = look_at(eye, np.zeros(3))
    proj = frustum(ORTHOGRAPHIC if ortho else "perspective", half, 1.5, 0.5, 40.0, 0.0)
    vp = proj @ view
    p = np.array(point)
    clip = vp @ np.append(p, 1.0)
    margin = np.abs(clip[3]) * 1e-6 + 1e-6
    inside_clip = all(-clip[3] - margin <= c <= clip[3] + margin for c in clip[:3])
    distances = frustum_planes(vp)[:, :3] @ p + frustum_planes(vp)[:, 3]
    if inside_clip:
        assert (distances >= -1e-5).all()
    elif np.all(np.abs(np.abs(clip[:3]) - clip[3]) > 1e-4 * max(1.0, abs(clip[3]))):
        assert (distances < 1e-5).any()


def test_culling_draws_fewer_instances_and_the_same_picture(gl_ctx, target):
    renderer = Renderer(gl_ctx, grid_scene())
    assert renderer.culler.available and len(renderer.culler.culled) == 1
    camera = close_camera()
    everything = picture(renderer, target, camera, enabled=False)
    culled = picture(renderer, target, camera)
    rows, full, sprites = renderer.culler.drawn()
    assert rows == SIDE * SIDE >= CULL_MIN_ROWS
    assert 0 < full < rows / 4 and sprites == 0
    assert (culled == everything).all()
    assert len(np.unique(culled.reshape(-1, 4), axis=0)) > 20  # cubes on show, not empty
    renderer.release()


def test_an_idle_redraw_culls_nothing_again_and_a_write_culls_anew(gl_ctx, target, monkeypatch):
    """The cull runs for a new view, viewport or rows only: an idle redraw dispatches no
    compute shader and draws the same picture; a colour set, a moved node or a moved
    camera between redraws is culled anew (its picture is the unculled one)."""
    renderer = Renderer(gl_ctx, grid_scene())
    camera = close_camera()
    runs = [0]
    real = type(renderer.culler._cull).run

    def counted(self, *args, **kwargs):
        runs[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(renderer.culler._cull), "run", counted)
    first = picture(renderer, target, camera)
    assert runs[0] > 0
    runs[0] = 0
    assert (picture(renderer, target, camera) == first).all() and runs[0] == 0
    shown = renderer.graph["n51"].id  # at (6, 0, 6), in the middle of the view
    renderer.set_colors([shown], (1.0, 0.0, 1.0))
    recoloured = picture(renderer, target, camera)
    assert runs[0] > 0 and (recoloured == picture(renderer, target, camera, enabled=False)).all()
    assert not (recoloured == first).all()
    renderer.graph.set_locals([shown], positions=[(7.0, 1.0, 6.0)])
    runs[0] = 0
    renderer.sync(renderer.graph.update())
    moved = picture(renderer, target, camera)
    assert runs[0] > 0 and (moved == picture(renderer, target, camera, enabled=False)).all()
    runs[0] = 0
    camera.look_from((9.0, 5.0, 3.0), (9.0, 0.0, 6.0))
    turned = picture(renderer, target, camera)
    assert runs[0] > 0 and (turned == picture(renderer, target, camera, enabled=False)).all()
    renderer.release()


def test_culling_keeps_every_kind_and_glow_the_same(gl_ctx, target):
    """Three mesh kinds in one scene (three culled batches), some glowing, lit shading:
    culled or not, the same pixels; framed whole, everything is drawn."""
    renderer = Renderer(gl_ctx, grid_scene(("cube", "sphere", "cone")))
    assert len(renderer.culler.culled) == 3
    shown = ViewSettings()
    light(renderer, {5: -1.0, 40: 0.7, 200: 1.0}, shown)
    camera = close_camera()
    assert (picture(renderer, target, camera, shown) ==
            picture(renderer, target, camera, shown, enabled=False)).all()  # fmt: skip
    framed = Camera()
    renderer.bounds.frame_camera(framed)
    picture(renderer, target, framed, shown)
    rows, full, sprites = renderer.culler.drawn()
    assert full + sprites == rows  # all in view
    renderer.release()


def test_the_fallback_without_compute_shaders_draws_the_same(gl_ctx, target, monkeypatch):
    camera = close_camera()
    culled = Renderer(gl_ctx, grid_scene())
    expected = picture(culled, target, camera)
    culled.release()
    monkeypatch.setattr(culling_module, "has_compute", lambda ctx: False)
    fallback = Renderer(gl_ctx, grid_scene())
    assert not fallback.culler.available and not fallback.culler.culled
    assert (picture(fallback, target, camera) == expected).all()
    fallback.release()


def glow_pixels(image: np.ndarray) -> int:
    """Pixels of the own-change glow colour (unlit: exact up to rounding)."""
    want = np.round(np.array(GLOW_LOCAL) * 255.0)
    return int((np.abs(image[..., :3].astype(float) - want).max(axis=-1) <= 2).sum())


@pytest.mark.parametrize("distance", [3.0, 200.0, 3000.0])
def test_a_touched_node_glows_at_every_level_of_detail(gl_ctx, target, distance):
    """Near (full meshes), far (sprites a few pixels wide) and very far (every cube under
    a pixel): the touched node's glow is on the picture, an 8 x 8 patch at least when it
    is a sprite."""
    renderer = Renderer(gl_ctx, grid_scene())
    touched = renderer.graph["n136"].id
    shown = ViewSettings(unlit=True, show_grid=False, show_links=False, show_axes=False)
    light(renderer, {touched: -1.0}, shown)
    camera = Camera()
    renderer.bounds.frame_camera(camera)
    camera.target = np.array([16.0, 0.0, 16.0])
    camera.distance = distance
    camera.extent = max(camera.extent, distance)
    image = picture(renderer, target, camera, shown)
    rows, full, sprites = renderer.culler.drawn()
    if distance >= 200.0:
        assert sprites > rows / 2  # the level of detail is in use
        assert glow_pixels(image) >= 8 * 8  # readable: at least an 8 x 8 patch
    else:  # full meshes, but for the far corners of the grid a cube's width away
        assert full > sprites
    assert glow_pixels(image) > 0
    # Untouched, nothing of the glow's colour: the pixels come from the touch.
    light(renderer, {}, shown)
    assert glow_pixels(picture(renderer, target, camera, shown)) == 0
    renderer.release()


def test_a_marked_node_stays_seen_as_a_far_sprite(gl_ctx, target):
    renderer = Renderer(gl_ctx, grid_scene())
    shown = ViewSettings(unlit=True, show_grid=False, show_links=False, show_axes=False,
                         glow_on=True)  # fmt: skip
    camera = Camera()
    camera.target, camera.distance = np.array([16.0, 0.0, 16.0]), 3000.0
    camera.extent = 3000.0
    before = glow_pixels(picture(renderer, target, camera, shown))
    renderer.graph.touch("n100")  # marked, not executed
    after = glow_pixels(picture(renderer, target, camera, shown))
    assert renderer.culler.drawn()[2] > 0
    assert before == 0 and after > 0
    renderer.release()


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_no_instance_with_a_vertex_in_view_is_culled(gl_ctx, seed):
    """Oracle: any instance one of whose mesh vertices lies inside the clip volume is
    kept, under any world matrix (sheared, mirrored, scaled): culling never loses a
    visible instance; and the rows kept keep their order."""
    from viewer.content import meshes
    from viewer.render.gpu_mesh import GpuMesh
    from viewer.render.instances import Batch

    rng = np.random.default_rng(seed)
    n = CULL_MIN_ROWS + 36
    world = np.zeros((n, 4, 4))
    world[:, :3, :3] = rng.normal(0.0, 0.6, (n, 3, 3))  # any 3x3: shear, mirror, scale
    world[:, :3, 3] = rng.uniform(-12.0, 12.0, (n, 3))
    world[:, 3, 3] = 1.0
    sizes = rng.uniform(0.3, 2.0, (n, 3))
    looks = np.hstack([np.full((n, 3), 0.5), sizes]).astype(np.float32)
    mats = np.ascontiguousarray(np.transpose(world, (0, 2, 1)), np.float32).reshape(n, 16)
    stamps = np.zeros((n, 2), np.float32)
    batch = Batch("cube", np.arange(n), np.arange(n), gl_ctx.buffer(mats.tobytes()),
                  gl_ctx.buffer(looks.tobytes()), gl_ctx.buffer(stamps.tobytes()))  # fmt: skip
    mesh = GpuMesh(gl_ctx, meshes.builtin("cube"))
    culler = culling_module.InstanceCuller(gl_ctx, _program(gl_ctx))
    culler.build([batch], {"cube": mesh}, {})
    vp = frustum("perspective", 0.3, 1.5, 0.5, 30.0, 0.0) @ look_at((0.0, 0.0, 14.0), (0, 0, 0))
    culler.cull(vp, (160, 120), lod=False)
    _rows, full, sprites = culler.drawn()
    kept_rows = np.frombuffer(culler.culled[id(batch)].matrices.read(), np.float32)
    kept_order = [tuple(np.round(r[12:15], 4)) for r in kept_rows.reshape(n, 16)[:full]]
    kept = set(kept_order)
    corners = mesh.data.positions  # the mesh's vertices, local
    for k in range(n):
        model = world[k].copy()
        model[:3, :3] = model[:3, :3] * sizes[k]  # world @ diag(size)
        clip = np.hstack([corners, np.ones((len(corners), 1))]) @ (vp @ model).T
        inside = np.all(np.abs(clip[:, :3]) <= clip[:, 3:4], axis=1).any()
        key = tuple(np.round(world[k, :3, 3].astype(np.float32), 4))
        if inside:
            assert key in kept, k
    assert sprites == 0 and full < n  # some culled (the view holds a part of the cube)
    row_of = {tuple(np.round(world[k, :3, 3].astype(np.float32), 4)): k for k in range(n)}
    order = [row_of[key] for key in kept_order]
    assert order == sorted(order)  # the rows kept, in the order they were drawn before
    culler.release()
    mesh.release()
    batch.release()


def _program(ctx):
    from viewer.render.shaders import load_program

    return load_program(ctx, "instanced")


def test_a_large_batch_keeps_its_rows_in_order_at_every_level(gl_ctx):
    """20,000 rows (313 work groups: the prefix sum's runs span several groups), near and
    far ones: the full rows and the sprite rows each come out in row order, none twice,
    and the counts add up."""
    from viewer.content import meshes
    from viewer.render.gpu_mesh import GpuMesh
    from viewer.render.instances import Batch

    rng = np.random.default_rng(5)
    n = 20000
    world = np.tile(np.eye(4), (n, 1, 1))
    world[:, :3, 3] = rng.uniform(-60.0, 60.0, (n, 3)) * [1.0, 1.0, 4.0]
    # cubes: sprites up to IMPOSTOR_LOD_PX wide, so big enough that many are not
    looks = np.hstack([np.full((n, 3), 0.5), np.full((n, 3), 2.4)]).astype(np.float32)
    mats = np.ascontiguousarray(np.transpose(world, (0, 2, 1)), np.float32).reshape(n, 16)
    mats[:, 3] = np.arange(n)  # each row's index where the cull reads nothing (row 3, col 0)
    stamps = np.zeros((n, 2), np.float32)
    batch = Batch("cube", np.arange(n), np.arange(n), gl_ctx.buffer(mats.tobytes()),
                  gl_ctx.buffer(looks.tobytes()), gl_ctx.buffer(stamps.tobytes()))  # fmt: skip
    mesh = GpuMesh(gl_ctx, meshes.builtin("cube"))
    culler = culling_module.InstanceCuller(gl_ctx, _program(gl_ctx))
    culler.build([batch], {"cube": mesh}, {})
    vp = frustum("perspective", 0.3, 1.5, 0.5, 400.0, 0.0) @ look_at((0.0, 0.0, 250.0), (0, 0, 0))
    culler.cull(vp, (640, 480))
    _rows, full, sprites = culler.drawn()
    assert full > 100 and sprites > 100 and full + sprites < n
    out = np.frombuffer(culler.culled[id(batch)].matrices.read(), np.float32).reshape(n, 16)
    order = out[: full + sprites, 3].astype(np.int64)
    assert (out[: full + sprites] == mats[order]).all()  # each kept row copied whole
    assert len(set(order.tolist())) == full + sprites  # none twice
    assert (np.diff(order[:full]) > 0).all() and (np.diff(order[full:]) > 0).all()
    culler.release()
    mesh.release()
    batch.release()


def test_glowing_sprites_are_wide_while_few_glow_and_narrower_in_a_crowd():
    from viewer.render.culling import GLOW_CROWD_PX, GLOW_SPRITE_PX, glow_sprite_px

    widths = [glow_sprite_px(k) for k in (0, 1, 100, 101, 1000, 10**4, 10**6)]
    assert widths[:3] == [GLOW_SPRITE_PX] * 3
    assert all(a >= b for a, b in zip(widths, widths[1:], strict=False))
    assert widths[-1] == GLOW_CROWD_PX >= 3.0  # a crowd's sprites still cover pixels
