"""Ctrl+C while a large file loads (issue 26): the command exits with status 130 and
prints nothing more than its progress line, never a KeyboardInterrupt traceback, at
whatever moment the interrupt comes (parsing, building, laying out, the first frames)."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
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


# -- one interrupt path: SIGINT at any moment of a reload storm, and SIGTERM -------------

STORM_GOOD = """[[node]]
name = "A"
position = [{k}, 0, 0]
mesh = "cube"

[[node]]
name = "B"
parent = "A"
position = [1, 0, 0]
"""
#: Saves the watcher refuses: a syntax error, an unknown parent, an empty file, an
#: infinite value (each a "reload failed" line).
STORM_BAD = (
    '[[node]]\nname = "A"\nposition = [1, 0\n',
    '[[node]]\nname = "A"\nparent = "Z"\n',
    "",
    '[[node]]\nname = "A"\nposition = [1e999, 0, 0]\n',
)
#: sgview's own one-line messages (the refused reloads; on a cold numba cache, the
#: first run's note), the only lines a storm may print on stderr: no traceback, no
#: Python report, and no internal error.
STORM_LINE = re.compile(r"sgview: (?!internal error).*")


def _storm_run(scene: Path, rng: random.Random, delay: float, signum: int):
    """Start `sgview scene --headless`, rewrite `scene` with good and bad contents until
    it ends (bad ones only once a first reload showed the file is watched: a bad file at
    the first load is exit 2, rightly), send `signum` after `delay` seconds; return the
    exit status, stderr and how many saves the storm made."""
    scene.write_text(STORM_GOOD.format(k=0))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", str(scene), "--headless", "--frames", "100000",
         "--size", "64x64"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    stop, watched = threading.Event(), threading.Event()
    saves = [0]

    def read_stdout() -> None:
        for line in proc.stdout:
            if "reloaded" in line:
                watched.set()

    def storm() -> None:
        while not stop.is_set():
            saves[0] += 1
            bad = watched.is_set() and saves[0] % 2 == 0
            scene.write_text(rng.choice(STORM_BAD) if bad else STORM_GOOD.format(k=saves[0]))
            time.sleep(rng.uniform(0.01, 0.12))

    threads = [threading.Thread(target=read_stdout), threading.Thread(target=storm)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(delay)
        proc.send_signal(signum)
        code = proc.wait(timeout=60)
        err = proc.stderr.read()
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for thread in threads:
            thread.join()
    return code, err, saves[0]


@pytest.mark.skipif(
    os.environ.get("SGVIEW_STRESS") != "1",
    reason="a stress run (SGVIEW_STRESS=1): a SIGINT at some random moments still ends the "
    "process with SIGSEGV, a native crash not yet found, so CI would fail by chance",
)
def test_sigint_at_random_moments_of_a_reload_storm_exits_130_quietly(tmp_path):
    """Whatever runs when Ctrl+C comes (the imports, the load, numba's dispatch, a reload
    the watcher refuses, a frame), the run ends with 130 and says nothing but its own
    reload lines. Up to 20 runs at random moments, within about a minute."""
    need_gl().release()
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    scene = tmp_path / "storm.toml"
    start, runs = time.monotonic(), 0
    while runs < 20 and (runs < 6 or time.monotonic() - start < 55):
        delay = rng.uniform(0.2, 2.0)
        code, err, saves = _storm_run(scene, rng, delay, signal.SIGINT)
        runs += 1
        what = f"seed {seed}, run {runs}, SIGINT after {delay:.2f} s, {saves} saves"
        assert code == 130, f"{what}: exit {code}\n{err}"
        strays = [line for line in err.splitlines() if not STORM_LINE.fullmatch(line)]
        assert not strays and "Traceback" not in err, f"{what}:\n{err}"


def test_sigterm_in_a_reload_storm_exits_143_quietly(tmp_path):
    need_gl().release()
    rng = random.Random(143)
    code, err, _ = _storm_run(tmp_path / "storm.toml", rng, 1.5, signal.SIGTERM)
    assert code == 143, err
    assert all(STORM_LINE.fullmatch(line) for line in err.splitlines()), err
    assert "Traceback" not in err, err


SWALLOWED = """
import signal, sys, time
from viewer.cli.interrupt import ctrl_c_anywhere, ended

def stubborn():  # as a layer that catches everything to report it as its own failure
    for _ in range(3):
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.01)
        except BaseException as exc:
            print("swallowed", type(exc).__name__, ended())
    time.sleep(3)
    print("not interrupted")

try:
    with ctrl_c_anywhere() as ending:
        try:
            stubborn()
        except KeyboardInterrupt:
            print("interrupted", ending.status)
except KeyboardInterrupt:
    print("interrupted late")
"""


def test_an_interrupt_swallowed_on_its_way_is_raised_again():
    """A KeyboardInterrupt caught and dropped (or turned into another error) on its way
    up does not let the run go on: it is raised again moments later, and the noted signal
    gives the exit status."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED],
        env=env, capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[:3] == ["swallowed KeyboardInterrupt 130"] * 3, done
    assert lines[3:] == ["interrupted 130"] and done.stderr == "", done


def test_the_command_module_imports_light():
    """`viewer.cli.main` is imported before `main` can handle Ctrl+C: it imports no numpy
    (a Ctrl+C during that import would be Python's traceback), and its name for the
    command is the parser's."""
    probe = (
        "import sys; import viewer.cli.main as m; light = 'numpy' not in sys.modules; "
        "from viewer.cli import args; print(light, m.PROG == args.PROG)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["True", "True"], done
