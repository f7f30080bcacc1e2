"""A kernel set with one loop swapped for a stand-in, for fault injection: storages take
their kernels from `viewer.scene.kernel_set.current()` when they are made, so a test puts
a faulty set in place there (patching the kernels module would reach nothing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from viewer.scene import kernel_set


@contextmanager
def faulty_kernel(name: str, make: Callable[[Callable], Callable]) -> Iterator[None]:
    """While open, new graphs call ``make(real)`` in place of the compiled loop `name`."""
    functions = {n: getattr(kernel_set.COMPILED, n) for n in kernel_set.NAMES}
    functions[name] = make(functions[name])
    kernel_set.stand_in(kernel_set.KernelSet(functions, f"faulty {name}"))
    try:
        yield
    finally:
        kernel_set.stand_in(None)
