"""The very first run: frames at once, while numba compiles the core's loops elsewhere.

The compiled loops of `kernels` are cached on disk, so every launch after the first loads
them in well under a second. The first launch after an install has no cache: compiling
them all takes 10-20 s, and the window would stay black meanwhile. So `start()` (called
by the command line before it loads a scene) asks whether the cache is warm
(`compiled_ready`); when it is cold it

- starts ``python -m viewer.scene.coldstart`` in the background, which compiles every
  loop by running `exercise()` (the calls the viewer makes), fills numba's cache and
  leaves a stamp there saying so;
- meanwhile makes every new graph take the plain-Python twins of the loops as its
  kernel set (``kernel_set.py``). The default scene takes well under a millisecond a
  frame that way; a call on arrays longer than `PYTHON_MAX_LENGTH` waits for the
  compiled loops instead;
- when the background run ends, loads the freshly cached code here (in a background
  thread), after which the stand-in set of the graphs made meanwhile passes every call
  to the compiled loops, and new graphs take the compiled set.

Whether the cache is warm is a stamp file of our own, written by `exercise()` when it
ran on the compiled loops, beside numba's cache files and named after what numba's cache
depends on (numba and Python versions, ``kernels.py``'s time and size): no numba
internals are read, and deleting numba's cache folder deletes the stamp with it.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numba
import numpy as np

from . import kernel_set, kernels
from .kernel_set import COMPILED, NAMES, KernelSet, current, python_twins

__all__ = ["PYTHON_MAX_LENGTH", "compiled_ready", "compiling", "exercise", "python_loops", "start"]

#: The folder holding the `viewer` package: the background process starts there.
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: Longest array a Python twin serves (a few ms a frame); longer ones wait for numba.
PYTHON_MAX_LENGTH = 5_000
_lock = threading.Lock()
_ready = False
_pending: ColdStart | None = None


def _cache_folder(source: Path) -> Path:
    """The folder numba keeps ``source``'s cached loops under, by its documented rule:
    ``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the source when that can be
    written, else the user-wide cache folder."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    beside = source.parent / "__pycache__"
    if os.access(beside if beside.exists() else source.parent, os.W_OK):
        return beside
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"


def _stamp() -> Path:
    """The stamp file `exercise()` leaves once the compiled loops are in numba's cache."""
    source = Path(kernels.__file__).resolve()
    st = source.stat()
    facts = (
        numba.__version__,
        sys.version,
        platform.machine(),
        str(source),
        st.st_mtime_ns,
        st.st_size,
    )
    key = hashlib.sha256(repr(facts).encode()).hexdigest()[:20]
    return _cache_folder(source) / f"sgview-loops-{key}.ready"


def _record_ready() -> None:
    """Leave the stamp (and drop stale ones); a folder that cannot be written only
    means the next launch starts on the twins again while it finds the cache warm."""
    stamp = _stamp()
    with suppress(OSError):
        stamp.parent.mkdir(parents=True, exist_ok=True)
        for old in stamp.parent.glob("sgview-loops-*.ready"):
            if old != stamp:
                old.unlink(missing_ok=True)
        stamp.write_text(f"numba {numba.__version__}\n", encoding="utf-8")


def compiled_ready() -> bool:
    """True when `exercise()` ran on the compiled loops with this numba, this Python and
    this ``kernels.py``, against the cache folder in use: the cache is warm."""
    global _ready
    if not _ready:
        _ready = _stamp().is_file()
    return _ready


def start(err=None, *, announce: bool = True, also: tuple[str, ...] = ()) -> ColdStart | None:
    """On a cold cache: compile in the background and run the Python twins meanwhile (see
    the module notes); says so on `err` (default stderr), or, with ``announce=False``, only
    once `ColdStart.announce` is called (the command line first checks its arguments, so
    a mistyped command prints its one line and nothing else). None when the cache is warm.

    `also` names modules above the core with compiled loops of their own, each with an
    ``exercise()``: the same background step compiles them, and loads them here before
    `compiling()` turns False (the caller names them: the core imports none)."""
    global _pending
    with _lock:
        if _pending is not None:
            return _pending
        if compiled_ready() or os.environ.get("SGVIEW_COLDSTART") == "off":
            return None
        _pending = ColdStart(err if err is not None else sys.stderr, announce, also)
        return _pending


def compiling() -> bool:
    """True while a first run's background compile runs (until its loops are loaded)."""
    return _pending is not None


class ColdStart:
    """One background compile and the Python twins that stand in meanwhile."""

    def __init__(self, err, announce: bool = True, also: tuple[str, ...] = ()) -> None:
        self._err = err
        self._also = tuple(also)
        self._announced = announce
        self._held: list[str] = []  # notes waiting for `announce`
        self.started = time.perf_counter()
        self.done = threading.Event()
        self.failed: str | None = None
        self._say(
            "first run: compiling the core's loops in the background (once; 10-20 s on an "
            "idle machine); frames run meanwhile on a slower path"
        )
        self._process = subprocess.Popen(
            [sys.executable, "-m", "viewer.scene.coldstart", *self._also],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=_PACKAGE_ROOT,  # `viewer` imports from there; the user's folder may go away
        )
        twins = python_twins()
        stand_ins = {name: _guarded(twins[name], getattr(COMPILED, name), self) for name in NAMES}
        kernel_set.stand_in(KernelSet(stand_ins, "Python twins while compiling"))
        threading.Thread(target=self._finish, name="sgview-coldstart", daemon=True).start()

    def _finish(self) -> None:
        """Wait for the background compile, load its results, hand over to the compiled
        loops: new graphs take them, and the stand-ins pass every call on to them."""
        global _pending, _ready
        _, stderr = self._process.communicate()
        if self._process.returncode != 0:
            lines = stderr.decode(errors="replace").strip().splitlines()
            self.failed = lines[-1] if lines else f"exit status {self._process.returncode}"
        kernel_set.stand_in(None)
        if self.failed is None:
            try:  # load from the disk cache, here, rather than at the next frame's calls
                _exercise_also(self._also)
                exercise()
            except Exception as exc:  # a call then compiles what it needs, as before
                self.failed = f"loading the compiled loops: {exc}"
        with _lock:
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


@contextmanager
def python_loops() -> Iterator[None]:
    """Graphs made inside the block run every loop as its Python twin, whatever the size
    (for tests and benches that compare the two paths)."""
    with _lock:
        if _pending is not None:
            raise RuntimeError("a cold start is running")
        kernel_set.stand_in(KernelSet(python_twins(), "Python twins"))
    try:
        yield
    finally:
        kernel_set.stand_in(None)


def _guarded(twin: Callable, compiled: Callable, cold: ColdStart) -> Callable:
    """`twin` for small arrays until ``cold`` is done; `compiled` after that, and for a
    long array (after waiting for it)."""

    def call(*args):
        if cold.done.is_set():
            return compiled(*args)
        if any(isinstance(a, np.ndarray) and a.shape[0] > PYTHON_MAX_LENGTH for a in args):
            cold.wait()
            return compiled(*args)
        return twin(*args)

    call.__name__ = call.__qualname__ = twin.__name__
    call.__doc__ = twin.__doc__
    return call


def exercise() -> None:
    """Make the calls into the loops that the viewer makes, so each gets compiled (or
    loaded) for the argument types it is used with (tests/scene/test_coldstart.py checks
    that a viewer session needs no other). On the compiled loops, it then checks every
    loop was compiled and leaves the stamp `compiled_ready` looks for."""
    from .graph import SceneGraph

    on_compiled = current() is COMPILED
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
    if on_compiled:
        missing = [name for name in NAMES if not getattr(COMPILED, name).signatures]
        if missing:
            raise RuntimeError(f"not compiled by exercise(): {', '.join(missing)}")
        _record_ready()


def _exercise_also(names: tuple[str, ...]) -> None:
    """Compile (or load) the loops of the modules `start` was asked to cover too."""
    for name in names:
        importlib.import_module(name).exercise()


if __name__ == "__main__":
    with suppress(OSError):  # below the viewer: its first frames come first on a busy CPU
        os.nice(10)
    _exercise_also(tuple(sys.argv[1:]))  # (first: the stamp below says all are cached)
    exercise()
