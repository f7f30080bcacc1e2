"""GPU side of sgview: the only package that imports moderngl.

`Renderer` draws a `Scene` with one instanced draw per mesh kind and uploads only what a
frame report says changed; `Camera` is pure numpy (orbit, projection, picking rays);
`offscreen` writes screenshots and recordings.
"""

from .camera import Camera
from .renderer import Renderer

__all__ = ["Camera", "Renderer"]
