"""Images out of the renderer: PNG screenshots and recordings (mp4 through ffmpeg, or gif).

The ffmpeg that encodes mp4 comes with the `imageio-ffmpeg` package (a dependency, so an
mp4 works right after ``pip install``); a system ffmpeg on the PATH is the fallback.

All functions take frames as (h, w, 3) uint8 arrays, top row first (`Target.read()`).

A GIF stores frame delays in hundredths of a second and viewers stretch delays under 2/100,
so a GIF cannot play at 60 frames/s: it keeps every second frame (30 frames/s) with delays
of 30 or 40 ms chosen so that the running total stays exact (100 ms per three frames).
Recordings stream to disk, so memory stays bounded however long the run: mp4 frames go
down ffmpeg's pipe; a GIF is written frame by frame (Pillow's documented `getheader` /
`getdata` for animated GIFs, each frame with its own 256-colour table, `gif_palette.py`),
holding only the last frame, so that identical frames fold into one longer frame.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import IO

import numpy as np
from PIL import GifImagePlugin, Image

from viewer.errors import SgviewError
from viewer.files import StreamedFile
from viewer.text import one_line
from viewer.timing import FPS

from .gif_palette import quantize

#: Frame rate of GIF recordings (see the module notes).
GIF_FPS = 30


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    """One of ffmpeg's pipes (asked for with `subprocess.PIPE`, so never None)."""
    if stream is None:
        raise RecordError("ffmpeg was started without its pipes")
    return stream


def find_ffmpeg() -> str | None:
    """The ffmpeg executable: imageio-ffmpeg's own binary, else one on the PATH, else None."""
    try:
        import imageio_ffmpeg

        return imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError):
        return shutil.which("ffmpeg")


class RecordError(SgviewError, RuntimeError):
    """A recording cannot be written (unknown format, ffmpeg missing or failing)."""


def save_png(image: np.ndarray, path) -> Path:
    """Write an (h, w, 3) uint8 image as PNG; return the path."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.ascontiguousarray(image), "RGB").save(path, format="PNG")
    return path


class Recorder:
    """Collects frames into `path`: `.mp4` pipes them to ffmpeg, `.gif` uses pillow."""

    def __init__(self, path, size: tuple[int, int], fps: int = FPS):
        self.path = Path(path)
        self.size = (int(size[0]), int(size[1]))
        self.fps = fps
        self.frames = 0
        self._gif: StreamedFile | None = None
        self._gif_last: tuple[np.ndarray, Image.Image, int] | None = None  # (rgb, frame, ms)
        self._gif_kept = 0  # frames kept for the GIF so far
        self._gif_every = max(1, round(fps / GIF_FPS))
        self._proc: subprocess.Popen[bytes] | None = None
        ffmpeg = self.check(self.path)
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if ffmpeg is not None:
            w, h = self.size
            # fmt: off
            cmd = [
                ffmpeg, "-loglevel", "error", "-y",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(fps),
                "-i", "-",
                # yuv420p needs even sides; pad by one pixel when odd.
                "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-threads", "1",
                "-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1",
                str(self.path),
            ]
            # fmt: on
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)

    @staticmethod
    def check(path) -> str | None:
        """Raise `RecordError` if `path` cannot be recorded; return ffmpeg's path for .mp4."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".mp4", ".gif"):
            raise RecordError(f"cannot record to {path}: expected a .mp4 or .gif file")
        if suffix == ".gif":
            return None
        ffmpeg = find_ffmpeg()
        if ffmpeg is None:
            raise RecordError(
                f"cannot record to {path}: ffmpeg not found (reinstall sgview to get the "
                f"imageio-ffmpeg package, or record a .gif)"
            )
        return ffmpeg

    def add(self, image: np.ndarray) -> None:
        """Append one frame, an (h, w, 3) uint8 array."""
        self.frames += 1
        w, h = self.size
        if image.shape[:2] != (h, w):  # a resized window: crop or pad to the first size
            fitted = np.zeros((h, w, 3), dtype=np.uint8)
            hh, ww = min(h, image.shape[0]), min(w, image.shape[1])
            fitted[:hh, :ww] = image[:hh, :ww]
            image = fitted
        if self._proc is not None:
            try:
                _pipe(self._proc.stdin).write(np.ascontiguousarray(image).tobytes())
            except BrokenPipeError:
                raise RecordError(
                    f"ffmpeg stopped while writing {self.path}: {self._stderr()}"
                ) from None
        elif (self.frames - 1) % self._gif_every == 0:
            self._gif_add(np.ascontiguousarray(image))

    def _gif_add(self, rgb: np.ndarray) -> None:
        """Keep one GIF frame: its delay makes the running total exact; a frame equal
        to the last one lengthens it instead."""
        fps = self.fps / self._gif_every
        k = self._gif_kept
        self._gif_kept += 1
        delay = round(100 * (k + 1) / fps) * 10 - round(100 * k / fps) * 10  # ms
        last = self._gif_last
        if last is not None and np.array_equal(last[0], rgb):
            self._gif_last = (last[0], last[1], last[2] + delay)
            return
        self._gif_flush()
        frame = quantize(rgb)  # the small coloured things keep their colour (gif_palette)
        self._gif_last = (rgb.copy(), frame, delay)

    def _gif_flush(self) -> None:
        """Write the held frame (the file's header first, with the first frame)."""
        if self._gif_last is None:
            return
        _, frame, delay = self._gif_last
        self._gif_last = None
        if self._gif is None:
            self._gif = StreamedFile(self.path)
            header, _ = GifImagePlugin.getheader(frame, info={"loop": 0})
            self._gif.write(b"".join(header))
        data = GifImagePlugin.getdata(frame, duration=delay, include_color_table=True)
        self._gif.write(b"".join(data))
        data.clear()  # the list lives on in a class Pillow makes per call, until a gc pass

    def _stderr(self) -> str:
        err = _pipe(self._proc.stderr).read().decode(errors="replace").strip() if self._proc else ""
        return one_line(err.splitlines()[-1]) if err else "no message"

    def close(self) -> Path:
        """Finish the file; return its path."""
        if self._proc is not None:
            _pipe(self._proc.stdin).close()
            code = self._proc.wait()
            if code != 0:
                raise RecordError(f"ffmpeg failed writing {self.path}: {self._stderr()}")
            self._proc = None
        else:
            self._gif_flush()
            if self._gif is not None:
                self._gif.write(b";")  # the GIF trailer
                self._gif.commit()
                self._gif = None
        return self.path
