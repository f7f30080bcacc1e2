"""Built-in meshes: inside the unit box, unit normals, valid triangles; glTF arrays."""

import numpy as np
import pytest

from viewer.content import meshes
from viewer.content.scene import BUILTIN_MESHES


@pytest.mark.parametrize("kind", sorted(meshes.BUILDERS))
def test_builtin_mesh_is_well_formed(kind):
    m = meshes.builtin(kind)
    n = len(m.positions)
    assert m.positions.shape == m.normals.shape == (n, 3)
    assert m.vcolors.shape == (n, 4)
    assert m.indices.size % 3 == 0 and m.indices.max() < n
    np.testing.assert_allclose(np.linalg.norm(m.normals, axis=1), 1.0, atol=1e-5)
    lo, hi = m.bounds
    if kind == "axes":
        assert np.all(lo >= -0.2) and np.all(hi <= 1.0 + 1e-6)
    else:
        assert np.all(lo >= -0.5 - 1e-6) and np.all(hi <= 0.5 + 1e-6)


@pytest.mark.parametrize("kind", ["cube", "sphere", "cylinder", "cone"])
def test_solid_meshes_fill_the_unit_box(kind):
    lo, hi = meshes.builtin(kind).bounds
    np.testing.assert_allclose(hi - lo, 1.0, atol=1e-3)


@pytest.mark.parametrize("kind", ["disk", "rect"])
def test_flat_meshes_lie_in_the_xy_plane(kind):
    m = meshes.builtin(kind)
    assert np.all(m.positions[:, 2] == 0.0)
    assert np.all(m.normals == [0.0, 0.0, 1.0])


def test_every_builtin_kind_of_the_scene_model_has_a_mesh():
    assert set(BUILTIN_MESHES) - {"none"} == set(meshes.BUILDERS)


def test_gltf_arrays_without_normals_get_computed_ones():
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
    m = meshes.from_arrays(pos, None, np.array([0, 1, 2]))
    np.testing.assert_allclose(m.normals, [[0, 0, 1]] * 3)
    assert not m.vcolors[:, 3].any()


def test_unknown_kind_names_the_choices():
    with pytest.raises(KeyError, match="unknown mesh kind 'teapot'"):
        meshes.builtin("teapot")
