"""Scenes built in memory: large generated trees, and the built-in default scene.

``generate_scene("kind:N")`` with kind

- ``chain``: Obj1 → Obj2 → … → ObjN, each link a step along a helix;
- ``balanced``: a complete tree with branching factor 8, filled level by level, each
  level fanned out below its parent at 0.4 times the parent's scale;
- ``random``: node k's parent drawn uniformly from the nodes before it (fixed seed, so the
  same N always gives the same tree).

The whole tree goes into the graph with one `SceneGraph.add_many` call; depths and world
positions (for the camera) are the graph's, looks are computed with numpy, without a
Python loop over the nodes' structure. A few nodes get motions, so the viewer shows partial updates.
"""

from __future__ import annotations

import numpy as np

from viewer.io._build import add_many
from viewer.io.bundled import DEFAULT_TITLE_NOTE, scene_dir
from viewer.io.errors import SceneError
from viewer.io.limits import MAX_NODES
from viewer.io.toml_scene import parse_scene_text

from ..content.motion import Motion, merge_motions
from ..content.motion_kinds import KINDS
from ..content.scene import CameraSpec, Look, Scene
from ..scene.graph import SceneGraph
from ..scene.names import NumberedNames

__all__ = ["GENERATORS", "MAX_GENERATED", "default_scene", "frame_camera", "generate_scene"]

GENERATORS = ("chain", "balanced", "random")
MAX_GENERATED = MAX_NODES  # the default cap; generate_scene(max_nodes=...) moves it
BRANCHING = 8
SEED = 20240611


def _hex_rgb(h: str) -> tuple[float, float, float]:
    return int(h[0:2], 16) / 255.0, int(h[2:4], 16) / 255.0, int(h[4:6], 16) / 255.0


#: One colour per depth, cycling: blues, teals, greens and greys only, so that no node
#: can be mistaken for the overlay's red and orange glow.
DEPTH_COLORS = [
    _hex_rgb(h)
    for h in ("4c72b0", "2a9d8f", "55a868", "8c9bb5", "3fb0c9", "6b8f71", "5a6f8f", "9fb8ad")
]


def generate_scene(spec: str, *, max_nodes: int = MAX_NODES) -> Scene:
    """Build the scene described by `spec`, ``"chain:N"``, ``"balanced:N"`` or ``"random:N"``.

    Raises `SceneError` for a malformed spec or N outside 1..`max_nodes` (default
    `MAX_GENERATED`, ten million; ``sgview --max-nodes`` sets it).
    """
    if not isinstance(max_nodes, int) or isinstance(max_nodes, bool) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive whole number, got {max_nodes!r}")
    where = "--generate"
    if not isinstance(spec, str):
        raise SceneError(f"expected a string like 'balanced:1000', got {spec!r}", section=where)
    kind, sep, count = spec.strip().partition(":")
    if not sep or kind not in GENERATORS:
        raise SceneError(
            f"expected KIND:N with KIND one of {', '.join(GENERATORS)}, got {spec!r}",
            section=where,
        )
    try:
        n = int(count.strip())
    except ValueError:
        raise SceneError(
            f"expected a whole number of nodes after ':', got {count!r}", section=where
        ) from None
    if n < 1:
        raise SceneError(f"expected 1 to {max_nodes:,} nodes, got {n:,}", section=where)
    if n > max_nodes:
        raise SceneError(
            f"expected 1 to {max_nodes:,} nodes, got {n:,} (--max-nodes {max_nodes})",
            section=where,
        )
    parents, positions, rotations, scales = _LAYOUTS[kind](n)
    graph = SceneGraph()
    names = NumberedNames("Obj", 1, n)  # Obj1 .. ObjN: unique by construction, not compared
    ids = add_many(graph, names, parents, positions, rotations, scales, where)
    depth = np.asarray(graph.depths())[ids]  # (the graph lays its tree out once anyway)
    scene = Scene(graph=graph, title=f"{kind} tree of {n:,} nodes")
    cube = {"chain": 0.45, "balanced": 0.6, "random": 0.4}[kind]
    # One Look per depth, shared by the nodes of that depth: a million Look objects would
    # cost more than the graph. Replace a node's look rather than mutating a shared one.
    # Balanced trees shrink each level to 0.4 of its parent; their cubes are drawn larger
    # in local units so that the world size shrinks by only 0.55 per level and deep
    # levels stay visible (still smaller than the gaps between siblings).
    grow = 0.55 / 0.4 if kind == "balanced" else 1.0
    # Where the size does not change with depth, the depths that share a colour share a
    # Look: a chain of a million nodes has a million depths but only a few colours.
    level = depth if grow != 1.0 else depth % len(DEPTH_COLORS)
    by_level = [
        Look("cube", _cube_size(cube * grow**d), DEPTH_COLORS[d % len(DEPTH_COLORS)])
        for d in range(int(level.max()) + 1)
    ]
    scene.looks = dict(zip(ids.tolist(), map(by_level.__getitem__, level.tolist()), strict=True))
    scene.motions = _motions(kind, ids, depth, positions, rotations, scales)
    # Reading the world matrices computes them now instead of at the first update(); the
    # first frame's report is the same either way (every node is new, so all are dirty).
    # (a view: the ids are consecutive, so not even the origins are copied)
    origins = graph.world_matrices()[ids[0] : ids[-1] + 1, :3, 3]
    scene.camera = frame_camera(origins, margin=cube)
    return scene


# ---------------------------------------------------------------------------- layouts
def _cube_size(side: float) -> tuple[float, float, float]:
    return (side, side, side)


def _quat_y(degrees: np.ndarray) -> np.ndarray:
    half = np.radians(degrees) * 0.5
    q = np.zeros((np.size(half), 4))
    q[:, 1] = np.sin(half)
    q[:, 3] = np.cos(half)
    return q


# Each layout returns (parents, positions, rotations, scales); rotations or scales None
# where every node has the identity's (the graph fills those in itself: no million-row
# array of them made here, then checked and normalised there).
def _chain(n: int):
    """A helix: each link one step along its parent's x axis, turned about y."""
    per_turn = max(12, int(round(np.sqrt(n))))
    turn = 360.0 / per_turn
    step = 0.8
    rise = 1.2 / per_turn  # 1.2 units of height per full turn
    parents = np.arange(-1, n - 1, dtype=np.int64)
    positions = np.tile([step, rise, 0.0], (n, 1))
    positions[0] = 0.0
    rotations = _quat_y(np.full(n, turn))
    return parents, positions, rotations, None


def _balanced(n: int):
    """Level by level, eight children fanned out on a ring below their parent: node k > 0
    is child (k - 1) % 8 of node (k - 1) // 8, and every node's children sit at the same
    eight places, worked out once and repeated."""
    parents = np.arange(-1, n - 1, dtype=np.int64) // BRANCHING  # (-1 // 8 is -1: the root)
    angle = 2.0 * np.pi * (np.arange(BRANCHING) + 0.5) / BRANCHING
    ring = np.stack([3.0 * np.cos(angle), np.full(BRANCHING, -2.5), 3.0 * np.sin(angle)], axis=1)
    positions = np.empty((n, 3))
    positions[0] = 0.0
    positions[1:] = np.resize(ring, (n - 1, 3))  # (repeats the ring's rows in order)
    scales = np.full((n, 3), 0.4)
    scales[0] = 1.0
    return parents, positions, None, scales


def _random(n: int):
    """Each node hangs from a uniformly drawn earlier node, offset up and to one side."""
    rng = np.random.default_rng(SEED)
    ids = np.arange(n, dtype=np.int64)
    parents = np.floor(rng.random(n) * ids).astype(np.int64)
    parents[0] = -1
    angle = rng.random(n) * 2.0 * np.pi
    radius = 0.8 + 0.6 * rng.random(n)
    positions = np.stack(
        [radius * np.cos(angle), 0.6 + 0.4 * rng.random(n), radius * np.sin(angle)], axis=1
    )
    positions[0] = 0.0
    rotations = _quat_y(rng.random(n) * 360.0)
    rotations[0] = (0.0, 0.0, 0.0, 1.0)
    return parents, positions, rotations, None


_LAYOUTS = {"chain": _chain, "balanced": _balanced, "random": _random}


# ---------------------------------------------------------------------------- camera
def frame_camera(points: np.ndarray, *, margin: float = 0.5, fov: float = 45.0) -> CameraSpec:
    """A perspective camera that sees every point (plus `margin`), from above and in front."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if points.shape[0] == 0:
        return CameraSpec(fov=fov)
    # Column by column: a strided view of a million world matrices reduces twice as fast so.
    lo = np.array([points[:, c].min() for c in range(3)]) - margin
    hi = np.array([points[:, c].max() for c in range(3)]) + margin
    center = (lo + hi) * 0.5
    radius = max(float(np.linalg.norm(hi - lo)) * 0.5, 1.0)
    distance = radius / np.sin(np.radians(fov) * 0.5) * 1.05
    direction = np.array([0.35, 0.45, 1.0])
    direction /= np.linalg.norm(direction)
    eye = center + direction * distance
    return CameraSpec(
        position=(float(eye[0]), float(eye[1]), float(eye[2])),
        target=(float(center[0]), float(center[1]), float(center[2])),
        fov=fov,
    )


# ---------------------------------------------------------------------------- motions
#: The generated motions' required parameters; axes and phases are the table's defaults.
GENERATED_PARAMS = {
    "spin": {"speed": 20.0},
    "swing": {"amplitude": 25.0, "period": 4.0},
    "orbit": {"speed": 20.0},
    "oscillate": {"amplitude": 0.5, "period": 4.0},
    "pulse": {"amplitude": 0.25, "period": 4.0},
}


#: A node's rotation and scale where its layout gave None: the identity's (one row).
IDENTITY = {"rotation": np.array([[0.0, 0.0, 0.0, 1.0]]), "scale": np.ones((1, 3))}


def _motions(kind, ids, depth, positions, rotations, scales) -> list[Motion]:
    """Motion on a handful of nodes spread through the tree (each moves its subtree)."""
    n = ids.shape[0]
    if n == 1:
        picks = {"spin": [0]}
    elif kind == "chain":
        picks = {
            "spin": [n // 2],
            "swing": [(3 * n) // 4],
            "pulse": [n - 1],
        }
    else:
        first = np.flatnonzero(depth == 1)[:1]
        second = np.flatnonzero(depth == 2)[-1:]
        deepest = np.flatnonzero(depth == depth.max())[:1]
        middle = np.flatnonzero(depth == max(depth.max() // 2, 1))[-1:]
        picks = {
            "spin": first.tolist(),
            "orbit": second.tolist(),
            "oscillate": middle.tolist(),
            "pulse": deepest.tolist(),
        }
    motions = []
    taken: dict[str, set[int]] = {}  # channel -> rows already driven (small trees overlap)
    for motion_kind, picked in picks.items():
        used = taken.setdefault(KINDS[motion_kind].channel, set())
        rows = np.asarray(sorted(set(picked) - used), dtype=np.int64)
        used.update(rows.tolist())
        if rows.size == 0:
            continue
        channel = {"position": positions, "rotation": rotations, "scale": scales}
        values = channel[KINDS[motion_kind].channel]
        if values is None:  # the identity's, one row per node
            rest = np.repeat(IDENTITY[KINDS[motion_kind].channel], len(rows), axis=0)
        else:
            rest = values[rows]
        motions.append(Motion.make(motion_kind, ids[rows], rest, **GENERATED_PARAMS[motion_kind]))
    return merge_motions(motions)


# ---------------------------------------------------------------------------- default
#: The built-in scene is the bundled scenes/tree10.toml (docs/semantics.md example B)
#: under its own title, without the file's scripted touches and with gentle motion on a
#: few nodes, so that only their subtrees update each frame: (node, kind, parameters).
DEFAULT_TITLE = "Ten-node tree with motion" + DEFAULT_TITLE_NOTE
DEFAULT_MOTIONS = (
    ("Obj3", "spin", {"axis": (0.0, 1.0, 0.0), "speed": 25.0}),
    ("Obj7", "oscillate", {"axis": (1.0, 0.0, 0.0), "amplitude": 0.6, "period": 4.0}),
    ("Obj9", "pulse", {"amplitude": 0.25, "period": 3.0}),
)


def default_scene() -> Scene:
    """The scene the viewer opens with no file: the bundled ten-node tree, gently moving
    (not watched for edits: it is not the file as saved)."""
    folder = scene_dir()
    if folder is None:
        raise SceneError("the bundled scenes are missing (no scenes/tree10.toml)")
    path = folder / "tree10.toml"
    scene = parse_scene_text(path.read_text(encoding="utf-8"), f"{path} (built-in scene)")
    scene.title = DEFAULT_TITLE
    scene.events = []
    g = scene.graph
    pos, rot, scl = g.local_values()
    values = {"position": pos, "rotation": rot, "scale": scl}
    motions = []
    for name, kind, params in DEFAULT_MOTIONS:
        i = g[name].id
        rest = np.array(values[KINDS[kind].channel][[i]], dtype=np.float64)
        motions.append(Motion.make(kind, [i], rest, **params))
    scene.motions = merge_motions(motions)
    return scene
