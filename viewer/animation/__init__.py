"""Keyframe animation of scene nodes (glTF animations): clips, sampling and playing.

No GL: the frame loop calls `apply_animation(scene, t)`; a panel drives the scene's
`AnimationPlayer`.
"""

from .clip import Channel, Clip
from .player import AnimationPlayer, apply_animation
from .sampler import INTERPOLATIONS, sample, slerp

__all__ = [
    "INTERPOLATIONS",
    "AnimationPlayer",
    "Channel",
    "Clip",
    "apply_animation",
    "sample",
    "slerp",
]
