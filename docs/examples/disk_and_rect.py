"""A 2D scene driven from code: a disk slides to and fro, a rectangle turns on a pivot.

The disk is moved by setting its own position (it glows red: a local change); the
rectangle is turned by its parent, an invisible pivot, so only its world matrix is
recomputed (it glows orange). The camera looks straight down the z axis, orthographic.

    .venv/bin/python docs/examples/disk_and_rect.py              # a window
    .venv/bin/python docs/examples/disk_and_rect.py --headless   # writes disk_and_rect.png
"""

import math

from _common import run_example

from viewer import Look
from viewer.scene import SceneGraph

LOOKS = {
    "disk": Look("disk", (2.0, 2.0, 1.0), (0.30, 0.45, 0.69)),
    "pivot": "none",  # a pure pivot: not drawn
    "rect": Look("rect", (3.0, 1.2, 1.0), (0.33, 0.66, 0.41)),
}
CAMERA = {"position": (0, 0, 12), "target": (0, 0, 0), "projection": "orthographic", "height": 10}


def build_scene() -> SceneGraph:
    g = SceneGraph()
    g.add("disk", position=(-3, 0, 0))
    pivot = g.add("pivot", position=(2, 0, 0))
    g.add("rect", parent=pivot)
    return g


def drive(graph: SceneGraph, frame: int, t: float) -> None:
    """The disk slides along x (period 3 s); the pivot turns 45 degrees a second."""
    graph["disk"].local_position = (-3 + 2.0 * math.sin(2 * math.pi * t / 3.0), 0, 0)
    graph["pivot"].local_euler = (0, 0, 45.0 * t)


def main(argv=None) -> None:
    run_example(build_scene(), drive, doc=__doc__, name="disk_and_rect", frames=45,
                title="disk and rectangle", argv=argv, meshes=LOOKS, camera=CAMERA)  # fmt: skip


if __name__ == "__main__":
    main()
