"""The viewer's side of the connection: `Listener` accepts programs and checks their
messages on a thread of its own (its own asyncio loop, the `websockets` package).

Each connected program is a `Program`: its name, address, counts and an inbox of checked
frames that the viewer's thread takes. Memory per program is bounded: websockets refuses
a message over the byte limit and buffers few, and a full inbox stops reading from that
program (TCP then holds its sender, whose publisher merges frames) instead of growing.
A program that breaks the protocol gets one line (stderr and the panel's notes) and is
disconnected; the others are served on. So does every connection refused before it is a
program, at once: bytes that are no WebSocket opening (a TLS hello, random bytes, an
HTTP request of another method), a plain HTTP request (answered 426 by websockets), a
WebSocket frame that breaks RFC 6455 or announces more than the message limit.
"""

from __future__ import annotations

import asyncio
import hmac
import re
import sys
import threading
from collections import deque
from typing import ClassVar, TextIO

import numpy as np
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidMessage, PayloadTooBig
from websockets.http11 import Request, Response

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
    message_version,
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
            create_connection=_connection_class(self),
            process_response=_answered,
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
            if isinstance(socket, _Connection):
                socket.program = program
            await self._receive(socket, program)
        except ProtocolError as exc:
            if _first_line(socket):
                self._bad(program, address, str(exc))
            await socket.close(POLICY_VIOLATION, one_line(exc, 120))
        except ConnectionClosed as exc:
            # a frame websockets refused (over the limit, say) had its line as it came
            code = exc.rcvd.code if exc.rcvd is not None else None
            if code not in (None, 1000, 1001) and _first_line(socket):
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
        await socket.send(encode_welcome(self.limits, message_version(data)))
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
                if last == -(2**63):  # the connection's first frame
                    _check_snapshot(frame, known.size)
                last, frame.structure, structure = frame.frame, structure, None
                await program.put(frame)
            else:
                raise ProtocolError(f"a {KIND_NAMES[kind]} message after the hello")

    @property
    def too_big(self) -> str:
        return f"a message over the {self.limits.max_message_bytes} bytes limit"

    def refused(self, program: Program | None, address: str, reason: str) -> None:
        """A connection refused by the WebSocket layer (called on the listener's loop)."""
        self._bad(program, address, reason)

    def _bad(self, program: Program | None, address: str, reason: str) -> None:
        self._note(f"{_who(program, address)}: {one_line(reason)}; disconnected")

    def _note(self, line: str) -> None:
        self.notes.append(line)
        print(f"sgview: {line}", file=self._err or sys.stderr, flush=True)

    def bad_frame(self, program: Program, reason: str) -> None:
        """A checked frame the viewer still could not apply: note it and drop the program."""
        self._bad(program, program.address, reason)
        program.gone()


def _check_snapshot(frame: ProgramFrame, count: int) -> None:
    """A connection's first frame is the program's snapshot: a value row and a world
    matrix for every node of the structure (ids are checked unique and known, so the
    counts say it)."""
    values, worlds = frame.value_ids.size, frame.world_ids.size
    if values != count or worlds != count:
        raise ProtocolError(
            f"the first frame (the snapshot) has {values} value rows and {worlds} world "
            f"matrices for {count} nodes: it needs one of each per node"
        )


def _who(program: Program | None, address: str) -> str:
    where = printable(address, 60)
    return f"program {quoted(program.name, 40)} ({where})" if program else f"client {where}"


#: The longest start of a connection looked at before its request line is whole.
_HEAD_BYTES = 16
#: The start of an HTTP request line: a method, then a space.
_METHOD = re.compile(rb"[A-Z]{1,15}( |\Z)")


def _opening_problem(head: bytes) -> str | None:
    """Why the first bytes of a connection cannot start an HTTP request, or None while
    they still may. websockets would wait for a whole request line (up to its open
    timeout, 10 s) before giving up on bytes that hold no line break."""
    if b"GET ".startswith(head[:4]):
        return None
    if head[:1] == b"\x16":
        return "a TLS handshake (sgview listens for plain ws://, not wss:// or https://)"
    if _METHOD.match(head):
        return None  # an HTTP request of another method: websockets answers it (405)
    return f"bytes that are no HTTP request ({head[:8].hex(' ')} ...)"


def _handshake_problem(exc: Exception | str, response: Response | None) -> str:
    """The line for an opening websockets refused (its `handshake_exc`)."""
    answer = f"; answered {response.status_code}" if response is not None else ""
    if isinstance(exc, InvalidMessage) and exc.__cause__ is not None:
        return f"no valid HTTP request ({one_line(exc.__cause__, 120)}){answer}"
    return f"an HTTP request that is no WebSocket opening ({one_line(exc, 120)}){answer}"


class _Connection(ServerConnection):
    """websockets' connection, reporting a refusal the moment it is known: bytes that are
    no WebSocket opening (websockets would wait for a line break), an opening handshake
    websockets refuses, a frame that breaks RFC 6455 or is over the message limit (whose
    close handshake websockets would wait on while the hello times out). HTTP requests
    that are no opening are answered by websockets (`answered`)."""

    listener: ClassVar[Listener]
    program: Program | None = None  # once its hello is welcomed
    noted = False
    _head = b""

    def _refuse(self, reason: str) -> None:
        self.noted = True
        host, port = self.remote_address[:2]
        self.listener.refused(self.program, f"{host}:{port}", reason)

    def data_received(self, data: bytes) -> None:
        if self.request is None and not self.noted and len(self._head) < _HEAD_BYTES:
            self._head = (self._head + data)[:_HEAD_BYTES]
            problem = _opening_problem(self._head)
            if problem is not None:
                self._refuse(problem)
                self.transport.abort()
                return
        super().data_received(data)
        if self.noted:
            return
        if self.request is None and self.protocol.handshake_exc is not None:
            self._refuse(_handshake_problem(self.protocol.handshake_exc, None))
            self.transport.abort()  # websockets sent its answer; nothing more will come
            return
        failure = self.protocol.parser_exc
        if isinstance(failure, PayloadTooBig):
            self._refuse(self.listener.too_big)
        elif failure is not None and not isinstance(failure, EOFError):
            self._refuse(f"a WebSocket frame that breaks RFC 6455 ({one_line(failure, 120)})")

    def connection_lost(self, exc: Exception | None) -> None:
        if self.request is None and self._head and not self.noted:
            # a start of a request, then silence until websockets' open timeout, or a close
            self._refuse("the connection ended before its HTTP request was whole")
        super().connection_lost(exc)

    def answered(self, response: Response) -> None:
        """websockets' answer to an opening (its `process_response` hook): a refusal, sent
        before websockets waits for the client to close, gets its line now."""
        problem = self.protocol.handshake_exc
        if response.status_code != 101 and not self.noted:
            reason = problem if problem is not None else response.reason_phrase
            self._refuse(_handshake_problem(reason, response))


def _connection_class(listener: Listener) -> type[ServerConnection]:
    """`_Connection` reporting to `listener`."""

    class Connection(_Connection):
        pass

    Connection.listener = listener
    return Connection


def _answered(socket: ServerConnection, request: Request, response: Response) -> None:
    if isinstance(socket, _Connection):
        socket.answered(response)


def _first_line(socket: ServerConnection) -> bool:
    """Whether `socket` has had no line of refusal yet; from now on it has one."""
    if not isinstance(socket, _Connection):
        return True
    first, socket.noted = not socket.noted, True
    return first
