"""Live reload: notice that a scene file was saved and load it again.

Pure file-system polling (no threads, no GL): the frame loop calls ``poll()`` every frame
and the watcher looks at the disk at most every ``interval`` seconds. A save that does
not load (a syntax error, a half-written file, a deleted file) is reported as a
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
        load: Callable[[Path], Scene] = load_scene,
        clock: Callable[[], float] = time.monotonic,
        seen: tuple[int, int] | None = None,
    ) -> None:
        self.path = Path(path)
        self.interval = interval
        self._load = load
        self._clock = clock
        #: The signature of the version on screen: `seen` (from `file_signature` before the
        #: shown scene was read), else the file as it is now.
        self._seen = seen if seen is not None else _signature(self.path)
        self._next_look = clock() + interval
        self.error: SceneError | None = None  # the error of the last save, if it failed

    def poll(self) -> Scene | SceneError | None:
        """Look at the file if ``interval`` has passed; reload it if it changed."""
        now = self._clock()
        if now < self._next_look:
            return None
        self._next_look = now + self.interval
        sig = _signature(self.path)
        if sig == self._seen:
            return None
        self._seen = sig
        if sig is None:
            self.error = SceneError(
                "the file was deleted or renamed; showing the last good scene", file=self.path
            )
            return self.error
        try:
            scene = self._load(self.path)
        except SceneError as exc:
            self.error = exc
            return exc
        self.error = None
        return scene
