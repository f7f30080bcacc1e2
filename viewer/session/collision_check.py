"""The collision demo's phase of a frame: after the update, the disk against the
rectangle, both drawn in the overlap's reds while they overlap (`Frame.recolor` says when
that changes): the rectangle red, the disk a paler red, so that the disk inside the
rectangle stays seen (in one red it vanishes there)."""

from __future__ import annotations

from viewer.collision.demo import CollisionDemo, Reading
from viewer.content.scene import Scene
from viewer.palette import HIT_COLOR, HIT_DISK_COLOR

__all__ = ["CollisionCheck"]


class CollisionCheck:
    """The demo's latest reading, and the colours it last drew."""

    def __init__(self, scene: Scene, demo: CollisionDemo) -> None:
        self.scene, self.demo = scene, demo
        self.reading: Reading | None = None
        self._drawn_hit = False

    def run(self) -> dict[int, tuple[float, float, float]]:
        """Test the overlap; the nodes whose colour changes with it, and their colours."""
        demo = self.demo
        if not demo.intact:  # the user deleted one of its nodes: nothing to test
            self.reading = None
            return {}
        self.reading = reading = demo.read()
        if reading.hit == self._drawn_hit:
            return {}
        self._drawn_hit = reading.hit
        hit_colors = {demo.disk.id: HIT_DISK_COLOR, demo.rect.id: HIT_COLOR}
        return {
            node.id: hit_colors[node.id] if reading.hit else self.scene.look(node.id).color
            for node in (demo.disk, demo.rect)
        }
