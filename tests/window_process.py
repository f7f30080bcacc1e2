"""One sgview process in a real window under Xvfb, for the real-window tests.

Its output goes to files, never to pipes nobody reads while it runs (a viewer that wrote
more than a pipe holds would stop drawing and look hung). When a wait in the test fails,
the failure says what the window was doing: the process's exit status, the window's
title, the last lines the viewer printed and a screenshot saved next to the test's files.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from PIL import Image
from test_window_xvfb import PATIENCE, REPO, _grab, _sgview_command, _wait_for, _x, window_id

__all__ = ["Viewer"]


class Viewer:
    """`with Viewer(display, tmp_path, args) as v:` launches sgview, waits for its window
    and gives it the keyboard; on leaving, a viewer still running is killed."""

    def __init__(
        self, display: str, folder: Path, args: list, env: dict[str, str | None] | None = None
    ) -> None:
        self.display = display
        self.folder = Path(folder)
        self.args = [str(a) for a in args]
        base = {"DISPLAY": display, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        merged = {**os.environ, **base, **(env or {})}
        #: `env` adds to the test's environment; a value of None removes that variable.
        self.env = {k: v for k, v in merged.items() if v is not None}
        self._out_path = self.folder / "sgview.stdout"
        self._err_path = self.folder / "sgview.stderr"
        self.proc: subprocess.Popen | None = None
        self.wid = ""

    def __enter__(self) -> Viewer:
        with open(self._out_path, "w") as out, open(self._err_path, "w") as err:
            self.proc = subprocess.Popen(
                [*_sgview_command(), *self.args], cwd=self.folder, env=self.env,
                stdout=out, stderr=err, text=True,
            )  # fmt: skip
        try:
            self.wid = window_id(self.display)
            _x(self.display, "xdotool", "windowfocus", "--sync", self.wid)
        except AssertionError as exc:
            self._stop()
            raise AssertionError(f"{exc}\n{self.diagnosis()}") from None
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if isinstance(exc, AssertionError):
            note = self.diagnosis()
            self._stop()
            raise AssertionError(f"{exc}\n{note}") from exc
        self._stop()
        return False

    def _stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    # What the viewer printed ------------------------------------------------------------
    @property
    def out(self) -> str:
        return self._out_path.read_text(errors="replace")

    @property
    def err(self) -> str:
        return self._err_path.read_text(errors="replace")

    def lines(self) -> list[str]:
        """The whole lines printed on stdout so far (a line being written is left out)."""
        text = self.out
        return text[: text.rfind("\n") + 1].splitlines()

    # Input ------------------------------------------------------------------------------
    def key(self, *keys: str) -> None:
        """Press and release each key (xdotool names: "ctrl+o", "Escape", "space")."""
        for name in keys:
            _x(self.display, "xdotool", "key", "--window", self.wid, name)

    def type(self, text: str, delay_ms: int = 30) -> None:
        _x(self.display, "xdotool", "type", "--window", self.wid, "--delay", str(delay_ms), text)

    # Waiting ----------------------------------------------------------------------------
    def title(self) -> str:
        return _x(self.display, "xdotool", "getwindowname", self.wid)

    def wait_title(self, text: str, timeout: float = 30) -> str:
        """Wait until the title contains `text` (a loaded scene's title shows there)."""
        return _wait_for(lambda: text in self.title(), timeout, f"the title to name {text!r}")

    def hold_title(self, text: str, seconds: float = 1.5) -> None:
        """The title keeps containing `text` for `seconds` (nothing replaced the scene)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            title = self.title()
            assert text in title, f"the title changed to {title!r}"
            time.sleep(0.2)

    def quit(self) -> int:
        """Esc (no field or window open) ends the viewer; its exit status."""
        self.key("Escape")
        return self.proc.wait(timeout=PATIENCE)

    # When something failed --------------------------------------------------------------
    def diagnosis(self) -> str:
        """What the window was doing: exit status, title, output tails, a screenshot."""
        status = None if self.proc is None else self.proc.poll()
        lines = [f"viewer: {'running' if status is None else f'exited with {status}'}"]
        if self.wid:
            lines.append(f"title: {self.title()!r}")
        shot = self.folder / "failure.png"
        try:
            Image.fromarray(_grab(self.display)).save(shot)
            lines.append(f"screenshot: {shot}")
        except (OSError, ValueError, AssertionError, subprocess.SubprocessError) as exc:
            lines.append(f"no screenshot ({exc})")
        for name, text in (("stdout", self.out), ("stderr", self.err)):
            tail = text.splitlines()[-15:]
            lines.append(f"{name} (last {len(tail)} lines):")
            lines += [f"  {line}" for line in tail]
        return "\n".join(lines)
