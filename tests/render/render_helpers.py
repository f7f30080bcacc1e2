"""Small hand-built scenes for the render tests (independent of the scene-file loaders)."""

from __future__ import annotations

import numpy as np

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


class FakeReport:
    """The two fields of a FrameReport the glow reads."""

    def __init__(self, world=(), local=()):
        self.world_updated = np.asarray(world, dtype=np.int64)
        self.local_updated = np.asarray(local, dtype=np.int64)


def light(renderer, values: dict[int, float], settings=None) -> None:
    """Make node ids glow at signed strengths `values` now (negative: own change, red;
    positive: followed, orange), through the glow's own clock: each node is stamped
    (1 - |strength|) seconds of a 1-second fade ago, then the stamps are uploaded;
    `settings` (a `ViewSettings`, to draw with) get the glow on and that fade."""
    glow, parents = renderer.glow, renderer.graph.parents()
    glow.fade = 1.0
    if settings is not None:
        settings.glow_on, settings.glow_fade = True, 1.0
    at = 0.0
    for node_id, value in sorted(values.items(), key=lambda kv: abs(kv[1])):
        own = [node_id] if value < 0 else []
        glow.record(FakeReport([node_id], own), parents, abs(value) - at)
        at = abs(value)
    glow.record(FakeReport(), parents, 1.0 - at)
    renderer.instances.write_stamps(glow)


def draw(renderer, fbo, camera, size, settings=None, *, selected=None) -> None:
    """Draw `renderer`'s scene into `fbo` the way the app does: one `FrameView` of the
    graph now, with `settings` (default: `ViewSettings()`), the selection's box."""
    from viewer.render.frame_view import FrameViews, ViewSettings

    view = FrameViews().extract(renderer.graph, settings or ViewSettings(), fbo, size,
                                selected=selected, bounds=renderer.bounds)  # fmt: skip
    renderer.draw(view, camera)
