"""The root of every error sgview raises on purpose.

A caller that embeds the viewer can catch `SgviewError` to tell a refused input or a
failed run (one line, safe to show) from a bug (any other exception). Each concrete type
also keeps the built-in base it always had (`ValueError` for bad data, `RuntimeError` for
GL, window and recording failures), so existing ``except`` clauses keep working.
This module imports nothing from the package, so every layer can use it.
"""

from __future__ import annotations

__all__ = ["SgviewError"]


class SgviewError(Exception):
    """An expected failure with a one-line message meant for the user."""
