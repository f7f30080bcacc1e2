"""Morph targets on the GPU: each morphed node gets its own copy of its mesh's vertex
buffer, which a transform-feedback pass (shaders/morph.vert) fills with the base shape
moved by the node's weights. The node pass then draws that copy like any mesh, so every
material, glow and selection rule applies to morphed nodes unchanged.

The pass runs for a node only when its weights differ from those last morphed (`sync`),
so a still model costs nothing per frame. Deltas live in one float texture per mesh,
shared by all nodes that show it.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.content import meshes
from viewer.content.geometry import Geometry, MorphTargets

from .gpu_mesh import GpuMesh
from .scene_bounds import morph_kind, reach
from .shaders import find_uniform, load_program, source, uniform

__all__ = ["MorphMeshes", "morph_kind"]

#: Texels per row of a delta texture.
TEXTURE_WIDTH = 4096


_GLSL_TYPES = {"1f": "float", "2f": "vec2", "3f": "vec3", "4f": "vec4"}
#: The attributes shaders/morph.vert morphs; the layout's others are copied through.
_MORPHED = ("in_position", "in_normal")


def morph_program(ctx: moderngl.Context) -> moderngl.Program:
    """shaders/morph.vert, completed for the mesh vertex layout (`meshes.VERTEX_FORMAT`):
    every attribute but position and normal is declared and copied through, and the
    outputs are captured in the layout's order, so the result is a mesh vertex buffer."""
    kinds = meshes.VERTEX_FORMAT.split()
    if len(kinds) != len(meshes.VERTEX_ATTRS) or tuple(meshes.VERTEX_ATTRS[:2]) != _MORPHED:
        raise ValueError(f"unexpected vertex layout {meshes.VERTEX_FORMAT!r}")
    others = [
        (name, _GLSL_TYPES[kind]) for name, kind in zip(meshes.VERTEX_ATTRS, kinds, strict=True)
    ][2:]
    declarations = "".join(f"in {t} {n};\nout {t} out_{n[3:]};\n" for n, t in others)
    copies = " ".join(f"out_{n[3:]} = {n};" for n, _t in others)
    text = source("morph", "vert")
    text = text.replace("// @declarations\n", declarations)
    text = text.replace(
        "void pass_through() {}  // @pass_through", f"void pass_through() {{ {copies} }}"
    )
    varyings = ["out_" + name[3:] for name in meshes.VERTEX_ATTRS]
    return load_program(ctx, "morph", text=text, varyings=varyings)


class MorphMeshes:
    """The morphed copies of a scene's morphed nodes, and the pass that fills them.

    `meshes`: the renderer's GPU meshes by kind; a copy is added for each morphed node
    (under `morph_kind`), and `kind_of` maps the node to it for the instance batches.
    """

    def __init__(self, ctx: moderngl.Context, geometry: Geometry, gpu: dict[str, GpuMesh]):
        self.ctx = ctx
        self.geometry = geometry
        self.kind_of: dict[int, str] = {}
        self.bytes_last = 0
        self._program = morph_program(ctx) if geometry.morphed else None
        self._textures: dict[str, moderngl.Texture] = {}
        self._vaos: dict[str, moderngl.VertexArray] = {}
        self._done: dict[int, np.ndarray] = {}  # node -> the weights last morphed
        self._mesh_of: dict[int, str] = {}
        # A draw needs a complete framebuffer bound, even one that rasterizes nothing
        # (a headless context may have none): the pass binds this 1 x 1 one.
        self._fbo = (
            ctx.framebuffer(color_attachments=[ctx.renderbuffer((1, 1))])
            if geometry.morphed
            else None
        )
        #: Node -> the vertex buffer its morph is written to (a mesh copy, or the skinned
        #: mesh's own buffer: `retarget`).
        self._target: dict[int, moderngl.Buffer] = {}
        for item in geometry.morphed:
            base = gpu.get(item.mesh)
            targets = geometry.targets.get(item.mesh)
            if base is None or targets is None:
                continue
            if item.mesh not in self._textures:
                self._textures[item.mesh] = self._deltas(targets)
                self._vaos[item.mesh] = ctx.vertex_array(
                    self._program, [(base.vbo, meshes.VERTEX_FORMAT, *meshes.VERTEX_ATTRS)]
                )
            self._mesh_of[item.node] = item.mesh
            if item.skinned:
                continue  # the skinning pass draws it: `retarget` names its buffer
            kind = morph_kind(item.mesh, item.node)
            gpu[kind] = copy = GpuMesh(ctx, base.data)
            copy.bounds = reach(base.data.positions, targets.positions)
            self.kind_of[item.node] = kind
            self._target[item.node] = copy.vbo

    def retarget(self, buffers: dict[int, moderngl.Buffer]) -> None:
        """Write the morphs of skinned nodes into their skinned meshes' vertex buffers."""
        for node, buffer in buffers.items():
            if node in self._mesh_of:
                self._target[node] = buffer

    def copies(self) -> dict[str, str]:
        """Each morphed copy's kind and the mesh kind it copies."""
        return {kind: self._mesh_of[node] for node, kind in self.kind_of.items()}

    def _vertices(self, mesh: str) -> int:
        return len(self.geometry.targets[mesh].positions[0])

    def _deltas(self, targets: MorphTargets) -> moderngl.Texture:
        parts = [targets.positions.reshape(-1, 3)]
        if targets.normals is not None:
            parts.append(targets.normals.reshape(-1, 3))
        texels = np.vstack(parts).astype(np.float32)
        rows = max(1, -(-len(texels) // TEXTURE_WIDTH))
        data = np.zeros((rows * TEXTURE_WIDTH, 4), np.float32)
        data[: len(texels), :3] = texels
        tex = self.ctx.texture((TEXTURE_WIDTH, rows), 4, data.tobytes(), dtype="f4")
        tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
        return tex

    def sync(self, force: bool = False) -> int:
        """Re-morph the nodes whose weights changed since they were last morphed (all of
        them with `force`); returns the bytes uploaded for it (the weights: the vertices
        are written by the GPU itself)."""
        written = 0
        for node, buffer in self._target.items():
            weights = self.geometry.weights.get(node)
            if weights is None:
                continue
            if not force and node in self._done and np.array_equal(self._done[node], weights):
                continue
            written += self._morph(self._mesh_of[node], buffer, weights)
            self._done[node] = np.array(weights)
        self.bytes_last = written
        return written

    def _morph(self, mesh: str, target: moderngl.Buffer, weights: np.ndarray) -> int:
        targets = self.geometry.targets[mesh]
        n = self._vertices(mesh)
        prog, fbo = self._program, self._fbo
        if prog is None or fbo is None:
            raise RuntimeError(f"no morph pass for {mesh!r}: the geometry has no morphed nodes")
        w = np.zeros(64, np.float32)
        w[: targets.count] = weights[: targets.count]
        uniform(prog, "u_weights").write(w.tobytes())
        for name, value in (
            ("u_width", TEXTURE_WIDTH),
            ("u_count", targets.count),
            ("u_vertices", n),
            ("u_normals", int(targets.normals is not None)),
            ("u_deltas", 0),
        ):
            found = find_uniform(prog, name)
            if found is not None:
                found.value = value
        self._textures[mesh].use(location=0)
        bound = self.ctx.fbo
        fbo.use()
        self._vaos[mesh].transform(target, mode=moderngl.POINTS, vertices=n)
        if bound is not None and hasattr(bound.mglo, "use"):  # not a released one
            bound.use()
        return w.nbytes

    def release(self) -> None:
        for vao in self._vaos.values():
            vao.release()
        for tex in self._textures.values():
            tex.release()
        if self._program is not None:
            self._program.release()
        if self._fbo is not None:
            self._fbo.release()
