"""Folder confinement: a file a scene names must stay inside the scene's own folder.

A TOML scene includes glTF files, a glTF file references buffers and images, and `--save`
writes include paths relative to the saved file: all three use `confined` or `inside`, so
there is one rule. A path is refused before anything is read when it is absolute, has a
drive or URL scheme (a colon), a NUL or a ``..`` segment, or when resolving symbolic links
leads out of the folder.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["confined", "inside"]


def inside(path: Path, folder: Path) -> bool:
    """Whether `path`, with symbolic links resolved, is `folder` or lies below it.

    A symlink loop or an unreadable folder counts as outside.
    """
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, RuntimeError, ValueError):
        return False


def confined(relative: str, folder: Path) -> Path | None:
    """``folder / relative`` when the relative path `relative` stays inside `folder`,
    else None."""
    parts = relative.replace("\\", "/").split("/")
    if (
        not relative
        or "\0" in relative
        or ":" in relative
        or relative.startswith(("/", "\\"))
        or ".." in parts
    ):
        return None
    path = Path(folder) / relative
    return path if inside(path, folder) else None
