"""The root of every error sgview raises on purpose.

A caller that embeds the viewer can catch `SgviewError` to tell a refused input or a
failed run (one line, safe to show) from a bug (any other exception). Each concrete type
also keeps the built-in base it always had (`ValueError` for bad data, `RuntimeError` for
GL, window and recording failures), so existing ``except`` clauses keep working.
This module imports nothing from the package, so every layer can use it.
`floats_raise` is the one numpy error state sgview computes under.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

__all__ = ["SgviewError", "floats_raise", "interrupted"]


class SgviewError(Exception):
    """An expected failure with a one-line message meant for the user."""


def interrupted(exc: BaseException) -> bool:
    """Whether `exc` is, or was raised while handling, a Ctrl+C: numba hands an interrupt
    inside compiled code back as a `SystemError` whose context is the KeyboardInterrupt.
    A layer that turns failures into one line re-raises such an error instead, so that the
    run ends as an interrupt (exit 130), never as a failed load or frame."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def floats_raise() -> AbstractContextManager:
    """numpy's floating-point trouble (overflow, invalid, divide) raised as
    `FloatingPointError` for the block; underflow to 0 is harmless and stays quiet.

    Inside sgview a numpy warning is an error (it would otherwise print, once per frame),
    caught by the layer that knows what it was computing and turned into one line. numpy
    is imported here, not at the top: this module must stay free of imports."""
    import numpy as np

    return np.errstate(all="raise", under="ignore")
