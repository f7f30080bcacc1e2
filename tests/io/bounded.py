"""Loading untrusted files under a time and a memory bound, for the fuzz and corpus tests.

`bounded_load(path)` calls `load_scene` and accepts exactly two outcomes: a `Scene`, or a
`SceneError` whose message is one short printable line naming the file. Anything else
fails the test: an other exception (it propagates), a numpy RuntimeWarning (it would print
before the error), a case whose peak of traced allocations (Python objects and numpy
arrays, through tracemalloc) exceeds `megabytes`, or a hang: a SIGALRM timer interrupts a
case after `seconds`, a generous guard (a loaded machine must not make a case fail; speed
claims live in bench/), there only so that a hang cannot stall the suite.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tracemalloc
import warnings

import numpy as np

from viewer.io import SceneError, load_scene
from viewer.text import MAX_MESSAGE

#: Per-case bounds. A case normally takes milliseconds and well under a megabyte; the
#: time bound only catches hangs.
CASE_SECONDS = 120.0
CASE_MEGABYTES = 64
#: Small caps for fuzzing, so that a file claiming large data is refused cheaply and any
#: allocation the caps fail to stop shows up against CASE_MEGABYTES.
FUZZ_LIMITS = {"max_nodes": 5_000, "max_buffer_bytes": 4 * 1024 * 1024}


class CaseTooSlow(BaseException):
    """Raised by the timer inside a hanging load. A BaseException, so that the loader's
    last line of defence (``except Exception``) cannot turn it into a SceneError."""


def json_parse_peak(text: bytes) -> int:
    """The peak of traced allocations while `json.loads` parses `text` (what
    `json_memory_bound` must stay above)."""
    tracemalloc.start()
    try:
        json.loads(text)  # freeing the result cannot lower the peak already reached
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


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
    # numpy as in production (tests/conftest.py makes it raise): an overflow must show up
    # as the warning a user would see, not as an error the loader turns into a SceneError
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn", under="ignore"):
        warnings.simplefilter("always")
        try:
            result = load_scene(path, **limits)
        except SceneError as err:
            result = err
        except CaseTooSlow:
            raise AssertionError(f"loading {path} took more than {seconds} s") from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    noise = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert not noise, f"loading {path} printed warnings: {noise[:3]}"
    if tracing:
        peak = (tracemalloc.get_traced_memory()[1] - base) / 2**20
        assert peak < megabytes, f"loading {path} allocated {peak:.0f} MB at its peak"
    if isinstance(result, SceneError):
        message = str(result)
        assert message and "\n" not in message, repr(message)
        assert len(message) <= MAX_MESSAGE and message.isprintable(), repr(message[:500])
        named = {str(path), *map(str, also)}
        assert result.file in named, f"the error names {result.file!r}, not one of {named}"
    return result


# ------------------------------------------------------------------ after a load
def assert_stays_finite(scene, times=(0.0,)) -> None:
    """What the viewer computes from an accepted scene stays finite (issue 12, class 1):
    motions and events at each time in `times`, world matrices, the bounding sphere the
    renderer frames (pivots and mesh boxes), the grid step and the camera matrices.
    The same formulas as viewer/render, without a GL context."""
    import math

    import numpy as np

    from viewer.content.motion import apply_events, apply_motions
    from viewer.io.ranges import WORLD_REACH, camera_gap_reason
    from viewer.render.backdrop import nice_step
    from viewer.render.camera import Camera

    graph = scene.graph
    alive = graph.alive_ids()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy overflow warning fails the case
        for frame in sorted({e.frame for e in scene.events}):
            apply_events(scene, frame)
        for t in times:
            apply_motions(scene, t)
            world = graph.world_matrices()[alive]
            assert np.isfinite(world).all(), f"non-finite world matrix at t = {t}"
            sizes = np.array([max(scene.looks[i].size) if i in scene.looks else 1.0 for i in alive])
            spread = np.linalg.norm(world[:, :3, :3], axis=(1, 2)) * sizes
            pts = np.vstack([world[:, :3, 3] - spread[:, None], world[:, :3, 3] + spread[:, None]])
            if not len(pts):
                continue
            far = float(np.abs(pts).max())
            assert far <= 1.0001 * WORLD_REACH, f"a node reaches {far:.3g} at t = {t}"
            lo, hi = pts.min(axis=0), pts.max(axis=0)
            center, radius = (lo + hi) / 2.0, max(float(np.linalg.norm(hi - lo) / 2.0), 0.5)
            reach = float(np.max(np.abs(center))) + radius
            step = nice_step(reach / 6.0)
            assert math.isfinite(step) and step > 0 and reach * 1.6 / step < 100
            camera = Camera(fov=scene.camera.fov)
            camera.extent = radius + float(np.linalg.norm(center))
            camera.frame(center, radius)
            spec = scene.camera
            if spec.position is not None:  # as SgviewApp._apply_camera_spec
                target = spec.target if spec.target is not None else center
                if camera_gap_reason(spec.position, target) is not None:
                    target = np.asarray(spec.position) - (0.0, 0.0, radius)
                camera.look_from(spec.position, target)
            vp = camera.view_projection((64, 48)).astype(np.float32)
            assert np.isfinite(vp).all(), f"non-finite camera matrix at t = {t}"
