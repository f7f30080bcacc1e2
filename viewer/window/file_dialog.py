"""Ctrl+O: the system's file dialog, without blocking the window.

imgui-bundle's portable-file-dialogs runs the desktop's own dialog (zenity, kdialog, ...
on Linux) as a separate process; `OpenDialog.poll` asks once per redraw whether the
user has picked a file, so the scene keeps drawing meanwhile. Where no dialog program
exists, `start` says so in one line and the app opens the overlay's file browser in the
window instead (`viewer.overlay.file_browser`). What happens with the picked file is the
app's open action (`viewer.session.opening`, tested on its own).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from viewer.content.scene import Scene
from viewer.session.opening import OPEN_SUFFIXES

#: The programs portable-file-dialogs drives on Linux and other Unix desktops.
DIALOG_PROGRAMS = ("zenity", "matedialog", "qarma", "kdialog")


def start_folder(scene: Scene, recent_folder: str) -> Path:
    """Where a dialog starts: the folder of the scene on show, else `recent_folder` (the
    newest recent file's, else the working folder)."""
    source = scene.source
    if source is not None and Path(source).parent.is_dir():
        return Path(source).parent
    return Path(recent_folder)


class OpenDialog:
    """At most one open dialog at a time; `poll` returns the picked path once."""

    def __init__(self) -> None:
        self._dialog = None

    @staticmethod
    def available() -> bool:
        return sys.platform in ("win32", "darwin") or any(map(shutil.which, DIALOG_PROGRAMS))

    def start(self, folder: str | Path = ".") -> str | None:
        """Show the dialog (nothing if one is showing); None, or why it cannot."""
        if self._dialog is not None:
            return None
        if not self.available():
            return "no file dialog on this system (zenity or kdialog): drop the file on the window"
        from imgui_bundle import portable_file_dialogs as pfd

        patterns = " ".join(f"*{s}" for s in OPEN_SUFFIXES)
        self._dialog = pfd.open_file("Open a scene", str(folder), ["Scenes", patterns])
        return None

    def poll(self) -> Path | None:
        """The file picked since the last call, once; None while the dialog is up, when
        it was cancelled, or when none is showing."""
        if self._dialog is None or not self._dialog.ready(0):
            return None
        picked, self._dialog = self._dialog.result(), None
        return Path(picked[0]) if picked else None
