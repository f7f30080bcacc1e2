"""A glTF material as the node pass's uniforms (shaders/instanced.frag, ``u_pbr = 1``),
and the built-in meshes' plain shading (``u_pbr = 0``); the shader features a scene's
materials need (`program_defines`: one program per feature set).

Texture units: 0 is the skins' joint matrices; the five core material textures use units
1 to 5 in the order base colour, metallic-roughness, normal, occlusion, emissive; 6 and 7
the environment's, 8 the skins' joint glow; the extensions' textures 9 to 20 (clearcoat,
clearcoat roughness, clearcoat normal, transmission, thickness, sheen colour, specular
colour, iridescence, iridescence thickness, anisotropy, sheen roughness, specular); 21
the transmission pass's picture of what lies behind (`BACKDROP_UNIT`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import moderngl

from ..materials import (
    BLEND,
    CORE_SLOTS,
    EXTENSION_SLOTS,
    IDENTITY_UV,
    MASK,
    Material,
    MeshSurface,
    material_features,
)
from .shaders import find_uniform, set_uniform, uniform
from .textures import TexturePool

__all__ = [
    "BACKDROP_UNIT",
    "SLOTS",
    "MaterialBinder",
    "program_defines",
    "set_builtin",
    "set_material",
]

#: The material's texture slots, in the shader's order (u_tex0 .. u_tex16).
SLOTS = (*CORE_SLOTS, *EXTENSION_SLOTS)
#: Slots holding colours (sRGB-encoded in the file).
SRGB_SLOTS = ("base_color", "emissive", "sheen_color", "specular_color")
FIRST_UNIT = 1
#: The first unit of the extensions' textures (after the environment's and the joints').
EXTENSION_UNIT = 9
#: Texture unit of each slot, in `SLOTS` order.
UNITS = tuple(
    FIRST_UNIT + k if k < len(CORE_SLOTS) else EXTENSION_UNIT + k - len(CORE_SLOTS)
    for k in range(len(SLOTS))
)
#: The transmission pass's picture of the opaque scene.
BACKDROP_UNIT = EXTENSION_UNIT + len(EXTENSION_SLOTS)
#: The uniforms `set_material` writes.
_MATERIAL_UNIFORMS = (
    "u_pbr",
    "u_base_color",
    "u_metallic",
    "u_roughness",
    "u_emissive",
    "u_alpha_mode",
    "u_alpha_cutoff",
    "u_double_sided",
    "u_mat_unlit",
    "u_tex0",
    "u_tex1",
    "u_tex2",
    "u_tex3",
    "u_tex4",
    "u_tex_on",
    "u_tex_set",
    "u_tex_row0",
    "u_tex_row1",
    "u_tex_mirror",
    "u_normal_scale",
    "u_occlusion_strength",
    "u_ior",
    "u_specular",
    "u_specular_color",
    "u_clearcoat",
    "u_clearcoat_roughness",
    "u_clearcoat_normal_scale",
    "u_sheen_color",
    "u_sheen_roughness",
    "u_transmission",
    "u_thickness",
    "u_attenuation_color",
    "u_attenuation_distance",
    "u_dispersion",
    "u_iridescence",
    "u_iridescence_ior",
    "u_iridescence_thickness",
    "u_anisotropy",
    "u_anisotropy_rotation",
    *(f"u_tex{k}" for k in range(5, len(SLOTS))),
)
_ALPHA_MODES = {MASK: 1, BLEND: 2}


def program_defines(surfaces: Iterable[MeshSurface]) -> tuple[str, ...]:
    """The shader features (#defines) the materials of `surfaces` need, their variants'
    included (a switch of variant then needs no new program), sorted."""
    found: set[str] = set()
    for surface in surfaces:
        for part in surface.parts:
            for material in (part.material, *(m for _name, m in part.variants)):
                found |= material_features(material)
    return tuple(sorted(found))


def set_builtin(prog: moderngl.Program) -> None:
    """Draw the next meshes with the built-in shading (native scenes' meshes)."""
    set_uniform(prog, "u_pbr", 0)


class MaterialBinder:
    """Sets materials on programs, skipping the material set last on the same program
    (meshes often share materials, and each uniform write is a Python call). Textures
    are bound to shared units, so a draw with another program forgets what was set."""

    _UNSET = object()

    def __init__(self, pool: TexturePool) -> None:
        self.pool = pool
        self._last: tuple[int, object] = (0, self._UNSET)
        # (program id, material id) -> (uniforms and their bytes, textures and units,
        # the material itself, which keeps its id from being reused)
        self._packed: dict[tuple[int, int], tuple] = {}

    def reset(self) -> None:
        """Forget what is set (at the start of a frame: other code may have bound
        textures since)."""
        self._last = (0, self._UNSET)

    def builtin(self, prog: moderngl.Program) -> None:
        if self._last != (id(prog), None):
            set_builtin(prog)
            self._last = (id(prog), None)

    def material(self, prog: moderngl.Program, material: Material) -> None:
        last_prog, last = self._last
        if last_prog == id(prog) and last is material:
            return
        key = (id(prog), id(material))
        packed = self._packed.get(key)
        if packed is None:  # once per program and material: set, then keep the bytes
            set_material(prog, material, self.pool)
            names = [n for n in _MATERIAL_UNIFORMS if find_uniform(prog, n) is not None]
            textures = [
                (self.pool.get(ref.image, slot in SRGB_SLOTS), UNITS[k])
                for k, slot in enumerate(SLOTS)
                if (ref := material.textures().get(slot)) is not None
            ]
            found = [uniform(prog, n) for n in names]
            packed = ([(u, u.read()) for u in found], textures, material)
            self._packed[key] = packed
        else:
            for member, data in packed[0]:
                member.write(data)
            for tex, unit in packed[1]:
                tex.use(location=unit)
        self._last = (id(prog), material)


def set_material(prog: moderngl.Program, material: Material, pool: TexturePool) -> None:
    """Set `prog`'s material uniforms and bind the material's textures."""
    set_uniform(prog, "u_pbr", 1)
    set_uniform(prog, "u_base_color", tuple(material.base_color))
    set_uniform(prog, "u_metallic", material.metallic)
    set_uniform(prog, "u_roughness", material.roughness)
    set_uniform(prog, "u_emissive", tuple(material.emissive))
    set_uniform(prog, "u_alpha_mode", _ALPHA_MODES.get(material.alpha_mode, 0))
    set_uniform(prog, "u_alpha_cutoff", material.alpha_cutoff)
    set_uniform(prog, "u_double_sided", int(material.double_sided))
    set_uniform(prog, "u_mat_unlit", int(material.unlit))
    refs = material.textures()
    on, sets, row0, row1, mirror = [], [], [], [], []
    for k, slot in enumerate(SLOTS):
        ref = refs.get(slot)
        unit = UNITS[k]
        set_uniform(prog, f"u_tex{k}", unit)
        transform = IDENTITY_UV if ref is None else ref.transform
        on.append(int(ref is not None))
        sets.append(0 if ref is None else ref.texcoord)
        row0.append(tuple(transform[:3]))
        row1.append(tuple(transform[3:]))
        mirror.append((0, 0) if ref is None else pool.mirror(ref.image))
        if ref is not None:
            pool.get(ref.image, slot in SRGB_SLOTS).use(location=unit)
    set_uniform(prog, "u_tex_on", on)
    set_uniform(prog, "u_tex_set", sets)
    set_uniform(prog, "u_tex_row0", row0)
    set_uniform(prog, "u_tex_row1", row1)
    set_uniform(prog, "u_tex_mirror", mirror)
    normal, occlusion = refs.get("normal"), refs.get("occlusion")
    set_uniform(prog, "u_normal_scale", 1.0 if normal is None else normal.scale)
    set_uniform(prog, "u_occlusion_strength", 1.0 if occlusion is None else occlusion.scale)
    coat_normal = refs.get("clearcoat_normal")
    set_uniform(prog, "u_clearcoat_normal_scale", 1.0 if coat_normal is None else coat_normal.scale)
    for name in _EXTENSION_VALUES:
        set_uniform(prog, f"u_{name}", getattr(material, name))
    distance = material.attenuation_distance
    set_uniform(prog, "u_attenuation_distance", 0.0 if distance == math.inf else distance)
    set_uniform(prog, "u_iridescence_thickness", tuple(material.iridescence_thickness))


#: Material fields written as the uniform of their name (``u_`` + name).
_EXTENSION_VALUES = (
    "ior",
    "specular",
    "specular_color",
    "clearcoat",
    "clearcoat_roughness",
    "sheen_color",
    "sheen_roughness",
    "transmission",
    "thickness",
    "attenuation_color",
    "dispersion",
    "iridescence",
    "iridescence_ior",
    "anisotropy",
    "anisotropy_rotation",
)
