"""Which nodes draw nothing, in themselves or below them: their names and the lines to
them stay quiet.

A glTF file's camera, light and empty leaf nodes (a Blender export carries a camera and a
lamp) draw nothing; a line from the model to them, or their name floating in the air,
says nothing about the model and sticks out of it. A node that draws something (a mesh,
a skinned mesh, a skin's joint, which the overlay marks) or has such a node below it
speaks; the others are quiet. In a scene that draws nothing at all, every node speaks
(its nodes are all there is to see). Plain numpy, no GL.
"""

from __future__ import annotations

import numpy as np

from viewer.scene.graph import SceneGraph

__all__ = ["QuietNodes", "link_pairs", "quiet_nodes"]


def quiet_nodes(parents: np.ndarray, alive: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """Boolean mask by node id, True where the node and all below it draw nothing.

    `parents` [N]: parent id per id (-1: a root); `alive`: the ids in use; `drawn`: the
    ids that draw something themselves."""
    parents = np.asarray(parents, dtype=np.int64)
    alive = np.asarray(alive, dtype=np.int64)
    drawn = np.asarray(drawn, dtype=np.int64).reshape(-1)
    drawn = drawn[(drawn >= 0) & (drawn < len(parents))]
    speaks = np.zeros(len(parents), dtype=bool)
    if drawn.size == 0:
        speaks[alive] = True
        return ~speaks
    first = np.zeros(len(parents), dtype=np.int64)  # scratch for `_once`
    frontier = _once(drawn, first)
    while frontier.size:  # up the tree, each node visited once
        speaks[frontier] = True
        up = parents[frontier]
        up = up[up >= 0]
        frontier = _once(up[~speaks[up]], first)
    quiet = np.zeros(len(parents), dtype=bool)
    quiet[alive] = ~speaks[alive]
    return quiet


def _once(ids: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """`ids` with each id kept once (its first occurrence), without sorting: each id
    writes its position into `scratch` and keeps it if the write that stayed is its own."""
    where = np.arange(len(ids))
    scratch[ids[::-1]] = where[::-1]  # the first occurrence's position is written last
    return ids[scratch[ids] == where]


def link_pairs(parents: np.ndarray, alive: np.ndarray, quiet: np.ndarray):
    """((parent, child) uint32 pairs [k, 2] of every line, those to quiet children last;
    how many come first), so that one index buffer draws the lines with or without them."""
    child = alive[parents[alive] >= 0]
    pairs = np.stack([parents[child], child], axis=1).astype(np.uint32)
    hushed = quiet[child]
    return np.concatenate([pairs[~hushed], pairs[hushed]]), int(np.count_nonzero(~hushed))


class QuietNodes:
    """The quiet nodes of a graph (`quiet_nodes`) and its lines (`link_pairs`)."""

    def __init__(self, graph: SceneGraph, drawn: np.ndarray) -> None:
        parents = np.asarray(graph.parents(), dtype=np.int64)
        alive = np.asarray(graph.alive_ids(), dtype=np.int64)
        self.mask = quiet_nodes(parents, alive, drawn)
        self.pairs, self._spoken = link_pairs(parents, alive, self.mask)

    def speaks(self, ids, everyone: bool = False) -> np.ndarray:
        """Which of nodes `ids` get a name and a line (`everyone`: all of them)."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        out = np.ones(len(ids), dtype=bool)
        if not everyone:
            known = (ids >= 0) & (ids < len(self.mask))
            out[known] = ~self.mask[ids[known]]
        return out

    def line_count(self, everyone: bool = False) -> int:
        """How many of `pairs` to draw (`everyone`: the lines to quiet nodes too)."""
        return len(self.pairs) if everyone else self._spoken
