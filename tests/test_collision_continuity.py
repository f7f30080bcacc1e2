"""The collision demo's M key and held keys, frame by frame through a headless session:
no frame moves the rectangle further than its motion moves it in one step, the revolution
keeps the documented radius, switching back oscillates along X again, and of two opposite
keys H wins over L, J over K."""

from pathlib import Path

import numpy as np
import pytest

from viewer.io import load_scene
from viewer.keys.controls import held_direction
from viewer.session.session import Session

SCENE = Path(__file__).parents[1] / "scenes" / "collision.toml"
STEP = 1.0 / 60.0
#: The scene's motions at their fastest: oscillation 3·2π/6 units/s; revolution 20 deg/s
#: at radius 5 (a corner of the 6 x 2 rectangle lies sqrt(10) further out).
OSCILLATE_SPEED = 3 * 2 * np.pi / 6
REVOLVE_SPEED = np.radians(20) * (5 + np.sqrt(10))
ONE_STEP = max(OSCILLATE_SPEED, REVOLVE_SPEED) * STEP * 1.001


def _session() -> Session:
    return Session(load_scene(SCENE), fixed_step=STEP)


def _corners(session: Session) -> np.ndarray:
    """The rectangle's centre and four corners in the world, [5, 2]."""
    rect = session.collision.rect
    w, h = 3.0, 1.0
    local = [(0, 0), (w, h), (-w, h), (w, -h), (-w, -h)]
    return np.array([rect.transform_point((x, y, 0.0))[:2] for x, y in local])


def _run(session: Session, frames: int, switch_at: set[int]) -> list[np.ndarray]:
    poses = [_corners(session)]
    for frame in range(1, frames + 1):
        if frame in switch_at:
            session.switch_collision_mode()  # M between two frames
        session.advance(STEP)
        poses.append(_corners(session))
    return poses


@pytest.mark.parametrize("switch_at", [{240}, {61, 190, 333}, {100, 101, 102, 400}, {90, 450}])
def test_no_frame_moves_the_rectangle_more_than_a_step(switch_at):
    session = _session()
    poses = _run(session, 600, switch_at)
    jumps = [float(np.max(np.linalg.norm(b - a, axis=1))) for a, b in zip(poses, poses[1:])]
    worst = int(np.argmax(jumps))
    assert jumps[worst] <= ONE_STEP, f"frame {worst + 1} moves the rectangle {jumps[worst]:.3f}"


def test_revolving_keeps_the_documented_radius():
    session = _session()
    _run(session, 240, set())  # t = 4 s: the oscillation is off centre
    assert abs(session.collision.rect.world_position[0]) > 1.0
    session.switch_collision_mode()
    assert session.collision_mode == "revolve"
    pivot, rect = session.collision.pivot, session.collision.rect
    angles = []
    for _ in range(120):
        session.advance(STEP)
        offset = rect.world_position - pivot.world_position
        assert np.linalg.norm(offset) == pytest.approx(5.0)
        angles.append(np.degrees(np.arctan2(offset[1], offset[0])))
    assert np.diff(angles) == pytest.approx(20 * STEP)  # 20 deg/s, counter-clockwise


def test_switching_back_oscillates_along_x_again():
    session = _session()
    _run(session, 240, {60})  # revolve from t = 1 s to 4 s: the pivot turns 60 degrees
    session.switch_collision_mode()
    assert session.collision_mode == "oscillate"
    rect = session.collision.rect
    start = rect.world_position.copy()
    xs = []
    for _ in range(360):  # one whole period of 6 s
        session.advance(STEP)
        moved = rect.world_position - start
        assert moved[1:] == pytest.approx([0.0, 0.0], abs=1e-9)  # along X only
        xs.append(moved[0])
    assert max(xs) == pytest.approx(3.0, abs=1e-3) and min(xs) == pytest.approx(-3.0, abs=1e-3)


@pytest.mark.parametrize(
    ("held", "expected"),
    [
        ({"left", "right"}, (-1, 0)),
        ({"down", "up"}, (0, -1)),
        ({"left", "right", "down", "up"}, (-1, -1)),
        ({"right", "up"}, (1, 1)),
        ({"turn"}, (0, 0)),
    ],
)
def test_opposite_keys_h_over_l_j_over_k(held, expected):
    assert held_direction(held) == expected


def test_held_h_and_l_move_the_disk_left():
    session = _session()
    session.toggle_motion()
    disk = session.collision.disk
    x0 = disk.world_position[0]
    session.editing.held.press("right")
    session.editing.held.press("left")
    for _ in range(10):
        session.advance(STEP)
    assert disk.world_position[0] == pytest.approx(x0 - 10 * 0.05)
