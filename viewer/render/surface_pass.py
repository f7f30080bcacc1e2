"""The node pass's glTF side: each mesh part drawn with its material, and the blended
(BLEND) parts after everything opaque, back to front.

A glTF mesh is one vertex and index buffer per mesh kind; its `MeshSurface` says which
range of the index list each primitive is and with which material it is drawn
(`material_uniforms.py`). Built-in meshes have no surface and keep the built-in shading.
Blended parts are drawn blended over what is drawn, depth-tested without depth writes,
one (instance, part) at a time from the farthest (`transparency.py`; ``u_only`` in
shaders/instanced.vert picks the instance); beyond `MAX_SORTED` such pairs, each part for
all its instances at once.
"""

from __future__ import annotations

import moderngl
import numpy as np

from ..materials import BLEND
from .camera import ORTHOGRAPHIC, Camera
from .gpu_mesh import POINT_SIZE
from .lights import EnvironmentLight, Lighting, light_uniforms
from .material_uniforms import MaterialBinder
from .shaders import uniform
from .textures import TexturePool
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

    def blends(self, kind: str) -> bool:
        """Whether mesh kind `kind` has a blended (BLEND) part, drawn sorted."""
        surface = self.surfaces.get(kind)
        return surface is not None and any(p.material.alpha_mode == BLEND for p in surface.parts)

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
            parts = [p for p in surface.parts if p.material.alpha_mode != BLEND]
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
        costly = [b for b in batches if b.kind in self.surfaces] if depth_first else []
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
        """The BLEND parts of the instanced batches and of the skinned meshes (`skins`, a
        `SkinRenderer` or None), after everything opaque. `placed`: (batch, model
        matrices [n, 4, 4], look sizes [n, 3]) of every batch, rows in instance order."""
        items = []  # (batch, part, instance row, centre)
        for batch, mats, sizes in placed:
            surface = self.surfaces.get(batch.kind)
            for part in surface.parts if surface is not None else ():
                if part.material.alpha_mode != BLEND:
                    continue
                local = np.asarray(part.center) * sizes
                centres = np.einsum("nij,nj->ni", mats[:, :3, :3], local) + mats[:, :3, 3]
                items += [(batch, part, row, c) for row, c in enumerate(centres)]
        skinned = skins is not None and skins.has_blend
        if not items and not skinned:
            return
        ctx = self.ctx
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

    def release(self) -> None:
        self.textures.release()
        self.environment.release()
