"""GL contexts and render targets.

Headless rendering goes through EGL (`backend="egl"`): without it moderngl tries X and
fails when there is no display. A `Target` is a colour+depth framebuffer, multisampled
when asked, with a plain framebuffer to resolve into before reading pixels (reading a
multisampled framebuffer directly returns garbage).
"""

from __future__ import annotations

import os
import sys

import moderngl
import numpy as np

from viewer.errors import SgviewError

#: OpenGL version the shaders need (`#version 330 core`).
GL_VERSION = (3, 3)

#: moderngl's context and framebuffer, named for the rooms above that hand them on (the
#: window's capture) without importing moderngl themselves.
GLContext = moderngl.Context
GLFramebuffer = moderngl.Framebuffer
#: What a failed GL call raises; other packages catch it by this name (only viewer/render
#: imports moderngl).
GLError = moderngl.Error


class ContextError(SgviewError, RuntimeError):
    """No OpenGL context could be created."""


def create_headless_context(backend: str | None = "egl") -> moderngl.Context:
    """A standalone context with no window, through EGL by default."""
    require = GL_VERSION[0] * 100 + GL_VERSION[1] * 10
    settings = {"backend": backend} if backend else {}
    try:
        # moderngl's stub types each backend setting (`**settings`) as a dict, not its value
        return moderngl.create_standalone_context(require=require, **settings)  # type: ignore[arg-type]
    except Exception as exc:  # moderngl raises plain Exception subclasses per platform
        raise ContextError(f"cannot create a headless OpenGL context ({backend=}): {exc}") from exc


def display_available() -> bool:
    """Whether a window can plausibly be opened (an X or Wayland display on Linux)."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


class Target:
    """An offscreen render target of `size` = (width, height) pixels.

    Draw into `fbo`; `read()` resolves multisampling and returns an (h, w, 3) uint8 array,
    top row first.
    """

    def __init__(self, ctx: moderngl.Context, size: tuple[int, int], samples: int = 0):
        self.ctx = ctx
        self.size = (int(size[0]), int(size[1]))
        self.samples = min(int(samples), ctx.max_samples) if samples else 0
        self._color = ctx.renderbuffer(self.size, 4, samples=self.samples)
        self._depth = ctx.depth_renderbuffer(self.size, samples=self.samples)
        self.fbo = ctx.framebuffer(color_attachments=[self._color], depth_attachment=self._depth)
        self._resolve = None
        if self.samples:
            self._resolve_color = ctx.renderbuffer(self.size, 4)
            self._resolve = ctx.framebuffer(color_attachments=[self._resolve_color])

    def read(self) -> np.ndarray:
        """The current image as an (h, w, 3) uint8 array, top row first."""
        return read_rgb(self.ctx, self.fbo, self.size, self._resolve)

    def release(self) -> None:
        for obj in (self.fbo, self._color, self._depth):
            obj.release()
        if self._resolve is not None:
            self._resolve.release()
            self._resolve_color.release()


def read_rgb(
    ctx: moderngl.Context,
    fbo: moderngl.Framebuffer,
    size: tuple[int, int],
    resolve: moderngl.Framebuffer | None = None,
) -> np.ndarray:
    """Read `fbo` as (h, w, 3) uint8, top row first; resolve through `resolve` if given."""
    src = fbo
    if resolve is not None:
        ctx.copy_framebuffer(resolve, fbo)
        src = resolve
    data = src.read(viewport=(0, 0, size[0], size[1]), components=3, alignment=1)
    img = np.frombuffer(data, dtype=np.uint8).reshape(size[1], size[0], 3)
    return img[::-1].copy()
