"""Sprites that are their mesh (viewer/render/culling.py, shaders/instanced.frag's
SPRITE): a built-in cube or sphere a few pixels across, drawn as one point cast per pixel
or shaded as its faces' mean, shows as its triangles do. The oracle is the same scene
drawn with culling off, every instance its full mesh."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import draw

from viewer.content.scene import Look, Scene
from viewer.render import Camera, Renderer
from viewer.render.context import Target
from viewer.render.culling import IMPOSTOR_LOD_PX, LOD_PX
from viewer.render.frame_view import ViewSettings
from viewer.scene import SceneGraph

SIZE = (320, 240)
SIDE = 12


def turned_grid(kind: str) -> Scene:
    """SIDE x SIDE nodes of mesh `kind`, 3 apart in the XZ plane, each turned its own way,
    scaled unevenly and coloured its own colour."""
    g = SceneGraph()
    root = g.add("root")
    rng = np.random.default_rng(11)
    looks = {}
    for k in range(SIDE * SIDE):
        i, j = divmod(k, SIDE)
        q = rng.normal(size=4)
        node = g.add(f"n{k}", parent=root, position=(3.0 * i, 0.0, 3.0 * j),
                     rotation=tuple(q / np.linalg.norm(q)))  # fmt: skip
        size = tuple(float(v) for v in rng.uniform(0.8, 1.6, 3))
        color = tuple(float(c) for c in rng.uniform(0.3, 0.9, 3))
        looks[node.id] = Look(mesh=kind, size=size, color=color)
    g.update()
    return Scene(graph=g, title="turned", looks=looks)


def empty(ctx, target, camera) -> np.ndarray:
    """The picture without the nodes (their meshes "none"): what no node covers."""
    renderer = Renderer(ctx, turned_grid("none"))
    shown = ViewSettings(show_grid=False, show_links=False, show_axes=False)
    draw(renderer, target.fbo, camera, target.size, shown)
    renderer.release()
    return target.read().astype(np.int64)


def both(renderer, target, camera) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    """The picture with culling and level of detail, its counts, and without (meshes)."""
    shown = ViewSettings(show_grid=False, show_links=False, show_axes=False)
    pictures = []
    for enabled in (True, False):
        renderer.culler.enabled = enabled
        draw(renderer, target.fbo, camera, target.size, shown)
        pictures.append(target.read().astype(np.int64))
        if enabled:
            drawn = renderer.culler.drawn()
    return pictures[0], pictures[1], drawn


def far_camera(distance: float) -> Camera:
    camera = Camera()
    camera.look_from((16.5 - distance * 0.6, distance * 0.55, 16.5 - distance * 0.6),
                     (16.5, 0.0, 16.5))  # fmt: skip
    camera.extent = 2.0 * distance
    return camera


@pytest.mark.parametrize("kind", ["cube", "sphere", "rect"])
def test_a_cast_sprite_covers_and_shades_the_pixels_its_mesh_does(gl_ctx, target, kind):
    """Cubes, spheres and rects 5-10 pixels across, no multisampling: as sprites they cover the
    pixels whose centres their mesh covers, shaded alike (a sphere's mesh is a polygon, so
    its rim differs by a pixel here and there)."""
    camera = far_camera(80.0)
    renderer = Renderer(gl_ctx, turned_grid(kind))
    sprites_on, meshes, (rows, full, sprites) = both(renderer, target, camera)
    assert sprites > 0.95 * rows and full + sprites == rows  # sprites, none culled
    covered = (meshes != empty(gl_ctx, target, camera)).any(axis=-1)
    # 5+ pixel shapes, not dots (a flat rect seen aslant covers fewer pixels)
    assert covered.sum() > SIDE * SIDE * (8 if kind == "rect" else 15)
    apart = np.abs(sprites_on - meshes).max(axis=-1) > 24
    assert apart.sum() < 0.03 * covered.sum()
    renderer.release()


@pytest.mark.parametrize("kind", ["cube", "rect"])
def test_a_crowd_of_tiny_sprites_adds_the_light_its_meshes_do(gl_ctx, kind):
    """Cubes and rects 1-3 pixels across with 4x multisampling, as the window draws: a
    cube is a flat sprite in the mean of its faces' shading (one face towards the eye
    would be brighter than any face it shows), a rect is cast (a square as wide as its
    bounding sphere covers more than a slanted rect), so the crowd adds the meshes' light."""
    target = Target(gl_ctx, SIZE, samples=4)
    camera = far_camera(260.0)
    renderer = Renderer(gl_ctx, turned_grid(kind))
    sprites_on, meshes, (rows, full, sprites) = both(renderer, target, camera)
    assert sprites == rows
    room = empty(gl_ctx, target, camera)
    # what the cubes add to the picture, channel by channel, summed: the meshes' within 10 %
    added, wanted = (sprites_on - room).sum(axis=(0, 1)), (meshes - room).sum(axis=(0, 1))
    assert (np.abs(added[:3] / wanted[:3] - 1.0) < 0.1).all(), (added, wanted)
    renderer.release()
    target.release()


def test_other_meshes_keep_their_triangles_down_to_a_few_pixels(gl_ctx, target):
    """A mesh a box or sphere would misshape (here a cylinder; any glTF mesh) is a sprite
    only under LOD_PX, where cubes are sprites up to IMPOSTOR_LOD_PX."""
    assert IMPOSTOR_LOD_PX > 2 * LOD_PX
    renderer = Renderer(gl_ctx, turned_grid("cylinder"))
    _sprites_on, _meshes, (rows, full, sprites) = both(renderer, target, far_camera(80.0))
    assert full == rows and sprites == 0
    renderer.release()
