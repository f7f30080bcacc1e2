"""GIF recordings keep the small coloured things (issue 34's newcomer trial: in the
slow-replay GIF the world axes were grey while the window showed them pink, green and
blue). Generated frames: a large shaded backdrop with a few thin strokes of random
saturated colours; and a real recording against the screenshot of the same frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from viewer.cli.main import main
from viewer.render.backdrop import AXIS_COLORS
from viewer.render.gif_palette import MISS, quantize

REPO = Path(__file__).resolve().parents[2]


def _as_rgb(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGB")).astype(np.int32)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    strokes=st.lists(
        st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
        min_size=1, max_size=12,
    ),
)  # fmt: skip
def test_every_few_pixel_colour_keeps_an_entry_of_its_own(seed, strokes):
    rng = np.random.default_rng(seed)
    h, w = 120, 200
    y, x = np.mgrid[0:h, 0:w]
    base = rng.integers(0, 200, size=3)
    slope = rng.uniform(-0.4, 0.4, size=(2, 3))
    frame = base + y[..., None] * slope[0] + x[..., None] * slope[1]  # a shaded backdrop
    frame = np.clip(frame + rng.normal(0, 3, size=frame.shape), 0, 255).astype(np.uint8)
    for k, colour in enumerate(strokes):  # thin strokes: a few dozen pixels each
        row = 5 + 9 * k
        frame[row : row + 2, 10 + 7 * k : 40 + 7 * k] = colour
    out = _as_rgb(quantize(frame))
    for k, colour in enumerate(strokes):
        row = 5 + 9 * k
        got = out[row : row + 2, 10 + 7 * k : 40 + 7 * k]
        assert np.abs(got - np.asarray(colour)).sum(axis=2).max() <= MISS, (colour, got[0, 0])
    # The price: half the entries left to the backdrop. On this noisy gradient (the
    # hardest case: every pixel a colour of its own) its mean error stays within half as
    # much again as the median cut's alone; rendered frames measure about the same.
    plain = _as_rgb(Image.fromarray(frame).quantize(colors=256, dither=Image.Dither.NONE))
    err = np.abs(out - frame).sum(axis=2).mean()
    assert err <= 1.5 * np.abs(plain - frame).sum(axis=2).mean() + 0.5


def _shade_of(img: np.ndarray, rgb, cos_min: float = 0.995) -> np.ndarray:
    """Colourful pixels whose colour is a shade of `rgb` (blending scales colours)."""
    img = img.astype(np.float64)
    colourful = img.max(axis=2) - img.min(axis=2) >= 40
    target = np.asarray(rgb, dtype=np.float64)
    cos = (img @ target) / (np.linalg.norm(img, axis=2) * np.linalg.norm(target) + 1e-9)
    return colourful & (cos >= cos_min)


def test_the_recorded_world_axes_have_the_colours_of_the_window(gl_ctx, tmp_path):
    """The README's slow-replay command, one frame: the GIF's frame against the PNG
    screenshot of the same picture; the pixels of an axis colour there keep their
    colour in the GIF (within `MISS`)."""
    gif, png = tmp_path / "ripple.gif", tmp_path / "shot.png"
    assert main([str(REPO / "scenes" / "tree10.toml"), "--headless", "--still",
                 "--frames", "1", "--size", "960x540", "--record", str(gif),
                 "--screenshot", str(png)]) == 0  # fmt: skip
    shot = np.asarray(Image.open(png).convert("RGB"))
    with Image.open(gif) as g:
        recorded = _as_rgb(g)
    for colour in AXIS_COLORS:
        rgb = 255 * np.asarray(colour[:3])
        in_shot = _shade_of(shot, rgb)
        assert in_shot.sum() > 20, "the axis is not in the picture"
        miss = np.abs(recorded - shot).sum(axis=2)[in_shot]
        kept = (miss <= MISS).mean()
        assert kept >= 0.95, f"axis {colour}: {kept:.2f} of its pixels kept, misses {miss}"
