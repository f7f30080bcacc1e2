"""The scene's script as the schedule plays it: its scripted events and the ``--touch``
touches, both numbered by the scene's own frames.

Apart from the schedule because they are the scene's data, read twice a frame: before
it, to name the frame's events for the timeline (`events_of`), and in it, to act
(`play`). A node the user deleted meanwhile is skipped by both.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from viewer.content.motion import apply_events
from viewer.content.scene import Scene

__all__ = ["events_of", "play"]


def events_of(scene: Scene, touches: dict[int, list[str]], number: int) -> list[tuple[str, str]]:
    """(kind, node name) of what the script does in scene frame `number`: "touch" or
    "edit" for the scripted events, "touch" for the ``--touch`` touches."""
    graph = scene.graph
    found = [
        ("touch" if event.touch else "edit", event.node)
        for event in scene.events
        if event.frame == number and event.node in graph
    ]
    return found + [("touch", name) for name in touches.get(number, ()) if name in graph]


def play(
    scene: Scene,
    touches: dict[int, list[str]],
    number: int,
    phase: Callable[[str], AbstractContextManager[None]],
) -> None:
    """Scene frame `number`'s scripted events, then its touches, each in its `phase`
    (the schedule's error context)."""
    graph = scene.graph
    with phase("the scripted events"):
        apply_events(scene, number)
    with phase("the touches"):
        for name in touches.get(number, ()):
            if name in graph:  # the user may have deleted it
                graph.touch(graph[name])
