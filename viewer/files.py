"""Writing an output file whole: readers (and a crash) see the old file or the new one.

`write_whole` writes bytes held in memory; `StreamedFile` writes a file that grows as a
run goes on (a trace, a GIF recording) straight to disk, so memory stays bounded however
long the run, and still shows it at its path only once it is complete. Imports nothing
from the package, so the savers, the trace writer, the recorder and anything else that
writes a finished file share it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["StreamedFile", "write_whole"]


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


class StreamedFile:
    """A file written piece by piece into a temporary file in `path`'s folder, renamed
    over `path` by `commit` (with the permissions a plain ``open()`` would give);
    `discard` removes it. An `OSError` names `path`, not the temporary."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        folder = self.path.parent if str(self.path.parent) else Path(".")
        try:
            fd, self._tmp = tempfile.mkstemp(
                prefix=f".{self.path.name}.", suffix=".tmp", dir=folder
            )
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(self.path)) from None
        self._file = os.fdopen(fd, "wb", buffering=1 << 16)
        #: Bytes written so far.
        self.size = 0

    def write(self, data: bytes) -> None:
        try:
            self._file.write(data)
        except OSError as exc:
            self.discard()
            raise OSError(exc.errno, exc.strerror, str(self.path)) from None
        self.size += len(data)

    def commit(self) -> Path:
        """Finish: the complete file appears at `path`."""
        try:
            self._file.close()
            os.chmod(self._tmp, 0o666 & ~_umask())  # mkstemp makes 0600
            os.replace(self._tmp, self.path)
        except OSError as exc:
            self.discard()
            raise OSError(exc.errno, exc.strerror, str(self.path)) from None
        return self.path

    def discard(self) -> None:
        """Drop what was written; `path` keeps whatever it had."""
        with contextlib.suppress(OSError):
            self._file.close()
        _remove(self._tmp)


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _umask() -> int:
    """The process's umask (read by setting it, then putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
