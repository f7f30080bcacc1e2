"""Small hand-built scenes for the render tests (independent of the scene-file loaders)."""

from __future__ import annotations

from viewer.content.scene import Look, Scene
from viewer.scene import SceneGraph

#: Ten clearly distinct colours, one per node of `tree10()`.
PALETTE = [
    (0.90, 0.20, 0.20),
    (0.20, 0.40, 0.90),
    (0.20, 0.80, 0.30),
    (0.95, 0.85, 0.15),
    (0.70, 0.25, 0.85),
    (0.95, 0.55, 0.10),
    (0.15, 0.85, 0.85),
    (0.95, 0.40, 0.70),
    (0.55, 0.35, 0.15),
    (0.60, 0.90, 0.25),
]


def tree10(
    meshes=(
        "cube",
        "sphere",
        "cylinder",
        "cone",
        "cube",
        "sphere",
        "cube",
        "sphere",
        "cone",
        "cube",
    ),
) -> Scene:
    """docs/semantics.md example B's ten-node tree, spread out so no node hides another."""
    g = SceneGraph()
    o1 = g.add("Obj1", position=(0.0, 0.5, 0.0))
    o2 = g.add("Obj2", parent=o1, position=(-3.0, 1.6, 0.0))
    o3 = g.add("Obj3", parent=o1, position=(0.0, 1.6, 0.0))
    o4 = g.add("Obj4", parent=o1, position=(3.0, 1.6, 0.0))
    o5 = g.add("Obj5", parent=o2, position=(0.0, 1.6, 0.0))
    o6 = g.add("Obj6", parent=o3, position=(0.0, 1.6, 0.0))
    g.add("Obj7", parent=o4, position=(0.0, 1.6, 0.0))
    g.add("Obj8", parent=o5, position=(-1.0, 1.6, 0.0))
    g.add("Obj9", parent=o5, position=(1.0, 1.6, 0.0))
    g.add("Obj10", parent=o6, position=(0.0, 1.6, 0.0))
    looks = {i: Look(mesh=meshes[i], size=(0.8, 0.8, 0.8), color=PALETTE[i]) for i in range(10)}
    return Scene(graph=g, title="tree10", looks=looks)
