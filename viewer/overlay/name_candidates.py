"""Which nodes may get a name, without looking at every node when the camera moves.

`labels.place_named` projects every node it is given. Given every node of a big scene, a
camera move costs a pass over all of them (100k nodes: every sphere, every projection).
`NameCandidates` instead sorts the speaking nodes' label centres once into a coarse grid
of cells (`NameGrid`: at most `CELLS_MAX` cells, kept while the scene stands: the graph,
the renderer's `version`, who speaks) and, for each view, hands `place_named` only the
nodes of the cells that can hold a name in the picture, nearest cells first, up to
`CANDIDATES` nodes, with the selected node and every glowing one that speaks. So a moving
camera costs the cells plus a bounded number of nodes (plus what glows), never the
graph's size. A cell is left out only when its bounding sphere lies wholly outside the
region where a name can go (`labels.project`'s tests, as planes), so where the view holds
fewer than `CANDIDATES` speaking nodes every one of them is offered, and the placement is
the one a look at every node gives; a scene of at most `CANDIDATES` speaking nodes skips
the grid. Candidates go to `place_named` in pre-order, as the whole list did, so ties in
depth fall the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from viewer.spans import aranges

from . import labels

#: At most this many nodes are offered to `place_named` per view from the grid, besides
#: the selected and the glowing nodes.
CANDIDATES = 2000
#: At most this many cells per axis (`CELLS_MAX` in all), about `PER_CELL` nodes each.
CELLS_PER_AXIS = 16
CELLS_MAX = CELLS_PER_AXIS**3
PER_CELL = 64


class NameGrid:
    """Node ids sorted into a uniform grid of cells by their label centres [n, 3], each
    cell with the sphere around its centres. `rank` [n]: each node's pre-order place."""

    def __init__(self, ids: np.ndarray, centres: np.ndarray, rank: np.ndarray) -> None:
        per_axis = int(np.clip(round((len(ids) / PER_CELL) ** (1.0 / 3.0)), 1, CELLS_PER_AXIS))
        lo = centres.min(axis=0)
        span = np.maximum(centres.max(axis=0) - lo, 1e-300)
        cell3 = np.minimum(((centres - lo) / span * per_axis).astype(np.int64), per_axis - 1)
        cell = (cell3[:, 0] * per_axis + cell3[:, 1]) * per_axis + cell3[:, 2]
        order = np.argsort(cell.astype(np.uint16), kind="stable")  # (a radix sort)
        self.ids, self.rank = ids[order], rank[order]
        sorted_cells = cell[order]
        self.starts = np.flatnonzero(np.diff(sorted_cells, prepend=-1))
        self.ends = np.append(self.starts[1:], len(ids))
        inside = centres[order]
        low = np.minimum.reduceat(inside, self.starts, axis=0)
        high = np.maximum.reduceat(inside, self.starts, axis=0)
        self.cell_centres = 0.5 * (low + high)
        scale = np.abs(self.cell_centres).max(axis=1)  # (a margin for rounding at the edges)
        self.cell_radii = 0.5 * np.linalg.norm(high - low, axis=1) * (1.0 + 1e-9) + 1e-9 * scale

    def near(self, view_proj: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids, ranks) of the nodes in the cells that may hold a name in the picture of
        `view_proj`, nearest cells first (by the nearest depth their sphere reaches), at
        most `limit` (the last cell taken may be cut short: a dense cluster is one cell)."""
        vp = np.asarray(view_proj, dtype=np.float64)
        x, y, w = vp[0], vp[1], vp[3]
        # Where `labels.project` lets a name go, in clip space: in front (w > 0), the
        # node's centre less than a picture's width left of it and left of its right edge
        # (-3w < x < w), between its top and bottom (-w <= y <= w): planes a . [p, 1] >= 0.
        planes = np.array([w, x + 3.0 * w, w - x, w - y, w + y])
        reach = np.linalg.norm(planes[:, :3], axis=1)
        signed = self.cell_centres @ planes[:, :3].T + planes[:, 3]
        cells = np.flatnonzero((signed + self.cell_radii[:, None] * reach >= 0.0).all(axis=1))
        nearest = signed[cells, 0] - self.cell_radii[cells] * reach[0]
        cells = cells[np.argsort(nearest, kind="stable")]
        sizes = self.ends[cells] - self.starts[cells]
        cells = cells[: int(np.searchsorted(np.cumsum(sizes), limit)) + 1]
        rows = aranges(self.starts[cells], self.ends[cells])[:limit]
        return self.ids[rows], self.rank[rows]


class NameCandidates:
    """`place_named` over a bounded set of candidates, with the grid of the scene as it
    stands kept between frames."""

    def __init__(self, limit: int = CANDIDATES) -> None:
        self.limit = limit
        self._key: labels.CacheKey | None = None
        self._grid: NameGrid | None = None
        self._alive = np.zeros(0, dtype=np.int64)  # pre-order, when there is no grid
        self._rank_of = np.zeros(0, dtype=np.int64)  # by id: pre-order place, -1 none
        #: Nodes whose spheres the last `place` looked at (tests count the work).
        self.looked_at = 0

    def place(
        self,
        key: labels.CacheKey,
        alive_ids: Callable[[], NDArray[np.int64]],
        speaks: labels.Speaks,
        selected: int | None,
        spheres: labels.Spheres,
        view_proj: NDArray[np.float64],
        size: tuple[int, int],
        right: NDArray[np.float64],
        glowing: NDArray[np.int64] | None = None,
    ) -> labels.Placement:
        """`labels.place_named`'s answer for the view; `key` names the scene as it stands
        (the grid is built again when it changes), `alive_ids()` the live ids in
        pre-order, the rest as `place_named` takes them."""
        if key != self._key:
            self._build(np.asarray(alive_ids(), dtype=np.int64), speaks, spheres)
            self._key = key
        if self._grid is None:
            ids = self._alive
        else:
            ids, ranks = self._grid.near(view_proj, self.limit)
            extra = [] if glowing is None else [np.asarray(glowing, dtype=np.int64)]
            if selected is not None:
                extra.append(np.array([selected], dtype=np.int64))
            if extra:  # the selected and glowing nodes that were there at the build
                more = np.concatenate(extra)
                more = more[(more >= 0) & (more < len(self._rank_of))]
                more = more[self._rank_of[more] >= 0]
                ids = np.concatenate([ids, more])
                ranks = np.concatenate([ranks, self._rank_of[more]])
                ranks, first = np.unique(ranks, return_index=True)  # each once, in pre-order
                ids = ids[first]
            else:
                ids = ids[np.argsort(ranks, kind="stable")]
        self.looked_at = len(ids)
        return labels.place_named(ids, speaks, selected, spheres, view_proj, size, right, glowing)

    def _build(
        self, alive: NDArray[np.int64], speaks: labels.Speaks, spheres: labels.Spheres
    ) -> None:
        size = int(alive.max()) + 1 if alive.size else 0
        self._rank_of = np.full(size, -1, dtype=np.int64)
        self._rank_of[alive] = np.arange(len(alive))
        speaking = alive[speaks(alive)]
        self._alive, self._grid = alive, None
        if len(speaking) > self.limit:
            self._grid = NameGrid(speaking, spheres(speaking)[0], self._rank_of[speaking])
