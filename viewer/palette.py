"""The colours that more than one part of the viewer shows, as linear RGB(A) in [0, 1].

One home, so that the 3D view, the panels and the collision demo agree on what a colour
means; it imports nothing from the viewer (and no GL), so any module may use it.
"""

from __future__ import annotations

#: Glow of a node whose own value changed (its local matrix was recomputed): red.
GLOW_LOCAL = (1.0, 0.13, 0.08)
#: Glow of a node whose world matrix only was recomputed: orange. Scene colours should
#: keep away from both glows (docs/scene-format.md).
GLOW_WORLD = (1.0, 0.56, 0.0)
#: The box drawn around the selected node.
SELECTION_COLOR = (1.0, 0.95, 0.35, 1.0)
#: The collision demo's rectangle while the disk overlaps it.
HIT_COLOR = (0.84, 0.15, 0.16)
#: The collision demo's disk while it overlaps the rectangle: a paler red, so that it
#: reads against the rectangle's.
HIT_DISK_COLOR = (1.0, 0.62, 0.58)
