"""Pixels: every node's colour lands where the camera projects its world position."""

import colorsys

import numpy as np
import pytest
from render_helpers import PALETTE, draw, light, tree10

from viewer.content.scene import Look, Scene
from viewer.palette import GLOW_LOCAL, GLOW_WORLD, SELECTION_COLOR
from viewer.render.camera import ORTHOGRAPHIC, Camera
from viewer.render.context import Target
from viewer.render.frame_view import ViewSettings
from viewer.render.renderer import LINK_COLOR, Renderer
from viewer.scene import SceneGraph

SIZE = (320, 240)


def _setup(gl_ctx, scene):
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    cam = Camera()
    r.bounds.frame_camera(cam)
    return r, cam


def _pixel_of(cam, point):
    x, y, _ = cam.project([point], SIZE)[0]
    return int(y), int(x)


def _colour_at_nodes(r, cam, target, view=None):
    draw(r, target.fbo, cam, SIZE, view)
    img = target.read()
    world = r.graph.world_matrices()
    return {n.name: img[_pixel_of(cam, world[n.id, :3, 3])] for n in r.graph}


def test_unlit_colour_of_every_node_at_its_projected_pixel(gl_ctx, target):
    r, cam = _setup(gl_ctx, tree10())
    seen = _colour_at_nodes(r, cam, target, ViewSettings(unlit=True))
    for i, name in enumerate(f"Obj{k}" for k in range(1, 11)):
        expected = np.round(np.array(PALETTE[i]) * 255)
        np.testing.assert_allclose(seen[name], expected, atol=2, err_msg=name)


def _nearest_palette(rgb):
    c = np.asarray(rgb, dtype=np.float64)
    c /= max(np.linalg.norm(c), 1e-9)
    pal = np.asarray(PALETTE)
    pal = pal / np.linalg.norm(pal, axis=1, keepdims=True)
    return int(np.argmax(pal @ c))


@pytest.mark.parametrize("projection", ["perspective", ORTHOGRAPHIC])
def test_lit_node_colours_keep_their_hue(gl_ctx, target, projection):
    r, cam = _setup(gl_ctx, tree10())
    cam.projection = projection
    seen = _colour_at_nodes(r, cam, target)
    for i in range(10):
        assert _nearest_palette(seen[f"Obj{i + 1}"]) == i, f"Obj{i + 1}: {seen[f'Obj{i + 1}']}"


def test_moved_node_and_its_children_are_drawn_at_their_new_place(gl_ctx, target):
    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    g = scene.graph
    g["Obj2"].local_position = (-3.0, 0.6, 1.5)
    r.sync(g.update())
    seen = _colour_at_nodes(r, cam, target, ViewSettings(unlit=True))
    for name, i in (("Obj2", 1), ("Obj5", 4), ("Obj8", 7), ("Obj9", 8)):
        np.testing.assert_allclose(seen[name], np.round(np.array(PALETTE[i]) * 255), atol=2)


@pytest.mark.parametrize(
    "value, glow", [(1.0, GLOW_WORLD), (-1.0, GLOW_LOCAL), (0.5, GLOW_WORLD), (-0.5, GLOW_LOCAL)]
)
def test_highlight_draws_exactly_the_glow_colour(gl_ctx, target, value, glow):
    """Unlit, a node glowing at strength s is mix(its colour, the glow colour, s): orange
    for a world-only recompute (positive), red for its own change (negative)."""
    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    view = ViewSettings(unlit=True)
    light(r, {scene.graph["Obj3"].id: value}, view)
    seen = _colour_at_nodes(r, cam, target, view)
    s = abs(value)
    expected = np.round(((1 - s) * np.array(PALETTE[2]) + s * np.array(glow)) * 255)
    np.testing.assert_allclose(seen["Obj3"], expected, atol=2)
    np.testing.assert_allclose(seen["Obj4"], np.round(np.array(PALETTE[3]) * 255), atol=2)
    if s == 1.0:  # and the glow colours are the documented red and orange
        hue = colorsys.rgb_to_hsv(*(seen["Obj3"] / 255.0))[0] * 360
        assert (25 <= hue <= 40) if value > 0 else (hue <= 8 or hue >= 352), hue


def test_a_lit_full_glow_keeps_the_glow_hue(gl_ctx, target):
    """Lit, full strength: the glow colour times 0.8 to 1 (a little shading keeps the
    shape), whatever the node's own colour."""
    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    view = ViewSettings()
    light(r, {scene.graph["Obj3"].id: -1.0}, view)
    rgb = _colour_at_nodes(r, cam, target, view)["Obj3"] / 255.0
    shade = rgb[0] / GLOW_LOCAL[0]
    assert 0.78 <= shade <= 1.01, rgb
    np.testing.assert_allclose(rgb, shade * np.array(GLOW_LOCAL), atol=3 / 255)


def test_links_selection_grid_and_axes_are_drawn(gl_ctx, target):
    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    g = scene.graph
    world = g.world_matrices()
    draw(r, target.fbo, cam, SIZE)
    img = target.read().astype(int)
    # The line from Obj1 to Obj4, halfway: a light pixel close to the link colour.
    mid = (world[g["Obj1"].id, :3, 3] + world[g["Obj4"].id, :3, 3]) / 2
    y, x = _pixel_of(cam, mid)
    patch = img[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3)
    assert patch.sum(axis=1).max() > 3 * 170, "no parent-child line at the midpoint"
    # The grid: pixels on the ground far from the nodes are lighter than the background.
    no_grid = Renderer(gl_ctx, scene)
    bare = ViewSettings(show_grid=False, show_axes=False, show_links=False)
    draw(no_grid, target.fbo, cam, SIZE, bare)
    bare = target.read().astype(int)
    assert (np.abs(img - bare).sum(axis=2) > 30).sum() > 500
    # The selection outline: pixels in the selection colour appear.
    draw(r, target.fbo, cam, SIZE, selected=g["Obj6"].id)
    sel = np.round(np.array(SELECTION_COLOR[:3]) * 255)
    outlined = np.abs(target.read().astype(int) - sel).sum(axis=2) < 12
    assert outlined.sum() > 40
    assert LINK_COLOR[3] > 0.5


def test_same_input_same_pixels(gl_ctx):
    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    images = []
    for _ in range(2):
        t = Target(gl_ctx, SIZE, samples=4)
        draw(r, t.fbo, cam, SIZE)
        images.append(t.read())
        t.release()
    assert np.array_equal(images[0], images[1])


def test_flat_scene_puts_the_grid_in_the_xy_plane(gl_ctx, target):
    g = SceneGraph()
    disk = g.add("disk", position=(0.0, 0.0, 0.0))
    box = g.add("box", position=(0.0, 5.0, 0.0))
    looks = {disk.id: Look("disk", (2, 2, 1), (0.2, 0.4, 0.9)),
             box.id: Look("rect", (6, 2, 1), (0.2, 0.8, 0.3))}  # fmt: skip
    scene = Scene(graph=g, looks=looks)
    r, cam = _setup(gl_ctx, scene)
    assert r.bounds.is_flat()
    cam.look_from((0.0, 2.5, 12.0), (0.0, 2.5, 0.0))
    cam.projection = ORTHOGRAPHIC
    seen = _colour_at_nodes(r, cam, target, ViewSettings(unlit=True))
    np.testing.assert_allclose(seen["disk"], [51, 102, 230], atol=2)
    np.testing.assert_allclose(seen["box"], [51, 204, 76], atol=2)


def test_cached_backdrop_gives_the_same_pixels_as_drawing_it(gl_ctx):
    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    t = Target(gl_ctx, SIZE, samples=4)
    r.backdrop.cache_enabled = False
    draw(r, t.fbo, cam, SIZE)
    direct = t.read()
    r.backdrop.cache_enabled = True
    for _ in range(3):  # first frame direct, second fills the cache, third copies it
        draw(r, t.fbo, cam, SIZE)
        assert np.array_equal(t.read(), direct)
    assert r.backdrop._cache_key is not None
    cam.orbit(10, 0)  # a moving camera draws directly again
    draw(r, t.fbo, cam, SIZE)
    assert not np.array_equal(t.read(), direct)
    t.release()


def test_bounding_spheres_for_labels(gl_ctx):
    g = SceneGraph()
    pivot = g.add("pivot", position=(1.0, 2.0, 3.0), scale=(5.0, 5.0, 5.0))
    box = g.add("box", parent=pivot, position=(1.0, 0.0, 0.0), scale=(1.0, 3.0, 0.5))
    looks = {pivot.id: Look("none"), box.id: Look("cube", (2.0, 1.0, 2.0))}
    r, _ = _setup(gl_ctx, Scene(graph=g, looks=looks))
    late = g.add("late", position=(0.0, -1.0, 0.0))  # not built yet: unit size
    g.update()
    centers, radii = r.bounds.label_spheres(np.array([box.id, pivot.id, late.id]))
    np.testing.assert_allclose(centers, [[6.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.0, -1.0, 0.0]])
    # Half the look's diagonal (3 / 2) times the largest world axis length (5 * 3).
    np.testing.assert_allclose(radii, [1.5 * 15.0, 0.15, 0.5 * np.sqrt(3.0)])
    assert r.bounds.label_spheres(np.zeros(0, dtype=np.int64))[1].shape == (0,)


def test_lines_on_a_changes_path_glow_and_fade_on_the_gpu(gl_ctx, target, monkeypatch):
    """A touch lights the lines below the touched node (both ends recomputed), a few
    pixels wide in the world glow colour; the line above it stays plain; the glow fades
    with the clock, drawn with no buffer written."""
    import moderngl

    scene = tree10()
    r, cam = _setup(gl_ctx, scene)
    view = ViewSettings(unlit=True, show_grid=False, show_axes=False, glow_on=True)
    g = scene.graph
    world = g.world_matrices()

    def at_middle(a, b):
        img = target.read().astype(int)
        mid = (world[g[a].id, :3, 3] + world[g[b].id, :3, 3]) / 2
        y, x = _pixel_of(cam, mid)
        return img[y - 3 : y + 4, x - 3 : x + 4].reshape(-1, 3)

    def orange(patch):
        hue = [colorsys.rgb_to_hsv(*(p / 255.0))[0] * 360 for p in patch if p.max() > 150]
        return sum(20 <= h <= 45 for h in hue)

    g.touch(g["Obj5"])
    r.sync(g.update(), dt=1 / 60)
    draw(r, target.fbo, cam, SIZE, view)
    assert orange(at_middle("Obj5", "Obj8")) >= 10  # lit: a strip several pixels wide
    assert orange(at_middle("Obj2", "Obj5")) == 0  # Obj2 was not recomputed: plain
    writes = []
    monkeypatch.setattr(moderngl.Buffer, "write", lambda *a, **k: writes.append(a))
    for _ in range(40):  # the fade (0.5 s) passes; nothing is recomputed
        r.sync(g.update(), dt=1 / 60)
    draw(r, target.fbo, cam, SIZE, view)
    assert orange(at_middle("Obj5", "Obj8")) == 0 and writes == []
