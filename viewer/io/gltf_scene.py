"""glTF 2.0 import: a node hierarchy with its names, TRS values, parent links and meshes.

gltf_data.py reads the container with pygltflib and checks the data (a glTF file is
untrusted input: indices in range, accessors inside their buffer views, views inside their
buffers); this module checks and imports the node tree (finite TRS values, a tree without
cycles or shared children). Any problem becomes a `SceneError`.

What is imported:

- The nodes of the default scene (``scene``, else the first one, else every node that is
  nobody's child), in pre-order, with ``translation``/``rotation``/``scale`` or ``matrix``
  (decomposed into TRS; a matrix with shear cannot be represented and is refused).
- Each mesh's triangle primitives (mode 4), merged into one array set:
  positions, normals (computed, area-weighted, when the file has none) and indices, stored
  in ``Scene.mesh_data`` under the key ``"<resolved path>#<mesh index>"``. The base colour
  of the first primitive's material becomes the node's colour.
- Cameras, skins, animations, textures and morph targets are ignored.

Security: a URI may only name a file in the glTF file's own folder. Absolute paths,
``..`` segments, URI schemes other than ``data:`` and symbolic links leading out of the
folder are refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..content.scene import Look
from ..scene.math import decompose, trs_matrix
from ._fields import is_number
from .errors import SceneError, describe
from .gltf_data import GltfFile, brief, is_int
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["GltfModel", "read_gltf"]


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

    def __len__(self) -> int:
        return len(self.names)


def read_gltf(
    path: str | Path, display: str | None = None, *, limits: Limits = DEFAULT_LIMITS
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
    """
    path = Path(path)
    display = str(path) if display is None else display
    try:
        return _Reader(path, display, limits).read()
    except SceneError:
        raise
    except RecursionError:
        raise SceneError("the glTF data is nested too deeply", file=display) from None
    except Exception as exc:  # pygltflib or numpy on malformed data: still one clear error
        raise SceneError(f"not a valid glTF 2.0 file ({brief(exc)})", file=display) from None


class _Reader(GltfFile):
    """Imports the node hierarchy of a `GltfFile`."""

    def read(self) -> GltfModel:
        self.open()
        return self._model()

    def _roots(self, nodes: list) -> list[int]:
        scenes = self._list("scenes")
        if scenes:
            chosen = self.gltf.scene
            if chosen is None:
                chosen = 0
            chosen = self._index(chosen, "scenes", "scene")
            roots = getattr(scenes[chosen], "nodes", None) or []
            if not isinstance(roots, list):
                raise self.error(
                    f"scene {chosen}", f"nodes must be an array, got {describe(roots)}"
                )
            return [self._index(r, "nodes", f"scene {chosen}") for r in roots]
        has_parent = set()
        for i, node in enumerate(nodes):
            for c in self._children(node, i, len(nodes)):
                has_parent.add(c)
        return [i for i in range(len(nodes)) if i not in has_parent]

    def _children(self, node, i: int, n: int) -> list[int]:
        children = getattr(node, "children", None) or []
        if not isinstance(children, list):
            raise self.error(f"node {i}", f"children must be an array, got {describe(children)}")
        for c in children:
            if not is_int(c) or not 0 <= c < n:
                raise self.error(
                    f"node {i}", f"expected child node indices in 0..{n - 1}, got {c!r}"
                )
        return children

    def _model(self) -> GltfModel:
        nodes = self._list("nodes")
        n = len(nodes)
        if n > self.limits.max_nodes:
            raise self.limits.node_error(n, self.display, "the glTF file")
        roots = self._roots(nodes)
        # pre-order walk with an explicit stack; every node may be reached once only
        order: list[int] = []
        parent_of: list[int] = []
        seen = set()
        stack = [(r, -1) for r in reversed(roots)]
        while stack:
            i, parent = stack.pop()
            if i in seen:
                raise self.error(
                    f"node {i}", "the node hierarchy is not a tree (a node is reached twice)"
                )
            seen.add(i)
            parent_of.append(parent)
            here = len(order)
            order.append(i)
            for c in reversed(self._children(nodes[i], i, n)):
                stack.append((c, here))
        model = GltfModel(path=self.path, title=self._title())
        k = len(order)
        model.parents = np.asarray(parent_of, dtype=np.int64)
        model.positions = np.zeros((k, 3))
        model.rotations = np.tile([0.0, 0.0, 0.0, 1.0], (k, 1))
        model.scales = np.ones((k, 3))
        resolved = str(self.path.resolve())
        mesh_colors: dict[int, tuple | None] = {}
        for row, i in enumerate(order):
            node = nodes[i]
            name = getattr(node, "name", None)
            if not isinstance(name, str) or not name:
                name = f"node{i}"
            model.names.append(name)
            t, r, s = self._trs(node, i, name)
            model.positions[row] = t
            model.rotations[row] = r
            model.scales[row] = s
            mesh_index = getattr(node, "mesh", None)
            look = None
            if mesh_index is not None:
                mesh_index = self._index(mesh_index, "meshes", f"node {i}")
                key = f"{resolved}#{mesh_index}"
                if mesh_index not in mesh_colors:
                    mesh_colors[mesh_index] = self._mesh(mesh_index, key, model.mesh_data)
                color = mesh_colors[mesh_index]
                if color is not None:
                    look = Look(mesh=key, size=(1.0, 1.0, 1.0), color=color)
            model.looks.append(look)
        return model

    def _title(self) -> str:
        scenes = self._list("scenes")
        chosen = self.gltf.scene if is_int(self.gltf.scene) else 0
        if 0 <= chosen < len(scenes):
            name = getattr(scenes[chosen], "name", None)
            if isinstance(name, str) and name:
                return name
        return self.path.stem

    def _numbers(self, value: object, n: int, where: str, name: str, field: str) -> np.ndarray:
        if not isinstance(value, list) or not all(is_number(c) for c in value):
            raise self.error(
                where, f"expected {n} numbers, got {describe(value)}", node=name, field=field
            )
        if len(value) != n:
            raise self.error(
                where, f"expected {n} numbers, got {len(value)}", node=name, field=field
            )
        try:
            arr = np.array([float(c) for c in value])
        except OverflowError:
            arr = np.array([math.inf])
        if not np.all(np.isfinite(arr)):
            raise self.error(where, "expected finite numbers", node=name, field=field)
        return arr

    def _trs(self, node, i: int, name: str):
        where = f"glTF node {i}"
        matrix = getattr(node, "matrix", None)
        if matrix is not None:
            m = self._numbers(matrix, 16, where, name, "matrix").reshape(4, 4).T  # column-major
            return _decompose(m, lambda why: self.error(where, why, node=name, field="matrix"))
        t = np.zeros(3)
        r = np.array([0.0, 0.0, 0.0, 1.0])
        s = np.ones(3)
        if getattr(node, "translation", None) is not None:
            t = self._numbers(node.translation, 3, where, name, "translation")
        if getattr(node, "rotation", None) is not None:
            r = self._numbers(node.rotation, 4, where, name, "rotation")
            norm = np.linalg.norm(r)
            if not norm > 1e-12:
                raise self.error(
                    where, "expected a non-zero quaternion", node=name, field="rotation"
                )
            r = r / norm
        if getattr(node, "scale", None) is not None:
            s = self._numbers(node.scale, 3, where, name, "scale")
        return t, r, s


def _decompose(m: np.ndarray, error) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split an affine matrix into translation, unit quaternion and scale; refuse shear
    and projective rows, which TRS cannot hold."""
    if not np.allclose(m[3], [0.0, 0.0, 0.0, 1.0], atol=1e-9):
        raise error("the last row must be 0, 0, 0, 1")
    t, q, s = decompose(m)
    if not np.allclose(trs_matrix(t, q, s), m, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(m).max())):
        raise error("it has shear, which TRS cannot represent")
    return t, q, s
