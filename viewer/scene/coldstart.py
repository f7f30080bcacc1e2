"""The very first run: frames at once, while numba compiles the core's loops elsewhere.

The compiled loops of `kernels` are cached on disk, so every launch after the first loads
them in well under a second. The first launch after an install has no cache: compiling
them all takes 10-20 s, and the window would stay black meanwhile. So `start()` (called
by the command line before it loads a scene) checks numba's cache; when it is cold it

- starts ``python -m viewer.scene.coldstart`` in the background, which compiles every
  loop by running `exercise()` (the calls the viewer makes) and fills the cache;
- meanwhile runs each loop as plain Python: the very same source, read from the
  dispatcher's ``py_func``, with calls between loops also going to their Python twins.
  The default scene takes well under a millisecond a frame that way; a call on arrays
  longer than `PYTHON_MAX_LENGTH` waits for the compiled loops instead;
- when the background run ends, loads the freshly cached code and puts the compiled
  loops back, for every call from then on.

The Python twins give the same flags, logs and counts (the same code); their matrices can
differ from the compiled ones in the last bit, where LLVM fuses a multiply and an add.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
from numba.core.registry import CPUDispatcher

from . import kernels as K

__all__ = [
    "PYTHON_MAX_LENGTH",
    "compiled_ready",
    "exercise",
    "kernel_names",
    "python_loops",
    "start",
]

#: The folder holding the `viewer` package: the background process starts there.
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: Longest array a Python twin serves (a few ms a frame); longer ones wait for numba.
PYTHON_MAX_LENGTH = 5_000
_lock = threading.Lock()
_ready = False
_pending: ColdStart | None = None


def kernel_names() -> list[str]:
    """The compiled loops of `kernels`, by name."""
    return [name for name, obj in vars(K).items() if isinstance(obj, CPUDispatcher)]


def _dispatchers() -> dict[str, CPUDispatcher]:
    """The compiled loops, but those numba inlines into their callers (never compiled or
    cached on their own); while a cold start runs, the module holds the Python twins."""
    if _pending is not None:
        loops = dict(_pending.compiled)
    else:
        loops = {name: getattr(K, name) for name in kernel_names()}
    return {n: d for n, d in loops.items() if d.targetoptions.get("inline") != "always"}


def _cached_signatures(dispatcher: CPUDispatcher) -> list | None:
    """The signatures numba's disk cache holds for the current source, or None when the
    cache cannot be read this way (numba internals moved: then assume it is warm)."""
    try:
        index = dispatcher._cache._cache_file._load_index()
    except (AttributeError, TypeError):
        return None
    return [key[0] for key in index]


def compiled_ready() -> bool:
    """True when every loop is in numba's disk cache (or the cache cannot be inspected)."""
    global _ready
    if not _ready:
        cached = [_cached_signatures(d) for d in _dispatchers().values()]
        _ready = all(sigs is None or sigs for sigs in cached)
    return _ready


def start(err=None, *, announce: bool = True) -> ColdStart | None:
    """On a cold cache: compile in the background and run the Python twins meanwhile (see
    the module notes); says so on `err` (default stderr), or, with ``announce=False``, only
    once `ColdStart.announce` is called (the command line first checks its arguments, so
    a mistyped command prints its one line and nothing else). None when the cache is warm."""
    global _pending
    with _lock:
        if _pending is not None:
            return _pending
        if compiled_ready() or os.environ.get("SGVIEW_COLDSTART") == "off":
            return None
        _pending = ColdStart(err if err is not None else sys.stderr, announce)
        return _pending


class ColdStart:
    """One background compile and the Python twins that stand in meanwhile."""

    def __init__(self, err, announce: bool = True) -> None:
        self._err = err
        self._announced = announce
        self._held: list[str] = []  # notes waiting for `announce`
        self.compiled = {name: getattr(K, name) for name in kernel_names()}
        self.started = time.perf_counter()
        self.done = threading.Event()
        self.failed: str | None = None
        self._say(
            "first run: compiling the core's loops in the background (once; 10-20 s on an "
            "idle machine); frames run meanwhile on a slower path"
        )
        self._process = subprocess.Popen(
            [sys.executable, "-m", "viewer.scene.coldstart"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=_PACKAGE_ROOT,  # `viewer` imports from there; the user's folder may go away
        )
        twins = _python_twins(self.compiled)
        for name, twin in twins.items():
            setattr(K, name, _guarded(twin, self))
        threading.Thread(target=self._finish, name="sgview-coldstart", daemon=True).start()

    def _finish(self) -> None:
        """Wait for the background compile, load its results, put the compiled loops back."""
        global _pending, _ready
        _, stderr = self._process.communicate()
        if self._process.returncode != 0:
            lines = stderr.decode(errors="replace").strip().splitlines()
            self.failed = lines[-1] if lines else f"exit status {self._process.returncode}"
        else:
            try:  # load from the disk cache, here, rather than at the next frame's calls
                for dispatcher in self.compiled.values():
                    for sig in _cached_signatures(dispatcher) or ():
                        dispatcher.compile(sig)
            except Exception as exc:  # a call then compiles what it needs, as before
                self.failed = f"loading the compiled loops: {exc}"
        with _lock:
            for name, dispatcher in self.compiled.items():
                setattr(K, name, dispatcher)
            _pending = None
            _ready = self.failed is None
        self.done.set()
        took = time.perf_counter() - self.started
        if self.failed is None:
            note = f"compiled loops ready after {took:.1f} s; later launches start with them"
        else:
            note = f"compiling in the background failed ({self.failed}); compiling on use"
        self._say(note)

    def wait(self) -> None:
        """Block until the compiled loops are back (a call too big for the Python twins)."""
        if self.done.is_set():
            return
        self.announce()  # a wait is worth saying at once, whatever the caller held back
        self._say("waiting for the compiled loops (first run only) ...")
        self.done.wait()

    def announce(self) -> None:
        """Print the notes held back so far, and every later one as it comes."""
        with _lock:
            self._announced = True
            held, self._held = self._held, []
        for note in held:
            self._say(note)

    def _say(self, note: str) -> None:
        if not self._announced:
            self._held.append(note)
            return
        with suppress(OSError, ValueError):  # the stream closed under a background thread
            print(f"sgview: {note}", file=self._err, flush=True)


def _python_twins(compiled: dict[str, CPUDispatcher]) -> dict[str, Callable]:
    """Each loop's Python source as a plain function whose calls to other loops reach
    their Python twins too. Each twin runs in a copy of its own module's namespace (the
    loops call helpers of `flags` and `trs` by name), in which every compiled loop is
    swapped for its twin; numba keeps the real modules."""
    namespaces: dict[int, dict] = {}
    made: dict[int, Callable] = {}

    def twin_of(dispatcher: CPUDispatcher) -> Callable:
        if id(dispatcher) not in made:
            f = dispatcher.py_func
            ns = namespaces.setdefault(id(f.__globals__), dict(f.__globals__))
            made[id(dispatcher)] = types.FunctionType(
                f.__code__, ns, f.__name__, f.__defaults__, f.__closure__
            )
        return made[id(dispatcher)]

    twins = {name: twin_of(dispatcher) for name, dispatcher in compiled.items()}
    swapped = True
    while swapped:  # a twin made here may bring a new namespace to swap in
        swapped = False
        for ns in list(namespaces.values()):
            for key, value in list(ns.items()):
                if isinstance(value, CPUDispatcher):
                    ns[key] = twin_of(value)
                    swapped = True
    return twins


@contextmanager
def python_loops() -> Iterator[None]:
    """Run every loop as its Python twin inside the block, whatever the size (for tests
    and benches that compare the two paths)."""
    with _lock:
        if _pending is not None:
            raise RuntimeError("a cold start is running")
        compiled = {name: getattr(K, name) for name in kernel_names()}
        for name, twin in _python_twins(compiled).items():
            setattr(K, name, twin)
    try:
        yield
    finally:
        for name, dispatcher in compiled.items():
            setattr(K, name, dispatcher)


def _guarded(twin: Callable, cold: ColdStart) -> Callable:
    """`twin` for small arrays; for a long one, wait for and call the compiled loop."""
    name = twin.__name__

    def call(*args):
        if any(isinstance(a, np.ndarray) and a.shape[0] > PYTHON_MAX_LENGTH for a in args):
            cold.wait()
            return getattr(K, name)(*args)
        return twin(*args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = twin.__doc__
    return call


def exercise() -> None:
    """Make the calls into the loops that the viewer makes, so each gets compiled (or
    loaded) for the argument types it is used with (tests/scene/test_coldstart.py checks
    that a viewer session needs no other)."""
    from .graph import SceneGraph

    graph = SceneGraph()
    root = graph.add("Root", position=(0.0, 1.0, 0.0))
    ids = graph.add_many(None, [root.id, root.id, root.id + 1, root.id + 1, -1])
    graph.update()
    graph.set_locals(ids[:2], positions=np.ones((2, 3)), rotations=np.tile([0, 0, 0, 1.0], (2, 1)))
    graph.set_locals(ids[2:4], scales=np.full((2, 3), 2.0))
    graph.update()
    leaf = graph.node(int(ids[3]))
    leaf.local_position = (1.0, 2.0, 3.0)
    _ = leaf.local_matrix, leaf.world_matrix, graph.world_matrices()
    graph.touch(root)
    graph.update()
    leaf.set_parent(None, keep_world=True)
    leaf.set_parent(root)
    graph.update()
    graph.node(int(ids[4])).set_parent(leaf)  # a parent id above its child's
    graph.update()
    graph.remove(graph.node(int(ids[0])))
    root.detach_children()
    graph.update()
    _ = graph.world_matrices()


if __name__ == "__main__":
    with suppress(OSError):  # below the viewer: its first frames come first on a busy CPU
        os.nice(10)
    exercise()
    missing = [name for name, loop in _dispatchers().items() if not _cached_signatures(loop)]
    if missing:
        sys.exit(f"not compiled by exercise(): {', '.join(missing)}")
