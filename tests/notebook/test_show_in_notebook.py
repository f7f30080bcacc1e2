"""`viewer.show` in a Jupyter kernel returns the live widget, in a script it opens the
window; the notebook example runs top to bottom (nbclient, a real kernel, no browser)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from needs import missing
from widget_helpers import tree

import viewer
import viewer.embed.notebook as notebook
from viewer.embed.args import ArgumentError

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "recursive.ipynb"


def test_a_script_is_not_a_kernel():
    assert not notebook.in_jupyter_kernel()


def test_a_kernel_is_an_ipython_shell_with_a_kernel(monkeypatch):
    shell = types.SimpleNamespace(kernel=object())
    ipython = types.SimpleNamespace(get_ipython=lambda: shell)
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert notebook.in_jupyter_kernel()
    shell.kernel = None  # a terminal IPython: no kernel
    assert not notebook.in_jupyter_kernel()
    monkeypatch.delitem(sys.modules, "ipykernel")  # IPython alone is no notebook
    shell.kernel = object()
    assert not notebook.in_jupyter_kernel()


def test_show_in_a_kernel_returns_the_widget(egl, rfb, monkeypatch):
    monkeypatch.setattr(notebook, "in_jupyter_kernel", lambda: True)
    view = viewer.show(tree(), select="Obj2")
    try:
        from viewer.embed.widget import SgviewWidget

        assert isinstance(view, SgviewWidget)
        assert view.get_frame().shape == (360, 640, 3)
        assert view.session.selected == view.session.graph["Obj2"].id
    finally:
        view.close()


def test_show_with_a_run_to_an_end_still_runs_in_a_kernel(egl, monkeypatch):
    monkeypatch.setattr(notebook, "in_jupyter_kernel", lambda: True)
    result = viewer.show(tree(), headless=True, frames=2)
    assert result.frames == 2
    with pytest.raises(ArgumentError, match="widget=True"):
        viewer.show(tree(), widget=True, frames=3)


def test_the_example_notebook_runs_top_to_bottom(egl, rfb):
    try:
        import nbclient
        import nbformat
    except ImportError as exc:
        missing(f"needs nbclient and nbformat (the test extra): {exc}")
    nb = nbformat.read(EXAMPLE, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(EXAMPLE.parent)}},
    )
    client.execute()
    texts = [
        "".join(o.get("text", "")) for c in nb.cells if c.cell_type == "code" for o in c.outputs
    ]
    log = "\n".join(texts)
    # the touch of Obj3 in the chain: its local, then the worlds of Obj3, Obj4, Obj5 only
    assert "*Update Local : Obj3*\n=Update World : Obj3=\n=Update World : Obj4=\n" in log
    assert "suppressed: 1" in log
    pictures = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
                if "image/png" in o.get("data", {})]  # fmt: skip
    assert len(pictures) == 2  # the view's picture for a reader without a kernel, and view.image
    widget_outputs = [
        o for o in pictures if "application/vnd.jupyter.widget-view+json" in o["data"]
    ]
    assert len(widget_outputs) == 1
    assert "*Update Local : Obj6*\n=Update World : Obj6=\n=Update World : Obj10=" in log
    # saved as JupyterLab saves it (no widget state, its default) and exported to HTML,
    # without a kernel: the view is its picture
    from nbconvert import HTMLExporter

    nb.metadata.pop("widgets", None)
    html, _ = HTMLExporter().from_notebook_node(nb)
    assert html.count('src="data:image/png;base64,') >= 2


def test_show_in_a_script_goes_to_the_window(monkeypatch):
    """No kernel: `show` takes the window's path (here: no display, so its one-line
    error), never the widget."""
    from viewer.window.runner import WindowError

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(WindowError, match="no display"):
        viewer.show(tree())


def test_two_views_each_draw_their_own_graph(egl, rfb):
    """Each view makes its own GL context current to draw: several in one notebook."""
    from widget_helpers import glow_red_share, make, screen_of

    first, second = make(), make()
    try:
        second.session.select(second.session.graph["Obj4"].id)
        second.press("T")
        for _ in range(2):
            first.get_frame()
            second.get_frame()
        assert glow_red_share(second.image, *screen_of(second, "Obj4")) > 0.5
        assert glow_red_share(first.image, *screen_of(first, "Obj4")) == 0
        assert first.session.last_report.empty
    finally:
        first.close()
        second.close()


def test_show_takes_a_loaded_scene_too(egl):
    from viewer.io.loader import load_scene

    scene = load_scene(EXAMPLE.parents[2] / "scenes" / "tree10.toml")
    result = viewer.show(scene, headless=True, frames=2, select="Obj3", size=(320, 180))
    assert result.frames == 2
