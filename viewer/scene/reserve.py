"""Address space reserved ahead for a graph's per-node arrays, so that growing them copies nothing.

Why: the per-node arrays must stay contiguous (the compiled loops index them directly, a
renderer reads all world matrices as one array), and a contiguous numpy array grown by
allocating a bigger one and copying costs a pause proportional to the graph: at a million
ids each doubling copied hundreds of megabytes inside one ``add`` call (0.25-0.5 s).

Instead a graph past `SMALL_ROWS` ids maps one anonymous private region of memory large
enough for `FIRST_ROWS` ids of every array (about 1.8 GB of address space) and hands out
the first ``cap`` rows of each array's part of it as numpy views. Growing within that
reservation only widens the views: no row is copied, and arrays handed out before stay
valid and keep seeing the values (the mapping is never replaced while any view lives).
The system backs a page with memory on its first write, so the resident size follows the
ids written, not the reservation (with transparent huge pages always on, it may round each
array's part up to 2 MiB). Below `SMALL_ROWS` ids plain arrays are copied as they double:
copying a few hundred kilobytes is cheaper than a mapping per small graph.

A graph that outgrows its reservation copies once into one `STEP` times larger, so a
graph of N ids copies its rows at most ``1 + log16(N / FIRST_ROWS)`` times in all, the
first at 4,096 ids (under 2 MB) and the next at ``FIRST_ROWS`` ids, over twice the
node cap of scene files (``viewer.io.limits.MAX_NODES``): that copy, of about 1.8 GB,
takes about a second, once. Where no reservation can be had, growth falls back to
doubling plain arrays (a copy per doubling, as before): on systems without anonymous
``mmap`` (Windows), under strict overcommit accounting (Linux ``vm.overcommit_memory`` 2,
where MAP_NORESERVE is ignored and a reservation would be charged in full against the
commit limit of every process), or where the address space is limited (``ulimit -v``):
then the largest reservation the system grants, down to twice the rows needed, is used.

``tracemalloc`` is told about each array's ``cap`` rows as numpy's own allocations are
(numpy's tracing domain), so tests and benches that bound memory through it count the
arrays as they did when they were plain numpy arrays.
"""

from __future__ import annotations

import ctypes
import mmap
import platform
import sys
import weakref
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

#: Up to this many ids, plain numpy arrays (copied on growth).
SMALL_ROWS = 1 << 12
#: Ids the first reservation holds: 4,194,304, over twice ``viewer.io.limits.MAX_NODES``.
FIRST_ROWS = 1 << 22
#: Each later reservation holds this many times the ids of the one before.
STEP = 16
#: Each array's part of a reservation starts at a multiple of this (a huge page).
_ALIGN = 1 << 21

#: One per-node array: its name, the shape of one row, its dtype.
Field = tuple[str, tuple[int, ...], np.dtype]


def row_bytes(field: Field) -> int:
    _, shape, dtype = field
    return int(np.prod(shape, dtype=np.int64)) * dtype.itemsize


class Reservation:
    """One anonymous mapping holding ``rows`` rows of every field, each field's part
    contiguous and aligned; `views` hands out the first ``cap`` rows of each."""

    __slots__ = ("rows", "parts", "_traced")

    def __init__(self, memory: mmap.mmap, fields: Sequence[Field], rows: int) -> None:
        self.rows = rows
        self.parts: dict[str, np.ndarray] = {}
        offset = 0
        for field in fields:
            name, shape, dtype = field
            count = rows * int(np.prod(shape, dtype=np.int64))
            flat = np.frombuffer(memory, dtype=dtype, count=count, offset=offset)
            self.parts[name] = flat.reshape(rows, *shape)
            offset += _aligned(rows * row_bytes(field))
        #: (address, bytes per row) of each part, for tracemalloc.
        self._traced = [(p.ctypes.data, p.strides[0]) for p in self.parts.values()]
        # (the mapping lives on while any view of it does, replaced or not)
        weakref.finalize(memory, _untrace, list(self._traced))

    def views(self, cap: int) -> dict[str, np.ndarray]:
        """The first ``cap`` rows of every field (no copy), counted by tracemalloc."""
        for address, row in self._traced:
            _trace(address, cap * row)
        return {name: part[:cap] for name, part in self.parts.items()}


def reserve(fields: Sequence[Field], need: int) -> Reservation | None:
    """A reservation for at least ``need`` rows with room to double, or None where none
    can be had (see the module notes)."""
    if not _can_reserve():
        return None
    rows = FIRST_ROWS
    while rows < 2 * need:
        rows *= STEP
    while rows >= 2 * need:
        memory = _map(sum(_aligned(rows * row_bytes(f)) for f in fields))
        if memory is not None:
            return Reservation(memory, fields, rows)
        rows //= 2
    return None


def _aligned(nbytes: int) -> int:
    return -(-nbytes // _ALIGN) * _ALIGN


@cache
def _can_reserve() -> bool:
    if not hasattr(mmap, "MAP_PRIVATE"):  # Windows: an anonymous map is committed whole
        return False
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/sys/vm/overcommit_memory", encoding="ascii") as f:
                return f.read().strip() != "2"
        except OSError:
            return True
    return True


@cache
def _noreserve() -> int:
    """MAP_NORESERVE (Python names it from 3.13 on; before, its value where the kernel's
    generic headers give it), or 0 where unknown: then Linux's default heuristic still
    grants a reservation smaller than memory and swap, and the halving does the rest."""
    flag = getattr(mmap, "MAP_NORESERVE", None)
    if isinstance(flag, int):
        return flag
    generic = ("x86_64", "i386", "i686", "aarch64", "arm64", "armv7l", "riscv64", "s390x")
    if sys.platform.startswith("linux") and platform.machine() in generic:
        return 0x4000
    return 0


def _map(size: int) -> mmap.mmap | None:
    flags = mmap.MAP_PRIVATE | _noreserve()
    try:  # (fileno -1: an anonymous mapping, zero pages until written)
        return mmap.mmap(-1, size, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    except (OSError, OverflowError, ValueError):
        return None


def _tracer() -> tuple[Callable[..., int], Callable[..., int]] | None:
    """CPython's ``PyTraceMalloc_Track`` and ``PyTraceMalloc_Untrack`` (None elsewhere)."""
    if sys.implementation.name != "cpython":
        return None
    api = ctypes.pythonapi
    track, untrack = api.PyTraceMalloc_Track, api.PyTraceMalloc_Untrack
    track.argtypes = [ctypes.c_uint, ctypes.c_size_t, ctypes.c_size_t]
    untrack.argtypes = [ctypes.c_uint, ctypes.c_size_t]
    track.restype = untrack.restype = ctypes.c_int
    return track, untrack


_TRACER = _tracer()
_DOMAIN = int(np.lib.tracemalloc_domain)


def _trace(address: int, nbytes: int) -> None:
    """Count ``nbytes`` at ``address`` as one numpy allocation (replacing its earlier
    count) while tracemalloc traces; nothing otherwise."""
    if _TRACER is not None:
        _TRACER[0](_DOMAIN, address, nbytes)


def _untrace(parts: list[tuple[int, int]]) -> None:
    if _TRACER is not None:
        for address, _ in parts:
            _TRACER[1](_DOMAIN, address)
