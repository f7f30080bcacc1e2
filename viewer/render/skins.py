"""The GPU side of skinning: one draw per skinned mesh, joint matrices in textures.

Each skin has a float texture of 4 x J texels (one row per joint, one texel per matrix
column) holding ``world(joint) @ inverseBind``. `sync(report)` rewrites it only for the
skins with a joint the frame report says was executed, and counts the bytes; the vertex
shader (shaders/skinned.vert, with instanced.frag for the shading) blends the four joint
matrices of each vertex.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.content import meshes

from ..animation.skin import Skinning
from .shaders import load_program
from .textures import MeshTextures

__all__ = ["SkinRenderer"]

#: Per vertex, in a second buffer beside the mesh's own vertices: joints 4f, weights 4f
#: (apart, so that the morph pass can rewrite the vertices of a morphed skinned mesh).
SKIN_FORMAT = "4f 4f"
SKIN_ATTRS = ("in_joints", "in_weights")


def load_skinned_program(ctx: moderngl.Context) -> moderngl.Program:
    """skinned.vert with instanced.frag (the same shading as every other mesh)."""
    return load_program(ctx, "skinned")


class SkinRenderer:
    """GPU buffers and joint textures for a scene's `Skinning`."""

    def __init__(
        self,
        ctx: moderngl.Context,
        skinning: Skinning,
        mesh_data: dict,
        surfaces: dict | None = None,
        textures: MeshTextures | None = None,
    ) -> None:
        self.ctx = ctx
        self.skinning = skinning
        self.program = load_skinned_program(ctx)
        self.bytes_last = 0
        self.mesh_textures = textures
        surfaces = surfaces or {}
        self.textures = [
            ctx.texture((4, len(skin.joints)), 4, dtype="f4") for skin in skinning.skins
        ]
        for tex in self.textures:
            tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self._draws = []  # (vao, buffers, SkinnedMesh)
        self._positions = {}  # mesh key -> positions (n, 3) float64
        for item in skinning.meshes:
            pos, nrm, idx = mesh_data[item.mesh]
            self._positions[item.mesh] = np.asarray(pos, dtype=np.float64)
            data = meshes.from_arrays(pos, nrm, idx, surfaces.get(item.mesh))
            joints, weights = skinning.attributes[item.mesh]
            influence = np.hstack([joints.astype(np.float32), weights.astype(np.float32)])
            vbo = ctx.buffer(data.interleaved().tobytes())
            skin_vbo = ctx.buffer(np.ascontiguousarray(influence, dtype=np.float32).tobytes())
            ibo = ctx.buffer(data.indices.astype(np.uint32).tobytes())
            vao = ctx.vertex_array(
                self.program,
                [(vbo, meshes.VERTEX_FORMAT, *meshes.VERTEX_ATTRS),
                 (skin_vbo, SKIN_FORMAT, *SKIN_ATTRS)],
                index_buffer=ibo, index_element_size=4,
            )  # fmt: skip
            self._draws.append((vao, (vbo, skin_vbo, ibo), item))

    def vertex_buffers(self) -> dict[int, moderngl.Buffer]:
        """Each skinned node's vertex buffer (`meshes.VERTEX_FORMAT`), for the morph pass."""
        return {item.node: buffers[0] for _vao, buffers, item in self._draws}

    def points(self, worlds: np.ndarray) -> np.ndarray:
        """The skinned vertices of every skinned mesh now (k, 3), on the CPU: for framing
        the camera, which must see the deformed meshes, not just the node origins."""
        out = [np.zeros((0, 3))]
        for _vao, _buffers, item in self._draws:
            pos = self._positions[item.mesh]
            joints, weights = self.skinning.attributes[item.mesh]
            mats = self.skinning.skins[item.skin].matrices(worlds)  # (J, 4, 4)
            blend = np.einsum("nk,nkij->nij", weights.astype(np.float64), mats[joints])
            out.append(np.einsum("nij,nj->ni", blend[:, :3, :3], pos) + blend[:, :3, 3])
        return np.vstack(out)

    def upload_all(self, worlds: np.ndarray) -> int:
        """Write every skin's joint matrices; returns the bytes written."""
        return self._upload(range(len(self.textures)), worlds)

    def sync(self, executed: np.ndarray, worlds: np.ndarray) -> int:
        """Write the joint matrices of the skins with a joint in `executed` (node ids);
        returns the bytes written (also kept in `bytes_last`)."""
        self.bytes_last = self._upload(self.skinning.stale(np.asarray(executed)), worlds)
        return self.bytes_last

    def _upload(self, which, worlds: np.ndarray) -> int:
        written = 0
        for k in which:
            mats = self.skinning.skins[k].matrices(worlds)
            data = np.ascontiguousarray(mats.transpose(0, 2, 1), dtype=np.float32).tobytes()
            self.textures[k].write(data)
            written += len(data)
        return written

    def draw(self, uniforms: dict) -> None:
        """Draw every skinned mesh; `uniforms` are the instanced program's (lighting,
        camera, glow colours), set on this program too."""
        if not self._draws:
            return
        prog = self.program
        for name, value in uniforms.items():
            if name in prog:
                if isinstance(value, bytes):
                    prog[name].write(value)
                else:
                    prog[name].value = value
        prog["u_joints"].value = 0
        for vao, _buffers, item in self._draws:
            self.textures[item.skin].use(location=0)
            if self.mesh_textures is not None:
                self.mesh_textures.bind(prog, item.mesh)
            prog["u_color"].value = tuple(item.color)
            vao.render(moderngl.TRIANGLES)

    def release(self) -> None:
        for vao, buffers, _item in self._draws:
            vao.release()
            for buf in buffers:
                buf.release()
        for tex in self.textures:
            tex.release()
        self.program.release()
