"""`viewer.publish` against the limits a real `sgview listen --headless` says in its
welcome (--max-nodes, --max-buffer-mb): a scene over them is not sent, the program gets one
`LimitWarning` naming the limit, its count and the flag to raise, the viewer sees no
refused connections meanwhile (at most one line over a few seconds), and once the scene
shrinks its frames arrive; a viewer started again with other limits gets the scene. A
program that sends an over-limit structure anyway (as a publisher that ignores the
welcome) still gets the viewer's one line naming its address. Loopback only; every wait
bounded."""

from __future__ import annotations

import subprocess
import threading
import time
import warnings

import pytest
from needs import need_gl
from test_attach_listen import finish, free_port, logged, start_viewer

import viewer
from viewer.attach.publisher import LimitWarning
from viewer.scene.graph import SceneGraph
from viewer.text import quoted

#: Seconds the program keeps updating over the limit while the viewer's lines are counted.
OVER_SECONDS = 3.0


@pytest.fixture(autouse=True)
def gl():
    need_gl().release()


def stderr_lines(proc: subprocess.Popen) -> list[str]:
    """The viewer's stderr lines as they come (a thread reads them into the list)."""
    lines: list[str] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return lines


def flat(count: int) -> SceneGraph:
    graph = SceneGraph()
    for k in range(count):
        graph.add(f"N{k}", None if k == 0 else "N0", position=(0.1 * k, 0.0, 0.0))
    graph.update()
    return graph


def updating(graph: SceneGraph, until, pause: float = 0.05) -> list[warnings.WarningMessage]:
    """Update the graph (a frame every `pause` seconds) until `until()`: the LimitWarnings
    the program got meanwhile."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # "once" must be the publisher's doing
        while not until():
            graph.touch("N1")
            graph.update()
            time.sleep(pause)
    return [w for w in caught if issubclass(w.category, LimitWarning)]


def over_the_limit(graph: SceneGraph, pause: float = 0.05) -> list[warnings.WarningMessage]:
    """Update the graph for `OVER_SECONDS`: the LimitWarnings it got."""
    end = time.monotonic() + OVER_SECONDS
    return updating(graph, lambda: time.monotonic() >= end, pause)


def until_the_viewer_ends(graph: SceneGraph, proc) -> list[warnings.WarningMessage]:
    """Update the graph until the viewer exits (its --frames reached; 60 s at most): the
    LimitWarnings it got."""
    end = time.monotonic() + 60
    return updating(graph, lambda: proc.poll() is not None or time.monotonic() >= end)


def held_program() -> tuple[subprocess.Popen, list[str], SceneGraph, object]:
    """A viewer taking messages of 10485 bytes (0.01 MiB) and two frames, and a program of
    40 nodes that fit it by their rows (64 + 216 x 40), not with a 64-byte held reason
    each: (the viewer, its stderr lines, the graph, the link, connected)."""
    proc, address = start_viewer("127.0.0.1:0", "--max-buffer-mb", "0.01", "--frames", "2")
    lines = stderr_lines(proc)
    graph = flat(40)
    link = viewer.publish(graph, address, name="held program")
    for k in range(40):
        link.hold(k, f"custom {k:02d} " + "x" * 54)
    assert link.wait_connected(30)
    return proc, lines, graph, link


def refused(lines: list[str]) -> list[str]:
    return [line for line in lines if line.endswith("disconnected")]


@pytest.mark.parametrize(
    ("flag", "value", "nodes", "fits", "said"),
    [
        ("--max-nodes", "50", 80, 30, ["80 nodes", "over the 50", "sgview listen --max-nodes 80"]),
        # 0.01 MiB: 10485 bytes; 60 nodes' snapshot is 64 + 216 x 60 bytes and more
        ("--max-buffer-mb", "0.01", 60, 20, ["a snapshot of 13", "over the 10485 bytes",
                                             "sgview listen --max-buffer-mb 1)"]),
    ],
)  # fmt: skip
def test_over_a_limit_the_program_is_told_once_and_sends_once_it_fits(
    flag, value, nodes, fits, said
):
    proc, address = start_viewer("127.0.0.1:0", flag, value, "--frames", "3", "--log")
    lines = stderr_lines(proc)
    graph = flat(nodes)
    link = viewer.publish(graph, address, name="big program")
    assert link.wait_connected(30)
    told = over_the_limit(graph)
    assert len(told) == 1, [str(w.message) for w in told]
    line = str(told[0].message)
    assert all(part in line for part in said), line
    assert "\n" not in line and address in line
    assert told[0].filename == __file__  # at the program's own update()
    assert link.over_limit == line and link.connected
    assert refused(lines) == [], lines  # no reconnection, no refusal: nothing sent
    assert not link.flush(0.1)
    for k in range(fits, nodes):
        graph.remove(f"N{k}")
    log = ""
    for _ in range(3):
        graph.touch("N1")
        log += logged(graph.update())
    assert link.flush(30)
    out, _ = finish(proc)
    link.close()
    assert out == log
    assert link.over_limit is None


def test_a_held_section_over_the_bytes_limit_is_found_on_sending_and_told_once():
    """40 nodes fit by their rows, not with their held reasons (`held_program`): the sending
    thread finds it, the next update tells the program."""
    proc, lines, graph, link = held_program()
    told = over_the_limit(graph)
    assert len(told) == 1, [str(w.message) for w in told]
    assert "over the 10485 bytes" in str(told[0].message), told[0].message
    assert refused(lines) == [], lines
    for k in range(30, 40):  # fewer nodes than when it was refused: tried again, and fits
        graph.remove(f"N{k}")
    until_the_viewer_ends(graph, proc)
    finish(proc)
    link.close()
    assert link.over_limit is None and link.frames_sent >= 2


def test_a_viewer_started_again_with_other_limits_gets_the_scene():
    address = f"127.0.0.1:{free_port()}"
    proc, _ = start_viewer(address, "--max-nodes", "50")
    lines = stderr_lines(proc)
    graph = flat(80)
    link = viewer.publish(graph, address, name="big program")
    assert link.wait_connected(30)
    assert len(over_the_limit(graph)) == 1
    assert refused(lines) == [], lines
    proc.terminate()
    proc.wait(30)
    proc, _ = start_viewer(address, "--max-nodes", "100", "--frames", "3", "--log")
    told = until_the_viewer_ends(graph, proc)
    out, _ = finish(proc)
    link.close()
    assert out.count("# frame ") == 3 and "=Update World : N1=" in out, out
    assert not told
    assert link.limits is not None and link.limits.max_nodes == 100


def test_a_structure_over_max_nodes_sent_anyway_gets_one_line_naming_the_address():
    import numpy as np
    from websockets.sync.client import connect

    from viewer.attach import protocol as p

    proc, address = start_viewer("127.0.0.1:0", "--max-nodes", "50")
    lines = stderr_lines(proc)
    ids = np.arange(80, dtype=np.int64)
    parents = np.where(ids == 0, -1, 0)
    structure = p.Structure(ids, parents, [f"N{k}" for k in range(80)])
    with connect(f"ws://{address}", proxy=None) as socket:
        socket.send(p.encode_hello("raw program"))
        assert p.decode_welcome(socket.recv(timeout=10)).max_nodes == 50
        # read before the structure goes: the viewer closes the connection on it
        mine = "{}:{}".format(*socket.local_address[:2])
        socket.send(p.encode_structure(structure))
        deadline = time.monotonic() + 10
        while not refused(lines) and time.monotonic() < deadline:
            time.sleep(0.02)
    time.sleep(0.3)
    proc.terminate()
    proc.wait(30)
    assert refused(lines) == [
        f"sgview: program {quoted('raw program', 40)} ({mine}): structure: 80 nodes "
        "(--max-nodes is 50); disconnected"
    ], lines


def test_frames_queued_behind_one_found_too_big_are_not_sent_and_shorter_reasons_fit(
    monkeypatch,
):
    """A slow encoding (stood in for by a sleep) lets the program queue frames behind the
    one the sending thread finds over the limit: none of them may go (a delta before its
    snapshot: the viewer refuses it, the link reconnects). Then the reasons get shorter,
    with as many nodes: the scene fits and is sent."""
    import viewer.attach.publisher as publisher

    encode = publisher.encode_frame

    def slow_encode(frame):
        time.sleep(0.05)
        return encode(frame)

    monkeypatch.setattr(publisher, "encode_frame", slow_encode)
    proc, lines, graph, link = held_program()
    told = over_the_limit(graph, pause=0.005)  # several frames queue per encoding
    assert len(told) == 1, [str(w.message) for w in told]
    assert refused(lines) == [], lines
    for k in range(40):
        link.hold(k, "ik")
    again = until_the_viewer_ends(graph, proc)
    finish(proc)
    link.close()
    assert refused(lines) == [], lines
    assert link.over_limit is None and link.frames_sent >= 2
    assert [str(w.message) for w in again] == []  # told once: the retry that fits is quiet
