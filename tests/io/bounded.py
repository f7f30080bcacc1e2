"""Loading untrusted files under a time and a memory bound, for the fuzz and corpus tests.

`bounded_load(path)` calls `load_scene` and accepts exactly two outcomes: a `Scene`, or a
`SceneError` whose message is one line naming the file. Anything else fails the test: an
other exception (it propagates), a case that runs longer than `seconds` (a SIGALRM timer
interrupts it, so a hang cannot stall the suite), or one whose peak of traced allocations
(Python objects and numpy arrays, through tracemalloc) exceeds `megabytes`.
"""

from __future__ import annotations

import contextlib
import signal
import time
import tracemalloc

from viewer.io import SceneError, load_scene

#: Per-case bounds. A case normally takes milliseconds and well under a megabyte.
CASE_SECONDS = 5.0
CASE_MEGABYTES = 64
#: Small caps for fuzzing, so that a file claiming large data is refused cheaply and any
#: allocation the caps fail to stop shows up against CASE_MEGABYTES.
FUZZ_LIMITS = {"max_nodes": 5_000, "max_buffer_bytes": 4 * 1024 * 1024}


class CaseTooSlow(BaseException):
    """Raised by the timer inside a hanging load. A BaseException, so that the loader's
    last line of defence (``except Exception``) cannot turn it into a SceneError."""


@contextlib.contextmanager
def memory_traced():
    """tracemalloc on for the block (for a whole fuzz test: starting it costs time)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        yield
    finally:
        if started:
            tracemalloc.stop()


def _interrupt(signum, frame):
    raise CaseTooSlow


def bounded_load(path, *, seconds: float = CASE_SECONDS, megabytes: float = CASE_MEGABYTES,
                 also=(), **limits):  # fmt: skip
    """`load_scene(path, **limits)` under the bounds; returns the Scene or the SceneError.

    The error must name `path`, or one of the files in `also` (the glTF files a scene
    includes: a problem inside one names that file).
    """
    tracing = tracemalloc.is_tracing()
    if tracing:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
    previous = signal.signal(signal.SIGALRM, _interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.perf_counter()
    try:
        result = load_scene(path, **limits)
    except SceneError as err:
        result = err
    except CaseTooSlow:
        raise AssertionError(f"loading {path} took more than {seconds} s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - start
    assert elapsed < seconds, f"loading {path} took {elapsed:.1f} s"
    if tracing:
        peak = (tracemalloc.get_traced_memory()[1] - base) / 2**20
        assert peak < megabytes, f"loading {path} allocated {peak:.0f} MB at its peak"
    if isinstance(result, SceneError):
        message = str(result)
        assert message and "\n" not in message, repr(message)
        named = {str(path), *map(str, also)}
        assert result.file in named, f"the error names {result.file!r}, not one of {named}"
    return result
