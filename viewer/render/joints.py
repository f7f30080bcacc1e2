"""The joints of skins drawn over their skinned meshes, glowing with their nodes.

A skin's joints are nodes without meshes, and the mesh they deform covers them and the
lines between them, so their glow (red: own change, orange: followed one) would show only
in the panel. After the skinned meshes this draws each joint's line to its parent joint and
a small disk per joint, without depth test (X-ray), in the joint's glow colour, or neutral
while it does not glow. The disks are sized to the model (a small fraction of the span of
its posed skinned meshes in the world, whatever scale the joints carry), with a floor in
pixels so that a far-away skeleton stays visible. The renderer draws them only with the
overlay: they are a debugging aid, not part of the model.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.palette import GLOW_LOCAL, GLOW_WORLD

from ..animation.skin import Skinning
from .camera import Camera
from .ribbons import GLOW_LINE_PX, strip_quads
from .vertices import ColoredVertices

__all__ = ["JointMarkers", "joint_colors"]

#: Colour and opacity of a joint (and its line) that does not glow.
NEUTRAL = (0.86, 0.88, 0.93, 0.8)
#: The dark rim around each disk, so that it reads on light and dark surfaces alike.
RIM = (0.08, 0.08, 0.1, 0.9)
#: Disk radius as a fraction of the skin's span in the world (the diagonal of the box
#: around its posed meshes).
MARKER_FRACTION = 0.01
#: The disk radius never drops below this many pixels.
MARKER_MIN_PX = 4.0
#: Width in pixels of the rim, and of the lines of joints that do not glow.
RIM_PX = 1.5
LINE_PX = 2.0
#: Sides of the polygon that stands for a disk.
SIDES = 12


def joint_colors(glow: np.ndarray) -> np.ndarray:
    """RGBA [n, 4] for joints of signed glow values `glow` [n] (negative: red, the
    joint's own value changed; positive: orange, it followed a change; 0: neutral). The
    glow colour blends over the neutral one by the strength."""
    h = np.asarray(glow, dtype=np.float32).reshape(-1)
    glow = np.where((h < 0)[:, None], np.asarray(GLOW_LOCAL), np.asarray(GLOW_WORLD))
    s = np.clip(np.abs(h), 0.0, 1.0)[:, None]
    rgb = (1.0 - s) * np.asarray(NEUTRAL[:3]) + s * glow
    alpha = (1.0 - s) * NEUTRAL[3] + s
    return np.hstack([rgb, alpha]).astype(np.float32)


def skin_spans(skinning: Skinning, mesh_data: dict, worlds: np.ndarray) -> np.ndarray:
    """Per skin, the diagonal of the world box around the meshes it deforms, posed by
    the world matrices `worlds` (or around its joints when it deforms none): the size
    the markers follow. The joints' own scale plays no part: an armature scaled by 100
    over a mesh in centimetres makes a model of the usual size, and so markers too."""
    spans = np.zeros(len(skinning.skins))
    for k, skin in enumerate(skinning.skins):
        mats = skin.matrices(worlds)  # (J, 4, 4): world(joint) @ inverseBind
        points = []
        for m in skinning.meshes:
            if m.skin != k or m.mesh not in mesh_data:
                continue
            pos = np.asarray(mesh_data[m.mesh][0], dtype=np.float64).reshape(-1, 3)
            joints, weights = skinning.attributes[m.mesh]
            blend = np.einsum("nk,nkij->nij", weights.astype(np.float64), mats[joints])
            points.append(np.einsum("nij,nj->ni", blend[:, :3, :3], pos) + blend[:, :3, 3])
        pts = np.vstack(points) if points else worlds[skin.joints, :3, 3]
        spans[k] = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))
    return spans


class JointMarkers:
    """Lines and disks for the joints of a scene's skins ("lines" program, whose
    `u_view_proj` the caller sets)."""

    def __init__(
        self,
        ctx: moderngl.Context,
        program: moderngl.Program,
        skinning: Skinning,
        mesh_data: dict,
        worlds: np.ndarray,
    ) -> None:
        self.ctx = ctx
        self.joints = np.unique(np.concatenate([s.joints for s in skinning.skins] or [np.zeros(0)]))
        self.joints = self.joints.astype(np.int64)
        #: By node id: whether it is a joint (a mask, so each draw sorts nothing).
        self._is_joint = np.zeros(int(self.joints.max()) + 1 if len(self.joints) else 0, bool)
        self._is_joint[self.joints] = True
        spans = skin_spans(skinning, mesh_data, worlds)
        self._skins = [
            (np.asarray(s.joints, dtype=np.int64), span) for s, span in zip(skinning.skins, spans)
        ]
        self._lines = ColoredVertices(ctx, program, 6 * max(len(self.joints), 1))
        self._disks = ColoredVertices(ctx, program, 6 * SIDES * max(len(self.joints), 1))

    def radii(self, worlds: np.ndarray, camera: Camera, size: tuple[int, int]) -> np.ndarray:
        """Disk radius per joint of `self.joints` (world units): the largest of its skins'
        `MARKER_FRACTION` of the span, and `MARKER_MIN_PX` pixels."""
        radius = np.zeros(len(self.joints))
        for joints, span in self._skins:
            at = np.searchsorted(self.joints, joints)
            radius[at] = np.maximum(radius[at], MARKER_FRACTION * span)
        pixel = camera.pixel_size(worlds[self.joints, :3, 3], size)
        return np.maximum(radius, MARKER_MIN_PX * pixel)

    def draw(
        self,
        worlds: np.ndarray,
        parents: np.ndarray,
        glow: np.ndarray | None,
        camera: Camera,
        size: tuple[int, int],
    ) -> None:
        """Draw over everything drawn so far: `worlds` the graph's world matrices, `parents`
        its parent ids, `glow` the signed glow of each of `self.joints` now (`Glow.signed`;
        None: no glow on show, every joint neutral)."""
        if len(self.joints) == 0:
            return
        ids = self.joints
        if glow is None:
            glow = np.zeros(len(ids), dtype=np.float32)
        colors = joint_colors(glow)
        centres = worlds[ids, :3, 3]
        self._write_lines(worlds, parents, glow, colors, camera, size)
        self._write_disks(centres, self.radii(worlds, camera, size), colors, camera, size)
        ctx = self.ctx
        ctx.disable(moderngl.DEPTH_TEST)
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        self._lines.render(moderngl.TRIANGLES)
        self._disks.render(moderngl.TRIANGLES)
        ctx.enable(moderngl.DEPTH_TEST)

    def _write_lines(
        self,
        worlds: np.ndarray,
        parents: np.ndarray,
        glow: np.ndarray,
        colors: np.ndarray,
        camera: Camera,
        size: tuple[int, int],
    ) -> None:
        """A strip from each joint whose parent is a joint to that parent: glowing ones as
        wide as the other glowing lines, the others thinner."""
        ids = self.joints
        par = np.asarray(parents, dtype=np.int64)[ids]
        ok = (par >= 0) & (par < len(self._is_joint))
        ok[ok] = self._is_joint[par[ok]]
        if not ok.any():
            self._lines.count = 0
            return
        a, b = worlds[par[ok], :3, 3], worlds[ids[ok], :3, 3]
        width = np.where(glow[ok] != 0, GLOW_LINE_PX, LINE_PX)
        quads = strip_quads(a, b, camera, size, width)
        self._lines.write(quads.reshape(-1, 3), np.repeat(colors[ok], 6, axis=0))

    def _write_disks(
        self,
        centres: np.ndarray,
        radii: np.ndarray,
        colors: np.ndarray,
        camera: Camera,
        size: tuple[int, int],
    ) -> None:
        """A dark rim disk, then the coloured disk inside it, parallel to the screen."""
        view = camera.view_matrix()
        right, top = view[0, :3], view[1, :3]  # the screen's axes in world space
        angle = 2.0 * np.pi * np.arange(SIDES + 1) / SIDES
        ring = np.cos(angle)[:, None] * right + np.sin(angle)[:, None] * top  # [SIDES + 1, 3]
        rim = radii + RIM_PX * camera.pixel_size(centres, size)
        disks, fills = [], []
        for r, rgba in ((rim, np.broadcast_to(RIM, colors.shape)), (radii, colors)):
            edge = centres[:, None] + ring[None] * r[:, None, None]  # [n, SIDES + 1, 3]
            tri = np.stack(
                [np.broadcast_to(centres[:, None], edge[:, :-1].shape), edge[:, :-1], edge[:, 1:]],
                axis=2,
            )  # [n, SIDES, 3, 3]
            disks.append(tri.reshape(-1, 3))
            fills.append(np.repeat(rgba, 3 * SIDES, axis=0))
        self._disks.write(np.vstack(disks), np.vstack(fills))

    def release(self) -> None:
        self._lines.release()
        self._disks.release()
