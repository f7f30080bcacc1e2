"""Ctrl+C while a large file loads (issue 26): the command exits with status 130 and
prints nothing more than its progress line, never a KeyboardInterrupt traceback, at
whatever moment the interrupt comes (parsing, building, laying out, the first frames)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from needs import need_gl

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    """A glTF over the 8 MB progress threshold: 250,000 nodes (about a second to load)."""
    n = 250_000
    doc = {
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": list(range(n))}],
        "nodes": [{"translation": [0.5, 0.25, 0.125]}] * n,
    }
    path = tmp_path_factory.mktemp("big") / "big.gltf"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("delay", [0.0, 0.3, 0.7])
def test_ctrl_c_while_loading_exits_130_quietly(big_file, delay):
    need_gl().release()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", str(big_file), "--headless", "--frames", "100000",
         "--size", "64x64"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A test run started in the background by a shell ignores SIGINT, and a child
        # would inherit that (Python keeps an ignored SIGINT ignored): as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        first = proc.stderr.readline()  # the progress line: the load has begun
        assert "loading" in first, first
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
        rest = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 130, rest
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest, rest
    assert len(rest.splitlines()) <= 1, rest  # at most the load's "done" line


LOST_IN_A_CALLBACK = """
import ctypes, signal, sys, time
from viewer.cli.interrupt import ctrl_c_anywhere

@ctypes.CFUNCTYPE(None)
def callback():  # as llvmlite's, called from C while numba compiles
    signal.raise_signal(signal.SIGINT)
    for _ in range(10_000):  # the handler runs here: its KeyboardInterrupt is lost
        pass

def run():
    callback()
    time.sleep(3)
    print("not interrupted")

if sys.argv[1] == "guarded":
    try:
        with ctrl_c_anywhere():
            run()
    except KeyboardInterrupt:
        print("interrupted")
else:
    run()
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_an_interrupt_lost_in_a_c_callback_is_raised_again(guarded):
    """CI once pressed Ctrl+C while numba compiled during a load: the KeyboardInterrupt
    came inside llvmlite's ctypes callback, ctypes printed it as ignored, and the run
    went on to exit 0. Under `ctrl_c_anywhere` (the command's whole run) it is raised
    again outside the callback, silently; without it, the old behaviour shows."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", LOST_IN_A_CALLBACK, "guarded" if guarded else "bare"],
        env=env, capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    if guarded:
        assert done.stdout.strip() == "interrupted" and done.stderr == "", done
    else:  # what the guard is for
        assert done.stdout.strip() == "not interrupted" and "KeyboardInterrupt" in done.stderr
