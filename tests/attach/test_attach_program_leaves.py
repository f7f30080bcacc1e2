"""A program that leaves ends a headless ``sgview listen``: a quick program (connect, three
frames, close) is shown and logged whole, one line says it left, and the run exits 0 also
when it left before the viewer first looked; one that leaves without a frame ends it with
one line; ``--frames N`` counts the program's frames taken; a window stays open on a
program that left. Loopback only, every wait bounded."""

from __future__ import annotations

import io
import socket
import threading
import time

import pytest
from attach_helpers import tree10
from needs import need_gl
from websockets.sync.client import connect

import viewer
from viewer.attach.program_source import ProgramLeft, ProgramSource
from viewer.attach.protocol import decode_welcome, encode_hello
from viewer.attach.server import Listener
from viewer.content.scene import Scene
from viewer.frames.runner import swap
from viewer.scene.graph import SceneGraph


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _quick_program(graph, address: str, frames: int, logs: list[str]) -> None:
    """Connect, send ``frames`` frames as fast as it can, close (what it sent: ``logs``)."""
    link = viewer.publish(graph, address, name="quick")
    try:
        assert link.wait_connected(60)
        for _ in range(frames):
            graph.touch("Obj3")
            report = graph.update()
            logs.append(f"# frame {report.frame}\n" + "".join(f"{x}\n" for x in report.log_lines()))
    finally:
        link.close()


def test_a_quick_program_ends_a_headless_run(capsys):
    need_gl().release()
    from viewer.cli.main import main

    address, logs = f"127.0.0.1:{_free_port()}", []
    graph = tree10()
    program = threading.Thread(target=_quick_program, args=(graph, address, 3, logs))
    program.start()
    try:
        status = main(["listen", address, "--headless", "--frames", "100", "--size", "160x100",
                       "--samples", "0", "--log"])  # fmt: skip
    finally:
        program.join(60)
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out == "".join(logs) and out.count("# frame ") == 3
    assert "sgview: quick left after 3 frames\n" in err


def _source(wait: bool, limit: int | None = None):
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    out, err = io.StringIO(), io.StringIO()
    waiting = Scene(SceneGraph(), title="waiting")
    source = ProgramSource(
        waiting, listener=listener, wait=wait, limit=limit, log=True, out=out, err=err
    )
    return listener, f"{host}:{port}", source, out, err


def _left(listener) -> None:
    end = time.monotonic() + 20
    while not (listener.programs and not listener.programs[0].connected):
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_a_program_that_left_before_the_first_poll_is_shown_and_ends_the_run():
    listener, address, source, out, err = _source(wait=True)
    try:
        logs: list[str] = []
        _quick_program(tree10(), address, 3, logs)
        _left(listener)  # gone before the viewer first looked
        assert swap(source, lambda scene: None) is not None
        assert not source.ended  # its frames are still to show
        frame = source.advance(1 / 60)
        assert frame is not None and out.getvalue() == "".join(logs)
        assert source.ended and err.getvalue() == "sgview: quick left after 3 frames\n"
        assert source.advance(1 / 60) is None  # no wait for a program that left
        assert err.getvalue().count("\n") == 1  # said once
    finally:
        listener.close()


@pytest.mark.parametrize("limit", [2, None])
def test_frames_counts_the_frames_taken_and_a_window_stays(limit):
    """Headless with a limit: exactly that many frames taken, folded or not. A window
    (no wait) never ends, the program gone or not."""
    listener, address, source, out, err = _source(wait=limit is not None, limit=limit)
    try:
        _quick_program(tree10(), address, 5, [])
        _left(listener)
        swap(source, lambda scene: None)
        source.advance(1 / 60)
        if limit is None:
            assert out.getvalue().count("# frame ") == 5 and not source.ended
            assert err.getvalue() == ""  # a window says nothing: the panel shows it left
        else:
            assert out.getvalue().count("# frame ") == limit and source.ended
            assert source.advance(1 / 60) is None and out.getvalue().count("# frame ") == limit
    finally:
        listener.close()


def test_a_program_that_leaves_without_a_frame_ends_the_run_with_one_line():
    listener, address, source, out, _ = _source(wait=True)
    try:
        with connect(f"ws://{address}", open_timeout=10) as ws:
            ws.send(encode_hello("empty", ""))
            decode_welcome(ws.recv(timeout=10))
        _left(listener)
        with pytest.raises(ProgramLeft, match="^empty left after 0 frames$"):
            swap(source, lambda scene: None)
        assert out.getvalue() == ""
    finally:
        listener.close()
