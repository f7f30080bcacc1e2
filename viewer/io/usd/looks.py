"""How USD prims look: ``displayColor`` and bound UsdPreviewSurface materials, as the
`Material` and `MeshSurface` that glTF meshes use (viewer/materials.py).

Read: ``primvars:displayColor`` (constant or uniform: the colour; per vertex: vertex
colours) and ``displayOpacity``; the material bound to the prim (``material:binding``,
as ``UsdShade.MaterialBindingAPI`` computes it) and to each of its ``materialBind``
GeomSubsets, when its surface is a ``UsdPreviewSurface``: ``diffuseColor``, ``metallic``,
``roughness``, ``emissiveColor``, ``opacity`` (below 1: blended) as constant values, and
the textures feeding ``diffuseColor`` and ``normal`` (textures.py); textures on the other
inputs are noted.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from pxr import UsdGeom, UsdShade

from viewer.materials import BLEND, OPAQUE, Material, MeshPart, MeshSurface

__all__ = ["DEFAULT_COLOR", "display_color", "materials_of", "mesh_surface", "preview_material"]

DEFAULT_COLOR = (0.7, 0.7, 0.7)
#: How a prim with a display colour but no material is shaded (not glTF's metal default).
_PLAIN = Material(metallic=0.0, roughness=0.6)


def display_color(prim, time, points: int) -> tuple[tuple[float, float, float], np.ndarray | None]:
    """The prim's colour (its first display colour) and its per-vertex colours (n, 4)
    float32 when the primvar is given per vertex, else None."""
    api = UsdGeom.PrimvarsAPI(prim)
    primvar = api.GetPrimvar("displayColor")
    if not primvar or not primvar.HasAuthoredValue():
        return DEFAULT_COLOR, None
    values = np.asarray(primvar.ComputeFlattened(time) or [], dtype=np.float32).reshape(-1, 3)
    if not len(values) or not np.isfinite(values).all():
        return DEFAULT_COLOR, None
    first = _rgb(min(1.0, max(0.0, c)) for c in values[0])
    if primvar.GetInterpolation() in ("vertex", "varying") and len(values) == points:
        rgba = np.ones((points, 4), np.float32)
        rgba[:, :3] = values.clip(0.0, 1.0)
        return first, rgba
    return first, None


def _rgb(values: Iterable[float]) -> tuple[float, float, float]:
    """Three values (a colour, a point) as floats."""
    r, g, b = values
    return float(r), float(g), float(b)


def _input(shader, name: str, default):
    value = shader.GetInput(name)
    got = value.Get() if value else None
    return default if got is None else got


def preview_material(prim, notes: set[str], textures) -> tuple[Material | None, str]:
    """The UsdPreviewSurface bound to `prim` (a gprim or a GeomSubset) as a `Material`,
    and the primvar its textures read ("" without textures)."""
    bound = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()[0]
    if not bound:
        return None, ""
    shader = bound.ComputeSurfaceSource()[0]
    if not shader or shader.GetIdAttr().Get() != "UsdPreviewSurface":
        if shader:
            notes.add(f"material {bound.GetPath()}: only UsdPreviewSurface is read")
        return None, ""
    color_map, color_uv = textures.texture(shader.GetInput("diffuseColor"))
    normal_map, normal_uv = textures.texture(shader.GetInput("normal"))
    for name in ("emissiveColor", "roughness", "metallic", "opacity"):
        inp = shader.GetInput(name)
        if inp and inp.HasConnectedSource():
            notes.add(f"textures of UsdPreviewSurface {name} are not read")
    color = _rgb(_input(shader, "diffuseColor", (0.18, 0.18, 0.18)))
    if color_map is not None:
        color = (1.0, 1.0, 1.0)  # the texture is the colour (glTF multiplies the two)
    opacity = float(_input(shader, "opacity", 1.0))
    material = Material(
        base_color=(*color, opacity),
        metallic=float(_input(shader, "metallic", 0.0)),
        roughness=float(_input(shader, "roughness", 0.5)),
        emissive=_rgb(_input(shader, "emissiveColor", (0.0, 0.0, 0.0))),
        alpha_mode=BLEND if opacity < 1.0 else OPAQUE,
        base_color_texture=color_map,
        normal_texture=normal_map,
    )
    return material, color_uv or normal_uv


def materials_of(prim, notes: set[str], textures) -> tuple:
    """(the prim's own material or None, [(material, face indices)] of its materialBind
    GeomSubsets, the primvar their textures read or "")."""
    own, varname = preview_material(prim, notes, textures)
    subsets = []
    if prim.IsA(UsdGeom.Mesh):
        for subset in UsdShade.MaterialBindingAPI(prim).GetMaterialBindSubsets():
            material, uv = preview_material(subset.GetPrim(), notes, textures)
            varname = varname or uv
            chosen = np.asarray(subset.GetIndicesAttr().Get() or [], dtype=np.int64)
            subsets.append((material or own or _PLAIN, chosen))
    return own, subsets, varname


def mesh_surface(
    indices: np.ndarray,
    faces: np.ndarray,
    points: np.ndarray,
    vcolors: np.ndarray | None,
    uvs: np.ndarray | None,
    own,
    subsets,
):
    """(indices reordered so each material subset's triangles are contiguous, the
    `MeshSurface` with one part per material) or (indices, None) when nothing asks for
    more than a colour."""
    if own is None and not subsets and vcolors is None:
        return indices, None
    tris = indices.reshape(-1, 3)
    taken = np.zeros(len(tris), bool)
    order, parts = [], []
    for material, chosen in subsets:
        rows = np.flatnonzero(np.isin(faces, chosen) & ~taken)
        taken[rows] = True
        order.append(rows)
        parts.append(material)
    rest = np.flatnonzero(~taken)
    order.append(rest)
    parts.append(own or _PLAIN)
    tris = tris[np.concatenate(order)] if len(order) > 1 else tris
    first, out = 0, []
    for rows, material in zip(order, parts, strict=True):
        if len(rows):
            used = points[tris[first : first + len(rows)].reshape(-1)]
            center = _rgb((used.min(0) + used.max(0)) / 2)
            out.append(MeshPart(3 * first, 3 * len(rows), material, center))
        first += len(rows)
    colors = vcolors if vcolors is not None else np.ones((len(points), 4), np.float32)
    surface = MeshSurface(colors, uvs, None, tuple(out))
    return np.ascontiguousarray(tris.reshape(-1), dtype=np.uint32), surface
