"""Draws a `Scene`: instanced meshes, ground grid, world axes, parent -> child lines.

The renderer never computes a transform. World matrices come from the core's
`world_matrices()`, and after the first build only the ids a frame report lists as
executed are uploaded (`sync`). One instanced draw call per mesh kind.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.palette import GLOW_LOCAL, GLOW_WORLD, SELECTION_COLOR

from . import meshes
from .backdrop import Backdrop
from .camera import ORTHOGRAPHIC, Camera
from .instances import Instances
from .shaders import load_program

#: Direction towards the light (world space); normalised at use. Flat (2D) scenes in the
#: XY plane are lit mostly from +Z, the side they are seen from.
LIGHT_DIR = (0.45, 0.85, 0.35)
LIGHT_DIR_FLAT = (0.30, 0.40, 0.87)
LINK_COLOR = (0.92, 0.92, 0.95, 0.85)
#: The ways glow can show (`Renderer.glow_style`; shaders/instanced.frag).
GLOW_STYLES = ("fill", "rim", "heat")
#: Width in pixels of the halo around glowing nodes, and of the glowing lines.
HALO_PX = 4.0
GLOW_LINE_PX = 5.0
#: Above this many glowing nodes (or lit lines) the halos (or the lit lines) are left out:
#: a crowd of them reads as noise and costs a second pass over every instance.
GLOW_EXTRAS_MAX = 5000
FLAT_KINDS = ("disk", "rect")


class Renderer:
    """GPU state for one scene.

    Parameters
    ----------
    ctx : moderngl.Context
    scene : viewer.scene.scene.Scene
        Its graph must have been updated once (world matrices current) before this is built.
    """

    def __init__(self, ctx: moderngl.Context, scene):
        self.ctx = ctx
        self.scene = scene
        self.graph = scene.graph
        self.show_grid = True
        self.show_links = True
        self.show_axes = True
        #: Draw plain colours without lighting (pixel tests, the bench baseline).
        self.unlit = False
        #: How glow shows (`GLOW_STYLES`): "fill" tints the node, "rim" lights its
        #: outline and keeps its colour, "heat" colours every node by its highlight value
        #: read as heat in [0, 1] (the overlay's heat view).
        self.glow_style = "fill"
        #: Selected node id (outlined), or None.
        self.selected: int | None = None
        self.programs = {
            name: load_program(ctx, name)
            for name in ("instanced", "lines", "links", "grid", "background")
        }
        self.meshes: dict[str, meshes.GpuMesh] = {}
        for kind in meshes.BUILDERS:
            self.meshes[kind] = meshes.GpuMesh(ctx, meshes.builtin(kind))
        for key, (pos, nrm, idx) in scene.mesh_data.items():
            self.meshes[key] = meshes.GpuMesh(ctx, meshes.from_arrays(pos, nrm, idx))
        self.instances = Instances(ctx, list(self.meshes))
        self.backdrop = Backdrop(ctx, self.programs["background"], self.programs["grid"])
        self._outline_buf = ctx.buffer(reserve=24 * 7 * 4, dynamic=True)
        self._outline_vao = ctx.vertex_array(
            self.programs["lines"], [(self._outline_buf, "3f 4f", "in_position", "in_color")]
        )
        self._outline_key: tuple | None = None
        self._axes_vao = self._axes_buf = None
        self._glowing = 0  # instances with a non-zero highlight (skip the halo pass if 0)
        self._glow_links = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
        self._ribbon_buf = ctx.buffer(reserve=6 * 7 * 4 * 64, dynamic=True)
        self._ribbon_vao = ctx.vertex_array(
            self.programs["lines"], [(self._ribbon_buf, "3f 4f", "in_position", "in_color")]
        )
        self.rebuild()

    # -- data ------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Re-create all instance data (after structural edits or look changes)."""
        self.instances.build(self.graph, self.scene.look, self.graph.world_matrices())
        inst = self.instances
        self._glowing = int(np.count_nonzero(inst.highlight[inst.kind_of >= 0]))
        self._make_vaos()
        self._make_grid()

    def sync(self, report) -> int:
        """Upload what `report` (a FrameReport) says was executed; return bytes written.

        Structural changes since the last build (nodes added, removed, re-parented) trigger
        a full rebuild instead.
        """
        if self.instances.structure_changed(self.graph, report):
            self.rebuild()
            return self.instances.bytes_last
        return self.instances.sync(report.executed, self.graph.world_matrices())

    def set_highlight(self, ids, values) -> int:
        """Per-node glow values in [-1, 1]; returns bytes written.

        The magnitude is the strength (0 = none, 1 = full), the sign the colour: negative
        glows red (`GLOW_LOCAL`, the node's own value changed), positive orange
        (`GLOW_WORLD`, only its world matrix was recomputed). A glowing node is drawn in
        its glow colour, emissive, with a halo of `HALO_PX` pixels around it.
        """
        inst = self.instances
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        drawn = np.unique(ids[inst.kind_of[ids] >= 0])
        before = int(np.count_nonzero(inst.highlight[drawn]))
        written = inst.set_highlight(ids, values)
        self._glowing += int(np.count_nonzero(inst.highlight[drawn])) - before
        return written

    def set_colors(self, ids, rgb) -> int:
        """Draw node `ids` in colour `rgb` from now on (until the next rebuild)."""
        return self.instances.set_colors(ids, rgb)

    def set_link_glow(self, child_ids, strengths) -> None:
        """Light the lines parent -> child of `child_ids` in the world glow colour, with
        opacity `strengths` (each in [0, 1]); replaces the previous set."""
        ids = np.asarray(child_ids, dtype=np.int64).reshape(-1)
        vals = np.broadcast_to(np.asarray(strengths, dtype=np.float32), ids.shape)
        self._glow_links = (ids, np.array(vals))

    @property
    def bytes_last(self) -> int:
        """Bytes uploaded by the last `sync()`."""
        return self.instances.bytes_last

    def _make_vaos(self) -> None:
        prog = self.programs["instanced"]
        for batch in self.instances.batches:
            mesh = self.meshes[batch.kind]
            batch.vao = self.ctx.vertex_array(
                prog,
                [
                    (mesh.vbo, meshes.VERTEX_FORMAT, *meshes.VERTEX_ATTRS),
                    (batch.matrices, "16f/i", "in_world"),
                    (batch.looks, "3f 3f/i", "in_color", "in_size"),
                    (batch.highlights, "1f/i", "in_highlight"),
                ],
                index_buffer=mesh.ibo,
                index_element_size=4,
            )
        if getattr(self, "_links_vao", None) is not None:
            self._links_vao.release()
        self._links_vao = self.ctx.vertex_array(
            self.programs["links"],
            [(self.instances.origins, "3f", "in_position")],
            index_buffer=self.instances.links,
            index_element_size=4,
        )

    # -- geometry helpers ------------------------------------------------------------------
    def is_flat(self) -> bool:
        """A 2D scene: every drawn node is a disk or a rectangle (grid goes in the XY plane)."""
        kinds = {b.kind for b in self.instances.batches}
        return bool(kinds) and kinds <= set(FLAT_KINDS)

    def node_boxes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(ids [n], worlds [n, 4, 4], lo [n, 3], hi [n, 3]) of every drawn node's box."""
        world = self.graph.world_matrices()
        ids, lo, hi = [], [], []
        for batch in self.instances.batches:
            mesh_lo, mesh_hi = self.meshes[batch.kind].bounds
            size = self.instances.sizes[batch.ids]
            ids.append(batch.ids)
            lo.append(mesh_lo * size)
            hi.append(mesh_hi * size)
        if not ids:
            empty = np.zeros((0, 3))
            return np.zeros(0, dtype=np.int64), np.zeros((0, 4, 4)), empty, empty
        all_ids = np.concatenate(ids)
        return all_ids, world[all_ids], np.vstack(lo), np.vstack(hi)

    def bounding_spheres(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World-space centres (n, 3) and radii (n,) of nodes as drawn (pivots: 0.15)."""
        ids = np.asarray(ids, dtype=np.int64)
        world = self.graph.world_matrices()[ids]
        inst = self.instances
        known = len(inst.sizes) > (ids.max() if len(ids) else -1)
        sizes = inst.sizes[ids] if known else np.ones((len(ids), 3))
        drawn = inst.kind_of[ids] >= 0 if known else np.ones(len(ids), bool)
        scale = np.linalg.norm(world[:, :3, :3], axis=1).max(axis=1)
        radii = np.where(drawn, 0.5 * np.linalg.norm(sizes, axis=1) * scale, 0.15)
        return world[:, :3, 3], radii

    def bounds(self) -> tuple[np.ndarray, float]:
        """Bounding sphere (centre [3], radius) of all nodes: boxes and pivot origins."""
        world = self.graph.world_matrices()
        alive = np.asarray(self.graph.alive_ids(), dtype=np.int64)
        if len(alive) == 0:
            return np.zeros(3), 1.0
        pts = [world[alive, :3, 3]]
        _, worlds, lo, hi = self.node_boxes()
        if len(worlds):
            corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
            for c in corners:
                local = np.where(c, hi, lo)
                pts.append(np.einsum("nij,nj->ni", worlds[:, :3, :3], local) + worlds[:, :3, 3])
        pts = np.vstack(pts)
        lo_all, hi_all = pts.min(axis=0), pts.max(axis=0)
        center = (lo_all + hi_all) / 2.0
        radius = float(np.linalg.norm(hi_all - lo_all) / 2.0)
        return center, max(radius, 0.5)

    def frame_camera(self, camera: Camera) -> None:
        """Aim `camera` at the whole scene."""
        center, radius = self.bounds()
        camera.extent = max(radius + float(np.linalg.norm(center)), self._grid_half)
        camera.frame(center, radius)

    def _make_grid(self) -> None:
        """Size the ground grid and the world axes to the scene."""
        center, radius = self.bounds()
        self._flat = self.is_flat()
        self.backdrop.set_grid(center, radius, self._flat)
        self._grid_half = self.backdrop.half
        if self._axes_vao is not None:
            self._axes_vao.release()
            self._axes_buf.release()
        length = self.backdrop.step * 2.0
        axes = []
        for axis, color in enumerate(((0.95, 0.3, 0.25), (0.4, 0.9, 0.35), (0.3, 0.5, 1.0))):
            end = np.zeros(3)
            end[axis] = length
            axes += [(0.0, 0.0, 0.0, *color, 1.0), (*end, *color, 1.0)]
        self._axes_buf = self.ctx.buffer(np.array(axes, dtype=np.float32).tobytes())
        self._axes_vao = self.ctx.vertex_array(
            self.programs["lines"], [(self._axes_buf, "3f 4f", "in_position", "in_color")]
        )

    # -- drawing ---------------------------------------------------------------------------
    def draw(self, fbo: moderngl.Framebuffer, camera: Camera, size: tuple[int, int]) -> None:
        """Draw the scene into `fbo` (whose viewport is `size` = (width, height))."""
        ctx = self.ctx
        vp = camera.view_projection(size).astype(np.float32)
        vp_bytes = np.ascontiguousarray(vp.T).tobytes()  # GLSL wants column-major
        self.backdrop.draw(fbo, size, vp_bytes, self.show_grid)  # colour, depth = 1, fbo bound

        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.CULL_FACE | moderngl.BLEND)
        prog = self.programs["instanced"]
        prog["u_view_proj"].write(vp_bytes)
        light = np.asarray(LIGHT_DIR_FLAT if self._flat else LIGHT_DIR)
        light = light / np.linalg.norm(light)
        prog["u_light_dir"].value = tuple(light)
        prog["u_eye"].value = tuple(camera.eye)
        prog["u_view_dir"].value = tuple(camera.forward)
        prog["u_ortho"].value = int(camera.projection == ORTHOGRAPHIC)
        prog["u_unlit"].value = int(self.unlit)
        prog["u_glow_local"].value = GLOW_LOCAL
        prog["u_glow_world"].value = GLOW_WORLD
        prog["u_viewport"].value = (float(size[0]), float(size[1]))
        prog["u_halo_px"].value = HALO_PX
        prog["u_glow_style"].value = GLOW_STYLES.index(self.glow_style)
        # Halos first, without depth: the scene drawn next covers all but their rims.
        if 0 < self._glowing <= GLOW_EXTRAS_MAX and self.glow_style != "heat":
            ctx.disable(moderngl.DEPTH_TEST)
            ctx.enable(moderngl.BLEND)
            ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
            prog["u_halo"].value = 1
            for batch in self.instances.batches:
                batch.vao.render(moderngl.TRIANGLES, instances=batch.count)
            ctx.enable(moderngl.DEPTH_TEST)
            ctx.disable(moderngl.BLEND)
        prog["u_halo"].value = 0
        for batch in self.instances.batches:
            batch.vao.render(moderngl.TRIANGLES, instances=batch.count)

        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        if self.show_links and self.instances.link_count:
            links = self.programs["links"]
            links["u_view_proj"].write(vp_bytes)
            links["u_color"].value = (*LINK_COLOR[:3], self.link_alpha())
            self._links_vao.render(moderngl.LINES, vertices=2 * self.instances.link_count)
        lines = self.programs["lines"]
        lines["u_view_proj"].write(vp_bytes)
        if self.show_links and 0 < len(self._glow_links[0]) <= GLOW_EXTRAS_MAX:
            n = self._write_ribbons(camera, size)
            if n:
                fbo.depth_mask = False
                self._ribbon_vao.render(moderngl.TRIANGLES, vertices=n)
                fbo.depth_mask = True
        if self.show_axes:
            self._axes_vao.render(moderngl.LINES)
        if self.selected is not None:
            n = self._write_outline(self.selected)
            if n:
                ctx.disable(moderngl.DEPTH_TEST)
                self._outline_vao.render(moderngl.LINES, vertices=n)
        ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)

    def _write_ribbons(self, camera: Camera, size: tuple[int, int]) -> int:
        """Write the glowing parent -> child lines as camera-facing strips of
        `GLOW_LINE_PX` pixels (GL lines wider than 1 pixel are not portable); return the
        vertex count."""
        ids, strength = self._glow_links
        parents = np.asarray(self.graph.parents(), dtype=np.int64)
        ok = ids < len(parents)
        ids, strength = ids[ok], strength[ok]
        par = parents[ids]
        ok = par >= 0
        ids, par, strength = ids[ok], par[ok], strength[ok]
        if len(ids) == 0:
            return 0
        world = self.graph.world_matrices()
        a, b = world[par, :3, 3], world[ids, :3, 3]
        to_eye = (
            np.broadcast_to(-camera.forward, a.shape)
            if camera.projection == ORTHOGRAPHIC
            else camera.eye[None, :] - (a + b) / 2.0
        )
        side = np.cross(b - a, to_eye)
        norm = np.linalg.norm(side, axis=1, keepdims=True)
        side = np.divide(side, norm, out=np.zeros_like(side), where=norm > 1e-12)
        half = 0.5 * GLOW_LINE_PX
        wa = camera.pixel_size(a, size)[:, None] * half
        wb = camera.pixel_size(b, size)[:, None] * half
        corners = [a - side * wa, a + side * wa, b + side * wb, b - side * wb]
        quads = np.stack([corners[i] for i in (0, 1, 2, 0, 2, 3)], axis=1)  # [k, 6, 3]
        color = np.empty((len(ids), 6, 4), dtype=np.float32)
        color[:, :, :3] = GLOW_WORLD
        color[:, :, 3] = np.clip(strength, 0.0, 1.0)[:, None]
        data = np.concatenate([quads.astype(np.float32), color], axis=2)
        raw = np.ascontiguousarray(data).tobytes()
        if len(raw) > self._ribbon_buf.size:
            self._ribbon_buf.orphan(len(raw))
        self._ribbon_buf.write(raw)
        return 6 * len(ids)

    def link_alpha(self) -> float:
        """Opacity of the parent-child lines: full up to 1,000 lines, fainter beyond, so
        that a big tree's lines do not hide its nodes."""
        n = max(self.instances.link_count, 1)
        return float(LINK_COLOR[3] * min(1.0, max(0.3, (1000.0 / n) ** 0.5)))

    def _write_outline(self, node_id: int) -> int:
        """Write the 12 edges of the selected node's box; return the vertex count."""
        if not (0 <= node_id < len(self.instances.kind_of)):
            return 0
        b = int(self.instances.kind_of[node_id])
        world = self.graph.world_matrices()[node_id]
        if b < 0:  # a pivot: outline a small box around its origin
            lo, hi = np.full(3, -0.15), np.full(3, 0.15)
        else:
            mesh_lo, mesh_hi = self.meshes[self.instances.batches[b].kind].bounds
            size = self.instances.sizes[node_id]
            lo, hi = mesh_lo * size, mesh_hi * size
            pad = 0.04 * np.max(hi - lo)
            lo, hi = lo - pad, hi + pad
        corners = np.array(
            [
                [(lo, hi)[x][0], (lo, hi)[y][1], (lo, hi)[z][2]]
                for x in (0, 1)
                for y in (0, 1)
                for z in (0, 1)
            ]
        )
        pts = corners @ world[:3, :3].T + world[:3, 3]
        key = (node_id, pts.tobytes())
        if key == self._outline_key:
            return 48
        self._outline_key = key
        edges = [(a, a | bit) for a in range(8) for bit in (1, 2, 4) if not a & bit]
        verts = [(*pts[i], *SELECTION_COLOR) for e in edges for i in e]
        self._outline_buf.write(np.array(verts, dtype=np.float32).tobytes())
        return len(verts)

    def release(self) -> None:
        self._ribbon_vao.release()
        self._ribbon_buf.release()
        self.backdrop.release()
        self.instances.release()
        for mesh in self.meshes.values():
            mesh.release()
