"""The compiled glow bookkeeping and staging (`glow_loops.py`) against the numpy path they
replace (the oracle: the code before them, still run while the first run compiles): the
same glow state, counts and uploaded bytes, bit for bit, over random trees and random
sequences of edits, clocks, lights, masks, marks and restarts; the staged rows byte for
byte over random matrices (overflow and NaN included) and runs; and a renderer frame
compiles nothing that `exercise()` did not."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import generate_scene
from viewer.render import glow_loops
from viewer.render.glow import Glow
from viewer.render.renderer import Renderer
from viewer.render.scatter import ROW_FLOATS, RowScatter
from viewer.render.shaders import has_compute
from viewer.scene import SceneGraph, coldstart

LOOPS = ("stamp_nodes", "stamp_late", "stage_rows")


@contextmanager
def numpy_path():
    """Run the numpy path inside the block, as while the first run compiles."""
    real = glow_loops.serving
    glow_loops.serving = lambda: False
    try:
        yield
    finally:
        glow_loops.serving = real


def _same_glow(a: Glow, b: Glow, ids: np.ndarray) -> None:
    for name in ("own", "frame_of", "link_frame", "heat_at"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.glowing_count() == b.glowing_count()
    assert a.lit_line_count() == b.lit_line_count()
    for left, right in zip(a.glowing() + a.links(), b.glowing() + b.links(), strict=True):
        assert left.tobytes() == right.tobytes()
    assert a.stamp_rows(ids).tobytes() == b.stamp_rows(ids).tobytes()
    assert a.link_rows(ids).tobytes() == b.link_rows(ids).tobytes()


def _random_tree(data) -> SceneGraph:
    g = SceneGraph()
    for i in range(data.draw(st.integers(1, 40))):
        parent = data.draw(st.integers(-1, i - 1))
        g.add(f"n{i}", parent=None if parent < 0 else g.node(parent), position=(0.0, 1.0, 0.0))
    g.update()
    return g


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_the_compiled_record_keeps_the_numpy_paths_state_and_rows(data):
    g = _random_tree(data)
    # (a short window: nodes last stamped before it get their heat's decay one by one)
    window = data.draw(st.sampled_from([1, 2, 3, glow_loops.WINDOW]))
    with _window(window):
        _record_both(data, g)


@contextmanager
def _window(frames: int):
    real = glow_loops.WINDOW
    glow_loops.WINDOW = frames
    try:
        yield
    finally:
        glow_loops.WINDOW = real


def _record_both(data, g: SceneGraph) -> None:
    fade = data.draw(st.sampled_from([0.0, 0.05, 0.5]))
    compiled, oracle = Glow(fade=fade), Glow(fade=fade)
    alive = np.asarray(g.alive_ids(), dtype=np.int64)
    steps = ["touch", "move", "idle", "light", "mask", "pending", "still", "forget"]
    for _ in range(data.draw(st.integers(1, 30))):
        step = data.draw(st.sampled_from(steps))
        both = (compiled, oracle)
        if step == "mask":
            mask = data.draw(st.sampled_from([None, "all", "some", "short"]))
            some = data.draw(st.lists(st.booleans(), min_size=len(alive), max_size=len(alive)))
            counted = {None: None, "all": np.ones(len(alive), bool), "some": np.array(some, bool),
                       "short": np.ones(max(len(alive) - 2, 0), bool)}[mask]  # fmt: skip
            for glow in both:
                glow.count_drawn(counted)
            continue
        if step == "forget":
            for glow in both:
                glow.forget()
            continue
        if step == "pending":
            picks = alive[: data.draw(st.integers(0, len(alive)))]
            for glow in both:
                glow.set_pending(picks[::2], picks[1::2])
            continue
        picks = data.draw(st.lists(st.sampled_from(alive.tolist()), max_size=6))
        for node_id in picks:
            if step == "touch":
                g.touch(g.node(int(node_id)))
            elif step == "move":
                g.node(int(node_id)).local_position = (data.draw(st.floats(-2, 2)), 0.0, 0.0)
        report = g.update()
        if step == "still":
            shown = report if data.draw(st.booleans()) else None
            for glow in both:
                glow.set_still(shown, g.parents())
            continue
        dt = data.draw(st.sampled_from([0.0, 1 / 60, 0.2, 1.5, 40.0]))
        compiled.record(report, g.parents(), dt)
        with numpy_path():
            oracle.record(report, g.parents(), dt)
        if step == "light":
            lit = alive[: data.draw(st.integers(0, len(alive)))]
            for glow in both:
                glow.light(lit)
        _same_glow(compiled, oracle, report.world_updated)
        _same_glow(compiled, oracle, alive)


def test_the_compiled_record_runs_while_serving_and_not_while_compiling(monkeypatch):
    """Which path `record` takes: the loops when they serve (all of them loaded at the
    first use); numpy while the first run compiles them (a cold start in progress)."""
    calls, exercised = [], []
    real = glow_loops.stamp_frame
    monkeypatch.setattr(glow_loops, "stamp_frame", lambda *a: calls.append(1) or real(*a))
    real_exercise = glow_loops.exercise
    monkeypatch.setattr(glow_loops, "exercise", lambda: exercised.append(1) or real_exercise())
    monkeypatch.setattr(glow_loops, "_exercised", False)  # (white-box: a fresh process)
    g = SceneGraph()
    g.add_many(None, [-1, 0, 0, 1])
    g.update()
    glow = Glow()
    g.touch(g.node(0))
    glow.record(g.update(), g.parents(), 0.1)
    assert exercised == [1]  # every loop loaded at the first use, once (none later)
    assert calls == [1, 1] and glow_loops.serving()  # `exercise`'s call, then the frame's
    monkeypatch.setattr(coldstart, "compiling", lambda: True)
    assert not glow_loops.serving()
    g.touch(g.node(1))
    glow.record(g.update(), g.parents(), 0.1)
    assert calls == [1, 1] and exercised == [1]


values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 3.5e38, -3.5e38, 1e-320, 1e-46]),
)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_the_compiled_staging_writes_the_numpy_paths_bytes(data):
    """Matrices beyond float32 (inf), NaN, denormals, signed zeros, any ids in range and
    slot runs: the same bytes as `np.take` into the float32 rows."""
    n = data.draw(st.integers(1, 30))
    world = np.array(data.draw(st.lists(values, min_size=16 * n, max_size=16 * n)))
    world = world.reshape(n, 4, 4)
    k = data.draw(st.integers(0, 40))
    ids = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), np.int64)
    splits = sorted(data.draw(st.lists(st.integers(0, k), max_size=5)))
    lengths = np.diff(np.array([0, *splits, k], dtype=np.int64))  # runs, some empty
    gaps = np.array(data.draw(st.lists(st.integers(0, 9), min_size=len(lengths),
                                       max_size=len(lengths))), dtype=np.int64)  # fmt: skip
    lo = np.cumsum(gaps) + np.cumsum(lengths) - lengths
    hi = lo + lengths
    floats = st.floats(width=32, allow_nan=False)
    stamps = np.array(data.draw(st.lists(floats, min_size=2 * k, max_size=2 * k)), np.float32)
    links = np.array(data.draw(st.lists(floats, min_size=k, max_size=k)), np.float32)
    rows = RowScatter.stage(world, ids, stamps.reshape(k, 2), links, lo, hi)
    with numpy_path(), np.errstate(all="ignore"):
        oracle = RowScatter.stage(world, ids, stamps.reshape(k, 2), links, lo, hi)
    assert rows.shape == (k, ROW_FLOATS) and rows.tobytes() == oracle.tobytes()


def test_staging_refuses_nodes_that_do_not_fill_the_runs():
    world = np.zeros((4, 4, 4))
    no_rows = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="2 nodes for 3 slots"):
        RowScatter.stage(world, np.array([0, 1]), no_rows, np.zeros(2, np.float32),
                         np.array([0]), np.array([3]))  # fmt: skip


def test_a_renderer_frame_compiles_nothing_that_exercise_did_not(gl_ctx):
    """The first run's background step (`exercise`) compiles every signature the renderer
    calls the loops with, so no later launch compiles on a frame."""
    if not has_compute(gl_ctx):
        pytest.skip("no compute shaders: the staged upload is not used")
    glow_loops.exercise()
    before = {name: set(getattr(glow_loops, name).signatures) for name in LOOPS}
    scene = generate_scene("balanced:3000")
    scene.motions = []
    graph = scene.graph
    graph.update()
    renderer = Renderer(gl_ctx, scene)
    alive = np.asarray(graph.alive_ids())
    rng = np.random.default_rng(5)
    for step in range(3):
        picks = rng.choice(alive, size=60, replace=False)
        quats = np.tile([0.0, np.sin(0.1 * step + 0.1), 0.0, np.cos(0.1 * step + 0.1)], (60, 1))
        graph.set_locals(picks, rotations=quats)
        renderer.sync(graph.update(), 1 / 60)
        assert renderer.instances.writes_last == 1  # the staged path, through the loops
    after = {name: set(getattr(glow_loops, name).signatures) for name in LOOPS}
    assert after == before
    renderer.release()
