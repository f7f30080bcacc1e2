"""Ctrl+C and SIGTERM end the command wherever they land, with one exit status.

Python raises KeyboardInterrupt in whatever Python code runs when the signal arrives, and
some of those places turn it into something else or lose it:
- a callback called from C through ctypes (llvmlite calls one while numba compiles or
  caches a loop): the exception cannot leave the callback, ctypes reports it as
  "Exception ignored ... KeyboardInterrupt" and the program goes on;
- Python code that a compiled function calls back (numba's dispatcher): the caller sees a
  SystemError "returned a result with an exception set", which the layers above report
  as a failed frame or a refused reload (they catch `Exception`, rightly, for their own
  errors);
- a native module's initialisation calling Python (nanobind's enums in imgui_bundle): the
  exception becomes a C++ one that cannot be caught, and the process aborts.

So inside `ctrl_c_anywhere` the signal itself is the record: its handler notes which
signal came (`Ending.signal`), the command's exit status follows from that note (130 for
SIGINT, 143 for SIGTERM) whatever exception, or none, ended the run, and while the note
stands a KeyboardInterrupt is raised again every `RETRY_S` until one is on its way out
(one that was lost or swallowed ends the run a moment later, by then in ordinary code).

Some places must not be interrupted at all: Python code that native code calls and goes
on from, with whatever that code left half done, whether it failed or not. There the
interrupt waits (it is noted at once and raised at the first retry that finds the
program out of them); each of these once ended a run in a native crash:
- an import: native initialisation runs there (nanobind, in imgui_bundle, aborts the
  process when the Python it calls raises);
- llvmlite, numba's binding to LLVM: while numba loads a cached loop, LLVM asks the
  object cache for the loop's machine code through a ctypes callback of llvmlite's. An
  interrupt lost there leaves LLVM without the code, and numba then writes the loop's
  environment through the NULL address LLVM gives for it. llvmlite's wrappers also note
  which native object owns which right after the native call that changed it;
- ``_moderngl``, the helpers (``make_uniform``, ``make_attribute``, ...) that moderngl's
  C code calls while it builds a program or compute shader: it stores what they return
  without checking for NULL, so an exception raised in one is a NULL dereference.

Python's "Exception ignored" report of a lost interrupt (or, after the signal, of any
finaliser's error) is not printed.
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sys import UnraisableHookArgs

__all__ = ["Ending", "ctrl_c_anywhere", "ended"]

#: What `signal.signal` takes and gives back.
_Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

#: How soon an interrupt that did not end the run is raised again (seconds).
RETRY_S = 0.05

#: The signals that end a run, each with the exit status it ends with (128 + its number,
#: as a shell reports a process killed by it).
ENDING_SIGNALS = {signal.SIGINT: 130, signal.SIGTERM: 143}

#: Where importlib's own frames come from: a frame of theirs on the stack means an import
#: is running.
_IMPORT_FILES = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")
#: Top-level modules whose frames on the stack hold an interrupt back (see the module
#: notes).
_UNINTERRUPTIBLE_MODULES = frozenset({"llvmlite", "_moderngl"})


class Ending:
    """The signal that ends the run, once one came (`signal`), and its exit status."""

    def __init__(self) -> None:
        self.signal: signal.Signals | None = None

    @property
    def status(self) -> int | None:
        """130 after SIGINT, 143 after SIGTERM; None while no signal came."""
        return None if self.signal is None else ENDING_SIGNALS[self.signal]


#: The `Ending` of each `ctrl_c_anywhere` now open, innermost last.
_open: list[Ending] = []


def ended() -> int | None:
    """The exit status of the signal that ends the run (inside `ctrl_c_anywhere`), None
    while none came: an error reported meanwhile came from the interrupt."""
    return _open[-1].status if _open else None


def _held_back(frame: FrameType | None) -> bool:
    """The program, stopped at `frame`, is where an interrupt must wait: in an import, or
    in code that native code calls and goes on from (see the module notes)."""
    while frame is not None:
        if frame.f_code.co_filename in _IMPORT_FILES:
            return True
        module = str(frame.f_globals.get("__name__", "")).partition(".")[0]
        if module in _UNINTERRUPTIBLE_MODULES:
            return True
        frame = frame.f_back
    return False


def _interrupt_on_its_way() -> bool:
    """A KeyboardInterrupt is being handled (an ``except`` or ``finally`` block runs on
    its way out), alone or as the cause or context of the exception being handled."""
    exc: BaseException | None = sys.exc_info()[1]
    seen = 0
    while exc is not None and seen < 100:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


@contextmanager
def ctrl_c_anywhere(ending: Ending | None = None) -> Iterator[Ending]:
    """Within: SIGINT and SIGTERM raise KeyboardInterrupt (again, if it did not end the
    run, see the module notes) and are noted in `ending` (a new one if None), which
    this gives. Outside the main
    thread, or without `signal.setitimer` (not Unix), only SIGINT's own KeyboardInterrupt
    ends the run and the `Ending` notes nothing."""
    ending = Ending() if ending is None else ending
    _open.append(ending)
    try:
        with _noting(ending):
            yield ending
    finally:
        _open.remove(ending)


@contextmanager
def _noting(ending: Ending) -> Iterator[None]:
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    previous_alarm: list[_Handler] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if ending.signal is None:
            ending.signal = signal.Signals(signum)
            previous_alarm.append(signal.signal(signal.SIGALRM, again))
            signal.setitimer(signal.ITIMER_REAL, RETRY_S, RETRY_S)
        if not _held_back(frame):
            raise KeyboardInterrupt

    def again(signum: int, frame: FrameType | None) -> None:
        if not _held_back(frame) and not _interrupt_on_its_way():
            raise KeyboardInterrupt

    def hook(unraisable: UnraisableHookArgs) -> None:
        # After the signal, an object the interrupt left half-built can fail in its
        # finaliser too (llvmlite's, missing an attribute its __init__ never set).
        if unraisable.exc_type is not KeyboardInterrupt and ending.signal is None:
            previous_hook(unraisable)

    previous_hook = sys.unraisablehook
    previous = {signum: signal.signal(signum, on_signal) for signum in ENDING_SIGNALS}
    sys.unraisablehook = hook
    try:
        yield
    finally:
        if previous_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous_alarm[0])
            gc.collect()  # those half-built objects' finalisers run under `hook`
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        sys.unraisablehook = previous_hook
