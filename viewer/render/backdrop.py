"""What lies behind the scene: a vertical background gradient and the ground grid.

Neither depends on the nodes, only on the camera, the image size and the grid. So while
the camera holds still the backdrop is rendered once into a framebuffer of its own and
then copied into each frame (`ctx.copy_framebuffer`, colour and depth) — on a software
rasteriser that copy costs less than the clear it replaces, so the gradient and the grid
come for free. While the camera moves it is drawn directly. Both ways give the same pixels.

The grid lies in the XZ plane (Y up), or in the XY plane for flat 2D scenes; it never
writes depth, so everything drawn later covers it.

The world axes (`axis_lines`) are a small dashed tripod in muted colours just outside the
scene's bounds, not lines from the origin: from the origin they would run along any
parent-child link on an axis (tree10's Obj6-Obj7) in the glow's red, and read as links.
"""

from __future__ import annotations

import moderngl
import numpy as np

from .node_bounds import grid_span
from .node_bounds import nice_step as nice_step  # (where the tests find it)
from .shaders import uniform

BACKGROUND_TOP = (0.20, 0.22, 0.27)
BACKGROUND_BOTTOM = (0.07, 0.075, 0.09)
GRID_MINOR = (0.33, 0.35, 0.40)
GRID_MAJOR = (0.46, 0.49, 0.56)
#: X, Y, Z: muted, none of them the glow's red or orange (viewer.palette).
AXIS_COLORS = ((0.86, 0.52, 0.66, 1.0), (0.62, 0.84, 0.52, 1.0), (0.50, 0.66, 0.96, 1.0))
#: Dashes per axis of the tripod.
AXIS_DASHES = 4


def grid_lines(half: float, step: float, flat: bool) -> np.ndarray:
    """Grid line vertices [k, 4]: position (3) and weight (1 on every fifth line)."""
    ticks = np.arange(-half, half + step / 2, step)
    major = (np.abs(np.round(ticks / step)) % 5 == 0).astype(np.float32)
    out = []
    for t, w in zip(ticks, major, strict=True):
        for u0, v0, u1, v1 in ((t, -half, t, half), (-half, t, half, t)):
            for u, v in ((u0, v0), (u1, v1)):
                out.append((u, v, 0.0, w) if flat else (u, 0.0, v, w))
    return np.array(out, dtype=np.float32)


def axis_lines(points, step: float, flat: bool) -> tuple[np.ndarray, np.ndarray]:
    """The world axes' tripod as LINES: (positions [n, 3], colours [n, 4]).

    Its corner sits outside the box around the scene's `points` ([m, 3]: what the view
    frames), by a tenth of the box's size, left of it, below it and in front: every dash
    of the X axis lies below every node, every dash of the Y and Z axes left of every
    node, so no node and no parent-child line (they lie within the box) runs along an
    axis, and the framed view still shows it. Each axis is `AXIS_DASHES` dashes over one
    and a half grid `step` along +X, +Y, +Z (in a flat scene Z points at the viewer and
    would show as a dot, so it is left out).
    """
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if not len(points):  # an empty scene: beside the origin
        points = np.zeros((1, 3))
    lo, hi = points.min(axis=0), points.max(axis=0)
    margin = max(0.1 * float(np.max(hi - lo)), 0.25 * float(step))
    corner = np.array((lo[0] - margin, lo[1] - margin, 0.0 if flat else hi[2] + margin))
    length = 1.5 * float(step)
    ends = np.linspace(0.0, length, 2 * AXIS_DASHES + 1)[:-1]  # dash, gap, dash, ...
    positions, colors = [], []
    for axis in range(2 if flat else 3):
        for k in range(AXIS_DASHES):
            for t in (ends[2 * k], ends[2 * k + 1]):
                point = corner.copy()
                point[axis] += t
                positions.append(point)
                colors.append(AXIS_COLORS[axis])
    return np.array(positions, dtype=np.float32), np.array(colors, dtype=np.float32)


class Backdrop:
    """Background and grid for one renderer (see the module notes)."""

    def __init__(
        self, ctx: moderngl.Context, background: moderngl.Program, grid: moderngl.Program
    ) -> None:
        self.ctx = ctx
        self.bg_prog, self.grid_prog = background, grid
        self.bg_vao = ctx.vertex_array(background, [])
        self.grid_vao: moderngl.VertexArray | None = None
        self.grid_buf: moderngl.Buffer | None = None
        self.half = self.step = 1.0
        self.version = 0
        #: Use the cached copy when the camera holds still (off: always draw directly).
        self.cache_enabled = True
        self._cache: moderngl.Framebuffer | None = None
        self._cache_key: tuple | None = None
        self._last_key: tuple | None = None

    def set_grid(self, center, radius: float, flat: bool) -> None:
        """Size the grid for a scene with bounding sphere (`center`, `radius`)."""
        self.step, self.half = grid_span(center, radius)
        data = grid_lines(self.half, self.step, flat)
        self._release_grid()
        self.grid_buf = self.ctx.buffer(data.tobytes())
        self.grid_vao = self.ctx.vertex_array(
            self.grid_prog, [(self.grid_buf, "3f 1f", "in_position", "in_weight")]
        )
        self.version += 1

    def draw(self, fbo: moderngl.Framebuffer, size, vp_bytes: bytes, show_grid: bool) -> None:
        """Fill `fbo` (drawn at `size`) with the backdrop and depth 1; leaves `fbo` bound.

        The cached copy is used only when `fbo` reports the size being drawn (a window's
        default framebuffer may keep reporting its first size after a resize).
        """
        key = (fbo.size, fbo.samples, vp_bytes, show_grid, self.version)
        still = key == self._last_key
        self._last_key = key
        usable = self.cache_enabled and tuple(fbo.size) == tuple(size)
        if usable and (key == self._cache_key or still):
            cache = self._cache
            if key != self._cache_key or cache is None:
                cache = self._render_cache(fbo, vp_bytes, show_grid)
                self._cache_key = key
            self.ctx.copy_framebuffer(fbo, cache)
            fbo.use()
            return
        self._draw_direct(fbo, vp_bytes, show_grid)

    def _render_cache(
        self, fbo: moderngl.Framebuffer, vp_bytes: bytes, show_grid: bool
    ) -> moderngl.Framebuffer:
        """Draw the backdrop into the cached copy (made or remade at `fbo`'s size and
        samples); returns it."""
        cache = self._cache
        if cache is None or (cache.size, cache.samples) != (fbo.size, fbo.samples):
            self._release_cache()
            color = self.ctx.renderbuffer(fbo.size, 4, samples=fbo.samples)
            depth = self.ctx.depth_renderbuffer(fbo.size, samples=fbo.samples)
            cache = self.ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
            self._cache = cache
        self._draw_direct(cache, vp_bytes, show_grid)
        return cache

    def _draw_direct(self, fbo: moderngl.Framebuffer, vp_bytes: bytes, show_grid: bool) -> None:
        ctx = self.ctx
        fbo.use()
        # Clear depth only: the gradient pass writes every colour pixel anyway.
        mask = fbo.color_mask
        fbo.color_mask = (False, False, False, False)
        ctx.clear(depth=1.0)
        fbo.color_mask = mask
        fbo.use()  # re-applies the mask to GL state
        ctx.disable(moderngl.DEPTH_TEST | moderngl.CULL_FACE | moderngl.BLEND)
        uniform(self.bg_prog, "u_top").value = BACKGROUND_TOP
        uniform(self.bg_prog, "u_bottom").value = BACKGROUND_BOTTOM
        self.bg_vao.render(moderngl.TRIANGLES, vertices=3)
        if show_grid and self.grid_vao is not None:
            ctx.enable(moderngl.DEPTH_TEST | moderngl.BLEND)
            ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
            grid = self.grid_prog
            uniform(grid, "u_view_proj").write(vp_bytes)
            uniform(grid, "u_center").value = (0.0, 0.0, 0.0)
            uniform(grid, "u_radius").value = self.half * 1.42
            uniform(grid, "u_minor_color").value = GRID_MINOR
            uniform(grid, "u_major_color").value = GRID_MAJOR
            fbo.depth_mask = False  # see-through: what is drawn later covers it
            self.grid_vao.render(moderngl.LINES)
            fbo.depth_mask = True
            fbo.use()
            ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)

    def _release_cache(self) -> None:
        if self._cache is not None:
            for att in (*self._cache.color_attachments, self._cache.depth_attachment):
                att.release()
            self._cache.release()
            self._cache = None
            self._cache_key = None

    def _release_grid(self) -> None:
        if self.grid_vao is not None:
            self.grid_vao.release()
        if self.grid_buf is not None:
            self.grid_buf.release()

    def release(self) -> None:
        self._release_cache()
        self.bg_vao.release()
        self._release_grid()
