"""The recent frames that may still glow, and how many of their stamps are still theirs.

The glow (`glow.py`) asks "what glows now?" and "how many glow?" every frame. Walking
every node for that costs the graph's size; instead each recorded frame that stamped
something is kept here with the ids it lit (nodes and parent -> child lines) and a live
count per frame: how many of its stamps are still the newest of their node (a node
stamped again in a later frame is taken off its old frame's count, `supersede`). So the
counts cost the number of recent frames and the lists cost the recent work, never the
graph's size. A frame is forgotten once its glow has faded out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

_EMPTY_IDS = np.zeros(0, dtype=np.int64)

#: Columns of the live counts: nodes (weighted by what is counted), lit lines.
NODES, LINES = 0, 1


class RecentFrames:
    """Recorded frames (time, frame number, node ids lit, line child ids lit), oldest first,
    with each frame's live counts [nodes, lines]."""

    def __init__(self) -> None:
        self._frames: deque[tuple[float, int, np.ndarray, np.ndarray]] = deque()
        self._live: dict[int, list[int]] = {}

    def __bool__(self) -> bool:
        return bool(self._frames)

    def add(
        self,
        time: float,
        frame: int,
        ids: np.ndarray,
        lines: np.ndarray,
        counted: int,
        lit_lines: int,
    ) -> None:
        """Keep frame `frame` (recorded at `time`): `ids` lit, `lines` lit, of which
        `counted` nodes and `lit_lines` lines are newly its own."""
        self._frames.append((time, frame, ids, lines))
        live = self._live.setdefault(frame, [0, 0])
        live[NODES] += counted
        live[LINES] += lit_lines

    def supersede(self, frames: np.ndarray, weights: np.ndarray | None, column: int) -> None:
        """Take nodes (`column` NODES) or lines (LINES) last stamped in `frames` off those
        frames' live counts (each with its weight; None: 1 each): they are about to be
        stamped anew."""
        if not self._frames or frames.size == 0:
            return
        base = self._frames[0][1]  # (older frames are forgotten: their bin 0 is dropped)
        self.take_off(np.bincount(np.maximum(frames - (base - 1), 0), weights), column)

    def oldest_frame(self) -> int | None:
        """The number of the oldest frame kept (None: none)."""
        return self._frames[0][1] if self._frames else None

    def take_off(self, gone: np.ndarray, column: int) -> None:
        """Take `gone[k]` nodes (`column` NODES) or lines (LINES) off the live count of
        frame `oldest_frame() - 1 + k` (bin 0: frames forgotten already)."""
        base = self._frames[0][1]
        gone = gone[1:]
        for k in np.flatnonzero(gone).tolist():
            live = self._live.get(base + k)
            if live is not None:
                live[column] -= int(gone[k])

    def forget_faded(self, strength_at: Callable[[float], float]) -> None:
        """Drop the oldest frames whose glow `strength_at` their time is 0."""
        while self._frames and strength_at(self._frames[0][0]) == 0.0:
            frame = self._frames.popleft()[1]
            if not (self._frames and self._frames[0][1] == frame):
                self._live.pop(frame, None)

    def recount(
        self, node_frame: np.ndarray, line_frame: np.ndarray, counted: Callable[[np.ndarray], int]
    ) -> None:
        """Work the live counts out again from the stamps' frames by id (`node_frame`,
        `line_frame`) and how many of some ids count (once, at a rebuild)."""
        self._live = {}
        for _t, frame, ids, lines in self._frames:
            latest = ids[node_frame[ids] == frame]
            newest = lines[line_frame[lines] == frame]
            live = self._live.setdefault(frame, [0, 0])
            live[NODES] += counted(latest)
            live[LINES] += int(newest.size)

    def total(self, column: int) -> int:
        """The live count of nodes (`column` NODES) or lines (LINES) over recent frames."""
        return sum(live[column] for live in self._live.values())

    def latest(self, column: int, stamp_frame: np.ndarray) -> np.ndarray:
        """Ids of the recent frames' nodes (`column` NODES) or lines (LINES) whose newest
        stamp (`stamp_frame` by id) is that frame's: each id once, without sorting."""
        found = []
        for _t, frame, ids, lines in self._frames:
            lit = ids if column == NODES else lines
            found.append(lit[stamp_frame[lit] == frame])
        return np.concatenate(found) if found else _EMPTY_IDS
