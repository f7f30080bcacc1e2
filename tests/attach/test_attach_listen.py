"""`sgview listen --headless` against a Python program publishing the tree10 scene: the
viewer's --log equals the program's own update().log_lines(), frame by frame and
numbered by the program's frames; the world matrices (--dump-world) equal the program's
at the end, structural edits included; a viewer started late, or again, gets the
snapshot. Loopback only; every wait bounded."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from attach_helpers import ROOT, scripted_step, tree10, worlds_by_name
from needs import need_gl

import viewer

FRAMES = 12


def start_viewer(address: str, *args: str) -> tuple[subprocess.Popen, str]:
    """`sgview listen ADDRESS --headless ...` and the address it reports listening on."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "listen", address, "--headless", "--size", "320x200",
         "--samples", "0", *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    first = proc.stderr.readline().strip()
    assert first.startswith("sgview: listening on 127.0.0.1:"), first
    return proc, first.removeprefix("sgview: listening on ")


def finish(proc: subprocess.Popen) -> tuple[str, str]:
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err
    return out, err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def logged(report) -> str:
    """The program's own log of a frame, as --log prints it (taken right after its
    update: a later rename would rename the lines)."""
    lines = report.log_lines()
    return f"# frame {report.frame}\n" + "".join(f"{line}\n" for line in lines) if lines else ""


def dumped(path) -> dict[str, np.ndarray]:
    return {name: np.array(m) for name, m in json.loads(path.read_text()).items()}


def assert_same_worlds(path, graph) -> None:
    mine, theirs = dumped(path), worlds_by_name(graph)
    assert sorted(mine) == sorted(theirs)
    for name, world in theirs.items():
        np.testing.assert_allclose(mine[name], world, rtol=0, atol=1e-12, err_msg=name)


@pytest.fixture(autouse=True)
def gl():
    need_gl().release()


def test_log_and_world_matrices_equal_the_programs(tmp_path):
    dump = tmp_path / "world.json"
    proc, address = start_viewer("127.0.0.1:0", "--frames", str(FRAMES), "--log",
                                 "--dump-world", str(dump))  # fmt: skip
    graph = tree10()
    link = viewer.publish(graph, address, name="tree10 program")
    assert link.wait_connected(30)
    log = ""
    for k in range(FRAMES):
        scripted_step(graph, k)
        log += logged(graph.update())
    assert link.flush(30)
    out, err = finish(proc)
    link.close()
    assert out == log
    assert_same_worlds(dump, graph)
    names = set(dumped(dump))  # the structural edits reached the viewer's tree
    assert {"Added", "Renamed"} <= names and not {"Obj8", "Obj10"} & names


def test_a_late_viewer_and_a_second_one_get_the_snapshot(tmp_path):
    address = f"127.0.0.1:{free_port()}"
    graph = tree10()
    link = viewer.publish(graph, address, name="early program")
    for k in range(8):  # no viewer yet: these frames are never sent
        scripted_step(graph, k)
        graph.update()
    for round_, dump in enumerate((tmp_path / "late.json", tmp_path / "again.json")):
        proc, _ = start_viewer(address, "--frames", "3", "--log", "--dump-world", str(dump))
        assert link.wait_connected(30)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            graph.touch("Obj4")
            graph.update()
            time.sleep(0.05)
        out, _ = finish(proc)
        first = int(out.splitlines()[0].removeprefix("# frame "))
        assert first > 8 + round_, out  # numbered by the program's own frames
        assert_same_worlds(dump, graph)  # the frames before it came with the snapshot
        deadline = time.monotonic() + 30
        while link.connected and time.monotonic() < deadline:
            graph.update()  # the publisher notices the viewer left
            time.sleep(0.05)
    link.close()


def test_listen_refuses_what_cannot_work(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("SGVIEW_TOKEN", None)
    run = [sys.executable, "-m", "viewer", "listen"]
    beyond = subprocess.run([*run, "0.0.0.0:0", "--headless"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert beyond.returncode == 2 and "--token" in beyond.stderr
    assert beyond.stderr.count("\n") == 1
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run([*run, f"127.0.0.1:{port}", "--headless"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    assert busy.returncode == 2 and "cannot listen on 127.0.0.1" in busy.stderr
    assert busy.stderr.count("\n") == 1
    bad = subprocess.run([*run, "nowhere", "--headless"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "HOST:PORT" in bad.stderr


def test_the_listener_is_closed_when_the_run_ends(tmp_path, capsys):
    """`sgview listen` stops its listener's thread before returning, a program still
    connected: no thread of its own is left for the interpreter's exit to cut short (a
    process once aborted there, 'terminate called without an active exception')."""
    from viewer.cli.main import main

    address = f"127.0.0.1:{free_port()}"
    graph = tree10()
    link = viewer.publish(graph, address, name="still running")
    running = threading.Event()

    def program() -> None:
        while not running.is_set():
            graph.touch("Obj4")
            graph.update()
            time.sleep(0.02)

    thread = threading.Thread(target=program)
    thread.start()
    try:
        status = main(["listen", address, "--headless", "--frames", "3", "--size", "160x100",
                       "--samples", "0", "--log"])  # fmt: skip
        assert status == 0, capsys.readouterr().err
        assert capsys.readouterr().out.count("# frame ") == 3
        assert not [t for t in threading.enumerate() if t.name == "sgview-listen"]
        deadline = time.monotonic() + 10
        while link.connected and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not link.connected  # the viewer closed the program's connection
    finally:
        running.set()
        thread.join()
        link.close()
