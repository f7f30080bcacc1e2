"""The GPU side of skinning: one draw per skinned mesh, joint matrices in textures.

Each skin has a float texture of 4 x J texels (one row per joint, one texel per matrix
column) holding ``world(joint) @ inverseBind``. `sync(report)` rewrites it only for the
skins with a joint the frame report says was executed, and counts the bytes; the vertex
shader (shaders/skinned.vert, with instanced.frag for the shading) blends the four joint
matrices of each vertex. A second texture per skin holds each joint's glow stamp (as
the node rows hold theirs), written at each draw from the glow, so a skinned mesh glows
where its joints were recomputed, blended by the vertex weights.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.content import meshes

from ..animation.skin import Skinning
from ..content.geometry import Geometry
from ..materials import CORE_SLOTS, drawn_late
from .glow import Glow
from .gpu_mesh import POINT_SIZE, interleaved, joined_indices
from .lights import LUT_UNIT, RADIANCE_UNIT
from .material_uniforms import EXTENSION_UNIT, FIRST_UNIT, MaterialBinder, program_defines
from .shaders import find_uniform, load_program, uniform

__all__ = ["SkinRenderer"]

#: Per vertex, in a second buffer beside the mesh's own vertices: joints 4f, weights 4f
#: (apart, so that the morph pass can rewrite the vertices of a morphed skinned mesh).
SKIN_FORMAT = "4f 4f"
SKIN_ATTRS = ("in_joints", "in_weights")


#: The texture unit of the joints' glow stamps: past the core material's (0: the joints)
#: and the environment's (`lights.RADIANCE_UNIT`, `LUT_UNIT`), before the extensions'
#: (`EXTENSION_UNIT`): samplers of two types on one unit make every draw fail.
JOINT_GLOW_UNIT = max(FIRST_UNIT + len(CORE_SLOTS), RADIANCE_UNIT, LUT_UNIT) + 1
if JOINT_GLOW_UNIT >= EXTENSION_UNIT:
    raise RuntimeError("the joints' glow unit overlaps the material extensions' textures")

#: The node pass's uniforms this program shares (besides the view-projection).
SHARED_UNIFORMS = (
    "u_light_dir",
    "u_eye",
    "u_view_dir",
    "u_ortho",
    "u_unlit",
    "u_glow_local",
    "u_glow_world",
    "u_halo",
    "u_glow_style",
    "u_light_count",
    "u_light_type",
    "u_light_pos",
    "u_light_to",
    "u_light_color",
    "u_light_range",
    "u_light_cone",
    "u_env_strength",
    "u_env_radiance",
    "u_env_levels",
    "u_env_sh",
    "u_brdf_lut",
    "u_exposure",
    "u_tone_mapping",
    "u_backdrop",
    "u_backdrop_size",
    "u_glow_on",
    "u_time",
    "u_fade",
    "u_heat_seconds",
    "u_heat_norm",
)


def load_skinned_program(ctx: moderngl.Context, defines: tuple[str, ...] = ()) -> moderngl.Program:
    """skinned.vert with instanced.frag (the same shading as every other mesh), with the
    material features `defines`."""
    return load_program(ctx, "skinned", defines=defines)


class SkinRenderer:
    """GPU buffers and joint textures for a scene's `Skinning`."""

    def __init__(
        self,
        ctx: moderngl.Context,
        skinning: Skinning,
        mesh_data: dict,
        surfaces: dict | None = None,
        geometry: Geometry | None = None,
    ) -> None:
        self.ctx = ctx
        self.skinning = skinning
        self.program = load_skinned_program(ctx, program_defines((surfaces or {}).values()))
        self.bytes_last = 0
        surfaces = surfaces or {}
        self._surfaces = surfaces
        self.textures = [
            ctx.texture((4, len(skin.joints)), 4, dtype="f4") for skin in skinning.skins
        ]
        #: Per skin: its joints' glow stamps, one RG texel (time, reason) per joint.
        self.glow_textures = [
            ctx.texture((1, len(skin.joints)), 2, dtype="f4") for skin in skinning.skins
        ]
        for tex in self.textures + self.glow_textures:
            tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self._draws = []  # (vao, buffers, SkinnedMesh)
        for item in skinning.meshes:
            pos, nrm, idx = mesh_data[item.mesh]
            data = meshes.from_arrays(pos, nrm, idx, surfaces.get(item.mesh))
            if geometry is not None:  # its parts may draw lines and points too
                data.lines = geometry.lines.get(item.mesh)
                data.points = geometry.points.get(item.mesh)
            joints, weights = skinning.attributes[item.mesh]
            influence = np.hstack([joints.astype(np.float32), weights.astype(np.float32)])
            vbo = ctx.buffer(interleaved(data))
            skin_vbo = ctx.buffer(np.ascontiguousarray(influence, dtype=np.float32).tobytes())
            joined = joined_indices(data)
            ibo = ctx.buffer(joined.tobytes() if joined.size else b"\0" * 4)
            vao = ctx.vertex_array(
                self.program,
                [
                    (vbo, meshes.VERTEX_FORMAT, *meshes.VERTEX_ATTRS),
                    (skin_vbo, SKIN_FORMAT, *SKIN_ATTRS),
                ],
                index_buffer=ibo,
                index_element_size=4,
            )
            self._draws.append((vao, (vbo, skin_vbo, ibo), item))

    def vertex_buffers(self) -> dict[int, moderngl.Buffer]:
        """Each skinned node's vertex buffer (`meshes.VERTEX_FORMAT`), for the morph pass."""
        return {item.node: buffers[0] for _vao, buffers, item in self._draws}

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

    @property
    def has_blend(self) -> bool:
        """Whether a skinned mesh has a part drawn late (blended or transmissive)."""
        return any(self._parts(item, True) for _vao, _buffers, item in self._draws)

    @property
    def has_transmission(self) -> bool:
        """Whether a skinned mesh has a transmissive part."""
        return any(
            p.material.transmission > 0.0
            for _vao, _buffers, item in self._draws
            for p in self._parts(item, True) or ()
        )

    def _parts(self, item, blend: bool):
        surface = self._surfaces.get(item.mesh)
        if surface is None:
            return None
        return [p for p in surface.parts if drawn_late(p.material) == blend]

    def draw(
        self,
        node_prog: moderngl.Program,
        vp_bytes: bytes,
        materials: MaterialBinder,
        glow: Glow | None = None,
    ) -> None:
        """Draw every skinned mesh but its blended parts (`draw_blended`), with the
        instanced program `node_prog`'s lighting, camera and glow uniforms, and the
        joints' glow stamps of `glow` (`viewer.render.glow.Glow`; None: no glow)."""
        if not self._draws:
            return
        for skin, tex in zip(self.skinning.skins, self.glow_textures, strict=True):
            stamps = np.zeros((len(skin.joints), 2), dtype=np.float32)
            if glow is not None and len(skin.joints):
                stamps = glow.stamp_rows(np.asarray(skin.joints, dtype=np.int64))
            tex.write(np.ascontiguousarray(stamps).tobytes())
        prog = self.program
        uniform(prog, "u_view_proj").write(vp_bytes)
        for name in SHARED_UNIFORMS:
            mine, theirs = find_uniform(prog, name), find_uniform(node_prog, name)
            if mine is not None and theirs is not None:
                mine.value = theirs.value
        self._render(materials, blend=False)

    def draw_blended(self, materials: MaterialBinder) -> None:
        """The blended parts of the skinned meshes (after `draw`, blending set up)."""
        self._render(materials, blend=True)

    def _render(self, materials: MaterialBinder, blend: bool) -> None:
        prog = self.program
        uniform(prog, "u_joints").value = 0
        uniform(prog, "u_joint_glow").value = JOINT_GLOW_UNIT
        for vao, _buffers, item in self._draws:
            parts = self._parts(item, blend)
            if parts is None and blend:
                continue
            self.textures[item.skin].use(location=0)
            self.glow_textures[item.skin].use(location=JOINT_GLOW_UNIT)
            uniform(prog, "u_color").value = tuple(item.color)
            if parts is None:
                materials.builtin(prog)
                vao.render(moderngl.TRIANGLES)
                continue
            for part in parts:
                materials.material(prog, part.material)
                if part.mode == moderngl.POINTS:
                    self.ctx.point_size = POINT_SIZE
                vao.render(part.mode, vertices=part.count, first=part.first)

    def release(self) -> None:
        for vao, buffers, _item in self._draws:
            vao.release()
            for buf in buffers:
                buf.release()
        for tex in self.textures + self.glow_textures:
            tex.release()
        self.program.release()
