"""The log examples of docs/semantics.md, replayed on the core.

Each example in that page is an HTML comment naming a graph and the steps to perform,
followed by a fenced ``text`` block holding the log. The test builds the graph, performs
the steps and compares the log of the final ``update()`` with the block, line for line,
so the page cannot drift from the code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from example_graphs import chain5, tree10

from viewer.scene import SceneGraph

PAGE = Path(__file__).parents[1] / "docs" / "semantics.md"
EXAMPLE = re.compile(
    r'^<!-- log-example graph=(?P<graph>\w+) steps="(?P<steps>[^"]*)" -->\n'
    r"```text\n(?P<log>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)
MARKER = re.compile(r"^<!-- log-example\b", re.MULTILINE)
LOG_BLOCK = re.compile(r"^```text\n(?:[*=]Update (?:Local|World) : )", re.MULTILINE)
#: Examples A (2), B (5), C (1), parents (3), world setters (1).
EXPECTED_EXAMPLES = 12

GRAPHS = {"chain": chain5, "tree": tree10}


def numbers(words: list[str]) -> tuple[float, ...]:
    return tuple(float(w) for w in words)


def perform(g: SceneGraph, step: str) -> None:
    """One step of an example's comment, e.g. ``touch Obj3`` or ``parent Obj5 none``."""
    op, *args = step.split()
    if op == "touch":
        g.touch(g[args[0]])
    elif op == "position":
        g[args[0]].local_position = numbers(args[1:])
    elif op == "world_position":
        g[args[0]].world_position = numbers(args[1:])
    elif op == "read":
        _ = g[args[0]].world_matrix  # a read in the middle of the frame
    elif op == "parent":
        parent = None if args[1] == "none" else g[args[1]]
        g[args[0]].set_parent(parent, keep_world=args[2:] == ["keep_world"])
    elif op == "detach_children":
        g[args[0]].detach_children()
    elif op == "remove":
        g.remove(g[args[0]])
    elif op == "add":
        g.add(args[0], g[args[1]] if len(args) > 1 else None)
    elif op == "update":
        g.update()
    else:
        raise ValueError(f"docs/semantics.md: unknown step {step!r}")


def examples() -> list[pytest.param]:
    text = PAGE.read_text(encoding="utf-8")
    found = []
    for m in EXAMPLE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        expected = m["log"].splitlines()
        found.append(pytest.param(m["graph"], m["steps"], expected, id=f"line{line}"))
    return found


def test_every_log_block_is_a_replayable_example():
    text = PAGE.read_text(encoding="utf-8")
    count = len(examples())
    assert len(MARKER.findall(text)) == count, "a log-example comment is not followed by a block"
    assert len(LOG_BLOCK.findall(text)) == count, "a log block has no log-example comment"
    assert count == EXPECTED_EXAMPLES


@pytest.mark.parametrize(("graph", "steps", "expected"), examples())
def test_example_log_is_what_the_core_prints(graph, steps, expected):
    g = GRAPHS[graph]()
    g.update()  # the page's examples start from a graph that has been through one frame
    for step in filter(None, (s.strip() for s in steps.split(";"))):
        perform(g, step)
    report = g.update()
    assert report.log_lines() == expected
    # Every recomputed world matrix is handed to the renderer, in the log's order.
    handed = [report.name(i) for i in report.executed]
    assert handed == [line[len("=Update World : ") : -1] for line in expected if line[0] == "="]
