"""glTF 2.0 import: a node hierarchy with its names, TRS values, parent links and meshes.

data.py reads the container into plain JSON and checks the data (a glTF file is
untrusted input: indices in range, accessors inside their buffer views, views inside their
buffers); this module checks and imports the node tree straight from the JSON, with one
cheap pass per node and the numbers checked in bulk, so a 100,000-node file loads in
about the time ``json.loads`` takes. Any problem becomes a `SceneError`.

The node graph is validated as a whole, whatever the file declares as roots
(nodes.py): each node is the child of at most one node, never its own child, and no
chain of children comes back to where it started.

What is imported:

- The nodes of the default scene (``scene``, else the first one, else every node that is
  nobody's child), in pre-order, with ``translation``/``rotation``/``scale`` or ``matrix``
  (decomposed into TRS; a matrix with shear cannot be represented and is refused).
- Each mesh's primitives of every mode (mesh.py), stored in ``Scene.mesh_data`` under
  the key ``"<resolved path>#<mesh index>"`` (triangles; lines and points in
  ``Scene.geometry``). The base colour of the first primitive's material becomes the
  node's colour.
- Morph targets (``Scene.geometry``): a node whose mesh has them is drawn morphed, with
  the node's ``weights``, else the mesh's, else zeros; ``weights`` channels animate them.
- EXT_mesh_gpu_instancing (instancing.py): the node's mesh drawn once per instance.
- Extensions (extensions.py): a required one sgview cannot honour is refused, an
  unsupported optional one noted.
- The animations (translation, rotation and scale channels: anim.py), as clips.
- Skins (skin.py): a node with a mesh and a skin is drawn deformed by the skin's
  joints (its own transform ignored, as glTF says), not as an instance at the node.
- Materials (metallic-roughness with all five textures, emissive strength, unlit,
  texture transforms, alpha modes), vertex colours and both coordinate sets
  (material.py), as `MeshSurface`s. A mesh whose buffer has no data (no ``uri``, no
  binary chunk) is left out with a note.
- Cameras and KHR_lights_punctual lights (views.py), on their nodes.

Security: a URI may only name a file in the glTF file's own folder. Absolute paths,
``..`` segments, URI schemes other than ``data:`` and symbolic links leading out of the
folder are refused.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from viewer.animation.clip import Clip
from viewer.animation.skin import SkinnedMesh, Skinning
from viewer.content import meshes
from viewer.content.geometry import Geometry, InstancedNode, MorphedNode
from viewer.content.scene import FileCamera, FileLight, Look
from viewer.io.errors import SceneError
from viewer.io.gltf_read.anim import read_animations
from viewer.io.gltf_read.data import DataUnavailable, GltfFile, brief, is_int, whole
from viewer.io.gltf_read.extensions import check_extensions
from viewer.io.gltf_read.instancing import instance_matrices
from viewer.io.gltf_read.mesh import MeshParts, read_mesh
from viewer.io.gltf_read.node_table import TRS_DEFAULTS
from viewer.io.gltf_read.node_values import bulk_values, matrix_trs, number_error, table_values
from viewer.io.gltf_read.nodes import node_order
from viewer.io.gltf_read.primitives import morph_weights
from viewer.io.gltf_read.skin import check_joint_indices, read_skin, skin_index
from viewer.io.gltf_read.source import GltfSource, read_source
from viewer.io.gltf_read.views import read_views
from viewer.io.limits import DEFAULT_LIMITS, Budget, Limits
from viewer.materials import MeshSurface
from viewer.text import quoted

__all__ = ["GltfModel", "collector_paused", "read_gltf"]

#: How far from 1 a node rotation's length may be before it gets a note: the Khronos
#: validator's own bound for ROTATION_NON_UNIT (|length - 1| > 0.00769, its threshold for
#: unit vectors of four components).
UNIT_TOLERANCE = 0.00769

#: Bytes per vertex of a mesh copy on the GPU (`meshes.VERTEX_FORMAT`, all floats).
_VERTEX_BYTES = 4 * sum(int(kind[0]) for kind in meshes.VERTEX_FORMAT.split())


@dataclass
class GltfModel:
    """A glTF node hierarchy ready to be added to a `SceneGraph`.

    Nodes are in pre-order: `parents[i] < i`, -1 for the model's roots.
    """

    path: Path
    title: str
    names: list[str] = field(default_factory=list)
    parents: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    rotations: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    scales: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    looks: list[Look | None] = field(default_factory=list)
    mesh_data: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: For each glTF node index, its row here (-1: not in the imported scene).
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: The file's animations, their channels on rows of this model (see anim.py).
    clips: list[Clip] = field(default_factory=list)
    #: One-line notes about what was left out (e.g. morph-target weight channels).
    notes: list[str] = field(default_factory=list)
    #: Vertex colours and textures of meshes that have them, by mesh key.
    surfaces: dict[str, MeshSurface] = field(default_factory=dict)
    #: Skins and skinned meshes, on rows of this model (see skin.py).
    skinning: Skinning = field(default_factory=Skinning)
    #: The file as read, for a lossless export (source.py).
    source: GltfSource | None = None
    #: Lines, points, morph targets and instancing, on rows of this model.
    geometry: Geometry = field(default_factory=Geometry)
    #: Cameras and KHR_lights_punctual lights, on rows of this model (views.py).
    cameras: list[FileCamera] = field(default_factory=list)
    lights: list[FileLight] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.names)


def read_gltf(
    path: str | Path,
    display: str | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    budget: Budget | None = None,
) -> GltfModel:
    """Read a ``.gltf`` or ``.glb`` file into a `GltfModel`.

    Parameters
    ----------
    path : str or Path
        The file.
    display : str, optional
        How to name the file in error messages (defaults to `path` as given).
    limits : Limits, keyword-only
        Caps on the node count and on the sizes of files, buffers and vertex data.
    budget : Budget, keyword-only
        What the scene's other glTF files used already (one per load); default: a fresh one.
    """
    path = Path(path)
    display = str(path) if display is None else display
    try:
        with collector_paused():
            return _ModelReader(path, display, limits, budget).read()
    except SceneError:
        raise
    except RecursionError:
        raise SceneError("the glTF data is nested too deeply", file=display) from None
    except Exception as exc:  # numpy on malformed data: still one clear error
        raise SceneError(f"not a valid glTF 2.0 file ({brief(exc)})", file=display) from None


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while a file is parsed and decoded.

    Parsing allocates hundreds of thousands of lists and dicts, and each few hundred
    allocations start a collection that walks the whole growing JSON tree again: about
    two thirds of `json.loads`' time on a 100,000-node file. The parsed JSON and the
    arrays made from it hold no reference cycles, so nothing is left for the collector.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class _ModelReader(GltfFile):
    """Imports the node hierarchy of a `GltfFile`."""

    def read(self) -> GltfModel:
        self.open()
        notes = check_extensions(self)
        model = self._model()
        model.notes[:0] = notes
        self._note_buffers_without_data()
        model.notes.extend(n for n in self.notes if n not in model.notes)
        return model

    def _note_buffers_without_data(self) -> None:
        """One note for each buffer without data whose views nothing read (when something
        read one, its own note said what was left out)."""
        unread = set(self.uriless) - self.unavailable
        if not unread:
            return
        views: dict[int, int] = {}
        for view in self.array("bufferViews"):
            b = whole(view.get("buffer")) if isinstance(view, dict) else None
            if b in unread:
                views[b] = views.get(b, 0) + 1
        for b, count in sorted(views.items()):
            self.note(
                f"buffer {b}", f"{self.no_data_reason}: its {count} buffer view(s) are ignored"
            )

    def _model(self) -> GltfModel:
        nodes = self.array("nodes")
        n = len(nodes)
        if n > self.limits.max_nodes:
            raise self.limits.node_error(n, self.display, "the glTF file")
        order, parent_rows = node_order(self, nodes)
        model = GltfModel(path=self.path, title=self._title())
        k = len(order)
        model.parents = np.asarray(parent_rows, dtype=np.int64)
        model.rows = np.full(n, -1, dtype=np.int64)
        model.rows[order] = np.arange(k)
        bulk = None
        if self.node_table is None:
            names, trs, matrices, mesh_rows = self._dict_values(nodes, order, k)
        else:
            names, trs, matrices, (mesh_rows, bulk) = table_values(
                self, self.node_table, model.rows, order
            )
        model.names = names
        model.positions, model.rotations, model.scales = trs
        with np.errstate(over="ignore"):
            norms = np.linalg.norm(model.rotations, axis=1)
        lengths = norms.copy()  # for the note
        huge = ~np.isfinite(norms)  # components near the float limit: scaled down first
        if huge.any():
            largest = np.abs(model.rotations[huge]).max(axis=1)
            model.rotations[huge] /= largest[:, None]
            norms[huge] = np.linalg.norm(model.rotations[huge], axis=1)
            with np.errstate(over="ignore"):  # inf: a length beyond the float limit
                lengths[huge] = norms[huge] * largest
        bad = np.flatnonzero(~(norms > 1e-12))
        if bad.size:
            row = int(bad[0])
            raise self.error(
                f"glTF node {order[row]}",
                "expected a non-zero quaternion",
                node=names[row],
                field="rotation",
            )
        self._note_non_unit(model, order, lengths)
        model.rotations /= norms[:, None]
        for row, i, name, matrix in matrices:
            t, r, s = matrix_trs(self, matrix, i, name)
            model.positions[row], model.rotations[row], model.scales[row] = t, r, s
        model.looks = [None] * k
        morph_counts, material_notes = self._meshes(model, mesh_rows, bulk)
        rows = None  # every row may have a camera or a light, but in a table only a node
        if self.node_table is not None:  # with other fields than the table's can
            at = np.sort(model.rows[self.node_table.others])
            rows = at[at >= 0].tolist()
        model.cameras, model.lights = read_views(self, nodes, order, names, rows)
        model.clips, notes = read_animations(self, model.rows, morph_counts)
        model.notes.extend(notes)
        for note in material_notes:
            self._note(model, note)
        model.source = read_source(
            self, model.rows, (model.positions, model.rotations, model.scales)
        )
        return model

    def _dict_values(self, nodes: list, order: list[int], k: int):
        """`table_values` from the node objects (a file the node table does not take): one
        cheap pass collects the values each node gives, checked in bulk after."""
        names: list[str] = []
        # only the values present are collected (row, value); absent ones keep the default
        given: dict[str, tuple[list[int], list]] = {f: ([], []) for f in TRS_DEFAULTS}
        matrices: list[tuple[int, int, str, object]] = []
        mesh_rows: list[tuple[int, int, object, object, dict]] = []
        trs = [(f, len(TRS_DEFAULTS[f]), *given[f]) for f in TRS_DEFAULTS]
        for row, i in enumerate(order):
            node = nodes[i]
            name = node.get("name")
            if type(name) is not str or not name:
                name = f"node{i}"
            # a copy: the graph keeps the names, and the document's strings would keep its
            # memory blocks (700 MB for a million nodes) from going back once it is dropped
            names.append(name.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass"))
            for f, width, f_rows, f_vals in trs:
                v = node.get(f)
                if v is not None:
                    if type(v) is not list or len(v) != width:
                        raise number_error(self, i, name, f, width, v)
                    f_rows.append(row)
                    f_vals.append(v)
            if node.get("matrix") is not None:
                matrices.append((row, i, name, node["matrix"]))
            if node.get("mesh") is not None:
                mesh_rows.append((row, i, node["mesh"], node.get("skin"), node))
        values = [
            bulk_values(self, k, *given[f], TRS_DEFAULTS[f], order, names, f) for f in TRS_DEFAULTS
        ]
        return names, values, matrices, mesh_rows

    def _meshes(
        self, model: GltfModel, mesh_rows: list, bulk: tuple | None
    ) -> tuple[dict[int, int], list[str]]:
        """Looks, skins, morphs and instances of the mesh nodes; returns the morph target
        count of each glTF node whose mesh has targets (for the weights channels) and the
        materials' notes (at most one). `bulk`: (rows, meshes) of the nodes the loop would
        only give the look of a node before them (`node_values.table_values`)."""
        resolved = str(self.path.resolve())
        parts_of: dict[int, MeshParts] = {}
        textures: dict = {}  # materials and textures decoded once per file
        skins: dict[int, int] = {}  # glTF skin index -> index in model.skinning.skins
        geometry = model.geometry
        morph_counts: dict[int, int] = {}
        look_of: dict[int, Look] = {}  # one Look per mesh, shared by the nodes drawing it
        plain: dict[int, Look] = {}  # meshes drawn as they are (no morph): their Look
        for row, i, mesh_index, skin, node in mesh_rows:
            simple = skin is None and node.get("extensions") is None  # no skin, no instances
            if simple and type(mesh_index) is int and mesh_index in plain:
                model.looks[row] = plain[mesh_index]  # what the rest of the loop does for it
                continue
            if type(mesh_index) is not int or mesh_index not in parts_of:  # checked once
                mesh_index = self.index_into(mesh_index, "meshes", f"node {i}")
            key = f"{resolved}#{mesh_index}"
            if mesh_index not in parts_of:
                parts_of[mesh_index] = parts = self._read_mesh(model, mesh_index, textures)
                if parts.arrays is not None:
                    model.mesh_data[key] = parts.arrays
                if parts.surface is not None:
                    model.surfaces[key] = parts.surface
                if parts.lines is not None:
                    geometry.lines[key] = parts.lines
                if parts.points is not None:
                    geometry.points[key] = parts.points
                if parts.targets is not None:
                    geometry.targets[key] = parts.targets
            parts = parts_of[mesh_index]
            color = parts.color
            if color is None:
                continue
            targets = parts.targets
            if targets is not None:  # morphed, with its own weights, however it is drawn
                morph_counts[i] = targets.count
                weights = targets.defaults
                if node.get("weights") is not None:
                    weights = morph_weights(self, node["weights"], targets.count, f"node {i}")
                geometry.weights[row] = np.array(weights, dtype=np.float64)
                self._charge_morph(parts, i, mesh_index)
            if skin is not None and parts.skin is not None:
                skin = skin_index(self, skin, f"node {i}")
                if skin not in skins:
                    skins[skin] = len(model.skinning.skins)
                    model.skinning.skins.append(read_skin(self, skin, model.rows))
                bound = model.skinning.skins[skins[skin]]
                check_joint_indices(self, parts.skin[0], bound, f"mesh {mesh_index}")
                model.skinning.attributes[key] = parts.skin
                model.skinning.meshes.append(SkinnedMesh(row, key, skins[skin], color))
                if targets is not None:  # morphed in its skinned mesh's own buffer
                    geometry.morphed.append(MorphedNode(row, key, skinned=True))
                continue  # drawn by the skinning pass, not at the node's own transform
            locals_ = instance_matrices(self, node, f"node {i}")
            if targets is not None:  # drawn with its own morphed copy of the mesh
                geometry.morphed.append(MorphedNode(row, key))
            if locals_ is not None:  # its instances share its (morphed) mesh
                geometry.instanced.append(InstancedNode(row, key, color, locals_))
                continue  # drawn once per instance, never at the node itself
            if mesh_index not in look_of:
                look_of[mesh_index] = Look(mesh=key, size=(1.0, 1.0, 1.0), color=color)
            model.looks[row] = look_of[mesh_index]
            if targets is None:
                plain[mesh_index] = look_of[mesh_index]
        if bulk is not None:  # what the loop's first branch would give each of them
            for row, mesh_index in zip(*bulk):
                model.looks[row] = plain.get(mesh_index)
        return morph_counts, sorted(textures.get("notes", ()))[:1]  # one note is enough

    def _charge_morph(self, parts, i: int, mesh_index: int) -> None:
        """A morphed node's copy of its mesh costs what the mesh's vertices cost: counted
        like vertex data, so many nodes sharing one morphed mesh cannot exhaust memory."""
        reason = self.budget.charge_data(_VERTEX_BYTES * len(parts.arrays[0]))
        if reason is not None:
            raise self.error(f"node {i}", f"its morphed copy of mesh {mesh_index}: {reason}")

    def _read_mesh(self, model: GltfModel, mesh_index: int, textures: dict) -> MeshParts:
        """`read_mesh`, or an empty mesh with a note when its data is not in the file."""
        try:
            return read_mesh(self, mesh_index, textures)
        except DataUnavailable as exc:
            self._note(model, f"mesh {mesh_index} is not drawn: {exc.section}: {exc.reason}")
            return read_mesh_nothing()

    def _note_non_unit(self, model: GltfModel, order: list[int], lengths: np.ndarray) -> None:
        """One note for the rotations that are not unit quaternions (the spec asks for
        them, the validator reports them: `UNIT_TOLERANCE`), naming the first such node
        in the file; they are normalised. `lengths`: the rotations' lengths by row."""
        off = np.flatnonzero(~(np.abs(lengths - 1.0) <= UNIT_TOLERANCE))
        if not off.size:
            return
        row = int(off[np.argmin(np.asarray(order)[off])])
        length = float(lengths[row])
        size = f"{length:.6g}" if np.isfinite(length) else "over 1.8e308"
        more = f" (and {off.size - 1:,} more)" if off.size > 1 else ""
        self._note(
            model,
            f"node {quoted(model.names[row])}{more}: rotation is not a unit quaternion "
            f"(length {size}); normalised",
        )

    def _note(self, model: GltfModel, text: str) -> None:
        note = f"{self.display}: {text}"
        if note not in model.notes:
            model.notes.append(note)

    def _title(self) -> str:
        scenes = self.array("scenes")
        chosen = whole(self.doc.get("scene"))
        chosen = chosen if is_int(chosen) else 0
        if 0 <= chosen < len(scenes) and isinstance(scenes[chosen], dict):
            name = scenes[chosen].get("name")
            if isinstance(name, str) and name:
                return name
        return self.path.stem


def read_mesh_nothing() -> MeshParts:
    return MeshParts(None, None, None, None)
