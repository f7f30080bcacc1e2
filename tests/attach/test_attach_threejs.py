"""The three.js publisher (clients/threejs) in Node against `sgview listen --headless`:
runs its own Node tests (clients/threejs/test), which start the viewer with this Python.
Node's `three` and `ws` come pinned from clients/threejs/package-lock.json (`npm ci`, as
.ci/run does)."""

from __future__ import annotations

from attach_helpers import ROOT, run_node_suite

CLIENT = ROOT / "clients" / "threejs"


def test_threejs_publisher_node_tests():
    run_node_suite(CLIENT, "three", 7)
