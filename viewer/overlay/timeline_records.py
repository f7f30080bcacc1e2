"""The session's frames: compact counters for thousands of them, reports for the latest.

Every frame leaves one fixed-size record (its counters and which events happened in it:
touches, edits, reloads, clip changes) in a numpy ring of `capacity` frames, about a
hundred bytes each, so ten thousand frames (nearly three minutes at 60 fps) cost about a
megabyte. The frame's `FrameReport` (the ids it recomputed, which the tree's flags, the
glow and the log are made from) is kept apart: for the latest `plain_reports` frames,
for frames with an event, and for the newest frame that recomputed something (so that
the live log never goes empty while nothing moves), all under a budget of `id_budget`
ids: beyond it the oldest reports go first, those of frames with an event last, so a
touch long ago can still be shown whole. The log lines of a frame are made from its
report when first asked for (log_lines.py).

Running totals (products done, naive products, saved) count every frame since the last
`reset_totals` (or since the records began), also those the ring no longer holds.
Pure Python and numpy.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from numpy.typing import NDArray

from viewer.scene.report import FrameReport
from viewer.text import printable

from .log_lines import log_block
from .stats import FrameStats

#: Frames kept for the timeline: a few minutes at 60 frames per second.
DEFAULT_CAPACITY = 10_000
#: Ids kept over all stored reports (8 bytes each, four arrays per report; see
#: `REPORT_COST`).
DEFAULT_ID_BUDGET = 4_000_000
#: What one report costs against the budget beyond its ids: its object and its four
#: arrays' headers, about a kilobyte, in ids of 8 bytes.
REPORT_COST = 128
#: Reports kept of frames without an event: the latest ten seconds at 60 frames/s (older
#: frames keep their record; those with an event keep their report within the budget).
PLAIN_REPORTS = 600

#: Event kinds, as bits of a record's ``events`` field, and as the timeline names them.
EVENT_KINDS = ("touch", "edit", "reload", "clip")
EVENT_BITS = {kind: 1 << k for k, kind in enumerate(EVENT_KINDS)}
#: Event notes kept per frame (a frame that touches a thousand nodes names the first few).
NOTES_PER_FRAME = 8

_INT_FIELDS = (
    "nodes",
    "local",
    "world",
    "executed",
    "products",
    "naive_products",
    "suppressed",
    "bytes_uploaded",
    "stale",
    "held",
)
_FLOAT_FIELDS = ("update_ms", "upload_ms", "draw_ms")
RECORD = np.dtype(
    [("frame", np.int64)]
    + [(name, np.int64) for name in _INT_FIELDS]
    + [(name, np.float32) for name in _FLOAT_FIELDS]
    + [("events", np.uint8), ("paused", np.bool_)]
)


@dataclass
class Entry:
    """One frame: `frame` counts drawn frames from 1 (as ``--log`` and ``--touch`` do)."""

    frame: int
    report: FrameReport | None  # None when not (or no longer) kept
    stats: FrameStats
    #: Makes the frame's ``--log`` block when `log` is first read: a redraw that folds
    #: many program frames shows only the newest, so the others' lines are made only if
    #: someone looks at them.
    make_log: Callable[[], list[str]] = field(default=list, repr=False, compare=False)
    #: What happened in the frame: (kind, what) pairs, kind one of `EVENT_KINDS`.
    events: tuple[tuple[str, str], ...] = ()
    #: Names of the nodes whose morph weights changed with the frame.
    weights: tuple[str, ...] = ()
    _log: list[str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def log(self) -> list[str]:
        """The frame's ``--log`` block (`log_block`); [] when it recomputed nothing or its
        report is not kept."""
        if self._log is None:
            self._log = self.make_log()
        return self._log

    @log.setter
    def log(self, lines: list[str]) -> None:
        self._log = lines


@dataclass
class Totals:
    """Sums over every frame since `since` (the first frame counted)."""

    since: int | None = None
    frames: int = 0
    products: int = 0
    naive_products: int = 0

    @property
    def saved(self) -> int:
        return self.naive_products - self.products

    @property
    def saving(self) -> float:
        """Fraction of the naive products saved, in [0, 1] (0 when the naive did none)."""
        return max(0.0, self.saved / self.naive_products) if self.naive_products > 0 else 0.0


def _ids_of(report: FrameReport) -> int:
    """A report's weight against the budget: its ids, plus `REPORT_COST` for the object
    itself (a frame that recomputed nothing still costs its report)."""
    arrays = (report.local_updated, report.world_updated, report.cause, report.executed)
    return REPORT_COST + sum(int(a.size) for a in arrays)


class FrameRecords:
    """The last `capacity` frames (oldest first; see the module notes)."""

    def __init__(
        self,
        capacity: int = DEFAULT_CAPACITY,
        id_budget: int = DEFAULT_ID_BUDGET,
        plain_reports: int = PLAIN_REPORTS,
    ) -> None:
        self.capacity = int(capacity)
        self.id_budget = int(id_budget)
        self.plain_reports = max(1, int(plain_reports))
        self._rec: NDArray[np.void] = np.zeros(self.capacity, dtype=RECORD)
        self._start: int
        self._len: int
        self._records: NDArray[np.void] | None
        self._plain: OrderedDict[int, FrameReport]
        self._marked: OrderedDict[int, FrameReport]
        self._logs: dict[int, list[str]]
        self._notes: dict[int, tuple[tuple[str, str], ...]]
        self._weights: dict[int, tuple[str, ...]]
        self._ids_held: int
        self._last: Entry | None
        self._newest_busy: int | None  # the newest frame that recomputed something
        #: Frames that re-parented, added or removed nodes (the tree rebuilds its rows).
        self.structure_changes: int
        self.totals: Totals
        self.clear()

    # -- adding --------------------------------------------------------------------------
    def add(
        self,
        frame: int,
        report: FrameReport | None,
        stats: FrameStats,
        events: Iterable[tuple[str, str]] = (),
        weights: Iterable[str] = (),
        paused: bool = False,
    ) -> Entry:
        """Keep one frame: its counters, its report (within the budget), its events, the
        names of the nodes whose morph weights changed with it (`weights`: its log block
        gets one ``~Weights : NAME~`` line each), and whether it was a step made while
        paused (`paused`: what a frame that recomputed nothing says of itself)."""
        if self._len == self.capacity:  # the oldest record goes
            self._forget(int(self._rec[self._start]["frame"]))
            self._start = (self._start + 1) % self.capacity
            self._len -= 1
        slot = (self._start + self._len) % self.capacity
        self._len += 1
        self._records = None
        row = self._rec[slot : slot + 1]
        row["frame"] = frame
        for name in _INT_FIELDS:
            row[name] = getattr(stats, name)
        for name in _FLOAT_FIELDS:
            row[name] = getattr(stats, name)
        notes = tuple((str(kind), str(what)) for kind, what in events)
        bits = 0
        for kind, _ in notes:
            bits |= EVENT_BITS[kind]
        row["events"] = bits
        row["paused"] = paused
        if notes:
            self._notes[frame] = notes[:NOTES_PER_FRAME]
        names = tuple(str(name) for name in weights)
        if names:
            self._weights[frame] = names
        if report is not None:
            self._keep_report(frame, report, marked=bool(bits))
            if report.structure_changed:
                self.structure_changes += 1
        t = self.totals
        if t.since is None:
            t.since = frame
        t.frames += 1
        t.products += stats.products
        t.naive_products += stats.naive_products
        last = Entry(frame, report, stats, partial(self._block, frame, report), notes, names)
        self._last = last
        return last

    def _keep_report(self, frame: int, report: FrameReport, marked: bool) -> None:
        (self._marked if marked else self._plain)[frame] = report
        self._ids_held += _ids_of(report)
        if report.world_updated.size:  # the live log shows it until a later frame recomputes
            self._newest_busy = frame
        keep = (frame, self._newest_busy)  # the newest report and the newest busy one stay
        while len(self._plain) > self.plain_reports and self._forget_oldest(self._plain, keep):
            pass
        for pool in (self._plain, self._marked):  # plain frames' reports go first
            while self._ids_held > self.id_budget and self._forget_oldest(pool, keep):
                pass

    def _forget_oldest(
        self, pool: OrderedDict[int, FrameReport], keep: tuple[int, int | None]
    ) -> bool:
        """Forget the oldest report in `pool` but those of the frames in `keep`; False
        when there is none to forget."""
        old = next((frame for frame in pool if frame not in keep), None)
        if old is not None:
            self._forget_report(old)
        return old is not None

    def _forget_report(self, frame: int) -> None:
        for pool in (self._plain, self._marked):
            report = pool.pop(frame, None)
            if report is not None:
                self._ids_held -= _ids_of(report)
        self._logs.pop(frame, None)

    def _forget(self, frame: int) -> None:
        self._forget_report(frame)
        self._notes.pop(frame, None)
        self._weights.pop(frame, None)

    def note_draw(self, draw_ms: float) -> bool:
        """Record the latest frame's first draw time; False when it already has one."""
        last = self._last
        if last is None or last.stats.draw_ms != 0.0:
            return False
        last.stats.draw_ms = draw_ms
        self._rec[(self._start + self._len - 1) % self.capacity]["draw_ms"] = draw_ms
        self._records = None
        return True

    # -- reading -------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._len

    def _order(self) -> NDArray[np.int64]:
        """Ring slots, oldest first."""
        return (self._start + np.arange(self._len)) % self.capacity

    def records(self) -> NDArray[np.void]:
        """The kept frames' records (`RECORD`), oldest first: a read-only copy, made
        once per change (the panels read it several times a drawn frame)."""
        records = self._records
        if records is None:
            records = self._rec[self._order()]
            records.flags.writeable = False
            self._records = records
        return records

    def _entry(self, slot: int) -> Entry:
        rec = self._rec[slot]
        frame = int(rec["frame"])
        if self._last is not None and frame == self._last.frame:
            return self._last
        stats = FrameStats(frame=frame)
        for name in _INT_FIELDS:
            setattr(stats, name, int(rec[name]))
        for name in _FLOAT_FIELDS:
            setattr(stats, name, float(rec[name]))
        report = self.report(frame)
        return Entry(
            frame,
            report,
            stats,
            partial(self._block, frame, report),
            self._notes.get(frame, ()),
            self._weights.get(frame, ()),
        )

    def __iter__(self) -> Iterator[Entry]:
        return (self._entry(int(s)) for s in self._order())

    def __getitem__(self, index: int) -> Entry:
        if not -self._len <= index < self._len:
            raise IndexError(index)
        return self._entry((self._start + index % self._len) % self.capacity)

    @property
    def last(self) -> Entry | None:
        return self._last

    def report(self, frame: int) -> FrameReport | None:
        """The kept report of `frame`, or None."""
        report = self._plain.get(frame)
        return report if report is not None else self._marked.get(frame)

    def _block(self, frame: int, report: FrameReport | None) -> list[str]:
        """The log block of `frame` from `report`, kept while that report is (made when
        first asked for, maybe after the frame's report was forgotten: then not kept)."""
        if report is None:
            return []
        block = self._logs.get(frame)
        if block is None:
            block = log_block(frame, report)
            names = self._weights.get(frame, ())
            if names:  # a change that moved no matrix still has its lines
                block = (block or [f"# frame {frame}"]) + [
                    f"~Weights      : {printable(name)}~" for name in names
                ]
            if self.report(frame) is report:
                self._logs[frame] = block
        return block

    def index_of(self, frame: int) -> int | None:
        """Position of `frame` among the kept frames (0: the oldest), or None."""
        if not self._len:
            return None
        first = int(self._rec[self._start]["frame"])
        index = frame - first
        slot = (self._start + index) % self.capacity
        if 0 <= index < self._len and int(self._rec[slot]["frame"]) == frame:
            return index
        frames = self.records()["frame"]
        index = int(np.searchsorted(frames, frame))
        return index if index < self._len and int(frames[index]) == frame else None

    def find(self, frame: int) -> Entry | None:
        """The entry of `frame`, or None if it is not (or no longer) kept."""
        index = self.index_of(frame)
        return None if index is None else self[index]

    def counts(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(frames, local counts, world counts), each [len], oldest first."""
        rec = self.records()
        return rec["frame"], rec["local"], rec["world"]

    def event_frames(self, kinds: Iterable[str] = EVENT_KINDS) -> NDArray[np.int64]:
        """Frames with an event of one of `kinds`, oldest first."""
        bits = sum(EVENT_BITS[k] for k in kinds)
        rec = self.records()
        frames: NDArray[np.int64] = rec["frame"]
        marked: NDArray[np.bool_] = (rec["events"] & bits) != 0
        return frames[marked]

    def next_event(self, frame: int | None, direction: int) -> int | None:
        """The event frame nearest before (`direction` -1) or after (+1) `frame` (None:
        after the latest frame); None when there is none that way."""
        marks = self.event_frames()
        if frame is None:
            frame = int(self._last.frame) + 1 if self._last is not None else 0
        if direction < 0:
            before = marks[marks < frame]
            return int(before[-1]) if before.size else None
        after = marks[marks > frame]
        return int(after[0]) if after.size else None

    def notes(self, frame: int) -> tuple[tuple[str, str], ...]:
        """The events of `frame`: (kind, what) pairs."""
        return self._notes.get(frame, ())

    def own_block(self, frame: int) -> list[str]:
        """The lines the log shows for a picked `frame`: its ``--log`` block, or where it
        has none ``# frame N`` and one line saying why (`why_quiet`), so that the log
        never shows another frame's lines for it."""
        block = self._block(frame, self.report(frame))
        return block if block else [f"# frame {frame}", self.why_quiet(frame)]

    def why_quiet(self, frame: int) -> str:
        """Why `frame` has no log lines: it recomputed nothing (the event that changed no
        transform, a step while paused, or idle), or its report is no longer kept."""
        index = self.index_of(frame)
        record = self.records()[index] if index is not None else None
        if record is not None and int(record["world"]) > 0:
            return (
                f"frame {frame}: {int(record['world']):,} nodes recomputed; their lines "
                "are no longer kept"
            )
        events = self.notes(frame)
        if events:
            what = "; ".join(f"{kind}: {name}" for kind, name in events)
            return f"frame {frame}: nothing recomputed ({what}, which changed no transform)"
        if record is not None and bool(record["paused"]):
            return f"frame {frame}: nothing recomputed (paused: a step with nothing pending)"
        return f"frame {frame}: nothing recomputed (idle: nothing moved, touched or edited)"

    def cumulative(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(frames, products, naive products) summed from `totals.since` up to each kept
        frame: the running totals over the kept frames."""
        rec = self.records()
        since = self.totals.since
        rec = rec[rec["frame"] >= since] if since is not None else rec[:0]
        done = np.cumsum(rec["products"])
        naive = np.cumsum(rec["naive_products"])
        if rec.size:  # frames counted but no longer kept come before the first kept one
            done += self.totals.products - int(done[-1])
            naive += self.totals.naive_products - int(naive[-1])
        return rec["frame"], done, naive

    def log(self, max_lines: int = 4000, until: int | None = None) -> list[tuple[int, list[str]]]:
        """(frame, block) for the kept frames up to `until` (None: the latest) that
        recomputed something and whose report is kept, oldest first, trimmed from the
        oldest so that at most about `max_lines` lines remain."""
        busy = self._busy()
        if until is not None:
            busy = busy[busy <= until]
        return self._blocks(busy[::-1].tolist(), max_lines)[::-1]

    def log_after(self, frame: int, max_lines: int = 4000) -> list[tuple[int, list[str]]]:
        """The same for the frames after `frame`, oldest first, up to about `max_lines`
        lines (the log's continuation below a picked frame)."""
        busy = self._busy()
        return self._blocks(busy[busy > frame].tolist(), max_lines)

    def _busy(self) -> NDArray[np.int64]:  # the kept frames that recomputed something
        rec = self.records()
        frames: NDArray[np.int64] = rec["frame"]
        return frames[rec["world"] > 0]

    def _blocks(self, frames: list[int], max_lines: int) -> list[tuple[int, list[str]]]:
        """Blocks of `frames` in their order until one has no report (those beyond lost
        theirs too, but marked frames) or about `max_lines` lines are taken."""
        blocks: list[tuple[int, list[str]]] = []
        total = 0
        for frame in frames:
            report = self.report(frame)
            if report is None:
                break
            block = self._block(frame, report)
            if blocks and total + len(block) > max_lines:
                break
            blocks.append((frame, block))
            total += len(block)
        return blocks

    # -- resetting -----------------------------------------------------------------------
    def reset_totals(self) -> None:
        """Count the totals from the next frame on."""
        self.totals = Totals()

    def drop_reports(self) -> None:
        """Forget every report (their ids belong to a scene no longer shown); the
        counters, events and totals stay."""
        for frame in list(self._plain) + list(self._marked):
            self._forget_report(frame)
        if self._last is not None:
            self._last.report, self._last.log = None, []

    def clear(self) -> None:
        """Forget every frame (a restart, another scene opened)."""
        self._start = 0
        self._len = 0
        self._records = None
        self._plain = OrderedDict()
        self._marked = OrderedDict()
        self._logs = {}
        self._notes = {}
        self._weights = {}
        self._ids_held = 0
        self._last = None
        self._newest_busy = None
        self.structure_changes = 0
        self.totals = Totals()
