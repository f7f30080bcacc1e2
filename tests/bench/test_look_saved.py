"""bench/look_compare.py --saved (bench/look_saved.py): bundled scenes saved to .glb by
sgview and drawn by three.js in Debian's chromium through sgview's camera. three.js must
read the file as sgview reads it back: the same surfaces (Saturn's rings seen from above
included) and the same colours, within the bench's glTF target (mean CIEDE2000 at most 5
per material feature, look_compare.py); the .toml's own picture must cover the same
pixels (the colours against the .toml's own are checked unlit, where the two shading
models do not enter, by tests/render/test_saved_looks.py). three.js is the version
clients/threejs pins (the bench's, 0.187.0), which the README's test command installs."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_modules import load_bench
from needs import need_three_in_chromium

from viewer.render.lights import Lighting

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
THREE = ROOT / "clients" / "threejs"


def test_three_js_draws_the_saved_scenes_as_sgview_reads_them(tmp_path):
    compare = load_bench("look_compare")
    saved = load_bench("look_saved")
    need_three_in_chromium(compare.CHROMIUM, THREE)
    look = Lighting("neutral", 1.0, "room")
    names = ("solar_system", "tree10")
    results = saved.compare_saved(128, tmp_path, False, look, THREE, only=names)
    assert set(results) == set(names)
    for name, (toml_de, toml_iou, _, ours_iou, three_de, three_iou) in results.items():
        assert three_iou > 0.985, (name, three_iou)  # the same surfaces in both
        assert three_de <= 5.0, (name, three_de)  # and the same colours
        # The rings written single-sided: 0.966 and 0.976 for the solar system (0.99, 1.0).
        assert toml_iou > 0.985 and ours_iou > 0.985, (name, toml_iou, ours_iou)
        assert toml_de == toml_de  # a number: both silhouettes met
    lines = saved.report(results, 128)
    assert all(any(line.startswith(name) for line in lines) for name in names)
    assert {p.name for p in tmp_path.glob("saved-*.png")} == {f"saved-{n}.png" for n in names}
