"""Growth of the per-node arrays without copying (issue 47, item 5): past a few thousand
ids the arrays are views of one reserved anonymous mapping (viewer/scene/reserve.py), so
growing only widens them. Arrays handed out before a growth stay valid and keep seeing the
stored values; the values survive every growth (the reserved one, the copying one where
no reservation can be had, and the switch between them); resident memory follows the ids
written, not the reservation; tracemalloc counts the arrays as numpy's own; and the name
index behaves as a dict of the live names."""

from __future__ import annotations

import gc
import random
import sys
import tracemalloc

import numpy as np
import pytest

import viewer.scene.arrays as arrays
from viewer.io.limits import MAX_NODES
from viewer.scene import SceneGraph, reserve
from viewer.scene.names import NameIndex

#: Bytes of one id's row over all the per-node arrays (docs/performance.md's table).
ROW_BYTES = 426


def store(g: SceneGraph):
    return g._store


def reserved_or_skip(g: SceneGraph) -> reserve.Reservation:
    held = store(g).reserved
    if held is None:
        pytest.skip("this system grants no reservation (the copying growth is tested below)")
    return held


def grow_in_steps(g: SceneGraph, oracle: dict[str, np.ndarray], total: int, step: int) -> None:
    """Add ``total`` nodes in batches of ``step`` under earlier nodes, recording the
    values in ``oracle`` (every node's parent, position, scale)."""
    rng = np.random.default_rng(total + step)
    while len(oracle["parent"]) < total:
        first = len(oracle["parent"])
        k = min(step, total - first)
        parents = rng.integers(-1, max(first, 1), size=k) if first else np.full(k, -1)
        pos = rng.normal(size=(k, 3))
        scl = rng.uniform(0.5, 2.0, size=(k, 3))
        g.add_many(None, parents.astype(np.int64), positions=pos, scales=scl)
        for key, v in (("parent", parents), ("pos", pos), ("scl", scl)):
            oracle[key] = np.concatenate([oracle[key], v]) if len(oracle[key]) else v


def world_oracle(parents: np.ndarray, pos: np.ndarray, scl: np.ndarray) -> np.ndarray:
    """Every world matrix by the definition (parents come before children here)."""
    out = np.empty((len(parents), 4, 4))
    for i, p in enumerate(parents.tolist()):
        local = np.diag([*scl[i], 1.0])
        local[:3, 3] = pos[i]
        out[i] = local if p < 0 else out[p] @ local
    return out


def test_growth_past_the_small_size_only_widens_views_and_keeps_old_views_live():
    g = SceneGraph()
    oracle: dict[str, np.ndarray] = {"parent": np.empty(0), "pos": np.empty(0), "scl": np.empty(0)}
    grow_in_steps(g, oracle, reserve.SMALL_ROWS + 1, 1000)
    held = reserved_or_skip(g)
    s = store(g)
    early_world = g.world_matrices()  # handed out now, read after many growths
    early_pos, early_cap = s.pos, s.cap
    grow_in_steps(g, oracle, 300_000, 7_919)  # six doublings, no reservation change
    assert s.reserved is held and s.cap > 32 * early_cap
    assert np.shares_memory(early_pos, s.pos) and np.shares_memory(early_world, s.world)
    for name, _, _ in arrays.FIELDS:
        a = getattr(s, name)
        assert a.flags.c_contiguous and a.flags.writeable and a.shape[0] == s.cap
    np.testing.assert_array_equal(s.pos[: len(oracle["pos"])], oracle["pos"])
    np.testing.assert_array_equal(s.scl[: len(oracle["scl"])], oracle["scl"])
    np.testing.assert_array_equal(g.peek.parents(), oracle["parent"])
    g.update()  # the compiled loops take the widened views
    expected = world_oracle(oracle["parent"], oracle["pos"], oracle["scl"])
    np.testing.assert_allclose(g.world_matrices(), expected, rtol=1e-9, atol=1e-9)
    # The view taken before the growths sees the values the frame just computed.
    np.testing.assert_array_equal(early_world, g.world_matrices()[: early_world.shape[0]])
    g.node(3).local_position = (5.0, 6.0, 7.0)
    g.update()
    np.testing.assert_array_equal(early_world[3][:3, 3], g.node(3).world_position)
    assert early_pos[3].tolist() == [5.0, 6.0, 7.0]


def test_node_by_node_growth_keeps_every_value_and_world_row_three():
    """``add`` across the switch to the reservation and its doublings; row 3 of each
    world matrix is (0, 0, 0, 1) before the first update (the arrays' spare rows are
    zeros, so adding a node writes it)."""
    g = SceneGraph(capacity=1)
    n = 3 * reserve.SMALL_ROWS + 5
    nodes = []
    for i in range(n):
        parent = nodes[(i - 1) // 3] if i else None
        nodes.append(g.add(f"n{i}", parent, position=(float(i), 0.0, 1.0)))
        if i == 100:
            local_before = np.array(nodes[50].local_matrix)  # written before growths
    world = g.world_matrices()
    np.testing.assert_array_equal(world[:, 3], np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))
    np.testing.assert_array_equal(nodes[50].local_matrix, local_before)
    g.update()
    parents = np.array([-1] + [(i - 1) // 3 for i in range(1, n)])
    pos = np.stack([np.arange(n, dtype=float), np.zeros(n), np.ones(n)], axis=1)
    expected = world_oracle(parents, pos, np.ones((n, 3)))
    np.testing.assert_allclose(g.world_matrices(), expected, rtol=1e-12, atol=1e-9)


def test_growth_without_a_reservation_copies_and_keeps_the_values(monkeypatch):
    monkeypatch.setattr(arrays, "reserve", lambda fields, need: None)
    g = SceneGraph()
    oracle: dict[str, np.ndarray] = {"parent": np.empty(0), "pos": np.empty(0), "scl": np.empty(0)}
    grow_in_steps(g, oracle, 40_000, 3_001)
    assert store(g).reserved is None and store(g).cap >= 40_000
    g.update()
    expected = world_oracle(oracle["parent"], oracle["pos"], oracle["scl"])
    np.testing.assert_allclose(g.world_matrices(), expected, rtol=1e-9, atol=1e-9)


def test_outgrowing_a_reservation_copies_once_into_a_larger_one(monkeypatch):
    monkeypatch.setattr(reserve, "FIRST_ROWS", 4 * reserve.SMALL_ROWS)
    g = SceneGraph()
    oracle: dict[str, np.ndarray] = {"parent": np.empty(0), "pos": np.empty(0), "scl": np.empty(0)}
    grow_in_steps(g, oracle, reserve.SMALL_ROWS + 10, 2_000)
    first = reserved_or_skip(g)
    assert first.rows == 4 * reserve.SMALL_ROWS
    local = np.array(g.node(7).local_matrix)  # a local matrix written: copied along
    grow_in_steps(g, oracle, 5 * reserve.SMALL_ROWS, 2_000)
    second = store(g).reserved
    assert second is not None and second is not first
    assert second.rows == reserve.STEP * first.rows
    g.update()
    expected = world_oracle(oracle["parent"], oracle["pos"], oracle["scl"])
    np.testing.assert_allclose(g.world_matrices(), expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(store(g).local[7].reshape(4, 4), local)


def test_a_refused_mapping_falls_back_to_smaller_reservations(monkeypatch):
    granted = []

    def limited(size: int):  # an address-space limit: nothing over 200 MB
        granted.append(size)
        return None if size > 200 * 2**20 else original(size)

    original = reserve._map
    monkeypatch.setattr(reserve, "_map", limited)
    g = SceneGraph(capacity=reserve.SMALL_ROWS + 1)
    held = reserved_or_skip(g)
    assert held.rows * ROW_BYTES <= 200 * 2**20 < 2 * held.rows * ROW_BYTES
    assert granted[0] > granted[-1]


def test_the_first_reservation_holds_the_largest_scene_a_file_may_have():
    """A loaded scene (at most ``MAX_NODES`` nodes) never copies its arrays: its capacity
    doubles to the next power of two, within the first reservation."""
    assert 1 << (MAX_NODES - 1).bit_length() <= reserve.FIRST_ROWS


def _rss_of_mapping(address: int) -> tuple[int, int]:
    """(size, resident bytes) of the mapping holding ``address`` (Linux's smaps)."""
    with open("/proc/self/smaps", encoding="ascii", errors="replace") as f:
        inside = False
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
                size = hi - lo
            elif inside and head == "Rss:":
                return size, int(line.split()[1]) * 1024
    raise AssertionError("no mapping holds the arrays")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_resident_memory_follows_the_ids_not_the_reservation():
    sizes = {}
    for n in (100_000, 400_000):
        g = SceneGraph()
        g.add_many(None, np.arange(-1, n - 1), positions=np.ones((n, 3)))
        g.update()
        held = reserved_or_skip(g)
        size, rss = _rss_of_mapping(store(g).pos.ctypes.data)
        assert size >= held.rows * ROW_BYTES  # the whole reservation is one mapping
        # Written: values, world matrices, links, layout, flags (no local matrix read);
        # at most each array's part rounded up to a huge page more.
        assert 250 * n <= rss <= ROW_BYTES * n + len(arrays.FIELDS) * 2**21
        assert rss < size / 10
        sizes[n] = rss
        del g, held
    assert 3.0 < sizes[400_000] / sizes[100_000] < 5.0


def test_tracemalloc_counts_the_reserved_arrays_as_numpy_arrays():
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        g = SceneGraph(capacity=reserve.SMALL_ROWS + 1)
        reserved_or_skip(g)
        cap = store(g).cap
        counted = tracemalloc.get_traced_memory()[0] - base
        assert ROW_BYTES * cap <= counted < ROW_BYTES * cap + 2**20
        g.add_many(None, np.full(2 * cap, -1))  # widened: counted at the new capacity
        counted = tracemalloc.get_traced_memory()[0] - base
        assert ROW_BYTES * store(g).cap <= counted
        del g
        gc.collect()
        assert tracemalloc.get_traced_memory()[0] - base < 2**20  # unmapped, uncounted
    finally:
        tracemalloc.stop()


def test_the_name_index_behaves_as_a_dict_of_the_live_names():
    rng = random.Random(5)
    index, oracle = NameIndex(), {}
    next_id = 0
    for _ in range(20_000):
        op = rng.random()
        if op < 0.6 or not oracle:
            name = f"n{rng.randrange(5000)}"
            if name not in oracle:
                index[name] = oracle[name] = next_id
                next_id += 1
        elif op < 0.8:
            name = rng.choice(list(oracle))
            del index[name], oracle[name]
        else:
            name = f"n{rng.randrange(5000)}"
            assert (name in index) == (name in oracle)
            assert index.get(name) == oracle.get(name)
    assert len(index) == len(oracle)
    assert list(index) == sorted(oracle, key=oracle.__getitem__)  # id order
    assert all(index[name] == i for name, i in oracle.items())
    assert index.isdisjoint(["x", "y"]) and not index.isdisjoint(["x", next(iter(oracle))])
    built = NameIndex(list(oracle), list(oracle.values()))
    assert list(built) == list(index)
    with pytest.raises(TypeError):
        index.isdisjoint([["unhashable"]])
