"""What a scene draws, as boxes, spheres and points, without GL: picking, framing, names.

Built from the scene alone (its looks, its meshes' vertices, its morph targets, GPU
instancing and skins), so the app picks and frames without a renderer and the renderer
takes the same per-node shapes to lay out its instance buffers. A node's box is its
shape's bounds times its look's size, placed by its world matrix; a morphed node's shape
is the box every morph can reach (`reach`).

`refresh()` takes nodes added or removed since the last build, and meshes and GPU
instances a live stage added or replaced (the renderer calls it when it rebuilds); a node
added since then counts as a unit box until then.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from viewer.animation.clip import Clip
from viewer.content import meshes
from viewer.content.scene import Scene

from .camera import Camera
from .node_bounds import (
    box_corners,
    box_extremes,
    box_support,
    grid_span,
    label_spheres,
    node_boxes,
    pivot_half,
    selection_box,
    sphere_around,
)
from .pose_bounds import moved_worlds

__all__ = ["BLOCK_ROWS", "FLAT_KINDS", "SceneBounds", "morph_kind", "reach", "skinned_points"]

#: Boxes per block where a million are reduced to a few numbers (`SceneBounds.extremes`,
#: `SceneBounds.support`).
BLOCK_ROWS = 16384
#: Mesh kinds of a 2D scene (the grid goes in the XY plane when only these are drawn).
FLAT_KINDS = ("disk", "rect")


def morph_kind(mesh: str, node: int) -> str:
    """The mesh kind of node `node`'s morphed copy of mesh `mesh`."""
    return f"{mesh}@morph{node}"


def reach(base: np.ndarray, deltas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The box every vertex can reach with weights in [0, 1] (what animations use), so
    that framing, picking and labels see the whole morph, not only the base shape."""
    base = np.asarray(base, np.float64)
    lo = base + np.minimum(deltas, 0.0).sum(axis=0)
    hi = base + np.maximum(deltas, 0.0).sum(axis=0)
    return lo.min(axis=0), hi.max(axis=0)


def skinned_points(skinning, mesh_data: dict, worlds: np.ndarray) -> np.ndarray:
    """The skinned vertices of every skinned mesh at world matrices `worlds`, (k, 3): the
    camera must see the deformed meshes, not just the node origins."""
    out = [np.zeros((0, 3))]
    for item in skinning.meshes:
        pos = np.asarray(mesh_data[item.mesh][0], dtype=np.float64)
        joints, weights = skinning.attributes[item.mesh]
        mats = skinning.skins[item.skin].matrices(worlds)  # (J, 4, 4)
        blend = np.einsum("nk,nkij->nij", weights.astype(np.float64), mats[joints])
        out.append(np.einsum("nij,nj->ni", blend[:, :3, :3], pos) + blend[:, :3, 3])
    return np.vstack(out)


def _mesh_bounds(positions) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of a mesh's vertices as the GPU holds them (float32)."""
    pos = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
    return pos.min(axis=0).astype(np.float64), pos.max(axis=0).astype(np.float64)


class SceneBounds:
    """Per-node shapes of a scene and the geometry questions asked of them.

    `kinds` lists every mesh kind that can be drawn (built-in kinds, the file's meshes,
    then one morphed copy per morphed node, `morph_kind`), in the renderer's batch order;
    `kind_of[id]` indexes it (-1: drawn without a mesh), `sizes[id]` and `colors[id]` are
    the look's.
    """

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.graph = scene.graph
        self.bounds_of: dict[str, tuple[np.ndarray, np.ndarray]] = {
            kind: _mesh_bounds(meshes.builtin(kind).positions) for kind in meshes.BUILDERS
        }
        for key, (pos, _nrm, _idx) in scene.mesh_data.items():
            self.bounds_of[key] = _mesh_bounds(pos)
        geometry = scene.geometry
        #: Node -> its own morphed copy's kind (non-skinned morphed nodes).
        self.morphed: dict[int, str] = {}
        for item in geometry.morphed:
            targets = geometry.targets.get(item.mesh)
            if item.mesh not in self.bounds_of or targets is None or item.skinned:
                continue
            kind = morph_kind(item.mesh, item.node)
            base = np.asarray(scene.mesh_data[item.mesh][0], np.float32).reshape(-1, 3)
            self.bounds_of[kind] = reach(base, targets.positions)
            self.morphed[item.node] = kind
        self.kinds = list(self.bounds_of)
        self.instanced: list = []  # the GPU-instanced items, taken by `refresh`
        self._clip_box_of: tuple[Clip | None, np.ndarray] | None = None  # for `clip_box`
        self._points_of: tuple[tuple, np.ndarray] | None = None  # for `bound_points`
        self._extremes_of: tuple[tuple, np.ndarray] | None = None  # ([2, 3]) for `extremes`
        self.signature: tuple = ()
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Take the graph's nodes as they are now (after nodes were added or removed), and
        the meshes and GPU instances a live stage added or replaced since."""
        geometry = self.scene.geometry
        signature = (
            int(self.graph.capacity_ids),
            len(self.graph),
            geometry.instancing_version,
            len(self.scene.mesh_data),
        )
        if signature == self.signature and not force:
            return
        self.signature = signature
        for key, (pos, _nrm, _idx) in self.scene.mesh_data.items():
            if key not in self.bounds_of:  # a mesh read since the last refresh
                self.bounds_of[key] = _mesh_bounds(pos)
                self.kinds.append(key)
        self.instanced = [item for item in geometry.instanced if item.mesh in self.bounds_of]
        n_ids = signature[0]
        index = {kind: k for k, kind in enumerate(self.kinds)}
        self.kind_of: npt.NDArray[np.int64] = np.full(n_ids, -1, dtype=np.int64)
        self.sizes: npt.NDArray[np.float64] = np.ones((n_ids, 3), dtype=np.float64)
        self.colors: npt.NDArray[np.float32] = np.zeros((n_ids, 3), dtype=np.float32)
        alive = np.zeros(n_ids, dtype=bool)
        alive[np.asarray(self.graph.alive_ids(), dtype=np.int64)] = True
        looks = self.scene.looks
        if looks:  # per distinct Look object once; per node only its number
            ids = np.fromiter(looks.keys(), dtype=np.int64, count=len(looks))
            # Which Look object each node has, by identity (a generated million nodes
            # share a few): numbered without a Python loop over the nodes.
            who = np.fromiter(map(id, looks.values()), dtype=np.int64, count=len(looks))
            _, first, code = np.unique(who, return_index=True, return_inverse=True)
            values = list(looks.values())
            distinct = [values[k] for k in first.tolist()]
            keep = (ids >= 0) & (ids < n_ids)
            keep[keep] = alive[ids[keep]]
            ids, code = ids[keep], code[keep]
            tables: tuple[np.ndarray, ...] = (
                np.array([index.get(x.mesh, -1) for x in distinct], np.int64),
                np.array([x.size for x in distinct], np.float64).reshape(-1, 3),
                np.array([x.color for x in distinct], np.float32).reshape(-1, 3),
            )
            every = ids.shape[0] == n_ids and np.array_equal(ids, np.arange(n_ids))
            outs: tuple[np.ndarray, ...] = (self.kind_of, self.sizes, self.colors)
            for out, table in zip(outs, tables, strict=True):
                if every:  # every id has a look, in id order: a gather, not a scatter (5x)
                    np.take(table, code, axis=0, out=out)
                else:
                    out[ids] = table[code]
            for node, kind in self.morphed.items():  # a morphed node draws its own copy
                look = looks.get(node)
                if look is not None and node < n_ids and alive[node] and look.mesh != "none":
                    self.kind_of[node] = index[kind]
        self.kind_bounds = np.array([self.bounds_of[k] for k in self.kinds]).reshape(-1, 2, 3)
        self.pivot = pivot_half(self.sphere()[1])

    # -- boxes -------------------------------------------------------------------------
    def node_boxes(self, world: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """(ids [n], worlds [n, 4, 4], lo [n, 3], hi [n, 3]) of every drawn node's box
        and every GPU instance's box (named by its node: a click on an instance picks it);
        `world`: the matrices to place them by (default: the graph's as stored)."""
        world = self.graph.peek.world_matrices() if world is None else world
        boxes = node_boxes(self.kind_of, self.sizes, self.kind_bounds, self._order(), world)
        if not self.instanced:
            return boxes
        return tuple(
            np.concatenate(pair) for pair in zip(boxes, self._instance_boxes(world), strict=True)
        )

    def _order(self) -> np.ndarray:
        return np.asarray(self.graph.peek.alive_ids(), dtype=np.int64)

    def _instance_boxes(self, world: np.ndarray) -> tuple[np.ndarray, ...]:
        parts = [(np.zeros(0, np.int64), np.zeros((0, 4, 4)), np.zeros((0, 3)), np.zeros((0, 3)))]
        for item in self.instanced:
            if item.node >= len(world):
                continue
            lo, hi = self.bounds_of[item.mesh]
            used = item.locals[item.locals[:, 3, 3] != 0]  # rows an animation left unused
            n = len(used)
            parts.append(
                (
                    np.full(n, item.node, np.int64),
                    world[item.node] @ used,
                    np.tile(lo, (n, 1)),
                    np.tile(hi, (n, 1)),
                )
            )
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))

    def selection_box(self, node_id: int | None, world: np.ndarray):
        """(world [4, 4], lo [3], hi [3]) of the outline around node `node_id`, or None
        (no node, or one not in the last build): one node's work."""
        if node_id is None:
            return None
        return selection_box(self.kind_of, self.sizes, self.kind_bounds, world, node_id, self.pivot)

    def label_spheres(self, ids: np.ndarray, world: np.ndarray | None = None):
        """World-space spheres around nodes `ids` as drawn (centres [n, 3], radii [n]);
        see `node_bounds.label_spheres`."""
        world = self.graph.peek.world_matrices() if world is None else world
        return label_spheres(self.kind_of, self.sizes, self.kind_bounds, world, ids, self.pivot)

    # -- framing -----------------------------------------------------------------------
    def is_flat(self) -> bool:
        """A 2D scene: every drawn node is a disk or a rectangle."""
        drawn = {self.kinds[k] for k in np.unique(self.kind_of[self.kind_of >= 0]).tolist()}
        return bool(drawn) and drawn <= set(FLAT_KINDS)

    def bound_points(self) -> np.ndarray:
        """What must be seen of the scene, [m, 3]: the corners of every drawn node's box
        and the skinned meshes' posed vertices (never the origins of cameras, lights or
        empty nodes; only a scene that draws nothing at all is framed on its nodes'
        origins), and the corners of the box around them at a few poses of the current
        animation clip (`pose_bounds`), so that a model framed at load stays in view as
        it plays."""
        key = self._state()
        if self._points_of is None or self._points_of[0] != key:  # once per state
            world = self.graph.world_matrices()
            self._points_of = (key, np.vstack([self.points_at(world), self.clip_box()]))
        return self._points_of[1]

    def extremes(self) -> np.ndarray:
        """The two corners [2, 3] (lowest, highest) of the box around `bound_points`
        ([0, 3] when there are none): all that the sphere and the axes need, the same
        numbers worked out from the boxes without making their corners (`box_extremes`)."""
        key = self._state()
        if self._extremes_of is None or self._extremes_of[0] != key:  # once per state
            parts = self._parts(self.graph.world_matrices(), by_kind=False)
            each = [_part_extremes(part) for part in parts]
            ends = np.array([e for e in [*each, _point_extremes(self.clip_box())] if len(e)])
            both = np.array([ends[:, 0].min(axis=0), ends[:, 1].max(axis=0)]) if len(ends) else None
            self._extremes_of = (key, np.zeros((0, 3)) if both is None else both)
        return self._extremes_of[1]

    def support(self, directions: np.ndarray) -> np.ndarray:
        """[m]: for each of `directions` [m, 3], the largest d . p over `bound_points`
        (-inf where there are none), from the boxes without making their corners
        (`box_support`): what `Camera.fit_distance` needs of a big scene."""
        directions = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
        best = [np.full(len(directions), -np.inf)]
        parts = self._parts(self.graph.world_matrices(), by_kind=False)
        for part in [*parts, (self.clip_box(),)]:
            if len(part) == 3:
                best.append(box_support(*part, directions))
            elif len(part[0]):
                best.append((part[0] @ directions.T).max(axis=0))
        return np.max(best, axis=0)

    def _state(self) -> tuple:
        """What `bound_points` depends on: the graph's edition, the nodes, the clip."""
        return (self.graph.peek.edition, self.signature, self.clip_box_key())

    def clip_box_key(self):
        """The current clip (what `clip_box` depends on besides the graph)."""
        player = self.scene.animation
        return id(player.current) if player is not None and player.current is not None else None

    def clip_box(self) -> np.ndarray:
        """The 8 corners of the box around `points_at` the sampled poses of the current
        clip ([0, 3] without one), computed once per clip: sampling a big scene's clip
        costs a few tenths of a second, too much for every rebuild."""
        player = self.scene.animation
        clip = player.current if player is not None else None
        if self._clip_box_of is None or self._clip_box_of[0] is not clip:
            self._clip_box_of = (clip, self._clip_corners())
        return self._clip_box_of[1]

    def _clip_corners(self) -> np.ndarray:
        """`clip_box` worked out: a node no pose moves (outside the animated nodes'
        subtrees) is at every pose where it is now, so it is taken once, at the graph's
        world matrices, and only the moved nodes at each pose: one animated node among a
        million costs one node's work a pose, not a million world matrices. Skinned
        meshes and GPU instances hang from any node, so they are taken at each pose's
        whole world matrices (made one pose at a time)."""
        sampled = moved_worlds(self.scene)
        if sampled is None:
            return np.zeros((0, 3))
        moved, poses = sampled
        world = self.graph.world_matrices()
        order = self._order()
        hung = self._hung_parts(world)
        drawn = self.kind_of[order[order < len(self.kind_of)]] >= 0
        origins = not drawn.any() and not any(len(part[0]) for part in hung)
        still = order[~np.isin(order, moved)]
        ends = [self._rows_extremes(still, world, origins, by_id=True)]
        for worlds in poses:
            ends.append(self._rows_extremes(moved, worlds, origins))
            if hung:
                posed = np.array(world)
                posed[moved] = worlds
                ends.extend(_part_extremes(part) for part in self._hung_parts(posed))
        found = [e for e in ends if len(e)]
        if not found:
            return np.zeros((0, 3))
        both = np.array(found)
        lo, hi = both[:, 0].min(axis=0), both[:, 1].max(axis=0)
        return np.array([[(lo, hi)[(k >> a) & 1][a] for a in range(3)] for k in range(8)])

    def _rows_extremes(
        self, rows: np.ndarray, worlds: np.ndarray, origins: bool, by_id: bool = False
    ) -> np.ndarray:
        """[2, 3] extremes of the drawn boxes of nodes `rows` ([0, 3]: none), or of their
        origins when the scene draws nothing, placed by `worlds`: one matrix a row, or
        (`by_id`) every id's [N, 4, 4]. `BLOCK_ROWS` at a time, so that no temporary
        grows with the scene."""
        ends = []
        for start in range(0, len(rows), BLOCK_ROWS):
            block = rows[start : start + BLOCK_ROWS]
            mats = worlds[block] if by_id else worlds[start : start + BLOCK_ROWS]
            if origins:
                ends.append(_point_extremes(mats[:, :3, 3]))
                continue
            inside = block < len(self.kind_of)
            kind = np.full(len(block), -1, dtype=np.int64)
            kind[inside] = self.kind_of[block[inside]]
            drawn = kind >= 0
            kind, size = kind[drawn], self.sizes[block[drawn]]
            lo, hi = self.kind_bounds[kind, 0] * size, self.kind_bounds[kind, 1] * size
            ends.append(box_extremes(mats[drawn], lo, hi))
        found = [e for e in ends if len(e)]
        if not found:
            return np.zeros((0, 3))
        both = np.array(found)
        return np.array([both[:, 0].min(axis=0), both[:, 1].max(axis=0)])

    def points_at(self, world: np.ndarray) -> np.ndarray:
        """`bound_points` for the world matrices `world` [N, 4, 4], without the clip."""
        return np.vstack(
            [
                box_corners(*part).reshape(-1, 3) if len(part) == 3 else part[0]
                for part in self._parts(world)
            ]
        )

    def _parts(self, world: np.ndarray, by_kind: bool = True) -> list[tuple]:
        """What `points_at(world)` is made of, in order: boxes (worlds, lo, hi) of the
        drawn nodes and of the GPU instances, points (skinned vertices,) as 1-tuples;
        nothing drawn: the nodes' origins, all there is to see. `by_kind` False: the
        drawn nodes' boxes by id in blocks (`_box_blocks`), where the order does not
        matter."""
        if by_kind:
            _, worlds, lo, hi = node_boxes(
                self.kind_of, self.sizes, self.kind_bounds, self._order(), world
            )
            parts: list[tuple] = [(worlds, lo, hi)]
        else:
            parts = list(self._box_blocks(world))
        parts.extend(self._hung_parts(world))
        if not any(len(part[0]) for part in parts):
            parts = [(world[np.asarray(self.graph.alive_ids(), dtype=np.int64), :3, 3],)]
        return parts

    def _hung_parts(self, world: np.ndarray) -> list[tuple]:
        """What hangs from nodes besides their own boxes, placed by `world`: skinned
        vertices (a 1-tuple: they follow their joints) and GPU instances' boxes."""
        parts: list[tuple] = []
        if self.scene.skinning is not None:
            parts.append((skinned_points(self.scene.skinning, self.scene.mesh_data, world),))
        if self.instanced:
            parts.append(self._instance_boxes(world)[1:])
        return parts

    def _box_blocks(self, world: np.ndarray):
        """The drawn nodes' boxes (worlds, lo, hi) by id, `BLOCK_ROWS` at a time (at least
        one, maybe empty): what `_parts(by_kind=False)` reduces to extremes or supports,
        each block's temporaries small enough to stay in the processor's cache (a million
        boxes at once took twice as long). Every id drawn: the matrices are views."""
        drawn = np.flatnonzero(self.kind_of[: len(world)] >= 0)
        every = len(drawn) == len(self.kind_of) <= len(world)
        for start in range(0, max(len(drawn), 1), BLOCK_ROWS):
            rows = drawn[start : start + BLOCK_ROWS]
            worlds = world[start : start + len(rows)] if every else world[rows]
            kind, size = self.kind_of[rows], self.sizes[rows]
            yield worlds, self.kind_bounds[kind, 0] * size, self.kind_bounds[kind, 1] * size

    def sphere(self) -> tuple[np.ndarray, float]:
        """Bounding sphere (centre [3], radius) of `bound_points`, at the scene's own
        scale (millimetres or kilometres alike); a scene of one point gets radius 0.5."""
        return sphere_around(self.extremes())

    def frame_camera(self, camera: Camera) -> None:
        """Aim `camera` (a `Camera`) at the whole scene, its far reach past the grid."""
        center, radius = self.sphere()
        grid_half = grid_span(center, radius)[1]
        camera.extent = max(radius + float(np.linalg.norm(center)), grid_half)
        camera.frame(center, radius)


def _part_extremes(part: tuple) -> np.ndarray:
    """[2, 3] extremes of a `SceneBounds._parts` entry: boxes (worlds, lo, hi) or
    points (points,)."""
    return box_extremes(*part) if len(part) == 3 else _point_extremes(part[0])


def _point_extremes(points: np.ndarray) -> np.ndarray:
    """[2, 3] lowest and highest of `points` [m, 3] ([0, 3] without any)."""
    return np.array([points.min(axis=0), points.max(axis=0)]) if len(points) else points
