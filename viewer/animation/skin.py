"""Skins: meshes deformed by joint nodes (glTF skinning), on the scene side (no GL).

A vertex of a skinned mesh follows up to four joints: its position is the weighted sum of
``jointMatrix[j] @ p`` with ``jointMatrix[j] = world(joint j) @ inverseBind(j)``, so the
mesh node's own transform plays no part (the glTF rule). The renderer asks `stale` which
skins had a joint recomputed this frame and uploads only their joint matrices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Skin",
    "SkinnedMesh",
    "Skinning",
]


@dataclass(frozen=True)
class Skin:
    """Joint node ids (J,) and their inverse bind matrices (J, 4, 4)."""

    joints: np.ndarray
    inverse_binds: np.ndarray

    def matrices(self, worlds: np.ndarray) -> np.ndarray:
        """The joint matrices (J, 4, 4) for the graph's world matrices `worlds` (N, 4, 4)."""
        return np.matmul(worlds[self.joints], self.inverse_binds)


@dataclass(frozen=True)
class SkinnedMesh:
    """Node `node` draws mesh `mesh` (a key of `Scene.mesh_data`) deformed by skin `skin`."""

    node: int
    mesh: str
    skin: int
    color: tuple[float, float, float]


@dataclass
class Skinning:
    """The skins of a scene, what they deform, and each skinned mesh's vertex weights.

    `attributes[mesh]` = (joints (n, 4) uint16: indices into the skin's joints, weights
    (n, 4) float32 summing to 1).
    """

    skins: list[Skin] = field(default_factory=list)
    meshes: list[SkinnedMesh] = field(default_factory=list)
    attributes: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def stale(self, executed: np.ndarray) -> list[int]:
        """Indices of the skins with a joint among the node ids `executed` (a mask by id,
        not a sorted set membership: this runs every frame)."""
        if len(executed) == 0:
            return []
        mark = np.zeros(int(np.max(executed)) + 1, dtype=bool)
        mark[executed] = True
        return [k for k, s in enumerate(self.skins) if mark[s.joints[s.joints < mark.size]].any()]

    def extend(self, other: Skinning) -> None:
        """Add another file's skins (their indices shift past ours)."""
        base = len(self.skins)
        self.skins += other.skins
        self.meshes += [SkinnedMesh(m.node, m.mesh, m.skin + base, m.color) for m in other.meshes]
        self.attributes.update(other.attributes)
