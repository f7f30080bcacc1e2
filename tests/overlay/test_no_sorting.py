"""A touch travels from `update()` to the GPU without sorting (issue 20): the report's
pre-order ranges become range writes of matrices and glow stamps, and nothing on the way
sorts, neither numpy's sorting functions nor a compiled kernel that sorts.

The app runs headless with the overlay on; numpy's sorts are counted from the frame's
`update()` to the last GPU write of the scene's frame (upload, overlay bookkeeping,
drawing the scene with its glow); the compiled kernels that sort, from the return of
`update()` on. Inside `update()` the core's `dirty_ranges` still argsorts its dirty roots
(one here) in compiled code: that kernel is the core's to change, and when it skips the
sort of already ascending roots, `COMPILED_FROM_UPDATE` can turn True. The ImGui panel
drawn after the scene (name placement ranks labels) is not part of the path.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from viewer.io import generate_scene
from viewer.scene import kernels

#: numpy's sorting functions (and the set operations built on a sort).
SORTING = ("sort", "argsort", "lexsort", "partition", "argpartition", "unique", "union1d",
           "setdiff1d", "intersect1d", "setxor1d", "in1d", "isin")  # fmt: skip


#: Count the compiled sorters inside `update()` too (see the module notes).
COMPILED_FROM_UPDATE = False


def _compiled_sorters() -> list[str]:
    """Kernels of the core whose source sorts (their sort runs compiled, out of reach of
    a numpy wrapper: a call to one counts as a sort)."""
    names = []
    for name, fn in vars(kernels).items():
        py = getattr(fn, "py_func", None)
        if py is not None and "sort(" in inspect.getsource(py):
            names.append(name)
    return names


def test_the_census_finds_the_compiled_sort_it_must_look_for():
    assert "dirty_ranges" in _compiled_sorters()  # the one the review counted


@pytest.mark.parametrize("scene_name", ["balanced:300", "random:300"])
def test_a_touch_in_a_still_scene_sorts_nothing_on_its_way_to_the_gpu(
    drive, monkeypatch, scene_name
):
    scene = generate_scene(scene_name)
    scene.motions = []
    d = drive(scene, still=True)
    d.frame(3)
    app = d.app
    calls: list[str] = []
    counting = {"numpy": False, "compiled": False}

    def counted(name, real, which):
        def wrapper(*args, **kwargs):
            if counting[which]:
                calls.append(name)
            return real(*args, **kwargs)

        return wrapper

    for name in SORTING:
        if hasattr(np, name):
            monkeypatch.setattr(np, name, counted(f"np.{name}", getattr(np, name), "numpy"))
    for name in _compiled_sorters():
        monkeypatch.setattr(kernels, name, counted(name, getattr(kernels, name), "compiled"))
    graph = app.session.graph
    real_update, real_draw = graph.update, app.renderer.draw

    def update(*args, **kwargs):
        counting["numpy"] = True  # from update() on
        counting["compiled"] = COMPILED_FROM_UPDATE
        report = real_update(*args, **kwargs)
        counting["compiled"] = True
        return report

    def draw(*args, **kwargs):
        real_draw(*args, **kwargs)  # ... to the scene's last GPU write
        counting["numpy"] = counting["compiled"] = False

    monkeypatch.setattr(graph, "update", update)
    monkeypatch.setattr(app.renderer, "draw", draw)
    node = graph.node(graph.alive_ids()[len(graph) // 3])
    app.session.select(node.id)
    app.session.touch_selected()
    d.frame()
    report = app.session.last_report
    assert report.world_updated.size >= 1 and report.starts.size == 1
    assert app.renderer.glow.kind_of(node.id) == -1  # it glows red
    assert calls == []
    d.frame(3)  # the glow fades; nothing is recomputed, nothing sorted either
    assert calls == [] and app.renderer.bytes_last == 0
