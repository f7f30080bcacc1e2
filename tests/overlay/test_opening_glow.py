"""Real models show their materials: a scene from a glTF or USD file opens with the rim
glow (the recomputed nodes outlined, their materials readable), a teaching scene (TOML,
bundled, generated) with the fill; `--glow` given wins either way. The choice is the
command line's (`viewer.cli.main.options_from`), and the app opens with it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from viewer.cli.args import build_parser
from viewer.cli.main import options_from
from viewer.io import load_scene

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # gltf_rig
from gltf_rig import write_rig  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
USDA = """#usda 1.0
def Xform "Root"
{
    def Cube "Box"
    {
    }
}
"""


def _glow(path: Path, *given: str) -> str:
    """The glow `sgview PATH [GIVEN...]` opens with: without `--glow`, `options_from`
    chooses by the scene's file."""
    args = build_parser().parse_args([str(path), *given])
    return options_from(args, load_scene(path)).glow


def test_a_gltf_scene_opens_with_the_rim_glow(tmp_path, drive):
    path = write_rig(tmp_path)  # a glTF built in code (an animated, skinned rig)
    glow = _glow(path)
    assert glow == "rim"
    d = drive(load_scene(path), glow=glow)
    d.frame(2)
    assert d.app.overlay.glow_style == "rim"


@pytest.mark.parametrize("name", ["rig.glb", "rig.gltf"])
def test_glow_given_wins_over_the_file(tmp_path, name):
    path = write_rig(tmp_path, name)
    assert _glow(path) == "rim"
    assert _glow(path, "--glow", "fill") == "fill"
    assert _glow(path, "--glow", "heat") == "heat"


def test_a_toml_scene_keeps_the_fill():
    path = REPO / "scenes" / "tree10.toml"
    assert _glow(path) == "fill"
    assert _glow(path, "--glow", "rim") == "rim"


def test_a_usd_stage_opens_with_the_rim_glow(tmp_path):
    pytest.importorskip("pxr")
    path = tmp_path / "box.usda"
    path.write_text(USDA, encoding="utf-8")
    assert _glow(path) == "rim"
    assert _glow(path, "--glow", "fill") == "fill"
