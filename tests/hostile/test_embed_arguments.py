"""The embedding API checks what it is given (issue 26), as the loaders check a file.

A generator of bad arguments, one parameter at a time (camera and Look specs, sizes,
meshes, keys, clicks, flags, nodes of another graph or removed, graphs whose chains
reach too far): each is refused before any GL, as an `SgviewError` (`ValueError` or
`KeyError`) with one printable line naming the parameter; no numpy warning. Then, with
GL: a `show` or `render_image` from inside `on_frame` is a clear `ReentryError`, and a
callback that removes the selected node clears the selection (T and a held L after it
are harmless).
"""

from __future__ import annotations

import math
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

import viewer
from viewer.content.scene import Look
from viewer.embed.api import ReentryError
from viewer.errors import SgviewError
from viewer.scene.graph import SceneGraph
from viewer.text import MAX_MESSAGE

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "examples"))
from chain_touch import build_chain as chain  # noqa: E402

NAN, INF = math.nan, math.inf


def _other_graph_node():
    g = SceneGraph()
    return g.add("Obj1")


def _removed_node(g):
    node = g["Obj5"]
    g.remove(node)
    return node


def _far_graph():
    g = SceneGraph()
    parent = None
    for k in range(3):  # each scale in the API's range; the product is not
        parent = g.add(f"S{k}", parent=parent, scale=(1e5, 1e5, 1e5))
    return g


def _edited_far():
    """A graph whose node an edit moved to 1e300 after its last frame."""
    g = chain()
    g.update()
    g["Obj2"].local_position = (1e300, 0.0, 0.0)
    return g


def _bad_calls():
    """(case, function, graph maker, keyword arguments, words the line must have)."""
    show, image = viewer.show, viewer.render_image
    camera = [
        ({"position": (NAN, 0, 0)}, "camera position"), ({"target": (0, INF, 0)}, "camera target"),
        ({"fov": 0}, "camera fov"), ({"fov": 1e308}, "camera fov"), ({"fov": "wide"}, "camera fov"),
        ({"projection": "fisheye"}, "camera projection"),
        ({"projection": "orthographic", "height": -2}, "camera height"),
        ({"height": 1e300}, "camera height"), ({"position": (1, 2)}, "camera position"),
        ({"position": (1e300, 0, 0)}, "camera position"),
        ({"position": (1, 1, 1), "target": (1, 1, 1)}, "camera target"),
        ({"zoom": 2}, "camera: unknown field"), ("far away", "camera"), (42, "camera"),
    ]  # fmt: skip
    for i, (spec, words) in enumerate(camera):
        yield f"camera {i}", image, chain, {"camera": spec}, [words]
    looks = [
        (Look(size=(1e300, 1, 1)), "size"), (Look(size=(-1, 1, 1)), "size"),
        (Look(size=(NAN, 1, 1)), "size"), (Look(mesh="teapot"), "mesh"),
        (Look(color=(NAN, 0, 0)), "color"), (Look(color=(0.5,)), "color"),
        (Look(color=(2, 0, 0)), "color"), (Look(color="red"), "color"), (3, "meshes"),
    ]  # fmt: skip
    for i, (value, words) in enumerate(looks):
        yield f"look {i}", image, chain, {"meshes": {"Obj1": value}}, ["meshes", words]
    sizes = [(0, 10), (-1, 10), (1e300, 10), (NAN, 10), (10,), "640x360", (10, 10, 10),
             (True, 10), (10.5, 10), (100_000, 10), None]  # fmt: skip
    for value in sizes:
        yield f"size {value!r}", image, chain, {"size": value}, ["size"]
    # iterables that yield a good pair but are no size (a generator is used up by a look)
    iterables = {
        "a generator": lambda: (v for v in (64, 48)),
        "an iterator": lambda: iter([64, 48]),
        "a map": lambda: map(int, "12"),
        "a set": lambda: {64, 48},
        "dict keys": lambda: {64: 0, 48: 0}.keys(),
        "a 2-D array": lambda: np.ones((2, 1)),
    }
    for what, make in iterables.items():
        yield f"size: {what}", image, chain, {"size": make()}, ["size"]
    yield "graph: an edit set 1e300", image, _edited_far, {}, ["graph", "Obj2"]
    yield "meshes: unknown name", image, chain, {"meshes": {"Obj9": "cube"}}, ["Obj9"]
    yield "meshes: a generator", image, chain, {"meshes": (n for n in [])}, ["meshes"]
    yield "meshes: a list", image, chain, {"meshes": ["cube"]}, ["meshes"]
    yield "meshes: other graph's node", image, chain, {"meshes": {_other_graph_node(): "cube"}}, \
        ["meshes", "not in it"]  # fmt: skip
    yield "meshes: removed id", image, chain, {"meshes": {10_000: "cube"}}, ["meshes", "10000"]
    yield "meshes: a float key", image, chain, {"meshes": {1.5: "cube"}}, ["meshes"]
    yield "overlay: a string", image, chain, {"overlay": "no"}, ["overlay"]
    yield "keys: an int", show, chain, {"headless": True, "keys": 5}, ["keys"]
    yield "keys: unknown", show, chain, {"headless": True, "keys": "Q@1"}, ["unknown key 'Q'"]
    yield "keys: huge frame", show, chain, {"headless": True, "keys": "L@1-" + "9" * 400}, ["key"]
    yield "clicks: tuples", show, chain, {"headless": True, "clicks": [(320, 180, 5)]}, ["clicks"]
    yield "clicks: at 1e39", show, chain, {"headless": True, "clicks": "1" + "0" * 39 + ",5@1"}, \
        ["click"]  # fmt: skip
    yield "frames: 0", show, chain, {"headless": True, "frames": 0}, ["frames"]
    yield "frames: 1e300", show, chain, {"headless": True, "frames": 1e300}, ["frames"]
    yield "frames: 2.5", show, chain, {"headless": True, "frames": 2.5}, ["frames"]
    yield "frames: a string", show, chain, {"headless": True, "frames": "3"}, ["frames"]
    yield "headless: a string", show, chain, {"headless": "yes"}, ["headless"]
    yield "log: 1", show, chain, {"headless": True, "log": 1}, ["log"]
    yield "on_frame: not callable", show, chain, {"headless": True, "on_frame": 3}, ["on_frame"]
    yield "title: bytes", show, chain, {"headless": True, "title": b"x"}, ["title"]
    yield "select: unknown", show, chain, {"headless": True, "select": "Obj9"}, ["Obj9"]
    yield "select: an int", show, chain, {"headless": True, "select": 3}, ["select"]
    yield "screenshot: an int", show, chain, {"headless": True, "screenshot": 3}, ["screenshot"]
    yield "graph: a list", image, lambda: [], {}, ["graph"]
    yield "graph: chain reaching 1e15", image, _far_graph, {}, ["graph", "S2"]


CASES = list(_bad_calls())


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_a_bad_argument_is_one_line_before_any_gl(case, monkeypatch):
    import viewer.window.runner

    monkeypatch.setattr(viewer.window.runner, "run", lambda *a, **k: pytest.fail("GL started"))
    name, function, make_graph, kwargs, words = CASES[case]
    graph = make_graph()
    tracemalloc.start()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        with pytest.raises(SgviewError) as info:
            function(graph, **kwargs)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    assert isinstance(info.value, ValueError | KeyError)
    line = str(info.value)
    assert line and "\n" not in line and len(line) <= MAX_MESSAGE and line.isprintable(), line
    assert all(w in line for w in words), (words, line)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert seconds < 5 and peak < 16, (seconds, peak)
    print(f"{name}: {1000 * seconds:.1f} ms, peak {peak:.2f} MB: {line}")


def test_a_removed_node_as_a_meshes_key_is_named(monkeypatch):
    g = chain()
    node = _removed_node(g)
    with pytest.raises(KeyError, match="'Obj5' was removed"):
        viewer.render_image(g, meshes={node: "cube"})


def test_show_or_render_image_inside_on_frame_is_a_clear_error(egl):
    for inner in (lambda g: viewer.render_image(g, size=(64, 36)),
                  lambda g: viewer.show(g, headless=True, size=(64, 36))):  # fmt: skip

        def on_frame(graph, frame, t, inner=inner):
            inner(graph)

        with pytest.raises(ReentryError, match="while the viewer is running"):
            viewer.show(chain(), headless=True, frames=2, size=(64, 36), on_frame=on_frame)
    # and the API works again afterwards
    assert viewer.render_image(chain(), size=(64, 36)).shape == (36, 64, 3)


def test_a_callback_that_removes_the_selection_clears_it(egl):
    g = chain()

    def on_frame(graph, frame, t):
        if frame == 2:
            graph.remove(graph["Obj5"])

    # T (touch the selection) and a held L (move it) after the removal: no HierarchyError
    result = viewer.show(g, headless=True, frames=6, size=(64, 36), select="Obj5",
                         keys="L@1-6,T@3,T@5", on_frame=on_frame)  # fmt: skip
    assert result.frames == 6 and "Obj5" not in g
