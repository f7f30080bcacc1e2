"""The lights of the glTF node pass: the file's KHR_lights_punctual lights where it has
any, else one default directional key light; shaders/instanced.frag adds a neutral
environment to either.

A light sits on its node: a directional or spot light shines down the node's -Z axis,
a point or spot light stands at its origin, so an animated lamp moves with its node.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DEFAULT_LIGHT", "ENV_STRENGTH", "MAX_LIGHTS", "light_uniforms"]

#: Lights the shader takes (the first ones of the file are used).
MAX_LIGHTS = 8
#: The default key light's radiance (its colour times intensity, linear).
DEFAULT_LIGHT = (2.3, 2.25, 2.15)
#: The environment's share: with the file's own lights, dimmer (they are the light
#: its author set up; the environment only keeps the shadows readable).
ENV_STRENGTH = 0.75
ENV_STRENGTH_WITH_LIGHTS = 0.4
_KINDS = {"directional": 0, "point": 1, "spot": 2}


def light_uniforms(prog, lights, world: np.ndarray, default_dir) -> None:
    """Set the light uniforms of `prog` for `lights` (`FileLight`s; empty: the default
    light towards world direction `default_dir`), their nodes placed by `world`."""
    if "u_light_count" not in prog:
        return
    n = min(len(lights), MAX_LIGHTS)
    kinds, pos, to, color, rng, cone = [], [], [], [], [], []
    if n == 0:
        d = np.asarray(default_dir, dtype=np.float64)
        kinds, pos, to, color = [0], [(0.0, 0.0, 0.0)], [tuple(-d / np.linalg.norm(d))], [
            DEFAULT_LIGHT]  # fmt: skip
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
    prog["u_light_count"].value = count
    for name, values, blank in (
        ("u_light_type", kinds, 0), ("u_light_pos", pos, (0.0, 0.0, 0.0)),
        ("u_light_to", to, (0.0, -1.0, 0.0)), ("u_light_color", color, (0.0, 0.0, 0.0)),
        ("u_light_range", rng, 0.0), ("u_light_cone", cone, (1.0, 0.0)),
    ):  # fmt: skip
        if name in prog:
            prog[name].value = list(values) + [blank] * pad
    if "u_env_strength" in prog:
        prog["u_env_strength"].value = ENV_STRENGTH_WITH_LIGHTS if n else ENV_STRENGTH
