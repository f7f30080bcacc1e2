"""`viewer.publish` end to end over a real socket, on random operation sequences: what the
listening viewer receives (frames merged or not, as the publisher's small queue decides)
rebuilds the program's graph exactly, and accounts for every update and every node the
program's own reports recomputed. The program's graph and reports are the oracle."""

from __future__ import annotations

import io
import time

import numpy as np
from attach_helpers import assert_mirrors, random_edit, random_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import viewer
from viewer.attach.mirror import Mirror
from viewer.attach.protocol import ProgramLimits
from viewer.attach.server import Listener
from viewer.scene.graph import SceneGraph


def _drain(program, mirror: Mirror, received: list) -> None:
    while (frame := program.take()) is not None:
        received.append(frame)
        mirror.apply(frame)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_received_frames_rebuild_the_program_over_random_edits(data):
    graph = random_graph(data)
    graph.update()
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    # A queue of one or two frames: updates in a tight loop outrun the sender, so some
    # frames are merged on the program's side, as when a viewer falls behind.
    queue = data.draw(st.integers(1, 2), label="queue frames")
    link = viewer.publish(graph, f"{host}:{port}", name="random", queue_frames=queue)
    try:
        assert link.wait_connected(10) and listener.wait_program(10)
        program, mirror, received, serial = listener.programs[0], Mirror("random"), [], [0]
        recomputed, updates = set(), 0
        for _ in range(data.draw(st.integers(1, 10), label="frames")):
            for _ in range(data.draw(st.integers(0, 4), label="edits")):
                random_edit(graph, data, serial)
            report = graph.update()
            updates += 1
            recomputed.update(report.world_updated.tolist())
            if data.draw(st.booleans(), label="viewer reads now"):
                _drain(program, mirror, received)
        # The viewer reads while the program flushes, as a listening viewer does (a
        # listener that reads nothing can fill its bounded inbox before the flush ends).
        end = time.monotonic() + 30
        while not (flushed := link.flush(0.05)) and time.monotonic() < end:
            _drain(program, mirror, received)
        assert flushed
        end = time.monotonic() + 30
        while sum(f.merged for f in received) < updates and time.monotonic() < end:
            _drain(program, mirror, received)
            time.sleep(0.005)
        assert sum(f.merged for f in received) == updates
        assert received[-1].frame == graph.frame
        assert_mirrors(mirror.graph, graph)
        got = set(np.concatenate([f.world_updated for f in received]).tolist())
        alive = set(graph.alive_ids().tolist())
        assert got <= recomputed  # nothing is shown recomputed that the program did not
        # A node removed before its merged frame left is dropped from it; every other
        # node the program recomputed is shown recomputed.
        assert recomputed & alive <= got
    finally:
        link.close()
        listener.close()


def test_a_viewer_that_stops_reading_costs_at_most_the_queue_bound():
    """The listener takes nothing until the end (its inbox bounded at 1 MiB): the
    program outruns the sending thread and the viewer's buffers fill, then the
    publisher's queue; its bytes never pass ``queue_bytes``, the rest is merged, and once
    the viewer reads again everything arrives and rebuilds the program."""
    graph = SceneGraph()
    graph.add_many(None, np.arange(-1, 399))  # a chain of 400 nodes
    graph.update()
    listener = Listener("127.0.0.1", 0, err=io.StringIO(), limits=ProgramLimits(1000, 512 * 1024))
    host, port = listener.start()
    bound = 256 * 1024
    link = viewer.publish(graph, f"{host}:{port}", name="stalled", queue_bytes=bound)
    rng = np.random.default_rng(5)
    try:
        assert link.wait_connected(10) and listener.wait_program(10)
        held, updates = [], 0
        while link.frames_sent < 20 or len(held) < 400:  # past the sockets' buffers
            ids = np.sort(rng.choice(400, 50, replace=False))
            graph.set_locals(ids, positions=rng.normal(size=(50, 3)))
            graph.update()
            updates += 1
            held.append(link.queued_bytes)
            assert updates < 20_000, "the queue never filled"
        assert max(held) <= bound and max(held) > bound // 2
        program, mirror, received = listener.programs[0], Mirror("stalled"), []
        end = time.monotonic() + 30
        while not link.flush(0.05) and time.monotonic() < end:
            _drain(program, mirror, received)
        while sum(f.merged for f in received) < updates and time.monotonic() < end:
            _drain(program, mirror, received)
            time.sleep(0.005)
        assert sum(f.merged for f in received) == updates
        assert max(f.merged for f in received) > 1
        assert_mirrors(mirror.graph, graph)
    finally:
        link.close()
        listener.close()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_held_reasons_reach_the_viewer_over_random_edits_merges_and_removals(data):
    graph = random_graph(data)
    graph.update()
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    queue = data.draw(st.integers(1, 2), label="queue frames")
    link = viewer.publish(graph, f"{host}:{port}", name="held", queue_frames=queue)
    reasons = st.sampled_from(["frozen", "ik", "constraint", "", "my solver 🫨"])
    try:
        assert link.wait_connected(10) and listener.wait_program(10)
        program, mirror, received, serial = listener.programs[0], Mirror("held"), [], [0]
        expected: dict[int, str] = {}  # the oracle: each alive node's reason, by the API
        for _ in range(data.draw(st.integers(1, 8), label="frames")):
            for _ in range(data.draw(st.integers(0, 3), label="edits")):
                random_edit(graph, data, serial)
            for _ in range(data.draw(st.integers(0, 4), label="holds")):
                alive = graph.alive_ids().tolist()
                if not alive:
                    break
                node = data.draw(st.sampled_from(alive), label="node")
                reason = data.draw(reasons, label="reason")
                link.hold(node, reason)
                expected[node] = reason
            report = graph.update()
            if report.structure_changed:  # a removed node's reason goes with it
                alive = set(graph.alive_ids().tolist())
                expected = {i: r for i, r in expected.items() if i in alive}
            if data.draw(st.booleans(), label="viewer reads now"):
                _drain(program, mirror, received)
        end = time.monotonic() + 30
        while not (flushed := link.flush(0.05)) and time.monotonic() < end:
            _drain(program, mirror, received)
        assert flushed
        end = time.monotonic() + 30
        while (not received or received[-1].frame < graph.frame) and time.monotonic() < end:
            _drain(program, mirror, received)
            time.sleep(0.005)
        _drain(program, mirror, received)
        assert received[-1].frame == graph.frame
        alive = graph.alive_ids()
        for node, mirrored in zip(alive.tolist(), mirror.ids(alive).tolist(), strict=True):
            assert mirror.given_reason(mirrored) == (expected.get(node) or None), node
    finally:
        link.close()
        listener.close()


def test_a_reason_a_viewer_would_refuse_is_refused_by_hold():
    graph = SceneGraph()
    graph.add("A")
    link = viewer.publish(graph, "127.0.0.1:9", name="refuse")
    try:
        for bad in ("x" * 65, "two\nlines", "bidi \u202e", "bell \x07"):
            try:
                link.hold(0, bad)
            except ValueError as exc:
                assert "one printable line" in str(exc)
            else:
                raise AssertionError(f"hold accepted {bad!r}")
    finally:
        link.close(0)
