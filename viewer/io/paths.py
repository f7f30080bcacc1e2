"""Paths from untrusted places: files a scene names, and the files the viewer writes.

Confinement: a file a scene names must stay inside the scene's own folder.

A TOML scene includes glTF files, a glTF file references buffers and images, and `--save`
writes include paths relative to the saved file: all three use `confined` or `inside`, so
there is one rule. A path is refused before anything is read when it is absolute, has a
drive or URL scheme (a colon), a NUL or a ``..`` segment, or when resolving symbolic links
leads out of the folder.

Output files (`--screenshot`, `--record`, `--dump-world`, `--save`): `output_problem`
says up front why one cannot be written; `write_whole` writes a saved scene so that a
failed write never leaves half a file behind.
"""

from __future__ import annotations

import os
from pathlib import Path

from viewer.io.errors import SceneError

from ..files import write_whole as write_file

__all__ = ["confined", "inside", "output_problem", "write_whole"]


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


def output_problem(path: str | Path) -> str | None:
    """Why the output file `path` cannot be written, or None when it looks writable.

    Checked before any work is done, so that a long render does not end in an error:
    `path` must not be a folder or a special file (a pipe, a device, a socket), and the
    folder it goes in must be a folder we may write to, or be creatable in one (a missing
    parent folder is made when the file is written). The write itself can still fail (a
    full disk); callers turn that OSError into one line too.
    """
    path = Path(path)
    text = str(path)
    if not path.name or text.endswith(("/", "\\")):
        return "is a folder, not a file"
    try:
        if path.exists() or path.is_symlink():
            if path.is_dir():
                return "is a folder, not a file"
            if not path.is_file():
                return "is not a regular file (a pipe, a device, a socket or a broken link)"
            if not os.access(path, os.W_OK):
                return "is not writable"
            return None
        folder = path.parent
        while not folder.exists():
            if folder.is_symlink():
                return f"its folder {str(folder)!r} is a broken link"
            folder = folder.parent
        if not folder.is_dir():
            return f"{str(folder)!r} is a file, not a folder"
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"the folder {str(folder)!r} is not writable"
    except (OSError, ValueError) as exc:  # a NUL in the name, a name too long, ...
        return f"cannot be used ({getattr(exc, 'strerror', None) or exc})"
    return None


#: What a screenshot must be called: the file is a PNG whatever its name says.
SCREENSHOT = (".png", "screenshots are PNG images")


def prepare_output(path: Path, expected: tuple[str, str] | None = None) -> str | None:
    """`output_problem`, then (`expected` = (suffix, why)) the file's suffix; when all is
    well, make the missing parent folders, once, for whichever writer comes later. Returns
    why `path` cannot be an output, or None. The command line and `viewer.show` share it."""
    problem = output_problem(path)
    if problem is None and expected is not None and path.suffix.lower() != expected[0]:
        problem = f"expected a {expected[0]} file ({expected[1]})"
    if problem is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = f"cannot make its folder ({exc.strerror or exc})"
    return problem


def write_whole(path: Path, data: bytes) -> None:
    """`viewer.files.write_whole`, with `SceneError` naming the file if it cannot be
    written (what the savers report)."""
    try:
        write_file(path, data)
    except (OSError, ValueError) as exc:  # ValueError: a name no system takes (NUL)
        reason = getattr(exc, "strerror", None) or exc
        raise SceneError(f"cannot write the file ({reason})", file=str(path)) from None
