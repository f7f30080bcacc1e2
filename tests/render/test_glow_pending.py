"""The glow's pending marks (`Glow.set_pending`): nodes marked and not yet executed carry
the reasons PENDING_OWN / PENDING_FOLLOWED until the next recorded frame replaces them
with the usual stamps; a frame picked on the timeline shows over them (numpy only)."""

from __future__ import annotations

import numpy as np

from viewer.render.glow import (
    FOLLOWED,
    NONE,
    OWN,
    PENDING_FOLLOWED,
    PENDING_OWN,
    STILL_FOLLOWED,
    Glow,
)


class Report:
    def __init__(self, local, world):
        self.local_updated = np.array(local, dtype=np.int64)
        self.world_updated = np.array(world, dtype=np.int64)


PARENTS = np.array([-1, 0, 1, 1, 0])


def reasons(glow: Glow, ids) -> list[int]:
    return np.floor(glow.stamp_rows(np.array(ids))[:, 1]).astype(int).tolist()


def test_pending_marks_until_the_next_frame_executes_them():
    glow = Glow(fade=0.5)
    glow.record(Report([0, 1, 2, 3, 4], [0, 1, 2, 3, 4]), PARENTS, 1 / 60)
    glow.record(Report([], []), PARENTS, 2.0)  # long ago: nothing glows
    assert glow.glowing()[0].size == 0
    glow.set_pending([1], [2, 3])  # paused: 1 touched, 2 and 3 follow
    assert reasons(glow, [0, 1, 2, 3, 4]) == [OWN, PENDING_OWN, PENDING_FOLLOWED,
                                              PENDING_FOLLOWED, OWN]  # fmt: skip
    assert glow.signed([1, 2, 4]).tolist() == [-1.0, 1.0, 0.0]  # full strength, no fade
    assert sorted(glow.glowing()[0].tolist()) == [1, 2, 3]
    assert glow.kinds(np.array([1, 2, 0])).tolist() == [-1, 1, 0]
    glow.record(Report([1], [1, 2, 3]), PARENTS, 1 / 60)  # the step executes them
    assert reasons(glow, [1, 2, 3]) == [OWN, FOLLOWED, FOLLOWED]
    assert glow.pending.size == 0


def test_a_picked_frame_shows_over_the_pending_marks_and_they_come_back():
    glow = Glow()
    glow.record(Report([0, 1, 2, 3, 4], [0, 1, 2, 3, 4]), PARENTS, 1 / 60)
    glow.set_pending([4], [])
    glow.set_still(Report([], [2]), PARENTS)
    assert reasons(glow, [2, 4]) == [STILL_FOLLOWED, NONE]
    glow.set_still(None, PARENTS)
    assert reasons(glow, [4]) == [PENDING_OWN]
    glow.set_pending([], [])
    assert reasons(glow, [4]) == [OWN]
