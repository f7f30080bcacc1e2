"""Names at scale with a moving camera (issue 31, item 4): who may be named comes from a
coarse grid kept while the scene stands, so a camera move looks at a bounded number of
nodes; the grid never leaves out a node that could show a name, and where the view holds
few enough nodes the placement is the one a look at every node gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import generate_scene
from viewer.overlay import labels
from viewer.overlay.name_candidates import CANDIDATES, NameCandidates, NameGrid
from viewer.render.camera import Camera
from viewer.render.scene_bounds import SceneBounds

SIZE = (640, 360)


def _camera(rng, points: np.ndarray) -> Camera:
    """A camera somewhere around the points, looking at one of them or near it."""
    centre = points[int(rng.integers(0, len(points)))] + rng.normal(size=3)
    return Camera(target=centre, distance=float(10.0 ** rng.uniform(-0.5, 1.5)),
                  yaw=float(rng.uniform(-180, 180)), pitch=float(rng.uniform(-80, 80)))  # fmt: skip


def _cloud(rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Clustered centres (some dense, some sparse) and radii."""
    clusters = rng.normal(size=(4, 3)) * 8.0
    centres = clusters[rng.integers(0, 4, n)] + rng.normal(size=(n, 3)) * rng.uniform(0.1, 3.0)
    return centres, rng.uniform(0.0, 0.6, n)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 3000))
def test_the_grid_never_leaves_out_a_node_that_could_show_a_name(seed, n):
    rng = np.random.default_rng(seed)
    centres, radii = _cloud(rng, n)
    ids = rng.permutation(n).astype(np.int64) + 5
    grid = NameGrid(ids, centres, np.arange(n))
    camera = _camera(rng, centres)
    vp, right = camera.view_projection(SIZE), camera.view_matrix()[0, :3]
    ok = labels.project(centres, radii, vp, SIZE, right)[0]
    offered, _ = grid.near(vp, limit=n)
    assert set(ids[ok].tolist()) <= set(offered.tolist())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(50, 1500), st.booleans())
def test_with_room_for_the_view_the_placement_is_that_of_every_node(seed, n, select):
    """A limit that holds every node of the cells in view (but not the whole scene, so the
    grid is used): the same names in the same places as `place_named` over every live
    node, with a selected node and glowing ones too."""
    rng = np.random.default_rng(seed)
    centres, radii = _cloud(rng, n)
    alive = rng.permutation(n).astype(np.int64)  # pre-order: any order of the ids
    speaks = rng.random(n) < 0.8

    def spheres(i):
        return centres[i], radii[i]

    camera = _camera(rng, centres)
    vp, right = camera.view_projection(SIZE), camera.view_matrix()[0, :3]
    selected = int(rng.integers(0, n)) if select else None
    glowing = rng.choice(n, size=int(rng.integers(0, 20)), replace=False)
    speaking = alive[speaks[alive]]
    in_view = len(NameGrid(speaking, centres[speaking], np.arange(len(speaking))).near(vp, n)[0])
    if in_view >= len(speaking):
        return  # the view's cells hold every node: the grid would offer them all
    candidates = NameCandidates(limit=in_view)
    got = candidates.place(("scene",), lambda: alive, lambda i: speaks[i], selected, spheres,
                           vp, SIZE, right, glowing)  # fmt: skip
    want = labels.place_named(alive, lambda i: speaks[i], selected, spheres, vp, SIZE, right,
                              glowing)  # fmt: skip
    assert candidates.looked_at < len(alive)
    assert got[0][got[2]].tolist() == want[0][want[2]].tolist()
    np.testing.assert_array_equal(got[3], want[3])


def test_a_moving_camera_over_100k_nodes_looks_at_a_bounded_number_of_them():
    """Orbiting the camera over a still balanced:100000 scene: after the grid is built
    (once), each view looks at no more than the candidates and what glows,
    a few percent of the nodes, and still names what is near and in view."""
    scene = generate_scene("balanced:100000")
    scene.motions = []
    graph = scene.graph
    graph.update()
    bounds = SceneBounds(scene)
    camera = Camera()
    bounds.frame_camera(camera)
    camera.distance *= 0.3  # inside the tree: most nodes are out of view or far
    looked: list[int] = []

    def spheres(ids):
        looked.append(len(ids))
        return bounds.label_spheres(ids)

    candidates = NameCandidates()
    everyone = lambda ids: np.ones(len(ids), dtype=bool)  # noqa: E731
    key = ("balanced:100000",)
    glowing = np.arange(500, 520)
    for step in range(8):
        camera.orbit(25.0, 3.0 * (step % 3 - 1))
        looked.clear()
        vp, right = camera.view_projection(SIZE), camera.view_matrix()[0, :3]
        ids, centres, index, xy = candidates.place(key, graph.alive_ids, everyone, None,
                                                   spheres, vp, SIZE, right, glowing)  # fmt: skip
        if step == 0:
            assert looked[0] == len(graph)  # the grid's build: every node, once
            looked.pop(0)
        assert len(looked) == 1 and looked[0] <= CANDIDATES + len(glowing)
        assert looked[0] < 0.05 * len(graph)
        assert 0 < len(index) <= labels.NAME_BUDGET
        ok = labels.project(centres[index], bounds.label_spheres(ids[index])[1], vp, SIZE,
                            right)[0]  # fmt: skip
        assert ok.all()  # every node placed can show its name
