"""The examples in docs/ are executed, so the documentation cannot drift from the code."""

import doctest
from pathlib import Path

DOCS = Path(__file__).parents[1] / "docs"


def test_api_examples_run():
    result = doctest.testfile(
        str(DOCS / "api.md"), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 10
    assert result.failed == 0
