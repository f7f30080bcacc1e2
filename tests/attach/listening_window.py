"""A listening viewer's window app, as `sgview listen` builds it, headless (EGL): for the
tests that draw its panels while a program publishes to it."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from needs import need_gl

from viewer.attach.program_source import ProgramSource
from viewer.content.scene import Scene
from viewer.scene.graph import SceneGraph

if TYPE_CHECKING:
    from viewer.window.app import SgviewApp


@contextmanager
def listening_window(size: tuple[int, int]) -> Iterator[tuple[SgviewApp, ProgramSource, str]]:
    """(the app, its `ProgramSource`, the HOST:PORT it listens on); the window and the
    listener are closed after."""
    need_gl().release()
    import moderngl_window as mglw
    from moderngl_window.context.headless import Window

    from viewer.attach.server import Listener
    from viewer.render.context import GL_VERSION
    from viewer.timing import FixedTimer
    from viewer.window.app import SgviewApp
    from viewer.window.run_options import RunOptions

    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    source = ProgramSource(Scene(SceneGraph(), title="waiting"), listener=listener)
    window = Window(title="test", size=size, resizable=False, gl_version=GL_VERSION,
                    vsync=False, samples=0, backend="egl")  # fmt: skip
    try:
        mglw.activate_context(window=window)
        app = SgviewApp(ctx=window.ctx, wnd=window, timer=FixedTimer(), source=source,
                        options=RunOptions(size=size, samples=0))  # fmt: skip
        window.config = app
        window.set_default_viewport()
        yield app, source, f"{host}:{port}"
    finally:
        listener.close()
        window.destroy()
