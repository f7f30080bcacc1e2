"""The first run after an install: the Python twins of the compiled loops agree with the
oracle, a cold launch shows its frames at once and says why it is slower, the background
compile fills the cache, and `exercise()` compiles every signature a viewer run uses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test
from numba.extending import is_jitted
from test_property import GraphMachine

from viewer.scene import SceneGraph, kernel_set
from viewer.scene import kernels as K
from viewer.scene.coldstart import python_loops
from viewer.scene.kernel_set import COMPILED, NAMES, current

REPO = Path(__file__).resolve().parents[2]


def _runs_on(graph: SceneGraph) -> set[bool]:
    """Whether the loops a graph's storage calls are compiled (one answer per loop)."""
    loops = graph._store.kernels  # white-box: the test looks at what the storage holds
    return {is_jitted(getattr(loops, name)) for name in NAMES}


def test_the_kernel_set_names_every_public_loop():
    public = {
        n
        for n, f in vars(K).items()
        if is_jitted(f) and f.py_func.__module__ == K.__name__ and not n.startswith("_")
    }
    assert set(NAMES) == public
    with pytest.raises(AttributeError):
        COMPILED.mark = None  # one object, fixed once made


def test_python_twins_agree_with_the_oracle():
    before = SceneGraph()
    with python_loops():
        assert _runs_on(SceneGraph()) == {False}
        assert _runs_on(before) == {True}  # a graph keeps the set it was made with
        run_state_machine_as_test(GraphMachine, settings=settings(max_examples=25))
    assert current() is COMPILED and _runs_on(SceneGraph()) == {True}  # restored


def test_python_twins_give_the_compiled_logs_and_matrices():
    def frames():
        g = SceneGraph()
        ids = g.add_many(None, [-1, 0, 0, 1, 1, 2, 5, -1, 7])
        out = [g.update()]
        rng = np.random.default_rng(3)
        for _ in range(20):
            pick = rng.choice(ids, size=3, replace=False)
            g.set_locals(pick, positions=rng.normal(size=(3, 3)))
            out.append(g.update())
        return [r.log_lines() for r in out], g.world_matrices().copy()

    compiled_logs, compiled_world = frames()
    with python_loops():
        twin_logs, twin_world = frames()
    assert twin_logs == compiled_logs
    np.testing.assert_allclose(twin_world, compiled_world, rtol=0, atol=1e-12)


def _run(args, cache, cwd=None, **env):
    environment = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_CACHE_DIR": str(cache), **env}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=environment, timeout=300, cwd=cwd)  # fmt: skip


COVERAGE = """
import json, os, tempfile
from viewer.cli.main import main
dump = os.path.join(tempfile.mkdtemp(), "w.json")
from viewer.scene.coldstart import exercise
from viewer.scene.kernel_set import COMPILED, NAMES
def cached():
    return {n: sorted(map(str, getattr(COMPILED, n).signatures)) for n in NAMES}
exercise()
before = cached()
for argv in (["collision", "--frames", "20"], ["robot_arm", "--frames", "20"],
             ["--generate", "random:300", "--frames", "3"], ["tree10", "--frames", "2",
             "--touch", "Obj2", "--select", "Obj5", "--dump-world", dump]):
    assert main([*argv, "--headless", "--size", "160x90"]) == 0
after = cached()
print(json.dumps({n: sorted(set(after[n]) - set(before[n])) for n in after}))
"""


#: The renderer's compiled loops, compiled in the same background step: loaded, not compiled.
RENDER_LOOPS = """
from viewer.render import glow_loops as loops
loops.exercise()
print(sum(len(getattr(loops, n).stats.cache_misses) for n in ("stamp_nodes", "stamp_late",
                                                              "stage_rows")))
"""


def test_a_cold_launch_shows_frames_at_once_and_fills_the_cache(tmp_path):
    cache = tmp_path / "numba-cache"
    args = ["-m", "viewer", "--headless", "--still", "--touch", "Obj2", "--log", "--frames",
            "2", "--size", "160x90", "--no-overlay"]  # fmt: skip
    work = tmp_path / "work"  # a folder that goes away while the compile runs
    work.mkdir()
    cold = _run(args, cache, cwd=work)
    shutil.rmtree(work)
    assert cold.returncode == 0, cold.stderr
    assert "first run: compiling the core's loops in the background" in cold.stderr
    assert cold.stdout.startswith("# frame 1\n*Update Local : Obj2*\n")

    ready = ["-c", "from viewer.scene.coldstart import compiled_ready; print(compiled_ready())"]
    deadline = time.monotonic() + 240
    while _run(ready, cache).stdout.strip() != "True":
        assert time.monotonic() < deadline, "the background compile did not finish"
        time.sleep(2)
    warm = _run(args, cache)
    assert warm.returncode == 0 and warm.stderr == ""
    assert warm.stdout == cold.stdout
    loaded = _run(["-c", RENDER_LOOPS], cache)  # the command line named them to the step
    assert loaded.returncode == 0 and loaded.stdout.strip() == "0", loaded.stderr

    coverage = _run(["-c", COVERAGE], cache, SGVIEW_COLDSTART="off")
    assert coverage.returncode == 0, coverage.stderr
    new = {name: sigs for name, sigs in json.loads(coverage.stdout).items() if sigs}
    assert not new, f"signatures a viewer run compiled that exercise() does not: {new}"


class _Compiling:
    """Stands in for a running ColdStart: `wait` returns at once, and says it was called."""

    def __init__(self):
        self.done = threading.Event()
        self.waited = False

    def wait(self):
        self.waited = True


def test_a_long_array_waits_for_the_compiled_loops():
    from viewer.scene import coldstart

    cold = _Compiling()
    twin_calls = []

    def all_finite(*args):  # stands in for the twin of kernels.all_finite
        twin_calls.append(args)

    guarded = coldstart._guarded(all_finite, K.all_finite, cold)
    guarded(np.zeros((3, 3)))
    assert len(twin_calls) == 1 and not cold.waited
    long = np.zeros((coldstart.PYTHON_MAX_LENGTH + 1, 3))
    assert guarded(long) is True  # the compiled all_finite answered, after the wait
    assert cold.waited and len(twin_calls) == 1


def test_the_stand_ins_hand_over_to_the_compiled_loops_when_done():
    """A graph made during a cold start keeps its stand-in set; once the compile is done
    every call of that set reaches the compiled loop, and new graphs take the compiled
    set: no module is patched, no handle or import can keep the twins alive."""
    from viewer.scene import coldstart

    cold = _Compiling()
    twins = kernel_set.python_twins()
    stand_ins = {n: coldstart._guarded(twins[n], getattr(COMPILED, n), cold) for n in NAMES}
    kernel_set.stand_in(kernel_set.KernelSet(stand_ins, "test"))
    try:
        graph = SceneGraph()
    finally:
        kernel_set.stand_in(None)
    assert current() is COMPILED
    node = graph.add("A")
    calls = []
    real = twins["recompute"]

    def counting(*args):
        calls.append(1)
        return real(*args)

    stand_ins["recompute"] = coldstart._guarded(counting, COMPILED.recompute, cold)
    graph._store.kernels = kernel_set.KernelSet(stand_ins, "test")  # white-box: count twins
    graph.update()
    assert calls == [1]
    cold.done.set()
    node.local_position = (1.0, 2.0, 3.0)
    graph.update()
    assert calls == [1]  # the compiled recompute answered
    np.testing.assert_array_equal(node.world_position, [1.0, 2.0, 3.0])


def test_the_stamp_follows_the_cache_folder(tmp_path, monkeypatch):
    """`compiled_ready` answers from a stamp that `exercise()` leaves in numba's cache
    folder: a new, empty cache folder is cold until exercise() ran against it."""
    from viewer.scene import coldstart

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(coldstart, "_ready", False)
    assert not coldstart.compiled_ready()
    coldstart.exercise()
    assert coldstart.compiled_ready()
    assert [p.name.startswith("sgview-loops-") for p in (tmp_path / "cache").iterdir()] == [True]
    with python_loops():  # on the twins nothing was compiled: no stamp
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "other"))
        monkeypatch.setattr(coldstart, "_ready", False)
        coldstart.exercise()
        assert not coldstart.compiled_ready()


@pytest.fixture(autouse=True)
def _compiled_afterwards():
    yield
    assert current() is COMPILED
