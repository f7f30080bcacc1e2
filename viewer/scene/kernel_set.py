"""The kernel set a storage calls: numba's compiled loops, or their plain-Python twins.

Why an object: every call into the loops of ``kernels.py`` goes through the set its
``Storage`` took when it was made (``storage.kernels.mark(...)``), so which code runs is
decided in one place, `current()`, and never by patching a module: nobody can hold on
to a stale function by importing it by name, and a graph made while the compiled cache
is cold keeps working, unchanged, when the compiled loops arrive (``coldstart.py``).

The twins are each loop's own source (numba's public ``py_func``), run as plain Python
in a copy of its module's namespace in which every compiled loop is swapped for its
twin, so a loop that calls another calls the other's twin too. They give the same flags,
logs and counts; their matrices can differ from the compiled ones in the last bit, where
LLVM fuses a multiply and an add.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np
from numba.extending import is_jitted
from numpy.typing import NDArray

from . import kernels

if TYPE_CHECKING:
    from numba.core.dispatcher import Dispatcher

#: The element types of the per-node arrays (``arrays.py``) the loops take, by what
#: they hold: values and matrices, ids (links, layout, versions), flag bits, liveness.
Floats = NDArray[np.float64]
Ids = NDArray[np.int64]
Bits = NDArray[np.uint8]
Mask = NDArray[np.bool_]
#: What every marking loop takes after its ids and ``force`` (``Storage.marking``):
#: flags, first child, next sibling, whether the layout is current, order, slot, size,
#: the dirty roots and their count.
Marking = tuple[Bits, Ids, Ids, bool, Ids, Ids, Ids, Ids, int]
#: A loop of the set: compiled, a twin, or a test's stand-in.
Loop = Callable[..., object]

#: The loops the storage (and the checks of ``validate.py``) call, by name: the public
#: compiled functions of ``kernels.py`` (those with a leading underscore are helpers
#: that only the loops call; tests/scene/test_coldstart.py checks the list is whole).
NAMES = (
    "all_finite",
    "collect_subtree",
    "dirty_ranges",
    "finish_frame",
    "first_bad_id",
    "is_ancestor",
    "link_batch",
    "mark",
    "pull_local",
    "pull_world",
    "rebuild_preorder",
    "recompute",
    "set_values",
)


class KernelSet:
    """One function per name of `NAMES`, as attributes; fixed once made. The signatures
    are the loops' in ``kernels.py`` (numba returns Python ints and bools)."""

    __slots__ = (*NAMES, "label")

    all_finite: Callable[[Floats], bool]
    collect_subtree: Callable[[int, Ids, Ids, Ids], int]
    dirty_ranges: Callable[[Ids, Mask, Ids, Ids], tuple[Ids, Ids]]
    finish_frame: Callable[[Ids, Ids, Ids, Ids, Bits, Ids], tuple[Ids, Ids, Ids]]
    first_bad_id: Callable[[Ids, Mask], int]
    is_ancestor: Callable[[int, int, Ids], bool]
    link_batch: Callable[[int, Ids, Ids, Ids, Ids, Ids, Ids, Ids], None]
    # ``mark`` and ``set_values`` end with the marking arguments (``Storage.marking``).
    mark: Callable[[Ids, bool, *Marking], int]
    pull_local: Callable[[int, Bits, Floats, Floats, Floats, Floats], None]
    pull_world: Callable[[int, Ids, Bits, Floats, Floats, Floats, Floats, Floats, Ids], int]
    rebuild_preorder: Callable[[int, Ids, Ids, Ids, Ids, Ids, Ids, Ids], tuple[int, bool]]
    recompute: Callable[[Ids, Ids, bool, Ids, Ids, Bits, Floats, Floats, Floats, Floats, Ids], int]
    set_values: Callable[
        [Ids, Floats, Floats, Floats, Floats, Floats, Floats, *Marking], tuple[int, int]
    ]
    label: str

    def __init__(self, functions: Mapping[str, Loop], label: str) -> None:
        for name in NAMES:
            object.__setattr__(self, name, functions[name])
        object.__setattr__(self, "label", label)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a kernel set is fixed once made")

    def __repr__(self) -> str:
        return f"KernelSet({self.label})"


#: numba's compiled loops (compiled, or loaded from numba's disk cache, on first call).
COMPILED = KernelSet({name: getattr(kernels, name) for name in NAMES}, "compiled")

_stand_in: KernelSet | None = None


def current() -> KernelSet:
    """The set a new storage takes: the compiled loops, unless a stand-in is in place
    (the cold start's twins, or the twins a test asked for)."""
    return COMPILED if _stand_in is None else _stand_in


def stand_in(kernel_set: KernelSet | None) -> None:
    """Make `current()` answer ``kernel_set`` (None: the compiled loops again). Storages
    made before keep the set they took."""
    global _stand_in
    _stand_in = kernel_set


def python_twins() -> dict[str, Loop]:
    """Every loop of `NAMES` as its plain-Python twin (see the module notes)."""
    namespaces: dict[int, dict] = {}
    made: dict[int, Loop] = {}

    def twin_of(dispatcher: Dispatcher[Loop]) -> Loop:
        if id(dispatcher) not in made:
            f = dispatcher.py_func
            ns = namespaces.setdefault(id(f.__globals__), dict(f.__globals__))
            made[id(dispatcher)] = types.FunctionType(
                f.__code__, ns, f.__name__, f.__defaults__, f.__closure__
            )
        return made[id(dispatcher)]

    twins = {name: twin_of(getattr(COMPILED, name)) for name in NAMES}
    swapped = True
    while swapped:  # a twin made here may bring a new namespace to swap in
        swapped = False
        for ns in list(namespaces.values()):
            for key, value in list(ns.items()):
                if is_jitted(value):
                    ns[key] = twin_of(value)
                    swapped = True
    return twins
