"""`--trace OUT.json`: what each frame did and how long it took, for standard profilers.

The file is Chrome's Trace Event format (the JSON object form), which Perfetto
(ui.perfetto.dev) and chrome://tracing open. Times are microseconds since the run
started, on one process ("sgview") and one thread ("frame loop"). For each redraw:

- a complete event (``"ph": "X"``) spanning the redraw, named ``frame N`` after the frame
  it simulated (``paused`` when it simulated none), and inside it
  one per phase with its measured duration: ``motions`` (scripted events, touches and
  the scene's motions), ``on_frame`` (the user's callback, when there is one), ``keys``
  (held keys), ``update`` (`SceneGraph.update`), ``upload`` (world matrices and glow to
  the GPU), ``draw`` (the scene) and ``overlay`` (the panels), these two when they are
  drawn (a headless frame nobody sees is not: the trace follows the run as it goes);
- for a simulated frame, counter events (``"ph": "C"``), one per counter, each with one
  argument of the same name: ``local``, ``world``, ``executed``, ``products``,
  ``naive products``, ``suppressed`` (from the frame report) and ``bytes uploaded``
  (world matrices and line ends sent to the GPU, as the panel counts them);
- an instant event (``"ph": "i"``, category ``node``) per node whose world matrix the
  frame recomputed, in pre-order, named after the node, with ``cause`` (the changed node
  that made it dirty) and ``local`` (its own value changed) as arguments. At most
  `NODE_EVENTS_PER_FRAME` per frame: beyond that one ``nodes left out`` event says how
  many were not listed (a million-node frame would otherwise make the file unusable).

A paused redraw has the drawing phases only. No GL here: the app measures, this writes.
Events go to disk as each redraw ends (`viewer.files.StreamedFile`): memory stays the
same however long the run; the file appears at its path, complete, on `close`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from viewer.files import StreamedFile

__all__ = ["NODE_EVENTS_PER_FRAME", "TraceWriter"]

#: Per-node instant events written per frame at most (see the module notes).
NODE_EVENTS_PER_FRAME = 200
#: The counters, in the order written: (event name, FrameReport attribute or None).
COUNTERS = (
    ("local", "local_updated"),
    ("world", "world_updated"),
    ("executed", "executed"),
    ("products", "products"),
    ("naive products", "naive_products"),
    ("suppressed", "suppressed"),
    ("bytes uploaded", None),
)
_PID, _TID = 1, 1


class TraceWriter:
    """Streams a run's trace events to `path` (complete there once `close` is called)."""

    def __init__(self, path, *, node_cap: int = NODE_EVENTS_PER_FRAME) -> None:
        self.path = Path(path)
        self.node_cap = int(node_cap)
        self._origin = time.perf_counter()
        self._file: StreamedFile | None = StreamedFile(self.path)
        self._file.write(b'{"traceEvents":[')
        #: Events written so far.
        self.count = 0
        self._add(
            [
                _meta("process_name", {"name": "sgview"}),
                _meta("thread_name", {"name": "frame loop"}),
            ]
        )

    def _add(self, events: list[dict]) -> None:
        if self._file is None:
            raise ValueError(f"the trace {self.path} is closed")
        parts = [json.dumps(e, separators=(",", ":")) for e in events]
        if parts:
            self._file.write(((",\n" if self.count else "\n") + ",\n".join(parts)).encode())
            self.count += len(parts)

    def _us(self, t: float) -> float:
        """perf_counter seconds -> microseconds since the start, rounded to 0.001 us."""
        return round((t - self._origin) * 1e6, 3)

    def redraw(
        self,
        number: int,
        start: float,
        end: float,
        phases: list[tuple[str, float, float]],
        *,
        frame: int | None = None,
        report=None,
        bytes_uploaded: int = 0,
    ) -> None:
        """Add redraw `number`: its span, its phases, and when it simulated frame `frame`
        (`report`: that frame's FrameReport) the counters and recomputed nodes. Times are
        perf_counter seconds."""
        args = {"redraw": number} if frame is None else {"redraw": number, "frame": frame}
        title = "paused" if frame is None else f"frame {frame}"
        events = [_complete(title, self._us(start), self._us(end), args, "frame")]
        events += [_complete(name, self._us(a), self._us(b)) for name, a, b in phases]
        if report is not None:
            at = self._us(next((b for name, _, b in phases if name == "update"), end))
            events += self._counters(report, bytes_uploaded, at)
            events += self._nodes(report, at)
        events.sort(key=lambda e: (e["ts"], -e.get("dur", 0.0)))  # parents before children
        self._add(events)

    def _counters(self, report, bytes_uploaded: int, ts: float) -> list[dict]:
        out = []
        for name, attr in COUNTERS:
            if attr is None:
                value = int(bytes_uploaded)
            else:
                value = getattr(report, attr)
                value = int(getattr(value, "size", value))
            out.append(_event(name, "C", ts, args={name: value}))
        return out

    def _nodes(self, report, ts: float) -> list[dict]:
        world = report.world_updated
        listed = world[: self.node_cap]
        local = np.isin(listed, report.local_updated).tolist()
        out = []
        for i, node in enumerate(listed.tolist()):
            args = {"cause": report.name(int(report.cause[i])), "local": local[i]}
            out.append(_event(report.name(node), "i", ts, cat="node", s="t", args=args))
        left_out = int(world.size) - len(out)
        if left_out > 0:
            args = {"count": left_out}
            out.append(_event("nodes left out", "i", ts, cat="node", s="t", args=args))
        return out

    def close(self) -> Path:
        """Finish the file (atomically: a half-written trace never replaces a good one);
        closing twice is harmless."""
        if self._file is not None:
            file, self._file = self._file, None
            file.write(b'\n],"displayTimeUnit":"ms"}\n')
            file.commit()
        return self.path


def _event(name: str, ph: str, ts: float, **fields) -> dict:
    return {"name": name, "ph": ph, "ts": ts, "pid": _PID, "tid": _TID, **fields}


def _meta(name: str, args: dict) -> dict:
    return _event(name, "M", 0, args=args)


def _complete(name: str, start: float, end: float, args=None, cat: str = "phase") -> dict:
    event = _event(name, "X", start, cat=cat, dur=round(max(end - start, 0.0), 3))
    if args:
        event["args"] = args
    return event
