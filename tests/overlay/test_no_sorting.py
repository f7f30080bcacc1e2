"""A touch travels from `update()` to the GPU without sorting (issue 20): the report's
pre-order ranges become range writes of matrices and glow stamps, and nothing on the way
sorts, neither numpy's sorting functions nor a compiled kernel that sorts.

The app runs headless with the overlay on; numpy's sorts are counted from the frame's
`update()` to the last GPU write of the scene's frame (upload, overlay bookkeeping,
drawing the scene with its glow); the compiled kernels that sort, from the return of
`update()` on (through a stand-in kernel set: storages call the set they were made with).
Inside `update()` the core's `dirty_ranges` sorts its dirty roots only when they are not
already ascending: the last test checks that on its plain-Python twin, where numpy's
argsort can be counted. The ImGui panel drawn after the scene (name placement ranks
labels) is not part of the path.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from viewer.io import generate_scene
from viewer.scene import kernel_set, kernels

#: numpy's sorting functions (and the set operations built on a sort).
SORTING = ("sort", "argsort", "lexsort", "partition", "argpartition", "unique", "union1d",
           "setdiff1d", "intersect1d", "setxor1d", "in1d", "isin")  # fmt: skip


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
    calls: list[str] = []
    counting = {"numpy": False, "compiled": False}

    def counted(name, real, which):
        def wrapper(*args, **kwargs):
            if counting[which]:
                calls.append(name)
            return real(*args, **kwargs)

        return wrapper

    functions = {name: getattr(kernel_set.COMPILED, name) for name in kernel_set.NAMES}
    for name in _compiled_sorters():
        assert name in functions, name  # a sorter the storage cannot call is no sorter
        functions[name] = counted(name, functions[name], "compiled")
    kernel_set.stand_in(kernel_set.KernelSet(functions, "counted"))
    try:
        scene = generate_scene(scene_name)
    finally:
        kernel_set.stand_in(None)
    scene.motions = []
    d = drive(scene, still=True)
    d.frame(3)
    app = d.app
    for name in SORTING:
        if hasattr(np, name):
            monkeypatch.setattr(np, name, counted(f"np.{name}", getattr(np, name), "numpy"))
    graph = app.session.graph
    real_update, real_draw = graph.update, app.renderer.draw

    def update(*args, **kwargs):
        counting["numpy"] = True  # from update() on (the compiled sorter: see below)
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


def test_dirty_ranges_sorts_only_roots_out_of_order(monkeypatch):
    """The compiled sort inside `update()`: none for roots in ascending slot order (one
    touched node), and the right ranges when it must sort."""
    twin = kernel_set.python_twins()["dirty_ranges"]
    sorts: list[int] = []
    real = np.argsort

    def argsort(*args, **kwargs):
        sorts.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(np, "argsort", argsort)
    alive = np.ones(6, dtype=np.bool_)
    slot = np.array([0, 1, 2, 3, 4, 5], dtype=np.int64)
    size = np.array([6, 2, 1, 2, 1, 1], dtype=np.int64)
    starts, ends = twin(np.array([3], dtype=np.int64), alive, slot, size)
    assert sorts == [] and starts.tolist() == [3] and ends.tolist() == [5]
    starts, ends = twin(np.array([5, 1], dtype=np.int64), alive, slot, size)
    assert sorts == [1] and starts.tolist() == [1, 5] and ends.tolist() == [3, 6]
