"""The Babylon.js publisher (clients/babylonjs) in Node against `sgview listen --headless`:
runs its own Node tests (clients/babylonjs/test), which start the viewer with this Python
and compare its --log and --dump-world, frame by frame, with what Babylon's NullEngine
reports (its observables and cached world matrices). Node's `@babylonjs/core` and `ws`
come pinned from clients/babylonjs/package-lock.json (`npm ci` there)."""

from __future__ import annotations

from attach_helpers import ROOT, run_node_suite

CLIENT = ROOT / "clients" / "babylonjs"


def test_babylonjs_publisher_node_tests():
    run_node_suite(CLIENT, "@babylonjs/core", 9)
