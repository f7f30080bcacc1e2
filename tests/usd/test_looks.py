"""Geometry and looks of USD prims: meshes triangulated (fans, holes, left-handed),
implicit shapes at their authored sizes and axes, displayColor, UsdPreviewSurface
constants and GeomSubsets bound to their own materials."""

from __future__ import annotations

import pytest

pytest.importorskip("pxr")

import numpy as np  # noqa: E402
from pxr import Sdf, Usd, UsdGeom, UsdShade  # noqa: E402
from stages import scene_of  # noqa: E402

from viewer.content.meshes import from_arrays  # noqa: E402
from viewer.materials import BLEND  # noqa: E402


def _mesh_of(scene, path: str):
    node = next(n for n, p in scene.node_paths.items() if p == path)
    key = scene.looks[node].mesh
    return scene.looks[node], scene.mesh_data[key], scene.surfaces.get(key)


def _preview(stage, path: str, color, opacity=1.0, metallic=0.0, roughness=0.5):
    material = UsdShade.Material.Define(stage, path)
    shader = UsdShade.Shader.Define(stage, path + "/Surface")
    shader.CreateIdAttr("UsdPreviewSurface")
    shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(color)
    shader.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(opacity)
    shader.CreateInput("metallic", Sdf.ValueTypeNames.Float).Set(metallic)
    shader.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(roughness)
    material.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
    return material


def test_polygons_become_triangle_fans_with_holes_and_handedness():
    stage = Usd.Stage.CreateInMemory()
    mesh = UsdGeom.Mesh.Define(stage, "/M")
    mesh.CreatePointsAttr([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (2, 0, 0), (2, 1, 0)])
    mesh.CreateFaceVertexCountsAttr([4, 4, 2])  # a quad, a second quad, a degenerate face
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3, 1, 4, 5, 2, 0, 1])
    mesh.CreateHoleIndicesAttr([1])
    _, (pos, nrm, idx), _ = _mesh_of(scene_of(stage), "/M")
    assert idx.reshape(-1, 3).tolist() == [[0, 1, 2], [0, 2, 3]]  # the hole and the 2-gon out
    assert nrm is None  # none given: computed from the triangles, facing +z
    assert np.allclose(from_arrays(pos, nrm, idx).normals[[0, 1, 2, 3]], [0, 0, 1])
    mesh.CreateOrientationAttr(UsdGeom.Tokens.leftHanded)
    _, (_, _, flipped), _ = _mesh_of(scene_of(stage), "/M")
    assert flipped.reshape(-1, 3).tolist() == [[2, 1, 0], [3, 2, 0]]


@pytest.mark.parametrize(
    ("kind", "attrs", "lo", "hi"),
    [
        ("Cube", {"size": 3.0}, (-1.5, -1.5, -1.5), (1.5, 1.5, 1.5)),
        ("Sphere", {"radius": 2.0}, (-2, -2, -2), (2, 2, 2)),
        ("Cylinder", {"radius": 0.5, "height": 4.0, "axis": "X"}, (-2, -0.5, -0.5), (2, 0.5, 0.5)),
        ("Cone", {"radius": 1.0, "height": 2.0, "axis": "Y"}, (-1, -1, -1), (1, 1, 1)),
        (
            "Capsule",
            {"radius": 0.5, "height": 2.0, "axis": "Z"},
            (-0.5, -0.5, -1.5),
            (0.5, 0.5, 1.5),
        ),
    ],
)
def test_implicit_shapes_at_their_authored_sizes_and_axes(kind, attrs, lo, hi):
    stage = Usd.Stage.CreateInMemory()
    prim = stage.DefinePrim("/S", kind)
    for name, value in attrs.items():
        prim.GetAttribute(name).Set(value)
    _, (pos, _, _), _ = _mesh_of(scene_of(stage), "/S")
    assert np.allclose(pos.min(axis=0), lo, atol=1e-6)
    assert np.allclose(pos.max(axis=0), hi, atol=1e-6)


def test_display_colour_and_preview_surface_and_subsets():
    stage = Usd.Stage.CreateInMemory()
    mesh = UsdGeom.Mesh.Define(stage, "/M")
    mesh.CreatePointsAttr([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (2, 0, 0), (2, 1, 0)])
    mesh.CreateFaceVertexCountsAttr([4, 4])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3, 1, 4, 5, 2])
    mesh.CreateDisplayColorAttr([(0.2, 0.4, 0.6)])
    UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(
        _preview(stage, "/Looks/Red", (1, 0, 0), metallic=0.3, roughness=0.7)
    )
    glass = _preview(stage, "/Looks/Glass", (0, 0, 1), opacity=0.4)
    subset = UsdGeom.Subset.CreateGeomSubset(mesh, "second", "face", [1], "materialBind")
    UsdShade.MaterialBindingAPI.Apply(subset.GetPrim()).Bind(glass)
    look, (_, _, idx), surface = _mesh_of(scene_of(stage), "/M")
    first, rest = surface.parts
    assert (first.first, first.count) == (0, 6) and (rest.first, rest.count) == (6, 6)
    assert first.material.base_color == (0.0, 0.0, 1.0, pytest.approx(0.4))
    assert first.material.alpha_mode == BLEND
    assert np.isin(idx[:6], [1, 4, 5, 2]).all()  # the subset's face comes first
    assert rest.material.base_color[:3] == (1.0, 0.0, 0.0)
    assert rest.material.metallic == pytest.approx(0.3)
    assert rest.material.roughness == pytest.approx(0.7)


def test_vertex_display_colours_become_vertex_colours():
    stage = Usd.Stage.CreateInMemory()
    mesh = UsdGeom.Mesh.Define(stage, "/M")
    mesh.CreatePointsAttr([(0, 0, 0), (1, 0, 0), (0, 1, 0)])
    mesh.CreateFaceVertexCountsAttr([3])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2])
    colors = mesh.CreateDisplayColorPrimvar(UsdGeom.Tokens.vertex)
    colors.Set([(1, 0, 0), (0, 1, 0), (0, 0, 1)])
    look, _, surface = _mesh_of(scene_of(stage), "/M")
    assert np.allclose(surface.vcolors[:, :3], np.eye(3))
    assert look.color == (1.0, 0.0, 0.0)


def _textured(folder, texture: str = "./checker.png"):
    """A quad whose UsdPreviewSurface takes its colour from a PNG through face-varying st."""
    from PIL import Image

    pixels = np.zeros((4, 4, 3), np.uint8)
    pixels[:2, :, 0] = 255  # the top half red, the bottom half black
    Image.fromarray(pixels).save(folder / "checker.png")
    path = folder / "textured.usda"
    stage = Usd.Stage.CreateNew(str(path))
    mesh = UsdGeom.Mesh.Define(stage, "/Quad")
    stage.SetDefaultPrim(mesh.GetPrim())
    mesh.CreatePointsAttr([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)])
    mesh.CreateFaceVertexCountsAttr([4])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
    st = UsdGeom.PrimvarsAPI(mesh).CreatePrimvar(
        "st", Sdf.ValueTypeNames.TexCoord2fArray, UsdGeom.Tokens.faceVarying
    )
    st.Set([(0, 0), (1, 0), (1, 1), (0, 1)])
    material = UsdShade.Material.Define(stage, "/Quad/Look")
    surface = UsdShade.Shader.Define(stage, "/Quad/Look/Surface")
    surface.CreateIdAttr("UsdPreviewSurface")
    reader = UsdShade.Shader.Define(stage, "/Quad/Look/Reader")
    reader.CreateIdAttr("UsdPrimvarReader_float2")
    reader.CreateInput("varname", Sdf.ValueTypeNames.Token).Set("st")
    tex = UsdShade.Shader.Define(stage, "/Quad/Look/Tex")
    tex.CreateIdAttr("UsdUVTexture")
    tex.CreateInput("file", Sdf.ValueTypeNames.Asset).Set(texture)
    tex.CreateInput("wrapS", Sdf.ValueTypeNames.Token).Set("clamp")
    tex.CreateInput("st", Sdf.ValueTypeNames.Float2).ConnectToSource(
        reader.ConnectableAPI(), "result"
    )
    tex.CreateOutput("rgb", Sdf.ValueTypeNames.Float3)
    surface.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).ConnectToSource(
        tex.ConnectableAPI(), "rgb"
    )
    material.CreateSurfaceOutput().ConnectToSource(surface.ConnectableAPI(), "surface")
    UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(material)
    stage.GetRootLayer().Save()
    return path


@pytest.mark.parametrize("packaged", [False, True])
def test_a_texture_from_the_folder_or_the_package(tmp_path, packaged):
    from pxr import UsdUtils

    from viewer.io import load_scene
    from viewer.materials import CLAMP_TO_EDGE, REPEAT

    path = _textured(tmp_path)
    if packaged:
        (tmp_path / "pkg").mkdir()
        package = tmp_path / "pkg" / "textured.usdz"
        assert UsdUtils.CreateNewUsdzPackage(str(path), str(package))
        path = package
    scene = load_scene(path)
    _, (pos, _, idx), surface = _mesh_of(scene, "/Quad")
    ref = surface.parts[0].material.base_color_texture
    assert ref.image.pixels.shape == (4, 4, 4) and ref.image.wrap == (CLAMP_TO_EDGE, REPEAT)
    assert ref.image.pixels[0, 0, :3].tolist() == [255, 0, 0]  # top row first
    assert len(pos) == 4 and surface.uvs.tolist() == [[0, 1], [1, 1], [1, 0], [0, 0]]  # v = 1-t


def test_a_texture_outside_the_stage_folder_is_refused(tmp_path):
    from viewer.io import SceneError, load_scene

    (tmp_path / "inner").mkdir()
    path = _textured(tmp_path / "inner", texture="../checker.png")
    (tmp_path / "inner" / "checker.png").rename(tmp_path / "checker.png")
    with pytest.raises(SceneError, match=r"prim /Quad/Look/Tex, field 'inputs:file'.*outside"):
        load_scene(path)
