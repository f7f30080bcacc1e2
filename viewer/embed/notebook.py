"""Whether code runs in a Jupyter kernel, and a hook after each of its cells.

`viewer.show` returns a live widget in a notebook and opens a window elsewhere: a kernel
is an IPython shell with a `kernel` (ipykernel; also VS Code's and Colab's notebooks),
where a terminal IPython or a plain script has none. Nothing is imported that the caller
has not imported already, so asking costs nothing outside a notebook.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Protocol

__all__ = ["after_each_cell", "in_jupyter_kernel"]


class _Events(Protocol):
    def register(self, event: str, function: Callable[..., None]) -> None: ...


class _Shell(Protocol):
    """What is used of IPython's `InteractiveShell` (read from `sys.modules`, untyped):
    its events; whether it has a ``kernel`` is asked with getattr."""

    @property
    def events(self) -> _Events: ...


def _shell() -> _Shell | None:
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return None
    try:
        shell: _Shell | None = ipython.get_ipython()
    except Exception:  # a broken or half-imported IPython: not a notebook
        return None
    return shell


def in_jupyter_kernel() -> bool:
    """True inside a Jupyter kernel (a notebook, JupyterLab, nbclient, VS Code, Colab)."""
    shell = _shell()
    return shell is not None and getattr(shell, "kernel", None) is not None


def after_each_cell(callback: Callable[[], None]) -> bool:
    """Call `callback()` after every cell the kernel runs from now on (a cell may have
    changed a graph on show); False when there is no kernel to ask."""
    shell = _shell()
    if shell is None or getattr(shell, "kernel", None) is None:
        return False
    shell.events.register("post_run_cell", lambda *_: callback())
    return True
