"""Caps that keep a hostile or broken scene file from exhausting the machine.

A scene file is untrusted input: a few hundred bytes can claim a billion vertices, and a
small TOML file can include the same glTF model thousands of times. The loaders check
every claim against these caps *before* allocating, and refuse with a `SceneError` that
names the cap and the flag that raises it::

    big.glb: accessor 0: needs 3,221,225,472 bytes of data, over the limit of
    268,435,456 bytes (--max-buffer-mb 256)

- `max_nodes`: nodes in one scene, counting every node a glTF include adds, and the N of
  a generated scene (``sgview --max-nodes N``).
- `max_buffer_bytes`: the size of any one file the glTF reader opens (the ``.gltf`` or
  ``.glb`` itself, each external ``.bin``), of each buffer, and of all the vertex, index
  and animation data read out of all the glTF files of one scene together
  (``sgview --max-buffer-mb MB``), each accessor at its decoded size however little
  of the file it takes (an accessor of zeros, a sparse accessor's whole base, every
  accessor reading a shared view). The arrays made from that data (copies, normals) keep
  a load's peak memory within a small multiple of this (below). The bytes read from files and
  data URIs (glTF files, buffers, images), counted at every read however often the same
  one is named, may come to `READ_FACTOR` times this, and so may the memory the skinned
  meshes take once every node that draws one has its copy (`skinning_reason`).
- What the scene keeps once loaded, charged per mesh as it is read (`Budget.charge_kept`):
  every per-vertex array the loader keeps (positions, normals, colours, coordinates,
  joints and weights, morph deltas: float32 and uint16/uint32 as held, defaults the file
  leaves out included) and the index lists after strips, loops and fans are written out,
  plus the renderer's own copy of them (`GPU_VERTEX_BYTES` a vertex, 4 bytes an index),
  at the size they take, may come to `KEPT_FACTOR` times `max_buffer_bytes`. With the
  data charge and the file's bytes (`READ_FACTOR`), a file within the caps loads and draws
  its first frame within `PEAK_FACTOR` times ``--max-buffer-mb`` above the viewer's own
  footprint (docs/performance.md measures it). A mesh that would keep more is refused in
  one line naming the file, the mesh, the primitive and its count.
- A draw budget, `MAX_DRAWN_VERTICES` vertices a frame counting every node that draws a
  mesh, every GPU instance and every skinned copy (scaled like ``--max-buffer-mb``): a
  4 MB file whose 349,524-vertex mesh 2,000 nodes draw asks 700 million vertices of every
  frame, 21 s a frame in software. `draw_reason` refuses such a scene in one line with
  the count.
- `max_json_bytes`: the JSON text of all the glTF files of one scene together
  (``sgview --max-json-mb MB``). Parsed JSON costs up to about 30 times its text, so
  before the parser runs, the text's containers, keys, items and strings are counted
  and the memory they will take is estimated (an upper bound, see `json_memory_bound`);
  the estimate, summed over the scene, may not exceed ``JSON_MEMORY_FACTOR`` times this
  cap. Together the two caps also bound the load time: no glTF scene within them has
  more than about a million nodes.

Includes do not nest: an include names a glTF file, and a glTF file cannot name another
scene (its URIs reach only buffers and images in its own folder), so the include depth is
at most one and an include cycle cannot form. A ``.toml`` file named as an include or a
mesh is refused. Each glTF file is read once per load however often it is included.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from operator import attrgetter

import numpy as np

from viewer.content import meshes
from viewer.io.errors import SceneError

__all__ = [
    "DEFAULT_LIMITS",
    "GPU_VERTEX_BYTES",
    "JSON_MEMORY_FACTOR",
    "KEPT_FACTOR",
    "MAX_CHANNELS",
    "MAX_BUFFER_BYTES",
    "MAX_JSON_BYTES",
    "MAX_NODES",
    "PEAK_FACTOR",
    "READ_FACTOR",
    "SKINNED_VERTEX_BYTES",
    "Budget",
    "Limits",
    "MAX_DRAWN_VERTICES",
    "channels_reason",
    "draw_reason",
    "json_memory_bound",
    "skinning_reason",
]

#: Default cap on the nodes of one scene (also the largest generated scene): a few seconds
#: of loading or generating (a million generated nodes take about 2.5 s); --max-nodes
#: raises it for a scene the user means to build.
MAX_NODES = 2_000_000
#: Default cap on glTF files, buffers and vertex data: 256 MiB.
MAX_BUFFER_BYTES = 256 * 1024 * 1024
#: Default cap on the JSON text of a scene's glTF files: 16 MiB.
MAX_JSON_BYTES = 16 * 1024 * 1024
#: The estimated memory of the parsed JSON may be this many times `max_json_bytes`.
JSON_MEMORY_FACTOR = 16
#: The bytes read from files and data URIs in one load (each reuse counted) may be this
#: many times `max_buffer_bytes`.
READ_FACTOR = 2
#: What the loaded meshes keep (their arrays and the renderer's copy) may be this many
#: times `max_buffer_bytes`: a mesh with normals, colours and coordinates in its file keeps
#: about twice its accessors' bytes; one of positions alone (12 bytes a vertex) about 9
#: times, so such a mesh over half the cap is refused.
KEPT_FACTOR = 4
#: A file within the caps peaks within this many times `max_buffer_bytes` above the
#: viewer's footprint, loaded and drawn once (the kept arrays, the file's bytes, the
#: accessors converted while their mesh is merged; tests/hostile/test_kept_budget.py).
PEAK_FACTOR = 7
#: Bytes of one vertex in the renderer's vertex buffer (`meshes.VERTEX_FORMAT`).
GPU_VERTEX_BYTES = 4 * sum(int(kind[0]) for kind in meshes.VERTEX_FORMAT.split())
_MB = 1024 * 1024
#: Vertices one frame may draw at the default ``--max-buffer-mb`` (scaled with it): 300
#: million, about a second a frame on a laptop GPU (software GL: far longer).
MAX_DRAWN_VERTICES = 300_000_000


@dataclass(frozen=True)
class Limits:
    """The caps one load works under; see the module docstring."""

    max_nodes: int = MAX_NODES
    max_buffer_bytes: int = MAX_BUFFER_BYTES
    max_json_bytes: int = MAX_JSON_BYTES

    @classmethod
    def make(
        cls, max_nodes: object, max_buffer_bytes: object, max_json_bytes: object = MAX_JSON_BYTES
    ) -> Limits:
        """Checked limits from keyword arguments; ValueError unless positive whole numbers."""
        return cls(
            _positive_whole("max_nodes", max_nodes),
            _positive_whole("max_buffer_bytes", max_buffer_bytes),
            _positive_whole("max_json_bytes", max_json_bytes),
        )

    def node_error(self, count: int, file: str | None, what: str = "the scene") -> SceneError:
        return SceneError(
            f"{what} has {count:,} nodes, over the limit of {self.max_nodes:,} "
            f"(--max-nodes {self.max_nodes})",
            file=file,
        )

    def check_nodes(self, count: int, file: str | None, what: str = "the scene") -> None:
        """Raise if `count` nodes would exceed `max_nodes`."""
        if count > self.max_nodes:
            raise self.node_error(count, file, what)

    def bytes_reason(self, need: int, what: str) -> str | None:
        """Why `need` bytes of `what` are refused, or None when they fit."""
        if need <= self.max_buffer_bytes:
            return None
        return (
            f"{what} is {need:,} bytes, over the limit of {self.max_buffer_bytes:,} bytes "
            f"(--max-buffer-mb {_megabytes(self.max_buffer_bytes)})"
        )


class Budget:
    """What one scene load has used so far, shared by all the glTF files it reads.

    One budget per load, so that a scene including N models cannot use N times the caps.
    Each `charge_*` method adds its bytes and returns why they are refused (None: they fit).
    `format` names the data in those reasons ("glTF", "USD").
    """

    def __init__(self, limits: Limits | None = None, format: str = "glTF") -> None:
        self.limits = DEFAULT_LIMITS if limits is None else limits
        self.format = format
        self.data_bytes = 0
        self.read_bytes = 0
        self.json_bytes = 0
        self.json_memory = 0
        self.kept_bytes = 0

    def charge_data(self, nbytes: int) -> str | None:
        """Accessor data (vertices, indices, keyframes) read out of any scene file."""
        self.data_bytes += nbytes
        return self.limits.bytes_reason(self.data_bytes, f"the {self.format} data of the scene")

    def charge_kept(self, nbytes: int) -> str | None:
        """Arrays a loaded mesh keeps, and the renderer's copy of them (see the module
        notes), before they are made. Capped at `KEPT_FACTOR` times `max_buffer_bytes`."""
        self.kept_bytes += nbytes
        cap = KEPT_FACTOR * self.limits.max_buffer_bytes
        if self.kept_bytes <= cap:
            return None
        return (
            f"all meshes {self.kept_bytes:,}, over {KEPT_FACTOR} times the limit of "
            f"{self.limits.max_buffer_bytes:,} bytes (--max-buffer-mb "
            f"{_megabytes(self.limits.max_buffer_bytes)})"
        )

    def charge_read(self, nbytes: int) -> str | None:
        """Bytes materialised from files and data URIs (glTF files, buffers, images),
        counted at every read: a buffer, image or file named many times costs each time.
        Capped at `READ_FACTOR` times `max_buffer_bytes`, so that a small file cannot make
        the load read one big file over and over."""
        self.read_bytes += nbytes
        cap = READ_FACTOR * self.limits.max_buffer_bytes
        if self.read_bytes > cap:
            return (
                f"the files and buffers the scene reads come to {self.read_bytes:,} bytes "
                f"(each reuse counted), over {READ_FACTOR} times the limit of "
                f"{self.limits.max_buffer_bytes:,} bytes (--max-buffer-mb "
                f"{_megabytes(self.limits.max_buffer_bytes)})"
            )
        return None

    def charge_json(self, text: bytes | memoryview) -> str | None:
        """A glTF JSON text, before it is parsed: its size, then its estimated memory."""
        cap = self.limits.max_json_bytes
        self.json_bytes += len(text)
        if self.json_bytes > cap:
            return (
                f"the glTF JSON of the scene is {self.json_bytes:,} bytes, over the limit of "
                f"{cap:,} bytes (--max-json-mb {_megabytes(cap)})"
            )
        self.json_memory += json_memory_bound(text)
        if self.json_memory > JSON_MEMORY_FACTOR * cap:
            return (
                f"the glTF JSON of the scene would take about {self.json_memory:,} bytes once "
                f"parsed, over {JSON_MEMORY_FACTOR} times its limit of {cap:,} bytes "
                f"(--max-json-mb {_megabytes(cap)})"
            )
        return None


#: Memory the viewer spends per skinned vertex each time a skinned mesh is drawn by a node:
#: its GPU vertex (16 floats) and, when the camera frames the deformed mesh on the CPU,
#: its joint matrices and their blend in float64 (4 x 16 + 16 doubles) and its position.
SKINNED_VERTEX_BYTES = 64 + 8 * (4 * 16 + 16) + 24


#: Animation channels in one scene (every include's copy counted): each is a Python
#: object sampled every frame, so a file animating a million nodes would take gigabytes
#: and seconds per frame. A character with 100 joints and 50 clips has 15,000.
MAX_CHANNELS = 200_000


def channels_reason(count: int) -> str | None:
    """Why `count` animation channels are too many, or None."""
    if count <= MAX_CHANNELS:
        return None
    return f"{count:,} animation channels, over the limit of {MAX_CHANNELS:,} per scene"


def skinning_reason(scene, limits: Limits) -> str | None:
    """Why the scene's skinned meshes would take too much memory once expanded (every
    node that draws a skinned mesh gets its own copy, so a model included N times costs
    N times), or None. Capped like the bytes read: `READ_FACTOR` times
    `max_buffer_bytes`."""
    skinning = getattr(scene, "skinning", None)
    if skinning is None:
        return None
    vertices = sum(
        len(scene.mesh_data[m.mesh][0]) for m in skinning.meshes if m.mesh in scene.mesh_data
    )
    need = vertices * SKINNED_VERTEX_BYTES
    cap = READ_FACTOR * limits.max_buffer_bytes
    if need <= cap:
        return None
    return (
        f"its skinned meshes come to {vertices:,} vertices over {len(skinning.meshes):,} "
        f"uses, about {need:,} bytes to draw, over {READ_FACTOR} times the limit of "
        f"{limits.max_buffer_bytes:,} bytes (--max-buffer-mb "
        f"{_megabytes(limits.max_buffer_bytes)})"
    )


def _positive_whole(name: str, value: object) -> int:
    """`value` when it is a positive whole number, else a ValueError naming `name`."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    return value


def json_memory_bound(text: bytes | memoryview) -> int:
    """An upper bound of the memory `json.loads(text)` takes (CPython 3.11 and later, 64 bit).

    Counts the characters that start something the parser allocates: ``{`` a dict (72
    bytes with its slot in the parent), ``:`` a key in it (104: the dict grows), ``[`` a
    list (64), ``,`` a further item (40: a pointer, room for the list to grow, a float or
    int object), ``"`` half a string (28). Characters inside strings count too, which only
    raises the bound. The worst shapes measured (``[{},{},...]``, ``[[[]],...]``, floats)
    stay below it (tests/io/test_gltf_budget.py). Counted with numpy a block at a time
    (``bytes.count`` took 0.3 s for a million-node file's 157 MB).
    """
    data = np.frombuffer(text, np.uint8)
    counts = dict.fromkeys(_JSON_COSTS, 0)
    for at in range(0, data.size, _COUNT_BLOCK):
        block = data[at : at + _COUNT_BLOCK]
        for char in _JSON_COSTS:
            counts[char] += int(np.count_nonzero(block == char))
    return len(data) + sum(_JSON_COSTS[c] * k for c, k in counts.items()) + 4096  # + state


#: Bytes `json.loads` may allocate per character that starts something (see above).
_JSON_COSTS = {ord("{"): 72, ord(":"): 104, ord("["): 64, ord(","): 40, ord('"'): 28}
#: Bytes compared at a time (the comparison's temporary stays small).
_COUNT_BLOCK = 1 << 22


def _megabytes(n: int) -> str:
    mb = n / _MB
    return str(int(mb)) if mb.is_integer() else f"{mb:.6g}"


DEFAULT_LIMITS = Limits()


def draw_reason(scene, limits: Limits) -> str | None:
    """Why drawing `scene` would cost more than the draw budget (see the module notes):
    the vertices of every mesh each node draws, once per GPU instance and per skinned
    copy; None when within it."""
    data = scene.mesh_data

    def vertices(key: str) -> int:
        return len(data[key][0]) if key in data else _builtin_vertices(key)

    meshes_drawn = Counter(map(attrgetter("mesh"), scene.looks.values()))  # 1M looks: C loops
    total = sum(count * vertices(mesh) for mesh, count in meshes_drawn.items())
    geometry = getattr(scene, "geometry", None)
    for item in [] if geometry is None else geometry.instanced:
        total += len(item.locals) * vertices(item.mesh)
    skinning = getattr(scene, "skinning", None)
    for mesh in [] if skinning is None else skinning.meshes:
        total += vertices(mesh.mesh)
    cap = MAX_DRAWN_VERTICES * limits.max_buffer_bytes // MAX_BUFFER_BYTES
    if total <= cap:
        return None
    return (
        f"drawing it takes {total:,} vertices a frame (every node, instance and skinned copy "
        f"that draws a mesh), over the draw budget of {cap:,} (--max-buffer-mb "
        f"{_megabytes(limits.max_buffer_bytes)} sets it)"
    )


@cache
def _builtin_vertices(kind: str) -> int:
    """Vertices of a built-in mesh kind (0: none, or no such kind)."""
    return len(meshes.builtin(kind).positions) if kind in meshes.BUILDERS else 0
