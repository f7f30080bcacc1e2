"""Ctrl+Z / Ctrl+Shift+Z through the app's own key path (scripted keys, headless): a key
hold is one undo step, undo gives back every array exactly, redo does the step again."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import viewer

REPO = Path(__file__).resolve().parents[2]
SMALL = (160, 90)
sys.path.insert(0, str(REPO / "docs" / "examples"))
from chain_touch import build_chain as chain  # noqa: E402


def arrays(g) -> list[bytes]:
    """Every public per-node array, as bytes (exact comparison)."""
    g.update()
    ids = g.alive_ids()
    pos, rot, scl = g.local_values()
    return [ids.tobytes(), g.parents().tobytes(), pos.tobytes(), rot.tobytes(), scl.tobytes(),
            g.world_matrices()[ids].tobytes()]  # fmt: skip


def run(keys: str, frames: int = 12):
    g = chain()
    g.update()
    before = arrays(g)
    viewer.show(g, headless=True, frames=frames, size=SMALL, select="Obj3", keys=keys)
    return g, before


def test_undo_of_a_held_move_gives_back_every_array(egl):
    g, before = run("L@1-5,Ctrl+Z@8")
    assert arrays(g) == before


def test_redo_moves_it_again_and_two_holds_are_two_steps(egl):
    g, before = run("L@1-5,Ctrl+Z@8,Ctrl+Shift+Z@10")
    assert np.allclose(g["Obj3"].local_position - chain()["Obj3"].local_position, (0.25, 0, 0))
    g, _ = run("L@1-3,K@6-7,Ctrl+Z@10")  # the K hold goes, the L hold stays
    moved = g["Obj3"].local_position - chain()["Obj3"].local_position
    assert np.allclose(moved, (0.15, 0, 0)) and arrays(g) != before
