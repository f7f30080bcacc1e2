"""docs/api.md, "Show your own graph": its viewer examples, run for real.

tests/test_docs.py runs the whole page as a doctest but skips these examples (they need
an OpenGL context); here the section runs on its own with the skips taken out.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from viewer.scene import SceneGraph

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_show_your_own_graph_examples_run(egl):
    text = DOC.read_text(encoding="utf-8")
    section = re.search(r"^## Show your own graph\n(.*?)^## ", text, re.S | re.M).group(1)
    runnable = re.sub(r"\s*# doctest: \+SKIP", "", section)
    assert ">>> result = viewer.show(" in runnable and ">>> img = viewer.render_image(" in runnable
    test = doctest.DocTestParser().get_doctest(
        runnable, {"SceneGraph": SceneGraph}, "api.md: Show your own graph", str(DOC), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 15 and result.failed == 0
