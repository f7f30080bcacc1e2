"""``viewer.publish(graph, "127.0.0.1:7878")``: every ``update()`` of a program's graph
sent to a listening viewer (``sgview listen``), without ever blocking the program.

The program's thread only takes the frame (`backlog.frame_of`: the report's arrays and one
copy of the changed rows) and puts it in a bounded queue; a sending thread encodes and
sends it. When the queue is full (the viewer fell behind, or stopped reading), frames
are folded into a `Backlog` and sent as one merged frame once there is room. With no
viewer the update costs one attribute read, and the sender tries to connect at most
once a second; on every (re)connection the next update sends a full snapshot first.

The viewer's welcome says its limits (``--max-nodes``, ``--max-buffer-mb``): a scene over
them is not sent (the viewer would refuse it and the link reconnect to be refused again),
the program gets one `LimitWarning` naming the limit, its count and the flag to raise, and
the link stays connected, sending again once the scene fits (or a new viewer takes it).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import warnings
from collections import deque
from dataclasses import replace

import numpy as np
from websockets.exceptions import InvalidHandshake, InvalidURI, WebSocketException
from websockets.protocol import State
from websockets.sync.client import ClientConnection, connect

from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.text import one_line, printable

from .backlog import Backlog, frame_of
from .protocol import (
    REASON_BYTES_MAX,
    ProgramFrame,
    ProgramLimits,
    ProtocolError,
    decode_welcome,
    encode_frame,
    encode_hello,
    encode_structure,
    one_line_reason,
)

__all__ = ["DEFAULT_ADDRESS", "LimitWarning", "Link", "publish", "websocket_uri"]

DEFAULT_ADDRESS = "127.0.0.1:7878"
#: Seconds between two connection attempts: without a viewer, the sender stays cheap.
RETRY_SECONDS = 1.0
#: While frames keep coming, the sending thread looks at the queue this often instead of
#: being woken by the program per frame: a wake from the program's thread costs that thread
#: a context switch (the woken sender runs on its core, then waits for the GIL it holds).
POLL_SECONDS = 0.002
#: After this long without a frame the sending thread sleeps until the program wakes it.
IDLE_SECONDS = 1.0
#: A frame message's bytes: its header and fixed fields, then per node of a snapshot a
#: value row (id and 10 f64) and a world matrix (id and 16 f64); protocol.encode_frame.
FRAME_HEAD_BYTES = 64
SNAPSHOT_NODE_BYTES = 4 + 80 + 4 + 128


class LimitWarning(UserWarning):
    """The scene is over a limit of the viewer it is published to (its welcome says them):
    nothing is sent until the scene fits, or a viewer with other limits takes it."""


def websocket_uri(address: str) -> str:
    """``HOST:PORT`` (or a ``ws://`` URI) as the URI to connect to."""
    return address if address.startswith(("ws://", "wss://")) else f"ws://{address}"


class Link:
    """A graph published to a viewer (what `publish` returns); `close` stops it.

    ``queue_frames`` and ``queue_bytes`` bound what waits to be sent: beyond them frames
    are merged, so a viewer that stops reading costs at most that much memory (a frame is
    never split: only a snapshot, or a frame alone in the queue, may pass ``queue_bytes``)."""

    def __init__(
        self,
        graph: SceneGraph,
        address: str = DEFAULT_ADDRESS,
        *,
        name: str | None = None,
        token: str | None = None,
        queue_frames: int = 64,
        queue_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.graph = graph
        self.uri = websocket_uri(address)
        self.name = name if name is not None else os.path.basename(sys.argv[0] or "python")
        self._token = token if token is not None else os.environ.get("SGVIEW_TOKEN", "")
        self.queue_frames, self.queue_bytes = queue_frames, queue_bytes
        #: Program frames sent, and those of them sent merged into another.
        self.frames_sent = self.frames_merged = 0
        #: Why the last connection ended or was refused (None: no trouble yet).
        self.error: str | None = None
        #: The limits of the viewer that welcomed this program last (None: none yet).
        self.limits: ProgramLimits | None = None
        #: While the scene is over the viewer's limits and not sent: the line that says
        #: which (the one `LimitWarning` carries); None while frames are sent.
        self.over_limit: str | None = None
        # A message the sending thread found over the viewer's bytes limit, set by that
        # thread (one tuple: read whole without the lock): the graph's node count then and
        # the line; nothing is sent again until the graph has fewer nodes, or a new welcome.
        self._too_big: tuple[int, str] | None = None
        self._warned: tuple[str, int] | None = None  # the limit the program was told of
        self._lock = threading.Condition()
        self._queue: deque[ProgramFrame] = deque()
        self._queued_bytes = 0
        self._online = False  # welcomed by a viewer (read without the lock: one flag)
        self._need_snapshot = False
        self._sender_asleep = False  # waiting for a wake (set and cleared under the lock)
        self._in_flight = False  # a frame taken off the queue and not yet sent (the lock's)
        self._last_frame_at = 0.0  # when the sending thread last took a frame (its own)
        self._backlog = Backlog()  # the program's thread's own
        #: Held reasons (`hold`), the program's thread's own: every node's current one,
        #: and those changed since the last frame queued ("": cleared).
        self._held: dict[int, str] = {}
        self._held_changed: dict[int, str] = {}
        self._closed = threading.Event()
        self._connected = threading.Event()
        self._socket: ClientConnection | None = None
        self._stop = graph.on_update(self._on_update)
        self._thread = threading.Thread(target=self._run, name="sgview-publish", daemon=True)
        self._thread.start()

    # -- the program's thread --------------------------------------------------------------
    def _on_update(self, report: FrameReport) -> None:
        if self._held and report.structure_changed:
            self._forget_removed()
        if not self._online or self._withheld(report):
            return
        # One critical section a frame: the frame is taken under the lock (the sender only
        # ever waits for it to pop the queue), instead of a second one to queue it.
        with self._lock:
            snapshot, self._need_snapshot = self._need_snapshot, False
            room = len(self._queue) < self.queue_frames and self._queued_bytes < self.queue_bytes
            if snapshot or self._backlog.frames or not room:
                frame = self._merged(report, snapshot, room)
            else:
                frame = frame_of(self.graph, report)
                if not self._fits(frame.nbytes):  # the queue's bytes stay within the bound
                    self._backlog.fold(self.graph, report)
                    return
            if frame is None:
                return
            frame = self._with_held(frame, snapshot)
            self._queue.append(frame)
            self._queued_bytes += frame.nbytes
            if self._sender_asleep:
                self._lock.notify()

    def _withheld(self, report: FrameReport) -> bool:
        """Whether the scene is over the viewer's limits, so that this frame is not sent (the
        program told once); the first frame that fits again goes as a snapshot."""
        limits, nodes = self.limits, len(self.graph)
        if limits is None:
            return False
        too_big, line = self._too_big, None
        # A snapshot's frame is the largest message: a value row and a world matrix per
        # node, with this report's lists (what the held section adds is checked on sending).
        snapshot = (
            FRAME_HEAD_BYTES
            + SNAPSHOT_NODE_BYTES * nodes
            + 4 * (report.local_updated.size + 2 * report.world_updated.size)
        )
        if nodes > limits.max_nodes:
            line = _nodes_line(nodes, limits.max_nodes, self.uri)
            limit = ("--max-nodes", limits.max_nodes)
        elif too_big is not None and nodes >= too_big[0] and not self._may_fit_now(report):
            line, limit = too_big[1], ("--max-buffer-mb", limits.max_message_bytes)
        elif snapshot > limits.max_message_bytes:
            line = _bytes_line("a snapshot", snapshot, limits.max_message_bytes, self.uri)
            limit = ("--max-buffer-mb", limits.max_message_bytes)
        if line is None:
            if self._too_big is None:  # not a retry the sending thread has yet to measure
                self.over_limit = self._warned = None
            return False
        with self._lock:
            self._need_snapshot = True
            self._backlog.clear()
        self.over_limit = line
        if self._warned != limit:
            self._warned = limit
            warnings.warn(line, LimitWarning, stacklevel=4)  # the program's update() call
        return True

    def _may_fit_now(self, report: FrameReport) -> bool:
        """Whether a frame found too big on sending may fit now with as many nodes: names
        or held reasons changed since (the sending thread measures it again)."""
        return report.structure_changed or bool(self._held_changed)

    def _forget_removed(self) -> None:
        """A removed node's reason goes with it: cleared for the viewer too, in case its id
        is a new node's by the time a frame is sent (merged frames hide the removal)."""
        alive = np.asarray(self.graph.alive_ids(), dtype=np.int64)
        ids = np.fromiter(self._held, dtype=np.int64, count=len(self._held))
        for gone in ids[~np.isin(ids, alive)].tolist():
            del self._held[gone]
            self._held_changed[gone] = ""

    def _with_held(self, frame: ProgramFrame, snapshot: bool) -> ProgramFrame:
        """`frame` carrying the held reasons set since the last frame (a snapshot: every
        current one), for nodes still in the graph (a viewer refuses unknown ids)."""
        if not (self._held_changed or (snapshot and self._held)):
            return frame
        if snapshot:
            self._held_changed.clear()
            changed = dict(self._held)
        else:
            changed, self._held_changed = self._held_changed, {}
        ids = np.fromiter(changed, dtype=np.int64, count=len(changed))
        kept = ids[np.isin(ids, np.asarray(self.graph.alive_ids(), dtype=np.int64))]
        if not kept.size:
            return frame
        return replace(frame, held_ids=kept, held_reasons=[changed[i] for i in kept.tolist()])

    def _merged(self, report: FrameReport, snapshot: bool, room: bool) -> ProgramFrame | None:
        """A full snapshot (after a (re)connection), or the backlog with this update folded
        in; None while the queue has no room (folded, sent later)."""
        backlog = self._backlog
        if snapshot:
            backlog.clear()
        backlog.fold(self.graph, report)
        if snapshot:
            return backlog.take(self.graph, everything=True)
        if room and self._fits(backlog.most_bytes(self.graph)):
            return backlog.take(self.graph)
        return None

    def _fits(self, nbytes: int) -> bool:
        """Whether a frame of ``nbytes`` keeps the queue within ``queue_bytes`` (an empty
        queue takes any frame: a frame is never split)."""
        return not self._queue or self._queued_bytes + nbytes <= self.queue_bytes

    def _enqueue(self, frame: ProgramFrame) -> None:
        with self._lock:
            self._queue.append(frame)
            self._queued_bytes += frame.nbytes
            if self._sender_asleep:
                self._lock.notify()

    # -- the sending thread ----------------------------------------------------------------
    def _run(self) -> None:
        while not self._closed.is_set():
            started = time.monotonic()
            try:
                self._session()
            except (OSError, TimeoutError, WebSocketException, ProtocolError) as exc:
                self.error = _why(exc)
            finally:
                self._offline()
            self._closed.wait(max(0.0, RETRY_SECONDS - (time.monotonic() - started)))

    def _session(self) -> None:
        """One connection: hello, welcome, then send what the program queues."""
        # No pings: a viewer that is busy or paused reads late, and is no dead viewer.
        with connect(
            self.uri,
            open_timeout=RETRY_SECONDS,
            close_timeout=1.0,
            proxy=None,
            max_size=1 << 16,
            compression=None,
            ping_interval=None,
        ) as socket:
            self._socket = socket
            socket.send(encode_hello(self.name, self._token))
            limits = decode_welcome(socket.recv(timeout=5.0, decode=False))
            self.limits, self._too_big = limits, None
            with self._lock:
                self._need_snapshot, self._online = True, True
            self._connected.set()
            self._last_frame_at = time.monotonic()
            while not self._closed.is_set():
                frame = self._next()
                if frame is None:
                    # A link that sends nothing (its scene over the viewer's limits) learns
                    # here, not from a failed send, that the viewer left.
                    if socket.state is State.CLOSED:
                        raise socket.close_exc
                    continue
                messages = [encode_frame(frame)]
                if frame.structure is not None:
                    messages.insert(0, encode_structure(frame.structure))
                size = max(len(m) for m in messages)
                if size > limits.max_message_bytes:
                    # Not sent: the viewer would refuse it and close the connection. The
                    # program's next update says so and sends a snapshot once it fits.
                    what = f"frame {frame.frame}"
                    line = _bytes_line(what, size, limits.max_message_bytes, self.uri)
                    self._too_big = (len(self.graph), line)
                    with self._lock:
                        # What was queued behind it builds on it: none of it may go (a
                        # delta before its snapshot would be refused, and the link would
                        # reconnect); the next frame that fits goes as a snapshot.
                        self._queue.clear()
                        self._queued_bytes = 0
                        self._backlog.clear()
                        self._need_snapshot = True
                        self._in_flight = False
                    continue
                for message in messages:
                    socket.send(message)
                self._too_big = None  # the scene fits again: what was refused is history
                self.frames_sent += frame.merged
                self.frames_merged += frame.merged - 1
                with self._lock:
                    self._in_flight = False

    def _next(self) -> ProgramFrame | None:
        """The next queued frame, or None after a short wait without one: a poll while the
        program publishes, a sleep until it wakes this thread once it has been idle."""
        with self._lock:
            if not self._queue and time.monotonic() - self._last_frame_at > IDLE_SECONDS:
                self._sender_asleep = True
                self._lock.wait(0.5)
                self._sender_asleep = False
            if self._queue:
                frame = self._queue.popleft()
                self._queued_bytes -= frame.nbytes
                self._in_flight = True
                self._last_frame_at = time.monotonic()
                return frame
        self._closed.wait(POLL_SECONDS)
        return None

    def _offline(self) -> None:
        self.over_limit = None  # a limit of the viewer that left; the next one's may differ
        with self._lock:
            self._online = False
            self._queue.clear()
            self._queued_bytes = 0
            self._in_flight = False
        self._connected.clear()
        self._socket = None

    # -- the user's side -------------------------------------------------------------------
    def hold(self, node_id: int, reason: str) -> None:
        """From the program's thread: say that node ``node_id``'s world is held apart from
        parent x local on purpose, and why (docs/attach.md, "Held worlds": ``frozen``,
        ``billboard``, ``constraint``, ``driver``, ``ik``, ``parent inverse``, ``custom``
        or one line); ``""`` clears it, and removing the node drops it. Sent with the next
        frame; a viewer that reconnects gets every reason again."""
        if not isinstance(reason, str):
            raise TypeError(f"hold: a reason is a str, got {type(reason).__name__}")
        # What a viewer accepts (protocol.py's held section): refused here, in the program,
        # rather than as a connection the viewer closes.
        if len(reason.encode("utf-8", "surrogatepass")) > REASON_BYTES_MAX or not (
            one_line_reason(reason)
        ):
            raise ValueError(
                f"hold: a reason is one printable line of at most {REASON_BYTES_MAX} bytes"
            )
        node = int(node_id)
        if self._held.get(node, "") == reason:
            return
        if reason:
            self._held[node] = reason
        else:
            self._held.pop(node, None)
        self._held_changed[node] = reason

    @property
    def queued_bytes(self) -> int:
        """What waits to be sent now (at most about ``queue_bytes``)."""
        return self._queued_bytes

    @property
    def connected(self) -> bool:
        """Whether a viewer has welcomed this program (frames are sent)."""
        return self._connected.is_set()

    def wait_connected(self, timeout: float | None = None) -> bool:
        """Wait until a viewer has welcomed this program; False after ``timeout`` seconds."""
        return self._connected.wait(timeout)

    def flush(self, timeout: float = 5.0) -> bool:
        """From the program's thread: send the frames merged while the viewer was behind
        (they otherwise go with the next update), and wait until every queued frame was
        handed to the connection; False after ``timeout`` seconds, without a viewer, or
        while the scene is over the viewer's limits (`over_limit`)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self._online and self.over_limit is None:
            with self._lock:
                room = len(self._queue) < self.queue_frames
                if not self._queue and not self._in_flight and not self._backlog.frames:
                    return True
                room = room and self._fits(self._backlog.most_bytes(self.graph))
            if room and self._backlog.frames:
                self._enqueue(self._with_held(self._backlog.take(self.graph), False))
            time.sleep(0.005)
        return False

    def close(self, timeout: float = 2.0) -> None:
        """Stop publishing: no more frames are taken, and what is queued or merged is sent
        before the connection closes (as `flush`), waiting at most ``timeout`` seconds for
        the viewer to take it (0: what is still queued is dropped). Without a viewer
        nothing waits. Call it from the program's thread, as `flush`."""
        self._stop()
        if timeout > 0:
            self.flush(timeout)
        self._closed.set()
        with self._lock:
            self._lock.notify()
        socket = self._socket
        if socket is not None:
            socket.close()
        self._thread.join(timeout=3.0)


def _nodes_line(nodes: int, limit: int, uri: str) -> str:
    return (
        f"sgview publish: the scene has {nodes} nodes, over the {limit} of the viewer at "
        f"{printable(uri, 80)}: not sent until it fits (sgview listen --max-nodes {nodes})"
    )


def _bytes_line(what: str, size: int, limit: int, uri: str) -> str:
    megabytes = math.ceil(size / (1 << 20))
    return (
        f"sgview publish: {what} of {size} bytes is over the {limit} bytes a message of the "
        f"viewer at {printable(uri, 80)}: not sent until it fits "
        f"(sgview listen --max-buffer-mb {megabytes})"
    )


def _why(exc: BaseException) -> str:
    reason = getattr(getattr(exc, "rcvd", None), "reason", "")
    if isinstance(exc, InvalidURI | InvalidHandshake):
        return one_line(exc)
    return one_line(reason or exc) or type(exc).__name__


def publish(
    graph: SceneGraph,
    address: str = DEFAULT_ADDRESS,
    *,
    name: str | None = None,
    token: str | None = None,
    **queue: int,
) -> Link:
    """Send every ``graph.update()`` from now on to the viewer listening at ``address``
    (``sgview listen``); returns at once with the `Link` (``link.close()`` stops it).
    ``token``: what a viewer listening beyond loopback asks for (default: the
    ``SGVIEW_TOKEN`` environment variable)."""
    if not isinstance(graph, SceneGraph):
        raise TypeError(f"publish: expected a SceneGraph, got {type(graph).__name__}")
    return Link(graph, address, name=name, token=token, **queue)
