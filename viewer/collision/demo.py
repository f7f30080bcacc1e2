"""The interactive disk-and-rectangle demo (docs/semantics.md section 6), without GL.

A scene with a ``[collision]`` table names a disk node and a rectangle node. Each frame the
app moves the disk (H J K L) and turns the rectangle (R, Shift+R) through this class, runs
``graph.update()``, then asks ``read()`` whether they overlap. The rectangle's axes come
from its world matrix, so when it is a child of a turning pivot the oriented test runs;
at multiples of 90 degrees the axis-aligned one does, with width and height swapped at odd
multiples. Both are drawn red while they overlap, the disk a paler red in front of the
rectangle (the app does the drawing).

M swaps the rectangle's motion between oscillating along X and revolving about a centre
(the pivot's spin) without a jump: the new motion starts from the current pose. Going to
revolve, the pivot moves under the rectangle so that the rectangle sits at its rest offset
from it (radius 5 in the bundled scene) while its world pose stays put; going back, the
oscillation runs along its authored axis in the world again (undoing the pivot's turn) about
where the rectangle stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viewer.content.motion import Motion
from viewer.content.scene import Scene
from viewer.scene.math import quat_conjugate, quat_multiply, quat_rotate

from .continuity import current_values, restart_at
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
    #: The disk centre from the rectangle's centre, along the axes the test used: the
    #: rectangle's own (width, height directions) for the oriented test, the world's X
    #: and Y for the axis-aligned one (paired with `width` and `height` either way).
    s: float
    t: float
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
        self.pivot = None if spec.revolve is None else graph[spec.revolve]
        pivot = None if self.pivot is None else self.pivot.id
        #: The motions of each mode as the scene file gives them.
        self._authored = {
            "oscillate": [m for m in scene.motions if pivot is None or pivot not in m.ids],
            "revolve": [m for m in scene.motions if pivot is not None and pivot in m.ids],
        }
        #: The rectangle's offset from the pivot while revolving (the scene file's).
        self._radius_offset = np.array(self.rect.local_position)
        self._pivot_rest_rotation = None if self.pivot is None else self.pivot.local_rotation
        #: The scene file's motions, both modes, as written there (what a save writes).
        self.file_motions = list(scene.motions)
        self.mode = "oscillate"
        scene.motions = list(self._authored[self.mode])

    @property
    def intact(self) -> bool:
        """Whether its nodes are all in the graph: the user may delete one (then the demo
        waits, moving and testing nothing, until an undo brings it back)."""
        return all(n.alive for n in (self.disk, self.rect, self.pivot) if n is not None)

    @property
    def move_step(self) -> float:
        return REVOLVE_MOVE_STEP if self.mode == "revolve" else MOVE_STEP

    def switch_mode(self, t: float = 0.0) -> str:
        """M: swap the rectangle's own motion between oscillation and revolution, carrying
        on from the pose at scene time `t` (the time the motions were last applied at)."""
        if not self.intact:
            return self.mode
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        if self.mode == "revolve":
            self._centre_pivot_under_rect()
        graph = self.scene.graph
        self.scene.motions = [
            restart_at(m, t, current_values(graph, m)) for m in self._mode_motions()
        ]
        return self.mode

    def _centre_pivot_under_rect(self) -> None:
        """Move the pivot so the rectangle sits at its authored offset from it, keeping the
        rectangle's world pose: the revolution then has the documented radius."""
        if self.pivot is None or self.rect.parent != self.pivot:
            return
        drift = self.rect.local_position - self._radius_offset
        pivot_linear = self.pivot.local_matrix[:3, :3]
        self.pivot.local_position = self.pivot.local_position + pivot_linear @ drift
        self.rect.local_position = self._radius_offset

    def _mode_motions(self) -> list[Motion]:
        """This mode's motions; oscillating, the axes of the pivot's children are turned
        back by the pivot's turn so they run along their authored world directions."""
        motions = self._authored[self.mode]
        rest = self._pivot_rest_rotation  # (None exactly when there is no pivot)
        if self.mode != "oscillate" or self.pivot is None or rest is None:
            return list(motions)
        undo = quat_multiply(quat_conjugate(self.pivot.local_rotation), rest)
        children = [c.id for c in self.pivot.children]
        out = []
        for m in motions:
            if m.channel == "position" and m.kind != "pulse":
                turned = np.isin(m.ids, children)
                axis = m.axis.copy()
                axis[turned] = quat_rotate(undo, axis[turned])
                m = Motion(m.kind, m.ids, axis, m.speed, m.amplitude, m.period, m.phase, m.rest)
            out.append(m)
        return out

    def move_disk(self, dx: int, dy: int) -> None:
        """Move the disk by whole steps (-1, 0, +1 per axis) in its parent's space."""
        if not self.intact:
            return
        step = self.move_step
        self.disk.translate((dx * step, dy * step, 0.0))

    def turn_rect(self, sign: int) -> None:
        """Turn the rectangle by ``sign`` steps about Z."""
        if not self.intact:
            return
        self.rect.rotate((0.0, 0.0, 1.0), sign * TURN_STEP)

    def read(self) -> Reading:
        """Test the disk against the rectangle as they are now (docs/semantics.md section 6)."""
        disk_world = self.disk.world_matrix
        center = disk_world[:2, 3]
        radius = self.disk_size[0] / 2.0 * float(np.hypot(*disk_world[:2, 0]))
        rect_center, ui, uj, sizes_w, sizes_h = rect_from_world(
            self.rect.world_matrix, self.rect_size[0], self.rect_size[1]
        )
        width, height = float(sizes_w), float(sizes_h)  # (floats already: one matrix)
        s, t = rect_coords(center, rect_center, ui, uj)
        angle = float(np.degrees(np.arctan2(ui[1], ui[0])))
        aligned = axis_aligned_size(ui, uj, width, height)
        if aligned is not None:
            # The axis-aligned test works in the world's axes, with the size along X and
            # Y: its s and t are the disk's offsets along X and Y, so that they pair with
            # that size (at 90 and 270 degrees the rectangle's own axes are swapped).
            hit = disk_vs_aabb(center, radius, aligned[0], aligned[1], rect_center=rect_center)
            s, t = (float(v) for v in np.asarray(center) - np.asarray(rect_center))
            return Reading(bool(hit), "axis-aligned", s, t, *aligned, radius, angle)
        hit = disk_vs_obb(center, rect_center, ui, uj, radius, width, height)
        return Reading(bool(hit), "oriented", s, t, width, height, radius, angle)

    def reset(self) -> None:
        """Back to the scene file's oscillation (a restart of the scene)."""
        self.mode = "oscillate"
        self.scene.motions = list(self._authored[self.mode])
