"""`ShowOptions`: `show`, `widget` and `render_image` take their options as one object
(``options=``) as well as keywords. The same options either way make the same run; a
keyword given besides overrides the object's field; an unknown keyword is still the
`TypeError` Python makes, and an object that sets an option the function lacks is
refused. The run itself is replaced here: what is compared is the `RunOptions` it gets."""

from __future__ import annotations

from pathlib import Path

import pytest

import viewer
import viewer.embed.widget as widget_module
import viewer.window.runner as runner
from viewer.embed.api import ShowOptions
from viewer.embed.args import ArgumentError
from viewer.scene.graph import SceneGraph
from viewer.window.run_options import RunOptions


def _graph() -> SceneGraph:
    g = SceneGraph()
    base = g.add("base")
    g.add("hand", base, position=(1.0, 0.0, 0.0))
    return g


def _controller(graph, frame, t):
    graph["hand"].local_euler = (0.0, 0.0, 10.0 * t)


@pytest.fixture
def runs(monkeypatch):
    """The `RunOptions` of each run asked for, in order (no window, no GL)."""
    seen: list[RunOptions] = []

    def fake_run(scene, options, *, headless, backend=None, source=None):
        seen.append(options)
        if source is not None:
            source(None)

        class App:
            last_image = [[[0, 0, 0]]]

        return App()

    monkeypatch.setattr(runner, "run", fake_run)
    return seen


@pytest.fixture
def widgets(monkeypatch):
    """The `RunOptions` each widget is made with (no EGL, no jupyter_rfb view)."""
    seen: list[RunOptions] = []

    def fake_widget(session, options):
        seen.append(options)
        return session

    monkeypatch.setattr(widget_module, "SgviewWidget", fake_widget)
    return seen


SHOW_KEYWORDS = dict(
    on_frame=_controller,
    meshes={"base": "cylinder", "hand": viewer.Look("cone", (0.4, 0.6, 0.4))},
    headless=True,
    frames=3,
    size=(320, 180),
    log=True,
    overlay=True,
    panels=False,
    title="arm",
    keys="L@1-2",
    clicks=["10,10@2"],
    select="hand",
    camera={"position": (0.0, 2.0, 8.0), "target": (0.0, 0.0, 0.0)},
    widget=False,
)


def test_show_options_and_keywords_make_the_same_run(runs, tmp_path: Path):
    paths = dict(screenshot=tmp_path / "a.png", trace=tmp_path / "t.json")
    by_keywords = viewer.show(_graph(), **SHOW_KEYWORDS, **paths)
    by_options = viewer.show(_graph(), options=ShowOptions(**SHOW_KEYWORDS, **paths))
    assert len(runs) == 2
    assert runs[0] == runs[1]
    assert runs[0].frames == 3 and runs[0].size == (320, 180) and not runs[0].panels
    assert runs[0].on_frame == [_controller] and runs[0].select == "hand"
    assert by_keywords == by_options


def test_a_keyword_overrides_the_options_field(runs):
    options = ShowOptions(headless=True, frames=5, log=True, size=(320, 180))
    viewer.show(_graph(), options=options, frames=2, size=(64, 48))
    viewer.show(_graph(), headless=True, frames=2, log=True, size=(64, 48))
    assert runs[0] == runs[1]
    assert runs[0].frames == 2 and runs[0].log and runs[0].size == (64, 48)
    assert options.frames == 5  # the object itself is left as it was


def test_render_image_options_and_keywords_make_the_same_run(runs):
    keywords = dict(size=(200, 100), meshes={"hand": "sphere"}, overlay=False, panels=False)
    viewer.render_image(_graph(), **keywords)
    viewer.render_image(_graph(), options=ShowOptions(**keywords))
    viewer.render_image(_graph(), options=ShowOptions(size=(10, 10), panels=True), **keywords)
    assert runs[0] == runs[1] == runs[2]
    assert runs[0].size == (200, 100) and not runs[0].overlay
    viewer.render_image(_graph())
    viewer.render_image(_graph(), options=ShowOptions())
    assert runs[3] == runs[4] and runs[3].size == (640, 360)


def test_widget_options_and_keywords_make_the_same_widget(widgets):
    keywords = dict(on_frame=_controller, size=(300, 200), panels=False, glow="rim", select="hand")
    viewer.widget(_graph(), **keywords)
    viewer.widget(_graph(), options=ShowOptions(**keywords))
    viewer.widget(_graph(), options=ShowOptions(glow="heat", size=(9, 9)), **keywords)
    assert widgets[0] == widgets[1] == widgets[2]
    assert widgets[0].glow == "rim" and widgets[0].size == (300, 200)
    viewer.widget(_graph(), options=ShowOptions())
    viewer.show(_graph(), options=ShowOptions(widget=True))
    assert widgets[3].size == widgets[4].size == (640, 360)


def test_an_unknown_keyword_fails_as_python_says(runs, widgets):
    with pytest.raises(TypeError, match=r"^show\(\) got an unexpected keyword argument 'glow'$"):
        viewer.show(_graph(), headless=True, glow="rim")
    with pytest.raises(TypeError, match=r"render_image\(\) got an unexpected keyword argument"):
        viewer.render_image(_graph(), on_frame=_controller)
    with pytest.raises(TypeError, match=r"widget\(\) got an unexpected keyword argument 'frames'"):
        viewer.widget(_graph(), frames=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sise'"):
        viewer.show(_graph(), options=ShowOptions(headless=True), sise=(3, 3))
    with pytest.raises(TypeError, match="unexpected keyword argument 'sise'"):
        ShowOptions(sise=(3, 3))
    assert runs == [] and widgets == []


def test_an_option_the_function_lacks_is_refused(runs, widgets):
    with pytest.raises(ArgumentError, match="options: render_image does not take on_frame, log"):
        viewer.render_image(_graph(), options=ShowOptions(on_frame=_controller, log=True))
    with pytest.raises(ArgumentError, match="options: show does not take glow"):
        viewer.show(_graph(), options=ShowOptions(headless=True, glow="rim"))
    with pytest.raises(ArgumentError, match="options: widget does not take headless"):
        viewer.widget(_graph(), options=ShowOptions(headless=True))
    with pytest.raises(ArgumentError, match="options: expected a ShowOptions, got a dict"):
        viewer.show(_graph(), options={"headless": True})
    assert runs == [] and widgets == []


def test_the_options_are_checked_as_the_keywords_are(runs):
    for bad in (dict(size=(0, 10)), dict(frames=-1), dict(camera={"fov": 0})):
        with pytest.raises(ArgumentError) as by_keyword:
            viewer.show(_graph(), headless=True, **bad)
        with pytest.raises(ArgumentError) as by_options:
            viewer.show(_graph(), options=ShowOptions(headless=True, **bad))
        assert str(by_keyword.value) == str(by_options.value)
    # an explicit size=None is refused where the function has a size of its own
    with pytest.raises(ArgumentError, match="size"):
        viewer.render_image(_graph(), size=None)
    assert runs == []
