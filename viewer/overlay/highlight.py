"""Per-node glow driven by frame reports, fading over time: pure numpy, no GL.

Each frame report lights the nodes it recomputed: a node whose local matrix was
recomputed (its own value changed) glows red, a node whose world matrix only was
recomputed (a descendant of a change) glows orange. A lit node starts at strength 1 and
fades linearly to 0 over `fade` seconds of simulation time, so that the eye can follow a
change at 60 frames per second; while the simulation is paused nobody calls `advance`,
and the glow stays. The line from a parent to a child lights up with the child when both
were recomputed in the same frame: that line is on the path the change travelled.

The renderer takes one float per node (`Renderer.set_highlight`): the strength, signed
by colour (`signed_values`: negative = red / local, positive = orange / world). `Mirror`
remembers what the GPU holds so that a frame writes only the values that changed.
"""

from __future__ import annotations

import numpy as np

#: Seconds a glow takes to fade out (adjustable in the panel).
DEFAULT_FADE = 0.5
#: Strengths below this count as 0 (a linear fade in float steps may stop just above 0).
EPSILON = 1e-4

_EMPTY_IDS = np.zeros(0, dtype=np.int64)
_EMPTY_VALUES = np.zeros(0, dtype=np.float32)


class Highlight:
    """Glow strength per node id, and per parent -> child line (indexed by the child).

    Parameters
    ----------
    fade : float
        Seconds from full strength to none; 0 or less: a glow lasts exactly one frame.

    Attributes
    ----------
    level : ndarray, [n] float32
        Strength in [0, 1] by node id.
    local : ndarray, [n] bool
        By node id: the node's last lighting came with a local recomputation (red).
    link : ndarray, [n] float32
        Strength in [0, 1] of the line from the node's parent to the node.
    """

    def __init__(self, fade: float = DEFAULT_FADE):
        self.fade = float(fade)
        self.level = np.zeros(0, dtype=np.float32)
        self.local = np.zeros(0, dtype=bool)
        self.link = np.zeros(0, dtype=np.float32)
        self._active = _EMPTY_IDS  # sorted ids with level > 0 or link > 0

    @classmethod
    def of_report(cls, report, parents: np.ndarray) -> Highlight:
        """A still picture of one report at full strength (a frame picked on the timeline)."""
        still = cls(fade=0.0)
        still.apply(report, parents)
        return still

    def _grow(self, n: int) -> None:
        if n <= len(self.level):
            return
        size = max(n, 2 * len(self.level))
        for name in ("level", "local", "link"):
            old = getattr(self, name)
            new = np.zeros(size, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def apply(self, report, parents: np.ndarray) -> None:
        """Light what `report` recomputed, at full strength.

        `parents` is the graph's parent id per node id (``graph.parents()``), used to find
        the lines on the propagation path.
        """
        world = np.asarray(report.world_updated, dtype=np.int64)
        local = np.asarray(report.local_updated, dtype=np.int64)
        parents = np.asarray(parents, dtype=np.int64)
        lit = np.union1d(world, local)
        if lit.size == 0:
            return
        self._grow(max(len(parents), int(lit[-1]) + 1))
        self.level[lit] = 1.0
        self.local[lit] = False
        self.local[local] = True
        # A line parent -> child is on the path when both ends were recomputed.
        recomputed = np.zeros(len(self.level), dtype=bool)
        recomputed[world] = True
        par = parents[world] if len(parents) else np.full(len(world), -1)
        has_parent = par >= 0
        on_path = world[has_parent][recomputed[par[has_parent]]]
        self.link[on_path] = 1.0
        self._active = np.union1d(self._active, lit)

    def light(self, ids: np.ndarray) -> None:
        """Light nodes `ids` at full strength as changed in their own values (red), with
        no line: a change that moved no matrix (morph weights)."""
        ids = np.unique(np.asarray(ids, dtype=np.int64))
        if ids.size == 0:
            return
        self._grow(int(ids[-1]) + 1)
        self.level[ids] = 1.0
        self.local[ids] = True
        self._active = np.union1d(self._active, ids)

    def advance(self, dt: float) -> None:
        """Let `dt` seconds of simulation pass: every glow fades by dt / fade."""
        a = self._active
        if a.size == 0 or dt <= 0:
            return
        step = np.float32(np.inf if self.fade <= 0 else dt / self.fade)
        for arr in (self.level, self.link):
            v = arr[a] - step
            v[v < EPSILON] = 0.0
            arr[a] = v
        self._active = a[(self.level[a] > 0) | (self.link[a] > 0)]

    def clear(self) -> None:
        """Turn every glow off."""
        self.level[:] = 0
        self.link[:] = 0
        self._active = _EMPTY_IDS

    @property
    def active(self) -> np.ndarray:
        """Ids (sorted) whose node or incoming line glows."""
        return self._active

    def signed_values(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids [k], values [k] float32) of glowing nodes: -strength for red (local),
        +strength for orange (world only). Nodes that do not glow are left out."""
        a = self._active
        if a.size == 0:
            return _EMPTY_IDS, _EMPTY_VALUES
        level = self.level[a]
        keep = level > 0
        ids, level = a[keep], level[keep]
        return ids, np.where(self.local[ids], -level, level).astype(np.float32)

    def links(self) -> tuple[np.ndarray, np.ndarray]:
        """(child ids [k], strengths [k] float32) of the glowing parent -> child lines."""
        a = self._active
        if a.size == 0:
            return _EMPTY_IDS, _EMPTY_VALUES
        link = self.link[a]
        keep = link > 0
        return a[keep], link[keep].astype(np.float32)

    def kind_of(self, node_id: int) -> int:
        """-1 if the node glows red (local), +1 orange (world), 0 if it does not glow."""
        i = int(node_id)
        if i >= len(self.level) or self.level[i] <= 0:
            return 0
        return -1 if self.local[i] else 1


class Mirror:
    """The sparse per-node values the GPU holds, so that only changes are written.

    `update(ids, values)` takes the complete new set of non-zero values and returns
    what to write: ids whose value changed, plus ids that were non-zero and are not any
    more (written as 0).
    """

    def __init__(self):
        self.ids = _EMPTY_IDS
        self.values = _EMPTY_VALUES

    def update(self, ids, values) -> tuple[np.ndarray, np.ndarray]:
        ids = np.asarray(ids, dtype=np.int64)
        values = np.asarray(values, dtype=np.float32)
        order = np.argsort(ids, kind="stable")
        ids, values = ids[order], values[order]
        nonzero = values != 0
        ids, values = ids[nonzero], values[nonzero]
        prev = np.zeros(len(ids), dtype=np.float32)
        if len(self.ids) and len(ids):
            at = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
            found = self.ids[at] == ids
            prev[found] = self.values[at[found]]
        changed = values != prev
        gone = np.setdiff1d(self.ids, ids, assume_unique=True)
        self.ids, self.values = ids, values
        out_ids = np.concatenate([ids[changed], gone])
        out_values = np.concatenate([values[changed], np.zeros(len(gone), dtype=np.float32)])
        return out_ids, out_values

    def reset(self) -> None:
        """Forget the GPU state (a new renderer starts with every value at 0)."""
        self.ids = _EMPTY_IDS
        self.values = _EMPTY_VALUES
