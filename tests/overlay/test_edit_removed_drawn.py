"""Deleting nodes a skinned, morphing, animated glTF model needs (a joint, the skinned
mesh) in the window: the model keeps drawing and animating; undo brings them back."""

from __future__ import annotations

import numpy as np
import pytest
from gltf_rig import write_rig

from viewer.io.loader import load_scene
from viewer.session.commands import Delete


@pytest.mark.parametrize("names", [("Bone1",), ("Skin",), ("Rig",)])
def test_deleting_joints_or_the_skinned_mesh_of_an_animated_model_keeps_drawing(
    drive, tmp_path, names
):
    d = drive(load_scene(write_rig(tmp_path, weights_channel=True)), still=False)
    session = d.app.session
    session.pick_animation(0)
    first = d.frame(3)
    g = session.graph
    for name in names:
        session.select(g[name].id)
        d.app.overlay.panel.scene.edit.open_next = True
        assert session.editing.run(Delete(g[name].id))
    d.frame(3)
    while session.editing.history.done:
        session.editing.undo()
    again = d.frame(3)
    assert again.shape == first.shape and np.isfinite(again).all()
    assert all(name in g for name in names)
