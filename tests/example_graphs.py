"""The two graphs of the contract's examples (docs/semantics.md), built once for all tests.

Example A is the chain Obj1 -> ... -> Obj5; example B the ten-node tree below. Each
builder lays the graph out (its first `update()`), so a test starts from a clean frame.
The examples' logs are here too, for the tests that replay them through the API or the
command line.
"""

from __future__ import annotations

from viewer.scene import SceneGraph

#: Example B, child -> parent, in the order the children are attached.
TREE10_PARENTS = {
    "Obj2": "Obj1",
    "Obj3": "Obj1",
    "Obj4": "Obj1",
    "Obj5": "Obj2",
    "Obj6": "Obj3",
    "Obj7": "Obj4",
    "Obj8": "Obj5",
    "Obj9": "Obj5",
    "Obj10": "Obj6",
}

#: Frame logs of the contract's examples (docs/semantics.md), line for line.
#: Example A: Obj3 touched (example C's frame after Obj3 moved logs the same).
LOG_A_OBJ3 = [
    "*Update Local : Obj3*",
    "=Update World : Obj3=",
    "=Update World : Obj4=",
    "=Update World : Obj5=",
]
#: Example A: Obj4 touched.
LOG_A_OBJ4 = ["*Update Local : Obj4*", "=Update World : Obj4=", "=Update World : Obj5="]
#: Example B: Obj5 touched (a move of Obj5 to another parent logs the same).
LOG_B_OBJ5 = [
    "*Update Local : Obj5*",
    "=Update World : Obj5=",
    "=Update World : Obj8=",
    "=Update World : Obj9=",
]
#: Example B: Obj2 and Obj5 touched in one frame, in either order.
LOG_B_OBJ2_OBJ5 = [
    "*Update Local : Obj2*",
    "=Update World : Obj2=",
    "*Update Local : Obj5*",
    "=Update World : Obj5=",
    "=Update World : Obj8=",
    "=Update World : Obj9=",
]


def chain5(offset=(1.0, 0.5, 0.0), turn: float = 10.0) -> SceneGraph:
    """Example A: each link `offset` from its parent and turned `turn * k` degrees about Y."""
    g = SceneGraph()
    parent = None
    for k in range(1, 6):
        parent = g.add(f"Obj{k}", parent, position=offset, euler=(0, turn * k, 0))
    g.update()
    return g


def tree10(offset=(1.0, 0.0, 0.0)) -> SceneGraph:
    """Example B, each child `offset` from its parent."""
    g = SceneGraph()
    g.add("Obj1")
    for child, parent in TREE10_PARENTS.items():
        g.add(child, g[parent], position=offset)
    g.update()
    return g
