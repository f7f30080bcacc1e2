"""Scripted references to nodes by name, re-resolved when a reload swaps the scene.

A run's script names nodes: ``--touch B@F`` (frame -> names), ``--select B`` (the
selection, held as an id of the scene on show) and ``--camera NAME`` (a camera of the
file, on its node). ``--keys`` act on the selection and ``--click`` picks by window
pixel, so they hold no name of their own. A reloaded scene file may have lost any of
these nodes: each reference is looked up again by name in the new scene, and one that
is gone is dropped with one note saying so; the run goes on (the names were checked
against the first scene when the run started, where a typo is an error).
"""

from __future__ import annotations

from collections.abc import Sequence

from viewer.text import quoted

__all__ = ["camera_name", "carry_camera", "carry_names"]


def carry_names(
    scene, touches: dict[int, list[str]], selected: str | None
) -> tuple[dict[int, list[str]], int | None, list[str]]:
    """(the touches whose node `scene` still has, the id of the node named `selected` in
    it or None, one note per thing dropped). `scene` is a `viewer.content.Scene`."""
    graph = scene.graph
    notes: list[str] = []
    kept: dict[int, list[str]] = {}
    for frame, names in sorted(touches.items()):
        for name in names:
            if name in graph:
                kept.setdefault(frame, []).append(name)
            else:
                notes.append(
                    f"dropped the touch of {quoted(name)} at frame {frame}: the "
                    "reloaded scene has no node of that name"
                )
    node_id = None
    if selected is not None:
        if selected in graph:
            node_id = graph[selected].id
        else:
            notes.append(
                f"cleared the selection: the reloaded scene has no node named {quoted(selected)}"
            )
    return kept, node_id, notes


def carry_camera(cameras: Sequence, name: str | None) -> tuple[int | None, list[str]]:
    """(the index of the camera named `name` among `cameras`, the reloaded scene's, or
    None; one note when it is gone). `name` None: no camera was chosen, nothing to do."""
    if name is None:
        return None, []
    for index, camera in enumerate(cameras):
        if camera.name == name:
            return index, []
    return None, [
        f"left the view of camera {quoted(name)}: the reloaded scene has no camera of that name"
    ]


def camera_name(cameras: Sequence, index: int | None) -> str | None:
    """The name of camera `index` (None: no camera chosen, or no longer there)."""
    return None if index is None or index >= len(cameras) else cameras[index].name
