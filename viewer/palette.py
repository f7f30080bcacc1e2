"""The viewer's shared colours (RGB in 0..1), in one place: renderer, overlay and demo agree.

Imports nothing: the pure parts of the overlay and the collision demo can use it without
pulling in GL.
"""

#: Glow of a node whose own (local) value changed this frame.
GLOW_LOCAL = (1.0, 0.13, 0.08)
#: Glow of a node whose world matrix was recomputed because something above it changed.
GLOW_WORLD = (1.0, 0.56, 0.0)
#: The selection outline (RGBA).
SELECTION_COLOR = (1.0, 0.95, 0.35, 1.0)
#: The collision demo's disk and rectangle while they overlap.
HIT_COLOR = (0.84, 0.15, 0.16)
