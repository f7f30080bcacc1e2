"""The interactive disk-and-rectangle demo (SEMANTICS.md section 6), without GL.

A scene with a ``[collision]`` table names a disk node and a rectangle node. Each frame the
app moves the disk (H J K L) and turns the rectangle (R, Shift+R) through this class, runs
``graph.update()``, then asks ``read()`` whether they overlap. The rectangle's axes come
from its world matrix, so when it is a child of a turning pivot the oriented test runs;
at multiples of 90 degrees the axis-aligned one does, with width and height swapped at odd
multiples. Both are drawn red while they overlap (the app does the drawing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.content.scene import Scene

from .planar import axis_aligned_size, disk_vs_aabb, disk_vs_obb, rect_coords, rect_from_world

#: Disk step per frame while H J K L are held; doubled in the "revolve" mode.
MOVE_STEP = 0.05
REVOLVE_MOVE_STEP = 0.10
#: Rectangle turn per frame while R is held, degrees about Z.
TURN_STEP = 1.0
MODES = ("oscillate", "revolve")


@dataclass(frozen=True)
class Reading:
    """One frame's answer, with what the overlay shows: which test ran and its inputs."""

    hit: bool
    test: str  # "axis-aligned" or "oriented"
    s: float  # the disk centre in the rectangle's frame (width direction)
    t: float  # ... (height direction)
    width: float  # the sizes the test used (swapped at odd multiples of 90 degrees)
    height: float
    radius: float
    angle: float  # the rectangle's world angle about Z, degrees in (-180, 180]


class CollisionDemo:
    """Drives the demo scene: moves, turns, switches the rectangle's motion, tests."""

    def __init__(self, scene: Scene) -> None:
        spec = scene.collision
        if spec is None:
            raise ValueError(f"scene {scene.title!r} has no [collision] table")
        self.scene = scene
        graph = scene.graph
        self.disk, self.rect = graph[spec.disk], graph[spec.rect]
        self.disk_size = scene.look(self.disk.id).size
        self.rect_size = scene.look(self.rect.id).size
        pivot = None if spec.revolve is None else graph[spec.revolve].id
        self._motions = {
            "oscillate": [m for m in scene.motions if pivot is None or pivot not in m.ids],
            "revolve": [m for m in scene.motions if pivot is not None and pivot in m.ids],
        }
        self.mode = "oscillate"
        scene.motions = list(self._motions[self.mode])

    @property
    def move_step(self) -> float:
        return REVOLVE_MOVE_STEP if self.mode == "revolve" else MOVE_STEP

    def switch_mode(self) -> str:
        """M: swap the rectangle's own motion between oscillation and revolution."""
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self.scene.motions = list(self._motions[self.mode])
        return self.mode

    def move_disk(self, dx: int, dy: int) -> None:
        """Move the disk by whole steps (-1, 0, +1 per axis) in its parent's space."""
        step = self.move_step
        self.disk.translate((dx * step, dy * step, 0.0))

    def turn_rect(self, sign: int) -> None:
        """Turn the rectangle by ``sign`` steps about Z."""
        self.rect.rotate((0.0, 0.0, 1.0), sign * TURN_STEP)

    def read(self) -> Reading:
        """Test the disk against the rectangle as they are now (SEMANTICS.md section 6)."""
        disk_world = self.disk.world_matrix
        center = disk_world[:2, 3]
        radius = self.disk_size[0] / 2.0 * float(np.hypot(*disk_world[:2, 0]))
        rect_center, ui, uj, width, height = rect_from_world(
            self.rect.world_matrix, self.rect_size[0], self.rect_size[1]
        )
        s, t = rect_coords(center, rect_center, ui, uj)
        angle = float(np.degrees(np.arctan2(ui[1], ui[0])))
        aligned = axis_aligned_size(ui, uj, width, height)
        if aligned is not None:
            hit = disk_vs_aabb(center, radius, aligned[0], aligned[1], rect_center=rect_center)
            return Reading(bool(hit), "axis-aligned", s, t, *aligned, radius, angle)
        hit = disk_vs_obb(center, rect_center, ui, uj, radius, width, height)
        return Reading(bool(hit), "oriented", s, t, width, height, radius, angle)
