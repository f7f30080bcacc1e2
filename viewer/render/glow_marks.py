"""What the glow shows instead of the live stamps (numpy only, no GL): a frame picked on
the timeline, at full strength, or nodes marked and not yet executed.

Marked but not yet executed (`set_pending`): a touch or an edit while paused marks nodes
(update_local on the changed node, update_world and execute on its subtree) that the next
step will recompute. Until then those nodes carry the reasons PENDING_OWN / PENDING_FOLLOWED
(`glow.py`), which the shaders draw as the *pending look*: a halo outline and diagonal
hatching in the glow's colour (red: its own value changed, orange: it follows), where an
executed node is filled solid. The next recorded frame replaces them with the usual stamps.
The glow (`glow.Glow`) owns one of these and asks it, per node, what to show.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

_EMPTY_IDS = np.zeros(0, dtype=np.int64)


class LitFrame(Protocol):
    """A frame's recomputed nodes as the glow reads them: a `FrameReport`, or the part of
    one a replay has lit so far."""

    @property
    def world_updated(self) -> npt.NDArray[np.int64]: ...
    @property
    def local_updated(self) -> npt.NDArray[np.int64]: ...


class GlowMarks:
    """A picked frame's nodes and lines, and the nodes marked while paused."""

    def __init__(self) -> None:
        #: (world ids, local ids, child ids of the lit lines) of the picked frame; None: live.
        self.still: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: Ids marked with their own change, and ids marked to follow, not yet executed.
        self.pending_own = _EMPTY_IDS
        self.pending_followed = _EMPTY_IDS

    def set_still(self, report: LitFrame | None, parents: np.ndarray, n: int) -> None:
        """Show `report` (a frame picked on the timeline; None: live again); `parents`:
        the graph's parent id per node id, every id below `n`."""
        if report is None:
            self.still = None
            return
        world = np.asarray(report.world_updated, dtype=np.int64)
        local = np.asarray(report.local_updated, dtype=np.int64)
        in_frame = np.zeros(n, dtype=bool)
        in_frame[world] = True
        par = np.asarray(parents, dtype=np.int64)[world]
        lines = world[in_frame[par] & (par >= 0)]  # (a root's -1 reads in_frame, then goes)
        self.still = (world, local, lines)

    def still_mark(self, ids: np.ndarray, n: int, own, followed) -> np.ndarray:
        """Per node of `ids` (all below `n`) in the picked frame: `own` for a local
        recomputation, `followed` for a world one only, 0 for none."""
        if self.still is None:
            raise ValueError("no frame is picked on the timeline")
        world, local, _ = self.still
        return _marks(ids, n, local, world, own, followed)

    def set_pending(self, own: np.ndarray, followed: np.ndarray) -> None:
        """Show nodes as marked and not yet executed: `own` changed their own values
        (update_local), `followed` only follow a change above them (update_world /
        execute)."""
        self.pending_own = np.asarray(own, dtype=np.int64).reshape(-1)
        self.pending_followed = np.asarray(followed, dtype=np.int64).reshape(-1)

    def clear_pending(self) -> None:
        """A frame executed the marked nodes."""
        self.pending_own = self.pending_followed = _EMPTY_IDS

    @property
    def any_pending(self) -> bool:
        return bool(self.pending_own.size or self.pending_followed.size)

    @property
    def pending_top(self) -> int:
        """The largest id marked (-1: none)."""
        return int(max(self.pending_own.max(initial=-1), self.pending_followed.max(initial=-1)))

    @property
    def pending(self) -> np.ndarray:
        """Ids marked and not yet executed (own changes first)."""
        if not self.any_pending:
            return _EMPTY_IDS
        return np.concatenate([self.pending_own, self.pending_followed])

    def pending_mark(self, ids: np.ndarray, n: int) -> np.ndarray | None:
        """Per node of `ids` (all below `n`): 0 not marked, -1 own change, +1 follows;
        None: none are marked."""
        if not self.any_pending:
            return None
        return _marks(ids, n, self.pending_own, self.pending_followed, -1, 1)


def _marks(ids: np.ndarray, n: int, own_ids, followed_ids, own, followed) -> np.ndarray:
    """Per node of `ids` (all below `n`): `own` where in `own_ids`, else `followed` where
    in `followed_ids`, else 0."""
    mark = np.zeros(n, dtype=np.int64)
    mark[followed_ids] = followed
    mark[own_ids] = own
    return mark[ids]
