"""CIEDE2000 colour differences between 8-bit sRGB pictures (for comparing renderers).

The formula of Sharma, Wu and Dalal, "The CIEDE2000 color-difference formula:
implementation notes, supplementary test data, and mathematical observations" (2005),
with kL = kC = kH = 1; colours go sRGB -> CIE XYZ (D65) -> CIELAB first. Vectorised over
pixels. tests/bench/test_colour_difference.py checks it against the paper's test pairs.
"""

from __future__ import annotations

import numpy as np

#: sRGB (linear) to CIE XYZ, and the D65 white point (IEC 61966-2-1).
_RGB_TO_XYZ = np.array([
    [0.4124564, 0.3575761, 0.1804375],
    [0.2126729, 0.7151522, 0.0721750],
    [0.0193339, 0.1191920, 0.9503041],
])  # fmt: skip
_WHITE = np.array([0.95047, 1.0, 1.08883])


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB [..., 3] of 8-bit sRGB colours [..., 3]."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    t = (linear @ _RGB_TO_XYZ.T) / _WHITE
    delta = 6.0 / 29.0
    f = np.where(t > delta**3, np.cbrt(t), t / (3.0 * delta**2) + 4.0 / 29.0)
    return np.stack([116.0 * f[..., 1] - 16.0, 500.0 * (f[..., 0] - f[..., 1]),
                     200.0 * (f[..., 1] - f[..., 2])], axis=-1)  # fmt: skip


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """Delta E 2000 between CIELAB colours [..., 3] (broadcast)."""
    lab1, lab2 = np.asarray(lab1, np.float64), np.asarray(lab2, np.float64)
    l1, a1, b1 = np.moveaxis(lab1, -1, 0)
    l2, a2, b2 = np.moveaxis(lab2, -1, 0)
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2.0
    g = 0.5 * (1.0 - np.sqrt(c_mean**7 / (c_mean**7 + 25.0**7)))
    a1p, a2p = (1.0 + g) * a1, (1.0 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360.0
    chroma = c1p * c2p
    dh = h2p - h1p
    dh = np.where(dh > 180.0, dh - 360.0, np.where(dh < -180.0, dh + 360.0, dh))
    dh = np.where(chroma == 0.0, 0.0, dh)
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2.0 * np.sqrt(chroma) * np.sin(np.radians(dh) / 2.0)
    l_mean, cp_mean = (l1 + l2) / 2.0, (c1p + c2p) / 2.0
    h_sum = h1p + h2p
    wrapped = np.where(h_sum < 360.0, (h_sum + 360.0) / 2.0, (h_sum - 360.0) / 2.0)
    h_mean = np.where(np.abs(h1p - h2p) <= 180.0, h_sum / 2.0, wrapped)
    h_mean = np.where(chroma == 0.0, h_sum, h_mean)
    hr = np.radians(h_mean)
    t = (1.0 - 0.17 * np.cos(hr - np.radians(30.0)) + 0.24 * np.cos(2.0 * hr)
         + 0.32 * np.cos(3.0 * hr + np.radians(6.0))
         - 0.20 * np.cos(4.0 * hr - np.radians(63.0)))  # fmt: skip
    d_theta = 30.0 * np.exp(-(((h_mean - 275.0) / 25.0) ** 2))
    r_c = 2.0 * np.sqrt(cp_mean**7 / (cp_mean**7 + 25.0**7))
    s_l = 1.0 + 0.015 * (l_mean - 50.0) ** 2 / np.sqrt(20.0 + (l_mean - 50.0) ** 2)
    s_c = 1.0 + 0.045 * cp_mean
    s_h = 1.0 + 0.015 * cp_mean * t
    r_t = -np.sin(np.radians(2.0 * d_theta)) * r_c
    q_l, q_c, q_h = d_l / s_l, d_c / s_c, d_h / s_h
    return np.sqrt(np.maximum(q_l**2 + q_c**2 + q_h**2 + r_t * q_c * q_h, 0.0))


def image_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel Delta E 2000 between two 8-bit sRGB pictures [h, w, 3]."""
    return ciede2000(srgb_to_lab(a[..., :3]), srgb_to_lab(b[..., :3]))
