"""The node pass's glTF side: each mesh part drawn with its material, and the blended
(BLEND) parts after everything opaque, back to front.

A glTF mesh is one vertex and index buffer per mesh kind; its `MeshSurface` says which
range of the index list each primitive is and with which material it is drawn
(`material_uniforms.py`). Built-in meshes have no surface and keep the built-in shading.
Blended parts are drawn blended over what is drawn, depth-tested without depth writes,
one (instance, part) at a time from the farthest (`transparency.py`; ``u_only`` in
shaders/instanced.vert picks the instance); beyond `MAX_SORTED` such pairs, each part for
all its instances at once. Transmissive parts (KHR_materials_transmission) are drawn with
them, after a linear half-float picture of the opaque scene is made (`Backdrop`), which
their shading samples through the refracting surface, as three.js's transmission pass.
"""

from __future__ import annotations

from collections.abc import Callable

import moderngl
import numpy as np

from ..materials import BLEND, drawn_late
from .camera import ORTHOGRAPHIC, Camera
from .gpu_mesh import POINT_SIZE
from .lights import EnvironmentLight, Lighting, light_uniforms
from .material_uniforms import BACKDROP_UNIT, MaterialBinder
from .shaders import find_uniform, load_program, uniform
from .textures import SRGB8_ALPHA8, TexturePool
from .transparency import MAX_SORTED, back_to_front

__all__ = ["SurfacePass"]


class SurfacePass:
    """Draws mesh batches with their glTF surfaces (`surfaces`: by mesh kind)."""

    def __init__(self, ctx: moderngl.Context, surfaces: dict) -> None:
        self.ctx = ctx
        self.surfaces = surfaces
        self.textures = TexturePool(ctx)
        self.materials = MaterialBinder(self.textures)
        self.environment = EnvironmentLight(ctx)
        self.backdrop = Backdrop(ctx)
        self._opaque: list = []  # the batches with glTF parts drawn by `draw_opaque`

    def begin(
        self, prog: moderngl.Program, lights, world: np.ndarray, default_dir, look: Lighting
    ) -> None:
        """Start a frame: forget the materials set, set the lights (`FileLight`s placed by
        `world`) and bind the environment of `look` (computed only for glTF meshes)."""
        self.materials.reset()
        light_uniforms(prog, lights, world, default_dir, look)
        if self.surfaces:
            self.environment.bind(prog, look)
        else:
            self.environment.bind(prog, Lighting(look.tone_mapping, look.exposure, "none"))
        self.backdrop.bind(prog)

    def blends(self, kind: str) -> bool:
        """Whether mesh kind `kind` has a part drawn late (blended or transmissive),
        sorted."""
        surface = self.surfaces.get(kind)
        return surface is not None and any(drawn_late(p.material) for p in surface.parts)

    def draw_batch(self, prog: moderngl.Program, batch, parts=None) -> None:
        """One instanced draw of `batch`: the built-in shading, or each glTF part with its
        material (`parts`: those given; default: every part not blended)."""
        surface = self.surfaces.get(batch.kind)
        if surface is None:
            if parts is None:
                self.materials.builtin(prog)
                batch.vao.render(moderngl.TRIANGLES, instances=batch.count)
            return
        if parts is None:
            parts = [p for p in surface.parts if not drawn_late(p.material)]
        for part in parts:
            self.materials.material(prog, part.material)
            if part.mode == moderngl.POINTS:
                self.ctx.point_size = POINT_SIZE
            batch.vao.render(
                part.mode, vertices=part.count, first=part.first, instances=batch.count
            )

    def draw_opaque(
        self, fbo: moderngl.Framebuffer, prog: moderngl.Program, batches, depth_first: bool
    ) -> None:
        """Every batch's opaque and masked parts. With `depth_first`, the batches drawn
        with glTF materials (the costly shading) lay down their depth first (the same
        program and draws, colour writes off, the fragment stage stopping after its
        discards), then the shading pass shades only where the depth equals the nearest:
        each such pixel is shaded once however many instances cover it. The built-in
        shading is cheaper than a second pass over the vertices (on llvmpipe 1.8x slower
        with one, docs/performance.md), so it never has one."""
        self._opaque = [b for b in batches if b.kind in self.surfaces]
        costly = self._opaque if depth_first else []
        if costly:
            fbo.color_mask = False, False, False, False
            uniform(prog, "u_depth_only").value = 1
            for batch in costly:
                self.draw_batch(prog, batch)
            uniform(prog, "u_depth_only").value = 0
            fbo.color_mask = True, True, True, True
            self.ctx.depth_func = "<="
        for batch in batches:
            self.draw_batch(prog, batch)
        self.ctx.depth_func = "<"

    def draw_blended(
        self, fbo: moderngl.Framebuffer, prog: moderngl.Program, camera: Camera, placed: list, skins
    ) -> None:
        """The BLEND and transmissive parts of the instanced batches and of the skinned
        meshes (`skins`, a `SkinRenderer` or None), after everything opaque. Transmissive
        parts that do not blend come first, once the opaque picture is copied: one
        instanced draw per batch and part, writing depth (they cover what they show, so
        need no order); then the blended ones, back to front. `placed`: (batch, model
        matrices [n, 4, 4], look sizes [n, 3]) of every batch, rows in instance order."""
        items = []  # (batch, part, instance row, centre)
        solid = []  # (batch, part): transmissive, not blended
        for batch, mats, sizes in placed:
            surface = self.surfaces.get(batch.kind)
            for part in surface.parts if surface is not None else ():
                if not drawn_late(part.material):
                    continue
                if part.material.alpha_mode != BLEND:
                    solid.append((batch, part))
                    continue
                local = np.asarray(part.center) * sizes
                centres = np.einsum("nij,nj->ni", mats[:, :3, :3], local) + mats[:, :3, 3]
                items += [(batch, part, row, c) for row, c in enumerate(centres)]
        skinned = skins is not None and skins.has_blend
        if not items and not solid and not skinned:
            return
        ctx = self.ctx
        if (
            solid
            or any(part.material.transmission > 0.0 for _b, part, _r, _c in items)
            or (skinned and skins.has_transmission)
        ):
            self.backdrop.capture(fbo, prog, lambda: self._redraw_opaque(prog))
        for batch, part in solid:
            self.draw_batch(prog, batch, [part])
        if not items and not skinned:
            return
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        fbo.depth_mask = False
        if skinned:
            skins.draw_blended(self.materials)
        if len(items) > MAX_SORTED:  # each part for all its instances: parts sorted only
            groups: dict = {}
            for batch, part, _row, c in items:
                groups.setdefault((id(batch), id(part)), [batch, part, []])[2].append(c)
            items = [(b, p, -1, np.mean(cs, axis=0)) for b, p, cs in groups.values()]
        forward = camera.forward if camera.projection == ORTHOGRAPHIC else None
        order = back_to_front(np.array([c for *_, c in items]).reshape(-1, 3), camera.eye, forward)
        for k in order.tolist():
            batch, part, row, _c = items[k]
            uniform(prog, "u_only").value = row
            self.draw_batch(prog, batch, [part])
        uniform(prog, "u_only").value = -1
        fbo.depth_mask = True
        ctx.disable(moderngl.BLEND)

    def _redraw_opaque(self, prog: moderngl.Program) -> None:
        """The opaque glTF parts of this frame again (for the transmission picture)."""
        for batch in self._opaque:
            self.draw_batch(prog, batch)

    def release(self) -> None:
        self.textures.release()
        self.environment.release()
        self.backdrop.release()


class Backdrop:
    """The transmission pass's picture, as three.js's: what lies behind the transmissive
    parts in linear radiance, before exposure and tone mapping, in half floats, mipmapped
    (the mip levels blur it for rough surfaces), on `BACKDROP_UNIT`. It starts as the
    picture drawn so far (the room, the nodes without a glTF material), its display values
    decoded; the glTF parts drawn before are then drawn over it again, unmapped, so that
    their colours reach the glass as the light they are, not 8-bit tone-mapped values."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self.copy: moderngl.Texture | None = None  # the drawn picture, sRGB-decoded
        self.copy_fbo: moderngl.Framebuffer | None = None
        self.texture: moderngl.Texture | None = None  # the linear picture sampled
        self.depth: moderngl.Renderbuffer | None = None
        self.fbo: moderngl.Framebuffer | None = None
        # the copy's program, built with the first picture
        self.program: moderngl.Program | None = None
        self.vao: moderngl.VertexArray | None = None

    def bind(self, prog: moderngl.Program) -> None:
        """Point `prog`'s sampler at the unit (its own even when nothing is captured:
        samplers of two types on one unit make every draw fail)."""
        sampler = find_uniform(prog, "u_backdrop")
        if sampler is not None:
            sampler.value = BACKDROP_UNIT

    def _targets(self, size: tuple[int, int]) -> None:
        if self.texture is not None and self.texture.size == size:
            return
        self.release_targets()
        ctx = self.ctx
        if self.program is None:
            self.program = load_program(ctx, "backdrop_copy")
            self.vao = ctx.vertex_array(self.program, [])
        # sRGB: the sampler decodes the picture's display values to linear light
        self.copy = ctx.texture(size, 4, internal_format=SRGB8_ALPHA8)
        self.copy.filter = moderngl.NEAREST, moderngl.NEAREST
        self.copy_fbo = ctx.framebuffer(color_attachments=[self.copy])
        self.texture = ctx.texture(size, 4, dtype="f2")
        self.texture.filter = moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR
        self.texture.repeat_x = self.texture.repeat_y = False
        self.depth = ctx.depth_renderbuffer(size)
        self.fbo = ctx.framebuffer(color_attachments=[self.texture], depth_attachment=self.depth)

    def capture(
        self, fbo: moderngl.Framebuffer, prog: moderngl.Program, redraw: Callable[[], None]
    ) -> None:
        """Build the picture from `fbo`'s colour (resolved, if multisampled) and `redraw`
        (draws the opaque glTF parts with `prog`), and bind it for the transmissive parts
        drawn next."""
        width, height = fbo.size
        size = (int(width), int(height))
        self._targets(size)
        assert self.copy is not None and self.copy_fbo is not None
        assert self.texture is not None and self.fbo is not None
        assert self.program is not None and self.vao is not None
        ctx = self.ctx
        ctx.copy_framebuffer(self.copy_fbo, fbo)
        self.fbo.use()
        self.fbo.clear(depth=1.0)
        ctx.disable(moderngl.DEPTH_TEST)
        self.copy.use(location=BACKDROP_UNIT)
        uniform(self.program, "u_picture").value = BACKDROP_UNIT
        self.vao.render(moderngl.TRIANGLES, vertices=3)
        ctx.enable(moderngl.DEPTH_TEST)
        linear = find_uniform(prog, "u_linear_out")
        if linear is not None:
            linear.value = 1
        redraw()
        if linear is not None:
            linear.value = 0
        self.texture.build_mipmaps()
        self.texture.use(location=BACKDROP_UNIT)
        fbo.use()
        size_uniform = find_uniform(prog, "u_backdrop_size")
        if size_uniform is not None:
            size_uniform.value = (float(size[0]), float(size[1]))

    def release_targets(self) -> None:
        for thing in (self.fbo, self.depth, self.texture, self.copy_fbo, self.copy):
            if thing is not None:
                thing.release()
        self.fbo = self.depth = self.texture = self.copy_fbo = self.copy = None

    def release(self) -> None:
        self.release_targets()
        if self.vao is not None and self.program is not None:
            self.vao.release()
            self.program.release()
        self.vao = self.program = None
