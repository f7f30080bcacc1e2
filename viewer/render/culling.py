"""Frustum culling and level of detail of the instance batches, on the GPU.

A big scene seen from close has most of its instances outside the view, and seen from far
most of them a few pixels wide; drawing each as its full mesh costs the GPU the same
either way. Each frame, before the node pass, a compute shader (shaders/
cull_instances.comp) reads every row of each big batch from the buffers the renderer
already keeps (`instances.Batch`: matrices, looks, stamps), tests the row's bounding
sphere against the six frustum planes, and copies the rows inside into the batch's
output rows, in their order (a prefix sum over the work groups' counts between two
phases, cull_finish.comp): first those drawn as the full mesh, then those under
`LOD_PX` pixels across, drawn as one point sprite each (shaders/instanced.vert,
``u_sprite``). A built-in box or sphere (`IMPOSTOR_SHAPES`) is a sprite up to
`IMPOSTOR_LOD_PX` pixels across, since its sprite is the mesh itself, cast per pixel
(shaders/instanced.frag, ``SPRITE``): the pixels its box or sphere covers, with their
faces' normals and depths, so it shows as its triangles would while costing one vertex
instead of 24 (on llvmpipe a drawn 100k-cube redraw is then several times faster; a
sprite under `IMPOSTOR_MIN_PX` is a flat square in the mean shading of the faces it
shows). The counts go into indirect draw commands on the GPU, so the CPU never waits for
them: the batch's draws go through `render_indirect` (`CulledBatch.vao` stands in for
the batch's vertex array). Sprites are shaded the built-in way whatever the
mesh, so they are drawn with the sprites' program (the renderer's ``sprite``: the
built-in meshes' shading, no glTF shading to run through, which a software rasteriser
pays for per fragment, and the cast).

A glowing or marked sprite is drawn at least `GLOW_SPRITE_PX` wide (less when a crowd
glows: `glow_sprite_px`), in its glow's colour: a touched subtree is seen among a
million nodes. Picking and framing do not
use this (they are `scene_bounds.py`, on the CPU). Batches under `CULL_MIN_ROWS` rows
are drawn as they are (three dispatches cost more than they save), so are those over
`CULL_MAX_ROWS` (more work groups than a dispatch may have), and so is every batch
without compute shaders (OpenGL below 4.3) or with `enabled` off: then everything is
drawn in full.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

import moderngl
import numpy as np

from .gpu_mesh import GpuMesh
from .instances import LOOK_BYTES, MATRIX_BYTES, Batch, instanced_vao
from .material_uniforms import MaterialBinder
from .shaders import has_compute, load_compute, set_uniform, uniform

__all__ = [
    "CULL_MIN_ROWS",
    "GLOW_SPRITE_PX",
    "IMPOSTOR_LOD_PX",
    "IMPOSTOR_SHAPES",
    "LOD_PX",
    "InstanceCuller",
    "frustum_planes",
    "glow_sprite_px",
]

#: Batches with fewer rows are drawn whole, without culling.
CULL_MIN_ROWS = 64
#: Instances whose bounding sphere looks narrower than this many pixels are point sprites.
LOD_PX = 2.0
#: Built-in meshes whose sprite is cast as their shape (1: a box, 2: a sphere, 3: a flat
#: box, cast at every size: a flat square as wide as its bounding sphere would cover far
#: more than a slanted rectangle does) ...
IMPOSTOR_SHAPES = {"cube": 1, "sphere": 2, "rect": 3}
#: ... and are sprites below this many pixels (their bounding sphere's width).
IMPOSTOR_LOD_PX = 12.0
#: Cast sprites narrower than this (their mean width) are flat squares, a box's in the mean
#: shading of its faces: a pixel's ray could miss so small a shape, and a square covers
#: the samples of its area.
IMPOSTOR_MIN_PX = 4.0
#: The least width in pixels of a glowing or marked (pending) sprite, while few glow...
GLOW_SPRITE_PX = 12.0
#: ... and while a crowd glows (a subtree of thousands reads as a region by itself; at
#: 12 pixels each it would be one blot hiding its shape and its neighbours).
GLOW_CROWD_PX = 3.0
#: Up to this many glowing or marked nodes each sprite gets `GLOW_SPRITE_PX`; beyond,
#: the width shrinks with the square root of the count (the area they cover stays put).
GLOW_FEW = 100
#: Threads per work group of cull_instances.comp.
GROUP = 64
#: Batches with more rows are drawn whole: one dispatch has at most 65,535 work groups
#: (OpenGL's guaranteed GL_MAX_COMPUTE_WORK_GROUP_COUNT).
CULL_MAX_ROWS = GROUP * 65535
#: uint32 per DrawElementsIndirectCommand.
COMMAND_UINTS = 5
STAMP_ROW_BYTES = 8


def frustum_planes(vp: np.ndarray) -> np.ndarray:
    """The six planes [6, 4] of view-projection `vp` (row-major, column vectors), each
    normalised so that ``plane[:3] @ p + plane[3]`` is the signed distance of world point
    `p` (positive inside): left, right, bottom, top, near, far."""
    vp = np.asarray(vp, dtype=np.float64)
    rows = [
        vp[3] + vp[0],
        vp[3] - vp[0],
        vp[3] + vp[1],
        vp[3] - vp[1],
        vp[3] + vp[2],
        vp[3] - vp[2],
    ]
    planes = np.array(rows)
    norms = np.linalg.norm(planes[:, :3], axis=1, keepdims=True)
    return planes / np.where(norms > 0, norms, 1.0)


def sprite_width(lo: np.ndarray, hi: np.ndarray) -> float:
    """The width of a square as big as box [lo, hi] looks on average: the square root of
    its mean projected area (a quarter of its surface), times 0.85 (a box's corners
    overstate a round mesh)."""
    a, b, c = np.asarray(hi, np.float64) - np.asarray(lo, np.float64)
    return float(0.85 * np.sqrt((a * b + b * c + c * a) / 2.0))


def glow_sprite_px(marked: int) -> float:
    """The least width in pixels of a glowing or marked sprite while `marked` nodes glow
    or are marked: `GLOW_SPRITE_PX` for a few, down to `GLOW_CROWD_PX` for a crowd."""
    if marked <= GLOW_FEW:
        return GLOW_SPRITE_PX
    return max(GLOW_CROWD_PX, GLOW_SPRITE_PX * float(np.sqrt(GLOW_FEW / marked)))


def bounding_sphere(lo: np.ndarray, hi: np.ndarray) -> tuple[float, float, float, float]:
    """The sphere (centre, radius) around the box [lo, hi] (a mesh's local bounds)."""
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    x, y, z = (float(v) for v in (lo + hi) / 2.0)
    return x, y, z, float(np.linalg.norm(hi - lo) / 2.0)


class IndirectDraws:
    """Stands in for a batch's vertex array: each `render(mode, vertices, first,
    instances)` the node pass makes becomes the indirect command of that index range,
    whose instance count the GPU wrote."""

    def __init__(
        self,
        vao: moderngl.VertexArray,
        commands: moderngl.Buffer,
        index: dict[tuple[int, int], int],
    ) -> None:
        self.ctx = vao.ctx
        self.vao = vao
        self.commands = commands
        self._index = index  # (first, vertices) -> command number

    def render(self, mode=None, vertices: int = -1, first: int = 0, instances: int = 1) -> None:
        del instances  # the GPU's count
        command = self._index[(int(first), int(vertices))]
        self.vao.render_indirect(self.commands, mode, count=1, first=command)


class CulledBatch:
    """A batch's culled rows and their draws (the node pass draws it as the batch)."""

    def __init__(
        self,
        ctx: moderngl.Context,
        prog: moderngl.Program,
        batch: Batch,
        mesh: GpuMesh,
        parts,
        sprite_prog: moderngl.Program | None = None,
        shape: int = 0,
    ) -> None:
        """Output rows, counts and commands for `batch` (of GpuMesh `mesh`, drawn by glTF
        `parts` or, without, by the mesh's index ranges, with `prog`; its sprites with
        `sprite_prog`, by default `prog`, cast as `shape`: 0 none, 1 box, 2 sphere)."""
        self.batch = batch
        self.kind = batch.kind
        self.shape = shape
        #: Sprites below this width in pixels (`LOD_PX`, `IMPOSTOR_LOD_PX`).
        self.lod_px = IMPOSTOR_LOD_PX if shape else LOD_PX
        self.box = tuple(tuple(float(v) for v in end) for end in mesh.bounds)
        self.sphere = bounding_sphere(*mesh.bounds)
        self.sprite_width = sprite_width(*mesh.bounds)
        rows = batch.count
        self.matrices = ctx.buffer(reserve=rows * MATRIX_BYTES)
        self.looks = ctx.buffer(reserve=rows * LOOK_BYTES)
        self.stamps = ctx.buffer(reserve=rows * STAMP_ROW_BYTES)
        #: Work groups of the cull passes, and their scratch (cull_instances.comp).
        self.groups = (rows + GROUP - 1) // GROUP
        self.work = ctx.buffer(reserve=4 * (2 + 2 * self.groups + rows))
        total = int(mesh.ibo.size // 4)
        ranges = [(0, -1, total)] + [(f, c, c) for _m, f, c in mesh.ranges]
        ranges += [(p.first, p.count, p.count) for p in parts]
        index: dict[tuple[int, int], int] = {}
        commands: list[tuple[int, int, int, int, int]] = []
        for first, key, count in ranges:
            if (first, key) not in index:
                index[(first, key)] = len(commands)
                commands.append((count, 0, first, 0, 0))
        self.sprite_command = len(commands)
        commands.append((1, 0, 0, 0, 0))  # one point per sprite row (cull_finish.comp)
        self.command_count = len(commands) - 1
        self.commands = ctx.buffer(np.array(commands, np.uint32).tobytes())
        self._vao = instanced_vao(ctx, prog, mesh, self.matrices, self.looks, self.stamps)
        self.vao = IndirectDraws(self._vao, self.commands, index)
        self.sprite_vao = (
            self._vao
            if sprite_prog is None or sprite_prog is prog
            else instanced_vao(ctx, sprite_prog, mesh, self.matrices, self.looks, self.stamps)
        )

    @property
    def count(self) -> int:
        return self.batch.count

    def drawn(self) -> tuple[int, int]:
        """(full meshes, sprites) the last cull kept: reads the GPU (tests and bench)."""
        words = np.frombuffer(self.commands.read(), np.uint32).reshape(-1, COMMAND_UINTS)
        return int(words[0, 1]), int(words[self.sprite_command, 1])

    def release(self) -> None:
        if self.sprite_vao is not self._vao:
            self.sprite_vao.release()
        for thing in (self._vao, self.matrices, self.looks, self.stamps, self.work, self.commands):
            thing.release()


class InstanceCuller:
    """The culling and level-of-detail passes of one renderer's node programs: `prog`
    draws the glTF meshes, `builtin` (by default `prog`) the built-in ones, `sprite` (by
    default `builtin`) every sprite."""

    def __init__(
        self,
        ctx: moderngl.Context,
        prog: moderngl.Program,
        builtin: moderngl.Program | None = None,
        sprite: moderngl.Program | None = None,
    ) -> None:
        self.ctx = ctx
        self.prog = prog
        self.builtin = prog if builtin is None else builtin
        self.sprite = self.builtin if sprite is None else sprite
        self._lod = True
        #: What the last cull was run for (view, viewport, rows' edition, level of
        #: detail): the same again keeps its rows and commands.
        self._last: tuple | None = None
        #: Whether this context runs compute shaders; without, everything is drawn whole.
        self.available = has_compute(ctx)
        #: Cull (and draw sprites) when available; off: everything drawn whole.
        self.enabled = self.available
        self._cull = load_compute(ctx, "cull_instances") if self.available else None
        self._finish = load_compute(ctx, "cull_finish") if self.available else None
        self.culled: dict[int, CulledBatch] = {}  # id(batch) -> its culled rows

    def build(
        self,
        batches: Iterable[Batch],
        gpu_meshes: dict[str, GpuMesh],
        surfaces: dict,
        whole: Container[str] = (),
    ) -> None:
        """Make the culled rows of each batch of `batches` with `CULL_MIN_ROWS` rows or
        more (`gpu_meshes`: GpuMesh by kind; `surfaces`: glTF parts by kind); kinds in
        `whole` (meshes whose vertices move: morphed copies) are always drawn whole."""
        self._forget()
        if not self.available:
            return
        for batch in batches:
            if not CULL_MIN_ROWS <= batch.count <= CULL_MAX_ROWS or batch.kind in whole:
                continue
            surface = surfaces.get(batch.kind)
            parts = surface.parts if surface is not None else ()
            prog = self.prog if surface is not None else self.builtin
            shape = IMPOSTOR_SHAPES.get(batch.kind, 0) if surface is None else 0
            mesh = gpu_meshes[batch.kind]
            culled = CulledBatch(self.ctx, prog, batch, mesh, parts, self.sprite, shape)
            self.culled[id(batch)] = culled

    def cull(
        self, vp: np.ndarray, size: tuple[int, int], lod: bool = True, edition: int | None = None
    ) -> None:
        """Cull every culled batch for view-projection `vp` (row-major) in a viewport of
        `size` pixels; with `lod`, instances under their batch's `lod_px` become
        sprites. `edition` counts the writes to the batches' rows (the renderer's
        `rows_edition`): a cull for the same view, viewport, edition and `lod` as the last
        is skipped (an idle redraw); None always culls."""
        prog, finish = self._cull, self._finish
        if not (self.enabled and self.culled) or prog is None or finish is None:
            return
        key = None if edition is None else (np.asarray(vp).tobytes(), tuple(size), edition, lod)
        if key is not None and key == self._last:
            return
        self._last = key
        planes = frustum_planes(vp).astype(np.float32)
        uniform(prog, "u_planes").write(planes.tobytes())
        uniform(prog, "u_w_row").value = tuple(float(v) for v in vp[3])
        uniform(prog, "u_px_scale").value = pixel_scale(vp, size)
        self._lod = lod
        self._phase(prog, 0)  # classify, count per work group
        for culled in self.culled.values():  # offsets per group, the draw commands
            uniform(finish, "u_groups").value = culled.groups
            uniform(finish, "u_commands").value = culled.command_count
            culled.work.bind_to_storage_buffer(0)
            culled.commands.bind_to_storage_buffer(1)
            finish.run(1)
        self.ctx.memory_barrier()
        self._phase(prog, 1)  # copy the rows kept, in order

    def _phase(self, prog: moderngl.ComputeShader, phase: int) -> None:
        """Run phase `phase` of cull_instances.comp (`prog`) over every culled batch."""
        uniform(prog, "u_phase").value = phase
        for culled in self.culled.values():
            batch = culled.batch
            uniform(prog, "u_rows").value = batch.count
            uniform(prog, "u_groups").value = culled.groups
            uniform(prog, "u_sphere").value = culled.sphere
            if phase == 0:
                uniform(prog, "u_lod_px").value = culled.lod_px if self._lod else 0.0
            for binding, buf in enumerate(
                (
                    batch.matrices,
                    batch.looks,
                    batch.stamps,
                    culled.matrices,
                    culled.looks,
                    culled.stamps,
                    culled.work,
                )
            ):
                buf.bind_to_storage_buffer(binding)
            prog.run(culled.groups)
        self.ctx.memory_barrier()

    def batches(self, batches: Iterable[Batch]) -> list:
        """`batches` as the node pass draws them: each culled one by its culled rows."""
        if not (self.enabled and self.culled):
            return list(batches)
        return [self.culled.get(id(b), b) for b in batches]

    def draw_sprites(
        self,
        materials: MaterialBinder,
        vp: np.ndarray,
        size: tuple[int, int],
        marked: int = 0,
    ) -> None:
        """Draw the sprite rows of every culled batch (one point each), with the built-in
        shading (`sprite`; `materials`: the pass's `MaterialBinder`); `marked`: how many
        nodes glow or are marked (`glow_sprite_px`)."""
        if not (self.enabled and self.culled):
            return
        prog = self.sprite
        materials.builtin(prog)
        inverse = np.linalg.inv(np.asarray(vp, np.float64)).astype(np.float32)
        set_uniform(prog, "u_inv_view_proj", np.ascontiguousarray(inverse.T).tobytes())
        set_uniform(prog, "u_viewport_px", (float(size[0]), float(size[1])))
        set_uniform(prog, "u_impostor_px", IMPOSTOR_MIN_PX)
        self.ctx.enable(moderngl.PROGRAM_POINT_SIZE)
        uniform(prog, "u_sprite").value = 1
        uniform(prog, "u_px_scale").value = pixel_scale(vp, size)
        uniform(prog, "u_glow_min_px").value = glow_sprite_px(marked)
        for culled in self.culled.values():
            uniform(prog, "u_sphere").value = culled.sphere
            uniform(prog, "u_sprite_width").value = culled.sprite_width
            set_uniform(prog, "u_shape", culled.shape)
            set_uniform(prog, "u_box_lo", culled.box[0])
            set_uniform(prog, "u_box_hi", culled.box[1])
            culled.sprite_vao.render_indirect(
                culled.commands, moderngl.POINTS, count=1, first=culled.sprite_command
            )
        uniform(prog, "u_sprite").value = 0
        self.ctx.disable(moderngl.PROGRAM_POINT_SIZE)

    def drawn(self) -> tuple[int, int, int]:
        """(rows, full meshes, sprites) over the culled batches, as the last cull left
        them: reads the GPU, for tests and the benchmark."""
        counts = [c.drawn() for c in self.culled.values()]
        rows = sum(c.count for c in self.culled.values())
        return rows, sum(f for f, _s in counts), sum(s for _f, s in counts)

    def _forget(self) -> None:
        for culled in self.culled.values():
            culled.release()
        self.culled = {}
        self._last = None

    def release(self) -> None:
        self._forget()
        for shader in (self._cull, self._finish):
            if shader is not None:
                shader.release()


def pixel_scale(vp: np.ndarray, size: tuple[int, int]) -> float:
    """Pixels per world unit across the view at clip w = 1: the projection's vertical
    scale (the length of `vp`'s second row's 3x3 part, the view being rigid) times half
    the viewport's height."""
    return float(np.linalg.norm(np.asarray(vp, np.float64)[1, :3]) * size[1] / 2.0)
