"""Held worlds (docs/attach.md, "Held worlds"): a program may say that its engine holds a
node's world on purpose (a frozen matrix, a billboard, a constraint), with a reason. Such
a node whose world differs from parent · local is held, not stale: counted apart, logged
with its reason, drawn without the stale colour. The wire's held section round-trips,
is sent only in version-2 frames, and hostile reasons (too long, more than one line,
control characters, an index past the table, not UTF-8) are refused with one line."""

from __future__ import annotations

import json
import struct
import time

import numpy as np
import pytest
from attach_helpers import wire
from hypothesis import given, settings
from hypothesis import strategies as st
from listening_window import listening_window
from needs import need_gl
from PIL import Image
from test_attach_listen import finish, start_viewer
from test_attach_stale import EMPTY, Program
from websockets.sync.client import connect

from viewer.attach import protocol as p
from viewer.attach.mirror import NODE_LOOK, STALE_LOOK, Mirror
from viewer.attach.program_source import ProgramSource
from viewer.content.scene import Scene
from viewer.overlay.model import Flags
from viewer.overlay.stats import COUNTER_TIPS, FrameStats, counter_rows
from viewer.overlay.timeline_records import FrameRecords

LIMITS = p.ProgramLimits(max_nodes=1000, max_message_bytes=1 << 20)


def _chain() -> Program:
    """Arm > Hand > Finger, each one unit along x from its parent."""
    program = Program.__new__(Program)
    program.n, program.order, program.parent_of = 3, [0, 1, 2], [-1, 0, 1]
    program.ids = np.array([4, 9, 2], dtype=np.int64)
    program.names = ["Arm", "Hand", "Finger"]
    program.values = np.array([[1.0, 0, 0, 0, 0, 0, 1, 1, 1, 1]] * 3)
    program.worlds = np.zeros((3, 4, 4))
    for k in program.order:
        program.worlds[k] = program.composed(k)
    return program


def _with_held(frame: p.ProgramFrame, held: dict[int, str]) -> p.ProgramFrame:
    frame.held_ids = np.array(sorted(held), dtype=np.int64)
    frame.held_reasons = [held[i] for i in sorted(held)]
    return frame


def _known(program: Program) -> np.ndarray:
    return np.sort(program.ids)


def test_the_held_section_round_trips_and_only_it_makes_a_frame_version_2():
    program = _chain()
    frame = _with_held(program.frame(1, [0, 1, 2], [0, 1, 2]), {9: "frozen", 2: "x y"})
    frame.structure = None
    data = p.encode_frame(frame)
    assert p.message_version(data) == 2
    back = p.decode_frame(data, _known(program), 0)
    assert back.held_ids.tolist() == [2, 9] and back.held_reasons == ["x y", "frozen"]
    assert (back.worlds == frame.worlds).all()
    plain = program.frame(2, [0], [0])
    plain.structure = None
    data = p.encode_frame(plain)
    assert p.message_version(data) == 1  # what a version-1 viewer reads
    assert p.decode_frame(data, _known(program), 1).held_ids.size == 0
    cleared = _with_held(program.frame(3, [], []), {9: ""})
    cleared.structure = None
    back = p.decode_frame(p.encode_frame(cleared), _known(program), 2)
    assert back.held_ids.tolist() == [9] and back.held_reasons == [""]
    welcome = p.encode_welcome(LIMITS, 1)  # a version-1 program hears version 1
    assert p.message_version(welcome) == 1 and p.decode_welcome(welcome) == LIMITS


@pytest.mark.parametrize(
    "reason",
    ["Robot \U0001fae8", "no\u00a0break", "family \U0001f468\u200d\U0001f469", "solver ik 2"],
)
def test_a_reason_newer_than_this_pythons_unicode_or_with_a_joiner_is_accepted(reason):
    # Python 3.11's str.isprintable() rejects U+1FAE8 (Unicode 15), the no-break space and
    # the zero-width joiner; refusing them would lock out a program that uses them.
    program = _chain()
    frame = _with_held(program.frame(1, [0, 1, 2], [0, 1, 2]), {9: reason})
    frame.structure = None
    back = p.decode_frame(p.encode_frame(frame), _known(program), 0)
    assert back.held_reasons == [reason]


def _held_bytes(reasons: list[str], index: list[int] | None = None) -> bytes:
    """A one-node frame whose held section lists ``reasons`` (raw table indices)."""
    program = _chain()
    frame = _with_held(program.frame(1, [0, 1, 2], [0, 1, 2]), {4: reasons[0]})
    frame.structure = None
    data = p.encode_frame(frame)
    if index is None:
        return data
    at = data.rindex(struct.pack("<I", 4)) + 4  # the held row's id, then its index
    return data[:at] + struct.pack("<I", index[0]) + data[at + 4 :]


@pytest.mark.parametrize(
    ("reason", "match"),
    [
        ("x" * (p.REASON_BYTES_MAX + 1), "65 bytes of held reasons"),
        ("frozen\n!Stale World : Arm!", "not one printable line"),
        ("\x1b[31mred", "not one printable line"),
        ("frozen\u202e", "not one printable line"),
        ("a\u2028b", "not one printable line"),
    ],
)
def test_hostile_reasons_are_refused_with_one_line(reason, match):
    with pytest.raises(p.ProtocolError, match=match) as info:
        p.decode_frame(_held_bytes([reason]), np.array([2, 4, 9]), 0)
    assert "\n" not in str(info.value)


def test_an_unknown_reason_index_a_version_1_held_flag_and_bad_bytes_are_refused():
    known = np.array([2, 4, 9])
    with pytest.raises(p.ProtocolError, match="held reason 1 of a table of 1"):
        p.decode_frame(_held_bytes(["frozen"], index=[1]), known, 0)
    data = _held_bytes(["frozen"])
    v1 = struct.pack("<4sHH", p.MAGIC, 1, p.FRAME) + data[8:]
    with pytest.raises(p.ProtocolError, match="flags 3 invalid"):
        p.decode_frame(v1, known, 0)
    bad_utf8 = data[:-6] + b"\xff" + data[-5:]
    with pytest.raises(p.ProtocolError, match="held reason is not UTF-8"):
        p.decode_frame(bad_utf8, known, 0)
    for cut in range(1, 30):  # every truncation of the held section
        with pytest.raises(p.ProtocolError):
            p.decode_frame(data[:-cut], known, 0)
    with pytest.raises(p.ProtocolError, match="the message has"):
        p.decode_frame(data + b"\0", known, 0)
    with pytest.raises(p.ProtocolError, match="held names id 5"):
        p.decode_frame(data.replace(struct.pack("<I", 4) + struct.pack("<I", 0),
                                    struct.pack("<II", 5, 0)), known, 0)  # fmt: skip


def test_a_frozen_node_whose_parent_moved_is_held_with_its_reason_not_stale():
    program, mirror = _chain(), Mirror("arm")
    frame = _with_held(program.frame(1, [0, 1, 2], [0, 1, 2]), {9: "frozen"})
    decoded, known = wire(frame, EMPTY, 0)
    report = mirror.apply(decoded)  # held but equal to parent · local: simply normal
    assert report.held.size == 0 and report.stale.size == 0 and mirror.held_count == 0
    program.values[0, 0] = 3.0  # Arm moves; Hand's world stays (frozen), Finger follows it
    program.worlds[0] = program.composed(0)
    decoded, known = wire(program.frame(2, [0], [0]), known, 1)
    report = mirror.apply(decoded)
    hand = mirror.graph.node("Hand").id
    assert report.stale.size == 0 and report.held.tolist() == [hand]
    assert report.held_why == ("frozen",) and mirror.held_reason(hand) == "frozen"
    assert report.log_lines() == ["*Update Local : Arm*", "=Update World : Arm=",
                                  "!Held World : Hand (frozen)!"]  # fmt: skip
    assert mirror.scene.looks[hand] is NODE_LOOK and mirror.repaint() == {}
    assert mirror.staleness(hand)[0] == 2.0  # the inspector's parent x local stays
    # The program clears the reason: the same world is now a bug, stale.
    decoded, known = wire(_with_held(program.frame(3, [], []), {9: ""}), known, 2)
    report = mirror.apply(decoded)
    assert report.held.size == 0 and report.stale.tolist() == [hand]
    assert report.log_lines() == ["!Stale World : Hand!"]
    assert mirror.scene.looks[hand] is STALE_LOOK and mirror.held_reason(hand) is None
    # A hostile free-text reason is printed escaped, never raw.
    decoded, known = wire(_with_held(program.frame(4, [], []), {9: "\u00e9t\u00e9 ok"}), known, 3)
    report = mirror.apply(decoded)
    assert report.log_lines() == ["!Held World : Hand (\u00e9t\u00e9 ok)!"]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_exactly_the_stale_subset_is_stale_and_the_held_subset_held_with_its_reason(data):
    program = Program(data)
    every = list(range(program.n))
    off = data.draw(st.sets(st.integers(0, program.n - 1)), label="off")
    reasoned = data.draw(st.sets(st.integers(0, program.n - 1)), label="with a reason")
    words = st.sampled_from([*p.HELD_REASONS, "my rig's aim", "\u00e9"])
    why = {k: data.draw(words, label="reason") for k in reasoned}
    mirror, known = Mirror("program"), EMPTY
    for step in range(1, 4):
        for k in program.order:  # parent · local, the `off` ones set apart by hand
            program.worlds[k] = program.composed(k)
            if k in off:
                program.worlds[k, :3, 3] += data.draw(st.floats(0.01, 5.0), label="off by")
        sent = {int(program.ids[k]): why.get(k, "") for k in every}
        frame = _with_held(program.frame(step, every, every), sent)
        decoded, known = wire(frame, known, step - 1)
        report = mirror.apply(decoded)
        names = mirror.graph.name_of
        differs = program.stale()  # the oracle: held world far from parent world · local
        held = {program.names[k] for k in reasoned} & differs
        assert {names(i) for i in report.stale.tolist()} == differs - held
        assert {names(i) for i in report.held.tolist()} == held
        assert {names(i) for i in report.held_flagged.tolist()} == held
        assert mirror.held_count == len(held) and mirror.stale_count == len(differs - held)
        for i, reason in zip(report.held.tolist(), report.held_why, strict=True):
            k = program.names.index(names(i))
            assert reason == why[k] == mirror.held_reason(i)
        lines = [line for line in report.log_lines() if line.startswith("!Held")]
        assert len(lines) == len(held)
        # Next step: the reasons change at random, and some nodes lose theirs.
        reasoned = data.draw(st.sets(st.integers(0, program.n - 1)), label="reasons next")
        why = {k: data.draw(words, label="reason") for k in reasoned}
        off = data.draw(st.sets(st.integers(0, program.n - 1)), label="off next")


def _frozen_hand() -> tuple[Program, list[p.ProgramFrame]]:
    """Arm > Hand > Finger sent current with Hand frozen (frame 1), then Arm moved and
    Hand's world kept (frame 2)."""
    program = _chain()
    first = _with_held(program.frame(1, [0, 1, 2], [0, 1, 2]), {9: "frozen"})
    program.values[0, 0] = 3.0
    program.worlds[0] = program.composed(0)
    return program, [first, program.frame(2, [0], [0])]


def test_where_a_held_node_shows_counters_tree_flags_inspector_and_panel_row():
    program, frames = _frozen_hand()
    mirror, known = Mirror("arm"), EMPTY
    for number, frame in enumerate(frames, 1):
        decoded, known = wire(frame, known, number - 1)
        report = mirror.apply(decoded)
    hand = mirror.graph.node("Hand").id
    stats = FrameStats.of_report(2, report)
    assert (stats.stale, stats.held) == (0, 1) and ("held", "1") in counter_rows(stats)
    assert all(label != "stale" for label, _ in counter_rows(stats)) and "held" in COUNTER_TIPS
    flags = Flags.of_report(report, mirror.graph.capacity_ids)
    assert flags.held == {hand: "frozen"} and not flags.is_stale(hand)
    source = ProgramSource(Scene(mirror.graph), listener=None)
    source.mirrors[program] = mirror
    source.shown = program
    rows = dict(source.file_rows(hand))
    assert rows["held"] == "frozen: world differs from parent x local by 2"
    assert rows["parent x local 0"] == "1  0  0  4"  # parent x local stays beside it
    records = FrameRecords()  # the timeline keeps the count with each frame
    records.add(2, report, stats)
    records.add(3, None, FrameStats(frame=3))
    assert records[0].stats.held == 1 and records[1].stats.held == 0


def test_listen_logs_a_held_world_with_its_reason_and_draws_it_without_magenta(tmp_path):
    need_gl().release()
    dump, shot = tmp_path / "world.json", tmp_path / "shot.png"
    proc, address = start_viewer("127.0.0.1:0", "--frames", "2", "--log", "--dump-world",
                                 str(dump), "--screenshot", str(shot))  # fmt: skip
    program, (first, second) = _frozen_hand()
    first.world_updated = first.cause = first.local_updated = EMPTY  # nothing glows
    with connect(f"ws://{address}", open_timeout=10) as ws:
        ws.send(p.encode_hello("frozen program", ""))
        p.decode_welcome(ws.recv(timeout=10))
        ws.send(p.encode_structure(first.structure))
        ws.send(p.encode_frame(first))
        ws.send(p.encode_frame(second))
        out, _ = finish(proc)
    assert out == "# frame 2\n*Update Local : Arm*\n=Update World : Arm=\n" + (
        "!Held World : Hand (frozen)!\n"
    )
    worlds = json.loads(dump.read_text())
    for k, name in enumerate(program.names):  # the engine's worlds, as sent
        assert np.array(worlds[name]).tolist() == program.worlds[k].tolist(), name
    rgb = np.asarray(Image.open(shot).convert("RGB"), dtype=np.float64) / 255
    magenta = (rgb[..., 0] > 0.45) & (rgb[..., 2] > 0.35) & (rgb[..., 1] < 0.6 * rgb[..., 2])
    assert magenta.sum() == 0  # held is no bug: not in the stale colour


def test_the_window_tree_marks_a_held_node_with_its_reason_and_counts_it():
    with listening_window((800, 400)) as (app, source, address):
        _, frames = _frozen_hand()
        with connect(f"ws://{address}", open_timeout=10) as ws:
            ws.send(p.encode_hello("frozen program", ""))
            p.decode_welcome(ws.recv(timeout=10))
            ws.send(p.encode_structure(frames[0].structure))
            for frame in frames:
                ws.send(p.encode_frame(frame))
            end = time.monotonic() + 30
            while source.last_report is None or source.last_report.frame < 2:
                assert time.monotonic() < end, "timed out"
                app.on_render(0.0, 1.0 / 60.0)
            source.select(source.graph.node("Hand").id)
            for _ in range(2):
                app.on_render(0.0, 1.0 / 60.0)
        tree = app.overlay.panel.scene.tree
        assert tree.held_drawn == ["Hand held (frozen)"] and tree.stale_drawn == []
        assert ("held", "1") in counter_rows(app.overlay.timeline.last.stats)
        assert any("1 held" in text for text, _ in source.program_rows())
