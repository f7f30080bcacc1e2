"""A robot arm driven by a sine controller: see what the controller dirties each frame.

The controller sets the shoulder and elbow angles every frame; the wrist and the gripper
are carried along. In the viewer the two joints glow red (their own value changed) and
every link after them glows orange (only their world matrix was recomputed); the base
stays dark. Run it:

    .venv/bin/python docs/examples/robot_arm.py                 # a window
    .venv/bin/python docs/examples/robot_arm.py --headless  # writes robot_arm.png, prints the log
"""

import math

from _common import run_example

from viewer import Look
from viewer.scene import SceneGraph

GREY, STEEL, JOINT = (0.45, 0.47, 0.52), (0.30, 0.45, 0.69), (0.85, 0.85, 0.80)


def build_arm() -> tuple[SceneGraph, dict]:
    """The arm as a graph, and how each node is drawn (for `meshes=`)."""
    g = SceneGraph()
    base = g.add("base")
    shoulder = g.add("shoulder", parent=base, position=(0, 0.5, 0))
    g.add("upper_arm", parent=shoulder, position=(1.0, 0, 0))
    elbow = g.add("elbow", parent=shoulder, position=(2.0, 0, 0))
    g.add("forearm", parent=elbow, position=(0.8, 0, 0))
    wrist = g.add("wrist", parent=elbow, position=(1.6, 0, 0))
    g.add("gripper", parent=wrist, position=(0.35, 0, 0), euler=(0, 0, -90))
    looks = {
        "base": Look("cylinder", (1.4, 0.5, 1.4), GREY),
        "shoulder": Look("sphere", (0.5, 0.5, 0.5), JOINT),
        "upper_arm": Look("cube", (2.0, 0.3, 0.3), STEEL),
        "elbow": Look("sphere", (0.42, 0.42, 0.42), JOINT),
        "forearm": Look("cube", (1.6, 0.25, 0.25), STEEL),
        "wrist": Look("sphere", (0.34, 0.34, 0.34), JOINT),
        "gripper": Look("cone", (0.3, 0.5, 0.3), STEEL),
    }
    return g, looks


def controller(graph: SceneGraph, frame: int, t: float) -> None:
    """Sine targets for the two joints: called by the viewer before each update."""
    graph["shoulder"].local_euler = (0, 0, 35 + 25 * math.sin(2 * math.pi * t / 4.0))
    graph["elbow"].local_euler = (0, 0, -50 + 40 * math.sin(2 * math.pi * t / 3.0 + 1.0))


def main(argv=None) -> None:
    graph, looks = build_arm()
    run_example(graph, controller, doc=__doc__, name="robot_arm", frames=90,
                title="robot arm", argv=argv, meshes=looks)  # fmt: skip


if __name__ == "__main__":
    main()
