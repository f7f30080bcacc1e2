"""Names over the nodes follow the size of the scene a listening window first shows: the
window opens on an empty scene (named, as any small scene), and a program of more than
`NAMES_BELOW` nodes then shows without names, as the same scene opened from a file would,
unless the user chose (N, the checkbox) before it came."""

from __future__ import annotations

import time

import pytest
from listening_window import listening_window

import viewer
from viewer.overlay.overlay import NAMES_BELOW
from viewer.scene.graph import SceneGraph


def _watch(nodes: int, chosen: bool | None) -> bool:
    """Whether names show once a program of `nodes` nodes is on show (`chosen`: what the
    user set before it came; None: nothing)."""
    graph = SceneGraph()
    for k in range(nodes):
        graph.add(f"N{k}", None if k == 0 else f"N{(k - 1) // 2}")
    with listening_window((640, 360)) as (app, source, address):
        assert app.overlay is not None and app.overlay.show_names  # the empty scene
        if chosen is not None:
            app.overlay.show_names = chosen
        link = viewer.publish(graph, address, name="names")
        try:
            assert link.wait_connected(10)
            graph.update()
            end = time.monotonic() + 30
            while source.last_report is None:
                assert time.monotonic() < end, "timed out"
                graph.update()
                app.on_render(0.0, 1.0 / 60.0)
            return app.overlay.show_names
        finally:
            link.close(0)


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
