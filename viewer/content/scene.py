"""A loaded scene: the transform graph plus everything that is not a transform.

The graph (`SceneGraph`) knows only positions, rotations, scales and parents. What a
node looks like, how it moves on its own and what the scene script does on given frames
lives here, keyed by node id, so the core stays small and the renderer, the loaders and
the frame loop share one plain description. No GL here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..scene.graph import SceneGraph
from .geometry import Geometry

if TYPE_CHECKING:  # annotations only: content does not depend on them at run time
    from ..animation.player import AnimationPlayer
    from ..animation.skin import Skinning
    from ..materials import MeshSurface

#: Mesh kinds the renderer draws without a file. "none" draws nothing (a pure pivot).
BUILTIN_MESHES = ("cube", "sphere", "cylinder", "cone", "disk", "rect", "axes", "none")


@dataclass
class Look:
    """How one node is drawn. `size` scales the mesh only; it is not inherited."""

    mesh: str = "cube"
    size: tuple[float, float, float] = (1.0, 1.0, 1.0)
    color: tuple[float, float, float] = (0.30, 0.45, 0.69)


@dataclass
class CameraSpec:
    """The camera a scene file asks for; `None` fields mean "frame the scene"."""

    position: tuple[float, float, float] | None = None
    target: tuple[float, float, float] | None = None
    fov: float = 45.0
    projection: str = "perspective"  # or "orthographic"
    height: float = 10.0  # visible height for the orthographic projection


@dataclass(frozen=True)
class FileCamera:
    """A camera of a glTF file, on node `node` (an id of the graph): it looks down the
    node's -Z axis, +Y up. Perspective: vertical field of view `yfov` (radians), `znear`,
    `zfar` (None: infinite); the aspect ratio is the window's. Orthographic: half the
    visible height `ymag` (the width follows the window), `znear`, `zfar`."""

    node: int
    name: str
    projection: str = "perspective"  # or "orthographic"
    yfov: float = 0.8
    znear: float = 0.01
    zfar: float | None = None
    ymag: float = 1.0


@dataclass(frozen=True)
class FileLight:
    """A KHR_lights_punctual light on node `node` (an id of the graph): "directional"
    (shines down the node's -Z axis, `intensity` in lux), "point" or "spot" (at the
    node's origin, candela; a spot shines down -Z within `outer_cone` radians, at full
    strength within `inner_cone`). `range` None: no cut-off."""

    node: int
    kind: str
    color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    intensity: float = 1.0
    range: float | None = None
    inner_cone: float = 0.0
    outer_cone: float = 0.7853981633974483


@dataclass
class Event:
    """A scripted change at the start of `frame` (1-based): a touch or a set of values."""

    frame: int
    node: str
    touch: bool = False
    position: tuple[float, float, float] | None = None
    euler: tuple[float, float, float] | None = None
    quaternion: tuple[float, float, float, float] | None = None
    scale: tuple[float, float, float] | None = None


@dataclass
class Include:
    """A glTF file whose node hierarchy was added to the graph by a loader.

    `parent` is the id of the node it hangs under (None: its roots are roots of the graph);
    `ids` are the ids of the imported nodes. `save_scene` writes the include back instead of
    the imported nodes.
    """

    path: Path
    parent: int | None
    ids: np.ndarray
    #: The file as read (`viewer.io.gltf_read.source.GltfSource`), for a lossless glTF export.
    source: object = None


@dataclass
class CollisionSpec:
    """Makes a scene the interactive disk-and-rectangle demo (docs/semantics.md section 6).

    ``disk`` and ``rect`` name the two nodes; ``revolve`` optionally names the node whose
    motions are the rectangle's "revolution about the origin" mode (its other motions
    are the "oscillation" mode).
    """

    disk: str
    rect: str
    revolve: str | None = None


@dataclass
class Scene:
    """Everything the viewer needs to show one scene."""

    graph: SceneGraph
    title: str = "untitled"
    looks: dict[int, Look] = field(default_factory=dict)
    motions: list = field(default_factory=list)  # list[viewer.content.motion.Motion]
    events: list[Event] = field(default_factory=list)
    camera: CameraSpec = field(default_factory=CameraSpec)
    source: Path | None = None
    #: (mtime_ns, size) of `source` just before the loader read it: live reload compares
    #: against it, so a save made while the viewer starts up is not missed.
    source_stamp: tuple[int, int] | None = None
    #: Set for the collision demo scene (a ``[collision]`` table in the file).
    collision: CollisionSpec | None = None
    #: glTF meshes by key ("path#mesh_index"): (positions (n,3), normals (n,3), indices (m,)).
    mesh_data: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: glTF files imported into the graph, in import order.
    includes: list[Include] = field(default_factory=list)
    #: The glTF files' animations (`viewer.animation.AnimationPlayer`), None without any.
    animation: AnimationPlayer | None = None
    #: The glTF files' skins (`viewer.animation.skin.Skinning`), None without any.
    skinning: Skinning | None = None
    #: Material surfaces by mesh key (`viewer.materials.MeshSurface`).
    surfaces: dict[str, MeshSurface] = field(default_factory=dict)
    #: glTF lines, points, morph targets and instancing (`viewer.content.geometry`).
    geometry: Geometry = field(default_factory=Geometry)
    #: The glTF files' cameras and KHR_lights_punctual lights, in import order.
    cameras: list[FileCamera] = field(default_factory=list)
    lights: list[FileLight] = field(default_factory=list)
    #: Where a node came from in its file, by node id (a USD prim path): what
    #: ``--dump-world`` keys it by instead of its name.
    node_paths: dict[int, str] = field(default_factory=dict)
    #: node id -> more (label, value) rows the inspector shows for it (a USD prim's path
    #: and op stack, read when shown); None: none.
    describe_node: Callable[[int], tuple[tuple[str, str], ...]] | None = None
    #: What the writers cannot carry over from the file the scene came from (a USD
    #: stage's time samples, its instancers), one line per kind, said at each save.
    save_notes: list[str] = field(default_factory=list)

    def look(self, node_id: int) -> Look:
        """The look of a node; nodes without one are drawn as pivots (mesh "none")."""
        return self.looks.get(node_id, Look(mesh="none"))
