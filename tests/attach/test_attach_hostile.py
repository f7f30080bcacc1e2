"""Hostile clients, by class, against a live listener: each is answered with one line
(stderr and the panel's notes) and disconnected, while a well-behaved program connected
all along keeps being served; a flood of valid frames that nobody takes stays within the
inbox's bound. Loopback only, every wait bounded."""

from __future__ import annotations

import io
import struct
import threading
import time

import numpy as np
import pytest
from attach_helpers import tree10
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import viewer
from viewer.attach import protocol as p
from viewer.attach import server as server_module
from viewer.attach.backlog import Backlog
from viewer.attach.server import Listener

LIMITS = p.ProgramLimits(max_nodes=1000, max_message_bytes=64 * 1024)


@pytest.fixture
def listening(monkeypatch):
    monkeypatch.setattr(server_module, "HELLO_SECONDS", 0.5)
    err = io.StringIO()
    listener = Listener("127.0.0.1", 0, limits=LIMITS, err=err, token="")
    host, port = listener.start()
    yield listener, f"{host}:{port}", err
    listener.close()


def _snapshot_messages():
    graph = tree10()
    backlog = Backlog()
    graph.touch("Obj1")
    backlog.fold(graph, graph.update())
    frame = backlog.take(graph, everything=True)
    return frame, [p.encode_structure(frame.structure), p.encode_frame(frame)]


def _client(address: str, messages: list, hello: bool = True, token: str = "") -> str:
    """Send `messages` (after a hello), then read until the viewer closes; its reason."""
    with connect(f"ws://{address}", open_timeout=5, max_size=None) as ws:
        if hello:
            ws.send(p.encode_hello("hostile", token))
            p.decode_welcome(ws.recv(timeout=5))
        try:
            for message in messages:
                ws.send(message)
            while True:
                ws.recv(timeout=5)
        except ConnectionClosed as exc:
            return exc.rcvd.reason if exc.rcvd is not None else ""
        except TimeoutError:
            return "not closed"


def _hostile_cases():
    frame, (structure, good_frame) = _snapshot_messages()
    nan = frame.worlds.copy()
    nan[0, 0, 0] = np.nan
    far = frame.world_ids + 10_000
    bad_version = struct.pack("<4sHH", p.MAGIC, 9, p.FRAME) + good_frame[8:]
    frame.worlds = nan
    with_nan = p.encode_frame(frame)
    frame.worlds, frame.world_ids = frame.worlds[:0], far[:0]
    frame.world_updated, frame.cause = far, far
    out_of_range = p.encode_frame(frame)
    million = p.header(p.STRUCTURE) + p.STRUCTURE_HEAD.pack(1_000_000, 0)
    empty, _ = _snapshot_messages()
    blocks = empty.values if isinstance(empty.values, tuple) else (empty.values,)
    empty.value_ids, empty.values = empty.value_ids[:0], tuple(b[:0] for b in blocks)
    empty_snapshot = p.encode_frame(empty)
    held, _ = _snapshot_messages()
    held.held_ids, held.held_reasons = held.world_ids[:1], ["frozen\n!Stale World : X!"]
    two_lines = p.encode_frame(held)
    held.held_reasons = ["x" * (p.REASON_BYTES_MAX + 1)]
    too_long = p.encode_frame(held)
    return {
        "a held reason of two lines": ([structure, two_lines], "not one printable line"),
        "a held reason too long": ([structure, too_long], "held reason"),
        "a snapshot without value rows": ([structure, empty_snapshot], "the snapshot"),
        "wrong version": ([structure, bad_version], "version 9"),
        "truncated": ([structure, good_frame[:-7]], "frame: its counts make"),
        "oversized": ([structure, good_frame + bytes(LIMITS.max_message_bytes)], "limit"),
        "ids out of range": ([structure, out_of_range], "not a node of the structure"),
        "NaN matrix": ([structure, with_nan], "not a finite number"),
        "a million nodes announced, none sent": ([million], "--max-nodes"),
        "frame before structure": ([good_frame], "before any structure"),
        "text message": (["hello?"], "text message"),
        "a second hello": ([p.encode_hello("again")], "hello message after the hello"),
    }


CASES = _hostile_cases()


def test_each_hostile_class_gets_one_line_and_the_good_program_is_served(listening):
    listener, address, err = listening
    graph = tree10()
    link = viewer.publish(graph, address, name="good")
    assert link.wait_connected(10)
    for name, (messages, reason) in CASES.items():
        lines_before = err.getvalue().count("\n")
        closed_with = _client(address, messages)
        deadline = time.monotonic() + 5
        while err.getvalue().count("\n") == lines_before and time.monotonic() < deadline:
            time.sleep(0.01)
        lines = err.getvalue().splitlines()[lines_before:]
        assert len(lines) == 1, (name, lines)
        assert reason in lines[0] and lines[0].startswith("sgview: "), (name, lines[0])
        assert "disconnected" in lines[0] and closed_with != "not closed", name
        graph.touch("Obj2")
        graph.update()  # the good program goes on and is received
    assert link.flush()
    good = listener.programs[0]
    deadline = time.monotonic() + 5
    while good.frames_received < len(CASES) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert good.connected and good.frames_received == len(CASES)
    assert list(listener.notes)[-1] == err.getvalue().splitlines()[-1].removeprefix("sgview: ")
    link.close()


def test_silence_after_connecting_and_a_wrong_token(monkeypatch):
    monkeypatch.setattr(server_module, "HELLO_SECONDS", 0.3)
    err = io.StringIO()
    listener = Listener("127.0.0.1", 0, limits=LIMITS, err=err, token="s3cret")
    host, port = listener.start()
    try:
        assert "hello" in _client(f"{host}:{port}", [], hello=False) or "no hello" in err.getvalue()
        with connect(f"ws://{host}:{port}") as ws:
            ws.send(p.encode_hello("intruder", "guess"))
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
        graph = tree10()
        link = viewer.publish(graph, f"{host}:{port}", name="friend", token="s3cret")
        assert link.wait_connected(10)
        link.close()
    finally:
        listener.close()
    lines = err.getvalue().splitlines()
    assert any("no hello within" in line for line in lines)
    assert any("wrong or missing token" in line for line in lines)
    assert not any("friend" in line for line in lines)


def test_a_flood_nobody_takes_stays_within_the_inbox_bound(listening):
    listener, address, _ = listening
    frame, (structure, _) = _snapshot_messages()
    sent = [0]

    def flood(ws) -> None:
        start = time.monotonic()
        while time.monotonic() - start < 1.5:
            frame.frame += 1
            try:
                ws.send(p.encode_frame(frame))  # blocks while the viewer does not read
            except ConnectionClosed:
                return
            sent[0] += 1

    with connect(f"ws://{address}", max_size=None, ping_interval=None, close_timeout=0.5) as ws:
        ws.send(p.encode_hello("flood"))
        p.decode_welcome(ws.recv(timeout=5))
        ws.send(structure)
        sender = threading.Thread(target=flood, args=(ws,))
        sender.start()
        time.sleep(2.0)
        program = listener.programs[0]
        assert program.queued_bytes <= 2 * LIMITS.max_message_bytes + frame.nbytes
        held = program.pending()
        assert 0 < held < sent[0] or sent[0] < 50  # the rest waits in the sockets
        taken, deadline = 0, time.monotonic() + 60
        while sender.is_alive() and time.monotonic() < deadline:  # the viewer reads again
            taken += program.take(wait=0.05) is not None
        assert not sender.is_alive() and taken > 0
        assert program.connected
