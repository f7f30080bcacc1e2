"""Live reload as a transaction: a freshly loaded scene is tried before it is shown.

The loader checks what a file says; some problems only show once the scene runs (a
compiled kernel that fails on the new data, a pose that overflows, a skin whose joint
matrices are not finite). So before a reloaded scene replaces the one on show,
`try_scene` lays it out and simulates one frame of its motions and its current clip at
the session's scene time, with numpy's floating-point warnings raised as errors, and
checks that every world matrix and every joint matrix is finite. Anything that goes
wrong, from any layer, becomes one `SceneError` naming the file (and the node when one is
at fault); the caller keeps the last good scene. A scene that passes has simply been
advanced to the frame it will be shown at.

The touches and the selection of the old scene refer to nodes by name:
`viewer.keys.references` carries them over.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from viewer.animation import apply_animation
from viewer.content.motion import apply_motions
from viewer.content.scene import Scene
from viewer.errors import floats_raise, interrupted
from viewer.io.errors import SceneError
from viewer.text import brief

__all__ = ["try_scene"]


def try_scene(scene: Scene, display: str, *, time: float, motion_on: bool = True) -> None:
    """One simulated frame of `scene` at scene time `time`; `SceneError` if it fails.

    `display` is the file as the user named it (the error names it)."""
    graph = scene.graph
    try:
        with floats_raise():
            graph.update()
            if motion_on:
                apply_motions(scene, time)
            apply_animation(scene, time, running=motion_on)
            graph.update()
            worlds = np.asarray(graph.world_matrices(), dtype=np.float64)
            _check_finite(scene, worlds.reshape(-1, 16), "world matrix", display)
            skinning = scene.skinning
            for skin in [] if skinning is None else skinning.skins:
                joints = skin.matrices(worlds.reshape(-1, 4, 4))
                bad = np.flatnonzero(~np.isfinite(joints.reshape(-1, 16)).all(axis=1))
                if bad.size:
                    node = graph.name_of(int(skin.joints[bad[0]]))
                    raise SceneError("its joint matrix is not finite", file=display, node=node)
    except SceneError:
        raise
    except RecursionError:
        raise SceneError("the scene is nested too deeply to run", file=display) from None
    except Exception as exc:  # from any layer below: numpy, numba, the graph
        if interrupted(exc):
            raise
        raise SceneError(f"its first frame fails ({brief(exc)})", file=display) from None


def _check_finite(scene: Scene, rows: NDArray[np.float64], what: str, display: str) -> None:
    alive = np.asarray(scene.graph.alive_ids(), dtype=np.int64)
    alive = alive[alive < len(rows)]
    bad = alive[~np.isfinite(rows[alive]).all(axis=1)]
    if bad.size:
        name = scene.graph.name_of(int(bad[0]))
        raise SceneError(f"its {what} is not finite", file=display, node=name)
