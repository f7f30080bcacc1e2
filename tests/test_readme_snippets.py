"""Every Python snippet of the README runs as written, each on its own (a reader copies
one, not the page): no snippet may lean on a name another one made."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from needs import need_gl

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_each_readme_snippet_runs_on_its_own(index, monkeypatch):
    import viewer

    code = SNIPPETS[index]
    if "viewer.show" in code or "render_image" in code:
        need_gl().release()
        show = viewer.show

        def headless_show(graph, **options):  # the window, as a few headless frames
            return show(graph, headless=True, frames=3, size=(320, 180), **options)

        monkeypatch.setattr(viewer, "show", headless_show)
    exec(compile(code, f"README.md snippet {index + 1}", "exec"), {"__name__": "__snippet__"})
