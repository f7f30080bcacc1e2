"""Instance buffers: only the report's ranges are uploaded, in merged runs, and correctly."""

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from render_helpers import tree10

from viewer.content.scene import Look, Scene
from viewer.render import instances
from viewer.render.glow import FOLLOWED, NONE, OWN, STAMP_BYTES
from viewer.render.instances import (
    LINK_STAMP_BYTES,
    MATRIX_BYTES,
    ORIGIN_BYTES,
    aranges,
    merge_touching,
)
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
    alive = graph.alive_ids()  # origins are kept in pre-order, like the report's ranges
    np.testing.assert_allclose(origins[: len(alive)], world[alive, :3, 3], rtol=1e-6, atol=1e-6)


def _stamps(renderer):
    """(time, code) per node id as the GPU holds them."""
    out = {}
    for batch in renderer.instances.batches:
        rows = np.frombuffer(batch.stamps.read(), dtype=np.float32).reshape(-1, 2)
        out.update(zip(batch.ids.tolist(), rows.tolist(), strict=True))
    return out


def test_aranges_and_merge_touching():
    assert aranges(np.array([2, 7, 9]), np.array([4, 9, 9])).tolist() == [2, 3, 7, 8]
    assert aranges(np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []
    lo, hi = merge_touching(np.array([0, 3, 5, 5, 9]), np.array([3, 5, 5, 7, 10]))
    assert (lo.tolist(), hi.tolist()) == ([0, 9], [7, 10])


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
    assert written == 4 * (MATRIX_BYTES + STAMP_BYTES + ORIGIN_BYTES + LINK_STAMP_BYTES)
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
    # 200 matrices and stamps in one range of the cube batch, 200 origins and link stamps
    # in one range.
    assert r.instances.writes_last == 4
    assert r.bytes_last == n * (MATRIX_BYTES + STAMP_BYTES + ORIGIN_BYTES + LINK_STAMP_BYTES)
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
        per_node = MATRIX_BYTES + STAMP_BYTES + ORIGIN_BYTES + LINK_STAMP_BYTES
        assert r.bytes_last == len(report.executed) * per_node
        _assert_gpu_matches(r, g)


def test_a_touch_stamps_its_subtree_with_the_time_and_why(gl_ctx):
    scene = tree10()
    r = _ready(gl_ctx, scene)
    g = scene.graph
    g.touch(g["Obj3"])
    r.sync(g.update(), dt=0.25)
    stamps = _stamps(r)
    touched = {g["Obj3"].id: OWN, g["Obj6"].id: FOLLOWED, g["Obj10"].id: FOLLOWED}
    for node_id, (t, code) in stamps.items():
        if node_id in touched:
            assert t == 0.25 and int(code) == touched[node_id]
        else:
            assert t < -1e30 and code == NONE
    # A later frame that recomputes nothing writes nothing; the stamps stay.
    assert r.sync(g.update(), dt=0.25) == 0 and _stamps(r) == stamps


def test_a_node_lit_outside_the_report_gets_its_stamp_written(gl_ctx):
    scene = tree10()
    r = _ready(gl_ctx, scene)
    g = scene.graph
    r.sync(g.update(), dt=0.5)
    assert r.light([g["Obj7"].id]) == STAMP_BYTES
    t, code = _stamps(r)[g["Obj7"].id]
    assert t == 0.5 and int(code) == OWN


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
    # Obj5, Obj8, Obj9 executed: two drawn matrices and stamps, three origins and links.
    assert r.bytes_last == 2 * (MATRIX_BYTES + STAMP_BYTES) + 3 * (ORIGIN_BYTES + LINK_STAMP_BYTES)


@pytest.mark.parametrize("n", [0, 1])
def test_tiny_scenes_build(gl_ctx, n):
    g = SceneGraph()
    if n:
        g.add("only")
    r = _ready(gl_ctx, Scene(graph=g))
    assert r.instances.batches == [] and r.instances.link_count == 0


def _buffers(renderer) -> list[bytes]:
    inst = renderer.instances
    out = [inst.origins.read(), inst.link_times.read()]
    for batch in inst.batches:
        out += [batch.matrices.read(), batch.stamps.read()]
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_spread_out_frame_goes_up_in_one_write_and_lands_as_the_runs_would(gl_ctx, data):
    """Many runs in one frame: one staged write, scattered by compute shaders, leaves every
    instance buffer byte for byte as one write per run does (a second renderer with the
    scatter turned off is the oracle), on random trees of mixed looks (some drawn by no
    mesh), frame after frame."""
    from viewer.render.instances import DIRECT_RUNS_MAX
    from viewer.render.shaders import has_compute

    if not has_compute(gl_ctx):
        pytest.skip("no compute shaders (OpenGL < 4.3): runs are written one by one")
    g = SceneGraph()
    n = data.draw(st.integers(30, 200), "nodes")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31), "seed"))
    parents = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
    ids = g.add_many([f"n{i}" for i in range(n)], np.array(parents),
                     positions=rng.uniform(-1, 1, (n, 3)))  # fmt: skip
    kinds = ("cube", "sphere", "none")
    looks = {int(i): Look(kinds[int(rng.integers(0, 3))], (0.2, 0.2, 0.2)) for i in ids}
    scene = Scene(graph=g, looks=looks)
    scattered, runs = _ready(gl_ctx, scene), Renderer(gl_ctx, scene)
    runs.instances.scatter = None
    for _ in range(data.draw(st.integers(1, 4), "frames")):
        for i in rng.choice(n, size=int(rng.integers(1, n // 2)), replace=False):
            g.node(int(ids[i])).local_position = rng.uniform(-1, 1, 3)
        report = g.update()
        scattered.sync(report, 1 / 60)
        runs.sync(report, 1 / 60)
        spread = merge_touching(report.starts, report.ends)[0].size > DIRECT_RUNS_MAX
        assert scattered.instances.writes_last == (1 if spread else runs.instances.writes_last)
        assert _buffers(scattered) == _buffers(runs)
        world = g.world_matrices()  # and both hold the world matrices now
        for node_id, m in _gpu_matrices(scattered).items():
            np.testing.assert_allclose(m, world[node_id], rtol=1e-6, atol=1e-6)
    scattered.release()
    runs.release()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 40), st.integers(1, 9))
def test_build_gathers_the_matrices_a_block_at_a_time_as_a_whole_gather(seed, n, block):
    """The build's blockwise gather equals the whole gather's rows, bit for bit, for any
    ids (repeated, unordered) and any block size (blocks of 1 to 9 rows here)."""
    rng = np.random.default_rng(seed)
    world = rng.normal(size=(50, 4, 4)) * 10.0 ** rng.uniform(-5, 5)
    ids = rng.integers(0, 50, size=n)
    with patch.object(instances, "GATHER_ROWS", block):
        got = instances._gather_column_major(world, ids)
    expected = np.ascontiguousarray(world[ids].transpose(0, 2, 1), np.float32).reshape(-1, 16)
    assert got.dtype == np.float32 and got.shape == (n, 16)
    np.testing.assert_array_equal(got, expected)
