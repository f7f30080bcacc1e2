"""Names are data on the attach wire (docs/api.md, "Names"): a program whose nodes are
named with a code point this Python does not know (Unicode 15's U+1FAE8), a no-break
space, a control character or a bidi override is served, not refused; the mirror's
graph holds each name exactly; and what is printed of them (--log) is escaped."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from attach_helpers import tree10
from needs import need_gl
from test_attach_listen import finish, logged, start_viewer

import viewer
from viewer.attach.mirror import Mirror
from viewer.attach.server import Listener

ODD = {
    "Obj2": "Robot \U0001fae8",
    "Obj3": "no\xa0break",
    "Obj4": "bad\x1b[31mname",
    "Obj5": "bidi\u202eoverride",
    "Obj6": "a\u2028b\u200b",
}


def _odd_tree10():
    graph = tree10()
    for old, new in ODD.items():
        graph.rename(old, new)
    graph.update()
    return graph


def test_odd_names_are_served_and_kept_exactly_in_the_mirror():
    err = io.StringIO()
    listener = Listener("127.0.0.1", 0, err=err)
    host, port = listener.start()
    graph = _odd_tree10()
    link = viewer.publish(graph, f"{host}:{port}", name="Robot \U0001fae8 program")
    try:
        assert link.wait_connected(10)
        graph.touch(ODD["Obj2"])
        graph.update()
        assert link.flush(10)
        assert listener.wait_program(10)
        program = listener.programs[0]
        mirror = Mirror("program")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and program.frames_received < 1:
            time.sleep(0.01)
        frame = program.take(wait=5)
        assert frame is not None
        mirror.apply(frame)
        names = {mirror.graph.name_of(int(i)) for i in mirror.graph.alive_ids()}
        assert set(ODD.values()) <= names  # each name as the program has it, not escaped
        assert program.name == "Robot \U0001fae8 program" and program.connected
        assert err.getvalue() == ""  # no refusal, no reconnection
        assert np.isfinite(mirror.graph.world_matrices()).all()
    finally:
        link.close()
        listener.close()


@pytest.fixture
def _gl():
    need_gl().release()


def test_a_control_character_in_a_name_is_escaped_in_the_log(_gl):
    proc, address = start_viewer("127.0.0.1:0", "--frames", "2", "--log")
    graph = _odd_tree10()
    link = viewer.publish(graph, address, name="odd names")
    assert link.wait_connected(30)
    log = ""
    for _ in range(2):
        graph.touch("Obj1")  # every node below recomputes: each odd name is logged
        log += logged(graph.update())
    assert link.flush(30)
    out, _ = finish(proc)
    link.close()
    assert out == log
    assert "bad\\x1b[31mname" in out and "bidi\\u202eoverride" in out and "a\\u2028b\\u200b" in out
    assert "\x1b" not in out and "\u202e" not in out and "\u2028" not in out
    assert all(line.isprintable() for line in out.splitlines())
