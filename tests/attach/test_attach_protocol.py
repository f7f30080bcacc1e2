"""The wire format: a round trip keeps everything, and every class of bad message is
refused with one `ProtocolError` line before anything is built from it: wrong magic or
version, unknown kinds, every truncation, trailing bytes, counts over the limits, ids out
of range or twice, parents after their children, NaN and huge numbers, zero
quaternions, names that are not UTF-8, and random bytes. Names are data: any Unicode
text (controls, bidi overrides, code points this Python does not know) goes through
exactly (docs/api.md, "Names")."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from attach_helpers import tree10
from hypothesis import given
from hypothesis import strategies as st

from viewer.attach import protocol as p
from viewer.attach.backlog import Backlog

LIMITS = p.ProgramLimits(max_nodes=1000, max_message_bytes=1 << 20)


def _snapshot():
    graph = tree10()
    graph.touch("Obj2")
    backlog = Backlog()
    backlog.fold(graph, graph.update())
    return backlog.take(graph, everything=True)


def _refused(fn, *args, match: str | None = None) -> str:
    with pytest.raises(p.ProtocolError, match=match) as info:
        fn(*args)
    text = str(info.value)
    assert "\n" not in text and text
    return text


def test_round_trip_keeps_every_field():
    frame = _snapshot()
    structure = p.decode_structure(p.encode_structure(frame.structure), LIMITS)
    assert structure.names == frame.structure.names
    assert (structure.ids == frame.structure.ids).all()
    assert (structure.parents == frame.structure.parents).all()
    back = p.decode_frame(p.encode_frame(frame), np.sort(structure.ids), 0)
    for name in ("local_updated", "world_updated", "cause", "value_ids", "world_ids"):
        assert (getattr(back, name) == getattr(frame, name)).all(), name
    assert (back.values == np.concatenate(frame.values, axis=1)).all()
    assert (back.worlds == frame.worlds).all()
    assert (back.frame, back.merged, back.products) == (frame.frame, 1, frame.products)
    assert p.decode_hello(p.encode_hello("my app", "secret")) == ("secret", "my app")
    empty = p.decode_structure(_structure([], [], []), LIMITS)  # every node removed
    assert empty.ids.size == 0 and empty.names == []
    assert p.decode_welcome(p.encode_welcome(LIMITS)) == LIMITS


def test_world_matrices_travel_in_column_order():
    """docs/attach.md: 16 numbers per matrix, column by column (three.js's order)."""
    frame = _snapshot()
    data = p.encode_frame(frame)
    head = p.HEADER.size + p.FRAME_HEAD.size
    counts = p.FRAME_HEAD.unpack_from(data, p.HEADER.size)[6:]
    n_local, n_world, n_values, n_worlds = counts
    at = head + 4 * (n_local + 2 * n_world + n_values) + 80 * n_values + 4 * n_worlds
    first = np.frombuffer(data[at : at + 128], "<f8")
    assert (frame.worlds[0] == first.reshape(4, 4).T).all()  # translation in 12..14
    assert (first[12:15] == frame.worlds[0][:3, 3]).all()


def _bad_versions():
    good = p.encode_hello("x")
    return [
        (b"XXXX" + good[4:], "not an sgview"),
        (struct.pack("<4sHH", p.MAGIC, 3, p.HELLO) + good[8:], "version 3"),
        (struct.pack("<4sHH", p.MAGIC, 0, p.HELLO) + good[8:], "version 0"),
        (struct.pack("<4sHH", p.MAGIC, p.VERSION, 99) + good[8:], "unknown message kind"),
        (good[:5], "shorter than"),
    ]


@pytest.mark.parametrize(("data", "match"), _bad_versions())
def test_wrong_magic_version_or_kind(data, match):
    _refused(p.decode_hello, data, match=match)


def test_every_truncation_and_any_trailing_byte_is_refused():
    frame = _snapshot()
    known = np.sort(frame.structure.ids)
    messages = [
        (p.encode_hello("app", "token"), p.decode_hello, ()),
        (p.encode_structure(frame.structure), p.decode_structure, (LIMITS,)),
        (p.encode_frame(frame), p.decode_frame, (known, 0)),
    ]
    for data, decode, extra in messages:
        for cut in range(len(data)):
            _refused(decode, data[:cut], *extra)
        _refused(decode, data + b"\0", *extra)


def _frame_bytes(**change) -> bytes:
    frame = _snapshot()
    for name, value in change.items():
        setattr(frame, name, value)
    return p.encode_frame(frame)


def test_frames_with_bad_ids_numbers_or_order_are_refused():
    frame = _snapshot()
    known = np.sort(frame.structure.ids)
    ids = frame.world_ids
    nan = frame.worlds.copy()
    nan[3, 1, 2] = np.nan
    huge = np.concatenate(frame.values, axis=1)
    huge[0, 0] = 1e300
    zero_q = np.concatenate(frame.values, axis=1)
    zero_q[2, 3:7] = 0.0
    cases = [
        (_frame_bytes(world_updated=ids + 100, cause=ids), "not a node"),
        (_frame_bytes(local_updated=np.array([5, 5])), "twice"),
        (_frame_bytes(worlds=nan), "finite"),
        (_frame_bytes(values=huge), "finite"),
        (_frame_bytes(values=zero_q), "zero length"),
        (_frame_bytes(cause=np.full(frame.world_updated.size, 4000)), "not a node"),
        (_frame_bytes(merged=0), "merged"),
    ]
    for data, match in cases:
        _refused(p.decode_frame, data, known, 0, match=match)
    _refused(p.decode_frame, p.encode_frame(frame), known, frame.frame, match="count up")
    _refused(p.decode_frame, p.encode_frame(frame), known[:3], 0)


def _structure(ids, parents, names) -> bytes:
    return p.encode_structure(p.Structure(np.array(ids), np.array(parents), names))


@pytest.mark.parametrize(("data", "match"), [
    (_structure([1, 2], [-1, 3], ["a", "b"]), "not a listed node"),
    (_structure([1, 2], [2, -1], ["a", "b"]), "before its parent"),
    (_structure([1, 1], [-1, -1], ["a", "b"]), "twice"),
    (_structure([1, 2], [-1, -5], ["a", "b"]), "below -1|not a listed"),
])  # fmt: skip
def test_structures_that_break_the_rules(data, match):
    _refused(p.decode_structure, data, LIMITS, match=match)


#: Names the viewer once refused (a control, a bidi override, Unicode 15's U+1FAE8, which
#: Python 3.11 does not know, a no-break space, a line separator): all are data.
ODD_NAMES = ["a\x1b[2Jb", "bidi\u202eoverride", "Robot \U0001fae8", "no\xa0break", "a\u2028b", ""]


def test_any_unicode_name_goes_through_exactly():
    data = _structure(list(range(1, len(ODD_NAMES) + 1)), [-1] * len(ODD_NAMES), ODD_NAMES)
    assert p.decode_structure(data, LIMITS).names == ODD_NAMES
    assert p.decode_hello(p.encode_hello("Robot \U0001fae8\x07", "t\u202e")) == (
        "t\u202e",
        "Robot \U0001fae8\x07",
    )


@given(st.lists(st.text(), min_size=1, max_size=8))
def test_every_text_name_round_trips_over_the_wire(names):
    data = _structure(list(range(len(names))), [-1] * len(names), names)
    decoded = p.decode_structure(data, LIMITS).names
    for sent, got in zip(names, decoded, strict=True):
        if len(sent.encode("utf-8")) <= p.NAME_BYTES_MAX:
            assert got == sent
        else:  # cut to the limit between characters
            assert sent.startswith(got) and len(got.encode("utf-8")) > p.NAME_BYTES_MAX - 4


def test_a_name_over_the_limit_is_cut_between_characters_and_a_lone_surrogate_is_u_fffd():
    long = "\U0001fae8" * 300  # 1200 bytes
    (got,) = p.decode_structure(_structure([1], [-1], [long]), LIMITS).names
    assert got == "\U0001fae8" * 256
    (got,) = p.decode_structure(_structure([1], [-1], ["x\ud800y"]), LIMITS).names
    assert got == "x\ufffdy"


def test_names_that_are_not_utf8_and_a_million_nodes_announced_and_not_sent():
    bad = bytearray(_structure([1], [-1], ["ab"]))
    bad[-2:] = b"\xff\xfe"
    _refused(p.decode_structure, bytes(bad), LIMITS, match="UTF-8")
    million = p.header(p.STRUCTURE) + p.STRUCTURE_HEAD.pack(1_000_000, 0)
    _refused(p.decode_structure, million, p.ProgramLimits(max_nodes=2_000_000), match="make")
    _refused(p.decode_structure, million, LIMITS, match="--max-nodes")
    announced = p.header(p.FRAME) + p.FRAME_HEAD.pack(1, 1, 0, 0, 0, 0, 10**6, 0, 0, 0)
    _refused(p.decode_frame, announced, np.arange(10), 0, match="for 10 nodes")
    long_name = struct.pack("<I", 5000) + b"a" * 5000
    _refused(p.decode_hello, p.header(p.HELLO) + long_name, match="at most")


@given(st.binary(max_size=300))
def test_random_bytes_are_refused_with_one_line_or_decoded(data):
    decoders = [
        (p.decode_hello, ()),
        (p.decode_structure, (LIMITS,)),
        (p.decode_frame, (np.arange(50), 0)),
    ]
    for decode, extra in decoders:
        for prefix in (b"", p.header(p.HELLO), p.header(p.STRUCTURE), p.header(p.FRAME)):
            try:
                decode(prefix + data, *extra)
            except p.ProtocolError as exc:
                assert "\n" not in str(exc)
