"""docs/examples: each script runs headless as a user would run it, writes a picture in
which what it moved glows, and its `--log` lists exactly the updates it made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples"
SIZE = (960, 540)
#: The 3D view between the overlay's panels (the panels list names in glow colours too).
VIEW = (slice(0, 540), slice(300, 720))


def run_example(name: str, tmp_path: Path, *args: str) -> tuple[np.ndarray, list[str]]:
    shot = tmp_path / f"{name}.png"
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), "--headless", "--log",
         "--screenshot", str(shot), "--size", "x".join(map(str, SIZE)), *args],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    img = np.asarray(Image.open(shot).convert("RGB"))
    assert img.shape == (SIZE[1], SIZE[0], 3)
    return img[VIEW], out.stdout.splitlines()


def glow_pixels(img: np.ndarray) -> tuple[int, int]:
    """(red, orange) pixel counts: the local and the world glow colours."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    red = (r > 200) & (g < 90) & (b < 80)
    orange = (r > 200) & (g > 100) & (g < 190) & (b < 60)
    return int(red.sum()), int(orange.sum())


def log_blocks(lines: list[str]) -> dict[int, list[str]]:
    """``# frame N`` blocks of a --log output: {N: its lines}."""
    blocks: dict[int, list[str]] = {}
    for line in lines:
        if line.startswith("# frame "):
            current = blocks.setdefault(int(line.split()[2]), [])
        elif not line.startswith("# wrote"):
            current.append(line)
    return blocks


def local_and_world(locals_, worlds):
    """The log lines of a frame that set `locals_` and recomputed `worlds` (pre-order)."""
    lines = []
    for name in worlds:
        if name in locals_:
            lines.append(f"*Update Local : {name}*")
        lines.append(f"=Update World : {name}=")
    return lines


def test_robot_arm(egl, tmp_path):
    img, lines = run_example("robot_arm", tmp_path)
    blocks = log_blocks(lines)
    # the controller sets both joints every frame: all the arm after the base follows
    expected = local_and_world(
        {"shoulder", "elbow"},
        ["shoulder", "upper_arm", "elbow", "forearm", "wrist", "gripper"],
    )
    assert sorted(blocks) == list(range(1, 91))
    assert all(block == expected for block in blocks.values())
    red, orange = glow_pixels(img)
    assert red > 300 and orange > 3000  # the joints red, the links orange


def test_chain_touch(egl, tmp_path):
    img, lines = run_example("chain_touch", tmp_path)
    assert log_blocks(lines) == {
        n: local_and_world({"Obj3"}, ["Obj3", "Obj4", "Obj5"]) for n in (60, 120)
    }
    red, orange = glow_pixels(img)
    assert red > 1000 and orange > 2000  # Obj3 red; Obj4 and Obj5 orange
    # a second after the touch at frame 60, the glow has faded: nothing lit
    img, _ = run_example("chain_touch", tmp_path, "--frames", "119")
    red, orange = glow_pixels(img)
    assert red < 50 and orange < 50  # (the red x axis of the world axes is a few pixels)


def test_disk_and_rect(egl, tmp_path):
    img, lines = run_example("disk_and_rect", tmp_path)
    blocks = log_blocks(lines)
    expected = local_and_world({"disk", "pivot"}, ["disk", "pivot", "rect"])
    assert sorted(blocks) == list(range(1, 46))
    assert all(block == expected for block in blocks.values())
    red, orange = glow_pixels(img)
    assert red > 5000 and orange > 5000  # the disk red (moved), the rectangle orange


@pytest.mark.parametrize("name", ["robot_arm", "chain_touch", "disk_and_rect"])
def test_examples_say_how_to_run_them(name):
    text = (EXAMPLES / f"{name}.py").read_text(encoding="utf-8")
    assert f"python docs/examples/{name}.py --headless" in text
