"""Every connection the listener refuses gets one line at once, naming the client's
address and why, on stderr and in the panel's notes: bytes that are no HTTP request, a
TLS hello, a plain HTTP request (answered 426), another method (405), a broken request
line, and a WebSocket frame announcing 2^62 bytes before any hello. Raw sockets to
127.0.0.1; each case waits at most a second for its line."""

from __future__ import annotations

import io
import socket
import struct
import time

import pytest

from viewer.attach.server import Listener
from viewer.text import quoted

TLS_HELLO = bytes.fromhex("16030100f8010000f40303") + bytes(range(32)) + bytes(200)
OPENING = (
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
#: A masked binary frame whose 64-bit length says 2^62 bytes.
HUGE_FRAME = bytes([0x82, 0xFF]) + struct.pack(">Q", 2**62) + b"mask" + bytes(16)

CASES = {
    "random bytes": (b"", bytes(range(256)), "bytes that are no HTTP request"),
    "TLS hello": (b"", TLS_HELLO, "TLS handshake"),
    "plain HTTP": (b"", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "answered 426"),
    "POST": (b"", b"POST /x HTTP/1.1\r\nHost: x\r\n\r\n", "answered 405"),
    "broken request line": (b"", b"GET /\r\n\r\n", "no valid HTTP request"),
    "2^62-byte frame": (OPENING, HUGE_FRAME, "over the 1048576 bytes limit"),
}


def test_half_a_request_then_a_close_gets_its_line(listening):
    _, address, err = listening
    before = err.getvalue().count("\n")
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x")
        time.sleep(0.05)
        assert err.getvalue().count("\n") == before  # it may still come whole
    deadline = time.monotonic() + 1.0
    while err.getvalue().count("\n") == before and time.monotonic() < deadline:
        time.sleep(0.005)
    lines = err.getvalue().splitlines()[before:]
    assert len(lines) == 1 and "before its HTTP request was whole" in lines[0], lines


def test_a_connection_that_sends_nothing_gets_no_line(listening):
    _, address, err = listening
    before = err.getvalue()
    socket.create_connection(address, timeout=5).close()  # a port probe
    time.sleep(0.1)
    assert err.getvalue() == before


@pytest.fixture(scope="module")
def listening():
    from viewer.attach.protocol import ProgramLimits

    err = io.StringIO()
    listener = Listener("127.0.0.1", 0, err=err, limits=ProgramLimits(1000, 1 << 20))
    host, port = listener.start()
    yield listener, (host, port), err
    listener.close()


@pytest.mark.parametrize("case", list(CASES))
def test_each_refused_connection_gets_one_line_at_once(listening, case):
    listener, address, err = listening
    opening, data, reason = CASES[case]
    before = err.getvalue().count("\n")
    with socket.create_connection(address, timeout=5) as sock:
        if opening:
            sock.sendall(opening)
            assert sock.recv(12) == b"HTTP/1.1 101"
        started = time.monotonic()
        sock.sendall(data)
        while err.getvalue().count("\n") == before and time.monotonic() - started < 1.0:
            time.sleep(0.005)
        took = time.monotonic() - started
        mine = f"127.0.0.1:{sock.getsockname()[1]}"
    lines = err.getvalue().splitlines()[before:]
    assert took < 1.0 and len(lines) == 1, (case, took, lines)
    line = lines[0]
    assert line.startswith(f"sgview: client {mine}: ") and reason in line, (case, line)
    assert line.isprintable() and line.removeprefix("sgview: ") == listener.notes[-1]
    time.sleep(0.05)  # and no second line for it once the socket is closed
    assert err.getvalue().count("\n") == before + 1, err.getvalue().splitlines()[before:]


def test_a_program_announcing_2_62_bytes_after_its_hello_is_named_at_once(listening):
    from viewer.attach import protocol as p

    _, address, err = listening
    hello = p.encode_hello("big \U0001fae8")
    framed = bytes([0x82, 0x80 | len(hello)]) + bytes(4) + hello  # masked with zeros
    before = err.getvalue().count("\n")
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(OPENING)
        assert sock.recv(12) == b"HTTP/1.1 101"
        sock.sendall(framed)
        time.sleep(0.1)  # the welcome comes back
        started = time.monotonic()
        sock.sendall(HUGE_FRAME)
        while err.getvalue().count("\n") == before and time.monotonic() - started < 1.0:
            time.sleep(0.005)
        took = time.monotonic() - started
    lines = err.getvalue().splitlines()[before:]
    assert took < 1.0 and len(lines) == 1, lines
    shown = quoted("big \U0001fae8", 40)  # escaped where this Python does not know U+1FAE8
    assert f"program {shown}" in lines[0] and "over the 1048576 bytes limit" in lines[0]
