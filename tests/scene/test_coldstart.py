"""The first run after an install: the Python twins of the compiled loops agree with the
oracle, a cold launch shows its frames at once and says why it is slower, the background
compile fills the cache, and `exercise()` compiles every signature a viewer run uses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test
from test_property import GraphMachine

from viewer.scene import SceneGraph
from viewer.scene import kernels as K
from viewer.scene.coldstart import kernel_names, python_loops

REPO = Path(__file__).resolve().parents[2]


def test_python_twins_agree_with_the_oracle():
    with python_loops():
        assert all(not hasattr(getattr(K, n), "signatures") for n in kernel_names())
        run_state_machine_as_test(GraphMachine, settings=settings(max_examples=25))
    assert all(hasattr(getattr(K, n), "signatures") for n in kernel_names())  # restored


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
from viewer.cli import main
dump = os.path.join(tempfile.mkdtemp(), "w.json")
from viewer.scene.coldstart import _cached_signatures, _dispatchers
def cached():
    return {n: sorted(map(str, _cached_signatures(d))) for n, d in _dispatchers().items()}
before = cached()
for argv in (["collision", "--frames", "20"], ["robot_arm", "--frames", "20"],
             ["--generate", "random:300", "--frames", "3"], ["tree10", "--frames", "2",
             "--touch", "Obj2", "--select", "Obj5", "--dump-world", dump]):
    assert main([*argv, "--headless", "--size", "160x90"]) == 0
after = cached()
print(json.dumps({n: sorted(set(after[n]) - set(before[n])) for n in after}))
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

    coverage = _run(["-c", COVERAGE], cache, SGVIEW_COLDSTART="off")
    assert coverage.returncode == 0, coverage.stderr
    new = {name: sigs for name, sigs in json.loads(coverage.stdout).items() if sigs}
    assert not new, f"signatures a viewer run compiled that exercise() does not: {new}"


def test_a_long_array_waits_for_the_compiled_loops():
    from viewer.scene import coldstart

    class Ready:
        def wait(self):
            self.waited = True

    ready = Ready()
    twin_calls = []

    def all_finite(*args):  # stands in for the twin of kernels.all_finite
        twin_calls.append(args)

    guarded = coldstart._guarded(all_finite, ready)
    guarded(np.zeros((3, 3)))
    assert len(twin_calls) == 1 and not hasattr(ready, "waited")
    long = np.zeros((coldstart.PYTHON_MAX_LENGTH + 1, 3))
    assert guarded(long) is True  # the compiled all_finite answered, after the wait
    assert ready.waited and len(twin_calls) == 1


@pytest.fixture(autouse=True)
def _compiled_afterwards():
    yield
    assert all(hasattr(getattr(K, n), "signatures") for n in kernel_names())
