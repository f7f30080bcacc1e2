"""docs/make_images.py makes the pictures of docs/dirty-propagation.md with the tool, and
the logs printed beside them on the page are the ones the tool prints."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
from PIL import Image

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = (DOCS / "dirty-propagation.md").read_text(encoding="utf-8")


def _script():
    spec = importlib.util.spec_from_file_location("make_images", DOCS / "make_images.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_picture_on_the_page_exists_and_is_made_by_the_script():
    shown = set(re.findall(r"images/([\w-]+)\.png", PAGE))
    made = {name for name, *_ in _script().SHOTS}
    assert shown == made
    for name in made:
        assert (DOCS / "images" / f"{name}.png").exists(), name


def test_the_glow_style_pictures_of_viewer_md_are_made_by_the_script():
    shown = set(re.findall(r"images/(solar-glow-[\w-]+)\.png", _read("viewer.md")))
    made = {name for name, *_ in _script().STYLE_SHOTS}
    assert shown == made and len(made) == 3
    for name in made:
        assert (DOCS / "images" / f"{name}.png").exists(), name


def _read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def test_the_script_makes_the_pictures_and_the_logs_of_the_page(egl, tmp_path):
    script = _script()
    logs = script.make(tmp_path, "480x270")
    blocks = {
        b.splitlines()[0]: b.splitlines()[1:]
        for b in re.findall(r"```\n(# frame.*?)```", PAGE, re.S)
    }
    for name, _, frame, _, _ in script.SHOTS:
        img = np.asarray(Image.open(tmp_path / f"{name}.png").convert("RGB"))
        assert img.shape == (270, 480, 3) and img.std() > 10
        assert logs[name] == blocks[f"# frame {frame}"], name
        assert (tmp_path / f"{name}.log").read_text().splitlines()[1:] == logs[name]
    # docs/semantics.md examples A and B, to the letter.
    assert logs["chain-touch-obj4"] == [
        "*Update Local : Obj4*",
        "=Update World : Obj4=",
        "=Update World : Obj5=",
    ]
    assert logs["tree-touch-obj2"] == [
        "*Update Local : Obj2*",
        "=Update World : Obj2=",
        "=Update World : Obj5=",
        "=Update World : Obj8=",
        "=Update World : Obj9=",
    ]


def test_the_teaching_gif_is_made_by_the_documented_command():
    name, argv = _script().TEACHING_GIF
    page = _read("viewer.md")
    assert f"images/{name}" in page and (DOCS / "images" / name).exists()
    assert f"sgview {' '.join(argv)} --record {name}" in page
