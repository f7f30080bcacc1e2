"""Stale worlds: a program's world matrix that differs from its parent's world · its local
matrix is shown as the program holds it and flagged. Random hierarchies are sent by hand
through the wire format, a random subset of the worlds made stale; the oracle is the
test's own composition of the values (its own quaternion formula and products)."""

from __future__ import annotations

import json
import time

import numpy as np
from attach_helpers import wire
from hypothesis import given, settings
from hypothesis import strategies as st
from listening_window import listening_window
from needs import need_gl
from PIL import Image
from test_attach_listen import finish, start_viewer
from websockets.sync.client import connect

from viewer.attach.mirror import NODE_LOOK, STALE_COLOR, STALE_LOOK, Mirror
from viewer.attach.program_source import ProgramSource
from viewer.attach.protocol import (
    ProgramFrame,
    Structure,
    decode_welcome,
    encode_frame,
    encode_hello,
    encode_structure,
)
from viewer.content.scene import Scene
from viewer.overlay.model import Flags
from viewer.overlay.stats import COUNTER_TIPS, FrameStats, counter_rows

EMPTY = np.zeros(0, dtype=np.int64)


def _matrix(row: np.ndarray) -> np.ndarray:
    """T · R · S of one value row (position, unit quaternion x y z w, scale)."""
    (x, y, z, w), s = row[3:7], row[7:]
    rot = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    m = np.eye(4)
    m[:3, :3] = rot * s
    m[:3, 3] = row[:3]
    return m


class Program:
    """A program's hierarchy with its own values and the world matrices it holds."""

    def __init__(self, data) -> None:
        n = data.draw(st.integers(1, 14), label="nodes")
        parent_of = [data.draw(st.integers(-1, k - 1), label="parent") for k in range(n)]
        children: dict[int, list[int]] = {k: [] for k in range(-1, n)}
        for k, p in enumerate(parent_of):
            children[p].append(k)
        order: list[int] = []
        stack = list(reversed(children[-1]))
        while stack:  # pre-order, as the protocol lists nodes
            k = stack.pop()
            order.append(k)
            stack.extend(reversed(children[k]))
        self.n, self.order, self.parent_of = n, order, parent_of
        self.ids = np.array([1000 + 7 * k for k in range(n)], dtype=np.int64)
        self.names = [f"N{k}" for k in range(n)]
        self.values = np.array([self._row(data, k) for k in range(n)])
        self.worlds = np.zeros((n, 4, 4))

    @staticmethod
    def _row(data, k: int) -> list[float]:
        q = np.array([data.draw(st.floats(-1, 1), label="q") for _ in range(3)] + [1.0])
        q /= np.linalg.norm(q)
        scale = data.draw(st.floats(0.5, 2.0), label="scale")
        return [0.3 * k, 1.0, -0.2 * k, *q, scale, scale, 1.5]

    def composed(self, k: int) -> np.ndarray:
        """Parent world (as held) · local: the world an up-to-date program holds."""
        p = self.parent_of[k]
        local = _matrix(self.values[k])
        return local if p < 0 else self.worlds[p] @ local

    def structure(self) -> Structure:
        parents = [-1 if self.parent_of[k] < 0 else int(self.ids[self.parent_of[k]])
                   for k in self.order]  # fmt: skip
        return Structure(self.ids[self.order], np.array(parents, dtype=np.int64),
                         [self.names[k] for k in self.order])  # fmt: skip

    def frame(self, number: int, values: list[int], worlds: list[int]) -> ProgramFrame:
        """A frame sending the value rows of ``values`` and the held worlds of ``worlds``
        (the program's indices, sent in pre-order)."""
        rank = {k: r for r, k in enumerate(self.order)}
        values, worlds = sorted(values, key=rank.get), sorted(worlds, key=rank.get)
        world_ids = self.ids[worlds] if worlds else EMPTY
        return ProgramFrame(
            frame=number,
            merged=1,
            local_updated=self.ids[values] if values else EMPTY,
            world_updated=world_ids,
            cause=world_ids,
            value_ids=self.ids[values] if values else EMPTY,
            values=self.values[values].reshape(-1, 10),
            world_ids=world_ids,
            worlds=self.worlds[worlds].reshape(-1, 4, 4),
            structure_changed=number == 1,
            structure=self.structure() if number == 1 else None,
        )

    def stale(self) -> set[str]:
        """The oracle: the nodes whose held world is far from parent world · local."""
        return {self.names[k] for k in range(self.n)
                if np.abs(self.worlds[k] - self.composed(k)).max() > 1e-3}  # fmt: skip


def _shown(mirror: Mirror, report, program: Program) -> None:
    """The mirror's stale nodes, log and worlds against the program's."""
    graph = mirror.graph
    names = [graph.name_of(i) for i in report.stale.tolist()]
    assert set(names) == program.stale()
    assert names == [program.names[k] for k in program.order if program.names[k] in names]
    assert mirror.stale_count == len(names)
    flagged = {line[len("!Stale World : ") : -1] for line in report.log_lines() if "Stale" in line}
    assert flagged == {graph.name_of(i) for i in report.flagged.tolist()} <= set(names)
    world = graph.world_matrices()
    for k in range(program.n):  # the program's matrices, bit for bit
        assert (world[graph.node(program.names[k]).id] == program.worlds[k]).all()
    for i in report.stale.tolist():
        off, composed = mirror.staleness(i)
        k = program.names.index(graph.name_of(i))
        np.testing.assert_allclose(composed, program.composed(k), rtol=0, atol=1e-12)
        assert off == np.abs(program.worlds[k] - composed).max()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_exactly_the_stale_worlds_are_flagged_and_shown_as_sent(data):
    program = Program(data)
    stale = data.draw(st.sets(st.integers(0, program.n - 1)), label="stale at first")
    for k in program.order:  # the snapshot: parent · local, some worlds set by hand
        program.worlds[k] = program.composed(k)
        if k in stale:
            program.worlds[k, :3, 3] += data.draw(st.floats(0.01, 5.0), label="off by")
    mirror, known = Mirror("program"), EMPTY
    every = list(range(program.n))
    decoded, known = wire(program.frame(1, every, every), known, 0)
    report = mirror.apply(decoded)
    assert {mirror.graph.name_of(i) for i in report.flagged.tolist()} == {
        program.names[k] for k in stale
    }
    _shown(mirror, report, program)
    # Frame 2: some nodes move, the program updates its worlds in pre-order but forgets
    # some (they keep their world, unsent); a node that was stale may be brought current.
    moved = data.draw(st.sets(st.integers(0, program.n - 1)), label="moved")
    forgotten = data.draw(st.sets(st.integers(0, program.n - 1)), label="forgotten")
    for k in moved:
        program.values[k, 0] += data.draw(st.sampled_from([-1.5, -0.5, 0.5, 2.0]), label="by")
    before = program.worlds.copy()
    for k in program.order:
        if k not in forgotten:
            program.worlds[k] = program.composed(k)
    changed = [k for k in every if (program.worlds[k] != before[k]).any()]
    decoded, known = wire(program.frame(2, sorted(moved), changed), known, 1)
    _shown(mirror, mirror.apply(decoded), program)


def test_a_stale_node_is_named_in_the_log_and_its_children_follow_its_held_world():
    program = Program.__new__(Program)
    program.n, program.order, program.parent_of = 3, [0, 1, 2], [-1, 0, 1]
    program.ids = np.array([4, 9, 2], dtype=np.int64)
    program.names = ["Arm", "Hand", "Finger"]
    program.values = np.array([[1.0, 0, 0, 0, 0, 0, 1, 1, 1, 1]] * 3)
    program.worlds = np.zeros((3, 4, 4))
    for k in program.order:
        program.worlds[k] = program.composed(k)
    mirror, known = Mirror("arm"), EMPTY
    decoded, known = wire(program.frame(1, [0, 1, 2], [0, 1, 2]), known, 0)
    assert "Stale" not in "".join(mirror.apply(decoded).log_lines())
    program.values[0, 0] = 3.0  # Arm moves and is recomputed; Hand is forgotten
    program.worlds[0] = program.composed(0)
    decoded, known = wire(program.frame(2, [0], [0]), known, 1)
    report = mirror.apply(decoded)
    assert report.log_lines() == ["*Update Local : Arm*", "=Update World : Arm=",
                                  "!Stale World : Hand!"]  # fmt: skip
    world = mirror.graph.world_matrices()
    hand, finger = mirror.graph.node("Hand").id, mirror.graph.node("Finger").id
    assert world[hand][0, 3] == 2.0 and world[finger][0, 3] == 3.0  # as the program has them
    assert mirror.staleness(hand)[0] == 2.0 and mirror.staleness(finger) is None
    # Finger's local moves, the program recomputes it from Hand's world as held: not stale.
    program.values[2, 0] = 0.5
    program.worlds[2] = program.composed(2)
    decoded, known = wire(program.frame(3, [2], [2]), known, 2)
    report = mirror.apply(decoded)
    assert [mirror.graph.name_of(i) for i in report.stale.tolist()] == ["Hand"]
    assert report.flagged.size == 0  # Hand was not touched by this frame: not logged again
    assert mirror.graph.world_matrices()[finger][0, 3] == 2.5


def _arm_program() -> tuple[Program, Mirror, np.ndarray]:
    """Arm > Hand > Finger, sent current (frame 1), then Arm moved and Hand forgotten
    (stale) in the program, not yet sent."""
    program = Program.__new__(Program)
    program.n, program.order, program.parent_of = 3, [0, 1, 2], [-1, 0, 1]
    program.ids = np.array([4, 9, 2], dtype=np.int64)
    program.names = ["Arm", "Hand", "Finger"]
    program.values = np.array([[1.0, 0, 0, 0, 0, 0, 1, 1, 1, 1]] * 3)
    program.worlds = np.zeros((3, 4, 4))
    for k in program.order:
        program.worlds[k] = program.composed(k)
    mirror, known = Mirror("arm"), EMPTY
    decoded, known = wire(program.frame(1, [0, 1, 2], [0, 1, 2]), known, 0)
    mirror.apply(decoded)
    program.values[0, 0] = 3.0
    program.worlds[0] = program.composed(0)
    return program, mirror, known


def test_where_a_stale_node_shows_colour_counters_tree_and_inspector():
    program, mirror, known = _arm_program()
    assert mirror.repaint() == {}  # all current: nothing to redraw
    decoded, known = wire(program.frame(2, [0], [0]), known, 1)
    report = mirror.apply(decoded)
    hand = mirror.graph.node("Hand").id
    assert mirror.repaint() == {hand: STALE_COLOR}  # the view: Hand in the stale colour
    assert mirror.repaint() == {}  # said once
    assert mirror.scene.looks[hand] == STALE_LOOK  # and so drawn by a renderer built anew
    stats = FrameStats.of_report(2, report)
    assert stats.stale == 1 and ("stale", "1") in counter_rows(stats)
    assert "stale" in COUNTER_TIPS
    assert all(label != "stale" for label, _ in counter_rows(FrameStats(frame=1)))
    flags = Flags.of_report(report, mirror.graph.capacity_ids)
    assert flags.is_stale(hand) and not flags.is_stale(mirror.graph.node("Arm").id)
    source = ProgramSource(Scene(mirror.graph), listener=None)  # the inspector's rows
    source.mirrors[program] = mirror
    source.shown = program
    rows = dict(source.file_rows(hand))
    assert rows["stale"] == "world differs from parent x local by 2"
    assert rows["parent x local 0"] == "1  0  0  4"  # Arm at 3, Hand 1 along x
    assert source.file_rows(mirror.graph.node("Finger").id) == ()
    # The program brings Hand current: its own colour again, nothing stale.
    program.worlds[1] = program.composed(1)
    program.worlds[2] = program.composed(2)
    report = mirror.apply(wire(program.frame(3, [], [1, 2]), known, 2)[0])
    assert report.stale.size == 0 and report.flagged.size == 0
    assert mirror.repaint() == {hand: NODE_LOOK.color}
    assert mirror.scene.looks[hand] == NODE_LOOK
    assert FrameStats.of_report(3, report).stale == 0


def test_listen_draws_dumps_and_logs_a_stale_world_as_sent(tmp_path):
    """End to end, through a socket: `sgview listen --headless` dumps the program's
    worlds bit for bit, names the stale node in --log, and draws it in the stale colour."""
    need_gl().release()
    dump, shot = tmp_path / "world.json", tmp_path / "shot.png"
    proc, address = start_viewer("127.0.0.1:0", "--frames", "2", "--log", "--dump-world",
                                 str(dump), "--screenshot", str(shot))  # fmt: skip
    program, _, _ = _arm_program()  # Arm moved to x = 3 in the program, Hand left behind
    program.values[0, 0] = 1.0
    for k in program.order:
        program.worlds[k] = program.composed(k)
    first = program.frame(1, [0, 1, 2], [0, 1, 2])
    first.world_updated = first.cause = first.local_updated = EMPTY  # nothing glows
    program.values[0, 0] = 3.0
    program.worlds[0] = program.composed(0)
    with connect(f"ws://{address}", open_timeout=10) as ws:
        ws.send(encode_hello("stale program", ""))
        decode_welcome(ws.recv(timeout=10))
        ws.send(encode_structure(first.structure))
        ws.send(encode_frame(first))
        ws.send(encode_frame(program.frame(2, [0], [0])))
        out, _ = finish(proc)
    assert out == "# frame 2\n*Update Local : Arm*\n=Update World : Arm=\n!Stale World : Hand!\n"
    worlds = json.loads(dump.read_text())
    for k, name in enumerate(program.names):
        assert np.array(worlds[name]).tolist() == program.worlds[k].tolist(), name
    rgb = np.asarray(Image.open(shot).convert("RGB"), dtype=np.float64) / 255
    magenta = (rgb[..., 0] > 0.45) & (rgb[..., 2] > 0.35) & (rgb[..., 1] < 0.6 * rgb[..., 2])
    assert magenta.sum() > 20  # Hand's cube, lit, in the stale colour


def test_the_tree_the_counters_and_the_inspector_of_a_window_show_a_stale_node():
    """The window's panels, drawn: the tree marks Hand stale, the counters count it, the
    inspector gives parent x local beside the program's world."""
    with listening_window((800, 400)) as (app, source, address):
        program, _, _ = _arm_program()
        with connect(f"ws://{address}", open_timeout=10) as ws:
            ws.send(encode_hello("stale program", ""))
            decode_welcome(ws.recv(timeout=10))
            program.values[0, 0] = 1.0
            for k in program.order:
                program.worlds[k] = program.composed(k)
            first = program.frame(1, [0, 1, 2], [0, 1, 2])
            ws.send(encode_structure(first.structure))
            ws.send(encode_frame(first))
            program.values[0, 0] = 3.0
            program.worlds[0] = program.composed(0)
            ws.send(encode_frame(program.frame(2, [0], [0])))
            end = time.monotonic() + 30
            while source.last_report is None or source.last_report.frame < 2:
                assert time.monotonic() < end, "timed out"
                app.on_render(0.0, 1.0 / 60.0)
            hand = source.graph.node("Hand").id
            source.select(hand)
            for _ in range(2):
                app.on_render(0.0, 1.0 / 60.0)
        tree = app.overlay.panel.scene.tree
        assert tree.stale_drawn == ["Hand"]
        assert source.last_report is not None and source.last_report.stale.tolist() == [hand]
        rows = dict(source.file_rows(hand))
        assert rows["stale"] == "world differs from parent x local by 2"
        assert ("stale", "1") in counter_rows(app.overlay.timeline.last.stats)
        assert any("1 stale" in text for text, _ in source.program_rows())
