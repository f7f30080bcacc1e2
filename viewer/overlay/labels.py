"""Where to write node names in the picture: pure numpy, no GL.

A name sits just right of its node: the middle of the node's mesh (its origin when it has
none; `SceneBounds.label_spheres`) is projected with the camera's view-projection
matrix, and moved right by the projected radius of the mesh.
Names behind the camera or outside the image are left out; where more than `NAME_BUDGET`
could be named, so are nodes drawn smaller than `MIN_NAME_PX` on screen unless they are
selected or glowing (a touched node keeps its name at any distance); of the rest at most
`NAME_BUDGET` are placed, the most important
first (the selected node, then the glowing ones, then the nearest), so that a big scene
stays readable and fast.

Names never pile up: `declutter` keeps a name only where it overlaps no name already
kept, offering the places in order of importance (the selected node, then nodes whose
own value changed (red), then those that followed (orange), then the rest; nearer first
within each), and keeps at most `MAX_NAMES` per frame. Nor does a name sit on another
node's shape (the middle `FOOTPRINT_SHARE` of its projected sphere), where it would read
as that node's name (a drop that brought a node beside another put "Obj8" on Obj3's
cube); only the selected node's name, with no free place, may cover less important
shapes, never their centres. A shape far bigger than a name (`LARGE_SHAPE_PX`: a floor)
keeps only its centre clear.

`place_named` looks at every node it is given (which are named, their spheres, their
projection): in a big scene it is given a bounded set of candidates
(`name_candidates.py`: the nearest cells in view of a grid kept while the scene stands),
and `Placements` keeps the answer while nothing it depends on changed: the camera, the
image size, what is drawn (the renderer's `version`), the selection and which nodes
speak. A still view redraws its names without looking at the nodes again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

#: Which of the given node ids get a name (a mask).
Speaks = Callable[[NDArray[np.int64]], NDArray[np.bool_]]
#: The label spheres of the given node ids: (centres [n, 3], radii [n]).
Spheres = Callable[[NDArray[np.int64]], tuple[NDArray[np.float64], NDArray[np.float64]]]
#: What an answer is kept for: the inputs it depends on, compared with == only.
CacheKey = tuple[object, ...]
#: `place_named`'s answer: (ids named, their centres [k, 3], index into them [m], xy [m, 2]).
Placement = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]

#: At most this many names are drawn in one frame.
MAX_LABELS = 300
#: At most this many names are placed for `declutter` (`place_named`), most important first.
NAME_BUDGET = 200
#: A node whose projected radius is below this many pixels gets no name (unless it is
#: selected or glowing): a name on a speck says nothing and hides its neighbours.
MIN_NAME_PX = 3.0
#: At most this many names are kept by `declutter` in one frame.
MAX_NAMES = 60
#: Gap in pixels between a node's projected edge and its name.
GAP = 4.0
#: Space in pixels kept clear around each name (its outline, and a pixel more).
MARGIN = 2.0
#: Importance ranks for `declutter`, most important first.
RANK_SELECTED, RANK_OWN_CHANGE, RANK_FOLLOWED, RANK_OTHER = 0, 1, 2, 3


def place(
    origins: np.ndarray,
    radii: np.ndarray,
    view_proj: np.ndarray,
    size: tuple[int, int],
    right: np.ndarray,
    limit: int = MAX_LABELS,
) -> tuple[np.ndarray, np.ndarray]:
    """Pixel anchors of names, nearest first (at most `limit`): `project`'s nodes that
    can show a name, ``(index [k], xy [k, 2])``."""
    ok, xy, depth, _ = project(origins, radii, view_proj, size, right)
    index = np.flatnonzero(ok)
    index = index[np.argsort(depth[index], kind="stable")][:limit]
    return index, xy[index]


def project(
    origins: np.ndarray,
    radii: np.ndarray,
    view_proj: np.ndarray,
    size: tuple[int, int],
    right: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where each node's name would go on screen.

    Parameters
    ----------
    origins : ndarray, [n, 3]
        Node origins in world space.
    radii : ndarray, [n]
        How far (world units) right of its origin a node's mesh reaches.
    view_proj : ndarray, [4, 4]
        The camera's ``P @ V`` (column vectors), as the renderer draws with.
    size : (width, height)
        Image size in pixels.
    right : ndarray, [3]
        The camera's unit right vector in world space.

    Returns
    -------
    (ok [n], xy [n, 2], depth [n], reach [n]) : which nodes can show a name (in front of
    the camera, the name starting inside the image), the pixel (top-left origin) where
    each name's left edge and vertical middle go, each node's distance along the view
    (clip w) and its projected radius in pixels.
    """
    origins = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    n = len(origins)
    if n == 0:
        return np.zeros(0, dtype=bool), np.zeros((0, 2)), np.zeros(0), np.zeros(0)
    w, h = size
    edge = origins + np.asarray(radii, dtype=np.float64)[:, None] * np.asarray(right)[None, :]
    pts = np.vstack([origins, edge])
    clip = np.hstack([pts, np.ones((2 * n, 1))]) @ np.asarray(view_proj, dtype=np.float64).T
    cw = clip[:, 3]
    front = cw > 1e-9
    safe = np.where(front, cw, 1.0)
    x = (clip[:, 0] / safe + 1.0) * 0.5 * w
    y = (1.0 - clip[:, 1] / safe) * 0.5 * h
    ox, oy, ex = x[:n], y[:n], x[n:]
    ok = front[:n] & front[n:] & (ox > -w) & (ox < w) & (oy >= 0) & (oy <= h)
    lx = np.maximum(ex, ox) + GAP
    ok &= lx < w
    return ok, np.stack([lx, oy], axis=1), cw[:n], np.abs(ex - ox)


def place_named(
    ids: NDArray[np.int64],
    speaks: Speaks,
    selected: int | None,
    spheres: Spheres,
    view_proj: NDArray[np.float64],
    size: tuple[int, int],
    right: NDArray[np.float64],
    glowing: NDArray[np.int64] | None = None,
    budget: int = NAME_BUDGET,
) -> Placement:
    """(ids named, their sphere centres [k, 3], index into them [m], xy [m, 2]) for the
    nodes `ids` that speak (``speaks(ids)`` -> mask) or are `selected`, placed around
    their spheres (``spheres(ids)`` -> (centres, radii)). Where more than `budget` could
    be named, nodes smaller on screen than `MIN_NAME_PX` are left out unless selected or
    in `glowing` (ids); at most `budget` are placed: the selected node, then the glowing
    ones, then the rest, nearer first."""
    chosen = -1 if selected is None else selected
    ids = ids[speaks(ids) | (ids == chosen)]
    centres, radii = spheres(ids)
    ok, xy, depth, reach = project(centres, radii, view_proj, size, right)
    rank = np.where(ids == chosen, 0, 2)
    if glowing is not None and len(glowing):
        rank[(rank == 2) & np.isin(ids, glowing)] = 1
    if np.count_nonzero(ok) > budget:  # crowded: specks go (in a small scene all may stay)
        ok &= (reach >= MIN_NAME_PX) | (rank < 2)
    index = np.flatnonzero(ok)
    index = index[np.lexsort((depth[index], rank[index]))][:budget]
    return ids, centres, index, xy[index]


class Placements:
    """`place`'s answer for the nodes that are named, kept while its inputs stand."""

    def __init__(self) -> None:
        self._key: CacheKey | None = None
        self._answer: Placement | None = None

    def get(self, key: CacheKey, work: Callable[[], Placement]) -> Placement:
        """The placement for `key` (a tuple of the inputs, compared with ==), from
        ``work()`` (-> (ids, centres, index, xy)) only when the key changed."""
        answer = self._answer
        if answer is None or self._key != key:
            answer = self._answer = work()
            self._key = key
        return answer


def project_xy(points: np.ndarray, view_proj: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Pixel positions (top-left origin) of world `points` [n, 3] in front of the camera."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    clip = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(view_proj, dtype=np.float64).T
    w = np.where(clip[:, 3] > 1e-9, clip[:, 3], 1.0)
    x = (clip[:, 0] / w + 1.0) * 0.5 * size[0]
    y = (1.0 - clip[:, 1] / w) * 0.5 * size[1]
    return np.stack([x, y], axis=1)


def rank_of(kind: int, selected: bool) -> int:
    """A name's importance from its glow kind (-1 own change, 1 followed, 0 none)."""
    if selected:
        return RANK_SELECTED
    return {-1: RANK_OWN_CHANGE, 1: RANK_FOLLOWED}.get(kind, RANK_OTHER)


def declutter(
    xy: np.ndarray,
    widths: np.ndarray,
    height: float,
    ranks: np.ndarray,
    origins: np.ndarray | None = None,
    limit: int = MAX_NAMES,
    keep_off: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    area: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Which names to draw, and where, so that none overlaps another or a node's centre.

    Parameters
    ----------
    xy : ndarray, [k, 2]
        Each name's anchor right of its node, as `place` gives them (left edge, vertical
        middle), in the order `place` gives them (nearest first).
    widths : ndarray, [k]
        Each name's width in pixels.
    height : float
        The text line height in pixels.
    ranks : ndarray, [k]
        Importance, smaller first (`rank_of`).
    origins : ndarray, [k, 2], optional
        The nodes' projected centres. Given, a name also tries the left of its node, then
        above and below it, and no name covers another node's shape (`_kept_clear`).
    keep_off : (points [n, 2], reach [n]), optional
        What names stay off where they can: points along the lines of the selected node's
        gizmo, each with the distance its stroke reaches (`viewer.gizmo.outline`). Every
        name first tries its places clear of them (the selected node's also the four just
        outside their bounding rectangle, inside `area` (width, height) where given); a
        name with no such place is placed as if they were not there.

    Returns
    -------
    (which [m], anchors [m, 2]) : positions into the `k` names, most important first
    (m <= `limit`), and where each kept name goes (left edge, vertical middle).
    """
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    widths = np.asarray(widths, dtype=np.float64).reshape(-1)
    places = [xy]
    if origins is not None:
        origins = np.asarray(origins, dtype=np.float64).reshape(-1, 2)
        reach = np.maximum(xy[:, 0] - origins[:, 0], GAP)  # projected radius + gap
        left = np.stack([origins[:, 0] - reach - widths, xy[:, 1]], axis=1)
        centred = origins[:, 0] - 0.5 * widths
        above = np.stack([centred, origins[:, 1] - reach - 0.5 * height], axis=1)
        below = np.stack([centred, origins[:, 1] + reach + 0.5 * height], axis=1)
        places += [left, above, below]
    ranks = np.asarray(ranks)
    clear = _kept_clear(ranks, xy, origins)
    order = np.argsort(ranks, kind="stable")  # nearer first within a rank
    boxes = np.zeros((0, 4))  # left, right, top, bottom of the names kept
    kept: list[int] = []
    anchors: list[np.ndarray] = []
    lines = rect = None
    if keep_off is not None and len(keep_off[0]):
        lines = (np.asarray(keep_off[0], np.float64), np.asarray(keep_off[1], np.float64))
        low = (lines[0] - lines[1][:, None]).min(axis=0)
        high = (lines[0] + lines[1][:, None]).max(axis=0)
        rect = np.array([low[0], high[0], low[1], high[1]])
    for k in order.tolist():
        if len(kept) >= limit:
            break
        own = places
        if rect is not None and origins is not None and ranks[k] == RANK_SELECTED:
            own = places + _outside(rect, origins[k], widths[k], height, area, len(xy))
        # Every centre counts; where no place is free, a selected or glowing name may still
        # cover the centres of less important nodes (a touched speck keeps its name).
        found, off_gizmo_only = _first_free(
            k, [(c, h, p) for c, h in clear[ranks[k]] for p in own], boxes, widths, height,
            origins, lines,
        )  # fmt: skip
        if found is None and off_gizmo_only:  # then as if the gizmo were not there
            found, _ = _first_free(
                k, [(c, h, p) for c, h in clear[ranks[k]] for p in places], boxes, widths,
                height, origins, None,
            )  # fmt: skip
        if found is not None:
            place_xy, box = found
            kept.append(k)
            anchors.append(place_xy[k])
            boxes = np.vstack([boxes, box])
    if not kept:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2))
    return np.asarray(kept, dtype=np.int64), np.asarray(anchors)


def _first_free(
    k: int,
    tries: list[tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.float64]]],
    boxes: NDArray[np.float64],
    widths: NDArray[np.float64],
    height: float,
    origins: NDArray[np.float64] | None,
    lines: tuple[NDArray[np.float64], NDArray[np.float64]] | None,
) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]] | None, bool]:
    """The first of name `k`'s `tries` (nodes counted, their half sizes, places) free of
    the kept `boxes`, of the gizmo's `lines` and of the nodes' centres: (its places and its
    box, or None), and whether some place was refused only for the gizmo's lines (else
    a try without them would find nothing either)."""
    refused_for_lines = False
    for counted, half, place_xy in tries:
        x, y = place_xy[k]
        box = np.array(
            [x - MARGIN, x + widths[k] + MARGIN, y - 0.5 * height - MARGIN,
             y + 0.5 * height + MARGIN]
        )  # fmt: skip
        if _clashes(box, boxes):
            continue
        if origins is not None and _covers_a_node(box, origins, half, k, counted):
            continue
        if lines is not None and _touches(box, *lines):
            refused_for_lines = True
            continue
        return (place_xy, box), refused_for_lines
    return None, refused_for_lines


def _outside(
    rect: NDArray[np.float64],
    origin: NDArray[np.float64],
    width: float,
    height: float,
    area: tuple[float, float] | None,
    rows: int,
) -> list[NDArray[np.float64]]:
    """Anchors (as `places`, `rows` rows: every name's row the same) just outside `rect`
    (left, right, top, bottom) for a name `width` wide about a node at `origin`: right of
    it, left, above and below, keeping those that fit inside `area` (width, height)."""
    x, y = float(origin[0]), float(origin[1])
    half = 0.5 * height + MARGIN
    out = []
    for ax, ay in (
        (rect[1] + GAP, y),
        (rect[0] - GAP - width, y),
        (x - 0.5 * width, rect[2] - GAP - half),
        (x - 0.5 * width, rect[3] + GAP + half),
    ):
        if area is not None and not (
            ax >= 0.0 and ax + width <= area[0] and half <= ay <= area[1] - half
        ):
            continue
        out.append(np.tile([ax, ay], (rows, 1)).astype(np.float64))
    return out


def _touches(box: np.ndarray, points: NDArray[np.float64], reach: NDArray[np.float64]) -> bool:
    """Whether a stroke through one of `points` (reaching `reach` pixels) enters `box`."""
    x, y = points[:, 0], points[:, 1]
    across = (x + reach > box[0]) & (x - reach < box[1])
    return bool(np.any(across & (y + reach > box[2]) & (y - reach < box[3])))


def _clashes(box: np.ndarray, boxes: np.ndarray) -> bool:
    return bool(
        np.any(
            (box[0] < boxes[:, 1])
            & (boxes[:, 0] < box[1])
            & (box[2] < boxes[:, 3])
            & (boxes[:, 2] < box[3])
        )
    )


#: Half-size in pixels of the square round a node's centre that no name may cover.
CENTRE_CLEAR = 4.0
#: The share of a node's projected sphere radius kept clear of other nodes' names: about
#: the half-width of the shape inside it (a cube's face: 0.5 of its 0.87 half-diagonal).
FOOTPRINT_SHARE = 0.6
#: A shape whose projected sphere radius is over this many pixels (a floor, a wall, a
#: node near the camera) is far bigger than a name, which does not read as its name:
#: only its centre is kept clear (else one floor would keep every name off itself).
LARGE_SHAPE_PX = 100.0


#: What a name keeps clear, try by try: (which nodes [k] bool, half-sizes [k] of their squares).
ClearTries = list[tuple[NDArray[np.bool_], NDArray[np.float64]]]


def _kept_clear(
    ranks: np.ndarray, xy: np.ndarray, origins: np.ndarray | None
) -> dict[int, ClearTries]:
    """By rank: the tries, in order, of what a name of that rank keeps clear, each
    (which nodes [k] bool, half-sizes [k] of their squares): every node's shape; for a
    glowing or selected name then the shapes of nodes as important or more; for the
    selected name last the centres alone of nodes as important (itself)."""
    everyone = np.ones(len(ranks), dtype=bool)
    centre = np.full(len(ranks), CENTRE_CLEAR)
    shape = centre
    if origins is not None:  # projected sphere radius: the anchor's distance less the gap
        radius = np.maximum(xy[:, 0] - origins[:, 0] - GAP, 0.0)
        shape = np.maximum(CENTRE_CLEAR, FOOTPRINT_SHARE * radius)
        shape[radius > LARGE_SHAPE_PX] = CENTRE_CLEAR
    clear: dict[int, ClearTries] = {}
    for rank in np.unique(ranks).tolist():
        tries: ClearTries = [(everyone, shape)]
        if rank != RANK_OTHER:
            tries.append((ranks <= rank, shape))
        if rank == RANK_SELECTED:
            tries.append((ranks <= rank, centre))
        clear[rank] = tries
    return clear


def _covers_a_node(
    box: np.ndarray, origins: np.ndarray, half: np.ndarray, own: int, counted: np.ndarray
) -> bool:
    """`box` covers the square (half-size `half`) round one of `origins` of the nodes
    `counted` (a mask) other than name `own`'s node."""
    inside = (
        counted
        & (origins[:, 0] + half > box[0])
        & (origins[:, 0] - half < box[1])
        & (origins[:, 1] + half > box[2])
        & (origins[:, 1] - half < box[3])
    )
    inside[own] = False  # its own node
    return bool(inside.any())
