"""Draws a `Scene`: instanced meshes, ground grid, world axes, parent -> child lines,
skinned meshes with their joints on top, and the glow of what each frame recomputed.

World matrices come from the core's `world_matrices()`; after the first build only the
pre-order ranges a frame report carries are uploaded (`sync`), with each recomputed
node's stamp (`glow.py`), from which the shader draws the glow. The renderer is the
glow's one owner and the only writer of GPU buffers. It composes transforms only where
drawing needs them: a mesh's size into its model matrix (in the shader), skin joint
matrices (`skins.py`), camera-facing strips and disks. One instanced draw per mesh kind.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.content import meshes

from .backdrop import Backdrop, axis_lines
from .camera import Camera
from .glow import STAMP_FORMAT, Glow
from .gpu_instancing import NodeInstances
from .gpu_mesh import GpuMesh
from .instances import Instances
from .joints import JointMarkers
from .lights import light_uniforms
from .morph import MorphMeshes
from .node_bounds import label_spheres, node_boxes, pivot_half, selection_box, sphere_around
from .node_uniforms import node_uniforms
from .outline import SelectionOutline, box_corners
from .pose_bounds import clip_corners
from .quiet import QuietNodes
from .ribbons import GlowRibbons
from .shaders import load_program
from .skins import SkinRenderer
from .surface_pass import SurfacePass
from .vertices import ColoredVertices

LINK_COLOR = (0.92, 0.92, 0.95, 0.85)
#: The world axes at the origin: X red, Y green, Z blue.
#: The ways glow can show (`Renderer.glow_style`; shaders/instanced.frag).
GLOW_STYLES = ("fill", "rim", "heat")
#: Above this many glowing nodes (or lit lines) the halos (or the lit lines) are left out:
#: a crowd of them reads as noise and costs a second pass over every instance.
GLOW_EXTRAS_MAX = 5000
FLAT_KINDS = ("disk", "rect")
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
    """

    def __init__(self, ctx: moderngl.Context, scene):
        self.ctx = ctx
        self.scene = scene
        self.graph = scene.graph
        self.show_grid = True
        self.show_links = True
        self.show_axes = True
        #: The joints of skins over their meshes (the app turns them off without overlay).
        self.show_joints = True
        #: Names and lines of the nodes whose subtree draws nothing (`quiet.py`); off by
        #: default, so that a file's cameras and lamps do not stick out of the model.
        self.show_quiet = False
        #: Draw plain colours without lighting (pixel tests, the bench baseline).
        self.unlit = False
        #: How glow shows (`GLOW_STYLES`): "fill" tints the node, "rim" lights its
        #: outline and keeps its colour, "heat" colours every node by its heat in [0, 1]
        #: (the overlay's heat view).
        self.glow_style = "fill"
        #: Show the glow at all (the overlay turns it on; off: every node plain).
        self.glow_on = False
        #: When each node was recomputed and why: the glow's one owner (`glow.py`).
        self.glow = Glow()
        self.programs = {
            name: load_program(ctx, name)
            for name in ("instanced", "lines", "links", "grid", "background")
        }
        self.meshes: dict[str, GpuMesh] = {}
        for kind in meshes.BUILDERS:
            self.meshes[kind] = GpuMesh(ctx, meshes.builtin(kind))
        surfaces, geometry = scene.surfaces, scene.geometry
        for key, (pos, nrm, idx) in scene.mesh_data.items():
            data = meshes.from_arrays(pos, nrm, idx, surfaces.get(key))
            data.lines, data.points = geometry.lines.get(key), geometry.points.get(key)
            self.meshes[key] = GpuMesh(ctx, data)
        self.surface_pass = SurfacePass(ctx, dict(surfaces))  # (plus the morphed copies)
        self.morphs = MorphMeshes(ctx, geometry, self.meshes)  # adds the morphed copies
        for kind, base in self.morphs.copies().items():  # drawn with their mesh's materials
            if base in surfaces:
                self.surface_pass.surfaces[kind] = surfaces[base]
        self.gpu_instances = NodeInstances(ctx, geometry, self.meshes, self.morphs.kind_of)
        self.instances = Instances(ctx, list(self.meshes))
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
        self._clip_box_of = None  # (clip, corners) for `_clip_box`
        #: The graph's edition whose marks `show_pending` last drew, and the ids it drew.
        self._pending_at: tuple | None = None
        self._pending_ids = np.zeros(0, dtype=np.int64)
        self.rebuild()
        self._bytes_last = self.instances.bytes_last

    # -- data ------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Re-create all instance data (after structural edits or look changes)."""
        world = self.graph.world_matrices()
        self.instances.build(self.graph, self._look_of, world, self.glow)
        self.gpu_instances.build(world, self.glow, self.instances.order)
        self.morphs.sync(self.meshes, force=True)
        self._find_quiet()
        self._make_vaos()
        self._make_grid()
        if self.skins is not None:
            self.skins.upload_all(self.graph.world_matrices())

    def sync(self, report, dt: float = 0.0) -> int:
        """Let `dt` seconds of simulation pass for the glow, stamp what `report` (a
        FrameReport) recomputed and upload its ranges; return the bytes written.

        Structural changes since the last build (nodes added, removed, re-parented) trigger
        a full rebuild instead.
        """
        self.glow.record(report, self.graph.parents(), dt)
        if self.instances.structure_changed(self.graph, report):
            self.rebuild()
            self._bytes_last = self.instances.bytes_last + self.gpu_instances.bytes_last
            return self._bytes_last
        world = self.graph.world_matrices()
        written = self.instances.sync(report.starts, report.ends, world, self.glow)
        written += self.gpu_instances.sync(report.starts, report.ends, world, self.glow)
        written += self.morphs.sync(self.meshes)  # nodes whose morph weights changed
        if self.skins is not None:  # joint matrices of the skins whose joints moved
            written += self.skins.sync(report.executed, world)
        self._bytes_last = written
        return written

    def light(self, ids) -> int:
        """Light nodes `ids` red in the frame just synced though no matrix of theirs moved
        (a change of their own the report cannot list: morph weights); returns bytes."""
        self.glow.light(ids)
        written = self.instances.write_stamps_of(ids, self.glow)
        return written + self.gpu_instances.write_stamps(self.glow, ids)

    def show_still(self, report, parents) -> int:
        """Show `report` (a frame picked on the timeline) at full strength, or the live
        glow again with None; returns the bytes written (every row's stamp)."""
        self.glow.set_still(report, parents)
        return self.instances.write_stamps(self.glow) + self.gpu_instances.write_stamps(self.glow)

    def show_pending(self) -> int:
        """Draw the nodes marked and not yet executed (a touch or an edit while paused) in
        the glow's pending look, read through the graph's read-only view (the marks stay
        for the step to execute); returns the bytes written (none while nothing changed)."""
        peek = self.graph.peek
        if peek.edition == self._pending_at:
            return 0
        self._pending_at = peek.edition
        if not peek.marked and self._pending_ids.size == 0:
            return 0  # nothing marked now, nothing drawn as marked: the usual frame
        own = followed = np.zeros(0, dtype=np.int64)
        if peek.marked:
            flags = peek.flags()
            own = np.flatnonzero(flags.local)
            followed = np.flatnonzero((flags.world | flags.execute) & ~flags.local)
        self.glow.set_pending(own, followed)
        # Rewrite what was drawn as marked and what is marked now (an id twice is
        # written twice: cheaper than sorting them).
        ids = np.concatenate([self._pending_ids, self.glow.pending])
        self._pending_ids = self.glow.pending
        if ids.size > PENDING_WRITES_MAX:
            return self.instances.write_stamps(self.glow)
        return self.instances.write_stamps_of(ids, self.glow)

    def set_colors(self, ids, rgb) -> int:
        """Draw node `ids` in colour `rgb` from now on (until the next rebuild)."""
        return self.instances.set_colors(ids, rgb)

    @property
    def bytes_last(self) -> int:
        """Bytes uploaded by the last `sync()`: matrices, stamps, line ends, skins."""
        return self._bytes_last

    def _look_of(self, node_id: int):
        """The node's look, with a morphed node's own morphed copy of its mesh."""
        look = self.scene.look(node_id)
        kind = self.morphs.kind_of.get(node_id)
        if kind is None or look.mesh == "none":  # (an instanced node: drawn by its instances)
            return look
        return type(look)(kind, look.size, look.color)

    def _batches(self) -> list:
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

    def speaks(self, ids) -> np.ndarray:
        """Which of nodes `ids` get a name and a line (`quiet.py`; all with `show_quiet`)."""
        return self.quiet.speaks(ids, self.show_quiet)

    def _make_vaos(self) -> None:
        prog = self.programs["instanced"]
        for batch in self._batches():
            mesh = self.meshes[batch.kind]
            batch.vao = self.ctx.vertex_array(
                prog,
                [
                    (mesh.vbo, meshes.VERTEX_FORMAT, *meshes.VERTEX_ATTRS),
                    (batch.matrices, "16f/i", "in_world"),
                    (batch.looks, "3f 3f/i", "in_color", "in_size"),
                    (batch.stamps, STAMP_FORMAT, "in_stamp"),
                ],
                index_buffer=mesh.ibo,
                index_element_size=4,
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
        self._links = self.ctx.buffer(pairs.tobytes() if len(pairs) else b"\0" * 8)
        self.ribbons.bind(inst.origins, inst.link_times, self._links)
        self._links_vao = self.ctx.vertex_array(
            self.programs["links"],
            [(self.instances.origins, "3f", "in_position")],
            index_buffer=self._links,
            index_element_size=4,
        )

    # -- geometry helpers ------------------------------------------------------------------
    def is_flat(self) -> bool:
        """A 2D scene: every drawn node is a disk or a rectangle (grid goes in the XY plane)."""
        kinds = {b.kind for b in self.instances.batches}
        return bool(kinds) and kinds <= set(FLAT_KINDS)

    def node_boxes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(ids [n], worlds [n, 4, 4], lo [n, 3], hi [n, 3]) of every drawn node's box."""
        world = self.graph.peek.world_matrices()
        boxes = node_boxes(self.instances, self.meshes, world)
        if not self.gpu_instances.items:
            return boxes
        extra = self.gpu_instances.boxes(world, self._bounds_of)
        return tuple(np.concatenate(pair) for pair in zip(boxes, extra, strict=True))

    def _bounds_of(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        return self.meshes[kind].bounds

    def bound_points(self) -> np.ndarray:
        """What must be seen of the scene, [m, 3]: the corners of every drawn node's box
        and the skinned meshes' posed vertices (never the origins of cameras, lights or
        empty nodes, which draw nothing; only a scene that draws nothing at all is framed
        on its nodes' origins), and the corners of the box around them at a few poses of
        the current animation clip (`pose_bounds`), so that a model framed at load stays
        in view as it plays."""
        return np.vstack([self._points_at(self.graph.world_matrices()), self._clip_box()])

    def _clip_box(self) -> np.ndarray:
        """The 8 corners of the box around `_points_at` the sampled poses of the current
        clip ([0, 3] without one), computed once per clip: sampling a big scene's clip
        costs a few tenths of a second, too much for every rebuild."""
        player = self.scene.animation
        clip = player.current if player is not None else None
        if self._clip_box_of is None or self._clip_box_of[0] is not clip:
            self._clip_box_of = (clip, clip_corners(self.scene, self._points_at))
        return self._clip_box_of[1]

    def _points_at(self, world: np.ndarray) -> np.ndarray:
        """`bound_points` for the world matrices `world` [N, 4, 4]."""
        _, worlds, lo, hi = node_boxes(self.instances, self.meshes, world)
        points = [box_corners(worlds, lo, hi).reshape(-1, 3)]
        if self.skins is not None:  # skinned vertices follow their joints, not their node
            points.append(self.skins.points(world))
        if self.gpu_instances.items:  # each instance's box, where its node puts it
            _, worlds, lo, hi = self.gpu_instances.boxes(world, self._bounds_of)
            points.append(box_corners(worlds, lo, hi).reshape(-1, 3))
        points = np.vstack(points)
        if len(points) == 0:  # nothing drawn: the nodes are all there is to see
            points = world[np.asarray(self.graph.alive_ids(), dtype=np.int64), :3, 3]
        return points

    def bounds(self) -> tuple[np.ndarray, float]:
        """Bounding sphere (centre [3], radius) of `bound_points`, at the scene's own scale
        (millimetres or kilometres alike); a scene of one point gets radius 0.5."""
        return sphere_around(self.bound_points())

    def bounding_spheres(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World-space spheres around nodes `ids` as drawn (centres [n, 3], radii [n]), for
        labels; see `node_bounds.label_spheres`."""
        world = self.graph.peek.world_matrices()  # as drawn: a watcher's read
        return label_spheres(self.instances, self.meshes, world, ids, self._pivot_half)

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
        self._pivot_half = pivot_half(radius)
        self._axes.write(*axis_lines(self.bound_points(), self.backdrop.step, self._flat))

    # -- drawing ---------------------------------------------------------------------------
    def draw(
        self,
        fbo: moderngl.Framebuffer,
        camera: Camera,
        size: tuple[int, int],
        *,
        selected: int | None = None,
    ) -> None:
        """Draw the scene into `fbo` (whose viewport is `size` = (width, height)), with a
        box around node `selected` when given. Drawing only watches the graph: it reads
        the matrices as stored (`SceneGraph.peek`), never brings them up to date, and
        shows what is marked but not yet executed (`show_pending`)."""
        ctx = self.ctx
        self.show_pending()
        vp = camera.view_projection(size).astype(np.float32)
        vp_bytes = np.ascontiguousarray(vp.T).tobytes()  # GLSL wants column-major
        self.backdrop.draw(fbo, size, vp_bytes, self.show_grid)  # colour, depth = 1, fbo bound

        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.CULL_FACE | moderngl.BLEND)
        prog = self.programs["instanced"]
        clock = self.glow.uniforms()
        node_uniforms(prog, camera, size, vp_bytes, flat=self._flat, unlit=self.unlit,
                      glow_style=GLOW_STYLES.index(self.glow_style), glow_on=self.glow_on,
                      clock=clock)  # fmt: skip
        lit = self.glow_on and self.glow_style != "heat"
        glowing = self._glowing_instances() if lit else 0
        world = self.graph.peek.world_matrices()
        self.surface_pass.materials.reset()
        light_uniforms(prog, self.scene.lights, world, prog["u_light_dir"].value)
        prog["u_only"].value = -1
        # Halos first, without depth: the scene drawn next covers all but their rims.
        if 0 < glowing <= GLOW_EXTRAS_MAX:
            ctx.disable(moderngl.DEPTH_TEST)
            ctx.enable(moderngl.BLEND)
            ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
            prog["u_halo"].value = 1
            for batch in self._batches():
                self.meshes[batch.kind].render(batch.vao, batch.count)
            ctx.enable(moderngl.DEPTH_TEST)
            ctx.disable(moderngl.BLEND)
        prog["u_halo"].value = 0
        for batch in self._batches():  # opaque and masked parts
            self.surface_pass.draw_batch(prog, batch)
        if self.skins is not None:
            self.skins.draw(prog, vp_bytes, self.surface_pass.materials, self.glow)
        placed = [*self.instances.placed(world), *self.gpu_instances.placed(world)]
        self.surface_pass.draw_blended(fbo, prog, camera, placed, self.skins)

        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        lines_shown = self.quiet.line_count(self.show_quiet)
        if self.show_links and lines_shown:
            links = self.programs["links"]
            links["u_view_proj"].write(vp_bytes)
            links["u_color"].value = (*LINK_COLOR[:3], self.link_alpha())
            self._links_vao.render(moderngl.LINES, vertices=2 * lines_shown)
        lines = self.programs["lines"]
        lines["u_view_proj"].write(vp_bytes)
        if lit and self.show_links and 0 < len(self.glow.links()[0]) <= GLOW_EXTRAS_MAX:
            self.ribbons.draw(fbo, vp_bytes, size, clock, lines_shown)
        if self.show_joints and self.show_links and self.joints is not None:  # over skins
            glow = self.glow.signed(self.joints.joints) if lit else None
            self.joints.draw(world, self.graph.parents(), glow, camera, size)
        if self.show_axes:
            self._axes.render(moderngl.LINES)
        box = None
        if selected is not None:
            box = selection_box(self.instances, self.meshes, world, selected, self._pivot_half)
        if box is not None:
            self.outline.draw(ctx, *box)
        ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)

    def _glowing_instances(self) -> int:
        """How many drawn nodes glow now (0: the halo pass is skipped)."""
        ids, _ = self.glow.glowing()
        inst = self.instances
        ids = ids[ids < len(inst.kind_of)]
        return int(np.count_nonzero(inst.kind_of[ids] >= 0))

    def link_alpha(self) -> float:
        """Opacity of the parent-child lines: full up to 1,000 lines, fainter beyond, so
        that a big tree's lines do not hide its nodes."""
        n = max(self.quiet.line_count(self.show_quiet), 1)
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
        self.instances.release()
        self.gpu_instances.release()
        self.morphs.release()
        for mesh in self.meshes.values():
            mesh.release()
