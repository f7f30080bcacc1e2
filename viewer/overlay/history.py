"""The last few hundred frames: their reports and counters, for the timeline and the log.

A ring buffer of `Entry` (frame number, `FrameReport`, `FrameStats`). Reports of big
scenes hold big id arrays, so the buffer keeps at most `id_budget` ids in total: beyond
that the oldest entries drop their report and keep only their counters (the timeline
still shows them; picking one says its report was not kept). Pure Python and numpy.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from viewer.text import printable

from .stats import FrameStats

#: Frames kept for the timeline.
DEFAULT_CAPACITY = 300
#: Ids kept over all stored reports (8 bytes each, four arrays per report).
DEFAULT_ID_BUDGET = 4_000_000
#: Log lines kept per frame; a bigger frame's block ends with a line saying how many more.
BLOCK_LINES = 500


@dataclass
class Entry:
    """One frame: `frame` counts drawn frames from 1 (as ``--log`` and ``--touch`` do)."""

    frame: int
    report: object | None  # FrameReport, or None once dropped for the budget
    stats: FrameStats
    #: The frame's ``--log`` block (`log_block`), made once when the frame is added,
    #: and a line for each node whose morph weights changed.
    log: list[str] = field(default_factory=list)
    #: Names of the nodes whose morph weights changed with the frame.
    weights: tuple[str, ...] = ()

    @property
    def ids_held(self) -> int:
        r = self.report
        if r is None:
            return 0
        return int(r.local_updated.size + r.world_updated.size + r.cause.size + r.executed.size)


def log_block(frame: int, report, limit: int = BLOCK_LINES) -> list[str]:
    """The ``--log`` block of a frame: ``# frame N`` and the report's log lines, or [] when
    the frame recomputed nothing (docs/semantics.md section 3: such a frame prints nothing).

    A frame with more than `limit` recomputed worlds keeps the lines of the first `limit`
    and ends with ``... N more world updates`` (names are made only for what is kept).
    """
    world = report.world_updated
    if world.size == 0:
        return []
    if world.size <= limit:
        return [f"# frame {frame}", *report.log_lines()]
    head = world[:limit]
    local = np.isin(head, report.local_updated)
    lines = [f"# frame {frame}"]
    for node_id, is_local in zip(head.tolist(), local.tolist()):
        name = printable(report.name(node_id))
        if is_local:
            lines.append(f"*Update Local : {name}*")
        lines.append(f"=Update World : {name}=")
    lines.append(f"... {world.size - limit:,} more world updates")
    return lines


class History:
    """Ring buffer of the last `capacity` frames (oldest first)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, id_budget: int = DEFAULT_ID_BUDGET):
        self.capacity = int(capacity)
        self.id_budget = int(id_budget)
        self._entries: deque[Entry] = deque(maxlen=self.capacity)
        self._ids_held = 0

    def add(self, frame: int, report, stats: FrameStats, weights=()) -> Entry:
        """Keep a frame; `weights` names the nodes whose morph weights changed with it
        (its log block gets one ``~Weights : NAME~`` line each)."""
        if len(self._entries) == self.capacity:
            self._ids_held -= self._entries[0].ids_held
        block = log_block(frame, report)
        if weights:
            block = (block or [f"# frame {frame}"]) + [
                f"~Weights      : {printable(name)}~" for name in weights
            ]
        entry = Entry(frame, report, stats, block, tuple(weights))
        self._entries.append(entry)
        self._ids_held += entry.ids_held
        for old in self._entries:  # oldest first
            if self._ids_held <= self.id_budget or old is entry:
                break
            self._ids_held -= old.ids_held
            old.report = None
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def __getitem__(self, index: int) -> Entry:
        return self._entries[index]

    @property
    def last(self) -> Entry | None:
        return self._entries[-1] if self._entries else None

    def find(self, frame: int) -> Entry | None:
        """The entry of `frame`, or None if it is not (or no longer) kept."""
        if not self._entries:
            return None
        index = frame - self._entries[0].frame
        if 0 <= index < len(self._entries) and self._entries[index].frame == frame:
            return self._entries[index]
        return next((e for e in self._entries if e.frame == frame), None)

    def counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(frames, local counts, world counts), each [len], oldest first."""
        n = len(self._entries)
        frames = np.fromiter((e.frame for e in self._entries), dtype=np.int64, count=n)
        local = np.fromiter((e.stats.local for e in self._entries), dtype=np.int64, count=n)
        world = np.fromiter((e.stats.world for e in self._entries), dtype=np.int64, count=n)
        return frames, local, world

    def log(self, max_lines: int = 4000) -> list[tuple[int, list[str]]]:
        """(frame, block) for the kept frames that recomputed something, oldest first,
        trimmed from the oldest so that at most about `max_lines` lines remain."""
        blocks: list[tuple[int, list[str]]] = []
        total = 0
        for entry in reversed(self._entries):
            if not entry.log:
                continue
            if blocks and total + len(entry.log) > max_lines:
                break
            blocks.append((entry.frame, entry.log))
            total += len(entry.log)
        blocks.reverse()
        return blocks

    def clear(self) -> None:
        self._entries.clear()
        self._ids_held = 0
