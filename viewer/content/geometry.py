"""What glTF geometry brings beyond triangles at a node: lines and points, morph targets
and their weights, and GPU instancing (EXT_mesh_gpu_instancing). No GL.

Meshes are keyed like `Scene.mesh_data` ("path#mesh_index"); nodes by node id (by model
row while a glTF file is read, see `Geometry.on_ids`).

Morph weights are scene state that is not a transform: the animation writes them
(`set_weights`), which records the nodes whose weights changed, and the frame loop takes
that set once per frame (`take_changed`) so the overlay can show it as its own kind of
change: the node's matrices did not move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Geometry", "InstancedNode", "MorphTargets", "MorphedNode"]


@dataclass
class MorphTargets:
    """A mesh's morph targets: per target, a displacement of each vertex (glTF 3.7.2.2).

    positions : (T, n, 3) float32 position deltas
    normals : (T, n, 3) float32 normal deltas, or None
    defaults : (T,) float64, the mesh's default weights (zeros when it has none)
    """

    positions: np.ndarray
    normals: np.ndarray | None
    defaults: np.ndarray

    @property
    def count(self) -> int:
        return int(self.positions.shape[0])


@dataclass(frozen=True)
class MorphedNode:
    """A node drawn with its mesh's morph targets applied, at its current weights (it
    keeps its `Look`; the renderer gives it its own morphed copy of the mesh). A skinned
    one (`skinned`) is morphed first, then skinned, as glTF says."""

    node: int
    mesh: str
    skinned: bool = False


@dataclass(frozen=True)
class InstancedNode:
    """A node whose mesh is drawn once per instance (EXT_mesh_gpu_instancing).

    `locals` (N, 4, 4): each instance's matrix in the node's space; instance k is drawn
    at ``world(node) @ locals[k]``, so recomputing the node re-poses all its instances.
    """

    node: int
    mesh: str
    color: tuple[float, float, float]
    locals: np.ndarray


@dataclass
class Geometry:
    """The scene's lines, points, morph targets and instancing (see the module notes)."""

    #: Mesh key -> line segment vertex indices (2k,) uint32, LINES/LINE_LOOP/LINE_STRIP.
    lines: dict[str, np.ndarray] = field(default_factory=dict)
    #: Mesh key -> point vertex indices (k,) uint32 (POINTS primitives).
    points: dict[str, np.ndarray] = field(default_factory=dict)
    #: Mesh key -> its morph targets.
    targets: dict[str, MorphTargets] = field(default_factory=dict)
    #: Nodes drawn morphed.
    morphed: list[MorphedNode] = field(default_factory=list)
    #: Node id -> its current morph weights (T,) float64.
    weights: dict[int, np.ndarray] = field(default_factory=dict)
    #: Nodes drawn as GPU instances.
    instanced: list[InstancedNode] = field(default_factory=list)
    #: Counts `replace_instanced` calls: a renderer built at another count rebuilds.
    instancing_version: int = 0
    _changed: set[int] = field(default_factory=set, repr=False)

    def set_weights(self, node: int, weights: np.ndarray) -> None:
        """Set a morphed node's weights; a change is recorded for `take_changed`. Missing
        trailing weights stay as they are; extra ones are ignored."""
        now = self.weights.get(node)
        if now is None:
            return
        w = np.asarray(weights, dtype=np.float64).reshape(-1)[: len(now)]
        if not np.array_equal(now[: len(w)], w):
            now[: len(w)] = w
            self._changed.add(node)

    def set_instances(self, node: int, matrices: np.ndarray) -> None:
        """Set the instance matrices of every instanced item of `node`, in their order,
        from `matrices` (their rows' 4x4 matrices, flat); a change is recorded for
        `take_changed` (an animated USD PointInstancer: no matrix of the node moves)."""
        flat = np.asarray(matrices, dtype=np.float64).reshape(-1)
        start, changed = 0, False
        for item in self.instanced:
            if item.node != node:
                continue
            size = item.locals.size
            part = flat[start : start + size].reshape(item.locals.shape)
            start += size
            if part.shape == item.locals.shape and not np.array_equal(item.locals, part):
                item.locals[...] = part
                changed = True
        if changed:
            self._changed.add(node)

    def replace_instanced(self, nodes, items: list[InstancedNode]) -> None:
        """Drop the instanced items of `nodes` and add `items` (a live USD stage whose
        PointInstancer now draws other instances, or one added or removed); the nodes
        that still draw instances are recorded for `take_changed` (their own change)."""
        gone = {int(n) for n in nodes}
        self.instanced = [item for item in self.instanced if item.node not in gone] + list(items)
        self.instancing_version += 1
        self._changed |= {item.node for item in items}

    def take_changed(self) -> frozenset[int]:
        """The nodes whose weights or instances changed since the last call (and forget
        them)."""
        changed, self._changed = frozenset(self._changed), set()
        return changed

    def extend(self, other: Geometry) -> None:
        """Add another file's geometry (already on node ids)."""
        self.lines.update(other.lines)
        self.points.update(other.points)
        self.targets.update(other.targets)
        self.morphed.extend(other.morphed)
        self.weights.update(other.weights)
        self.instanced.extend(other.instanced)

    def on_ids(self, ids: np.ndarray) -> Geometry:
        """This geometry with model rows replaced by the graph ids `ids[row]`."""
        return Geometry(
            dict(self.lines),
            dict(self.points),
            dict(self.targets),
            [MorphedNode(int(ids[m.node]), m.mesh, m.skinned) for m in self.morphed],
            {int(ids[row]): w.copy() for row, w in self.weights.items()},
            [InstancedNode(int(ids[i.node]), i.mesh, i.color, i.locals) for i in self.instanced],
        )

    def __bool__(self) -> bool:
        return bool(self.lines or self.points or self.morphed or self.instanced)
