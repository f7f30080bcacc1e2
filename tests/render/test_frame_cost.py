"""The renderer's per-frame work follows what changed (issue 31): at 100k nodes an idle
frame and a frame that moves one leaf make no full pass over the node arrays and a few
buffer writes at most; a frame that changes 1 % of the nodes, spread over the tree, makes no full
pass either and goes up in one staged write.

Counted through stand-ins, as tests/overlay/test_no_sorting.py counts sorts: every array
the graph hands out (world matrices, parents, live ids; through `peek` too) and every
per-node array of the renderer and its glow is watched, and a *full pass* is an array of
at least one row per node made from a watched one (a copy, a fancy index, an
elementwise result: not a view) or allocated by numpy during the frame; a write is a call
of `moderngl.Buffer.write`. The frame is the app's: `graph.update()`, `Renderer.sync`,
`FrameViews.extract`, `Renderer.draw` (into a small target: the pixels are not the point).
"""

from __future__ import annotations

import moderngl
import numpy as np
import pytest

from viewer.io import generate_scene
from viewer.render.camera import Camera
from viewer.render.context import Target
from viewer.render.frame_view import FrameViews, ViewSettings
from viewer.render.renderer import Renderer
from viewer.render.shaders import has_compute
from viewer.scene.graph import SceneGraph
from viewer.scene.peek import Peek

NODES = 100_000
#: The issue's bound on buffer writes per frame.
WRITES_MAX = 64


class Census:
    """What one frame did: full passes over node arrays, buffer writes."""

    nodes = 0
    counting = False
    passes: list[str] = []
    writes = 0


class Watched(np.ndarray):
    """A node array whose copies with a row per node are counted as full passes."""

    def __array_finalize__(self, obj) -> None:
        if not (Census.counting and self.ndim and len(self) >= Census.nodes):
            return
        if obj is not None and not np.may_share_memory(self, obj):  # new data, not a view
            Census.passes.append(f"{self.dtype}{self.shape}")


def _watched(array):
    return np.asarray(array).view(Watched)


def _watching(method):
    def watched(self, *args, **kwargs):
        return _watched(method(self, *args, **kwargs))

    return watched


def _allocations(name, real):
    def allocate(shape, *args, **kwargs):
        size = shape if np.isscalar(shape) else (shape[0] if len(shape) else 1)
        if Census.counting and int(size) >= Census.nodes:
            Census.passes.append(f"np.{name}({shape})")
        return real(shape, *args, **kwargs)

    return allocate


@pytest.fixture
def census(monkeypatch):
    for cls, name in ((Peek, "world_matrices"), (Peek, "parents"), (Peek, "alive_ids"),
                      (SceneGraph, "world_matrices"), (SceneGraph, "parents"),
                      (SceneGraph, "alive_ids")):  # fmt: skip
        real = getattr(cls, name)
        monkeypatch.setattr(
            cls, name, lambda self, *a, _real=real, **k: _watched(_real(self, *a, **k))
        )
    for name in ("zeros", "ones", "empty", "full"):
        monkeypatch.setattr(np, name, _allocations(name, getattr(np, name)))
    real_write = moderngl.Buffer.write

    def write(self, *args, **kwargs):
        if Census.counting:
            Census.writes += 1
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(moderngl.Buffer, "write", write)
    yield Census
    Census.counting = False


def _watch_renderer(renderer: Renderer) -> None:
    """Watch the renderer's and its glow's per-node arrays as well."""
    inst, glow = renderer.instances, renderer.glow
    for name in ("order", "kind_of", "row_of", "sizes"):
        setattr(inst, name, _watched(getattr(inst, name)))
    for batch in inst.batches:
        batch.ids, batch.slots = _watched(batch.ids), _watched(batch.slots)
    for name in ("own", "frame_of", "link_frame", "heat_at"):
        setattr(glow, name, _watched(getattr(glow, name)))


def _frame(census, graph, renderer, views, settings, target, camera, change=None):
    census.passes, census.writes = [], 0
    census.counting = True
    if change is not None:
        change()
    report = graph.update()
    renderer.sync(report, 1 / 60)
    renderer.draw(views.extract(graph, settings, target.fbo, target.size), camera)
    census.counting = False
    return report


def test_an_idle_frame_and_a_one_leaf_touch_cost_what_changed(gl_ctx, census):
    scene = generate_scene(f"balanced:{NODES}")
    scene.motions = []
    graph = scene.graph
    graph.update()
    renderer = Renderer(gl_ctx, scene)
    census.nodes = len(graph)
    _watch_renderer(renderer)
    settings = ViewSettings(glow_on=True)  # as the overlay shows it: glow, lines, grid
    views, camera, target = FrameViews(), Camera(), Target(gl_ctx, (48, 32), samples=0)
    renderer.bounds.frame_camera(camera)
    step = [0]
    run = lambda change=None: _frame(census, graph, renderer, views, settings, target,  # noqa: E731
                                     camera, change)  # fmt: skip
    run()  # the first frame after the build

    run()  # idle: nothing changed
    assert census.passes == [] and census.writes == 0

    leaf = graph.node(int(graph.alive_ids()[-1]))

    def touch_leaf():
        step[0] += 1
        leaf.local_position = (0.1 * step[0], 0.0, 0.0)

    report = run(touch_leaf)
    assert report.executed.tolist() == [leaf.id]
    assert census.passes == [] and 1 <= census.writes <= 4  # matrix, stamp, origin, line
    assert renderer.glow.kind_of(leaf.id) == -1  # it glows red

    for _ in range(3):  # its glow fades: idle again, nothing written
        run()
        assert census.passes == [] and census.writes == 0
    target.release()
    renderer.release()


def test_a_frame_changing_one_percent_spread_out_writes_a_bounded_number_of_times(gl_ctx, census):
    if not has_compute(gl_ctx):
        pytest.skip("no compute shaders (OpenGL < 4.3): runs are written one by one")
    scene = generate_scene(f"balanced:{NODES}")
    scene.motions = []
    graph = scene.graph
    graph.update()
    renderer = Renderer(gl_ctx, scene)
    census.nodes = len(graph)
    _watch_renderer(renderer)
    views, camera, target = FrameViews(), Camera(), Target(gl_ctx, (48, 32), samples=0)
    settings = ViewSettings(glow_on=True)
    alive = np.asarray(graph.alive_ids())
    rng = np.random.default_rng(3)
    picks = rng.choice(alive, size=len(alive) // 100, replace=False)

    angle = [0.0]

    def change():
        angle[0] += 0.1  # (a new value each frame: the same one again changes nothing)
        quats = np.tile([0.0, np.sin(angle[0]), 0.0, np.cos(angle[0])], (len(picks), 1))
        graph.set_locals(picks, rotations=quats)

    for _ in range(3):  # the first changed frame after the build, then two more
        report = _frame(census, graph, renderer, views, settings, target, camera, change)
        assert len(report.starts) > 100  # spread out: hundreds of runs
        # No pass over every node: the glow's stamps, heat and lit lines are kept from
        # the report's ids; the rows go up in one staged write (a spare for the margin).
        assert census.passes == []
        assert census.writes <= min(2, WRITES_MAX)
    assert renderer.bytes_last <= 90 * len(report.executed)
    target.release()
    renderer.release()
