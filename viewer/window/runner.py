"""`run`: open a window (or a headless EGL one) on a frame source and drive `SgviewApp` to
the end.

The run's frame source is a scene's `Session` (`session_for`), or what the caller makes
(``sgview listen``'s `ProgramSource`), given the clock's fixed step.

What can fail here is the window or the GL context: a windowed run that cannot open one
raises `WindowError`, a headless one `ContextError`, each with a one-line reason. An error
while frames run still closes the recording and trace and releases the window.
"""

from __future__ import annotations

from collections.abc import Callable

import moderngl_window as mglw
import numpy as np
from moderngl_window.context.base import BaseWindow
from moderngl_window.timers.base import BaseTimer

from viewer.content.scene import Scene
from viewer.errors import SgviewError, floats_raise
from viewer.render.context import GL_VERSION, ContextError
from viewer.session.session import Session
from viewer.session.source import ErrState, FrameSource
from viewer.text import one_line
from viewer.timing import FixedTimer
from viewer.window.app import SgviewApp
from viewer.window.run_options import RunOptions

__all__ = ["RunOptions", "SourceMaker", "WindowError", "attach_app", "run", "session_for"]

#: Makes a run's frame source, given the seconds of the headless clock's fixed step (None:
#: the real clock).
SourceMaker = Callable[[float | None], FrameSource]


class WindowError(SgviewError, RuntimeError):
    """The window could not be opened (no usable display or GL driver)."""


def run(
    scene: Scene,
    options: RunOptions,
    *,
    headless: bool,
    backend: str | None = None,
    source: SourceMaker | None = None,
) -> SgviewApp:
    """Open a window (or a headless EGL one) on `scene` and run until done; return the app.
    `source`: makes the run's frame source (None: `scene`'s `Session`, `session_for`).

    The app computes under `floats_raise` (a numpy warning is an error, never printed);
    the `on_frame` callbacks keep the caller's numpy settings."""
    caller = np.geterr()
    with floats_raise():
        return _run(
            scene, options, headless=headless, backend=backend, caller=caller, source=source
        )


def session_for(
    scene: Scene, options: RunOptions, *, fixed_step: float | None, caller: ErrState
) -> Session:
    """The frame source of a scene: its `Session` as `options` ask, with their `on_frame`
    callbacks, which keep the caller's numpy error settings (`caller`)."""
    session = Session(
        scene,
        still=options.still,
        touches=options.touches,
        log=options.log,
        fixed_step=fixed_step,
        load_limits=options.load_limits,
        out=options.out,
        layout=options.layout,
        edit_layer=options.edit_layer,
    )
    session.frame_callbacks.extend(options.on_frame)
    session.callback_errstate = caller
    return session


def attach_app(
    window: BaseWindow, source: FrameSource, options: RunOptions, *, timer: BaseTimer
) -> SgviewApp:
    """Make the app on an open `window` and wire the window's events to it; the window's
    loop (`run`) or a notebook widget (`viewer.embed.widget`) then drives it. A failure
    releases the window."""
    mglw.activate_context(window=window)
    try:
        app = SgviewApp(ctx=window.ctx, wnd=window, timer=timer, source=source, options=options)
    except BaseException:
        window.destroy()
        raise
    window.config = app
    window.swap_buffers()  # as create_window_config_instance: settles the buffer size
    window.set_default_viewport()
    return app


def _run(
    scene: Scene,
    options: RunOptions,
    *,
    headless: bool,
    backend: str | None,
    caller: ErrState,
    source: SourceMaker | None,
) -> SgviewApp:
    window_class: type[BaseWindow]
    if headless:
        from moderngl_window.context.headless import Window as HeadlessWindow

        window_class = HeadlessWindow
        timer: BaseTimer = FixedTimer()
        backend = backend or "egl"
    else:
        import pyglet

        # pyglet otherwise opens a hidden 1x1 "shadow" window, titled with the program's
        # path, for sharing GL objects between windows; sgview has one window and needs
        # none. Set before moderngl-window imports pyglet's window module.
        pyglet.options["shadow_window"] = False
        from moderngl_window.context.pyglet import Window as PygletWindow
        from moderngl_window.timers.clock import Timer

        window_class = PygletWindow
        timer = Timer()
    fixed_step = timer.step if isinstance(timer, FixedTimer) else None
    if source is None:
        shown: FrameSource = session_for(scene, options, fixed_step=fixed_step, caller=caller)
    else:
        shown = source(fixed_step)
    try:
        window = window_class(
            title=shown.title,
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
    app = attach_app(window, shown, options, timer=timer)
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
