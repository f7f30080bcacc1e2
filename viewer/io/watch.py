"""Live reload: notice that a scene file was saved and load it again.

Pure file-system polling (no threads, no GL): the frame loop calls ``poll()`` every frame
and the watcher looks at the disk at most every ``interval`` seconds. A change is read
only once it has settled: the file looked the same on two looks ``settle`` seconds apart
(an editor's save truncates the file, then writes it; reading in between would load an
empty or half-written scene as if it had been saved). A read during which the file
changed again is thrown away and waits for the next settled look. A save that does not
load (a syntax error, a half-written file, a deleted file) is reported as a
``SceneError`` and the caller keeps showing its last good scene; the next good save
loads again.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from viewer.content.scene import Scene
from viewer.io.errors import SceneError
from viewer.io.loader import file_signature as _signature
from viewer.io.loader import load_scene

__all__ = ["SceneWatcher", "watch_scene"]

_NOTHING = "nothing"  # no change waiting to settle (None means "the file is missing")


def watch_scene(scene: Scene, **load_options) -> SceneWatcher | None:
    """A watcher for the file `scene` was loaded from (None for generated scenes).

    It compares against the file as it was when the scene was read (`Scene.source_stamp`),
    and reloads with the same `load_scene` keyword arguments (the node and buffer caps).
    """
    if scene.source is None:
        return None
    load = functools.partial(load_scene, **load_options) if load_options else load_scene
    return SceneWatcher(scene.source, seen=scene.source_stamp, load=load)


class SceneWatcher:
    """Reloads ``path`` when it changes on disk.

    ``poll()`` returns ``None`` when nothing changed, the new ``Scene`` after a good
    save, or the ``SceneError`` of a bad one (once per bad save).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        interval: float = 0.25,
        settle: float = 0.1,
        load: Callable[[Path], Scene] = load_scene,
        clock: Callable[[], float] = time.monotonic,
        seen: tuple[int, int] | None = None,
    ) -> None:
        self.path = Path(path)
        self.interval = interval
        self.settle = settle
        self._load = load
        self._clock = clock
        #: The signature of the version on screen: `seen` (from `file_signature` before the
        #: shown scene was read), else the file as it is now.
        self._seen = seen if seen is not None else _signature(self.path)
        self._next_look = clock() + interval
        #: A changed signature seen once, waiting for a second look to find it unchanged.
        self._candidate: tuple[int, int] | None | str = _NOTHING
        self.error: SceneError | None = None  # the error of the last save, if it failed

    def poll(self) -> Scene | SceneError | None:
        """Look at the file if ``interval`` has passed; reload it once a change settled."""
        now = self._clock()
        if now < self._next_look:
            return None
        self._next_look = now + self.interval
        sig = _signature(self.path)
        if sig == self._seen:
            self._candidate = _NOTHING
            return None
        if sig != self._candidate:  # still changing: look again soon
            self._candidate = sig
            self._next_look = now + self.settle
            return None
        self._candidate = _NOTHING
        if sig is None:
            self._seen = None
            self.error = SceneError(
                "the file was deleted or renamed; showing the last good scene", file=self.path
            )
            return self.error
        try:
            scene = self._load(self.path)
        except SceneError as exc:
            result: Scene | SceneError = exc
        else:
            result = scene
        if _signature(self.path) != sig:  # written again while it was read
            self._next_look = now
            return None
        self._seen = sig
        self.error = result if isinstance(result, SceneError) else None
        return result
