"""A headless app whose frames a test runs one at a time (built as `viewer.window.runner.run`
does)."""

from __future__ import annotations

import moderngl_window as mglw
import numpy as np
from moderngl_window.context.headless import Window

from viewer.render.context import GL_VERSION
from viewer.session.source import Candidate
from viewer.timing import FixedTimer
from viewer.window.app import SgviewApp
from viewer.window.run_options import RunOptions
from viewer.window.runner import session_for

SIZE = (800, 400)


class Driver:
    """A headless app whose frames the test runs one at a time."""

    def __init__(self, scene, **options):
        self.window = Window(title="test", size=SIZE, resizable=False, gl_version=GL_VERSION,
                             vsync=False, samples=0, backend="egl")  # fmt: skip
        # The headless window's keys are all "undefined": name each after itself, so that
        # `press` reaches the key it names.
        base = type(self.window).keys
        named = {k: k for k in dir(base) if k.isupper() and getattr(base, k) == "undefined"}
        self.window.keys = type("NamedKeys", (base,), named)
        mglw.activate_context(window=self.window)
        timer = FixedTimer()
        run = RunOptions(size=SIZE, samples=0, **options)
        source = session_for(scene, run, fixed_step=timer.step, caller=np.geterr())
        self.app = SgviewApp(
            ctx=self.window.ctx, wnd=self.window, timer=timer, source=source, options=run
        )
        self.window.config = self.app
        self.window.set_default_viewport()

    def frame(self, n: int = 1) -> np.ndarray:
        for _ in range(n):
            self.app.on_render(0.0, 1.0 / 60.0)
        return self.app.grab()

    def run(self, n: int) -> None:
        """`n` frames nobody looks at, as a headless run's frames before its last: the
        session, renderer and overlay take each frame; the panels are not drawn (fast)."""
        runner = self.app.runner
        saved, runner.frames = runner.frames, 10**12
        try:
            for _ in range(n):
                self.app.on_render(0.0, 1.0 / 60.0)
        finally:
            runner.frames = saved

    def pixel(self, img, name) -> np.ndarray:
        g = self.app.session.graph
        x, y = self.app.camera.project(g[name].world_position, SIZE)[0, :2]
        return img[int(y) - 1 : int(y) + 2, int(x) - 1 : int(x) + 2].reshape(-1, 3).mean(axis=0)

    def click(self, x: float, y: float) -> None:
        """A click held over two frames, as a hand makes it (test_quick_clicks.py has
        the shorter ones)."""
        app = self.app
        app.on_mouse_position_event(int(x), int(y), 0, 0)
        self.frame()
        app.on_mouse_press_event(int(x), int(y), 1)
        self.frame()
        app.on_mouse_release_event(int(x), int(y), 1)
        self.frame()

    def press(self, name: str) -> None:
        """Press and release the key `name` ("F", "TAB", ...) with no modifier."""
        keys, mods = self.window.keys, self.window.modifiers
        self.app.on_key_event(getattr(keys, name), keys.ACTION_PRESS, mods)
        self.app.on_key_event(getattr(keys, name), keys.ACTION_RELEASE, mods)

    def reload(self, scene) -> None:
        """What a live reload does between two redraws: the session takes `scene` in
        (keeping its clock, touches and selection) and the app shows it with a renderer
        built for it."""
        built = self.app.build(scene)
        self.app.session.replace_scene(scene)
        self.app.use(built, Candidate(scene, "reload", fresh=False))

    def close(self) -> None:
        self.app.finish()
        self.window.destroy()
