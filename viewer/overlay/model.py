"""What the panel shows, computed without ImGui: pure Python and numpy, no GL.

The panel (`panel.py`) only lays these out: the tree's rows and their L / W / E flags, the
selected node's details with "dirty because of", the panel sizes, the timeline's bars.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from viewer.scene.graph import SceneGraph
from viewer.scene.math import decompose, quat_to_euler
from viewer.scene.peek import Peek
from viewer.scene.report import FrameReport
from viewer.text import printable

from .host import GlowState
from .stats import held_reasons, stale_ids
from .timeline_records import FrameRecords

#: Below this many nodes the whole tree starts expanded; above, only the roots.
OPEN_ALL_BELOW = 64


def reload_note(error: str | None) -> str | None:
    """The panel's line about live reload: why the last save did not load (the last good
    scene stays on show), or None once a good save loaded."""
    return None if not error else f"reload failed, showing the last good scene: {error}"


#: Narrower pictures fold the right panel ("Frames") to its title bar, and give the left
#: one at most `NARROW_LEFT_SHARE` of the width: the 3D view keeps most of the picture.
FOLD_FRAMES_BELOW = 760
#: Narrower pictures fold both panels to their title bars (a notebook's thumbnail).
FOLD_ALL_BELOW = 480
NARROW_LEFT_SHARE = 0.30
NARROW_LEFT_MIN = 180


def panel_widths(width: int) -> tuple[int, int]:
    """(left, right) widths in pixels of the open panels in a picture `width` pixels
    wide; 0 for a panel folded to its title bar (`panels_folded`).

    The left panel holds the tree and the selected node, the right one the timeline,
    the counters and the log; the 3D view is centred between them. Wide pictures give
    the panels at most half the width; below `FOLD_FRAMES_BELOW` pixels the right panel
    folds and the left takes at most 30 %, below `FOLD_ALL_BELOW` both fold, so that the
    3D view never shrinks to a strip between them.
    """
    if width < FOLD_ALL_BELOW:
        return 0, 0
    if width < FOLD_FRAMES_BELOW:
        return int(max(NARROW_LEFT_MIN, round(NARROW_LEFT_SHARE * width))), 0
    left = int(min(360, max(220, round(0.27 * width))))
    right = int(min(320, max(200, round(0.23 * width))))
    return left, right


def panels_folded(width: int) -> tuple[bool, bool]:
    """(left, right): whether each panel is folded to its title bar at this width (a
    click on the title opens it over the view)."""
    left, right = panel_widths(width)
    return left == 0, right == 0


class Recomputed(Protocol):
    """What a frame recomputed, as the flags read it: a `FrameReport`, or the part of one
    a replay has lit so far (`replay.PartialReport`)."""

    @property
    def local_updated(self) -> NDArray[np.int64]: ...
    @property
    def world_updated(self) -> NDArray[np.int64]: ...
    @property
    def executed(self) -> NDArray[np.int64]: ...


@dataclass
class Flags:
    """By node id, for one frame: local recomputed, world recomputed, handed to the
    renderer (executed). `pending`: instead, the flags set now and not yet executed
    (paused after a touch or an edit; the next step executes them)."""

    local: NDArray[np.bool_]
    world: NDArray[np.bool_]
    executed: NDArray[np.bool_]
    pending: bool = False
    #: Nodes clean in this frame whose glow from an earlier one still fades: id ->
    #: (frames ago, glow strength in (0, 1], own change). See `fading_of`.
    fading: Mapping[int, tuple[int, float, bool]] = field(default_factory=dict)
    #: A connected program's stale nodes (`stats.stale_ids`): world differs from parent x local.
    stale: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: A connected program's held nodes (`stats.held_reasons`): id -> the reason it sent.
    held: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of_report(cls, report: Recomputed, n: int) -> Flags:
        local, world, executed = (
            _mask(ids, n) for ids in (report.local_updated, report.world_updated, report.executed)
        )
        stale = _mask(stale_ids(report), n)
        return cls(local, world, executed, stale=stale, held=held_reasons(report))

    def is_stale(self, node_id: int) -> bool:
        return bool(self.stale[node_id]) if 0 <= node_id < len(self.stale) else False

    @classmethod
    def of_marks(cls, graph: SceneGraph) -> Flags:
        """The flags set now and not yet executed, read through ``graph.peek`` (so
        reading them executes nothing)."""
        marks = graph.peek.flags()
        return cls(marks.local, marks.world, marks.execute, pending=True)

    @cached_property
    def count(self) -> int:
        """How many nodes have any flag set (counted once)."""
        n = max(len(self.local), len(self.world), len(self.executed))
        any_set = np.zeros(n, dtype=bool)
        for a in (self.local, self.world, self.executed):
            any_set[: len(a)] |= a
        return int(np.count_nonzero(any_set))

    @classmethod
    def none(cls) -> Flags:
        empty = np.zeros(0, dtype=bool)
        return cls(empty, empty, empty)

    def of(self, node_id: int) -> tuple[bool, bool, bool]:
        i = int(node_id)
        local, world, executed = (
            bool(a[i]) if i < len(a) else False for a in (self.local, self.world, self.executed)
        )
        return local, world, executed


def _mask(ids: ArrayLike, n: int) -> NDArray[np.bool_]:
    """By id, at least `n` long: True for `ids`."""
    at = np.asarray(ids, dtype=np.int64)
    size = max(n, int(at.max()) + 1 if at.size else 0)
    mask = np.zeros(size, dtype=bool)
    mask[at] = True
    return mask


class Fading(Mapping[int, tuple[int, float, bool]]):
    """`fading_of`'s answer, kept as arrays: a connected program's folded frames keep tens
    of thousands of nodes glowing while the tree draws a screenful of rows, so a row is
    made only when looked up (each redraw computes this again)."""

    def __init__(
        self,
        ids: NDArray[np.int64],
        ages: NDArray[np.int64],
        strengths: NDArray[np.float32],
        own: NDArray[np.bool_],
    ) -> None:
        self._ids, self._ages, self._strengths, self._own = ids, ages, strengths, own
        self._row = np.full(int(ids.max()) + 1 if ids.size else 0, -1, dtype=np.int64)
        self._row[ids] = np.arange(ids.size)

    def __getitem__(self, node_id: int) -> tuple[int, float, bool]:
        i = int(node_id)
        k = int(self._row[i]) if 0 <= i < self._row.size else -1
        if k < 0:
            raise KeyError(node_id)
        return int(self._ages[k]), float(self._strengths[k]), bool(self._own[k])

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __len__(self) -> int:
        return int(self._ids.size)


def fading_of(glow: GlowState, flags: Flags) -> Fading:
    """The nodes still glowing from an earlier frame than the one `flags` are of, so that
    the tree's flags fade with the glow: id -> (frames ago, strength, own change). Costs
    what glows now (`GlowState.glowing`), not the graph's size."""
    ids, signed = glow.glowing()
    ages = glow.frames - glow.frame_of[ids]
    keep = ages > 0
    for flag in (flags.local, flags.world, flags.executed):  # (`Flags.of`, all at once)
        inside = ids < len(flag)
        keep[inside] &= ~flag[ids[inside]]
    signed = signed[keep]
    return Fading(ids[keep], ages[keep], np.abs(signed), signed < 0)


def pending_note(count: int, paused: bool) -> str:
    """The panel's line over the tree while flags are set and not yet executed."""
    when = "the next step (. or Step) executes them" if paused else "the next frame executes them"
    return f"pending: {count} node{'s' if count != 1 else ''} marked, not yet executed; {when}"


def pending_notes(count: int, paused: bool) -> list[str]:
    """`pending_note` and shorter forms of it, the longest first: the panel shows the
    first that fits on its one line (the whole note in its tooltip)."""
    nodes = f"{count} node{'s' if count != 1 else ''}"
    return [
        pending_note(count, paused),
        f"pending: {nodes} marked, not yet executed",
        f"pending: {nodes}, not yet executed",
        f"pending: {nodes} (not executed)",
        f"pending: {nodes}",
    ]


#: What the tree's flag columns and the legend's letters mean (their tooltips).
FLAG_TIPS = {
    "L": "L, local: the node's local matrix was recomputed in the frame shown\n"
    "(its own position, rotation or scale was set, or it was touched)",
    "W": "W, world: its world matrix was recomputed (parent world x local):\n"
    "it changed, or a node above it did",
    "E": "E, to renderer: its new world matrix was handed to the renderer\n(uploaded to the GPU)",
    "node": "the hierarchy; a row still fading says how many frames ago it was\n"
    "recomputed (its letters fade with its glow)",
}


def flag_text(local: bool, world: bool, executed: bool) -> str:
    """``"L W E"`` with a dot for each flag not set: ``"L W E"``, ``". W E"``, ``". . ."``."""
    return " ".join(c if on else "." for c, on in zip("LWE", (local, world, executed)))


class TreeRows:
    """The graph's nodes in pre-order with what a tree widget needs, built with whole-array
    passes (a million rows: no Python loop over the nodes; the panel makes text only for
    the rows it shows).

    Attributes
    ----------
    ids, depths : ndarray, [n] int64
        Live node ids in pre-order and their depths.
    deepest : int
        The largest depth (0 for an empty tree): how many levels the names share room with.
    ends : ndarray, [n] int64
        For row r, the row just past its subtree: skip a collapsed node with ``r = ends[r]``.
    has_children : ndarray, [n] bool
    """

    def __init__(self, graph: SceneGraph) -> None:
        peek = graph.peek  # a watcher's read: the graph's state stays as it is
        self.ids = np.asarray(peek.alive_ids(), dtype=np.int64)
        parents = np.asarray(peek.parents(), dtype=np.int64)
        n = len(self.ids)
        # By id (one more at the end: a root's parent -1 reads it): its row, -1 for none.
        self._row_by_id = np.full(len(parents) + 1, -1, dtype=np.int64)
        self._row_by_id[self.ids] = np.arange(n)
        self.depths = np.asarray(peek.depths(), dtype=np.int64)[self.ids]
        self.deepest = int(self.depths.max()) if n else 0
        self.ends = _subtree_ends(self._row_by_id[parents[self.ids]])
        self.has_children = self.ends > np.arange(n) + 1
        self.open_all = n <= OPEN_ALL_BELOW

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, node_id: int) -> int | None:
        """The row of node `node_id`, None when it has none (gone, or not of this tree)."""
        inside = 0 <= node_id < len(self._row_by_id) - 1
        r = int(self._row_by_id[node_id]) if inside else -1
        return r if r >= 0 else None


def _subtree_ends(parent_rows: np.ndarray) -> np.ndarray:
    """For rows in pre-order with their parents' rows (-1: a root), the row just past each
    row's subtree: one past its last descendant, which is its last child's last descendant
    (a leaf: itself). Followed by pointer doubling, log2(depth) passes over the rows."""
    n = len(parent_rows)
    rows = np.arange(n)
    last = rows.copy()  # last child's row, or the row itself for a leaf
    child = parent_rows >= 0
    np.maximum.at(last, parent_rows[child], rows[child])
    while True:
        further = last[last]
        if np.array_equal(further, last):
            return last + 1
        last = further


def ancestors(parents: np.ndarray, node_id: int) -> list[int]:
    """Ids of the node's ancestors, nearest first."""
    out = []
    p = int(parents[node_id])
    while p >= 0:
        out.append(p)
        p = int(parents[p])
    return out


def _num(x: float, fmt: str) -> str:
    text = format(x, fmt)
    return text.replace("-", " ", 1) if float(text) == 0.0 and "-" in text else text


def _vec(v: ArrayLike, fmt: str = ".3f") -> str:
    return "(" + ", ".join(_num(x, fmt).strip() for x in np.asarray(v, dtype=np.float64)) + ")"


def matrix_rows(m: ArrayLike) -> list[str]:
    """A 4x4 matrix as four lines of fixed-width numbers (no "-0.000")."""
    rows = np.asarray(m, dtype=np.float64).tolist()
    return ["  ".join(_num(x, "8.3f") for x in row) for row in rows]


def cause_text(report: FrameReport | None, node_id: int, frame: int) -> str:
    """``"dirty because of: Obj3"`` (itself when the node's own value changed), or that the
    node was clean in `frame`; `report` None: the frame's report was not kept."""
    if report is None:
        return f"frame {frame}: report not kept"
    cause = report.cause_of(node_id)
    if cause is None:
        return f"clean in frame {frame}"
    if cause == int(node_id):
        return f"dirty because of: {printable(report.name(cause))} (its own change)"
    return f"dirty because of: {printable(report.name(cause))}"


def continuous_euler(previous: ArrayLike, current: ArrayLike) -> NDArray[np.float64]:
    """Of the Euler triples (degrees, R = Rz Ry Rx) that make the same rotation as
    `current`, the one nearest `previous` (the one shown a frame before), so that a
    spinning node's angles move on smoothly instead of jumping between equivalent
    triples: ``(x, y, z)`` and ``(x + 180, 180 - y, z + 180)``, each angle shifted by
    whole turns towards `previous`. A display choice only: the rotation is the same."""
    before = np.asarray(previous, dtype=np.float64)
    x, y, z = np.asarray(current, dtype=np.float64).tolist()
    turns = [np.array([x, y, z]), np.array([x + 180.0, 180.0 - y, z + 180.0])]
    shifted = [t - 360.0 * np.round((t - before) / 360.0) for t in turns]
    return min(shifted, key=lambda t: float(np.abs(t - before).sum()))


def readable_euler(euler: ArrayLike) -> NDArray[np.float64]:
    """Of the Euler triples that make the rotation, the one nearest no rotation at all
    (each angle within a half turn): a spin of 106.8 degrees about y reads (0, 106.8, 0),
    not the equivalent (180, 73.2, 180) the arcsine gives."""
    return continuous_euler(np.zeros(3), euler)


def readable_quaternion(q: ArrayLike) -> NDArray[np.float64]:
    """`q` or `-q` (the same rotation), the one with w >= 0: a node and its world
    rotation read alike when its parent does not turn."""
    quat = np.asarray(q, dtype=np.float64)
    return -quat if quat[3] < 0.0 else quat


#: After the label of a world value that is behind its node's values (marked, not yet
#: executed): the value is the stored one, until the step.
STALE_NOTE = " (stale)"


def watched_values(
    peek: Peek, node_id: int
) -> tuple[dict[str, NDArray[np.float64]], list[NDArray[np.float64]], bool]:
    """A node's values as the panels show them (the selected node's rows, the inspector),
    read through ``graph.peek`` so that drawing recomputes nothing: its local values by
    field, the world ones in the inspector's row order (position, Euler degrees,
    quaternion, lossy scale) and whether the stored world matrix is behind the values
    (then the world rows read stale)."""
    pos, rot, scl = peek.local_values(node_id)
    world, stale = peek.world_matrix(node_id)
    w_pos, w_rot, w_scl = decompose(world)
    local = {
        "local_position": pos,
        "local_euler": readable_euler(quat_to_euler(rot)),
        "local_rotation": readable_quaternion(rot),
        "local_scale": scl,
    }
    worlds = [w_pos, readable_euler(quat_to_euler(w_rot)), readable_quaternion(w_rot), w_scl]
    return local, worlds, stale


def node_details(graph: SceneGraph, node_id: int) -> list[tuple[str, str]]:
    """(label, value) rows about a node: local and world position, rotation (Euler degrees,
    R = Rz Ry Rx) and scale, its parent and its world version.

    Read through ``graph.peek``: the world values are the stored ones, marked stale when
    the node's world matrix is behind its values, and nothing is recomputed (a panel that
    pulled would clear the flags it shows and bump the version it prints)."""
    peek = graph.peek
    i = int(node_id)
    parent = int(peek.parents()[i])
    local, (w_pos, w_euler, _, w_scl), stale = watched_values(peek, i)
    note = STALE_NOTE if stale else ""
    return [
        ("node", f"{printable(peek.name_of(i))}  (id {i})"),
        ("parent", printable(peek.name_of(parent)) if parent >= 0 else "none (a root)"),
        ("local position", _vec(local["local_position"])),
        ("local rotation", _vec(local["local_euler"], ".1f") + " deg"),
        ("local scale", _vec(local["local_scale"])),
        ("world position" + note, _vec(w_pos)),
        ("world rotation" + note, _vec(w_euler, ".1f") + " deg"),
        ("world scale" + note, _vec(w_scl)),
        ("world version" + note, f"{int(peek.world_versions()[i])}"),
    ]


#: Narrowest timeline bar in pixels: narrower, a click lands on the neighbouring frame.
MIN_BAR_WIDTH = 4.0


def timeline_window(width: float, count: int, back: int) -> tuple[int, int, float]:
    """(first, stop, slot): the timeline shows entries ``first:stop`` of the `count` kept,
    each `slot` (`MIN_BAR_WIDTH`) pixels wide, as many as fit in `width`, ending `back`
    entries before the latest (0: it ends at the latest; clamped to the kept ones)."""
    slot = MIN_BAR_WIDTH
    fits = max(1, int(width // slot))
    stop = min(count, max(count - max(int(back), 0), min(fits, count)))
    return max(0, stop - fits), stop, slot


def timeline_back_to_show(width: float, count: int, index: int, back: int) -> int:
    """The `back` (see `timeline_window`) that brings entry `index` into view: unchanged
    when it is in view already, else with the entry a quarter in from the right end."""
    first, stop, _ = timeline_window(width, count, back)
    if first <= index < stop:
        return back
    fits = max(1, int(width // MIN_BAR_WIDTH))
    return max(0, count - min(count, index + 1 + fits // 4))


def timeline_index(x: float, left: float, width: float, count: int) -> int | None:
    """The entry under pixel `x` on a timeline of `count` bars spread over `width` pixels
    starting at `left`; None when outside."""
    if count <= 0 or width <= 0 or x < left or x >= left + width:
        return None
    return min(count - 1, int((x - left) / width * count))


def timeline_span(frames: Sequence[int] | NDArray[np.int64], records: FrameRecords) -> str:
    """The timeline's caption: the frames in view and the newest frame's number.

    Frame numbers are the scene's (a program's own count when attached), so the newest
    number, not how many frames are kept, is what "of" refers to.
    """
    last = records.last
    if not len(frames) or last is None:
        return "no frames yet"
    return f"frames {int(frames[0]):,} to {int(frames[-1]):,} of {last.frame:,}"


def quiet_log_text(records: FrameRecords) -> str:
    """What the empty log says: why there is nothing to show."""
    newest = records.last
    if not len(records) or newest is None:
        return "no frame yet"
    first, last = records[0].frame, newest.frame
    busy = int((records.records()["world"] > 0).sum())
    if busy:
        return f"frames {first} to {last}: the reports of those that recomputed were not kept"
    return f"frames {first} to {last} recomputed nothing"
