"""A program faster than the viewer's redraws: one `advance` takes every frame that came
since the last redraw, applies each to the mirror and logs each under its own number, and
hands on one frame, the newest, its report folded over the frames it stands for (as the
publisher merges: recomputed in any, the latest cause, counters summed), the count folded
in the panel's row, while the overlay's timeline keeps each frame under its own number
with its own counters and log; a step while paused shows one frame alone. And
``link.close()`` right after the last ``update()`` sends what is queued first. No window;
loopback only."""

from __future__ import annotations

import io
import time

import numpy as np
from attach_helpers import assert_mirrors, scripted_step, tree10

import viewer
from viewer.attach.program_source import ProgramSource, fold
from viewer.attach.server import Listener
from viewer.content.scene import Scene
from viewer.frames.runner import swap
from viewer.overlay.overlay import Overlay
from viewer.overlay.stats import Timings
from viewer.overlay.timeline_records import FrameRecords
from viewer.scene.graph import SceneGraph

FRAMES = 10  # scripted_step's touches and moves, then its structural edits


def _wait(check, seconds: float = 20.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def _listening(**source):
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    out = io.StringIO()
    waiting = Scene(SceneGraph(), title="waiting")
    source = ProgramSource(waiting, listener=listener, out=out, **source)
    return listener, f"{host}:{port}", source, out


def _expected_fold(graph, reports):
    """What the folded report says, by name, from the program's own reports: each node
    recomputed in any frame (alive at the end) in the end's pre-order, its latest cause."""
    alive = [graph.name_of(i) for i in graph.alive_ids().tolist()]
    local, world, cause = set(), set(), {}
    for report in reports:
        local |= {report.name(i) for i in report.local_updated.tolist()}
        world |= {report.name(i) for i in report.world_updated.tolist()}
        for i, c in zip(report.world_updated.tolist(), report.cause.tolist(), strict=True):
            cause[report.name(i)] = report.name(c)
    causes = {n: (cause[n] if cause[n] in alive else n) for n in alive if n in world}
    return [n for n in alive if n in local], [n for n in alive if n in world], causes


def test_one_advance_shows_every_frame_that_came_folded_and_logs_each():
    listener, address, source, out = _listening(log=True)
    graph = tree10()
    link = viewer.publish(graph, address, name="fast")
    try:
        assert link.wait_connected(10)
        graph.touch("Obj1")
        snapshot = graph.update()  # the snapshot frame: shown by the first redraw
        _wait(lambda: listener.programs and listener.programs[0].pending())
        assert swap(source, lambda scene: None) is not None
        first = source.advance(1 / 60)
        assert first.number == snapshot.frame
        log, reports = out.getvalue(), []
        for k in range(FRAMES):  # faster than the redraws: all wait for the next one
            scripted_step(graph, k)
            report = graph.update()
            reports.append(report)
            lines = report.log_lines()
            log += f"# frame {report.frame}\n" + "".join(f"{x}\n" for x in lines) if lines else ""
        assert link.flush(10)
        program = listener.programs[0]
        _wait(lambda: program.frames_received == 1 + FRAMES)
        frame = source.advance(1 / 60)
        assert frame is not None and frame.number == graph.frame  # the newest
        assert program.pending() == 0 and source.advance(1 / 60) is None
        assert out.getvalue() == log  # every frame logged, in order
        assert_mirrors(source.graph, graph)  # every frame applied
        shown = frame.report
        names = source.graph.name_of
        local, world, causes = _expected_fold(graph, reports)
        assert [names(i) for i in shown.local_updated.tolist()] == local
        assert [names(i) for i in shown.world_updated.tolist()] == world
        pairs = zip(shown.world_updated.tolist(), shown.cause.tolist(), strict=True)
        assert {names(i): names(c) for i, c in pairs} == causes
        assert shown.products == sum(r.products for r in reports)
        assert shown.naive_products == sum(r.naive_products for r in reports)
        assert shown.structure_changed  # FRAMES covers the structural edits
        assert np.array_equal(shown.executed, shown.world_updated)
        counts = source.programs.program_rows()[0][0].split("\n")[1].strip()
        assert counts == f"{1 + FRAMES} frames, 0 merged, {FRAMES - 1} folded"
    finally:
        link.close()
        listener.close()


def test_a_step_while_paused_shows_one_frame():
    listener, address, source, _ = _listening(log=False)
    graph = tree10()
    link = viewer.publish(graph, address, name="stepped")
    try:
        assert link.wait_connected(10)
        graph.update()
        _wait(lambda: listener.programs and listener.programs[0].pending())
        swap(source, lambda scene: None)
        source.advance(1 / 60)
        source.toggle_pause()
        frames = []
        for _ in range(3):
            graph.touch("Obj2")
            frames.append(graph.update().frame)
        assert link.flush(10)
        program = listener.programs[0]
        _wait(lambda: program.pending() == 3)
        assert source.advance(1 / 60) is None  # paused: the frames wait
        source.request_step()
        assert source.advance(1 / 60).number == frames[0] and program.pending() == 2
        assert source.frame == frames[0]  # the frame line says the program's own number
        source.toggle_pause()
        assert source.advance(1 / 60).number == frames[2] and program.pending() == 0
        assert source.frame == frames[2]  # the newest of those folded, as the counters say
    finally:
        link.close()
        listener.close()


def test_fold_keeps_the_latest_cause_and_drops_removed_nodes():
    graph = SceneGraph()
    graph.add("A")
    graph.add("B", "A")
    graph.add("C", "B")
    graph.add("D", "A")
    graph.update()
    graph.touch("C")
    first = graph.update()
    graph.touch("B")
    second = graph.update()
    graph.touch("D")
    graph.remove("D")
    graph.touch("A")
    third = graph.update()
    folded = fold([first, second, third], graph)
    name = graph.name_of
    assert [name(i) for i in folded.world_updated.tolist()] == ["A", "B", "C"]
    assert [name(i) for i in folded.cause.tolist()] == ["A", "A", "A"]
    assert folded.frame == third.frame and folded.structure_changed
    assert folded.suppressed == first.suppressed + second.suppressed + third.suppressed
    assert folded.starts.tolist() == [0] and folded.ends.tolist() == [3]
    graph.touch("C")
    fourth = graph.update()
    graph.touch("B")
    fifth = graph.update()
    both = fold([fourth, fifth], graph)  # no structural change: the frames' own ranges
    assert not both.structure_changed
    assert [name(i) for i in both.world_updated.tolist()] == ["B", "C"]
    assert [name(i) for i in both.cause.tolist()] == ["B", "B"]
    assert both.starts.tolist() == [1] and both.ends.tolist() == [3]


def test_close_sends_what_is_queued_first():
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    graph = tree10()
    link = viewer.publish(graph, f"{host}:{port}", name="quick")
    try:
        assert link.wait_connected(10)
        numbers = []
        for _ in range(3):
            graph.touch("Obj5")
            numbers.append(graph.update().frame)
        link.close()
        assert listener.wait_program(10)
        program = listener.programs[0]
        _wait(lambda: not program.connected)
        taken = []
        while (frame := program.take()) is not None:
            taken.append(frame.frame)
        assert taken == numbers and program.frames_received == 3
    finally:
        link.close()
        listener.close()


def _bare_overlay(source: ProgramSource) -> Overlay:
    """An overlay with its timeline and nothing drawn: what `frame_done` and
    `shown_entry` need (no window, no GL)."""
    overlay = Overlay.__new__(Overlay)
    overlay.host = source
    overlay.timeline = FrameRecords()
    overlay.timings = Timings()
    overlay.pinned = None
    overlay._events = []
    overlay._live = None
    return overlay


def test_the_timeline_keeps_each_frame_received_with_its_own_counters_and_log():
    listener, address, source, _ = _listening(log=False)
    graph = tree10()
    link = viewer.publish(graph, address, name="timeline")
    overlay = _bare_overlay(source)

    def redraw():
        frame = source.advance(1 / 60)
        assert frame is not None
        overlay.frame_done(
            frame.number,
            frame.report,
            frame.dt,
            frame.update_ms,
            0.5,
            1234,
            frame.events,
            weights=frame.weights,
            received=frame.received,
        )
        return frame

    try:
        assert link.wait_connected(10)
        graph.touch("Obj1")
        graph.update()
        _wait(lambda: listener.programs and listener.programs[0].pending())
        swap(source, lambda scene: None)
        first = redraw()
        assert first.received == ()  # one frame: nothing folded
        assert [e.frame for e in overlay.timeline] == [first.number]
        reports = []
        for k in range(5):  # five frames between two redraws
            scripted_step(graph, k)
            reports.append(graph.update())
        assert link.flush(10)
        program = listener.programs[0]
        _wait(lambda: program.pending() == 5)
        frame = redraw()
        assert [r.frame for r in frame.received] == [r.frame for r in reports]
        numbers = [e.frame for e in overlay.timeline]
        assert numbers == [first.number, *(r.frame for r in reports)]
        for mine, theirs in zip(frame.received, reports, strict=True):
            entry = overlay.timeline.find(theirs.frame)
            assert entry is not None and entry.report is mine  # its own report, not the fold
            assert entry.stats.world == theirs.world_updated.size
            assert entry.stats.local == theirs.local_updated.size
            assert entry.stats.products == theirs.products
            lines = theirs.log_lines()
            assert overlay.timeline.own_block(theirs.frame)[1:] == (
                lines or [overlay.timeline.why_quiet(theirs.frame)]
            )
        # Totals count each frame once; the live view shows the fold, as drawn.
        assert overlay.timeline.totals.products == first.report.products + sum(
            r.products for r in reports
        )
        assert overlay.timeline.last.stats.bytes_uploaded == 1234
        assert overlay.shown_entry.frame == reports[-1].frame
        assert overlay.shown_entry.report is frame.report
        assert frame.report.world_updated.size > reports[-1].world_updated.size
    finally:
        link.close()
        listener.close()
