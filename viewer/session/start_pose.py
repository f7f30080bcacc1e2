"""What `Session.restart` goes back to: the scene as its first frame found it.

Kept apart from the schedule because it is a value, not a phase: the live ids and their
local values, the motions and the clip, taken once when a scene runs its first frame and
put back on restart (nodes removed since are skipped; nodes added since stay as they are).
"""

from __future__ import annotations

from viewer.content.scene import Scene

__all__ = ["StartPose"]


class StartPose:
    """A scene's starting point (see the module notes)."""

    def __init__(self, scene: Scene) -> None:
        graph = scene.graph
        self.scene = scene
        self.ids = graph.alive_ids().copy()
        self.pos, self.rot, self.scl = (a[self.ids] for a in graph.local_values())  # (copies)
        self.motions = list(scene.motions)
        player = scene.animation
        self.clip = player.index if player is not None and player.clips else None

    def put_back(self) -> None:
        """The local values, motions and clip of the start, on the scene (no update)."""
        graph, ids = self.scene.graph, self.ids
        alive = set(graph.alive_ids().tolist())
        keep = [k for k, i in enumerate(ids.tolist()) if i in alive]  # removed: skipped
        if keep:
            graph.set_locals(
                ids[keep], positions=self.pos[keep], rotations=self.rot[keep], scales=self.scl[keep]
            )
        self.scene.motions = self.motions
        player = self.scene.animation  # a scene with a clip at the start keeps a player
        if self.clip is not None and player is not None:
            player.pick(self.clip)
