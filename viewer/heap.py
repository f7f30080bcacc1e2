"""Giving the C heap's free pages back to the system after a large load.

Why: building a million-node scene makes and drops millions of small objects and
buffers between the ones that stay, and glibc's allocator keeps the freed pages for later
use; the graph's large arrays, each mapped on its own, never reuse them, so a loaded
million-node glTF scene held about 130 MB more than it used. ``malloc_trim`` returns
them. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import platform
import sys

__all__ = ["return_free_heap"]


def _glibc():
    """The C library when it is glibc (the one with ``malloc_trim``), else None."""
    if sys.platform != "linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


_LIBC = _glibc()


def return_free_heap() -> None:
    """Return the heap's free pages to the system (a few milliseconds; glibc only)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
