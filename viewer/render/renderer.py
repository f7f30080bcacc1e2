"""Draws a `Scene`: instanced meshes, ground grid, world axes, parent -> child lines,
skinned meshes with their joints on top, and the glow of what each frame recomputed.

World matrices come from the core's `world_matrices()`; after the first build only the
pre-order ranges a frame report carries are uploaded (`sync`: runs, or one staged write
scattered on the GPU, `scatter.py`), with each recomputed node's stamp (`glow.py`), from
which the shader draws the glow. `draw(view, camera)` draws one `FrameView` (what the app
extracted for this redraw, `frame_view.py`) and reads nothing else of the scene's state;
the nodes' shapes (picking, framing, names) are `scene_bounds.SceneBounds`, without GL.
The renderer is the glow's one owner and the only writer of GPU buffers. It composes
transforms only where drawing needs them: a mesh's size into its model matrix (in the
shader), skin joint matrices (`skins.py`), camera-facing strips and disks. One instanced
draw per mesh kind: the glTF meshes with the node program of the scene's material
features, the built-in meshes (and every sprite) with the same shaders less the glTF
shading (``BUILTIN_ONLY``), which a software rasteriser such as llvmpipe would otherwise
run through for every fragment (both sides of every branch): on llvmpipe the built-in
meshes' pass is about 4x faster with it (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import moderngl
import numpy as np
import numpy.typing as npt

from viewer.content import meshes
from viewer.content.scene import Scene
from viewer.materials import variant_names, with_variant
from viewer.scene.report import FrameReport

from .backdrop import Backdrop, axis_lines
from .camera import Camera
from .culling import InstanceCuller
from .frame_view import GLOW_STYLES, FrameView, PendingMarks
from .glow import Glow
from .glow_marks import LitFrame
from .gpu_instancing import NodeInstances
from .gpu_mesh import GpuMesh, upload_scene_meshes
from .instances import Batch, Instances, instanced_vao
from .joints import JointMarkers
from .lights import Lighting
from .material_uniforms import program_defines
from .morph import MorphMeshes
from .node_uniforms import node_uniforms, set_each
from .outline import SelectionOutline
from .quiet import QuietNodes
from .ribbons import GlowRibbons
from .scatter import RowScatter
from .scene_bounds import SceneBounds
from .shaders import load_program, uniform
from .skins import SkinRenderer
from .surface_pass import SurfacePass
from .vertices import ColoredVertices

__all__ = ["GLOW_STYLES", "LINK_COLOR", "NodeIds", "Renderer"]

#: Node ids as the renderer's callers hand them: a list (e.g. sorted ids) or an integer
#: array.
NodeIds: TypeAlias = Sequence[int] | npt.NDArray[np.integer]

LINK_COLOR = (0.92, 0.92, 0.95, 0.85)
#: Above this many glowing nodes (or lit lines) the halos (or the lit lines) are left out:
#: a crowd of them reads as noise and costs a second pass over every instance.
GLOW_EXTRAS_MAX = 5000
#: Above this many nodes changing their pending look, every stamp is rewritten in one
#: write per batch rather than one write per node.
PENDING_WRITES_MAX = 256


class Renderer:
    """GPU state for one scene.

    Parameters
    ----------
    ctx : moderngl.Context
    scene : viewer.content.scene.Scene
        Its graph must have been updated once (world matrices current) before this is built.
    look : lights.Lighting, optional
        Light, exposure and tone mapping of glTF materials (fixed for the renderer's life:
        it shapes the environment's textures); by default the reference viewers' look.
    bounds : SceneBounds, optional
        The scene's shapes (the app's, which picking and framing use too); by default
        made here.
    """

    #: The parent -> child lines' index buffer and vertex array (made by `_make_vaos`).
    _links: moderngl.Buffer
    _links_vao: moderngl.VertexArray

    def __init__(
        self,
        ctx: moderngl.Context,
        scene: Scene,
        look: Lighting | None = None,
        bounds: SceneBounds | None = None,
    ) -> None:
        self.ctx = ctx
        #: Light, exposure and tone mapping of glTF materials (`lights.Lighting`).
        self.look = look or Lighting()
        self.scene = scene
        self.graph = scene.graph
        #: Each node's shape and the scene's extent (no GL; rebuilt with the buffers).
        self.bounds = bounds if bounds is not None else SceneBounds(scene)
        #: When each node was recomputed and why: the glow's one owner (`glow.py`).
        self.glow = Glow()
        #: The material features the scene's glTF materials need: the node program is
        #: compiled with them (one program per feature set, `program_defines`).
        self.features = program_defines(scene.surfaces.values())
        self.programs = {
            name: load_program(ctx, name, defines=self.features if name == "instanced" else ())
            for name in ("instanced", "lines", "links", "grid", "background")
        }
        #: The built-in meshes' node program (see the module notes), and the sprites' (the
        #: same, casting each box or sphere per pixel: `culling.py`).
        self.programs["builtin"] = load_program(ctx, "instanced", defines=("BUILTIN_ONLY",))
        self.programs["sprite"] = load_program(ctx, "instanced", defines=("BUILTIN_ONLY", "SPRITE"))
        self.meshes: dict[str, GpuMesh] = {}
        for kind in meshes.BUILDERS:
            self.meshes[kind] = GpuMesh(ctx, meshes.builtin(kind))
        surfaces, geometry = scene.surfaces, scene.geometry
        upload_scene_meshes(ctx, scene, self.meshes)
        self.surface_pass = SurfacePass(ctx, dict(surfaces))  # (plus the morphed copies)
        self.morphs = MorphMeshes(ctx, geometry, self.meshes)  # adds the morphed copies
        for kind, base in self.morphs.copies().items():  # drawn with their mesh's materials
            if base in surfaces:
                self.surface_pass.surfaces[kind] = surfaces[base]
        self.gpu_instances = NodeInstances(ctx, geometry, self.meshes, self.morphs.kind_of)
        self.scatter = RowScatter(ctx)  # spread-out frames' uploads, with compute shaders
        self.instances = Instances(ctx, list(self.meshes), self.scatter)
        #: Frustum culling and level of detail of the big batches, on the GPU.
        self.culler = InstanceCuller(
            ctx, self.programs["instanced"], self.programs["builtin"], self.programs["sprite"]
        )
        #: Lay down the glTF-material parts' depth first, then shade only the nearest
        #: (`SurfacePass.draw_opaque`); off: slower on llvmpipe, unmeasured on a GPU.
        self.depth_prepass = False
        skinning = scene.skinning
        self.skins = (
            SkinRenderer(ctx, skinning, scene.mesh_data, surfaces, geometry) if skinning else None
        )
        if self.skins is not None:  # morphed skinned meshes: morphed, then skinned
            self.morphs.retarget(self.skins.vertex_buffers())
        self.backdrop = Backdrop(ctx, self.programs["background"], self.programs["grid"])
        self.outline = SelectionOutline(ctx, self.programs["lines"])
        self._axes = ColoredVertices(ctx, self.programs["lines"], 24)
        self.ribbons = GlowRibbons(ctx)
        #: The joints of skins, drawn over their meshes (with the lines, `show_links`, and
        #: `show_joints`).
        self.joints = (
            JointMarkers(
                ctx, self.programs["lines"], skinning, scene.mesh_data, self.graph.world_matrices()
            )
            if skinning
            else None
        )
        #: Counts the uploads that moved what is drawn (a sync that wrote, a rebuild):
        #: what is placed over the picture (names) is placed again only when it changed.
        self.version = 0
        #: Counts the writes to the instance rows (matrices, stamps, looks): the cull is
        #: run again only when they, the view or the viewport changed.
        self.rows_edition = 0
        #: The marks `show_pending` last drew, and the ids it drew.
        self._pending_at: PendingMarks | None = None
        self._pending_ids = np.zeros(0, dtype=np.int64)
        self.rebuild()
        self._bytes_last = self.instances.bytes_last

    # -- data ------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Re-create all instance data (after structural edits or look changes, or a live
        stage's new meshes and GPU instances)."""
        self.version += 1
        self.rows_edition += 1
        self._take_new_meshes()
        self._instancing = self.scene.geometry.instancing_version
        world = self.graph.world_matrices()
        self.bounds.refresh()
        self.instances.build(self.graph, self.bounds, world, self.glow)
        self.glow.count_drawn(self.instances.kind_of >= 0)  # the halos' count
        self.gpu_instances.build(world, self.glow, self.instances.order)
        self.morphs.sync(force=True)
        self._find_quiet()
        self._make_vaos()
        self.culler.build(
            self._batches(), self.meshes, self.surface_pass.surfaces, whole=self.morphs.copies()
        )
        self._make_grid()
        if self.skins is not None:
            self.skins.upload_all(self.graph.world_matrices())

    def _take_new_meshes(self) -> None:
        """Upload the meshes a live stage read since the last build (with materials)."""
        for key in upload_scene_meshes(self.ctx, self.scene, self.meshes):
            self.instances.kinds.append(key)
            if key in self.scene.surfaces:
                self.surface_pass.surfaces[key] = self.scene.surfaces[key]

    def sync(self, report: FrameReport, dt: float = 0.0) -> int:
        """Let `dt` seconds of simulation pass for the glow, stamp what `report` (a
        FrameReport) recomputed and upload its ranges; return the bytes written.

        Structural changes since the last build (nodes added, removed, re-parented; GPU
        instances added, removed or resized, `Geometry.replace_instanced`) trigger a full
        rebuild instead.
        """
        self.glow.record(report, self.graph.parents(), dt)
        instancing = self.scene.geometry.instancing_version != self._instancing
        if instancing or self.instances.structure_changed(self.graph, report):
            self.rebuild()
            self._bytes_last = self.instances.bytes_last + self.gpu_instances.bytes_last
            return self._bytes_last
        world = self.graph.world_matrices()
        written = self.instances.sync(
            report.starts, report.ends, world, self.glow, report.world_updated
        )
        written += self.gpu_instances.sync(report.starts, report.ends, world, self.glow)
        written += self.morphs.sync()  # nodes whose morph weights changed
        if self.skins is not None:  # joint matrices of the skins whose joints moved
            written += self.skins.sync(report.executed, world)
        self.version += written > 0
        self.rows_edition += written > 0
        self._bytes_last = written
        return written

    def restart(self) -> None:
        """The scene went back to frame 0 (its start pose is in the graph, updated): every
        node's matrix uploaded again with no glow, as at launch (what the restart put back
        was no frame's work, and the tree shows no frame yet)."""
        self.glow.forget()
        self._pending_at, self._pending_ids = None, np.zeros(0, dtype=np.int64)
        self.rebuild()

    def light(self, ids: NodeIds) -> int:
        """Light nodes `ids` red in the frame just synced though no matrix of theirs moved
        (a change of their own the report cannot list: morph weights, GPU instance
        matrices, which are rewritten here); returns bytes."""
        self.glow.light(ids)
        self.rows_edition += 1
        written = self.instances.write_stamps_of(ids, self.glow)
        written += self.gpu_instances.repose(ids, self.graph.world_matrices())
        return written + self.gpu_instances.write_stamps(self.glow, ids)

    def show_still(self, report: LitFrame | None, parents: npt.NDArray[np.int64]) -> int:
        """Show `report` (a frame picked on the timeline) at full strength, or the live
        glow again with None; returns the bytes written (every row's stamp)."""
        self.glow.set_still(report, parents)
        self.rows_edition += 1
        return self.instances.write_stamps(self.glow) + self.gpu_instances.write_stamps(self.glow)

    def show_pending(self, marks: PendingMarks) -> int:
        """Draw the nodes marked and not yet executed (a touch or an edit while paused) in
        the glow's pending look (the marks stay for the step to execute); returns the
        bytes written (none while the marks are those last drawn)."""
        if marks is self._pending_at:
            return 0
        self._pending_at = marks
        if marks.empty and self._pending_ids.size == 0:
            return 0  # nothing marked now, nothing drawn as marked: the usual frame
        self.glow.set_pending(marks.own, marks.followed)
        self.rows_edition += 1
        # Rewrite what was drawn as marked and what is marked now (an id twice is
        # written twice: cheaper than sorting them).
        ids = np.concatenate([self._pending_ids, self.glow.pending])
        self._pending_ids = self.glow.pending
        if ids.size > PENDING_WRITES_MAX:
            return self.instances.write_stamps(self.glow)
        return self.instances.write_stamps_of(ids, self.glow)

    def set_colors(self, ids: NodeIds, rgb: Sequence[float] | npt.NDArray[np.floating]) -> int:
        """Draw node `ids` in colour `rgb` (one [3] or [k, 3] in 0..1) from now on (until
        the next rebuild); returns the bytes written."""
        self.rows_edition += 1
        return self.instances.set_colors(ids, rgb)

    @property
    def variant_names(self) -> list[str]:
        """The scene's KHR_materials_variants names, in file order (none: empty)."""
        return variant_names(self.scene.surfaces)

    @property
    def variant(self) -> str | None:
        """The material variant drawn (None: the files' default materials)."""
        return next((s.variant for s in self.scene.surfaces.values() if s.variant), None)

    def set_variant(self, name: str | None) -> None:
        """Draw every glTF part in its material for variant `name` (None: the files'
        defaults); the parts it maps no material keep their default. The node program
        already holds the variants' shader features (`program_defines`)."""
        if name is not None and name not in self.variant_names:
            raise ValueError(f"no material variant {name!r} in the scene")
        surfaces = self.scene.surfaces  # the skins draw from this dict too
        for key, surface in surfaces.items():
            surfaces[key] = with_variant(surface, name)
            if key in self.surface_pass.surfaces:
                self.surface_pass.surfaces[key] = surfaces[key]
        for kind, base in self.morphs.copies().items():
            if base in surfaces:
                self.surface_pass.surfaces[kind] = surfaces[base]
        self.rebuild()  # the culled batches keep their parts

    @property
    def bytes_last(self) -> int:
        """Bytes uploaded by the last `sync()`: matrices, stamps, line ends, skins."""
        return self._bytes_last

    def _batches(self) -> list[Batch]:
        """Every instance batch drawn by the node pass: one per mesh kind, one per
        GPU-instanced node."""
        return [*self.instances.batches, *self.gpu_instances.batches]

    def _find_quiet(self) -> None:
        """`quiet`: the nodes whose subtree draws nothing, and the lines' order (a
        GPU-instanced node draws its instances)."""
        drawn = [np.flatnonzero(self.instances.kind_of >= 0)]
        drawn.append(np.array([item.node for item in self.gpu_instances.items], np.int64))
        if self.scene.skinning is not None:
            drawn.append(np.array([m.node for m in self.scene.skinning.meshes], np.int64))
        if self.joints is not None:
            drawn.append(self.joints.joints)
        self.quiet = QuietNodes(self.graph, np.concatenate(drawn))

    def speaks(self, ids: NodeIds, everyone: bool = False) -> npt.NDArray[np.bool_]:
        """Which of nodes `ids` get a name and a line (`quiet.py`; `everyone`: all)."""
        return self.quiet.speaks(ids, everyone)

    def node_program(self, kind: str) -> moderngl.Program:
        """The node program that draws mesh kind `kind`: with the glTF shading where it
        has glTF materials, the built-in meshes' program where not."""
        if kind in self.surface_pass.surfaces:
            return self.programs["instanced"]
        return self.programs["builtin"]

    def _make_vaos(self) -> None:
        for batch in self._batches():
            mesh = self.meshes[batch.kind]
            batch.vao = instanced_vao(
                self.ctx,
                self.node_program(batch.kind),
                mesh,
                batch.matrices,
                batch.looks,
                batch.stamps,
            )
        if getattr(self, "_links_vao", None) is not None:
            self._links_vao.release()
            self._links.release()
        # The lines' (parent, child) ids, quiet children last, as the instance rows'
        # pre-order slots (the origins and line stamps are laid out by slot).
        inst = self.instances
        slot_of = np.full(len(self.graph.parents()), -1, dtype=np.int64)
        slot_of[inst.order] = np.arange(len(inst.order))
        pairs = slot_of[self.quiet.pairs.astype(np.int64)].astype(np.uint32)
        origins, link_times = inst.origins, inst.link_times
        if origins is None or link_times is None:
            raise RuntimeError("the instance buffers are built before the lines' arrays")
        self._links = self.ctx.buffer(pairs.tobytes() if len(pairs) else b"\0" * 8)
        self.ribbons.bind(origins, link_times, self._links)
        self._links_vao = self.ctx.vertex_array(
            self.programs["links"],
            [(origins, "3f", "in_position")],
            index_buffer=self._links,
            index_element_size=4,
        )

    def _make_grid(self) -> None:
        """Size the ground grid and the world axes to the scene."""
        center, radius = self.bounds.sphere()
        self._flat = self.bounds.is_flat()
        self.backdrop.set_grid(center, radius, self._flat)
        self._axes.write(*axis_lines(self.bounds.extremes(), self.backdrop.step, self._flat))

    # -- drawing ---------------------------------------------------------------------------
    def draw(self, view: FrameView, camera: Camera) -> None:
        """Draw `view` (one redraw's matrices, marks, selection and settings: see
        `frame_view.py`) into its framebuffer as seen by `camera`. Drawing reads nothing
        but the view: the matrices as stored, never brought up to date, and what is
        marked but not yet executed in the pending look."""
        ctx, fbo, size, settings = self.ctx, view.fbo, view.size, view.settings
        self.glow.fade = settings.glow_fade  # the fade the view is drawn with
        self.show_pending(view.pending)
        vp = camera.view_projection(size).astype(np.float32)
        vp_bytes = np.ascontiguousarray(vp.T).tobytes()  # GLSL wants column-major
        self.backdrop.draw(fbo, size, vp_bytes, settings.show_grid)  # colour, depth = 1

        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.CULL_FACE | moderngl.BLEND)
        prog = self.programs["instanced"]
        # The glTF program is set up only where it draws: a scene of built-in meshes skips
        # its lights, environment and uniforms every redraw.
        gltf = bool(self.surface_pass.surfaces) or self.skins is not None
        node_programs = (prog,) * gltf + (self.programs["builtin"], self.programs["sprite"])
        clock = self.glow.uniforms()
        glow_on, style = settings.glow_on, settings.glow_style
        for each in node_programs:
            node_uniforms(
                each,
                camera,
                size,
                vp_bytes,
                flat=self._flat,
                unlit=settings.unlit,
                glow_style=GLOW_STYLES.index(style),
                glow_on=glow_on,
                clock=clock,
            )
        lit = glow_on and style != "heat"
        glowing = self.glow.glowing_count() if lit else 0
        world = view.world
        if gltf:
            self.surface_pass.begin(
                prog, self.scene.lights, world, uniform(prog, "u_light_dir").value, self.look
            )
        set_each(node_programs, "u_only", -1)
        self.culler.cull(vp, size, edition=self.rows_edition)
        batches = self.culler.batches(self._batches())  # the culled ones' rows in view
        # Halos first, without depth: the scene drawn next covers all but their rims.
        if 0 < glowing <= GLOW_EXTRAS_MAX:
            ctx.disable(moderngl.DEPTH_TEST)
            ctx.enable(moderngl.BLEND)
            ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
            set_each(node_programs, "u_halo", 1)
            for batch in batches:
                self.meshes[batch.kind].render(batch.vao, batch.count)
            ctx.enable(moderngl.DEPTH_TEST)
            ctx.disable(moderngl.BLEND)
        set_each(node_programs, "u_halo", 0)
        self.surface_pass.draw_opaque(fbo, prog, batches, self.depth_prepass)
        marked = glowing + len(self._pending_ids)  # how wide a glowing sprite is drawn
        self.culler.draw_sprites(self.surface_pass.materials, vp, size, marked)
        if self.skins is not None:
            self.skins.draw(prog, vp_bytes, self.surface_pass.materials, self.glow)
        self._draw_blended(view, prog, camera)

        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        everyone = settings.show_quiet
        lines_shown = self.quiet.line_count(everyone)
        if settings.show_links and lines_shown:
            links = self.programs["links"]
            uniform(links, "u_view_proj").write(vp_bytes)
            uniform(links, "u_color").value = (*LINK_COLOR[:3], self.link_alpha(everyone))
            self._links_vao.render(moderngl.LINES, vertices=2 * lines_shown)
        lines = self.programs["lines"]
        uniform(lines, "u_view_proj").write(vp_bytes)
        if lit and settings.show_links and 0 < self.glow.lit_line_count() <= GLOW_EXTRAS_MAX:
            self.ribbons.draw(fbo, vp_bytes, size, clock, lines_shown)
        if settings.show_joints and settings.show_links and self.joints is not None:
            glow = self.glow.signed(self.joints.joints) if lit else None  # over skins
            self.joints.draw(world, view.parents, glow, camera, size)
        if settings.show_axes:
            self._axes.render(moderngl.LINES)
        if view.selection_box is not None:
            self.outline.draw(ctx, *view.selection_box)
        ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)

    def _draw_blended(self, view: FrameView, prog: moderngl.Program, camera: Camera) -> None:
        """The blended (BLEND) glTF parts, back to front: only the batches that have
        such parts are placed and sorted (none: nothing to do)."""
        blends = self.surface_pass.blends
        placed = [
            *self.instances.placed(view.world, blends),
            *self.gpu_instances.placed(view.world, blends),
        ]
        self.surface_pass.draw_blended(view.fbo, prog, camera, placed, self.skins)

    def link_alpha(self, everyone: bool = False) -> float:
        """Opacity of the parent-child lines (`everyone`: those to quiet nodes too): full
        up to 1,000 lines, fainter beyond, so that a big tree's lines do not hide its
        nodes."""
        n = max(self.quiet.line_count(everyone), 1)
        return float(LINK_COLOR[3] * min(1.0, max(0.3, (1000.0 / n) ** 0.5)))

    def release(self) -> None:
        self._links_vao.release()
        self._links.release()
        self.outline.release()
        self._axes.release()
        self.ribbons.release()
        if self.joints is not None:
            self.joints.release()
        if self.skins is not None:
            self.skins.release()
        self.surface_pass.release()
        self.backdrop.release()
        self.culler.release()
        self.instances.release()
        self.gpu_instances.release()
        self.scatter.release()
        self.morphs.release()
        for mesh in self.meshes.values():
            mesh.release()
