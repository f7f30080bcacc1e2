"""The Obj1-Obj5 chain built in code; the script touches Obj3 once every second.

A touch marks a node changed without giving it a new value: the frame recomputes Obj3's
local matrix and the world matrices of Obj3, Obj4 and Obj5, and nothing else (see
docs/semantics.md). With `--log` each touched frame prints exactly those four lines.

    .venv/bin/python docs/examples/chain_touch.py                # a window
    .venv/bin/python docs/examples/chain_touch.py --headless  # 120 frames, writes chain_touch.png
"""

from _common import run_example

import viewer
from viewer.scene import SceneGraph

#: Frames per second of the scene clock (headless runs are exactly 60).
FPS = 60


def build_chain() -> SceneGraph:
    """Obj1 -> Obj5, each link 2 units along its parent's x axis, turned 12 degrees."""
    g = SceneGraph()
    parent = g.add("Obj1", position=(-4, -1, 0))
    for i in range(2, 6):
        parent = g.add(f"Obj{i}", parent=parent, position=(2, 0, 0), euler=(0, 0, 12))
    return g


def touch_every_second(graph: SceneGraph, frame: int, t: float) -> None:
    if frame % FPS == 0:
        graph["Obj3"].touch()


def main(argv=None) -> None:
    sizes = {f"Obj{i}": viewer.Look("cube", (s, s, s)) for i, s in
             zip(range(1, 6), (1.0, 0.9, 0.8, 0.7, 0.6))}  # fmt: skip
    run_example(build_chain(), touch_every_second, doc=__doc__, name="chain_touch",
                frames=120, title="Obj1-Obj5 chain", argv=argv, meshes=sizes)  # fmt: skip


if __name__ == "__main__":
    main()
