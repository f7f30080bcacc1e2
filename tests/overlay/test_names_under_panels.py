"""Names are never seen through a panel: issue 34's newcomer trial had long node names
run under the translucent Frames panel, printed over its counters. The panels are
opaque, so what the 3D view draws under them (names, gizmo, grid) does not show."""

from __future__ import annotations

import numpy as np

from viewer.io import load_scene


def _long_names(folder):
    """Four cubes in a falling row whose long names run far to the right, under the
    Frames panel."""
    name = "node_with_a_very_long_name_that_runs_far_to_the_right_"
    nodes = [
        f'[[node]]\nname = "{name}{i}"\nposition = [{2.2 * i - 2}, {1.0 - 0.7 * i}, 0]\n'
        'mesh = "cube"\nsize = 0.5\n'
        for i in range(4)
    ]
    path = folder / "long-names.toml"
    path.write_text('[scene]\ntitle = "long names"\n\n' + "\n".join(nodes))
    return path


def test_names_running_under_a_panel_do_not_show_through_it(drive, tmp_path):
    d = drive(load_scene(_long_names(tmp_path)), still=True)
    d.frame(3)
    d.app.session.toggle_pause()  # paused: the panels' counters stand still
    overlay = d.app.overlay
    shots = {}
    for names in (True, False):
        overlay.show_names = names
        d.frame()
        shots[names] = d.frame().astype(int)
    x, y, w, h = (int(v) for v in overlay.window_rects[-1])  # the Frames panel
    assert x > 0 and w > 0
    beside = np.abs(shots[True] - shots[False]).sum(axis=2)
    assert (beside[y : y + h, : x - 2] > 0).sum() > 500  # the names are there, in the view
    assert (beside[y : y + h, x : x + w] > 0).sum() == 0  # and not seen through the panel
