"""The object-per-node baseline: the seeds' class design, written plainly with numpy.

This is what a user of the seeds' design would have: every node is a Python object holding
its own position, quaternion and scale, its local and world 4x4 matrices and the three flags
(update_local, update_world, execute). Setting a value marks the node and, recursively, its
descendants; `update_chain()` recurses from the roots, recomputes what is flagged and clears
the flags. It exists only so that the benchmark compares the core against an honest version of
the same design; it is not used by the viewer. It recurses, so a deep chain needs a raised
recursion limit (see `ObjTree.recursion_needed`).
"""

from __future__ import annotations

import numpy as np


def trs_matrix(position: np.ndarray, rotation: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """L = T . R . S for a unit quaternion (x, y, z, w), column-vector convention.

    Written here on purpose, not taken from the core: the baseline is an independent
    implementation (tests/bench/test_baseline.py checks it against the core) and the
    reference the issues' per-node targets were set against, plain numpy throughout.
    """
    x, y, z, w = rotation
    sx, sy, sz = scale
    return np.array(
        [
            [
                (1 - 2 * (y * y + z * z)) * sx,
                2 * (x * y - z * w) * sy,
                2 * (x * z + y * w) * sz,
                position[0],
            ],
            [
                2 * (x * y + z * w) * sx,
                (1 - 2 * (x * x + z * z)) * sy,
                2 * (y * z - x * w) * sz,
                position[1],
            ],
            [
                2 * (x * z - y * w) * sx,
                2 * (y * z + x * w) * sy,
                (1 - 2 * (x * x + y * y)) * sz,
                position[2],
            ],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


class ObjNode:
    """One node of the baseline: its own arrays, matrices, flags and children."""

    __slots__ = (
        "name",
        "parent",
        "children",
        "position",
        "rotation",
        "scale",
        "local",
        "world",
        "update_local",
        "update_world",
        "execute",
    )

    def __init__(self, name: str, position, rotation, scale) -> None:
        self.name = name
        self.parent: ObjNode | None = None
        self.children: list[ObjNode] = []
        self.position = np.array(position, dtype=float)
        self.rotation = np.array(rotation, dtype=float)
        self.scale = np.array(scale, dtype=float)
        self.local = np.eye(4)
        self.world = np.eye(4)
        self.update_local = self.update_world = self.execute = True

    def set_position(self, value) -> None:
        """The seeds' setter: store, then flag this node and its subtree."""
        self.position = np.array(value, dtype=float)
        self.update_local = True
        self._mark_world()

    def set_rotation(self, value) -> None:
        self.rotation = np.array(value, dtype=float)
        self.update_local = True
        self._mark_world()

    def set_scale(self, value) -> None:
        self.scale = np.array(value, dtype=float)
        self.update_local = True
        self._mark_world()

    def _mark_world(self) -> None:
        # Stopping at an already-marked node is safe (its subtree is marked too) and is the
        # obvious optimisation a user would make, so the baseline has it.
        if self.update_world and self.execute:
            return
        self.update_world = self.execute = True
        for child in self.children:
            child._mark_world()

    def _update(self, parent_world: np.ndarray | None, uploads: list) -> None:
        if self.update_local:
            self.local = trs_matrix(self.position, self.rotation, self.scale)
            self.update_local = False
        if self.update_world:
            self.world = self.local.copy() if parent_world is None else parent_world @ self.local
            self.update_world = False
        if self.execute:
            uploads.append(self)  # handed to the renderer
            self.execute = False
        for child in self.children:
            child._update(self.world, uploads)


class ObjTree:
    """A forest of `ObjNode`s built from a parent array (parents before children)."""

    def __init__(self, parents, positions, rotations, scales) -> None:
        self.nodes: list[ObjNode] = []
        self.roots: list[ObjNode] = []
        for i, p in enumerate(np.asarray(parents).tolist()):
            node = ObjNode(f"Obj{i + 1}", positions[i], rotations[i], scales[i])
            if p < 0:
                self.roots.append(node)
            else:
                node.parent = self.nodes[p]
                self.nodes[p].children.append(node)
            self.nodes.append(node)

    def update_chain(self) -> list[ObjNode]:
        """End of frame: recurse from every root; return the nodes handed to the renderer."""
        uploads: list[ObjNode] = []
        for root in self.roots:
            root._update(None, uploads)
        return uploads

    def world_matrices(self) -> np.ndarray:
        """(n, 4, 4) world matrices in node order, as of the last `update_chain()`."""
        return np.stack([node.world for node in self.nodes])

    @staticmethod
    def recursion_needed(depth: int) -> int:
        """A recursion limit that lets a tree of `depth` levels update (two frames per level)."""
        return 2 * depth + 200
