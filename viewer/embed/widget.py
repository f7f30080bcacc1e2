"""`SgviewWidget`: the viewer live in a Jupyter notebook, as a jupyter_rfb widget.

The kernel renders with the headless EGL renderer and jupyter_rfb sends the frames to the
browser, which sends pointer, wheel, key and resize events back. The widget holds the
same `viewer.window.app.SgviewApp` (session, camera, renderer, overlay) as a window, on a
`viewer.embed.browser_window.BrowserWindow`, which delivers the browser's events to the app's
own input handlers: orbit, pan, zoom, click to select, the key table, the ImGui panels.

It draws only when the picture can change (`viewer.embed.redraw_policy`): after an event, after
a notebook cell ran (it may have changed the graph), and then for as long as the scene
moves or a glow fades. jupyter_rfb sends a frame only once the browser has taken the
ones before, so a slow browser slows the drawing instead of queueing frames.

In the cell's output the widget carries a PNG of the frame at the time it was displayed,
so a notebook exported without a kernel still shows the view; ``widget.image`` is the
last frame drawn (a `viewer.image.Image`, which a notebook shows as a picture).
"""

from __future__ import annotations

import time as clock
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from IPython.display import display
from jupyter_rfb import RemoteFrameBuffer
from moderngl_window.timers.clock import Timer
from numpy.typing import NDArray

from viewer.embed.browser_window import BrowserEvent, BrowserWindow
from viewer.embed.notebook import after_each_cell
from viewer.embed.redraw_policy import needs_next_frame
from viewer.errors import floats_raise
from viewer.image import Image
from viewer.render.context import GL_VERSION, ContextError
from viewer.session.session import Session
from viewer.text import one_line
from viewer.window.run_options import RunOptions
from viewer.window.runner import attach_app

__all__ = ["MAX_FRAME_TIME", "SgviewWidget"]

#: The longest step of the scene clock between two drawn frames (seconds): after an idle
#: spell the scene goes on where it stopped rather than jumping ahead, and below 10 frames
#: per second (software GL, a slow page) it slows down rather than skipping, so that a
#: glow (0.5 s) still shows in five frames or more.
MAX_FRAME_TIME = 0.1

_LIVE: weakref.WeakSet[SgviewWidget] = weakref.WeakSet()
_HOOKED = {"done": False}
_CLOSED = "the widget is closed: widget.close() released its app"


def _redraw_live_widgets() -> None:
    """After a cell: each live widget draws once (the cell may have changed its graph)."""
    for widget in list(_LIVE):
        widget.request_draw()


# jupyter_rfb has no type information: its widget class is Any to mypy.
class SgviewWidget(RemoteFrameBuffer):  # type: ignore[misc]
    """A live view of a session in a notebook (see the module notes); `viewer.widget`
    makes one. `app` is the `SgviewApp` it shows (None once closed), `session` its
    session."""

    def __init__(self, session: Session, options: RunOptions) -> None:
        super().__init__()
        width, height = options.size
        self.css_width, self.css_height = f"{width}px", f"{height}px"
        self.app = None  # the `SgviewApp` from attach_app below; None again once closed
        #: The `Session` on show (the same kind a window drives).
        self.session = session
        try:
            self._window = BrowserWindow(
                title=self.session.title,
                size=options.size,
                gl_version=GL_VERSION,
                vsync=False,
                samples=options.samples,
                backend="egl",
                resizable=True,
            )
        except Exception as exc:  # EGL raises many kinds; one line says which
            reason = one_line(exc) or type(exc).__name__
            raise ContextError(f"cannot create a headless OpenGL context ({reason})") from exc
        with self._gl():
            self.app = attach_app(self._window, self.session, options, timer=Timer())
        #: Frames drawn so far (each one sent to the browser, or shown at display).
        self.frames_drawn = 0
        self._last_draw: float | None = None
        self._image: NDArray[np.uint8] | None = None
        self.title = self.session.title
        _LIVE.add(self)
        if not _HOOKED["done"]:
            _HOOKED["done"] = after_each_cell(_redraw_live_widgets)

    @property
    def image(self) -> Image:
        """The last frame drawn, (H, W, 3) uint8; a notebook shows it as a PNG."""
        image = self._image if self._image is not None else self._draw()
        return image.view(Image)

    @contextmanager
    def _gl(self) -> Iterator[None]:
        """This widget's GL context current (a notebook may hold several), numpy raising."""
        with self._window.ctx, floats_raise():
            yield

    def press(self, *keys: str) -> None:
        """Press and release keys, named as the key table names them ("T", "Space", ".",
        "Tab", ...): the same actions as the keyboard, from a cell; the view redraws."""
        app = self.app
        if app is None:
            raise AttributeError(_CLOSED)
        for name in keys:
            app.key_down(name)
            app.key_up(name)
        self.request_draw()

    def draw(self) -> Image:
        """Draw a frame now, as the view would (a paused session's step runs in it), and
        return it as a picture; the page gets a fresh frame too."""
        self._draw()
        self.request_draw()
        return self.image

    # -- jupyter_rfb's two methods ---------------------------------------------------------
    def handle_event(self, event: BrowserEvent) -> None:
        """A browser event: through the window to the app's handlers, then a redraw."""
        if self.app is None:  # closed
            return
        with self._gl():
            taken = self._window.dispatch(event)
        moved_only = event.get("type") == "pointer_move" and not event.get("buttons")
        if taken and not (moved_only and self.app.overlay is None):
            self.request_draw()

    def get_frame(self) -> NDArray[np.uint8] | None:
        """Draw one frame (jupyter_rfb sends it); ask for the next while anything moves."""
        if self.app is None:  # closed
            return None
        image = self._draw()
        glowing = self.app.renderer.glow.glowing()[0].size > 0
        overlay = self.app.overlay
        replaying = overlay is not None and overlay.replay.active  # paused too (V)
        if replaying or needs_next_frame(self.session, glowing=glowing):
            self.request_draw()
        return image

    def _draw(self) -> NDArray[np.uint8]:
        app = self.app
        if app is None:
            raise AttributeError(_CLOSED)
        now = clock.perf_counter()
        last, self._last_draw = self._last_draw, now
        dt = 1.0 / 60.0 if last is None else min(max(now - last, 1e-4), MAX_FRAME_TIME)
        with self._gl():
            try:
                app.on_render(now, dt)
            except BaseException:
                # An `on_frame` callback (or a frame) failed: pause, so the view stays on
                # the last good picture instead of failing again at every frame.
                if not self.session.paused:
                    self.session.toggle_pause()
                raise
            image: NDArray[np.uint8] = app.grab()
            self._image = image
        self.frames_drawn += 1
        if self.title != self.session.title:
            self.title = self.session.title
        return image

    # -- the cell output -------------------------------------------------------------------
    def _ipython_display_(self) -> None:
        """The live view, with a PNG of the current frame for a notebook read without a
        kernel (an HTML export, a viewer on the web)."""
        bundle = self._repr_mimebundle_()
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data)
        png = self.image._repr_png_()
        if png is not None:
            data["image/png"] = png
        # IPython's display() carries no annotations
        display(data, metadata=metadata, raw=True)  # type: ignore[no-untyped-call]

    def close(self, *args: Any, **kwargs: Any) -> None:
        """Close the views and release the GL context and the panels."""
        _LIVE.discard(self)
        super().close(*args, **kwargs)
        app, self.app = getattr(self, "app", None), None
        if app is not None:
            with self._window.ctx:
                app.finish()
            self._window.destroy()
