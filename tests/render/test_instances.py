"""Instance buffers: only executed nodes are uploaded, in merged ranges, and correctly."""

import numpy as np
import pytest
from render_helpers import tree10

from viewer.content.scene import Look, Scene
from viewer.render.instances import HIGHLIGHT_BYTES, MATRIX_BYTES, ORIGIN_BYTES, runs
from viewer.render.renderer import Renderer
from viewer.scene import SceneGraph


def _ready(gl_ctx, scene):
    scene.graph.update()
    return Renderer(gl_ctx, scene)


def _gpu_matrices(renderer):
    """World matrices as the GPU holds them, by node id (float32 -> float64)."""
    out = {}
    for batch in renderer.instances.batches:
        rows = np.frombuffer(batch.matrices.read(), dtype=np.float32).reshape(-1, 4, 4)
        for node_id, m in zip(batch.ids.tolist(), rows, strict=True):
            out[node_id] = m.T.astype(np.float64)  # stored column-major
    return out


def _assert_gpu_matches(renderer, graph):
    world = graph.world_matrices()
    gpu = _gpu_matrices(renderer)
    assert set(gpu) == set(graph.alive_ids().tolist())
    for node_id, m in gpu.items():
        np.testing.assert_allclose(m, world[node_id], rtol=1e-6, atol=1e-6)
    origins = np.frombuffer(renderer.instances.origins.read(), dtype=np.float32).reshape(-1, 3)
    alive = graph.alive_ids()
    np.testing.assert_allclose(origins[alive], world[alive, :3, 3], rtol=1e-6, atol=1e-6)


def test_runs_splits_at_gaps():
    assert runs(np.array([3, 4, 5, 9, 10])).tolist() == [0, 3, 5]
    assert runs(np.array([7])).tolist() == [0, 1]
    assert runs(np.array([], dtype=np.int64)).tolist() == [0]


def test_a_frame_with_no_change_uploads_nothing(gl_ctx):
    scene = tree10()
    r = _ready(gl_ctx, scene)
    assert r.bytes_last > 0  # the initial build uploads everything
    for _ in range(3):
        report = scene.graph.update()
        assert report.executed.size == 0
        assert r.sync(report) == 0
        assert r.bytes_last == 0 and r.instances.writes_last == 0


def test_touch_uploads_the_executed_subtree_only(gl_ctx):
    scene = tree10()
    r = _ready(gl_ctx, scene)
    g = scene.graph
    g["Obj2"].local_position = (-2.5, 1.0, 0.3)
    report = g.update()
    assert [g.name_of(i) for i in report.executed] == ["Obj2", "Obj5", "Obj8", "Obj9"]
    written = r.sync(report)
    assert written == 4 * (MATRIX_BYTES + ORIGIN_BYTES)
    _assert_gpu_matches(r, g)


def test_consecutive_rows_are_merged_into_one_write(gl_ctx):
    g = SceneGraph()
    n = 200
    ids = g.add_many([f"n{i}" for i in range(n)], np.arange(n) - 1,
                     positions=np.tile([0.0, 0.1, 0.0], (n, 1)))  # fmt: skip
    scene = Scene(graph=g, looks={int(i): Look("cube", (0.1, 0.1, 0.1)) for i in ids})
    r = _ready(gl_ctx, scene)
    g.touch(g["n0"])
    r.sync(g.update())
    # 200 matrices in one range of the cube batch, 200 origins in one range.
    assert r.instances.writes_last == 2
    assert r.bytes_last == n * (MATRIX_BYTES + ORIGIN_BYTES)
    _assert_gpu_matches(r, g)


def test_random_edits_keep_the_gpu_copy_exact(gl_ctx):
    rng = np.random.default_rng(7)
    scene = tree10()
    r = _ready(gl_ctx, scene)
    g = scene.graph
    names = [n.name for n in g]
    for _ in range(15):
        for name in rng.choice(names, size=rng.integers(1, 4), replace=False):
            node = g[name]
            node.local_position = rng.uniform(-3, 3, 3)
            node.local_euler = rng.uniform(-180, 180, 3)
        report = g.update()
        r.sync(report)
        assert r.bytes_last <= len(report.executed) * (MATRIX_BYTES + ORIGIN_BYTES)
        _assert_gpu_matches(r, g)


def test_a_touched_nodes_highlight_reaches_the_instance_buffer(gl_ctx):
    scene = tree10()
    r = _ready(gl_ctx, scene)
    g = scene.graph
    g.touch(g["Obj3"])
    report = g.update()
    r.sync(report)
    written = r.set_highlight(report.executed, 1.0)
    assert written == len(report.executed) * HIGHLIGHT_BYTES
    touched = {g["Obj3"].id, g["Obj6"].id, g["Obj10"].id}
    for batch in r.instances.batches:
        values = np.frombuffer(batch.highlights.read(), dtype=np.float32)
        for node_id, value in zip(batch.ids.tolist(), values, strict=True):
            assert value == (1.0 if node_id in touched else 0.0)
    r.set_highlight([g["Obj6"].id], [0.25])
    b = r.instances.batches[r.instances.kind_of[g["Obj6"].id]]
    row = r.instances.row_of[g["Obj6"].id]
    assert np.frombuffer(b.highlights.read(), dtype=np.float32)[row] == 0.25


def test_structural_edits_rebuild_the_buffers(gl_ctx):
    scene = tree10()
    r = _ready(gl_ctx, scene)
    g = scene.graph
    new = g.add("Extra", parent=g["Obj4"], position=(0.0, 1.0, 0.0))
    scene.looks[new.id] = Look("sphere", (0.5, 0.5, 0.5), (1.0, 1.0, 1.0))
    g["Obj9"].set_parent(g["Obj7"])
    g.remove(g["Obj10"])
    r.sync(g.update())
    assert r.instances.link_count == len(g) - 1
    _assert_gpu_matches(r, g)


def test_pivot_nodes_get_no_instance_but_keep_their_lines(gl_ctx):
    scene = tree10()
    del scene.looks[scene.graph["Obj5"].id]  # no look: a pivot
    r = _ready(gl_ctx, scene)
    assert sum(b.count for b in r.instances.batches) == 9
    assert r.instances.link_count == 9
    g = scene.graph
    g.touch(g["Obj5"])
    r.sync(g.update())
    # Obj5, Obj8, Obj9 executed: two drawn matrices, three origins.
    assert r.bytes_last == 2 * MATRIX_BYTES + 3 * ORIGIN_BYTES


@pytest.mark.parametrize("n", [0, 1])
def test_tiny_scenes_build(gl_ctx, n):
    g = SceneGraph()
    if n:
        g.add("only")
    r = _ready(gl_ctx, Scene(graph=g))
    assert r.instances.batches == [] and r.instances.link_count == 0
