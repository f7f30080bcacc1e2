"""`run`: open a window (or a headless EGL one) on a scene and drive `SgviewApp` to the end.

What can fail here is the window or the GL context: a windowed run that cannot open one
raises `WindowError`, a headless one `ContextError`, each with a one-line reason. An error
while frames run still closes the recording and trace and releases the window.
"""

from __future__ import annotations

import moderngl_window as mglw
import numpy as np
from moderngl_window.timers.base import BaseTimer

from viewer.errors import SgviewError, floats_raise
from viewer.render.context import GL_VERSION, ContextError
from viewer.session.session import window_title
from viewer.text import one_line
from viewer.timing import FixedTimer
from viewer.window.app import SgviewApp
from viewer.window.run_options import RunOptions

__all__ = ["RunOptions", "WindowError", "attach_app", "run"]


class WindowError(SgviewError, RuntimeError):
    """The window could not be opened (no usable display or GL driver)."""


def run(scene, options: RunOptions, *, headless: bool, backend: str | None = None) -> SgviewApp:
    """Open a window (or a headless EGL one) on `scene` and run until done; return the app.

    The app computes under `floats_raise` (a numpy warning is an error, never printed);
    the `on_frame` callbacks keep the caller's numpy settings."""
    caller = np.geterr()
    with floats_raise():
        return _run(scene, options, headless=headless, backend=backend, caller=caller)


def attach_app(window, scene, options: RunOptions, *, timer: BaseTimer, caller: dict) -> SgviewApp:
    """Make the app on an open `window` and wire the window's events to it; the window's
    loop (`run`) or a notebook widget (`viewer.embed.widget`) then drives it. `caller`: the
    numpy error settings the `on_frame` callbacks keep. A failure releases the window."""
    mglw.activate_context(window=window)
    try:
        app = SgviewApp(ctx=window.ctx, wnd=window, timer=timer, scene=scene, options=options)
    except BaseException:
        window.destroy()
        raise
    app.session.callback_errstate = caller
    window.config = app
    window.swap_buffers()  # as create_window_config_instance: settles the buffer size
    window.set_default_viewport()
    return app


def _run(scene, options, *, headless, backend, caller) -> SgviewApp:
    if headless:
        from moderngl_window.context.headless import Window

        timer: BaseTimer = FixedTimer()
        backend = backend or "egl"
    else:
        import pyglet

        # pyglet otherwise opens a hidden 1x1 "shadow" window, titled with the program's
        # path, for sharing GL objects between windows; sgview has one window and needs
        # none. Set before moderngl-window imports pyglet's window module.
        pyglet.options["shadow_window"] = False
        from moderngl_window.context.pyglet import Window
        from moderngl_window.timers.clock import Timer

        timer = Timer()
    try:
        window = Window(
            title=window_title(scene.title),
            size=options.size,
            resizable=not headless,
            gl_version=GL_VERSION,
            vsync=not headless,
            samples=options.samples,
            backend=backend,
        )
    except Exception as exc:  # pyglet and EGL raise many kinds; report them in one line
        reason = one_line(exc) or type(exc).__name__
        if headless:
            raise ContextError(f"cannot create a headless OpenGL context ({reason})") from exc
        raise WindowError(reason) from exc
    app = attach_app(window, scene, options, timer=timer, caller=caller)
    try:
        mglw.run_window_config_instance(app)  # destroys the window when the loop ends
    except BaseException:
        # An error in a frame (an `on_frame` callback's, say) leaves the loop early: the
        # recording and trace are closed, then the window and its GL context released.
        try:
            app.finish()
        finally:
            window.destroy()
        raise
    app.finish()
    return app
