"""Writing an output file whole: readers (and a crash) see the old file or the new one.

Imports nothing from the package, so the savers, the trace writer and anything else that
writes a finished file share it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["write_whole"]


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder, renamed over
    `path` once complete, with the permissions a plain ``open()`` would give. The
    temporary file never stays behind; an `OSError` names `path`, not the temporary."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _umask() -> int:
    """The process's umask (read by setting it, then putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
