"""What the docs say about the viewer is what it does: one key table (viewer.keys.controls)
printed word for word in the README, docs/viewer.md and --help; one pair of recording
rates in --help, docs/viewer.md and the recorded files; doc commands that run the venv's
python rather than whichever `python` is on the PATH."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from viewer.cli.args import build_parser
from viewer.cli.main import main
from viewer.keys.controls import KEY_HELP, MOUSE_HELP, key_table_markdown
from viewer.render.offscreen import FPS, GIF_FPS

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", ["README.md", "docs/viewer.md"])
def test_the_key_table_is_the_one_in_controls(page):
    text = _read(REPO / page)
    hint = f"paste viewer.keys.controls.key_table_markdown() into {page}"
    assert key_table_markdown() + "\n" in text, hint
    assert text.count("| input | action |") == 1


def test_help_lists_the_same_keys():
    text = build_parser().format_help()
    for key, what in MOUSE_HELP + KEY_HELP:
        assert re.search(rf"^  {re.escape(key)} +{re.escape(what)}$", text, re.M), key


def _rates(text: str) -> tuple[int, int]:
    mp4 = re.search(r"mp4`?\s*\((?:[^,()]+, )?(\d+) frames/s", text)
    gif = re.search(r"gif`?\s*\((?:[^,()]+, )?(\d+) frames/s", text)
    return int(mp4[1]), int(gif[1])


def test_recording_rates_are_stated_the_same_everywhere():
    help_text = " ".join(build_parser().format_help().split())
    option_row = next(line for line in _read(REPO / "docs/viewer.md").splitlines()
                      if line.startswith("| `--record OUT`"))  # fmt: skip
    assert _rates(help_text) == _rates(option_row) == (FPS, GIF_FPS)


def test_a_gif_recording_plays_at_the_stated_rate(tmp_path):
    out = tmp_path / "r.gif"
    frames = 24
    args = ["--generate", "chain:3", "--headless", "--size", "64x48", "--no-overlay"]
    assert main([*args, "--frames", str(frames), "--record", str(out)]) == 0
    with Image.open(out) as gif:
        delays = []
        for k in range(gif.n_frames):
            gif.seek(k)
            delays.append(gif.info["duration"])
    assert len(delays) == frames * GIF_FPS // FPS
    assert sum(delays) == pytest.approx(1000 * frames / FPS)  # lasts as long as it ran


def _mp4_rate_and_frames(path: Path) -> tuple[float, int]:
    """Frame rate and frame count of an mp4, read back through imageio-ffmpeg or ffprobe."""
    try:
        import imageio_ffmpeg
    except ImportError:
        ffprobe = shutil.which("ffprobe")
        if ffprobe is None:
            pytest.skip("neither imageio-ffmpeg nor ffprobe is installed")
        probe = subprocess.run(
            [ffprobe, "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
             "stream=r_frame_rate,nb_read_frames", "-of", "csv=p=0", str(path)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        rate, count = probe.stdout.strip().split(",")
        num, den = rate.split("/")
        return int(num) / int(den), int(count)
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    return float(meta["fps"]), sum(1 for _ in reader)


def test_an_mp4_recording_plays_at_the_stated_rate(tmp_path):
    out = tmp_path / "r.mp4"
    args = ["--generate", "chain:3", "--headless", "--size", "64x48", "--no-overlay"]
    assert main([*args, "--frames", "12", "--record", str(out)]) == 0
    assert _mp4_rate_and_frames(out) == (FPS, 12)


def test_doc_commands_use_the_venvs_python():
    bare = re.compile(r"(?:^\s*|[`(;&|]\s*|\$ )python3? (?!-m venv)\S+\.py")
    for page in DOCS:
        for number, line in enumerate(_read(page).splitlines(), 1):
            assert not bare.search(line), f"{page.name}:{number}: use .venv/bin/python: {line}"


def test_viewer_md_lists_every_option():
    rows = _read(REPO / "docs/viewer.md")
    for action in build_parser()._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag != "--help":
                assert f"| `{flag}" in rows, flag
