"""The viewer's side of the connection: `Listener` accepts programs and checks their
messages on a thread of its own (its own asyncio loop, the `websockets` package).

Each connected program is a `Program`: its name, address, counts and an inbox of checked
frames that the viewer's thread takes. Memory per program is bounded: websockets refuses
a message over the byte limit and buffers few, and a full inbox stops reading from that
program (TCP then holds its sender, whose publisher merges frames) instead of growing.
A program that breaks the protocol gets one line (stderr and the panel's notes) and is
disconnected; the others are served on.
"""

from __future__ import annotations

import asyncio
import hmac
import sys
import threading
from collections import deque
from typing import TextIO

import numpy as np
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from viewer.errors import SgviewError
from viewer.text import one_line, printable, quoted

from .protocol import (
    FRAME,
    KIND_NAMES,
    STRUCTURE,
    ProgramFrame,
    ProgramLimits,
    ProtocolError,
    decode_frame,
    decode_hello,
    decode_structure,
    encode_welcome,
    read_header,
)

__all__ = ["ListenError", "Listener", "Program"]

#: Programs served at once; more are turned away with one line.
MAX_PROGRAMS = 16
#: Seconds a new connection has to say hello.
HELLO_SECONDS = 5.0
#: Lines kept for the panel.
NOTES_KEPT = 8
#: WebSocket close code for a protocol breach (RFC 6455: policy violation).
POLICY_VIOLATION = 1008


class ListenError(SgviewError, OSError):
    """The viewer cannot listen where asked (the port is taken, the host unknown)."""


class Program:
    """One connected program as the viewer's thread sees it."""

    def __init__(
        self,
        name: str,
        address: str,
        inbox_bytes: int,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.name, self.address = name, address
        self.frames_received = 0  # program frames: a merged message counts each
        self.frames_merged = 0
        self.connected = True
        self._inbox: deque[ProgramFrame] = deque()
        self._bytes = 0
        self._inbox_bytes = inbox_bytes
        self._lock = threading.Condition()
        #: The listener's loop, which reads this program; `_room` is set on it when the
        #: inbox has room again (made here: an Event binds to the running loop at first use).
        self._loop = loop
        self._room = asyncio.Event()

    @property
    def label(self) -> str:
        return f"{printable(self.name, 40)} ({self.address})"

    @property
    def queued_bytes(self) -> int:
        """What the inbox holds now (bounded: a full inbox stops reading)."""
        return self._bytes

    def pending(self) -> int:
        with self._lock:
            return len(self._inbox)

    def take(self, wait: float = 0.0) -> ProgramFrame | None:
        """The oldest checked frame (waiting up to ``wait`` seconds for one), or None."""
        with self._lock:
            if not self._inbox and wait > 0 and self.connected:
                self._lock.wait(wait)
            if not self._inbox:
                return None
            frame = self._inbox.popleft()
            self._bytes -= frame.nbytes
        self._loop.call_soon_threadsafe(self._room.set)
        return frame

    async def put(self, frame: ProgramFrame) -> None:
        """Queue a checked frame; while the inbox is full, wait (reading stops)."""
        while self.connected:
            with self._lock:
                if self._bytes < self._inbox_bytes or not self._inbox:
                    self._inbox.append(frame)
                    self._bytes += frame.nbytes
                    self.frames_received += frame.merged
                    self.frames_merged += frame.merged - 1
                    self._lock.notify_all()
                    return
                self._room.clear()
            await self._room.wait()

    def gone(self) -> None:
        """The program left or the listener stops: no more frames, and a reader waiting
        for room in the inbox wakes (call on the listener's loop)."""
        with self._lock:
            self.connected = False
            self._lock.notify_all()
        self._room.set()


class Listener:
    """Accepts programs on ``host:port`` (0: any free port) on a thread of its own."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        token: str = "",
        limits: ProgramLimits | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.host, self.port, self.limits = host, port, limits or ProgramLimits()
        self._token = token
        self._err = err
        self.programs: list[Program] = []  # in connection order; read by the viewer's thread
        self.notes: deque[str] = deque(maxlen=NOTES_KEPT)
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._active = 0
        self._loop = asyncio.new_event_loop()
        self._stopped: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="sgview-listen", daemon=True)

    # -- the viewer's thread -----------------------------------------------------------------
    def start(self) -> tuple[str, int]:
        """Bind and serve; returns the address really listened on (the port if 0 was asked)."""
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise ListenError(
                f"cannot listen on {self.host}:{self.port} ({one_line(self._failure)})"
            )
        return self.host, self.port

    def wait_program(self, timeout: float) -> bool:
        """Wait until at least one program has connected (True) or ``timeout`` passed."""
        with self._arrived:
            return self._arrived.wait_for(lambda: bool(self.programs), timeout)

    def forget(self, program: Program) -> None:
        """Drop a program that left from the list (its frames all taken)."""
        with self._lock:
            if program in self.programs:
                self.programs.remove(program)

    def close(self) -> None:
        if self._stopped is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stopped.set)
        self._thread.join(timeout=3.0)

    # -- the listener's thread ---------------------------------------------------------------
    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve_all())
        except BaseException as exc:  # a bind failure: `start` reports it
            self._failure = exc
            self._ready.set()
        finally:
            self._loop.close()

    async def _serve_all(self) -> None:
        self._stopped = asyncio.Event()
        limits = self.limits
        # No keepalive pings: a program whose inbox is full is not read for a while, and
        # must not be dropped for the pongs that wait unread meanwhile.
        async with serve(
            self._serve,
            self.host,
            self.port,
            max_size=limits.max_message_bytes,
            max_queue=4,
            compression=None,
            ping_interval=None,
        ) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stopped.wait()
            for program in list(self.programs):
                program.gone()

    async def _serve(self, socket: ServerConnection) -> None:
        host, port = socket.remote_address[:2]
        address, program = f"{host}:{port}", None
        with self._lock:
            self._active += 1
            crowded = self._active > MAX_PROGRAMS
        try:
            if crowded:
                raise ProtocolError(f"more than {MAX_PROGRAMS} programs at once")
            program = await self._welcome(socket, address)
            await self._receive(socket, program)
        except ProtocolError as exc:
            self._bad(program, address, str(exc))
            await socket.close(POLICY_VIOLATION, one_line(exc, 120))
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            if exc.sent is not None and exc.sent.code == 1009:  # websockets' "too big"
                self._bad(
                    program,
                    address,
                    f"a message over the {self.limits.max_message_bytes} bytes limit",
                )
            elif code not in (None, 1000, 1001):
                self._note(f"{_who(program, address)} left ({code})")
        finally:
            with self._lock:
                self._active -= 1
            if program is not None:
                program.gone()

    async def _welcome(self, socket: ServerConnection, address: str) -> Program:
        try:
            data = await asyncio.wait_for(socket.recv(), HELLO_SECONDS)
        except TimeoutError:
            raise ProtocolError(f"no hello within {HELLO_SECONDS:g} s") from None
        if isinstance(data, str):
            raise ProtocolError("a text message (the protocol is binary)")
        token, name = decode_hello(data)
        if self._token and not hmac.compare_digest(token.encode(), self._token.encode()):
            raise ProtocolError("a wrong or missing token")
        await socket.send(encode_welcome(self.limits))
        program = Program(
            name, address, inbox_bytes=2 * self.limits.max_message_bytes, loop=self._loop
        )
        with self._arrived:
            self.programs.append(program)
            self._arrived.notify_all()
        return program

    async def _receive(self, socket: ServerConnection, program: Program) -> None:
        known = np.zeros(0, dtype=np.int64)
        structure, last = None, -(2**63)
        async for data in socket:
            if isinstance(data, str):
                raise ProtocolError("a text message (the protocol is binary)")
            kind = read_header(data)
            if kind == STRUCTURE:
                structure = decode_structure(data, self.limits)
                known = np.sort(structure.ids)
            elif kind == FRAME:
                if known.size == 0 and structure is None:
                    raise ProtocolError("a frame before any structure")
                frame = decode_frame(data, known, last)
                last, frame.structure, structure = frame.frame, structure, None
                await program.put(frame)
            else:
                raise ProtocolError(f"a {KIND_NAMES[kind]} message after the hello")

    def _bad(self, program: Program | None, address: str, reason: str) -> None:
        self._note(f"{_who(program, address)}: {one_line(reason)}; disconnected")

    def _note(self, line: str) -> None:
        self.notes.append(line)
        print(f"sgview: {line}", file=self._err or sys.stderr, flush=True)

    def bad_frame(self, program: Program, reason: str) -> None:
        """A checked frame the viewer still could not apply: note it and drop the program."""
        self._bad(program, program.address, reason)
        program.gone()


def _who(program: Program | None, address: str) -> str:
    return f"program {quoted(program.name, 40)} ({address})" if program else f"client {address}"
