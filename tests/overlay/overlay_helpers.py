"""Small graphs of docs/semantics.md for the overlay tests (built directly, no scene files)."""

from __future__ import annotations

import example_graphs

from viewer.scene import SceneGraph


def tree10() -> SceneGraph:
    """Example B, every node at its parent's origin. Laid out (first update done)."""
    return example_graphs.tree10(offset=(0.0, 0.0, 0.0))


def chain5() -> SceneGraph:
    """Example A: Obj1 -> Obj2 -> Obj3 -> Obj4 -> Obj5, each 2 along its parent's x."""
    return example_graphs.chain5(offset=(2.0, 0.0, 0.0), turn=0.0)


def touched(g: SceneGraph, *names: str):
    """Touch the named nodes and end the frame; returns its report."""
    for name in names:
        g.touch(g[name])
    return g.update()
