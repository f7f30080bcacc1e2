"""Small graphs of SEMANTICS.md for the overlay tests (built directly, no scene files)."""

from __future__ import annotations

from viewer.scene import SceneGraph


def tree10() -> SceneGraph:
    """Example B: Obj1 -> Obj2, Obj3, Obj4; Obj2 -> Obj5; Obj3 -> Obj6; Obj4 -> Obj7;
    Obj5 -> Obj8, Obj9; Obj6 -> Obj10. Laid out (first update done)."""
    g = SceneGraph()
    o1 = g.add("Obj1")
    o2, o3, o4 = (g.add(f"Obj{k}", o1) for k in (2, 3, 4))
    o5, o6 = g.add("Obj5", o2), g.add("Obj6", o3)
    g.add("Obj7", o4)
    g.add("Obj8", o5)
    g.add("Obj9", o5)
    g.add("Obj10", o6)
    g.update()
    return g


def chain5() -> SceneGraph:
    """Example A: Obj1 -> Obj2 -> Obj3 -> Obj4 -> Obj5, each 2 along its parent's x."""
    g = SceneGraph()
    parent = None
    for k in range(1, 6):
        parent = g.add(f"Obj{k}", parent, position=(2.0, 0.0, 0.0))
    g.update()
    return g


def touched(g: SceneGraph, *names: str):
    """Touch the named nodes and end the frame; returns its report."""
    for name in names:
        g.touch(g[name])
    return g.update()
