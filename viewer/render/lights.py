"""The light and the picture of the glTF node pass (`Lighting`): by default, as the reference
viewers show a glTF file (three.js with its RoomEnvironment, the Khronos sample viewer),
an image-based environment (a neutral room, `environment.py`) plus the file's
KHR_lights_punctual lights, exposure 1, Khronos PBR Neutral tone mapping, sRGB output.
Without the environment (``--environment none``): the file's lights, or without any one
default directional key light.

A light sits on its node: a directional or spot light shines down the node's -Z axis,
a point or spot light stands at its origin, so an animated lamp moves with its node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import moderngl
import numpy as np

from .environment import EnvironmentMaps, environment_maps
from .shaders import find_uniform, set_uniform, uniform

__all__ = [
    "DEFAULT_LIGHT",
    "ENVIRONMENTS",
    "MAX_LIGHTS",
    "TONE_MAPPINGS",
    "EnvironmentLight",
    "Lighting",
    "light_uniforms",
]

#: Tone mappings (``--tone-mapping``), in the shader's numbering; environments.
TONE_MAPPINGS = ("none", "neutral", "aces")
ENVIRONMENTS = ("room", "none")

#: Lights the shader takes (the first ones of the file are used).
MAX_LIGHTS = 8
#: The default key light's radiance (its colour times intensity, linear), used only
#: without the environment.
DEFAULT_LIGHT = (2.3, 2.25, 2.15)
_KINDS = {"directional": 0, "point": 1, "spot": 2}
#: Texture units of the environment (0 is the skins' joints, 1 to 5 the material's; the
#: skins' joint glow comes after these).
RADIANCE_UNIT, LUT_UNIT = 6, 7


@dataclass(frozen=True)
class Lighting:
    """How glTF materials are lit and shown: the defaults are the reference viewers'."""

    tone_mapping: str = "neutral"  # one of TONE_MAPPINGS
    exposure: float = 1.0  # linear factor before tone mapping
    environment: str = "room"  # one of ENVIRONMENTS


class EnvironmentLight:
    """The environment's maps on the GPU (made on first use: native scenes never pay for
    computing them) and the uniforms of the look."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._textures: tuple[moderngl.TextureArray, moderngl.Texture] | None = None
        self._sh: list[tuple[float, ...]] | None = None

    def _upload(self, maps: EnvironmentMaps) -> None:
        levels, size = maps.radiance.shape[:2]
        radiance = self.ctx.texture_array(
            (size, size, levels), 3, maps.radiance.tobytes(), dtype="f4"
        )
        radiance.repeat_x = radiance.repeat_y = False
        radiance.filter = (moderngl.LINEAR, moderngl.LINEAR)
        lut = maps.brdf_lut
        table = self.ctx.texture(
            lut.shape[1::-1], 2, np.ascontiguousarray(lut).tobytes(), dtype="f4"
        )
        table.repeat_x = table.repeat_y = False
        table.filter = (moderngl.LINEAR, moderngl.LINEAR)
        self._textures = (radiance, table)
        self._sh = [tuple(map(float, c)) for c in maps.irradiance_sh]

    def bind(self, prog: moderngl.Program, look: Lighting) -> None:
        """Bind the maps and set `prog`'s environment and picture uniforms for `look`."""
        on = look.environment != "none"
        if on and self._textures is None:
            self._upload(environment_maps())
        values: dict[str, float | list[tuple[float, ...]] | None] = {
            "u_env_strength": 1.0 if on else 0.0,
            "u_exposure": float(look.exposure),
            "u_tone_mapping": TONE_MAPPINGS.index(look.tone_mapping),
            # units of their own even when unused: samplers of two types on one unit make
            # every draw fail
            "u_env_radiance": RADIANCE_UNIT,
            "u_brdf_lut": LUT_UNIT,
        }
        if self._textures is not None:
            self._textures[0].use(location=RADIANCE_UNIT)
            self._textures[1].use(location=LUT_UNIT)
            values["u_env_levels"] = float(self._textures[0].size[2])
            values["u_env_sh"] = self._sh
        for name, value in values.items():
            set_uniform(prog, name, value)

    def release(self) -> None:
        for tex in self._textures or ():
            tex.release()
        self._textures = None


def light_uniforms(
    prog: moderngl.Program, lights, world: np.ndarray, default_dir, look: Lighting = Lighting()
) -> None:
    """Set the light uniforms of `prog` for `lights` (`FileLight`s; empty and without the
    environment: the default light towards world direction `default_dir`), their nodes
    placed by `world`."""
    if find_uniform(prog, "u_light_count") is None:
        return
    n = min(len(lights), MAX_LIGHTS)
    kinds, pos, to, color, rng, cone = [], [], [], [], [], []
    if n == 0 and look.environment == "none":
        d = np.asarray(default_dir, dtype=np.float64)
        kinds, pos, to, color = (
            [0],
            [(0.0, 0.0, 0.0)],
            [tuple(-d / np.linalg.norm(d))],
            [DEFAULT_LIGHT],
        )
        rng, cone = [0.0], [(1.0, 0.0)]
    for light in lights[:n]:
        m = world[light.node]
        axis = -m[:3, 2]
        length = np.linalg.norm(axis)
        axis = axis / length if length > 0 else np.array([0.0, 0.0, -1.0])
        kinds.append(_KINDS[light.kind])
        pos.append(tuple(m[:3, 3]))
        to.append(tuple(axis))
        color.append(tuple(np.asarray(light.color) * light.intensity))
        rng.append(0.0 if light.range is None else light.range)
        cos_in, cos_out = math.cos(light.inner_cone), math.cos(light.outer_cone)
        scale = 1.0 / max(1e-3, cos_in - cos_out)
        cone.append((scale, -cos_out * scale))
    count = len(kinds)
    pad = MAX_LIGHTS - count
    uniform(prog, "u_light_count").value = count
    for name, values, blank in (
        ("u_light_type", kinds, 0),
        ("u_light_pos", pos, (0.0, 0.0, 0.0)),
        ("u_light_to", to, (0.0, -1.0, 0.0)),
        ("u_light_color", color, (0.0, 0.0, 0.0)),
        ("u_light_range", rng, 0.0),
        ("u_light_cone", cone, (1.0, 0.0)),
    ):
        set_uniform(prog, name, list(values) + [blank] * pad)
