"""Names never pile up: overlapping names are dropped by importance (selected, own
change, followed, the rest; nearer first within each), at most a cap per frame, and the
overlay draws exactly the names `declutter` keeps."""

import numpy as np

from viewer.overlay import labels
from viewer.overlay.labels import (
    RANK_FOLLOWED,
    RANK_OTHER,
    RANK_OWN_CHANGE,
    RANK_SELECTED,
    declutter,
    rank_of,
)

H = 13.0


def _boxes(xy, widths, keep):
    m = labels.MARGIN
    return [(xy[k][0] - m, xy[k][0] + widths[k] + m, xy[k][1] - H / 2 - m, xy[k][1] + H / 2 + m)
            for k in keep]  # fmt: skip


def _overlap(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def test_the_ranks():
    assert rank_of(0, selected=True) == RANK_SELECTED
    assert rank_of(-1, selected=False) == RANK_OWN_CHANGE
    assert rank_of(1, selected=False) == RANK_FOLLOWED
    assert rank_of(0, selected=False) == RANK_OTHER
    assert RANK_SELECTED < RANK_OWN_CHANGE < RANK_FOLLOWED < RANK_OTHER


def test_a_pile_keeps_the_most_important_name():
    # Four names on one spot, nearest first: other, followed, own change, selected.
    xy = np.array([[100.0, 50.0], [102.0, 51.0], [104.0, 49.0], [101.0, 50.0]])
    widths = np.full(4, 60.0)
    ranks = [RANK_OTHER, RANK_FOLLOWED, RANK_OWN_CHANGE, RANK_SELECTED]
    assert declutter(xy, widths, H, np.array(ranks))[0].tolist() == [3]
    assert declutter(xy[:3], widths[:3], H, np.array(ranks[:3]))[0].tolist() == [2]
    assert declutter(xy[:2], widths[:2], H, np.array(ranks[:2]))[0].tolist() == [1]


def test_nearer_first_within_a_rank_and_apart_names_all_stay():
    xy = np.array([[0.0, 0.0], [10.0, 2.0], [0.0, 40.0], [200.0, 0.0]])
    widths = np.full(4, 50.0)
    keep, _ = declutter(xy, widths, H, np.full(4, RANK_OTHER))
    assert keep.tolist() == [0, 2, 3]  # 1 sits on 0, which is nearer


def test_no_two_kept_names_overlap_and_the_cap_holds():
    rng = np.random.default_rng(5)
    for limit in (10, 60):
        xy = rng.uniform(0, 400, size=(500, 2))
        widths = rng.uniform(20, 90, size=500)
        ranks = rng.integers(0, 4, size=500)
        keep, anchors = declutter(xy, widths, H, ranks, limit=limit)
        assert (anchors == xy[keep]).all()  # without origins: right of the node only
        assert 0 < len(keep) <= limit
        boxes = _boxes(xy, widths, keep)
        for a in range(len(boxes)):
            for b in range(a + 1, len(boxes)):
                assert not _overlap(boxes[a], boxes[b])
        # Whatever was dropped below the cap clashed with a name of equal or higher rank.
        if len(keep) < limit:
            kept = set(keep.tolist())
            for k in range(500):
                if k in kept:
                    continue
                box = _boxes(xy, widths, [k])[0]
                assert any(
                    _overlap(box, _boxes(xy, widths, [j])[0]) and ranks[j] <= ranks[k] for j in kept
                ), k


def test_with_origins_a_blocked_name_moves_round_its_node_and_covers_no_centre():
    # A row of nodes 40 px apart: a 60 px name right of each would cover the next node.
    origins = np.array([[100.0 + 40 * k, 100.0] for k in range(4)])
    xy = origins + [8.0, 0.0]
    widths = np.full(4, 60.0)
    keep, anchors = declutter(xy, widths, H, np.array([1, 0, 3, 3]), origins)
    assert keep.tolist()[0] == 1  # the selected one first
    for k, (x, y) in zip(keep.tolist(), anchors.tolist()):
        box = (x - labels.MARGIN, x + 60 + labels.MARGIN, y - H / 2 - labels.MARGIN,
               y + H / 2 + labels.MARGIN)  # fmt: skip
        for j, (ox, oy) in enumerate(origins.tolist()):
            if j != k:
                assert not (box[0] < ox < box[1] and box[2] < oy < box[3]), (k, j)
    moved = {k: tuple(a) for k, a in zip(keep.tolist(), anchors.tolist())}
    assert moved[1][1] != 100.0  # above or below: right and left are taken by neighbours
    assert len(keep) == 4  # everyone finds a place in this row
