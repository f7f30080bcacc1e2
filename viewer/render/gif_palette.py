"""A GIF frame's 256 colours that keep the small coloured things (numpy and Pillow).

Pillow's median cut splits the colour space by pixel count, so a colour that covers few
pixels shares a palette entry with a big neighbour: the world axes' thin pink, green and
blue dashes, a gizmo ring or a name's glow colour would come out grey in recordings
though the window shows them coloured. Here half the entries come from the median cut of the whole
frame (`COMMON`), and the rest, in `ROUNDS` rounds each taking half of what is left (all
in the last), from a median cut of only the pixels the entries so far miss by more than
`MISS` (summed over R, G, B): a few-pixel colour gets an entry of its own. Each pixel then
takes its nearest entry, worked out once per distinct colour.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

__all__ = ["COMMON", "MISS", "ROUNDS", "quantize"]

#: Palette entries given to the frame's colours by pixel count; the rest go to the missed.
COMMON = 128
#: Rounds that give entries to the colours still missed.
ROUNDS = 3
#: A colour farther than this from its entry (|dR| + |dG| + |dB|) counts as missed.
MISS = 24
_ROWS = 4096  # distinct colours compared with the palette at a time (bounded memory)


def quantize(rgb: np.ndarray) -> Image.Image:
    """The (h, w, 3) uint8 frame `rgb` as a 256-colour "P" image, without dithering."""
    frame = Image.fromarray(rgb, "RGB")
    found = frame.getcolors(maxcolors=rgb.shape[0] * rgb.shape[1])  # [(count, (r, g, b))]
    if found is None:  # (only where there are more colours than pixels)
        raise ValueError("Pillow counted more colours than pixels")
    counts = np.array([count for count, _ in found], dtype=np.int64)
    colours = np.array([colour for _, colour in found], dtype=np.int32).reshape(-1, 3)
    distinct = (colours[:, 0] << 16) | (colours[:, 1] << 8) | colours[:, 2]
    order = np.argsort(distinct)
    counts, colours, distinct = counts[order], colours[order], distinct[order]
    flat = rgb.reshape(-1, 3)
    packed = (flat[:, 0].astype(np.int32) << 16) | (flat[:, 1].astype(np.int32) << 8)
    packed |= flat[:, 2]
    where = np.searchsorted(distinct, packed)  # each pixel's distinct colour
    palette = _median_cut(frame, COMMON)
    entry = _nearest(colours, palette)
    for round_ in range(ROUNDS):
        missed = np.abs(palette[entry].astype(np.int32) - colours).sum(axis=1) > MISS
        left = 256 - len(palette)
        if not missed.any() or left == 0:
            break
        share = left if round_ == ROUNDS - 1 else max(left // 2, 1)
        pixels = np.repeat(colours[missed], counts[missed], axis=0).astype(np.uint8)
        extra = _median_cut(Image.fromarray(pixels.reshape(1, -1, 3), "RGB"), share)
        palette = np.concatenate([palette, extra])
        entry = _nearest(colours, palette)
    image = Image.fromarray(entry[where].reshape(rgb.shape[:2]).astype(np.uint8), "P")
    image.putpalette(palette.reshape(-1).tolist())
    return image


def _median_cut(image: Image.Image, colours: int) -> np.ndarray:
    """Pillow's median-cut palette of `image` with at most `colours` entries, those used."""
    q = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    entries = q.getpalette()
    if entries is None:  # (a quantized image always has one)
        raise ValueError("Pillow's median cut gave no palette")
    palette = np.asarray(entries[: 3 * colours], dtype=np.uint8).reshape(-1, 3)
    return palette[np.unique(np.asarray(q))]


def _nearest(colours: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """Index of the nearest `palette` entry (squared RGB distance) of each colour."""
    entries = palette.astype(np.int32)
    out = np.empty(len(colours), dtype=np.int64)
    for start in range(0, len(colours), _ROWS):
        part = colours[start : start + _ROWS, None, :] - entries[None]
        out[start : start + _ROWS] = np.einsum("ijk,ijk->ij", part, part).argmin(axis=1)
    return out
