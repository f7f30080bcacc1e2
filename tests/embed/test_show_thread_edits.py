"""A thread that edits the graph while a headless `show()` runs (issue 36).

Random edit sequences (positions, Euler angles, scales of random nodes) are applied from
a second thread for the whole run. Every frame is still drawn, the render thread sees the
edits while it runs, every edit lands (each node ends with the last values the thread set,
and its world matrix is the product of its ancestors' locals, computed here), and the
memory the run keeps does not grow with the number of edits. Time is not asserted: a
thread that never waits holds the interpreter lock for up to the switch interval (5 ms)
each time the render thread releases it, so the run's length depends on the machine.
"""

from __future__ import annotations

import threading
import time
import tracemalloc

import numpy as np
import pytest
from oracle import local_matrix, rotation_from_euler

import viewer
from viewer.scene import SceneGraph

NODES = 300
EDITED = 30  # the nodes the thread edits (in a chain: each edit moves all below it)
FRAMES = 30
CHANNELS = ("position", "euler", "scale")


def chain() -> SceneGraph:
    g = SceneGraph()
    g.add_many([f"n{i}" for i in range(NODES)], np.arange(-1, NODES - 1))
    return g


class Editor:
    """Applies a random edit sequence to `graph` from its own thread until stopped;
    keeps the last values it set per node and channel (bounded: not one entry per edit)."""

    def __init__(self, graph: SceneGraph, seed: int) -> None:
        self.nodes = list(graph)[:EDITED]
        self.rng = np.random.default_rng(seed)
        self.last: dict[tuple[int, str], tuple[float, ...]] = {}
        self.count = 0
        self.first_position_edits = 0  # edits of node 0's position so far (frames read it)
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            while not self.stop.is_set():
                for _ in range(20):
                    k = int(self.rng.integers(EDITED))
                    channel = CHANNELS[int(self.rng.integers(3))]
                    if channel == "scale":
                        value = tuple(self.rng.uniform(0.5, 2.0, 3).tolist())
                    elif channel == "euler":
                        value = tuple(self.rng.uniform(-90, 90, 3).tolist())
                    else:
                        value = tuple(self.rng.uniform(-1, 1, 3).tolist())
                    setattr(self.nodes[k], f"local_{channel}", value)
                    self.last[(k, channel)] = value
                    self.count += 1
                    self.first_position_edits += k == 0 and channel == "position"
                time.sleep(0.0005)  # a program editing in a loop, not spinning
        except BaseException as exc:  # reported by the test
            self.error = exc


def run_show(graph: SceneGraph, editor: Editor | None) -> tuple[object, list, int, int]:
    """(show's result, (node 0's position, edits of it made so far) seen by each frame,
    current and peak traced bytes of the run)."""
    seen: list[tuple[tuple[float, ...], int]] = []

    def on_frame(g, frame, t):
        edits = 0 if editor is None else editor.first_position_edits
        seen.append((tuple(g["n0"].local_position.tolist()), edits))

    tracemalloc.start()
    try:
        if editor is not None:
            editor.thread.start()
        result = viewer.show(graph, headless=True, frames=FRAMES, size=(160, 120),
                             on_frame=on_frame)  # fmt: skip
    finally:
        if editor is not None:
            editor.stop.set()
            editor.thread.join(10)
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return result, seen, current, peak


def oracle_worlds(graph: SceneGraph) -> np.ndarray:
    """Each node's world matrix, the product of its ancestors' local TRS matrices."""
    worlds = []
    parent_world = np.eye(4)
    for node in graph:  # a chain, in order: each node's parent comes just before it
        local = local_matrix(node.local_position, node.local_rotation, node.local_scale)
        parent_world = parent_world @ local
        worlds.append(parent_world)
    return np.array(worlds)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_thread_editing_during_show(egl, seed):
    alone, _seen, current_alone, peak_alone = run_show(chain(), None)
    graph = chain()
    editor = Editor(graph, seed)
    result, seen, current, peak = run_show(graph, editor)

    assert editor.error is None, editor.error
    assert not editor.thread.is_alive()
    assert alone.frames == result.frames == FRAMES
    assert editor.count > 0
    if len({edits for _, edits in seen}) > 1:  # node 0 moved between two frames' reads
        assert len({p for p, _ in seen}) > 1, "the frames never saw the thread's edits"
    # every edit landed: each edited node holds the last values the thread set ...
    for (k, channel), value in editor.last.items():
        got = getattr(editor.nodes[k], f"local_{channel}")
        if channel == "euler":  # read back through the quaternion: compare rotations
            np.testing.assert_allclose(rotation_from_euler(got), rotation_from_euler(value),
                                       atol=1e-9)  # fmt: skip
        else:
            np.testing.assert_allclose(got, value, rtol=0, atol=0)
    # ... and, after one more update, every world matrix follows from the locals
    graph.update()
    worlds = np.array([node.world_matrix for node in graph])
    np.testing.assert_allclose(worlds, oracle_worlds(graph), atol=1e-9)
    # memory: nothing kept per edit (thousands of them), and no more at the peak than a
    # run without the thread, give or take the frames' own allocations
    assert current - current_alone < 2 * 2**20, (current, current_alone, editor.count)
    assert peak < 2 * peak_alone + 4 * 2**20, (peak, peak_alone, editor.count)
