"""Ctrl+C ends the command wherever it lands, also inside a ctypes callback.

Python raises KeyboardInterrupt in whatever Python code runs when the signal arrives. If
that is a callback called from C through ctypes (llvmlite calls one while numba compiles
or caches a loop), the exception cannot leave the callback: ctypes prints "Exception
ignored ... KeyboardInterrupt" and the program goes on as if Ctrl+C had never been
pressed (a large file went on loading and the run to its last frame). Inside
`ctrl_c_anywhere`, such a lost interrupt is not printed and is raised again a moment
later, by then in ordinary code, so it ends the command as any Ctrl+C does.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ctrl_c_anywhere"]

#: How soon a lost interrupt is raised again (seconds): past the callback it was lost in.
RETRY_S = 0.05


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextmanager
def ctrl_c_anywhere() -> Iterator[None]:
    """Within: an interrupt a C callback swallowed is raised again (Unix; elsewhere a
    no-op), and Python's "Exception ignored" report of it is not printed."""
    if not hasattr(signal, "setitimer"):
        yield
        return
    previous_hook = sys.unraisablehook
    previous_alarm: list = []  # the alarm's handler, once this took it (only if needed)

    def hook(unraisable) -> None:
        if unraisable.exc_type is not KeyboardInterrupt:
            previous_hook(unraisable)
            return
        if not previous_alarm:
            previous_alarm.append(signal.signal(signal.SIGALRM, _raise_interrupt))
        signal.setitimer(signal.ITIMER_REAL, RETRY_S)  # raised again, out of the callback

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        if previous_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous_alarm[0])
