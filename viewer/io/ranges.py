"""The accepted range of every number in a scene, and the check that keeps a whole scene
inside it at any time.

"Finite" is not enough: a position of 1e300 is finite, but its square, a grid step or a
camera distance computed from it is not, and a motion period of 1e-310 turns ``t/period``
into infinity. Each quantity therefore has a range (docs/scene-format.md lists them, and a
test checks that the table there matches `RANGES`), checked where the file is read. Ranges
per value are not enough either: twenty nested scales of 1e6 multiply to 1e120. So once a
scene is built, `check_world_reach` bounds, for every node and over every value its
motions, events and glTF animation clips can give it (skinned vertices through their
joints' inverse bind matrices), how far from the origin it can be and how large it can be
drawn, and refuses the scene when that exceeds `WORLD_REACH`. Within that, every later
computation (motions at any allowed time, world matrices, bounds, camera, grid) stays far
from overflow, also in float32 on the GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..content.motion import MAX_TIME
from ..text import quoted

__all__ = [
    "RANGES",
    "WORLD_REACH",
    "MAX_TIME",
    "Range",
    "check_world_reach",
    "instance_reach",
    "out_of_range",
    "reach_reason",
]


@dataclass(frozen=True)
class Range:
    """Magnitudes allowed for a quantity: ``low <= |x| <= high`` (``low`` 0: zero is fine)."""

    low: float
    high: float
    what: str

    def message(self, x: float) -> str | None:
        """Why `x` is refused, or None when it is inside the range."""
        if abs(x) > self.high:
            return f"expected {self.what} of magnitude at most {_short(self.high)}, got {x!r}"
        if abs(x) < self.low:
            return f"expected {self.what} of magnitude at least {_short(self.low)}, got {x!r}"
        return None


def _short(x: float) -> str:
    """1e9 rather than 1e+09."""
    return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


#: The range of every number a scene file holds, by the name docs/scene-format.md uses.
RANGES = {
    "position": Range(0.0, 1e9, "coordinates"),
    "camera point": Range(0.0, 1e12, "coordinates"),
    "rotation": Range(0.0, 1e6, "angles in degrees"),
    "scale": Range(1e-6, 1e6, "scale factors"),
    "size": Range(1e-6, 1e9, "sizes"),
    "orthographic height": Range(1e-6, 1e12, "a height"),
    "speed": Range(0.0, 1e6, "a speed in degrees per second"),
    "phase": Range(0.0, 1e6, "a phase in degrees"),
    "swing amplitude": Range(0.0, 1e6, "an amplitude in degrees"),
    "oscillate amplitude": Range(0.0, 1e9, "an amplitude"),
    "pulse amplitude": Range(0.0, 0.99, "a fraction"),
    "period": Range(1e-3, 1e9, "a period in seconds"),
}
#: How far apart the camera's position and target must be, relative to their magnitude
#: (so that they stay apart in float32 too).
CAMERA_GAP = 1e-6
#: No node may reach farther from the origin, or be drawn larger, at any time.
WORLD_REACH = 1e12


def out_of_range(quantity: str, values) -> str | None:
    """Why one of `values` is outside the range of `quantity`, or None."""
    rng = RANGES[quantity]
    for x in values:
        reason = rng.message(float(x))
        if reason is not None:
            return reason
    return None


def reach_reason(graph, ids: np.ndarray) -> str | None:
    """Why a node among `ids` (the frame's recomputed ones) lies beyond `WORLD_REACH`
    (or holds a non-finite number) in its current world matrix, naming the first such
    node and the value; None when all are in range. Costs a pass over those ids only.

    For values a program sets at run time (an ``on_frame`` callback): a file's values are
    bounded when it loads (`check_world_reach`), a callback's only once it ran."""
    if ids.size == 0:
        return None
    worlds = graph.world_matrices()[ids].reshape(-1, 16)
    bad = np.flatnonzero(~(np.abs(worlds).max(axis=1) <= WORLD_REACH))  # NaN is bad too
    if bad.size == 0:
        return None
    row = int(bad[0])
    name = quoted(graph.name_of(int(ids[row])))  # a name from a file or a program
    position = worlds[row, [3, 7, 11]]
    if not (np.abs(position) <= WORLD_REACH).all():
        shown = ", ".join(f"{x:.6g}" for x in position.tolist())
        return (
            f"node {name}: its world position ({shown}) is out of range (at most "
            f"{_short(WORLD_REACH)} from the origin)"
        )
    value = float(worlds[row][~(np.abs(worlds[row]) <= WORLD_REACH)][0])
    return (
        f"node {name}: its world matrix holds {value:.6g}, out of range (at most "
        f"{_short(WORLD_REACH)}: a scale that large cannot be drawn)"
    )


def camera_gap_reason(position, target) -> str | None:
    """Why the camera's position and target are too close to tell apart, or None."""
    p = np.asarray(position, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64)
    size = max(1.0, float(np.abs(p).max()), float(np.abs(t).max()))
    gap = float(np.abs(p - t).max())
    if gap < CAMERA_GAP * size:
        return (
            f"the camera's target must differ from its position by at least "
            f"{_short(CAMERA_GAP)} of their size, got position {list(map(float, p))} and target "
            f"{list(map(float, t))}"
        )
    return None


# ------------------------------------------------------------------------ the whole scene
def _along_paths(parent: np.ndarray, value: np.ndarray) -> np.ndarray:
    """For each node, the sum of `value` over the node and all its ancestors.

    Pointer jumping: each round adds the partial sum of the ancestor `up` levels higher
    and doubles `up`, so a chain of a million nodes takes 20 rounds of array operations.
    """
    acc = value.copy()
    up = parent.copy()
    live = np.flatnonzero(up >= 0)
    while live.size:
        above = up[live]  # each gathered once a round
        acc[live] = acc[live] + acc[above]
        further = up[above]
        up[live] = further
        live = live[further >= 0]
    return acc


def _surely_within(scale: np.ndarray, reach: np.ndarray, drawn: np.ndarray) -> bool:
    """Whether no node can leave `WORLD_REACH` even if every node's scale and offset lay
    on its one path: a bound over all nodes at once (the product of every scale above 1,
    times the sum of every offset plus the largest drawn size), which spares the walks
    up the tree for the many scenes far inside the box; NaN or inf never pass here."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        grow = float(np.maximum(np.log(np.maximum(scale, 1e-300)), 0.0).sum())
        if not grow < math.log(WORLD_REACH) - 1e-6:
            return False
        extent = math.exp(grow) * (float(reach.sum()) + float(drawn.max(initial=0.0)))
    return extent <= WORLD_REACH * (1.0 - 1e-6)


def _node_bounds(scene, exact: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per node id, over all values its motions and events can give it: the largest
    scale factor, the largest distance from its parent's origin, and its drawn size
    (`exact` False: GPU instances bounded by their largest entry, `instance_reach`)."""
    graph = scene.graph
    n = graph.capacity_ids
    alive = np.zeros(n, dtype=bool)
    alive[graph.alive_ids()] = True
    positions, _, scales = graph.local_values()
    scale = np.where(alive, np.abs(scales[:n]).max(axis=1), 0.0)
    with np.errstate(over="ignore"):  # a position of 1e300: inf, refused by the caller
        reach = np.where(alive, np.linalg.norm(positions[:n], axis=1), 0.0)
    for m in scene.motions:
        ids = m.ids
        if m.kind == "pulse":
            rest = np.abs(m.rest).max(axis=1) * (1.0 + np.abs(m.amplitude))
            scale[ids] = np.maximum(scale[ids], rest)
        elif m.kind in ("orbit", "oscillate"):  # an orbit keeps the distance
            rest = np.linalg.norm(m.rest, axis=1) + np.abs(m.amplitude)
            reach[ids] = np.maximum(reach[ids], rest)
    for event in scene.events:
        if event.node not in graph:
            continue
        i = graph[event.node].id
        if event.scale is not None:
            scale[i] = max(scale[i], max(abs(s) for s in event.scale))
        if event.position is not None:
            reach[i] = max(reach[i], math.hypot(*event.position))
    _animated_bounds(scene, n, scale, reach)
    radius: dict[str, float] = {}  # a glTF mesh's farthest vertex from its origin
    drawn = _drawn_sizes(scene, n, radius)
    _skinned_bounds(scene, n, drawn)
    _gltf_geometry_reach(scene, drawn, radius, exact)
    return scale, reach, drawn


def _drawn_sizes(scene, n: int, radius: dict[str, float]) -> np.ndarray:
    """Per node id, the size its look is drawn at (0: none); worked out once per look
    object (looks are shared: a million nodes may have a handful), filling `radius`."""
    drawn = np.zeros(n)
    looks = list(scene.looks.values())
    ids = np.fromiter(scene.looks.keys(), np.int64, len(looks))
    objects = np.fromiter(map(id, looks), np.int64, len(looks))
    _, first, which = np.unique(objects, return_index=True, return_inverse=True)
    size = np.zeros(first.size)
    for u, look in enumerate(map(looks.__getitem__, first.tolist())):
        if look.mesh == "none":
            continue
        extent = 1.0  # a built-in mesh fits the unit box
        if look.mesh in scene.mesh_data:
            if look.mesh not in radius:
                positions = scene.mesh_data[look.mesh][0]
                with np.errstate(invalid="ignore", over="ignore"):
                    far = float(np.abs(positions).max(initial=0.0))
                radius[look.mesh] = 2.0 * far  # 2x: the built-in unit box spans ±0.5
            extent = radius[look.mesh]
        size[u] = extent * max(look.size) * math.sqrt(3.0)
    kept = (ids >= 0) & (ids < n)
    drawn[ids[kept]] = size[which.reshape(-1)[kept]]
    return drawn


def _channel_bound(channel) -> np.ndarray:
    """Per key interval's worth of bound: the largest |value| (per component) a channel
    can give at any time. Between keys, STEP and LINEAR stay within the keys' values; a
    cubic Hermite segment can overshoot its end values by at most 4/27 of each tangent
    times the segment's length (the peak of the tangent basis functions)."""
    values = np.abs(np.asarray(channel.values, dtype=np.float64))
    if channel.interpolation != "CUBICSPLINE":
        return values.max(axis=0)
    gap = float(np.diff(channel.times).max(initial=0.0))
    return values[:, 1].max(axis=0) + (4.0 / 27.0) * gap * values[:, ::2].max(axis=(0, 1))


def _animated_bounds(scene, n: int, scale: np.ndarray, reach: np.ndarray) -> None:
    """Widen `scale` and `reach` by what any clip of the scene's glTF animation can set
    (every clip, over its whole length: the user can pick any of them)."""
    player = scene.animation
    for clip in [] if player is None else player.clips:
        for channel in clip.channels:
            i = channel.node
            if not 0 <= i < n or channel.path in ("rotation", "weights", "instances"):
                continue
            bound = _channel_bound(channel)
            if channel.path == "scale":
                scale[i] = max(scale[i], float(bound.max()))
            else:
                reach[i] = max(reach[i], float(np.linalg.norm(bound)))


def _skinned_bounds(scene, n: int, drawn: np.ndarray) -> None:
    """A skinned vertex is drawn at ``world(joint) @ inverseBind(joint) @ p``: so each
    joint is, for the reach check, drawn as large as its inverse bind matrix can carry the
    farthest vertex of the meshes its skin deforms (the mesh node's own transform plays
    no part)."""
    skinning = scene.skinning
    if skinning is None:
        return
    far = np.zeros(len(skinning.skins))
    for m in skinning.meshes:
        if m.mesh in scene.mesh_data:
            positions = np.asarray(scene.mesh_data[m.mesh][0], dtype=np.float64)
            with np.errstate(invalid="ignore", over="ignore"):
                far[m.skin] = max(far[m.skin], float(np.abs(positions).max(initial=0.0)))
    for k, skin in enumerate(skinning.skins):
        binds = np.abs(np.asarray(skin.inverse_binds, dtype=np.float64))
        with np.errstate(over="ignore", invalid="ignore"):  # inf is caught by the caller
            size = binds[:, :3, :3].sum(axis=2).max(axis=1) * far[k] + binds[:, :3, 3].max(1)
        joints = np.asarray(skin.joints, dtype=np.int64)
        ok = (joints >= 0) & (joints < n)
        np.maximum.at(drawn, joints[ok], size[ok] * math.sqrt(3.0))


def _gltf_geometry_reach(
    scene, drawn: np.ndarray, radius: dict[str, float], exact: bool = True
) -> None:
    """Widen `drawn` by what morph targets (at any weight the node or its animations can
    give) and GPU instances (at their own transforms) can add to a node's drawn extent."""
    geometry = scene.geometry
    n = len(drawn)

    def mesh_radius(key: str) -> float:
        if key not in radius:
            with np.errstate(invalid="ignore", over="ignore"):
                radius[key] = 2.0 * float(np.abs(scene.mesh_data[key][0]).max(initial=0.0))
        return radius[key]

    weight_max = {node: float(np.abs(w).max(initial=0.0)) for node, w in geometry.weights.items()}
    player = scene.animation
    for clip in [] if player is None else player.clips:
        for c in clip.channels:
            if c.path == "weights":
                top = float(np.abs(c.values).max(initial=0.0))
                weight_max[c.node] = max(weight_max.get(c.node, 0.0), top)
    with np.errstate(invalid="ignore", over="ignore"):
        for item in geometry.morphed:
            targets = geometry.targets.get(item.mesh)
            if item.node >= n or targets is None or item.mesh not in scene.mesh_data:
                continue
            per_target = np.abs(targets.positions).max(axis=(1, 2), initial=0.0).sum()
            extra = 2.0 * weight_max.get(item.node, 0.0) * float(per_target) * math.sqrt(3.0)
            base = mesh_radius(item.mesh) * math.sqrt(3.0)
            drawn[item.node] = max(drawn[item.node], base) + extra
        clips = [] if player is None else player.clips
        played = {
            c.node: c.values for clip in clips for c in clip.channels if c.path == "instances"
        }
        for item in geometry.instanced:
            if item.node >= n or item.mesh not in scene.mesh_data:
                continue
            far = mesh_radius(item.mesh)
            reach = instance_reach(item.locals, far, exact)
            if item.node in played:  # any key of its animation (every item's rows: a bound)
                reach = max(reach, instance_reach(played[item.node], far, exact))
            drawn[item.node] = max(drawn[item.node], reach)


#: Instances whose reach `instance_reach` takes at once (temporaries that stay small).
_CHUNK = 4096


def instance_reach(matrices: np.ndarray, radius: float, exact: bool = True) -> float:
    """How far from its node an instance can draw a point within `radius` of its mesh's
    origin: the largest ``|translation| + radius * (largest absolute row sum of the 3x3
    part)`` over `matrices` ((n, 4, 4), or their rows flattened). In chunks that stay in
    the cache, without reductions over an axis of 3 (slow in numpy): a tenth of the
    time of the whole-array expression at 100k instances. `exact` False: an upper bound
    from the largest entry alone, ``(sqrt(3) + 3 * radius) * max|entry|``, two passes
    (`world_reach_reason` takes it first and the exact value only to refuse)."""
    m = np.asarray(matrices, dtype=np.float64).reshape(-1, 4, 4)
    if not exact:
        if not len(m):
            return 0.0
        with np.errstate(invalid="ignore"):  # NaN stays NaN: refused, then told exactly
            return (math.sqrt(3.0) + 3.0 * radius) * max(float(m.max()), -float(m.min()))
    best = 0.0
    for start in range(0, len(m), _CHUNK):
        part = m[start : start + _CHUNK]
        a, t = np.abs(part[:, :3, :3]), part[:, :3, 3]
        sums = a[:, :, 0] + a[:, :, 1] + a[:, :, 2]
        size = np.maximum(np.maximum(sums[:, 0], sums[:, 1]), sums[:, 2])
        spread = np.sqrt(t[:, 0] * t[:, 0] + t[:, 1] * t[:, 1] + t[:, 2] * t[:, 2])
        best = max(best, float((spread + radius * size).max(initial=0.0)))
    return best


def world_reach_reason(scene) -> tuple[int, str] | None:
    """(node id, why) for the first node that could leave `WORLD_REACH`, or None. First
    with GPU instances bounded cheaply, which suffices to accept; a refusal is decided
    and told with their exact reach (the same answer as the exact check alone)."""
    if _reach_reason(scene, exact=False) is None:
        return None
    return _reach_reason(scene, exact=True)


def _reach_reason(scene, exact: bool) -> tuple[int, str] | None:
    graph = scene.graph
    if graph.capacity_ids == 0:
        return None
    scale, reach, drawn = _node_bounds(scene, exact)
    if _surely_within(scale, reach, drawn):
        return None
    parent = np.asarray(graph.parents(), dtype=np.int64)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_scale = _along_paths(parent, np.log(np.maximum(scale, 1e-300)))
    limit = math.log(WORLD_REACH)
    too_big = np.flatnonzero(log_scale > limit)
    if too_big.size:
        i = int(too_big[0])
        return i, (
            f"its world scale (the product of the scales above it, motions, events and "
            f"animations included) can reach 1e{log_scale[i] / math.log(10):.0f}, "
            f"over {_short(WORLD_REACH)}"
        )
    world_scale = np.exp(log_scale)
    parent_scale = np.where(parent >= 0, world_scale[np.maximum(parent, 0)], 1.0)
    with np.errstate(over="ignore", invalid="ignore"):  # inf is caught just below
        distance = _along_paths(parent, parent_scale * reach)
        extent = distance + world_scale * drawn
    far = np.flatnonzero(~(extent <= WORLD_REACH))
    if far.size:
        i = int(far[0])
        return i, (
            f"it can reach {extent[i]:.3g} from the origin (positions, scales, motions, "
            f"events, animations and skins along its path), over {_short(WORLD_REACH)}"
        )
    return None


def check_world_reach(scene, display: str) -> None:
    """Raise `SceneError` naming the first node of `scene` that could leave the world box."""
    from viewer.io.errors import SceneError

    found = world_reach_reason(scene)
    if found is not None:
        i, reason = found
        raise SceneError(reason, file=display, node=scene.graph.name_of(i))
