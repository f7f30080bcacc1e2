"""Names over the nodes follow the size of the scene a listening window first shows: the
window opens on an empty scene (named, as any small scene), and a program of more than
`NAMES_BELOW` nodes then shows without names, as the same scene opened from a file would,
unless the user chose (N, the checkbox) before it came."""

from __future__ import annotations

import io
import time

import pytest
from needs import need_gl

import viewer
from viewer.attach.program_source import ProgramSource
from viewer.content.scene import Scene
from viewer.overlay.overlay import NAMES_BELOW
from viewer.scene.graph import SceneGraph


def _watch(nodes: int, chosen: bool | None) -> bool:
    """Whether names show once a program of `nodes` nodes is on show (`chosen`: what the
    user set before it came; None: nothing)."""
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
    window = Window(title="test", size=(640, 360), resizable=False, gl_version=GL_VERSION,
                    vsync=False, samples=0, backend="egl")  # fmt: skip
    graph = SceneGraph()
    for k in range(nodes):
        graph.add(f"N{k}", None if k == 0 else f"N{(k - 1) // 2}")
    link = None
    try:
        mglw.activate_context(window=window)
        app = SgviewApp(ctx=window.ctx, wnd=window, timer=FixedTimer(), source=source,
                        options=RunOptions(size=(640, 360), samples=0))  # fmt: skip
        window.config = app
        window.set_default_viewport()
        assert app.overlay is not None and app.overlay.show_names  # the empty scene
        if chosen is not None:
            app.overlay.show_names = chosen
        link = viewer.publish(graph, f"{host}:{port}", name="names")
        assert link.wait_connected(10)
        graph.update()
        end = time.monotonic() + 30
        while source.last_report is None:
            assert time.monotonic() < end, "timed out"
            graph.update()
            app.on_render(0.0, 1.0 / 60.0)
        return app.overlay.show_names
    finally:
        if link is not None:
            link.close(0)
        listener.close()
        window.destroy()


@pytest.mark.parametrize(
    ("nodes", "chosen", "names"),
    [
        (NAMES_BELOW + 100, None, False),  # a big program: no names, as from a file
        (20, None, True),
        (NAMES_BELOW + 100, True, True),  # the user's choice stands
        (20, False, False),
    ],
)
def test_names_follow_the_first_program_unless_the_user_chose(nodes, chosen, names):
    assert _watch(nodes, chosen) is names
